#pragma once
// The power samples that belong to one benchmark run, and the evidence of each GPU in them.
//
// A log often spans several runs (a sweep logged in one file): its median over the whole file
// gives each run the same number. When the bench file says when the run happened, only samples
// inside that window count:
//   - `benchmark_start_time_unix` / `benchmark_end_time_unix` (InferenceX, SGLang): Unix time;
//   - vLLM `date` ("YYYYMMDD-HHMMSS", local time, written when the run ended) with `duration`:
//     the window is [date - duration, date] (vllm/benchmarks/serve.py sets `date` from
//     `datetime.now()` after the benchmark returns).
// nvidia-smi prints local time without a zone, and trace/power.hpp reads it as if it were UTC.
// vLLM's `date` is local time too (same reading, no shift). A Unix window is compared to the log
// at every zone offset from -12 h to +14 h in 15 minutes, and the offset whose window falls in
// the log with the most busy samples (utilization.gpu >= 50%) is taken; the note says which.
// Per GPU: in TP/EP every step waits for the slowest rank, so a GPU at its limit with the cap
// active and its SM clock lowered gates the run even when the median over GPUs looks fine.

#include <algorithm>  // std::min, std::max
#include <cmath>     // std::isfinite, std::floor
#include <limits>    // std::numeric_limits
#include <cstdio>    // std::snprintf
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/trace/bench.hpp"
#include "roofline/trace/power.hpp"

namespace roofline {

/// The samples chosen for a run, and how.
struct run_power_window {
    std::vector<power_sample> samples;  ///< in file order, every GPU
    bool from_bench = false;            ///< the bench file's own window was used
    std::optional<double> start_log_s, end_log_s;  ///< the window on the log's clock
    std::string note;                              ///< which window, for people
    /// The bench file dates the run and no sample of the log falls in its window at any zone
    /// offset: the log is of another time; `samples` is empty and `note` says when each was.
    bool outside = false;
};

/// The samples of `log` inside `run`'s own window (see the file comment); all samples, and a
/// note saying so, when the run gives no window; none (`outside`) when none of the log falls in it.
run_power_window run_window_samples(const power_log& log, const bench_run& run);

/// Evidence of one GPU over a run.
struct run_gpu_power {
    int gpu_index = 0;
    power_evidence evidence;
    bool capped = false;  ///< at its limit, the cap active, the SM clock held below its maximum
};

/// Power evidence per GPU index of `samples`, in index order.
std::vector<run_gpu_power> power_by_gpu(const std::vector<power_sample>& samples, const gpu_spec* g,
                                        const verdict_thresholds& th);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::power_win {

/// Seconds since 1970 of a vLLM `date` "YYYYMMDD-HHMMSS" read as UTC; nullopt when malformed.
inline std::optional<double> vllm_date_s(const std::string& d) {
    if (d.size() != 15 || d[8] != '-') return std::nullopt;
    for (std::size_t i = 0; i < 15; ++i)
        if (i != 8 && (d[i] < '0' || d[i] > '9')) return std::nullopt;
    const auto n = [&](std::size_t at, std::size_t len) { return std::stoi(d.substr(at, len)); };
    int y = n(0, 4);
    const int m = n(4, 2), day = n(6, 2), hh = n(9, 2), mm = n(11, 2), ss = n(13, 2);
    if (m < 1 || m > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60) return std::nullopt;
    // Days from civil (Howard Hinnant's algorithm).
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const double days = double(era) * 146097.0 + double(doe) - 719468.0;
    return days * 86400.0 + hh * 3600.0 + mm * 60.0 + ss;
}

/// "2026-02-13 14:05" for seconds `s` since 1970 on a clock without zone (civil from days,
/// Howard Hinnant's algorithm).
inline std::string utc_day(double s) {
    const double days_f = std::floor(s / 86400.0);
    const long long z0 = static_cast<long long>(days_f) + 719468;
    const long long era = (z0 >= 0 ? z0 : z0 - 146096) / 146097;
    const long long doe = z0 - era * 146097;
    const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const long long mp = (5 * doy + 2) / 153;
    const long long d = doy - (153 * mp + 2) / 5 + 1;
    const long long m = mp < 10 ? mp + 3 : mp - 9;
    const long long y = yoe + era * 400 + (m <= 2);
    const long long sec = static_cast<long long>(s - days_f * 86400.0);
    char b[112];  // room for five long longs: -Wformat-truncation cannot bound y
    std::snprintf(b, sizeof b, "%04lld-%02lld-%02lld %02lld:%02lld", y, m, d, sec / 3600, (sec / 60) % 60);
    return b;
}

inline std::string hours(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.2f h", s / 3600.0);
    return b;
}

/// Samples of `log` with wall time in [a, b].
inline std::vector<power_sample> within(const power_log& log, double a, double b) {
    std::vector<power_sample> out;
    for (const auto& s : log.samples)
        if (std::isfinite(s.wall_time_s) && s.wall_time_s >= a && s.wall_time_s <= b) out.push_back(s);
    return out;
}

}  // namespace detail::power_win

ROOFLINE_INLINE run_power_window run_window_samples(const power_log& log, const bench_run& run) {
    using namespace detail::power_win;
    run_power_window w;
    std::optional<double> start, end;
    bool local = false;
    std::string from;
    if (run.benchmark_start_time_unix_s && run.benchmark_end_time_unix_s) {
        start = run.benchmark_start_time_unix_s, end = run.benchmark_end_time_unix_s;
        from = "benchmark_start_time_unix/benchmark_end_time_unix";
    } else if (!run.date.empty() && run.duration_s) {
        if (const auto d = vllm_date_s(run.date)) {
            start = *d - *run.duration_s, end = *d, local = true;
            from = "vLLM date " + run.date + " minus duration";
        }
    }
    if (!start) {
        w.samples = log.samples;
        w.note = "the bench file gives no start and end (benchmark_start_time_unix/_end_, or vLLM date and "
                 "duration): every sample of the log is used";
        return w;
    }
    bool timed = false;
    for (const auto& s : log.samples) timed = timed || std::isfinite(s.wall_time_s);
    if (!timed) {  // nothing to align by: the log is taken as the run's, and said so
        w.samples = log.samples;
        w.note = "the log has no timestamps to align with the run's window (" + from + "): every sample is used";
        return w;
    }
    double best_shift = 0;
    std::size_t best_busy = 0, best_n = 0;
    for (int q = local ? 0 : -48; q <= (local ? 0 : 56); ++q) {  // 15-min steps, -12 h .. +14 h
        const double shift = q * 900.0;
        const auto in = within(log, *start + shift, *end + shift);
        std::size_t busy = 0;
        for (const auto& s : in) busy += !std::isfinite(s.utilization_gpu) || s.utilization_gpu >= 0.5;
        if (busy > best_busy || (busy == best_busy && in.size() > best_n && q == 0)) {
            best_busy = busy, best_n = in.size(), best_shift = shift;
        }
    }
    if (best_n == 0) {
        double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
        for (const auto& s : log.samples)
            if (std::isfinite(s.wall_time_s)) t0 = std::min(t0, s.wall_time_s), t1 = std::max(t1, s.wall_time_s);
        w.outside = true;
        w.note = "no sample of the log falls in the run's window (" + from + ": " + utc_day(*start) +
                 (local ? " local time" : " UTC") + (local ? "" : ", at any zone offset from -12 h to +14 h") + ")" +
                 (t1 >= t0 ? std::string("; the log spans ") + utc_day(t0) + " to " + utc_day(t1) + " on its own clock"
                           : std::string()) +
                 ": a log of another run, so it is not used as this run's power evidence";
        return w;
    }
    w.from_bench = true;
    w.start_log_s = *start + best_shift;
    w.end_log_s = *end + best_shift;
    w.samples = within(log, *w.start_log_s, *w.end_log_s);
    w.note = "power: " + std::to_string(w.samples.size()) + " of " + std::to_string(log.samples.size()) +
             " samples inside the run's window (" + from +
             (local ? ", local time as the log" : ", the log read at UTC" + hours(best_shift)) + ")";
    return w;
}

ROOFLINE_INLINE std::vector<run_gpu_power> power_by_gpu(const std::vector<power_sample>& samples, const gpu_spec* g,
                                                        const verdict_thresholds& th) {
    std::map<int, std::vector<power_sample>> by;
    for (const auto& s : samples) by[s.gpu_index].push_back(s);
    std::vector<run_gpu_power> out;
    for (const auto& [i, v] : by) {
        run_gpu_power p{i, summarize_power(v, g), false};
        p.capped = p.evidence.at_limit(th) && p.evidence.cap_active(th) && p.evidence.clock_held(th);
        out.push_back(p);
    }
    return out;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
