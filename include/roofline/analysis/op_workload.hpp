#pragma once
// The work a profiled PyTorch operator had to do, from the shapes the profiler recorded.
//
// With `record_shapes=True` every `cpu_op` of a Kineto trace carries `Input Dims` (one shape per
// argument, a list of shapes for a TensorList), `Input type` (the element type of each argument)
// and `Concrete Inputs` (the values of scalar arguments, as text). A kernel is linked to the
// innermost op that launched it, so those shapes price the kernel:
//
//   GEMMs      aten::mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm
//                F = 2 m n k x batch,  B = (m k a + k n b + m n c) x batch  (models/gemm.hpp),
//                rate class from the operands' dtypes (`gemm_compute_path`: fp32 operands run on
//                the fp32 vector pipe, PyTorch's default without TF32)
//   grouped    aten::_grouped_mm (MoE experts): A [M, K] x B [G, K, N] with offsets: F = 2 M K N;
//                weights of the groups that receive rows (G (1 - (1 - 1/G)^M) of them when rows
//                spread uniformly, models/moe.hpp `expected_active_experts`), A read, C written
//   attention  SDPA and its backends (flash, efficient, cuDNN): q [B, Hq, Lq, D],
//                k/v [B, Hkv, Lk, D/Dv]; F = B Hq pairs 2 (D + Dv) with pairs from
//                models/attention.hpp (causal: sum over queries of the keys each sees);
//                B = q + o + k + v (+ mask/bias) read or written once
//   memory ops elementwise arithmetic, casts and copies, fill/zero, norms, softmax,
//                embedding: bytes of the tensors read plus the output written; 1 FLOP per
//                output element for add/sub/mul/div (on the fp32 vector pipe), none otherwise
// Every number is a lower bound on the work (each operand moved once), which is what a roofline
// compares the measured time with. An op the table does not know returns nothing, never a guess.

#include <algorithm>    // std::max
#include <cmath>        // std::pow
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/trace/kernel_event.hpp"

namespace roofline {

/// One argument of a profiled op: a tensor (shape + element type), a list of tensors, or a
/// non-tensor (Scalar, None, ScalarList).
struct op_argument {
    std::vector<std::vector<std::int64_t>>
        shapes;                ///< one shape for a tensor, several for a TensorList
    bool is_list = false;      ///< TensorList
    std::string type;          ///< `Input type` text: "c10::BFloat16", "float", "Scalar", ""
    std::string concrete;      ///< `Concrete Inputs` text: "True", "0.", "" (unknown)
    double element_bytes = 0;  ///< 0 for non-tensors
    std::optional<dtype> element_dtype;  ///< for float types the models know

    bool is_tensor() const { return element_bytes > 0 && !shapes.empty(); }
    /// Elements of a tensor (a 0-dimensional tensor has one); summed over a TensorList.
    double elements() const {
        double n = 0;
        for (const auto& s : shapes) {
            double e = 1;
            for (auto d : s) e *= static_cast<double>(d);
            n += e;
        }
        return n;
    }
    double bytes() const { return is_tensor() ? elements() * element_bytes : 0.0; }
    /// The single shape of a tensor argument (empty for lists and non-tensors).
    const std::vector<std::int64_t>& shape() const {
        static const std::vector<std::int64_t> none;
        return !is_list && shapes.size() == 1 ? shapes.front() : none;
    }
};

/// What one op had to do.
struct op_work {
    workload work;     ///< FLOP, minimum DRAM bytes, one launch
    std::string kind;  ///< "gemm", "grouped_gemm", "attention", "elementwise", "copy", "norm"
    std::string description;               ///< e.g. "mm [16384x16384] x [16384x16384] bf16"
    std::vector<std::string> assumptions;  ///< what the shapes did not say and was assumed
    double tensor_bytes = 0;  ///< bytes of all tensor arguments (the working set, for the L2 check)
};

namespace detail::op_shapes {

/// Bytes and dtype of a PyTorch element type name as Kineto writes it (`Input type`).
inline bool element_type(std::string_view t, double& bytes, std::optional<dtype>& d) {
    struct entry {
        std::string_view name;
        double bytes;
        std::optional<dtype> d;
    };
    static const entry table[] = {
        {"c10::BFloat16", 2, dtype::bf16},
        {"c10::Half", 2, dtype::fp16},
        {"float", 4, dtype::fp32},
        {"double", 8, dtype::fp64},
        {"c10::Float8_e4m3fn", 1, dtype::fp8_e4m3},
        {"c10::Float8_e4m3fnuz", 1, dtype::fp8_e4m3},
        {"c10::Float8_e5m2", 1, dtype::fp8_e5m2},
        {"c10::Float8_e5m2fnuz", 1, dtype::fp8_e5m2},
        {"c10::Float8_e8m0fnu", 1, std::nullopt},
        {"c10::Float4_e2m1fn_x2", 1, std::nullopt},
        {"long int", 8, std::nullopt},
        {"int", 4, std::nullopt},
        {"short int", 2, std::nullopt},
        {"signed char", 1, dtype::int8},
        {"unsigned char", 1, std::nullopt},
        {"bool", 1, std::nullopt},
        {"c10::complex<float>", 8, std::nullopt},
        {"c10::complex<double>", 16, std::nullopt},
        {"c10::complex<c10::Half>", 4, std::nullopt},
    };
    for (const auto& e : table)
        if (e.name == t) {
            bytes = e.bytes;
            d = e.d;
            return true;
        }
    return false;
}

/// A tiny reader of the compact JSON Kineto writes for `Input Dims` (nested integer lists) and
/// for `Input type` / `Concrete Inputs` (lists of strings).
class list_reader {
  public:
    explicit list_reader(std::string_view s) : s_(s) {}

    /// `Input Dims`: a list whose items are shapes ([1,2]), lists of shapes ([[1,2],[3]]) or [].
    bool dims(std::vector<std::vector<std::vector<std::int64_t>>>& out, std::vector<bool>& lists) {
        if (!eat('[')) return false;
        if (eat(']')) return done();
        for (;;) {
            std::vector<std::vector<std::int64_t>> arg;
            bool list = false;
            if (!eat('[')) return false;
            if (eat(']')) {
                arg.emplace_back();  // [] : a 0-dimensional tensor or a non-tensor (decided by the
                                     // type)
            } else if (peek() == '[') {
                list = true;
                for (;;) {
                    std::vector<std::int64_t> shape;
                    if (!ints(shape)) return false;
                    arg.push_back(std::move(shape));
                    if (eat(',')) continue;
                    if (eat(']')) break;
                    return false;
                }
            } else {
                std::vector<std::int64_t> shape;
                --i_;  // back onto the '[' for ints()
                if (!ints(shape)) return false;
                arg.push_back(std::move(shape));
            }
            out.push_back(std::move(arg));
            lists.push_back(list);
            if (eat(',')) continue;
            if (eat(']')) return done();
            return false;
        }
    }

    /// A list of strings (escapes \" and \\ understood).
    bool strings(std::vector<std::string>& out) {
        if (!eat('[')) return false;
        if (eat(']')) return done();
        for (;;) {
            ws();
            if (i_ >= s_.size() || s_[i_] != '"') return false;
            ++i_;
            std::string v;
            while (i_ < s_.size() && s_[i_] != '"') {
                if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
                v += s_[i_++];
            }
            if (i_ >= s_.size()) return false;
            ++i_;
            out.push_back(std::move(v));
            if (eat(',')) continue;
            if (eat(']')) return done();
            return false;
        }
    }

  private:
    void ws() {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
            ++i_;
    }
    char peek() {
        ws();
        return i_ < s_.size() ? s_[i_] : '\0';
    }
    bool eat(char c) {
        ws();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    bool done() {
        ws();
        return i_ == s_.size();
    }
    bool ints(std::vector<std::int64_t>& shape) {
        if (!eat('[')) return false;
        if (eat(']')) return true;
        for (;;) {
            ws();
            bool neg = false;
            if (i_ < s_.size() && s_[i_] == '-') neg = true, ++i_;
            if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return false;
            std::int64_t v = 0;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') v = v * 10 + (s_[i_++] - '0');
            shape.push_back(neg ? -v : v);
            if (eat(',')) continue;
            if (eat(']')) return true;
            return false;
        }
    }
    std::string_view s_;
    std::size_t i_ = 0;
};

inline std::string shape_text(const std::vector<std::int64_t>& s) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) out += 'x';
        out += std::to_string(s[i]);
    }
    return out + "]";
}

inline double product(const std::vector<std::int64_t>& s, std::size_t from, std::size_t to) {
    double p = 1;
    for (std::size_t i = from; i < to && i < s.size(); ++i) p *= static_cast<double>(s[i]);
    return p;
}

/// `name` without the "aten::" namespace.
inline std::string_view bare(std::string_view name) {
    if (name.rfind("aten::", 0) == 0) name.remove_prefix(6);
    return name;
}

inline bool one_of(std::string_view n, std::initializer_list<std::string_view> names) {
    for (auto x : names)
        if (n == x) return true;
    return false;
}

/// NumPy/PyTorch broadcast of shapes; empty optional when they do not broadcast.
inline std::optional<std::vector<std::int64_t>> broadcast(
    const std::vector<const std::vector<std::int64_t>*>& shapes) {
    std::size_t rank = 0;
    for (auto* s : shapes) rank = std::max(rank, s->size());
    std::vector<std::int64_t> out(rank, 1);
    for (auto* s : shapes)
        for (std::size_t i = 0; i < s->size(); ++i) {
            const std::size_t o = rank - s->size() + i;
            const auto d = (*s)[i];
            if (d == 1) continue;
            if (out[o] == 1)
                out[o] = d;
            else if (out[o] != d)
                return std::nullopt;
        }
    return out;
}

/// c10::ScalarType codes of `out_dtype` arguments (c10/core/ScalarType.h: 5 Half, 6 Float,
/// 15 BFloat16).
inline std::optional<dtype> scalar_type_code(std::string_view s) {
    if (s == "15") return dtype::bf16;
    if (s == "5") return dtype::fp16;
    if (s == "6") return dtype::fp32;
    return std::nullopt;
}

inline op_work make_gemm(const gemm_shape& shape, dtype a, dtype b, dtype c, const gpu_spec& g,
                         std::string desc) {
    op_work w;
    const auto path = gemm_compute_path(b, a, g);
    w.work = gemm_workload(shape, a, b, c, path.peak);
    w.kind = "gemm";
    w.description = std::move(desc) + " " + std::string(to_string(a)) +
                    (a == b ? std::string() : "/" + std::string(to_string(b))) + " at the " +
                    std::string(to_string(path.peak)) + " rate";
    if (!path.note.empty()) w.assumptions.push_back(path.note);
    if (a == dtype::fp32 && path.peak == peak_key::fp32)
        w.assumptions.push_back(
            "fp32 GEMM priced on the fp32 vector pipe (PyTorch's default, TF32 off)");
    return w;
}

}  // namespace detail::op_shapes

/// The arguments of `op` (shapes, types, concrete values), or nullopt when the op has no
/// `Input Dims` or they do not parse.
inline std::optional<std::vector<op_argument>> op_arguments(const cpu_op& op) {
    using namespace detail::op_shapes;
    if (op.input_dims.empty()) return std::nullopt;
    std::vector<std::vector<std::vector<std::int64_t>>> dims;
    std::vector<bool> lists;
    if (!list_reader(op.input_dims).dims(dims, lists)) return std::nullopt;
    std::vector<std::string> types, concrete;
    if (!op.input_types.empty() && !list_reader(op.input_types).strings(types)) types.clear();
    if (!op.concrete_inputs.empty() && !list_reader(op.concrete_inputs).strings(concrete))
        concrete.clear();
    std::vector<op_argument> args(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
        auto& a = args[i];
        a.shapes = std::move(dims[i]);
        a.is_list = lists[i];
        if (i < types.size()) a.type = types[i];
        if (i < concrete.size()) a.concrete = concrete[i];
        double b = 0;
        std::optional<dtype> d;
        if (element_type(a.type, b, d)) {
            a.element_bytes = b;
            a.element_dtype = d;
        } else if (a.type == "TensorList" && a.is_list) {
            a.element_bytes = 0;  // element type of a list is not recorded
        }
    }
    return args;
}

/// The work of `op` on `g` (the GPU decides the GEMM rate class), or nullopt when the op is
/// not one the table prices or its shapes are missing.
inline std::optional<op_work> price_op(const cpu_op& op, const gpu_spec& g) {
    using namespace detail::op_shapes;
    const auto parsed = op_arguments(op);
    if (!parsed) return std::nullopt;
    const auto& args = *parsed;
    const std::string_view n = bare(op.name);
    const auto tensor = [&](std::size_t i) -> const op_argument* {
        return i < args.size() && args[i].is_tensor() && !args[i].is_list ? &args[i] : nullptr;
    };
    const auto dt = [](const op_argument* a) { return a ? a->element_dtype : std::nullopt; };
    std::optional<op_work> out;

    // ---- GEMMs ----
    if (one_of(n, {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_scaled_mm"})) {
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
            for (std::size_t i = 4; i < args.size() && !o; ++i)
                o = scalar_type_code(args[i].concrete);
            c = o.value_or(dtype::bf16);
            if (!o) notes.push_back("_scaled_mm output dtype not recorded: bf16 assumed");
        }
        out = make_gemm(s, *dt(A), *dt(B), c, g, desc);
        // Bias (addmm/baddbmm first argument, linear third) is read once.
        const op_argument* bias =
            has_bias_first ? tensor(0) : (n == "linear" ? tensor(2) : nullptr);
        if (bias) out->work.bytes_at(memory_level::dram) += bias->bytes();
        for (auto& x : notes) out->assumptions.push_back(std::move(x));
    }

    // ---- grouped GEMM (MoE experts) ----
    else if (n == "_grouped_mm") {
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
            w.assumptions.push_back(
                "rows spread uniformly over the " + std::to_string(static_cast<long long>(G)) +
                " groups: weights of " + std::to_string(static_cast<long long>(active + 0.5)) +
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
        out = std::move(w);
    }

    // ---- attention ----
    else if (one_of(
                 n,
                 {"scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
                  "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
                  "_scaled_dot_product_fused_attention_overrideable", "_cudnn_attention_forward",
                  "_flash_attention_forward", "_efficient_attention_forward"})) {
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
        const double Hq = double(blhd ? q[2] : q[1]), Lq = double(blhd ? q[1] : q[2]),
                     D = double(q[3]);
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
        double bytes =
            Q->bytes() + K->bytes() + V->bytes() + B * Hq * Lq * Dv * bytes_per_element(act);
        for (std::size_t i = 3; i < args.size(); ++i)  // attention mask / bias, sequence offsets
            if (args[i].is_tensor() && !args[i].is_list) bytes += args[i].bytes();
        w.work.bytes_at(memory_level::dram) = bytes;
        w.work.launches = 1;
        w.description = std::string(n) + " q " + shape_text(q) + " kv " + shape_text(k) + " " +
                        std::string(to_string(act)) + (is_causal ? " causal" : "");
        out = std::move(w);
    }

    // ---- norms and softmax: read the input (and weights), write the output ----
    else if (one_of(n,
                    {"rms_norm", "_fused_rms_norm", "layer_norm", "native_layer_norm", "group_norm",
                     "native_group_norm", "softmax", "_softmax", "log_softmax", "_log_softmax"})) {
        const op_argument* X = tensor(0);
        if (!X) return std::nullopt;
        op_work w;
        w.kind = "norm";
        double bytes = 2.0 * X->bytes();
        for (std::size_t i = 1; i < args.size(); ++i)
            if (args[i].is_tensor() && !args[i].is_list) bytes += args[i].bytes();  // weight, bias
        w.work.bytes_at(memory_level::dram) = bytes;
        w.work.launches = 1;
        w.description = std::string(n) + " " + shape_text(X->shape()) + " " + X->type;
        w.assumptions.push_back("priced by bytes only");
        out = std::move(w);
    }

    // ---- embedding: gather rows of the table ----
    else if (n == "embedding") {
        const op_argument *W = tensor(0), *I = tensor(1);
        if (!W || !I || W->shape().size() != 2) return std::nullopt;
        op_work w;
        w.kind = "copy";
        const double row = double(W->shape()[1]) * W->element_bytes;
        w.work.bytes_at(memory_level::dram) = I->bytes() + 2.0 * I->elements() * row;
        w.work.launches = 1;
        w.description = "embedding " + std::to_string(static_cast<long long>(I->elements())) +
                        " rows of " + shape_text(W->shape());
        out = std::move(w);
    }

    // ---- cat and other TensorList ops: the list's element type is not recorded, so their
    // bytes are unknown and they stay unpriced ----

    // ---- elementwise, casts, copies, fills ----
    else {
        std::string_view base = n;
        const bool in_place = !base.empty() && base.back() == '_' && base.front() != '_';
        if (in_place) base.remove_suffix(1);
        struct ew {
            std::string_view name;
            std::size_t arity;  ///< arguments of the functional form; one more tensor is `out`
            double flops;       ///< per output element
            bool bool_out;
        };
        static const ew table[] = {
            {"add", 3, 1, false},         {"sub", 3, 1, false},       {"rsub", 3, 1, false},
            {"mul", 2, 1, false},         {"div", 2, 1, false},       {"maximum", 2, 1, false},
            {"minimum", 2, 1, false},     {"neg", 1, 0, false},       {"abs", 1, 0, false},
            {"exp", 1, 0, false},         {"log", 1, 0, false},       {"sqrt", 1, 0, false},
            {"rsqrt", 1, 0, false},       {"sin", 1, 0, false},       {"cos", 1, 0, false},
            {"tanh", 1, 0, false},        {"sigmoid", 1, 0, false},   {"silu", 1, 0, false},
            {"gelu", 2, 0, false},        {"relu", 1, 0, false},      {"reciprocal", 1, 0, false},
            {"square", 1, 0, false},      {"pow", 2, 0, false},       {"clamp", 3, 0, false},
            {"clamp_min", 2, 0, false},   {"clamp_max", 2, 0, false}, {"where", 3, 0, false},
            {"masked_fill", 3, 0, false}, {"sign", 1, 0, false},      {"eq", 2, 0, true},
            {"ne", 2, 0, true},           {"lt", 2, 0, true},         {"le", 2, 0, true},
            {"gt", 2, 0, true},           {"ge", 2, 0, true},         {"logical_not", 1, 0, true},
            {"copy", 3, 0, false},        {"clone", 2, 0, false},     {"contiguous", 2, 0, false},
            {"_to_copy", 7, 0, false},    {"fill", 2, 0, false},      {"zero", 1, 0, false},
        };
        const ew* e = nullptr;
        for (const auto& x : table)
            if (x.name == base) e = &x;
        if (!e) return std::nullopt;
        std::vector<const op_argument*> reads;
        const op_argument* out_arg = nullptr;
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (!args[i].is_tensor() || args[i].is_list) continue;
            if (!in_place && i >= e->arity && !out_arg)
                out_arg = &args[i];
            else
                reads.push_back(&args[i]);
        }
        const op_argument* self = tensor(base == "where" ? 1 : 0);  // where(cond, self, other)
        if (!self) return std::nullopt;
        op_work w;
        w.kind = e->flops > 0 ? "elementwise" : "copy";
        double written = 0, read = 0, out_elements = 0;
        if (in_place) {
            // self is written; copy_/fill_/zero_ do not read it.
            const bool writes_only = base == "copy" || base == "fill" || base == "zero";
            for (auto* r : reads)
                if (!(writes_only && r == self)) read += r->bytes();
            written = self->bytes();
            out_elements = self->elements();
        } else {
            std::vector<const std::vector<std::int64_t>*> shapes;
            for (auto* r : reads) {
                read += r->bytes();
                shapes.push_back(&r->shape());
            }
            if (out_arg) {
                written = out_arg->bytes();
                out_elements = out_arg->elements();
            } else {
                const auto o = broadcast(shapes);
                if (!o) return std::nullopt;
                out_elements = product(*o, 0, o->size());
                written = out_elements * (e->bool_out ? 1.0 : self->element_bytes);
                if (base == "_to_copy")
                    w.assumptions.push_back(
                        "_to_copy output dtype not recorded: the input's assumed");
            }
        }
        w.work.bytes_at(memory_level::dram) = read + written;
        if (e->flops > 0)
            w.work.flops_at(self->element_dtype == dtype::fp64 ? peak_key::fp64 : peak_key::fp32) =
                e->flops * out_elements;
        w.work.launches = 1;
        w.description = std::string(n) + " " + shape_text(self->shape()) + " " + self->type;
        out = std::move(w);
    }

    if (out) {
        for (const auto& a : args) out->tensor_bytes += a.bytes();
        if (out->work.launches == 0) out->work.launches = 1;
    }
    return out;
}

}  // namespace roofline
