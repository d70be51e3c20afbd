#pragma once
// The steps of a trace read as a stream (analysis/trace_stream.hpp): analysis/trace/steps.hpp's
// sources, found from activities given one at a time in start order. The first pass over the
// file finds what needs no annotation (`step_finder`: ProfilerStep ranges that launches fell in,
// CUDA graph launches and their period, the repeating kernel sequence); the second assigns each
// activity to its window (`step_assigner`), and settles between GPU annotations and a repeating
// sequence, since a Kineto file writes its GPU annotations after the kernels they cover.
//
// Memory: one entry per ProfilerStep range, per CUDA graph launch (16 bytes) and per step window;
// the repeating-sequence search keeps its first 200,000 kernels (as detect_steps does), until the
// end of the first pass.

#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint32_t
#include <deque>        // std::deque
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <set>          // std::set
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <unordered_map>  // std::unordered_map
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/analysis/trace/steps.hpp"
#include "roofline/trace/kernel_event.hpp"

namespace roofline {

/// What the first pass finds of one device's steps, activity by activity (in start order).
class step_finder {
public:
    /// Activities of a CUDA graph launch may come at most this many activities apart.
    static constexpr std::size_t graph_window = 65536;

    /// Adds the next activity of the device (its launch fields and ProfilerStep set).
    void add(const kernel_event& e);

    /// The CUDA graph launches found: each one's first activity's position, its first kernel's
    /// name and its kernel count, by position.
    struct launch {
        std::size_t first = 0;
        std::string_view first_name;
        std::size_t kernels = 0;
    };
    std::vector<launch> graph_launches() const;
    /// ProfilerStep numbers that some activity's launch fell in.
    const std::set<std::int64_t>& profiler_steps() const { return profiler_; }
    /// The repeating kernel sequence: its period in kernels and the positions where its windows
    /// start (`detect_steps`' rule); 0 and empty when none.
    std::size_t repetition(std::vector<std::size_t>& starts) const;
    /// Activities added.
    std::size_t size() const { return position_; }
    /// Non-empty when a launch's kernels came farther apart than `graph_window`: why.
    const std::string& problem() const { return problem_; }

private:
    struct group {
        std::size_t first, last, kernels;
        std::string_view first_name;
        bool graph;  // its first kernel's API replays a graph; else no API (a group of 2+ is one)
    };
    std::size_t position_ = 0;
    std::set<std::int64_t> profiler_;
    std::unordered_map<std::int64_t, group> open_;  // correlation -> launch, while activities may join
    std::deque<std::int64_t> open_order_;           // their correlations, oldest first
    std::vector<launch> closed_;
    std::int64_t closed_max_ = -1;  // the largest correlation closed
    std::vector<const char*> rep_names_;
    std::vector<std::size_t> rep_positions_;
    std::string problem_;
    void close_old();
};

/// The step windows of a device planned from the first pass: one source settled, or GPU
/// annotations and the repeating sequence both open until the second pass has seen whether any
/// annotation range holds activity.
struct step_plan {
    /// The source settled by the first pass ("ProfilerStep", "CUDA graph launches", "one step"),
    /// or "" while annotations and repetition are open.
    std::string source;
    std::map<std::int64_t, std::size_t> profiler_slots;  ///< ProfilerStep number -> window
    std::vector<std::string> profiler_names;
    std::vector<std::size_t> graph_starts;  ///< positions where graph steps start
    std::size_t launches = 0, graph_period = 0;
    /// GPU annotation ranges (outermost, as `detect_steps` keeps them): names and [start, end).
    std::vector<std::string> ranges_names;
    std::vector<time_interval> ranges;
    std::vector<std::size_t> repetition_starts;  ///< positions where repeated windows start
    std::size_t repetition_period = 0;
};

/// Plans the steps of `device` from the first pass's `finder` and the trace's ProfilerSteps and
/// GPU annotations (`t`, times after the origin shift).
step_plan plan_steps(const kernel_trace& t, int device, const step_finder& finder);

/// Assigns activities (in start order) to the windows of one step source of a plan.
class step_assigner {
public:
    enum class kind : std::uint8_t { profiler, graph, annotations, repetition };
    step_assigner(const step_plan& plan, kind k) : plan_(plan), kind_(k) {}

    /// The window of activity `e` at device position `position`, or -1 (none: before the first
    /// window, or outside every range).
    long window_of(const kernel_event& e, std::size_t position);
    /// The name of window `w` ("ProfilerStep#3", "graph step 2", an annotation's name, "step 5").
    std::string name(std::size_t w) const;
    /// True when window `w` can gain no activity after one at `position` starting at `start_s`.
    bool closed(std::size_t w, std::size_t position, double start_s) const;
    /// The first window that activity starting at `start_s` or later may still join besides
    /// the open ones (windows before it that have none never will); the largest size_t when
    /// only open windows can (windows by position follow each other).
    std::size_t first_unfinished(double start_s) const;
    kind source() const { return kind_; }
    /// Windows the source has.
    std::size_t windows() const;

private:
    const step_plan& plan_;
    kind kind_;
    std::size_t next_range_ = 0;
    std::set<std::size_t> open_ranges_;
};

/// The source names of `step_assigner::kind`.
std::string_view step_source_name(step_assigner::kind k);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS
#include <algorithm>  // std::sort, std::upper_bound

namespace roofline {

ROOFLINE_INLINE void step_finder::close_old() {
    // Launches whose last activity is far behind can take no more (a replay's kernels run
    // together); oldest first, stopping at one still open.
    while (!open_order_.empty()) {
        const auto it = open_.find(open_order_.front());
        if (it->second.last + graph_window >= position_) return;
        const auto& g = it->second;
        if (g.graph || g.kernels > 1) closed_.push_back({g.first, g.first_name, g.kernels});
        closed_max_ = std::max(closed_max_, it->first);
        open_.erase(it);
        open_order_.pop_front();
    }
}

ROOFLINE_INLINE void step_finder::add(const kernel_event& e) {
    const std::size_t p = position_++;
    if (e.step >= 0) profiler_.insert(e.step);
    if (e.activity != gpu_activity::kernel) return;
    if (rep_names_.size() < 200000) {  // detect_steps' bound on the repetition search
        rep_names_.push_back(e.name.data());
        rep_positions_.push_back(p);
    }
    if (e.correlation < 0) return;
    // from_graph_launches: the kernels of one correlation id; a launch when its first kernel's API
    // replays a graph, or (no API: nsys style) when it has several kernels.
    const bool graph = detail::step_find::graph_api(e.launch_api);
    if (!graph && !e.launch_api.empty()) return;
    auto it = open_.find(e.correlation);
    if (it == open_.end()) {
        if (e.correlation <= closed_max_ && problem_.empty())
            problem_ = "kernels of one launch (correlation " + std::to_string(e.correlation) + ") more than " +
                       std::to_string(graph_window) + " activities apart";
        open_.emplace(e.correlation, group{p, p, 1, e.name, graph});
        open_order_.push_back(e.correlation);
    } else {
        ++it->second.kernels;
        it->second.last = p;
    }
    close_old();
}

ROOFLINE_INLINE std::vector<step_finder::launch> step_finder::graph_launches() const {
    std::vector<launch> out = closed_;
    for (const auto& [corr, g] : open_)
        if (g.graph || g.kernels > 1) out.push_back({g.first, g.first_name, g.kernels});
    std::sort(out.begin(), out.end(), [](const launch& x, const launch& y) { return x.first < y.first; });
    return out;
}

ROOFLINE_INLINE std::size_t step_finder::repetition(std::vector<std::size_t>& starts) const {
    using detail::step_find::period_of;
    starts.clear();
    std::size_t period = period_of(rep_names_, 4);
    if (period == 0 || rep_names_.size() / period < 2) return 0;
    std::vector<const char*> distinct(rep_names_.begin(), rep_names_.begin() + static_cast<std::ptrdiff_t>(period));
    std::sort(distinct.begin(), distinct.end());
    if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 2) return 0;
    for (std::size_t k = 0; k + period <= rep_names_.size(); k += period) starts.push_back(k == 0 ? 0 : rep_positions_[k]);
    return period;
}

ROOFLINE_INLINE step_plan plan_steps(const kernel_trace& t, int device, const step_finder& finder) {
    using detail::step_find::period_of;
    step_plan plan;
    // 1. ProfilerStep ranges with activity, in their order (of two ranges with one number, the
    // last takes its activity, as in detect_steps).
    std::map<std::int64_t, std::size_t> last;
    for (std::size_t k = 0; k < t.steps.size(); ++k) last[t.steps[k].number] = k;
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
        const auto n = t.steps[k].number;
        if (last[n] != k || !finder.profiler_steps().count(n)) continue;
        plan.profiler_slots[n] = plan.profiler_names.size();
        plan.profiler_names.push_back("ProfilerStep#" + std::to_string(n));
    }
    if (!plan.profiler_names.empty()) {
        plan.source = "ProfilerStep";
        return plan;
    }
    // 2. CUDA graph launches, by their period.
    const auto ls = finder.graph_launches();
    if (!ls.empty()) {
        std::vector<std::pair<std::string_view, std::size_t>> sig;
        for (const auto& l : ls) sig.push_back({l.first_name, l.kernels});
        std::size_t period = ls.size() >= 2 ? period_of(sig, 1) : 1;
        if (period == 0) period = ls.size();  // no repetition: all launches make one step
        for (std::size_t k = 0; k < ls.size(); k += period) plan.graph_starts.push_back(k == 0 ? 0 : ls[k].first);
        plan.launches = ls.size();
        plan.graph_period = period;
        plan.source = "CUDA graph launches";
        return plan;
    }
    // 3. GPU annotations (outermost, not NCCL's own), settled in the second pass.
    std::vector<const annotation*> gpu_ann;
    for (const auto& an : t.annotations)
        if (an.gpu && (an.device == device || an.device < 0) && std::string_view(an.name).rfind("nccl:", 0) != 0)
            gpu_ann.push_back(&an);
    std::sort(gpu_ann.begin(), gpu_ann.end(), [](auto* x, auto* y) {
        return x->start_s != y->start_s ? x->start_s < y->start_s : x->duration_s > y->duration_s;
    });
    double covered_until = -1e300;
    for (auto* an : gpu_ann) {
        if (an->start_s + an->duration_s <= covered_until) continue;  // nested in a kept one
        covered_until = an->start_s + an->duration_s;
        plan.ranges_names.push_back(std::string(an->name));
        plan.ranges.push_back({an->start_s, an->start_s + an->duration_s});
    }
    // 4. The repeating kernel sequence.
    plan.repetition_period = finder.repetition(plan.repetition_starts);
    if (plan.ranges.empty() && plan.repetition_period == 0) plan.source = "one step";
    return plan;
}

ROOFLINE_INLINE std::string_view step_source_name(step_assigner::kind k) {
    switch (k) {
        case step_assigner::kind::profiler: return "ProfilerStep";
        case step_assigner::kind::graph: return "CUDA graph launches";
        case step_assigner::kind::annotations: return "GPU annotations";
        case step_assigner::kind::repetition: return "repeating kernel sequence";
    }
    return "";
}

ROOFLINE_INLINE std::size_t step_assigner::windows() const {
    switch (kind_) {
        case kind::profiler: return plan_.profiler_names.size();
        case kind::graph: return plan_.graph_starts.size();
        case kind::annotations: return plan_.ranges.size();
        case kind::repetition: return plan_.repetition_starts.size();
    }
    return 0;
}

ROOFLINE_INLINE long step_assigner::window_of(const kernel_event& e, std::size_t position) {
    const auto by_position = [&](const std::vector<std::size_t>& starts) -> long {
        // split_at: window k holds positions [starts[k], starts[k + 1]); the last to the end.
        const auto it = std::upper_bound(starts.begin(), starts.end(), position);
        return it == starts.begin() ? -1 : static_cast<long>(it - starts.begin()) - 1;
    };
    switch (kind_) {
        case kind::profiler: {
            const auto it = plan_.profiler_slots.find(e.step);
            return e.step >= 0 && it != plan_.profiler_slots.end() ? static_cast<long>(it->second) : -1;
        }
        case kind::graph: return by_position(plan_.graph_starts);
        case kind::repetition: return by_position(plan_.repetition_starts);
        case kind::annotations: {
            // from_annotations: the first range (in order) whose [start, end) holds the start.
            const double t = e.start_s;
            while (next_range_ < plan_.ranges.size() && plan_.ranges[next_range_].start_s <= t)
                open_ranges_.insert(next_range_++);
            for (auto it = open_ranges_.begin(); it != open_ranges_.end();) {
                if (plan_.ranges[*it].end_s <= t) {
                    it = open_ranges_.erase(it);
                    continue;
                }
                if (t >= plan_.ranges[*it].start_s) return static_cast<long>(*it);
                ++it;
            }
            return -1;
        }
    }
    return -1;
}

ROOFLINE_INLINE bool step_assigner::closed(std::size_t w, std::size_t position, double start_s) const {
    switch (kind_) {
        case kind::profiler: return false;  // by launch time: a window may gain activity to the end
        case kind::graph: return w + 1 < plan_.graph_starts.size() && position >= plan_.graph_starts[w + 1];
        case kind::repetition: return w + 1 < plan_.repetition_starts.size() && position >= plan_.repetition_starts[w + 1];
        case kind::annotations: return start_s >= plan_.ranges[w].end_s;
    }
    return false;
}

ROOFLINE_INLINE std::size_t step_assigner::first_unfinished(double start_s) const {
    switch (kind_) {
        case kind::profiler: return 0;  // by launch time: nothing closes before the end
        case kind::graph:
        case kind::repetition: return std::numeric_limits<std::size_t>::max();
        case kind::annotations: {
            // A range that started may still take activity until its end; later ranges start later.
            for (const auto k : open_ranges_)
                if (plan_.ranges[k].end_s > start_s) return k;
            return next_range_;
        }
    }
    return 0;
}

ROOFLINE_INLINE std::string step_assigner::name(std::size_t w) const {
    switch (kind_) {
        case kind::profiler: return plan_.profiler_names[w];
        case kind::graph: return "graph step " + std::to_string(w + 1);
        case kind::annotations: return plan_.ranges_names[w];
        case kind::repetition: return "step " + std::to_string(w + 1);
    }
    return "";
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
