#pragma once
// Calibration: fitting the models to a few minutes of measurements on one GPU, and proving them.
//
// What is fitted, and how (least squares with Eigen; every fit keeps its residuals):
//
// 1. Achievable ceilings per rate class and memory level: the upper envelope of what measured
//    kernels reached (microbenchmarks, sweep records, Nsight Compute kernels, GEMMs of profiler
//    traces recorded with shapes): the ceiling is the
//    largest achieved rate, and for rate classes also the largest rate per SM clock cycle
//    (phi = FLOP/s / f), because a power cap lowers the clock and the rate with it.
//
// 2. Efficiency curves per kernel family (models/kernel_time.hpp):
//      t = max( t_floor , t_fixed + max( F_eff / (phi f) , B / W ) )
//    with f each record's measured SM clock. For fixed structural choices (grouped GEMM M tile,
//    causal diagonal block) the model is piecewise linear in (t_fixed, 1/phi, 1/W) and in
//    t_floor: each point is assigned to the term that sets its time (floor, compute or memory),
//    the unknowns are solved by weighted least squares on relative residuals (rows divided by
//    the measured time), and the assignment is repeated until it no longer changes, from several
//    starts (the best objective wins). A term needs at least two points in its regime to be
//    identified; otherwise the curve falls back to the ceilings for it (NaN in the file). The
//    structural choices are picked from short candidate lists by the same objective.
//    Held-out accuracy: k-fold cross-validation, the folds interleaved in order of measured
//    time, so that every fold spans small and large kernels.
//
// 3. Links: t(S) = L + b(S) / beta (ring: b = 2(n-1)/n S for all-reduce) by least squares on
//    relative residuals over every size of an nccl-tests (or torch.distributed) sweep; L is split
//    into base latency and per-hop alpha with NCCL's per-hop constant (models/collective.hpp)
//    unless sweeps at several rank counts separate them. Small sizes whose times are flat and
//    far above NCCL's modeled latency are a host floor per call (eager calls), kept apart
//    (`calibrated_link::host_floor_s`): the latency is then NCCL's.
//
// 4. Power: P = P_static + sum_k e_k (f / f_ref)^(x-1) R_k + e_dram B' (models/power.hpp) by
//    least squares over steady (power, rates, clock) samples; the exponent x from a grid when the
//    compute samples' clocks span at least 25% (else 3, as models/power.hpp argues). Steady means: the power varied by at most 10%
//    over a measurement, or a phase window's first second is skipped.
//
// Errors: too few points for a fit throws `usage_error` naming the fit and the count; no fit
// returns NaN silently.

#include <algorithm>  // std::sort, std::max, std::min
#include <array>      // std::array
#include <chrono>     // std::chrono::system_clock
#include <cstdio>     // std::snprintf
#include <filesystem>  // std::filesystem::file_size, std::filesystem::equivalent
#include <fstream>    // std::ifstream
#include <initializer_list>  // std::initializer_list
#include <cctype>     // std::isalnum, std::tolower
#include <cmath>      // std::abs, std::ceil, std::isfinite, std::lround, std::sqrt
#include <cstddef>    // std::size_t
#include <ctime>      // std::gmtime, std::strftime
#include <limits>     // std::numeric_limits
#include <map>        // std::map
#include <numeric>    // std::iota
#include <optional>   // std::optional
#include <set>        // std::set
#include <string>     // std::string
#include <utility>    // std::move, std::pair
#include <vector>     // std::vector

#include <Eigen/Dense>

#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/measurements.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/power.hpp"

namespace roofline {

// ---------------------------------------------------------------------------------------------
// Error statistics
// ---------------------------------------------------------------------------------------------

/// Nearest-rank quantile of `v` (q in [0, 1]): the ceil(q n)-th smallest value; NaN when empty.
inline double quantile_nearest_rank(std::vector<double> v, double q) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const auto n = static_cast<double>(v.size());
    const auto r = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n - 1e-9)));
    return v[std::min(v.size(), r) - 1];
}

/// Median and p90 of absolute relative errors.
struct error_summary {
    std::size_t n = 0;
    double median = std::numeric_limits<double>::quiet_NaN();
    double p90 = std::numeric_limits<double>::quiet_NaN();
};

inline error_summary summarize_errors(const std::vector<double>& abs_errors) {
    return {abs_errors.size(), quantile_nearest_rank(abs_errors, 0.5), quantile_nearest_rank(abs_errors, 0.9)};
}

// ---------------------------------------------------------------------------------------------
// 2. Efficiency curves
// ---------------------------------------------------------------------------------------------

/// One measured kernel for a curve fit.
struct curve_point {
    kernel_features features;
    double clock_hz = 0;     ///< SM clock it ran at
    double measured_s = 0;   ///< time per call
    std::string label;       ///< for reports ("gemm bf16 m=1 n=4096 k=4096")
    bool clock_recorded = true;  ///< false: the record had no clock, `clock_hz` is the maximum
};

/// Options of `fit_kernel_curve`.
struct curve_fit_options {
    int folds = 5;                       ///< cross-validation folds (0 or 1: none)
    std::size_t min_regime_points = 2;   ///< points a term needs to be identified
    bool allow_floor = true;             ///< fit a per-call floor when at least two points sit on it
    /// Grouped GEMM M tiles tried (0 = no padding); causal prefill diagonal blocks tried.
    std::vector<double> tile_rows_candidates = {0, 64, 128, 256};
    std::vector<double> causal_block_candidates = {0, 64, 128, 256};
    /// Rates no curve may exceed (tensor FLOP/s per rate class at the points' mean clock, DRAM
    /// B/s): a fitted rate above one is held at it and the rest refitted (`fit.capped` says so).
    /// `calibrate` gives the measured ceilings (the datasheet where none was measured); unset:
    /// no cap.
    std::optional<ceilings> rate_caps;
};

namespace detail::calib {

enum class regime : unsigned char { floor, compute, memory };

/// Parameters during a fit. `a` = 1/phi (s Hz / FLOP), `b` = 1/W (s / B).
struct curve_params {
    double t0 = 0, a = 0, b = 0, floor = 0;
    bool a_fit = false, b_fit = false;  ///< identified (else the fallback prices the term)
    /// The fitted rate exceeded the fallback ceiling (a curve cannot beat a saturating
    /// measurement): the term is priced at that ceiling instead.
    bool a_capped = false, b_capped = false;
    double sk = 0;       ///< split kernel (`is_split_kernel`): extra fixed time, s
    bool sk_fit = false;
    double a_min = 0, b_min = 0;  ///< the ceilings as bounds: a >= a_min, b >= b_min (0: none)
};

struct prepared_point {
    double x = 0;         ///< F_eff / f (a multiplies it)
    double y = 0;         ///< B (b multiplies it)
    double xc_fixed = 0;  ///< compute time at the fallback ceiling
    double ym_fixed = 0;  ///< memory time at the fallback ceiling
    double t = 0;         ///< measured
    bool split = false;   ///< a split kernel, `is_split_kernel` (pays `sk`)
};

inline double compute_term(const curve_params& p, const prepared_point& q) { return p.a_fit ? p.a * q.x : q.xc_fixed; }
inline double memory_term(const curve_params& p, const prepared_point& q) { return p.b_fit ? p.b * q.y : q.ym_fixed; }
inline double fixed_term(const curve_params& p, const prepared_point& q) { return p.t0 + (q.split ? p.sk : 0.0); }
inline double device_time(const curve_params& p, const prepared_point& q) {
    return fixed_term(p, q) + std::max(compute_term(p, q), memory_term(p, q));
}
inline double predict(const curve_params& p, const prepared_point& q) { return std::max(p.floor, device_time(p, q)); }

inline regime regime_of(const curve_params& p, const prepared_point& q) {
    if (p.floor > device_time(p, q)) return regime::floor;
    return compute_term(p, q) >= memory_term(p, q) ? regime::compute : regime::memory;
}

inline double objective(const curve_params& p, const std::vector<prepared_point>& pts) {
    double s = 0;
    for (const auto& q : pts) {
        const double r = predict(p, q) / q.t - 1.0;
        s += r * r;
    }
    return s;
}

/// One regime-assignment iteration run to convergence from `p`.
inline curve_params iterate_regimes(curve_params p, const std::vector<prepared_point>& pts, const curve_fit_options& o,
                                    bool has_compute, bool has_memory) {
    std::vector<regime> reg(pts.size(), regime::memory), prev;
    for (int it = 0; it < 100; ++it) {
        for (std::size_t i = 0; i < pts.size(); ++i) reg[i] = regime_of(p, pts[i]);
        if (reg == prev) break;
        prev = reg;
        const auto count = [&](regime which) {
            std::size_t n = 0;
            for (auto r : reg) n += r == which ? 1 : 0;
            return n;
        };
        if (o.allow_floor && count(regime::floor) >= o.min_regime_points) {
            // Floor: weighted mean of its points (minimises sum ((floor - t) / t)^2).
            double num = 0, den = 0;
            for (std::size_t i = 0; i < pts.size(); ++i)
                if (reg[i] == regime::floor) {
                    num += 1.0 / pts[i].t;
                    den += 1.0 / (pts[i].t * pts[i].t);
                }
            p.floor = num / den;
        } else if (p.floor > 0) {
            p.floor = 0;
            for (std::size_t i = 0; i < pts.size(); ++i) reg[i] = regime_of(p, pts[i]);
        }
        const std::size_t nc = count(regime::compute), nm = count(regime::memory);
        bool fit_a = has_compute && nc >= o.min_regime_points;
        bool fit_b = has_memory && nm >= o.min_regime_points;
        std::size_t ns = 0;
        for (std::size_t i = 0; i < pts.size(); ++i) ns += reg[i] != regime::floor && pts[i].split ? 1 : 0;
        bool fit_sk = ns >= o.min_regime_points;
        // Unknowns: t0, split-K extra, and a / b where identified. Rows:
        // (t0 + [split] sk + a x | b y | fixed term) / t = 1. A rate above its ceiling (a < a_min,
        // b < b_min) is held at the ceiling and the rest refitted.
        bool with_t0 = true;
        p.a_capped = p.b_capped = false;
        for (int attempt = 0; attempt < 5; ++attempt) {
            const int cols = (with_t0 ? 1 : 0) + (fit_sk ? 1 : 0) + (fit_a ? 1 : 0) + (fit_b ? 1 : 0);
            std::size_t rows = 0;
            for (auto r : reg) rows += r != regime::floor ? 1 : 0;
            if (cols == 0 || rows == 0) break;
            Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows), cols);
            Eigen::VectorXd rhs(static_cast<Eigen::Index>(rows));
            Eigen::Index row = 0;
            for (std::size_t i = 0; i < pts.size(); ++i) {
                if (reg[i] == regime::floor) continue;
                const auto& q = pts[i];
                int c = 0;
                double fixed = 0;
                if (with_t0) A(row, c++) = 1.0 / q.t;
                if (fit_sk) A(row, c++) = q.split ? 1.0 / q.t : 0.0;
                if (fit_a) {
                    if (reg[i] == regime::compute) A(row, c) = q.x / q.t;
                    ++c;
                } else if (reg[i] == regime::compute) {
                    fixed = p.a_capped ? p.a_min * q.x : q.xc_fixed;
                }
                if (fit_b) {
                    if (reg[i] == regime::memory) A(row, c) = q.y / q.t;
                    ++c;
                } else if (reg[i] == regime::memory) {
                    fixed = p.b_capped ? p.b_min * q.y : q.ym_fixed;
                }
                rhs(row) = 1.0 - fixed / q.t;
                ++row;
            }
            const Eigen::VectorXd sol = A.colPivHouseholderQr().solve(rhs);
            int c = 0;
            const double t0 = with_t0 ? sol(c++) : 0.0;
            if (with_t0 && t0 < 0) {
                with_t0 = false;  // a negative fixed latency has no meaning: fix it at 0
                continue;
            }
            const double sk = fit_sk ? sol(c++) : 0.0;
            if (fit_sk && !(sk >= 0)) {
                fit_sk = false;  // nor a negative split-K extra
                continue;
            }
            const double a = fit_a ? sol(c++) : 0.0;
            const double b = fit_b ? sol(c++) : 0.0;
            if (fit_a && p.a_min > 0 && a > 0 && a < p.a_min) {
                fit_a = false, p.a_capped = true, p.a = p.a_min;  // faster than the ceiling
                continue;
            }
            if (fit_b && p.b_min > 0 && b > 0 && b < p.b_min) {
                fit_b = false, p.b_capped = true, p.b = p.b_min;
                continue;
            }
            p.t0 = t0;
            p.sk = sk;
            p.sk_fit = fit_sk;
            if (fit_a) {
                if (a > 0 && std::isfinite(a)) p.a = a, p.a_fit = true;
            } else {
                p.a_fit = p.a_capped;
            }
            if (fit_b) {
                if (b > 0 && std::isfinite(b)) p.b = b, p.b_fit = true;
            } else {
                p.b_fit = p.b_capped;
            }
            break;
        }
    }
    return p;
}

/// The best parameters over several starts, for fixed structural choices.
inline curve_params fit_params(const std::vector<prepared_point>& pts, const curve_fit_options& o, bool has_compute,
                               bool has_memory, double a0, double b0, double a_min = 0, double b_min = 0) {
    std::vector<double> ts;
    for (const auto& q : pts) ts.push_back(q.t);
    std::vector<double> floors = {0.0};
    if (o.allow_floor)
        for (double q : {0.1, 0.25, 0.5}) floors.push_back(quantile_nearest_rank(ts, q) * 1.0001);
    curve_params best;
    double best_obj = std::numeric_limits<double>::infinity();
    for (double fl : floors)
        for (double t0 : {0.0, 0.5 * quantile_nearest_rank(ts, 0.0)})
            for (auto [sa, sb] : {std::pair{1.0, 1.0}, {0.5, 0.5}, {2.0, 2.0}, {4.0, 1.0}, {1.0, 4.0}}) {
                // Starts: both rates at the ceilings, both scaled, and one of them well under its
                // ceiling (so points the ceilings put on one roof can start on the other).
                curve_params p;
                p.t0 = t0;
                p.floor = fl;
                p.a = a0 * sa;
                p.b = b0 * sb;
                p.a_fit = has_compute && a0 > 0;
                p.b_fit = has_memory && b0 > 0;
                p.a_min = a_min;
                p.b_min = b_min;
                p = iterate_regimes(p, pts, o, has_compute, has_memory);
                const double obj = objective(p, pts);
                if (obj < best_obj) best_obj = obj, best = p;
            }
    return best;
}

inline std::vector<prepared_point> prepare(const std::vector<curve_point>& pts, const kernel_curve& shape,
                                           const ceilings& fallback) {
    std::vector<prepared_point> out;
    out.reserve(pts.size());
    for (const auto& p : pts) {
        prepared_point q;
        const double feff = shape.effective_flops(p.features);
        q.x = feff / p.clock_hz;
        q.y = p.features.dram_bytes;
        const double peak = fallback.flops_at(p.features.peak);
        q.xc_fixed = feff > 0 && peak > 0 ? feff / peak : 0.0;
        const double w = fallback.bytes_at(memory_level::dram);
        q.ym_fixed = q.y > 0 && w > 0 ? q.y / w : 0.0;
        q.t = p.measured_s;
        q.split = is_split_kernel(p.features);
        out.push_back(q);
    }
    return out;
}

}  // namespace detail::calib

/// Fits one family's curve to `pts` (all of one family and rate class; clocks > 0, times > 0).
/// `fallback` prices terms the data cannot identify (usually achievable datasheet ceilings).
/// The report's in-sample residuals are filled; cross-validation is `cross_validate_curve`.
/// Throws `usage_error` for fewer than 3 points, mixed families, or a non-positive time or clock.
inline kernel_curve fit_kernel_curve(const std::vector<curve_point>& pts, const ceilings& fallback,
                                     const curve_fit_options& o = {}) {
    using namespace detail::calib;
    if (pts.size() < 3)
        throw usage_error("calibration: a curve needs at least 3 measured kernels, got " + std::to_string(pts.size()));
    const auto fam = pts.front().features.family;
    const auto peak = pts.front().features.peak;
    bool has_compute = false, has_memory = false, grouped = false, causal = false, tiled = false, decode_tiles = false;
    double clock_sum = 0;
    for (const auto& p : pts) {
        if (p.features.family != fam || p.features.peak != peak || p.features.backend != pts.front().features.backend)
            throw usage_error("calibration: a curve's points must share one family, rate class and backend");
        if (!(p.measured_s > 0) || !std::isfinite(p.measured_s))
            throw usage_error("calibration: measured time of \"" + p.label + "\" is not a positive number");
        if (!(p.clock_hz > 0) || !std::isfinite(p.clock_hz))
            throw usage_error("calibration: SM clock of \"" + p.label + "\" is not a positive number");
        has_compute = has_compute || p.features.flops > 0;
        has_memory = has_memory || p.features.dram_bytes > 0;
        grouped = grouped || !p.features.group_rows.empty();
        causal = causal || p.features.flops_per_diagonal_key > 0;
        tiled = tiled || (fam == kernel_family::gemm && p.features.tile_rows > 0 && p.features.tile_cols > 0);
        decode_tiles = decode_tiles || flash_decode_whole_tiles(p.features);
        clock_sum += p.clock_hz;
    }
    const double clock = clock_sum / static_cast<double>(pts.size());
    // Starting values: the fallback ceilings at the points' mean clock.
    const double peak_rate = fallback.flops_at(peak), dram = fallback.bytes_at(memory_level::dram);
    const double a0 = peak_rate > 0 && std::isfinite(peak_rate) ? clock / peak_rate : 1e-12;
    const double b0 = dram > 0 && std::isfinite(dram) ? 1.0 / dram : 1e-12;
    // A curve's rates stay under `o.rate_caps` (a calibration's measured ceilings): a fit above
    // a saturating measurement learned something else (small copies served from L2).
    double a_min = 0, b_min = 0;
    if (o.rate_caps) {
        const double cap_rate = o.rate_caps->flops_at(peak), cap_dram = o.rate_caps->bytes_at(memory_level::dram);
        if (cap_rate > 0 && std::isfinite(cap_rate)) a_min = clock / cap_rate;
        if (cap_dram > 0 && std::isfinite(cap_dram)) b_min = 1.0 / cap_dram;
    }

    kernel_curve best;
    double best_obj = std::numeric_limits<double>::infinity();
    const std::vector<double> tiles = grouped ? o.tile_rows_candidates : std::vector<double>{0.0};
    const std::vector<double> blocks = causal ? o.causal_block_candidates : std::vector<double>{0.0};
    const std::vector<bool> waves = tiled ? std::vector<bool>{false, true} : std::vector<bool>{false};
    const std::vector<double> decode_rows =
        decode_tiles ? std::vector<double>{0.0, fa2_decode_tile_rows} : std::vector<double>{0.0};
    bool a_capped = false, b_capped = false;
    for (double tile : tiles)
        for (double block : blocks)
            for (bool whole_waves : waves)
                for (double decode_tile : decode_rows) {
                    kernel_curve shape;
                    shape.family = fam;
                    shape.peak = peak;
                    shape.backend = pts.front().features.backend;
                    shape.tile_rows = tile;
                    shape.causal_block_keys = block;
                    shape.whole_waves = whole_waves;
                    shape.decode_tile_rows = decode_tile;
                    const auto prepared = prepare(pts, shape, fallback);
                    const auto p = fit_params(prepared, o, has_compute, has_memory, a0, b0, a_min, b_min);
                    const double obj = objective(p, prepared);
                    if (obj < best_obj * (1 - 1e-9)) {
                        best_obj = obj;
                        best = shape;
                        best.fixed_latency_s = p.t0;
                        best.split_extra_s = p.sk_fit ? p.sk : 0.0;
                        best.floor_s = p.floor;
                        best.flops_per_clock = p.a_fit ? 1.0 / p.a : std::numeric_limits<double>::quiet_NaN();
                        best.bytes_per_s = p.b_fit ? 1.0 / p.b : std::numeric_limits<double>::quiet_NaN();
                        a_capped = p.a_capped;
                        b_capped = p.b_capped;
                    }
                }
    best.fit.capped = std::string(a_capped ? "compute rate held at the tensor ceiling" : "") +
                      (a_capped && b_capped ? "; " : "") +
                      (b_capped ? "bandwidth held at the DRAM ceiling" : "");
    // In-sample residuals and regimes.
    std::vector<double> errs;
    for (const auto& p : pts) {
        const double t = best.time_s(p.features, p.clock_hz, fallback);
        errs.push_back(std::abs(t / p.measured_s - 1.0));
        if (best.floor_s > best.device_time_s(p.features, p.clock_hz, fallback)) ++best.fit.floor_points;
        else if (best.compute_time_s(p.features, p.clock_hz, fallback) >= best.memory_time_s(p.features, fallback))
            ++best.fit.compute_points;
        else ++best.fit.memory_points;
    }
    const auto s = summarize_errors(errs);
    best.fit.points = pts.size();
    best.clocks_recorded = std::all_of(pts.begin(), pts.end(), [](const curve_point& p) { return p.clock_recorded; });
    best.fit.median_abs_error = s.median;
    best.fit.p90_abs_error = s.p90;
    return best;
}

/// Held-out predictions, one per point (in the order of `pts`), in seconds: k-fold, folds
/// interleaved in order of measured time (so each spans small and large kernels); each fold's
/// points are predicted by a curve fitted on the others. Throws `usage_error` for fewer than 2
/// folds or a training set of fewer than 3 points.
inline std::vector<double> cross_validate_curve(const std::vector<curve_point>& pts, const ceilings& fallback,
                                                const curve_fit_options& o = {}, int folds = 5) {
    if (folds < 2) throw usage_error("calibration: cross-validation needs at least 2 folds");
    std::vector<std::size_t> order(pts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return pts[a].measured_s < pts[b].measured_s; });
    std::vector<int> fold_of(pts.size());
    for (std::size_t r = 0; r < order.size(); ++r) fold_of[order[r]] = static_cast<int>(r % static_cast<std::size_t>(folds));
    std::vector<double> out(pts.size(), std::numeric_limits<double>::quiet_NaN());
    for (int f = 0; f < folds; ++f) {
        std::vector<curve_point> train;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (fold_of[i] != f) train.push_back(pts[i]);
        const auto c = fit_kernel_curve(train, fallback, o);
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (fold_of[i] == f) out[i] = c.time_s(pts[i].features, pts[i].clock_hz, fallback);
    }
    return out;
}

/// Absolute relative errors of predictions against the points' measured times.
inline std::vector<double> abs_errors(const std::vector<curve_point>& pts, const std::vector<double>& predicted_s) {
    std::vector<double> e;
    for (std::size_t i = 0; i < pts.size() && i < predicted_s.size(); ++i)
        if (std::isfinite(predicted_s[i])) e.push_back(std::abs(predicted_s[i] / pts[i].measured_s - 1.0));
    return e;
}

// ---------------------------------------------------------------------------------------------
// 1. Ceilings
// ---------------------------------------------------------------------------------------------

/// One achieved rate: a rate class ("bf16", ...) in FLOP/s, or a `ceilings` key
/// ("dram_bytes_per_s", "l2_bytes_per_s", "launch_latency_s", "graph_launch_latency_s").
struct ceiling_point {
    std::string key;
    double value = 0;  ///< FLOP/s, B/s or s (latencies: the envelope is the minimum)
    double clock_hz = std::numeric_limits<double>::quiet_NaN();  ///< SM clock (rate classes)
    std::string file, label;
    double work = std::numeric_limits<double>::quiet_NaN();         ///< B moved or FLOP done per execution
    double grid_blocks = std::numeric_limits<double>::quiet_NaN();  ///< thread blocks launched
};

/// Why `p` cannot set a ceiling of `g`, or nullopt when it can. A ceiling is the rate of work
/// that saturates the GPU, so a measurement is refused when
///  * it launched fewer thread blocks than `g` has SMs (some SMs idle);
///  * DRAM: it moved less than 4x the L2 (a working set of a few L2 sizes is served partly from
///    L2: on our H200 a 16 MB copy runs at 6.1 TB/s against 4.3 TB/s for a 4 GiB one), or its
///    rate exceeds the datasheet bandwidth by more than 5% (then it did not come from DRAM);
///  * DRAM, L2 or a rate class: it reached less than half of the datasheet peak (0.5 is this
///    project's threshold: the published efficiencies of tuned kernels are 0.72-0.95,
///    models/kernel_time.hpp; a kernel at a fraction of that is latency- or occupancy-bound,
///    and its rate would price every larger kernel far too slow).
/// Unknown sizes, grids or datasheet values skip their test. Latency keys are never refused.
inline std::optional<std::string> unsaturated_reason(const ceiling_point& p, const gpu_spec& g) {
    const auto mb = [](double b) { return std::to_string(static_cast<long long>(std::lround(b / 1e6))) + " MB"; };
    const auto pct = [](double f) { return std::to_string(static_cast<long long>(std::lround(100 * f))) + "%"; };
    if (p.key.find("latency") != std::string::npos) return std::nullopt;
    if (std::isfinite(p.grid_blocks) && g.sm_count.known() && p.grid_blocks < *g.sm_count.value)
        return "a grid of " + std::to_string(static_cast<long long>(p.grid_blocks)) + " blocks on " +
               std::to_string(static_cast<long long>(*g.sm_count.value)) + " SMs leaves SMs idle";
    double peak = std::numeric_limits<double>::quiet_NaN();
    std::string what;
    if (p.key == "dram_bytes_per_s") {
        peak = g.memory_bandwidth_bytes_per_s.value_or(peak);
        what = "datasheet DRAM bandwidth";
        if (std::isfinite(p.work) && g.l2_bytes.known() && p.work < 4 * *g.l2_bytes.value)
            return "moves " + mb(p.work) + ", under 4x the " + mb(*g.l2_bytes.value) + " L2 (served partly from L2)";
        if (std::isfinite(peak) && p.value > 1.05 * peak)
            return "its " + std::to_string(p.value / 1e12).substr(0, 4) + " TB/s exceeds the " + what +
                   ": not DRAM-bound";
    } else if (p.key == "l2_bytes_per_s") {
        peak = g.l2_bandwidth_bytes_per_s.value_or(peak);
        what = "datasheet L2 bandwidth";
    } else if (const auto k = parse_peak_key(p.key)) {
        if (const auto d = g.dense_flops_per_s(*k)) peak = *d;
        what = "dense " + p.key + " peak";
    }
    if (std::isfinite(peak) && peak > 0 && p.value < 0.5 * peak)
        return "reaches " + pct(p.value / peak) + " of the " + what + " (a ceiling needs a saturating measurement, >= 50%)";
    return std::nullopt;
}

/// `pts` without the measurements that cannot set a ceiling (`unsaturated_reason`); one note
/// per key in `notes` says how many were refused and why (the first reason), and that no ceiling
/// was fitted when every measurement of a key was refused.
inline std::vector<ceiling_point> saturating_points(const std::vector<ceiling_point>& pts, const gpu_spec& g,
                                                    std::vector<std::string>& notes) {
    std::vector<ceiling_point> kept;
    std::map<std::string, std::pair<std::size_t, std::string>> refused;  // key -> count, first reason
    std::map<std::string, std::size_t> total, left;
    for (const auto& p : pts) {
        ++total[p.key];
        if (const auto why = unsaturated_reason(p, g)) {
            auto& r = refused[p.key];
            if (r.first++ == 0) r.second = p.label + " (" + p.file + "): " + *why;
            continue;
        }
        ++left[p.key];
        kept.push_back(p);
    }
    for (const auto& [key, r] : refused)
        notes.push_back(key + ": refused " + std::to_string(r.first) + " of " + std::to_string(total[key]) +
                        " measurement(s) that do not saturate the GPU, e.g. " + r.second +
                        (left[key] == 0 ? "; no " + key + " ceiling fitted (the datasheet value stays)" : ""));
    return kept;
}

/// The envelope of `pts` per key: the largest rate (the smallest latency), with the largest rate
/// per clock for rate classes, and where it came from.
inline std::map<std::string, std::pair<double, calibration_source>> fit_ceilings(const std::vector<ceiling_point>& pts) {
    std::map<std::string, std::pair<double, calibration_source>> out;
    std::map<std::string, std::set<std::string>> files;
    std::map<std::string, std::string> best_label, best_clock_label;
    for (const auto& p : pts) {
        if (!(p.value > 0) || !std::isfinite(p.value)) continue;
        const bool latency = p.key.find("latency") != std::string::npos;
        auto [it, fresh] = out.try_emplace(p.key, p.value, calibration_source{});
        auto& [v, src] = it->second;
        ++src.records;
        files[p.key].insert(p.file);
        if (fresh || (latency ? p.value < v : p.value > v)) {
            v = p.value;
            best_label[p.key] = p.label;
            src.clock_hz = p.clock_hz;
        }
        if (std::isfinite(p.clock_hz) && p.clock_hz > 0) {
            const double per = p.value / p.clock_hz;
            if (!std::isfinite(src.flops_per_clock) || per > src.flops_per_clock) {
                src.flops_per_clock = per;
                best_clock_label[p.key] = p.label;
            }
        }
    }
    for (auto& [k, e] : out) {
        auto& src = e.second;
        src.files.assign(files[k].begin(), files[k].end());
        const bool latency = k.find("latency") != std::string::npos;
        src.method = std::string(latency ? "min" : "max") + " over " + std::to_string(src.records) +
                     " measurement(s); best: " + best_label[k];
        if (best_clock_label.count(k) && best_clock_label[k] != best_label[k])
            src.method += "; best per clock: " + best_clock_label[k];
    }
    return out;
}

/// Ceiling points from a profiler trace recorded with shapes: every GEMM-like CPU op
/// (aten::mm, aten::addmm, aten::bmm, aten::_scaled_mm, aten::linear) whose `Input Dims` give its
/// FLOP (2 M N K per batch), at the rate of the GPU time of the kernels it launched. The clock is
/// unknown (a trace has none). Ops without shapes, or with dtypes of no tensor rate class, are
/// left out.
inline std::vector<ceiling_point> trace_gemm_points(const kernel_trace& t) {
    std::map<std::int32_t, double> gpu_time;  // op index -> kernel time it launched
    for (const auto& e : t.events)
        if (e.activity == gpu_activity::kernel && e.op >= 0) gpu_time[e.op] += e.duration_s;
    std::vector<ceiling_point> out;
    for (const auto& [idx, dur] : gpu_time) {
        const auto& op = t.ops[static_cast<std::size_t>(idx)];
        if (!(dur > 0) || op.input_dims.empty()) continue;
        const auto dims = parse_input_dims(op.input_dims);
        if (!dims) continue;
        const auto at = [&](std::size_t i) -> const std::vector<std::int64_t>* {
            return i < dims->size() && !(*dims)[i].empty() ? &(*dims)[i] : nullptr;
        };
        double flops = 0;
        const std::string_view n = op.name;
        if ((n == "aten::mm" || n == "aten::_scaled_mm") && at(0) && at(1) && at(0)->size() == 2 && at(1)->size() == 2)
            flops = 2.0 * double((*at(0))[0]) * double((*at(0))[1]) * double((*at(1))[1]);
        else if (n == "aten::addmm" && at(1) && at(2) && at(1)->size() == 2 && at(2)->size() == 2)
            flops = 2.0 * double((*at(1))[0]) * double((*at(1))[1]) * double((*at(2))[1]);
        else if (n == "aten::bmm" && at(0) && at(1) && at(0)->size() == 3 && at(1)->size() == 3)
            flops = 2.0 * double((*at(0))[0]) * double((*at(0))[1]) * double((*at(0))[2]) * double((*at(1))[2]);
        else if (n == "aten::linear" && at(0) && at(1) && at(1)->size() == 2) {
            double rows = 1;
            for (std::size_t i = 0; i + 1 < at(0)->size(); ++i) rows *= double((*at(0))[i]);
            flops = 2.0 * rows * double((*at(1))[1]) * double((*at(1))[0]);
        }
        if (!(flops > 0)) continue;
        const std::string_view types = op.input_types;
        std::optional<peak_key> k;
        if (types.find("Float8_e4m3") != std::string_view::npos || types.find("Float8_e5m2") != std::string_view::npos)
            k = peak_key::fp8;
        else if (types.find("BFloat16") != std::string_view::npos) k = peak_key::bf16;
        else if (types.find("Half") != std::string_view::npos) k = peak_key::fp16;
        if (!k) continue;
        out.push_back({std::string(to_string(*k)), flops / dur, std::numeric_limits<double>::quiet_NaN(), t.file,
                       "trace " + std::string(n) + " " + std::string(op.input_dims)});
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// 3. Links
// ---------------------------------------------------------------------------------------------

/// How far above NCCL's modeled latency (base + steps x alpha, models/collective.hpp
/// `nccl_latency_params`) a sweep's flat small-message times must sit to be read as a host
/// floor rather than the link's latency. nccl-tests sweeps, whose calls are launched one by one
/// too, sit 1.5-2.7x above it: 123 us against 84.6 us modeled for the 16-H100 two-node sweep in
/// ../shared/samples/nccl, 48.2 us at 32 KB against 17.6 us for 8 RTX PRO 6000 over PCIe
/// (analysis/achievable.hpp `measured_link_profiles`); eager `torch.distributed` calls on two
/// H200s took 35-44 us where the model gives 4.5 us (8x; data/measurements/h200/allreduce_2gpu.json).
inline constexpr double link_host_floor_ratio = 5.0;

/// Fits alpha-beta parameters for link `l` from collective sweeps (all of one op, ring
/// algorithm assumed): t = base + steps alpha + link_bytes / beta. One rank count: base + steps
/// alpha is one latency L, split with NCCL's per-hop alpha (base >= 0). Uses out-of-place
/// timings when present, else in-place. Throws `usage_error` for fewer than 3 points or an op
/// other than all_reduce, all_gather, reduce_scatter, all_to_all.
/// Host floor (NVLink and PCIe with P2P only, where NCCL's latency model is well measured): where
/// the sizes whose bandwidth term is under a tenth of their time (at least 3 above 0 bytes,
/// spanning at least 8x in size) take times within 1.5x of each other (per rank count: a
/// consistency check, such sizes can hardly differ more) and every one at least
/// `link_host_floor_ratio` x NCCL's modeled latency (the test that decides), those times are the
/// host's cost per call, not the link's: `host_floor_s` gets their nearest-rank median (the
/// largest rank count's) and alpha and base NCCL's constants; beta stays fitted. A link whose own latency is
/// that far above NCCL's model would be read so too; over the network and PCIe without P2P
/// (sockets, staging through the host) the fitted latency is kept.
inline calibrated_link fit_link(const std::vector<collective_sweep>& sweeps, link_kind l) {
    struct row {
        double steps, link_bytes, t;
    };
    std::vector<row> rows;
    calibrated_link out;
    out.link = l;
    std::set<double> step_values;
    std::set<std::string> files;
    for (const auto& s : sweeps) {
        if (s.ranks < 2) throw usage_error("calibration: " + s.file + ": a collective sweep needs at least 2 ranks");
        const auto op = parse_collective_op(s.collective.empty() ? "all_reduce" : s.collective);
        out.op = std::string(to_string(op));
        out.ranks = std::max(out.ranks, s.ranks);
        files.insert(s.file);
        for (const auto& p : s.points) {
            const auto& tm = p.out_of_place ? p.out_of_place : p.in_place;
            if (!tm || !(tm->time_s > 0)) continue;
            link_params unit;
            unit.beta_bytes_per_s = 1.0;
            const auto c = collective_time(op, p.size_bytes, s.ranks, unit, collective_algorithm::ring);
            rows.push_back({c.steps, c.link_bytes, tm->time_s});
            step_values.insert(c.steps);
        }
    }
    if (rows.size() < 3)
        throw usage_error("calibration: the link fit needs at least 3 measured sizes, got " + std::to_string(rows.size()));
    const bool split = step_values.size() >= 2;
    const int cols = split ? 3 : 2;
    Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), cols);
    Eigen::VectorXd rhs = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto r = static_cast<Eigen::Index>(i);
        A(r, 0) = 1.0 / rows[i].t;
        if (split) A(r, 1) = rows[i].steps / rows[i].t;
        A(r, cols - 1) = rows[i].link_bytes / rows[i].t;
    }
    Eigen::VectorXd sol = A.colPivHouseholderQr().solve(rhs);
    const double inv_beta = sol(cols - 1);
    if (!(inv_beta > 0)) throw usage_error("calibration: the link sweep shows no bandwidth term (time does not grow with size)");
    out.params.beta_bytes_per_s = 1.0 / inv_beta;
    const double steps = *step_values.rbegin();
    if (split) {
        out.params.base_latency_s = std::max(0.0, sol(0));
        out.params.alpha_s = std::max(0.0, sol(1));
    } else {
        const double L = std::max(0.0, sol(0));
        out.params.alpha_s = std::min(nccl_latency_params(l).first, L / std::max(1.0, steps));
        out.params.base_latency_s = L - steps * out.params.alpha_s;
    }
    out.params.p2p = l != link_kind::pcie_no_p2p && l != link_kind::network;  // across hosts: ring or tree only
    std::vector<double> errs;
    for (const auto& r : rows) {
        const double t = out.params.base_latency_s + r.steps * out.params.alpha_s + r.link_bytes / out.params.beta_bytes_per_s;
        errs.push_back(std::abs(t / r.t - 1.0));
    }
    // A host floor: latency-dominated sizes flat and far above NCCL's model.
    {
        const auto [nccl_alpha, nccl_base] = nccl_latency_params(l);
        std::map<double, std::vector<const row*>> plateau;  // by steps (rank count)
        for (const auto& r : rows)
            if (r.link_bytes > 0 && r.link_bytes / out.params.beta_bytes_per_s < 0.1 * r.t) plateau[r.steps].push_back(&r);
        bool host = !plateau.empty() && (l == link_kind::nvlink || l == link_kind::pcie);
        for (const auto& [steps, pts] : plateau) {
            double tmin = pts.front()->t, tmax = tmin, bmin = pts.front()->link_bytes, bmax = bmin;
            for (const auto* r : pts) {
                tmin = std::min(tmin, r->t), tmax = std::max(tmax, r->t);
                bmin = std::min(bmin, r->link_bytes), bmax = std::max(bmax, r->link_bytes);
            }
            host = host && pts.size() >= 3 && bmax >= 8 * bmin && tmax <= 1.5 * tmin &&
                   tmin >= link_host_floor_ratio * (nccl_base + steps * nccl_alpha);
        }
        if (host) {
            std::vector<double> ts;
            for (const auto* r : plateau.rbegin()->second) ts.push_back(r->t);
            out.host_floor_s = quantile_nearest_rank(ts, 0.5);
            out.params.alpha_s = nccl_alpha;
            out.params.base_latency_s = nccl_base;
        }
    }
    const auto s = summarize_errors(errs);
    out.points = rows.size();
    out.median_abs_error = s.median;
    out.p90_abs_error = s.p90;
    out.from.files.assign(files.begin(), files.end());
    out.from.records = rows.size();
    out.from.method = split ? "least squares on relative residuals: base, alpha (several rank counts), beta"
                            : "least squares on relative residuals: latency L and beta; L = base + steps x alpha "
                              "with NCCL's per-hop alpha";
    out.params.source = "calibration: fitted to " + std::to_string(rows.size()) + " sizes";
    if (out.host_floor_s) {
        out.from.method += "; the small sizes' flat time is a host floor per call (host_floor_s), so alpha and base "
                           "are NCCL's constants (models/collective.hpp) and the fit errors are those of the fitted "
                           "latency";
        out.params.source += " (bandwidth; latency: NCCL tuning.cc, the sweep's small sizes are host-bound)";
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// 4. Power
// ---------------------------------------------------------------------------------------------

/// One steady (power, rates, clock) sample.
struct power_point {
    double power_w = 0;
    double sm_clock_hz = 0;
    std::array<double, peak_key_count> flops_per_s{};  ///< per rate class
    double dram_bytes_per_s = 0;
    std::string file, label;
};

/// Fits power coefficients to `pts`: unknowns P_static, e_k for every rate class with a
/// non-zero rate, e_dram when any sample moves DRAM bytes; the clock exponent x from
/// {1, 1.5, ..., 4} when the compute samples' clocks span at least 25%, else 3 (the
/// DVFS reasoning of models/power.hpp: a few samples near one clock cannot tell it). Coefficients
/// that come out negative are fixed at 0 and the rest refitted. Throws `usage_error` when
/// there are fewer samples than unknowns + 1.
inline calibrated_power fit_power(const std::vector<power_point>& pts) {
    calibrated_power out;
    std::vector<peak_key> keys;
    for (auto k : all_peak_keys)
        for (const auto& p : pts)
            if (p.flops_per_s[static_cast<std::size_t>(k)] > 0) {
                keys.push_back(k);
                break;
            }
    bool dram = false;
    std::vector<double> compute_clocks;
    for (const auto& p : pts) {
        dram = dram || p.dram_bytes_per_s > 0;
        double f = 0;
        for (double v : p.flops_per_s) f += v;
        if (f > 0) compute_clocks.push_back(p.sm_clock_hz);
    }
    const std::size_t unknowns = 1 + keys.size() + (dram ? 1 : 0);
    if (pts.size() < unknowns + 1)
        throw usage_error("calibration: the power fit needs at least " + std::to_string(unknowns + 1) +
                          " steady samples for its " + std::to_string(unknowns) + " coefficients, got " +
                          std::to_string(pts.size()));
    const double f_ref = compute_clocks.empty() ? pts.front().sm_clock_hz : quantile_nearest_rank(compute_clocks, 0.5);
    std::vector<double> exponents = {3.0};
    if (!compute_clocks.empty()) {
        const auto [lo, hi] = std::minmax_element(compute_clocks.begin(), compute_clocks.end());
        if (*hi > 1.25 * *lo) exponents = {1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0};
    }
    double best_rms = std::numeric_limits<double>::infinity();
    for (double x : exponents) {
        std::vector<bool> active(unknowns, true);
        Eigen::VectorXd coef;
        for (int attempt = 0; attempt < static_cast<int>(unknowns); ++attempt) {
            Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(pts.size()), static_cast<Eigen::Index>(unknowns));
            Eigen::VectorXd b(static_cast<Eigen::Index>(pts.size()));
            for (std::size_t i = 0; i < pts.size(); ++i) {
                const auto r = static_cast<Eigen::Index>(i);
                const auto& p = pts[i];
                A(r, 0) = 1.0;
                const double scale = std::pow(p.sm_clock_hz / f_ref, x - 1.0);
                for (std::size_t j = 0; j < keys.size(); ++j)
                    A(r, static_cast<Eigen::Index>(1 + j)) = scale * p.flops_per_s[static_cast<std::size_t>(keys[j])];
                if (dram) A(r, static_cast<Eigen::Index>(unknowns - 1)) = p.dram_bytes_per_s;
                b(r) = p.power_w;
            }
            for (std::size_t j = 0; j < unknowns; ++j)
                if (!active[j]) A.col(static_cast<Eigen::Index>(j)).setZero();
            // Columns scaled to unit norm for conditioning (rates are ~1e15, static ~1).
            Eigen::VectorXd norm(static_cast<Eigen::Index>(unknowns));
            for (Eigen::Index j = 0; j < A.cols(); ++j) {
                norm(j) = A.col(j).norm() > 0 ? A.col(j).norm() : 1.0;
                A.col(j) /= norm(j);
            }
            coef = A.colPivHouseholderQr().solve(b).cwiseQuotient(norm);
            bool changed = false;
            for (std::size_t j = 0; j < unknowns; ++j)
                if (active[j] && coef(static_cast<Eigen::Index>(j)) < 0) active[j] = false, changed = true;
            for (std::size_t j = 0; j < unknowns; ++j)
                if (!active[j]) coef(static_cast<Eigen::Index>(j)) = 0;
            if (!changed) break;
        }
        double ss = 0, worst = 0;
        for (const auto& p : pts) {
            double pred = coef(0);
            const double scale = std::pow(p.sm_clock_hz / f_ref, x - 1.0);
            for (std::size_t j = 0; j < keys.size(); ++j)
                pred += coef(static_cast<Eigen::Index>(1 + j)) * scale * p.flops_per_s[static_cast<std::size_t>(keys[j])];
            if (dram) pred += coef(static_cast<Eigen::Index>(unknowns - 1)) * p.dram_bytes_per_s;
            ss += (pred - p.power_w) * (pred - p.power_w);
            worst = std::max(worst, std::abs(pred - p.power_w));
        }
        const double rms = std::sqrt(ss / static_cast<double>(pts.size()));
        if (rms < best_rms * (1 - 1e-9)) {
            best_rms = rms;
            auto& c = out.coefficients;
            c.joules_per_flop.fill(std::numeric_limits<double>::quiet_NaN());
            c.static_w = coef(0);
            for (std::size_t j = 0; j < keys.size(); ++j)
                c.joules_per_flop[static_cast<std::size_t>(keys[j])] = coef(static_cast<Eigen::Index>(1 + j));
            c.joules_per_dram_byte = dram ? coef(static_cast<Eigen::Index>(unknowns - 1)) : 0.0;
            c.reference_clock_hz = f_ref;
            c.clock_exponent = x;
            out.rms_residual_w = rms;
            out.max_abs_residual_w = worst;
        }
    }
    out.samples = pts.size();
    // How well it fits, against the range of power it spans (`power_fit_unreliable_fraction`).
    const auto [lo_w, hi_w] = std::minmax_element(pts.begin(), pts.end(),
                                                  [](const power_point& a, const power_point& b) { return a.power_w < b.power_w; });
    out.power_range_w = hi_w->power_w - lo_w->power_w;
    out.unreliable = !(out.max_abs_residual_w <= power_fit_unreliable_fraction * out.power_range_w);
    std::set<std::string> files;
    for (const auto& p : pts) files.insert(p.file);
    out.from.files.assign(files.begin(), files.end());
    out.from.records = pts.size();
    out.from.method = "least squares over steady samples; clock exponent " +
                      std::string(exponents.size() > 1 ? "by grid search" : "fixed at 3 (clocks too close to fit it)");
    out.coefficients.source = "calibration: fitted to " + std::to_string(pts.size()) + " steady samples";
    return out;
}

// ---------------------------------------------------------------------------------------------
// Measured records -> workloads and curve points
// ---------------------------------------------------------------------------------------------

/// A measured kernel priced by the library's models: its workload (what `roofline kernel`
/// prices), its curve features, and the group rows of a grouped GEMM.
struct priced_record {
    workload work;
    kernel_features features;
    std::string family_label;  ///< "gemm bf16", "gemm fp8", "grouped gemm", "sdpa prefill", "sdpa decode", "copy"
    std::string label;         ///< the shape
    bool l2_resident = false;  ///< a copy whose working set stays in L2 (priced at L2, no DRAM curve)
};

/// The backend that ran a record: its `backend` label, else the first kernel name the profiler
/// recorded for it that names a library (`normalize_kernel_backend`), else "" (unknown).
inline std::string record_backend(const kernel_record& r) {
    if (auto b = normalize_kernel_backend(r.label("backend")); !b.empty()) return b;
    const std::string names = r.label("kernels");
    for (std::size_t at = 0; at < names.size();) {
        const auto nl = names.find('\n', at);
        const auto one = names.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        if (auto b = normalize_kernel_backend(one); !b.empty()) return b;
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return "";
}

/// The workload and features of a sweep record; nullopt for records that are not one kernel of
/// a modeled family (launch costs, whole MoE layers).
inline std::optional<priced_record> price_record(const kernel_record& r, const gpu_spec& g, const std::string& file = "") {
    priced_record p;
    const auto fmt = [](double v) { return std::to_string(static_cast<long long>(v)); };
    if (r.op == "gemm") {
        // The record's dtype, read as written: an unknown one is an error, another dtype its own
        // curve (fp16 or tf32 records were once fitted into the bf16 curve).
        const auto parsed = parse_dtype(r.dtype.empty() ? std::string_view("bf16") : std::string_view(r.dtype));
        if (!parsed)
            throw parse_error(file, "record " + std::to_string(r.index), "dtype",
                              "unknown dtype \"" + r.dtype + "\" for op gemm (accepted: bf16, fp16, tf32, fp32, fp8_e4m3, ...)");
        const dtype d = *parsed;
        const bool fp8 = d == dtype::fp8_e4m3 || d == dtype::fp8_e5m2;
        const gemm_shape s{r.param("m", file), r.param("n", file), r.param("k", file)};
        const auto path = gemm_compute_path(d, d, g);
        p.work = gemm_workload(s, d, d, fp8 ? dtype::bf16 : d, path.peak);
        p.features = gemm_features(p.work, path.peak);
        p.features.backend = record_backend(r);
        // The kernel that ran, when the record names it: its tile for wave quantisation.
        p.features.gemm_m = s.m;
        p.features.gemm_n = s.n;
        p.features.gemm_k = s.k;
        p.features.sm_count = g.sm_count.value_or(0);
        const std::string names = r.label("kernels");
        for (std::size_t at = 0; at < names.size();) {
            const auto nl = names.find('\n', at);
            if (const auto t = parse_nvjet_tile(std::string_view(names).substr(at, nl == std::string::npos ? std::string::npos : nl - at))) {
                p.features.tile_rows = t->rows;
                p.features.tile_cols = t->cols;
                p.features.split_k = t->split_k;
                break;
            }
            if (nl == std::string::npos) break;
            at = nl + 1;
        }
        p.family_label = fp8 ? std::string("gemm fp8") : "gemm " + std::string(to_string(d));
        p.label = p.family_label + " m=" + fmt(s.m) + " n=" + fmt(s.n) + " k=" + fmt(s.k);
        return p;
    }
    if (r.op == "grouped_mm") {
        std::vector<double> groups = r.expert_tokens;
        if (groups.empty()) {
            // The device-time sweep records rows, active experts and the largest group only: one
            // group of the largest, the other rows shared equally by the other active experts
            // (an approximation of the routing it drew; exact for one row per expert).
            if (!r.params.count("rows") || !r.params.count("active_experts") || !r.params.count("max_expert_tokens"))
                throw parse_error(file, "record " + std::to_string(r.index), "expert_tokens",
                                  "missing (and no rows, active_experts, max_expert_tokens to rebuild the groups from)");
            const double rows = r.param("rows", file), active = r.param("active_experts", file);
            const double largest = std::min(rows, r.param("max_expert_tokens", file));
            if (!(active >= 1) || !(rows > 0) || active > 1e6)
                throw parse_error(file, "record " + std::to_string(r.index), "active_experts", "not a positive expert count");
            groups.push_back(largest);
            const double rest = active > 1 ? (rows - largest) / (active - 1) : 0;
            for (int e = 1; e < static_cast<int>(active); ++e) groups.push_back(rest);
        }
        const double n = r.param("n", file), k = r.param("k", file);
        p.work = grouped_gemm_workload(groups, n, k, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
        p.features = grouped_gemm_features(groups, n, k, p.work, peak_key::bf16);
        p.features.backend = record_backend(r);
        if (r.params.count("experts")) p.features.group_count = r.params.at("experts");  // empty groups too
        p.family_label = "grouped gemm";
        p.label = "grouped " + r.label("gemm") + " " + r.label("routing") + " T=" + fmt(r.param("tokens", file));
        return p;
    }
    if (r.op == "sdpa_prefill" || r.op == "sdpa_decode") {
        attention_shape s;
        s.heads = r.param("heads", file);
        s.kv_heads = r.param("kv_heads", file);
        s.head_dim = r.param("head_dim", file);
        const double batch = r.param("batch", file);
        const bool prefill = r.op == "sdpa_prefill";
        s.causal = prefill && (r.params.count("causal") == 0 || r.params.at("causal") != 0);
        const double q = prefill ? r.param("seq", file) : 1.0;
        const double kv = prefill ? (r.params.count("kv_len") ? r.params.at("kv_len") : q) : r.param("kv_len", file);
        p.work = attention_workload(s, {{batch, q, kv - q}}, dtype::bf16);
        p.features = attention_features(p.work, peak_key::bf16, batch, q, s.heads, s.head_dim, s.causal, s.kv_heads,
                                        g.sm_count.value_or(0));
        p.features.backend = record_backend(r);
        p.family_label = prefill ? "sdpa prefill" : "sdpa decode";
        p.label = p.family_label + " B=" + fmt(batch) + (prefill ? " S=" + fmt(q) : " L=" + fmt(kv)) + " H=" +
                  fmt(s.heads) + "/" + fmt(s.kv_heads) + (p.features.backend.empty() ? "" : " " + p.features.backend);
        return p;
    }
    if (r.op == "copy") {
        const double bytes = r.param("size_bytes", file);
        // Rotating buffers (the fitted sweep rotates copies among sets larger than L2) come from
        // DRAM; the same buffers copied back to back stay in L2 when they fit.
        const auto rot = r.params.find("rotating_sets");
        const bool rotating = rot != r.params.end() && rot->second > 1;
        const auto said = r.params.find("l2_resident");  // the device-time sweep says so
        p.l2_resident = said != r.params.end() ? said->second > 0
                                               : !rotating && fits_in_l2(2.0 * bytes, g.l2_bytes.value_or(0));
        p.work = copy_workload(bytes, p.l2_resident);
        p.features = copy_features(bytes);
        p.family_label = "copy";
        p.label = "copy " + fmt(bytes) + " B" + (p.l2_resident ? " (L2)" : "");
        return p;
    }
    return std::nullopt;
}

/// The SM clock a record ran at: its NVML reading, else `fallback_hz`.
inline double record_clock_hz(const kernel_record& r, double fallback_hz) {
    return std::isfinite(r.sm_clock_hz) && r.sm_clock_hz > 0 ? r.sm_clock_hz : fallback_hz;
}

// ---------------------------------------------------------------------------------------------
// `roofline calibrate`: everything from a list of files
// ---------------------------------------------------------------------------------------------

/// Options of `calibrate`.
struct calibrate_options {
    link_kind link = link_kind::nvlink;  ///< the link the collective sweeps ran over
    bool link_given = false;             ///< false: the GPU's default link
    std::string smi_query_fields;        ///< for header-less nvidia-smi logs
    std::string created_utc;             ///< "" = now
    curve_fit_options curves;
};

/// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
inline std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

/// What `calibrate` did with its inputs beyond the overlay: notes for the user.
struct calibrate_result {
    calibration overlay;
    std::vector<std::string> notes;
    /// By "family/peak[/backend]"; times are device times (host-timed records less their launch gap).
    std::map<std::string, std::vector<curve_point>> curve_points;
    std::vector<power_point> power_points;                          ///< the power fit's samples
};

/// Board power the coefficients `c` predict for sample `p`, W.
inline double predicted_power_w(const power_coefficients& c, const power_point& p) {
    const double scale = std::pow(p.sm_clock_hz / c.reference_clock_hz, c.clock_exponent - 1.0);
    double w = c.static_w + c.joules_per_dram_byte * p.dram_bytes_per_s;
    for (auto k : all_peak_keys) {
        const double r = p.flops_per_s[static_cast<std::size_t>(k)];
        if (r > 0 && std::isfinite(c.flop_energy_at(k))) w += c.flop_energy_at(k) * scale * r;
    }
    return w;
}

namespace detail::calib {
/// "family/peak" or "family/peak/backend": one curve per key.
inline std::string curve_key(const kernel_features& f) {
    return std::string(to_string(f.family)) + "/" + std::string(to_string(f.peak)) + (f.backend.empty() ? "" : "/" + f.backend);
}
inline bool steady(const ceiling_measurement& m) {
    return m.power_samples >= 10 && std::isfinite(m.median_power_w) && std::isfinite(m.max_power_w) &&
           m.max_power_w <= 1.1 * m.median_power_w && std::isfinite(m.median_sm_clock_hz);
}
inline std::optional<peak_key> peak_of_name(const std::string& d) {
    if (auto k = parse_peak_key(d)) return k;
    if (auto t = parse_dtype(d)) return peak_of(*t);
    return std::nullopt;
}
/// Thread blocks of an ncu grid size "(224, 1, 1)" (x y z); NaN when it does not read.
inline double grid_blocks(const std::string& grid) {
    double n = 1;
    int dims = 0;
    std::string cur;
    for (char c : grid + ",") {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            cur.push_back(c);
        } else if (!cur.empty()) {
            if (cur.size() > 9) return std::numeric_limits<double>::quiet_NaN();
            n *= std::stod(cur);
            cur.clear();
            ++dims;
        }
    }
    return dims > 0 && dims <= 3 ? n : std::numeric_limits<double>::quiet_NaN();
}

/// Letters and digits of `s`, lower case ("NVIDIA  H200" -> "nvidiah200").
inline std::string squash_name(const std::string& s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}

/// Merges what one measurement file says about its device into `d` (known fields kept) and
/// throws `usage_error` when the file was measured on another GPU than `g` (its device name is
/// none of `g.device_names`), naming the file, its device and `g`.
inline void note_device(calibration_device& d, const gpu_spec& g, const std::string& file, const std::string& name,
                        double sm_count, double memory_bytes, double max_clock_hz, double memory_clock_hz,
                        const std::string& driver) {
    if (!name.empty() && !g.device_names.empty()) {
        bool ok = false;
        for (const auto& n : g.device_names) ok = ok || squash_name(n) == squash_name(name);
        if (!ok)
            throw usage_error("calibrate --gpu " + g.id + ": " + file + " was measured on \"" + name + "\", not on " +
                              g.id + " (" + g.name + "); give the --gpu it was measured on");
    }
    if (d.name.empty()) d.name = name;
    const auto take = [](std::optional<double>& dst, double v) {
        if (!dst && std::isfinite(v) && v > 0) dst = v;
    };
    take(d.sm_count, sm_count);
    take(d.memory_bytes, memory_bytes);
    take(d.max_sm_clock_hz, max_clock_hz);
    take(d.memory_clock_hz, memory_clock_hz);
    if (d.driver.empty()) d.driver = driver;
}
/// Whether two files hold the same bytes (sizes first, then the contents, in blocks).
inline bool same_bytes(const std::string& a, const std::string& b) {
    std::error_code ea, eb;
    const auto na = std::filesystem::file_size(a, ea), nb = std::filesystem::file_size(b, eb);
    if (ea || eb || na != nb) return false;
    std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
    if (!fa || !fb) return false;
    std::vector<char> ba(1 << 16), bb(1 << 16);
    while (fa && fb) {
        fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
        fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
        if (fa.gcount() != fb.gcount() || !std::equal(ba.begin(), ba.begin() + fa.gcount(), bb.begin())) return false;
    }
    return true;
}

/// Why `files[i]` repeats an earlier input ("" when it does not): the same path given again,
/// the same file under another path, or another file with the same bytes. Each measurement
/// counts once: a file given twice would weigh its records twice in every fit.
inline std::string repeat_of(const std::vector<std::string>& files, std::size_t i) {
    for (std::size_t j = 0; j < i; ++j) {
        if (files[j] == files[i]) return "given again: used once";
        std::error_code ec;
        if (std::filesystem::equivalent(files[j], files[i], ec) && !ec)
            return "the same file as " + files[j] + ": used once";
    }
    for (std::size_t j = 0; j < i; ++j)
        if (same_bytes(files[j], files[i])) return "the same content as " + files[j] + ": used once";
    return "";
}

/// Idle samples at the maximum SM clock give the static power. A sample counts when no kernel
/// is resident (utilization.gpu 0), its SM clock is at least `static_power_min_clock_fraction`
/// of the maximum, and it comes `static_power_settle_s` or more after its GPU's last busy
/// sample: NVML's power.draw averages over about a second, so right after a load it still
/// shows the load, as this project's H200 logs do.
inline constexpr double static_power_min_clock_fraction = 0.98;
inline constexpr double static_power_settle_s = 1.0;
/// Settled samples the static power needs (their median is taken).
inline constexpr std::size_t static_power_min_samples = 3;

/// The samples of `log` the static power is read from, and the counts on the way there.
struct static_power_census {
    std::size_t idle = 0, at_max_clock = 0;
    std::vector<double> idle_clocks_hz;  ///< SM clocks of the idle samples
    std::vector<double> settled_draw_w;  ///< power.draw of the idle, at-max, settled samples
};

inline static_power_census census_static_power(const power_log& log) {
    static_power_census c;
    std::map<int, double> last_busy;
    for (const auto& x : log.samples) {
        if (!(x.utilization_gpu == 0.0)) {
            last_busy[x.gpu_index] = x.wall_time_s;
            continue;
        }
        ++c.idle;
        if (std::isfinite(x.sm_clock_hz)) c.idle_clocks_hz.push_back(x.sm_clock_hz);
        if (!(std::isfinite(x.max_sm_clock_hz) && x.sm_clock_hz >= static_power_min_clock_fraction * x.max_sm_clock_hz))
            continue;
        ++c.at_max_clock;
        const auto lb = last_busy.find(x.gpu_index);
        if ((lb == last_busy.end() || x.wall_time_s - lb->second >= static_power_settle_s) && std::isfinite(x.power_draw_w))
            c.settled_draw_w.push_back(x.power_draw_w);
    }
    return c;
}

/// Why an nvidia-smi log gave the power fit no sample: what calibrate takes from such a log
/// (samples inside a power phase's window; idle samples at the maximum SM clock for the static
/// power) and, for each, the field or the data it lacked.
inline std::string smi_unused_reason(const power_log& log, const std::vector<power_phases>& phases) {
    // The fields with a value in some sample.
    bool time = false, power = false, limit = false, clock = false, max_clock = false, util = false;
    for (const auto& x : log.samples) {
        time = time || std::isfinite(x.wall_time_s);
        power = power || std::isfinite(x.power_draw_w);
        limit = limit || std::isfinite(x.power_limit_w);
        clock = clock || std::isfinite(x.sm_clock_hz);
        max_clock = max_clock || std::isfinite(x.max_sm_clock_hz);
        util = util || std::isfinite(x.utilization_gpu);
    }
    const auto names = [](std::initializer_list<std::pair<bool, const char*>> fields, bool want) {
        std::string m;
        for (auto [have, name] : fields)
            if (have == want) m += (m.empty() ? "" : ", ") + std::string(name);
        return m;
    };
    const std::string present = names({{time, "timestamp"}, {power, "power.draw"}, {limit, "enforced.power.limit"},
                                       {clock, "clocks.sm"}, {max_clock, "clocks.max.sm"}, {util, "utilization.gpu"}},
                                      true);
    std::string why = "an nvidia-smi log of " + std::to_string(log.samples.size()) + " samples with values for " +
                      (present.empty() ? std::string("none of its power fields") : present) + "; ";
    if (log.samples.empty()) return why + "no sample read (see `roofline inspect` for the skipped rows)";
    // (1) power phases
    if (phases.empty())
        why += "no power-phase file among the inputs to align its samples with (the loads they ran are unknown without one)";
    else if (const auto m = names({{time, "timestamp"}, {power, "power.draw"}, {clock, "clocks.sm"}}, false); !m.empty())
        why += "no samples for the power phases without " + m;
    else {
        double p0 = std::numeric_limits<double>::infinity(), p1 = -p0, l0 = p0, l1 = -p0;
        for (const auto& ph : phases)
            for (const auto& x : ph.phases) p0 = std::min(p0, x.start_s), p1 = std::max(p1, x.end_s);
        for (const auto& x : log.samples)
            if (std::isfinite(x.wall_time_s)) l0 = std::min(l0, x.wall_time_s), l1 = std::max(l1, x.wall_time_s);
        // Wall-clock times as nvidia-smi prints them (local time, read as if UTC).
        const auto at = [](double t) {
            const std::time_t tt = static_cast<std::time_t>(std::floor(t));
            char buf[32];
            std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::gmtime(&tt));
            return std::string(buf);
        };
        why += "no 5 samples inside one power phase (its samples span " + at(l0) + " to " + at(l1) + ", the phases " +
               at(p0) + " to " + at(p1) + ")";
    }
    why += "; ";
    // (2) idle samples at the maximum clock: the static power
    if (const auto m = names({{power, "power.draw"}, {clock, "clocks.sm"}, {max_clock, "clocks.max.sm"}, {util, "utilization.gpu"}},
                             false);
        !m.empty())
        return why + "no static power without " + m + " (idle samples at the maximum SM clock)";
    const auto c = census_static_power(log);
    const std::size_t idle = c.idle, at_max = c.at_max_clock, settled = c.settled_draw_w.size();
    const auto& idle_clocks = c.idle_clocks_hz;
    if (idle == 0) return why + "no idle sample (utilization.gpu above 0 in every one) for the static power";
    char b[320];
    if (at_max == 0)
        std::snprintf(b, sizeof b,
                      "%zu idle samples, none at the maximum SM clock (their median clock %.0f MHz: an idle GPU lowers "
                      "its clock; the static power is read at the maximum)",
                      idle, idle_clocks.empty() ? std::nan("") : quantile_nearest_rank(idle_clocks, 0.5) / 1e6);
    else
        std::snprintf(b, sizeof b,
                      "%zu idle samples, %zu at the maximum SM clock, %zu of those %.0f s or more after a busy sample "
                      "(%zu needed for the static power: power.draw averages over about a second)",
                      idle, at_max, settled, static_power_settle_s, static_power_min_samples);
    return why + b;
}
}  // namespace detail::calib

/// Fits a calibration overlay for GPU `g` from measurement files (formats detected by content,
/// `detect_measurement_format`). Throws `parse_error` for an unreadable or unrecognised file and
/// `usage_error` when nothing could be fitted.
inline calibrate_result calibrate(const std::vector<std::string>& files, const gpu_spec& g,
                                  const calibrate_options& o = {}) {
    using detail::calib::curve_key;
    calibrate_result res;
    auto& cal = res.overlay;
    cal.version = 1;
    cal.gpu = g.id;
    cal.device.id = g.id;
    cal.tool = "roofline calibrate";
    cal.created_utc = o.created_utc.empty() ? utc_now() : o.created_utc;
    ceilings fallback = achievable(datasheet_ceilings(g));  // calibrated below, before the curves
    const double max_clock = g.max_clock_hz.value_or(g.boost_clock_hz.value_or(std::numeric_limits<double>::quiet_NaN()));
    const link_kind link = o.link_given ? o.link : g.default_link();

    std::vector<ceiling_point> ceiling_pts;
    std::vector<power_point> power_pts;
    std::vector<collective_sweep> sweeps;
    std::vector<power_phases> phase_files;
    std::vector<power_log> smi_logs;
    std::map<std::string, std::set<std::string>> curve_files;
    // Host-timed sweeps (CUDA events around eager calls): per curve point, its file ("" for
    // device-timed ones); the launch gap an empty kernel shows between the same events, per file.
    std::map<std::string, std::vector<std::string>> host_timed;
    std::map<std::string, double> file_gap;
    std::map<std::string, std::size_t> skipped;
    double power_limit = std::numeric_limits<double>::quiet_NaN();

    // Per file: the reasons its records were skipped (a sweep whose records all were says why).
    std::map<std::string, std::map<std::string, std::size_t>> skipped_in;
    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        const auto& path = files[fi];
        const auto fmt = detect_measurement_format(path);
        calibration_input in{path, to_string(fmt), 0, 0, ""};
        if (auto again = detail::calib::repeat_of(files, fi); !again.empty()) {
            in.note = std::move(again);  // the report's inputs list says it
            cal.inputs.push_back(in);
            continue;
        }
        switch (fmt) {
            case measurement_format::unknown:
                throw parse_error(path, "", "",
                                  std::string([&] { std::error_code ec; return std::filesystem::file_size(path, ec) == 0 && !ec; }()
                                                  ? "an empty file: " : "") +
                                  "not a recognised measurement file (accepted: roofline.ceilings/1, roofline.kernels/1, "
                                  "roofline.allreduce_sweep/1, the validation sweep and its power phases, nccl-tests "
                                  "stdout or JSON, ncu --csv, nvidia-smi --query-gpu CSV, Kineto traces)");
            case measurement_format::ceilings_json: {
                const auto c = read_ceilings_report(path);
                detail::calib::note_device(cal.device, g, path, c.device_name, c.sm_count, c.memory_bytes,
                                           c.max_sm_clock_hz, c.memory_clock_hz, "");
                in.records_read = c.stats.events_read;
                if (std::isfinite(c.power_limit_w)) power_limit = c.power_limit_w;
                for (const auto& m : c.measurements) {
                    std::size_t used = 0;
                    const double clk = m.median_sm_clock_hz;
                    if (m.kind == "memory" && std::isfinite(m.achieved_bytes_per_s)) {
                        ceiling_pts.push_back({m.level == "l2" ? "l2_bytes_per_s" : "dram_bytes_per_s",
                                               m.achieved_bytes_per_s, std::numeric_limits<double>::quiet_NaN(), path, m.name,
                                               m.level == "l2" ? std::numeric_limits<double>::quiet_NaN() : m.bytes});
                        ++used;
                    } else if (m.kind == "compute" && std::isfinite(m.achieved_flops_per_s)) {
                        if (const auto k = detail::calib::peak_of_name(m.dtype)) {
                            ceiling_pts.push_back({std::string(to_string(*k)), m.achieved_flops_per_s, clk, path,
                                                   m.name + " #" + std::to_string(m.index), m.flops});
                            ++used;
                        }
                    } else if (m.name == "launch_empty_kernel") {
                        ceiling_pts.push_back({"launch_latency_s", m.median_s, std::numeric_limits<double>::quiet_NaN(), path, m.name});
                        ++used;
                    } else if (m.name == "graph_empty_kernel") {
                        ceiling_pts.push_back({"graph_launch_latency_s", m.median_s, std::numeric_limits<double>::quiet_NaN(), path, m.name});
                        ++used;
                    }
                    // Power: steady DRAM and tensor measurements (L2 and FP32 have no coefficient).
                    if (detail::calib::steady(m) && m.level != "l2" && m.pipe != "fp32" && m.kind != "launch") {
                        power_point pp;
                        pp.power_w = m.median_power_w;
                        pp.sm_clock_hz = m.median_sm_clock_hz;
                        if (m.kind == "compute")
                            if (const auto k = detail::calib::peak_of_name(m.dtype))
                                pp.flops_per_s[static_cast<std::size_t>(*k)] = m.flops / m.median_s;
                        pp.dram_bytes_per_s = m.bytes / m.median_s;
                        pp.file = path;
                        pp.label = m.name;
                        power_pts.push_back(pp);
                        ++used;
                    }
                    in.records_used += used > 0 ? 1 : 0;
                }
                break;
            }
            case measurement_format::kernel_sweep_json:
            case measurement_format::validation_json: {
                const auto s = read_kernel_sweep(path);
                detail::calib::note_device(cal.device, g, path, s.gpu_name, s.sm_count, s.memory_bytes, s.max_sm_clock_hz,
                                           std::numeric_limits<double>::quiet_NaN(), s.driver);
                in.records_read = s.stats.events_read;
                if (fmt == measurement_format::validation_json)
                    res.notes.push_back(path + ": no clocks recorded; points assumed at the maximum SM clock");
                for (const auto& r : s.records) {
                    if (r.op == "launch") {
                        const std::string what = r.label("what");
                        if (what == "tiny_kernel_graph")
                            ceiling_pts.push_back({"graph_launch_latency_s", r.time_s, std::numeric_limits<double>::quiet_NaN(), path, what});
                        else if (what == "launch_empty_kernel") {
                            ceiling_pts.push_back({"launch_latency_s", r.time_s, std::numeric_limits<double>::quiet_NaN(), path, what});
                            file_gap[path] = r.time_s;
                        }
                        else {
                            ++skipped["launch (host-side measurement)"];
                            ++skipped_in[path]["launch (host-side measurement)"];
                            continue;
                        }
                        ++in.records_used;
                        continue;
                    }
                    const auto pr = price_record(r, g, path);
                    if (!pr) {
                        ++skipped[r.op + " (not one kernel of a modeled family)"];
                        ++skipped_in[path][r.op + " (not one kernel of a modeled family)"];
                        continue;
                    }
                    const double clk = record_clock_hz(r, max_clock);
                    res.curve_points[curve_key(pr->features)].push_back(
                        {pr->features, clk, r.time_s, pr->label, std::isfinite(r.sm_clock_hz) && r.sm_clock_hz > 0});
                    if (s.timing_basis == "host") host_timed[curve_key(pr->features)].push_back(path);
                    else host_timed[curve_key(pr->features)].push_back("");
                    curve_files[curve_key(pr->features)].insert(path);
                    // Envelope points: achieved FLOP/s (tensor) and DRAM bandwidth of copies.
                    if (pr->features.flops > 0 && pr->features.family == kernel_family::gemm)
                        ceiling_pts.push_back({std::string(to_string(pr->features.peak)), pr->features.flops / r.time_s, clk, path,
                                               pr->label, pr->features.flops});
                    if (pr->features.family == kernel_family::copy)
                        ceiling_pts.push_back({"dram_bytes_per_s", pr->features.dram_bytes / r.time_s,
                                               std::numeric_limits<double>::quiet_NaN(), path, pr->label,
                                               pr->features.dram_bytes});
                    ++in.records_used;
                }
                break;
            }
            case measurement_format::allreduce_json:
            case measurement_format::nccl_tests_text:
            case measurement_format::nccl_tests_json: {
                auto s = fmt == measurement_format::allreduce_json ? read_allreduce_sweep(path)
                         : fmt == measurement_format::nccl_tests_text ? read_nccl_tests(path)
                                                                      : read_nccl_tests_json(path);
                in.records_read = s.stats.events_read;
                in.records_used = s.points.size();
                for (const auto& d : s.devices)
                    detail::calib::note_device(cal.device, g, path, d, std::numeric_limits<double>::quiet_NaN(),
                                               std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(),
                                               std::numeric_limits<double>::quiet_NaN(), "");
                sweeps.push_back(std::move(s));
                break;
            }
            case measurement_format::power_phases_json: {
                phase_files.push_back(read_power_phases(path));
                in.records_read = phase_files.back().phases.size();
                break;
            }
            case measurement_format::ncu_csv: {
                const auto rep = read_ncu_csv(path);
                in.records_read = rep.kernels.size();
                for (const auto& k : rep.kernels)  // ncu's device__attribute_display_name, where reported
                    detail::calib::note_device(cal.device, g, path, k.device_name, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(), "");
                for (const auto& k : rep.kernels) {
                    if (!(k.duration_s > 0)) continue;
                    bool used = false;
                    for (const auto& [prec, f] : k.tensor_flops_by_precision) {
                        if (!(f > 0)) continue;
                        const auto key = detail::calib::peak_of_name(prec == "fp4_fp6_fp8" ? "fp8" : prec);
                        if (!key) continue;
                        ceiling_pts.push_back({std::string(to_string(*key)), f / k.duration_s, k.sm_clock_hz, path, "ncu " + k.name,
                                               f, detail::calib::grid_blocks(k.grid_size)});
                        used = true;
                    }
                    if (k.dram_bytes > 0) {
                        ceiling_pts.push_back({"dram_bytes_per_s", k.dram_bytes / k.duration_s,
                                               std::numeric_limits<double>::quiet_NaN(), path, "ncu " + k.name, k.dram_bytes,
                                               detail::calib::grid_blocks(k.grid_size)});
                        used = true;
                    }
                    in.records_used += used ? 1 : 0;
                }
                break;
            }
            case measurement_format::kineto_trace: {
                const auto t = read_kineto(path);
                for (const auto& d : t.devices)  // deviceProperties: the name says which GPU ran it
                    detail::calib::note_device(cal.device, g, path, d.name, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(), "");
                in.records_read = t.events.size();
                const auto pts = trace_gemm_points(t);
                in.records_used = pts.size();
                ceiling_pts.insert(ceiling_pts.end(), pts.begin(), pts.end());
                break;
            }
            case measurement_format::nvidia_smi_csv: {
                nvidia_smi_options so;
                so.query_fields = o.smi_query_fields;
                smi_logs.push_back(read_nvidia_smi_csv(path, so));
                in.records_read = smi_logs.back().stats.events_read;
                break;
            }
            case measurement_format::nvidia_smi_dmon: {
                smi_logs.push_back(read_nvidia_smi_dmon(path));
                in.records_read = smi_logs.back().stats.events_read;
                break;
            }
        }
        cal.inputs.push_back(in);
    }
    // Header-less nvidia-smi logs are only readable with their field list: a power-phase file
    // names its log by convention (same folder); the user passes it as an input.
    for (const auto& [what, n] : skipped) res.notes.push_back(std::to_string(n) + " record(s) skipped: " + what);

    // Power phases aligned with nvidia-smi samples by wall-clock time; idle-at-maximum-clock
    // samples of any log give the static power.
    for (const auto& log : smi_logs) {
        std::size_t used = 0;
        for (const auto& ph : phase_files)
            for (const auto& p : ph.phases) {
                std::vector<double> pw, clk;
                for (const auto& s : log.samples)
                    if (s.wall_time_s >= p.start_s + 1.0 && s.wall_time_s <= p.end_s && std::isfinite(s.power_draw_w)) {
                        pw.push_back(s.power_draw_w);
                        if (std::isfinite(s.sm_clock_hz)) clk.push_back(s.sm_clock_hz);
                    }
                if (pw.size() < 5 || clk.empty()) continue;
                power_point pp;
                pp.power_w = quantile_nearest_rank(pw, 0.5);
                pp.sm_clock_hz = quantile_nearest_rank(clk, 0.5);
                if (p.name == "gemm") {
                    pp.flops_per_s[static_cast<std::size_t>(peak_key::bf16)] = p.flops_per_s;
                    // minimum DRAM traffic of the 16384^3 bf16 GEMM: 3 n^2 2 B per 2 n^3 FLOP
                    pp.dram_bytes_per_s = p.flops_per_s * 3.0 * 2.0 / (2.0 * 16384.0);
                }
                if (p.name == "copy") pp.dram_bytes_per_s = p.bytes_per_s;
                pp.file = ph.file + " + " + log.file;
                pp.label = "phase " + p.name;
                power_pts.push_back(pp);
                used += pw.size();
            }
        // Static power: idle samples at the maximum clock, settled (`census_static_power`).
        const auto idle = detail::calib::census_static_power(log).settled_draw_w;
        if (idle.size() >= detail::calib::static_power_min_samples) {
            power_point pp;
            pp.power_w = quantile_nearest_rank(idle, 0.5);
            pp.sm_clock_hz = max_clock;
            pp.file = log.file;
            pp.label = "idle at maximum clock (" + std::to_string(idle.size()) + " samples)";
            power_pts.push_back(pp);
            used += idle.size();
        }
        for (const auto& s : log.samples)
            if (std::isfinite(s.power_limit_w)) power_limit = s.power_limit_w;
        for (auto& in : cal.inputs)
            if (in.file == log.file) in.records_used = used;
    }
    for (const auto& ph : phase_files)
        for (auto& in : cal.inputs)
            if (in.file == ph.file && !smi_logs.empty()) in.records_used = in.records_read;

    // Every input that gave nothing says why, in the words of its format.
    for (auto& in : cal.inputs) {
        if (in.records_used > 0 || !in.note.empty()) continue;
        const auto fmt = detect_measurement_format(in.file);
        std::string why;
        switch (fmt) {
            case measurement_format::nvidia_smi_csv:
            case measurement_format::nvidia_smi_dmon:
                for (const auto& log : smi_logs)
                    if (log.file == in.file) why = detail::calib::smi_unused_reason(log, phase_files);
                break;
            case measurement_format::power_phases_json:
                why = smi_logs.empty() ? "power phases without the nvidia-smi log recorded with them (give that log as an "
                                         "input; header-less: with --smi-fields)"
                                       : "no phase with 5 nvidia-smi samples (power.draw and clocks.sm) inside its window";
                break;
            case measurement_format::kineto_trace:
                why = "a Kineto trace with no GEMM kernel linked to an aten::mm, addmm, bmm, _scaled_mm or linear whose "
                      "Input Dims and bf16/fp16/fp8 input types were recorded (profile with record_shapes=True)";
                break;
            case measurement_format::ncu_csv:
                why = "an Nsight Compute report with no kernel that has a duration and tensor FLOP "
                      "(sm__ops_path_tensor_*) or DRAM bytes (dram__bytes)";
                break;
            case measurement_format::kernel_sweep_json:
            case measurement_format::validation_json: {
                why = "a kernel sweep none of whose " + std::to_string(in.records_read) + " records is one kernel of a modeled family";
                std::string by;
                for (const auto& [what, n] : skipped_in[in.file]) by += (by.empty() ? "" : ", ") + std::to_string(n) + " " + what;
                if (!by.empty()) why += " (" + by + ")";
                break;
            }
            case measurement_format::ceilings_json:
                why = "a ceilings report with no measurement that has an achieved rate, a launch time or steady power";
                break;
            default:
                why = "no record with the sizes and times a link fit needs";
                break;
        }
        in.note = why;
    }

    // 1. Ceilings, from saturating measurements only.
    const auto saturating = saturating_points(ceiling_pts, g, res.notes);
    for (const auto& [key, e] : fit_ceilings(saturating)) {
        const auto& [v, src] = e;
        if (key == "dram_bytes_per_s") cal.dram_bytes_per_s = v;
        else if (key == "l2_bytes_per_s") cal.l2_bytes_per_s = v;
        else if (key == "launch_latency_s") cal.launch_latency_s = v;
        else if (key == "graph_launch_latency_s") cal.graph_launch_latency_s = v;
        else if (auto k = parse_peak_key(key)) {
            cal.flops_per_s[static_cast<std::size_t>(*k)] = v;
            if (std::isfinite(src.flops_per_clock)) cal.flops_per_clock[static_cast<std::size_t>(*k)] = src.flops_per_clock;
        }
        cal.ceiling_sources[key] = src;
    }

    // 2. Curves, each with its held-out residuals; terms the data cannot identify fall back to
    // the ceilings just calibrated (as every prediction with this overlay does).
    fallback = apply_calibration(fallback, cal);
    // Device time, never wall time: a host-timed record's time holds the launch gap of an eager
    // call (an empty kernel between the same events: 4.4 us on our H200), which no kernel
    // duration contains. It is taken off before the fit; the host floor (the fit's floor term,
    // points on it inform no device term) gets it back, as the eager wall time it is.
    std::map<std::string, double> curve_gap;
    for (auto& [key, pts] : res.curve_points) {
        const auto& files_of = host_timed[key];
        double gap_sum = 0;
        std::size_t gap_n = 0;
        for (std::size_t i = 0; i < pts.size() && i < files_of.size(); ++i) {
            if (files_of[i].empty()) continue;
            const auto it = file_gap.find(files_of[i]);
            const double gap = it != file_gap.end() ? it->second : cal.launch_latency_s.value_or(0.0);
            pts[i].measured_s = std::max(pts[i].measured_s - gap, 0.1 * pts[i].measured_s);
            gap_sum += gap;
            ++gap_n;
        }
        if (gap_n > 0) {
            curve_gap[key] = gap_sum / static_cast<double>(gap_n);
            if (!(gap_sum > 0))
                res.notes.push_back(key + ": host-timed records with no measured launch gap (no launch_empty_kernel): "
                                    "fitted as if device times");
        }
    }
    for (const auto& [key, pts] : res.curve_points) {
        if (pts.size() < 3) {
            res.notes.push_back(key + ": " + std::to_string(pts.size()) + " point(s), too few for a curve (3 needed)");
            continue;
        }
        // A floor fitted to host-timed points is the host floor of an eager call; fitted to device
        // times it is the least duration of the family's kernels (a split-KV decode launches two),
        // and either way the points on it inform no device term.
        auto fit_o = o.curves;
        if (!fit_o.rate_caps) fit_o.rate_caps = apply_calibration(datasheet_ceilings(g), cal);
        auto c = fit_kernel_curve(pts, fallback, fit_o);
        if (fit_o.folds >= 2 && pts.size() >= static_cast<std::size_t>(fit_o.folds) + 3) {
            const auto s = summarize_errors(abs_errors(pts, cross_validate_curve(pts, fallback, fit_o, fit_o.folds)));
            c.fit.cv_median_abs_error = s.median;
            c.fit.cv_p90_abs_error = s.p90;
            c.fit.cv_folds = o.curves.folds;
        }
        std::string src;
        for (const auto& f : curve_files[key]) src += (src.empty() ? "" : ", ") + f;
        c.fit.source = src + " (" + std::to_string(pts.size()) + " records";
        if (const auto g_it = curve_gap.find(key); g_it != curve_gap.end() && g_it->second > 0) {
            c.fit.source += ", host-timed: launch gap " + std::to_string(g_it->second * 1e6).substr(0, 4) +
                            " us taken off each, fitted as device time";
            if (c.floor_s > 0) c.floor_s += g_it->second;  // the host floor, in wall time
        }
        c.fit.source += ")";
        cal.curves.push_back(std::move(c));
    }

    // 3. Links. The host layout of the sweep decides the link class: ranks on several hosts
    // cross the network (the ring's slowest hop), whatever links join GPUs inside a host.
    if (!sweeps.empty()) {
        int hosts = 0;
        std::string multi;
        for (const auto& sw : sweeps) {
            const int h = sw.host_count();
            if (h > 1 && multi.empty()) multi = sw.file;
            hosts = std::max(hosts, h);
        }
        bool mixed = false;
        for (const auto& sw : sweeps) mixed = mixed || (hosts > 1 && sw.host_count() <= 1);
        if (mixed)
            throw usage_error("calibrate: " + multi + " spans " + std::to_string(hosts) +
                              " hosts but other collective sweeps run on one: calibrate them separately (one link class each)");
        link_kind fit_as = link;
        if (hosts > 1) {
            if (o.link_given && o.link != link_kind::network)
                throw usage_error("calibrate: " + multi + " runs its ranks on " + std::to_string(hosts) +
                                  " hosts: its collectives cross the network, not " + std::string(to_string(o.link)) +
                                  " (--link network)");
            fit_as = link_kind::network;
        }
        auto l = fit_link(sweeps, fit_as);
        cal.links.push_back(l);
        if (hosts > 1)
            res.notes.push_back("collective sweeps on " + std::to_string(hosts) + " hosts (" + std::to_string(l.ranks) +
                                " ranks, read from the file's rank lines) fitted as the network link");
        else if (!o.link_given)
            res.notes.push_back("collective sweeps taken as " + std::string(to_string(link)) + " (the GPU's default link; --link to say otherwise)");
    }

    // 4. Power.
    res.power_points = power_pts;
    if (!power_pts.empty()) {
        try {
            auto p = fit_power(power_pts);
            p.power_limit_w = std::isfinite(power_limit) ? power_limit : g.power_limit_w.value_or(std::numeric_limits<double>::quiet_NaN());
            p.max_clock_hz = max_clock;
            // Every energy coefficient clipped to zero leaves a constant: the samples do not
            // separate static from dynamic power (all at one draw, e.g. all at the power cap).
            bool dynamic = p.coefficients.joules_per_dram_byte > 0;
            for (double e : p.coefficients.joules_per_flop) dynamic = dynamic || (std::isfinite(e) && e > 0);
            if (dynamic) {
                cal.power = p;
                if (p.unreliable) {
                    char b[320];
                    std::snprintf(b, sizeof b,
                                  "power model unreliable: its largest residual, %.1f W, is %.1f%% of the %.0f W its %zu "
                                  "samples span (rms %.1f W, %.1f%%; flagged above %.0f%%): clocks predicted under a power "
                                  "limit from it may be off; add steady samples at more loads and clocks",
                                  p.max_abs_residual_w, 100 * p.max_abs_residual_w / p.power_range_w, p.power_range_w,
                                  p.samples, p.rms_residual_w, 100 * p.rms_residual_w / p.power_range_w,
                                  100 * power_fit_unreliable_fraction);
                    res.notes.push_back(b);
                }
            } else
                res.notes.push_back("power not fitted: the " + std::to_string(p.samples) +
                                    " steady samples do not separate static from dynamic power (the fit is a constant " +
                                    std::to_string(static_cast<int>(std::lround(p.coefficients.static_w))) +
                                    " W); add samples at other loads (idle, copy, GEMM below the power cap)");
        } catch (const usage_error& e) {
            res.notes.push_back(std::string("power not fitted: ") + e.what());
        }
    }
    if (cal.curves.empty() && cal.links.empty() && !cal.power && saturating.empty()) {
        std::string why;
        for (const auto& in : cal.inputs)
            why += "; " + in.file + " [" + in.format + "]: " + std::to_string(in.records_read) + " records read, " +
                   std::to_string(in.records_used) + " used" + (in.note.empty() ? "" : ": " + in.note);
        for (const auto& n : res.notes) why += "; " + n;
        throw usage_error("calibrate: nothing to fit in the given files" + why);
    }
    return res;
}

// ---------------------------------------------------------------------------------------------
// Validation: measured against predicted, datasheet and calibrated
// ---------------------------------------------------------------------------------------------

/// How a calibrated prediction picks the SM clock.
enum class clock_choice : unsigned char {
    record,       ///< the clock the record ran at (NVML), as the fit used
    power_model,  ///< predicted under the power limit by the calibrated power coefficients
};

/// The calibrated prediction of one record: the family's curve when there is one (at `clock`),
/// else the roofline at the calibrated ceilings (with the uncalibrated model's kernel facts,
/// `price_kernel_as_run`) plus the calibrated launch floor.
inline double calibrated_prediction_s(const priced_record& p, const kernel_record& r, const gpu_spec& g,
                                      const ceilings& used, const kernel_efficiency& e,
                                      const std::optional<calibrated_power>& power, clock_choice clock,
                                      bool host_timed = false) {
    // A copy that stays in L2: the copy curve's fixed cost, its bytes at the L2 ceiling.
    if (p.l2_resident)
        if (const auto* cc = e.curve_for(p.features); cc && std::isfinite(used.bytes_at(memory_level::l2))) {
            const double device = cc->fixed_latency_s + p.work.bytes_at(memory_level::l2) / used.bytes_at(memory_level::l2);
            return host_timed ? std::max(cc->floor_s, e.launch_floor_s + device) : device;
        }
    const auto* c = p.l2_resident ? nullptr : e.curve_for(p.features);
    if (!c) {
        // No curve: the uncalibrated model's kernel facts (tile padding, published attention
        // rates) at the calibrated ceilings.
        const double device =
            price_kernel_as_run(p.work, {p.features}, datasheet_ceilings(g), used, e, g.cc_major).time.predicted_s();
        return host_timed ? eager_call_time_s(device - used.launch_latency_s * p.work.launches + e.launch_floor_s, e)
                          : device;
    }
    const double max_clock = g.max_clock_hz.value_or(1.98e9);
    double f = record_clock_hz(r, max_clock);
    if (clock == clock_choice::power_model) {
        f = max_clock;
        if (power && std::isfinite(power->power_limit_w))
            f = power_capped_clock_hz(p.features, *c, used, power->coefficients, power->power_limit_w,
                                      std::isfinite(power->max_clock_hz) ? power->max_clock_hz : max_clock);
    }
    return host_timed ? c->time_s(p.features, f, used, e.launch_floor_s) : c->device_time_s(p.features, f, used);
}

/// Errors of one op family.
struct validation_row {
    std::string family;
    std::size_t n = 0;
    error_summary datasheet, calibrated, calibrated_power_clock, cross_validated;
};

/// A record's errors, for the list of misses.
struct validation_point {
    std::string family, label;
    double measured_s = 0, datasheet_s = 0, calibrated_s = 0, cross_validated_s = 0;
};

struct validation_report {
    std::vector<validation_row> rows;  ///< families in a fixed order (other GEMM dtypes after them), then "all"
    std::vector<validation_point> points;
};

/// Compares every modeled record of `sweep` with `roofline kernel`'s prediction at datasheet
/// ceilings (x published efficiencies + launch floor, the kernels as they run:
/// `price_kernel_as_run`) and with the calibration `cal`:
/// in sample (the curve in `cal`, record clocks), with the power-model clock, and held out
/// (curves refitted on the sweep by `folds`-fold cross-validation, record clocks).
inline validation_report validate_calibration(const kernel_sweep& sweep, const gpu_spec& g, const calibration& cal,
                                              int folds = 5, const curve_fit_options& fit = {}) {
    ceilings ds = datasheet_ceilings(g);
    if (!std::isfinite(ds.bytes_at(memory_level::l2))) ds.bytes_at(memory_level::l2) = measured_l2_bytes_per_s(g.id);
    // A host-timed sweep (events around eager calls) holds the eager launch gap in every time:
    // both models add their eager launch floor; a device-timed one holds kernel durations only.
    const bool host = sweep.timing_basis == "host";
    ceilings ach = achievable(ds);
    if (host) ach.launch_latency_s = kernel_efficiency{}.launch_floor_s;
    ceilings used = achievable(ds);
    link_params lp;
    kernel_efficiency e;
    apply_calibration(used, lp, e, cal);
    // Held-out refits cap their rates as `calibrate` does: at the overlay's measured ceilings.
    curve_fit_options fit_capped = fit;
    if (!fit_capped.rate_caps) fit_capped.rate_caps = apply_calibration(ds, cal);
    const double max_clock = g.max_clock_hz.value_or(1.98e9);
    validation_report rep;
    struct item {
        priced_record p;
        const kernel_record* r;
    };
    std::map<std::string, std::vector<item>> by_family;
    std::map<std::string, std::vector<std::pair<const kernel_record*, std::array<priced_record, 2>>>> layers;
    for (const auto& r : sweep.records) {
        if (r.op == "moe_layer") {
            // The validation sweep times a whole MoE layer: gate_up then down over `experts`
            // experts with `tokens_per_expert` rows each (top-1).
            const double E = r.param("experts", sweep.file), h = r.param("hidden", sweep.file);
            const double i = r.param("inter", sweep.file), t = r.param("tokens_per_expert", sweep.file);
            const std::vector<double> rows(static_cast<std::size_t>(E), t);
            std::array<priced_record, 2> parts;
            const std::array<std::pair<double, double>, 2> nk = {{{2 * i, h}, {h, i}}};
            for (std::size_t j = 0; j < 2; ++j) {
                parts[j].work = grouped_gemm_workload(rows, nk[j].first, nk[j].second, dtype::bf16, dtype::bf16,
                                                      dtype::bf16, peak_key::bf16);
                parts[j].features = grouped_gemm_features(rows, nk[j].first, nk[j].second, parts[j].work, peak_key::bf16);
                parts[j].family_label = "grouped gemm";
            }
            parts[0].label = "moe layer E=" + std::to_string(static_cast<int>(E)) + " h=" + std::to_string(static_cast<int>(h)) +
                             " t/e=" + std::to_string(static_cast<int>(t));
            layers["grouped gemm"].push_back({&r, parts});
            continue;
        }
        const auto p = price_record(r, g, sweep.file);
        if (!p) continue;
        by_family[p->family_label].push_back({*p, &r});
    }
    for (const auto& [fam, v] : layers) by_family.try_emplace(fam);
    std::vector<std::string> order = {"gemm bf16", "gemm fp8", "grouped gemm", "sdpa prefill", "sdpa decode", "copy"};
    for (const auto& [fam, v] : by_family)  // other GEMM dtypes (fp16, tf32, ...) after the fixed ones
        if (fam.rfind("gemm ", 0) == 0 && std::find(order.begin(), order.end(), fam) == order.end()) order.push_back(fam);
    std::vector<double> all_ds, all_cal, all_pc, all_cv;
    for (const auto& fam : order) {
        const auto it = by_family.find(fam);
        if (it == by_family.end()) continue;
        const auto& items = it->second;
        std::vector<curve_point> pts;
        for (const auto& x : items) pts.push_back({x.p.features, record_clock_hz(*x.r, max_clock), x.r->time_s, x.p.label});
        std::vector<double> cv(items.size(), std::numeric_limits<double>::quiet_NaN());
        // Held out: curves refitted on the other folds, with the calibrated ceilings as fallback
        // (as `calibrate` fits them).
        // One curve per backend: cross-validate each backend's points on their own.
        std::map<std::string, std::vector<std::size_t>> by_key;
        for (std::size_t i = 0; i < pts.size(); ++i) by_key[detail::calib::curve_key(pts[i].features)].push_back(i);
        for (const auto& [key, idx] : by_key) {
            if (folds < 2 || idx.size() < static_cast<std::size_t>(folds) + 3) continue;
            std::vector<curve_point> sub;
            for (auto i : idx) sub.push_back(pts[i]);
            const auto pred = cross_validate_curve(sub, used, fit_capped, folds);
            for (std::size_t j = 0; j < idx.size(); ++j) cv[idx[j]] = pred[j];
        }
        validation_row row;
        row.family = fam;
        row.n = items.size();
        std::vector<double> eds, ecal, epc, ecv;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const auto& x = items[i];
            const double t = x.r->time_s;
            const double tds = price_kernel_as_run(x.p.work, {x.p.features}, ds, ach, {}, g.cc_major).time.predicted_s();
            const double tcal = calibrated_prediction_s(x.p, *x.r, g, used, e, cal.power, clock_choice::record, host);
            const double tpc = calibrated_prediction_s(x.p, *x.r, g, used, e, cal.power, clock_choice::power_model, host);
            eds.push_back(std::abs(tds / t - 1));
            ecal.push_back(std::abs(tcal / t - 1));
            epc.push_back(std::abs(tpc / t - 1));
            if (std::isfinite(cv[i])) ecv.push_back(std::abs(cv[i] / t - 1));
            rep.points.push_back({fam, x.p.label, t, tds, tcal, cv[i]});
        }
        // Whole MoE layers (validation sweep): the sum of their two grouped GEMMs; no held-out fit.
        if (const auto lit = layers.find(fam); lit != layers.end())
            for (const auto& [r, parts] : lit->second) {
                const double t = r->time_s;
                double tds = 0, tcal = 0, tpc = 0;
                for (const auto& part : parts) {
                    tds += price_kernel_as_run(part.work, {part.features}, ds, ach, {}, g.cc_major).time.predicted_s();
                    tcal += calibrated_prediction_s(part, *r, g, used, e, cal.power, clock_choice::record, host);
                    tpc += calibrated_prediction_s(part, *r, g, used, e, cal.power, clock_choice::power_model, host);
                }
                eds.push_back(std::abs(tds / t - 1));
                ecal.push_back(std::abs(tcal / t - 1));
                epc.push_back(std::abs(tpc / t - 1));
                rep.points.push_back({fam, parts[0].label, t, tds, tcal, std::numeric_limits<double>::quiet_NaN()});
                ++row.n;
            }
        row.datasheet = summarize_errors(eds);
        row.calibrated = summarize_errors(ecal);
        row.calibrated_power_clock = summarize_errors(epc);
        row.cross_validated = summarize_errors(ecv);
        all_ds.insert(all_ds.end(), eds.begin(), eds.end());
        all_cal.insert(all_cal.end(), ecal.begin(), ecal.end());
        all_pc.insert(all_pc.end(), epc.begin(), epc.end());
        all_cv.insert(all_cv.end(), ecv.begin(), ecv.end());
        rep.rows.push_back(row);
    }
    validation_row all;
    all.family = "all";
    all.n = all_ds.size();
    all.datasheet = summarize_errors(all_ds);
    all.calibrated = summarize_errors(all_cal);
    all.calibrated_power_clock = summarize_errors(all_pc);
    all.cross_validated = summarize_errors(all_cv);
    rep.rows.push_back(all);
    return rep;
}

}  // namespace roofline
