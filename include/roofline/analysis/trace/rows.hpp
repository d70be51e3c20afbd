#pragma once
// Stage 5 of the trace analysis: activities grouped into rows, each row summing its activities'
// time, work and per-roof times. Groups: kernel name, phase, step, op launch group (launching op
// with its input shapes and types), the window. A group keeps the indices of its activities and,
// for collectives, the exposed share of its critical path; classification is the next stage
// (analysis/trace/classify.hpp). The device's timeline (busy time, gaps, overlap) is measured
// here too.

#include <algorithm>      // std::sort
#include <cmath>          // std::isnan, std::isfinite
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int64_t
#include <map>            // std::map
#include <optional>       // std::optional
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <tuple>          // std::tuple
#include <vector>         // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/trace/gpu_context.hpp"
#include "roofline/analysis/trace/power.hpp"
#include "roofline/analysis/trace/recover_work.hpp"
#include "roofline/analysis/trace/result.hpp"

namespace roofline {

/// A row and the activities it holds.
struct row_group {
    analysis_row row;
    std::vector<std::size_t> idx;            ///< indices into `kernel_trace::events`
    std::optional<double> communication_share;  ///< exposed collectives / the window's span
};

/// The device's timeline: what rows of collectives are measured against.
struct trace_timeline {
    interval_set busy, communication, compute;
    double span_s = 0;
};

/// Adds activity `i` to `r`. `with_helpers`: helper kernels of a priced op count as priced time
/// (op rows, where the op's work covers all its kernels).
void add_event(analysis_row& r, const trace_gpu_context& c, const recovered_work& w, std::size_t i,
               bool with_helpers = false);

/// Latency evidence of the kernels among `idx`.
latency_evidence latency_of(const trace_gpu_context& c, const std::vector<std::size_t>& idx);

/// The timeline of activities `idx`: busy, collective and compute interval sets, span.
trace_timeline timeline_of(const trace_gpu_context& c, const std::vector<std::size_t>& idx);

/// Fills the window-level timeline facts of `a` from the device's activities.
trace_timeline measure_timeline(const trace_gpu_context& c, trace_analysis& a);

/// For a collective group: exposed and overlapped time against `compute`, measured busbw, and
/// the exposed share of `span_s`.
void measure_collectives(row_group& g, const trace_gpu_context& c, const recovered_work& w,
                         const interval_set& compute, double span_s);

/// Sets a collective row's measures from its union's length `union_s`, its exposed time, and its
/// busbw sums (sum of duration and of busbw x duration over activities with a busbw); returns
/// the exposed share of `span_s`. `measure_collectives` and the streaming rows use it.
double set_collective_measures(analysis_row& r, double union_s, double exposed_s, double busbw_time_s,
                               double busbw_sum, double span_s);

/// The reason a kernel row carries no work: launched by `op_name` beside a longer kernel that
/// carries the op's work (`description`).
std::string helper_reason(std::string_view op_name, const std::string& description);

/// Groups `idx` by `key(i)` into rows named `name(key)`, summed and with latency evidence;
/// `total_s`: the time shares are of.
template <class Key, class KeyOf, class Init>
std::vector<row_group> group_rows(const trace_gpu_context& c, const recovered_work& w,
                                  const std::vector<std::size_t>& idx, double total_s, KeyOf key_of, Init init,
                                  bool with_helpers = false) {
    std::map<Key, std::vector<std::size_t>> by;
    for (auto i : idx) by[key_of(i)].push_back(i);
    std::vector<row_group> out;
    for (auto& [k, members] : by) {
        row_group g;
        init(g.row, k, members.front());
        for (auto i : members) add_event(g.row, c, w, i, with_helpers);
        g.row.share = total_s > 0 ? g.row.total_s / total_s : 0;
        g.row.latency = latency_of(c, members);
        g.idx = std::move(members);
        out.push_back(std::move(g));
    }
    return out;
}

/// One row per kernel name, with the helper reason and the op-work assumptions.
std::vector<row_group> kernel_groups(const trace_gpu_context& c, const recovered_work& w,
                                     const trace_timeline& tl, double gpu_time_s);

/// One row per op launch group: the launching op's name, input shapes and types (kernels
/// priced from a sibling join their donor's op; kernels without any op form one group).
std::vector<row_group> op_groups(const trace_gpu_context& c, const recovered_work& w, double gpu_time_s);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE void add_event(analysis_row& r, const trace_gpu_context& c, const recovered_work& w, std::size_t i,
                               bool with_helpers) {
    const auto& e = c.trace->events[i];
    const auto& p = w.prices[i];
    r.count += 1;
    r.total_s += e.duration_s;
    r.min_s = std::isnan(r.min_s) ? e.duration_s : std::min(r.min_s, e.duration_s);
    r.max_s = std::isnan(r.max_s) ? e.duration_s : std::max(r.max_s, e.duration_s);
    if (with_helpers && p.helper) r.priced_s += e.duration_s;
    if (!p.priced) return;
    r.priced_s += e.duration_s;
    r.work += p.work;
    const roof_times sol = event_sol(c, p);
    r.sol.tensor_s += sol.tensor_s;
    r.sol.vector_s += sol.vector_s;
    r.sol.compute_s += sol.compute_s;
    for (std::size_t k = 0; k < memory_level_count; ++k) r.sol.memory_level_s[k] += sol.memory_level_s[k];
    r.sol.memory_s += sol.memory_s;
    r.sol.link_s += sol.link_s;
    r.link_roof_s[static_cast<std::size_t>(p.link)] += sol.link_s;
    r.sol.latency_s += sol.latency_s;
    r.sol.lower_bound_s += sol.lower_bound_s;
    r.achievable_s += p.achievable_s;
    if (r.pricing.find(p.source) == std::string::npos) {
        if (!r.pricing.empty()) r.pricing += '+';
        r.pricing += p.source;
    }
    if (r.example.empty()) r.example = p.example;
}

ROOFLINE_INLINE latency_evidence latency_of(const trace_gpu_context& c, const std::vector<std::size_t>& idx) {
    latency_evidence l;
    std::vector<std::pair<double, double>> durs, grids;
    double t_small = 0, t_known = 0, occ_w = 0, occ_t = 0, graph = 0;
    for (auto i : idx) {
        const auto& e = c.trace->events[i];
        if (e.activity != gpu_activity::kernel) continue;
        l.kernels += 1;
        if (is_graph_launch_api(e.launch_api)) graph += 1;
        durs.push_back({e.duration_s, 1.0});
        const double blocks = double(e.grid[0]) * e.grid[1] * e.grid[2];
        if (blocks > 0) {
            t_known += e.duration_s;
            grids.push_back({blocks, e.duration_s});
            if (c.sm_count > 0 && blocks < c.sm_count) t_small += e.duration_s;
        }
        if (std::isfinite(e.occupancy_pct) && e.occupancy_pct > 0) {
            occ_w += e.occupancy_pct * e.duration_s;
            occ_t += e.duration_s;
        }
    }
    if (const auto m = detail::trace_pw::weighted_median(durs)) l.median_kernel_s = *m;
    if (const auto m = detail::trace_pw::weighted_median(grids)) l.median_grid_blocks = *m;
    if (t_known > 0) l.small_grid_share = t_small / t_known;
    if (occ_t > 0) l.occupancy_pct = occ_w / occ_t;
    if (l.kernels > 0) l.graph_launched_share = graph / l.kernels;
    return l;
}

ROOFLINE_INLINE trace_timeline timeline_of(const trace_gpu_context& c, const std::vector<std::size_t>& idx) {
    std::vector<time_interval> all, comm, comp;
    std::size_t n_comm = 0;  // sized once: these are per-event and the window holds them all
    for (auto i : idx) n_comm += c.trace->events[i].phase == kernel_phase::communication;
    all.reserve(idx.size());
    comm.reserve(n_comm);
    comp.reserve(idx.size() - n_comm);
    for (auto i : idx) {
        const auto& e = c.trace->events[i];
        const time_interval iv{e.start_s, e.end_s()};
        all.push_back(iv);
        (e.phase == kernel_phase::communication ? comm : comp).push_back(iv);
    }
    trace_timeline tl{merge_intervals(all), merge_intervals(comm), merge_intervals(comp), 0};
    tl.span_s = tl.busy.empty() ? 0 : tl.busy.back().end_s - tl.busy.front().start_s;
    return tl;
}

ROOFLINE_INLINE trace_timeline measure_timeline(const trace_gpu_context& c, trace_analysis& a) {
    const auto tl = timeline_of(c, c.mine);
    std::map<std::int64_t, int> streams;
    double activity_s = 0;
    for (auto i : c.mine) activity_s += c.trace->events[i].duration_s, ++streams[c.trace->events[i].stream];
    a.window_start_s = tl.busy.front().start_s;
    a.window_end_s = tl.busy.back().end_s;
    const double busy_s = total_length_s(tl.busy);
    a.busy_fraction = tl.span_s > 0 ? busy_s / tl.span_s : 1.0;
    auto gaps = gaps_s(tl.busy);
    a.idle_gaps = gaps.size();
    if (!gaps.empty()) {
        std::sort(gaps.begin(), gaps.end());
        a.median_gap_s = gaps[gaps.size() / 2];
        a.max_gap_s = gaps.back();
    }
    a.concurrency = busy_s > 0 ? activity_s / busy_s : 1.0;
    a.streams = streams.size();
    a.communication_s = total_length_s(tl.communication);
    a.exposed_communication_s = total_length_s(subtract(tl.communication, tl.compute));
    a.overlapped_communication_s = a.communication_s - a.exposed_communication_s;
    return tl;
}

ROOFLINE_INLINE double set_collective_measures(analysis_row& r, double union_s, double exposed_s, double bw_t,
                                               double bw_s, double span_s) {
    r.exposed_s = exposed_s;
    r.overlapped_s = union_s - r.exposed_s;
    if (bw_t > 0) r.busbw_bytes_per_s = bw_s / bw_t;
    return span_s > 0 ? r.exposed_s / span_s : 0.0;
}

ROOFLINE_INLINE std::string helper_reason(std::string_view op_name, const std::string& description) {
    return "launched by " + std::string(op_name) + " with a longer kernel that carries the op's work (" + description + ")";
}

ROOFLINE_INLINE void measure_collectives(row_group& g, const trace_gpu_context& c, const recovered_work& w,
                                         const interval_set& compute, double span_s) {
    std::vector<time_interval> piv;
    for (auto i : g.idx) piv.push_back({c.trace->events[i].start_s, c.trace->events[i].end_s()});
    const auto ps = merge_intervals(piv);
    double bw_t = 0, bw_s = 0;
    for (auto i : g.idx)
        if (w.prices[i].busbw) bw_t += c.trace->events[i].duration_s, bw_s += *w.prices[i].busbw * c.trace->events[i].duration_s;
    g.communication_share =
        set_collective_measures(g.row, total_length_s(ps), total_length_s(subtract(ps, compute)), bw_t, bw_s, span_s);
}

ROOFLINE_INLINE std::vector<row_group> kernel_groups(const trace_gpu_context& c, const recovered_work& w,
                                                     const trace_timeline& tl, double gpu_time_s) {
    const auto& t = *c.trace;
    auto groups = group_rows<std::string_view>(
        c, w, c.mine, gpu_time_s, [&](std::size_t i) { return t.events[i].name; },
        [&](analysis_row& r, std::string_view name, std::size_t first) {
            r.name = std::string(name);
            r.phase = t.events[first].phase;
            r.activity = t.events[first].activity;
        });
    for (auto& g : groups) {
        auto& r = g.row;
        int helper_of = -1;
        for (auto i : g.idx)
            if (w.prices[i].helper) helper_of = w.prices[i].op_work;
        if (helper_of >= 0 && r.priced_s == 0)
            r.unknown_reason = helper_reason(w.op_names[static_cast<std::size_t>(helper_of)],
                                             w.op_works[static_cast<std::size_t>(helper_of)].description);
        if (r.phase == kernel_phase::communication) measure_collectives(g, c, w, tl.compute, tl.span_s);
        for (auto i : g.idx)
            if (const int wi = w.prices[i].op_work; wi >= 0)
                for (const auto& n : w.op_works[static_cast<std::size_t>(wi)].assumptions)
                    detail::trace_an::note_once(r.notes, n);
    }
    return groups;
}

ROOFLINE_INLINE std::vector<row_group> op_groups(const trace_gpu_context& c, const recovered_work& w, double gpu_time_s) {
    const auto& t = *c.trace;
    using key = std::tuple<std::string_view, std::string_view, std::string_view>;
    const auto op_of = [&](std::size_t i) -> const cpu_op* {
        if (t.events[i].op >= 0) return &t.ops[static_cast<std::size_t>(t.events[i].op)];
        const int wi = w.prices[i].op_work;
        return wi >= 0 ? &t.ops[static_cast<std::size_t>(w.op_index[static_cast<std::size_t>(wi)])] : nullptr;
    };
    auto groups = group_rows<key>(
        c, w, c.mine, gpu_time_s,
        [&](std::size_t i) {
            const cpu_op* o = op_of(i);
            return o ? key{o->name, o->input_dims, o->input_types} : key{"(no launching op)", "", ""};
        },
        [&](analysis_row& r, const key& k, std::size_t first) {
            r.name = std::string(std::get<0>(k));
            r.input_dims = std::string(std::get<1>(k));
            r.input_types = std::string(std::get<2>(k));
            r.phase = t.events[first].phase;
            r.activity = t.events[first].activity;
        },
        true);
    std::sort(groups.begin(), groups.end(), [](const row_group& x, const row_group& y) {
        return x.row.total_s != y.row.total_s ? x.row.total_s > y.row.total_s : x.row.name < y.row.name;
    });
    return groups;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
