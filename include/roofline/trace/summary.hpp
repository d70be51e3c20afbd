#pragma once
// Where the GPU time of a trace went: per phase and per kernel name.
//
// This is the first table `roofline trace` prints, and the input of the verdict analysis: total
// time per phase (gemm, attention, communication, ...) and per distinct kernel name, with counts,
// means and shares. It is built either from a `kernel_trace` (every event kept) or incrementally
// with `summary_builder` (constant memory: one entry per distinct name), which is how a summary
// of a multi-GB trace or an nsys `cuda_gpu_kern_sum` report is made.
//
// Conventions: `kernel_count` and `kernel_time_s` count kernels only; memcpy and memset appear
// in the tables as their own phases; shares are of `gpu_time_s` (kernels + memcpy + memset,
// summed per event: overlapping streams count twice, as in nsys' "Time (%)").

#include <algorithm>      // std::sort
#include <cmath>          // std::isnan
#include <cstddef>        // std::size_t
#include <limits>         // std::numeric_limits
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <vector>         // std::vector

#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/read_stats.hpp"

namespace roofline {

/// Time of one phase.
struct phase_total {
    kernel_phase phase = kernel_phase::other;
    double count = 0;    ///< GPU activities
    double total_s = 0;  ///< summed durations
    double share = 0;    ///< total_s / gpu_time_s
};

/// Time of one distinct kernel (or memcpy/memset) name.
struct kernel_name_time {
    std::string name;
    kernel_phase phase = kernel_phase::other;
    gpu_activity activity = gpu_activity::kernel;
    double count = 0;
    double total_s = 0;
    double min_s = std::numeric_limits<double>::quiet_NaN();  ///< NaN when unknown
    double max_s = std::numeric_limits<double>::quiet_NaN();
    double share = 0;  ///< total_s / gpu_time_s

    double mean_s() const { return count > 0 ? total_s / count : std::numeric_limits<double>::quiet_NaN(); }
};

/// The summary of one trace.
struct trace_summary {
    std::string file;
    std::string format;  ///< "kineto", "nsys-cuda-gpu-kern-sum", "nsys-cuda-gpu-trace"
    double kernel_count = 0;  ///< kernels (not memcpy/memset)
    double kernel_time_s = 0;
    double gpu_time_s = 0;  ///< kernels + memcpy + memset
    read_stats stats;       ///< of the reader
    std::vector<phase_total> phases;         ///< every phase with time, longest first
    std::vector<kernel_name_time> kernels;  ///< every name, longest total first

    /// Total time of `p` (0 if absent).
    double phase_s(kernel_phase p) const {
        for (const auto& x : phases)
            if (x.phase == p) return x.total_s;
        return 0;
    }
};

/// Accumulates GPU activities one at a time; memory is one entry per distinct name.
class summary_builder {
public:
    /// One activity of `duration_s` seconds.
    void add(std::string_view name, kernel_phase phase, gpu_activity activity, double duration_s) {
        add_many(name, phase, activity, 1, duration_s, duration_s, duration_s);
    }
    /// `count` activities totalling `total_s`, with their min and max (NaN if unknown): one row of
    /// an aggregated report such as nsys `cuda_gpu_kern_sum`.
    void add_many(std::string_view name, kernel_phase phase, gpu_activity activity, double count,
                  double total_s, double min_s, double max_s) {
        auto it = index_.find(std::string(name));
        if (it == index_.end()) {
            kernel_name_time k;
            k.name = std::string(name);
            k.phase = phase;
            k.activity = activity;
            it = index_.emplace(k.name, rows_.size()).first;
            rows_.push_back(std::move(k));
        }
        auto& k = rows_[it->second];
        k.count += count;
        k.total_s += total_s;
        if (!std::isnan(min_s)) k.min_s = std::isnan(k.min_s) ? min_s : std::min(k.min_s, min_s);
        if (!std::isnan(max_s)) k.max_s = std::isnan(k.max_s) ? max_s : std::max(k.max_s, max_s);
    }

    /// The summary (tables sorted by total time, longest first; ties by name).
    trace_summary finish(std::string file, std::string format, const read_stats& stats) const {
        trace_summary s;
        s.file = std::move(file);
        s.format = std::move(format);
        s.stats = stats;
        s.kernels = rows_;
        std::vector<phase_total> phases(kernel_phase_count);
        for (std::size_t i = 0; i < kernel_phase_count; ++i) phases[i].phase = all_kernel_phases[i];
        for (const auto& k : s.kernels) {
            auto& p = phases[static_cast<std::size_t>(k.phase)];
            p.count += k.count;
            p.total_s += k.total_s;
            s.gpu_time_s += k.total_s;
            if (k.activity == gpu_activity::kernel) {
                s.kernel_count += k.count;
                s.kernel_time_s += k.total_s;
            }
        }
        for (auto& k : s.kernels) k.share = s.gpu_time_s > 0 ? k.total_s / s.gpu_time_s : 0;
        for (auto& p : phases) {
            if (p.count == 0) continue;
            p.share = s.gpu_time_s > 0 ? p.total_s / s.gpu_time_s : 0;
            s.phases.push_back(p);
        }
        std::sort(s.phases.begin(), s.phases.end(),
                  [](const phase_total& a, const phase_total& b) { return a.total_s > b.total_s; });
        std::sort(s.kernels.begin(), s.kernels.end(), [](const kernel_name_time& a, const kernel_name_time& b) {
            return a.total_s != b.total_s ? a.total_s > b.total_s : a.name < b.name;
        });
        return s;
    }

private:
    std::vector<kernel_name_time> rows_;
    std::unordered_map<std::string, std::size_t> index_;
};

/// The summary of every GPU event of `t` (phases as the reader classified them).
inline trace_summary summarize(const kernel_trace& t) {
    summary_builder b;
    for (const auto& e : t.events) b.add(e.name, e.phase, e.activity, e.duration_s);
    return b.finish(t.file, t.format, t.stats);
}

}  // namespace roofline
