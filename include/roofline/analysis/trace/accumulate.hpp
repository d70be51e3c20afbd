#pragma once
// Rows of the trace analysis built one activity at a time, in bounded memory: what the streaming
// analysis (analysis/trace_stream.hpp) keeps where the whole-trace stages (rows.hpp,
// window_verdict.hpp, power.hpp) keep index lists. Activities must come in start order.
//
//   median_accumulator   weighted medians (latency evidence, the idle-gap median): exact while a
//                        row has at most 256 distinct values, then a histogram of log-spaced bins
//                        2^(1/64) apart, whose median is reported at its bin's geometric middle:
//                        within 0.55% of the exact value (tests/analysis/trace/stages_test.cpp).
//   interval_merger      the union of activities as `merge_intervals` makes it, interval by
//                        interval as each can no longer grow.
//   interval_buffer,     |A \ B| for a row's union A against the window's compute union B, cut
//   exposure             into the pieces `subtract` makes and summed in its order: exact.
//   power_overlaps       seconds of a row's union in each power-sample period, as `row_power`
//                        measures them: exact.
//   row_accumulator      one row: `add_event`'s sums, latency evidence, and (when asked) its
//                        union, exposure and power overlaps.
//   window_accumulator   a window (the trace or a step): its row, timeline (busy, collective
//                        and compute unions, streams, gaps) and phase rows; `finish` gives what
//                        `analyze_window` gives.
// Memory: per row a few hundred bytes, up to 4 KB per exact median (16-32 KB as a histogram),
// the power overlaps of the samples it spans, and the compute intervals that overlap a
// collective still open.

#include <algorithm>  // std::lower_bound, std::max, std::min
#include <cmath>      // std::log2, std::exp2, std::floor, std::isfinite
#include <limits>     // std::numeric_limits
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <deque>      // std::deque
#include <map>        // std::map
#include <memory>     // std::unique_ptr
#include <optional>   // std::optional
#include <set>        // std::set
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/trace/power.hpp"
#include "roofline/analysis/trace/recover_work.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/analysis/trace/rows.hpp"
#include "roofline/analysis/trace/window_verdict.hpp"

namespace roofline {

/// Weighted values whose median is wanted, in bounded memory (see the file comment).
class median_accumulator {
public:
    /// Distinct values kept exactly before switching to the histogram.
    static constexpr std::size_t exact_limit = 256;
    /// Histogram bins per octave: a bin spans a factor 2^(1/64) (1.09%).
    static constexpr int bins_per_octave = 64;

    /// Adds `value` with weight `weight`; non-finite values and weights <= 0 are ignored (as
    /// `weighted_median` drops them).
    void add(double value, double weight = 1.0);
    /// The first value (in increasing order) at which the cumulative weight reaches half the
    /// total: `weighted_median`'s rule. nullopt when empty.
    std::optional<double> weighted_median() const;
    /// The value at 0-based position `p` of the values sorted, each repeated by its weight
    /// (integer weights): `v[p]` of the sorted list. nullopt when empty or `p` past the end.
    std::optional<double> at_position(double p) const;
    /// True while every value is kept exactly.
    bool exact() const { return bins_.empty() && !zero_or_less_; }
    /// Values seen, by weight.
    double total_weight() const { return total_; }

private:
    static int bin_of(double v) { return static_cast<int>(std::floor(std::log2(v) * bins_per_octave)); }
    static double bin_value(int b) { return std::exp2((b + 0.5) / bins_per_octave); }
    void to_histogram();
    void add_to_bin(double value, double weight);

    std::vector<std::pair<double, double>> exact_;  // value -> summed weight, sorted by value
    std::vector<double> bins_;                      // weight per bin from `first_bin_`
    int first_bin_ = 0;
    bool zero_or_less_ = false;  // the histogram has values <= 0 (held in `nonpositive_`)
    std::map<double, double> nonpositive_;
    double total_ = 0;
};

/// The union of intervals given in start order, as `merge_intervals` makes it: each merged
/// interval goes to the callback once no later interval can join it.
class interval_merger {
public:
    /// Adds [start_s, end_s) (empty ones are dropped, as `merge_intervals` drops them).
    template <class OnClosed>
    void add(double start_s, double end_s, OnClosed&& on_closed) {
        if (!(end_s > start_s)) return;
        if (open_ && start_s <= cur_.end_s) {
            cur_.end_s = std::max(cur_.end_s, end_s);
            return;
        }
        if (open_) on_closed(cur_);
        cur_ = {start_s, end_s};
        open_ = true;
    }
    /// Closes the open interval, if any.
    template <class OnClosed>
    void flush(OnClosed&& on_closed) {
        if (open_) on_closed(cur_);
        open_ = false;
    }
    bool open() const { return open_; }
    const time_interval& current() const { return cur_; }

private:
    bool open_ = false;
    time_interval cur_;
};

/// The closed intervals of a window's compute union, kept while an exposure may still need them.
/// Indices are absolute (they stay valid as the front is dropped).
class interval_buffer {
public:
    void push(const time_interval& iv) { ivs_.push_back(iv); }
    std::size_t begin() const { return base_; }
    std::size_t end() const { return base_ + ivs_.size(); }
    const time_interval& operator[](std::size_t i) const { return ivs_[i - base_]; }
    /// Drops the intervals before absolute index `i`.
    void drop_before(std::size_t i) {
        while (base_ < i && !ivs_.empty()) ivs_.pop_front(), ++base_;
    }

private:
    std::deque<time_interval> ivs_;
    std::size_t base_ = 0;
};

/// |A \ B| for a row's union A (closed intervals in order) against the compute union B of its
/// window, in `subtract`'s pieces and order. An interval of A is measured once B is final over
/// it: no open compute interval starts before its end, and the stream has passed its end.
class exposure {
public:
    void add(const time_interval& a) { pending_.push_back(a); }
    /// Measures the pending intervals that B is final over. `b_open`: B's merger (its open
    /// interval); `now_s`: the start of the latest activity; `done`: the stream has ended;
    /// `horizon_s`: no later interval of A starts before it (the start of A's open interval, else
    /// `now_s`), so B's intervals ending by then are no longer needed.
    void advance(const interval_buffer& b, const interval_merger& b_open, double now_s, bool done, double horizon_s);
    double exposed_s() const { return exposed_; }
    /// Index into B before which this exposure needs nothing.
    std::size_t needs_from() const { return j_; }

private:
    std::deque<time_interval> pending_;
    std::size_t j_ = 0;
    double exposed_ = 0;
};

/// Seconds of a row's union in each power sample's period (`trace_power_context`, window mode),
/// as `row_power` measures them; samples outside the row's span are not stored.
class power_overlaps {
public:
    void add(const trace_power_context& pc, const time_interval& iv);
    /// One value per sample of `pc` (0 where the row has none).
    std::vector<double> values(const trace_power_context& pc) const;

private:
    std::size_t first_ = 0;
    std::vector<double> in_;
};

/// One row built activity by activity (see the file comment).
class row_accumulator {
public:
    /// `union_needed`: keep the row's union (collective exposure, power overlaps). `power`: keep
    /// its power overlaps when the context is in window mode. `with_helpers`: helper kernels of a
    /// priced op count as priced time (op rows).
    row_accumulator(bool union_needed, const trace_power_context* power, bool with_helpers)
        : union_needed_(union_needed), with_helpers_(with_helpers),
          power_(power && power->window_mode && !power->samples.empty() ? power : nullptr) {}

    /// Adds activity `i` of segment context `c` with its prices `w` (`add_event` and
    /// `latency_of`, one activity at a time).
    void add(const trace_gpu_context& c, const recovered_work& w, std::size_t i);
    /// Measures the row's union against a window's compute union (collective rows).
    void attach_exposure() { exposure_ = std::make_unique<exposure>(); }
    const exposure* exposure_state() const { return exposure_.get(); }
    /// Moves the exposure on (see `exposure::advance`); `done` closes the union first.
    void advance(const interval_buffer* compute, const interval_merger* compute_open, double now_s, bool done);

    analysis_row& row() { return row_; }
    const analysis_row& row() const { return row_; }
    /// The latency evidence (`latency_of`'s).
    latency_evidence latency() const;
    /// The collective measures of the row (after `advance(..., true)`); returns the exposed
    /// share of `span_s` (`set_collective_measures`).
    double set_collective(double span_s);
    /// `row_power`'s evidence for the row (after `advance(..., true)`); sets its energy.
    std::optional<power_evidence> power(const trace_power_context& pc, const trace_gpu_context& c, double share);

private:
    void closed(const time_interval& iv);

    analysis_row row_;
    bool union_needed_, with_helpers_;
    const trace_power_context* power_;
    median_accumulator durations_, grids_;
    double kernels_ = 0, graph_ = 0, t_small_ = 0, t_known_ = 0, occ_w_ = 0, occ_t_ = 0;
    double bw_t_ = 0, bw_s_ = 0;
    interval_merger union_;
    double union_s_ = 0;
    std::unique_ptr<exposure> exposure_;
    power_overlaps overlaps_;
};

/// A window (the whole trace, or one step) built activity by activity: its row, timeline and
/// phase rows (see the file comment).
class window_accumulator {
public:
    /// `gaps`: measure the idle gaps (the whole window). `power`: the power context (phase rows
    /// keep their power overlaps in window mode).
    window_accumulator(bool gaps, const trace_power_context* power)
        : gaps_(gaps), power_(power), window_(false, nullptr, false) {}

    /// Adds activity `i` (in start order) of segment context `c` with its prices `w`.
    void add(const trace_gpu_context& c, const recovered_work& w, std::size_t i);
    /// Moves exposures on (at a segment's end, `now_s` the latest start); `done`: no more activity.
    void advance(double now_s, bool done);

    /// What `analyze_window` gives: fills `win` and returns the classified phase rows. Call after
    /// `advance(..., true)`.
    window_result finish(const trace_gpu_context& c, const trace_power_context& pc, analysis_row& win,
                         std::optional<power_evidence> power, std::vector<std::string>* warnings);

    double busy_s() const { return busy_s_; }
    double span_s() const { return have_busy_ ? last_end_ - first_start_ : 0.0; }
    double first_start_s() const { return first_start_; }
    double last_end_s() const { return last_end_; }
    double communication_s() const { return comm_s_; }
    double exposed_s() const { return comm_exposure_.exposed_s(); }
    double activity_s() const { return act_; }
    std::size_t streams() const { return streams_.size(); }
    std::size_t idle_gaps() const { return gap_count_; }
    const median_accumulator& gaps() const { return gap_values_; }
    double max_gap_s() const { return max_gap_; }
    bool empty() const { return !any_; }

    /// The window's compute union, for rows measured against it (collective kernel rows).
    const interval_buffer& compute_closed() const { return compute_closed_; }
    const interval_merger& compute_open() const { return compute_; }
    /// A row whose exposure reads the compute union: the buffer keeps what it still needs.
    void add_reader(const exposure* e) { readers_.push_back(e); }

private:
    void busy_closed(const time_interval& iv);
    void comm_closed(const time_interval& iv);

    bool gaps_;
    const trace_power_context* power_;
    row_accumulator window_;
    std::map<kernel_phase, row_accumulator> phases_;
    interval_merger busy_, comm_, compute_;
    interval_buffer compute_closed_;
    exposure comm_exposure_;  // the collective union against compute
    std::vector<const exposure*> readers_;
    double busy_s_ = 0, comm_s_ = 0, act_ = 0;
    double first_start_ = 0, last_end_ = 0;
    bool any_ = false, have_busy_ = false;
    double prev_busy_end_ = 0;
    std::set<std::int64_t> streams_;
    std::size_t gap_count_ = 0;
    median_accumulator gap_values_;
    double max_gap_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {

ROOFLINE_INLINE void median_accumulator::add(double value, double weight) {
    if (!std::isfinite(value) || !(weight > 0)) return;
    total_ += weight;
    if (!bins_.empty() || zero_or_less_) return add_to_bin(value, weight);
    auto it = std::lower_bound(exact_.begin(), exact_.end(), value,
                               [](const std::pair<double, double>& p, double v) { return p.first < v; });
    if (it != exact_.end() && it->first == value) {
        it->second += weight;
        return;
    }
    exact_.insert(it, {value, weight});
    if (exact_.size() > exact_limit) to_histogram();
}

ROOFLINE_INLINE void median_accumulator::to_histogram() {
    auto values = std::move(exact_);
    exact_.clear();
    exact_.shrink_to_fit();
    bins_.clear();
    for (const auto& [v, w] : values) add_to_bin(v, w);
    if (bins_.empty() && !zero_or_less_) bins_.push_back(0);  // mark the switch
}

ROOFLINE_INLINE void median_accumulator::add_to_bin(double value, double weight) {
    if (!(value > 0)) {
        zero_or_less_ = true;
        nonpositive_[value] += weight;
        return;
    }
    const int b = bin_of(value);
    if (bins_.empty()) {
        first_bin_ = b;
        bins_.assign(1, 0.0);
    } else if (b < first_bin_) {
        bins_.insert(bins_.begin(), static_cast<std::size_t>(first_bin_ - b), 0.0);
        first_bin_ = b;
    } else if (b >= first_bin_ + static_cast<int>(bins_.size())) {
        bins_.resize(static_cast<std::size_t>(b - first_bin_ + 1), 0.0);
    }
    bins_[static_cast<std::size_t>(b - first_bin_)] += weight;
}

ROOFLINE_INLINE std::optional<double> median_accumulator::weighted_median() const {
    if (!(total_ > 0)) return std::nullopt;
    if (exact()) {
        double total = 0;
        for (const auto& p : exact_) total += p.second;
        double acc = 0;
        for (const auto& [v, w] : exact_) {
            acc += w;
            if (acc >= total / 2) return v;
        }
        return exact_.back().first;
    }
    double acc = 0;
    for (const auto& [v, w] : nonpositive_) {
        acc += w;
        if (acc >= total_ / 2) return v;
    }
    for (std::size_t k = 0; k < bins_.size(); ++k) {
        acc += bins_[k];
        if (bins_[k] > 0 && acc >= total_ / 2) return bin_value(first_bin_ + static_cast<int>(k));
    }
    for (std::size_t k = bins_.size(); k-- > 0;)
        if (bins_[k] > 0) return bin_value(first_bin_ + static_cast<int>(k));
    return nonpositive_.empty() ? std::nullopt : std::optional<double>(nonpositive_.rbegin()->first);
}

ROOFLINE_INLINE std::optional<double> median_accumulator::at_position(double p) const {
    if (!(total_ > 0) || p >= total_) return std::nullopt;
    double acc = 0;
    if (exact()) {
        for (const auto& [v, w] : exact_) {
            acc += w;
            if (p < acc) return v;
        }
        return std::nullopt;
    }
    for (const auto& [v, w] : nonpositive_) {
        acc += w;
        if (p < acc) return v;
    }
    for (std::size_t k = 0; k < bins_.size(); ++k) {
        acc += bins_[k];
        if (bins_[k] > 0 && p < acc) return bin_value(first_bin_ + static_cast<int>(k));
    }
    return std::nullopt;
}

ROOFLINE_INLINE void exposure::advance(const interval_buffer& b, const interval_merger& b_open, double now_s,
                                       bool done, double horizon_s) {
    if (j_ < b.begin()) j_ = b.begin();
    while (!pending_.empty()) {
        const time_interval x = pending_.front();
        const bool final_over = done || (b_open.open() ? b_open.current().start_s >= x.end_s : now_s >= x.end_s);
        if (!final_over) return;
        pending_.pop_front();
        // `subtract` for one interval of A, its index into B carried over.
        double s = x.start_s;
        while (j_ < b.end() && b[j_].end_s <= s) ++j_;
        std::size_t k = j_;
        while (k < b.end() && b[k].start_s < x.end_s) {
            if (b[k].start_s > s) exposed_ += time_interval{s, b[k].start_s}.length_s();
            s = std::max(s, b[k].end_s);
            ++k;
        }
        if (x.end_s > s) exposed_ += time_interval{s, x.end_s}.length_s();
    }
    // Nothing pending: B's intervals that end by the horizon can meet no later interval of A.
    while (j_ < b.end() && b[j_].end_s <= horizon_s) ++j_;
}

ROOFLINE_INLINE void power_overlaps::add(const trace_power_context& pc, const time_interval& iv) {
    const auto& s = pc.samples;
    // Samples whose period [b - period, b) meets the interval: the first with b > start, on.
    std::size_t lo = 0, hi = s.size();
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (s[mid].wall_time_s - pc.origin_log_s > iv.start_s) hi = mid;
        else lo = mid + 1;
    }
    for (std::size_t k = lo; k < s.size(); ++k) {
        const double b = s[k].wall_time_s - pc.origin_log_s;
        const double a = b - pc.period_s;
        if (a >= iv.end_s) break;
        const double in = std::max(0.0, std::min(iv.end_s, b) - std::max(iv.start_s, a));  // length_within_s
        if (in_.empty()) {
            first_ = k;
        } else if (k < first_) {
            in_.insert(in_.begin(), first_ - k, 0.0);
            first_ = k;
        }
        if (k - first_ >= in_.size()) in_.resize(k - first_ + 1, 0.0);
        in_[k - first_] += in;
    }
}

ROOFLINE_INLINE std::vector<double> power_overlaps::values(const trace_power_context& pc) const {
    std::vector<double> v(pc.samples.size(), 0.0);
    for (std::size_t k = 0; k < in_.size() && first_ + k < v.size(); ++k) v[first_ + k] = in_[k];
    return v;
}

ROOFLINE_INLINE void row_accumulator::add(const trace_gpu_context& c, const recovered_work& w, std::size_t i) {
    const auto& e = c.trace->events[i];
    add_event(row_, c, w, i, with_helpers_);
    if (e.activity == gpu_activity::kernel) {  // latency_of, one kernel at a time
        kernels_ += 1;
        if (is_graph_launch_api(e.launch_api)) graph_ += 1;
        durations_.add(e.duration_s, 1.0);
        const double blocks = double(e.grid[0]) * e.grid[1] * e.grid[2];
        if (blocks > 0) {
            t_known_ += e.duration_s;
            grids_.add(blocks, e.duration_s);
            if (c.sm_count > 0 && blocks < c.sm_count) t_small_ += e.duration_s;
        }
        if (std::isfinite(e.occupancy_pct) && e.occupancy_pct > 0) {
            occ_w_ += e.occupancy_pct * e.duration_s;
            occ_t_ += e.duration_s;
        }
    }
    if (w.prices[i].busbw) bw_t_ += e.duration_s, bw_s_ += *w.prices[i].busbw * e.duration_s;
    if (union_needed_ || power_) union_.add(e.start_s, e.end_s(), [&](const time_interval& iv) { closed(iv); });
}

ROOFLINE_INLINE void row_accumulator::closed(const time_interval& iv) {
    union_s_ += iv.length_s();
    if (exposure_) exposure_->add(iv);
    if (power_) overlaps_.add(*power_, iv);
}

ROOFLINE_INLINE void row_accumulator::advance(const interval_buffer* compute, const interval_merger* compute_open,
                                              double now_s, bool done) {
    if (done) union_.flush([&](const time_interval& iv) { closed(iv); });
    if (exposure_ && compute)
        exposure_->advance(*compute, *compute_open, now_s, done, union_.open() ? union_.current().start_s : now_s);
}

ROOFLINE_INLINE latency_evidence row_accumulator::latency() const {
    latency_evidence l;
    l.kernels = kernels_;
    if (const auto m = durations_.weighted_median()) l.median_kernel_s = *m;
    if (const auto m = grids_.weighted_median()) l.median_grid_blocks = *m;
    if (t_known_ > 0) l.small_grid_share = t_small_ / t_known_;
    if (occ_t_ > 0) l.occupancy_pct = occ_w_ / occ_t_;
    if (l.kernels > 0) l.graph_launched_share = graph_ / l.kernels;
    return l;
}

ROOFLINE_INLINE double row_accumulator::set_collective(double span_s) {
    return set_collective_measures(row_, union_s_, exposure_ ? exposure_->exposed_s() : 0.0, bw_t_, bw_s_, span_s);
}

ROOFLINE_INLINE std::optional<power_evidence> row_accumulator::power(const trace_power_context& pc,
                                                                     const trace_gpu_context& c, double share) {
    if (pc.samples.empty()) return std::nullopt;
    if (!pc.window_mode) return row_power_steady(pc, share, row_);
    return row_power_from_overlaps(pc, c, overlaps_.values(pc), row_);
}

ROOFLINE_INLINE void window_accumulator::busy_closed(const time_interval& iv) {
    busy_s_ += iv.length_s();
    if (have_busy_) {
        if (gaps_) {  // gaps_s: the idle time between merged busy intervals
            const double gap = iv.start_s - prev_busy_end_;
            ++gap_count_;
            gap_values_.add(gap, 1.0);
            max_gap_ = std::isnan(max_gap_) ? gap : std::max(max_gap_, gap);
        }
    } else {
        first_start_ = iv.start_s;
    }
    have_busy_ = true;
    prev_busy_end_ = iv.end_s;
    last_end_ = iv.end_s;
}

ROOFLINE_INLINE void window_accumulator::comm_closed(const time_interval& iv) {
    comm_s_ += iv.length_s();
    comm_exposure_.add(iv);
}

ROOFLINE_INLINE void window_accumulator::add(const trace_gpu_context& c, const recovered_work& w, std::size_t i) {
    const auto& e = c.trace->events[i];
    const double start = e.start_s, end = e.end_s();
    // timeline_of: the busy, collective and compute unions.
    busy_.add(start, end, [&](const time_interval& iv) { busy_closed(iv); });
    if (e.phase == kernel_phase::communication)
        comm_.add(start, end, [&](const time_interval& iv) { comm_closed(iv); });
    else
        compute_.add(start, end, [&](const time_interval& iv) { compute_closed_.push(iv); });
    act_ += e.duration_s;
    streams_.insert(e.stream);
    any_ = true;
    window_.add(c, w, i);
    auto it = phases_.find(e.phase);
    if (it == phases_.end()) {
        const bool comm = e.phase == kernel_phase::communication;
        it = phases_.emplace(e.phase, row_accumulator(comm, power_, false)).first;
        it->second.row().name = std::string(to_string(e.phase));
        it->second.row().phase = e.phase;
        if (comm) {
            it->second.attach_exposure();
            add_reader(it->second.exposure_state());
        }
    }
    it->second.add(c, w, i);
}

ROOFLINE_INLINE void window_accumulator::advance(double now_s, bool done) {
    if (done) {
        busy_.flush([&](const time_interval& iv) { busy_closed(iv); });
        comm_.flush([&](const time_interval& iv) { comm_closed(iv); });
        compute_.flush([&](const time_interval& iv) { compute_closed_.push(iv); });
    }
    comm_exposure_.advance(compute_closed_, compute_, now_s, done, comm_.open() ? comm_.current().start_s : now_s);
    for (auto& [p, r] : phases_) r.advance(&compute_closed_, &compute_, now_s, done);
    window_.advance(nullptr, nullptr, now_s, done);
    std::size_t keep = comm_exposure_.needs_from();
    for (const auto* e : readers_) keep = std::min(keep, e->needs_from());
    compute_closed_.drop_before(keep);
}

ROOFLINE_INLINE window_result window_accumulator::finish(const trace_gpu_context& c, const trace_power_context& pc,
                                                         analysis_row& win, std::optional<power_evidence> power,
                                                         std::vector<std::string>* warnings) {
    // analyze_window's summing half, from the accumulated parts.
    const analysis_row& sums = window_.row();
    const std::string name = win.name;
    win = sums;
    win.name = name;
    win.span_s = span_s();
    win.busy_s = busy_s_;
    win.latency = window_.latency();
    std::vector<measured_phase> phases;
    for (auto& [p, acc] : phases_) {
        analysis_row& r = acc.row();
        r.share = act_ > 0 ? r.total_s / act_ : 0;
        r.latency = acc.latency();
        std::optional<double> comm_share;
        if (r.phase == kernel_phase::communication) comm_share = acc.set_collective(win.span_s);
        const auto pe = acc.power(pc, c, r.share);
        phases.push_back({std::move(r), comm_share, pe});
    }
    return finish_window(c, pc, std::move(phases), win, exposed_s(), act_, streams_.size(), power, warnings);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
