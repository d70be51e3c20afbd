#pragma once
// The roofline itself: the least time a workload can take on given ceilings, and how much of
// each ceiling a measured time reached.
//
//   t_compute = max( sum_k F_k / P_k over tensor classes , sum_k F_k / P_k over vector classes )
//   t_memory  = max over levels ( B_level / W_level )
//   t_link    = B_link / W_link
//   t_latency = launches x t_launch + latency
//   T_min     = max(t_compute, t_memory, t_link) + t_latency
//
// (Williams, Waterman, Patterson, "Roofline", CACM 2009; per-level memory roofs after Yang,
// Kurth, Williams 2020.) Tensor classes share one matrix pipe, so their times add; the vector
// pipe runs beside it, so the two overlap. Utilisation of a roof for a measured time T is the
// fraction of its ceiling reached: (work / T) / ceiling = t_roof / T.

#include <algorithm>  // std::max, std::sort
#include <array>      // std::array
#include <limits>     // std::numeric_limits
#include <cmath>      // std::isnan, std::isfinite
#include <string>     // std::string

#include "roofline/core/bound.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/workload.hpp"

namespace roofline {

/// Times per roof for one workload on one set of ceilings, all in seconds.
struct roof_times {
    double tensor_s = 0.0;   ///< sum over tensor rate classes of F / P
    double vector_s = 0.0;   ///< sum over fp32/fp64 vector classes of F / P
    double compute_s = 0.0;  ///< max(tensor_s, vector_s)
    std::array<double, memory_level_count> memory_level_s{};  ///< B / W per level (0 if unpriced)
    double memory_s = 0.0;   ///< max over levels
    memory_level memory_bottleneck = memory_level::dram;
    double link_s = 0.0;     ///< link bytes / link bandwidth
    double latency_s = 0.0;  ///< launches x launch latency + fixed latency
    double lower_bound_s = 0.0;  ///< max(compute, memory, link) + latency
    bound predicted = bound::latency;  ///< the roof attaining the max (latency if it exceeds all)
    /// Largest roof time over the second largest (>= 1; infinity when only one is non-zero):
    /// how clear the predicted bound is.
    double margin = 1.0;
    /// FLOP per rate class that could not be priced: the GPU lacks the class (ceiling 0) or its
    /// ceiling is unknown (NaN). They are left out of `compute_s`, so `lower_bound_s` is still a
    /// lower bound, only a looser one; `unpriced_summary` says what was left out.
    std::array<double, peak_key_count> unpriced_flops{};
    /// Link bytes left out because the link's bandwidth is unknown (or the GPU has no such link).
    double unpriced_link_bytes = 0.0;

    /// True when every FLOP and link byte of the workload was priced.
    bool fully_priced() const {
        for (double f : unpriced_flops)
            if (f > 0.0) return false;
        return unpriced_link_bytes <= 0.0;
    }
};

namespace detail {
/// Time of `work` at `ceiling`, or 0 with `*unpriced += work` when the ceiling is unknown (NaN)
/// or absent (<= 0).
inline double priced(double work, double ceiling, double* unpriced) {
    if (work <= 0.0) return 0.0;
    if (std::isnan(ceiling) || ceiling <= 0.0) {
        *unpriced += work;
        return 0.0;
    }
    return work / ceiling;
}
/// Time of `work` at `ceiling`; throws `usage_error` when the ceiling is unknown or absent (for
/// callers that must not guess, e.g. a calibrated curve's fallback).
inline double priced_or_throw(double work, double ceiling, const char* what) {
    if (work <= 0.0) return 0.0;
    if (std::isnan(ceiling))
        throw usage_error(std::string("the ") + what + " ceiling is unknown for this GPU");
    if (ceiling <= 0.0)
        throw usage_error(std::string("this GPU has no ") + what + " units");
    return work / ceiling;
}
}  // namespace detail

/// The least time `w` can take on `c`, and which roof sets it.
/// Never throws for a missing ceiling: work on a rate class the GPU lacks or whose peak is
/// unknown, and link bytes over a link of unknown bandwidth, are left unpriced and recorded in
/// `unpriced_flops` / `unpriced_link_bytes` (report them with `unpriced_summary`). Memory levels
/// of unknown bandwidth are skipped (their bytes are never turned into time).
inline roof_times time_lower_bound(const workload& w, const ceilings& c) {
    roof_times t;
    for (auto k : all_peak_keys) {
        const double s =
            detail::priced(w.flops_at(k), c.flops_at(k), &t.unpriced_flops[static_cast<std::size_t>(k)]);
        (is_tensor(k) ? t.tensor_s : t.vector_s) += s;
    }
    t.compute_s = std::max(t.tensor_s, t.vector_s);
    for (std::size_t i = 0; i < memory_level_count; ++i) {
        const double bw = c.bytes_per_s[i];
        t.memory_level_s[i] = (std::isnan(bw) || bw <= 0.0) ? 0.0 : w.bytes[i] / bw;
        if (t.memory_level_s[i] > t.memory_s) {
            t.memory_s = t.memory_level_s[i];
            t.memory_bottleneck = static_cast<memory_level>(i);
        }
    }
    t.link_s = detail::priced(w.link_bytes, c.link_bytes_per_s, &t.unpriced_link_bytes);
    t.latency_s = w.launches * c.launch_latency_s + w.latency_s;

    const double roof = std::max({t.compute_s, t.memory_s, t.link_s});
    t.lower_bound_s = roof + t.latency_s;
    if (t.latency_s > roof) t.predicted = bound::latency;
    else if (roof == t.compute_s && roof > 0.0) t.predicted = bound::compute;
    else if (roof == t.memory_s && roof > 0.0) t.predicted = bound::memory;
    else if (roof == t.link_s && roof > 0.0) t.predicted = bound::communication;

    std::array<double, 4> terms = {t.compute_s, t.memory_s, t.link_s, t.latency_s};
    std::sort(terms.begin(), terms.end(), [](double a, double b) { return a > b; });
    t.margin = terms[1] > 0.0 ? terms[0] / terms[1] : std::numeric_limits<double>::infinity();
    return t;
}

/// What `t` left unpriced on ceilings `c`, one clause per rate class or link, e.g.
/// "bf16 ceiling unknown (2.1 GFLOP left out)", "this GPU has no fp4 units (1.0 GFLOP left out)",
/// "interconnect bandwidth unknown (4.2 MB left out)". Empty when everything was priced.
inline std::string unpriced_summary(const roof_times& t, const ceilings& c) {
    const auto amount = [](double v, const char* unit) {
        const char* prefix[] = {"", "k", "M", "G", "T", "P"};
        int i = 0;
        while (v >= 1000.0 && i < 5) {
            v /= 1000.0;
            ++i;
        }
        std::string num = std::to_string(std::round(v * 10.0) / 10.0);
        num = num.substr(0, num.find('.') + 2);
        return num + " " + prefix[i] + unit;
    };
    std::string out;
    const auto add = [&](const std::string& clause) { out += (out.empty() ? "" : "; ") + clause; };
    for (auto k : all_peak_keys) {
        const double f = t.unpriced_flops[static_cast<std::size_t>(k)];
        if (f <= 0.0) continue;
        const std::string key(to_string(k));
        add((std::isnan(c.flops_at(k)) ? key + " ceiling unknown" : "this GPU has no " + key + " units") + " (" +
            amount(f, "FLOP") + " left out)");
    }
    if (t.unpriced_link_bytes > 0.0)
        add("interconnect bandwidth unknown (" + amount(t.unpriced_link_bytes, "B") + " left out)");
    return out;
}

/// Fraction of each ceiling a measured time reached (1.0 = at the ceiling).
struct roof_utilization {
    double compute = 0.0;  ///< t_compute / T
    double memory = 0.0;   ///< t_memory / T (the most utilised level)
    std::array<double, memory_level_count> memory_level{};  ///< per level
    double communication = 0.0;  ///< t_link / T
};

/// Utilisation of each roof when `w` took `measured_s` seconds on a GPU with ceilings `c`.
/// Throws `usage_error` when `measured_s` is not a positive finite number.
inline roof_utilization utilization(const workload& w, const ceilings& c, double measured_s) {
    if (!std::isfinite(measured_s) || measured_s <= 0.0)
        throw usage_error("utilization: measured time must be a positive finite number of seconds");
    const roof_times t = time_lower_bound(w, c);
    roof_utilization u;
    u.compute = t.compute_s / measured_s;
    for (std::size_t i = 0; i < memory_level_count; ++i) u.memory_level[i] = t.memory_level_s[i] / measured_s;
    u.memory = t.memory_s / measured_s;
    u.communication = t.link_s / measured_s;
    return u;
}

/// Ridge point in FLOP/byte: the arithmetic intensity at which a kernel running at rate class
/// `k` stops being bound by memory level `m` (P_k / W_m). NaN when either ceiling is unknown.
inline double ridge_point(const ceilings& c, peak_key k, memory_level m = memory_level::dram) {
    const double p = c.flops_at(k), w = c.bytes_at(m);
    if (std::isnan(p) || std::isnan(w) || w <= 0.0) return std::numeric_limits<double>::quiet_NaN();
    return p / w;
}

/// Attainable FLOP/s at arithmetic intensity `ai` (FLOP/byte): min(P_k, ai x W_m).
inline double attainable_flops_per_s(const ceilings& c, peak_key k, double ai,
                                     memory_level m = memory_level::dram) {
    return std::min(c.flops_at(k), ai * c.bytes_at(m));
}

}  // namespace roofline
