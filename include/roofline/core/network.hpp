#pragma once
// Scale-out network fabrics: the per-GPU bandwidth a collective across hosts crosses (the
// `network` link class, `--link network`). These are facts of a system (the NICs beside the
// GPUs), not of a GPU, so they live here and not in the GPU catalog.
//
// Every value: per GPU, per direction, B/s, with its source.
//  * ib-ndr-400: NVIDIA DGX H100, H200 and B200 give each of their 8 GPUs one single-port
//    ConnectX-7 VPI of up to 400 Gb/s InfiniBand (NDR) or Ethernet for the compute fabric
//    (NVIDIA DGX BasePOD reference architecture, "Core Components",
//    https://docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/core-components.html):
//    400e9 / 8 = 50 GB/s.
//  * roce-400: the same ConnectX-7 ports run as 400 Gb/s Ethernet (RoCE), same source: 50 GB/s.
//  * ib-xdr-800: NVIDIA DGX B300 gives each of its 8 GPUs one ConnectX-8 SuperNIC of up to
//    800 Gb/s (InfiniBand XDR or Ethernet; NVIDIA DGX B300 User Guide, "Network Ports"), and the
//    GB300 NVL72 compute trays are the first deployment of the PCIe Gen6 ConnectX-8 at 800 Gb/s
//    per GPU (NVIDIA, Hot Chips 2025, "ConnectX-8 SuperNIC"): 800e9 / 8 = 100 GB/s.
//  * efa-p5: AWS P5 and P5e (8 H100 / H200) give up to 3,200 Gb/s of EFA per instance
//    (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/p5-efa.html): 400 Gb/s = 50 GB/s
//    per GPU.
// NCCL prices a step over the network at 2.7 us (ring, LL protocol; `hwLat[NCCL_HW_NET]`, NVIDIA
// nccl src/graph/tuning.cc), against 0.47 us over NVLink and 1.0 us over PCIe.

#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/gpu_spec.hpp"

namespace roofline {

/// One scale-out fabric: per-GPU bandwidth (per direction) and where the number comes from.
struct network_fabric {
    std::string id;        ///< "ib-ndr-400", "ib-xdr-800", "roce-400", "efa-p5"
    std::string name;      ///< "InfiniBand NDR, one 400 Gb/s ConnectX-7 per GPU"
    double bytes_per_s_per_gpu = 0;  ///< per direction, B/s
    std::string source;
};

/// The fabrics this library knows (file comment).
inline const std::vector<network_fabric>& network_fabrics() {
    static const std::vector<network_fabric> f = {
        {"ib-ndr-400", "InfiniBand NDR, one 400 Gb/s ConnectX-7 per GPU (DGX H100/H200/B200)", 50e9,
         "NVIDIA DGX BasePOD reference architecture: eight single-port ConnectX-7 VPI, up to 400 Gb/s"},
        {"ib-xdr-800", "InfiniBand XDR, one 800 Gb/s ConnectX-8 per GPU (DGX B300, GB300 NVL72)", 100e9,
         "NVIDIA DGX B300 User Guide: eight ConnectX-8 SuperNICs, up to 800 Gb/s each; NVIDIA at Hot Chips 2025: "
         "GB300 NVL72 is the first deployment of the 800 Gb/s PCIe Gen6 ConnectX-8"},
        {"roce-400", "RoCE, one 400 Gb/s Ethernet ConnectX-7 per GPU", 50e9,
         "NVIDIA DGX BasePOD reference architecture: the ConnectX-7 ports run InfiniBand or Ethernet at 400 Gb/s"},
        {"efa-p5", "AWS EFA on P5/P5e: 3,200 Gb/s per 8 GPUs", 50e9,
         "AWS EC2 user guide (p5-efa): P5 and P5e provide up to 3,200 Gbps of network bandwidth"},
    };
    return f;
}

/// The fabric with id `id`, nullopt when unknown.
inline std::optional<network_fabric> find_network_fabric(std::string_view id) {
    for (const auto& f : network_fabrics())
        if (f.id == id) return f;
    return std::nullopt;
}

/// The fabric assumed for GPUs of `g` when none is named: `ib-xdr-800` for Blackwell Ultra
/// (B300, GB300: one 800 Gb/s ConnectX-8 per GPU), `ib-ndr-400` for the other NVLink GPUs (the
/// HGX/DGX systems they come in give one 400 Gb/s NIC per GPU), nullopt for PCIe cards (their
/// hosts' NICs vary: name one).
inline std::optional<network_fabric> default_network_fabric(const gpu_spec& g) {
    if (!(g.nvlink_bandwidth_bytes_per_s.value_or(0.0) > 0.0)) return std::nullopt;
    // By architecture, not by catalog id: a --gpu-file SKU of Blackwell Ultra gets it too.
    if (g.arch == "blackwell-ultra" || g.sm_arch == "sm103") return find_network_fabric("ib-xdr-800");
    return find_network_fabric("ib-ndr-400");
}

}  // namespace roofline
