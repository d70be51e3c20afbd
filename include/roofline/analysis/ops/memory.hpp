#pragma once
// Memory-bound aten op families: each priced by the bytes it must move (every operand read or
// written once), FLOP only where the op does arithmetic per element.
//
//   norms      rms_norm, layer_norm, group_norm, softmax: input read, output written, weights
//                and bias read (bytes only)
//   gathers    embedding, index_select, gather: index read, the gathered rows read (each at most
//                once: a repeated row re-reads from L2) and written; broadcast (stride-0) inputs count
//                their distinct elements (`op_argument::distinct_elements`);
//                _index_put_impl_: values read and scattered (indices not recorded: bounded);
//                index_add_: index and source read, the slices of self they hit read and written;
//                index_copy_: index and source read, source's slices written
//   cat        aten::cat / stack: the list's element type is not recorded, so 1 byte per element
//                (the smallest) is assumed and the estimate is marked bounded
//   reductions mean, sum, amax, amin, argmax, linalg_vector_norm, all, any: input read, output (the
//   input
//                without the reduced dims, from `Concrete Inputs`) written; 1 FLOP per input
//                element (fp32 vector pipe)
//   arange     the output written
//   ordering   sort, topk, cumsum, bincount: input read, outputs (values, int64 indices) written
//   elementwise arithmetic, casts, copies, fill/zero: bytes of the tensors read plus the output
//                written; 1 FLOP per output element for add/sub/mul/div (fp32 vector pipe)

#include <algorithm>    // std::max
#include <cmath>        // std::ceil
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/core/dtype.hpp"

namespace roofline::detail::op_shapes {

/// Names of the norm and softmax ops `price_norm` takes (without "aten::").
bool is_norm_op(std::string_view n);

/// Norms and softmax: read the input (and weights), write the output.
std::optional<op_work> price_norm(std::string_view n, const std::vector<op_argument>& args);

/// aten::embedding(weight [V, D], indices): gather rows of the table.
std::optional<op_work> price_embedding(const std::vector<op_argument>& args);

/// The dimension `d` of a rank-`rank` tensor, negative values counted from the end.
std::optional<std::size_t> dim_index(std::int64_t d, std::size_t rank);

/// aten::index_select(self, dim, index [M]): the M selected slices read and written, index read.
std::optional<op_work> price_index_select(const std::vector<op_argument>& args);

/// aten::gather(self, dim, index[, sparse_grad, out]): one element of self read per index,
/// the output (index's shape, self's type) written.
std::optional<op_work> price_gather(const std::vector<op_argument>& args);

/// aten::_index_put_impl_(self, indices, values, accumulate, unsafe): values read and written
/// into self (read too when accumulating); the index tensors' sizes are not recorded.
std::optional<op_work> price_index_put(const std::vector<op_argument>& args);

/// aten::index_add_(self, dim, index, source, alpha): index and source read; the slices of self
/// they land on read and written. Which slices (the index values) is not recorded: distinct
/// indices are assumed, so min(index length, self's size along dim) slices (bounded).
std::optional<op_work> price_index_add(const std::vector<op_argument>& args);

/// aten::index_copy_(self, dim, index, source): index and source read, source's slices written
/// into self.
std::optional<op_work> price_index_copy(const std::vector<op_argument>& args);

/// aten::cat / stack (TensorList, dim): every element read and written once. Kineto records no
/// element type for a TensorList, so 1 byte per element (the smallest type) is assumed.
std::optional<op_work> price_cat(std::string_view n, const std::vector<op_argument>& args);

/// Names of the reductions `price_reduction` takes (without "aten::").
bool is_reduction_op(std::string_view n);

/// Reductions: input read, output written. The reduced dims are a `Concrete Inputs` list
/// (argument 1; 2 for linalg_vector_norm, after `ord`); none (or a one-argument call) reduces
/// everything to one element. Without Concrete Inputs the output is bounded by one element.
std::optional<op_work> price_reduction(std::string_view n,
                                       const std::vector<op_argument>& args);

/// Names of the ordering ops `price_ordering` takes (without "aten::").
bool is_ordering_op(std::string_view n);

/// Sorting and scans, each element moved once (a multi-pass radix sort moves more: a bound
/// below the truth, as every price here):
///   sort(self, stable, dim, descending): self read, values and int64 indices written;
///   topk(self, k, dim, largest, sorted): self read, k values and int64 indices per row written;
///   cumsum(self, dim, dtype): self read, the same size written;
///   bincount(self, weights, minlength): self read, `minlength` int64 bins written (more when a
///   value reaches past minlength, which the trace does not say: bounded).
std::optional<op_work> price_ordering(std::string_view n,
                                      const std::vector<op_argument>& args);

/// aten::arange(start, end, step, out): ceil((end - start) / step) elements of out's type written
/// (`out` is recorded before it is resized, so its own shape is [0]); integer bounds only.
std::optional<op_work> price_arange(const std::vector<op_argument>& args);

/// Elementwise arithmetic, casts, copies and fills (`n` without "aten::"); nullopt for names
/// the table does not know.
std::optional<op_work> price_elementwise(std::string_view n,
                                         const std::vector<op_argument>& args);

}  // namespace roofline::detail::op_shapes

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline::detail::op_shapes {
ROOFLINE_INLINE bool is_norm_op(std::string_view n) {
    return one_of(n,
                  {"rms_norm", "_fused_rms_norm", "layer_norm", "native_layer_norm", "group_norm",
                   "native_group_norm", "softmax", "_softmax", "log_softmax", "_log_softmax"});
}

ROOFLINE_INLINE std::optional<op_work> price_norm(std::string_view n, const std::vector<op_argument>& args) {
    const auto tensor = [&](std::size_t i) { return tensor_at(args, i); };
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
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_embedding(const std::vector<op_argument>& args) {
    const auto tensor = [&](std::size_t i) { return tensor_at(args, i); };
    const op_argument *W = tensor(0), *I = tensor(1);
    if (!W || !I || W->shape().size() != 2) return std::nullopt;
    op_work w;
    w.kind = "copy";
    const double row = double(W->shape()[1]) * W->element_bytes;
    w.work.bytes_at(memory_level::dram) = I->bytes() + 2.0 * I->elements() * row;
    w.work.launches = 1;
    w.description = "embedding " + std::to_string(static_cast<long long>(I->elements())) +
                    " rows of " + shape_text(W->shape());
    return w;
}

ROOFLINE_INLINE std::optional<std::size_t> dim_index(std::int64_t d, std::size_t rank) {
    const auto r = static_cast<std::int64_t>(rank);
    if (d < 0) d += r;
    if (d < 0 || d >= r) return std::nullopt;
    return static_cast<std::size_t>(d);
}

ROOFLINE_INLINE std::optional<op_work> price_index_select(const std::vector<op_argument>& args) {
    const op_argument *S = tensor_at(args, 0), *I = tensor_at(args, 2);
    if (!S || !I || args.size() < 3) return std::nullopt;
    const auto d = concrete_int(args[1].concrete);
    if (!d) return std::nullopt;
    const auto at = dim_index(*d, S->shape().size());
    if (!at) return std::nullopt;
    auto o = S->shape();
    o[*at] = static_cast<std::int64_t>(I->elements());
    const double out_bytes = product(o, 0, o.size()) * S->element_bytes;
    // Selected slices are read at most once each from DRAM (a repeated index re-reads from L2).
    const double read = std::min(out_bytes, S->bytes());
    return bytes_work("copy", I->bytes() + read + out_bytes,
                      "index_select " + std::to_string(static_cast<long long>(I->elements())) +
                          " of " + shape_text(S->shape()) + " " + S->type);
}

ROOFLINE_INLINE std::optional<op_work> price_gather(const std::vector<op_argument>& args) {
    const op_argument *S = tensor_at(args, 0), *I = tensor_at(args, 2);
    if (!S || !I) return std::nullopt;
    // DRAM reads each gathered element of self at most once: a gather of more elements than
    // self holds re-reads them (from L2), so the read is the smaller of the two.
    const double read = std::min(I->elements(), S->distinct_elements()) * S->element_bytes;
    return bytes_work(
        "copy", I->bytes() + read + I->elements() * S->element_bytes,
        "gather " + shape_text(I->shape()) + " from " + shape_text(S->shape()) + " " + S->type);
}

ROOFLINE_INLINE std::optional<op_work> price_index_put(const std::vector<op_argument>& args) {
    const op_argument *S = tensor_at(args, 0), *V = tensor_at(args, 2);
    if (!S || !V) return std::nullopt;
    const bool accumulate = args.size() > 3 && args[3].concrete == "True";
    const double moved = V->elements() * S->element_bytes;
    auto w = bytes_work(
        "copy", V->bytes() + moved * (accumulate ? 2.0 : 1.0),
        "index_put " + shape_text(V->shape()) + " into " + shape_text(S->shape()) + " " + S->type);
    mark_bounded(w, "the index tensors' sizes are not recorded: their reads are not counted");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_index_add(const std::vector<op_argument>& args) {
    const op_argument *S = tensor_at(args, 0), *I = tensor_at(args, 2), *X = tensor_at(args, 3);
    if (!S || !I || !X || args.size() < 4) return std::nullopt;
    const auto d = concrete_int(args[1].concrete);
    const auto at = d ? dim_index(*d, S->shape().size()) : std::nullopt;
    if (!at || S->shape()[*at] <= 0) return std::nullopt;
    const double along = double(S->shape()[*at]);
    const double slice = S->elements() / along;
    const double touched = std::min(I->elements(), along) * slice;
    auto w = bytes_work(
        "copy", I->bytes() + X->bytes() + 2.0 * touched * S->element_bytes,
        "index_add_ " + shape_text(X->shape()) + " into " + shape_text(S->shape()) + " " + S->type);
    mark_bounded(w,
                 "index values not recorded: distinct indices assumed (each slice of self "
                 "touched once)");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_index_copy(const std::vector<op_argument>& args) {
    const op_argument *S = tensor_at(args, 0), *I = tensor_at(args, 2), *X = tensor_at(args, 3);
    if (!S || !I || !X) return std::nullopt;
    return bytes_work("copy", I->bytes() + X->bytes() + X->elements() * S->element_bytes,
                      "index_copy_ " + shape_text(X->shape()) + " into " + shape_text(S->shape()) +
                          " " + S->type);
}

ROOFLINE_INLINE std::optional<op_work> price_cat(std::string_view n, const std::vector<op_argument>& args) {
    if (args.empty() || !args[0].is_list || args[0].shapes.empty()) return std::nullopt;
    const double elements = args[0].elements();
    std::string parts;
    for (const auto& s : args[0].shapes) parts += (parts.empty() ? "" : ", ") + shape_text(s);
    auto w = bytes_work("copy", 2.0 * elements,
                        std::string(n) + " of " + std::to_string(args[0].shapes.size()) +
                            " tensors (" + parts + ")");
    mark_bounded(w, "element type of the TensorList not recorded: 1 byte per element assumed");
    return w;
}

ROOFLINE_INLINE bool is_reduction_op(std::string_view n) {
    return one_of(n, {"mean", "sum", "amax", "amin", "linalg_vector_norm", "all", "any", "max",
                      "min", "prod", "argmax", "argmin"});
}

ROOFLINE_INLINE std::optional<op_work> price_reduction(std::string_view n,
                                                       const std::vector<op_argument>& args) {
    const op_argument* X = tensor_at(args, 0);
    if (!X) return std::nullopt;
    const std::size_t at = n == "linalg_vector_norm" ? 2 : 1;
    const bool keep_rows = one_of(n, {"max", "min"}) && args.size() > 1;  // max(self, dim) form
    if (keep_rows) return std::nullopt;  // values + indices: not modelled
    const auto& shape = X->shape();
    double out_elements = 1;
    bool known = true;
    if (at < args.size() && args[at].type == "ScalarList") {
        const auto dims = concrete_ints(args[at].concrete);
        if (!dims) {
            known = false;
        } else {
            std::vector<bool> reduced(shape.size(), dims->empty());
            for (auto d : *dims) {
                const auto i = dim_index(d, shape.size());
                if (!i) return std::nullopt;
                reduced[*i] = true;
            }
            for (std::size_t i = 0; i < shape.size(); ++i)
                if (!reduced[i]) out_elements *= static_cast<double>(shape[i]);
        }
    } else if (at < args.size() && args[at].type == "Scalar") {  // a single int dim
        const auto d = concrete_int(args[at].concrete);
        const auto i = d ? dim_index(*d, shape.size()) : std::nullopt;
        if (!i)
            known = false;
        else
            out_elements = X->elements() / std::max<double>(1.0, static_cast<double>(shape[*i]));
    }
    const double out_bytes =
        out_elements * (one_of(n, {"all", "any"})         ? 1.0
                        : one_of(n, {"argmax", "argmin"}) ? 8.0  // int64 indices
                                                          : X->element_bytes);
    auto w = bytes_work("reduction", X->bytes() + out_bytes,
                        std::string(n) + " " + shape_text(shape) + " " + X->type);
    w.work.flops_at(X->element_dtype == dtype::fp64 ? peak_key::fp64 : peak_key::fp32) =
        X->elements();
    if (!known) mark_bounded(w, "reduced dims not recorded: an output of one element assumed");
    return w;
}

ROOFLINE_INLINE bool is_ordering_op(std::string_view n) {
    return one_of(n, {"sort", "topk", "cumsum", "bincount"});
}

ROOFLINE_INLINE std::optional<op_work> price_ordering(std::string_view n,
                                                      const std::vector<op_argument>& args) {
    const op_argument* X = tensor_at(args, 0);
    if (!X) return std::nullopt;
    const auto& shape = X->shape();
    const std::string desc = std::string(n) + " " + shape_text(shape) + " " + X->type;
    if (n == "sort") return bytes_work("copy", 2.0 * X->bytes() + 8.0 * X->elements(), desc);
    if (n == "cumsum") return bytes_work("copy", 2.0 * X->bytes(), desc);
    if (n == "topk") {
        const auto k = args.size() > 1 ? concrete_int(args[1].concrete) : std::nullopt;
        std::optional<std::int64_t> d = std::int64_t{-1};
        if (args.size() > 2 && !args[2].concrete.empty()) d = concrete_int(args[2].concrete);
        const auto at = d ? dim_index(*d, shape.size()) : std::nullopt;
        if (!k || !at || shape[*at] <= 0) return std::nullopt;
        const double out = X->elements() / double(shape[*at]) * double(*k);
        return bytes_work("copy", X->bytes() + out * (X->element_bytes + 8.0), desc);
    }
    // bincount
    const op_argument* W = tensor_at(args, 1);
    const auto minlength = args.size() > 2 ? concrete_int(args[2].concrete) : std::nullopt;
    const double bins = minlength ? double(*minlength) : 0.0;
    auto w = bytes_work(
        "copy", X->bytes() + (W ? W->bytes() : 0.0) + bins * (W ? W->element_bytes : 8.0), desc);
    mark_bounded(w, "bins written: at least minlength (the largest value is not recorded)");
    return w;
}

ROOFLINE_INLINE std::optional<op_work> price_arange(const std::vector<op_argument>& args) {
    if (args.size() < 4 || args[3].element_bytes <= 0) return std::nullopt;
    const auto a = concrete_int(args[0].concrete), b = concrete_int(args[1].concrete),
               s = concrete_int(args[2].concrete);
    if (!a || !b || !s || *s == 0) return std::nullopt;
    const double n = std::max(0.0, std::ceil((double(*b) - double(*a)) / double(*s)));
    return bytes_work(
        "copy", n * args[3].element_bytes,
        "arange of " + std::to_string(static_cast<long long>(n)) + " " + args[3].type);
}

ROOFLINE_INLINE std::optional<op_work> price_elementwise(std::string_view n,
                                                         const std::vector<op_argument>& args) {
    const auto tensor = [&](std::size_t i) { return tensor_at(args, i); };
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
        {"add", 3, 1, false},
        {"sub", 3, 1, false},
        {"rsub", 3, 1, false},
        {"mul", 2, 1, false},
        {"div", 2, 1, false},
        {"maximum", 2, 1, false},
        {"minimum", 2, 1, false},
        {"neg", 1, 0, false},
        {"abs", 1, 0, false},
        {"exp", 1, 0, false},
        {"log", 1, 0, false},
        {"sqrt", 1, 0, false},
        {"rsqrt", 1, 0, false},
        {"sin", 1, 0, false},
        {"cos", 1, 0, false},
        {"tanh", 1, 0, false},
        {"sigmoid", 1, 0, false},
        {"silu", 1, 0, false},
        {"gelu", 2, 0, false},
        {"relu", 1, 0, false},
        {"reciprocal", 1, 0, false},
        {"square", 1, 0, false},
        {"pow", 2, 0, false},
        {"clamp", 3, 0, false},
        {"clamp_min", 2, 0, false},
        {"clamp_max", 2, 0, false},
        {"where", 3, 0, false},
        {"masked_fill", 3, 0, false},
        {"sign", 1, 0, false},
        {"eq", 2, 0, true},
        {"ne", 2, 0, true},
        {"lt", 2, 0, true},
        {"le", 2, 0, true},
        {"gt", 2, 0, true},
        {"ge", 2, 0, true},
        {"logical_not", 1, 0, true},
        {"floor_divide", 2, 0, false},
        {"remainder", 2, 0, false},
        {"bitwise_and", 2, 0, false},
        {"bitwise_or", 2, 0, false},
        {"bitwise_not", 1, 0, false},
        {"logical_and", 2, 0, true},
        {"logical_or", 2, 0, true},
        {"copy", 3, 0, false},
        {"clone", 2, 0, false},
        {"contiguous", 2, 0, false},
        {"_to_copy", 7, 0, false},
        {"fill", 2, 0, false},
        {"zero", 1, 0, false},
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
                w.assumptions.push_back("_to_copy output dtype not recorded: the input's assumed");
        }
    }
    w.work.bytes_at(memory_level::dram) = read + written;
    if (e->flops > 0)
        w.work.flops_at(self->element_dtype == dtype::fp64 ? peak_key::fp64 : peak_key::fp32) =
            e->flops * out_elements;
    w.work.launches = 1;
    w.description = std::string(n) + " " + shape_text(self->shape()) + " " + self->type;
    return w;
}

}  // namespace roofline::detail::op_shapes
#endif  // ROOFLINE_BODIES_ANALYSIS
