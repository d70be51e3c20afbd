#pragma once
// Dense GEMM: C[m x n] = A[m x k] . B[k x n], optionally batched.
//
//   FLOP          F = 2 m n k                       (one multiply and one add per MAC)
//   minimum bytes B = m k a + k n b + m n c         (each operand read once, C written once;
//                                                    a, b, c = bytes per element incl. scales)
//   AI            F / B
//
// In an LLM, A is the activations (m = tokens), B the weights (k = in, n = out features).
// Which tensor-core rate the product runs at depends on both operand dtypes and on what the GPU
// supports (`gemm_compute_path`).

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::ceil, std::floor
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"

namespace roofline {

/// A GEMM problem: C[m x n] = A[m x k] . B[k x n], `batch` independent copies.
struct gemm_shape {
    double m = 0, n = 0, k = 0;
    double batch = 1;
};

/// The tensor-core rate a GEMM runs at on a GPU, and why.
struct compute_path {
    peak_key peak = peak_key::bf16;
    bool native = true;  ///< false when the weights' dtype has no tensor-core path here
    std::string note;    ///< the fallback, when there is one
};

namespace detail {
constexpr bool is_fp4(dtype d) { return d == dtype::nvfp4 || d == dtype::mxfp4; }
constexpr bool is_fp8(dtype d) { return d == dtype::fp8_e4m3 || d == dtype::fp8_e5m2 || d == dtype::mxfp8; }
inline bool gpu_has(const gpu_spec& g, peak_key k) { return g.peak(k).supported; }
}  // namespace detail

/// Which peak a GEMM with `weights` and `activations` operands runs at on `g`.
///  * both FP4 (W4A4, ModelOpt NVFP4) on a GPU with FP4 tensor cores: fp4;
///  * FP4 or FP8 weights with FP8 activations (W4A8 / W8A8): fp8;
///  * low-precision weights with 16-bit activations (W4A16 gpt-oss MXFP4, W8A16): the
///    activations' rate, weights dequantised in the kernel;
///  * a dtype the GPU lacks (FP4 on Hopper): the weights are dequantised and the product runs
///    at FP8 when the activations are FP8-or-narrower and the GPU has FP8, else at BF16 (as
///    vLLM/SGLang serve NVFP4 checkpoints on Hopper through Marlin W4A16), FP16 where the GPU
///    has no BF16 units (V100, T4). The weights still
///    stream at their storage width; the note says so.
inline compute_path gemm_compute_path(dtype weights, dtype activations, const gpu_spec& g) {
    using detail::gpu_has;
    compute_path p;
    const auto narrowest_16 = [&](dtype d) {
        return d == dtype::fp16 ? peak_key::fp16 : (d == dtype::fp32 ? peak_key::tf32 : peak_key::bf16);
    };
    // The 16-bit path a fallback runs at: BF16, or FP16 on a GPU without BF16 units (V100, T4),
    // as dequantising kernels there compute in half precision.
    const peak_key fallback_16 = !gpu_has(g, peak_key::bf16) && gpu_has(g, peak_key::fp16) ? peak_key::fp16 : peak_key::bf16;
    if (weights == dtype::int4) {
        // W4A16: integer weights dequantised in the kernel (Marlin, Machete), 16-bit math.
        p.native = false;
        p.peak = gpu_has(g, narrowest_16(activations)) ? narrowest_16(activations) : fallback_16;
        p.note = "int4 weights dequantised to " + std::string(to_string(p.peak)) +
                 " in the kernel (W4A16, e.g. Marlin); weights still stream at 4.5 bits";
        return p;
    }
    if (detail::is_fp4(weights) || weights == dtype::fp6) {
        const peak_key native = peak_of(weights);
        if (!gpu_has(g, native)) {
            p.native = false;
            const bool fp8_acts = detail::is_fp4(activations) || detail::is_fp8(activations);
            p.peak = fp8_acts && gpu_has(g, peak_key::fp8) && !detail::is_fp4(activations)
                         ? peak_key::fp8 : fallback_16;
            p.note = std::string(to_string(weights)) + " has no tensor-core path on " + g.id + " (" +
                     g.sm_arch + "): falls back to a " + std::string(to_string(p.peak)) +
                     " compute path (weights dequantised in the kernel, e.g. Marlin W4A16); weights "
                     "still stream at their storage width";
            return p;
        }
        if (detail::is_fp4(activations) || activations == dtype::fp6) p.peak = native;
        else if (detail::is_fp8(activations)) p.peak = peak_key::fp8;  // f8f6f4: FP8 rate
        else {
            p.peak = narrowest_16(activations);
            p.note = "W4A16: " + std::string(to_string(weights)) + " weights dequantised to " +
                     std::string(to_string(activations)) + " in the kernel";
        }
        return p;
    }
    if (detail::is_fp8(weights)) {
        if (detail::is_fp8(activations) || detail::is_fp4(activations)) {
            if (gpu_has(g, peak_key::fp8)) {
                p.peak = peak_key::fp8;
                return p;
            }
            p.native = false;
            p.peak = fallback_16;
            p.note = "fp8 has no tensor-core path on " + g.id + ": " +
                     std::string(fallback_16 == peak_key::fp16 ? "FP16" : "BF16") + " compute path";
            return p;
        }
        p.peak = narrowest_16(activations);
        p.note = "W8A16: fp8 weights dequantised in the kernel";
        return p;
    }
    if (weights == dtype::int8) {
        p.peak = peak_key::int8;
        return p;
    }
    if (weights == dtype::fp32 || weights == dtype::fp64) {
        p.peak = peak_of(weights);
        return p;
    }
    p.peak = peak_of(weights);  // bf16, fp16, tf32
    return p;
}

/// FLOP and minimum DRAM bytes of a GEMM: F = 2 m n k batch at `peak`;
/// B = (m k a + k n b + m n c) batch with a, b, c the storage bytes per element of A, B, C.
/// One launch. Throws `usage_error` for negative sizes.
inline workload gemm_workload(const gemm_shape& s, dtype a, dtype b, dtype c, peak_key peak) {
    if (s.m < 0 || s.n < 0 || s.k < 0 || s.batch < 0) throw usage_error("gemm: sizes must be non-negative");
    workload w;
    w.flops_at(peak) = 2.0 * s.m * s.n * s.k * s.batch;
    w.bytes_at(memory_level::dram) =
        (s.m * s.k * bytes_per_element(a) + s.k * s.n * bytes_per_element(b) + s.m * s.n * bytes_per_element(c)) *
        s.batch;
    w.launches = 1;
    return w;
}

/// Same, with the peak chosen by `gemm_compute_path(b, a, g)` (B = weights, A = activations).
inline workload gemm_workload(const gemm_shape& s, dtype a, dtype b, dtype c, const gpu_spec& g) {
    return gemm_workload(s, a, b, c, gemm_compute_path(b, a, g).peak);
}


// ---------------------------------------------------------------------------------------------
// Tile model
//
// A GEMM kernel computes C in BM x BN tiles, one per CTA (or per CTA pair on SM100's 2-CTA
// tcgen05 MMA), marching over K in BK slices through a ring of `stages` shared-memory buffers.
//
// Shared memory per CTA (the CUTLASS TMA warp-specialised layout):
//   [epilogue carve-out] [align 1024] [A: stages x BM' x BK x a] [align 1024]
//   [B: stages x BN' x BK x b] [SFA: stages x BM' x BK/v x s] [SFB: stages x BN' x BK/v x s]
//   [barriers: stages x 16 B] [align 1024]
// with BM' = BM / pair and BN' = BN / pair on a CTA pair (each CTA of a 2-CTA MMA holds half of
// A and half of B), v the scale-block size and s the scale bytes (NVFP4: 16 values per E4M3
// scale; MXFP4/MXFP8: 32 per E8M0). The 1024-byte alignment is that of the 128-byte TMA swizzle
// atoms (CUTLASS `alignas(1024)` on smem_A / smem_B). Case C06 (NVIDIA/cutlass#3096): CUTLASS's
// stage-count carve-out left this padding out and picked 3 stages where only 2 fit on SM120.
//
// The accumulator (BM' x BN' FP32) lives in tensor memory on SM100/SM103 (256 KiB per SM) and in
// registers elsewhere: CUTLASS's SM90 cooperative kernels give it at most 128 FP32 registers per
// thread over two consumer warpgroups (256 threads), i.e. BM x BN <= 32,768.
//
// Traffic: every CTA streams its A and B panels from L2 into shared memory, so
//   L2 -> SMEM bytes = M N K (a / BN + b / BM)       (block scales included in a, b)
// while DRAM sees each operand at least once (the lower bound of `gemm_workload`).
//   SMEM-level arithmetic intensity = 2 BM BN / (BN a + BM b)  FLOP per byte
// Waves: tiles = ceil(M/BM) ceil(N/BN) over SMs x CTAs-per-SM (smem occupancy) / pair; the last
// wave runs partly empty, and the M, N padding of edge tiles is computed anyway:
//   t_compute = waves x ctas_per_sm x 2 BM BN K_padded / (peak / SMs)
// ---------------------------------------------------------------------------------------------

/// A CTA tile configuration.
struct gemm_tile {
    int bm = 128, bn = 128, bk = 64;
    int stages = 3;
    int cta_pair = 1;           ///< 2: SM100 2-CTA tcgen05 MMA (tile split over two SMs)
    bool tmem_accumulator = false;  ///< SM100/SM103: accumulator in tensor memory
    double epilogue_bytes = 0;  ///< shared memory the epilogue reserves (carve-out), B
};

/// Shared-memory (and accumulator) feasibility of a tile, with the numbers behind the answer.
struct tile_feasibility {
    bool fits = false;
    std::string reason;        ///< why not (empty when it fits)
    double a_stage_bytes = 0, b_stage_bytes = 0, sfa_stage_bytes = 0, sfb_stage_bytes = 0;
    double stage_bytes = 0;    ///< sum of the four, per stage
    double padding_bytes = 0;  ///< 1024-B alignment padding
    double smem_bytes = 0;     ///< total per CTA, padding included
    double smem_unpadded_bytes = 0;  ///< the same without alignment padding
    double smem_limit_bytes = 0;     ///< the GPU's per-block opt-in limit
    double accumulator_bytes = 0;    ///< per CTA, FP32
    double accumulator_limit_bytes = 0;
};

namespace detail {
inline double align_up(double v, double a) { return std::ceil(v / a) * a; }
inline double scale_bytes_per_row(dtype d, double bk) {
    const auto& t = traits(d);
    if (!t.block_scaled()) return 0.0;
    return std::ceil(bk / t.block_size) * t.scale_bits / 8.0;
}
/// Element bytes without the block-scale share (scales are counted as their own buffers).
inline double element_bytes(dtype d) { return traits(d).element_bits / 8.0; }
}  // namespace detail

/// Feasibility of `t` for operands `a` (A) and `b` (B) against a per-block shared-memory limit
/// and, for the accumulator, tensor memory (`tmem_bytes`, 0 when the GPU has none).
inline tile_feasibility tile_fits(const gemm_tile& t, dtype a, dtype b, double smem_limit_bytes,
                                  double tmem_bytes = 0.0, double alignment = 1024.0) {
    tile_feasibility f;
    const double pair = std::max(1, t.cta_pair);
    const double bm = t.bm / pair, bn = t.bn / pair, bk = t.bk, S = t.stages;
    f.a_stage_bytes = bm * bk * detail::element_bytes(a);
    f.b_stage_bytes = bn * bk * detail::element_bytes(b);
    f.sfa_stage_bytes = bm * detail::scale_bytes_per_row(a, bk);
    f.sfb_stage_bytes = bn * detail::scale_bytes_per_row(b, bk);
    f.stage_bytes = f.a_stage_bytes + f.b_stage_bytes + f.sfa_stage_bytes + f.sfb_stage_bytes;
    const double barriers = 16.0 * S;
    f.smem_unpadded_bytes = t.epilogue_bytes + S * f.stage_bytes + barriers;
    double off = detail::align_up(t.epilogue_bytes, alignment);   // smem_A aligned
    off += S * f.a_stage_bytes;
    off = detail::align_up(off, alignment);                       // smem_B aligned
    off += S * (f.b_stage_bytes + f.sfa_stage_bytes + f.sfb_stage_bytes) + barriers;
    f.smem_bytes = detail::align_up(off, alignment);              // struct alignment
    f.padding_bytes = f.smem_bytes - f.smem_unpadded_bytes;
    f.smem_limit_bytes = smem_limit_bytes;
    f.accumulator_bytes = bm * t.bn * 4.0;  // each CTA of a pair accumulates BM/2 x BN
    if (t.tmem_accumulator) {
        f.accumulator_limit_bytes = tmem_bytes;
    } else {
        f.accumulator_limit_bytes = 256.0 * 128 * 4;  // 2 consumer warpgroups x 128 FP32 registers
    }
    std::string why;
    if (t.bm <= 0 || t.bn <= 0 || t.bk <= 0 || t.stages <= 0) why = "tile sizes and stages must be positive";
    else if (t.tmem_accumulator && !(tmem_bytes > 0)) why = "the GPU has no tensor memory for a TMEM accumulator";
    else if (f.smem_bytes > smem_limit_bytes)
        why = std::to_string(t.stages) + " stages need " + std::to_string(static_cast<long long>(f.smem_bytes)) +
              " B of shared memory (" + std::to_string(static_cast<long long>(f.padding_bytes)) +
              " B of it 1024-B alignment padding) > " + std::to_string(static_cast<long long>(smem_limit_bytes)) +
              " B per block";
    else if (f.accumulator_bytes > f.accumulator_limit_bytes)
        why = "accumulator " + std::to_string(static_cast<long long>(f.accumulator_bytes)) + " B exceeds " +
              (t.tmem_accumulator ? "tensor memory " : "the register budget ") +
              std::to_string(static_cast<long long>(f.accumulator_limit_bytes)) + " B";
    f.fits = why.empty();
    f.reason = why;
    return f;
}

/// The most stages of `t` that fit (0 when not even one does), counting alignment padding.
inline int max_stages(gemm_tile t, dtype a, dtype b, double smem_limit_bytes, double tmem_bytes = 0.0) {
    int best = 0;
    for (int s = 1; s <= 32; ++s) {
        t.stages = s;
        if (tile_fits(t, a, b, smem_limit_bytes, tmem_bytes).fits) best = s;
        else break;
    }
    return best;
}

/// The stage count an auto carve-out computes when it forgets alignment padding:
/// floor((limit - epilogue) / (stage bytes + 16)). C06: this said 3 where 2 fit.
inline int max_stages_unpadded(const gemm_tile& t, dtype a, dtype b, double smem_limit_bytes) {
    const auto f = tile_fits(t, a, b, smem_limit_bytes);
    return static_cast<int>(std::floor((smem_limit_bytes - t.epilogue_bytes) / (f.stage_bytes + 16.0)));
}

/// A GEMM priced with a tile: waves, traffic per level, and time at given ceilings.
struct tile_estimate {
    gemm_tile tile;
    tile_feasibility feasibility;
    double tiles = 0;          ///< ceil(M/BM) ceil(N/BN)
    double ctas_per_sm = 0;    ///< by shared memory occupancy (>= 1 when it fits)
    double concurrent_tiles = 0;
    double waves = 0;
    double wave_efficiency = 0;  ///< useful FLOP / FLOP of the waves launched
    double l2_to_smem_bytes = 0;
    double dram_bytes = 0;
    double smem_intensity = 0;   ///< FLOP per byte moved L2 -> SMEM
    double compute_s = 0;        ///< wave-quantised tensor time
    double memory_s = 0;         ///< DRAM time
    double l2_s = 0;             ///< L2 -> SMEM time (0 when the L2 bandwidth is unknown)
    double time_s = 0;           ///< max of the three (the tile's lower bound)
    double fraction_of_peak = 0; ///< ideal compute time / time_s
};

/// Prices `shape` with tile `t` on GPU `g` with ceilings `c` (peaks and bandwidths). Operand
/// bytes include block scales. Throws `usage_error` when the GPU's SM count, shared memory or the
/// compute peak is unknown.
inline tile_estimate estimate_tile(const gemm_shape& shape, const gemm_tile& t, dtype a, dtype b, dtype out,
                                   const gpu_spec& g, const ceilings& c) {
    tile_estimate e;
    e.tile = t;
    const double smem_block = g.smem_per_block_bytes.require(g.id, "smem_per_block_bytes");
    const double smem_sm = g.smem_per_sm_bytes.require(g.id, "smem_per_sm_bytes");
    const double sms = g.sm_count.require(g.id, "sm_count");
    e.feasibility = tile_fits(t, a, b, smem_block, g.tmem_per_sm_bytes.value_or(0.0));
    const auto path = gemm_compute_path(b, a, g);
    const double peak = c.flops_at(path.peak);
    if (!(peak > 0)) throw usage_error(g.id + ": no " + std::string(to_string(path.peak)) + " peak known");
    const double M = shape.m, N = shape.n, K = shape.k, B = shape.batch;
    const double ab = bytes_per_element(a), bb = bytes_per_element(b);
    e.tiles = std::ceil(M / t.bm) * std::ceil(N / t.bn) * B;
    e.ctas_per_sm = e.feasibility.fits ? std::max(1.0, std::floor(smem_sm / (e.feasibility.smem_bytes + 1024.0))) : 0.0;
    e.ctas_per_sm = std::min(e.ctas_per_sm, 2.0);  // persistent GEMM kernels run 1-2 CTAs per SM
    const double pair = std::max(1, t.cta_pair);
    e.concurrent_tiles = e.ctas_per_sm > 0 ? sms * e.ctas_per_sm / pair : 0.0;
    e.dram_bytes = gemm_workload(shape, a, b, out, path.peak).dram_bytes();
    e.l2_to_smem_bytes = B * M * N * K * (ab / t.bn + bb / t.bm);
    const double useful = 2.0 * M * N * K * B;
    e.smem_intensity = e.l2_to_smem_bytes > 0 ? useful / e.l2_to_smem_bytes : 0.0;
    if (!e.feasibility.fits) return e;
    e.waves = std::ceil(e.tiles / e.concurrent_tiles);
    const double tile_flops = 2.0 * t.bm * t.bn * std::ceil(K / t.bk) * t.bk;
    // Each wave: every SM runs ctas_per_sm CTAs at peak / SMs; a CTA of a pair does half its tile.
    e.compute_s = e.waves * e.ctas_per_sm * (tile_flops / pair) / (peak / sms);
    e.wave_efficiency = useful / (e.waves * e.concurrent_tiles * tile_flops);
    e.memory_s = e.dram_bytes / c.bytes_at(memory_level::dram);
    const double l2bw = c.bytes_at(memory_level::l2);
    e.l2_s = (l2bw > 0) ? e.l2_to_smem_bytes / l2bw : 0.0;
    e.time_s = std::max({e.compute_s, e.memory_s, e.l2_s});
    e.fraction_of_peak = e.time_s > 0 ? (useful / peak) / e.time_s : 0.0;
    return e;
}

/// Candidate tiles for an architecture ("sm90", "sm100", "sm103", "sm120", "sm121"): the shapes
/// CUTLASS / cuBLAS-style kernels offer there, at the most stages that fit (at least 2).
/// SM100/SM103 add 2-CTA tiles with a TMEM accumulator; SM120/SM121 (mma.sync, no TMEM, 99 KiB)
/// keep 1-CTA tiles with register accumulators.
inline std::vector<gemm_tile> candidate_tiles(const gpu_spec& g, dtype a, dtype b, double epilogue_bytes = 0) {
    const bool sm100 = g.sm_arch == "sm100" || g.sm_arch == "sm103";
    const double smem = g.smem_per_block_bytes.require(g.id, "smem_per_block_bytes");
    const double tmem = g.tmem_per_sm_bytes.value_or(0.0);
    const int bk_fp4 = 128, bk_default = 64;
    const int bk = traits(b).element_bits <= 4 ? bk_fp4 : (traits(b).element_bits <= 8 ? 128 : bk_default);
    std::vector<gemm_tile> shapes;
    for (int bm : {64, 128, 256})
        for (int bn : {64, 128, 256})
            for (int k : {bk / 2, bk}) {
                gemm_tile t;
                t.bm = bm;
                t.bn = bn;
                t.bk = k;
                t.epilogue_bytes = epilogue_bytes;
                if (sm100) {
                    // tcgen05.mma: cta_group::1 takes M = 64 or 128, cta_group::2 M = 128 or 256
                    // across the pair (CUTLASS blackwell_functionality.md).
                    t.tmem_accumulator = true;
                    if (bm <= 128) shapes.push_back(t);
                    if (bm >= 128) {
                        t.cta_pair = 2;
                        shapes.push_back(t);
                    }
                } else {
                    shapes.push_back(t);
                }
            }
    std::vector<gemm_tile> out;
    for (auto t : shapes) {
        const int s = max_stages(t, a, b, smem, tmem);
        if (s < 2) continue;  // a pipeline needs at least two stages
        t.stages = std::min(s, 8);
        out.push_back(t);
    }
    return out;
}

/// The feasible candidate tile with the least estimated time on `g` (ties: more stages).
/// Throws `usage_error` when no candidate fits.
inline tile_estimate best_tile(const gemm_shape& shape, dtype a, dtype b, dtype out, const gpu_spec& g,
                               const ceilings& c, double epilogue_bytes = 0) {
    const auto tiles = candidate_tiles(g, a, b, epilogue_bytes);
    if (tiles.empty()) throw usage_error(g.id + ": no GEMM tile fits its shared memory");
    tile_estimate best = estimate_tile(shape, tiles.front(), a, b, out, g, c);
    for (const auto& t : tiles) {
        const auto e = estimate_tile(shape, t, a, b, out, g, c);
        const bool better = e.time_s < best.time_s * (1 - 1e-9) ||
                            (e.time_s <= best.time_s * (1 + 1e-9) && e.smem_intensity > best.smem_intensity);
        if (better) best = e;
    }
    return best;
}

}  // namespace roofline
