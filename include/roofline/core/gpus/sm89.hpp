#pragma once
// SM89 (Ada Lovelace, compute capability 8.9): L4, L40S and GeForce RTX 4090.
//
// Ada adds an FP8 tensor path (no FP6/FP4). The datacenter parts (L4, L40S) run FP32 accumulate
// at the full tensor rate; the GeForce RTX 4090 runs FP16/BF16/FP8 with FP32 accumulate at half
// its FP16-accumulate rate, as the RTX 5090 does [S37][S12]. CC 8.9 limits match CC 12.x: 100 KB
// shared memory per SM, 99 KB per block, 1536 threads per SM. Source ids are listed in
// `gpus/sources.hpp`.

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Per-CC 8.9 limits.
inline void sm89_common(gpu_spec& g) {
    using namespace roofline::units;
    g.arch = "ada";
    g.sm_arch = "sm89";
    g.cc_major = 8;
    g.cc_minor = 9;
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(100 * kib, "[S37]", "100 KB of the 128 KB L1/shared pool");
    g.smem_per_block_bytes = cited(99 * kib, "[S37]", "99 KB opt-in = 100 KB minus 1 KB reserved");
    g.registers_per_sm = cited(65536, "[S37]");
    g.max_threads_per_sm = cited(1536, "[S37]", "48 warps");
    g.tmem_per_sm_bytes = cited(0, "[S37]", "no tensor memory before SM100");
    g.nvlink_bandwidth_bytes_per_s = cited(0, "[S37][S38][S39]", "no NVLink on Ada");
    g.pcie_gen = cited(4, "[S37][S38][S39]");
    g.pcie_bandwidth_bytes_per_s =
        cited(gb_per_s(32), "[S38]", "Gen4 x16: 64 GB/s bidirectional = 32 per direction");
    g.power_limit_min_w = unknown("not published");
    for (auto k : {peak_key::fp4, peak_key::fp6}) {
        g.peak(k).supported = false;
        g.peak(k).dense_flops_per_s = cited(0, "[S37]", "Ada has FP8 but no FP6/FP4 tensor path");
    }
    for (auto k : {peak_key::fp8, peak_key::fp16, peak_key::bf16, peak_key::tf32})
        g.peak(k).accumulate = "fp32";
    g.peak(peak_key::int8).accumulate = "int32";
}

}  // namespace detail

/// NVIDIA L4 24 GB (AD104, 72 W, low profile).
inline gpu_spec l4() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "l4";
    g.name = "NVIDIA L4 24GB";
    g.device_names = {"NVIDIA L4"};
    detail::sm89_common(g);
    g.sm_count = derived_value(58, "[S38]", "d: 7424 CUDA cores / 128 per SM");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = cited(mhz(2040), "[S38]");
    g.tensor_clock_hz = cited(mhz(2040), "[S38]", "121 TF = 58 x 1024 x 2.04 GHz");
    g.max_clock_hz = cited(mhz(2040), "[S38]", "boost");
    g.memory_type = "GDDR6";
    g.memory_bytes = cited(gb(24), "[S38][S30]");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(300), "[S38][S30]");
    g.l2_bytes = cited(48 * mib, "[S38]", "48 MB");
    g.power_limit_w = cited(72, "[S38][S30]");
    g.power_limit_max_w = cited(72, "[S38]");
    g.p2p = unknown("PCIe peer access on L4 is not documented (UNCONF)");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = derived_value(tflops(242.5), "[S38][S30]", "d: 485 TF sparse / 2");
    fp8.sparse_flops_per_s = cited(tflops(485), "[S38]");
    fp8.flops_per_clock_per_sm = derived_value(2048, "[S38]", "d: 2 x the FP16 rate");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        auto& p = g.peak(k);
        p.dense_flops_per_s = derived_value(tflops(121), "[S38][S30]", "d: 242 TF sparse / 2");
        p.sparse_flops_per_s = cited(tflops(242), "[S38]");
        p.flops_per_clock_per_sm =
            derived_value(1024, "[S38]", "d: 121 TF / (58 x 2.04 GHz), FP32 accumulate at full rate");
    }
    g.peak(peak_key::tf32).dense_flops_per_s = derived_value(tflops(60), "[S38]", "d: 120 TF sparse / 2");
    g.peak(peak_key::tf32).sparse_flops_per_s = cited(tflops(120), "[S38]");
    g.peak(peak_key::int8).dense_flops_per_s = derived_value(tflops(242.5), "[S38]", "d: 485 TOPS sparse / 2");
    g.peak(peak_key::int8).sparse_flops_per_s = cited(tflops(485), "[S38]", "TOPS");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(30.3), "[S38]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = unknown("not published for L4 (UNCONF)");
    return g;
}

/// NVIDIA L40S 48 GB (AD102 with 142 SMs, 350 W).
inline gpu_spec l40s() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "l40s";
    g.name = "NVIDIA L40S 48GB";
    g.device_names = {"NVIDIA L40S"};
    detail::sm89_common(g);
    g.sm_count = derived_value(142, "[S39]", "d: 18176 CUDA cores / 128 per SM");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = cited(mhz(2520), "[S39]");
    // 362.05 TF / (142 x 1024) = 2.49 GHz: NVIDIA rates the tensor peaks a little under boost,
    // so no per-SM rate is entered (the SMs x rate x clock check would fail by 1.2%).
    g.tensor_clock_hz = unknown("d: 362.05 TF / (142 x 1024) implies ~2.49 GHz, under the 2520 MHz boost (UNCONF)");
    g.max_clock_hz = cited(mhz(2520), "[S39]", "boost");
    g.memory_type = "GDDR6";
    g.memory_bytes = cited(gb(48), "[S39][S30]", "nvidia-smi shows 46068 MiB with ECC on [S30]");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(864), "[S39][S30]");
    g.l2_bytes = cited(96 * mib, "[S39]", "96 MB");
    g.power_limit_w = cited(350, "[S39][S30]");
    g.power_limit_max_w = cited(350, "[S39]");
    g.p2p = unknown("PCIe peer access on L40S is not documented (UNCONF)");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = cited(tflops(733), "[S39][S30]");
    fp8.sparse_flops_per_s = cited(tflops(1466), "[S39]");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        g.peak(k).dense_flops_per_s = cited(tflops(362.05), "[S39][S30]", "FP32 accumulate at full rate");
        g.peak(k).sparse_flops_per_s = cited(tflops(733), "[S39]");
    }
    g.peak(peak_key::tf32).dense_flops_per_s = cited(tflops(183), "[S39]");
    g.peak(peak_key::tf32).sparse_flops_per_s = cited(tflops(366), "[S39]");
    g.peak(peak_key::int8).dense_flops_per_s = cited(tflops(733), "[S39][S30]", "TOPS");
    g.peak(peak_key::int8).sparse_flops_per_s = cited(tflops(1466), "[S39]", "TOPS");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(91.6), "[S39]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = unknown("not published for L40S (UNCONF)");
    return g;
}

/// NVIDIA GeForce RTX 4090 24 GB (AD102 with 128 SMs, 450 W).
inline gpu_spec rtx_4090() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-4090";
    g.name = "NVIDIA GeForce RTX 4090";
    g.device_names = {"NVIDIA GeForce RTX 4090"};
    detail::sm89_common(g);
    g.sm_count = cited(128, "[S37]", "16384 CUDA cores, 512 tensor cores");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = cited(mhz(2520), "[S37]");
    g.tensor_clock_hz = cited(mhz(2520), "[S37]", "165.2 TF = 128 x 512 x 2.52 GHz");
    g.max_clock_hz = unknown("not reported (UNCONF); clocks float with power");
    g.memory_type = "GDDR6X";
    g.memory_bytes = cited(gb(24), "[S37]");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(1008), "[S37]", "384-bit x 21 Gbps");
    g.l2_bytes = cited(72 * mib, "[S37]", "72 MB");
    g.power_limit_w = cited(450, "[S37]", "total graphics power");
    g.power_limit_max_w = unknown("not published (board partners differ)");
    g.p2p = cited(0, "[S18]", "stock GeForce driver: no PCIe P2P (community-patched modules only)");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = cited(tflops(330.3), "[S37]", "FP32 accumulate: half the FP16-accumulate rate");
    fp8.dense_fp16_acc_flops_per_s = cited(tflops(660.6), "[S37]");
    fp8.sparse_flops_per_s = cited(tflops(660.6), "[S37]", "FP32 accumulate, sparse");
    fp8.flops_per_clock_per_sm = derived_value(1024, "[S37]", "d: 330.3 TF / (128 x 2.52 GHz)");
    auto& fp16 = g.peak(peak_key::fp16);
    fp16.dense_flops_per_s = cited(tflops(165.2), "[S37]", "FP32 accumulate: half the FP16-accumulate rate");
    fp16.dense_fp16_acc_flops_per_s = cited(tflops(330.3), "[S37]");
    fp16.sparse_flops_per_s = cited(tflops(330.4), "[S37]", "FP32 accumulate, sparse");
    fp16.flops_per_clock_per_sm = derived_value(512, "[S37]", "d: 165.2 TF / (128 x 2.52 GHz)");
    auto& bf16 = g.peak(peak_key::bf16);
    bf16.dense_flops_per_s = cited(tflops(165.2), "[S37]", "FP32 accumulate (the only BF16 mode)");
    bf16.sparse_flops_per_s = cited(tflops(330.4), "[S37]");
    bf16.flops_per_clock_per_sm = derived_value(512, "[S37]", "d: 165.2 TF / (128 x 2.52 GHz)");
    g.peak(peak_key::tf32).dense_flops_per_s = cited(tflops(82.6), "[S37]");
    g.peak(peak_key::tf32).sparse_flops_per_s = cited(tflops(165.2), "[S37]");
    g.peak(peak_key::int8).dense_flops_per_s = cited(tflops(660.6), "[S37]", "TOPS");
    g.peak(peak_key::int8).sparse_flops_per_s = cited(tflops(1321.2), "[S37]", "TOPS");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(82.6), "[S37]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        derived_value(tflops(82.6) / 64, "[S37]", "d: FP32 / 64 (Ada FP64 ratio)");
    return g;
}

}  // namespace roofline::gpus
