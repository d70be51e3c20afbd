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

#include <string>  // std::string

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
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
///    vLLM/SGLang serve NVFP4 checkpoints on Hopper through Marlin W4A16). The weights still
///    stream at their storage width; the note says so.
inline compute_path gemm_compute_path(dtype weights, dtype activations, const gpu_spec& g) {
    using detail::gpu_has;
    compute_path p;
    const auto narrowest_16 = [&](dtype d) {
        return d == dtype::fp16 ? peak_key::fp16 : (d == dtype::fp32 ? peak_key::tf32 : peak_key::bf16);
    };
    if (detail::is_fp4(weights) || weights == dtype::fp6) {
        const peak_key native = peak_of(weights);
        if (!gpu_has(g, native)) {
            p.native = false;
            const bool fp8_acts = detail::is_fp4(activations) || detail::is_fp8(activations);
            p.peak = fp8_acts && gpu_has(g, peak_key::fp8) && !detail::is_fp4(activations)
                         ? peak_key::fp8 : peak_key::bf16;
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
            p.peak = peak_key::bf16;
            p.note = "fp8 has no tensor-core path on " + g.id + ": BF16 compute path";
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

}  // namespace roofline
