#pragma once
// SM70 (Volta, compute capability 7.0): Tesla V100 SXM2 16/32 GB and PCIe 16/32 GB, for the old
// traces users still bring (HolisticTraceAnalysis ships four V100 traces).
//
// Volta's tensor cores take FP16 inputs only (FP16 or FP32 accumulate at the same rate): there is
// no BF16, TF32, INT8 or FP8 tensor path, so those rates are unsupported (peak 0), not unknown.
// CC 7.0 reserves no shared memory per block: the per-block opt-in equals the per-SM maximum.
// Source ids are listed in `gpus/sources.hpp`.

#include <string>  // std::string

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Facts shared by every GV100 part. `boost_mhz` is the SKU's boost clock (the tensor peaks
/// assume it: 80 SMs x 1024 FLOP/clk/SM x boost).
inline void sm70_common(gpu_spec& g, double boost_mhz) {
    using namespace roofline::units;
    g.arch = "volta";
    g.sm_arch = "sm70";
    g.cc_major = 7;
    g.cc_minor = 0;
    g.sm_count = cited(80, "[S36][O2]");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = cited(mhz(boost_mhz), "[S36]");
    g.tensor_clock_hz = cited(mhz(boost_mhz), "[S36]", "tensor peaks are rated at boost");
    g.max_clock_hz = cited(mhz(boost_mhz), "[S36]", "boost is the maximum application clock");
    g.memory_type = "HBM2";
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(900), "[S35]");
    g.l2_bytes = cited(6 * mib, "[S36]", "6144 KB");
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(96 * kib, "[S36]", "96 KB of the 128 KB L1/shared pool");
    g.smem_per_block_bytes = cited(96 * kib, "[S36]", "CC 7.0 reserves no shared memory per block");
    g.registers_per_sm = cited(65536, "[S36]");
    g.max_threads_per_sm = cited(2048, "[S36]");
    g.tmem_per_sm_bytes = cited(0, "[S36]", "no tensor memory before SM100");
    g.power_limit_min_w = unknown("not published");
    g.pcie_gen = cited(3, "[S35]");
    g.pcie_bandwidth_bytes_per_s =
        cited(gb_per_s(16), "[S35]", "Gen3 x16: 32 GB/s bidirectional = 16 per direction");
    g.p2p = cited(1, "[S35]", "Tesla parts support peer access (NVLink on SXM2, PCIe on PCIe cards)");

    const std::string rate = std::to_string(static_cast<int>(boost_mhz));
    auto& fp16 = g.peak(peak_key::fp16);
    fp16.accumulate = "fp32";
    fp16.flops_per_clock_per_sm =
        cited(1024, "[S36]", "8 tensor cores x 64 FMA/clk x 2 FLOP, FP16 or FP32 accumulate");
    fp16.dense_fp16_acc_flops_per_s =
        unknown("Volta runs FP16 accumulate at the FP32-accumulate rate (no separate figure)");
    for (auto k : {peak_key::fp4, peak_key::fp6, peak_key::fp8, peak_key::bf16, peak_key::tf32,
                   peak_key::int8}) {
        g.peak(k).supported = false;
        g.peak(k).dense_flops_per_s =
            cited(0, "[S36]", "Volta tensor cores take FP16 only (INT8 runs as DP4A on CUDA cores)");
    }
}

}  // namespace detail

/// NVIDIA Tesla V100 SXM2 (16 GB or 32 GB HBM2), 300 W, NVLink 2.
inline gpu_spec v100_sxm2(int memory_gb) {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "v100-sxm2-" + std::to_string(memory_gb) + "gb";
    g.name = "NVIDIA Tesla V100 SXM2 " + std::to_string(memory_gb) + "GB";
    g.device_names = {"Tesla V100-SXM2-" + std::to_string(memory_gb) + "GB"};
    detail::sm70_common(g, 1530);
    // Device-visible where a device report gives it (gpu_spec::memory_bytes).
    g.memory_bytes = memory_gb == 32   ? cited(34089730048.0, "[O2]", "device-visible; datasheet 32 GB [S35]")
                     : memory_gb == 16 ? cited(16945512448.0, "[O2]", "device-visible; datasheet 16 GB [S35]")
                                       : cited(gb(memory_gb), "[S35]");
    g.power_limit_w = cited(300, "[S35]");
    g.power_limit_max_w = cited(300, "[S35]");
    g.nvlink_bandwidth_bytes_per_s =
        cited(gb_per_s(300), "[S35]", "NVLink 2, 6 links, bidirectional total");
    auto& fp16 = g.peak(peak_key::fp16);
    fp16.dense_flops_per_s = cited(tflops(125), "[S35]", "mixed precision: FP16 in, FP32 accumulate");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(15.7), "[S35]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(7.8), "[S35]", "vector");
    return g;
}

/// NVIDIA Tesla V100 PCIe (16 GB or 32 GB HBM2), 250 W.
inline gpu_spec v100_pcie(int memory_gb) {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "v100-pcie-" + std::to_string(memory_gb) + "gb";
    g.name = "NVIDIA Tesla V100 PCIe " + std::to_string(memory_gb) + "GB";
    g.device_names = {"Tesla V100-PCIE-" + std::to_string(memory_gb) + "GB"};
    detail::sm70_common(g, 1380);
    g.memory_bytes = cited(gb(memory_gb), "[S35]");
    g.power_limit_w = cited(250, "[S35]");
    g.power_limit_max_w = cited(250, "[S35]");
    g.nvlink_bandwidth_bytes_per_s = cited(0, "[S35]", "no NVLink on the PCIe card");
    auto& fp16 = g.peak(peak_key::fp16);
    fp16.dense_flops_per_s = cited(tflops(112), "[S35]", "mixed precision: FP16 in, FP32 accumulate");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(14), "[S35]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(7), "[S35]", "vector");
    return g;
}

}  // namespace roofline::gpus
