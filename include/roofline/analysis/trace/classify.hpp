#pragma once
// Stage 6 of the trace analysis: ONE classifier for every row (kernel name, phase, step, op
// launch group, window), over every roof the row was priced against: compute (at the measured
// SM clock when the log gives one), each memory level (DRAM, L2, shared memory), and each link
// (NVLink/peer, the PCIe host link, the network). Rules of analysis/verdict.hpp `classify`, in
// its order: power, exposed-communication share, then the most utilised roof when it is near
// its ceiling (the same 60% rule for every roof), else latency with the evidence at hand. A row
// whose most utilised roof is a link is "communication" naming that link ("communication (PCIe
// host link)"). Consistency: a row above a roof means a wrong input, except DRAM bytes of data
// that fits in L2.

#include <algorithm>  // std::max
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/trace/gpu_context.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/analysis/verdict.hpp"

namespace roofline {

/// A memory level as the report names it: "DRAM", "L2", "shared memory".
std::string memory_roof_name(std::size_t level);

/// The most utilised roof of `r` (its name and utilisation), over compute (`compute_now`), each
/// memory level and each link.
std::pair<std::string, double> top_roof(const analysis_row& r, double compute_now);

/// Utilisation, verdict and consistency of a filled row (see the file comment). `comm_share`:
/// the exposed share of the row's critical path (collective rows); `power`: its evidence;
/// `max_clock_hz`: the log's maximum SM clock. A row without priced time gets an unknown reason.
/// `above_roof_unknown`: a row measured above a roof its tensors cannot explain (not L2-resident)
/// gets no bound (unknown, its reason saying an input is wrong) rather than the bound of the roof
/// it beat; kernel and op rows do this, phase rows (which mix kernels) keep their bound and warn.
void classify_row(analysis_row& r, const trace_gpu_context& c, std::optional<double> comm_share,
                  std::optional<power_evidence> power, std::optional<double> max_clock_hz,
                  std::vector<std::string>* warnings, bool above_roof_unknown = false);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE std::string memory_roof_name(std::size_t level) {
    return level == 0 ? "DRAM" : level == 1 ? "L2" : "shared memory";
}

ROOFLINE_INLINE std::pair<std::string, double> top_roof(const analysis_row& r, double compute_now) {
    std::pair<std::string, double> best{"compute", compute_now};
    for (std::size_t i = 0; i < memory_level_count; ++i)
        if (r.utilization.memory_level[i] > best.second)
            best = {memory_roof_name(i), r.utilization.memory_level[i]};
    for (std::size_t k = 0; k < link_roof_count; ++k)
        if (r.link_utilization[k] > best.second)
            best = {std::string(to_string(static_cast<link_roof>(k))), r.link_utilization[k]};
    return best;
}

namespace detail::trace_cls {

/// Utilisation of every roof: roof time over the row's priced time.
inline void fill_utilization(analysis_row& r) {
    const double t = r.priced_s;
    r.utilization.compute = r.sol.compute_s / t;
    r.utilization.memory = r.sol.memory_s / t;
    for (std::size_t i = 0; i < memory_level_count; ++i) r.utilization.memory_level[i] = r.sol.memory_level_s[i] / t;
    double link = 0;
    for (std::size_t k = 0; k < link_roof_count; ++k) {
        r.link_utilization[k] = r.link_roof_s[k] / t;
        link = std::max(link, r.link_utilization[k]);
    }
    r.utilization.communication = link;
}

/// Latency hints from the row's kernels and timeline.
inline std::vector<std::string> latency_hints(const analysis_row& r, const trace_gpu_context& c) {
    using detail::trace_an::pct;
    using detail::trace_an::num;
    using detail::trace_an::dur;
    using detail::trace_an::mb;
    using detail::trace_an::note_once;
    std::vector<std::string> h;
    const auto& l = r.latency;
    if (std::isfinite(l.small_grid_share) && l.small_grid_share >= 0.5)
        h.push_back("grids of ~" + num(l.median_grid_blocks) +
                    (l.median_grid_blocks < 1.5 ? " block on " : " blocks on ") + num(c.sm_count) + " SMs");
    // Kernels replayed from CUDA graphs pay the graph's per-kernel launch cost, not an eager one.
    const bool graph = std::isfinite(l.graph_launched_share) && l.graph_launched_share >= 0.5;
    const double floor = graph ? c.options->efficiency.graph_launch_floor_s : c.options->efficiency.launch_floor_s;
    if (std::isfinite(l.median_kernel_s) && l.median_kernel_s < floor)
        h.push_back("kernels of ~" + dur(l.median_kernel_s) + ", shorter than the " + dur(floor) +
                    (graph ? " CUDA-graph launch floor" : " eager launch floor"));
    // Tensor-core GEMM and attention kernels run at low occupancy by design (large tiles, one
    // CTA per SM), and NCCL kernels use a few blocks: the estimate is a hint only for the others.
    const bool occupancy_matters = r.phase != kernel_phase::gemm && r.phase != kernel_phase::moe_gemm &&
                                   r.phase != kernel_phase::attention &&
                                   r.phase != kernel_phase::communication;
    if (occupancy_matters && std::isfinite(l.occupancy_pct) && l.occupancy_pct < 25)
        h.push_back("est. occupancy " + num(l.occupancy_pct) + "%");
    if (r.span_s > 0 && r.busy_s > 0 && r.busy_s / r.span_s < 0.8)
        h.push_back("GPU busy " + pct(r.busy_s / r.span_s) + " of the window");
    return h;
}

/// Consistency: achieved above a roof is a wrong input, unless the DRAM bytes fit in L2.
inline void check_above_roof(analysis_row& r, const trace_gpu_context& c, std::vector<std::string>* warnings,
                             bool above_roof_unknown) {
    using detail::trace_an::pct;
    using detail::trace_an::num;
    using detail::trace_an::dur;
    using detail::trace_an::mb;
    using detail::trace_an::note_once;
    const auto& th = c.options->thresholds;
    const double comp = r.compute_at_clock.value_or(r.utilization.compute);
    const auto above = [&](double u) { return u > th.above_roof; };
    std::string msg;
    if (above(comp)) msg = "compute at " + pct(comp) + " of its ceiling";
    if (above(r.utilization.memory))
        msg += (msg.empty() ? "" : ", ") + std::string("DRAM at ") + pct(r.utilization.memory) + " of its bandwidth";
    if (above(r.utilization.communication))
        msg += (msg.empty() ? "" : ", ") + std::string("link at ") + pct(r.utilization.communication);
    if (msg.empty()) return;
    const double l2 = c.gpu->l2_bytes.value_or(0);
    const bool l2_fit = above(r.utilization.memory) && !above(comp) && !above(r.utilization.communication) &&
                        r.count > 0 && l2 > 0 && r.sol.memory_s > 0 && r.work.dram_bytes() / r.count < l2;
    if (l2_fit) {
        r.notes.push_back(msg + ": its tensors (" + mb(r.work.dram_bytes() / r.count) + " per call) fit in the " +
                          mb(l2) + " L2, so repeated reads need not reach DRAM");
        return;
    }
    const std::string why = msg + ": above the roof, so an input is wrong (GPU or SKU: --gpu; dtype; shapes) or "
                                  "the work is less than modeled";
    const std::string w = r.name + ": " + why;
    if (warnings) note_once(*warnings, w);
    if (above_roof_unknown) {  // no bound: the roof it "hit" is one it cannot have reached
        r.unknown_reason = "inconsistent: " + why;
        r.result.reset();
        r.roof.clear();
        return;
    }
    r.notes.push_back(w);
}

}  // namespace detail::trace_cls

ROOFLINE_INLINE void classify_row(analysis_row& r, const trace_gpu_context& c, std::optional<double> comm_share,
                                  std::optional<power_evidence> power, std::optional<double> max_clock_hz,
                                  std::vector<std::string>* warnings, bool above_roof_unknown) {
    using detail::trace_an::pct;
    using detail::trace_an::num;
    using detail::trace_an::dur;
    using detail::trace_an::mb;
    using detail::trace_an::note_once;
    const auto& th = c.options->thresholds;
    r.no_gpu = c.owned_gpu != nullptr;  // `unknown_gpu_spec`: no ceiling, so no utilisation
    if (r.no_gpu && r.unknown_reason.empty()) r.unknown_reason = "no roof priced: the GPU is not known (pass --gpu ID)";
    if (c.owned_gpu || !(r.priced_s > 0)) {
        if (r.unknown_reason.empty())
            r.unknown_reason = c.trace->format.rfind("nsys", 0) == 0
                                   ? "no modeled work: nsys records no shapes; pass --model and the batch"
                                   : "no modeled work: no shapes (record_shapes off, or an op the shape "
                                     "table does not price) and no --model";
        return;
    }
    detail::trace_cls::fill_utilization(r);
    phase_evidence e;
    e.utilization = r.utilization;
    e.communication_share = comm_share;
    if (power && power->samples > 0) e.power = r.power = power;
    if (r.power && r.power->clock_fraction_of_max && max_clock_hz && r.sol.compute_s > 0) {
        // Peaks scale with the SM clock: the ceiling in force is P x clock / reference
        // (core/ceilings.hpp `at_sm_clock`), the reference being the clock the peaks assume.
        const double ref = c.gpu->tensor_clock_hz.value_or(c.gpu->boost_clock_hz.value_or(0));
        const double clock = *r.power->clock_fraction_of_max * *max_clock_hz;
        if (ref > 0 && clock > 0) e.compute_at_measured_clock = r.compute_at_clock = r.utilization.compute * ref / clock;
    }
    e.latency_hints = detail::trace_cls::latency_hints(r, c);
    r.result = classify(e, th);
    const double compute_now = r.compute_at_clock.value_or(r.utilization.compute);
    const auto [roof, u] = top_roof(r, compute_now);
    auto& v = *r.result;
    if (v.what == bound::power && r.compute_at_clock)
        v.reason += " (compute at " + pct(*r.compute_at_clock) + " of the ceiling at that clock, " +
                    pct(r.utilization.compute) + " of the datasheet peak)";
    const bool link_top = roof != "compute" && u > r.utilization.memory;
    if ((v.what == bound::latency || v.what == bound::compute || v.what == bound::memory) && link_top &&
        u >= th.near_ceiling) {
        v.what = bound::communication;
        v.reason = roof + " at " + pct(u) + " of its ceiling (compute " + pct(compute_now) + ", memory " +
                   pct(r.utilization.memory) + ")";
    }
    if (v.what == bound::compute) r.roof = "compute";
    if (v.what == bound::memory) {
        std::size_t m = 0;
        for (std::size_t i = 1; i < memory_level_count; ++i)
            if (r.utilization.memory_level[i] > r.utilization.memory_level[m]) m = i;
        r.roof = memory_roof_name(m);
    }
    if (v.what == bound::communication) r.roof = link_top ? roof : "collectives";
    detail::trace_cls::check_above_roof(r, c, warnings, above_roof_unknown);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
