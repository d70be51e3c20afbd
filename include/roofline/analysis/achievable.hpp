#pragma once
// Achievable ceilings: what well-tuned kernels and libraries reach, as fractions of the
// datasheet, and measured interconnect profiles. The lower bound on time uses datasheet
// ceilings; the modeled ("predicted") time uses achievable ones, so that a verdict can say both "x% of
// speed of light" and "y% of what this hardware is known to achieve". Calibration
// (`roofline calibrate`) replaces them with values fitted on the user's own card.

#include <algorithm>    // std::max
#include <cmath>        // std::isfinite
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <tuple>        // std::tie

#include "roofline/core/compilation.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/kernel_time.hpp"

namespace roofline {

/// Datasheet ceilings at the achievable fractions of `models/kernel_time.hpp` (the one place
/// those constants live), for a serving engine: decode and prefill steps are replayed as CUDA
/// graphs by SGLang and vLLM, so each kernel pays the graph-replay launch cost, not the eager one.
ceilings achievable_ceilings(const ceilings& datasheet, const kernel_efficiency& e = {});

/// A collective measurement on a real topology: NCCL all-reduce bus bandwidth for large
/// messages and the time of one small all-reduce, from which alpha-beta parameters follow.
struct measured_link_profile {
    std::string_view gpu_prefix;  ///< catalog ids it applies to ("rtx-pro-6000" covers all editions)
    link_kind link;
    int ranks;
    double busbw_bytes_per_s;   ///< nccl-tests busbw at large sizes
    double small_bytes;         ///< message size of the latency point
    double small_time_s;        ///< all-reduce time at `small_bytes`
    std::string_view source;
    /// True when the small-message time was measured as host-issued eager calls (back-to-back
    /// `torch.distributed.all_reduce` timed by CUDA events): it is the host's per-call launch
    /// cost, not the link's, and a serving engine's CUDA-graph step does not pay it; the
    /// profile then gives the bandwidth only, with NCCL's own latency constants.
    bool latency_host_bound = false;
};

/// Measured all-reduce profiles for PCIe systems, where datasheet link figures mislead most
/// (case C04: the topology, not the link, sets busbw).
inline constexpr measured_link_profile measured_link_profiles[] = {
    // 8x RTX PRO 6000 Blackwell Server Edition, dual AMD Turin, no PCIe switch, default NCCL:
    // busbw 22.2 GB/s (32 MB-2 GB); 32 KB all-reduce 48.16 us. Tuned NCCL (NCCL_MIN_NCHANNELS=8,
    // graph XML) reached 37.6 GB/s and 26.2 us; PCIe-switch systems 39.4-41.1 GB/s.
    {"rtx-pro-6000", link_kind::pcie, 8, 22.2e9, 32768, 48.16e-6,
     "8x RTX PRO 6000, default NCCL (voipmonitor/rtx6kpro hardware/topology.md, optimization/nccl-tuning.md)"},
    // 2x H200 SXM over NVLink (NCCL through torch.distributed, bf16 sum): busbw 302 GB/s at
    // 256 MiB (334 at 1 GiB); a 32 KB all-reduce takes 36.4 us per eager call, and 1-16 KB
    // calls take 35-44 us whatever their size: the host's launch cost, so only the bandwidth is
    // kept (with that latency an H200 TP4 decode step of Llama-3.1-70B FP8 at 4 in flight was
    // 8.2 ms against an H100's 7.5 ms; 5.7 ms without). This project's measurement.
    {"h200-sxm", link_kind::nvlink, 2, 302.2e9, 32768, 36.36e-6,
     "2x H200 over NVLink, this project's measurement [M1] (data/measurements/h200/allreduce_2gpu.json)", true},
    // 8x RTX 5090 (no P2P with the stock driver), 2x Xeon 8480+: busbw 28 GB/s at 1-8 GB
    // (35 GB/s with 4 GPUs). No small-message point published: 4 KB AR on 8 PCIe GPUs 45 us (C03).
    {"rtx-5090", link_kind::pcie_no_p2p, 8, 28e9, 4096, 45e-6,
     "8x RTX 5090 without P2P (NVIDIA/nccl#1639; 4 KB point: sgl-project/sglang#32479)"},
};

/// Alpha-beta parameters that reproduce a measured profile under the ring all-reduce model:
///   t(S) = base + 2(n-1) alpha + 2(n-1)/n x S / beta,  and busbw = beta for a ring.
link_params link_params_from_profile(const measured_link_profile& m);

/// The measured profile for this GPU and link, if one is known (ranks are not required to
/// match: busbw of a ring is nearly independent of rank count; the profile says which it was).
std::optional<measured_link_profile> find_link_profile(const gpu_spec& g, link_kind link);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE ceilings achievable_ceilings(const ceilings& datasheet, const kernel_efficiency& e) {
    ceilings c = achievable(datasheet, e);
    c.launch_latency_s = e.graph_launch_floor_s;
    c.origin = "achievable (datasheet x published efficiencies, CUDA-graph launches)";
    return c;
}

ROOFLINE_INLINE link_params link_params_from_profile(const measured_link_profile& m) {
    link_params p;
    const double n = m.ranks;
    p.beta_bytes_per_s = m.busbw_bytes_per_s;
    p.p2p = m.link != link_kind::pcie_no_p2p;
    std::tie(p.alpha_s, p.base_latency_s) = nccl_latency_params(m.link);  // baseLat: NCCL tuning.cc
    if (m.latency_host_bound) {
        p.source = std::string("measured bandwidth: ") + std::string(m.source) +
                   "; alpha, base: NCCL tuning.cc (the measured small-message time is host launch cost)";
        return p;
    }
    const double bw_term = 2.0 * (n - 1.0) / n * m.small_bytes / m.busbw_bytes_per_s;
    p.alpha_s = std::max(0.0, (m.small_time_s - p.base_latency_s - bw_term) / (2.0 * (n - 1.0)));
    p.source = std::string("measured: ") + std::string(m.source);
    return p;
}

ROOFLINE_INLINE std::optional<measured_link_profile> find_link_profile(const gpu_spec& g, link_kind link) {
    for (const auto& m : measured_link_profiles)
        if (g.id.rfind(std::string(m.gpu_prefix), 0) == 0 && m.link == link) return m;
    return std::nullopt;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
