#pragma once
// The cluster report (analysis/cluster.hpp) as text and as JSON: two views of one result.
//
// Text: the verdict sentence, the per-rank table (busy, idle, exposed communication, verdict,
// power), idle time by cause summed over each rank's streams with launch delays, the
// collectives by process group and name (time, wait for the last rank, transfer against the
// modeled transfer, top straggler), the stragglers with their causes, and notes.
// JSON keys are a public contract (README "Cluster traces").

#include <string>  // std::string

#include <fmt/format.h>

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/cluster.hpp"
#include "roofline/io/rank_summary.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/table.hpp"

#include <nlohmann/json_fwd.hpp>

namespace roofline::report {

/// The text report of `r`.
std::string render_cluster_text(const cluster_report& r);

/// The JSON report of `r`: {"verdict", "bound", "ranks": [rank summaries without their
/// collectives], "collectives": [groups], "stragglers", "notes"}.
nlohmann::ordered_json cluster_report_json(const cluster_report& r);

}  // namespace roofline::report

#if ROOFLINE_BODIES_REPORT
#include <nlohmann/json.hpp>

namespace roofline::report {
namespace detail::cluster_text {

inline std::string secs(double s) { return std::isfinite(s) ? format_seconds(s) : "-"; }
inline std::string share(double part, double whole) {
    return whole > 0 && std::isfinite(part) ? format_percent(part / whole) : "-";
}

/// Idle time of a rank summed over its streams.
inline stream_idle idle_total(const rank_summary& s) {
    stream_idle t;
    for (const auto& x : s.streams) {
        t.activities += x.activities;
        t.host_wait_s += x.host_wait_s;
        t.kernel_wait_s += x.kernel_wait_s;
        t.other_s += x.other_s;
    }
    return t;
}

}  // namespace detail::cluster_text

ROOFLINE_INLINE std::string render_cluster_text(const cluster_report& r) {
    using namespace detail::cluster_text;
    std::string out = fmt::format("Cluster: {} ranks, mean window {}\nVerdict: {}\n\n", r.ranks.size(),
                                  secs(r.mean_window_s), r.verdict);
    auto rt = text_table::with_headers({"rank", "from", "file", "window", "busy", "idle", "exposed comm",
                                        "verdict", "power"});
    for (const auto& s : r.ranks)
        rt.add_row({std::to_string(s.rank), s.rank_source, s.file, secs(s.window_s), share(s.busy_s, s.window_s),
                    share(s.idle_s, s.window_s), share(s.exposed_communication_s, s.window_s), s.bound,
                    s.mean_power_w ? format_watts(*s.mean_power_w) + " (GPU " + std::to_string(s.power_gpu_index) + ")"
                                   : "-"});
    out += rt.render(160) + "\n";
    out += fmt::format("Idle time by cause (HolisticTraceAnalysis split, summed over streams; kernel wait: gaps "
                       "under {}) and launch delay (GPU start - end of launch call):\n",
                       secs(r.ranks.front().launch_floor_s));
    auto it = text_table::with_headers({"rank", "streams", "host wait", "kernel wait", "other", "launches",
                                        "median delay", "p90 delay", "max delay"});
    for (const auto& s : r.ranks) {
        const auto t = idle_total(s);
        it.add_row({std::to_string(s.rank), std::to_string(s.streams.size()), secs(t.host_wait_s),
                    secs(t.kernel_wait_s), secs(t.other_s), std::to_string(s.launch_delay.count),
                    secs(s.launch_delay.median_s), secs(s.launch_delay.p90_s), secs(s.launch_delay.max_s)});
    }
    out += it.render(160) + "\n";
    if (!r.groups.empty()) {
        out += "Collectives matched across ranks (per rank: time, wait for the last rank; transfer: the shortest "
               "kernel of each call, against the link model):\n";
        auto ct = text_table::with_headers({"collective", "group", "calls", "time", "share", "wait", "transfer",
                                            "modeled", "top straggler"});
        for (const auto& g : r.groups)
            ct.add_row({g.name, g.process_group, std::to_string(g.calls), secs(g.time_s),
                        format_percent(g.share_of_step), secs(g.wait_s), secs(g.transfer_s),
                        secs(g.model_transfer_s),
                        g.top_straggler >= 0 ? "rank " + std::to_string(g.top_straggler) : "-"});
        out += ct.render(160) + "\n";
    }
    if (!r.stragglers.empty()) {
        out += "Stragglers (last to arrive; wait caused summed over the other ranks):\n";
        auto st = text_table::with_headers({"rank", "last at", "wait caused", "before it", "its time", "others' median"});
        for (const auto& s : r.stragglers)
            st.add_row({std::to_string(s.rank), std::to_string(s.times_last), secs(s.wait_caused_s),
                        s.cause ? std::string(to_string(*s.cause)) : "-", s.cause ? secs(s.cause_s) : "-",
                        s.cause ? secs(s.cause_others_s) : "-"});
        out += st.render(160) + "\n";
    }
    for (const auto& s : r.ranks)
        if (!s.power_note.empty()) out += fmt::format("note: rank {} power: {}\n", s.rank, s.power_note);
    for (const auto& n : r.notes) out += "note: " + n + "\n";
    for (const auto& s : r.ranks)
        for (const auto& n : s.notes) out += fmt::format("warning: rank {}: {}\n", s.rank, n);
    return out;
}

ROOFLINE_INLINE nlohmann::ordered_json cluster_report_json(const cluster_report& r) {
    const auto num = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json j;
    j["verdict"] = r.verdict;
    j["bound"] = r.bound;
    j["ranks_with_bound"] = r.ranks_with_bound;
    j["mean_window_s"] = num(r.mean_window_s);
    j["active_ranks"] = r.active_ranks;
    auto& ranks = j["ranks"] = nlohmann::ordered_json::array();
    for (const auto& s : r.ranks) {
        auto k = rank_summary_json(s);
        k.erase("collectives");
        k["collective_kernels"] = s.collectives.size();
        ranks.push_back(std::move(k));
    }
    auto& cs = j["collectives"] = nlohmann::ordered_json::array();
    for (const auto& g : r.groups)
        cs.push_back({{"name", g.name},
                      {"process_group", g.process_group},
                      {"calls", g.calls},
                      {"bytes", num(g.bytes)},
                      {"time_s", num(g.time_s)},
                      {"share_of_step", num(g.share_of_step)},
                      {"wait_s", num(g.wait_s)},
                      {"transfer_s", num(g.transfer_s)},
                      {"model_transfer_s", num(g.model_transfer_s)},
                      {"top_straggler", g.top_straggler},
                      {"top_straggler_wait_s", num(g.top_straggler_wait_s)}});
    auto& ss = j["stragglers"] = nlohmann::ordered_json::array();
    for (const auto& s : r.stragglers)
        ss.push_back({{"rank", s.rank},
                      {"times_last", s.times_last},
                      {"wait_caused_s", num(s.wait_caused_s)},
                      {"cause", s.cause ? nlohmann::ordered_json(std::string(to_string(*s.cause))) : nlohmann::ordered_json(nullptr)},
                      {"cause_s", num(s.cause_s)},
                      {"cause_others_median_s", num(s.cause_others_s)}});
    j["notes"] = r.notes;
    return j;
}

}  // namespace roofline::report
#endif  // ROOFLINE_BODIES_REPORT
