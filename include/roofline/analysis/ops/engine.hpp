#pragma once
// The serving engines' own ops (vLLM custom ops: `vllm::`, `_C::`, `_C_cache_ops::`, and
// PyTorch's `symm_mem::` collectives they call), priced from their recorded inputs. Argument
// orders are the ops' schemas (vllm/csrc/torch_bindings.cpp, vllm/attention/layer.py,
// vllm/model_executor/layers/fused_moe/layer.py, torch/csrc/distributed/c10d/symm_mem/).
//
//   vllm::moe_forward(hidden [T, H], router_logits [T, E], layer_name)
//       The expert weights sit behind layer_name, so the sizes come from the tensors the op
//       allocates itself (cpu_op::allocations): top-k from the [T, k] int32 top-k ids, the
//       expert width I from the [rows >= T k, I] intermediate activations. Gated experts (gate
//       and up stacked in w13, as vLLM's FusedMoE stores them): F = 2 T k H (2 I) + 2 T k I H;
//       B = the weights of the experts that receive tokens (models/moe.hpp
//       `expected_active_experts`, tokens spread uniformly), 3 H I each, in MXFP4 (4-bit E2M1
//       plus one 8-bit E8M0 scale per 32 elements, OCP Microscaling Formats v1.0 section 5;
//       core/dtype.hpp), plus hidden states and router logits read and the output written.
//       Bounded: the weight dtype is not recorded.
//   vllm::outplace_fused_experts / inplace_fused_experts(hidden, w1 [E, N1, H], w2 [E, H, N2],
//       topk_weights, topk_ids, ...): the weights are inputs, so counted: F = 2 T k (N1 H + H N2)
//   _C::silu_and_mul / gelu_and_mul (out [.., d], input [.., 2 d]): input read, out written
//   vllm::unified_attention(_with_output)(q [T, Hq, D], k [T, Hkv, D], v [T, Hkv, Dv][, out])
//       The KV cache and the sequence lengths sit behind layer_name: q, k, v, out moved once,
//       F = T Hq 2 (D + Dv) (each query against its own key, the least). Bounded.
//   _C::fused_add_rms_norm(input, residual, weight, eps)   both in place: 2 x (input + residual)
//       + weight;  _C::rms_norm(out, input, weight, eps): out + input + weight
//   _C::rotary_embedding(positions [T], query, key, head_size, cos_sin_cache [P, R], is_neox)
//       query and key read and written in place, positions read, T rows of the cache read
//   _C::static_scaled_fp8_quant / dynamic_scaled_fp8_quant / dynamic_per_token_scaled_fp8_quant
//       (out, input, scale[, scale_ub]): input read, out written, scales moved
//   _C_cache_ops::reshape_and_cache(_flash)(key, value, key_cache, value_cache, slot_mapping,
//       ...): key, value and slot mapping read; T Hkv D elements of each cache written at the
//       cache's element size (uint8: an fp8 cache)
//   symm_mem::multimem_all_reduce_ / one_shot_all_reduce / two_shot_all_reduce_(input, op, group)
//       DRAM: input read, result written (2 S); link: S bytes sent, the least any all-reduce over
//       N >= 2 ranks sends (ring and two-shot 2 S (N - 1) / N, one-shot S (N - 1); NVLS multimem
//       S). Bounded: the group size is not recorded.

#include <cmath>        // std::abs
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/moe.hpp"

namespace roofline::detail::op_shapes {

/// c10::ScalarType codes (c10/core/ScalarType.h, AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS).
inline constexpr int scalar_type_int = 3, scalar_type_float8_e5m2 = 23,
                     scalar_type_float8_e4m3fn = 24, scalar_type_byte = 0;

/// The sizes a `vllm::moe_forward` allocation list reveals; nullopt fields were not found.
struct moe_allocation_sizes {
    std::optional<double> topk;          ///< from the [T, k] int32 top-k ids
    std::optional<double> intermediate;  ///< I, from the [rows >= T k, I] activations
    bool fp8_activations = false;        ///< hidden states quantized to fp8 ([T, H] fp8)
    bool mx_scales = false;              ///< ... with one scale byte per 32 elements
};

/// Reads top-k, the expert width and the activation quantization from what the op allocated.
moe_allocation_sizes moe_sizes(const std::vector<op_allocation>& alloc, double T, double H,
                               double E);

/// vllm::moe_forward from hidden states, router logits and the op's own allocations.
std::optional<op_work> price_vllm_moe(const std::vector<op_argument>& args,
                                      const std::vector<op_allocation>& alloc,
                                      const gpu_spec& g);

/// vllm::outplace_fused_experts / inplace_fused_experts(hidden [T, H], w1 [E, N1, H],
/// w2 [E, H, N2], topk_weights [T, k], topk_ids [T, k], ...): the weights are inputs here, so
/// the work is counted: F = 2 T k (N1 H + H N2); B = the weights of the experts that receive
/// tokens (tokens spread uniformly) + every other tensor argument (hidden, top-k, scales) + the
/// output [T, H]. Packed layouts (a K that is not H) are left unpriced.
std::optional<op_work> price_vllm_fused_experts(std::string_view n,
                                                const std::vector<op_argument>& args,
                                                const gpu_spec& g);

/// _C::silu_and_mul / gelu_and_mul / gelu_tanh_and_mul(out [.., d], input [.., 2 d]): input
/// read, out written, one FLOP per output element at least (fp32 vector pipe).
std::optional<op_work> price_vllm_act_and_mul(std::string_view n,
                                              const std::vector<op_argument>& args);

/// vllm::unified_attention(_with_output): q, k, v (and out) once, each query against itself.
std::optional<op_work> price_vllm_attention(std::string_view n,
                                            const std::vector<op_argument>& args);

/// _C::fused_add_rms_norm and _C::rms_norm.
std::optional<op_work> price_vllm_rms_norm(std::string_view n,
                                           const std::vector<op_argument>& args);

/// _C::rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox).
std::optional<op_work> price_vllm_rotary(const std::vector<op_argument>& args);

/// _C fp8 quantization kernels (out, input, scale[, scale_ub]).
std::optional<op_work> price_vllm_fp8_quant(std::string_view n,
                                            const std::vector<op_argument>& args);

/// _C_cache_ops::reshape_and_cache(_flash): new K/V written into the paged cache.
std::optional<op_work> price_vllm_cache_write(std::string_view n,
                                              const std::vector<op_argument>& args);

/// symm_mem all-reduces: 2 S through DRAM, at least S over the link.
std::optional<op_work> price_symm_mem_all_reduce(std::string_view n,
                                                 const std::vector<op_argument>& args);

/// The engine op `name` (full name, namespace included); nullopt for names it does not know.
std::optional<op_work> price_engine(std::string_view name,
                                    const std::vector<op_argument>& args, const cpu_op& op,
                                    const gpu_spec& g);

}  // namespace roofline::detail::op_shapes

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline::detail::op_shapes {
ROOFLINE_INLINE moe_allocation_sizes moe_sizes(const std::vector<op_allocation>& alloc, double T, double H,
                                               double E) {
    moe_allocation_sizes s;
    for (const auto& a : alloc)
        if (a.shape.size() == 2 && double(a.shape[0]) == T && a.scalar_type == scalar_type_int &&
            a.shape[1] >= 1 && double(a.shape[1]) <= E) {
            s.topk = double(a.shape[1]);
            break;
        }
    for (const auto& a : alloc) {
        if (a.shape.size() != 2) continue;
        const double rows = double(a.shape[0]), cols = double(a.shape[1]);
        if (rows == T && cols == H &&
            (a.scalar_type == scalar_type_float8_e4m3fn ||
             a.scalar_type == scalar_type_float8_e5m2))
            s.fp8_activations = true;
        if (s.topk && !s.intermediate && rows >= T * *s.topk && cols != H && cols > 0)
            s.intermediate = cols;
    }
    for (const auto& a : alloc)
        if (a.shape.size() == 1 && a.scalar_type == scalar_type_byte &&
            double(a.shape[0]) == T * H / 32)
            s.mx_scales = true;
    return s;
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_moe(const std::vector<op_argument>& args,
                                                      const std::vector<op_allocation>& alloc,
                                                      const gpu_spec& g) {
    const op_argument *X = tensor_at(args, 0), *R = tensor_at(args, 1);
    if (!X || !R || !X->element_dtype || X->shape().size() != 2 || R->shape().size() != 2)
        return std::nullopt;
    const double T = double(X->shape()[0]), H = double(X->shape()[1]), E = double(R->shape()[1]);
    if (double(R->shape()[0]) != T || !(E >= 1)) return std::nullopt;
    const auto s = moe_sizes(alloc, T, H, E);
    if (!s.topk || !s.intermediate) return std::nullopt;
    const double k = *s.topk, I = *s.intermediate;
    const dtype act =
        s.fp8_activations ? (s.mx_scales ? dtype::mxfp8 : dtype::fp8_e4m3) : *X->element_dtype;
    const dtype weights = dtype::mxfp4;
    const auto path = gemm_compute_path(weights, act, g);
    const double active = T > 0 ? expected_active_experts(E, k, T) : 0.0;
    op_work w;
    w.kind = "moe";
    w.work.flops_at(path.peak) = 6.0 * T * k * H * I;
    w.work.bytes_at(memory_level::dram) =
        active * 3.0 * H * I * bytes_per_element(weights) + X->bytes() + R->bytes() + X->bytes();
    w.work.launches = 1;
    const auto ll = [](double v) { return std::to_string(static_cast<long long>(v + 0.5)); };
    w.description = "moe_forward T " + ll(T) + " H " + ll(H) + " E " + ll(E) + " top-" + ll(k) +
                    " I " + ll(I) + " " + std::string(to_string(weights)) + " x " +
                    std::string(to_string(act)) + " at the " + std::string(to_string(path.peak)) +
                    " rate";
    w.assumptions.push_back("top-k " + ll(k) + " from the op's [" + ll(T) + ", " + ll(k) +
                            "] int32 top-k ids, expert width " + ll(I) +
                            " from its intermediate activations");
    w.assumptions.push_back("gated experts (gate and up stacked): F = 6 T k H I");
    w.assumptions.push_back("tokens spread uniformly: weights of " + ll(active) + " of " + ll(E) +
                            " experts read");
    if (!path.note.empty()) w.assumptions.push_back(path.note);
    mark_bounded(w,
                 "expert weights are not op inputs (behind layer_name): MXFP4 assumed (4-bit "
                 "E2M1 + one E8M0 scale per 32, OCP MX v1.0)");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_fused_experts(std::string_view n,
                                                                const std::vector<op_argument>& args,
                                                                const gpu_spec& g) {
    const op_argument *X = tensor_at(args, 0), *W1 = tensor_at(args, 1), *W2 = tensor_at(args, 2),
                      *TW = tensor_at(args, 3), *TI = tensor_at(args, 4);
    if (!X || !W1 || !W2 || !TW || !TI || !dtype_of(X) || !dtype_of(W1) || !dtype_of(W2))
        return std::nullopt;
    const auto &x = X->shape(), &w1 = W1->shape(), &w2 = W2->shape(), &ti = TI->shape();
    if (x.size() != 2 || w1.size() != 3 || w2.size() != 3 || ti.size() != 2 || ti[0] != x[0] ||
        w1[0] != w2[0] || w1[2] != x[1] || w2[1] != x[1] || (w1[1] != w2[2] && w1[1] != 2 * w2[2]))
        return std::nullopt;
    const double T = double(x[0]), H = double(x[1]), E = double(w1[0]), k = double(ti[1]),
                 N1 = double(w1[1]), N2 = double(w2[2]);
    if (!(k >= 1) || k > E) return std::nullopt;
    const auto path = gemm_compute_path(*dtype_of(W1), *dtype_of(X), g);
    const double active = T > 0 ? expected_active_experts(E, k, T) : 0.0;
    op_work w;
    w.kind = "moe";
    w.work.flops_at(path.peak) = 2.0 * T * k * (N1 * H + H * N2);
    w.work.bytes_at(memory_level::dram) = active * (W1->bytes() + W2->bytes()) / E + X->bytes() +
                                          tensor_bytes_from(args, 3) + X->bytes();
    w.work.launches = 1;
    w.description = std::string(n) + " " + shape_text(x) + " x w1 " + shape_text(w1) + " w2 " +
                    shape_text(w2) + " top-" + std::to_string(static_cast<long long>(k)) + " " +
                    W1->type + " at the " + std::string(to_string(path.peak)) + " rate";
    w.assumptions.push_back("tokens spread uniformly: weights of " +
                            std::to_string(static_cast<long long>(active + 0.5)) + " of " +
                            std::to_string(static_cast<long long>(E)) + " experts read");
    if (!path.note.empty()) w.assumptions.push_back(path.note);
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_act_and_mul(std::string_view n,
                                                              const std::vector<op_argument>& args) {
    const op_argument *O = tensor_at(args, 0), *X = tensor_at(args, 1);
    if (!O || !X || std::abs(X->elements() - 2.0 * O->elements()) > 0.5) return std::nullopt;
    auto w = bytes_work("elementwise", O->bytes() + X->bytes(),
                        std::string(n) + " " + shape_text(X->shape()) + " " + X->type);
    w.work.flops_at(peak_key::fp32) = O->elements();
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_attention(std::string_view n,
                                                            const std::vector<op_argument>& args) {
    const op_argument *Q = tensor_at(args, 0), *K = tensor_at(args, 1), *V = tensor_at(args, 2);
    if (!Q || !K || !V || !Q->element_dtype || Q->shape().size() != 3 || K->shape().size() != 3 ||
        V->shape().size() != 3)
        return std::nullopt;
    const op_argument* O =
        n == "vllm::unified_attention_with_output" ? tensor_at(args, 3) : nullptr;
    const double T = double(Q->shape()[0]), Hq = double(Q->shape()[1]), D = double(Q->shape()[2]),
                 Dv = double(V->shape()[2]);
    const double out_bytes = O ? O->bytes() : T * Hq * Dv * Q->element_bytes;
    op_work w = bytes_work("attention", Q->bytes() + K->bytes() + V->bytes() + out_bytes,
                           std::string(n) + " q " + shape_text(Q->shape()) + " kv " +
                               shape_text(K->shape()) + " " + Q->type);
    w.work.flops_at(peak_of(*Q->element_dtype)) = T * Hq * 2.0 * (D + Dv);
    mark_bounded(w,
                 "KV cache and sequence lengths are not op inputs (behind layer_name): each "
                 "query against its own key, the new K/V read once");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_rms_norm(std::string_view n,
                                                           const std::vector<op_argument>& args) {
    const op_argument *A = tensor_at(args, 0), *B = tensor_at(args, 1), *W = tensor_at(args, 2);
    if (!A || !B || !W) return std::nullopt;
    const bool fused = n == "_C::fused_add_rms_norm";
    // fused: input and residual both read and written; rms_norm: out written, input read.
    const double bytes = (fused ? 2.0 : 1.0) * (A->bytes() + B->bytes()) + W->bytes();
    auto w = bytes_work(
        "norm", bytes,
        std::string(n) + " " + shape_text(fused ? A->shape() : B->shape()) + " " + A->type);
    w.assumptions.push_back("priced by bytes only");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_rotary(const std::vector<op_argument>& args) {
    const op_argument *P = tensor_at(args, 0), *Q = tensor_at(args, 1), *K = tensor_at(args, 2),
                      *C = tensor_at(args, 4);
    if (!P || !Q || !C || C->shape().size() != 2) return std::nullopt;
    const double cache_rows = P->elements() * double(C->shape()[1]) * C->element_bytes;
    const double bytes = 2.0 * (Q->bytes() + (K ? K->bytes() : 0.0)) + P->bytes() + cache_rows;
    return bytes_work("elementwise", bytes,
                      "rotary_embedding q " + shape_text(Q->shape()) +
                          (K ? " k " + shape_text(K->shape()) : std::string()) + " " + Q->type);
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_fp8_quant(std::string_view n,
                                                            const std::vector<op_argument>& args) {
    const op_argument *O = tensor_at(args, 0), *X = tensor_at(args, 1);
    if (!O || !X) return std::nullopt;
    return bytes_work(
        "quantize", O->bytes() + tensor_bytes_from(args, 1),
        std::string(n) + " " + shape_text(X->shape()) + " " + X->type + " -> " + O->type);
}

ROOFLINE_INLINE std::optional<op_work> price_vllm_cache_write(std::string_view n,
                                                              const std::vector<op_argument>& args) {
    const op_argument *K = tensor_at(args, 0), *V = tensor_at(args, 1), *KC = tensor_at(args, 2),
                      *VC = tensor_at(args, 3), *S = tensor_at(args, 4);
    if (!K || !V || !KC || !VC) return std::nullopt;
    const double bytes = K->bytes() + V->bytes() + (S ? S->bytes() : 0.0) +
                         K->elements() * KC->element_bytes + V->elements() * VC->element_bytes;
    return bytes_work("copy", bytes,
                      std::string(n) + " k " + shape_text(K->shape()) + " " + K->type + " into a " +
                          KC->type + " cache");
}

ROOFLINE_INLINE std::optional<op_work> price_symm_mem_all_reduce(std::string_view n,
                                                                 const std::vector<op_argument>& args) {
    const op_argument* X = tensor_at(args, 0);
    if (!X) return std::nullopt;
    auto w = bytes_work("collective", 2.0 * X->bytes(),
                        std::string(n) + " " + shape_text(X->shape()) + " " + X->type);
    w.work.link_bytes = X->bytes();
    mark_bounded(w, "group size not recorded: the link carries at least the buffer once");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_engine(std::string_view name,
                                                    const std::vector<op_argument>& args, const cpu_op& op,
                                                    const gpu_spec& g) {
    if (name == "vllm::moe_forward") return price_vllm_moe(args, op_allocations(op), g);
    if (one_of(name, {"vllm::outplace_fused_experts", "vllm::inplace_fused_experts"}))
        return price_vllm_fused_experts(name, args, g);
    if (one_of(name, {"_C::silu_and_mul", "_C::gelu_and_mul", "_C::gelu_tanh_and_mul"}))
        return price_vllm_act_and_mul(name, args);
    if (one_of(name, {"vllm::unified_attention", "vllm::unified_attention_with_output"}))
        return price_vllm_attention(name, args);
    if (one_of(name, {"_C::fused_add_rms_norm", "_C::rms_norm"}))
        return price_vllm_rms_norm(name, args);
    if (name == "_C::rotary_embedding") return price_vllm_rotary(args);
    if (one_of(name, {"_C::static_scaled_fp8_quant", "_C::dynamic_scaled_fp8_quant",
                      "_C::dynamic_per_token_scaled_fp8_quant"}))
        return price_vllm_fp8_quant(name, args);
    if (one_of(name, {"_C_cache_ops::reshape_and_cache", "_C_cache_ops::reshape_and_cache_flash"}))
        return price_vllm_cache_write(name, args);
    if (one_of(name, {"symm_mem::multimem_all_reduce_", "symm_mem::one_shot_all_reduce",
                      "symm_mem::two_shot_all_reduce_"}))
        return price_symm_mem_all_reduce(name, args);
    return std::nullopt;
}

}  // namespace roofline::detail::op_shapes
#endif  // ROOFLINE_BODIES_ANALYSIS
