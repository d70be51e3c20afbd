#pragma once
// The ceilings in force for one GPU: peak rates per rate class, bandwidth per memory level and
// over the interconnect. Datasheet ceilings come from the catalog; measured ("achievable")
// ceilings come from a calibration overlay; a power cap derates the compute ceilings with the
// SM clock. `origin` says which, so every verdict can say what it was measured against.

#include <array>    // std::array
#include <cmath>    // std::isnan
#include <limits>   // std::numeric_limits
#include <string>   // std::string

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/network.hpp"
#include "roofline/core/workload.hpp"

namespace roofline {

/// Ceilings for one GPU.
///  * `flops_per_s[k]`: 0 when the GPU lacks the rate class, NaN when it is unknown.
///  * `bytes_per_s[level]`: NaN when unknown; such a level is not priced (its bytes are
///    reported, never turned into time).
///  * `link_bytes_per_s`: per direction over the link collectives use; NaN when unknown.
///  * `launch_latency_s`: the floor one kernel launch costs (0 in datasheet ceilings: no
///    datasheet gives it; calibration measures it).
struct ceilings {
    std::array<double, peak_key_count> flops_per_s{};
    std::array<double, memory_level_count> bytes_per_s{};
    double link_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
    double launch_latency_s = 0.0;
    link_kind link = link_kind::pcie;
    std::string origin;  ///< "datasheet", "calibration: FILE", "derated: SM clock 1410/1980 MHz"

    double flops_at(peak_key k) const { return flops_per_s[static_cast<std::size_t>(k)]; }
    double& flops_at(peak_key k) { return flops_per_s[static_cast<std::size_t>(k)]; }
    double bytes_at(memory_level m) const { return bytes_per_s[static_cast<std::size_t>(m)]; }
    double& bytes_at(memory_level m) { return bytes_per_s[static_cast<std::size_t>(m)]; }
};

/// Per-direction bandwidth of a link kind on a GPU, B/s; NaN when unknown.
///  * nvlink: half the bidirectional NVLink figure NVIDIA quotes.
///  * pcie: the catalog's per-direction PCIe figure (x16).
///  * pcie_no_p2p: half of that (ours): without peer-to-peer, NCCL stages data through host
///    memory, so each byte crosses PCIe twice (device -> host, host -> device).
///  * network: the per-GPU NIC of the default fabric of such GPUs (core/network.hpp), NaN for
///    PCIe cards.
inline double link_bandwidth_bytes_per_s(const gpu_spec& g, link_kind link) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (link) {
        case link_kind::nvlink: {
            const double bidir = g.nvlink_bandwidth_bytes_per_s.value_or(nan);
            return bidir > 0.0 ? bidir / 2.0 : nan;
        }
        case link_kind::pcie: return g.pcie_bandwidth_bytes_per_s.value_or(nan);
        case link_kind::pcie_no_p2p: return g.pcie_bandwidth_bytes_per_s.value_or(nan) / 2.0;
        case link_kind::network: {
            const auto f = default_network_fabric(g);
            return f ? f->bytes_per_s_per_gpu : nan;
        }
    }
    return nan;
}

/// Datasheet ceilings of a GPU over a given link. Dense tensor peaks (never sparse), DRAM
/// bandwidth as the catalog gives it, L2 bandwidth where known. Unknown values stay NaN (a DRAM
/// bandwidth nobody knows leaves DRAM bytes unpriced), never an exception.
inline ceilings datasheet_ceilings(const gpu_spec& g, link_kind link) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    ceilings c;
    for (auto k : all_peak_keys) c.flops_at(k) = g.dense_flops_per_s(k).value_or(nan);
    c.bytes_at(memory_level::dram) = g.memory_bandwidth_bytes_per_s.value_or(nan);
    c.bytes_at(memory_level::l2) = g.l2_bandwidth_bytes_per_s.value_or(nan);
    c.bytes_at(memory_level::smem) = nan;
    c.link = link;
    c.link_bytes_per_s = link_bandwidth_bytes_per_s(g, link);
    c.origin = "datasheet";
    return c;
}

/// Datasheet ceilings over the GPU's default link (NVLink if present, else PCIe).
inline ceilings datasheet_ceilings(const gpu_spec& g) { return datasheet_ceilings(g, g.default_link()); }

/// Compute ceilings scaled to an SM clock: tensor and vector rates are proportional to the SM
/// clock (rate = SMs x FLOP/clk/SM x clock), memory and link ceilings are not.
/// `clock_hz` is the clock in force, `reference_clock_hz` the clock the peaks assume.
inline ceilings at_sm_clock(ceilings c, double clock_hz, double reference_clock_hz) {
    if (!(clock_hz > 0.0) || !(reference_clock_hz > 0.0))
        throw usage_error("at_sm_clock: clocks must be positive");
    const double f = clock_hz / reference_clock_hz;
    for (double& r : c.flops_per_s) r *= f;
    c.origin += " at SM clock " + std::to_string(static_cast<long long>(clock_hz / 1e6)) + " MHz";
    return c;
}

}  // namespace roofline
