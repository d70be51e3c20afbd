#pragma once
// Predicted kernel time: the honest lower bound plus what production kernels are known to
// lose to it.
//
//   lower_bound = time_lower_bound(w, datasheet ceilings)
//   predicted   = time_lower_bound(w, achievable ceilings) ,  achievable = datasheet x fractions,
//                 with launch_latency = the device-side cost of one kernel (0.86 us), so predicted
//                 adds launches x that: a kernel's duration, as a profiler or a CUDA-graph replay
//                 times it. The host's eager launch floor (5 us) is a separate term
//                 (`kernel_efficiency::launch_floor_s`, `eager_call_time_s`), never inside it.
//   A working set that fits in L2 (`fits_in_l2`) is priced at L2 where its bandwidth is known.
//
// The fractions are published measurements, not fits to any one GPU (sources below); a
// calibration file replaces any ceiling it names. Validated against this project's H200
// measurements (data/validation/h200_kernels.json): see tests/models/kernel_time_test.cpp.
//
// Calibrated curves. Where a calibration (`roofline calibrate`, analysis/calibration.hpp) has
// fitted a curve for a kernel family, the prediction is instead
//
//   t = max( t_floor , t_fixed + [split] t_split + max( F_eff / (phi x f) , B / W ) )
//
//   t_fixed  per-kernel fixed latency: launch, prologue, pipeline fill and tail, s
//   t_split  what a split kernel's second kernel adds (`is_split_kernel`: cuBLAS's split-K
//            reduction, FlashAttention-2's split-KV combine), s
//   phi      achieved FLOP per SM clock cycle of the family (whole GPU); f the SM clock in
//            force, so a power-capped clock lowers the compute ceiling in proportion
//   W        achieved DRAM bandwidth of the family, B/s
//   t_floor  per-call floor: when the host issues calls more slowly than the device runs them
//            (eager PyTorch), the stream drains and a call costs the host's issue time
//   F_eff    FLOP as the kernel computes them: grouped GEMMs pad every group's rows up to the
//            M tile (`tile_rows`); causal prefill computes whole diagonal blocks
//            (`causal_block_keys` extra keys per query); dense GEMMs of a known kernel tile
//            compute whole waves of tiles (`whole_waves`); FlashAttention-2 decode without
//            split-KV computes 128-row tiles (`decode_tile_rows`); otherwise F.
//   The fit (analysis/calibration.hpp) holds phi x f and W under the calibration's ceilings.
// Every parameter is a physical quantity with a unit; the fit reports its residuals.

#include <algorithm>    // std::max, std::min, std::find
#include <cmath>        // std::ceil, std::floor, std::isfinite, std::isnan, std::pow
#include <cstdint>      // std::uint8_t
#include <cstdio>       // std::snprintf
#include <iterator>     // std::size
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/power.hpp"

namespace roofline {

/// Kernel families a calibration fits an efficiency curve for (GEMM curves per rate class).
enum class kernel_family : std::uint8_t { gemm, grouped_gemm, attention_prefill, attention_decode, copy };

inline constexpr std::size_t kernel_family_count = 5;

/// "gemm", "grouped_gemm", "attention_prefill", "attention_decode", "copy".
constexpr std::string_view to_string(kernel_family f) {
    switch (f) {
        case kernel_family::gemm: return "gemm";
        case kernel_family::grouped_gemm: return "grouped_gemm";
        case kernel_family::attention_prefill: return "attention_prefill";
        case kernel_family::attention_decode: return "attention_decode";
        case kernel_family::copy: return "copy";
    }
    return "?";
}

/// Parses a family name (as `to_string` writes it); nullopt when unknown.
constexpr std::optional<kernel_family> parse_kernel_family(std::string_view s) {
    for (auto f : {kernel_family::gemm, kernel_family::grouped_gemm, kernel_family::attention_prefill,
                   kernel_family::attention_decode, kernel_family::copy})
        if (to_string(f) == s) return f;
    return std::nullopt;
}

/// The library that ran a kernel, normalised: "flash", "cudnn", "mem_efficient", "math"
/// (SDPA backends), "nvjet", "cublas", "cutlass", "triton" (GEMM), or "" when unknown. Accepts
/// PyTorch's `SDPBackend.FLASH_ATTENTION` spellings, short names, and kernel names as profilers
/// record them (`nvjet_hsh_...`, `cutlass::Kernel2<...>`, `triton_tem_fused_mm`,
/// `flash_fwd_kernel`, `cudnn_generated_fort_native_sdpa_sm90_...`, `fmha_cutlassF_...`,
/// `sm90_xmma_gemm_...`): the names as NVIDIA's and PyTorch's libraries print them.
inline std::string normalize_kernel_backend(std::string_view name) {
    std::string s;
    for (char c : name) s.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    const auto has = [&](std::string_view x) { return s.find(x) != std::string::npos; };
    if (s.empty()) return "";
    if (has("cudnn")) return "cudnn";
    if (has("efficient") || has("fmha_cutlass") || has("mem_eff")) return "mem_efficient";
    if (has("flash")) return "flash";
    if (s == "math" || has("sdpbackend.math") || has("overrideable")) return "math";
    if (has("nvjet")) return "nvjet";
    if (has("triton")) return "triton";
    if (has("cutlass")) return "cutlass";
    if (has("cublas") || has("xmma_gemm") || has("gemm_sm90") || has("sm90_xmma") || has("ampere_") || has("gemmk1"))
        return "cublas";
    return "";
}

/// The library a backend (`normalize_kernel_backend`) belongs to: cuBLAS runs its GEMMs on
/// Hopper and Blackwell as `nvjet_*` kernels (the names profilers record, and so the backend a
/// curve fitted to them carries), so "nvjet" and "cublas" are one library; every other backend
/// is its own.
inline std::string_view kernel_library(std::string_view backend) { return backend == "nvjet" ? "cublas" : backend; }

/// The backends a kernel of family `f` can run on (what `roofline kernel --backend` accepts):
/// GEMM nvjet, cublas, cutlass, triton; grouped GEMM cutlass (PyTorch's `_grouped_mm`), triton;
/// attention flash, cudnn, mem_efficient, math (PyTorch's SDPA backends); a copy none.
inline std::vector<std::string_view> kernel_backends(kernel_family f) {
    switch (f) {
        case kernel_family::gemm: return {"nvjet", "cublas", "cutlass", "triton"};
        case kernel_family::grouped_gemm: return {"cutlass", "triton"};
        case kernel_family::attention_prefill:
        case kernel_family::attention_decode: return {"flash", "cudnn", "mem_efficient", "math"};
        case kernel_family::copy: return {};
    }
    return {};
}

/// A backend as a user types it, normalised: a name `normalize_kernel_backend` returns, in any
/// case ("cuBLAS", "FLASH"), or one of the libraries' own spellings ("cublasLt",
/// "SDPBackend.FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "SDPBackend.MATH");
/// "" for anything else (a kernel name's substring is not a backend name).
inline std::string parse_kernel_backend(std::string_view name) {
    std::string s;
    for (char c : name) s.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    if (s.rfind("sdpbackend.", 0) == 0) s.erase(0, 11);
    if (s == "cublaslt") return "cublas";
    if (s == "flash_attention") return "flash";
    if (s == "efficient_attention") return "mem_efficient";
    if (s == "cudnn_attention") return "cudnn";
    const std::string n = normalize_kernel_backend(s);
    return n == s ? n : std::string();
}

/// What a calibrated curve needs to know about one kernel besides its family.
struct kernel_features {
    kernel_family family = kernel_family::gemm;
    peak_key peak = peak_key::bf16;  ///< rate class of its matrix math
    std::string backend;             ///< library that ran it (`normalize_kernel_backend`), "" unknown
    double flops = 0;                ///< useful FLOP
    double dram_bytes = 0;           ///< minimum DRAM bytes
    /// Grouped GEMM: rows of every group that has any (tokens routed to an expert), and the
    /// FLOP of one row (2 n k); the curve pads each group to its M tile.
    std::vector<double> group_rows;
    double flops_per_row = 0;
    double group_count = 0;  ///< grouped GEMM: groups the kernel was given, empty ones included (0: unknown)
    double group_n = 0;      ///< grouped GEMM: output columns of every group (0: unknown)
    /// Prefill: queries per sequence and the causal mask (the published attention figures are
    /// by sequence length).
    double seq_len = 0;
    bool causal = false;
    /// Causal prefill: FLOP of one extra key for every query (4 d x query heads x queries,
    /// summed over sequences); the curve adds `causal_block_keys` of them.
    double flops_per_diagonal_key = 0;
    /// Decode: query rows one CTA of FlashAttention-2's decode path computes (GQA group x queries
    /// per sequence), the CTAs (sequences x KV heads) and the GPU's SM count (0: unknown).
    double decode_rows = 0, decode_ctas = 0, sm_count = 0;
    double decode_keys = 0;  ///< decode: keys per sequence (useful FLOP / (4 d x heads x sequences))
    double decode_head_dim = 0;  ///< decode: head dimension d (0: unknown)
    /// Dense GEMM: its shape (M rows of the activation, N output columns, K reduction; 0 unknown),
    /// and the CTA tile of the kernel that ran, rows along M x columns along N (0: unknown), with
    /// whether it splits K (a reduction kernel follows): from its name (`parse_nvjet_tile`). With
    /// `sm_count` known, the uncalibrated model quantises the GEMM's tiles into waves.
    double gemm_m = 0, gemm_n = 0, gemm_k = 0;
    double tile_rows = 0, tile_cols = 0;
    bool split_k = false;
};

/// FlashAttention-2's decode path (PyTorch's flash backend, flash_api.cpp) runs `k` without
/// split-KV: one query per sequence with GQA is run as the group's query rows per KV head
/// ("seqlenq_ngroups_swapped"), and `num_splits_heuristic` (given twice the SM count) splits the
/// keys only below 0.8 x 2 x SMs CTAs (sequences x KV heads). False when the shape or SM count is
/// unknown or the backend is not "flash"; `run_by` is the backend assumed when `k`'s is unknown
/// (a calibrated curve prices such a kernel as its own backend runs it).
inline bool flash_decode_whole_tiles(const kernel_features& k, std::string_view run_by = {}) {
    const std::string_view b = k.backend.empty() ? run_by : std::string_view(k.backend);
    return k.family == kernel_family::attention_decode && b == "flash" && k.decode_rows > 0 && k.sm_count > 0 &&
           k.decode_ctas >= 0.8 * 2 * k.sm_count;
}

/// FlashAttention-2's decode M tile: Flash_fwd_kernel_traits<128, 128, 64, 4>, the kernel names
/// of our H200 recordings (data/samples/h200-stacks/ncu-graph_decode_b128/README.md).
inline constexpr double fa2_decode_tile_rows = 128;

/// Computed over useful FLOP of a decode whose `k.decode_rows` query rows per KV head run in whole
/// tiles of `tile_rows` rows (>= 1); 1 when either is unknown (<= 0).
inline double decode_tile_padding(const kernel_features& k, double tile_rows) {
    if (!(tile_rows > 0) || !(k.decode_rows > 0)) return 1.0;
    return std::ceil(k.decode_rows / tile_rows - 1e-9) * tile_rows / k.decode_rows;
}

/// FlashAttention-2's split-KV decode: below that CTA count, and with at least two key blocks
/// (block_n = 256 for d <= 64, 128 for d <= 128, else 64), the keys are split across CTAs and
/// `flash_fwd_splitkv_combine_kernel` merges the partial outputs after `flash_fwd_splitkv_kernel`
/// (both names in our H200 recordings): two kernels.
inline bool flash_decode_splits_kv(const kernel_features& k, std::string_view run_by = {}) {
    const std::string_view b = k.backend.empty() ? run_by : std::string_view(k.backend);
    if (!(k.family == kernel_family::attention_decode && b == "flash" && k.decode_rows > 0 &&
          k.sm_count > 0 && k.decode_ctas < 0.8 * 2 * k.sm_count && k.decode_head_dim > 0 && k.decode_keys > 0))
        return false;
    const double block_n = k.decode_head_dim <= 64 ? 256 : k.decode_head_dim <= 128 ? 128 : 64;
    return std::ceil(k.decode_keys / block_n - 1e-9) >= 2;
}

/// A kernel that runs as two, the second merging partial results: a split-K GEMM (cuBLAS's
/// reduction kernel follows) or FlashAttention-2's split-KV decode (its combine kernel).
inline bool is_split_kernel(const kernel_features& k, std::string_view run_by = {}) {
    return (k.family == kernel_family::gemm && k.split_k) || flash_decode_splits_kv(k, run_by);
}

/// CTA tile of a dense GEMM kernel as the caller's row-major problem sees it: `rows` along M (the
/// activation's rows), `cols` along N (output columns), and whether the kernel splits K.
struct gemm_kernel_tile {
    double rows = 0, cols = 0;
    bool split_k = false;
};

/// FLOP a dense GEMM of shape (m, n, k) computes under tile `t` on `sms` SMs, counted in whole
/// waves: ceil(ceil(m / rows) ceil(n / cols) / sms) waves of `sms` tiles of 2 rows cols k FLOP.
/// Every SM computes one tile at a time at 1/sms of the GPU's rate, so a partial last wave takes
/// as long as a full one and a grid of fewer CTAs than SMs leaves the rest idle: the names' K tile
/// x stages fill most of an SM's shared memory (64x8 tile, K 64, 16 stages: 16 x 72 x 64 x 2 B =
/// 147 KB; 128x128, K 64, 6 stages: 196 KB; of 228 KB on SM90), so one CTA runs per SM. Cluster
/// placement is not modelled. The useful FLOP 2 m n k when anything is unknown or the kernel
/// splits K (its split count is not in the name).
inline double wave_quantized_gemm_flops(double m, double n, double k, const gemm_kernel_tile& t, double sms) {
    const double useful = 2.0 * m * n * k;
    if (!(m > 0) || !(n > 0) || !(k > 0) || !(t.rows > 0) || !(t.cols > 0) || !(sms >= 1) || t.split_k) return useful;
    const double ctas = std::ceil(m / t.rows - 1e-9) * std::ceil(n / t.cols - 1e-9);
    const double waves = std::ceil(ctas / sms - 1e-9);
    return std::max(useful, waves * sms * 2.0 * t.rows * t.cols * k);
}

/// Residuals of a fitted curve (relative errors |t_pred - t| / t over its points).
struct curve_fit_report {
    std::size_t points = 0;
    double median_abs_error = std::numeric_limits<double>::quiet_NaN();  ///< in sample
    double p90_abs_error = std::numeric_limits<double>::quiet_NaN();     ///< in sample
    /// Held out: each point predicted by a curve fitted without it (k-fold, `cv_folds`).
    double cv_median_abs_error = std::numeric_limits<double>::quiet_NaN();
    double cv_p90_abs_error = std::numeric_limits<double>::quiet_NaN();
    int cv_folds = 0;
    std::size_t floor_points = 0, compute_points = 0, memory_points = 0;  ///< regime of each point
    std::string source;  ///< input files and record counts
    /// Rates the fit held at a ceiling because the data put them above it ("" when none), e.g.
    /// "bandwidth held at the DRAM ceiling".
    std::string capped;
};

/// A fitted efficiency curve of one kernel family and rate class (see the file comment).
/// NaN `flops_per_clock` / `bytes_per_s`: not identified by the data (no point was bound by
/// that roof); the ceilings' value is used instead.
struct kernel_curve {
    kernel_family family = kernel_family::gemm;
    peak_key peak = peak_key::bf16;
    std::string backend;         ///< library the points ran (`normalize_kernel_backend`); "" = the op family
    double fixed_latency_s = 0;  ///< t_fixed
    double flops_per_clock = std::numeric_limits<double>::quiet_NaN();  ///< phi, FLOP per SM cycle
    double bytes_per_s = std::numeric_limits<double>::quiet_NaN();      ///< W
    /// Host floor: the least wall time of one eager call (host issue time), s; 0: none. Fitted
    /// separately from the device terms (points on it do not inform them) and never part of
    /// the device time: `device_time_s` is what a profiler records and a graph replay costs.
    double floor_s = 0;
    double tile_rows = 0;          ///< grouped GEMM M tile (0: no padding)
    double causal_block_keys = 0;  ///< causal prefill: extra keys per query (0: none)
    /// Dense GEMM: F_eff counts whole waves of the kernel's CTA tiles where the kernel's tile,
    /// shape and SM count are known (`wave_quantized_gemm_flops`), as the uncalibrated model does.
    bool whole_waves = false;
    /// FlashAttention-2 decode without split-KV: its query rows per KV head computed in M tiles
    /// of this many rows (`flash_decode_whole_tiles`; 128 in PyTorch's build), 0: not padded.
    double decode_tile_rows = 0;
    /// Device time a split kernel (`is_split_kernel`: split-K GEMM, split-KV decode) adds beyond
    /// `fixed_latency_s` (its reduction or combine kernel), s; 0: none fitted.
    double split_extra_s = 0;
    /// Whether the fitted points carried the SM clock they ran at. false: none did, phi was
    /// fitted at the maximum clock, so phi x maximum clock is the rate measured at the sweep's
    /// own clocks under its power limit; a power model's clock must not lower it a second time
    /// (`power_capped_clock_hz` returns the maximum clock for such a curve).
    bool clocks_recorded = true;
    curve_fit_report fit;

    /// F_eff of `k` under this curve's padding.
    double effective_flops(const kernel_features& k) const {
        double f = k.flops;
        if (whole_waves && k.family == kernel_family::gemm && k.tile_rows > 0 && k.tile_cols > 0 && k.sm_count >= 1 &&
            !k.split_k && k.gemm_m > 0 && k.gemm_n > 0 && k.gemm_k > 0)
            f = std::max(f, wave_quantized_gemm_flops(k.gemm_m, k.gemm_n, k.gemm_k,
                                                      gemm_kernel_tile{k.tile_rows, k.tile_cols, false}, k.sm_count) *
                                (k.flops / (2.0 * k.gemm_m * k.gemm_n * k.gemm_k)));
        if (decode_tile_rows > 0 && flash_decode_whole_tiles(k, backend)) f *= decode_tile_padding(k, decode_tile_rows);
        if (tile_rows > 0 && !k.group_rows.empty() && k.flops_per_row > 0) {
            double padded = 0;
            for (double m : k.group_rows)
                if (m > 0) padded += std::ceil(m / tile_rows - 1e-9) * tile_rows;
            f = padded * k.flops_per_row;
        }
        if (causal_block_keys > 0) f += causal_block_keys * k.flops_per_diagonal_key;
        return f;
    }
    /// Compute time of `k` at SM clock `clock_hz`: F_eff / (phi f), or F_eff / the ceiling of
    /// `fallback` when phi is not identified.
    double compute_time_s(const kernel_features& k, double clock_hz, const ceilings& fallback) const {
        const double f = effective_flops(k);
        if (f <= 0) return 0.0;
        if (std::isfinite(flops_per_clock) && flops_per_clock > 0) return f / (flops_per_clock * clock_hz);
        return detail::priced_or_throw(f, fallback.flops_at(k.peak), std::string(to_string(k.peak)).c_str());
    }
    /// Memory time of `k`: B / W, or B / the DRAM ceiling of `fallback` when W is not identified.
    double memory_time_s(const kernel_features& k, const ceilings& fallback) const {
        if (k.dram_bytes <= 0) return 0.0;
        const double w = std::isfinite(bytes_per_s) && bytes_per_s > 0 ? bytes_per_s
                                                                          : fallback.bytes_at(memory_level::dram);
        return detail::priced_or_throw(k.dram_bytes, w, "DRAM bandwidth");
    }
    /// Fixed device time of `k`: t_fixed, plus `split_extra_s` for a split kernel.
    double fixed_time_s(const kernel_features& k) const {
        return fixed_latency_s + (split_extra_s > 0 && is_split_kernel(k, backend) ? split_extra_s : 0.0);
    }
    /// Device time: t_fixed (+ split-K extra) + max(compute, memory).
    double device_time_s(const kernel_features& k, double clock_hz, const ceilings& fallback) const {
        return fixed_time_s(k) + std::max(compute_time_s(k, clock_hz, fallback), memory_time_s(k, fallback));
    }
    /// Wall time per eager call: max(t_floor, launch_s + device time), with `launch_s` the launch
    /// gap between back-to-back eager kernels (0 in the fit, whose times are device times).
    double time_s(const kernel_features& k, double clock_hz, const ceilings& fallback, double launch_s = 0) const {
        return std::max(floor_s, launch_s + device_time_s(k, clock_hz, fallback));
    }
};

/// Fractions of datasheet ceilings that production kernels reach, and the launch floor.
///  * tensor 0.75: the middle of the 0.72-0.80 of dense BF16/FP8 peak that torch/cuBLAS reach on
///    H100, H200, B200, GB200 and B300 (stas00/ml-engineering MAMF table; HARDWARE.md section 6);
///    FP8 GEMMs on compute capability 9 reach 0.883 of it (`fp8_gemm_rate_vs_bf16`, applied by
///    `price_kernel_as_run`);
///  * vector 1.0: B300 FFMA measured at 99% of peak (HARDWARE.md section 6);
///  * dram 0.90: H200 device-to-device copy 4.3 of 4.8 TB/s (device/KINDS.md, and 4.28 TB/s in
///    our sweep), B300 HBM read 0.95 of post-ECC peak (HARDWARE.md section 6);
///  * kernel fixed 0.86 us: the device time of one tiny kernel (x.add_(1) on one element) replayed
///    from a 1,000-kernel CUDA graph on our H200 (data/measurements/h200/kernels.json,
///    tiny_kernel_graph): what every kernel's duration contains beyond its bytes and FLOP (a
///    1 MB copy replays in 1.4 us: 0.86 + 2.1 MB / 4.3 TB/s = 1.35 us);
///  * launch floor 5 us: the host side, one back-to-back eager launch of a small kernel (our H200
///    sweep: a 1 MiB copy takes 5.7 us between events, of which 4.4 us is the gap an empty kernel
///    shows too); a separate term for eager callers, not part of any kernel's duration;
///  * graph launch floor 0.52 us: one empty kernel replayed from a 1,000-kernel CUDA graph on our
///    H200 (data/measurements/h200/ceilings.json, graph_empty_kernel; a tiny PyTorch add_ takes
///    0.86 us), what graph-replayed serving steps pay per kernel.
/// `curves`: fitted per-family curves from a calibration (empty by default); where one
/// matches a kernel it replaces the fractions for that kernel (`calibrated_kernel_time`).
struct kernel_efficiency {
    double tensor = 0.75;
    double vector = 1.0;
    double dram = 0.90;
    double kernel_fixed_s = 0.86e-6;
    double launch_floor_s = 5e-6;
    double graph_launch_floor_s = 0.52e-6;
    std::string source =
        "tensor 0.75 (torch/cuBLAS reach 0.72-0.80 of dense peak, HARDWARE.md 6); dram 0.90 (H200 copy 4.3 of "
        "4.8 TB/s); kernel fixed 0.86 us (H200 graph-replayed tiny kernel); eager launch floor 5 us, separate";
    std::vector<kernel_curve> curves;

    /// The curve for a kernel of family `f`, rate class `k`, run by `backend`; nullptr when none.
    /// A curve fitted to a known backend prices that backend only (a flash-attention curve does
    /// not price cuDNN's kernel: 1.7x apart on H200 prefill); a curve fitted to kernels of unknown
    /// backend is the op family's, used when no curve of the kernel's own backend exists; a
    /// kernel of unknown backend ("") takes its backend-less curve first, else any of its family.
    /// Backends of one library (`kernel_library`: nvjet is cuBLAS) share curves, the exact
    /// backend first: a cuBLAS GEMM takes the curve fitted to nvjet kernels.
    /// Copy and attention curves match any rate class when only one was fitted.
    const kernel_curve* curve_for(kernel_family f, peak_key k, std::string_view backend = {}) const {
        const kernel_curve* best = nullptr;
        int best_score = -1;
        for (const auto& c : curves) {
            if (c.family != f) continue;
            const bool same_peak = c.peak == k;
            if (!same_peak && (f == kernel_family::gemm || f == kernel_family::grouped_gemm)) continue;
            if (!backend.empty() && !c.backend.empty() && kernel_library(c.backend) != kernel_library(backend)) continue;
            const int score = (same_peak ? 8 : 0) +
                              (c.backend == backend ? 3 : (!c.backend.empty() && !backend.empty() ? 2 : 0)) +
                              (c.backend.empty() ? 1 : 0);
            if (score > best_score) best_score = score, best = &c;
        }
        return best;
    }
    /// The curve for `k` (its family, rate class and backend).
    const kernel_curve* curve_for(const kernel_features& k) const { return curve_for(k.family, k.peak, k.backend); }
};

/// Datasheet ceilings derated by `e`: tensor and vector peaks and DRAM bandwidth scaled, launch
/// latency set to the device-side cost of one kernel (`kernel_fixed_s`); links, L2 and latency
/// terms unchanged.
inline ceilings achievable(ceilings c, const kernel_efficiency& e = {}) {
    for (auto k : all_peak_keys) c.flops_at(k) *= is_tensor(k) ? e.tensor : e.vector;
    c.bytes_at(memory_level::dram) *= e.dram;
    c.launch_latency_s = e.kernel_fixed_s;
    c.origin += " x efficiency";
    return c;
}

/// Wall time of one eager call of a kernel of device time `device_s`: the host launches it
/// `e.launch_floor_s` after the previous one at best, so max(device, floor) per call when the
/// host keeps up (a separate term: the trace analysis sees the real gaps and never adds it).
inline double eager_call_time_s(double device_s, const kernel_efficiency& e = {}) {
    return std::max(device_s, e.launch_floor_s);
}

/// Measured L2 bandwidth of GPUs whose datasheet gives none, B/s (read, whole GPU), by catalog
/// id prefix; NaN when not measured. H200: 8.20 TB/s, 24 MiB read 64 times by 1,056 blocks
/// (data/measurements/h200/ceilings.json, l2_read, this project).
inline double measured_l2_bytes_per_s(const std::string& gpu_id) {
    if (gpu_id.rfind("h200", 0) == 0) return 8.201344e12;
    return std::numeric_limits<double>::quiet_NaN();
}

/// True when a working set of `bytes` is served from L2 on repeated use: at most 70% of the L2 of
/// `l2_bytes`. The threshold comes from our H200: a 16 MB copy (32 MB touched, 64% of the 50 MB
/// L2) runs at 6.1 TB/s back to back, above the 4.8 TB/s of HBM (issue 13's graph-replayed
/// sweep); L2 holds more than the working set (code, descriptors, the other partition's copies),
/// so a set near the whole L2 is not resident.
inline bool fits_in_l2(double bytes, double l2_bytes) { return l2_bytes > 0 && bytes > 0 && bytes <= 0.7 * l2_bytes; }

/// The workload of a device copy of `bytes` (read and written): DRAM bytes, or L2 bytes when
/// `l2_resident` (the same buffers copied back to back and `fits_in_l2`).
inline workload copy_workload(double bytes, bool l2_resident) {
    workload w;
    w.bytes_at(l2_resident ? memory_level::l2 : memory_level::dram) = 2.0 * bytes;
    w.launches = 1;
    return w;
}

/// Lower bound at `datasheet` and prediction at `used` (usually `achievable(datasheet)`). Read
/// it through the accessors: `predicted_s()` and `predicted_bound()` (the roof that sets the
/// prediction: what `kt.predicted.predicted` spells), `lower_bound_s()` and `datasheet_bound()`.
struct kernel_time {
    roof_times lower_bound;  ///< every term at the datasheet ceilings
    roof_times predicted;    ///< every term at the ceilings used (achievable, or calibrated)
    double lower_bound_s() const { return lower_bound.lower_bound_s; }
    double predicted_s() const { return predicted.lower_bound_s; }
    /// The bound of the prediction: compute, memory, communication or latency.
    bound predicted_bound() const { return predicted.predicted; }
    /// The bound at the datasheet ceilings (it can differ from `predicted_bound` near a ridge).
    bound datasheet_bound() const { return lower_bound.predicted; }
};

/// Prices `w`: lower bound at `datasheet`, prediction at `used`.
inline kernel_time price_kernel(const workload& w, const ceilings& datasheet, const ceilings& used) {
    return {time_lower_bound(w, datasheet), time_lower_bound(w, used)};
}

// --- features of the kernels `roofline kernel` prices ----------------------------------------

/// Features of a dense GEMM workload (`gemm_workload`): its FLOP at `peak` and DRAM bytes.
inline kernel_features gemm_features(const workload& w, peak_key peak) {
    kernel_features k;
    k.family = kernel_family::gemm;
    k.peak = peak;
    k.flops = w.flops_at(peak);
    k.dram_bytes = w.dram_bytes();
    return k;
}

/// Features of one grouped GEMM over groups of `rows[e]` rows, each against its own [k x n]
/// weight matrix (`grouped_gemm_workload`): FLOP 2 sum(rows) n k, rows per non-empty group for
/// tile padding, and the workload's DRAM bytes.
inline kernel_features grouped_gemm_features(const std::vector<double>& rows, double n, double k,
                                             const workload& w, peak_key peak) {
    kernel_features f;
    f.family = kernel_family::grouped_gemm;
    f.peak = peak;
    f.flops = w.flops_at(peak);
    f.dram_bytes = w.dram_bytes();
    f.flops_per_row = 2.0 * n * k;
    f.group_count = static_cast<double>(rows.size());
    f.group_n = n;
    for (double m : rows)
        if (m > 0) f.group_rows.push_back(m);
    return f;
}

/// Rows per active group under uniform routing: `active` groups (the expected number of
/// experts with tokens) sharing `total_rows` rows equally. The expectation `E (1 - (1-k/E)^T)`
/// is fractional; its whole part gets the mean, the fraction one more group in proportion.
inline std::vector<double> uniform_group_rows(double total_rows, double active) {
    std::vector<double> out;
    if (!(total_rows > 0) || !(active > 0)) return out;
    const double whole = std::floor(active), frac = active - whole;
    const double mean = total_rows / active;
    for (int i = 0; i < static_cast<int>(whole); ++i) out.push_back(mean);
    if (frac > 1e-9) out.push_back(mean * frac);
    return out;
}

/// Features of an attention workload (`attention_workload`) of `batch` sequences of `q_len`
/// queries over `kv_len` keys with `heads` query heads of dimension `head_dim`: decode when
/// q_len == 1, else prefill; causal prefill gets its diagonal-block FLOP per extra key
/// (4 d x heads x queries x sequences). Decode with `kv_heads` (> 0) and the GPU's `sm_count`
/// known also records FlashAttention-2's decode tiling (`decode_rows`, `decode_ctas`,
/// `decode_keys`, `decode_head_dim`).
inline kernel_features attention_features(const workload& w, peak_key math, double batch, double q_len,
                                          double heads, double head_dim, bool causal, double kv_heads = 0,
                                          double sm_count = 0) {
    kernel_features k;
    k.family = q_len <= 1 ? kernel_family::attention_decode : kernel_family::attention_prefill;
    k.peak = math;
    k.flops = w.total_flops();
    k.dram_bytes = w.dram_bytes();
    if (causal && q_len > 1) k.flops_per_diagonal_key = 4.0 * head_dim * heads * q_len * batch;
    if (q_len > 1) k.seq_len = q_len;
    k.causal = causal && q_len > 1;
    if (q_len <= 1 && kv_heads > 0 && heads >= kv_heads) {
        k.decode_rows = heads / kv_heads * q_len;
        k.decode_ctas = batch * kv_heads;
        k.sm_count = sm_count;
        if (head_dim > 0 && heads > 0 && batch > 0) k.decode_keys = k.flops / (4.0 * head_dim * heads * batch * q_len);
        k.decode_head_dim = head_dim;
    }
    return k;
}

/// Features of a device copy of `bytes` (read and written).
inline kernel_features copy_features(double bytes) {
    kernel_features k;
    k.family = kernel_family::copy;
    k.dram_bytes = 2.0 * bytes;
    return k;
}

// --- the uncalibrated model: what the kernel that runs is known to do ------------------------
//
// Facts per kernel beyond the roofline, none fitted to any measurement of ours:
//  * grouped GEMM tile quantisation (structural): the kernel computes whole CTA tiles, and
//    PyTorch's grouped GEMM rounds each group's M tiles up to its thread-block cluster;
//  * attention prefill throughput (published): FlashAttention-2 and cuDNN reach about a third
//    and a half of the dense tensor peak (FlashAttention-3 paper), not the 0.75 GEMMs reach;
//  * FlashAttention-2 decode tiles (structural + published): a GQA group's query rows fill a
//    128-row tile, computed whole at FA2's published rate (without split-KV; with it, a second,
//    combine kernel);
//  * dense GEMM waves (structural, where the kernel that ran is known by name): whole tiles in
//    whole waves over the SMs (`wave_quantized_gemm_flops`); a split-K kernel is two kernels;
//  * Hopper FP8 GEMM rate (published): FP8 reaches 0.883 of BF16's fraction of peak on compute
//    capability 9 (`fp8_gemm_rate_vs_bf16`);
//  * grouped GEMM loads and math in series (measured mechanism, no parameter): PyTorch's CUTLASS
//    grouped GEMM does not hide its weight loads behind its (padded) tile math. Nsight Compute on
//    our H200 (data/samples/h200-stacks/ncu-grouped_gemm) shows both roofs half used at once:
//    DRAM at 47-69% of peak with the tensor pipe 29-42% busy on the padded tiles, the bytes moved
//    equal to the modeled bytes within 3%, warps waiting on loads; so its time is the DRAM time
//    plus the tensor time (`grouped_gemm_in_series`), not the larger of the two;
//  * a cuBLAS GEMM kernel's fixed device time (measured apart from both validation sweeps): 3.2 us
//    per kernel, 7.7 us per split-K pair, where its kernel is known by name
//    (`cublas_gemm_fixed_s`, data/samples/h200-stacks/gemv_fixed_time).
// `price_kernel_as_run` applies them; the lower bound stays on the useful work.

/// CTA tile and cluster of a grouped GEMM kernel (rows x columns), and its name.
struct grouped_gemm_tiling {
    double tile_m = 0, tile_n = 0, cluster_m = 1;
    std::string_view kernel;
    /// Rows a group of `rows` computes: whole clusters of M tiles, ceil(rows / (tile_m cluster_m))
    /// x tile_m cluster_m; 0 for an empty group.
    double padded_rows(double rows) const {
        const double step = tile_m * cluster_m;
        return rows > 0 && step > 0 ? std::ceil(rows / step - 1e-9) * step : (rows > 0 ? rows : 0.0);
    }
    /// Columns computed for `n` output columns: whole N tiles.
    double padded_cols(double n) const { return n > 0 && tile_n > 0 ? std::ceil(n / tile_n - 1e-9) * tile_n : n; }
};

/// The tile of a cuBLAS `nvjet` kernel from its name, as profilers record it
/// (`nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT`, `nvjet_sm90_qqtst_128x160_128x5_2x1_v_bz_coopA_algo2_TNT`,
/// `..._splitK_TNT`): the first field AxB after the kernel family is the CTA tile in cuBLAS's
/// column-major (m, n), then the K tile x pipeline stages, then the cluster. PyTorch computes a
/// row-major C = A B as its column-major transpose C^T = B^T A^T (aten/src/ATen/native/cuda/Blas.cpp,
/// `prepare_matrix_for_cublas(..., transpose_result)`), so cuBLAS's m is PyTorch's N: the tile is
/// B along M x A along N (in our H200 sweeps M = 3, 24, 96 run tiles 64x8, 64x24, 64x96, and
/// cuBLAS's larger tiles give whole waves of 132 CTAs only read this way). "splitK" in the name:
/// the K loop is split across CTAs and `cublasLt::splitKreduce_kernel` runs after it. nullopt when
/// the name is not an nvjet GEMM with a tile.
inline std::optional<gemm_kernel_tile> parse_nvjet_tile(std::string_view name) {
    const auto at = name.find("nvjet_");
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view s = name.substr(at);
    // The first "<digits>x<digits>" field after the family name (sm90_tst_, sm90_qqtst_, hsh_, ...).
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '_' || i + 1 >= s.size() || s[i + 1] < '0' || s[i + 1] > '9') continue;
        std::size_t j = i + 1;
        double a = 0, b = 0;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') a = a * 10 + (s[j++] - '0');
        if (j >= s.size() || s[j] != 'x' || j + 1 >= s.size() || s[j + 1] < '0' || s[j + 1] > '9') continue;
        ++j;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') b = b * 10 + (s[j++] - '0');
        if (j < s.size() && s[j] != '_') continue;
        if (!(a > 0) || !(b > 0)) return std::nullopt;
        gemm_kernel_tile t;
        t.cols = a;
        t.rows = b;
        t.split_k = s.find("splitK") != std::string_view::npos;
        return t;
    }
    return std::nullopt;
}

/// Throughput of an FP8 GEMM relative to a BF16 GEMM on compute capability 9 (Hopper), as a
/// fraction of each one's dense peak: 0.883 = 70.9% / 80.3%, the MAMF of torch FP8
/// (`torch._scaled_mm`, default accumulation) and BF16 matmul measured on the same H100 SXM with
/// the same torch 2.7.0 (stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable
/// Matmul FLOPS comparison table", commit 744d01e; HARDWARE.md section 6). Hopper's FP8 tensor
/// cores accumulate at reduced precision, so FP8 GEMMs without fast accumulation promote partial
/// sums to FP32 on the CUDA cores every few K steps (DeepSeek-V3 technical report, arXiv
/// 2412.19437, section 3.3.2); on Blackwell the same table gives FP8 within 2-5% of BF16 (B200
/// 76.3 / 77.6, GB200 72.3 / 72.9, B300 74.5 / 78.6), so 1 elsewhere.
inline double fp8_gemm_rate_vs_bf16(int cc_major) { return cc_major == 9 ? 70.9 / 80.3 : 1.0; }

/// The tiling of PyTorch's grouped GEMM (`torch._grouped_mm`) on SM90, from its dispatch
/// (aten/src/ATen/native/cuda/GroupMM.cu, `dispatch_bf16_grouped_kernel_on_tile_size`): a 64x128x128
/// Pingpong kernel when the mean rows per group (total rows / groups, empty groups counted) or N
/// is at most 128, else a 128x256x64 Cooperative kernel; cluster 2x1x1 in both. CUTLASS's grouped
/// tile scheduler rounds every group's M tiles up to whole clusters
/// (cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp: `round_up(ctas_along_m, cluster_m)`), so a
/// group of one row computes 128 rows (256 with the Cooperative kernel). The kernel names in our
/// H200 sweeps (`KernelPtrArrayTmaWarpSpecializedPingpong` / `...Cooperative`) agree. On SM100
/// PyTorch runs 64x128x128 for every shape; other grouped GEMMs (Triton fused MoE) pad to their
/// own BLOCK_SIZE_M.
inline grouped_gemm_tiling torch_grouped_gemm_tiling(double mean_rows_per_group, double n, int cc_major = 9) {
    if (cc_major == 10 || mean_rows_per_group <= 128 || n <= 128) return {64, 128, 2, "64x128 Pingpong, cluster 2x1"};
    return {128, 256, 2, "128x256 Cooperative, cluster 2x1"};
}

/// FLOP a grouped GEMM computes under `t`: sum over non-empty groups of padded rows x padded
/// columns x 2k (from `flops_per_row` = 2 n k); the useful FLOP when the groups are not known.
inline double padded_grouped_gemm_flops(const kernel_features& k, const grouped_gemm_tiling& t) {
    if (k.group_rows.empty() || !(k.flops_per_row > 0)) return k.flops;
    const double col = k.group_n > 0 ? t.padded_cols(k.group_n) / k.group_n : 1.0;
    double rows = 0;
    for (double m : k.group_rows) rows += t.padded_rows(m);
    return rows * k.flops_per_row * col;
}

/// Forward attention throughput on H100 SXM5, BF16, head dimension 128, TFLOP/s, by sequence
/// length (queries = keys), read off Figure 5 of the FlashAttention-3 paper (Shah et al. 2024,
/// arXiv 2407.08608; batch x sequence = 16k tokens, 2,048 hidden): FlashAttention-2 (what
/// PyTorch's SDPA flash backend runs), cuDNN and FlashAttention-3, with and without the causal
/// mask. FLOP counted as the paper counts them (causal: half the pairs), as `attention_workload`.
/// The abstract's summary: FlashAttention-2 "35% utilization on the H100", FlashAttention-3 up
/// to 740 TFLOP/s (75%, head dimension 256).
struct published_attention_point {
    double seq;
    double fa2_causal, fa2, cudnn_causal, cudnn, fa3_causal, fa3;
};
inline constexpr published_attention_point fa3_paper_h100_hd128[] = {
    {512, 191, 309, 315, 497, 292, 467},    {1024, 260, 350, 410, 574, 423, 565},
    {2048, 298, 362, 484, 617, 521, 625},   {4096, 319, 368, 518, 609, 579, 638},
    {8192, 333, 370, 529, 600, 602, 646},   {16384, 335, 370, 539, 595, 616, 648},
};
/// H100 SXM5 dense BF16 peak the paper's fractions are of, FLOP/s (HARDWARE.md section 1).
inline constexpr double fa3_paper_h100_bf16_peak = 989.4e12;

/// Fraction of the dense tensor peak an attention prefill kernel of `backend` reaches at
/// `seq_len` queries per sequence (the paper's figure, linear in log2 of the length between its
/// points, its ends beyond them): "flash" is FlashAttention-2, "cudnn" cuDNN; any other or
/// unknown backend gets FlashAttention-3's, the best published kernel (serving engines run it on
/// Hopper). NaN when `seq_len` is not positive. The figures are H100's; applied to another GPU's
/// peak they are an assumption (its kernels differ).
inline double published_attention_fraction(std::string_view backend, bool causal, double seq_len) {
    if (!(seq_len > 0)) return std::numeric_limits<double>::quiet_NaN();
    const auto pick = [&](const published_attention_point& p) {
        if (backend == "flash") return causal ? p.fa2_causal : p.fa2;
        if (backend == "cudnn") return causal ? p.cudnn_causal : p.cudnn;
        return causal ? p.fa3_causal : p.fa3;
    };
    const auto& pts = fa3_paper_h100_hd128;
    constexpr std::size_t n = std::size(fa3_paper_h100_hd128);
    double tf = pick(pts[n - 1]);
    if (seq_len <= pts[0].seq) tf = pick(pts[0]);
    else
        for (std::size_t i = 1; i < n; ++i)
            if (seq_len <= pts[i].seq) {
                const double x = std::log2(seq_len / pts[i - 1].seq) / std::log2(pts[i].seq / pts[i - 1].seq);
                tf = pick(pts[i - 1]) + x * (pick(pts[i]) - pick(pts[i - 1]));
                break;
            }
    return tf * 1e12 / fa3_paper_h100_bf16_peak;
}

/// Device time of a cuBLAS GEMM kernel beyond its bytes and FLOP, s: the intercept t0 of
/// t = t0 + bytes / r through GEMV-like GEMMs (M = 8) of one kernel each, weights 5 MB to 1 GB,
/// CUDA-graph replayed on our H200 (data/samples/h200-stacks/gemv_fixed_time: t0 = 2.40, 3.10,
/// 3.30 and 3.37 us for four nvjet kernels, bf16 and fp8, the lines within 2%; median 3.2 us).
/// Shapes in neither validation sweep. A tiny `add_` kernel's 0.86 us (`kernel_efficiency`) is
/// what any kernel pays; a GEMM's prologue, first loads and epilogue cost this much. Measured on
/// H200 only: on another GPU it is an assumption (the note of `price_kernel_as_run` says so).
inline constexpr double cublas_gemm_fixed_s = 3.2e-6;
/// The same for a split-K GEMM kernel and its `splitKreduce_kernel` together: t0 = 5.76, 7.67
/// and 8.62 us for three such pairs in the same recording (median 7.7 us).
inline constexpr double cublas_split_k_pair_fixed_s = 7.7e-6;

/// `t` for a kernel that does not overlap its memory traffic with its math (PyTorch's CUTLASS
/// grouped GEMM: `price_kernel_as_run`): compute and memory times add, max(compute + memory,
/// link) + latency, where the roofline takes the larger. The bound named stays the larger term
/// (latency when it exceeds their sum). Unchanged when either time is zero.
inline void grouped_gemm_in_series(roof_times& t) {
    if (!(t.compute_s > 0) || !(t.memory_s > 0)) return;
    const double work = std::max(t.compute_s + t.memory_s, t.link_s);
    t.lower_bound_s = work + t.latency_s;
    if (t.latency_s > work) t.predicted = bound::latency;
    else if (t.link_s >= t.compute_s + t.memory_s) t.predicted = bound::communication;
    else t.predicted = t.compute_s >= t.memory_s ? bound::compute : bound::memory;
}

/// A prediction of the uncalibrated model, with what it applied beyond the roofline.
struct kernel_as_run {
    kernel_time time;
    double executed_flops = 0;  ///< FLOP the kernels compute (padding included)
    std::vector<std::string> notes;
};

/// Prices `w` (the useful work of the kernels `parts`) as those kernels run: each grouped GEMM
/// part of backend "cutlass" or unknown computes its padded tiles (`torch_grouped_gemm_tiling`
/// for compute capability `cc_major`) and is two kernels (PyTorch first launches
/// `prepare_grouped_gemm_data`, as our sweeps' profiles show), and an attention prefill part runs its matrix math at
/// `published_attention_fraction` of `datasheet`'s tensor peak, never above `used`'s tensor
/// ceiling: the published figures are fractions of the datasheet peak, so a calibrated GEMM
/// ceiling (on H200 measured under the 700 W cap, which full-rate GEMMs reach and attention
/// kernels do not) does not change them. Lower bound: `w` at
/// `datasheet`. An attention decode part of backend "flash" with its GQA shape and SM count known
/// (`attention_features`) and no split-KV computes whole 128-row tiles at FA2's published rate;
/// with split-KV it is two kernels (the split kernel and its combine kernel).
/// A dense GEMM part with its kernel tile, shape and SM count known computes whole waves of tiles
/// (`wave_quantized_gemm_flops`); a split-K one launches its reduction kernel too. A GEMM or
/// grouped GEMM part at the FP8 rate on compute capability 9 runs at `fp8_gemm_rate_vs_bf16` of
/// the FP8 ceiling of `used` when that ceiling is the uncalibrated one (datasheet x `e.tensor`; a
/// measured FP8 ceiling already holds it). Other parts, and kernels of other backends, are priced
/// as `price_kernel`.
inline kernel_as_run price_kernel_as_run(const workload& w, const std::vector<kernel_features>& parts,
                                         const ceilings& datasheet, const ceilings& used, const kernel_efficiency& e = {},
                                         int cc_major = 9) {
    kernel_as_run r;
    workload run = w;
    ceilings c = used;
    double attention_scale = 1.0;  // the slowest attention part's, once (parts share the ceilings)
    double fp8_scale = 1.0;  // Hopper FP8 GEMMs, on the uncalibrated FP8 ceiling only
    bool grouped_in_series = false;  // a CUTLASS grouped GEMM part: loads and math in series
    // Scale of `used`'s tensor ceiling that gives fraction `f` of the datasheet peak (f / e.tensor
    // when `used` is datasheet x e.tensor, or the datasheet peak is unknown).
    const auto published_scale = [&](double f, peak_key key) {
        const double peak = datasheet.flops_at(key), rate = used.flops_at(key);
        return std::isfinite(peak) && peak > 0 && std::isfinite(rate) && rate > 0 ? f * peak / rate : f / e.tensor;
    };
    for (const auto& k : parts) {
        // A dense GEMM whose kernel tile is known computes whole waves of tiles; a split-K kernel
        // is followed by its reduction kernel.
        if (k.family == kernel_family::gemm && k.tile_rows > 0 && k.tile_cols > 0) {
            const gemm_kernel_tile t{k.tile_rows, k.tile_cols, k.split_k};
            // A cuBLAS kernel's device time beyond its bytes and FLOP (`cublas_gemm_fixed_s`), in
            // place of one tiny kernel's.
            const double fixed = t.split_k ? cublas_split_k_pair_fixed_s : cublas_gemm_fixed_s;
            const double extra = std::max(0.0, fixed - (t.split_k ? 2 : 1) * c.launch_latency_s);
            if (extra > 0) {
                run.latency_s += extra;
                char buf[200];
                std::snprintf(buf, sizeof buf,
                              "GEMM: a cuBLAS %s's fixed device time %.1f us (H200 GEMV microbenchmark), not "
                              "%.2f us per kernel",
                              t.split_k ? "split-K kernel and reduction kernel" : "kernel", fixed * 1e6,
                              c.launch_latency_s * 1e6);
                r.notes.emplace_back(buf);
            }
            if (t.split_k) {
                run.launches += 1;  // cublasLt::splitKreduce_kernel
                r.notes.emplace_back("GEMM: split-K kernel, then cuBLAS's split-K reduction kernel (one more launch)");
            } else if (k.sm_count >= 1) {
                const double q = wave_quantized_gemm_flops(k.gemm_m, k.gemm_n, k.gemm_k, t, k.sm_count);
                const double useful = 2.0 * k.gemm_m * k.gemm_n * k.gemm_k;
                if (useful > 0 && q > useful * (1 + 1e-9)) {
                    run.flops_at(k.peak) += q - useful;
                    const double ctas =
                        std::ceil(k.gemm_m / t.rows - 1e-9) * std::ceil(k.gemm_n / t.cols - 1e-9);
                    char buf[240];
                    std::snprintf(buf, sizeof buf,
                                  "GEMM: %.0f CTAs of %.0fx%.0f (rows x columns) on %.0f SMs: %.0f wave(s), %.2fx the "
                                  "useful FLOP",
                                  ctas, t.rows, t.cols, k.sm_count, std::ceil(ctas / k.sm_count - 1e-9), q / useful);
                    r.notes.emplace_back(buf);
                }
            }
        }
        if ((k.family == kernel_family::gemm || k.family == kernel_family::grouped_gemm) && k.peak == peak_key::fp8 &&
            cc_major == 9 && e.tensor > 0 &&
            std::abs(used.flops_at(peak_key::fp8) - datasheet.flops_at(peak_key::fp8) * e.tensor) <=
                1e-9 * used.flops_at(peak_key::fp8) &&
            fp8_scale == 1.0) {
            fp8_scale = fp8_gemm_rate_vs_bf16(cc_major);
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "FP8 GEMM on compute capability 9: %.1f%% of the BF16 fraction of peak (published MAMF, "
                          "H100: 70.9%% FP8 against 80.3%% BF16)",
                          100 * fp8_scale);
            r.notes.emplace_back(buf);
        }
        if (k.family == kernel_family::grouped_gemm && (k.backend.empty() || k.backend == "cutlass") &&
            !k.group_rows.empty()) {
            double rows = 0;
            for (double m : k.group_rows) rows += m;
            const double groups = k.group_count > 0 ? k.group_count : static_cast<double>(k.group_rows.size());
            const auto t = torch_grouped_gemm_tiling(rows / groups, k.group_n, cc_major);
            const double padded = padded_grouped_gemm_flops(k, t);
            run.launches += 1;  // GroupMM.cu launches prepare_grouped_gemm_data<<<1, groups>>> before the GEMM
            if (!grouped_in_series)
                r.notes.emplace_back(
                    "grouped GEMM: weight loads and tile math in series, DRAM time + tensor time (Nsight Compute "
                    "on H200: both roofs half used at once)");
            grouped_in_series = true;
            if (padded > k.flops * (1 + 1e-9)) {
                run.flops_at(k.peak) += padded - k.flops;
                char buf[200];
                std::snprintf(buf, sizeof buf,
                              "grouped GEMM: %zu groups computed in whole tiles of PyTorch's grouped GEMM (%s): %.2fx "
                              "the useful FLOP",
                              k.group_rows.size(), std::string(t.kernel).c_str(), padded / k.flops);
                if (std::find(r.notes.begin(), r.notes.end(), buf) == r.notes.end()) r.notes.emplace_back(buf);
            }
        }
        // FlashAttention-2's decode without split-KV (`flash_decode_whole_tiles`) computes its
        // query rows in 128-row M tiles (Flash_fwd_kernel_traits<128, 128, 64, 4> in the kernel
        // names of our H200 recordings), at FA2's published rate on full tiles (the prefill figure
        // at that key count). Our Nsight Compute report of one such kernel shows the tensor pipe
        // 52% active for 5% of useful FLOP (data/samples/h200-stacks/ncu-graph_decode_b128/README.md).
        if (flash_decode_whole_tiles(k) && is_tensor(k.peak) && e.tensor > 0 && k.flops > 0) {
            const double padded = decode_tile_padding(k, fa2_decode_tile_rows);
            run.flops_at(k.peak) += k.flops * (padded - 1);
            const double f = published_attention_fraction("flash", false, k.decode_keys);
            if (std::isfinite(f) && f > 0) attention_scale = std::min(attention_scale, published_scale(f, k.peak));
            char buf[240];
            std::snprintf(buf, sizeof buf,
                          "attention decode by FlashAttention-2: %.0f query rows per KV head computed in 128-row tiles "
                          "(%.1fx the useful FLOP) at %.0f%% of the tensor peak (FlashAttention-3 paper, H100 figures)",
                          k.decode_rows, padded, 100 * f);
            r.notes.emplace_back(buf);
        }
        // Its split-KV decode (`flash_decode_splits_kv`) is two kernels: one more launch.
        if (flash_decode_splits_kv(k)) {
            run.launches += 1;
            r.notes.emplace_back(
                "attention decode by FlashAttention-2 with split-KV: the split kernel, then its combine kernel (one "
                "more launch)");
        }
        if (k.family == kernel_family::attention_prefill && is_tensor(k.peak) && e.tensor > 0) {
            const double f = published_attention_fraction(k.backend, k.causal, k.seq_len);
            if (std::isfinite(f) && f > 0) {
                attention_scale = std::min(attention_scale, published_scale(f, k.peak));
                char buf[240];
                std::snprintf(buf, sizeof buf, "attention prefill by %s: %.0f%% of the tensor peak at %.0f queries per sequence (FlashAttention-3 paper, H100 figures)",
                              k.backend == "flash" ? "FlashAttention-2" : k.backend == "cudnn" ? "cuDNN" : "FlashAttention-3 (backend unknown: the best published)",
                              100 * f, k.seq_len);
                r.notes.emplace_back(buf);
            }
        }
    }
    if (attention_scale < 1.0)
        for (auto key : all_peak_keys)
            if (is_tensor(key)) c.flops_at(key) *= attention_scale;
    c.flops_at(peak_key::fp8) *= fp8_scale;
    roof_times predicted = time_lower_bound(run, c);
    if (grouped_in_series) grouped_gemm_in_series(predicted);
    r.time = {time_lower_bound(w, datasheet), predicted};
    r.executed_flops = run.total_flops();
    return r;
}

// --- the clock a kernel runs at under a power limit ------------------------------------------

/// The SM clock a kernel sustains under `power_limit_w`: the largest f <= `max_clock_hz` with
///   P(f) = P_static + e_k(f) F / t(f) + e_dram B / t(f) <= limit,   t(f) = curve time at f
/// with F the useful FLOP (padding rows are not counted: a grouped GEMM's small groups wait on
/// their weights, and the measured power of such kernels is that of a memory-bound one)
/// (power coefficients `p`, models/power.hpp; bisection, P grows with f). Without energy
/// coefficients for the kernel's rate class, `max_clock_hz`. Throws `usage_error` for
/// non-positive clocks or limit. A curve fitted without clocks (`kernel_curve::clocks_recorded`
/// false) already holds the rates measured under its sweep's power limit: `max_clock_hz`.
inline double power_capped_clock_hz(const kernel_features& k, const kernel_curve& c, const ceilings& fallback,
                                    const power_coefficients& p, double power_limit_w, double max_clock_hz) {
    if (!(power_limit_w > 0) || !(max_clock_hz > 0))
        throw usage_error("power-capped clock: limit and maximum clock must be positive");
    if (!c.clocks_recorded) return max_clock_hz;
    const double e_flop = k.flops > 0 ? p.flop_energy_at(k.peak) : 0.0;
    if (std::isnan(e_flop) || !(p.reference_clock_hz > 0)) return max_clock_hz;
    const auto power = [&](double f) {
        const double t = c.device_time_s(k, f, fallback);  // power while the kernel runs
        if (!(t > 0)) return p.static_w;
        const double scale = std::pow(f / p.reference_clock_hz, p.clock_exponent - 1.0);
        return p.static_w + e_flop * scale * k.flops / t + p.joules_per_dram_byte * k.dram_bytes / t;
    };
    if (power(max_clock_hz) <= power_limit_w) return max_clock_hz;
    double lo = 0.05 * max_clock_hz, hi = max_clock_hz;
    if (power(lo) > power_limit_w) return lo;
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (power(mid) > power_limit_w ? hi : lo) = mid;
    }
    return lo;
}

/// A prediction by a calibrated curve, with the clock it assumed and why.
struct calibrated_time {
    double time_s = 0;         ///< the kernel's duration: device_s (no host term inside)
    double device_s = 0;       ///< fixed latency + max(compute, memory)
    double eager_call_s = 0;   ///< wall time per eager call: max(host floor, launch gap + device_s)
    double compute_s = 0, memory_s = 0;
    double clock_hz = 0;
    std::string clock_source;  ///< "given", "power-capped at 700 W", "maximum clock"
    bound predicted = bound::latency;  ///< the term that sets the device time
};

/// Prices `k` with curve `c` at `clock_hz` (source text `clock_source`); `fallback` supplies
/// ceilings the curve did not fit; `launch_s` is the eager launch gap for `eager_call_s`.
inline calibrated_time calibrated_kernel_time(const kernel_features& k, const kernel_curve& c, const ceilings& fallback,
                                              double clock_hz, std::string clock_source, double launch_s = 0) {
    calibrated_time r;
    r.clock_hz = clock_hz;
    r.clock_source = std::move(clock_source);
    r.compute_s = c.compute_time_s(k, clock_hz, fallback);
    r.memory_s = c.memory_time_s(k, fallback);
    r.device_s = c.fixed_time_s(k) + std::max(r.compute_s, r.memory_s);
    r.time_s = r.device_s;
    r.eager_call_s = std::max(c.floor_s, launch_s + r.device_s);
    const double roof = std::max(r.compute_s, r.memory_s);
    if (c.fixed_time_s(k) > roof) r.predicted = bound::latency;
    else r.predicted = r.compute_s >= r.memory_s ? bound::compute : bound::memory;
    return r;
}

}  // namespace roofline
