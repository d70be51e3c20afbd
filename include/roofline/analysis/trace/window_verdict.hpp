#pragma once
// Stage 7 of the trace analysis: the verdict of a window (the whole trace, or one step) from its
// classified phase rows. Wall time is split by bound: idle time counts as latency, exposed
// collectives as communication, the rest of the busy time over the other phases by their
// activity time. The window's bound is the one that accounts for the most wall time (unknown
// only when nothing is known), and its reason names the phases behind it.

#include <algorithm>  // std::sort, std::max
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <map>        // std::map
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/trace/classify.hpp"
#include "roofline/analysis/trace/power.hpp"
#include "roofline/analysis/trace/rows.hpp"

namespace roofline {

/// A window's phase rows, their wall time by bound, and the window row itself.
struct window_result {
    std::vector<analysis_row> phases;  ///< longest first
    std::array<double, 6> by_bound{};  ///< index by `bound`, [5] = unknown
};

/// Analyses the activities `idx` as one window: fills `win` (sums, timeline, utilisation over
/// its modeled time and over its span, verdict) and returns its classified phase rows and wall
/// time by bound. `power`: the window's own evidence, if any (its compute at the measured clock).
window_result analyze_window(const trace_gpu_context& c, const recovered_work& w,
                             const trace_power_context& pc, const std::vector<std::size_t>& idx,
                             analysis_row& win, std::optional<power_evidence> power,
                             std::vector<std::string>* warnings);

/// A phase row of a window, summed and measured, with what classifying it needs: the exposed
/// share of the window's span (collectives) and its power evidence.
struct measured_phase {
    analysis_row row;
    std::optional<double> communication_share;
    std::optional<power_evidence> power;
};

/// The classification half of `analyze_window`, for windows summed either way (from index lists
/// or activity by activity, analysis/trace/accumulate.hpp): classifies `phases` (in the order
/// given), splits the window's wall time by bound and fills `win`'s utilisation and verdict.
/// `win` has its sums, span, busy time and latency evidence; `exposed_s`: the window's exposed
/// collective time; `activity_s`: its summed activity time; `streams`: streams it used.
window_result finish_window(const trace_gpu_context& c, const trace_power_context& pc,
                            std::vector<measured_phase> phases, analysis_row& win, double exposed_s,
                            double activity_s, std::size_t streams, std::optional<power_evidence> power,
                            std::vector<std::string>* warnings);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::trace_win {

/// "(memory 40%)": a row's most used roof, for latency lists.
inline std::string brief(const analysis_row& r) {
    using detail::trace_an::pct;
    const bool mem = r.utilization.memory >= r.utilization.compute;
    return std::string(mem ? "(memory " : "(compute ") + pct(mem ? r.utilization.memory : r.utilization.compute) + ")";
}

/// Wall time of the window by bound (see the file comment).
inline std::array<double, 6> time_by_bound(const std::vector<analysis_row>& rows, const analysis_row& win,
                                           double exposed_s) {
    std::array<double, 6> by{};
    by[static_cast<std::size_t>(bound::latency)] += std::max(0.0, win.span_s - win.busy_s);
    double non_comm = 0;
    for (const auto& r : rows)
        if (r.phase != kernel_phase::communication) non_comm += r.total_s;
    const double rest = std::max(0.0, win.busy_s - exposed_s);
    for (const auto& r : rows) {
        const std::size_t k = r.result ? static_cast<std::size_t>(r.result->what) : 5;
        if (r.phase == kernel_phase::communication)
            by[r.result && r.result->what != bound::communication ? k : static_cast<std::size_t>(bound::communication)] +=
                exposed_s;
        else if (non_comm > 0)
            by[k] += rest * r.total_s / non_comm;
    }
    return by;
}

/// The window's reason for bound `best` from its phase rows.
inline std::string window_reason(const std::vector<analysis_row>& rows, const analysis_row& win,
                                 const std::array<double, 6>& by, std::size_t best, double exposed_s,
                                 const std::string& serial_hint) {
    using detail::trace_an::pct;
    using detail::trace_an::num;
    using detail::trace_an::dur;
    using detail::trace_an::mb;
    using detail::trace_an::note_once;
    const double total = win.span_s > 0 ? win.span_s : 1.0;
    const double idle = std::max(0.0, win.span_s - win.busy_s);
    const auto what = static_cast<bound>(best);
    double non_comm = 0;
    for (const auto& r : rows)
        if (r.phase != kernel_phase::communication) non_comm += r.total_s;
    const double rest = std::max(0.0, win.busy_s - exposed_s);
    std::vector<std::pair<double, const analysis_row*>> parts;  // phases with that verdict
    for (const auto& r : rows)
        if (r.result && static_cast<std::size_t>(r.result->what) == best && r.phase != kernel_phase::communication &&
            non_comm > 0)
            parts.push_back({rest * r.total_s / non_comm, &r});
    std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    const analysis_row* lead = parts.empty() ? nullptr : parts.front().second;
    const std::string share = pct(by[best] / total);
    std::string list;
    if (what == bound::latency && idle > 0) list = "idle " + pct(idle / total);
    for (std::size_t k = 0; k < parts.size() && k < 4; ++k) {
        if (parts[k].first / total < 0.01) break;
        list += (list.empty() ? "" : ", ") + parts[k].second->name + " " + pct(parts[k].first / total);
        if (what == bound::latency) list += " " + brief(*parts[k].second);
    }
    if (what == bound::latency && idle >= by[best] * 0.5) {
        std::string v = "the GPU is idle " + pct(idle / total) + " of the window (busy " + pct(win.busy_s / total) +
                        "): the host does not keep it fed (launch overhead, Python, synchronisation)" + serial_hint;
        if (lead) v += "; the kernels themselves: " + lead->result->reason;
        return v;
    }
    if (what == bound::latency) {
        std::string v = "no roof is near for " + share + " of the window (" + list + "): kernels well below their ceilings";
        if (win.busy_s / total >= 0.8)
            v += ", and the GPU is busy " + pct(win.busy_s / total) +
                 " of the time, so this is kernel efficiency or small work per kernel, not launch gaps";
        return v + serial_hint;
    }
    if (what == bound::communication) {
        const analysis_row* c_row = nullptr;
        for (const auto& r : rows)
            if (r.phase == kernel_phase::communication) c_row = &r;
        if (!c_row && lead)  // a link-bound phase that is not collectives (host or peer copies)
            return lead->name + " (" + pct(parts.front().first / total) + " of the window) is communication-bound: " +
                   lead->result->reason;
        std::string v = "exposed collectives take " + pct(exposed_s / total) + " of the window";
        if (c_row && c_row->result) {
            if (c_row->busbw_bytes_per_s)
                v += " (busbw " + num(*c_row->busbw_bytes_per_s / 1e9) + " GB/s, link at " +
                     pct(c_row->utilization.communication) + " of its ceiling)";
            else
                v += " (" + c_row->result->reason + ")";
        }
        return v;
    }
    if (lead && parts.front().first >= 0.75 * by[best])
        return lead->name + " (" + pct(parts.front().first / total) + " of the window) is " +
               std::string(to_string(what)) + "-bound: " + lead->result->reason;
    if (lead)
        return std::string(to_string(what)) + "-bound phases take " + share + " of the window (" + list +
               "); largest: " + lead->name + ": " + lead->result->reason;
    return share + " of the window";
}

}  // namespace detail::trace_win

ROOFLINE_INLINE window_result analyze_window(const trace_gpu_context& c, const recovered_work& w,
                                             const trace_power_context& pc, const std::vector<std::size_t>& idx,
                                             analysis_row& win, std::optional<power_evidence> power,
                                             std::vector<std::string>* warnings) {
    const auto& t = *c.trace;
    const auto tl = timeline_of(c, idx);
    double act = 0;
    std::map<std::int64_t, int> streams;
    for (auto i : idx) act += t.events[i].duration_s, ++streams[t.events[i].stream], add_event(win, c, w, i);
    win.span_s = tl.span_s;
    win.busy_s = total_length_s(tl.busy);
    win.latency = latency_of(c, idx);
    const double exposed = total_length_s(subtract(tl.communication, tl.compute));
    auto groups = group_rows<kernel_phase>(
        c, w, idx, act, [&](std::size_t i) { return t.events[i].phase; },
        [](analysis_row& r, kernel_phase p, std::size_t) {
            r.name = std::string(to_string(p));
            r.phase = p;
        });
    std::vector<measured_phase> phases;
    for (auto& g : groups) {
        if (g.row.phase == kernel_phase::communication) measure_collectives(g, c, w, tl.compute, win.span_s);
        const auto pe = row_power(pc, c, g.idx, g.row.share, g.row);
        phases.push_back({std::move(g.row), g.communication_share, pe});
    }
    return finish_window(c, pc, std::move(phases), win, exposed, act, streams.size(), power, warnings);
}

ROOFLINE_INLINE window_result finish_window(const trace_gpu_context& c, const trace_power_context& pc,
                                            std::vector<measured_phase> phases, analysis_row& win, double exposed,
                                            double act, std::size_t n_streams, std::optional<power_evidence> power,
                                            std::vector<std::string>* warnings) {
    using detail::trace_an::pct;
    window_result out;
    const bool serial = win.busy_s > 0 && act / win.busy_s < 1.05;
    const std::string serial_hint = serial ? "; kernels ran one at a time on " + std::to_string(n_streams) +
                                                 (n_streams == 1 ? " stream" : " streams") + " (no overlap)"
                                           : std::string();
    for (auto& m : phases) {
        auto& r = m.row;
        if (r.phase == kernel_phase::communication) {
            const double comm = r.exposed_s + r.overlapped_s;
            if (r.overlapped_s > 0.5 * comm)
                r.notes.push_back("collectives overlapped by compute on other streams " + pct(r.overlapped_s / comm) +
                                  " of their time: mostly off the critical path");
        }
        classify_row(r, c, m.communication_share, m.power, pc.max_clock_hz, warnings);
        out.phases.push_back(std::move(r));
    }
    std::sort(out.phases.begin(), out.phases.end(),
              [](const analysis_row& x, const analysis_row& y) { return x.total_s > y.total_s; });
    out.by_bound = detail::trace_win::time_by_bound(out.phases, win, exposed);
    {  // each phase's wall time in that split
        double non_comm = 0;
        for (const auto& r : out.phases)
            if (r.phase != kernel_phase::communication) non_comm += r.total_s;
        const double rest = std::max(0.0, win.busy_s - exposed);
        for (auto& r : out.phases)
            r.wall_s = r.phase == kernel_phase::communication ? exposed : non_comm > 0 ? rest * r.total_s / non_comm : 0;
    }
    // The window's utilisation: over its modeled time (as every row) and over its span.
    if (win.priced_s > 0) {
        analysis_row probe = win;  // classify's utilisation and clock, not its verdict
        classify_row(probe, c, std::nullopt, power, pc.max_clock_hz, nullptr);
        win.utilization = probe.utilization;
        win.link_utilization = probe.link_utilization;
        win.compute_at_clock = probe.compute_at_clock;
        if (probe.power) win.power = probe.power;
    }
    if (win.span_s > 0) {
        roof_utilization u;
        u.compute = win.sol.compute_s / win.span_s;
        u.memory = win.sol.memory_s / win.span_s;
        for (std::size_t i = 0; i < memory_level_count; ++i) u.memory_level[i] = win.sol.memory_level_s[i] / win.span_s;
        u.communication = win.sol.link_s / win.span_s;
        win.span_utilization = u;
    }
    const auto& by = out.by_bound;
    std::size_t best = 5;
    for (std::size_t k = 0; k < 5; ++k)
        if (by[k] > 0 && (best == 5 || by[k] > by[best])) best = k;
    const double total = win.span_s > 0 ? win.span_s : 1.0;
    if (best != 5 && by[5] > by[best] && by[best] / total < 0.25) best = 5;
    if (c.owned_gpu) {  // `unknown_gpu_spec`: every ceiling is unknown, so no roof can be near or far
        win.no_gpu = true;
        win.unknown_reason = "the GPU is not known, so no roof is priced: pass --gpu ID";
        return out;
    }
    if (best == 5) {
        const bool nsys = c.trace && c.trace->format.rfind("nsys", 0) == 0;
        win.unknown_reason = pct(by[5] / total) + " of the window has no modeled work: " +
                             (nsys ? std::string("nsys records no shapes; pass --model and the batch")
                                   : std::string("record the trace with record_shapes=True, or pass --model with "
                                                 "--batch and --context (kernels replayed from CUDA graphs "
                                                 "record no shapes)"));
        return out;
    }
    verdict v;
    v.what = static_cast<bound>(best);
    v.utilization = win.utilization;
    v.reason = detail::trace_win::window_reason(out.phases, win, by, best, exposed, serial_hint);
    for (const auto& r : out.phases)  // the roof the window's bound names: its lead phase's
        if (r.result && r.result->what == v.what && win.roof.empty()) win.roof = r.roof;
    win.result = v;
    return out;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
