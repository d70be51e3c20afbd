#pragma once
// PyTorch profiler (Kineto) Chrome traces -> `kernel_trace`, streaming.
//
// What is read (../shared/FORMATS.md section 1):
// - GPU activity (`kernel`, `gpu_memcpy`, `gpu_memset`) -> one `kernel_event` each, with grid,
//   block, registers, shared memory, occupancy estimate and, for NCCL kernels launched under
//   `record_param_comms`, the collective's name, message sizes, group size and dtype;
// - launches (`cuda_runtime`, `cuda_driver`), linked to GPU events by `correlation`;
// - CPU operators (`cpu_op`, with `Input Dims`/`Input type` when record_shapes was on), linked to
//   the launches they contain: the innermost op on the launching thread whose span contains the
//   launch call. `External id` is the shortcut when it agrees (modern traces: 766 of the 768
//   B200-sample kernels); it is ignored where it merely repeats the correlation id (old traces
//   such as DeepSeek's, where it matches no op). A linked op also gets the sizes of the tensors
//   it allocated itself (the Concrete Inputs of its direct `aten::empty` children,
//   `cpu_op::allocations`), which price engine ops that hide their weights behind a layer name;
// - `user_annotation` / `gpu_user_annotation` ranges and `ProfilerStep#N` steps;
// - `deviceProperties`, `distributedInfo`, `baseTimeNanoseconds`.
// Other categories (python_function, flows, instant events, ...) are counted and dropped.
// Time styles: old traces write integer epoch microseconds, new ones fractional microseconds
// relative to `baseTimeNanoseconds`; both become seconds after the first complete event.
//
// Memory. The scan holds one event at a time plus a buffer of a few MB (see
// io/detail/chrome_trace_scan.hpp). What must be kept until the end of the file, because
// Kineto writes all CPU ops before the GPU activity and the launches, is:
//   per GPU event      184 B   (the output itself)
//   per launch call     40 B   (correlation -> thread, time, duration, API name)
//   per cpu_op          48 B   (span, thread, interned name, shapes, types and concrete inputs)
//   per distinct string (kernel names, op names, shapes) its size, once,
// in chunked tables (io/detail/chunked_vector.hpp: no growth slack, no copy while growing).
// Linking then adds about 4 B per op and call and 36 B per GPU event (sorted indices instead
// of hash maps), and the linked ops (104 B each) are allocated once at their exact count.
// python_function events (usually the majority), flows and everything else cost nothing. So
// `read_kineto` peaks at O(GPU events + launches + ops), not O(file size).
// `summarize_kineto` keeps only per-name totals and stays flat (14 MB peak RSS at 128 MB and
// 1 GB). Numbers: examples/bench/trace_json_rss.sh and compare_python.py, README "Accuracy and
// speed".

#include <algorithm>      // std::sort, std::upper_bound, std::binary_search, std::unique
#include <cmath>          // std::isnan, std::isfinite
#include <cstdint>        // std::int64_t, std::uint32_t
#include <cstdlib>        // std::free
#include <map>            // std::map
#include <memory>         // std::unique_ptr
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map (threads, demangled names, phases)
#include <utility>        // std::pair
#include <vector>         // std::vector

#if defined(__has_include)
#if __has_include(<cxxabi.h>)
#include <cxxabi.h>  // abi::__cxa_demangle
#define ROOFLINE_HAVE_CXXABI 1
#endif
#endif

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// Options of `read_kineto`.
struct kineto_options {
    /// Rules classifying kernel names into phases; nullptr: the built-in data/kernel_rules.json.
    const kernel_rules* rules = nullptr;
    /// Link GPU events to their launching CPU ops (costs the op index, see the file comment).
    bool link_ops = true;
    /// Threads that parse events beside the reading thread (`io::detail::batched_event_scan`);
    /// negative: one less than the hardware threads, at most 3; 0: a single thread. The result
    /// is the same for every value.
    int parse_workers = -1;
    /// Bytes of the tables kept until the end of the file (GPU events, launch calls, CPU ops)
    /// past which `read_kineto` stops with `trace_too_large`; 0: no limit. `roofline trace` reads
    /// a trace that passes it with the streaming analysis (analysis/trace_stream.hpp).
    std::size_t max_table_bytes = 0;
};

/// `read_kineto` stopped: the trace's tables passed `kineto_options::max_table_bytes`.
class trace_too_large : public error {
public:
    trace_too_large(const std::string& file, std::size_t limit_bytes)
        : error(file + ": the trace's tables pass " + std::to_string(limit_bytes) + " bytes") {}
};

/// Reads a Kineto / PyTorch profiler trace (`.json` or `.json.gz`) into a `kernel_trace`.
///
/// Bad events (missing or mistyped `ts`/`dur`, negative `dur`, a GPU event without a name, an
/// element of `traceEvents` that is not an object) are skipped and counted in `stats`. Throws
/// `parse_error` naming the file and byte offset for a missing, empty, truncated, corrupt-gzip or
/// malformed file, or one without `traceEvents`.
kernel_trace read_kineto(const std::string& path, const kineto_options& options = {});

/// The per-phase and per-kernel-name summary of a Kineto trace in one streaming pass, in
/// constant memory (one entry per distinct kernel name; no launch linking). Gives the same
/// summary and read counts as `summarize(read_kineto(path))`. `parse_workers` as in
/// `kineto_options`. Errors as `read_kineto`.
trace_summary summarize_kineto(const std::string& path, const kernel_rules& rules, int parse_workers = -1);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/chrome_trace_scan.hpp"
#include "roofline/io/detail/chunked_vector.hpp"
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

/// `name` demangled when it is an Itanium-ABI mangled name ("_ZN7cutlass..."), else unchanged.
inline std::string demangle(std::string_view name) {
#ifdef ROOFLINE_HAVE_CXXABI
    if (name.size() > 2 && name[0] == '_' && name[1] == 'Z') {
        int status = 0;
        const std::string copy(name);
        std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status), std::free);
        if (status == 0 && out) return out.get();
    }
#endif
    return std::string(name);
}

/// "ProfilerStep#12" -> 12; -1 otherwise.
inline std::int64_t profiler_step_number(std::string_view name) {
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.substr(0, prefix.size()) != prefix) return -1;
    const auto n = parse_int(name.substr(prefix.size()));
    return n ? *n : -1;
}

/// Longest duration a Kineto event may have: one day, in microseconds.
inline constexpr double kineto_max_dur_us = 86400.0 * 1e6;

/// Why an `X` event's times are unusable ("negative_dur", "implausible_dur" past a day, ...), or
/// nullptr when they are fine.
inline const char* kineto_time_problem(const chrome_event& e) {
    if (e.ts_wrong_type) return "wrong_type(ts)";
    if (e.dur_wrong_type) return "wrong_type(dur)";
    if (std::isnan(e.ts)) return "missing_ts";
    if (std::isnan(e.dur)) return "missing_dur";
    if (!std::isfinite(e.ts) || !std::isfinite(e.dur)) return "non_finite_time";
    if (e.dur < 0) return "negative_dur";
    // A profiler records seconds to hours; a duration past a day (8.64e10 us) is a corrupt or
    // hand-made value that would stretch the window (and every share) by orders of magnitude.
    if (e.dur > kineto_max_dur_us) return "implausible_dur";
    return nullptr;
}

/// The category of an event in today's spelling: old Kineto traces (PyTorch 1.8-1.10) wrote
/// "Kernel", "Memcpy", "Memset", "Runtime" and "Operator" for today's "kernel", "gpu_memcpy",
/// "gpu_memset", "cuda_runtime" and "cpu_op" (HolisticTraceAnalysis trace_file_list/ has such a
/// trace: its 4 kernels read as "no GPU activity" before). Other categories pass unchanged.
inline std::string_view kineto_category(std::string_view c) {
    if (key_is(c, "Kernel")) return "kernel";
    if (key_is(c, "Memcpy")) return "gpu_memcpy";
    if (key_is(c, "Memset")) return "gpu_memset";
    if (key_is(c, "Runtime")) return "cuda_runtime";
    if (key_is(c, "Operator")) return "cpu_op";
    return c;
}

/// True for the categories the readers use (and therefore validate).
inline bool kineto_used_category(std::string_view c) {
    c = kineto_category(c);
    return key_is(c, "kernel") || key_is(c, "gpu_memcpy") || key_is(c, "gpu_memset") || key_is(c, "cuda_runtime") ||
           key_is(c, "cuda_driver") || key_is(c, "cpu_op") || key_is(c, "user_annotation") ||
           key_is(c, "gpu_user_annotation");
}

/// What a Kineto event is to the readers.
enum class kineto_kind : std::uint8_t { ignore, gpu, runtime, op, annotation, gpu_annotation };

/// The kind of `e` by its `ph` and category (`activity` set for GPU events); `ignore` for the
/// events no reader uses (not complete `X` events, other categories). Counts nothing.
inline kineto_kind kineto_kind_of(const chrome_event& e, gpu_activity& activity) {
    activity = gpu_activity::kernel;
    if (!key_is(e.ph, "X")) return kineto_kind::ignore;  // metadata, instants, flows, counters
    const std::string_view c = kineto_category(e.cat);
    if (key_is(c, "kernel")) return kineto_kind::gpu;
    if (key_is(c, "gpu_memcpy")) return activity = gpu_activity::memcpy, kineto_kind::gpu;
    if (key_is(c, "gpu_memset")) return activity = gpu_activity::memset, kineto_kind::gpu;
    if (key_is(c, "cuda_runtime") || key_is(c, "cuda_driver")) return kineto_kind::runtime;
    if (key_is(c, "cpu_op")) return kineto_kind::op;
    if (key_is(c, "user_annotation")) return kineto_kind::annotation;
    if (key_is(c, "gpu_user_annotation")) return kineto_kind::gpu_annotation;
    return kineto_kind::ignore;
}

/// The fields of GPU event `ev` that come straight from `e` (device, stream, duration, ids, grid,
/// block, registers, shared memory, occupancy, bytes); name, phase and start are the caller's.
inline void fill_gpu_event(const chrome_event& e, gpu_activity activity, kernel_event& ev) {
    ev.activity = activity;
    ev.device = e.device >= 0 ? static_cast<int>(e.device) : e.has_pid && e.pid_text.empty() ? static_cast<int>(e.pid) : -1;
    ev.stream = e.stream >= 0 ? e.stream : e.has_tid && e.tid_text.empty() ? e.tid : -1;
    ev.duration_s = e.dur * 1e-6;
    ev.correlation = e.correlation;
    ev.external_id = e.external_id;
    for (int i = 0; i < 3; ++i) {
        ev.grid[i] = e.grid[i] >= 0 ? static_cast<std::uint32_t>(e.grid[i]) : 0;
        ev.block[i] = e.block[i] >= 0 ? static_cast<std::uint32_t>(e.block[i]) : 0;
    }
    ev.registers_per_thread = static_cast<int>(e.registers_per_thread);
    ev.shared_memory_bytes = e.shared_memory;
    ev.blocks_per_sm = static_cast<float>(e.blocks_per_sm);
    ev.warps_per_sm = static_cast<float>(e.warps_per_sm);
    ev.occupancy_pct = static_cast<float>(e.occupancy_pct);
    ev.bytes = e.bytes;
}

/// The NCCL collective metadata of GPU event `e` (strings interned in `pool`).
inline collective_info collective_of_event(const chrome_event& e, string_pool& pool) {
    collective_info ci;
    ci.name = pool.intern(e.collective_name);
    ci.dtype = pool.intern(e.dtype);
    ci.in_msg_nelems = e.in_msg_nelems;
    ci.out_msg_nelems = e.out_msg_nelems;
    ci.group_size = static_cast<int>(e.group_size);
    ci.process_group_name = pool.intern(e.pg_name);
    ci.process_group_desc = pool.intern(e.pg_desc);
    ci.seq = e.seq;
    return ci;
}

/// The thread of a CPU event as one key: numeric pid and tid, or the hashes of their texts.
inline std::pair<std::int64_t, std::int64_t> kineto_thread_key(const chrome_event& e) {
    const std::int64_t p = e.pid_text.empty() ? e.pid : static_cast<std::int64_t>(std::hash<std::string_view>{}(e.pid_text));
    const std::int64_t t = e.tid_text.empty() ? e.tid : static_cast<std::int64_t>(std::hash<std::string_view>{}(e.tid_text));
    return {p, t};
}

/// Kernel names as the readers keep them: demangled where mangled, interned in `pool`, each with
/// its phase by `rules` (memcpy and memset events are phases of their own). Caches both.
class kernel_name_table {
public:
    kernel_name_table(string_pool& pool, const kernel_rules& rules) : pool_(pool), rules_(rules) {}

    /// The interned (demangled) name of raw trace name `raw`.
    std::string_view name(std::string_view raw) {
        if (raw.size() > 2 && raw[0] == '_' && raw[1] == 'Z') {
            const auto raw_id = pool_.id(raw);
            const auto it = demangled_.find(raw_id);
            if (it != demangled_.end()) return it->second;
            const auto v = pool_.intern(demangle(raw));
            demangled_.emplace(raw_id, v);
            return v;
        }
        return pool_.intern(raw);
    }
    /// The phase of an activity named `interned_name` (a view `name` returned).
    kernel_phase phase(std::string_view interned_name, gpu_activity a) {
        if (a == gpu_activity::memcpy) return kernel_phase::memcpy;
        if (a == gpu_activity::memset) return kernel_phase::memset;
        const auto it = phases_.find(interned_name.data());
        if (it != phases_.end()) return it->second;
        const auto p = rules_.classify(interned_name);
        phases_.emplace(interned_name.data(), p);
        return p;
    }

private:
    string_pool& pool_;
    const kernel_rules& rules_;
    std::unordered_map<std::uint32_t, std::string_view> demangled_;
    std::unordered_map<const char*, kernel_phase> phases_;
};

/// Assembles a `kernel_trace` from scanned events, then links and classifies (see read_kineto).
class kineto_builder {
public:
    kineto_builder(kernel_trace& out, const kernel_rules& rules, bool link_ops)
        : t_(out), rules_(rules), link_ops_(link_ops) {}

    void top_level(std::string_view key, std::string_view json, std::uint64_t offset) {
        if (key != "deviceProperties" && key != "distributedInfo" && key != "baseTimeNanoseconds") return;
        const auto v = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
        if (v.is_discarded())
            throw parse_error(t_.file, "byte " + std::to_string(offset), std::string(key), "malformed JSON");
        if (key == "baseTimeNanoseconds") {
            if (v.is_number_integer()) t_.base_time_ns = v.get<std::int64_t>();
            else if (v.is_number() && std::isfinite(v.get<double>()) && std::fabs(v.get<double>()) < 9.2e18)
                t_.base_time_ns = static_cast<std::int64_t>(v.get<double>());
            return;
        }
        if (key == "deviceProperties" && v.is_array()) {
            for (const auto& d : v) {
                if (!d.is_object()) continue;
                device_properties p;
                p.id = int_of(d, "id");
                if (const auto it = d.find("name"); it != d.end() && it->is_string()) p.name = it->get<std::string>();
                p.total_global_mem_bytes = real_of(d, "totalGlobalMem");
                p.compute_major = int_of(d, "computeMajor");
                p.compute_minor = int_of(d, "computeMinor");
                p.num_sms = int_of(d, "numSms");
                p.max_threads_per_block = int_of(d, "maxThreadsPerBlock");
                p.max_threads_per_multiprocessor = int_of(d, "maxThreadsPerMultiprocessor");
                p.regs_per_block = int_of(d, "regsPerBlock");
                p.regs_per_multiprocessor = int_of(d, "regsPerMultiprocessor");
                p.warp_size = int_of(d, "warpSize");
                p.shared_mem_per_block_bytes = real_of(d, "sharedMemPerBlock");
                p.shared_mem_per_multiprocessor_bytes = real_of(d, "sharedMemPerMultiprocessor");
                if (std::isnan(p.shared_mem_per_multiprocessor_bytes))  // ROCm spelling
                    p.shared_mem_per_multiprocessor_bytes = real_of(d, "maxSharedMemoryPerMultiProcessor");
                p.shared_mem_per_block_optin_bytes = real_of(d, "sharedMemPerBlockOptin");
                t_.devices.push_back(std::move(p));
            }
        }
        if (key == "distributedInfo" && v.is_object()) {
            distributed_info d;
            if (const auto it = v.find("backend"); it != v.end() && it->is_string()) d.backend = it->get<std::string>();
            d.rank = int_of(v, "rank");
            d.world_size = int_of(v, "world_size");
            if (const auto it = v.find("nccl_version"); it != v.end() && it->is_string()) d.nccl_version = it->get<std::string>();
            if (const auto pg = v.find("pg_config"); pg != v.end() && pg->is_array()) {
                for (const auto& g : *pg) {
                    if (!g.is_object()) continue;
                    distributed_info::process_group grp;
                    if (const auto it = g.find("pg_name"); it != g.end() && it->is_string()) grp.name = it->get<std::string>();
                    if (const auto it = g.find("pg_desc"); it != g.end() && it->is_string()) grp.desc = it->get<std::string>();
                    if (const auto it = g.find("backend_config"); it != g.end() && it->is_string()) grp.backend_config = it->get<std::string>();
                    grp.size = int_of(g, "pg_size");
                    if (const auto r = g.find("ranks"); r != g.end() && r->is_array())
                        for (const auto& x : *r)
                            if (x.is_number_integer()) grp.ranks.push_back(x.get<int>());
                    d.groups.push_back(std::move(grp));
                }
            }
            t_.distributed = std::move(d);
        }
    }

    void event(const chrome_event& e, std::uint64_t /*offset*/, std::size_t /*index*/) {
        auto& st = t_.stats;
        ++st.events_read;
        if (!e.is_object) {
            st.skip("not_an_object");
            return;
        }
        count_category(e);
        gpu_activity activity = gpu_activity::kernel;
        const kineto_kind k = kineto_kind_of(e, activity);
        if (k == kineto_kind::ignore) return;

        // Validate the times of every event we keep or use.
        if (const char* problem = kineto_time_problem(e)) return st.skip(problem);
        if (!origin_set_) {
            origin_set_ = true;
            t_.time_origin_us = e.ts;
        }
        const double start_us = e.ts - t_.time_origin_us;
        if (start_us < min_start_us_) min_start_us_ = start_us;
        if (budget_bytes_ > 0) check_budget();

        switch (k) {
            case kineto_kind::gpu: {
                if (e.name.empty()) return st.skip("missing_name");
                kernel_event ev;
                ev.name = names_.name(e.name);
                fill_gpu_event(e, activity, ev);
                ev.phase = names_.phase(ev.name, activity);
                ev.start_s = start_us * 1e-6;
                if (!e.collective_name.empty()) {
                    ev.collective = static_cast<std::int32_t>(t_.collectives.size());
                    t_.collectives.push_back(collective_of_event(e, *t_.strings));
                }
                events_.push_back(ev);
                ++st.events_kept;
                return;
            }
            case kineto_kind::runtime:
                if (link_ops_ && e.correlation >= 0)
                    runtimes_.push_back({e.correlation, start_us, thread_of(e), t_.strings->id(e.name), kineto_category(e.cat) == "cuda_runtime", e.dur});
                return;
            case kineto_kind::op:
                if (link_ops_) {
                    op_record r;
                    r.start_us = start_us;
                    r.end_us = start_us + e.dur;
                    r.external_id = e.external_id;
                    r.thread = thread_of(e);
                    r.name = t_.strings->id(e.name);
                    r.dims = e.input_dims.empty() ? no_string : t_.strings->id(e.input_dims);
                    r.types = e.input_types.empty() ? no_string : t_.strings->id(e.input_types);
                    r.strides = e.input_strides.empty() ? no_string : t_.strings->id(e.input_strides);
                    r.concrete = e.concrete_inputs.empty() ? no_string : t_.strings->id(e.concrete_inputs);
                    if (r.concrete != no_string && e.name == "aten::empty") ++empties_with_sizes_;
                    ops_.push_back(r);
                }
                return;
            case kineto_kind::annotation:
            case kineto_kind::gpu_annotation: {
                annotation a;
                a.name = t_.strings->intern(e.name);
                a.start_s = start_us * 1e-6;
                a.duration_s = e.dur * 1e-6;
                a.gpu = k == kineto_kind::gpu_annotation;
                a.device = a.gpu && e.has_pid && e.pid_text.empty() ? static_cast<int>(e.pid) : -1;
                t_.annotations.push_back(a);
                if (!a.gpu) {
                    if (const auto n = profiler_step_number(e.name); n >= 0)
                        t_.steps.push_back({n, a.start_s, a.duration_s});
                }
                return;
            }
            case kineto_kind::ignore:
                return;
        }
    }

    /// Links events to launches and ops, assigns steps. Call once after the scan.
    void finish() {
        events_.move_into(t_.events);  // exact size: no growth slack in the output
        t_.relative_timestamps = t_.base_time_ns.has_value();
        if (!link_ops_) shift_origin();
        auto& L = t_.links;
        L.gpu_events = t_.events.size();
        std::sort(t_.steps.begin(), t_.steps.end(),
                  [](const profiler_step& a, const profiler_step& b) { return a.start_s < b.start_s; });
        if (!link_ops_) {
            L.unlinked = t_.events.size();
            return;
        }
        // correlation -> launch (prefer the runtime API call over the driver call it makes; of
        // two of a kind, the first): launch calls sorted by correlation, searched. A hash map of
        // every call was the reader's largest table after the ops.
        const auto launches = sorted_indices(runtimes_.size(), [&](std::uint32_t a, std::uint32_t b) {
            const auto& x = runtimes_[a];
            const auto& y = runtimes_[b];
            if (x.correlation != y.correlation) return x.correlation < y.correlation;
            if (x.runtime_api != y.runtime_api) return x.runtime_api;
            return a < b;
        });
        const auto launch_of = [&](std::int64_t correlation) -> std::int64_t {
            const auto it = std::lower_bound(launches.begin(), launches.end(), correlation,
                                             [&](std::uint32_t i, std::int64_t c) { return runtimes_[i].correlation < c; });
            return it != launches.end() && runtimes_[*it].correlation == correlation ? std::int64_t(*it) : -1;
        };
        // External id -> op, for the ids some GPU event names only (a trace has several ops per
        // kernel): (id, op) pairs sorted by id, the last op of an id kept.
        std::vector<std::int64_t> wanted;
        wanted.reserve(t_.events.size());
        for (const auto& ev : t_.events)
            if (ev.external_id >= 0) wanted.push_back(ev.external_id);
        std::sort(wanted.begin(), wanted.end());
        wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
        std::vector<std::pair<std::int64_t, std::uint32_t>> op_by_external;
        for (std::uint32_t i = 0; i < ops_.size(); ++i)
            if (ops_[i].external_id >= 0 && std::binary_search(wanted.begin(), wanted.end(), ops_[i].external_id))
                op_by_external.emplace_back(ops_[i].external_id, i);
        std::vector<std::int64_t>().swap(wanted);
        std::stable_sort(op_by_external.begin(), op_by_external.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        const auto op_of_external = [&](std::int64_t id) -> std::int64_t {
            auto it = std::upper_bound(op_by_external.begin(), op_by_external.end(), id,
                                       [](std::int64_t v, const auto& p) { return v < p.first; });
            return it != op_by_external.begin() && (--it)->first == id ? std::int64_t(it->second) : -1;
        };

        // Containment queries, one per event with a launch: (thread, launch time, event).
        struct query {
            std::uint32_t thread;
            double ts_us;
            std::uint32_t event;
        };
        std::vector<query> queries;
        std::vector<std::int32_t> inner(t_.events.size(), -1), outer(t_.events.size(), -1);
        std::vector<std::int32_t> launch(t_.events.size(), -1);  // each event's launch call, searched once
        for (std::uint32_t i = 0; i < t_.events.size(); ++i) {
            auto& ev = t_.events[i];
            if (ev.external_id >= 0 && op_of_external(ev.external_id) >= 0) ++L.external_id_matches;
            if (ev.correlation < 0) continue;
            const auto li = launch_of(ev.correlation);
            if (li < 0) continue;
            const auto& rt = runtimes_[static_cast<std::size_t>(li)];
            ++L.with_runtime;
            ev.launch_api = t_.strings->at(rt.name);
            launch[i] = static_cast<std::int32_t>(li);
            ev.launch_s = rt.ts_us * 1e-6;
            ev.launch_duration_s = rt.dur_us * 1e-6;
            queries.push_back({rt.thread, rt.ts_us, i});
        }
        const auto order = (!queries.empty() || empties_with_sizes_ > 0) ? ops_by_thread_and_start()
                                                                          : std::vector<std::uint32_t>();
        containment(order, queries, inner, outer);
        std::vector<query>().swap(queries);
        string_pool allocation_texts;
        const auto allocations = allocations_by_parent(order, allocation_texts);

        // Which ops the events keep, numbered in order of first use (each event's op, then its
        // outermost op), so that the op table is allocated once at its exact size.
        std::vector<std::int32_t> new_index(ops_.size(), -1);
        std::vector<std::uint32_t> kept;  // op record of each kept op
        auto keep_op = [&](std::int64_t oi) -> std::int32_t {
            if (oi < 0) return -1;
            auto& slot = new_index[static_cast<std::size_t>(oi)];
            if (slot < 0) {
                slot = static_cast<std::int32_t>(kept.size());
                kept.push_back(static_cast<std::uint32_t>(oi));
            }
            return slot;
        };
        for (std::uint32_t i = 0; i < t_.events.size(); ++i) {
            auto& ev = t_.events[i];
            // External id is trusted only when it is not just the correlation id again, and
            // (with a launch) only when its op is on the launching thread and contains the launch.
            std::int64_t by_ext = -1;
            if (ev.external_id >= 0 && ev.external_id != ev.correlation) {
                const auto oi = op_of_external(ev.external_id);
                if (oi >= 0) {
                    const auto& r = ops_[static_cast<std::size_t>(oi)];
                    if (launch[i] < 0) {
                        by_ext = oi;
                    } else {
                        const auto& rt = runtimes_[static_cast<std::size_t>(launch[i])];
                        if (r.thread == rt.thread && r.start_us <= rt.ts_us && rt.ts_us < r.end_us) by_ext = oi;
                    }
                }
            }
            if (by_ext >= 0) {
                ev.op = keep_op(by_ext);
                ev.link = launch_link::external_id;
                ++L.by_external_id;
            } else if (inner[i] >= 0) {
                ev.op = keep_op(inner[i]);
                ev.link = launch_link::containment;
                ++L.by_containment;
            } else {
                ++L.unlinked;
            }
            ev.top_op = keep_op(outer[i] >= 0 ? outer[i] : by_ext);
            // Step: by launch time in the CPU-side ProfilerStep ranges.
            if (launch[i] >= 0 && !t_.steps.empty()) {
                const double ts = runtimes_[static_cast<std::size_t>(launch[i])].ts_us * 1e-6;
                auto it = std::upper_bound(t_.steps.begin(), t_.steps.end(), ts,
                                           [](double x, const profiler_step& s) { return x < s.start_s; });
                if (it != t_.steps.begin()) {
                    --it;
                    if (ts < it->start_s + it->duration_s) ev.step = static_cast<std::int32_t>(it->number);
                }
            }
        }
        t_.ops.reserve(t_.ops.size() + kept.size());
        for (const auto oi : kept) {
            const auto& r = ops_[oi];
            cpu_op op;
            op.name = t_.strings->at(r.name);
            op.input_dims = r.dims == no_string ? std::string_view() : t_.strings->at(r.dims);
            op.input_types = r.types == no_string ? std::string_view() : t_.strings->at(r.types);
            op.input_strides = r.strides == no_string ? std::string_view() : t_.strings->at(r.strides);
            op.concrete_inputs = r.concrete == no_string ? std::string_view() : t_.strings->at(r.concrete);
            const auto a = std::lower_bound(allocations.begin(), allocations.end(), std::make_pair(oi, std::uint32_t(0)));
            if (a != allocations.end() && a->first == oi) op.allocations = t_.strings->intern(allocation_texts.at(a->second));
            op.external_id = r.external_id;
            op.start_s = r.start_us * 1e-6;
            op.duration_s = (r.end_us - r.start_us) * 1e-6;
            t_.ops.push_back(op);
        }
        runtimes_.clear();
        ops_.clear();
        shift_origin();
    }

private:
    static constexpr std::uint32_t no_string = 0xFFFFFFFFu;

    struct runtime_record {
        std::int64_t correlation;
        double ts_us;
        std::uint32_t thread;
        std::uint32_t name;
        bool runtime_api;
        double dur_us;
    };
    struct op_record {
        double start_us = 0, end_us = 0;
        std::int64_t external_id = -1;
        std::uint32_t thread = 0, name = 0, dims = no_string, types = no_string, concrete = no_string,
                      strides = no_string;
    };

    // Moves the time origin to the earliest kept event, so that every start_s is >= 0 (events
    // are not written in time order: the first one in the file need not be the earliest).
    void shift_origin() {
        if (!origin_set_ || !(min_start_us_ < 0)) return;
        const double shift_s = min_start_us_ * 1e-6;
        t_.time_origin_us += min_start_us_;
        for (auto& e : t_.events) {
            e.start_s -= shift_s;
            e.launch_s -= shift_s;  // NaN stays NaN
        }
        for (auto& a : t_.annotations) a.start_s -= shift_s;
        for (auto& s : t_.steps) s.start_s -= shift_s;
        for (auto& o : t_.ops) o.start_s -= shift_s;
    }

    static int int_of(const nlohmann::json& o, const char* key) {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_number()) return -1;
        return to_int_or<int>(it->get<double>(), -1);
    }
    static double real_of(const nlohmann::json& o, const char* key) {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_number()) return kernel_event::unknown;
        return it->get<double>();
    }

    // Events per `cat` (few distinct values: a linear search with a last-hit guess is enough).
    void count_category(const chrome_event& e) {
        auto& v = t_.events_by_category;
        if (last_cat_ < v.size() && v[last_cat_].first == e.cat) {
            ++v[last_cat_].second;
            return;
        }
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i].first == e.cat) {
                ++v[i].second;
                last_cat_ = i;
                return;
            }
        v.emplace_back(std::string(e.cat), 1);
        last_cat_ = v.size() - 1;
    }
    std::size_t last_cat_ = 0;

    std::uint32_t thread_of(const chrome_event& e) {
        const auto key = kineto_thread_key(e);  // numeric pid/tid, or hashes of their texts
        const auto it = threads_.find(key);
        if (it != threads_.end()) return it->second;
        const auto id = static_cast<std::uint32_t>(threads_.size());
        threads_.emplace(key, id);
        return id;
    }

    // Throws `trace_too_large` once the tables kept until the end pass the budget.
    void check_budget() const {
        const std::size_t bytes = events_.size() * sizeof(kernel_event) + runtimes_.size() * sizeof(runtime_record) +
                                  ops_.size() * sizeof(op_record);
        if (bytes > budget_bytes_) throw trace_too_large(t_.file, budget_bytes_);
    }

    // Every op's index sorted by (thread, start, longest first): the order of the sweeps below.
    std::vector<std::uint32_t> ops_by_thread_and_start() const {
        return sorted_indices(ops_.size(), [&](std::uint32_t a, std::uint32_t b) {
            const auto& x = ops_[a];
            const auto& y = ops_[b];
            if (x.thread != y.thread) return x.thread < y.thread;
            if (x.start_us != y.start_us) return x.start_us < y.start_us;
            return x.end_us > y.end_us;
        });
    }

    // 0 .. n-1 sorted by `less`.
    template <class Less>
    static std::vector<std::uint32_t> sorted_indices(std::size_t n, Less less) {
        std::vector<std::uint32_t> order(n);
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), less);
        return order;
    }

    // Per op with direct `aten::empty` children that recorded their sizes: the JSON list of
    // those children's Concrete Inputs (cpu_op::allocations), interned in `texts`, as (op, text
    // id) pairs sorted by op. A sweep over the ops in `order` (ops_by_thread_and_start) with a
    // stack of open ops, each op's list finished when it leaves the stack; skipped when no such
    // child exists.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> allocations_by_parent(const std::vector<std::uint32_t>& order,
                                                                               string_pool& texts) const {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
        if (empties_with_sizes_ == 0) return out;
        const std::uint32_t empty_name = t_.strings->id("aten::empty");
        std::vector<std::pair<std::uint32_t, std::string>> stack;  // open op, its list so far
        const auto close = [&] {
            auto& [op, text] = stack.back();
            if (!text.empty()) {
                text += ']';
                out.emplace_back(op, texts.id(text));
            }
            stack.pop_back();
        };
        for (const auto i : order) {
            const auto& o = ops_[i];
            while (!stack.empty() &&
                   (ops_[stack.back().first].thread != o.thread || ops_[stack.back().first].end_us <= o.start_us))
                close();
            if (o.name == empty_name && o.concrete != no_string && !stack.empty()) {
                auto& text = stack.back().second;
                text += text.empty() ? '[' : ',';
                text += t_.strings->at(o.concrete);
            }
            stack.emplace_back(i, std::string());
        }
        while (!stack.empty()) close();
        std::sort(out.begin(), out.end());
        return out;
    }

    // Innermost and outermost op containing each query, per thread: a sweep over the ops in
    // `order` (ops_by_thread_and_start) and the queries sorted by time, with a stack of open ops.
    template <class Query>
    void containment(const std::vector<std::uint32_t>& order, std::vector<Query>& queries,
                     std::vector<std::int32_t>& inner, std::vector<std::int32_t>& outer) {
        if (queries.empty() || ops_.empty()) return;
        std::sort(queries.begin(), queries.end(), [](const Query& a, const Query& b) {
            return a.thread != b.thread ? a.thread < b.thread : a.ts_us < b.ts_us;
        });
        std::size_t j = 0;
        std::vector<std::uint32_t> stack;
        std::uint32_t current_thread = 0xFFFFFFFFu;
        for (const auto& q : queries) {
            if (q.thread != current_thread) {
                current_thread = q.thread;
                stack.clear();
                while (j < order.size() && ops_[order[j]].thread < q.thread) ++j;
            }
            while (j < order.size() && ops_[order[j]].thread == q.thread && ops_[order[j]].start_us <= q.ts_us) {
                const auto& o = ops_[order[j]];
                while (!stack.empty() && ops_[stack.back()].end_us <= o.start_us) stack.pop_back();
                stack.push_back(order[j]);
                ++j;
            }
            while (!stack.empty() && ops_[stack.back()].end_us <= q.ts_us) stack.pop_back();
            if (stack.empty()) continue;
            inner[q.event] = static_cast<std::int32_t>(stack.back());
            for (const auto s : stack) {  // outermost op that still contains the launch
                if (ops_[s].end_us > q.ts_us) {
                    outer[q.event] = static_cast<std::int32_t>(s);
                    break;
                }
            }
        }
    }

    kernel_trace& t_;
    const kernel_rules& rules_;
    bool link_ops_;
    bool origin_set_ = false;
    double min_start_us_ = 0;
    chunked_vector<kernel_event> events_;  // t_.events until `finish` (no growth slack)
    chunked_vector<runtime_record> runtimes_;
    chunked_vector<op_record> ops_;
    std::size_t empties_with_sizes_ = 0;  // aten::empty ops with Concrete Inputs
    struct pair_hash {
        std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& p) const {
            return std::hash<std::int64_t>{}(p.first * 1000003 ^ p.second);
        }
    };
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, std::uint32_t, pair_hash> threads_;
    kernel_name_table names_{*t_.strings, rules_};
    std::size_t budget_bytes_ = 0;

public:
    /// Bytes of kept tables past which `event` throws `trace_too_large` (0: no limit).
    void set_budget(std::size_t bytes) { budget_bytes_ = bytes; }
};

}  // namespace io::detail

ROOFLINE_INLINE kernel_trace read_kineto(const std::string& path, const kineto_options& options) {
    kernel_trace t;
    t.file = path;
    t.format = "kineto";
    kernel_rules builtin;
    if (!options.rules) builtin = load_kernel_rules();
    const kernel_rules& rules = options.rules ? *options.rules : builtin;
    io::detail::kineto_builder b(t, rules, options.link_ops);
    b.set_budget(options.max_table_bytes);
    io::detail::scan_chrome_trace(
        path, [&](std::string_view key, std::string_view json, std::uint64_t off) { b.top_level(key, json, off); },
        [&](const io::detail::chrome_event& e, std::uint64_t off, std::size_t i) { b.event(e, off, i); },
        &io::detail::kineto_used_category, options.parse_workers);
    b.finish();
    return t;
}

ROOFLINE_INLINE trace_summary summarize_kineto(const std::string& path, const kernel_rules& rules, int parse_workers) {
    read_stats st;
    summary_builder b;
    std::unordered_map<std::string, std::pair<std::string, kernel_phase>> names;  // raw -> (name, phase)
    io::detail::scan_chrome_trace(
        path, [](std::string_view, std::string_view, std::uint64_t) {},
        [&](const io::detail::chrome_event& e, std::uint64_t, std::size_t) {
            ++st.events_read;
            if (!e.is_object) return st.skip("not_an_object");
            if (e.ph != "X" || !io::detail::kineto_used_category(e.cat)) return;
            if (const char* problem = io::detail::kineto_time_problem(e)) return st.skip(problem);
            gpu_activity a = gpu_activity::kernel;
            const std::string_view cat = io::detail::kineto_category(e.cat);
            if (cat == "gpu_memcpy") a = gpu_activity::memcpy;
            else if (cat == "gpu_memset") a = gpu_activity::memset;
            else if (cat != "kernel") return;  // launches, ops, annotations: validated above
            if (e.name.empty()) return st.skip("missing_name");
            auto it = names.find(std::string(e.name));
            if (it == names.end()) {
                std::string n = io::detail::demangle(e.name);
                const kernel_phase p = a == gpu_activity::memcpy   ? kernel_phase::memcpy
                                       : a == gpu_activity::memset ? kernel_phase::memset
                                                                   : rules.classify(n);
                it = names.emplace(std::string(e.name), std::make_pair(std::move(n), p)).first;
            }
            b.add(it->second.first, it->second.second, a, e.dur * 1e-6);
            ++st.events_kept;
        },
        &io::detail::kineto_used_category, parse_workers);
    return b.finish(path, "kineto", st);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
