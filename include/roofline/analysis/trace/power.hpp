#pragma once
// Stage 4 of the trace analysis: the power log put on the trace's clock, per GPU.
//
// The analysed GPU's samples are aligned (analysis/power_alignment.hpp) and selected: the
// window's own samples when the window is long enough to sample, else the nearest busy period
// when it is near or the log next to the window shows its state (the note says "assumed"), else
// the window's own samples again, the far period named and refused; with no sample near the
// window either, the alignment is marked not ok ("not aligned") and the reason is a warning.
// Every other GPU of a multi-GPU log is summarised over the same log interval, so a GPU that sat
// at its limit with the cap active and its clock lowered is named even when it is not the one
// analysed: in TP/EP every step waits for the slowest rank, so its derated clock gates them all.
// Rows (analysis/trace/rows.hpp) take their evidence from here: weighted by their busy time in
// each sample period (window mode) or the busy-period evidence for a dominant row.
// This stage runs before classification because each row's verdict needs its power evidence;
// nothing here depends on rows.

#include <algorithm>  // std::sort
#include <cmath>      // std::isfinite
#include <map>        // std::map
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/power_alignment.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/trace/gpu_context.hpp"
#include "roofline/analysis/trace/result.hpp"

namespace roofline {

/// What rows need of the power picture.
struct trace_power_context {
    bool window_mode = false;           ///< samples are the window's own
    std::vector<power_sample> samples;  ///< the selected samples of the analysed GPU
    double period_s = 0.1;
    double origin_log_s = 0;
    std::optional<power_evidence> steady;  ///< busy-period evidence (not window mode)
    std::optional<double> steady_draw_w;
    std::optional<double> max_clock_hz;  ///< the log's maximum SM clock
};

/// Every GPU of the log summarised over the log interval [start_log_s, end_log_s] (widened by
/// half a sample period), in index order; `capped` marks rule 1 of analysis/verdict.hpp.
std::vector<gpu_power> power_per_gpu(const power_log& log, double start_log_s, double end_log_s,
                                     double period_s, const gpu_spec* g,
                                     const verdict_thresholds& th);

/// Aligns and selects the analysed GPU's samples for the window [start_s, end_s] of busy
/// fraction `busy_fraction`; fills `a.power` (and `a.warnings`) and returns what rows need.
/// No log: an empty context and no `a.power`.
trace_power_context align_trace_power(const trace_gpu_context& c, trace_analysis& a);

/// Power evidence of a row of activities `idx`: samples weighted by the row's busy time in each
/// sample period (window mode; `r.energy_j` gets the energy), or the busy-period evidence when the
/// row holds at least half of the busy time (`share_of_busy`). nullopt without evidence.
std::optional<power_evidence> row_power(const trace_power_context& pc, const trace_gpu_context& c,
                                        const std::vector<std::size_t>& idx, double share_of_busy,
                                        analysis_row& r);

/// `row_power` outside window mode (the busy-period evidence, or none): needs no activities.
std::optional<power_evidence> row_power_steady(const trace_power_context& pc, double share_of_busy, analysis_row& r);

/// `row_power` in window mode from `overlap_s[k]`: seconds of the row's busy time in sample k's
/// period (`pc.samples[k]`), as `length_within_s` gives them. Sets `r.energy_j`.
std::optional<power_evidence> row_power_from_overlaps(const trace_power_context& pc, const trace_gpu_context& c,
                                                      const std::vector<double>& overlap_s, analysis_row& r);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::trace_pw {

/// Weighted median: the value where the cumulative weight reaches half.
inline std::optional<double> weighted_median(std::vector<std::pair<double, double>> vw) {
    std::erase_if(vw, [](const auto& p) { return !std::isfinite(p.first) || !(p.second > 0); });
    if (vw.empty()) return std::nullopt;
    std::sort(vw.begin(), vw.end());
    double total = 0;
    for (const auto& p : vw) total += p.second;
    double acc = 0;
    for (const auto& p : vw) {
        acc += p.second;
        if (acc >= total / 2) return p.first;
    }
    return vw.back().first;
}

/// Power evidence of samples weighted by `w` (a row's busy share of each sample period).
inline power_evidence weighted_power(const std::vector<power_sample>& s, const std::vector<double>& w,
                                     const gpu_spec* g) {
    power_evidence e;
    std::vector<std::pair<double, double>> draw, limit, clock, util;
    double wr = 0, wc = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!(w[i] > 0)) continue;
        ++e.samples;
        draw.push_back({s[i].power_draw_w, w[i]});
        limit.push_back({s[i].power_limit_w, w[i]});
        if (s[i].max_sm_clock_hz > 0) clock.push_back({s[i].sm_clock_hz / s[i].max_sm_clock_hz, w[i]});
        util.push_back({s[i].utilization_gpu, w[i]});
        if (s[i].clocks_event_reasons) {
            wr += w[i];
            if (*s[i].clocks_event_reasons & power_cap_reason_mask) wc += w[i];
        }
    }
    if (e.samples == 0) return e;
    e.median_draw_w = weighted_median(draw);
    e.limit_w = weighted_median(limit);
    e.limit_from_log = e.limit_w.has_value();
    if (!e.limit_w && g && g->power_limit_w.known()) e.limit_w = g->power_limit_w.value;
    if (e.median_draw_w && e.limit_w && *e.limit_w > 0) e.fraction_of_limit = *e.median_draw_w / *e.limit_w;
    e.clock_fraction_of_max = weighted_median(clock);
    if (wr > 0) e.power_cap_active_fraction = wc / wr;
    e.median_utilization_gpu = weighted_median(util);
    return e;
}

}  // namespace detail::trace_pw

ROOFLINE_INLINE std::vector<gpu_power> power_per_gpu(const power_log& log, double start_log_s, double end_log_s,
                                                     double period_s, const gpu_spec* g,
                                                     const verdict_thresholds& th) {
    std::map<int, std::vector<power_sample>> by;
    for (const auto& s : log.samples)
        if (std::isfinite(s.wall_time_s) && s.wall_time_s >= start_log_s - period_s / 2 &&
            s.wall_time_s <= end_log_s + period_s / 2)
            by[s.gpu_index].push_back(s);
    std::vector<gpu_power> out;
    for (const auto& [index, samples] : by) {
        gpu_power p;
        p.gpu_index = index;
        if (index >= 0 && static_cast<std::size_t>(index) < log.gpu_names.size())
            p.gpu_name = log.gpu_names[static_cast<std::size_t>(index)];
        p.evidence = summarize_power(samples, g);
        p.capped = p.evidence.at_limit(th) && p.evidence.cap_active(th) && p.evidence.clock_held(th);
        if (p.evidence.clock_fraction_of_max && *p.evidence.clock_fraction_of_max > 0)
            p.compute_slowdown = 1.0 / *p.evidence.clock_fraction_of_max - 1.0;
        out.push_back(std::move(p));
    }
    return out;
}

ROOFLINE_INLINE trace_power_context align_trace_power(const trace_gpu_context& c, trace_analysis& a) {
    trace_power_context pc;
    const auto* log = c.options->power;
    if (!log) return pc;
    const gpu_spec& g = *c.gpu;
    const int index = c.power_log_index;
    trace_power pw;
    pw.gpu_index = index;
    if (index >= 0 && static_cast<std::size_t>(index) < log->gpu_names.size())
        pw.gpu_name = log->gpu_names[static_cast<std::size_t>(index)];
    if (index == c.device)
        pw.notes.push_back("log GPU index " + std::to_string(index) + " taken as the trace's CUDA device " +
                           std::to_string(c.device) + " (true unless CUDA_VISIBLE_DEVICES reorders them)");
    else if (index >= 0)
        pw.notes.push_back("the log has no GPU index " + std::to_string(c.device) + ": using index " +
                           std::to_string(index));
    if (c.props && !pw.gpu_name.empty() &&
        detail::gpu_match::squash(pw.gpu_name) != detail::gpu_match::squash(c.props->name))
        a.warnings.push_back("the power log's GPU " + std::to_string(index) + " is \"" + pw.gpu_name +
                             "\" but the trace ran on \"" + c.props->name + "\"");
    std::vector<power_sample> mine = index >= 0 ? log->samples_of(index) : std::vector<power_sample>{};
    std::sort(mine.begin(), mine.end(),
              [](const power_sample& x, const power_sample& y) { return x.wall_time_s < y.wall_time_s; });
    pw.alignment = align_power(mine, trace_epoch_s(*c.trace), a.window_start_s, a.window_end_s,
                               c.options->power_offset_s, a.busy_fraction);
    for (const auto& w : pw.alignment.warnings) (pw.alignment.ok ? pw.notes : a.warnings).push_back(w);
    const auto sel = select_power_samples(mine, pw.alignment, a.window_start_s, a.window_end_s);
    if (pw.alignment.ok && !sel.aligned) {  // a far busy period refused and no sample near the window
        pw.alignment.ok = false;
        a.warnings.push_back(sel.note);
    }
    pw.busy_gap_s = sel.busy_gap_s;
    pw.near_s = sel.near_s;
    pw.assumed = sel.assumed;
    pw.refused = sel.refused;
    pw.next_clock_fraction = sel.next_clock_fraction, pw.next_cap_fraction = sel.next_cap_fraction;
    pw.period_clock_fraction = sel.period_clock_fraction, pw.period_cap_fraction = sel.period_cap_fraction;
    pw.source = sel.source;
    pw.note = sel.note;
    pw.start_log_s = sel.start_log_s;
    pw.end_log_s = sel.end_log_s;
    if (!sel.samples.empty()) {
        pw.evidence = summarize_power(sel.samples, &g);
        std::vector<double> clk, mx;
        double sum = 0, n = 0;
        for (const auto& s : sel.samples) {
            clk.push_back(s.sm_clock_hz);
            mx.push_back(s.max_sm_clock_hz);
            if (std::isfinite(s.power_draw_w)) sum += s.power_draw_w, n += 1;
        }
        pw.median_sm_clock_hz = detail::finite_median(clk);
        pw.max_sm_clock_hz = detail::finite_median(mx);
        if (n > 0) pw.mean_draw_w = sum / n;
        const double span = a.window_end_s - a.window_start_s;
        if (pw.mean_draw_w) pw.energy_j = *pw.mean_draw_w * span;
        if (pw.energy_j && a.tokens > 0) pw.energy_per_token_j = *pw.energy_j / a.tokens;
        pc.samples = sel.samples;
        pc.period_s = sel.period_s;
        pc.origin_log_s = pw.alignment.origin_log_s;
        pc.window_mode = sel.source == "trace window";
        if (!pc.window_mode) {
            pc.steady = pw.evidence;
            pc.steady_draw_w = pw.mean_draw_w;
        }
        pc.max_clock_hz = pw.max_sm_clock_hz;
        const auto& ev = pw.evidence;
        if (!ev.limit_from_log && ev.limit_w)
            pw.notes.push_back("the log has no power limit: " + g.id + "'s default " +
                               detail::trace_an::num(*ev.limit_w) + " W assumed");
        pw.per_gpu = power_per_gpu(*log, sel.start_log_s, sel.end_log_s, sel.period_s, &g, c.options->thresholds);
    }
    if (!pw.note.empty()) detail::trace_an::note_once(pw.notes, pw.note);
    a.power = std::move(pw);
    return pc;
}

ROOFLINE_INLINE std::optional<power_evidence> row_power_steady(const trace_power_context& pc, double share_of_busy,
                                                               analysis_row& r) {
    if (pc.steady_draw_w) r.energy_j = *pc.steady_draw_w * r.total_s;
    if (share_of_busy >= 0.5) return pc.steady;
    return std::nullopt;
}

ROOFLINE_INLINE std::optional<power_evidence> row_power_from_overlaps(const trace_power_context& pc,
                                                                      const trace_gpu_context& c,
                                                                      const std::vector<double>& overlap_s,
                                                                      analysis_row& r) {
    std::vector<double> w(pc.samples.size());
    double energy = 0;
    for (std::size_t k = 0; k < pc.samples.size(); ++k) {
        const double in = overlap_s[k];
        w[k] = in / pc.period_s;
        if (std::isfinite(pc.samples[k].power_draw_w)) energy += pc.samples[k].power_draw_w * in;
    }
    r.energy_j = energy;
    auto e = detail::trace_pw::weighted_power(pc.samples, w, c.gpu);
    if (e.samples == 0) return std::nullopt;
    return e;
}

ROOFLINE_INLINE std::optional<power_evidence> row_power(const trace_power_context& pc, const trace_gpu_context& c,
                                                        const std::vector<std::size_t>& idx, double share_of_busy,
                                                        analysis_row& r) {
    if (pc.samples.empty()) return std::nullopt;
    if (!pc.window_mode) return row_power_steady(pc, share_of_busy, r);
    const auto& t = *c.trace;
    std::vector<time_interval> iv;
    for (auto i : idx) iv.push_back({t.events[i].start_s, t.events[i].end_s()});
    const auto set = merge_intervals(iv);
    std::vector<double> in(pc.samples.size());
    for (std::size_t k = 0; k < pc.samples.size(); ++k) {
        const double b = pc.samples[k].wall_time_s - pc.origin_log_s;
        in[k] = length_within_s(set, b - pc.period_s, b);
    }
    return row_power_from_overlaps(pc, c, in, r);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
