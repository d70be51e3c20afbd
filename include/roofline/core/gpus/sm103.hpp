#pragma once
// SM103 (Blackwell Ultra, compute capability 10.3): HGX B300 and GB300 (per GPU).
//
// Blackwell Ultra raises dense NVFP4 by 1.5x over Blackwell and cuts INT8 and FP64 hard [S7][S8].
// NVIDIA's "15 PF dense NVFP4, 1400 W" headline is the GB300; the HGX B300 part exposes 148 SMs,
// a 1100 W limit and 13.5 PF FP4 [S8][S9]. Its FP4 sparse figure is only 1.33x dense (18 vs
// 13.5 PF), not 2x.
//
// Source ids are listed in `gpus/sources.hpp`. HGX figures are per 8-GPU board and divided by 8
// here (marked "d").

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Facts shared by every CC 10.3 part.
inline void sm103_common(gpu_spec& g) {
    using namespace roofline::units;
    g.arch = "blackwell-ultra";
    g.sm_arch = "sm103";
    g.cc_major = 10;
    g.cc_minor = 3;
    g.memory_type = "HBM3e";
    g.base_clock_hz = unknown("not published (UNCONF)");
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(228 * kib, "[S1]", "228 KiB = 233472 B");
    g.smem_per_block_bytes =
        cited(232448, "[S1][S2]", "227 KiB opt-in = 228 KiB minus 1 KiB reserved per block");
    g.registers_per_sm = cited(65536, "[S1][S3]", "64K 32-bit registers");
    g.max_threads_per_sm = cited(2048, "[S1][S3]");
    g.tmem_per_sm_bytes = cited(256 * kib, "[S7]", "tcgen05 tensor memory");
    g.nvlink_bandwidth_bytes_per_s =
        cited(tb_per_s(1.8), "[S7][S9]",
              "NVLink 5, 18 links (NV18): 900 GB/s per direction; measured P2P 776 GB/s per "
              "direction on B300 [S9]");
    g.p2p = cited(1, "[S9]", "peers reach each other over NVLink/NVSwitch");
    for (auto k : {peak_key::fp4, peak_key::fp6, peak_key::fp8, peak_key::fp16, peak_key::bf16,
                   peak_key::tf32})
        g.peak(k).accumulate = "fp32";
    g.peak(peak_key::int8).accumulate = "int32";

    g.peak(peak_key::fp4).flops_per_clock_per_sm = derived_value(
        49152, "[S7][S2]", "d: 1.5 x Blackwell's 32768 (Blackwell Ultra: 1.5x dense NVFP4)");
    g.peak(peak_key::fp6).flops_per_clock_per_sm =
        derived_value(16384, "[S2]", "d: kind::f8f6f4 = 2 x Hopper FP8 8192 FLOP/clk/SM");
    g.peak(peak_key::fp8).flops_per_clock_per_sm =
        derived_value(16384, "[S2]", "d: kind::f8f6f4 = 2 x Hopper FP8 8192 FLOP/clk/SM");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).flops_per_clock_per_sm =
            derived_value(8192, "[S2][S10]", "d: half the FP8 rate (2.25 vs 4.5 PF on B300)");
    g.peak(peak_key::tf32).flops_per_clock_per_sm =
        derived_value(4096, "[S2][S10]", "d: half the BF16 rate (1.125 vs 2.25 PF on B300)");
}

}  // namespace detail

/// NVIDIA HGX B300 (B300 SXM6 AC 288 GB), one GPU of an HGX/DGX B300 board.
inline gpu_spec b300() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "b300";
    g.name = "NVIDIA HGX B300 (B300 SXM6 AC 288GB)";
    // Assumed: the string the measured part reports in [S9] and public logs; not in this
    // project's samples.
    g.device_names = {"NVIDIA B300 SXM6 AC"};
    detail::sm103_common(g);
    g.sm_count = cited(148, "[S9]", "measured; the full chip has 160 [S7]");
    g.boost_clock_hz =
        cited(mhz(2032), "[S9]", "measured sustained boost; nvidia-smi -lgc 2032 pins 1920 MHz");
    g.max_clock_hz =
        unknown("device maximum SM clock not reported; 2032 MHz is the sustained boost [S9]");
    g.tensor_clock_hz = derived_value(
        2.25e15 / (148 * 8192.0), "[S8][S10]",
        "d: 2.25 PF / (148 x 8192 FLOP/clk/SM) = 1.856 GHz, as B200; FP4 13.5 PF / (148 x "
        "49152) gives the same clock");
    g.memory_bytes = cited(gb(288), "[S7][S8]", "HBM3e; ~275 GB visible to applications [S25]");
    g.memory_bandwidth_bytes_per_s =
        cited(gb_per_s(7672), "[S9]",
              "post-ECC theoretical (same as B200's 7680-bit x 3996 MHz); datasheet 8 TB/s [S7] "
              "not used; measured read/write 7.30 TB/s [S9]");
    g.l2_bytes = cited(126.5 * mib, "[S9]", "cudaDeviceProp l2CacheSize");
    // NVML on the measured board reports default = max = 1100 W, min 200 W; the DGX B300
    // power-capping documentation gives 1000 W maximum TGP. The driver's limit is what throttles.
    g.power_limit_w =
        cited(1100, "[S9]", "NVML default; DGX B300 documentation: 1000 W max TGP [S10]");
    g.power_limit_min_w = cited(200, "[S9]", "NVML minimum");
    g.power_limit_max_w =
        cited(1100, "[S9]", "NVML maximum; 1000 W per DGX B300 documentation [S10]");
    g.pcie_gen = cited(6, "[S7][S23]");
    g.pcie_bandwidth_bytes_per_s =
        derived_value(gb_per_s(128), "[S7][S23]",
                      "d: Gen6 x16 = 64 GT/s x 16 lanes / 8 = 128 GB/s per direction (nominal); "
                      "measured D2H 57.3 GB/s on the tested host [S9]");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = derived_value(pflops(13.5), "[S8]",
                                          "d: HGX B300 108 PF dense FP4 / 8 GPUs; [S10] lists "
                                          "12.6 PF (15 PF NVFP4)");
    fp4.sparse_flops_per_s =
        derived_value(pflops(18), "[S8]", "d: HGX B300 144 PF / 8 (1.33x dense)");
    g.peak(peak_key::fp6).dense_flops_per_s =
        derived_value(pflops(4.5), "[S2][S10]", "d: FP6 runs at the FP8 rate (kind::f8f6f4)");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s =
        cited(pflops(4.5), "[S10][S8]", "= HGX B300 72 PF sparse / 8 GPUs / 2 [S8]");
    fp8.sparse_flops_per_s = derived_value(pflops(9), "[S8]", "d: HGX B300 72 PF / 8");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).dense_flops_per_s = cited(pflops(2.25), "[S10]");
    g.peak(peak_key::tf32).dense_flops_per_s = cited(pflops(1.125), "[S10]");
    auto& int8 = g.peak(peak_key::int8);
    int8.dense_flops_per_s = derived_value(
        tflops(125), "[S8]",
        "d: HGX B300 2 POPS sparse / 8 GPUs / 2; measured 143 TOPS (mma.sync) [S9]; [S10]'s 4500 "
        "contradicts both");
    int8.sparse_flops_per_s = derived_value(tflops(250), "[S8]", "d: HGX B300 2 POPS / 8");
    g.peak(peak_key::fp32).dense_flops_per_s = derived_value(
        tflops(75), "[S8]",
        "d: vector, HGX B300 600 TF / 8; measured FFMA 75.9 TF at 2032 MHz [S9]; [S10] lists 80");
    g.peak(peak_key::fp64).dense_flops_per_s = derived_value(
        tflops(1.25), "[S8]", "d: HGX B300 10 TF / 8; measured DFMA 1.203 TF (1:64 of FP32) [S9]");
    return g;
}

/// NVIDIA GB300 (per Blackwell Ultra GPU of a GB300 superchip, as in GB300 NVL72).
inline gpu_spec gb300() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "gb300";
    g.name = "NVIDIA GB300 (per GPU)";
    // Assumed: the string public logs show for GB300 GPUs; not in this project's samples.
    g.device_names = {"NVIDIA GB300"};
    detail::sm103_common(g);
    g.sm_count = unknown(
        "UNCONF: 148 fits 15 PF = 148 x 49152 x 2.062 GHz only if GB300 ran at GB200's clock; "
        "the full chip has 160 [S7]");
    g.boost_clock_hz = unknown("not published (UNCONF)");
    g.max_clock_hz = unknown("not published (UNCONF)");
    g.tensor_clock_hz = unknown("not published; needs the SM count (UNCONF)");
    g.memory_bytes = cited(gb(288), "[S7]", "HBM3e");
    g.memory_bandwidth_bytes_per_s =
        cited(tb_per_s(8), "[S7]",
              "datasheet; the B300's post-ECC theoretical is 7.672 TB/s [S9] (UNCONF for GB300)");
    g.l2_bytes = unknown("UNCONF: same die as B300 (126.5 MB there) but not reported for GB300");
    g.power_limit_w = cited(1400, "[S7][S23][S10]", "per-GPU maximum power");
    g.power_limit_min_w = unknown("lowest configurable limit not published");
    g.power_limit_max_w = cited(1400, "[S7][S23][S10]");
    g.pcie_gen = unknown(
        "the host link is NVLink-C2C to Grace; the chip's PCIe Gen6 [S7] is not "
        "the host path in GB300 trays");
    g.pcie_bandwidth_bytes_per_s = unknown("host link is NVLink-C2C to Grace [S7]");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = cited(pflops(15), "[S7][S10]", "NVFP4");
    fp4.sparse_flops_per_s = cited(pflops(20), "[S7]", "1.33x dense, not 2x");
    g.peak(peak_key::fp6).dense_flops_per_s =
        cited(pflops(5), "[S10]", "FP6 runs at the FP8 rate (kind::f8f6f4) [S2]");
    g.peak(peak_key::fp8).dense_flops_per_s = cited(pflops(5), "[S10]");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).dense_flops_per_s = cited(pflops(2.5), "[S10]");
    g.peak(peak_key::tf32).dense_flops_per_s = cited(pflops(1.25), "[S10]");
    g.peak(peak_key::int8).dense_flops_per_s = unknown(
        "UNCONF: Blackwell Ultra cuts INT8 (B300: ~0.125 POPS [S8]); [S10]'s 5000 is not "
        "trusted");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(80), "[S10]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        unknown("UNCONF: cut as on B300 (1.25 TF there [S8]); ~1.25-1.4 TF");
    return g;
}

}  // namespace roofline::gpus
