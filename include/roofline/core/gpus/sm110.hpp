#pragma once
// SM110 (compute capability 11.0): the GPU of Jetson AGX Thor (T5000). CUDA 12.8/12.9 called it
// sm_101; CUDA 13 renamed it sm_110. Thor is a datacenter-class Blackwell SM (228 KiB shared
// memory per SM, as SM100) in an SoC with 128 GB of LPDDR5X shared with the CPU.
//
// NVIDIA publishes the sparse FP4 headline (2070 TFLOPS), the memory system and the module power
// range; the device reports 20 SMs and 32 MiB of L2 [S45]. Clocks and every other tensor rate
// are unknown and stay unknown. Source ids are listed in `gpus/sources.hpp`.

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

/// NVIDIA Jetson AGX Thor (T5000 module), GPU part.
inline gpu_spec jetson_thor() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "jetson-thor";
    g.name = "NVIDIA Jetson AGX Thor (T5000)";
    g.device_names = {"NVIDIA Thor"};
    g.arch = "blackwell";
    g.sm_arch = "sm110";
    g.cc_major = 11;
    g.cc_minor = 0;
    g.sm_count = cited(20, "[S45]", "device query; 2560 CUDA cores / 128");
    g.base_clock_hz = unknown("not published (UNCONF)");
    g.boost_clock_hz = unknown("not published (UNCONF)");
    g.tensor_clock_hz = unknown("not published (UNCONF)");
    g.max_clock_hz = unknown("not published (UNCONF)");
    g.memory_type = "LPDDR5x";
    g.memory_bytes = cited(gb(128), "[S45]", "unified: shared by CPU and GPU");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(273), "[S45]");
    g.l2_bytes = cited(32 * mib, "[S45]", "device query: 32 MiB");
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(228 * kib, "[S45]", "device query");
    g.smem_per_block_bytes =
        derived_value(227 * kib, "[S45][S1]", "d: 228 KiB minus the 1 KiB reserved per block");
    g.registers_per_sm = cited(65536, "[S1]", "every CC since 5.0");
    g.max_threads_per_sm = unknown("not reported in the sources reached (UNCONF)");
    g.tmem_per_sm_bytes = unknown("not published for Thor (UNCONF)");
    g.power_limit_w = cited(130, "[S45]", "module, configurable 40-130 W");
    g.power_limit_min_w = cited(40, "[S45]", "module");
    g.power_limit_max_w = cited(130, "[S45]", "module");
    g.nvlink_bandwidth_bytes_per_s = cited(0, "[S45]", "no GPU NVLink (one GPU per module)");
    g.pcie_gen = cited(0, "[S45]", "integrated GPU: no PCIe link to the host");
    g.pcie_bandwidth_bytes_per_s = cited(0, "[S45]", "no PCIe GPU link");
    g.p2p = cited(0, "[S45]", "one GPU per module");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = derived_value(tflops(2070) / 2, "[S45]", "d: 2070 TFLOPS sparse FP4 / 2");
    fp4.sparse_flops_per_s = cited(tflops(2070), "[S45]");
    fp4.accumulate = "fp32";
    for (auto k : {peak_key::fp6, peak_key::fp8, peak_key::fp16, peak_key::bf16, peak_key::tf32,
                   peak_key::int8, peak_key::fp32, peak_key::fp64})
        g.peak(k).dense_flops_per_s = unknown("not published for Jetson Thor (UNCONF)");
    return g;
}

}  // namespace roofline::gpus
