#pragma once
// The recorded inputs of a profiled op and the shape of a priced answer (`op_work`).
//
// With `record_shapes=True` every `cpu_op` of a Kineto trace carries `Input Dims` (one shape per
// argument, a list of shapes for a TensorList), `Input type` (the element type of each argument)
// and `Concrete Inputs` (the values of scalar arguments, as text); the reader adds the sizes of
// the tensors an op allocated itself (`cpu_op::allocations`). This header parses them; the
// op families that price them are the other headers of analysis/ops/.

#include <algorithm>         // std::max
#include <cstdint>           // std::int64_t
#include <initializer_list>  // std::initializer_list
#include <limits>            // std::numeric_limits
#include <optional>          // std::optional
#include <string>            // std::string
#include <string_view>       // std::string_view
#include <vector>            // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/workload.hpp"
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
    /// `Input Strides` of a tensor, in elements, one per dimension of `shape()`; empty when not
    /// recorded or not matching the shape (then the tensor is taken as dense).
    std::vector<std::int64_t> strides;

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
    /// Distinct elements of storage a tensor addresses: `elements()` for a dense tensor; fewer
    /// for a broadcast view (a stride-0 dimension, `expand`): the extent 1 + sum (size-1) x
    /// |stride| where that is smaller. Memory traffic counts these; FLOP counts `elements()`.
    double distinct_elements() const {
        const double n = elements();
        const auto& s = shape();
        if (strides.empty() || strides.size() != s.size() || n == 0) return n;
        double extent = 1;
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s[i] > 1) extent += static_cast<double>(s[i] - 1) * static_cast<double>(strides[i] < 0 ? -strides[i] : strides[i]);
        return extent < n ? extent : n;
    }
    /// Bytes of storage the tensor addresses (`distinct_elements()` x element size); 0 for
    /// non-tensors.
    double bytes() const { return is_tensor() ? distinct_elements() * element_bytes : 0.0; }
    /// The single shape of a tensor argument (empty for lists and non-tensors).
    const std::vector<std::int64_t>& shape() const {
        static const std::vector<std::int64_t> none;
        return !is_list && shapes.size() == 1 ? shapes.front() : none;
    }
};

/// Whether an op's work was counted from its inputs or only bounded from below.
enum class op_estimate : std::uint8_t {
    counted,  ///< every operand and FLOP follows from the recorded inputs
    bounded,  ///< some size was not recorded: the work is a lower bound (`bound_reason` says why)
};

/// "counted" or "bounded".
constexpr std::string_view to_string(op_estimate e) {
    return e == op_estimate::counted ? "counted" : "bounded";
}

/// What one op had to do.
struct op_work {
    workload work;  ///< FLOP, minimum DRAM bytes (and link bytes for collectives), one launch
    /// "gemm", "grouped_gemm", "moe", "attention", "elementwise", "copy", "norm", "reduction",
    /// "quantize", "collective", "triton_pointwise", "triton_reduction", "triton_gemm", "conv"
    std::string kind;
    std::string description;               ///< e.g. "mm [16384x16384] x [16384x16384] bf16"
    std::vector<std::string> assumptions;  ///< what the shapes did not say and was assumed
    double tensor_bytes = 0;  ///< bytes of all tensor arguments (the working set, for the L2 check)
    op_estimate estimate = op_estimate::counted;
    std::string bound_reason;  ///< what was not recorded, when `estimate` is bounded
};

/// One tensor the op allocated itself (a direct `aten::empty` child, `cpu_op::allocations`).
struct op_allocation {
    std::vector<std::int64_t> shape;
    int scalar_type = -1;  ///< c10::ScalarType code (3 Int, 15 BFloat16, 24 Float8_e4m3fn, ...)
};

/// The arguments of `op` (shapes, types, concrete values), or nullopt when the op has no
/// `Input Dims` or they do not parse.
std::optional<std::vector<op_argument>> op_arguments(const cpu_op& op);

/// The tensors `op` allocated itself (`cpu_op::allocations`), in order; entries whose size or
/// dtype code did not parse are left out. Empty when none was recorded.
std::vector<op_allocation> op_allocations(const cpu_op& op);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
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
        {"long", 8, std::nullopt},  // older profilers' spelling (HTA's A100 traces)
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

    /// A list of string lists (`cpu_op::allocations`: `[["[888, 4]","3"],["[16]","15"]]`).
    bool string_lists(std::vector<std::vector<std::string>>& out) {
        if (!eat('[')) return false;
        if (eat(']')) return done();
        for (;;) {
            ws();
            const std::size_t start = i_;
            if (!skip_strings()) return false;
            std::vector<std::string> one;
            if (!list_reader(s_.substr(start, i_ - start)).strings(one)) return false;
            out.push_back(std::move(one));
            if (eat(',')) continue;
            if (eat(']')) return done();
            return false;
        }
    }

  private:
    // Moves past one list of strings ("[...]"), minding brackets inside the strings.
    bool skip_strings() {
        if (!eat('[')) return false;
        bool in_string = false;
        for (; i_ < s_.size(); ++i_) {
            const char c = s_[i_];
            if (in_string) {
                if (c == '\\')
                    ++i_;
                else if (c == '"')
                    in_string = false;
            } else if (c == '"') {
                in_string = true;
            } else if (c == ']') {
                ++i_;
                return true;
            }
        }
        return false;
    }
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
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
                const int digit = s_[i_++] - '0';
                if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) return false;
                v = v * 10 + digit;
            }
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

/// Argument `i` when it is a single tensor, else nullptr.
inline const op_argument* tensor_at(const std::vector<op_argument>& args, std::size_t i) {
    return i < args.size() && args[i].is_tensor() && !args[i].is_list ? &args[i] : nullptr;
}

/// The float dtype of a tensor argument the models know (nullopt for ints, bools, nullptr).
inline std::optional<dtype> dtype_of(const op_argument* a) {
    return a ? a->element_dtype : std::nullopt;
}

/// Bytes of all single-tensor arguments from index `from` on.
inline double tensor_bytes_from(const std::vector<op_argument>& args, std::size_t from) {
    double b = 0;
    for (std::size_t i = from; i < args.size(); ++i)
        if (args[i].is_tensor() && !args[i].is_list) b += args[i].bytes();
    return b;
}

/// An op_work of `kind` moving `dram_bytes` once, one launch.
inline op_work bytes_work(std::string kind, double dram_bytes, std::string description) {
    op_work w;
    w.kind = std::move(kind);
    w.work.bytes_at(memory_level::dram) = dram_bytes;
    w.work.launches = 1;
    w.description = std::move(description);
    return w;
}

/// Marks `w` as a lower bound, saying what was not recorded (in `bound_reason`, and among the
/// assumptions the report lists as "lower bound: ...").
inline void mark_bounded(op_work& w, const std::string& reason) {
    w.estimate = op_estimate::bounded;
    if (!w.bound_reason.empty()) w.bound_reason += "; ";
    w.bound_reason += reason;
    w.assumptions.push_back("lower bound: " + reason);
}

/// Integer value of a `Concrete Inputs` entry ("888", "-1"); nullopt for "" or non-integers.
inline std::optional<std::int64_t> concrete_int(std::string_view s) {
    if (s.empty()) return std::nullopt;
    bool neg = s.front() == '-';
    if (neg) s.remove_prefix(1);
    if (s.empty() || s.size() > 18) return std::nullopt;
    std::int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return neg ? -v : v;
}

/// Integer list of a `Concrete Inputs` entry ("[888, 4]", "[-1]"); nullopt when not one.
inline std::optional<std::vector<std::int64_t>> concrete_ints(std::string_view s) {
    std::vector<std::vector<std::vector<std::int64_t>>> dims;
    std::vector<bool> lists;
    std::string wrapped;  // built by append: "[" + s + "]" trips g++ 12's -Wrestrict false positive
    wrapped.reserve(s.size() + 2);
    wrapped.append(1, '[').append(s).append(1, ']');
    if (s.empty() || !list_reader(wrapped).dims(dims, lists) || dims.size() != 1 || lists[0] ||
        dims[0].size() != 1)
        return std::nullopt;
    return dims[0][0];
}

}  // namespace detail::op_shapes

ROOFLINE_INLINE std::optional<std::vector<op_argument>> op_arguments(const cpu_op& op) {
    using namespace detail::op_shapes;
    if (op.input_dims.empty()) return std::nullopt;
    std::vector<std::vector<std::vector<std::int64_t>>> dims;
    std::vector<bool> lists;
    if (!list_reader(op.input_dims).dims(dims, lists)) return std::nullopt;
    std::vector<std::string> types, concrete;
    std::vector<std::vector<std::vector<std::int64_t>>> strides;
    std::vector<bool> stride_lists;
    if (!op.input_strides.empty() && (!list_reader(op.input_strides).dims(strides, stride_lists) ||
                                      strides.size() != dims.size()))
        strides.clear();  // unreadable or not one per input: dense, as without strides
    if (!op.input_types.empty() && !list_reader(op.input_types).strings(types)) types.clear();
    if (!op.concrete_inputs.empty() && !list_reader(op.concrete_inputs).strings(concrete))
        concrete.clear();
    std::vector<op_argument> args(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
        auto& a = args[i];
        a.shapes = std::move(dims[i]);
        a.is_list = lists[i];
        if (i < strides.size() && !a.is_list && !stride_lists[i] && strides[i].size() == 1 && a.shapes.size() == 1 &&
            strides[i][0].size() == a.shapes[0].size())
            a.strides = std::move(strides[i][0]);
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

ROOFLINE_INLINE std::vector<op_allocation> op_allocations(const cpu_op& op) {
    using namespace detail::op_shapes;
    std::vector<op_allocation> out;
    if (op.allocations.empty()) return out;
    std::vector<std::vector<std::string>> children;
    if (!list_reader(op.allocations).string_lists(children)) return out;
    for (const auto& c : children) {
        if (c.size() < 2) continue;
        auto shape = concrete_ints(c[0]);
        const auto code = concrete_int(c[1]);
        if (!shape || !code) continue;
        out.push_back({std::move(*shape), static_cast<int>(*code)});
    }
    return out;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
