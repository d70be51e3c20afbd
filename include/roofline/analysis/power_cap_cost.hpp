#pragma once
// What a board power limit costs a serving run, in tokens/s: the modeled decode step and prefill
// chunk priced at the SM clock the limit allows (models/power.hpp coefficients), at the card's
// limit and at a reference limit (the Workstation's 600 W for a 300 W RTX PRO 6000 Max-Q, else
// the GPU's default limit), through the same steady state as the modeled roof.
//
// One clock per step: DVFS holds board power to the limit over windows of ~100 ms, far longer than
// a step, so the step runs at the largest f with
//   P(f) = P_static + E_flop (f / f_ref)^(x-1) F / t(f) + e_dram B / t(f) <= limit,
// t(f) the step priced at ceilings scaled to f (`at_sm_clock`), F and B the step's FLOP and DRAM
// bytes per GPU (as `plan` prices its points).
//
// A measured run is priced at its own pace: where it ran k times slower than its modeled roof
// (launch gaps, host time, idle), the same work spreads over k t(f) and the board draws less,
// so t(f) becomes k t(f) (`pace`, >= 1). At the roof's pace the decode step of
// data/samples/h200-serving is held to 1.12 GHz by the 700 W limit; the run drew 612 W (87% of
// the limit) at its full clock, at half the roof's rate (pace 2.0), and at that pace the model
// keeps it at 1.83 GHz too.

#include <algorithm>  // std::min
#include <cmath>      // std::isfinite
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::pair

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/steady_state.hpp"
#include "roofline/core/gpus/sm120.hpp"  // gpus::rtx_pro_6000, the Max-Q's reference
#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/power.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

/// A step priced under a power limit.
struct capped_step {
    double time_s = 0;   ///< step time at the clock in force
    double clock_hz = 0; ///< SM clock in force
    double power_w = 0;  ///< modeled board power over the step
    bool capped = false; ///< the limit held the clock below the top clock
};

/// Prices step `s` at ceilings `c` (peaks at `peak_clock_hz`) at the highest SM clock up to
/// `top_clock_hz` whose modeled board power (coefficients `p`) fits `limit_w`
/// (`largest_clock_within`, as `under_power_limit` for one kernel). Throws `usage_error` for non-positive clocks or limit, or a rate class
/// of the step whose energy the coefficients do not know.
capped_step price_step_under_limit(const step_model& s, const ceilings& c, const power_coefficients& p,
                                   double limit_w, double peak_clock_hz, double top_clock_hz, double pace = 1.0);

/// A serving run's modeled throughput at one board and power limit.
struct capped_throughput {
    std::string gpu;   ///< catalog id of the board priced
    double limit_w = std::numeric_limits<double>::quiet_NaN();
    double output_tokens_per_s = 0;            ///< all instances
    std::optional<double> total_tokens_per_s;  ///< when prefill is modeled
    double decode_clock_hz = 0;
    std::optional<double> prefill_clock_hz;
    bool capped = false;  ///< the limit held some step's clock below the top clock
};

/// The cost of a power limit: the run at the card's limit against a reference limit.
struct power_cap_cost {
    capped_throughput at_limit, reference;
    std::string limit_source;        ///< "enforced, from the power log" or "catalog default"
    std::string reference_why;       ///< what the reference is (`power_cap_reference`)
    double cost_fraction = 0;        ///< 1 - output tok/s at the limit / at the reference (>= 0 when the limit is lower)
    /// The run's measured pace against its modeled roof (modeled / achieved tokens/s, >= 1; 1
    /// when nothing was measured or the run beat the roof): both boards' steps take this many
    /// times their priced time, so their power is that of the run's real activity.
    double pace = 1.0;
    std::string coefficients_source; ///< models/power.hpp sources of both boards
};

/// The board and limit a card at `limit_w` is compared with, and why: a 300 W RTX PRO 6000 Max-Q
/// against the Workstation Edition (the same GB202 board at 600 W; HARDWARE.md section 7); a card
/// held below its default limit (the log's enforced limit) against its default; a card at its
/// default limit against no limit (the top clock), what the limit itself costs.
struct power_cap_reference_choice {
    gpu_spec gpu;
    double limit_w = std::numeric_limits<double>::infinity();
    std::string why;
};
power_cap_reference_choice power_cap_reference(const gpu_spec& g, double limit_w);

/// What the steps of a run (`decode`, optional `prefill` chunk of `prefill_tokens` tokens) yield
/// under `limit_w` on board `g` with ceilings `c` (`decode_sequences` per step, `decode_batch`
/// in flight, `isl_over_osl` prompt tokens per output token, `instances` model instances), the
/// steps taking `pace` (>= 1) times their priced time (a measured run's pace against its roof;
/// see the file comment). nullopt when the board's power coefficients, limit or clocks are
/// unknown, or a rate class's energy is unknown (the step's power cannot be priced).
std::optional<capped_throughput> throughput_under_limit(const gpu_spec& g, const ceilings& c, double limit_w,
                                                        const step_model& decode, const step_model* prefill,
                                                        double prefill_tokens, double decode_sequences,
                                                        double decode_batch, double isl_over_osl, int instances,
                                                        double pace = 1.0);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE capped_step price_step_under_limit(const step_model& s, const ceilings& c, const power_coefficients& p,
                                                   double limit_w, double peak_clock_hz, double top_clock_hz, double pace) {
    if (!(limit_w > 0) || !(peak_clock_hz > 0) || !(top_clock_hz > 0))
        throw usage_error("power cap: limit and clocks must be positive");  // an infinite limit: the top clock
    if (!(pace >= 1.0) || !std::isfinite(pace)) throw usage_error("power cap: the pace must be finite and at least 1");
    const workload w = s.total();
    const auto at = [&](double f) {
        capped_step r;
        r.clock_hz = f;
        r.time_s = pace * price_step(s, at_sm_clock(c, f, peak_clock_hz)).lower_bound_s;
        r.power_w = r.time_s > 0 ? board_power_w(p, w, r.time_s, f) : p.static_w;
        return r;
    };
    return largest_clock_within(limit_w, top_clock_hz, at);
}

ROOFLINE_INLINE power_cap_reference_choice power_cap_reference(const gpu_spec& g, double limit_w) {
    if (auto ws = gpus::rtx_pro_6000(); g.id == "rtx-pro-6000-maxq" && ws.power_limit_w.known()) {
        const double l = *ws.power_limit_w.value;  // the catalog's cited 600 W
        return {ws, l, "an RTX PRO 6000 Workstation Edition (the same GB202 board) at its " + std::to_string(static_cast<long long>(l)) + " W"};
    }
    const double def = g.power_limit_w.value_or(std::numeric_limits<double>::quiet_NaN());
    if (std::isfinite(def) && limit_w < def - 1.0)
        return {g, def, "this GPU at its default " + std::to_string(static_cast<long long>(def)) + " W"};
    return {g, std::numeric_limits<double>::infinity(), "this GPU without a power limit (its top clock)"};
}

ROOFLINE_INLINE std::optional<capped_throughput> throughput_under_limit(const gpu_spec& g, const ceilings& c, double limit_w,
                                                                        const step_model& decode, const step_model* prefill,
                                                                        double prefill_tokens, double decode_sequences,
                                                                        double decode_batch, double isl_over_osl, int instances,
                                                                        double pace) {
    const auto coef = default_power_coefficients(g);
    const double peak = g.tensor_clock_hz.value_or(g.boost_clock_hz.value_or(0.0));
    const double top = std::min(g.max_clock_hz.value_or(peak), peak);
    if (!coef || !(limit_w > 0) || !(peak > 0) || !(top > 0)) return std::nullopt;
    capped_throughput r;
    r.gpu = g.id;
    r.limit_w = limit_w;
    try {
        const auto d = price_step_under_limit(decode, c, *coef, limit_w, peak, top, pace);
        r.decode_clock_hz = d.clock_hz;
        r.capped = d.capped;
        std::optional<double> pre_s_per_token;
        if (prefill && prefill_tokens > 0) {
            const auto p = price_step_under_limit(*prefill, c, *coef, limit_w, peak, top, pace);
            r.prefill_clock_hz = p.clock_hz;
            r.capped = r.capped || p.capped;
            pre_s_per_token = p.time_s / prefill_tokens;
        }
        const auto rates = steady_state(d.time_s, decode_sequences, decode_batch, pre_s_per_token, isl_over_osl);
        r.output_tokens_per_s = instances * rates.output_tokens_per_s;
        if (pre_s_per_token) r.total_tokens_per_s = instances * rates.total_tokens_per_s;
    } catch (const usage_error&) {
        return std::nullopt;
    }
    return r;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
