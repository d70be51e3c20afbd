#pragma once
// Stage 3 of the trace analysis: the work of every activity, in ONE place that tries, per
// activity, every source there is, best evidence first:
//   ncu         an Nsight Compute report's measured FLOP and DRAM/L2 bytes for the kernels it
//               profiled, matched by name and launch order where the grids agree (`recover_from_ncu`);
//   shapes      the launching op's `Input Dims` priced by analysis/op_workload.hpp `price_op`; an
//               op launching several kernels gives its work to its longest kernel, the others
//               are "helpers" without work;
//   collective  NCCL kernels' collective name, message size, group size and dtype, priced as
//               link bytes plus latency (models/collective.hpp; ring unless the name says TREE);
//   bytes       memcpy and memset sizes (device copies read and write DRAM; host copies cross
//               the PCIe host link; peer copies the GPU-to-GPU link);
//   sibling     a kernel without a launching op (launched before profiling started, replayed
//               from a CUDA graph) takes the work of a kernel of the same name and grid that has
//               one;
//   model       `--model` and a batch, for what is still unpriced: each phase's work from
//               models/transformer.hpp times the steps (analysis/trace/steps.hpp), spread over
//               the phase's kernels in proportion to their time.
// Priced at datasheet ceilings the work gives per-roof times (core/roofline.hpp).

#include <algorithm>      // std::max_element, std::sort, std::transform
#include <cctype>         // std::tolower
#include <array>          // std::array
#include <cmath>          // std::isfinite
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int32_t
#include <functional>     // std::hash
#include <map>            // std::map
#include <memory>         // std::shared_ptr
#include <optional>       // std::optional
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <tuple>          // std::tuple
#include <unordered_map>  // std::unordered_map
#include <vector>         // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/op_workload.hpp"
#include "roofline/analysis/trace/gpu_context.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/analysis/trace/steps.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

/// The recovery stage's output: one price per event of the trace (unpriced outside the device).
struct recovered_work {
    std::vector<event_price> prices;       ///< index = event index
    /// Works of the ops that priced kernels, one per distinct op (name, shapes, types, scalars,
    /// allocations; a TF32-retimed GEMM apart): a trace's thousand decode steps share one entry.
    std::vector<op_work> op_works;
    std::vector<std::string> op_names;     ///< launching op of each op-work entry
    /// Index in `kernel_trace::ops` of each op-work entry: the first op of that identity.
    std::vector<std::int32_t> op_index;
    /// The prices' example texts, each stored once (`event_price::example` views them).
    std::shared_ptr<string_pool> strings = std::make_shared<string_pool>();
    std::size_t sibling_priced = 0;        ///< kernels priced from a same-name, same-grid sibling
    std::size_t ncu_matched = 0;           ///< kernels priced from the ncu report
    double tokens = 0;                     ///< `--model`: tokens over all steps
    double unlinked_share = 0;  ///< of GPU time: kernels with no op, no sibling, no model
    /// Kernel time (s) left unpriced after every source, by launching op name, or "kernel NAME"
    /// for a kernel without a launching op; longest first.
    std::vector<std::pair<std::string, double>> unpriced;
    std::vector<std::string> notes;
};

/// The roof times of `p`'s work at datasheet ceilings over its link (`c.pcie` for the PCIe host
/// link, else `c.datasheet`); all zero when `p` is unpriced.
roof_times event_sol(const trace_gpu_context& c, const event_price& p);

/// The tensor pipe activity (% of elapsed cycles) above which a kernel is taken to run MMA work:
/// PyTorch's elementwise, copy and norm kernels, which issue none, read 0.02-2.8% in
/// data/samples/h200-stacks/ncu-graph_decode_b128 (its nvjet GEMMs 30-52%, FA2 decode 52%).
inline constexpr double mma_tensor_pipe_active_pct = 5.0;

/// A profile without tensor FLOP counts (no sm__ops_path_tensor_* metrics collected; its
/// vector FLOP do not include MMA work) whose tensor pipe was active (at least
/// `mma_tensor_pipe_active_pct`):
/// adds to `w` the FLOP those active cycles deliver at `g`'s dense bf16 tensor rate, scaled to
/// the measured SM clock against the clock the peak assumes (tensor_clock_hz, else
/// boost_clock_hz): FLOP = active / 100 x duration x peak x clock / peak clock. True when added;
/// false (and `w` untouched) when the profile counts tensor FLOP, the pipe was idle, or the
/// duration or the bf16 peak is unknown. This makes a GEMM profiled without FLOP metrics read
/// as compute-active rather than 0%, at an estimate the caller notes.
bool add_uncounted_tensor_flops(const kernel_profile& k, const gpu_spec& g, workload& w);

/// Source "ncu": the k-th profiled launch of a kernel name takes the k-th trace kernel of that
/// name (in start order); its measured work replaces any model, unless both give a grid and the
/// grids differ (a report of another run, batch or shape). Unmatched profiles are noted.
void recover_from_ncu(const trace_gpu_context& c, recovered_work& r);

/// The matching of `recover_from_ncu`, one trace kernel at a time: give it the kernels in start
/// order; it says which profile each takes and writes the notes. Holds the report.
class ncu_matcher {
public:
    explicit ncu_matcher(const ncu_report& report);
    /// The index into the report's kernels of the profile the next kernel named `name` with grid
    /// `grid` takes, or -1 (none left for its name, or another grid: counted for the notes).
    int next(std::string_view name, const std::array<std::uint32_t, 3>& grid);
    /// How `price_kernel` went.
    enum class priced : std::uint8_t { no_work, measured, tensor_estimated };
    /// Prices kernel `i` of `c` from profile `j` (`next`'s answer); counts `r.ncu_matched`.
    priced price_kernel(const trace_gpu_context& c, std::size_t i, int j, recovered_work& r) const;
    /// The notes of `recover_from_ncu`, after every kernel went through `next`: `matched` kernels
    /// priced, `estimated` of them with tensor FLOP from the pipe's activity.
    void notes(const trace_gpu_context& c, recovered_work& r, std::size_t matched, std::size_t estimated) const;

private:
    const ncu_report& report_;
    std::map<std::string_view, std::vector<std::size_t>> profiles_;  // match key -> profiles, report order
    std::map<std::string_view, std::size_t> seen_;                   // match key -> trace kernels so far
    std::size_t grid_mismatch_ = 0;
    std::size_t example_profile_ = ~std::size_t(0);  // the first mismatch in report order
    std::string grid_example_;
};

/// An fp32 GEMM whose kernel ran on TF32 tensor cores (CUTLASS `tensorop_s1688gemm`, cuBLAS
/// `..._tf32...` names: the m16n8k8 TF32 MMA) is priced at the TF32 rate, not the fp32 vector
/// pipe the op's dtype alone suggests (PyTorch's matmul default is TF32 off, but cuDNN's and
/// many training scripts' are on). The kernel name is the evidence; the assumption says so.
void retime_tf32_gemm(op_work& w, std::string_view kernel, const gpu_spec& g);

/// Source "shapes": ops with recorded `Input Dims` and a shape model price their kernels (each
/// distinct op once, `op_shape_key`).
void recover_from_shapes(const trace_gpu_context& c, recovered_work& r);

/// Each distinct op's `price_op` result, by content (name, shapes, types, strides, scalars,
/// allocations), for traces read in pieces (the streaming analysis): at most `capacity` entries,
/// then it starts again (pricing is pure, so this only costs time).
class op_price_cache {
public:
    static constexpr std::size_t capacity = 4096;
    /// `price_op(o, g)`, computed once per distinct content while kept.
    const std::optional<op_work>& price(const cpu_op& o, const gpu_spec& g);
    /// The content key of `o`.
    static std::string key(const cpu_op& o);

private:
    std::unordered_map<std::string, std::optional<op_work>> map_;
};

/// Source "shapes" for a piece of a trace whose reader marked each op's longest kernel
/// (`longest[i]`, io/kineto_stream.hpp: the same rule as `recover_from_shapes`' longest kernel,
/// decided once the op's kernels were all read) and gave that kernel's name (`longest_name[i]`,
/// for the TF32 retiming): a kernel of an op that `price_op` prices carries the op's work when
/// marked, else it is a helper.
void recover_from_marked_shapes(const trace_gpu_context& c, const std::vector<char>& longest,
                                const std::vector<std::string_view>& longest_name, op_price_cache& cache,
                                recovered_work& r);

/// Source "collective": NCCL kernels with collective metadata, over the default link; the
/// example text is stored in `strings`.
void recover_collective(const trace_gpu_context& c, std::size_t i, event_price& p, string_pool& strings);

/// Source "bytes": memsets (DRAM writes), device copies (DRAM read + write), host copies (the
/// PCIe host link), peer copies (the GPU-to-GPU link); the example text is stored in `strings`.
void recover_bytes(const trace_gpu_context& c, std::size_t i, event_price& p, string_pool& strings);

/// Source "sibling": a kernel without a launching op (or replayed from a CUDA graph) takes the
/// price of the first kernel of the same name and grid that was priced from its op's shapes;
/// a sibling that is a helper makes it a helper too.
void recover_from_siblings(const trace_gpu_context& c, recovered_work& r);

/// True when kernel `e` priced as `p` can lend its price to siblings (priced from its op's shapes,
/// or a helper of such an op).
bool sibling_donor(const kernel_event& e, const event_price& p);
/// True when kernel `e`, unpriced as `p`, may take a sibling's price (no launching op, or
/// replayed from a CUDA graph).
bool sibling_recipient(const kernel_event& e, const event_price& p);
/// The note for `n` kernels priced from siblings.
std::string sibling_note(std::size_t n);

/// Source "model": `--model` and a batch price each step phase's still-unpriced kernels with the
/// phase's work x `steps`, spread by kernel time; phases that shapes priced keep their shapes.
void recover_from_model(const trace_gpu_context& c, double steps, recovered_work& r);

/// What `--model` pricing needs of the whole window before it prices a kernel, gathered one
/// activity at a time (after every other source priced it): per kernel phase, whether shapes or
/// siblings priced any of it and whether it has kernels; per step phase, the time of its
/// kernels still unpriced.
struct model_plan {
    std::array<bool, kernel_phase_count> shape_priced{}, has_kernels{};
    std::array<double, step_phase_count> unpriced_s{};
    /// Adds activity `e` as priced `p`.
    void add(const kernel_event& e, const event_price& p);
    /// True when step phase `sp` keeps its shapes (a kernel phase of it was shape-priced).
    bool shapes_there(step_phase sp) const;
};
/// The kernels `model_plan` counts as still unpriced (`--model` prices them).
bool model_priceable(const kernel_event& e, const event_price& p);
/// Prices kernel `i` of `c` from `--model` (`model_priceable` and its phase not keeping shapes):
/// its step phase's work x `steps`, times its share of the phase's unpriced time in `plan`.
/// `sm`: the model's step; the example text goes to `r.strings`.
void price_from_model(const trace_gpu_context& c, const step_model& sm, double steps, const model_plan& plan,
                      std::size_t i, recovered_work& r);
/// The model's step for `c`'s options (`--model`, `--batch`); nullopt without them.
std::optional<step_model> model_step_of(const trace_gpu_context& c);
/// The notes and tokens of `--model` pricing.
void model_notes(const trace_gpu_context& c, const step_model& sm, double steps, recovered_work& r);

/// The notes on what no source priced (by op, longest first) and on kernels without a launching
/// op; `r.unpriced` is sorted here. `unlinked`: such kernels left unpriced, `unlinked_s` their
/// time, `all_s` the window's activity time (`r.unlinked_share` is set).
void unpriced_notes(recovered_work& r, std::size_t unlinked, double unlinked_s, double all_s);

/// Runs every source over the analysed device's activities (see the file comment). `steps`:
/// the steps the window holds, for `--model`.
recovered_work recover_work(const trace_gpu_context& c, double steps);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::trace_work {

/// Maps a Kineto/NCCL collective name to the model's op; nullopt for others (send, recv,
/// broadcast).
inline std::optional<collective_op> collective_of(std::string_view name) {
    std::string n;
    for (char c : name)
        if (c != '_') n += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (n.find("allreduce") != std::string::npos) return collective_op::all_reduce;
    if (n.find("allgather") != std::string::npos) return collective_op::all_gather;
    if (n.find("reducescatter") != std::string::npos) return collective_op::reduce_scatter;
    if (n.find("alltoall") != std::string::npos) return collective_op::all_to_all;
    return std::nullopt;
}

inline step_phase step_phase_of(kernel_phase p) {
    switch (p) {
        case kernel_phase::gemm: return step_phase::dense_gemm;
        case kernel_phase::moe_gemm: return step_phase::moe_gemm;
        case kernel_phase::attention: return step_phase::attention;
        case kernel_phase::communication: return step_phase::communication;
        case kernel_phase::sampling: return step_phase::sampling;
        default: return step_phase::norm_elementwise;
    }
}

/// True for a copy between host and device, by its name in either tool: Kineto "Memcpy HtoD
/// (Pinned -> Device)", "Memcpy DtoH ..."; nsys "[CUDA memcpy Host-to-Device]",
/// "[CUDA memcpy Device-to-Host]". Priced over the PCIe host link, not DRAM.
inline bool host_copy(std::string_view name) {
    for (std::string_view k : {"HtoD", "DtoH", "Host-to-Device", "Device-to-Host"})
        if (name.find(k) != std::string_view::npos) return true;
    return false;
}

/// True for a copy between GPUs: Kineto "Memcpy PtoP ...", nsys "[CUDA memcpy Peer-to-Peer]".
inline bool peer_copy(std::string_view name) {
    return name.find("PtoP") != std::string_view::npos ||
           name.find("Peer-to-Peer") != std::string_view::npos;
}

/// The datasheet ceilings an activity crossing `link` is priced at.
inline const ceilings& sol_ceilings(const trace_gpu_context& c, link_roof link) {
    return link == link_roof::host ? c.pcie : c.datasheet;
}

/// Sets `p` to work `w` from `source` (a string literal) crossing `link`, priced at the
/// achievable ceilings with that link's datasheet bandwidth (`sol_ceilings`).
inline void price(event_price& p, const workload& w, std::string_view source, const trace_gpu_context& c,
                  link_roof link = link_roof::peer) {
    p.priced = true;
    p.source = source;
    p.work = w;
    p.link = link;
    const ceilings& sol_c = sol_ceilings(c, link);
    ceilings ach = c.achievable;
    ach.link = sol_c.link;
    ach.link_bytes_per_s = sol_c.link_bytes_per_s;
    p.achievable_s = time_lower_bound(w, ach).lower_bound_s;
}

/// A kernel name as both Nsight Compute and the trace readers agree on it: no "void ", no
/// namespaces, template arguments or parameters ("void at::<unnamed>::layer_norm<T>(int)" and
/// "void at::native::(anonymous namespace)::layer_norm<c10::BFloat16>(...)" -> "layer_norm").
inline std::string_view match_key(std::string_view n) {
    if (n.rfind("void ", 0) == 0) n.remove_prefix(5);
    n = n.substr(0, n.find_first_of("<("));
    while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
    if (const auto p = n.rfind("::"); p != std::string_view::npos) n.remove_prefix(p + 2);
    return n;
}

}  // namespace detail::trace_work

ROOFLINE_INLINE bool add_uncounted_tensor_flops(const kernel_profile& k, const gpu_spec& g, workload& w) {
    if (!k.tensor_flops_by_precision.empty() || !(k.tensor_pipe_active_pct >= mma_tensor_pipe_active_pct) || !(k.duration_s > 0)) return false;
    const auto peak = g.dense_flops_per_s(peak_key::bf16);
    if (!peak || !(*peak > 0)) return false;
    double clock_scale = 1.0;
    const double peak_clock = g.tensor_clock_hz.value_or(g.boost_clock_hz.value_or(0.0));
    if (k.sm_clock_hz > 0 && peak_clock > 0) clock_scale = std::min(1.0, k.sm_clock_hz / peak_clock);
    w.flops_at(peak_key::bf16) += k.tensor_pipe_active_pct / 100.0 * k.duration_s * *peak * clock_scale;
    return true;
}

ROOFLINE_INLINE ncu_matcher::ncu_matcher(const ncu_report& report) : report_(report) {
    for (std::size_t j = 0; j < report.kernels.size(); ++j)
        profiles_[detail::trace_work::match_key(report.kernels[j].name)].push_back(j);
}

ROOFLINE_INLINE int ncu_matcher::next(std::string_view name, const std::array<std::uint32_t, 3>& grid) {
    const auto key = detail::trace_work::match_key(name);
    const auto it = profiles_.find(key);
    if (it == profiles_.end()) return -1;
    std::size_t& n = seen_[it->first];
    if (n >= it->second.size()) {
        ++n;
        return -1;
    }
    const std::size_t j = it->second[n++];
    const auto& k = report_.kernels[j];
    // The same name in the same order is not the same launch when the grid differs: the
    // report is of another run, batch or shape, and its counters do not measure this kernel.
    const auto ncu_grid = parse_dim3(k.grid_size);
    if (ncu_grid != std::array<std::uint32_t, 3>{0, 0, 0} && grid != std::array<std::uint32_t, 3>{0, 0, 0} &&
        ncu_grid != grid) {
        ++grid_mismatch_;
        if (j < example_profile_) {
            example_profile_ = j;
            grid_example_ = std::string(name.substr(0, 60)) + ": grid " + k.grid_size + " in the report, (" +
                            std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
                            ") in the trace";
        }
        return -1;
    }
    return static_cast<int>(j);
}

ROOFLINE_INLINE ncu_matcher::priced ncu_matcher::price_kernel(const trace_gpu_context& c, std::size_t i, int j,
                                                             recovered_work& r) const {
    const auto& k = report_.kernels[static_cast<std::size_t>(j)];
    workload w = k.work();
    const bool estimated = add_uncounted_tensor_flops(k, *c.gpu, w);
    if (!(w.total_flops() > 0) && !(w.dram_bytes() > 0)) return priced::no_work;
    detail::trace_work::price(r.prices[i], w, "ncu", c);
    r.prices[i].example = r.strings->intern("measured by Nsight Compute (launch " + std::to_string(k.id) + ")" +
                                            (estimated ? ", tensor FLOP from tensor pipe activity" : ""));
    ++r.ncu_matched;
    return estimated ? priced::tensor_estimated : priced::measured;
}

ROOFLINE_INLINE void ncu_matcher::notes(const trace_gpu_context& c, recovered_work& r, std::size_t matched_,
                                        std::size_t tensor_estimated_) const {
    std::size_t unmatched = 0;  // profiles beyond the trace kernels of their name
    for (const auto& [key, profiles] : profiles_) {
        const auto it = seen_.find(key);
        const std::size_t n = it == seen_.end() ? 0 : it->second;
        if (profiles.size() > n) unmatched += profiles.size() - n;
    }
    const std::string& file = report_.file;
    const std::size_t total = report_.kernels.size();
    r.notes.push_back(file + ": " + std::to_string(matched_) + " of " + std::to_string(total) +
                      " profiled kernels matched a trace kernel by name and launch order; their "
                      "measured FLOP and DRAM bytes replace the modeled ones" +
                      (unmatched > 0 ? " (" + std::to_string(unmatched) + " matched none)" : ""));
    if (grid_mismatch_ > 0)
        r.notes.push_back(file + ": " + std::to_string(grid_mismatch_) + " of " + std::to_string(total) +
                          " profiled kernels matched a trace kernel by name and order but ran another grid, so "
                          "their counters were not used (a report of another run, batch or shape?), e.g. " +
                          grid_example_);
    if (tensor_estimated_ > 0)
        r.notes.push_back(file + ": " + std::to_string(tensor_estimated_) +
                          " kernels ran on the tensor pipe but the report has no tensor FLOP counts "
                          "(sm__ops_path_tensor_* not collected): their tensor FLOP are estimated as "
                          "the pipe's active cycles at the dense bf16 rate (active % x duration x " +
                          c.gpu->id + "'s bf16 peak, scaled to the measured SM clock), so their "
                          "compute utilisation is the pipe's activity; for fp8 or fp4 MMA that "
                          "undercounts the FLOP by the rate ratio");
}

ROOFLINE_INLINE void recover_from_ncu(const trace_gpu_context& c, recovered_work& r) {
    if (!c.options->ncu) return;
    const auto& t = *c.trace;
    ncu_matcher m(*c.options->ncu);
    std::size_t matched = 0, estimated = 0;
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        if (e.activity != gpu_activity::kernel) continue;
        const int j = m.next(e.name, e.grid);
        if (j < 0) continue;
        const auto how = m.price_kernel(c, i, j, r);
        matched += how != ncu_matcher::priced::no_work;
        estimated += how == ncu_matcher::priced::tensor_estimated;
    }
    m.notes(c, r, matched, estimated);
}

ROOFLINE_INLINE void retime_tf32_gemm(op_work& w, std::string_view kernel, const gpu_spec& g) {
    const double f = w.work.flops_at(peak_key::fp32);
    if (!(f > 0) || w.kind != "gemm" || !g.peak(peak_key::tf32).supported) return;
    std::string k(kernel);
    std::transform(k.begin(), k.end(), k.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (k.find("s1688gemm") == std::string::npos && k.find("tf32") == std::string::npos) return;
    w.work.flops_at(peak_key::tf32) += f;
    w.work.flops_at(peak_key::fp32) = 0;
    std::erase_if(w.assumptions, [](const std::string& a) { return a.find("TF32 off") != std::string::npos; });
    w.assumptions.push_back("fp32 GEMM priced at the TF32 tensor rate: its kernel (" +
                            std::string(kernel.substr(0, 60)) + ") runs TF32 MMA");
    if (const auto at = w.description.find(" at the fp32 rate"); at != std::string::npos)
        w.description.replace(at, 17, " at the tf32 rate");
    w.description += " (TF32 kernel)";
}

namespace detail::trace_work {
/// An op's identity for pricing: where its name, shapes, types, scalars and allocations are
/// stored. The readers intern these strings (`string_pool`), so the same views mean the same
/// op, and a trace's ten thousand decode steps price one op each; a copy elsewhere only misses.
struct op_shape_key {
    std::array<std::string_view, 6> fields;
    bool operator==(const op_shape_key& o) const {
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (fields[i].data() != o.fields[i].data() || fields[i].size() != o.fields[i].size()) return false;
        return true;
    }
};
struct op_shape_key_hash {
    std::size_t operator()(const op_shape_key& k) const {
        std::size_t h = 0;
        for (const auto& f : k.fields)
            h = h * 1000003u ^ (std::hash<const void*>{}(f.data()) + f.size());
        return h;
    }
};
}  // namespace detail::trace_work

ROOFLINE_INLINE void recover_from_shapes(const trace_gpu_context& c, recovered_work& r) {
    using namespace detail::trace_work;
    const auto& t = *c.trace;
    // price_op is pure: each op identity is priced once, and its work entered once per TF32 retiming.
    struct priced_op {
        std::optional<op_work> work;
        std::array<int, 2> entry{-1, -1};  // op_works index: as priced, TF32-retimed
    };
    std::unordered_map<op_shape_key, priced_op, op_shape_key_hash> priced;
    std::unordered_map<std::int32_t, std::vector<std::size_t>> by_op;
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        if (e.activity == gpu_activity::kernel && e.op >= 0 && e.collective < 0 && !r.prices[i].priced)
            by_op[e.op].push_back(i);
    }
    for (auto& [op, idx] : by_op) {
        const auto& o = t.ops[static_cast<std::size_t>(op)];
        const op_shape_key key{{o.name, o.input_dims, o.input_types, o.concrete_inputs, o.allocations, o.input_strides}};
        auto it = priced.find(key);
        if (it == priced.end()) it = priced.emplace(key, priced_op{price_op(o, *c.gpu), {-1, -1}}).first;
        if (!it->second.work) continue;
        const std::size_t main = *std::max_element(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
            return t.events[x].duration_s < t.events[y].duration_s;
        });
        op_work w = *it->second.work;
        retime_tf32_gemm(w, t.events[main].name, *c.gpu);
        const bool retimed = w.description != it->second.work->description;
        int& wi = it->second.entry[retimed ? 1 : 0];
        if (wi < 0) {
            wi = static_cast<int>(r.op_works.size());
            r.op_works.push_back(std::move(w));
            r.op_names.push_back(std::string(o.name));
            r.op_index.push_back(op);
        }
        const op_work& entry = r.op_works[static_cast<std::size_t>(wi)];
        const std::string_view example = r.strings->intern(entry.description);
        for (auto i : idx) {
            r.prices[i].op_work = wi;
            if (i == main) {
                price(r.prices[i], entry.work, "shapes", c);
                r.prices[i].example = example;
            } else {
                r.prices[i].helper = true;
            }
        }
    }
}

ROOFLINE_INLINE std::string op_price_cache::key(const cpu_op& o) {
    std::string k;
    k.reserve(o.name.size() + o.input_dims.size() + o.input_types.size() + o.input_strides.size() +
              o.concrete_inputs.size() + o.allocations.size() + 6);
    for (std::string_view f : {o.name, o.input_dims, o.input_types, o.input_strides, o.concrete_inputs, o.allocations}) {
        k += f;
        k += '\0';
    }
    return k;
}

ROOFLINE_INLINE const std::optional<op_work>& op_price_cache::price(const cpu_op& o, const gpu_spec& g) {
    std::string k = key(o);
    if (const auto it = map_.find(k); it != map_.end()) return it->second;
    if (map_.size() >= capacity) map_.clear();
    return map_.emplace(std::move(k), price_op(o, g)).first->second;
}

ROOFLINE_INLINE void recover_from_marked_shapes(const trace_gpu_context& c, const std::vector<char>& longest,
                                                const std::vector<std::string_view>& longest_name,
                                                op_price_cache& cache, recovered_work& r) {
    using namespace detail::trace_work;
    const auto& t = *c.trace;
    // This piece's op-work entries: one per distinct op content and TF32 retiming.
    std::map<std::pair<std::string, bool>, int> entries;
    std::map<std::int32_t, std::string> keys;  // op index -> content key
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        if (e.activity != gpu_activity::kernel || e.op < 0 || e.collective >= 0 || r.prices[i].priced) continue;
        const auto& o = t.ops[static_cast<std::size_t>(e.op)];
        const auto& work = cache.price(o, *c.gpu);
        if (!work) continue;
        op_work w = *work;
        retime_tf32_gemm(w, longest_name[i], *c.gpu);
        const bool retimed = w.description != work->description;
        auto kit = keys.find(e.op);
        if (kit == keys.end()) kit = keys.emplace(e.op, op_price_cache::key(o)).first;
        int& wi = entries.try_emplace({kit->second, retimed}, -1).first->second;
        if (wi < 0) {
            wi = static_cast<int>(r.op_works.size());
            r.op_works.push_back(std::move(w));
            r.op_names.push_back(std::string(o.name));
            r.op_index.push_back(e.op);
        }
        const op_work& entry = r.op_works[static_cast<std::size_t>(wi)];
        r.prices[i].op_work = wi;
        if (longest[i]) {
            price(r.prices[i], entry.work, "shapes", c);
            r.prices[i].example = r.strings->intern(entry.description);
        } else {
            r.prices[i].helper = true;
        }
    }
}

ROOFLINE_INLINE void recover_collective(const trace_gpu_context& c, std::size_t i, event_price& p, string_pool& strings) {
    using namespace detail::trace_work;
    const auto& t = *c.trace;
    const auto& e = t.events[i];
    const auto& ci = t.collectives[static_cast<std::size_t>(e.collective)];
    const auto op = collective_of(ci.name);
    int ranks = ci.group_size;
    if (ranks < 1 && t.distributed) ranks = t.distributed->world_size;
    const double bytes = op == collective_op::all_gather ? ci.out_msg_bytes() : ci.in_msg_bytes();
    if (!op || ranks < 1 || !std::isfinite(bytes) || bytes < 0) return;
    const auto algo = std::string_view(e.name).find("TREE") != std::string_view::npos &&
                              *op == collective_op::all_reduce
                          ? collective_algorithm::tree
                          : collective_algorithm::ring;
    const auto cost = collective_time(*op, bytes, ranks, *c.link, algo);
    price(p, cost.work(), "collective", c, link_roof::peer);
    if (e.duration_s > 0) p.busbw = busbw(*op, ranks, bytes, e.duration_s);
    p.example = strings.intern(std::string(to_string(*op)) + " of " + detail::trace_an::mb(bytes) + " over " +
                               std::to_string(ranks) + " ranks (" + std::string(to_string(algo)) + ")");
}

ROOFLINE_INLINE void recover_bytes(const trace_gpu_context& c, std::size_t i, event_price& p, string_pool& strings) {
    using namespace detail::trace_work;
    using detail::trace_an::mb;
    const auto& e = c.trace->events[i];
    if (!std::isfinite(e.bytes) || !(e.bytes > 0)) return;
    workload w;
    w.launches = 1;
    const std::string_view n = e.name;
    if (e.activity == gpu_activity::memset) {
        w.bytes_at(memory_level::dram) = e.bytes;
        price(p, w, "bytes", c);
        p.example = strings.intern("memset of " + mb(e.bytes));
    } else if (host_copy(n)) {
        w.link_bytes = e.bytes;
        if (std::isfinite(c.pcie.link_bytes_per_s)) {
            price(p, w, "bytes", c, link_roof::host);
            p.example = strings.intern("host copy of " + mb(e.bytes) + " over PCIe");
        }
    } else if (peer_copy(n)) {
        w.link_bytes = e.bytes;
        if (c.link) {
            price(p, w, "bytes", c, link_roof::peer);
            p.example = strings.intern("peer copy of " + mb(e.bytes));
        }
    } else {
        w.bytes_at(memory_level::dram) = 2.0 * e.bytes;  // read and write
        price(p, w, "bytes", c);
        p.example = strings.intern("device copy of " + mb(e.bytes));
    }
}

ROOFLINE_INLINE bool sibling_donor(const kernel_event& e, const event_price& p) {
    return e.activity == gpu_activity::kernel && p.op_work >= 0 && (p.helper || p.source == "shapes");
}

ROOFLINE_INLINE bool sibling_recipient(const kernel_event& e, const event_price& p) {
    if (e.activity != gpu_activity::kernel || p.priced || p.helper) return false;
    return e.op < 0 || detail::step_find::graph_api(e.launch_api);
}

ROOFLINE_INLINE std::string sibling_note(std::size_t n) {
    return std::to_string(n) +
           " kernel(s) without a launching op (launched before the profiler recorded "
           "ops, or replayed from a CUDA graph) took the work of a kernel of the same "
           "name and grid that has one";
}

ROOFLINE_INLINE void recover_from_siblings(const trace_gpu_context& c, recovered_work& r) {
    const auto& t = *c.trace;
    using key = std::tuple<const char*, std::uint32_t, std::uint32_t, std::uint32_t>;
    std::map<key, std::size_t> donor;
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        if (sibling_donor(e, r.prices[i])) donor.emplace(key{e.name.data(), e.grid[0], e.grid[1], e.grid[2]}, i);
    }
    if (donor.empty()) return;
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        auto& p = r.prices[i];
        if (!sibling_recipient(e, p)) continue;
        const auto it = donor.find(key{e.name.data(), e.grid[0], e.grid[1], e.grid[2]});
        if (it == donor.end()) continue;
        const auto& d = r.prices[it->second];
        p = d;
        if (d.priced) {
            p.source = "sibling";
            p.busbw.reset();
        }
        ++r.sibling_priced;
    }
    if (r.sibling_priced > 0) r.notes.push_back(sibling_note(r.sibling_priced));
}

ROOFLINE_INLINE void model_plan::add(const kernel_event& e, const event_price& p) {
    const auto kp = static_cast<std::size_t>(e.phase);
    if (p.priced && (p.source == "shapes" || p.source == "sibling")) shape_priced[kp] = true;
    if (e.activity != gpu_activity::kernel) return;
    has_kernels[kp] = true;
    if (model_priceable(e, p))
        unpriced_s[static_cast<std::size_t>(detail::trace_work::step_phase_of(e.phase))] += e.duration_s;
}

ROOFLINE_INLINE bool model_plan::shapes_there(step_phase sp) const {
    for (std::size_t k = 0; k < kernel_phase_count; ++k)
        if (shape_priced[k] && has_kernels[k] && detail::trace_work::step_phase_of(static_cast<kernel_phase>(k)) == sp)
            return true;
    return false;
}

ROOFLINE_INLINE bool model_priceable(const kernel_event& e, const event_price& p) {
    return e.activity == gpu_activity::kernel && !p.priced && !p.helper;
}

ROOFLINE_INLINE std::optional<step_model> model_step_of(const trace_gpu_context& c) {
    const auto& o = *c.options;
    if (!o.model || !o.batch) return std::nullopt;
    return model_step(*o.model, *o.batch, o.layout, *c.gpu, step_options{});
}

ROOFLINE_INLINE void price_from_model(const trace_gpu_context& c, const step_model& sm, double steps,
                                      const model_plan& plan, std::size_t i, recovered_work& r) {
    using detail::trace_an::num;
    const auto& e = c.trace->events[i];
    if (!model_priceable(e, r.prices[i])) return;
    const step_phase sp = detail::trace_work::step_phase_of(e.phase);
    const double time = plan.unpriced_s[static_cast<std::size_t>(sp)];
    if (plan.shapes_there(sp) || !(time > 0)) return;
    const workload total = sm.total(sp) * steps;
    detail::trace_work::price(r.prices[i], total * (e.duration_s / time), "model", c);
    r.prices[i].example = r.strings->intern("--model " + std::string(to_string(sp)) + " x " + num(steps) + " steps");
}

ROOFLINE_INLINE void model_notes(const trace_gpu_context& c, const step_model& sm, double steps, recovered_work& r) {
    using detail::trace_an::num;
    r.tokens = c.options->batch->tokens() * steps;
    r.notes.push_back("--model priced kernels without shapes: " + num(steps) + " step(s) of " +
                      num(c.options->batch->tokens()) + " tokens, each phase's work spread over its kernels by time");
    for (const auto& n : sm.notes) r.notes.push_back(n);
}

ROOFLINE_INLINE void recover_from_model(const trace_gpu_context& c, double steps, recovered_work& r) {
    const auto sm = model_step_of(c);
    if (!sm) return;
    const auto& t = *c.trace;
    model_plan plan;
    for (auto i : c.mine) plan.add(t.events[i], r.prices[i]);
    for (auto i : c.mine) price_from_model(c, *sm, steps, plan, i, r);
    model_notes(c, *sm, steps, r);
}

ROOFLINE_INLINE void unpriced_notes(recovered_work& r, std::size_t unlinked, double unlinked_s, double all_s) {
    using detail::trace_an::dur;
    using detail::trace_an::pct;
    std::stable_sort(r.unpriced.begin(), r.unpriced.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    if (!r.unpriced.empty()) {
        std::string list;
        for (std::size_t k = 0; k < r.unpriced.size() && k < 5; ++k)
            list += (k ? ", " : "") + r.unpriced[k].first + " " + dur(r.unpriced[k].second);
        r.notes.push_back("unpriced kernels (no shape model, Input Dims, sibling or --model work), by op: " + list +
                          (r.unpriced.size() > 5 ? ", ... (all in --json window.unpriced)" : ""));
    }
    r.unlinked_share = all_s > 0 ? unlinked_s / all_s : 0;
    if (unlinked > 0)
        r.notes.push_back(std::to_string(unlinked) + " kernel(s) (" + pct(all_s > 0 ? unlinked_s / all_s : 0) +
                          " of the GPU time) have no launching op in the trace (launched before the "
                          "profiler recorded ops, or replayed from a CUDA graph) and no sibling with "
                          "one: no shapes price them");
}

ROOFLINE_INLINE roof_times event_sol(const trace_gpu_context& c, const event_price& p) {
    return p.priced ? time_lower_bound(p.work, detail::trace_work::sol_ceilings(c, p.link)) : roof_times{};
}

ROOFLINE_INLINE recovered_work recover_work(const trace_gpu_context& c, double steps) {
    using detail::trace_an::dur;
    using detail::trace_an::pct;
    const auto& t = *c.trace;
    recovered_work r;
    r.prices.resize(t.events.size());
    recover_from_ncu(c, r);
    recover_from_shapes(c, r);
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        auto& p = r.prices[i];
        if (p.priced || p.helper) continue;
        if (e.collective >= 0) {
            if (c.link) recover_collective(c, i, p, *r.strings);
        } else if (e.activity == gpu_activity::memset || e.activity == gpu_activity::memcpy) {
            recover_bytes(c, i, p, *r.strings);
        }
    }
    recover_from_siblings(c, r);
    recover_from_model(c, steps, r);
    // What no source priced, after all of them (shapes, ncu, bytes, siblings, --model).
    std::map<std::string, double> left;
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        if (e.activity != gpu_activity::kernel || r.prices[i].priced || r.prices[i].helper) continue;
        left[e.op >= 0 ? std::string(t.ops[static_cast<std::size_t>(e.op)].name) : "kernel " + std::string(e.name)] +=
            e.duration_s;
    }
    r.unpriced.assign(left.begin(), left.end());
    std::size_t unlinked = 0;
    double unlinked_s = 0, all_s = 0;
    for (auto i : c.mine) {
        const auto& e = t.events[i];
        all_s += e.duration_s;
        if (e.activity == gpu_activity::kernel && e.op < 0 && !r.prices[i].priced)
            ++unlinked, unlinked_s += e.duration_s;
    }
    unpriced_notes(r, unlinked, unlinked_s, all_s);
    return r;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
