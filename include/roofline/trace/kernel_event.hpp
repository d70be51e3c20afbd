#pragma once
// Measured GPU activity: kernels, copies and sets, with what launched them.
//
// A `kernel_trace` is what the trace readers (io/kineto.hpp, io/nsys_csv.hpp, io/nsys_sqlite.hpp)
// produce: one `kernel_event` per GPU activity, the CPU operators that launched them (with their
// input shapes when the profiler recorded them), NCCL collective metadata, user annotations and
// profiler steps, and the GPUs' properties. Times are seconds relative to the trace's own time
// origin (`kernel_trace::time_origin_us`), so that microsecond resolution survives in a double.
//
// Strings (kernel names can exceed 1 KB and repeat thousands of times) are interned once in a
// `string_pool` that the trace shares with its copies; events hold `std::string_view`s into it.

#include <array>          // std::array
#include <cmath>          // std::isnan
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int64_t, std::int32_t, std::uint32_t
#include <deque>          // std::deque
#include <limits>         // std::numeric_limits
#include <map>            // std::map
#include <memory>         // std::shared_ptr
#include <optional>       // std::optional
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair
#include <vector>         // std::vector

#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/read_stats.hpp"

namespace roofline {

/// Interned strings with stable addresses: `intern` returns a view that lives as long as the pool.
class string_pool {
public:
    string_pool() = default;
    string_pool(const string_pool&) = delete;  // views point into this object's storage
    string_pool& operator=(const string_pool&) = delete;

    /// A view of the pooled copy of `s` (added if new).
    std::string_view intern(std::string_view s) { return at(id(s)); }
    /// The id of the pooled copy of `s` (added if new); ids count up from 0.
    std::uint32_t id(std::string_view s) {
        if (const auto it = index_.find(s); it != index_.end()) return it->second;
        storage_.emplace_back(s);
        const auto i = static_cast<std::uint32_t>(storage_.size() - 1);
        index_.emplace(std::string_view(storage_.back()), i);
        return i;
    }
    /// The string with id `i`.
    std::string_view at(std::uint32_t i) const { return storage_[i]; }
    std::size_t size() const { return storage_.size(); }

private:
    std::deque<std::string> storage_;  // deque: elements never move
    std::unordered_map<std::string_view, std::uint32_t> index_;
};

/// What kind of GPU activity an event is.
enum class gpu_activity : std::uint8_t { kernel, memcpy, memset };

constexpr std::string_view to_string(gpu_activity a) {
    switch (a) {
        case gpu_activity::kernel: return "kernel";
        case gpu_activity::memcpy: return "memcpy";
        case gpu_activity::memset: return "memset";
    }
    return "kernel";
}

/// How a kernel was tied to the CPU operator that launched it.
enum class launch_link : std::uint8_t {
    none,         ///< no launching op found (no runtime event, or launched outside any op)
    external_id,  ///< the kernel's `External id` named an op that also contains the launch
    containment,  ///< innermost op containing the launching runtime call on the same thread
};

/// A CPU-side operator (Kineto `cpu_op`: aten ops, custom ops) that launched GPU work.
struct cpu_op {
    std::string_view name;         ///< "aten::mm", "vllm::unified_attention", ...
    /// `Input Dims` as compact JSON text ("[[64,4096],[4096,4096]]"); empty when not recorded
    /// (record_shapes off). Parse with `parse_input_dims`.
    std::string_view input_dims;
    std::string_view input_types;  ///< `Input type` as compact JSON text ("[\"c10::BFloat16\"]")
    /// `Input Strides` as compact JSON text, in elements ("[[4096,1],[],[1,0]]": the third input
    /// is broadcast along its last dimension, an `expand`); empty when not recorded (PyTorch
    /// before 2.1, or record_shapes off).
    std::string_view input_strides;
    /// `Concrete Inputs` as compact JSON text: the values of scalar arguments as strings
    /// ("[\"\",\"\",\"\",\"\",\"0.\",\"True\"]": SDPA's dropout and is_causal); empty when not recorded.
    std::string_view concrete_inputs;
    /// The tensors the op allocated itself: the `Concrete Inputs` of each direct `aten::empty`
    /// child (size list, then the c10::ScalarType code), in order, as a JSON list of those lists
    /// ("[[\"[888, 4]\",\"3\",\"\",\"\",\"False\",\"\"]]"); empty when none was recorded.
    /// Engine ops that hide their weights behind a layer name (vLLM `moe_forward`) reveal their
    /// sizes here (analysis/ops/engine.hpp).
    std::string_view allocations;
    std::int64_t external_id = -1;
    double start_s = 0, duration_s = 0;
};

/// NCCL collective metadata PyTorch attaches to NCCL kernels launched under `record_param_comms`.
struct collective_info {
    std::string_view name;   ///< `Collective name`: "allreduce", "_allgather_base", ...
    std::string_view dtype;  ///< "BFloat16", "Float", ...
    double in_msg_nelems = std::numeric_limits<double>::quiet_NaN();
    double out_msg_nelems = std::numeric_limits<double>::quiet_NaN();
    int group_size = -1;
    std::string_view process_group_name, process_group_desc;
    /// `Seq` (the collective's sequence number in its process group) where the profiler wrote
    /// one; -1 otherwise (then ranks are matched by order of issue in the group, which NCCL
    /// requires to be the same on every rank).
    std::int64_t seq = -1;

    /// Bytes per element of `dtype` (PyTorch scalar type names), or NaN when unknown.
    double element_bytes() const {
        static const std::map<std::string_view, double> sizes = {
            {"Float", 4},        {"Float32", 4},     {"float", 4},       {"BFloat16", 2},
            {"Half", 2},         {"Float16", 2},     {"Double", 8},      {"Long", 8},
            {"Int", 4},          {"Short", 2},       {"Char", 1},        {"Byte", 1},
            {"Bool", 1},         {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}, {"Float8_e4m3fnuz", 1},
            {"Float8_e5m2fnuz", 1}, {"Float8_e8m0fnu", 1}, {"ComplexFloat", 8}};
        const auto it = sizes.find(dtype);
        return it == sizes.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
    }
    /// Input message size in bytes (NaN when the element count or dtype is unknown).
    double in_msg_bytes() const { return in_msg_nelems * element_bytes(); }
    double out_msg_bytes() const { return out_msg_nelems * element_bytes(); }
};

/// True for the runtime and driver calls that replay a CUDA graph (`cudaGraphLaunch`, its
/// versioned name, `cuGraphLaunch`): the kernels they launch pay the graph's per-kernel launch
/// cost, not an eager launch.
inline bool is_graph_launch_api(std::string_view api) {
    return api == "cudaGraphLaunch" || api == "cudaGraphLaunch_v10000" || api == "cuGraphLaunch";
}

/// One GPU activity: a kernel, a memcpy or a memset.
struct kernel_event {
    static constexpr double unknown = std::numeric_limits<double>::quiet_NaN();

    std::string_view name;  ///< demangled where the trace gave a mangled name
    gpu_activity activity = gpu_activity::kernel;
    kernel_phase phase = kernel_phase::other;
    launch_link link = launch_link::none;
    int device = -1;           ///< GPU index (Kineto pid / args.device)
    std::int64_t stream = -1;  ///< CUDA stream id (Kineto tid / args.stream)
    double start_s = 0;        ///< start, seconds after the trace's time origin
    double duration_s = 0;     ///< duration, seconds (>= 0)
    std::int64_t correlation = -1;  ///< CUPTI correlation id linking it to its runtime call
    std::int64_t external_id = -1;  ///< Kineto `External id`
    std::array<std::uint32_t, 3> grid{0, 0, 0};   ///< 0 when unknown
    std::array<std::uint32_t, 3> block{0, 0, 0};  ///< 0 when unknown
    int registers_per_thread = -1;
    double shared_memory_bytes = unknown;   ///< static + dynamic per block
    float blocks_per_sm = std::numeric_limits<float>::quiet_NaN();
    float warps_per_sm = std::numeric_limits<float>::quiet_NaN();
    /// Kineto `est. achieved occupancy %` (a theoretical estimate, 0..100).
    float occupancy_pct = std::numeric_limits<float>::quiet_NaN();
    double bytes = unknown;                 ///< memcpy/memset size
    std::string_view launch_api;  ///< "cudaLaunchKernel", "cudaGraphLaunch", ... ("" if unknown)
    std::int32_t op = -1;         ///< index in `kernel_trace::ops` of the innermost launching op
    std::int32_t top_op = -1;     ///< index of the outermost op around the launch, same thread
    std::int32_t step = -1;       ///< ProfilerStep number the launch falls in, -1 if none
    std::int32_t collective = -1; ///< index in `kernel_trace::collectives`, -1 if none
    /// Start of the launching runtime call (cudaLaunchKernel, ...), seconds after the trace's
    /// time origin; NaN when no launch was matched (or the reader links none).
    double launch_s = unknown;
    double launch_duration_s = unknown;  ///< duration of that runtime call, seconds

    double end_s() const { return start_s + duration_s; }
    /// Threads launched (grid x block); 0 when unknown.
    double threads() const {
        return double(grid[0]) * grid[1] * grid[2] * double(block[0]) * block[1] * block[2];
    }
};

/// A user annotation (`record_function` range, NVTX-like): CPU side or projected on a GPU.
struct annotation {
    std::string_view name;
    double start_s = 0, duration_s = 0;
    bool gpu = false;  ///< `gpu_user_annotation` (on a GPU stream) rather than a CPU range
    int device = -1;   ///< for GPU annotations
};

/// A `ProfilerStep#N` range (CPU side).
struct profiler_step {
    std::int64_t number = -1;
    double start_s = 0, duration_s = 0;
};

/// `deviceProperties[i]` of a Kineto trace (from cudaGetDeviceProperties). No clocks, no
/// bandwidth, no power: those come from the GPU catalog.
struct device_properties {
    int id = -1;
    std::string name;  ///< "NVIDIA H200"
    double total_global_mem_bytes = kernel_event::unknown;
    int compute_major = -1, compute_minor = -1;
    int num_sms = -1;
    int max_threads_per_block = -1, max_threads_per_multiprocessor = -1;
    int regs_per_block = -1, regs_per_multiprocessor = -1, warp_size = -1;
    double shared_mem_per_block_bytes = kernel_event::unknown;
    double shared_mem_per_multiprocessor_bytes = kernel_event::unknown;
    double shared_mem_per_block_optin_bytes = kernel_event::unknown;
};

/// `distributedInfo` of a Kineto trace.
struct distributed_info {
    struct process_group {
        std::string name, desc, backend_config;
        int size = -1;
        std::vector<int> ranks;
    };
    std::string backend;  ///< "nccl"
    int rank = -1, world_size = -1;
    std::string nccl_version;
    std::vector<process_group> groups;
};

/// How kernels were tied to their launching ops (see `launch_link`).
struct link_stats {
    std::size_t gpu_events = 0;            ///< kernels + memcpy + memset kept
    std::size_t with_runtime = 0;          ///< correlation matched a cuda_runtime/driver event
    std::size_t by_external_id = 0;        ///< linked through `External id`
    std::size_t by_containment = 0;        ///< linked through time containment
    std::size_t external_id_matches = 0;   ///< kernels whose External id equals some cpu_op's
    std::size_t unlinked = 0;
};

/// Everything a trace reader produced. Copies share the string pool.
struct kernel_trace {
    std::string file;
    std::string format;  ///< "kineto", "nsys-cuda-gpu-trace", "nsys-sqlite"
    std::shared_ptr<string_pool> strings = std::make_shared<string_pool>();
    std::vector<kernel_event> events;         ///< in file order
    std::vector<cpu_op> ops;                  ///< only ops some event links to
    std::vector<collective_info> collectives;
    std::vector<annotation> annotations;
    std::vector<profiler_step> steps;
    std::vector<device_properties> devices;
    std::optional<distributed_info> distributed;
    /// Time origin: the first event's `ts` in the file's own microseconds (start_s = 0 there).
    double time_origin_us = 0;
    /// Kineto `baseTimeNanoseconds` (new-style traces: `ts` is relative to it), if present.
    std::optional<std::int64_t> base_time_ns;
    bool relative_timestamps = false;  ///< new style (fractional us relative to the base)
    read_stats stats;
    link_stats links;
    /// Events read per Kineto `cat` ("" for events without one), in order of first appearance.
    std::vector<std::pair<std::string, std::size_t>> events_by_category;

    /// Events read in category `cat` (0 if none).
    std::size_t category_count(std::string_view cat) const {
        for (const auto& [c, n] : events_by_category)
            if (c == cat) return n;
        return 0;
    }

    /// The op that launched `e` (innermost), or nullptr.
    const cpu_op* op_of(const kernel_event& e) const {
        return e.op >= 0 ? &ops[static_cast<std::size_t>(e.op)] : nullptr;
    }
    /// Total duration of the GPU events of `activity`, seconds.
    double busy_s(gpu_activity activity) const {
        double t = 0;
        for (const auto& e : events)
            if (e.activity == activity) t += e.duration_s;
        return t;
    }
};

/// The shapes in an `Input Dims` text ("[[64,4096],[],[4096]]"): one vector per input (empty
/// for scalars and None). Returns nullopt when the text is not a list of lists of integers.
inline std::optional<std::vector<std::vector<std::int64_t>>> parse_input_dims(std::string_view s) {
    std::vector<std::vector<std::int64_t>> out;
    std::size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
    };
    ws();
    if (i >= s.size() || s[i] != '[') return std::nullopt;
    ++i;
    ws();
    if (i < s.size() && s[i] == ']') return out;
    for (;;) {
        ws();
        if (i >= s.size() || s[i] != '[') return std::nullopt;
        ++i;
        out.emplace_back();
        ws();
        if (i < s.size() && s[i] == ']') {
            ++i;
        } else {
            for (;;) {
                ws();
                bool neg = false;
                if (i < s.size() && s[i] == '-') neg = true, ++i;
                if (i >= s.size() || s[i] < '0' || s[i] > '9') return std::nullopt;
                std::int64_t v = 0;
                while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
                out.back().push_back(neg ? -v : v);
                ws();
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < s.size() && s[i] == ']') {
                    ++i;
                    break;
                }
                return std::nullopt;
            }
        }
        ws();
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        if (i < s.size() && s[i] == ']') return out;
        return std::nullopt;
    }
}

}  // namespace roofline
