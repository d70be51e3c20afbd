#pragma once
// A calibration overlay in memory: what `roofline calibrate` measured on one GPU (ceilings,
// device-time curves, links, power, the GPU it was measured on), and how every pricing command
// applies it. No JSON here, so the trace analysis and the planner take an overlay without
// nlohmann/json; reading and writing the file format: io/calibration.hpp.
// Errors: `require_calibration_gpu` throws `usage_error` naming both GPUs when an overlay is
// applied to a GPU other than the one it measured.

#include <array>     // std::array
#include <cmath>     // std::abs
#include <cstddef>   // std::size_t
#include <cstdio>    // std::snprintf
#include <limits>    // std::numeric_limits
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/power.hpp"

namespace roofline {

/// Where a calibrated value came from.
struct calibration_source {
    std::vector<std::string> files;  ///< input files (as given)
    std::size_t records = 0;         ///< measured points the value rests on
    std::string method;              ///< "max over 3 measurements (dram_read)", "least squares, ..."
    double flops_per_clock = std::numeric_limits<double>::quiet_NaN();  ///< rate classes: phi
    double clock_hz = std::numeric_limits<double>::quiet_NaN();         ///< clock of the best point
};

/// One input file of a calibration.
struct calibration_input {
    std::string file, format;
    std::size_t records_read = 0, records_used = 0;
    /// Why the file was not used, or not counted ("" when it was): a copy of another input
    /// (same path, same file, same bytes), or the fields it lacked for what its format can give.
    std::string note;
};

/// Alpha-beta parameters fitted for one link kind.
struct calibrated_link {
    link_kind link = link_kind::nvlink;
    std::string op = "all_reduce";  ///< the collective measured
    int ranks = 0;
    link_params params;
    std::size_t points = 0;
    double median_abs_error = std::numeric_limits<double>::quiet_NaN();
    double p90_abs_error = std::numeric_limits<double>::quiet_NaN();
    /// Seconds a call took at the sweep's small sizes when those times are a host floor, not
    /// the link's latency (analysis/calibration.hpp `fit_link`: flat over sizes, at least
    /// `link_host_floor_ratio` x NCCL's modeled latency; eager `torch.distributed` calls timed
    /// back to back): a program that issues collectives one by one from the host pays it per
    /// call in wall time, a CUDA-graph step does not, and a trace's kernel times (device time)
    /// never hold it. No command prices it (it is recorded for the reader); `params` then carry
    /// NCCL's latency constants and the fitted bandwidth. Empty when the small sizes read as
    /// the link's own latency.
    std::optional<double> host_floor_s;
    calibration_source from;
};

/// Power coefficients fitted from (power, rates) samples.
struct calibrated_power {
    power_coefficients coefficients;
    double power_limit_w = std::numeric_limits<double>::quiet_NaN();  ///< limit the samples ran under
    double max_clock_hz = std::numeric_limits<double>::quiet_NaN();
    std::size_t samples = 0;
    double rms_residual_w = std::numeric_limits<double>::quiet_NaN();
    double max_abs_residual_w = std::numeric_limits<double>::quiet_NaN();
    /// Highest less lowest measured power of the samples, W: the range the fit spans.
    double power_range_w = std::numeric_limits<double>::quiet_NaN();
    /// The largest residual exceeds `power_fit_unreliable_fraction` of `power_range_w`: some
    /// measured load is mispredicted by more than that, so clocks predicted under a power
    /// limit from these coefficients are unreliable.
    bool unreliable = false;
    calibration_source from;
};

/// A power fit whose largest residual exceeds this fraction of the samples' power range is
/// flagged unreliable (`calibrated_power::unreliable`). The largest, not the rms: each kernel's
/// capped clock comes from one prediction, so the worst-fitted load is what a kernel can get.
/// 10%: on an H200 the dynamic power spans ~580 W (118 W static to the 700 W cap), so a 10%
/// miss is ~60 W, a capped clock off by several percent (power ~ f^2-f^3), more than the 2-5%
/// a GEMM moves between two recordings.
inline constexpr double power_fit_unreliable_fraction = 0.10;

/// The GPU an overlay was measured on, as the measurement files report it (the `device` of
/// `roofline.ceilings/1`, the `environment` of `roofline.kernels/1`); unknown fields empty.
struct calibration_device {
    std::string id;                        ///< catalog id ("h200-sxm")
    std::string name;                      ///< device name the driver reports ("NVIDIA H200")
    std::optional<double> sm_count;        ///< SMs
    std::optional<double> memory_bytes;    ///< device memory, B
    std::optional<double> max_sm_clock_hz, memory_clock_hz;
    std::string driver;                    ///< driver version ("580.159.04")
};

/// "h200-sxm (NVIDIA H200, 132 SMs, 150.1 GB, 1980 MHz, driver 580.159.04)": what is known.
inline std::string describe(const calibration_device& d) {
    std::string s = d.id.empty() ? std::string("an unnamed GPU") : d.id;
    std::vector<std::string> parts;
    if (!d.name.empty()) parts.push_back(d.name);
    const auto num = [](double v, int digits) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.*f", digits, v);
        return std::string(buf);
    };
    if (d.sm_count) parts.push_back(num(*d.sm_count, 0) + " SMs");
    if (d.memory_bytes) parts.push_back(num(*d.memory_bytes / 1e9, 1) + " GB");
    if (d.max_sm_clock_hz) parts.push_back(num(*d.max_sm_clock_hz / 1e6, 0) + " MHz");
    if (!d.driver.empty()) parts.push_back("driver " + d.driver);
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? " (" : ", ") + parts[i];
    if (!parts.empty()) s += ")";
    return s;
}

/// A calibration overlay (version 0 fields first; version 1 adds the rest).
struct calibration {
    std::array<std::optional<double>, peak_key_count> flops_per_s{};  ///< achievable FLOP/s
    std::optional<double> dram_bytes_per_s, l2_bytes_per_s, link_bytes_per_s, launch_latency_s;
    std::string source;  ///< the file read ("" when built in memory)

    int version = 0;
    std::string gpu, created_utc, tool;
    calibration_device device;  ///< the GPU measured (`device.id` == `gpu`)
    std::vector<calibration_input> inputs;
    std::map<std::string, calibration_source> ceiling_sources;  ///< by `ceilings` key
    /// Achieved FLOP per SM clock cycle per rate class (the compute ceiling at clock f is
    /// phi x f); unset where not measured.
    std::array<std::optional<double>, peak_key_count> flops_per_clock{};
    std::optional<double> graph_launch_latency_s;  ///< per kernel replayed from a CUDA graph
    std::vector<kernel_curve> curves;
    std::vector<calibrated_link> links;
    std::optional<calibrated_power> power;

    bool overrides_flops(peak_key k) const { return flops_per_s[static_cast<std::size_t>(k)].has_value(); }
    /// The fitted link parameters for `l`, nullptr when none (the most ranks first).
    const calibrated_link* link_for(link_kind l) const {
        const calibrated_link* best = nullptr;
        for (const auto& x : links)
            if (x.link == l && (!best || x.ranks > best->ranks)) best = &x;
        return best;
    }
};

/// The name version 0 used (ceilings only).
using calibration_overrides = calibration;

/// Throws `usage_error` (exit 2) when `cal` was measured on a GPU other than `g`: another
/// catalog id, or the same id with another SM count than the catalog's (both GPUs are named);
/// or when a calibrated ceiling or curve rate exceeds `g`'s datasheet by more than 5% (the key
/// is named). A calibration measures one GPU's kernels, clocks and links; on another GPU
/// its numbers would silently replace that GPU's ceilings.
inline void require_calibration_gpu(const calibration& cal, const gpu_spec& g) {
    const std::string file = cal.source.empty() ? std::string("the calibration") : cal.source;
    calibration_device named = cal.device;
    if (named.id.empty()) named.id = cal.gpu;
    const std::string theirs = describe(named);
    std::string ours = g.id + " (" + g.name;
    if (g.sm_count.known()) ours += ", " + std::to_string(static_cast<long long>(*g.sm_count.value)) + " SMs";
    ours += ")";
    if (cal.gpu != g.id)
        throw usage_error(file + " was measured on " + theirs + ", not on " + ours +
                          ": a calibration holds only for the GPU it measured (calibrate this GPU, or drop --calibration)");
    const auto differs = [](const std::optional<double>& a, const spec_value& b, double tol) {
        return a && b.known() && std::abs(*a / *b.value - 1.0) > tol;
    };
    if (differs(cal.device.sm_count, g.sm_count, 1e-9))
        throw usage_error(file + " was measured on " + theirs + ", whose SM count differs from the catalog's " + ours);
    // No measurement exceeds the hardware: a ceiling or curve rate above the datasheet's (5%
    // allowed for clock and rounding) is a hand-edited or corrupted file, and would price
    // kernels under their speed of light.
    const ceilings ds = datasheet_ceilings(g);
    const auto above = [&](const std::string& key, double v, double peak, const char* unit, double scale) {
        if (std::isfinite(v) && std::isfinite(peak) && peak > 0 && v > 1.05 * peak) {
            char b[160];
            std::snprintf(b, sizeof b, ": %.4g %s, above the datasheet's %.4g %s for %s", v / scale, unit, peak / scale, unit,
                          g.id.c_str());
            throw usage_error(file + ": \"" + key + "\"" + b + " (a measurement cannot exceed the hardware)");
        }
    };
    for (auto k : all_peak_keys)
        if (cal.overrides_flops(k))
            above("ceilings." + std::string(to_string(k)), *cal.flops_per_s[static_cast<std::size_t>(k)], ds.flops_at(k),
                  "TFLOP/s", 1e12);
    if (cal.dram_bytes_per_s) above("ceilings.dram_bytes_per_s", *cal.dram_bytes_per_s, ds.bytes_at(memory_level::dram), "TB/s", 1e12);
    const double f_max = g.max_clock_hz.value_or(g.boost_clock_hz.value_or(std::numeric_limits<double>::quiet_NaN()));
    for (std::size_t i = 0; i < cal.curves.size(); ++i) {
        const auto& c = cal.curves[i];
        const std::string place = "curves[" + std::to_string(i) + "]";
        above(place + ".flops_per_clock", c.flops_per_clock * f_max, ds.flops_at(c.peak), "TFLOP/s at the maximum clock", 1e12);
        above(place + ".bytes_per_s", c.bytes_per_s, ds.bytes_at(memory_level::dram), "TB/s", 1e12);
    }
}

/// `c` with the calibrated values put in; `origin` records the file.
inline ceilings apply_calibration(ceilings c, const calibration& o) {
    for (auto k : all_peak_keys)
        if (o.overrides_flops(k)) c.flops_at(k) = *o.flops_per_s[static_cast<std::size_t>(k)];
    if (o.dram_bytes_per_s) c.bytes_at(memory_level::dram) = *o.dram_bytes_per_s;
    if (o.l2_bytes_per_s) c.bytes_at(memory_level::l2) = *o.l2_bytes_per_s;
    if (o.link_bytes_per_s) c.link_bytes_per_s = *o.link_bytes_per_s;
    if (o.launch_latency_s) c.launch_latency_s = *o.launch_latency_s;
    c.origin += " + calibration: " + (o.source.empty() ? std::string("(in memory)") : o.source);
    return c;
}

/// The compute roof of one rate class at a given SM clock, and the ceiling it is derived from.
struct clock_roof {
    peak_key peak = peak_key::bf16;
    double clock_hz = std::numeric_limits<double>::quiet_NaN();             ///< the clock asked for
    double flops_per_s = std::numeric_limits<double>::quiet_NaN();          ///< the roof at `clock_hz`
    double ceiling_flops_per_s = std::numeric_limits<double>::quiet_NaN();  ///< the ceiling it is derived from
    double flops_per_clock = std::numeric_limits<double>::quiet_NaN();      ///< phi: FLOP per SM clock cycle, whole GPU
    /// The clock the ceiling stands for (ceiling = phi x reference): the datasheet's tensor clock,
    /// or, for a calibrated ceiling with a measured phi, ceiling / phi.
    double reference_clock_hz = std::numeric_limits<double>::quiet_NaN();
    bool calibrated = false;       ///< the ceiling is the overlay's measured one (else the datasheet's)
    bool held_at_ceiling = false;  ///< phi x clock exceeded the calibrated ceiling: the roof is that ceiling
};

/// The compute roof of rate class `k` at SM clock `clock_hz` given ceilings `c` (datasheet, or
/// with `cal` applied): rate = phi x f, phi the FLOP per clock the ceiling stands for
///   datasheet:  phi = P / f_tensor (g.tensor_clock_hz, the clock the datasheet peak assumes);
///   calibrated: phi = the overlay's measured best FLOP per clock (`flops_per_clock`), else
///               P / f_tensor; and the roof never exceeds the calibrated ceiling P:
///               min(phi f, P). The measured best per clock may come from a power-capped GEMM
///               at a lower clock than the best rate's, so phi f passes P above P / phi: a
///               rate nothing measured, which a measured ceiling must not claim.
/// Throws `usage_error` for a non-positive clock, an unknown or zero peak, or (when phi is not
/// measured) an unknown tensor clock.
inline clock_roof compute_roof_at_clock(const gpu_spec& g, const ceilings& c, const calibration* cal, peak_key k,
                                        double clock_hz) {
    clock_roof r;
    r.peak = k;
    r.clock_hz = clock_hz;
    r.ceiling_flops_per_s = c.flops_at(k);
    if (!(clock_hz > 0) || !std::isfinite(clock_hz))
        throw usage_error("the SM clock must be a positive number of hertz");
    if (!std::isfinite(r.ceiling_flops_per_s) || !(r.ceiling_flops_per_s > 0))
        throw usage_error(g.id + ": the " + std::string(to_string(k)) + " peak is unknown or zero");
    r.calibrated = cal && cal->overrides_flops(k);
    const auto& phi = cal ? cal->flops_per_clock[static_cast<std::size_t>(k)] : std::optional<double>{};
    if (r.calibrated && phi && *phi > 0) {
        r.flops_per_clock = *phi;
        r.reference_clock_hz = r.ceiling_flops_per_s / *phi;
    } else {
        r.reference_clock_hz = g.tensor_clock_hz.require(g.id, "tensor_clock_hz");
        r.flops_per_clock = r.ceiling_flops_per_s / r.reference_clock_hz;
    }
    r.flops_per_s = r.flops_per_clock * clock_hz;
    if (r.calibrated && r.flops_per_s > r.ceiling_flops_per_s) {
        r.flops_per_s = r.ceiling_flops_per_s;
        r.held_at_ceiling = true;
    }
    return r;
}

/// The one call every pricing command makes (`kernel`, `roof`, `analyze`, `trace`, `plan`):
///  * `used`: the ceilings the command would otherwise price at (usually achievable ones):
///    every ceiling the overlay measured replaces its value except the launch latency, which
///    stays the device-side cost of one kernel: the overlay's eager launch floor is a host term
///    and goes to `e.launch_floor_s` (serving commands that replay CUDA graphs use
///    `e.graph_launch_floor_s`);
///  * `link`: replaced by the fitted alpha-beta parameters of `used.link` when the overlay has
///    them, and `used.link_bytes_per_s` follows their beta;
///  * `e`: gets the fitted curves and launch floors.
inline void apply_calibration(ceilings& used, link_params& link, kernel_efficiency& e, const calibration& cal) {
    const double device_launch_s = used.launch_latency_s;
    used = apply_calibration(used, cal);
    used.launch_latency_s = device_launch_s;
    if (const auto* l = cal.link_for(used.link)) {
        link = l->params;
        used.link_bytes_per_s = l->params.beta_bytes_per_s;
    }
    if (cal.launch_latency_s) e.launch_floor_s = *cal.launch_latency_s;
    if (cal.graph_launch_latency_s) e.graph_launch_floor_s = *cal.graph_launch_latency_s;
    if (!cal.curves.empty()) e.curves = cal.curves;
    e.source += "; calibration: " + (cal.source.empty() ? std::string("(in memory)") : cal.source);
}

/// The overlay's fitted power coefficients, if it has them.
inline std::optional<power_coefficients> calibrated_power_coefficients(const calibration& cal) {
    if (!cal.power) return std::nullopt;
    return cal.power->coefficients;
}

/// The note a consumer of `cal` prints when its power fit is flagged unreliable
/// (`calibrated_power::unreliable`): "the calibration's power model is flagged unreliable: its
/// largest residual, 71 W, is 14% of the 520 W its samples span" followed by `consequence`
/// (what this command does with it). Empty when the overlay has no power fit or a reliable one.
inline std::string unreliable_power_note(const calibration& cal, const std::string& consequence) {
    if (!cal.power || !cal.power->unreliable) return {};
    const auto& p = *cal.power;
    char b[200];
    if (std::isfinite(p.power_range_w) && p.power_range_w > 0)
        std::snprintf(b, sizeof b, "its largest residual, %.0f W, is %.0f%% of the %.0f W its %zu samples span",
                      p.max_abs_residual_w, 100 * p.max_abs_residual_w / p.power_range_w, p.power_range_w, p.samples);
    else
        std::snprintf(b, sizeof b, "its largest residual is above %.0f%% of the power its samples span",
                      100 * power_fit_unreliable_fraction);
    return std::string("the calibration's power model is flagged unreliable (") + b + ")" +
           (consequence.empty() ? "" : ": " + consequence);
}

}  // namespace roofline
