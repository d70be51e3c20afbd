#pragma once
// SM90 (Hopper, compute capability 9.0): H100 SXM5, PCIe and NVL; H800 and H20 (export
// variants); H200 SXM and NVL; GH200 (96 GB HBM3 and 144 GB HBM3e). Reference and validation
// anchors: the H200 is the GPU this project measures on.
//
// SKUs that share the GH100 chip differ in SMs, clocks, memory and links: H100 PCIe has 114 SMs,
// the NVL cards run at a lower tensor clock, H800 keeps H100 compute with NVLink cut to 400 GB/s
// and FP64 to 1 TF, and H20 has its tensor rate cut per SM (148 TF BF16 on 78 SMs), so it carries
// no per-SM rate.
//
// Source ids ([S1] ...) are listed in `gpus/sources.hpp`. Tensor figures are dense; NVIDIA's
// product pages quote sparse ones ("with sparsity"), halved here. "d" notes give derivations.

#include <string>  // std::string

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
    g.memory_bytes = cited(gb(80), "[S10][S21]",
                           "datasheet: no recording of an H100's device-visible memory here; the H800, "
                           "this board with its NVLink cut, shows 84943110144 B [O3]");
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

namespace detail {

/// Dense tensor peaks of a GH100 SKU from NVIDIA's sparse figures (TF): FP8 = INT8, BF16 = FP16,
/// TF32; dense = sparse / 2. `src` cites them. The per-SM rates of `sm90_common` are kept
/// (4096 BF16, 8192 FP8 FLOP/clk/SM) and `tensor_clock_hz` is derived from them.
inline void sm90_sparse_peaks(gpu_spec& g, double fp8_sparse_tf, double bf16_sparse_tf,
                              double tf32_sparse_tf, const std::string& src) {
    using namespace roofline::units;
    const auto half = [&](double tf) {
        return derived_value(tflops(tf / 2), src,
                             "d: " + std::to_string(static_cast<long long>(tf)) + " TF sparse / 2");
    };
    g.peak(peak_key::fp8).dense_flops_per_s = half(fp8_sparse_tf);
    g.peak(peak_key::fp8).sparse_flops_per_s = cited(tflops(fp8_sparse_tf), src);
    g.peak(peak_key::int8).dense_flops_per_s = half(fp8_sparse_tf);
    g.peak(peak_key::int8).sparse_flops_per_s = cited(tflops(fp8_sparse_tf), src, "TOPS");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        g.peak(k).dense_flops_per_s = half(bf16_sparse_tf);
        g.peak(k).sparse_flops_per_s = cited(tflops(bf16_sparse_tf), src);
    }
    g.peak(peak_key::tf32).dense_flops_per_s = half(tf32_sparse_tf);
    g.peak(peak_key::tf32).sparse_flops_per_s = cited(tflops(tf32_sparse_tf), src);
    const double sms = g.sm_count.value.value_or(132);
    g.tensor_clock_hz = derived_value(tflops(bf16_sparse_tf / 2) / (sms * 4096), src,
                                      "d: dense BF16 / (" + std::to_string(static_cast<int>(sms)) +
                                          " SMs x 4096 FLOP/clk/SM)");
    g.boost_clock_hz = unknown("not published for this SKU (UNCONF)");
    g.max_clock_hz = unknown("not published for this SKU (UNCONF)");
}

}  // namespace detail

/// NVIDIA H100 PCIe 80 GB (114 SMs, HBM2e, 300-350 W).
inline gpu_spec h100_pcie() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "h100-pcie";
    g.name = "NVIDIA H100 PCIe 80GB";
    g.device_names = {"NVIDIA H100 PCIe"};
    detail::sm90_common(g);
    g.sm_count = cited(114, "[S40]", "GH100 whitepaper table 1");
    detail::sm90_sparse_peaks(g, 3026, 1513, 756, "[S40][S30]");
    g.memory_type = "HBM2e";
    g.memory_bytes = cited(gb(80), "[S40][S30]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(2.0), "[S40][S30]");
    g.l2_bytes = cited(50 * mib, "[S40]", "50 MB, as SXM5");
    g.power_limit_w = cited(350, "[S40][S30]", "300-350 W configurable");
    g.power_limit_min_w = cited(300, "[S40]");
    g.power_limit_max_w = cited(350, "[S40]");
    g.nvlink_bandwidth_bytes_per_s = cited(
        0, "[S40]", "an NVLink bridge pairs two cards at 600 GB/s; collectives default to PCIe");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(51), "[S40]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(26), "[S40]", "vector; FP64 tensor 51 TF");
    return g;
}

/// NVIDIA H100 NVL 94 GB (132 SMs at a lower clock, HBM3, 350-400 W, bridged pairs).
inline gpu_spec h100_nvl() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "h100-nvl";
    g.name = "NVIDIA H100 NVL 94GB";
    g.device_names = {"NVIDIA H100 NVL"};
    detail::sm90_common(g);
    detail::sm90_sparse_peaks(g, 3341, 1671, 835, "[S40]");
    g.memory_type = "HBM3";
    g.memory_bytes = cited(gb(94), "[S40]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(3.9), "[S40]");
    g.l2_bytes = cited(50 * mib, "[S40]", "50 MB, as SXM5");
    g.power_limit_w = cited(400, "[S40]", "350-400 W configurable");
    g.power_limit_min_w = cited(350, "[S40]");
    g.power_limit_max_w = cited(400, "[S40]");
    g.nvlink_bandwidth_bytes_per_s =
        cited(gb_per_s(600), "[S40]", "NVLink bridge between the two cards of a pair");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(60), "[S40]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(30), "[S40]", "vector; FP64 tensor 60 TF");
    return g;
}

/// NVIDIA H800 SXM5 80 GB: H100 SXM5 compute and memory, NVLink 400 GB/s, FP64 1 TF.
inline gpu_spec h800() {
    using namespace roofline::units;
    gpu_spec g = h100_sxm();
    g.id = "h800";
    g.name = "NVIDIA H800 SXM5 80GB";
    g.device_names = {"NVIDIA H800", "NVIDIA H800 80GB HBM3"};
    g.memory_bytes = cited(84943110144.0, "[O3]", "device-visible; datasheet 80 GB [S41]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(3.35), "[S41]");
    g.nvlink_bandwidth_bytes_per_s = cited(
        gb_per_s(400), "[S41]", "bidirectional total, cut from H100's 900 GB/s (export variant)");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(1), "[S41]", "cut from H100's 34 TF");
    return g;
}

/// NVIDIA H20 96 GB (export Hopper: 78 SMs, tensor rate cut to 148 TF BF16, 4.0 TB/s, 400 W).
inline gpu_spec h20() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "h20";
    g.name = "NVIDIA H20 96GB";
    g.device_names = {"NVIDIA H20"};
    detail::sm90_common(g);
    g.sm_count = cited(78, "[S42]", "Geekbench device report");
    g.tensor_clock_hz = unknown("not published (UNCONF); the tensor rate is cut per SM, not by clock");
    g.boost_clock_hz = unknown("not published (UNCONF)");
    g.max_clock_hz = unknown("not published (UNCONF)");
    g.memory_type = "HBM3";
    g.memory_bytes = cited(gb(96), "[S42]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(4.0), "[S42]");
    g.l2_bytes = cited(60 * mib, "[S42]", "60 MB (third-party figure)");
    g.power_limit_w = cited(400, "[S42]");
    g.power_limit_max_w = cited(400, "[S42]");
    g.nvlink_bandwidth_bytes_per_s = cited(gb_per_s(900), "[S42]", "NVLink 4, bidirectional total");
    for (auto k : {peak_key::fp8, peak_key::fp16, peak_key::bf16, peak_key::tf32, peak_key::int8}) {
        g.peak(k).sparse_flops_per_s = {};
        g.peak(k).flops_per_clock_per_sm = {};
    }
    g.peak(peak_key::fp8).dense_flops_per_s = cited(tflops(296), "[S42]");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).dense_flops_per_s = cited(tflops(148), "[S42]", "dense");
    g.peak(peak_key::tf32).dense_flops_per_s = cited(tflops(74), "[S42]");
    g.peak(peak_key::int8).dense_flops_per_s = cited(tflops(296), "[S42]", "TOPS");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(44), "[S42]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(1), "[S42]", "vector");
    return g;
}

/// NVIDIA H200 NVL 141 GB (PCIe card, up to 600 W, 2- or 4-way NVLink bridge).
inline gpu_spec h200_nvl() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "h200-nvl";
    g.name = "NVIDIA H200 NVL 141GB";
    g.device_names = {"NVIDIA H200 NVL"};
    detail::sm90_common(g);
    detail::sm90_sparse_peaks(g, 3341, 1671, 835, "[S43]");
    g.memory_type = "HBM3e";
    g.memory_bytes = cited(gb(141), "[S43]");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(4.8), "[S43]");
    g.l2_bytes = cited(60 * mib, "[M1]", "as the H200 SXM (same chip)");
    g.power_limit_w = cited(600, "[S43]", "up to 600 W, configurable");
    g.power_limit_max_w = cited(600, "[S43]");
    g.nvlink_bandwidth_bytes_per_s =
        cited(gb_per_s(900), "[S43]", "2- or 4-way NVLink bridge, bidirectional total");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(60), "[S43]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = cited(tflops(30), "[S43]", "vector; FP64 tensor 60 TF");
    return g;
}

/// NVIDIA GH200 Grace Hopper Superchip, GPU part: H100 SXM5 compute with 96 GB HBM3 at 4 TB/s
/// (`memory_gb` 96) or 144 GB HBM3e at 4.9 TB/s (`memory_gb` 144). Power is the module's.
inline gpu_spec gh200(int memory_gb) {
    using namespace roofline::units;
    gpu_spec g;
    g.id = memory_gb == 96 ? "gh200" : "gh200-144gb";
    g.name = "NVIDIA GH200 Grace Hopper Superchip (" + std::to_string(memory_gb) +
             (memory_gb == 96 ? "GB HBM3)" : "GB HBM3e)");
    g.device_names = {memory_gb == 96 ? "NVIDIA GH200 480GB" : "NVIDIA GH200 144G HBM3e"};
    detail::sm90_common(g);
    g.memory_type = memory_gb == 96 ? "HBM3" : "HBM3e";
    g.memory_bytes = cited(gb(memory_gb), "[S44]", "HBM beside the Grace CPU's LPDDR5X over NVLink-C2C");
    g.memory_bandwidth_bytes_per_s = cited(tb_per_s(memory_gb == 96 ? 4.0 : 4.9), "[S44]");
    g.l2_bytes = cited(50 * mib, "[S10]", "H100 die");
    g.power_limit_w = cited(1000, "[S44]", "module (CPU + GPU + memory), 450-1000 W programmable");
    g.power_limit_min_w = cited(450, "[S44]", "module");
    g.power_limit_max_w = cited(1000, "[S44]", "module");
    return g;
}

}  // namespace roofline::gpus
