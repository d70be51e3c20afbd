#pragma once
// torch.compile (Inductor) kernels, priced from the arguments their `cpu_op` recorded.
//
// Inductor launches each generated Triton kernel under a record_function of the kernel's own
// name (`triton_poi_fused_add_cos_sin_0`; args `kernel_backend: "triton"`, `kernel_file`,
// `grid`), whose `Input Dims` / `Input type` are the kernel's arguments: every buffer it reads or
// writes (in_ptr*, out_ptr*, in_out_ptr*), then the size arguments as Scalars whose values are in
// `Concrete Inputs`, the last ones being the iteration counts (xnumel, then r0_numel for
// reductions). Prefixes (torch/_inductor/codegen/triton.py, select_algorithm.py):
//   triton_poi_  pointwise      B = every buffer once, F = xnumel
//   triton_red_  reduction      B = every buffer once, F = xnumel x r0_numel
//   triton_per_  persistent reduction (the same)
//   triton_tem_  GEMM template  (triton_tem_fused_mm_0, _addmm_, _bmm_): C [M, N] the last
//                buffer, B [K, N] or [N, K] the second, A (M K elements, any view) the first:
//                F = 2 M N K (x b batched), B = every buffer once (A, B, C, prologue/epilogue
//                inputs); triton_tem_fused_flex_attention_*: FlexAttention, priced as causal
//                attention from q, k, v (the block mask's contents are not recorded: bounded)
// Inductor computes in fp32 (torch._inductor.config.triton.codegen_upcast_to_fp32, default
// True), so pointwise and reduction FLOP are priced on the fp32 vector pipe; one FLOP per
// element is the least a kernel does. Buffers are told apart neither as inputs nor outputs (the
// trace gives no names), so each is counted once: a buffer updated in place (in_out_ptr) is read
// and written but counted once, which keeps the estimate a lower bound. Without the iteration
// counts the FLOP fall back to the largest buffer's elements and the estimate is bounded.

#include <algorithm>    // std::max
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/analysis/ops/dense.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/attention.hpp"

namespace roofline::detail::op_shapes {

/// The Inductor kernel family of an op name: 'p' pointwise, 'r' reduction (red or per),
/// 't' GEMM template, '\0' not an Inductor kernel.
char inductor_family(std::string_view n);

/// The trailing integer Scalars of the arguments (the iteration counts come last), in order.
std::vector<double> trailing_numels(const std::vector<op_argument>& args);

/// The GEMM of an Inductor template: the output C is the last buffer ([M, N], or [b, M, N]
/// for bmm), B the second ([K, N] or [N, K], batched alike) and A the first, holding M K
/// elements (b M K) in whatever view it was passed (a fused prologue reads it as [..., K], a
/// transposed view as [b, L, H, D]); nullopt when the buffers do not form one.
std::optional<op_work> price_triton_template(std::string_view n,
                                             const std::vector<op_argument>& args,
                                             const gpu_spec& g);

/// A FlexAttention template (triton_tem_fused_flex_attention_*, forward): q, k, v
/// [B, H, L, D] first, the output (q's shape) among the later buffers, then the log-sum-exp
/// and the block mask's index tensors. The mask's contents are not recorded: causal is
/// assumed (`create_block_mask` with a causal mask_mod), and the estimate is marked bounded.
/// B = every buffer once.
std::optional<op_work> price_triton_flex_attention(std::string_view n,
                                                   const std::vector<op_argument>& args);

/// An Inductor kernel's work (`n` is the op name: the kernel's name); nullopt for other names.
std::optional<op_work> price_inductor(std::string_view n,
                                      const std::vector<op_argument>& args,
                                      const gpu_spec& g);

}  // namespace roofline::detail::op_shapes

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline::detail::op_shapes {
ROOFLINE_INLINE char inductor_family(std::string_view n) {
    if (n.rfind("triton_poi_", 0) == 0) return 'p';
    if (n.rfind("triton_red_", 0) == 0 || n.rfind("triton_per_", 0) == 0) return 'r';
    if (n.rfind("triton_tem_", 0) == 0) return 't';
    return '\0';
}

ROOFLINE_INLINE std::vector<double> trailing_numels(const std::vector<op_argument>& args) {
    std::vector<double> v;
    for (std::size_t i = args.size(); i-- > 0;) {
        if (args[i].type != "Scalar") break;
        const auto x = concrete_int(args[i].concrete);
        if (!x || *x < 0) break;
        v.insert(v.begin(), static_cast<double>(*x));
    }
    return v;
}

ROOFLINE_INLINE std::optional<op_work> price_triton_template(std::string_view n,
                                                             const std::vector<op_argument>& args,
                                                             const gpu_spec& g) {
    std::vector<const op_argument*> t;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (const auto* a = tensor_at(args, i)) t.push_back(a);
    if (t.size() < 3 || !dtype_of(t[0]) || !dtype_of(t[1])) return std::nullopt;
    const auto& b = t[1]->shape();
    const auto& c = t.back()->shape();
    if (c.size() != b.size() || (c.size() != 2 && c.size() != 3)) return std::nullopt;
    const bool batched = c.size() == 3;
    if (batched && b[0] != c[0]) return std::nullopt;
    const double batch = batched ? double(c[0]) : 1.0;
    const double M = double(c[c.size() - 2]), N = double(c.back());
    const double b0 = double(b[b.size() - 2]), b1 = double(b.back());
    const double K = b1 == N ? b0 : (b0 == N ? b1 : -1.0);
    if (!(K > 0) || t[0]->elements() != batch * M * K) return std::nullopt;
    const dtype da = *dtype_of(t[0]), db = *dtype_of(t[1]);
    auto w = make_gemm({M, N, K, batch}, da, db, da, g,
                       std::string(n) + " " + shape_text(t[0]->shape()) + " x " + shape_text(b) +
                           " -> " + shape_text(c));
    w.kind = "triton_gemm";
    double bytes = 0;
    for (const auto* x : t) bytes += x->bytes();
    w.work.bytes_at(memory_level::dram) = bytes;
    w.assumptions.push_back(
        "every buffer argument (operands, output, prologue/epilogue inputs) moved once");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_triton_flex_attention(std::string_view n,
                                                                   const std::vector<op_argument>& args) {
    const op_argument *Q = tensor_at(args, 0), *K = tensor_at(args, 1), *V = tensor_at(args, 2);
    if (!Q || !K || !V || !Q->element_dtype || Q->shape().size() != 4 || K->shape().size() != 4 ||
        V->shape().size() != 4)
        return std::nullopt;
    const auto &q = Q->shape(), &k = K->shape(), &v = V->shape();
    const double B = double(q[0]), H = double(q[1]), Lq = double(q[2]), D = double(q[3]),
                 Lk = double(k[2]), Dv = double(v[3]);
    const double pairs = attention_pairs({1, Lq, Lk - Lq}, 0.0, Lk >= Lq);
    op_work w = bytes_work("attention", tensor_bytes_from(args, 0),
                           std::string(n) + " q " + shape_text(q) + " kv " + shape_text(k) + " " +
                               Q->type + " causal");
    w.work.flops_at(peak_of(*Q->element_dtype)) = B * H * pairs * 2.0 * (D + Dv);
    mark_bounded(w, "the block mask's contents are not recorded: causal assumed");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_inductor(std::string_view n,
                                                      const std::vector<op_argument>& args,
                                                      const gpu_spec& g) {
    const char family = inductor_family(n);
    if (family == '\0') return std::nullopt;
    if (family == 't') {
        if (n.find("flex_attention") != std::string_view::npos)
            return n.find("backward") == std::string_view::npos
                       ? price_triton_flex_attention(n, args)
                       : std::nullopt;
        return price_triton_template(n, args, g);
    }
    double bytes = 0, largest = 0;
    int buffers = 0;
    for (const auto& a : args)
        if (a.is_tensor() && !a.is_list) {
            bytes += a.bytes();
            largest = std::max(largest, a.elements());
            ++buffers;
        }
    if (buffers == 0) return std::nullopt;
    const auto numels = trailing_numels(args);
    const bool reduction = family == 'r';
    const std::size_t need = reduction ? 2 : 1;
    op_work w = bytes_work(reduction ? "triton_reduction" : "triton_pointwise", bytes,
                           std::string(n) + " " + std::to_string(buffers) + " buffers");
    double elements = largest;
    if (numels.size() >= need) {
        elements = reduction ? numels[numels.size() - 2] * numels.back() : numels.back();
        w.description +=
            reduction ? " x " + std::to_string(static_cast<long long>(numels[numels.size() - 2])) +
                            " r " + std::to_string(static_cast<long long>(numels.back()))
                      : " x " + std::to_string(static_cast<long long>(elements));
    } else {
        mark_bounded(w,
                     "iteration counts (xnumel/r0_numel) not recorded: FLOP from the largest "
                     "buffer's elements");
    }
    w.work.flops_at(peak_key::fp32) = elements;
    w.assumptions.push_back("each buffer argument moved once; one fp32 FLOP per " +
                            std::string(reduction ? "reduced element" : "element"));
    return w;
}

}  // namespace roofline::detail::op_shapes
#endif  // ROOFLINE_BODIES_ANALYSIS
