#pragma once
// Collectives matched across ranks: who waited, for whom, and why.
//
// 1. Per rank (`rank_collectives`): every collective kernel of the analysed GPU, keyed by its
//    process group (`Process Group Name`) and sequence number (`Seq` where the profiler wrote
//    it, else its position among the group's collectives on that rank: NCCL requires every rank
//    to issue a communicator's collectives in the same order). Kernels without NCCL metadata
//    (old traces, DeepEP and custom all-reduce kernels: any kernel of the communication phase)
//    are keyed by their stream ("stream 84"), their name and their position among them. Each record
//    keeps the GPU time by phase the rank spent since its previous collective: what it was doing
//    before.
// 2. Across ranks (`match_collectives`): the records with the same key form one collective. A
//    collective ends on every rank at about the same moment (when the last rank has arrived and
//    the data has moved), so a rank's kernel lasts its own wait plus the transfer:
//        transfer  = the shortest kernel of the set (the last rank to arrive waited for nobody)
//        wait_r    = duration_r - transfer                 (the skew TraceLens reports)
//    This needs no clock agreement between hosts (Kineto clocks of different nodes can be
//    milliseconds apart). The transfer is compared with `model_transfer_s`, the transfer alone at
//    the link's bandwidth with the algorithm's bus factor (models/collective.hpp).
// 3. The straggler of a collective is that last rank; its cause is the phase whose time before
//    the collective exceeds the other ranks' median the most (`straggler_cause`).

#include <algorithm>  // std::sort, std::min_element
#include <array>      // std::array
#include <cmath>      // std::isfinite
#include <cstdint>    // std::int64_t
#include <map>        // std::map
#include <string>     // std::string
#include <tuple>      // std::tuple
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/rank_summary.hpp"

namespace roofline {

/// The op of a Kineto `Collective name` ("allreduce", "_allgather_base", "reduce_scatter_tensor",
/// "all_to_all"): case and underscores ignored; nullopt for others (send, recv, broadcast). The
/// same mapping as the per-rank analysis applies when it prices collectives.
std::optional<collective_op> collective_op_of_name(std::string_view name);

/// "ncclDevKernel_AllGather_RING_LL(...)" -> "AllGather"; "ncclKernel_SendRecv_..." ->
/// "SendRecv"; others without a leading "void " and cut at the first '<' or '('
/// ("void dpsk::ep::internode::combine<false, 8>(...)" -> "dpsk::ep::internode::combine",
/// "void (anonymous namespace)::multimem_all_reduce_kernel<...>" -> "multimem_all_reduce_kernel").
std::string collective_name_of_kernel(std::string_view kernel);

/// The collectives of `device` in `t`, in start order, with their keys, prices and what ran
/// before each (see the file comment). `gpu`: prices the transfer (nullptr: left unknown).
/// Returns the records and the seq source ("Seq" when every record had one, else "order").
std::pair<std::vector<rank_collective>, std::string> rank_collectives(const kernel_trace& t, int device,
                                                                      const gpu_spec* gpu);

/// One collective as every rank that ran it saw it.
struct matched_collective {
    std::string process_group, name;
    std::int64_t seq = -1;
    double bytes = std::numeric_limits<double>::quiet_NaN();
    double model_transfer_s = std::numeric_limits<double>::quiet_NaN();  ///< from the first rank
    std::vector<int> ranks;           ///< in rank order
    std::vector<double> duration_s;   ///< per rank, same order
    std::vector<double> wait_s;       ///< duration - transfer
    double transfer_s = 0;            ///< the shortest duration
    int last_rank = -1;               ///< the rank with the shortest kernel: it arrived last
    /// Phase of the last rank's pre-collective work most above the other ranks' median, its
    /// time there and that median (NaN when it had no excess over the others).
    std::optional<kernel_phase> cause;
    double cause_s = 0, cause_others_median_s = 0;
    double total_wait_s() const {
        double w = 0;
        for (double x : wait_s) w += x;
        return w;
    }
};

/// Median of `v` (upper median for even sizes; 0 for none).
double median_of(std::vector<double> v);

/// Matches the collectives of `ranks` by (process group, name, seq); keeps those seen on >= 2
/// ranks, in that key order. Ranks are identified by `rank_summary::rank`.
std::vector<matched_collective> match_collectives(const std::vector<rank_summary>& ranks);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE std::optional<collective_op> collective_op_of_name(std::string_view name) {
    std::string n;
    for (char c : name)
        if (c != '_') n += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (auto op : {collective_op::all_reduce, collective_op::all_gather, collective_op::reduce_scatter,
                    collective_op::all_to_all}) {
        std::string key;
        for (char c : to_string(op))
            if (c != '_') key += c;
        if (n.find(key) != std::string::npos) return op;
    }
    return std::nullopt;
}

ROOFLINE_INLINE std::string collective_name_of_kernel(std::string_view kernel) {
    if (kernel.substr(0, 5) == "void ") kernel.remove_prefix(5);
    if (kernel.substr(0, 23) == "(anonymous namespace)::") kernel.remove_prefix(23);
    kernel = kernel.substr(0, std::min(kernel.find('('), kernel.find('<')));
    for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
        if (kernel.substr(0, prefix.size()) == prefix) {
            auto rest = kernel.substr(prefix.size());
            return std::string(rest.substr(0, rest.find('_')));
        }
    }
    return std::string(kernel);
}

ROOFLINE_INLINE std::pair<std::vector<rank_collective>, std::string> rank_collectives(const kernel_trace& t, int device,
                                                                                      const gpu_spec* gpu) {
    std::vector<const kernel_event*> ev;
    for (const auto& e : t.events)
        if (e.device == device) ev.push_back(&e);
    std::stable_sort(ev.begin(), ev.end(),
                     [](const kernel_event* a, const kernel_event* b) { return a->start_s < b->start_s; });
    std::optional<link_params> link;
    if (gpu) {
        try {
            link = default_link_params(*gpu, gpu->default_link());
        } catch (const usage_error&) {
        }
    }
    std::vector<rank_collective> out;
    std::map<std::string, std::int64_t> next_seq;
    std::array<double, kernel_phase_count> before{};
    bool all_seq = true;
    for (const kernel_event* e : ev) {
        const bool is_coll = e->collective >= 0 || e->phase == kernel_phase::communication;
        if (!is_coll) {
            before[static_cast<std::size_t>(e->phase)] += e->duration_s;
            continue;
        }
        rank_collective c;
        c.start_s = e->start_s;
        c.duration_s = e->duration_s;
        c.before_by_phase_s = before;
        before = {};
        const std::string kname(e->name);
        c.algorithm = kname.find("TREE") != std::string::npos ? "tree" : "ring";
        if (e->collective >= 0) {
            const auto& ci = t.collectives[static_cast<std::size_t>(e->collective)];
            c.process_group = std::string(ci.process_group_name);
            c.name = std::string(ci.name);
            c.group_size = ci.group_size;
            if (c.group_size < 1 && t.distributed) c.group_size = t.distributed->world_size;
            c.seq = ci.seq;
            const auto op = collective_op_of_name(ci.name);
            if (op) c.bytes = *op == collective_op::all_gather ? ci.out_msg_bytes() : ci.in_msg_bytes();
            if (op && link && c.group_size >= 1 && std::isfinite(c.bytes) && c.bytes >= 0) {
                const auto algo = c.algorithm == "tree" && *op == collective_op::all_reduce ? collective_algorithm::tree
                                                                                           : collective_algorithm::ring;
                c.algorithm = std::string(to_string(algo));
                c.model_transfer_s = collective_time(*op, c.bytes, c.group_size, *link, algo).time_s;
            }
        } else {
            c.process_group = "stream " + std::to_string(e->stream);
            c.name = collective_name_of_kernel(e->name);
        }
        // NCCL orders a communicator's collectives of every kind; kernels without metadata are
        // counted per stream and kernel name.
        auto& n = next_seq[e->collective >= 0 ? c.process_group : c.process_group + '\n' + c.name];
        if (c.seq < 0) {
            all_seq = false;
            c.seq = n;
        }
        n = c.seq + 1;
        out.push_back(std::move(c));
    }
    return {std::move(out), all_seq && !out.empty() ? "Seq" : "order"};
}

ROOFLINE_INLINE double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

ROOFLINE_INLINE std::vector<matched_collective> match_collectives(const std::vector<rank_summary>& ranks) {
    std::map<std::tuple<std::string, std::string, std::int64_t>, std::vector<std::pair<int, const rank_collective*>>>
        by_key;
    for (const auto& r : ranks)
        for (const auto& c : r.collectives) by_key[{c.process_group, c.name, c.seq}].push_back({r.rank, &c});
    std::vector<matched_collective> out;
    for (auto& [key, members] : by_key) {
        if (members.size() < 2) continue;
        std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        matched_collective m;
        m.process_group = std::get<0>(key);
        m.name = std::get<1>(key);
        m.seq = std::get<2>(key);
        m.bytes = members.front().second->bytes;
        m.model_transfer_s = members.front().second->model_transfer_s;
        std::size_t last = 0;
        for (std::size_t i = 0; i < members.size(); ++i) {
            m.ranks.push_back(members[i].first);
            m.duration_s.push_back(members[i].second->duration_s);
            if (members[i].second->duration_s < members[last].second->duration_s) last = i;
        }
        m.transfer_s = members[last].second->duration_s;
        m.last_rank = members[last].first;
        for (double d : m.duration_s) m.wait_s.push_back(d - m.transfer_s);
        // Cause: the phase where the last rank's pre-collective time most exceeds the others'.
        double best = 0;
        for (std::size_t p = 0; p < kernel_phase_count; ++p) {
            std::vector<double> others;
            for (std::size_t i = 0; i < members.size(); ++i)
                if (i != last) others.push_back(members[i].second->before_by_phase_s[p]);
            const double med = median_of(others), mine = members[last].second->before_by_phase_s[p];
            if (mine - med > best) {
                best = mine - med;
                m.cause = all_kernel_phases[p];
                m.cause_s = mine;
                m.cause_others_median_s = med;
            }
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
