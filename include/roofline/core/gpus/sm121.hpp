#pragma once
// SM121 (compute capability 12.1): GB10, the GPU of DGX Spark.
//
// GB10 is the least documented part in the catalog: NVIDIA publishes the sparse FP4 headline
// (1 PFLOP), the CUDA core count, the memory system and the SoC power; clocks, L2 and every
// other tensor rate are unknown and stay unknown. Its memory (128 GB LPDDR5x, 273 GB/s) is shared
// with the CPU, so the memory roof is low: ~1800 FLOP/B at FP4. Like SM120 it has no tcgen05 or
// tensor memory; per-CC limits are the Programming Guide's 12.x column [S4] (CCCL has no sm_121
// entry). Source ids are listed in `gpus/sources.hpp`.

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

/// NVIDIA GB10 (DGX Spark): Grace Blackwell SoC, GPU part.
inline gpu_spec gb10() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "gb10";
    g.name = "NVIDIA GB10 (DGX Spark)";
    // Assumed: the string public logs show on DGX Spark; not in this project's samples.
    g.device_names = {"NVIDIA GB10"};
    g.arch = "blackwell-rtx";
    g.sm_arch = "sm121";
    g.cc_major = 12;
    g.cc_minor = 1;
    g.sm_count = derived_value(48, "[S19]", "d: 6144 CUDA cores / 128 per SM");
    g.base_clock_hz = unknown("not published (UNCONF)");
    g.boost_clock_hz =
        unknown("not published (UNCONF); ~2.5 GHz would follow from ~31 TF FP32 / (6144 x 2)");
    g.tensor_clock_hz = unknown("not published (UNCONF)");
    g.max_clock_hz = unknown("UNCONF: one nvidia-smi log shows 3003 MHz [S19]");
    g.memory_type = "LPDDR5x";
    g.memory_bytes = cited(gb(128), "[S19]", "unified: shared by CPU and GPU");
    g.memory_bandwidth_bytes_per_s =
        cited(gb_per_s(273), "[S19]",
              "NVIDIA figure, 256-bit LPDDR5x; Hot Chips coverage gives 273-301 GB/s at 9400 MT/s");
    g.l2_bytes = unknown("not published (UNCONF)");
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(100 * kib, "[S4]", "12.x column; not measured on GB10");
    g.smem_per_block_bytes =
        cited(101376, "[S4]", "99 KiB opt-in = 100 KiB minus 1 KiB reserved; 12.x column");
    g.registers_per_sm = cited(65536, "[S4]", "12.x column");
    g.max_threads_per_sm = cited(1536, "[S4]", "12.x column");
    g.tmem_per_sm_bytes =
        cited(0, "[S19]", "no tcgen05 / tensor memory (mma.sync block-scaled NVFP4)");
    g.power_limit_w = cited(140, "[S19]", "GB10 SoC TDP (CPU and GPU together); system PSU UNCONF");
    g.power_limit_min_w = unknown("not published");
    g.power_limit_max_w = unknown("not published");
    g.nvlink_bandwidth_bytes_per_s =
        cited(0, "[S19]", "no GPU NVLink; CPU<->GPU is NVLink-C2C at 600 GB/s bidirectional");
    g.pcie_gen = cited(0, "[S19]", "integrated GPU: no PCIe link to the host (NVLink-C2C instead)");
    g.pcie_bandwidth_bytes_per_s = cited(0, "[S19]", "no PCIe GPU link");
    g.p2p =
        cited(0, "[S19]",
              "one GPU per system; two Sparks connect over ConnectX-7 200 GbE, not GPU peer links");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = derived_value(pflops(0.5), "[S19]", "d: 1 PFLOP sparse FP4 / 2");
    fp4.sparse_flops_per_s = cited(pflops(1), "[S19]");
    fp4.accumulate = "fp32";
    for (auto k : {peak_key::fp6, peak_key::fp8, peak_key::fp16, peak_key::bf16, peak_key::tf32,
                   peak_key::int8})
        g.peak(k).dense_flops_per_s = unknown("not published for GB10 (UNCONF)");
    g.peak(peak_key::fp32).dense_flops_per_s =
        cited(tflops(31), "[S19]", "vector, ~31 TF per Hot Chips coverage");
    g.peak(peak_key::fp64).dense_flops_per_s = unknown("not published for GB10 (UNCONF)");
    return g;
}

}  // namespace roofline::gpus
