#pragma once
// What bounds a Kineto trace too large to hold whole: `analyze_trace`'s stages run on the trace
// read as a stream (io/kineto_stream.hpp), in memory bounded by the reader's windows and by the
// distinct names, shapes and steps of the trace rather than by its activities.
//
//   first pass   the header (device properties, annotations, ProfilerSteps, per-name summary),
//                per device: activity time, busy timeline, step sources (analysis/trace/
//                stream_steps.hpp: `step_finder`), and the kernels an ncu report profiled;
//   settle       gpu_context (`select_trace_gpu_from`), the step plan, power alignment (on the
//                first pass's timeline);
//   second pass  the device's activities in start order, linked to their ops, in segments of
//                4,096: each segment is a small `kernel_trace` on which recover_work's sources
//                run as they do on a whole trace (ncu, shapes from the reader's longest-kernel
//                marks, collectives, bytes, siblings from a table kept across segments, --model
//                from the first run's plan), and whose activities feed the accumulators of
//                analysis/trace/accumulate.hpp (window, phases, kernel names, op launch groups,
//                steps);
//   finish       the same classification functions as `analyze_trace` (`classify_row`,
//                `finish_window`), on the accumulated rows.
// The second pass runs again when what it needed was only known at its end: a sibling donor that
// started after a kernel it prices (the table is then complete), and `--model`, whose per-phase
// unpriced time and step count come from a first run.
//
// Equal to `analyze_trace(read_kineto(path))` but for: floating-point sums over activities taken
// in start order with ties by file offset (`read_kineto`'s order of equal starts is arbitrary), the
// medians of rows with more than 256 distinct values (within 0.55%, accumulate.hpp), the inner op
// of two ops with the same span on one thread (the later in the file here), the busy fraction that
// power alignment weighs (summed before the final origin shift is known; the reported one is
// exact), and a note saying the trace was read as a stream.

#include <cstddef>  // std::size_t
#include <string>   // std::string

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/kineto_stream.hpp"

namespace roofline {

/// How the streaming analysis reads.
struct trace_stream_options {
    kineto_stream_windows windows;     ///< how far the file may stray from order (io/kineto_stream.hpp)
    std::size_t segment_events = 4096;  ///< activities per segment of the second pass
    /// Step rows held in memory; the rest go to a temporary file as they close (`row_spool`).
    std::size_t step_rows_in_memory = row_spool::default_memory_rows;
    /// Times the windows grow 16-fold after a `kineto_layout_error` before giving up.
    int retries = 1;
};

/// Analyses Kineto trace `path` as a stream (see the file comment): the result of
/// `analyze_trace(read_kineto(path, kineto), catalog, options)` within the stated differences.
/// Throws `kineto_layout_error` when the file's layout defeats the windows after the retries,
/// else as `read_kineto` and `analyze_trace`.
trace_analysis analyze_kineto_stream(const std::string& path, const gpu_catalog& catalog,
                                     const trace_analysis_options& options, const kineto_options& kineto = {},
                                     const trace_stream_options& stream = {});

/// How `analyze_kineto_file` read the trace.
enum class trace_reading : std::uint8_t { whole, stream, whole_after_stream };

/// `roofline trace` on a Kineto file: read whole (`read_kineto`, `analyze_trace`) while its
/// tables stay within `max_table_bytes` (0: always whole), else as a stream
/// (`analyze_kineto_stream`); a layout the stream cannot follow is read whole after all, and a
/// note says so. `how`, when given, gets which.
trace_analysis analyze_kineto_file(const std::string& path, const gpu_catalog& catalog,
                                   const trace_analysis_options& options, const kineto_options& kineto,
                                   std::size_t max_table_bytes, const trace_stream_options& stream = {},
                                   trace_reading* how = nullptr);

/// The second half of `analyze_kineto_file`: the trace as a stream, or whole (with the note) when
/// its layout defeats the stream.
trace_analysis analyze_kineto_stream_or_whole(const std::string& path, const gpu_catalog& catalog,
                                              const trace_analysis_options& options, const kineto_options& kineto,
                                              const trace_stream_options& stream = {}, trace_reading* how = nullptr);

/// The default `max_table_bytes` of `roofline trace`: 16 MB of `read_kineto`'s tables, about
/// 40,000 kernels with their launches and ops (a 300 MB trace of the B200 sample's mix).
inline constexpr std::size_t default_whole_trace_table_bytes = std::size_t(16) << 20;

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS
#include <algorithm>      // std::sort
#include <functional>     // std::function
#include <limits>         // std::numeric_limits
#include <map>            // std::map
#include <memory>         // std::unique_ptr, std::shared_ptr
#include <optional>       // std::optional
#include <set>            // std::set
#include <string_view>    // std::string_view
#include <tuple>          // std::tuple
#include <unordered_map>  // std::unordered_map
#include <vector>         // std::vector

#include "roofline/analysis/trace/accumulate.hpp"
#include "roofline/analysis/trace/stream_steps.hpp"
#include "roofline/analysis/trace_analysis.hpp"

namespace roofline {
namespace detail::trace_stream {

/// What the first pass keeps per device.
struct device_pass {
    step_finder steps;
    interval_merger busy;  // the busy timeline, before the origin shift
    double busy_s = 0, first_start_s = 0, last_end_s = 0;
    bool have_busy = false;
    std::unique_ptr<ncu_matcher> ncu;
    std::unordered_map<std::uint64_t, int> ncu_profiles;  // event offset -> profile
    void closed(const time_interval& iv) {
        busy_s += iv.length_s();
        if (!have_busy) first_start_s = iv.start_s;
        have_busy = true;
        last_end_s = iv.end_s;
    }
};

/// A kernel that lends its price to its siblings, portable across segments.
struct sibling_entry {
    event_price price;  ///< example: a view into the analysis' own pool
    op_work work;
    std::string op_name;                ///< op-work name (helper reasons)
    std::string op_key_name, op_dims, op_types;  ///< the donor's op (op launch group of borrowers)
};

/// A kernel-name row with what `kernel_groups` adds to its sums.
struct kernel_row {
    row_accumulator acc;
    std::string helper_op, helper_description;  // the last helper kernel's op work
    bool helper = false;
    const op_work* last_work = nullptr;  // notes taken from this op work already
    kernel_row(bool comm, const trace_power_context* pc) : acc(comm, pc, false) {}
};

/// The step rows of one step source.
struct step_track {
    step_assigner assigner;
    std::map<long, window_accumulator> open;
    std::map<long, analysis_row> done;  // closed, waiting for a window before them to close
    row_spool rows;                     // closed, in window order (the file holds all but the first)
    step_track(const step_plan& plan, step_assigner::kind k, std::size_t rows_in_memory)
        : assigner(plan, k), rows(rows_in_memory) {}
    /// Moves the closed rows that no earlier window can precede any more (all when `done_all`) to
    /// `rows`, after the activities that start before `now_s`.
    void release(double now_s, bool done_all) {
        long frontier = open.empty() ? std::numeric_limits<long>::max() : open.begin()->first;
        if (const std::size_t f = assigner.first_unfinished(now_s); f < static_cast<std::size_t>(frontier))
            frontier = static_cast<long>(f);
        while (!done.empty() && (done_all || done.begin()->first < frontier)) {
            rows.push_back(std::move(done.begin()->second));
            done.erase(done.begin());
        }
    }
};

/// Everything the second pass builds, across its segments.
struct second_pass {
    // inputs
    const trace_gpu_context& c0;
    const trace_power_context& pc;
    const step_plan& plan;
    const device_pass& device;
    std::map<std::tuple<const char*, std::uint32_t, std::uint32_t, std::uint32_t>, sibling_entry>& donors;
    string_pool& donor_strings;
    const std::optional<model_plan>& model;  // --model's plan (from an earlier run)
    std::optional<step_model> sm;
    double steps = 1;
    bool accumulate = true;
    // the segment
    kernel_trace seg;
    trace_gpu_context cs;
    std::vector<std::shared_ptr<const streamed_op>> hold;
    std::vector<char> longest;
    std::vector<std::string_view> longest_name;
    std::vector<std::uint64_t> offsets;
    std::vector<streamed_event> buffer;
    op_price_cache cache;
    std::size_t position = 0;  // device activities before this segment
    double now_s = 0;
    // results
    bool late_donor = false;
    std::set<std::tuple<const char*, std::uint32_t, std::uint32_t, std::uint32_t>> waiting;
    model_plan collected;
    std::size_t sibling_priced = 0, ncu_matched = 0, ncu_estimated = 0;
    std::map<std::string, double> unpriced;
    std::size_t unlinked = 0;
    double unlinked_s = 0, all_s = 0, priced_s = 0;
    bool any_op = false;  // some activity had a launching op
    window_accumulator window;
    std::map<std::string_view, kernel_row> kernels;
    /// Orders (op name, input dims, input types) keys, owned or viewed, field by field as string_views:
    /// libstdc++'s heterogeneous tuple `<` is not usable under clang 14, so `find` takes views through this.
    struct op_key_less {
        using is_transparent = void;
        template <class A, class B>
        bool operator()(const A& a, const B& b) const {
            const std::string_view a0 = std::get<0>(a), a1 = std::get<1>(a), a2 = std::get<2>(a);
            const std::string_view b0 = std::get<0>(b), b1 = std::get<1>(b), b2 = std::get<2>(b);
            if (a0 != b0) return a0 < b0;
            if (a1 != b1) return a1 < b1;
            return a2 < b2;
        }
    };
    std::map<std::tuple<std::string, std::string, std::string>, row_accumulator, op_key_less> ops;
    std::vector<step_track> tracks;

    second_pass(const trace_gpu_context& c, const trace_power_context& p, const step_plan& sp, const device_pass& d,
                decltype(donors) don, string_pool& ds, const std::optional<model_plan>& mp)
        : c0(c), pc(p), plan(sp), device(d), donors(don), donor_strings(ds), model(mp), cs(c), window(true, &p) {
        seg.file = c.trace->file;
        seg.format = c.trace->format;
        seg.distributed = c.trace->distributed;
        cs.trace = &seg;
    }

    void add(streamed_event&& e) {
        buffer.push_back(std::move(e));
    }

    void segment();
    void recover(recovered_work& w);
    void feed(const recovered_work& w);
    void advance(bool done);
};

inline void second_pass::segment() {
    if (buffer.empty()) return;
    seg.events.clear();
    seg.ops.clear();
    seg.collectives.clear();
    hold.clear();
    longest.assign(buffer.size(), 0);
    longest_name.assign(buffer.size(), std::string_view());
    offsets.assign(buffer.size(), 0);
    std::unordered_map<const streamed_op*, std::int32_t> op_index;
    for (std::size_t i = 0; i < buffer.size(); ++i) {
        auto& se = buffer[i];
        kernel_event ev = se.event;
        ev.link = se.link;
        if (se.op) {
            const auto [it, fresh] = op_index.emplace(se.op.get(), static_cast<std::int32_t>(seg.ops.size()));
            if (fresh) {
                seg.ops.push_back(se.op->op);
                hold.push_back(se.op);
            }
            ev.op = it->second;
        }
        if (se.collective) {
            ev.collective = static_cast<std::int32_t>(seg.collectives.size());
            seg.collectives.push_back(*se.collective);
        }
        longest[i] = se.op_longest;
        longest_name[i] = se.op_longest_name;
        offsets[i] = se.offset;
        seg.events.push_back(ev);
    }
    buffer.clear();
    if (!seg.ops.empty()) any_op = true;
    cs.mine.resize(seg.events.size());
    for (std::size_t i = 0; i < cs.mine.size(); ++i) cs.mine[i] = i;
    recovered_work w;
    w.prices.resize(seg.events.size());
    recover(w);
    if (accumulate) feed(w);
    position += seg.events.size();
    now_s = seg.events.back().start_s;
    if (accumulate) advance(false);
}

// recover_work's sources on one segment.
inline void second_pass::recover(recovered_work& w) {
    const auto& t = seg;
    if (c0.options->ncu) {  // the kernels the first pass matched, by offset
        const auto& m = *device.ncu;
        for (auto i : cs.mine) {
            const auto it = device.ncu_profiles.find(offsets[i]);
            if (it == device.ncu_profiles.end()) continue;
            const auto how = m.price_kernel(cs, i, it->second, w);
            ncu_matched += how != ncu_matcher::priced::no_work;
            ncu_estimated += how == ncu_matcher::priced::tensor_estimated;
        }
    }
    recover_from_marked_shapes(cs, longest, longest_name, cache, w);
    for (auto i : cs.mine) {
        const auto& e = t.events[i];
        auto& p = w.prices[i];
        if (p.priced || p.helper) continue;
        if (e.collective >= 0) {
            if (cs.link) recover_collective(cs, i, p, *w.strings);
        } else if (e.activity == gpu_activity::memset || e.activity == gpu_activity::memcpy) {
            recover_bytes(cs, i, p, *w.strings);
        }
    }
    // Siblings: donors of this segment join the table (the first in start order stays), then
    // borrowers take the table's price.
    using key = std::tuple<const char*, std::uint32_t, std::uint32_t, std::uint32_t>;
    for (auto i : cs.mine) {
        const auto& e = t.events[i];
        const auto& p = w.prices[i];
        if (!sibling_donor(e, p)) continue;
        const key k{e.name.data(), e.grid[0], e.grid[1], e.grid[2]};
        if (donors.count(k)) continue;
        if (waiting.count(k)) late_donor = true;
        sibling_entry d;
        d.price = p;
        d.price.example = donor_strings.intern(p.example);
        const auto wi = static_cast<std::size_t>(p.op_work);
        d.work = w.op_works[wi];
        d.op_name = w.op_names[wi];
        const auto& o = t.ops[static_cast<std::size_t>(w.op_index[wi])];
        d.op_key_name = std::string(o.name);
        d.op_dims = std::string(o.input_dims);
        d.op_types = std::string(o.input_types);
        donors.emplace(k, std::move(d));
    }
    std::map<key, int> lent;  // donor -> op-work entry in this segment
    for (auto i : cs.mine) {
        const auto& e = t.events[i];
        auto& p = w.prices[i];
        if (!sibling_recipient(e, p)) continue;
        const key k{e.name.data(), e.grid[0], e.grid[1], e.grid[2]};
        const auto it = donors.find(k);
        if (it == donors.end()) {
            waiting.insert(k);
            continue;
        }
        const auto& d = it->second;
        auto [slot, fresh] = lent.emplace(k, -1);
        if (fresh) {  // the donor's op work and op, entered in this segment
            slot->second = static_cast<int>(w.op_works.size());
            w.op_works.push_back(d.work);
            w.op_names.push_back(d.op_name);
            cpu_op o;
            o.name = d.op_key_name;
            o.input_dims = d.op_dims;
            o.input_types = d.op_types;
            w.op_index.push_back(static_cast<std::int32_t>(seg.ops.size()));
            seg.ops.push_back(o);
        }
        p = d.price;
        p.op_work = slot->second;
        if (d.price.priced) {
            p.source = "sibling";
            p.busbw.reset();
        }
        ++sibling_priced;
    }
    if (model) {
        for (auto i : cs.mine) price_from_model(cs, *sm, steps, *model, i, w);
    } else if (c0.options->model) {
        for (auto i : cs.mine) collected.add(t.events[i], w.prices[i]);
    }
    // What no source priced; kernels without a launching op.
    for (auto i : cs.mine) {
        const auto& e = t.events[i];
        const auto& p = w.prices[i];
        all_s += e.duration_s;
        if (p.priced) priced_s += e.duration_s;
        if (e.activity != gpu_activity::kernel) continue;
        if (!p.priced && !p.helper)
            unpriced[e.op >= 0 ? std::string(t.ops[static_cast<std::size_t>(e.op)].name) : "kernel " + std::string(e.name)] +=
                e.duration_s;
        if (e.op < 0 && !p.priced) ++unlinked, unlinked_s += e.duration_s;
    }
}

// The rows: the window and its phases, kernel names, op launch groups, steps.
inline void second_pass::feed(const recovered_work& w) {
    const auto& t = seg;
    for (auto i : cs.mine) {
        const auto& e = t.events[i];
        const auto& p = w.prices[i];
        window.add(cs, w, i);
        // kernel_groups
        auto kit = kernels.find(e.name);
        if (kit == kernels.end()) {
            const bool comm = e.phase == kernel_phase::communication;
            kit = kernels.emplace(std::piecewise_construct, std::forward_as_tuple(e.name), std::forward_as_tuple(comm, &pc))
                      .first;
            auto& r = kit->second.acc.row();
            r.name = std::string(e.name);
            r.phase = e.phase;
            r.activity = e.activity;
            if (comm) {
                kit->second.acc.attach_exposure();
                window.add_reader(kit->second.acc.exposure_state());
            }
        }
        auto& kr = kit->second;
        kr.acc.add(cs, w, i);
        if (p.op_work >= 0) {
            const op_work& ow = w.op_works[static_cast<std::size_t>(p.op_work)];
            if (p.helper) {
                kr.helper = true;
                kr.helper_op = w.op_names[static_cast<std::size_t>(p.op_work)];
                kr.helper_description = ow.description;
            }
            if (kr.last_work != &ow) {
                for (const auto& n : ow.assumptions) detail::trace_an::note_once(kr.acc.row().notes, n);
                kr.last_work = &ow;
            }
        }
        // op_groups
        const cpu_op* o = e.op >= 0 ? &t.ops[static_cast<std::size_t>(e.op)]
                          : p.op_work >= 0 ? &t.ops[static_cast<std::size_t>(w.op_index[static_cast<std::size_t>(p.op_work)])]
                                           : nullptr;
        const std::tuple<std::string_view, std::string_view, std::string_view> okey =
            o ? std::make_tuple(o->name, o->input_dims, o->input_types)
              : std::make_tuple(std::string_view("(no launching op)"), std::string_view(), std::string_view());
        auto oit = ops.find(okey);
        if (oit == ops.end()) {
            oit = ops.emplace(std::make_tuple(std::string(std::get<0>(okey)), std::string(std::get<1>(okey)),
                                              std::string(std::get<2>(okey))),
                              row_accumulator(false, nullptr, true))
                      .first;
            auto& r = oit->second.row();
            r.name = std::string(std::get<0>(okey));
            r.input_dims = std::string(std::get<1>(okey));
            r.input_types = std::string(std::get<2>(okey));
            r.phase = e.phase;
            r.activity = e.activity;
        }
        oit->second.add(cs, w, i);
        // steps
        const std::size_t p_i = position + i;
        for (auto& tr : tracks) {
            const long win = tr.assigner.window_of(e, p_i);
            if (win < 0) continue;
            auto it = tr.open.find(win);
            if (it == tr.open.end()) it = tr.open.emplace(win, window_accumulator(false, &pc)).first;
            it->second.add(cs, w, i);
        }
    }
    // The kernel rows' notes point into this segment's op works: forget them.
    for (auto& [name, kr] : kernels) kr.last_work = nullptr;
}

inline void second_pass::advance(bool done) {
    window.advance(now_s, done);
    for (auto& [name, kr] : kernels)
        kr.acc.advance(&window.compute_closed(), &window.compute_open(), now_s, done);
    for (auto& tr : tracks) {
        for (auto it = tr.open.begin(); it != tr.open.end();) {
            const bool closed = done || tr.assigner.closed(static_cast<std::size_t>(it->first), position, now_s);
            it->second.advance(now_s, closed);
            if (!closed) {
                ++it;
                continue;
            }
            analysis_row r;
            r.name = tr.assigner.name(static_cast<std::size_t>(it->first));
            it->second.finish(cs, pc, r, std::nullopt, nullptr);
            tr.done.emplace(it->first, std::move(r));
            it = tr.open.erase(it);
        }
        tr.release(now_s, done);
    }
}

}  // namespace detail::trace_stream

ROOFLINE_INLINE trace_analysis analyze_kineto_stream(const std::string& path, const gpu_catalog& catalog,
                                                     const trace_analysis_options& options,
                                                     const kineto_options& kineto, const trace_stream_options& stream) {
    using namespace detail::trace_stream;
    using detail::trace_an::pct;
    kineto_stream_windows windows = stream.windows;
    for (int attempt = 0;; ++attempt) {
        try {
            // First pass.
            std::map<int, device_pass> devices;
            kineto_stream_header h = scan_kineto_stream(path, kineto, windows, [&](streamed_event&& e) {
                auto& d = devices[e.event.device];
                d.steps.add(e.event);
                d.busy.add(e.event.start_s, e.event.end_s(), [&](const time_interval& iv) { d.closed(iv); });
                if (options.ncu && e.event.activity == gpu_activity::kernel) {
                    if (!d.ncu) d.ncu = std::make_unique<ncu_matcher>(*options.ncu);
                    if (const int j = d.ncu->next(e.event.name, e.event.grid); j >= 0) d.ncu_profiles[e.offset] = j;
                }
            });
            if (!h.needs_whole_reader.empty()) throw kineto_layout_error(h.needs_whole_reader);
            for (auto& entry : devices) {
                auto& d = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
                d.busy.flush([&](const time_interval& iv) { d.closed(iv); });
            }

            trace_analysis a;
            a.file = h.trace.file;
            a.format = h.trace.format;
            a.summary = h.summary;
            const trace_gpu_context c0 = select_trace_gpu_from(
                h.trace, h.gpu_time_by_device, [&] { return resolve_by_kernel_names(h.kernel_names, catalog); }, catalog,
                options, a);
            device_pass& dev = devices[c0.device];
            if (options.ncu && !dev.ncu) dev.ncu = std::make_unique<ncu_matcher>(*options.ncu);
            if (!dev.steps.problem().empty()) throw kineto_layout_error(dev.steps.problem());
            const step_plan plan = plan_steps(h.trace, c0.device, dev.steps);

            // Power alignment on the first pass's timeline (times moved by the origin shift).
            const double shift_s = h.shift_s();
            const auto shifted = [&](double s) { return shift_s < 0 ? s - shift_s : s; };
            a.window_start_s = shifted(dev.first_start_s);
            a.window_end_s = shifted(dev.last_end_s);
            const double span1 = dev.last_end_s - dev.first_start_s;
            a.busy_fraction = span1 > 0 ? dev.busy_s / span1 : 1.0;
            std::optional<step_model> sm = model_step_of(c0);
            std::optional<double> settled_count;
            if (plan.source == "ProfilerStep") settled_count = double(plan.profiler_names.size());
            else if (plan.source == "CUDA graph launches") settled_count = double(plan.graph_starts.size());
            else if (plan.source == "one step") settled_count = 1.0;
            const trace_power_context pc = align_trace_power(c0, a);

            // Second pass: until nothing it needed comes only at its end.
            std::map<std::tuple<const char*, std::uint32_t, std::uint32_t, std::uint32_t>, sibling_entry> donors;
            string_pool donor_strings;
            auto names = std::make_shared<string_pool>();
            std::optional<model_plan> mplan;
            double n_steps = options.steps > 0 ? options.steps : settled_count.value_or(1.0);
            std::unique_ptr<second_pass> run;
            for (int pass = 0;; ++pass) {
                const bool collect_model = sm && !mplan;
                run = std::make_unique<second_pass>(c0, pc, plan, dev, donors, donor_strings, mplan);
                run->sm = sm;
                run->steps = n_steps;
                run->accumulate = !collect_model;
                run->seg.strings = names;
                if (plan.source == "ProfilerStep") run->tracks.emplace_back(plan, step_assigner::kind::profiler, stream.step_rows_in_memory);
                else if (plan.source == "CUDA graph launches") run->tracks.emplace_back(plan, step_assigner::kind::graph, stream.step_rows_in_memory);
                else if (plan.source.empty()) {
                    if (!plan.ranges.empty()) run->tracks.emplace_back(plan, step_assigner::kind::annotations, stream.step_rows_in_memory);
                    if (plan.repetition_period > 0) run->tracks.emplace_back(plan, step_assigner::kind::repetition, stream.step_rows_in_memory);
                }
                if (collect_model) run->tracks.clear();  // the count comes from the annotation hits below
                std::set<long> hit_ranges;  // annotation windows with activity (for the count)
                const bool count_ranges = plan.source.empty() && !plan.ranges.empty();
                step_assigner counter(plan, step_assigner::kind::annotations);
                const auto member = [&](const streamed_event& e) {
                    return e.event.activity == gpu_activity::kernel && !e.collective &&
                           !dev.ncu_profiles.count(e.offset);
                };
                std::size_t pos = 0;
                link_kineto_stream(path, h, kineto, c0.device, windows, *names, member, [&](streamed_event&& e) {
                    if (count_ranges && collect_model) {
                        const long w = counter.window_of(e.event, pos);
                        if (w >= 0) hit_ranges.insert(w);
                    }
                    ++pos;
                    run->add(std::move(e));
                    if (run->buffer.size() >= stream.segment_events) run->segment();
                });
                run->segment();
                if (run->late_donor) {  // the table is complete now: price again with it
                    mplan.reset();
                    continue;
                }
                if (collect_model) {
                    mplan = run->collected;
                    if (!settled_count) {
                        const std::size_t windows_hit = hit_ranges.size();
                        std::size_t count = windows_hit;
                        if (windows_hit == 0) count = plan.repetition_period > 0 ? plan.repetition_starts.size() : 1;
                        n_steps = options.steps > 0 ? options.steps : double(count == 0 ? 1 : count);
                    }
                    continue;
                }
                break;
            }
            auto& r = *run;
            if (r.position == 0)
                throw usage_error(h.trace.file + ": no GPU activity on device " + std::to_string(c0.device));
            r.advance(true);

            // recover_work's results and notes, in its order.
            recovered_work w;
            if (options.ncu) dev.ncu->notes(c0, w, r.ncu_matched, r.ncu_estimated);
            if (r.sibling_priced > 0) w.notes.push_back(sibling_note(r.sibling_priced));
            if (sm) model_notes(c0, *sm, n_steps, w);
            w.unpriced.assign(r.unpriced.begin(), r.unpriced.end());
            unpriced_notes(w, r.unlinked, r.unlinked_s, r.all_s);
            a.tokens = w.tokens;
            if (a.power && a.power->energy_j && a.tokens > 0) a.power->energy_per_token_j = *a.power->energy_j / a.tokens;
            a.sibling_priced = r.sibling_priced;
            a.ncu_matched = r.ncu_matched;
            a.unlinked_share = w.unlinked_share;
            for (const auto& n : w.notes) a.notes.push_back(n);

            // The timeline (measure_timeline), exact now.
            const auto& win = r.window;
            a.window_start_s = win.first_start_s();
            a.window_end_s = win.last_end_s();
            a.busy_fraction = win.span_s() > 0 ? win.busy_s() / win.span_s() : 1.0;
            a.idle_gaps = win.idle_gaps();
            if (a.idle_gaps > 0) {
                a.median_gap_s = win.gaps().at_position(double(a.idle_gaps / 2)).value_or(a.median_gap_s);
                a.max_gap_s = win.max_gap_s();
            }
            a.concurrency = win.busy_s() > 0 ? win.activity_s() / win.busy_s() : 1.0;
            a.streams = win.streams();
            a.communication_s = win.communication_s();
            a.exposed_communication_s = win.exposed_s();
            a.overlapped_communication_s = a.communication_s - a.exposed_communication_s;
            // The energy over the window, as align_trace_power computes it, on the exact span.
            if (a.power && a.power->mean_draw_w) a.power->energy_j = *a.power->mean_draw_w * (a.window_end_s - a.window_start_s);

            const double gpu_time = r.all_s;
            a.priced_share = gpu_time > 0 ? r.priced_s / gpu_time : 0;
            for (const auto& [name, s] : w.unpriced) a.unpriced.push_back({name, s, gpu_time > 0 ? s / gpu_time : 0});

            // The window and its phases (analyze_window).
            a.window.name = "window";
            const auto res = r.window.finish(r.cs, pc, a.window,
                                             a.power ? std::optional<power_evidence>(a.power->evidence) : std::nullopt,
                                             &a.warnings);
            a.phases = res.phases;
            a.time_by_bound = res.by_bound;
            a.window.share = 1.0;
            if (a.power) {
                a.window.power = a.power->evidence;
                a.window.energy_j = a.power->energy_j;
            }
            detail::trace_an::window_power_notes(a);

            // Kernel rows (kernel_groups, build_rows).
            for (auto& [name, kr] : r.kernels) {
                auto& row = kr.acc.row();
                row.share = gpu_time > 0 ? row.total_s / gpu_time : 0;
                row.latency = kr.acc.latency();
                if (kr.helper && row.priced_s == 0) row.unknown_reason = helper_reason(kr.helper_op, kr.helper_description);
                std::optional<double> comm_share;
                if (row.phase == kernel_phase::communication) comm_share = kr.acc.set_collective(win.span_s());
                const auto pe = kr.acc.power(pc, r.cs, row.share);
                classify_row(row, r.cs, comm_share, pe, pc.max_clock_hz, nullptr, true);
                a.kernels.push_back(std::move(row));
            }
            std::sort(a.kernels.begin(), a.kernels.end(), [](const analysis_row& x, const analysis_row& y) {
                return x.total_s != y.total_s ? x.total_s > y.total_s : x.name < y.name;
            });
            for (auto& [key, acc] : r.ops) {
                auto& row = acc.row();
                row.share = gpu_time > 0 ? row.total_s / gpu_time : 0;
                row.latency = acc.latency();
                classify_row(row, r.cs, std::nullopt, std::nullopt, pc.max_clock_hz, nullptr, true);
                a.ops.push_back(std::move(row));
            }
            std::sort(a.ops.begin(), a.ops.end(), [](const analysis_row& x, const analysis_row& y) {
                return x.total_s != y.total_s ? x.total_s > y.total_s : x.name < y.name;
            });

            // Steps: the source that found windows, in the order of detect_steps' sources.
            std::string source = plan.source == "one step" ? std::string() : plan.source;
            step_track* chosen = nullptr;
            for (auto& tr : r.tracks) {
                if (tr.rows.empty()) continue;
                if (!chosen) chosen = &tr;
            }
            if (chosen) source = std::string(step_source_name(chosen->assigner.source()));
            else if (source != "ProfilerStep" && source != "CUDA graph launches") source.clear();
            std::size_t windows_found = chosen ? chosen->rows.size() : 0;
            std::size_t period = plan.source == "CUDA graph launches" ? plan.graph_period : plan.repetition_period;
            a.step_info = describe_steps(source, windows_found, plan.launches, period, options.steps);
            if (chosen && (windows_found >= 2 || source == "ProfilerStep" || source == "GPU annotations")) {
                a.step_source = source;
                a.steps = std::move(chosen->rows);
                a.steps.set_share_basis(gpu_time);
            }
            if (a.priced_share < 0.5)
                a.notes.push_back("only " + pct(a.priced_share) +
                                  " of the GPU time has modeled work" +
                                  (!r.any_op
                                       ? ": the trace links no kernels to ops (record_shapes off, or a CUDA-graph "
                                         "replay); pass --model and the batch"
                                       : ""));
            a.notes.push_back("read as a stream (" + std::to_string(r.position) +
                              " activities of the device, in start order): medians of rows with more than " +
                              std::to_string(median_accumulator::exact_limit) +
                              " distinct values come from log-spaced bins, within 0.55%");
            return a;
        } catch (const kineto_layout_error&) {
            if (attempt >= stream.retries) throw;
            windows = windows.scaled(16);
        }
    }
}

ROOFLINE_INLINE trace_analysis analyze_kineto_file(const std::string& path, const gpu_catalog& catalog,
                                                   const trace_analysis_options& options, const kineto_options& kineto,
                                                   std::size_t max_table_bytes, const trace_stream_options& stream,
                                                   trace_reading* how) {
    kineto_options whole = kineto;
    whole.max_table_bytes = max_table_bytes;
    try {
        const kernel_trace t = read_kineto(path, whole);
        if (how) *how = trace_reading::whole;
        return analyze_trace(t, catalog, options);
    } catch (const trace_too_large&) {
    }
    return analyze_kineto_stream_or_whole(path, catalog, options, kineto, stream, how);
}

ROOFLINE_INLINE trace_analysis analyze_kineto_stream_or_whole(const std::string& path, const gpu_catalog& catalog,
                                                              const trace_analysis_options& options,
                                                              const kineto_options& kineto,
                                                              const trace_stream_options& stream, trace_reading* how) {
    try {
        if (how) *how = trace_reading::stream;
        return analyze_kineto_stream(path, catalog, options, kineto, stream);
    } catch (const kineto_layout_error& e) {
        kineto_options all = kineto;
        all.max_table_bytes = 0;
        const kernel_trace t = read_kineto(path, all);
        auto a = analyze_trace(t, catalog, options);
        a.notes.push_back(std::string("read whole, in memory that grows with the trace: the streaming reader "
                                      "cannot follow this file's layout (") +
                          e.what() + ")");
        if (how) *how = trace_reading::whole_after_stream;
        return a;
    }
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
