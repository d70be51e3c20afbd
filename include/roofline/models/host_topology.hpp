#pragma once
// Host topology of a PCIe multi-GPU box, and what it does to a ring collective.
//
// `nvidia-smi topo -m` names the path between every pair of GPUs (io/nvidia_smi_topo.hpp):
//   NV#   NVLink (# links)          PIX   one PCIe switch
//   PXB   several PCIe switches     PHB   a CPU's PCIe host bridge (root complex)
//   NODE  root complexes of one NUMA node     SYS   across sockets (xGMI on AMD, UPI on Intel)
// From it: sockets (NUMA nodes, or groups joined without SYS), GPUs per socket, PCIe switches
// (groups joined by PIX/PXB), and how many hops of a ring over the GPUs cross sockets.
//
// What the topology changes in the alpha-beta ring model (models/collective.hpp):
//  * peer-to-peer on a hop: NCCL's P2P transport, NCCL's PCI step latency (1.0 us, tuning.cc
//    `hwLat` ring LL) and the x16 link's per-direction bandwidth. Measured P2P latency between
//    two RTX PRO 6000s: 0.36-0.45 us in one NUMA node, 0.44 us across Turin sockets; without P2P
//    ~14 us (voipmonitor/rtx6kpro hardware/pcie-bandwidth.md, "P2P Latency Measurements").
//  * no peer-to-peer on a hop: NCCL stages through host memory (SHM transport): 2.96 us a step
//    (fitted to sgl-project/sglang#32479: 45 us for a 4 KB all-reduce over 8 PCIe GPUs,
//    models/collective.hpp) and half the link (each byte crosses PCIe twice). GPUs behind one
//    PCIe switch share its x16 uplink to the host, so staged traffic of k of them gets 1/k of it.
//  * a ring step lasts as long as its slowest hop: one hop without P2P makes every step an SHM
//    step. NCCL by default does not use P2P across sockets (`NCCL_P2P_LEVEL` below SYS, NVIDIA
//    NCCL environment-variable docs: "SYS: use P2P between GPUs across CPU sockets" must be
//    asked for), so on a two-socket box a ring over both sockets is staged at every step unless
//    `NCCL_P2P_LEVEL=SYS`; the rtx6kpro community's dual-socket tuning sets it (their
//    daily-summaries 2026-02-21/22: "NCCL_P2P_LEVEL=SYS ... close speed gap between 2-CPU and
//    switch setups").

#include <algorithm>  // std::max, std::min
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"
#include "roofline/models/collective.hpp"

namespace roofline {

/// Path class between two GPUs, as `nvidia-smi topo -m` prints it.
enum class gpu_path : unsigned char { self, nvlink, pix, pxb, phb, node, sys };

/// The GPU-to-GPU matrix of `nvidia-smi topo -m` and each GPU's NUMA node (-1 unknown).
struct pcie_host_topology {
    std::string file;
    std::vector<std::vector<gpu_path>> path;  ///< [i][j], gpus x gpus
    std::vector<int> numa;                    ///< NUMA affinity per GPU, -1 when not printed
    int gpus() const { return static_cast<int>(path.size()); }
};

/// What the topology says, in the terms that set collective cost.
struct host_topology_summary {
    int gpus = 0;
    int sockets = 1;              ///< NUMA nodes the GPUs hang off (or SYS-separated groups)
    int max_gpus_per_socket = 0;
    int switches = 0;             ///< groups of GPUs joined by PIX/PXB (0: all direct-attach)
    int max_gpus_per_switch = 1;  ///< largest such group (1: none shares a switch)
    int ring_socket_crossings = 0;  ///< hops of a ring over all GPUs that cross sockets (0 or 2 x (sockets-1))
    bool nvlink = false;          ///< any NV# pair
};

namespace detail::topo {
/// Connected groups of GPUs under `joined(i, j)`.
template <class F>
std::vector<int> groups(int n, F joined) {
    std::vector<int> g(static_cast<std::size_t>(n), -1);
    int next = 0;
    for (int i = 0; i < n; ++i) {
        if (g[static_cast<std::size_t>(i)] >= 0) continue;
        std::vector<int> stack = {i};
        g[static_cast<std::size_t>(i)] = next;
        while (!stack.empty()) {
            const int a = stack.back();
            stack.pop_back();
            for (int b = 0; b < n; ++b)
                if (g[static_cast<std::size_t>(b)] < 0 && joined(a, b)) g[static_cast<std::size_t>(b)] = next, stack.push_back(b);
        }
        ++next;
    }
    return g;
}
inline int group_count(const std::vector<int>& g) {
    int m = -1;
    for (int x : g) m = std::max(m, x);
    return m + 1;
}
inline int largest_group(const std::vector<int>& g) {
    int best = 0;
    for (int k = 0; k < group_count(g); ++k) best = std::max(best, static_cast<int>(std::count(g.begin(), g.end(), k)));
    return best;
}
}  // namespace detail::topo

/// Sockets, switches and ring crossings of `t`. Sockets: the printed NUMA affinities when every
/// GPU has one, else the groups joined by anything but SYS. Throws `usage_error` for an empty or
/// non-square matrix.
inline host_topology_summary summarize_topology(const pcie_host_topology& t) {
    const int n = t.gpus();
    if (n == 0) throw usage_error(t.file + ": no GPU rows in the topology");
    for (const auto& row : t.path)
        if (static_cast<int>(row.size()) != n) throw usage_error(t.file + ": the GPU matrix is not square");
    const auto at = [&](int i, int j) { return t.path[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; };
    host_topology_summary s;
    s.gpus = n;
    bool numa_known = static_cast<int>(t.numa.size()) == n;
    for (int v : t.numa) numa_known = numa_known && v >= 0;
    std::vector<int> socket;
    if (numa_known) {
        socket = detail::topo::groups(n, [&](int a, int b) { return t.numa[static_cast<std::size_t>(a)] == t.numa[static_cast<std::size_t>(b)]; });
    } else {
        socket = detail::topo::groups(n, [&](int a, int b) { return at(a, b) != gpu_path::sys; });
    }
    s.sockets = detail::topo::group_count(socket);
    s.max_gpus_per_socket = detail::topo::largest_group(socket);
    const auto sw = detail::topo::groups(n, [&](int a, int b) { return at(a, b) == gpu_path::pix || at(a, b) == gpu_path::pxb; });
    s.max_gpus_per_switch = detail::topo::largest_group(sw);
    s.switches = 0;
    for (int k = 0; k < detail::topo::group_count(sw); ++k)
        if (std::count(sw.begin(), sw.end(), k) > 1) ++s.switches;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) s.nvlink = s.nvlink || at(i, j) == gpu_path::nvlink;
    // A ring visits each socket's GPUs together (NCCL orders it so): one hop out of and one into
    // every socket but when there is one.
    s.ring_socket_crossings = s.sockets > 1 ? s.sockets : 0;
    return s;
}

/// Ring collective parameters over PCIe for this host: `p2p` whether the driver allows peer
/// access at all (false: `NCCL_P2P_DISABLE=1`, or a GeForce card); `p2p_across_sockets` whether
/// NCCL uses it on SYS paths (`NCCL_P2P_LEVEL=SYS`; NCCL's default does not). Alpha and beta as
/// the file comment says: the slowest hop of the ring sets each step. Throws `usage_error` when
/// the GPU's PCIe bandwidth is unknown.
inline link_params pcie_ring_params(const host_topology_summary& s, const gpu_spec& g, bool p2p,
                                    bool p2p_across_sockets) {
    const bool staged = !p2p || (s.sockets > 1 && !p2p_across_sockets);
    link_params l = default_link_params(g, staged ? link_kind::pcie_no_p2p : link_kind::pcie);
    if (staged) {
        // Staged bytes of every GPU behind one switch share its x16 uplink to the host.
        l.beta_bytes_per_s /= std::max(1, s.max_gpus_per_switch);
        l.source += "; topology: " + std::string(!p2p ? "no P2P" : "P2P off across sockets (NCCL_P2P_LEVEL below SYS)") +
                    ", staged through host memory at every ring step" +
                    (s.max_gpus_per_switch > 1 ? ", " + std::to_string(s.max_gpus_per_switch) + " GPUs share a switch uplink" : "");
    } else {
        l.source += "; topology: P2P on every ring hop" + std::string(s.sockets > 1 ? " (across sockets too: NCCL_P2P_LEVEL=SYS)" : "");
    }
    return l;
}

}  // namespace roofline
