#pragma once
// Collectives: all-reduce, all-gather, reduce-scatter, all-to-all over n ranks, priced with the
// alpha-beta model (Hockney; Thakur, Rabenseifner, Gropp, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 2005):
//
//   t = base + steps x alpha + link_bytes / beta
//
// where `link_bytes` is what one rank sends over its link (one direction) and `steps` the number
// of sequential hops of the algorithm. Per algorithm, for a buffer of S bytes:
//
//   op / algorithm            steps          link bytes per rank
//   all_reduce ring           2(n-1)         2(n-1)/n S   (reduce-scatter + all-gather)
//   all_reduce tree           2 ceil(log2 n) 2 S          (double binary tree, pipelined up+down)
//   all_reduce one_shot       1              (n-1) S      (every rank pulls every peer's buffer)
//   all_reduce two_shot       2              2(n-1)/n S   (direct reduce-scatter + all-gather)
//   all_gather / reduce_scatter ring   n-1   (n-1)/n S    (S = the full output / input)
//   all_gather / reduce_scatter / all_to_all one_shot (direct)  1   (n-1)/n S
//   all_to_all ring (pairwise exchange) n-1  (n-1)/n S
//
// One-shot and two-shot are the custom all-reduce kernels of vLLM / TensorRT-LLM / SGLang: they
// need peer-to-peer access (NVLink, or PCIe with P2P). Without P2P, NCCL stages through host
// memory (ring or tree only) and each byte crosses PCIe twice (core/ceilings.hpp).
//
// algbw and busbw follow nccl-tests (doc/PERFORMANCE.md) exactly:
//   algbw = S / t
//   busbw = algbw x 2(n-1)/n  (all_reduce)
//   busbw = algbw x (n-1)/n   (all_gather, reduce_scatter, all_to_all; S = total size)
// so busbw of a ring equals the per-rank link bandwidth the ring achieves, comparable across n.

#include <algorithm>    // std::min
#include <cmath>        // std::ceil, std::log2, std::isfinite
#include <limits>       // std::numeric_limits
#include <cstdint>      // std::uint8_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <tuple>        // std::tie
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/network.hpp"
#include "roofline/core/units.hpp"
#include "roofline/core/workload.hpp"

namespace roofline {

/// Collective operations.
enum class collective_op : std::uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all };

/// Algorithms. `one_shot` / `two_shot` are the direct (P2P) custom kernels.
enum class collective_algorithm : std::uint8_t { ring, tree, one_shot, two_shot };

/// "all_reduce", "all_gather", "reduce_scatter", "all_to_all".
constexpr std::string_view to_string(collective_op op) {
    switch (op) {
        case collective_op::all_reduce: return "all_reduce";
        case collective_op::all_gather: return "all_gather";
        case collective_op::reduce_scatter: return "reduce_scatter";
        case collective_op::all_to_all: return "all_to_all";
    }
    return "?";
}

/// "ring", "tree", "one_shot", "two_shot".
constexpr std::string_view to_string(collective_algorithm a) {
    switch (a) {
        case collective_algorithm::ring: return "ring";
        case collective_algorithm::tree: return "tree";
        case collective_algorithm::one_shot: return "one_shot";
        case collective_algorithm::two_shot: return "two_shot";
    }
    return "?";
}

/// Parses a collective op name (also "allreduce", "alltoall" spellings of nccl-tests).
inline collective_op parse_collective_op(std::string_view s) {
    if (s == "all_reduce" || s == "allreduce") return collective_op::all_reduce;
    if (s == "all_gather" || s == "allgather") return collective_op::all_gather;
    if (s == "reduce_scatter" || s == "reducescatter") return collective_op::reduce_scatter;
    if (s == "all_to_all" || s == "alltoall") return collective_op::all_to_all;
    throw usage_error("unknown collective \"" + std::string(s) +
                      "\" (accepted: all_reduce, all_gather, reduce_scatter, all_to_all)");
}

/// Parses a link name: "nvlink", "pcie", "pcie-no-p2p" (also "pcie_no_p2p"), "network".
inline link_kind parse_link_kind(std::string_view s) {
    if (s == "nvlink") return link_kind::nvlink;
    if (s == "pcie") return link_kind::pcie;
    if (s == "pcie-no-p2p" || s == "pcie_no_p2p") return link_kind::pcie_no_p2p;
    if (s == "network") return link_kind::network;
    throw usage_error("unknown link \"" + std::string(s) + "\" (accepted: nvlink, pcie, pcie-no-p2p, network)");
}

/// "nvlink", "pcie", "pcie-no-p2p", "network".
constexpr std::string_view to_string(link_kind l) {
    switch (l) {
        case link_kind::nvlink: return "nvlink";
        case link_kind::pcie: return "pcie";
        case link_kind::pcie_no_p2p: return "pcie-no-p2p";
        case link_kind::network: return "network";
    }
    return "?";
}

/// Alpha-beta parameters of one link kind; replaceable by calibration (nccl-tests fits).
struct link_params {
    double alpha_s = 0.0;           ///< latency of one algorithm step (hop), s
    double beta_bytes_per_s = 0.0;  ///< bandwidth one rank achieves per direction, B/s
    double base_latency_s = 0.0;    ///< fixed cost of one collective call (launch + sync), s
    bool p2p = true;                ///< direct peer access: enables one_shot / two_shot kernels
    std::string source;

    /// True when the bandwidth is a finite positive number (else collective bytes go unpriced).
    bool known() const { return std::isfinite(beta_bytes_per_s) && beta_bytes_per_s > 0.0; }
};

/// NCCL's own latency constants for one link kind (src/graph/tuning.cc: `baseLat` ring LL
/// 3.6 us; `hwLat` ring LL per step 0.47 us over NVLink, 1.0 us over PCI, 2.7 us over the
/// network), as {alpha_s, base_latency_s}. Without P2P there is no NCCL constant: alpha is
/// fitted to C03 (sgl-project/sglang#32479: NCCL all-reduce 45 us for 4 KB on 8 PCIe GPUs):
/// (45 - 3.6) / 14 steps = 2.96 us per step.
inline std::pair<double, double> nccl_latency_params(link_kind link) {
    const double base = units::us(3.6);
    switch (link) {
        case link_kind::nvlink: return {units::us(0.47), base};
        case link_kind::pcie: return {units::us(1.0), base};
        case link_kind::pcie_no_p2p: return {units::us(2.96), base};
        case link_kind::network: return {units::us(2.7), base};
    }
    return {units::us(0.47), base};
}

/// Default alpha-beta parameters for a GPU's link.
///  * beta: the datasheet per-direction bandwidth (`link_bandwidth_bytes_per_s`): NVLink half
///    the bidirectional figure; PCIe the x16 per-direction figure; without P2P half of that.
///    This is a ceiling: C04 (NVIDIA/nccl#1639) measured only 28 GB/s busbw on 8x RTX 5090
///    PCIe Gen5 (35 GB/s with 4): calibrate beta from nccl-tests for real topologies.
///  * alpha and base: NCCL's own cost model, src/graph/tuning.cc (`baseLat` ring LL 3.6 us;
///    `hwLat` ring LL per step 0.47 us over NVLink, 1.0 us over PCI, 2.7 us over the network;
///    network beta: the GPU's default fabric, core/network.hpp). Without P2P there is no
///    NCCL constant; alpha is fitted to C03 (sgl-project/sglang#32479: NCCL all-reduce 45 us for
///    4 KB on 8 PCIe GPUs): (45 - 3.6) / 14 steps = 2.96 us per step.
/// Throws `usage_error` when the link's bandwidth is unknown for this GPU.
inline link_params default_link_params(const gpu_spec& g, link_kind link) {
    link_params p;
    p.beta_bytes_per_s = link_bandwidth_bytes_per_s(g, link);
    if (!std::isfinite(p.beta_bytes_per_s) || p.beta_bytes_per_s <= 0.0)
        throw usage_error(g.id + ": no " + std::string(to_string(link)) + " bandwidth known for collectives");
    std::tie(p.alpha_s, p.base_latency_s) = nccl_latency_params(link);
    switch (link) {
        case link_kind::nvlink:
            p.source = "beta: datasheet NVLink / 2; alpha, base: NCCL tuning.cc ring LL (NVLink)";
            break;
        case link_kind::pcie:
            p.source = "beta: datasheet PCIe per direction; alpha, base: NCCL tuning.cc ring LL (PCI)";
            break;
        case link_kind::pcie_no_p2p:
            p.p2p = false;
            p.source = "beta: PCIe per direction / 2 (staged through host); alpha fitted to C03 "
                       "(NCCL AR 45 us @ 4 KB, 8 GPUs), base: NCCL tuning.cc";
            break;
        case link_kind::network:
            p.p2p = false;  // no peer memory access across hosts: NCCL's ring or tree, no one/two-shot kernel
            p.source = "beta: " + default_network_fabric(g)->name + " (core/network.hpp); alpha: NCCL tuning.cc "
                       "ring LL (NET), base: NCCL tuning.cc";
            break;
    }
    return p;
}

/// `default_link_params`, or, when the GPU has no such link or its bandwidth is unknown (GB10,
/// Jetson Thor: one GPU, no peer link), parameters with NaN bandwidth whose `source` says so:
/// collectives priced with them keep their latency and leave their bytes unpriced.
inline link_params link_params_or_unpriced(const gpu_spec& g, link_kind link) {
    try {
        return default_link_params(g, link);
    } catch (const usage_error&) {
        link_params p;
        p.beta_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
        std::tie(p.alpha_s, p.base_latency_s) = nccl_latency_params(link);
        p.p2p = link != link_kind::pcie_no_p2p && link != link_kind::network;
        p.source = g.id + " has no " + std::string(to_string(link)) +
                   " bandwidth known: collective bytes unpriced (latency: NCCL tuning.cc)";
        return p;
    }
}

/// Alpha-beta parameters of a collective over the scale-out fabric `f` (core/network.hpp):
/// beta its per-GPU NIC bandwidth, alpha NCCL's 2.7 us per network step, base 3.6 us. A ring
/// over several hosts is bound by its slowest hop: the NIC.
inline link_params network_link_params(const network_fabric& f) {
    link_params p;
    p.beta_bytes_per_s = f.bytes_per_s_per_gpu;
    std::tie(p.alpha_s, p.base_latency_s) = nccl_latency_params(link_kind::network);
    p.p2p = false;  // across hosts: NCCL's ring or tree, never the direct (P2P) kernels
    p.source = "beta: " + f.name + " (" + f.source + "); alpha, base: NCCL tuning.cc ring LL (NET)";
    return p;
}

/// The cost of one collective.
struct collective_cost {
    collective_op op = collective_op::all_reduce;
    collective_algorithm algorithm = collective_algorithm::ring;
    int ranks = 1;
    double bytes = 0;             ///< S, as nccl-tests counts it
    double link_bytes = 0;        ///< per rank, one direction
    double steps = 0;
    double latency_s = 0;         ///< base + steps x alpha
    double bandwidth_s = 0;       ///< link_bytes / beta
    double time_s = 0;            ///< latency_s + bandwidth_s
    double algbw_bytes_per_s = 0; ///< S / t
    double busbw_bytes_per_s = 0; ///< algbw x busbw factor

    /// The work of this collective for one GPU: link bytes plus unhidable latency.
    workload work() const {
        workload w;
        w.link_bytes = link_bytes;
        w.latency_s = latency_s;
        w.launches = ranks > 1 ? 1 : 0;
        return w;
    }
};

/// nccl-tests busbw factor: 2(n-1)/n for all_reduce, (n-1)/n for the others.
inline double busbw_factor(collective_op op, int ranks) {
    if (ranks < 1) throw usage_error("collective: ranks must be >= 1");
    const double n = ranks;
    return op == collective_op::all_reduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

/// algbw = S / t (nccl-tests). Throws `usage_error` for a non-positive time.
inline double algbw(double bytes, double time_s) {
    if (!(time_s > 0.0)) throw usage_error("algbw: time must be positive");
    return bytes / time_s;
}

/// busbw = algbw x busbw_factor (nccl-tests).
inline double busbw(collective_op op, int ranks, double bytes, double time_s) {
    return algbw(bytes, time_s) * busbw_factor(op, ranks);
}

/// Cost of `op` on a buffer of `bytes` (S as nccl-tests counts it) over `ranks` ranks with
/// `algorithm` on link `p`. A link of unknown bandwidth (`!p.known()`) prices the latency only
/// (`bandwidth_s` 0; `link_bytes` stay in `work()` for the roofline to report as unpriced).
/// Throws `usage_error` for ranks < 1, negative bytes, a negative bandwidth, a direct algorithm
/// without P2P, or two_shot for anything but all_reduce.
inline collective_cost collective_time(collective_op op, double bytes, int ranks, const link_params& p,
                                       collective_algorithm algorithm = collective_algorithm::ring) {
    if (ranks < 1) throw usage_error("collective: ranks must be >= 1");
    if (!(bytes >= 0.0)) throw usage_error("collective: bytes must be >= 0");
    if (p.beta_bytes_per_s <= 0.0 || std::isinf(p.beta_bytes_per_s))
        throw usage_error("collective: link bandwidth must be positive");
    const bool direct = algorithm == collective_algorithm::one_shot || algorithm == collective_algorithm::two_shot;
    if (direct && !p.p2p)
        throw usage_error("collective: " + std::string(to_string(algorithm)) +
                          " needs peer-to-peer access, which this link lacks");
    if (algorithm == collective_algorithm::two_shot && op != collective_op::all_reduce)
        throw usage_error("collective: two_shot is an all_reduce algorithm");

    collective_cost c;
    c.op = op;
    c.algorithm = algorithm;
    c.ranks = ranks;
    c.bytes = bytes;
    if (ranks == 1) return c;  // nothing to exchange
    const double n = ranks;
    const bool ar = op == collective_op::all_reduce;
    switch (algorithm) {
        case collective_algorithm::ring:
            c.steps = ar ? 2 * (n - 1) : (n - 1);
            c.link_bytes = (ar ? 2.0 : 1.0) * (n - 1) / n * bytes;
            break;
        case collective_algorithm::tree:
            if (!ar) throw usage_error("collective: tree is an all_reduce algorithm here");
            c.steps = 2 * std::ceil(std::log2(n));
            c.link_bytes = 2.0 * bytes;
            break;
        case collective_algorithm::one_shot:
            c.steps = 1;
            c.link_bytes = ar ? (n - 1) * bytes : (n - 1) / n * bytes;
            break;
        case collective_algorithm::two_shot:
            c.steps = 2;
            c.link_bytes = 2.0 * (n - 1) / n * bytes;
            break;
    }
    c.latency_s = p.base_latency_s + c.steps * p.alpha_s;
    c.bandwidth_s = p.known() ? c.link_bytes / p.beta_bytes_per_s : 0.0;
    c.time_s = c.latency_s + c.bandwidth_s;
    if (c.time_s > 0.0) {
        c.algbw_bytes_per_s = bytes / c.time_s;
        c.busbw_bytes_per_s = c.algbw_bytes_per_s * busbw_factor(op, ranks);
    }
    return c;
}

/// The fastest algorithm for `op` among what a single-node deployment runs: NCCL's ring and,
/// with P2P, the direct one-shot / two-shot kernels the serving engines use for small
/// all-reduces (vLLM custom all-reduce; C02: with P2P the custom kernel runs, without it NCCL
/// goes through the host). Tree is not offered: within one node NCCL builds its tree as a chain
/// (tuning.cc prices it at 2 (n - 1) hops, like the ring); `collective_time` prices the
/// textbook binary tree on request.
inline collective_cost best_collective(collective_op op, double bytes, int ranks, const link_params& p) {
    std::vector<collective_algorithm> algos = {collective_algorithm::ring};
    if (p.p2p) {
        algos.push_back(collective_algorithm::one_shot);
        if (op == collective_op::all_reduce) algos.push_back(collective_algorithm::two_shot);
    }
    collective_cost best = collective_time(op, bytes, ranks, p, algos.front());
    for (auto a : algos) {
        const auto c = collective_time(op, bytes, ranks, p, a);
        if (c.time_s < best.time_s) best = c;
    }
    return best;
}

/// GPUs in one scale-up domain of `g`, the most one model instance spans here, and the source:
///  * HGX baseboards (h100-sxm, h200-sxm, b200, b300): 8 GPUs on one NVLink switch tray
///    ([S8] NVIDIA HGX platform, [S5] DGX B200: eight GPUs); A100 and A800 SXM4: the HGX A100
///    8-GPU NVSwitch board ([S31], [S33]); H800: 8 GPUs a node with NVLink and NVSwitch inside
///    (DeepSeek-V3 technical report, arXiv:2412.19437, section 3.1). H20 and V100: no source
///    here gives their board, so no domain size (0);
///  * GB200 / GB300 NVL72: 72 GPUs in one NVLink domain ([S6] GB200 NVL72);
///  * GB10 (DGX Spark): 1, two systems meet over Ethernet, not GPU links ([S19]);
///  * PCIe cards (RTX PRO 6000 editions, RTX 5090): 8, one host, the size of the measured
///    collective profiles (analysis/achievable.hpp);
///  * anything else (a user GPU file): 0, no limit known.
inline std::pair<int, std::string> scale_up_domain(const gpu_spec& g) {
    const auto is = [&](std::string_view prefix) { return g.id.rfind(prefix, 0) == 0; };
    if (g.id == "h100-sxm" || g.id == "h200-sxm" || g.id == "b200" || g.id == "b300")
        return {8, "an HGX baseboard [S8][S5]"};
    if (is("a100-sxm4") || is("a800-sxm4")) return {8, "an HGX A100/A800 8-GPU NVSwitch baseboard [S31][S33]"};
    if (g.id == "h800")
        return {8, "an 8-GPU H800 node, NVLink and NVSwitch inside (DeepSeek-V3 technical report, "
                   "arXiv:2412.19437, section 3.1)"};
    if (is("gb200") || is("gb300")) return {72, "an NVL72 NVLink domain [S6]"};
    if (g.id == "gb10") return {1, "one GPU per DGX Spark [S19]"};
    if (is("rtx-pro-6000") || g.id == "rtx-5090") return {8, "one PCIe host, as the measured collective profiles"};
    return {0, "no scale-up domain size known"};
}

/// Ranks laid out as `nodes` x `gpus_per_node`: every node one scale-up domain (NVLink inside,
/// the scale-out network between).
struct collective_layout {
    int nodes = 1;
    int gpus_per_node = 1;
    int ranks() const { return nodes * gpus_per_node; }
};

/// `ranks` on nodes of `gpus_per_node` GPUs (nodes = ceil(ranks / gpus_per_node)); one node
/// when `gpus_per_node` is 0 (no domain size known) or at least `ranks`. A last node with fewer
/// GPUs is priced as a full one (its fewer NICs only make the real collective slower).
inline collective_layout layout_of(int ranks, int gpus_per_node) {
    if (ranks < 1) throw usage_error("collective: ranks must be >= 1");
    if (gpus_per_node <= 0 || gpus_per_node >= ranks) return {1, ranks};
    return {(ranks + gpus_per_node - 1) / gpus_per_node, gpus_per_node};
}

/// The bandwidth levels of a collective over nodes x GPUs: what each level must move and how
/// long that takes at its bandwidth. For a buffer of S bytes (nccl-tests' S), N nodes of G GPUs
/// (n = N G ranks), per-GPU scale-up bandwidth b_up (NVLink per direction) and per-GPU NIC
/// bandwidth b_net, with k = 2 for all_reduce and 1 for all_gather / reduce_scatter:
///
///   intra-node, per GPU:  k (G-1)/G x S          over b_up
///   inter-node, per node: k (N-1)/N x S          over G x b_net (every GPU's NIC in parallel)
///   all_to_all: (G-1)/n x S per GPU over b_up; (N-1)/N x S per GPU over its own b_net (every
///               byte for another node is distinct: nothing reduces it on the way)
///
/// This is NCCL's hierarchical schedule: a reduce-scatter inside the node, an all-reduce of each
/// GPU's 1/G shard across nodes on its own NIC (NCCL builds one ring or tree per channel, each
/// leaving the node through a different GPU's NIC: every NIC carries S/G), an all-gather inside
/// the node. The inter-node term is the bandwidth-optimal all-reduce volume 2(N-1)/N x S per
/// node (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
/// workstations", JPDC 69(2), 2009); a flat ring over all n ranks moves more, 2(n-1)/n x S per
/// node. The intra-node term is the ring's within a node; a flat ring moves (n-1)/n of it over
/// NVLink (and far more over the NICs), so with NVLink at least (G-1) times the NIC per GPU
/// (HGX: 450 / 50 GB/s = 9) no ring or tree schedule beats the max of the two. NVLink SHARP
/// (NVLS) and InfiniBand SHARP reduce inside the switch and move less: not modelled, as in the
/// one-node bound.
///
/// busbw (nccl-tests doc/PERFORMANCE.md: busbw = algbw x 2(n-1)/n for all_reduce, x (n-1)/n for
/// the others) of the slowest level is then `effective_bytes_per_s`: the per-rank bandwidth a
/// flat ring over n ranks would need to take as long, so it compares with measured busbw and
/// with a link fitted by `roofline calibrate` (a flat ring over the sweep's ranks).
struct collective_levels {
    collective_layout layout;
    double intra_bytes = 0;         ///< per GPU, over the scale-up link (one direction)
    double intra_bytes_per_s = 0;   ///< per GPU
    double intra_s = 0;
    double inter_bytes = 0;         ///< per node, over its NICs (one direction)
    double inter_bytes_per_s = 0;   ///< per node: G x per-GPU NIC
    double inter_s = 0;
    double flat_link_bytes = 0;     ///< per rank of a flat ring over n ranks (nccl-tests' busbw bytes)
    double effective_bytes_per_s = 0;  ///< flat_link_bytes / max(intra_s, inter_s)
    double latency_s = 0;           ///< base + intra hops x alpha_up + inter hops x alpha_net
    bool network_bound() const { return inter_s > intra_s; }
};

/// The levels of `op` on `bytes` over `l`, the scale-up link `up` and the network `net`.
/// Latency: NCCL's base, plus the hops of a ring inside the node at the scale-up alpha and of a
/// ring across nodes at the network alpha (k (G-1) and k (N-1); all_to_all (G-1) + (N-1)).
/// Throws `usage_error` for negative bytes or a link of unknown bandwidth on a level in use.
inline collective_levels hierarchical_levels(collective_op op, double bytes, collective_layout l, const link_params& up,
                                             const link_params& net) {
    if (!(bytes >= 0.0)) throw usage_error("collective: bytes must be >= 0");
    if (l.nodes < 1 || l.gpus_per_node < 1) throw usage_error("collective: nodes and GPUs per node must be >= 1");
    collective_levels v;
    v.layout = l;
    const double N = l.nodes, G = l.gpus_per_node, n = N * G;
    if (l.ranks() == 1) return v;
    if (G > 1 && !up.known()) throw usage_error("collective: the scale-up link's bandwidth is unknown");
    if (N > 1 && !net.known()) throw usage_error("collective: the network's bandwidth is unknown");
    const bool a2a = op == collective_op::all_to_all;
    const double k = op == collective_op::all_reduce ? 2.0 : 1.0;
    v.intra_bytes = a2a ? (G - 1) / n * bytes : k * (G - 1) / G * bytes;
    v.inter_bytes = a2a ? G * (N - 1) / N * bytes : k * (N - 1) / N * bytes;
    v.intra_bytes_per_s = G > 1 ? up.beta_bytes_per_s : 0.0;
    v.inter_bytes_per_s = N > 1 ? G * net.beta_bytes_per_s : 0.0;
    v.intra_s = G > 1 ? v.intra_bytes / v.intra_bytes_per_s : 0.0;
    v.inter_s = N > 1 ? v.inter_bytes / v.inter_bytes_per_s : 0.0;
    v.flat_link_bytes = (a2a ? 1.0 : k) * (n - 1) / n * bytes;
    const double t = std::max(v.intra_s, v.inter_s);
    v.effective_bytes_per_s = t > 0 ? v.flat_link_bytes / t : std::numeric_limits<double>::quiet_NaN();
    const double hops_up = a2a ? G - 1 : k * (G - 1), hops_net = a2a ? N - 1 : k * (N - 1);
    v.latency_s = (N > 1 ? net.base_latency_s : up.base_latency_s) + hops_up * up.alpha_s + hops_net * net.alpha_s;
    return v;
}

/// The levels folded into one link of a flat ring over the n ranks, so `collective_time` and
/// everything that prices a link (the roofline's link term, busbw) price the hierarchy: beta the
/// levels' `effective_bytes_per_s` (independent of S: both levels scale with it), alpha such that
/// the flat ring's steps (k (n-1)) cost the hierarchy's hops, no direct (P2P) kernels across
/// nodes. Needs at least two nodes (else: the scale-up link itself).
inline link_params hierarchical_link_params(collective_op op, collective_layout l, const link_params& up,
                                            const link_params& net) {
    if (l.nodes < 2) throw usage_error("collective: a hierarchy needs at least two nodes");
    const auto v = hierarchical_levels(op, 1.0, l, up, net);
    link_params p;
    p.beta_bytes_per_s = v.effective_bytes_per_s;
    p.base_latency_s = net.base_latency_s;
    const double n = l.ranks();
    const double flat_steps = op == collective_op::all_reduce ? 2 * (n - 1) : (n - 1);
    p.alpha_s = (v.latency_s - p.base_latency_s) / flat_steps;
    p.p2p = false;
    p.source = "hierarchy: " + std::to_string(l.nodes) + " nodes x " + std::to_string(l.gpus_per_node) +
               " GPUs; inside a node " + up.source + "; between nodes " + net.source;
    return p;
}

}  // namespace roofline
