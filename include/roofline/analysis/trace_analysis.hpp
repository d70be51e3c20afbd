#pragma once
// What bounds a measured trace: every GPU activity priced from what it had to do, grouped by
// kernel name, phase, step and op launch group, each group classified with its evidence.
//
// A pipeline of stages, one header each under analysis/trace/, data flowing one way:
//   read events      (io/: kineto.hpp, nsys_csv.hpp, nsys_sqlite.hpp, ncu_csv.hpp) -> kernel_trace
//   gpu_context      which device, which catalog GPU, its ceilings
//   steps            how many steps the window holds, and from what marker
//   recover_work     per activity, every source of work: ncu, shapes, collective, bytes,
//                    same-name sibling, --model x steps
//   rows             the device's timeline; activities grouped into rows
//   power            the power log aligned, per GPU; each row's power evidence
//   classify         one classifier over every roof (compute, memory levels, links)
//   window_verdict   a window's wall time by bound and its verdict
//   report           report/trace_report.hpp renders text, JSON and CSV of this one result
// Power is aligned before rows are classified because a row's verdict needs its power evidence.
// `analyze_trace` below only composes the stages.

#include <string>  // std::string
#include <vector>  // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/trace/classify.hpp"
#include "roofline/analysis/trace/gpu_context.hpp"
#include "roofline/analysis/trace/power.hpp"
#include "roofline/analysis/trace/recover_work.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/analysis/trace/rows.hpp"
#include "roofline/analysis/trace/steps.hpp"
#include "roofline/analysis/trace/window_verdict.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// Analyses `t` (read with links to ops, e.g. by `read_kineto`) on a GPU of `catalog`.
/// Throws `usage_error` when the GPU cannot be resolved (pass `options.gpu_id`), when the trace
/// has no GPU activity, or when `options.device` has none.
trace_analysis analyze_trace(const kernel_trace& t, const gpu_catalog& catalog,
                             const trace_analysis_options& options = {});

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::trace_an {

/// The window verdict's power notes: nvidia-smi residency against a communication verdict, a
/// capped GPU elsewhere in a multi-GPU log, and the phase notes of the winning bound.
inline void window_power_notes(trace_analysis& a) {
    if (!a.window.result) return;
    auto& notes = a.window.result->notes;
    if (a.power) {
        const auto& ev = a.power->evidence;
        if (ev.median_utilization_gpu && *ev.median_utilization_gpu >= 0.9 && ev.fraction_of_limit &&
            *ev.fraction_of_limit < 0.7 && a.window.result->what == bound::communication)
            notes.push_back("nvidia-smi utilization.gpu " + pct(*ev.median_utilization_gpu) + " at " +
                            pct(*ev.fraction_of_limit) + " of the power limit: " +
                            (a.communication_s > 0 ? "collective kernels resident and polling, not computing"
                                                   : "copies over the link keep the GPU busy, not computing"));
        for (const auto& g : a.power->per_gpu) {
            if (!g.capped || a.power->per_gpu.size() < 2) continue;
            const auto& e = g.evidence;
            notes.push_back(
                "GPU " + std::to_string(g.gpu_index) + (g.gpu_index == a.power->gpu_index ? " (this one)" : "") +
                " is power-capped: " + pct(*e.fraction_of_limit) + " of its " + num(e.limit_w.value_or(0)) +
                " W limit, the cap active " + pct(*e.power_cap_active_fraction) + " of the time, SM clock at " +
                pct(*e.clock_fraction_of_max) + " of max; in TP/EP every step waits for the slowest rank, so "
                "its compute ceiling (" + pct(*e.clock_fraction_of_max) + " of the peak) gates all ranks: up to " +
                pct(g.compute_slowdown.value_or(0)) + " longer compute-bound phases");
        }
    }
    for (const auto& r : a.phases)
        if (r.result && r.result->what == a.window.result->what)
            for (const auto& n : r.result->notes) note_once(notes, r.name + ": " + n);
}

/// The kernel-name, op-group and step rows, classified.
inline void build_rows(const trace_gpu_context& c, const recovered_work& w, const trace_power_context& pc,
                       const trace_timeline& tl, const trace_steps& steps, double gpu_time_s, trace_analysis& a) {
    for (auto& g : kernel_groups(c, w, tl, gpu_time_s)) {
        const auto pe = row_power(pc, c, g.idx, g.row.share, g.row);
        classify_row(g.row, c, g.communication_share, pe, pc.max_clock_hz, nullptr, true);
        a.kernels.push_back(std::move(g.row));
    }
    std::sort(a.kernels.begin(), a.kernels.end(), [](const analysis_row& x, const analysis_row& y) {
        return x.total_s != y.total_s ? x.total_s > y.total_s : x.name < y.name;
    });
    for (auto& g : op_groups(c, w, gpu_time_s)) {
        classify_row(g.row, c, std::nullopt, std::nullopt, pc.max_clock_hz, nullptr, true);
        a.ops.push_back(std::move(g.row));
    }
    if (steps.windows.size() < 2 && steps.detection.source != "ProfilerStep" &&
        steps.detection.source != "GPU annotations")
        return;  // one graph launch or one repeat is the window itself
    a.step_source = steps.detection.source;
    for (const auto& s : steps.windows) {
        analysis_row r;
        r.name = s.name;
        analyze_window(c, w, pc, s.idx, r, std::nullopt, nullptr);
        r.share = gpu_time_s > 0 ? r.total_s / gpu_time_s : 0;
        a.steps.push_back(std::move(r));
    }
}

}  // namespace detail::trace_an

ROOFLINE_INLINE trace_analysis analyze_trace(const kernel_trace& t, const gpu_catalog& catalog,
                                             const trace_analysis_options& options) {
    using namespace detail::trace_an;
    trace_analysis a;
    a.file = t.file;
    a.format = t.format;
    a.summary = summarize(t);
    const trace_gpu_context c = select_trace_gpu(t, catalog, options, a);
    const trace_steps steps = detect_steps(t, c.device, c.mine, options.steps);
    a.step_info = steps.detection;
    const double n_steps = options.steps > 0 ? options.steps : double(steps.detection.count);
    const recovered_work w = recover_work(c, n_steps);
    a.tokens = w.tokens;
    a.sibling_priced = w.sibling_priced;
    a.ncu_matched = w.ncu_matched;
    a.unlinked_share = w.unlinked_share;
    for (const auto& n : w.notes) a.notes.push_back(n);
    const trace_timeline tl = measure_timeline(c, a);
    const trace_power_context pc = align_trace_power(c, a);

    double gpu_time = 0, priced_time = 0;
    for (auto i : c.mine) {
        gpu_time += t.events[i].duration_s;
        if (w.prices[i].priced) priced_time += t.events[i].duration_s;
    }
    a.priced_share = gpu_time > 0 ? priced_time / gpu_time : 0;
    for (const auto& [name, s] : w.unpriced) a.unpriced.push_back({name, s, gpu_time > 0 ? s / gpu_time : 0});

    a.window.name = "window";
    const auto win = analyze_window(c, w, pc, c.mine, a.window,
                                    a.power ? std::optional<power_evidence>(a.power->evidence) : std::nullopt,
                                    &a.warnings);
    a.phases = win.phases;
    a.time_by_bound = win.by_bound;
    a.window.share = 1.0;
    if (a.power) {
        a.window.power = a.power->evidence;
        a.window.energy_j = a.power->energy_j;
    }
    window_power_notes(a);
    build_rows(c, w, pc, tl, steps, gpu_time, a);
    if (a.priced_share < 0.5)
        a.notes.push_back(
            "only " + pct(a.priced_share) + " of the GPU time has modeled work" +
            (t.format.rfind("nsys", 0) == 0 ? ": nsys records no shapes; pass --model and the batch"
             : t.ops.empty() ? ": the trace links no kernels to ops (record_shapes off, or a CUDA-graph "
                               "replay); pass --model and the batch"
                             : ""));
    return a;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
