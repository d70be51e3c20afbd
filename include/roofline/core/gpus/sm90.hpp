#pragma once
// SM90 (Hopper, compute capability 9.0): H100 SXM5 and H200 SXM. Reference and validation
// anchors: the H200 is the GPU this project measures on.
//
// Source ids ([S1] ...) are listed in `gpus/sources.hpp`. Tensor figures are dense; NVIDIA's
// product pages quote sparse ones ("with sparsity"), halved here. "d" notes give derivations.

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Facts shared by every CC 9.0 part (per-compute-capability limits, not per product).
inline void sm90_common(gpu_spec& g) {
    using namespace roofline::units;
    g.arch = "hopper";
    g.sm_arch = "sm90";
    g.cc_major = 9;
    g.cc_minor = 0;
    g.sm_count = cited(132, "[S2][S10]");
    // 1830 MHz is the clock NVIDIA's tensor peaks assume: 132 SMs x 4096 FLOP/clk/SM (dense
    // BF16) x 1.83 GHz = 989.4 TFLOP/s. 1980 MHz is the older "max boost" figure.
    g.tensor_clock_hz = cited(mhz(1830), "[S10]", "reproduces 989 TF: 132 x 4096 x 1.83 GHz");
    g.boost_clock_hz = cited(mhz(1980), "[S10]", "older 'max boost'; tensor peaks assume 1830 MHz");
    g.max_clock_hz = cited(mhz(1980), "[S10]");
    g.base_clock_hz = unknown("no primary source reached (UNCONF)");
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(228 * kib, "[S1][S3]");
    g.smem_per_block_bytes = cited(232448, "[S1][S2]", "227 KiB opt-in = 228 KiB minus 1 KiB reserved");
    g.registers_per_sm = cited(65536, "[S1][S3]");
    g.max_threads_per_sm = cited(2048, "[S1][S3]");
    g.tmem_per_sm_bytes = cited(0, "[S7][S19]", "no tensor memory before SM100");
    g.power_limit_w = cited(700, "[S10]", "up to 700 W, configurable");
    g.power_limit_max_w = cited(700, "[S10]");
    g.power_limit_min_w = unknown("not published");
    g.nvlink_bandwidth_bytes_per_s = cited(gb_per_s(900), "[S21]", "NVLink 4, 18 links, bidirectional total");
    g.pcie_gen = cited(5, "[S21]");
    g.pcie_bandwidth_bytes_per_s = cited(gb_per_s(64), "[S21]", "Gen5 x16: 128 GB/s bidirectional = 64 per direction");
    g.p2p = cited(1, "[S21]", "peers reach each other over NVLink/NVSwitch");

    // Dense tensor peaks, FP32 accumulate (INT32 for int8). H100 and H200 share the chip.
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = cited(tflops(1979), "[S10][S22]");
    fp8.sparse_flops_per_s = cited(tflops(3958), "[S10]");
    fp8.accumulate = "fp32";
    fp8.flops_per_clock_per_sm = derived_value(8192, "[S10]", "d: 1979 TF / (132 x 1.83 GHz)");
    auto& fp16 = g.peak(peak_key::fp16);
    fp16.dense_flops_per_s = cited(tflops(989), "[S10][S22]");
    fp16.sparse_flops_per_s = cited(tflops(1979), "[S10]");
    fp16.accumulate = "fp32";
    fp16.flops_per_clock_per_sm = derived_value(4096, "[S10]", "d: 989 TF / (132 x 1.83 GHz)");
    auto& bf16 = g.peak(peak_key::bf16);
    bf16.dense_flops_per_s = cited(tflops(989), "[S10][S22]");
    bf16.sparse_flops_per_s = cited(tflops(1979), "[S10]");
    bf16.accumulate = "fp32";
    bf16.flops_per_clock_per_sm = derived_value(4096, "[S10]", "d: 989 TF / (132 x 1.83 GHz)");
    auto& tf32 = g.peak(peak_key::tf32);
    tf32.dense_flops_per_s = cited(tflops(494.5), "[S10]");
    tf32.sparse_flops_per_s = cited(tflops(989), "[S10]");
    tf32.accumulate = "fp32";
    auto& int8 = g.peak(peak_key::int8);
    int8.dense_flops_per_s = cited(tflops(1979), "[S10]", "TOPS");
    int8.accumulate = "int32";
    auto& fp32 = g.peak(peak_key::fp32);
    fp32.dense_flops_per_s = cited(tflops(67), "[S10]", "vector (non-tensor)");
    auto& fp64 = g.peak(peak_key::fp64);
    fp64.dense_flops_per_s = cited(tflops(34), "[S21]", "vector; FP64 tensor is 67 TF");
    for (auto k : {peak_key::fp4, peak_key::fp6}) {
        g.peak(k).supported = false;
        g.peak(k).dense_flops_per_s = cited(0, "[S10]", "FP4/FP6 not supported on Hopper");
    }
}

}  // namespace detail

/// NVIDIA H100 SXM5 80 GB.
inline gpu_spec h100_sxm() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "h100-sxm";
    g.name = "NVIDIA H100 SXM5 80GB";
    g.device_names = {"NVIDIA H100 80GB HBM3", "NVIDIA H100"};
    detail::sm90_common(g);
    g.memory_type = "HBM3";
    g.memory_bytes = cited(gb(80), "[S10][S21]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(3.35), "[S10][S21]");
    g.l2_bytes = cited(50 * mib, "[S10]", "50 MB; cudaDeviceProp reports 52428800 B = 50 MiB");
    g.pcie_gen.note = "H100 PCIe figure UNCONF from a primary page";
    return g;
}

/// NVIDIA H200 SXM 141 GB: H100's chip with HBM3e.
inline gpu_spec h200_sxm() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "h200-sxm";
    g.name = "NVIDIA H200 SXM 141GB";
    g.device_names = {"NVIDIA H200"};
    detail::sm90_common(g);
    g.memory_type = "HBM3e";
    g.memory_bytes = cited(150109880320.0, "[M1]",
                           "device-visible (cudaGetDeviceProperties totalGlobalMem on this project's H200); "
                           "the datasheet says 141 GB [S10][S21]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(4.8), "[S10][S21]",
                                           "device query: 6016-bit bus x 3201 MHz x 2 = 4.81 TB/s [M1]");
    g.l2_bytes = cited(60 * mib, "[M1]",
                       "cudaDeviceProp.l2CacheSize = 62914560 B on this project's H200 (2026-11-30); "
                       "HARDWARE.md lists 50 MB, the H100 figure");
    return g;
}

}  // namespace roofline::gpus
