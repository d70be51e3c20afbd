#pragma once
// Putting an nvidia-smi log and a profiler trace on one clock, and choosing the samples that
// speak for the trace.
//
// Clocks. A Kineto trace stamps events in microseconds: relative to `baseTimeNanoseconds`
// (Unix time) in new traces, Unix microseconds in old ones, or an arbitrary steady clock
// (CUPTI's) when neither holds. nvidia-smi prints local wall time without a zone, which the
// reader parses as if it were UTC. So, for a trace with a Unix clock, log time = trace time +
// the local zone's offset (a whole number of quarter hours) + clock skew (small on one machine).
// Alignment therefore
//   1. takes `--power-offset S` when given (seconds added to the trace's Unix time; for a trace
//      without a Unix clock, the time of the trace's first event after the log's first sample);
//   2. else, for a Unix-clock trace, tries every zone offset from UTC-12 to UTC+14 in quarter
//      hours and keeps the one that puts the trace window inside the log, preferring one where
//      the log shows activity around the window, then the smallest offset;
//   3. else (no Unix clock) matches activity onsets: the first sustained rise of the log
//      (three busy samples after an idle one) is taken to be the trace's first kernel.
// The onset of activity nearest the window is reported as a check ("the log's activity starts
// 0.21 s after the first kernel"), and a bad alignment is flagged: a window outside the log, or
// a long, busy window during which the log shows an idle GPU.
//
// Samples. nvidia-smi's `power.draw` on Ampere and newer GPUs (GA100 excepted) is the average
// over the last second (NVML `nvmlDeviceGetPowerUsage`), and `utilization.gpu` a trailing
// average too. A profiled window of a few hundred milliseconds, typically a few steps taken
// after a warm-up pause, is shorter than that: its own samples show the board ramping up from
// idle, not the power of the work. When the window holds fewer samples than a second's worth,
// the evidence comes from the nearest sustained busy period of the same GPU in the log (the
// run the profiled steps were sampled from), with its first second dropped (the 1-s average
// ramping up), and the report says so.
//
// That busy period must be the traced work, not another workload of the same log. It is *near*
// when it lies within the window widened by three sample periods on each side (gap <= window
// length + 3 periods: one period because nvidia-smi's trailing averages report work one sample
// late, two for the skew between the trace's clock and nvidia-smi's timestamps, 0.14-0.33 s on
// this project's H200 recordings); a near period is used. A *far* one is used only when the log
// next to the window (the samples in that widened window) shows the GPU busy in the period's
// state: SM clock within 10 points of the period's and the power-cap reason active or not as in
// most of the period. Clock and throttle reasons are instantaneous readings, unlike the 1-s
// draw, so a short window shows them even when its draw is still ramping; the draw is then
// *assumed* to be the period's, and the note says so. Otherwise the far period is refused and the
// window's own samples (those whose trailing period overlaps the window, else the nearest within
// one period of it) are the evidence, with a note naming the period that was not used; with no
// such sample either, nothing is aligned (`aligned` false) and the note says why.

#include <algorithm>  // std::sort, std::min, std::max
#include <cmath>      // std::isfinite, std::fabs, std::round
#include <cstddef>    // std::size_t
#include <cstdio>     // std::snprintf
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/power.hpp"

namespace roofline {

/// Unix time (seconds, UTC) of the trace's time origin (`start_s` = 0), or NaN when the trace's
/// clock is not a Unix clock (no `baseTimeNanoseconds` and timestamps before September 2001).
double trace_epoch_s(const kernel_trace& t);

/// Median spacing of consecutive samples with timestamps, seconds (NaN with fewer than two).
double sample_period_s(const std::vector<power_sample>& s);

/// Which samples show the GPU active: `utilization.gpu` above 5% where logged; otherwise board
/// power above the idle floor by a quarter of the log's range (10th to 95th percentile of draw),
/// when that range exceeds 20 W (ours: nvidia-smi's own noise is a few watts).
std::vector<bool> busy_samples(const std::vector<power_sample>& s);

/// A maximal run of busy samples, indices inclusive.
struct sample_run {
    std::size_t first = 0, last = 0;
    double start_s = 0, end_s = 0;  ///< log times of its first and last sample
    std::size_t size() const { return last - first + 1; }
};

/// Runs of at least `min_samples` consecutive busy samples (samples in time order).
std::vector<sample_run> busy_runs(const std::vector<power_sample>& s,
                                  std::size_t min_samples);

/// How the log was put on the trace's clock.
struct power_alignment {
    bool trace_has_epoch = false;  ///< the trace carries Unix time
    /// User-facing offset, seconds: log time = trace Unix time + offset (Unix-clock traces), or
    /// the time of the trace's origin after the log's first sample (other traces).
    double offset_s = std::numeric_limits<double>::quiet_NaN();
    std::string basis;   ///< "unix time" or "log start"
    std::string method;  ///< "--power-offset", "timestamps (log in UTC)", "timestamps (log in
                         ///< UTC+02:00)", "activity onset"
    /// Log time of the trace's time 0 (so log time = origin_log_s + trace time).
    double origin_log_s = std::numeric_limits<double>::quiet_NaN();
    /// Log activity onset nearest the window minus the first kernel's log time, seconds.
    std::optional<double> onset_skew_s;
    bool ok = false;                    ///< samples can be mapped onto the trace
    std::vector<std::string> warnings;  ///< bad-alignment flags, one line each

    double log_time(double trace_s) const { return origin_log_s + trace_s; }
};

/// Aligns `samples` (one GPU, in time order) with a trace whose GPU activity spans
/// [first_kernel_s, last_kernel_s] (trace seconds) and whose origin is at Unix time
/// `trace_epoch` (NaN when unknown). `busy_fraction`: the trace's GPU busy share of its window,
/// for the idle-log check. `user_offset_s`: `--power-offset`.
power_alignment align_power(const std::vector<power_sample>& samples, double trace_epoch,
                            double first_kernel_s, double last_kernel_s,
                            std::optional<double> user_offset_s = std::nullopt,
                            double busy_fraction = 1.0);

/// The samples that speak for a trace window, and where they came from.
struct power_selection {
    std::vector<power_sample> samples;
    /// "trace window" (the window's own samples) or "busy period" (the nearest sustained
    /// activity of the same GPU, for windows shorter than the log's averaging).
    std::string source;
    double start_log_s = std::numeric_limits<double>::quiet_NaN();  ///< first sample used
    double end_log_s = std::numeric_limits<double>::quiet_NaN();    ///< last sample used
    double period_s = std::numeric_limits<double>::quiet_NaN();     ///< sample period of the log
    std::string note;                                               ///< one line: why these samples
    /// Distance from the window of the nearest busy period weighed for a short window, seconds
    /// (NaN when none was: a long window, or no busy period in the log).
    double busy_gap_s = std::numeric_limits<double>::quiet_NaN();
    /// Farther than this (the window length + 3 sample periods) a busy period is far.
    double near_s = std::numeric_limits<double>::quiet_NaN();
    bool assumed = false;  ///< a far busy period used: the log next to the window shows its state
    bool refused = false;  ///< a far busy period not used: the log next to the window does not
    bool aligned = true;   ///< false: no sample within a period of the window, no usable period
    /// The state compared for a far period: median SM clock fraction and power-cap share of the
    /// busy samples next to the window and of the period (unset when not compared or not logged).
    std::optional<double> next_clock_fraction, next_cap_fraction, period_clock_fraction, period_cap_fraction;
};

/// Chooses the samples (one GPU, time order) for the trace window [first_kernel_s,
/// last_kernel_s] under alignment `a`. Window samples are those whose trailing sample period
/// overlaps the window. With fewer than `min_samples` of them and less than
/// `averaging_s` of window (nvidia-smi's 1-s power average), the nearest busy period of at least
/// `min_samples` samples within `max_distance_s` of the window is used instead, minus its first
/// `averaging_s`, when it is near the window or the log next to the window shows its state (see
/// the file comment); else the window's own samples are.
power_selection select_power_samples(const std::vector<power_sample>& samples,
                                     const power_alignment& a, double first_kernel_s,
                                     double last_kernel_s, std::size_t min_samples = 10,
                                     double averaging_s = 1.0,
                                     double max_distance_s = 120.0);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE double trace_epoch_s(const kernel_trace& t) {
    if (t.base_time_ns)
        return static_cast<double>(*t.base_time_ns) * 1e-9 + t.time_origin_us * 1e-6;
    const double s = t.time_origin_us * 1e-6;
    return s > 1e9 ? s : std::numeric_limits<double>::quiet_NaN();
}

ROOFLINE_INLINE double sample_period_s(const std::vector<power_sample>& s) {
    std::vector<double> d;
    for (std::size_t i = 1; i < s.size(); ++i)
        if (std::isfinite(s[i].wall_time_s) && std::isfinite(s[i - 1].wall_time_s) &&
            s[i].wall_time_s > s[i - 1].wall_time_s)
            d.push_back(s[i].wall_time_s - s[i - 1].wall_time_s);
    if (d.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
    return d[d.size() / 2];
}

ROOFLINE_INLINE std::vector<bool> busy_samples(const std::vector<power_sample>& s) {
    std::vector<double> draws;
    for (const auto& x : s)
        if (std::isfinite(x.power_draw_w)) draws.push_back(x.power_draw_w);
    double threshold = std::numeric_limits<double>::infinity();
    if (draws.size() >= 4) {
        std::sort(draws.begin(), draws.end());
        const double p10 = draws[draws.size() / 10], p95 = draws[draws.size() * 95 / 100];
        if (p95 - p10 > 20.0) threshold = p10 + 0.25 * (p95 - p10);
    }
    std::vector<bool> out(s.size(), false);
    for (std::size_t i = 0; i < s.size(); ++i)
        out[i] = std::isfinite(s[i].utilization_gpu) ? s[i].utilization_gpu > 0.05
                                                     : s[i].power_draw_w > threshold;
    return out;
}

ROOFLINE_INLINE std::vector<sample_run> busy_runs(const std::vector<power_sample>& s,
                                                  std::size_t min_samples) {
    const auto busy = busy_samples(s);
    std::vector<sample_run> out;
    for (std::size_t i = 0; i < s.size();) {
        if (!busy[i]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < s.size() && busy[j + 1]) ++j;
        if (j - i + 1 >= min_samples) out.push_back({i, j, s[i].wall_time_s, s[j].wall_time_s});
        i = j + 1;
    }
    return out;
}

namespace detail::align {
inline std::string zone_text(double z) {
    const long long q = static_cast<long long>(std::round(z / 60.0));
    const long long h = (q < 0 ? -q : q) / 60, m = (q < 0 ? -q : q) % 60;
    char buf[32];
    std::snprintf(buf, sizeof buf, "UTC%c%02lld:%02lld", q < 0 ? '-' : '+', h, m);
    return q == 0 ? "UTC" : buf;
}
inline std::string secs(double s, int digits = 2) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f s", digits, s);
    return buf;
}
}  // namespace detail::align

ROOFLINE_INLINE power_alignment align_power(const std::vector<power_sample>& samples, double trace_epoch,
                                            double first_kernel_s, double last_kernel_s,
                                            std::optional<double> user_offset_s,
                                            double busy_fraction) {
    using detail::align::secs;
    power_alignment a;
    a.trace_has_epoch = std::isfinite(trace_epoch);
    a.basis = a.trace_has_epoch ? "unix time" : "log start";
    std::vector<power_sample> s;
    for (const auto& x : samples)
        if (std::isfinite(x.wall_time_s)) s.push_back(x);
    if (s.empty()) {
        a.warnings.push_back(
            "the power log has no timestamps: its samples cannot be placed on the trace");
        return a;
    }
    const double L0 = s.front().wall_time_s, L1 = s.back().wall_time_s;
    const double period = std::isfinite(sample_period_s(s)) ? sample_period_s(s) : 0.1;
    const auto busy = busy_samples(s);
    // Sustained onsets: busy for three samples after an idle one (or at the log's start).
    std::vector<double> onsets;
    for (std::size_t i = 0; i + 2 < s.size(); ++i)
        if (busy[i] && busy[i + 1] && busy[i + 2] && (i == 0 || !busy[i - 1]))
            onsets.push_back(s[i].wall_time_s);
    const auto busy_near = [&](double t0, double t1) {
        std::size_t n = 0, b = 0;
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s[i].wall_time_s >= t0 && s[i].wall_time_s <= t1) ++n, b += busy[i];
        return n ? static_cast<double>(b) / static_cast<double>(n) : 0.0;
    };

    if (user_offset_s) {
        a.offset_s = *user_offset_s;
        a.method = "--power-offset";
        a.origin_log_s = a.trace_has_epoch ? trace_epoch + *user_offset_s : L0 + *user_offset_s;
    } else if (a.trace_has_epoch) {
        double best_z = 0, best_score = -1;
        bool found = false;
        for (int k = -48; k <= 56; ++k) {
            const double z = k * 900.0;
            const double w0 = trace_epoch + first_kernel_s + z,
                         w1 = trace_epoch + last_kernel_s + z;
            if (w1 < L0 - period || w0 > L1 + period) continue;
            const double score = busy_near(w0 - 2.0, w1 + 2.0);
            if (!found || score > best_score + 1e-9 ||
                (std::fabs(score - best_score) <= 1e-9 && std::fabs(z) < std::fabs(best_z))) {
                best_z = z;
                best_score = score;
                found = true;
            }
        }
        if (!found) {
            a.offset_s = 0;
            a.origin_log_s = trace_epoch;
            a.method = "timestamps";
            a.warnings.push_back(
                "the trace window lies outside the power log in every time zone (log covers " +
                secs(L1 - L0, 1) + "): no samples align; pass --power-offset");
            return a;
        }
        a.offset_s = best_z;
        a.origin_log_s = trace_epoch + best_z;
        a.method = "timestamps (log in " + detail::align::zone_text(best_z) + ")";
    } else {
        if (onsets.empty()) {
            a.warnings.push_back(
                "the trace has no Unix clock and the log shows no sustained rise of activity: "
                "pass --power-offset");
            return a;
        }
        a.origin_log_s = onsets.front() - first_kernel_s;
        a.offset_s = a.origin_log_s - L0;
        a.method = "activity onset";
        a.warnings.push_back(
            "aligned by activity onset: the trace's first kernel is taken to start the log's first "
            "busy period; if the trace is a window of a longer run, pass --power-offset");
    }

    // Checks.
    const double w0 = a.log_time(first_kernel_s), w1 = a.log_time(last_kernel_s);
    a.ok = true;
    if (w1 < L0 - period || w0 > L1 + period) {
        a.ok = false;
        a.warnings.push_back("the trace window lies outside the power log (" + secs(w0 - L1, 1) +
                             " after its end or before its start): check --power-offset");
        return a;
    }
    double nearest = std::numeric_limits<double>::infinity();
    for (double t : onsets)
        if (std::fabs(t - w0) <= 2.0 && std::fabs(t - w0) < std::fabs(nearest)) nearest = t - w0;
    if (std::isfinite(nearest)) a.onset_skew_s = nearest;
    const double window = w1 - w0;
    if (window >= 2.0 && window >= 10 * period && busy_fraction >= 0.5 && busy_near(w0, w1) < 0.3)
        a.warnings.push_back("bad alignment: the trace's GPU is busy " +
                             std::to_string(static_cast<int>(busy_fraction * 100)) +
                             "% of its window but the log shows it idle then: check --power-offset "
                             "and the GPU index");
    return a;
}

ROOFLINE_INLINE power_selection select_power_samples(const std::vector<power_sample>& samples,
                                                     const power_alignment& a, double first_kernel_s,
                                                     double last_kernel_s, std::size_t min_samples,
                                                     double averaging_s,
                                                     double max_distance_s) {
    using detail::align::secs;
    power_selection sel;
    if (!a.ok) return sel;
    std::vector<power_sample> s;
    for (const auto& x : samples)
        if (std::isfinite(x.wall_time_s)) s.push_back(x);
    if (s.empty()) return sel;
    sel.period_s = std::isfinite(sample_period_s(s)) ? sample_period_s(s) : 0.1;
    const double w0 = a.log_time(first_kernel_s), w1 = a.log_time(last_kernel_s);
    std::vector<power_sample> in;
    for (const auto& x : s)
        if (x.wall_time_s > w0 && x.wall_time_s - sel.period_s < w1) in.push_back(x);
    const double window = w1 - w0;
    if (in.size() >= min_samples || (window >= averaging_s && !in.empty())) {
        sel.samples = std::move(in);
        sel.source = "trace window";
        sel.start_log_s = sel.samples.front().wall_time_s;
        sel.end_log_s = sel.samples.back().wall_time_s;
        sel.note = std::to_string(sel.samples.size()) + " samples inside the trace window";
        return sel;
    }
    // The window's own samples; with none covering it (a gap in the log), the nearest sample
    // within one period of it.
    std::vector<power_sample> own = in;
    if (own.empty()) {
        double best_gap = std::numeric_limits<double>::infinity();
        for (const auto& x : s) {
            const double g = x.wall_time_s <= w0 ? w0 - x.wall_time_s : x.wall_time_s - (w1 + sel.period_s);
            if (g <= sel.period_s && g < best_gap) best_gap = g, own = {x};
        }
    }
    const auto use_own = [&](const std::string& why) {
        sel.samples = own;
        sel.note = why;
        if (own.empty()) {
            sel.aligned = false;
            return;
        }
        sel.source = "trace window";
        sel.start_log_s = own.front().wall_time_s;
        sel.end_log_s = own.back().wall_time_s;
    };
    const std::string shorter = "the window (" + secs(window, 3) + ") is shorter than nvidia-smi's " +
                                secs(averaging_s, 0) + " power average";
    const auto own_text = [&] {
        if (own.empty()) return std::string("no sample lies within a sample period of the window: not aligned");
        return "evidence from the " + std::string(in.empty() ? "sample nearest the window" : (in.size() == 1 ? "sample" : std::to_string(in.size()) + " samples") + " covering the window") +
               " (its draw is nvidia-smi's 1-s average, mostly of the time before the window)";
    };

    const auto runs = busy_runs(s, min_samples);
    const sample_run* best = nullptr;
    double best_d = std::numeric_limits<double>::infinity();
    for (const auto& r : runs) {
        const double d = r.end_s < w0 ? w0 - r.end_s : (r.start_s > w1 ? r.start_s - w1 : 0.0);
        if (d < best_d) best_d = d, best = &r;
    }
    sel.near_s = window + 3 * sel.period_s;
    if (!best || best_d > max_distance_s) {
        use_own(shorter + " and no sustained busy period lies within " + secs(max_distance_s, 0) + ": " + own_text());
        return sel;
    }
    sel.busy_gap_s = best_d;
    std::vector<power_sample> steady;
    for (std::size_t i = best->first; i <= best->last; ++i)
        if (s[i].wall_time_s >= best->start_s + averaging_s || best->end_s - best->start_s < 2 * averaging_s)
            steady.push_back(s[i]);
    const double span = best->end_s - best->start_s;
    const std::string where = best_d == 0 ? "around the window"
                                          : secs(best_d, 1) + (best->end_s < w0 ? " before the window"
                                                                                : " after the window");
    const std::string period_text = "the busy period " + where + " (" + secs(span, 1) + ", " +
                                    std::to_string(steady.size()) + " samples after its first second)";
    const auto use_period = [&](const std::string& why) {
        sel.samples = steady;
        sel.source = "busy period";
        sel.start_log_s = sel.samples.front().wall_time_s;
        sel.end_log_s = sel.samples.back().wall_time_s;
        sel.note = why;
    };
    if (best_d <= sel.near_s) {
        use_period(shorter + ": evidence from " + period_text + ", taken to run the traced work");
        return sel;
    }

    // Far: the state of the period against the busy samples next to the window.
    const auto state = [](const std::vector<power_sample>& v) {
        std::vector<double> clk;
        std::size_t with_reasons = 0, capped = 0;
        for (const auto& x : v) {
            if (x.max_sm_clock_hz > 0 && std::isfinite(x.sm_clock_hz)) clk.push_back(x.sm_clock_hz / x.max_sm_clock_hz);
            if (x.clocks_event_reasons) ++with_reasons, capped += (*x.clocks_event_reasons & power_cap_reason_mask) != 0;
        }
        std::optional<double> clock, cap;
        if (!clk.empty()) {
            std::sort(clk.begin(), clk.end());
            clock = clk[clk.size() / 2];
        }
        if (with_reasons) cap = static_cast<double>(capped) / static_cast<double>(with_reasons);
        return std::pair{clock, cap};
    };
    const auto busy = busy_samples(s);
    std::vector<power_sample> next;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (busy[i] && s[i].wall_time_s >= w0 - 3 * sel.period_s && s[i].wall_time_s <= w1 + 3 * sel.period_s)
            next.push_back(s[i]);
    const auto [pclk, pcap] = state(steady);
    sel.period_clock_fraction = pclk, sel.period_cap_fraction = pcap;
    const auto pct = [](double f) { return std::to_string(static_cast<int>(std::round(f * 100))) + "%"; };
    const auto describe = [&](std::optional<double> clk, std::optional<double> cap) {
        std::string t = clk ? "SM clock " + pct(*clk) + " of max" : "SM clock unknown";
        if (cap) t += ", power cap active in " + pct(*cap) + " of samples";
        return t;
    };
    const std::string far = ", farther than " + secs(sel.near_s, 2) + " (the window + 3 sample periods)";
    if (!next.empty()) {
        const auto [nclk, ncap] = state(next);
        sel.next_clock_fraction = nclk, sel.next_cap_fraction = ncap;
        // The file comment's rule: SM clocks within 10 points of max, the power cap active in
        // most samples of both or of neither (an unlogged reading does not count against it).
        constexpr double same_clock_points = 0.10, mostly = 0.5;
        const bool clock_ok = !nclk || !pclk || std::fabs(*nclk - *pclk) <= same_clock_points;
        const bool cap_ok = !ncap || !pcap || (*ncap >= mostly) == (*pcap >= mostly);
        if (clock_ok && cap_ok) {
            use_period(shorter + ": evidence from " + period_text + far +
                       ", assumed to run the traced work: the log next to the window shows the GPU busy in "
                       "the same state (" + describe(nclk, ncap) + "; the period: " + describe(pclk, pcap) + ")");
            sel.assumed = true;
            return sel;
        }
        sel.refused = true;
        use_own(shorter + ", but " + period_text + far +
                ", is not used: the log next to the window shows the GPU busy in another state (" +
                describe(nclk, ncap) + "; the period: " + describe(pclk, pcap) + "); " + own_text());
        return sel;
    }
    sel.refused = true;
    use_own(shorter + ", but " + period_text + far +
            ", is not used: the log shows no activity next to the window, so the period may be another "
            "workload; " + own_text());
    return sel;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
