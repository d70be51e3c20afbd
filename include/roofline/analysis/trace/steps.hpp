#pragma once
// Stage 2 of the trace analysis: the steps of the window, from whatever the trace marks them
// with. Sources, in the order tried (the first that finds steps wins):
//   1. `ProfilerStep#N` ranges (torch.profiler's schedule, `prof.step()`): one step each;
//   2. CUDA graph launches: the kernels one `cudaGraphLaunch` replays share its correlation id
//      (Kineto links them to the launch by `correlation`, whose API is "cudaGraphLaunch"; nsys
//      gives every kernel of a graph replay the launch's correlationId). A step may replay several
//      graphs (piecewise CUDA graphs): the launches' signatures (first kernel, kernel count)
//      repeat with a period of P launches, and P launches make one step;
//   3. GPU annotations (`gpu_user_annotation`, NVTX ranges projected on the GPU), outermost
//      ranges only, NCCL's own "nccl:*" ranges left out;
//   4. a repeating kernel sequence: the smallest period P (>= 4 kernels, >= 2 distinct names,
//      >= 2 repeats) over which >= 95% of the kernel names repeat;
//   5. none: the window is one step, and the detection says so.
// Each step is a window of the device's activities (start of its first to start of the next).

#include <algorithm>      // std::sort, std::min
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int64_t, std::uint32_t
#include <map>            // std::map
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair
#include <vector>         // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/trace/kernel_event.hpp"

namespace roofline {

/// One step window: its name and the indices (into `kernel_trace::events`) of its activities.
struct step_window {
    std::string name;
    std::vector<std::size_t> idx;
};

/// The steps found and how.
struct trace_steps {
    step_detection detection;
    std::vector<step_window> windows;  ///< empty when the window is one step
};

/// Finds the steps of device `device`'s activities `mine` (indices into `t.events`, by start
/// time). `forced`: `--steps` (0: none), which sets the count but keeps the windows found.
trace_steps detect_steps(const kernel_trace& t, int device,
                         const std::vector<std::size_t>& mine, double forced = 0);

/// The detection the report prints for steps found from `source` ("ProfilerStep", "CUDA graph
/// launches", "GPU annotations", "repeating kernel sequence"; "" for none: one step) in `windows`
/// windows; `launches` and `period`: the graph launches and launches per step, or the kernels per
/// repeat. `forced`: `--steps` (0: none), which sets the count.
step_detection describe_steps(std::string_view source, std::size_t windows, std::size_t launches, std::size_t period,
                              double forced);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::step_find {

/// Splits `mine` (by start time) at the events `starts` (positions in `mine`, increasing).
inline std::vector<step_window> split_at(const std::vector<std::size_t>& mine,
                                         const std::vector<std::size_t>& starts,
                                         const std::string& prefix) {
    std::vector<step_window> out;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        step_window w;
        w.name = prefix + std::to_string(k + 1);
        const std::size_t end = k + 1 < starts.size() ? starts[k + 1] : mine.size();
        for (std::size_t p = starts[k]; p < end; ++p) w.idx.push_back(mine[p]);
        out.push_back(std::move(w));
    }
    return out;
}

/// The smallest period P in [min_p, n/2] of `seq` over which at least `agree` of the elements
/// repeat (seq[i] == seq[i + P]); 0 when there is none. Candidates are the positions where the
/// first element recurs; each check stops at the first 5% of mismatches.
template <class T>
std::size_t period_of(const std::vector<T>& seq, std::size_t min_p, double agree = 0.95) {
    const std::size_t n = seq.size();
    for (std::size_t p = std::max<std::size_t>(min_p, 1); p <= n / 2; ++p) {
        if (!(seq[p] == seq[0])) continue;
        std::size_t early = 0;  // a quick look at the first 64 pairs rejects most candidates
        for (std::size_t i = 0; i < 64 && i + p < n && early <= 3; ++i) early += !(seq[i] == seq[i + p]);
        if (early > 3) continue;
        const std::size_t pairs = n - p;
        const auto allowed = static_cast<std::size_t>((1.0 - agree) * double(pairs));
        std::size_t bad = 0;
        for (std::size_t i = 0; i + p < n && bad <= allowed; ++i) bad += !(seq[i] == seq[i + p]);
        if (bad <= allowed) return p;
    }
    return 0;
}

inline bool graph_api(std::string_view api) { return is_graph_launch_api(api); }

/// Source 2: CUDA graph launches (see the file comment). Empty when the trace has none.
inline std::vector<step_window> from_graph_launches(const kernel_trace& t,
                                                    const std::vector<std::size_t>& mine,
                                                    std::size_t& launches, std::size_t& period) {
    // Correlation id -> kernels; graph launches are those named so, or (nsys, no API name)
    // correlation ids shared by several kernels, which only a graph launch produces.
    std::unordered_map<std::int64_t, std::vector<std::size_t>> by_corr;  // -> positions in mine
    for (std::size_t p = 0; p < mine.size(); ++p) {
        const auto& e = t.events[mine[p]];
        if (e.activity == gpu_activity::kernel && e.correlation >= 0)
            by_corr[e.correlation].push_back(p);
    }
    struct launch {
        std::size_t first;  // position in mine of its first kernel
        std::string_view first_name;
        std::size_t kernels;
    };
    std::vector<launch> ls;
    for (const auto& [corr, pos] : by_corr) {
        const auto& e0 = t.events[mine[pos.front()]];
        const bool graph = graph_api(e0.launch_api) || (e0.launch_api.empty() && pos.size() > 1);
        if (graph) ls.push_back({pos.front(), e0.name, pos.size()});
    }
    std::sort(ls.begin(), ls.end(), [](const launch& x, const launch& y) { return x.first < y.first; });
    launches = ls.size();
    period = 0;
    if (ls.empty()) return {};
    std::vector<std::pair<std::string_view, std::size_t>> sig;
    for (const auto& l : ls) sig.push_back({l.first_name, l.kernels});
    period = ls.size() >= 2 ? period_of(sig, 1) : 1;
    if (period == 0) period = ls.size();  // no repetition: all launches make one step
    std::vector<std::size_t> starts;
    for (std::size_t k = 0; k < ls.size(); k += period) starts.push_back(k == 0 ? 0 : ls[k].first);
    return split_at(mine, starts, "graph step ");
}

/// Source 3: outermost GPU annotations of the device (not NCCL's own).
inline std::vector<step_window> from_annotations(const kernel_trace& t, int device,
                                                 const std::vector<std::size_t>& mine) {
    std::vector<const annotation*> gpu_ann;
    for (const auto& an : t.annotations)
        if (an.gpu && (an.device == device || an.device < 0) &&
            std::string_view(an.name).rfind("nccl:", 0) != 0)
            gpu_ann.push_back(&an);
    std::sort(gpu_ann.begin(), gpu_ann.end(), [](auto* x, auto* y) {
        return x->start_s != y->start_s ? x->start_s < y->start_s : x->duration_s > y->duration_s;
    });
    struct range {
        std::string name;
        double start_s, end_s;
    };
    std::vector<range> ranges;
    double covered_until = -1e300;
    for (auto* an : gpu_ann) {
        if (an->start_s + an->duration_s <= covered_until) continue;  // nested in a kept one
        covered_until = an->start_s + an->duration_s;
        ranges.push_back({std::string(an->name), an->start_s, an->start_s + an->duration_s});
    }
    std::vector<step_window> out(ranges.size());
    for (std::size_t k = 0; k < ranges.size(); ++k) out[k].name = ranges[k].name;
    for (auto i : mine)
        for (std::size_t k = 0; k < ranges.size(); ++k)
            if (t.events[i].start_s >= ranges[k].start_s && t.events[i].start_s < ranges[k].end_s) {
                out[k].idx.push_back(i);
                break;
            }
    return out;
}

/// Source 4: a repeating kernel-name sequence; `period` gets its length in kernels.
inline std::vector<step_window> from_repetition(const kernel_trace& t,
                                                const std::vector<std::size_t>& mine,
                                                std::size_t& period) {
    constexpr std::size_t max_kernels = 200000;  // bounds the search on very long traces
    std::vector<const char*> names;  // interned: equal names have equal data pointers
    std::vector<std::size_t> pos;
    for (std::size_t p = 0; p < mine.size() && names.size() < max_kernels; ++p) {
        const auto& e = t.events[mine[p]];
        if (e.activity != gpu_activity::kernel) continue;
        names.push_back(e.name.data());
        pos.push_back(p);
    }
    period = period_of(names, 4);
    if (period == 0 || names.size() / period < 2) return period = 0, std::vector<step_window>{};
    std::vector<const char*> distinct(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(period));
    std::sort(distinct.begin(), distinct.end());
    if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 2) return period = 0, std::vector<step_window>{};
    std::vector<std::size_t> starts;
    for (std::size_t k = 0; k + period <= names.size(); k += period) starts.push_back(k == 0 ? 0 : pos[k]);
    return split_at(mine, starts, "step ");
}

}  // namespace detail::step_find

ROOFLINE_INLINE step_detection describe_steps(std::string_view source, std::size_t windows, std::size_t launches,
                                              std::size_t period, double forced) {
    step_detection d;
    d.source = std::string(source);
    if (source == "ProfilerStep") {
        d.note = std::to_string(windows) + " ProfilerStep ranges with GPU activity";
    } else if (source == "CUDA graph launches") {
        d.note = std::to_string(launches) + " CUDA graph launches" +
                 (period > 1 ? ", " + std::to_string(period) + " per step (their kernels repeat with that period)"
                             : ", one per step");
    } else if (source == "GPU annotations") {
        d.note = std::to_string(windows) + " outermost GPU annotation ranges";
    } else if (source == "repeating kernel sequence") {
        d.note = "no step marker; the kernel names repeat every " + std::to_string(period) + " kernels, " +
                 std::to_string(windows) + " times";
    }
    d.count = windows == 0 ? 1 : windows;
    if (d.source.empty()) {
        d.source = "one step";
        d.note = "no step marker (ProfilerStep, CUDA graph launch, GPU annotation) and no repeating "
                 "kernel sequence: the window is taken as one step";
    }
    if (forced > 0) {  // the user's count wins; the windows found stay the step rows
        d.note = "--steps " + detail::trace_an::num(forced, forced == double(long(forced)) ? 0 : 2) +
                 " given; the trace shows " + std::to_string(d.count) + " (" + d.note + ")";
        d.count = static_cast<std::size_t>(forced + 0.5);
    }
    return d;
}

ROOFLINE_INLINE trace_steps detect_steps(const kernel_trace& t, int device,
                                         const std::vector<std::size_t>& mine, double forced) {
    using namespace detail::step_find;
    trace_steps s;
    std::string_view source;
    std::size_t launches = 0, period = 0;
    if (!t.steps.empty()) {
        std::map<std::int64_t, std::size_t> slot;
        for (const auto& ps : t.steps) {
            slot[ps.number] = s.windows.size();
            s.windows.push_back({"ProfilerStep#" + std::to_string(ps.number), {}});
        }
        for (auto i : mine)
            if (t.events[i].step >= 0 && slot.count(t.events[i].step))
                s.windows[slot[t.events[i].step]].idx.push_back(i);
        std::erase_if(s.windows, [](const step_window& w) { return w.idx.empty(); });
        if (!s.windows.empty()) source = "ProfilerStep";
    }
    if (source.empty()) {
        s.windows = from_graph_launches(t, mine, launches, period);
        if (!s.windows.empty()) source = "CUDA graph launches";
    }
    if (source.empty()) {
        s.windows = from_annotations(t, device, mine);
        std::erase_if(s.windows, [](const step_window& w) { return w.idx.empty(); });
        if (!s.windows.empty()) source = "GPU annotations";
    }
    if (source.empty()) {
        s.windows = from_repetition(t, mine, period);
        if (!s.windows.empty()) source = "repeating kernel sequence";
    }
    s.detection = describe_steps(source, s.windows.size(), launches, period, forced);
    return s;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
