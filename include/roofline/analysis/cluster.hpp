#pragma once
// Every rank of a distributed job: per-rank verdicts, collectives matched across ranks, the
// straggler and its cause, and one cluster verdict.
//
// Pipeline:
//  1. Per rank, in bounded memory (`summarize_rank_file`): read one Kineto trace, decide its
//     rank (`distributedInfo.rank`, else a "rank<N>" in the file name, else its position in the
//     list), analyse it as `roofline trace` does (analysis/trace_analysis.hpp), keep a small
//     `rank_summary` (trace/rank_summary.hpp) and drop the trace. `summarize_rank_files` runs
//     `jobs` of these at once; peak memory is about `jobs` traces' worth, not the job's.
//  2. The summaries, from memory or read back from JSON (io/rank_summary.hpp, `roofline merge`),
//     are joined by `build_cluster_report`: collectives matched by process group and sequence
//     number (analysis/collective_match.hpp), grouped by process group and collective name,
//     stragglers ranked by the wait they caused, and the verdict sentence.
// The report depends on the summaries alone, so analysing the files together and merging their
// summaries give the same report.

#include <algorithm>  // std::sort, std::max
#include <array>      // std::array
#include <atomic>     // std::atomic
#include <cctype>     // std::tolower, std::isdigit
#include <cmath>      // std::isfinite
#include <cstdio>     // std::snprintf
#include <exception>  // std::exception_ptr
#include <map>        // std::map
#include <optional>   // std::optional
#include <string>     // std::string
#include <system_error>  // std::system_error
#include <thread>     // std::thread
#include <tuple>      // std::tie
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/collective_match.hpp"
#include "roofline/analysis/idle_time.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/trace/power.hpp"
#include "roofline/trace/rank_summary.hpp"

namespace roofline {

/// The rank in a file name: the digits after the last "rank" (any case, optionally followed by
/// '-', '_' or '.'): "sampled_rank-1.json.gz" -> 1, "trace_RANK3.json" -> 3; nullopt otherwise.
std::optional<int> rank_from_file_name(const std::string& path);

/// What the per-rank analyses share.
struct cluster_options {
    trace_analysis_options analysis;  ///< as for one trace; `power` is ignored (see below)
    const kernel_rules* rules = nullptr;  ///< nullptr: the built-in rules
    /// A multi-GPU nvidia-smi log of the node(s): each rank gets the samples of one GPU index.
    const power_log* power = nullptr;
    /// CUDA_VISIBLE_DEVICES of the job (log indices of the node's GPUs in local-rank order);
    /// empty: local rank i ran on log index i.
    std::vector<int> visible_devices;
    int gpus_per_node = 0;  ///< ranks per node, for local rank = rank mod this; 0: the log's GPUs
    double launch_floor_s = hta_launch_floor_s;
    unsigned jobs = 1;  ///< ranks analysed at once
};

/// The log GPU index rank `rank` ran on, and the assumption that gave it (see `cluster_options`).
std::pair<int, std::string> power_index_of_rank(int rank, int trace_device, const cluster_options& o);

/// The device of `t` with the most GPU time (as `analyze_trace` picks it); -1 for no activity.
int busiest_device(const kernel_trace& t);

/// The summary of one rank (rank fields left for the caller): the timeline of `device` (window,
/// busy = union of activity, exposed communication = collectives minus compute, as
/// analysis/trace_analysis.hpp defines them), idle split, launch delays and collectives, plus
/// the verdict of `a` (nullptr: "unknown", e.g. a GPU the catalog lacks). `gpu` prices
/// transfers (nullptr: unknown).
rank_summary summarize_rank(const kernel_trace& t, const trace_analysis* a, int device, const gpu_spec* gpu,
                            double launch_floor_s = hta_launch_floor_s);

/// Reads, analyses and summarises one rank's Kineto trace. `order`: its position in the list
/// (the rank of last resort). Errors as `read_kineto` and `analyze_trace`.
rank_summary summarize_rank_file(const std::string& path, int order, const gpu_catalog& catalog,
                                 const cluster_options& o);

/// `summarize_rank_file` for every path, `o.jobs` at a time; in the order given. The first
/// failure (in path order) is rethrown after all workers stopped.
std::vector<rank_summary> summarize_rank_files(const std::vector<std::string>& paths, const gpu_catalog& catalog,
                                               const cluster_options& o);

/// The collectives of one (process group, collective name), over every matched call.
struct collective_group {
    std::string process_group, name;
    std::size_t calls = 0;
    double bytes = 0;         ///< summed message sizes (NaN when unknown)
    double time_s = 0;        ///< per rank: summed kernel time, mean over the ranks
    double wait_s = 0;        ///< per rank: summed wait for the last rank, mean over the ranks
    double transfer_s = 0;    ///< summed transfer times (shortest kernel of each call)
    double model_transfer_s = 0;  ///< summed modeled transfers (NaN when one is unknown)
    double share_of_step = 0;     ///< time_s / mean rank window
    int top_straggler = -1;       ///< the rank that caused most of this group's wait
    double top_straggler_wait_s = 0;  ///< per rank, mean over the ranks
};

/// A rank that arrived last, and what it was doing before.
struct straggler {
    int rank = -1;
    std::size_t times_last = 0;  ///< collectives it arrived last at (with a wait > 0)
    double wait_caused_s = 0;    ///< the other ranks' summed wait at those collectives
    std::optional<kernel_phase> cause;   ///< phase with the most excess time before them
    double cause_s = 0, cause_others_s = 0;  ///< its time there and the others' median, summed
};

/// The cluster report: one computed result; text and JSON are views of it (report/).
struct cluster_report {
    std::vector<rank_summary> ranks;  ///< by rank
    std::vector<matched_collective> collectives;
    std::vector<collective_group> groups;  ///< longest first
    std::vector<straggler> stragglers;     ///< most wait caused first
    double mean_window_s = 0;   ///< over the ranks with GPU activity
    std::size_t active_ranks = 0;  ///< ranks with GPU activity (the means are over these)
    std::string bound;  ///< the verdict most ranks have
    std::size_t ranks_with_bound = 0;
    std::string verdict;  ///< one sentence
    std::vector<std::string> notes;
};

/// Joins rank summaries into the cluster report (see the file comment). Ranks without GPU
/// activity are kept in `ranks` but left out of the mean window, the verdict's count and the
/// per-rank means, and a note names them. Throws `usage_error`, naming the files, when two
/// summaries claim the same rank, when they record different world sizes or GPUs (ranks of
/// different jobs), when no rank has GPU activity, or when there are none.
cluster_report build_cluster_report(std::vector<rank_summary> ranks);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE std::optional<int> rank_from_file_name(const std::string& path) {
    std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    for (auto& ch : base) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto at = base.rfind("rank");
    if (at == std::string::npos) return std::nullopt;
    std::size_t i = at + 4;
    if (i < base.size() && (base[i] == '-' || base[i] == '_' || base[i] == '.')) ++i;
    std::size_t j = i;
    while (j < base.size() && j - i < 7 && std::isdigit(static_cast<unsigned char>(base[j]))) ++j;
    if (j == i) return std::nullopt;
    return std::stoi(base.substr(i, j - i));
}

ROOFLINE_INLINE std::pair<int, std::string> power_index_of_rank(int rank, int trace_device, const cluster_options& o) {
    std::map<int, std::size_t> per_index;
    for (const auto& s : o.power->samples) ++per_index[s.gpu_index];
    const int per_node = o.gpus_per_node > 0 ? o.gpus_per_node
                         : !o.visible_devices.empty() ? static_cast<int>(o.visible_devices.size())
                                                      : static_cast<int>(per_index.size());
    const int local = per_node > 0 ? rank % per_node : 0;
    std::string how = "local rank " + std::to_string(local) + " = rank " + std::to_string(rank) + " mod " +
                      std::to_string(per_node) + " GPUs per node";
    int index = local;
    if (!o.visible_devices.empty()) {
        if (local >= static_cast<int>(o.visible_devices.size()))
            throw usage_error("--visible-devices lists " + std::to_string(o.visible_devices.size()) +
                              " GPUs but rank " + std::to_string(rank) + " is local rank " + std::to_string(local));
        index = o.visible_devices[static_cast<std::size_t>(local)];
        how += ", CUDA_VISIBLE_DEVICES[" + std::to_string(local) + "] = log GPU " + std::to_string(index);
    } else {
        how += ", taken as log GPU " + std::to_string(index) + " (no CUDA_VISIBLE_DEVICES given)";
    }
    if (trace_device >= 0 && trace_device != local && trace_device != index)
        how += "; the trace's CUDA device is " + std::to_string(trace_device);
    if (!per_index.count(index)) how += "; the log has no GPU " + std::to_string(index) + ": no power";
    return {index, how};
}

ROOFLINE_INLINE int busiest_device(const kernel_trace& t) {
    std::map<int, double> by;
    for (const auto& e : t.events) by[e.device] += e.duration_s;
    int best = -1;
    double most = -1;
    for (const auto& [d, s] : by)
        if (s > most) most = s, best = d;
    return best;
}

ROOFLINE_INLINE rank_summary summarize_rank(const kernel_trace& t, const trace_analysis* a, int device, const gpu_spec* gpu,
                                            double launch_floor_s) {
    rank_summary s;
    s.file = t.file;
    s.format = t.format;
    s.world_size = t.distributed ? t.distributed->world_size : -1;
    s.device = device;
    std::vector<time_interval> all, comm, compute;
    for (const auto& e : t.events) {
        if (e.device != device) continue;
        all.push_back({e.start_s, e.end_s()});
        (e.phase == kernel_phase::communication ? comm : compute).push_back({e.start_s, e.end_s()});
    }
    const auto busy = merge_intervals(std::move(all));
    const auto cm = merge_intervals(std::move(comm)), cp = merge_intervals(std::move(compute));
    if (!busy.empty()) s.window_s = busy.back().end_s - busy.front().start_s;
    s.busy_s = total_length_s(busy);
    s.idle_s = s.window_s - s.busy_s;
    s.communication_s = total_length_s(cm);
    s.exposed_communication_s = total_length_s(subtract(cm, cp));
    s.bound = "unknown";
    if (a) {
        s.gpu_id = a->gpu.id;
        s.gpu_name = a->gpu_name;
        s.bound = a->window.bound_name();
        s.verdict_reason = a->window.result ? a->window.result->reason : a->window.unknown_reason;
        if (a->power && a->power->mean_draw_w) s.mean_power_w = *a->power->mean_draw_w;
    }
    s.launch_floor_s = launch_floor_s;
    s.streams = idle_time_by_stream(t, device, launch_floor_s);
    s.launch_delay = launch_delays(t, device);
    auto [colls, seq_source] = rank_collectives(t, device, gpu);
    s.collectives = std::move(colls);
    s.seq_source = seq_source;
    return s;
}

ROOFLINE_INLINE rank_summary summarize_rank_file(const std::string& path, int order, const gpu_catalog& catalog,
                                                 const cluster_options& o) {
    kineto_options ko;
    ko.rules = o.rules;
    if (o.jobs > 1) ko.parse_workers = 0;  // the ranks already run side by side
    const kernel_trace t = read_kineto(path, ko);
    int rank = order;
    std::string source = "order";
    if (t.distributed && t.distributed->rank >= 0) {
        rank = t.distributed->rank;
        source = "distributedInfo.rank";
    } else if (const auto r = rank_from_file_name(path)) {
        rank = *r;
        source = "file name";
    }
    trace_analysis_options ao = o.analysis;
    ao.power = nullptr;
    power_log mine;
    std::string power_note;
    int power_index = -1;
    if (o.power) {
        std::tie(power_index, power_note) = power_index_of_rank(rank, busiest_device(t), o);
        mine.file = o.power->file;
        mine.gpu_names = o.power->gpu_names;
        mine.samples = o.power->samples_of(power_index);
        if (!mine.samples.empty()) ao.power = &mine;
    }
    // No verdict is not the end of the cluster report: a GPU the catalog lacks (pass --gpu) or a
    // rank without GPU activity still has a timeline (or an empty one), and says why.
    std::optional<trace_analysis> a;
    std::string no_verdict;
    try {
        a = analyze_trace(t, catalog, ao);
    } catch (const usage_error& e) {
        no_verdict = e.what();
    }
    const int device = a ? a->device : busiest_device(t);
    rank_summary s = summarize_rank(t, a ? &*a : nullptr, device, a ? catalog.find(a->gpu.id) : nullptr, o.launch_floor_s);
    s.rank = rank;
    s.rank_source = source;
    s.power_gpu_index = a && a->power ? power_index : -1;
    s.power_note = power_note;
    if (!no_verdict.empty()) {
        s.verdict_reason = "no verdict: " + no_verdict;
        s.notes.push_back(s.verdict_reason);
    }
    if (a)
        for (const auto& n : a->warnings) s.notes.push_back(n);
    return s;
}

ROOFLINE_INLINE std::vector<rank_summary> summarize_rank_files(const std::vector<std::string>& paths, const gpu_catalog& catalog,
                                                               const cluster_options& o) {
    std::vector<std::optional<rank_summary>> out(paths.size());
    std::vector<std::exception_ptr> errors(paths.size());
    std::atomic<std::size_t> next{0};
    // Each worker classifies with its own copy of the rules (their name cache is not shared).
    const kernel_rules builtin = o.rules ? kernel_rules{} : load_kernel_rules();
    const kernel_rules& source = o.rules ? *o.rules : builtin;
    auto work = [&] {
        const kernel_rules rules = source;  // concurrent copies of an object no one modifies
        cluster_options mine = o;
        mine.rules = &rules;
        for (std::size_t i; (i = next++) < paths.size();) {
            try {
                out[i] = summarize_rank_file(paths[i], static_cast<int>(i), catalog, mine);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(o.jobs, static_cast<unsigned>(paths.size())));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < n; ++k) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {  // a thread limit: the threads started do the rest
            break;
        }
    }
    work();
    for (auto& th : pool) th.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<rank_summary> r;
    for (auto& s : out) r.push_back(std::move(*s));
    return r;
}

namespace detail::cluster {

inline std::string pct(double f) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * f);
    return b;
}

/// Stragglers of `m`: per last rank, the wait it caused and its cause phase summed.
inline std::vector<straggler> stragglers_of(const std::vector<matched_collective>& m) {
    std::map<int, straggler> by_rank;
    std::map<int, std::array<std::pair<double, double>, kernel_phase_count>> excess;
    for (const auto& c : m) {
        if (!(c.total_wait_s() > 0)) continue;
        auto& s = by_rank[c.last_rank];
        s.rank = c.last_rank;
        ++s.times_last;
        s.wait_caused_s += c.total_wait_s();
        if (c.cause) {
            auto& e = excess[c.last_rank][static_cast<std::size_t>(*c.cause)];
            e.first += c.cause_s;
            e.second += c.cause_others_median_s;
        }
    }
    std::vector<straggler> out;
    for (auto& [r, s] : by_rank) {
        double best = 0;
        for (std::size_t p = 0; p < kernel_phase_count; ++p) {
            const auto& e = excess[r][p];
            if (e.first - e.second > best) {
                best = e.first - e.second;
                s.cause = all_kernel_phases[p];
                s.cause_s = e.first;
                s.cause_others_s = e.second;
            }
        }
        out.push_back(s);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const straggler& a, const straggler& b) { return a.wait_caused_s > b.wait_caused_s; });
    return out;
}

/// Groups of `m` by (process group, name); per-rank means over `nranks` ranks.
inline std::vector<collective_group> groups_of(const std::vector<matched_collective>& m, double nranks,
                                               double mean_window_s) {
    std::map<std::pair<std::string, std::string>, collective_group> by;
    std::map<std::pair<std::string, std::string>, std::map<int, double>> caused;
    for (const auto& c : m) {
        auto& g = by[{c.process_group, c.name}];
        g.process_group = c.process_group;
        g.name = c.name;
        ++g.calls;
        g.bytes += c.bytes;
        for (double d : c.duration_s) g.time_s += d / nranks;
        g.wait_s += c.total_wait_s() / nranks;
        g.transfer_s += c.transfer_s;
        g.model_transfer_s += c.model_transfer_s;
        caused[{c.process_group, c.name}][c.last_rank] += c.total_wait_s() / nranks;
    }
    std::vector<collective_group> out;
    for (auto& [k, g] : by) {
        g.share_of_step = mean_window_s > 0 ? g.time_s / mean_window_s : 0;
        for (const auto& [r, w] : caused[k])
            if (w > g.top_straggler_wait_s) g.top_straggler = r, g.top_straggler_wait_s = w;
        out.push_back(g);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const collective_group& a, const collective_group& b) { return a.time_s > b.time_s; });
    return out;
}

/// "communication-bound (6 of 8 ranks): 38% of the step is alltoall (process group 3), 60% of
/// that waiting for rank 5, whose moe_gemm kernels run 1.4x longer before it (expert load
/// imbalance?)".
inline std::string verdict_sentence(const cluster_report& r) {
    std::string s = (r.bound == "unknown" ? std::string("no verdict") : r.bound + "-bound") + " (" +
                    std::to_string(r.ranks_with_bound) + " of " + std::to_string(r.active_ranks) + " ranks" +
                    (r.active_ranks < r.ranks.size() ? " with GPU activity" : "") + ")";
    if (r.groups.empty()) return s + "; no collective was matched across ranks";
    const auto& g = r.groups.front();
    s += ": " + pct(g.share_of_step) + " of the step is " + g.name + " (process group " + g.process_group + ")";
    if (!(g.top_straggler_wait_s > 0) || !(g.time_s > 0)) return s + ", with no measurable wait between ranks";
    s += ", " + pct(g.top_straggler_wait_s / g.time_s) + " of that waiting for rank " + std::to_string(g.top_straggler);
    for (const auto& st : r.stragglers) {
        if (st.rank != g.top_straggler || !st.cause || !(st.cause_others_s > 0)) continue;
        char b[32];
        std::snprintf(b, sizeof b, "%.1fx", st.cause_s / st.cause_others_s);
        s += ", whose " + std::string(to_string(*st.cause)) + " kernels run " + b +
             " longer before it than the other ranks' median";
        if (*st.cause == kernel_phase::moe_gemm) s += " (expert load imbalance?)";
    }
    return s;
}

}  // namespace detail::cluster

ROOFLINE_INLINE cluster_report build_cluster_report(std::vector<rank_summary> ranks) {
    using namespace detail::cluster;
    if (ranks.empty()) throw usage_error("cluster report: no ranks");
    std::stable_sort(ranks.begin(), ranks.end(), [](const rank_summary& a, const rank_summary& b) { return a.rank < b.rank; });
    for (std::size_t i = 1; i < ranks.size(); ++i)
        if (ranks[i].rank == ranks[i - 1].rank)
            throw usage_error(ranks[i - 1].source() + " and " + ranks[i].source() + " are both rank " +
                              std::to_string(ranks[i].rank) + " (from " + ranks[i - 1].rank_source + ", " +
                              ranks[i].rank_source + ")");
    // Ranks of one job: one world size, one GPU (each where recorded).
    const rank_summary* sized = nullptr;
    const rank_summary* priced = nullptr;
    for (const auto& s : ranks) {
        if (s.world_size > 0) {
            if (sized && sized->world_size != s.world_size)
                throw usage_error(sized->source() + " records world size " + std::to_string(sized->world_size) +
                                  " but " + s.source() + " records " + std::to_string(s.world_size) +
                                  ": ranks of different jobs cannot be joined");
            if (!sized) sized = &s;
        }
        if (!s.gpu_id.empty()) {
            if (priced && priced->gpu_id != s.gpu_id)
                throw usage_error(priced->source() + " ran on " + priced->gpu_id + " but " + s.source() + " on " +
                                  s.gpu_id + ": ranks of different jobs (or a --gpu given to one rank only) "
                                  "cannot be joined");
            if (!priced) priced = &s;
        }
    }
    cluster_report r;
    r.ranks = std::move(ranks);
    std::string idle_ranks;
    for (const auto& s : r.ranks) {
        if (s.has_gpu_activity()) {
            ++r.active_ranks;
            continue;
        }
        idle_ranks += (idle_ranks.empty() ? "" : ", ") + std::to_string(s.rank) + " (" + s.source() + ")";
    }
    if (r.active_ranks == 0)
        throw usage_error("no rank has GPU activity to analyse: " + idle_ranks);
    if (r.active_ranks < r.ranks.size())
        r.notes.push_back(std::to_string(r.ranks.size() - r.active_ranks) + " of " + std::to_string(r.ranks.size()) +
                          " ranks have no GPU activity and are left out of the means and the verdict: rank " +
                          idle_ranks);
    std::map<std::string, std::size_t> bounds;
    for (const auto& s : r.ranks) {
        if (!s.has_gpu_activity()) continue;
        r.mean_window_s += s.window_s / static_cast<double>(r.active_ranks);
        ++bounds[s.bound];
    }
    for (const auto& [b, n] : bounds)
        if (n > r.ranks_with_bound) r.bound = b, r.ranks_with_bound = n;
    r.collectives = match_collectives(r.ranks);
    r.groups = groups_of(r.collectives, static_cast<double>(r.active_ranks), r.mean_window_s);
    r.stragglers = stragglers_of(r.collectives);
    std::size_t unmatched = 0, total = 0;
    for (const auto& s : r.ranks) total += s.collectives.size();
    for (const auto& c : r.collectives) unmatched += c.ranks.size();
    unmatched = total - unmatched;
    if (unmatched > 0)
        r.notes.push_back(std::to_string(unmatched) + " of " + std::to_string(total) +
                          " collective kernels have no counterpart on another rank (process group and seq): left out");
    for (const auto& s : r.ranks)
        if (s.seq_source == "order" && !s.collectives.empty()) {
            r.notes.push_back("collectives matched by their order in each process group (the traces record no Seq)");
            break;
        }
    r.notes.push_back("wait = a rank's collective kernel time minus the shortest of the set (the last rank to arrive "
                      "waits for nobody): needs no clock agreement between hosts");
    r.verdict = verdict_sentence(r);
    return r;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
