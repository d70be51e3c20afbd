#pragma once
// SM80 (Ampere datacenter, compute capability 8.0): A100 SXM4 40/80 GB, A100 PCIe 40/80 GB, the
// A800 export variants (NVLink cut to 400 GB/s) and A30.
//
// Ampere's tensor cores run BF16/FP16 (FP32 accumulate at full rate), TF32 and INT8; there is no
// FP8, FP6 or FP4 path (unsupported, peak 0). NVIDIA's datasheets print dense|sparse pairs; the
// dense figure is used. PCIe cards pair over an NVLink bridge at most: their default link is PCIe
// (`--link nvlink` prices a bridged pair). Source ids are listed in `gpus/sources.hpp`.

#include <string>  // std::string

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Per-CC 8.0 limits shared by GA100 parts.
inline void sm80_limits(gpu_spec& g) {
    using namespace roofline::units;
    g.arch = "ampere";
    g.sm_arch = "sm80";
    g.cc_major = 8;
    g.cc_minor = 0;
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(164 * kib, "[S32]", "164 KB of the 192 KB L1/shared pool");
    g.smem_per_block_bytes = cited(163 * kib, "[S32]", "163 KB opt-in = 164 KB minus 1 KB reserved");
    g.registers_per_sm = cited(65536, "[S32]");
    g.max_threads_per_sm = cited(2048, "[S32]");
    g.tmem_per_sm_bytes = cited(0, "[S32]", "no tensor memory before SM100");
    g.power_limit_min_w = unknown("not published");
    g.pcie_gen = cited(4, "[S31]");
    g.pcie_bandwidth_bytes_per_s =
        cited(gb_per_s(32), "[S31]", "Gen4 x16: 64 GB/s bidirectional = 32 per direction");
    g.p2p = cited(1, "[S31]", "datacenter parts support peer access");
    for (auto k : {peak_key::fp4, peak_key::fp6, peak_key::fp8}) {
        g.peak(k).supported = false;
        g.peak(k).dense_flops_per_s = cited(0, "[S32]", "no FP8/FP6/FP4 tensor path before Hopper/Ada");
    }
    for (auto k : {peak_key::fp16, peak_key::bf16, peak_key::tf32}) g.peak(k).accumulate = "fp32";
    g.peak(peak_key::int8).accumulate = "int32";
}

/// GA100 with 108 SMs at 1410 MHz: the A100 and A800 compute figures (identical across SXM4 and
/// PCIe, 40 and 80 GB).
inline void a100_compute(gpu_spec& g) {
    using namespace roofline::units;
    sm80_limits(g);
    g.sm_count = cited(108, "[S32][O2]");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = cited(mhz(1410), "[S32]");
    g.tensor_clock_hz = cited(mhz(1410), "[S32]", "reproduces 312 TF: 108 x 2048 x 1.41 GHz");
    g.max_clock_hz = cited(mhz(1410), "[S32]", "boost is the maximum application clock");
    g.memory_type = "HBM2e";
    g.l2_bytes = cited(40 * mib, "[S32]", "40 MB");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        auto& p = g.peak(k);
        p.dense_flops_per_s = cited(tflops(312), "[S31][S30]");
        p.sparse_flops_per_s = cited(tflops(624), "[S31]");
        p.flops_per_clock_per_sm = cited(2048, "[S32]", "1024 dense FP16 FMA/clk/SM");
    }
    auto& tf32 = g.peak(peak_key::tf32);
    tf32.dense_flops_per_s = cited(tflops(156), "[S31]");
    tf32.sparse_flops_per_s = cited(tflops(312), "[S31]");
    tf32.flops_per_clock_per_sm = derived_value(1024, "[S31][S32]", "d: 156 TF / (108 x 1.41 GHz)");
    auto& int8 = g.peak(peak_key::int8);
    int8.dense_flops_per_s = cited(tflops(624), "[S31][S30]", "TOPS");
    int8.sparse_flops_per_s = cited(tflops(1248), "[S31]", "TOPS");
    int8.flops_per_clock_per_sm = derived_value(4096, "[S31][S32]", "d: 624 TOPS / (108 x 1.41 GHz)");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(19.5), "[S31]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        cited(tflops(9.7), "[S31]", "vector; FP64 tensor is 19.5 TF");
}

/// Memory of an A100/A800 SKU: 40 GB HBM2 at 1555 GB/s, 80 GB HBM2e at 1935 (PCIe) or 2039 (SXM).
inline void a100_memory(gpu_spec& g, int memory_gb, bool sxm) {
    using namespace roofline::units;
    g.memory_bytes = cited(gb(memory_gb), "[S31]");
    if (memory_gb == 40) {
        g.memory_type = "HBM2";
        g.memory_bandwidth_bytes_per_s = cited(gb_per_s(1555), "[S31]");
    } else {
        g.memory_bandwidth_bytes_per_s =
            sxm ? cited(gb_per_s(2039), "[S31][S30]") : cited(gb_per_s(1935), "[S31][S30]");
    }
}

}  // namespace detail

/// NVIDIA A100 SXM4 (40 GB HBM2 or 80 GB HBM2e), 400 W, NVLink 3.
inline gpu_spec a100_sxm4(int memory_gb) {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "a100-sxm4-" + std::to_string(memory_gb) + "gb";
    g.name = "NVIDIA A100 SXM4 " + std::to_string(memory_gb) + "GB";
    g.device_names = {"NVIDIA A100-SXM4-" + std::to_string(memory_gb) + "GB",
                      "A100-SXM4-" + std::to_string(memory_gb) + "GB"};
    // PG509-200 is the board id some fleets report for the 40 GB SXM4 module [O2].
    if (memory_gb == 40) g.device_names.push_back("NVIDIA A100-PG509-200");
    detail::a100_compute(g);
    detail::a100_memory(g, memory_gb, true);
    // Device-visible where a device report gives it (gpu_spec::memory_bytes).
    if (memory_gb == 80)
        g.memory_bytes = cited(84990623744.0, "[O2]", "device-visible (A100-SXM4-80GB); datasheet 80 GB [S31]");
    else if (memory_gb == 40)
        g.memory_bytes = cited(42297524224.0, "[O2]",
                               "device-visible (A100-PG509-200; another trace of that board reports "
                               "42505273344 B); datasheet 40 GB [S31]");
    g.power_limit_w = cited(400, "[S31][S30]");
    g.power_limit_max_w = cited(400, "[S31]");
    g.nvlink_bandwidth_bytes_per_s =
        cited(gb_per_s(600), "[S31]", "NVLink 3, 12 links, bidirectional total");
    return g;
}

/// NVIDIA A100 PCIe (40 GB HBM2 at 250 W or 80 GB HBM2e at 300 W).
inline gpu_spec a100_pcie(int memory_gb) {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "a100-pcie-" + std::to_string(memory_gb) + "gb";
    g.name = "NVIDIA A100 PCIe " + std::to_string(memory_gb) + "GB";
    g.device_names = {memory_gb == 40 ? "NVIDIA A100-PCIE-40GB" : "NVIDIA A100 80GB PCIe"};
    detail::a100_compute(g);
    detail::a100_memory(g, memory_gb, false);
    g.power_limit_w = cited(memory_gb == 40 ? 250 : 300, "[S31]");
    g.power_limit_max_w = g.power_limit_w;
    g.nvlink_bandwidth_bytes_per_s = cited(
        0, "[S31]", "an NVLink bridge pairs two cards at 600 GB/s; collectives default to PCIe");
    return g;
}

/// NVIDIA A800 SXM4 80 GB: A100 SXM4 80 GB with NVLink at 400 GB/s (export variant).
inline gpu_spec a800_sxm4() {
    using namespace roofline::units;
    gpu_spec g = a100_sxm4(80);
    g.id = "a800-sxm4-80gb";
    g.name = "NVIDIA A800 SXM4 80GB";
    g.device_names = {"NVIDIA A800-SXM4-80GB", "NVIDIA A800 80GB"};
    g.nvlink_bandwidth_bytes_per_s =
        cited(gb_per_s(400), "[S33]", "NVLink cut from the A100's 600 GB/s, bidirectional total");
    return g;
}

/// NVIDIA A800 PCIe 80 GB: A100 PCIe 80 GB (export variant; its bridge is 400 GB/s).
inline gpu_spec a800_pcie() {
    using namespace roofline::units;
    gpu_spec g = a100_pcie(80);
    g.id = "a800-pcie-80gb";
    g.name = "NVIDIA A800 PCIe 80GB";
    g.device_names = {"NVIDIA A800 80GB PCIe"};
    g.nvlink_bandwidth_bytes_per_s = cited(
        0, "[S33]", "an NVLink bridge pairs two cards at 400 GB/s; collectives default to PCIe");
    return g;
}

/// NVIDIA A30 24 GB (GA100 with 56 SMs at 1440 MHz, 165 W).
inline gpu_spec a30() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "a30";
    g.name = "NVIDIA A30 24GB";
    g.device_names = {"NVIDIA A30"};
    detail::sm80_limits(g);
    g.sm_count = derived_value(56, "[S34]", "d: 3584 FP32 cores / 64 per SM");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = derived_value(mhz(1440), "[S34]", "d: 165 TF / (56 x 2048)");
    g.tensor_clock_hz = derived_value(mhz(1440), "[S34]", "d: as the boost clock");
    g.max_clock_hz = unknown("not reported (UNCONF)");
    g.memory_type = "HBM2";
    g.memory_bytes = cited(gb(24), "[S34][S30]");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(933), "[S34][S30]");
    g.l2_bytes = unknown("not published in the datasheet (UNCONF)");
    g.power_limit_w = cited(165, "[S34][S30]");
    g.power_limit_max_w = cited(165, "[S34]");
    g.nvlink_bandwidth_bytes_per_s = cited(
        0, "[S34]", "an NVLink bridge pairs two cards at 200 GB/s; collectives default to PCIe");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        auto& p = g.peak(k);
        p.dense_flops_per_s = cited(tflops(165), "[S34][S30]");
        p.sparse_flops_per_s = cited(tflops(330), "[S34]");
        p.flops_per_clock_per_sm = cited(2048, "[S32]", "GA100: 1024 dense FP16 FMA/clk/SM");
    }
    g.peak(peak_key::tf32).dense_flops_per_s = cited(tflops(82), "[S34]");
    g.peak(peak_key::tf32).sparse_flops_per_s = cited(tflops(165), "[S34]");
    g.peak(peak_key::int8).dense_flops_per_s = cited(tflops(330), "[S34][S30]", "TOPS");
    g.peak(peak_key::int8).sparse_flops_per_s = cited(tflops(661), "[S34]", "TOPS");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(10.3), "[S34]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        cited(tflops(5.2), "[S34]", "vector; FP64 tensor is 10.3 TF");
    return g;
}

}  // namespace roofline::gpus
