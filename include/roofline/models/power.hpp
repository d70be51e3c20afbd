#pragma once
// Board power, power caps and energy.
//
//   P(f) = P_static + sum_k e_k(f) R_k + e_dram B_dram
//   e_k(f) = e_k(f_ref) (f / f_ref)^(x - 1)
//
// R_k is the FLOP rate of rate class k, B_dram the DRAM byte rate, f the SM clock. Dynamic CMOS
// power is alpha C V^2 f; over a GPU's DVFS range the supply voltage rises roughly in proportion
// to the clock, so the energy per operation grows as f^2 and a fully busy tensor pipe draws
// ~ f^3. The exponent x = 3 is our assumption on that reasoning (DVFS surveys: Mishra and
// Khare, "Analysis of DVFS Techniques for Improving the GPU Energy Efficiency", OJEE 4, 2015);
// it is a coefficient, refittable from samples taken at several power limits.
//
// Under a power cap the firmware lowers the SM clock until P fits. The compute ceilings fall in
// proportion to the clock (core/ceilings.hpp `at_sm_clock`); memory bandwidth does not. So a
// compute-bound kernel at the cap runs at f < f_max and is power-bound; a memory-bound kernel
// usually fits at full clock.
//
// Default coefficients exist only where measured: H200 SXM (from this project's run, see
// `h200_power_coefficients`) and the three RTX PRO 6000 Blackwell boards (fitted to a published
// power-limit sweep, `rtx_pro_6000_workstation_power_coefficients`), so a 300 W Max-Q and a
// 600 W Workstation card differ where the cap binds. Other GPUs: nullopt, never a guess.

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cmath>      // std::pow, std::isnan
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move

#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"

namespace roofline {

/// Power-model coefficients of one GPU (a plain struct: refit by calibration).
struct power_coefficients {
    double static_w = 0;  ///< board power with the SM clock at maximum and no work, W
    /// Energy per FLOP at `reference_clock_hz`, per rate class, J; NaN when unknown.
    std::array<double, peak_key_count> joules_per_flop{};
    double joules_per_dram_byte = 0;  ///< J per byte read or written in DRAM (incl. on-chip path)
    double reference_clock_hz = 0;    ///< SM clock at which `joules_per_flop` holds
    double clock_exponent = 3.0;      ///< x: dynamic compute power ~ f^x at full utilisation
    std::string source;

    double flop_energy_at(peak_key k) const { return joules_per_flop[static_cast<std::size_t>(k)]; }
};

/// H200 SXM coefficients, from this project's measurement (examples/validation/
/// h200_kernel_sweep.py, 2026-11-30; driver 580, torch 2.11; nvidia-smi every 100 ms):
///  * idle at the maximum SM clock (1980 MHz) after load: 124 W -> P_static;
///  * sustained 4 GiB device copy of random bytes at 1980 MHz: 4.28 TB/s (read + write) at
///    681 W -> e_dram = (681 - 124) / 4.28e12 = 130 pJ/B. (The shared sample
///    h200_sweep_nvidia_smi.csv shows ~563 W for its 4 GiB copy at full clock; its data is not
///    stated: low-entropy data toggles fewer bits. 130 pJ/B is the upper, realistic case.);
///  * sustained 16384^3 bf16 GEMM (random data) at the 700 W cap: SM clock median 1410 MHz,
///    665 TFLOP/s, minimum DRAM traffic 3 x 16384^2 x 2 B per 13.2 ms = 0.122 TB/s (16 W)
///    -> e_bf16(1410 MHz) = (690.6 - 124 - 16) / 665e12 = 0.828 pJ/FLOP.
/// fp16 shares the bf16 datapath and rate: same energy. fp8 / int8 (2x the rate): half, on the
/// assumption that the tensor pipe draws about the same power at full rate whatever the dtype
/// (ours; not measured). fp32/fp64 vector and fp4/fp6 (absent on Hopper): unknown.
inline power_coefficients h200_power_coefficients() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    power_coefficients p;
    p.static_w = 124.0;
    p.joules_per_dram_byte = (681.0 - 124.0) / 4.28e12;
    p.reference_clock_hz = 1410e6;
    p.joules_per_flop.fill(nan);
    const double e_bf16 = (690.6 - 124.0 - 16.0) / 665e12;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::bf16)] = e_bf16;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::fp16)] = e_bf16;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::tf32)] = 2.0 * e_bf16;  // half the rate (assumption)
    p.joules_per_flop[static_cast<std::size_t>(peak_key::fp8)] = e_bf16 / 2.0;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::int8)] = e_bf16 / 2.0;
    p.clock_exponent = 3.0;
    p.source = "H200 SXM measured by this project (sustained GEMM at the 700 W cap, copy, idle); "
               "fp8/int8/tf32 scaled by rate (assumption)";
    return p;
}

namespace detail {
/// Coefficients fitted to a published power-limit sweep of a saturating tensor load: P = P_static
/// + c (f / f_ref)^x with the TF32 rate R proportional to f, so e_tf32(f_ref) = c / R(f_ref);
/// bf16 / fp16 half of that (twice the rate), fp8 / fp6 / int8 a quarter, fp4 an eighth (ours:
/// the tensor pipe draws about the same power at full rate whatever the dtype); DRAM 25 pJ/B
/// (`rtx_pro_6000_dram_j_per_byte`).
inline power_coefficients tensor_sweep_fit(double static_w, double c_w, double x, double f_ref_hz, double tf32_rate,
                                           double dram_j_per_byte, std::string source) {
    power_coefficients p;
    p.joules_per_flop.fill(std::numeric_limits<double>::quiet_NaN());
    const double e_tf32 = c_w / tf32_rate;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::tf32)] = e_tf32;
    for (auto k : {peak_key::bf16, peak_key::fp16}) p.joules_per_flop[static_cast<std::size_t>(k)] = e_tf32 / 2.0;
    for (auto k : {peak_key::fp8, peak_key::fp6, peak_key::int8}) p.joules_per_flop[static_cast<std::size_t>(k)] = e_tf32 / 4.0;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::fp4)] = e_tf32 / 8.0;
    p.static_w = static_w;
    p.reference_clock_hz = f_ref_hz;
    p.clock_exponent = x;
    p.joules_per_dram_byte = dram_j_per_byte;
    p.source = std::move(source);
    return p;
}
}  // namespace detail

/// TF32 FLOP per SM clock cycle of a whole RTX PRO 6000 Blackwell under `gpu_burn -tc`: 86.5e3
/// (the mean of the published sweep's Gflop/s / MHz, 83-88.5 over every Workstation and Server
/// point: voipmonitor/rtx6kpro hardware/blackwell-power-limit-sweep.md), 89% of the dense
/// 512 x 188 SMs.
inline constexpr double rtx_pro_6000_burn_flops_per_clock = 86.5e3;

/// DRAM energy of the RTX PRO 6000's GDDR7, J/B: 25 pJ/B from a Server Edition decoding
/// Qwen2.5-3B FP16 at batch 1, 83.1 tok/s at 221.6 W (hongping-zh.github.io/updates/2026-06-08-rtx-pro6000-fp16-e2e:
/// 3.09e9 x 2 B x 83.1/s = 0.513 TB/s), less the Server's static 208.8 W:
/// (221.6 - 208.8) / 0.513e12. Uncertain by 2x (the decode's SM power is in it; the memory
/// clocks of the three boards differ, and their static power holds the difference).
inline constexpr double rtx_pro_6000_dram_j_per_byte = (221.6 - 208.8) / 0.513e12;

/// RTX PRO 6000 Blackwell power coefficients, one set per board: the same GB202 die and
/// memory, but firmware with different voltage-frequency curves and memory clocks (Workstation
/// P1 at 13,365 MHz memory, Server P0 at 12,481, Max-Q P1 at 15,865), so one cap gives three
/// clocks (300 W: 1,019, 1,417 and 1,417 MHz). Each is fitted by least squares, x on a 0.05
/// grid in [1, 4], to the published `gpu_burn -tc` power-limit sweep (voipmonitor/rtx6kpro,
/// hardware/blackwell-power-limit-sweep.md, driver 595.58.03; clock and board power per limit,
/// mean of two cards per board):
///  * Workstation (600 W), limits 300-600 W (7 points; below 300 W the clock falls to a
///    voltage floor the model does not follow): P_static 171.2 W, c 430.3 W at 1,910 MHz,
///    x 1.95; residual rms 4.1 W. R(1,910 MHz) = 163.5 TFLOP/s TF32 measured;
///  * Server (600 W), limits 300-500 W (5 points; 550-600 W were clamped by the tower's cooling):
///    P_static 208.8 W, c 279.6 W at 1,895 MHz, x 4.0 (the grid's end); rms 7.8 W;
///    R(1,895 MHz) = 157.5 TFLOP/s;
///  * Max-Q (300 W), limits 250-325 W (4 community points, clocks only): P_static 171.2 W,
///    c 124.6 W at 1,417 MHz, x 3.8; rms 3.1 W; R = 86.5e3 FLOP/clock x 1,417 MHz.
/// What they say: under a cap a compute-bound load runs at the clock the sweep shows (within
/// ~5% over the fitted range: the tests), which is what sets a capped prefill; a 300 W Max-Q
/// runs tensor work at 1,417 / 1,910 = 74% of an uncapped Workstation card's clock.
/// Uncertainty: +-5% on the clock inside each fitted range (card-to-card binning is 2-5%),
/// more outside it (the Server above 500 W, the Max-Q beyond 250-325 W); the dtype scaling
/// and DRAM energy are assumptions (above).
inline power_coefficients rtx_pro_6000_workstation_power_coefficients() {
    return detail::tensor_sweep_fit(171.2, 430.3, 1.95, 1910e6, 163.545e12, rtx_pro_6000_dram_j_per_byte,
                                    "RTX PRO 6000 Workstation: fitted to the published gpu_burn -tc power-limit sweep "
                                    "(voipmonitor/rtx6kpro, 300-600 W); +-5% on the capped clock");
}

/// RTX PRO 6000 Server Edition coefficients (see the Workstation's).
inline power_coefficients rtx_pro_6000_server_power_coefficients() {
    return detail::tensor_sweep_fit(208.8, 279.6, 4.0, 1895e6, 157.543e12, rtx_pro_6000_dram_j_per_byte,
                                    "RTX PRO 6000 Server: fitted to the published gpu_burn -tc power-limit sweep "
                                    "(voipmonitor/rtx6kpro, 300-500 W); +-5% on the capped clock");
}

/// RTX PRO 6000 Max-Q coefficients (see the Workstation's).
inline power_coefficients rtx_pro_6000_maxq_power_coefficients() {
    return detail::tensor_sweep_fit(171.2, 124.6, 3.8, 1417e6, rtx_pro_6000_burn_flops_per_clock * 1417e6,
                                    rtx_pro_6000_dram_j_per_byte,
                                    "RTX PRO 6000 Max-Q: fitted to the published power-limit sweep's clocks "
                                    "(voipmonitor/rtx6kpro, 250-325 W); +-5% on the capped clock");
}

/// Default coefficients for a GPU: H200 SXM (measured by this project) and the RTX PRO 6000
/// Blackwell boards (published measurements); nullopt elsewhere.
inline std::optional<power_coefficients> default_power_coefficients(const gpu_spec& g) {
    if (g.id == "h200-sxm") return h200_power_coefficients();
    if (g.id == "rtx-pro-6000") return rtx_pro_6000_workstation_power_coefficients();
    if (g.id == "rtx-pro-6000-server") return rtx_pro_6000_server_power_coefficients();
    if (g.id == "rtx-pro-6000-maxq") return rtx_pro_6000_maxq_power_coefficients();
    return std::nullopt;
}

/// Board power of a phase doing `w` in `time_s` at SM clock `clock_hz`, W.
/// Throws `usage_error` when `w` uses a rate class whose energy is unknown, or time <= 0.
inline double board_power_w(const power_coefficients& p, const workload& w, double time_s, double clock_hz) {
    if (!(time_s > 0.0)) throw usage_error("power: time must be positive");
    const double scale = std::pow(clock_hz / p.reference_clock_hz, p.clock_exponent - 1.0);
    double watts = p.static_w + p.joules_per_dram_byte * w.dram_bytes() / time_s;
    for (auto k : all_peak_keys) {
        const double f = w.flops_at(k);
        if (f <= 0.0) continue;
        const double e = p.flop_energy_at(k);
        if (std::isnan(e))
            throw usage_error("power: no energy coefficient for " + std::string(to_string(k)) + " FLOP");
        watts += e * scale * f / time_s;
    }
    return watts;
}

/// A phase under a power limit.
struct power_limited {
    double clock_hz = 0;        ///< SM clock in force
    double clock_fraction = 1;  ///< of the maximum clock
    double power_w = 0;         ///< board power at that clock
    double time_s = 0;          ///< lower-bound time at that clock's ceilings
    double energy_j = 0;        ///< power x time
    bool capped = false;        ///< true when the limit forced the clock below its maximum
    ceilings in_force;          ///< ceilings at that clock
};

/// The result of `at` at the largest SM clock f <= `max_clock_hz` whose `at(f).power_w` fits
/// `limit_w` (bisection over [0.05 max, max], 60 steps; power grows with f), with `capped` set
/// when the limit held f below `max_clock_hz` (also when even the floor clock draws more: static
/// power above the limit). `at(f)` returns a result with `power_w` (W) and `capped` members.
template <class At>
auto largest_clock_within(double limit_w, double max_clock_hz, const At& at) {
    auto best = at(max_clock_hz);
    if (best.power_w <= limit_w) return best;
    double lo = 0.05 * max_clock_hz, hi = max_clock_hz;
    if (!(at(lo).power_w > limit_w))
        for (int i = 0; i < 60; ++i) {
            const double mid = 0.5 * (lo + hi);
            (at(mid).power_w > limit_w ? hi : lo) = mid;
        }
    best = at(lo);
    best.capped = true;
    return best;
}

/// The clock, power and time of `w` on ceilings `c` (peaks at `peak_clock_hz`, the clock the
/// tensor peaks assume) under `power_limit_w`, when the GPU may boost to `max_clock_hz`:
/// the largest f <= max_clock_hz with P(f) <= limit (bisection; P grows with f).
/// Pass achievable ceilings (efficiency applied) for realistic rates: power follows the rate
/// the kernel actually reaches. Throws `usage_error` for non-positive clocks or limit.
inline power_limited under_power_limit(const workload& w, const ceilings& c, const power_coefficients& p,
                                       double power_limit_w, double peak_clock_hz, double max_clock_hz) {
    if (!(power_limit_w > 0) || !(peak_clock_hz > 0) || !(max_clock_hz > 0))
        throw usage_error("power: limit and clocks must be positive");
    const auto at = [&](double f) {
        power_limited r;
        r.clock_hz = f;
        r.clock_fraction = f / max_clock_hz;
        r.in_force = at_sm_clock(c, f, peak_clock_hz);
        r.time_s = time_lower_bound(w, r.in_force).lower_bound_s;
        r.power_w = r.time_s > 0 ? board_power_w(p, w, r.time_s, f) : p.static_w;
        r.energy_j = r.power_w * r.time_s;
        return r;
    };
    return largest_clock_within(power_limit_w, max_clock_hz, at);
}

/// Energy per generated token of a step: P x t / tokens, J. Throws `usage_error` for
/// non-positive tokens.
inline double energy_per_token_j(double power_w, double step_time_s, double tokens) {
    if (!(tokens > 0)) throw usage_error("power: tokens must be positive");
    return power_w * step_time_s / tokens;
}

}  // namespace roofline
