#pragma once
// The work a profiled operator had to do, from the inputs the profiler recorded: one entry
// point, `price_op`, over the op families of analysis/ops/:
//
//   ops/arguments.hpp  parsing `Input Dims` / `Input type` / `Concrete Inputs` and the op's own
//                      allocations; `op_work` (counted or bounded)
//   ops/dense.hpp      GEMMs (mm, addmm, bmm, linear, _scaled_mm), _grouped_mm, SDPA backends,
//                      cuDNN convolutions
//   ops/memory.hpp     norms, softmax, embedding, index_select, gather, index_put, index_add, cat,
//                      reductions, sort/topk/cumsum/bincount, arange, elementwise, casts,
//                      copies, fills
//   ops/inductor.hpp   torch.compile kernels (triton_poi_, triton_red_, triton_per_, triton_tem_)
//   ops/engine.hpp     vLLM's own ops (moe_forward, unified_attention, RMSNorm, rotary, fp8
//                      quantization, KV-cache writes) and symm_mem all-reduces
//
// A kernel is linked to the innermost op that launched it, so those inputs price the kernel.
// Every number is a lower bound on the work (each operand moved once), which is what a roofline
// compares the measured time with; where a size had to be assumed, the result says so and is
// marked `op_estimate::bounded`. An op the table does not know returns nothing, never a guess.

#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/analysis/ops/dense.hpp"
#include "roofline/analysis/ops/engine.hpp"
#include "roofline/analysis/ops/inductor.hpp"
#include "roofline/analysis/ops/memory.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/trace/kernel_event.hpp"

namespace roofline {

/// The work of `op` on `g` (the GPU decides the GEMM rate class), or nullopt when the op is
/// not one the tables price or its shapes are missing.
std::optional<op_work> price_op(const cpu_op& op, const gpu_spec& g);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::op_shapes {

/// The aten op `n` (without "aten::"), or nullopt.
inline std::optional<op_work> price_aten(std::string_view n, const std::vector<op_argument>& args,
                                         const gpu_spec& g) {
    if (is_gemm_op(n)) return price_gemm(n, args, g);
    if (n == "_grouped_mm") return price_grouped_mm(args, g);
    if (is_sdpa_op(n)) return price_sdpa(n, args);
    if (is_conv_op(n)) return price_conv(n, args, g);
    if (is_norm_op(n)) return price_norm(n, args);
    if (n == "embedding") return price_embedding(args);
    if (n == "index_select") return price_index_select(args);
    if (n == "gather") return price_gather(args);
    if (n == "_index_put_impl_") return price_index_put(args);
    if (n == "index_add_" || n == "index_add") return price_index_add(args);
    if (n == "index_copy_" || n == "index_copy") return price_index_copy(args);
    if (one_of(n, {"cat", "stack"})) return price_cat(n, args);
    if (is_reduction_op(n)) return price_reduction(n, args);
    if (is_ordering_op(n)) return price_ordering(n, args);
    if (n == "arange") return price_arange(args);
    return price_elementwise(n, args);
}

}  // namespace detail::op_shapes

ROOFLINE_INLINE std::optional<op_work> price_op(const cpu_op& op, const gpu_spec& g) {
    using namespace detail::op_shapes;
    const auto parsed = op_arguments(op);
    if (!parsed) return std::nullopt;
    const auto& args = *parsed;
    std::optional<op_work> out;
    if (op.name.rfind("aten::", 0) == 0 || op.name.find("::") == std::string_view::npos)
        out = inductor_family(op.name) != '\0' ? price_inductor(op.name, args, g)
                                               : price_aten(bare(op.name), args, g);
    else
        out = price_engine(op.name, args, op, g);
    if (out) {
        for (const auto& a : args) out->tensor_bytes += a.bytes();
        if (out->work.launches == 0) out->work.launches = 1;
    }
    return out;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
