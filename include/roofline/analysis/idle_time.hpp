#pragma once
// Why a GPU stream sat idle, and how long kernels waited after their launch.
//
// Idle time per stream as HolisticTraceAnalysis splits it (trace/rank_summary.hpp
// `stream_idle`: host wait, kernel wait, other), and launch delay statistics as HTA's
// `get_cuda_kernel_launch_stats` computes them. Unlike HTA, times keep the trace's resolution
// (HTA rounds timestamps to whole microseconds before subtracting, which inflates short gaps).
// These numbers make a "latency-bound" verdict actionable: host wait says the CPU is too slow
// to enqueue (CUDA graphs help), kernel wait says the kernels are too short (fusion helps).

#include <algorithm>  // std::sort, std::max
#include <cmath>      // std::isnan
#include <cstdint>    // std::int64_t
#include <map>        // std::map
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/rank_summary.hpp"

namespace roofline {

/// HTA's default launch floor (`consecutive_kernel_delay` = 30 in trace units, microseconds;
/// hta/trace_analysis.py `get_idle_time_breakdown`).
inline constexpr double hta_launch_floor_s = 30e-6;

/// Idle time of each stream of `device` in `t` (all devices when `device` < 0), by stream id.
/// Gaps are measured between consecutive activities in start order on one stream; a gap whose
/// activity has no matched launch (`launch_s` NaN) cannot be host wait. Negative gaps (activities
/// overlapping on one stream, as clock skew between CUPTI buffers can produce) count as zero. A
/// gap within 1 ps of the floor counts as at the floor, not under it (a 30 us gap of an integer
/// microsecond trace is 29.999999999 us in floating-point seconds; HTA compares integers).
std::vector<stream_idle> idle_time_by_stream(const kernel_trace& t, int device,
                                             double launch_floor_s = hta_launch_floor_s);

/// Keeps only the GPU activity HolisticTraceAnalysis analyses (hta/common/trace.py
/// `_filter_irrelevant_gpu_kernels`): with two or more ProfilerSteps, activities whose launching
/// runtime call started before the last step's start (HTA treats the last iteration as
/// incomplete; activities without a matched launch go too). Fewer steps: nothing is removed.
/// Returns the number of activities removed. For comparing with HTA's numbers.
std::size_t keep_hta_iterations(kernel_trace& t);

/// Launch delays of the activities of `device` (all when < 0): GPU start minus the end of the
/// launching runtime call, clipped at 0 (HTA's definition). Empty stats when no launch matched.
launch_delay_stats launch_delays(const kernel_trace& t, int device);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE std::vector<stream_idle> idle_time_by_stream(const kernel_trace& t, int device,
                                                             double launch_floor_s) {
    std::map<std::int64_t, std::vector<const kernel_event*>> by_stream;
    for (const auto& e : t.events)
        if (device < 0 || e.device == device) by_stream[e.stream].push_back(&e);
    std::vector<stream_idle> out;
    for (auto& [stream, ev] : by_stream) {
        std::sort(ev.begin(), ev.end(),
                  [](const kernel_event* a, const kernel_event* b) { return a->start_s < b->start_s; });
        stream_idle s;
        s.stream = stream;
        s.activities = ev.size();
        double last_end = ev.front()->end_s();
        for (std::size_t i = 0; i < ev.size(); ++i) {
            const auto& e = *ev[i];
            s.busy_s += e.duration_s;
            if (i > 0) {
                const double gap = e.start_s - last_end;
                if (gap > 0) {
                    if (!std::isnan(e.launch_s) && e.launch_s > last_end) s.host_wait_s += gap;
                    else if (gap < launch_floor_s - 1e-12) s.kernel_wait_s += gap;  // 1 ps: float seconds
                    else s.other_s += gap;
                }
                last_end = std::max(last_end, e.end_s());
            }
        }
        s.span_s = last_end - ev.front()->start_s;
        out.push_back(s);
    }
    return out;
}

ROOFLINE_INLINE std::size_t keep_hta_iterations(kernel_trace& t) {
    if (t.steps.size() < 2) return 0;
    double last_start = t.steps.front().start_s;
    for (const auto& s : t.steps) last_start = std::max(last_start, s.start_s);
    const std::size_t before = t.events.size();
    std::erase_if(t.events, [&](const kernel_event& e) { return std::isnan(e.launch_s) || !(e.launch_s < last_start); });
    return before - t.events.size();
}

ROOFLINE_INLINE launch_delay_stats launch_delays(const kernel_trace& t, int device) {
    std::vector<double> d;
    for (const auto& e : t.events) {
        if ((device >= 0 && e.device != device) || std::isnan(e.launch_s)) continue;
        const double end = e.launch_s + (std::isnan(e.launch_duration_s) ? 0.0 : e.launch_duration_s);
        d.push_back(std::max(0.0, e.start_s - end));
    }
    launch_delay_stats s;
    s.count = d.size();
    if (d.empty()) return s;
    std::sort(d.begin(), d.end());
    double sum = 0;
    for (double x : d) sum += x;
    s.mean_s = sum / static_cast<double>(d.size());
    s.median_s = d[d.size() / 2];
    s.p90_s = d[std::min(d.size() - 1, static_cast<std::size_t>(0.9 * static_cast<double>(d.size())))];
    s.max_s = d.back();
    return s;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
