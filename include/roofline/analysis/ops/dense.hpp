#pragma once
// Tensor-core op families priced from recorded shapes: GEMMs, grouped GEMMs and SDPA attention.
//
//   GEMMs      aten::mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm
//                F = 2 m n k x batch,  B = (m k a + k n b + m n c) x batch  (models/gemm.hpp),
//                rate class from the operands' dtypes (`gemm_compute_path`: fp32 operands run on
//                the fp32 vector pipe, PyTorch's default without TF32). These are TraceLens's GEMM
//                formulas (tests/analysis/op_workload_test.cpp checks the agreement).
//   grouped    aten::_grouped_mm (MoE experts): A [M, K] x B [G, K, N] with offsets: F = 2 M K N;
//                weights of the groups that receive rows (G (1 - (1 - 1/G)^M) of them when rows
//                spread uniformly, models/moe.hpp `expected_active_experts`), A read, C written
//   attention  SDPA and its backends (flash, efficient, cuDNN): q [B, Hq, Lq, D],
//                k/v [B, Hkv, Lk, D/Dv]; F = B Hq pairs 2 (D + Dv) with pairs from
//                models/attention.hpp (causal: sum over queries of the keys each sees);
//                B = q + o + k + v (+ mask/bias) read or written once
//   conv       aten::cudnn_convolution, convolution, _convolution (not transposed): input
//                [N, C, spatial...], weight [O, C / groups, kernel...]; output spatial
//                floor((i + 2 p - d (k - 1) - 1) / s) + 1 (the formula of the PyTorch Conv docs);
//                F = 2 N O prod(out) (C / groups) prod(kernel), B = input + weight + output
//                (+ bias) once; fp32 at the TF32 rate when `allow_tf32` is True (cuDNN's default,
//                torch.backends.cudnn.allow_tf32)

#include <cmath>        // std::floor
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/moe.hpp"

namespace roofline::detail::op_shapes {

/// c10::ScalarType codes of `out_dtype` arguments (c10/core/ScalarType.h: 5 Half, 6 Float,
/// 15 BFloat16).
std::optional<dtype> scalar_type_code(std::string_view s);

op_work make_gemm(const gemm_shape& shape, dtype a, dtype b, dtype c, const gpu_spec& g,
                  std::string desc);

/// Names of the GEMM ops `price_gemm` takes (without "aten::").
bool is_gemm_op(std::string_view n);

/// aten GEMMs (`n` without "aten::"); nullopt when the shapes do not form a GEMM.
std::optional<op_work> price_gemm(std::string_view n, const std::vector<op_argument>& args,
                                  const gpu_spec& g);

/// aten::_grouped_mm (MoE experts); nullopt when the shapes are not one of its layouts.
std::optional<op_work> price_grouped_mm(const std::vector<op_argument>& args,
                                        const gpu_spec& g);

/// Names of the SDPA ops `price_sdpa` takes (without "aten::").
bool is_sdpa_op(std::string_view n);

/// SDPA and its backends; nullopt when q, k, v are not 4-d tensors.
std::optional<op_work> price_sdpa(std::string_view n, const std::vector<op_argument>& args);

/// Names of the convolutions `price_conv` takes (without "aten::").
bool is_conv_op(std::string_view n);

/// A forward convolution from its input, weight and the stride/padding/dilation lists.
std::optional<op_work> price_conv(std::string_view n, const std::vector<op_argument>& args,
                                  const gpu_spec& g);

}  // namespace roofline::detail::op_shapes

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline::detail::op_shapes {
ROOFLINE_INLINE std::optional<dtype> scalar_type_code(std::string_view s) {
    if (s == "15") return dtype::bf16;
    if (s == "5") return dtype::fp16;
    if (s == "6") return dtype::fp32;
    return std::nullopt;
}

ROOFLINE_INLINE op_work make_gemm(const gemm_shape& shape, dtype a, dtype b, dtype c, const gpu_spec& g,
                                  std::string desc) {
    op_work w;
    const auto path = gemm_compute_path(b, a, g);
    w.work = gemm_workload(shape, a, b, c, path.peak);
    w.kind = "gemm";
    w.description = std::move(desc);  // appended piece by piece (g++ 12 -Wrestrict false positive)
    w.description.append(" ").append(to_string(a));
    if (a != b) w.description.append("/").append(to_string(b));
    w.description.append(" at the ").append(to_string(path.peak)).append(" rate");
    if (!path.note.empty()) w.assumptions.push_back(path.note);
    if (a == dtype::fp32 && path.peak == peak_key::fp32)
        w.assumptions.push_back(
            "fp32 GEMM priced on the fp32 vector pipe (PyTorch's default, TF32 off)");
    return w;
}

ROOFLINE_INLINE bool is_gemm_op(std::string_view n) {
    return one_of(n, {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_scaled_mm"});
}

ROOFLINE_INLINE std::optional<op_work> price_gemm(std::string_view n, const std::vector<op_argument>& args,
                                                  const gpu_spec& g) {
    const auto tensor = [&](std::size_t i) { return tensor_at(args, i); };
    const auto dt = [](const op_argument* a) { return dtype_of(a); };
    std::optional<op_work> out;
    const bool has_bias_first = one_of(n, {"addmm", "baddbmm"});
    const op_argument* A = tensor(has_bias_first ? 1 : 0);
    const op_argument* B = tensor(has_bias_first ? 2 : 1);
    if (!A || !B || !dt(A) || !dt(B)) return std::nullopt;
    const auto& sa = A->shape();
    const auto& sb = B->shape();
    gemm_shape s;
    std::string desc = std::string(n) + " " + shape_text(sa) + " x " + shape_text(sb);
    if (n == "linear") {  // input [..., k], weight [n, k]
        if (sa.empty() || sb.size() != 2 || sa.back() != sb[1]) return std::nullopt;
        s = {product(sa, 0, sa.size() - 1), double(sb[0]), double(sb[1]), 1};
    } else if (sa.size() == 2 && sb.size() == 2) {
        if (sa[1] != sb[0]) return std::nullopt;
        s = {double(sa[0]), double(sb[1]), double(sa[1]), 1};
    } else if (sa.size() >= 3 && sb.size() == 2) {  // matmul folding leading dims into m
        if (sa.back() != sb[0]) return std::nullopt;
        s = {product(sa, 0, sa.size() - 1), double(sb[1]), double(sb[0]), 1};
    } else if (sa.size() >= 3 && sb.size() >= 3) {
        if (sa.back() != sb[sb.size() - 2]) return std::nullopt;
        std::vector<std::int64_t> ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
        const auto batch = broadcast({&ba, &bb});
        if (!batch) return std::nullopt;
        s = {double(sa[sa.size() - 2]), double(sb.back()), double(sa.back()),
             product(*batch, 0, batch->size())};
    } else {
        return std::nullopt;
    }
    dtype c = *dt(A);
    std::vector<std::string> notes;
    if (n == "_scaled_mm") {
        std::optional<dtype> o;
        for (std::size_t i = 4; i < args.size() && !o; ++i) o = scalar_type_code(args[i].concrete);
        c = o.value_or(dtype::bf16);
        if (!o) notes.push_back("_scaled_mm output dtype not recorded: bf16 assumed");
    }
    out = make_gemm(s, *dt(A), *dt(B), c, g, desc);
    // Bias (addmm/baddbmm first argument, linear third) is read once.
    const op_argument* bias = has_bias_first ? tensor(0) : (n == "linear" ? tensor(2) : nullptr);
    if (bias) out->work.bytes_at(memory_level::dram) += bias->bytes();
    for (auto& x : notes) out->assumptions.push_back(std::move(x));
    return out;
}

ROOFLINE_INLINE std::optional<op_work> price_grouped_mm(const std::vector<op_argument>& args,
                                                        const gpu_spec& g) {
    const auto tensor = [&](std::size_t i) { return tensor_at(args, i); };
    const auto dt = [](const op_argument* a) { return dtype_of(a); };
    const op_argument* A = tensor(0);
    const op_argument* B = tensor(1);
    if (!A || !B || !dt(A) || !dt(B)) return std::nullopt;
    const auto& sa = A->shape();
    const auto& sb = B->shape();
    const dtype a = *dt(A), b = *dt(B);
    const auto path = gemm_compute_path(b, a, g);
    op_work w;
    w.kind = "grouped_gemm";
    w.description = "_grouped_mm " + shape_text(sa) + " x " + shape_text(sb) + " " +
                    std::string(to_string(a)) + " at the " + std::string(to_string(path.peak)) +
                    " rate";
    if (sa.size() == 2 && sb.size() == 3 && sa[1] == sb[1]) {
        // A [M, K] rows split into G groups by offsets; B [G, K, N].
        const double M = double(sa[0]), K = double(sa[1]), G = double(sb[0]), N = double(sb[2]);
        const double active = M > 0 ? expected_active_experts(G, 1, M) : 0.0;
        w.work.flops_at(path.peak) = 2.0 * M * K * N;
        w.work.bytes_at(memory_level::dram) = active * K * N * bytes_per_element(b) +
                                              M * K * bytes_per_element(a) +
                                              M * N * bytes_per_element(a);
        w.assumptions.push_back("rows spread uniformly over the " +
                                std::to_string(static_cast<long long>(G)) + " groups: weights of " +
                                std::to_string(static_cast<long long>(active + 0.5)) +
                                " groups read");
    } else if (sa.size() == 3 && sb.size() == 3 && sa[0] == sb[0] && sa[2] == sb[1]) {
        const double G = double(sa[0]), M = double(sa[1]), K = double(sa[2]), N = double(sb[2]);
        w.work = gemm_workload({M, N, K, G}, a, b, a, path.peak);
    } else if (sa.size() == 2 && sb.size() == 2 && sa[1] == sb[0]) {
        // Grouped along K (weight gradients): output [G, M, N], G from the offsets.
        const op_argument* offs = tensor(2);
        const double G = offs && !offs->shape().empty() ? double(offs->shape()[0]) : 1.0;
        const double M = double(sa[0]), K = double(sa[1]), N = double(sb[1]);
        w.work.flops_at(path.peak) = 2.0 * M * K * N;
        w.work.bytes_at(memory_level::dram) =
            (M * K + K * N) * bytes_per_element(a) + G * M * N * bytes_per_element(a);
    } else {
        return std::nullopt;
    }
    if (!path.note.empty()) w.assumptions.push_back(path.note);
    w.work.launches = 1;
    return w;
}

ROOFLINE_INLINE bool is_sdpa_op(std::string_view n) {
    return one_of(n,
                  {"scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
                   "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
                   "_scaled_dot_product_fused_attention_overrideable", "_cudnn_attention_forward",
                   "_flash_attention_forward", "_efficient_attention_forward"});
}

ROOFLINE_INLINE std::optional<op_work> price_sdpa(std::string_view n, const std::vector<op_argument>& args) {
    const auto tensor = [&](std::size_t i) { return tensor_at(args, i); };
    const auto dt = [](const op_argument* a) { return dtype_of(a); };
    const op_argument *Q = tensor(0), *K = tensor(1), *V = tensor(2);
    if (!Q || !K || !V || !dt(Q) || Q->shape().size() != 4 || K->shape().size() != 4 ||
        V->shape().size() != 4)
        return std::nullopt;
    // Backends below SDPA take [B, L, H, D]; SDPA itself [B, H, L, D].
    const bool blhd = one_of(n, {"_flash_attention_forward", "_efficient_attention_forward"});
    const auto& q = Q->shape();
    const auto& k = K->shape();
    const auto& v = V->shape();
    const double B = double(q[0]);
    const double Hq = double(blhd ? q[2] : q[1]), Lq = double(blhd ? q[1] : q[2]), D = double(q[3]);
    const double Lk = double(blhd ? k[1] : k[2]);
    const double Dv = double(v[3]);
    // Position of is_causal (bool) or custom_mask_type (int: 0 none) in the op's schema
    // (aten/src/ATen/native/native_functions.yaml).
    std::size_t at = 0;
    bool mask_type = false;
    if (n == "scaled_dot_product_attention")
        at = 5;
    else if (n == "_scaled_dot_product_flash_attention")
        at = 4;
    else if (n == "_scaled_dot_product_efficient_attention" ||
             n == "_scaled_dot_product_cudnn_attention")
        at = 6;
    else if (n == "_cudnn_attention_forward")
        at = 10;
    else if (n == "_flash_attention_forward")
        at = 8;
    else if (n == "_efficient_attention_forward")
        at = 9, mask_type = true;
    std::optional<bool> causal;
    if (at > 0 && at < args.size() && !args[at].concrete.empty()) {
        const auto& c = args[at].concrete;
        if (mask_type)
            causal = c != "0";
        else if (c == "True")
            causal = true;
        else if (c == "False")
            causal = false;
    }
    op_work w;
    w.kind = "attention";
    if (!causal && Lq > 1)
        w.assumptions.push_back("is_causal not recorded: priced causal (the smaller work)");
    const bool is_causal = causal.value_or(Lq > 1) && Lk >= Lq;
    const double pairs = attention_pairs({1, Lq, Lk - Lq}, 0.0, is_causal);
    const dtype act = *dt(Q);
    w.work.flops_at(peak_of(act)) = B * Hq * pairs * 2.0 * (D + Dv);
    double bytes = Q->bytes() + K->bytes() + V->bytes() + B * Hq * Lq * Dv * bytes_per_element(act);
    for (std::size_t i = 3; i < args.size(); ++i)  // attention mask / bias, sequence offsets
        if (args[i].is_tensor() && !args[i].is_list) bytes += args[i].bytes();
    w.work.bytes_at(memory_level::dram) = bytes;
    w.work.launches = 1;
    w.description = std::string(n) + " q " + shape_text(q) + " kv " + shape_text(k) + " " +
                    std::string(to_string(act)) + (is_causal ? " causal" : "");
    return w;
}

ROOFLINE_INLINE bool is_conv_op(std::string_view n) {
    return one_of(n, {"cudnn_convolution", "convolution", "_convolution"});
}

ROOFLINE_INLINE std::optional<op_work> price_conv(std::string_view n, const std::vector<op_argument>& args,
                                                  const gpu_spec& g) {
    const op_argument *X = tensor_at(args, 0), *W = tensor_at(args, 1);
    if (!X || !W || !dtype_of(X) || !dtype_of(W)) return std::nullopt;
    const auto& x = X->shape();
    const auto& k = W->shape();
    if (x.size() < 3 || k.size() != x.size()) return std::nullopt;
    // Argument positions (native_functions.yaml): cudnn_convolution(self, weight, padding,
    // stride, dilation, groups, benchmark, deterministic, allow_tf32); convolution and
    // _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    // groups, ...; _convolution's allow_tf32 last, at 12).
    const bool cudnn = n == "cudnn_convolution";
    const std::size_t at_pad = cudnn ? 2 : 4, at_stride = 3, at_dil = cudnn ? 4 : 5,
                      at_groups = cudnn ? 5 : 8, at_tf32 = cudnn ? 8 : 12;
    if (args.size() <= at_groups) return std::nullopt;
    if (!cudnn && args[6].concrete == "True") return std::nullopt;  // transposed
    const auto list = [&](std::size_t i) { return concrete_ints(args[i].concrete); };
    const auto pad = list(at_pad), stride = list(at_stride), dil = list(at_dil);
    const auto groups = concrete_int(args[at_groups].concrete);
    const std::size_t sd = x.size() - 2;
    const auto item = [&](const std::optional<std::vector<std::int64_t>>& v, std::size_t i) {
        return v->size() == 1 ? (*v)[0] : (*v)[i];
    };
    if (!pad || !stride || !dil || !groups || *groups < 1 || pad->empty() || stride->empty() ||
        dil->empty() || (pad->size() != 1 && pad->size() != sd) ||
        (stride->size() != 1 && stride->size() != sd) || (dil->size() != 1 && dil->size() != sd))
        return std::nullopt;
    double out_spatial = 1, kernel = 1;
    std::vector<std::int64_t> out = {x[0], k[0]};
    for (std::size_t i = 0; i < sd; ++i) {  // in double: no overflow on absurd inputs
        const double s = double(item(stride, i));
        if (s < 1) return std::nullopt;
        const double o = std::floor((double(x[2 + i]) + 2.0 * double(item(pad, i)) -
                                     double(item(dil, i)) * (double(k[2 + i]) - 1.0) - 1.0) /
                                    s) +
                         1.0;
        if (!(o >= 1) || o > 9e15) return std::nullopt;
        out.push_back(static_cast<std::int64_t>(o));
        out_spatial *= o;
        kernel *= double(k[2 + i]);
    }
    const double N = double(x[0]), O = double(k[0]), C = double(x[1]);
    if (double(k[1]) * double(*groups) != C) return std::nullopt;
    dtype a = *dtype_of(X), b = *dtype_of(W);
    const bool tf32 = a == dtype::fp32 && args.size() > at_tf32 && args[at_tf32].concrete == "True";
    auto path = gemm_compute_path(tf32 ? dtype::tf32 : b, tf32 ? dtype::tf32 : a, g);
    op_work w;
    w.kind = "conv";
    w.work.flops_at(path.peak) = 2.0 * N * O * out_spatial * (C / double(*groups)) * kernel;
    const double out_bytes = product(out, 0, out.size()) * X->element_bytes;
    w.work.bytes_at(memory_level::dram) =
        X->bytes() + W->bytes() + out_bytes +
        (!cudnn && tensor_at(args, 2) ? tensor_at(args, 2)->bytes() : 0.0);
    w.work.launches = 1;
    w.description = std::string(n) + " " + shape_text(x) + " * " + shape_text(k) + " -> " +
                    shape_text(out) + " " + std::string(to_string(a)) + " at the " +
                    std::string(to_string(path.peak)) + " rate";
    if (!path.note.empty()) w.assumptions.push_back(path.note);
    return w;
}

}  // namespace roofline::detail::op_shapes
#endif  // ROOFLINE_BODIES_ANALYSIS
