#pragma once
// The power picture over a window: which limit was in force, where the board drew against it,
// whether the clock was held down, and for how long a power-cap reason was active.
//
// Inputs are nvidia-smi samples (trace/power.hpp). The enforced limit comes from the log when it
// has one (enforced.power.limit, else power.limit); otherwise from the catalog's default limit,
// and the evidence says so: RTX PRO 6000 editions share a chip but not a limit (600 W
// Workstation and Server, 300 W Max-Q), so a missing limit is a question worth asking.

#include <algorithm>  // std::nth_element, std::max
#include <cmath>      // std::isfinite
#include <optional>   // std::optional
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/trace/power.hpp"

namespace roofline {

/// NVML clock-event bits that mean "held down for power": SwPowerCap (0x4) and
/// HwPowerBrakeSlowdown (0x80). Source: NVML nvmlClocksEventReasons (FORMATS.md §6).
inline constexpr std::uint64_t power_cap_reason_mask = 0x4 | 0x80;

/// Summarises samples (any GPUs, any time range the caller selected) into `power_evidence`.
/// `gpu`: the catalog entry, for the default limit when the log has none (may be null).
/// Absent fields stay nullopt; no samples gives an evidence with `samples == 0`.
power_evidence summarize_power(const std::vector<power_sample>& samples, const gpu_spec* gpu);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail {
/// Median of the finite values; nullopt when there are none.
inline std::optional<double> finite_median(std::vector<double> v) {
    std::erase_if(v, [](double x) { return !std::isfinite(x); });
    if (v.empty()) return std::nullopt;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    double m = *mid;
    if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), mid)) / 2.0;
    return m;
}
}  // namespace detail

ROOFLINE_INLINE power_evidence summarize_power(const std::vector<power_sample>& samples, const gpu_spec* gpu) {
    power_evidence e;
    e.samples = samples.size();
    if (samples.empty()) return e;
    std::vector<double> draw, limit, clock_frac, util;
    std::size_t with_reasons = 0, capped = 0;
    for (const auto& s : samples) {
        draw.push_back(s.power_draw_w);
        limit.push_back(s.power_limit_w);
        if (std::isfinite(s.sm_clock_hz) && std::isfinite(s.max_sm_clock_hz) && s.max_sm_clock_hz > 0)
            clock_frac.push_back(s.sm_clock_hz / s.max_sm_clock_hz);
        util.push_back(s.utilization_gpu);
        if (s.clocks_event_reasons) {
            ++with_reasons;
            if (*s.clocks_event_reasons & power_cap_reason_mask) ++capped;
        }
    }
    e.median_draw_w = detail::finite_median(draw);
    e.limit_w = detail::finite_median(limit);
    e.limit_from_log = e.limit_w.has_value();
    if (!e.limit_w && gpu && gpu->power_limit_w.known()) e.limit_w = gpu->power_limit_w.value;
    if (e.median_draw_w && e.limit_w && *e.limit_w > 0) e.fraction_of_limit = *e.median_draw_w / *e.limit_w;
    e.clock_fraction_of_max = detail::finite_median(clock_frac);
    if (with_reasons > 0) e.power_cap_active_fraction = static_cast<double>(capped) / static_cast<double>(with_reasons);
    e.median_utilization_gpu = detail::finite_median(util);
    return e;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
