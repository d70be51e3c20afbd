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
//   triton_tem_  GEMM template  (triton_tem_fused_mm_0, _addmm_, _bmm_): A [M, K] x B [K, N]
//                (or batched [b, M, K] x [b, K, N]) from the first two buffers: F = 2 M N K b,
//                B = every buffer once (A, B, the output and any epilogue input)
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

#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/analysis/ops/dense.hpp"
#include "roofline/core/gpu_spec.hpp"

namespace roofline::detail::op_shapes {

/// The Inductor kernel family of an op name: 'p' pointwise, 'r' reduction (red or per),
/// 't' GEMM template, '\0' not an Inductor kernel.
inline char inductor_family(std::string_view n) {
    if (n.rfind("triton_poi_", 0) == 0) return 'p';
    if (n.rfind("triton_red_", 0) == 0 || n.rfind("triton_per_", 0) == 0) return 'r';
    if (n.rfind("triton_tem_", 0) == 0) return 't';
    return '\0';
}

/// The trailing integer Scalars of the arguments (the iteration counts come last), in order.
inline std::vector<double> trailing_numels(const std::vector<op_argument>& args) {
    std::vector<double> v;
    for (std::size_t i = args.size(); i-- > 0;) {
        if (args[i].type != "Scalar") break;
        const auto x = concrete_int(args[i].concrete);
        if (!x || *x < 0) break;
        v.insert(v.begin(), static_cast<double>(*x));
    }
    return v;
}

/// The GEMM of an Inductor template from its first two buffers; nullopt when they do not form
/// one.
inline std::optional<op_work> price_triton_template(std::string_view n,
                                                    const std::vector<op_argument>& args,
                                                    const gpu_spec& g) {
    std::vector<const op_argument*> t;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (const auto* a = tensor_at(args, i)) t.push_back(a);
    if (t.size() < 2 || !dtype_of(t[0]) || !dtype_of(t[1])) return std::nullopt;
    const auto& a = t[0]->shape();
    const auto& b = t[1]->shape();
    gemm_shape s;
    if (a.size() == 2 && b.size() == 2 && a[1] == b[0])
        s = {double(a[0]), double(b[1]), double(a[1]), 1};
    else if (a.size() == 3 && b.size() == 3 && a[0] == b[0] && a[2] == b[1])
        s = {double(a[1]), double(b[2]), double(a[2]), double(a[0])};
    else
        return std::nullopt;
    const dtype da = *dtype_of(t[0]), db = *dtype_of(t[1]);
    auto w =
        make_gemm(s, da, db, da, g, std::string(n) + " " + shape_text(a) + " x " + shape_text(b));
    w.kind = "triton_gemm";
    double bytes = 0;
    for (const auto* x : t) bytes += x->bytes();
    w.work.bytes_at(memory_level::dram) = bytes;
    w.assumptions.push_back("every buffer argument (operands, output, epilogue inputs) moved once");
    return w;
}

/// An Inductor kernel's work (`n` is the op name: the kernel's name); nullopt for other names.
inline std::optional<op_work> price_inductor(std::string_view n,
                                             const std::vector<op_argument>& args,
                                             const gpu_spec& g) {
    const char family = inductor_family(n);
    if (family == '\0') return std::nullopt;
    if (family == 't') return price_triton_template(n, args, g);
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
