#pragma once
// SM100 (Blackwell, compute capability 10.0): HGX B200 and GB200 (per GPU).
//
// One chip, two SKUs that differ in clock and power: NVIDIA rates GB200 10% higher than HGX B200
// (BF16 2.5 vs 2.25 PF dense) at 1200 W instead of 1000 W. Mixing the two shifts MFU by ~11%
// (field case C10), so they are separate entries.
//
// Source ids are listed in `gpus/sources.hpp`. Tensor figures are dense; NVIDIA's datasheets
// print sparse ones ("all Tensor Core numbers except FP64 with sparsity" [S5]), halved here.
// Per-SM rates come from the tcgen05 instruction rates in CUTLASS's Blackwell notes [S2]
// (kind::f8f6f4 = 2x Hopper FP8, kind::mxf4/nvf4 = 4x), with Hopper FP8 = 8192 FLOP/clk/SM
// (1979 TF / (132 SMs x 1.83 GHz), see sm90.hpp).

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Facts shared by every CC 10.0 part: per-compute-capability limits, NVLink 5, tcgen05 rates.
inline void sm100_common(gpu_spec& g) {
    using namespace roofline::units;
    g.arch = "blackwell";
    g.sm_arch = "sm100";
    g.cc_major = 10;
    g.cc_minor = 0;
    g.memory_type = "HBM3e";
    g.base_clock_hz = unknown("not published (UNCONF)");
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(228 * kib, "[S1][O1]", "228 KiB = 233472 B");
    g.smem_per_block_bytes =
        cited(232448, "[S1][S2][O1]", "227 KiB opt-in = 228 KiB minus 1 KiB reserved per block");
    g.registers_per_sm = cited(65536, "[S1][S3][O1]", "64K 32-bit registers");
    g.max_threads_per_sm = cited(2048, "[S1][S3][O1]");
    g.tmem_per_sm_bytes = cited(256 * kib, "[S7]", "tcgen05 tensor memory");
    g.power_limit_min_w = unknown("lowest configurable limit not published");
    g.nvlink_bandwidth_bytes_per_s =
        cited(tb_per_s(1.8), "[S6][S20]", "NVLink 5, 18 links: 900 GB/s per direction");
    g.p2p = cited(1, "[S6]", "peers reach each other over NVLink/NVSwitch");

    // Accumulators the dense figures assume (NVIDIA's tables: FP32 for float inputs).
    for (auto k : {peak_key::fp4, peak_key::fp6, peak_key::fp8, peak_key::fp16, peak_key::bf16,
                   peak_key::tf32})
        g.peak(k).accumulate = "fp32";
    g.peak(peak_key::int8).accumulate = "int32";

    // Per-SM tensor rates (FLOP per clock per SM, dense).
    g.peak(peak_key::fp4).flops_per_clock_per_sm =
        derived_value(32768, "[S2]", "d: kind::mxf4/nvf4 = 4 x Hopper FP8 8192 FLOP/clk/SM");
    g.peak(peak_key::fp6).flops_per_clock_per_sm =
        derived_value(16384, "[S2]", "d: kind::f8f6f4 = 2 x Hopper FP8 8192 FLOP/clk/SM");
    g.peak(peak_key::fp8).flops_per_clock_per_sm =
        derived_value(16384, "[S2]", "d: kind::f8f6f4 = 2 x Hopper FP8 8192 FLOP/clk/SM");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).flops_per_clock_per_sm =
            derived_value(8192, "[S2][S5]", "d: half the FP8 rate (2.25 vs 4.5 PF on B200)");
    g.peak(peak_key::tf32).flops_per_clock_per_sm =
        derived_value(4096, "[S2][S10]", "d: half the BF16 rate (1.125 vs 2.25 PF on B200)");
}

}  // namespace detail

/// NVIDIA HGX B200 (B200 SXM 180 GB), one GPU of an HGX/DGX B200 board.
inline gpu_spec b200() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "b200";
    g.name = "NVIDIA HGX B200 (B200 SXM 180GB)";
    // Observed in the TraceLens B200 trace [O1] (FORMATS.md).
    g.device_names = {"NVIDIA B200"};
    detail::sm100_common(g);
    g.sm_count = cited(148, "[S11][O1]", "74 of 80 SMs enabled on each of 2 dies");
    g.max_clock_hz = cited(mhz(1965), "[S10]", "device-reported maximum SM clock");
    g.boost_clock_hz = cited(mhz(1965), "[S10]",
                             "no separate boost figure is published; the device maximum is used");
    // One clock reproduces every tensor figure: 148 x 8192 x 1.8557 GHz = 2.25 PF (BF16),
    // x 16384 = 4.5 PF (FP8), x 32768 = 9 PF (FP4). FP32 75 TF implies ~1.98 GHz instead:
    // NVIDIA rates the two pipes at different clocks [S10].
    g.tensor_clock_hz = derived_value(
        2.25e15 / (148 * 8192.0), "[S5][S2]",
        "d: 2.25 PF / (148 SMs x 8192 FLOP/clk/SM) = 1.856 GHz, below the 1965 MHz device maximum");
    g.memory_bytes = cited(191503138816.0, "[O1]",
                           "device-visible: totalGlobalMem 191503138816 B = 178.4 GiB in the TraceLens "
                           "B200 trace [O1]; the HGX/DGX datasheet says 180 GB [S5][S10], early material "
                           "192 GB (physical). At 180 GB x 0.9, DeepSeek-R1 FP8 on 4 GPUs (169 GB of "
                           "weights each) did not fit, where NVIDIA measured such runs");
    // The driver reports a 7680-bit bus at 3996 MHz (pytorch/ao#4002): 960 B x 3.996 GHz x 2
    // (DDR) = 7.672 TB/s. NVIDIA's HGX per-GPU spec rounds that to 7.7; the DGX datasheet's
    // 8 TB/s (and 8192 bit x 3996 MHz = 8.18 TB/s) count bus width the driver does not expose.
    // A ceiling set too high makes every memory-bound kernel look worse than it is, so the
    // driver-derived figure is used; it also equals the B300's post-ECC 7672 GB/s [S9].
    g.memory_bandwidth_bytes_per_s = derived_value(
        7680.0 / 8 * mhz(3996) * 2, "[C10][S5]",
        "d: 7680-bit bus x 3996 MHz x 2 / 8 = 7.672 TB/s (driver, pytorch/ao#4002); HGX spec "
        "7.7 TB/s [S5]; DGX datasheet 8 TB/s [S5][S10] not used");
    g.l2_bytes =
        cited(126.5 * mib, "[C10][S11]",
              "driver-reported 126.5 MB (pytorch/ao#4002); Chips and Cheese rounds to 126 MB");
    g.power_limit_w = cited(1000, "[S5][S20]",
                            "HGX B200 TGP up to 1000 W; DGX B200 ships with a 700 W default set "
                            "point [S10]");
    g.power_limit_max_w = cited(1000, "[S10][S20]", "maximum TGP");
    g.pcie_gen = cited(5, "[S6]");
    g.pcie_bandwidth_bytes_per_s =
        cited(gb_per_s(64), "[S6]", "Gen5 x16: 128 GB/s bidirectional = 64 per direction");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = cited(pflops(9), "[S5][S6][S10]", "NVFP4/MXFP4; sparse 18 PF halved");
    fp4.sparse_flops_per_s = cited(pflops(18), "[S5][S6]");
    auto& fp6 = g.peak(peak_key::fp6);
    fp6.dense_flops_per_s =
        cited(pflops(4.5), "[S6][S10]", "FP6 runs at the FP8 rate (kind::f8f6f4) [S2]");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = cited(pflops(4.5), "[S5][S6][S10]");
    fp8.sparse_flops_per_s = cited(pflops(9), "[S5][S6]");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        g.peak(k).dense_flops_per_s = cited(pflops(2.25), "[S5][S6][S10][S22]");
        g.peak(k).sparse_flops_per_s = cited(pflops(4.5), "[S5][S6]");
    }
    auto& tf32 = g.peak(peak_key::tf32);
    tf32.dense_flops_per_s = cited(pflops(1.125), "[S10]",
                                   "half of BF16; the NVL72 table's HGX B200 column prints 1.1 PF "
                                   "(2.2 sparse) [S6]");
    tf32.sparse_flops_per_s = cited(pflops(2.2), "[S6]");
    auto& int8 = g.peak(peak_key::int8);
    int8.dense_flops_per_s = cited(pflops(4.5), "[S6][S10]", "OP/s");
    int8.sparse_flops_per_s = cited(pflops(9), "[S6]");
    g.peak(peak_key::fp32).dense_flops_per_s =
        cited(tflops(75), "[S6]", "vector; [S10] lists 80 TF (the GB200 figure)");
    g.peak(peak_key::fp64).dense_flops_per_s =
        cited(tflops(37), "[S6]", "vector; FP64 tensor is the same 37 TF");
    return g;
}

/// NVIDIA GB200 (per Blackwell GPU of a GB200 superchip, as in GB200 NVL72).
inline gpu_spec gb200() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "gb200";
    g.name = "NVIDIA GB200 (per GPU)";
    // Assumed: the string public logs show for GB200 GPUs; not in this project's samples.
    g.device_names = {"NVIDIA GB200"};
    detail::sm100_common(g);
    g.sm_count = derived_value(148, "[S6][S10]",
                               "d: 2.5 PF BF16 / (8192 FLOP/clk/SM x 2.062 GHz) = 148; one "
                               "third-party note says 152 (UNCONF)");
    g.max_clock_hz = cited(mhz(2062), "[S10]", "device-reported maximum SM clock");
    g.boost_clock_hz = cited(mhz(2062), "[S10]",
                             "no separate boost figure is published; the device maximum is used");
    g.tensor_clock_hz = derived_value(mhz(2062), "[S6][S10]",
                                      "d: 148 x 8192 FLOP/clk/SM x 2.062 GHz = 2.50 PF BF16: the "
                                      "peaks assume the device maximum clock");
    g.memory_bytes = cited(gb(186), "[S5][S20]");
    g.memory_bandwidth_bytes_per_s =
        cited(tb_per_s(8), "[S5][S6]",
              "datasheet; if GB200 exposes the B200's 7680-bit x 3996 MHz bus, the theoretical "
              "is 7.672 TB/s (UNCONF for GB200)");
    g.l2_bytes = derived_value(126.5 * mib, "[C10][S11]",
                               "d: same die as B200 (driver-reported 126.5 MB there); not "
                               "reported for GB200 itself");
    g.power_limit_w = cited(1200, "[S5][S10]", "per-GPU maximum power");
    g.power_limit_max_w = cited(1200, "[S5][S10]");
    g.pcie_gen = unknown(
        "the host link is NVLink-C2C to Grace (900 GB/s bidirectional) [S6]; no "
        "host PCIe figure is published");
    g.pcie_bandwidth_bytes_per_s = unknown("host link is NVLink-C2C (900 GB/s bidirectional) [S6]");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = cited(pflops(10), "[S6][S10]", "NVFP4/MXFP4; sparse 20 PF halved");
    fp4.sparse_flops_per_s = cited(pflops(20), "[S6]");
    g.peak(peak_key::fp6).dense_flops_per_s =
        cited(pflops(5), "[S6][S10]", "FP6 runs at the FP8 rate (kind::f8f6f4) [S2]");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = cited(pflops(5), "[S6][S10]");
    fp8.sparse_flops_per_s = cited(pflops(10), "[S6]");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        g.peak(k).dense_flops_per_s = cited(pflops(2.5), "[S6][S10]");
        g.peak(k).sparse_flops_per_s = cited(pflops(5), "[S6]");
    }
    auto& tf32 = g.peak(peak_key::tf32);
    tf32.dense_flops_per_s = cited(pflops(1.25), "[S6][S10]");
    tf32.sparse_flops_per_s = cited(pflops(2.5), "[S6]");
    auto& int8 = g.peak(peak_key::int8);
    int8.dense_flops_per_s = cited(pflops(5), "[S6][S10]", "OP/s");
    int8.sparse_flops_per_s = cited(pflops(10), "[S6]");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(80), "[S6][S10]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        cited(tflops(40), "[S6]", "vector; FP64 tensor is the same 40 TF");
    return g;
}

}  // namespace roofline::gpus
