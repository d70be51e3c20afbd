#pragma once
// SM120 (Blackwell RTX, compute capability 12.0): RTX PRO 6000 Blackwell (Workstation 600 W,
// Max-Q 300 W, Server), RTX PRO 5000 Blackwell (48 and 72 GB) and GeForce RTX 5090, all GB202;
// RTX PRO 4500 Blackwell and GeForce RTX 5080, GB203.
//
// What sets SM120 apart from the datacenter parts, and why the entries look as they do:
//  * 100 KiB shared memory per SM and 99 KiB per block (101376 B) against 228/227 KiB on
//    SM90/SM100; no tcgen05 and no tensor memory; 1536 threads per SM.
//  * The PRO cards run FP32-accumulate at the full tensor rate (1024 BF16 FLOP/clk/SM [S24]); the
//    GeForce RTX 5090 runs FP16/BF16/FP8 with FP32 accumulate at half its FP16-accumulate rate
//    (209.5 vs 419 TF), while FP4 is not halved [S12]. Dense peaks here use the accumulator LLM
//    kernels use (FP32); the FP16-accumulate rates sit in `dense_fp16_acc_flops_per_s`.
//  * Clocks float with power: datasheet peaks assume a nominal boost; under sustained tensor load
//    a 600 W card holds 2.18-2.35 GHz, and light loads boost higher [S24]. `tensor_clock_hz` is
//    the clock the peaks below assume, for `at_sm_clock()` scaling.
//  * NVIDIA's "AI TOPS" are sparse FP4 and are halved here.
// Source ids are listed in `gpus/sources.hpp`.

#include <string>  // std::string

#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/units.hpp"

namespace roofline::gpus {

namespace detail {

/// Facts shared by every CC 12.0 part (per-compute-capability limits, not per product).
inline void sm120_common(gpu_spec& g) {
    using namespace roofline::units;
    g.arch = "blackwell-rtx";
    g.sm_arch = "sm120";
    g.cc_major = 12;
    g.cc_minor = 0;
    g.memory_type = "GDDR7";
    g.l2_bandwidth_bytes_per_s = unknown("not published");
    g.smem_per_sm_bytes = cited(100 * kib, "[S1][S13]",
                                "100 KiB = 102400 B; the Tuning Guide's '128 KB' is the unified "
                                "L1 + shared memory pool [S3]");
    g.smem_per_block_bytes =
        cited(101376, "[S1][S2][S26]", "99 KiB opt-in = 100 KiB minus 1 KiB reserved per block");
    g.registers_per_sm = cited(65536, "[S1][S3][S16]", "64K 32-bit registers");
    g.max_threads_per_sm = cited(1536, "[S1][S3][S13]", "48 warps");
    g.tmem_per_sm_bytes =
        cited(0, "[S2][S19]", "no tcgen05 / tensor memory on SM120 (mma.sync path)");
    g.nvlink_bandwidth_bytes_per_s = cited(0, "[S15][S14]", "no NVLink");
    for (auto k : {peak_key::fp4, peak_key::fp6, peak_key::fp8, peak_key::fp16, peak_key::bf16,
                   peak_key::tf32})
        g.peak(k).accumulate = "fp32";
    g.peak(peak_key::int8).accumulate = "int32";
}

/// Facts shared by the three RTX PRO 6000 Blackwell SKUs (GB202 with 188 of 192 SMs).
inline void rtx_pro_6000_common(gpu_spec& g) {
    using namespace roofline::units;
    sm120_common(g);
    g.sm_count = cited(188, "[S16]", "24064 CUDA cores / 128; the full GB202 has 192");
    g.memory_bytes = cited(gb(96), "[S15]", "GDDR7 with ECC, 512-bit");
    g.l2_bytes = cited(128 * mib, "[S16][S24]", "128 MB; 134217728 B reported on a Max-Q [S24]");
    g.pcie_gen = cited(5, "[S15]");
    g.pcie_bandwidth_bytes_per_s = cited(gb_per_s(64), "[S15]", "Gen5 x16: 64 GB/s per direction");
    g.p2p = cited(1, "[S18]",
                  "PCIe P2P works with the stock driver; some platforms hang and need "
                  "NCCL_P2P_DISABLE=1 or iommu=pt");

    g.peak(peak_key::fp4).flops_per_clock_per_sm =
        derived_value(4096, "[S15][S27]", "d: 2 x FP8 (sparse FP4 'AI TOPS' are 2x the FP8 rate)");
    g.peak(peak_key::fp8).flops_per_clock_per_sm = cited(2048, "[S27]", "whitepaper v1.1 table 4");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).flops_per_clock_per_sm = cited(1024, "[S24]", "FP32 accumulate at full rate");
    g.peak(peak_key::tf32).flops_per_clock_per_sm = derived_value(
        256, "[S15]", "d: Server TF32 117 TF / (188 SMs x 2.43 GHz) = 256, a quarter of BF16");
    g.peak(peak_key::fp6).dense_flops_per_s =
        unknown("no FP6 figure published for GB202 (expected at the FP8 rate, UNCONF)");
    g.peak(peak_key::int8).dense_flops_per_s =
        unknown("no INT8 figure published for RTX PRO 6000 (UNCONF)");
}

/// Dense BF16/FP16/FP8/TF32 peaks of an RTX PRO 6000 at the SM clock `clock_hz`:
/// rate = FLOP/clk/SM x 188 SMs x clock. `clock_text` names the clock in the notes and
/// `clock_source` cites it.
inline void rtx_pro_6000_tensor_peaks(gpu_spec& g, double clock_hz, const std::string& clock_text,
                                      const std::string& clock_source) {
    auto set = [&](peak_key k, const std::string& rate_source, const std::string& rate_text) {
        auto& p = g.peak(k);
        const double per_sm = p.flops_per_clock_per_sm.value.value_or(0.0);
        const std::string src =
            rate_source == clock_source ? rate_source : rate_source + clock_source;
        p.dense_flops_per_s =
            derived_value(per_sm * 188 * clock_hz, src,
                          "d: " + rate_text + " FLOP/clk/SM x 188 SMs x " + clock_text);
    };
    set(peak_key::fp16, "[S24]", "1024");
    set(peak_key::bf16, "[S24]", "1024");
    set(peak_key::fp8, "[S27]", "2048");
    set(peak_key::tf32, "[S15]", "256");
}

}  // namespace detail

/// NVIDIA RTX PRO 6000 Blackwell Workstation Edition: dual-slot, 600 W.
inline gpu_spec rtx_pro_6000() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-pro-6000";
    g.name = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition";
    // Assumed: the nvidia-smi string seen in public logs; not in this project's samples.
    g.device_names = {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition"};
    detail::rtx_pro_6000_common(g);
    g.base_clock_hz = unknown("not published (UNCONF)");
    g.boost_clock_hz = cited(mhz(2617), "[S24]",
                             "device-reported clock rate; FP32 126 TF [S15] = 24064 x 2 x 2.617 "
                             "GHz agrees; a 'whitepaper boost ~2417 MHz' note is UNCONF");
    g.tensor_clock_hz = cited(mhz(2617), "[S24]",
                              "nominal boost; sustained tensor load at 600 W holds 2.18-2.35 GHz");
    g.max_clock_hz = cited(mhz(3090), "[S24]", "nvidia-smi clocks.max.sm");
    g.memory_bandwidth_bytes_per_s =
        cited(gb_per_s(1792), "[S15]", "512-bit x 28 Gbps; measured copy ~1.46 TB/s [S24]");
    g.power_limit_w = cited(600, "[S15]", "board power");
    g.power_limit_min_w = cited(150, "[S29]", "measured: nvidia-smi accepts 150 W on two Workstation cards");
    g.power_limit_max_w = cited(600, "[S15]");

    detail::rtx_pro_6000_tensor_peaks(g, mhz(2617), "2.617 GHz", "[S24]");
    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = derived_value(
        tflops(2000), "[S15]", "d: 4000 AI TOPS (sparse FP4) / 2; 4096 x 188 x 2.617 GHz = 2015");
    fp4.sparse_flops_per_s = cited(tflops(4000), "[S15]", "'AI TOPS'");
    g.peak(peak_key::fp32).dense_flops_per_s =
        cited(tflops(126), "[S15]", "vector; June-2026 datasheet revision (earlier: 125 TF)");
    g.peak(peak_key::fp64).dense_flops_per_s =
        derived_value(tflops(126) / 64, "[S15]", "d: FP32 / 64 (whitepaper v1.1 ratio)");
    return g;
}

/// NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition: the same GB202 at 300 W.
inline gpu_spec rtx_pro_6000_maxq() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-pro-6000-maxq";
    g.name = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition";
    // Assumed: the nvidia-smi string seen in public logs; not in this project's samples.
    g.device_names = {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"};
    detail::rtx_pro_6000_common(g);
    // NVIDIA prints no Max-Q clock; FP32 110 TF over 24064 cores x 2 FLOP/clk gives 2.286 GHz.
    // A guide's 438.9 TF BF16 [C09] implies 2280 MHz.
    const double clock_hz = tflops(110) / (24064 * 2.0);
    g.base_clock_hz = unknown("not published (UNCONF)");
    g.boost_clock_hz = derived_value(clock_hz, "[S15]",
                                     "d: FP32 110 TF / (24064 cores x 2) = 2.286 GHz (UNCONF as "
                                     "a clock; 438.9 TF BF16 in [C09] implies 2280 MHz)");
    g.tensor_clock_hz = derived_value(clock_hz, "[S15]", "d: as the boost clock");
    g.max_clock_hz = unknown("not reported (UNCONF)");
    g.memory_bandwidth_bytes_per_s =
        cited(gb_per_s(1792), "[S15]", "512-bit x 28 Gbps; measured read roof ~1.6 TB/s [S24]");
    g.power_limit_w = cited(300, "[S15]", "board power (the 300 W RTX PRO 6000 is this SKU)");
    g.power_limit_min_w = cited(250, "[S29]", "measured: ~250 W lowest step on one community Max-Q card");
    g.power_limit_max_w = cited(300, "[S15]");

    detail::rtx_pro_6000_tensor_peaks(g, clock_hz, "2.286 GHz", "[S15]");
    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s =
        derived_value(tflops(3511) / 2, "[S15]",
                      "d: 3511 AI TOPS (sparse FP4) / 2; 4096 x 188 x 2.286 GHz = 1760");
    fp4.sparse_flops_per_s = cited(tflops(3511), "[S15]", "'AI TOPS'");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(110), "[S15]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        derived_value(tflops(110) / 64, "[S15]", "d: FP32 / 64 (whitepaper v1.1 ratio)");
    return g;
}

/// NVIDIA RTX PRO 6000 Blackwell Server Edition: passively cooled, up to 600 W, configurable.
inline gpu_spec rtx_pro_6000_server() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-pro-6000-server";
    g.name = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
    // Assumed: the nvidia-smi string seen in public logs; not in this project's samples.
    g.device_names = {"NVIDIA RTX PRO 6000 Blackwell Server Edition"};
    detail::rtx_pro_6000_common(g);
    g.base_clock_hz = cited(mhz(1852), "[S15]", "product brief");
    g.boost_clock_hz = cited(mhz(2430), "[S15]", "product brief");
    // NVIDIA's sparse headlines (4 / 2 / 1 PF) halve to peaks at ~2.6 GHz, the Workstation
    // clock, while its TF32 117 TF and the brief's 2430 MHz agree. Peaks here use 2430 MHz; a
    // measured BF16 417 TF [S17] is 89% of that.
    g.tensor_clock_hz = cited(mhz(2430), "[S15]",
                              "product-brief boost; the sparse headlines imply ~2.6 GHz instead");
    g.max_clock_hz = unknown("not reported (UNCONF)");
    g.memory_bandwidth_bytes_per_s =
        cited(gb_per_s(1597), "[S15]",
              "Server datasheet (Dec 2025) and product page; other sources print the "
              "Workstation's 1792 GB/s, not used");
    g.power_limit_w = cited(600, "[S15][S10]", "up to 600 W, configurable (600 W and 450 W modes)");
    g.power_limit_min_w = cited(300, "[S29]",
                                "measured: the lowest limit on two Server cards (a 450 W mode exists; "
                                "Lenovo caps at 450 W)");
    g.power_limit_max_w = cited(600, "[S15][S10]");

    detail::rtx_pro_6000_tensor_peaks(g, mhz(2430), "2.43 GHz", "[S15]");
    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = derived_value(
        4096 * 188 * mhz(2430), "[S15]",
        "d: 4096 FLOP/clk/SM x 188 x 2.43 GHz = 1871 TF; NVIDIA's 4 PF sparse halves to 2000");
    fp4.sparse_flops_per_s = cited(pflops(4), "[S15]");
    g.peak(peak_key::fp8).sparse_flops_per_s = cited(pflops(2), "[S15]");
    for (auto k : {peak_key::fp16, peak_key::bf16})
        g.peak(k).sparse_flops_per_s = cited(pflops(1), "[S15]");
    g.peak(peak_key::tf32).sparse_flops_per_s = cited(tflops(234), "[S15]");
    g.peak(peak_key::fp32).dense_flops_per_s =
        cited(tflops(120), "[S15]", "vector (implies ~2.49 GHz)");
    g.peak(peak_key::fp64).dense_flops_per_s =
        derived_value(tflops(120) / 64, "[S15]", "d: FP32 / 64 (whitepaper v1.1 ratio)");
    return g;
}

/// NVIDIA GeForce RTX 5090 (GB202 with 170 SMs, 575 W).
inline gpu_spec rtx_5090() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-5090";
    g.name = "NVIDIA GeForce RTX 5090";
    // Assumed: the nvidia-smi string seen in public logs; not in this project's samples.
    g.device_names = {"NVIDIA GeForce RTX 5090"};
    detail::sm120_common(g);
    g.sm_count = cited(170, "[S13][S14]", "21760 CUDA cores, 680 tensor cores");
    g.base_clock_hz = cited(mhz(2017), "[S14]");
    g.boost_clock_hz = cited(mhz(2407), "[S14]", "real clocks under load are often 2.4-2.8 GHz");
    g.tensor_clock_hz = cited(mhz(2407), "[S12][S14]",
                              "whitepaper rates at boost: 209.5 TF = 170 x 512 x 2.407 GHz");
    g.max_clock_hz = cited(mhz(2550), "[S13]", "deviceQuery maximum");
    g.memory_bytes = cited(gb(32), "[S13][S14]", "GDDR7, 512-bit, 28 Gbps");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(1792), "[S13][S14]");
    g.l2_bytes = cited(96 * mib, "[S13]", "100663296 B");
    g.power_limit_w = cited(575, "[S14]", "total graphics power");
    g.power_limit_min_w = unknown("not published");
    g.power_limit_max_w = unknown("not published (board partners differ)");
    g.pcie_gen = cited(5, "[S18]");
    g.pcie_bandwidth_bytes_per_s =
        derived_value(gb_per_s(64), "[S18]",
                      "d: Gen5 x16 = 32 GT/s x 16 / 8 = 64 GB/s per direction (nominal); "
                      "measured H2D 56.3, D2H 57.3 GB/s");
    g.p2p =
        cited(0, "[S18]",
              "stock driver: no PCIe P2P; only community-patched open kernel modules enable it");

    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = cited(tflops(1676), "[S12]", "FP32 accumulate; FP4 is not halved");
    fp4.sparse_flops_per_s = cited(tflops(3352), "[S12]", "'AI TOPS'");
    fp4.flops_per_clock_per_sm = derived_value(4096, "[S12]", "d: 1676 TF / (170 x 2.407 GHz)");
    g.peak(peak_key::fp6).dense_flops_per_s =
        unknown("no FP6 figure published (expected at the FP8 rate, UNCONF)");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s =
        cited(tflops(419), "[S12]", "FP32 accumulate: half the FP16-accumulate rate");
    fp8.dense_fp16_acc_flops_per_s = cited(tflops(838), "[S12]");
    fp8.flops_per_clock_per_sm = derived_value(1024, "[S12]", "d: 419 TF / (170 x 2.407 GHz)");
    auto& fp16 = g.peak(peak_key::fp16);
    fp16.dense_flops_per_s =
        cited(tflops(209.5), "[S12]", "FP32 accumulate: half the FP16-accumulate rate");
    fp16.dense_fp16_acc_flops_per_s = cited(tflops(419), "[S12]");
    fp16.flops_per_clock_per_sm = derived_value(512, "[S12]", "d: 209.5 TF / (170 x 2.407 GHz)");
    auto& bf16 = g.peak(peak_key::bf16);
    bf16.dense_flops_per_s =
        cited(tflops(209.5), "[S12][S22]", "FP32 accumulate (the only BF16 mode)");
    bf16.dense_fp16_acc_flops_per_s = unknown("BF16 has no FP16-accumulate mode [S12]");
    bf16.flops_per_clock_per_sm = derived_value(512, "[S12]", "d: 209.5 TF / (170 x 2.407 GHz)");
    g.peak(peak_key::tf32).dense_flops_per_s = unknown(
        "104.8 TF appears in a third-party table, not confirmed against the whitepaper (UNCONF)");
    g.peak(peak_key::int8).dense_flops_per_s = cited(
        tflops(838), "[S12]", "TOPS, via a third-party table quoting the whitepaper; no INT4");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(104.8), "[S14]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s =
        unknown("not published for GeForce; 1:64 of FP32 would give ~1.6 TF (UNCONF)");
    return g;
}

namespace detail {

/// Dense tensor peaks of an RTX PRO part with `sms` SMs at `clock_hz`: FP32 accumulate at the
/// full rate, FP4 4096 / FP8 2048 / BF16 and FP16 1024 / TF32 256 FLOP/clk/SM (GB202 rates
/// [S27][S24], assumed for GB203). `clock_note` says where the clock comes from.
inline void rtx_pro_tensor_peaks(gpu_spec& g, int sms, double clock_hz, const std::string& clock_note,
                                 const std::string& src) {
    using namespace roofline::units;
    struct rate {
        peak_key k;
        double per_sm;
        const char* per_sm_source;
    };
    for (const rate r : {rate{peak_key::fp4, 4096, "[S27]"}, rate{peak_key::fp8, 2048, "[S27]"},
                         rate{peak_key::fp16, 1024, "[S24]"}, rate{peak_key::bf16, 1024, "[S24]"},
                         rate{peak_key::tf32, 256, "[S15]"}}) {
        auto& p = g.peak(r.k);
        p.flops_per_clock_per_sm = derived_value(r.per_sm, r.per_sm_source, "d: GB202 per-SM rate");
        p.dense_flops_per_s = derived_value(
            r.per_sm * sms * clock_hz, src + r.per_sm_source,
            "d: " + std::to_string(static_cast<int>(r.per_sm)) + " FLOP/clk/SM x " +
                std::to_string(sms) + " SMs x " + clock_note);
    }
    g.peak(peak_key::fp6).dense_flops_per_s =
        unknown("no FP6 figure published (expected at the FP8 rate, UNCONF)");
    g.peak(peak_key::int8).dense_flops_per_s = unknown("no INT8 figure published (UNCONF)");
    g.p2p = cited(1, "[S18]", "RTX PRO: PCIe P2P with the stock driver (as RTX PRO 6000)");
    g.pcie_gen = cited(5, "[S46]");
    g.pcie_bandwidth_bytes_per_s = cited(gb_per_s(64), "[S46]", "Gen5 x16: 64 GB/s per direction");
}

}  // namespace detail

/// NVIDIA RTX PRO 5000 Blackwell (GB202 with 110 SMs, 300 W; 48 GB, or 72 GB with 3 GB modules).
inline gpu_spec rtx_pro_5000(int memory_gb) {
    using namespace roofline::units;
    gpu_spec g;
    g.id = memory_gb == 48 ? "rtx-pro-5000" : "rtx-pro-5000-72gb";
    g.name = "NVIDIA RTX PRO 5000 Blackwell " + std::to_string(memory_gb) + "GB";
    // Assumed: the string public logs show; not in this project's samples.
    g.device_names = {memory_gb == 48 ? "NVIDIA RTX PRO 5000 Blackwell" : "NVIDIA RTX PRO 5000 72GB Blackwell"};
    detail::sm120_common(g);
    g.sm_count = cited(110, "[S46]", "14080 CUDA cores");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    // NVIDIA's 2064 AI TOPS (sparse FP4) / 2 / (110 x 4096) = 2.29 GHz: the clock the tensor
    // figure assumes; the third-party boost figure is 2377 MHz.
    const double clock_hz = tflops(2064) / 2 / (110 * 4096.0);
    g.boost_clock_hz = cited(mhz(2377), "[S46]", "third-party figure");
    g.tensor_clock_hz = derived_value(clock_hz, "[S46]", "d: 2064 AI TOPS / 2 / (110 x 4096) = 2.29 GHz");
    g.max_clock_hz = unknown("not reported (UNCONF)");
    g.memory_bytes = cited(gb(memory_gb), "[S46]", "GDDR7 with ECC, 384-bit");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(1344), "[S46]");
    g.l2_bytes = cited(96 * mib, "[S46]", "third-party figure");
    g.power_limit_w = cited(300, "[S46]");
    g.power_limit_min_w = unknown("not published");
    g.power_limit_max_w = cited(300, "[S46]");
    detail::rtx_pro_tensor_peaks(g, 110, clock_hz, "2.29 GHz", "[S46]");
    g.peak(peak_key::fp4).sparse_flops_per_s = cited(tflops(2064), "[S46]", "'AI TOPS'");
    g.peak(peak_key::fp32).dense_flops_per_s =
        derived_value(14080 * 2 * mhz(2377), "[S46]", "d: 14080 cores x 2 x 2.377 GHz");
    g.peak(peak_key::fp64).dense_flops_per_s =
        derived_value(14080 * 2 * mhz(2377) / 64, "[S46][S15]", "d: FP32 / 64 (whitepaper v1.1 ratio)");
    return g;
}

/// NVIDIA RTX PRO 4500 Blackwell 32 GB (GB203 with 82 SMs, 200 W).
inline gpu_spec rtx_pro_4500() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-pro-4500";
    g.name = "NVIDIA RTX PRO 4500 Blackwell 32GB";
    // Assumed: the string public logs show; not in this project's samples.
    g.device_names = {"NVIDIA RTX PRO 4500 Blackwell"};
    detail::sm120_common(g);
    g.sm_count = derived_value(82, "[S46]", "d: 10496 CUDA cores / 128 per SM");
    g.base_clock_hz = cited(mhz(1590), "[S46]", "third-party figure");
    g.boost_clock_hz = cited(mhz(2617), "[S46]", "third-party figure");
    g.tensor_clock_hz = cited(mhz(2617), "[S46]",
                              "boost; NVIDIA's AI TOPS figure was not reached, so the tensor "
                              "peaks assume the boost clock (UNCONF)");
    g.max_clock_hz = unknown("not reported (UNCONF)");
    g.memory_bytes = cited(gb(32), "[S46]", "GDDR7 with ECC, 256-bit");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(896), "[S46]");
    g.l2_bytes = cited(64 * mib, "[S46]", "third-party figure");
    g.power_limit_w = cited(200, "[S46]");
    g.power_limit_min_w = unknown("not published");
    g.power_limit_max_w = cited(200, "[S46]");
    detail::rtx_pro_tensor_peaks(g, 82, mhz(2617), "2.617 GHz", "[S46]");
    g.peak(peak_key::fp32).dense_flops_per_s =
        derived_value(10496 * 2 * mhz(2617), "[S46]", "d: 10496 cores x 2 x 2.617 GHz = 54.9 TF");
    g.peak(peak_key::fp64).dense_flops_per_s =
        derived_value(10496 * 2 * mhz(2617) / 64, "[S46][S15]", "d: FP32 / 64 (whitepaper v1.1 ratio)");
    return g;
}

/// NVIDIA GeForce RTX 5080 16 GB (GB203 with 84 SMs, 360 W). GeForce: FP32 accumulate at half
/// the FP16-accumulate rate for FP16/BF16/FP8, FP4 not halved, as the RTX 5090 [S12].
inline gpu_spec rtx_5080() {
    using namespace roofline::units;
    gpu_spec g;
    g.id = "rtx-5080";
    g.name = "NVIDIA GeForce RTX 5080";
    // Assumed: the string public logs show; not in this project's samples.
    g.device_names = {"NVIDIA GeForce RTX 5080"};
    detail::sm120_common(g);
    g.sm_count = derived_value(84, "[S47]", "d: 10752 CUDA cores / 128 per SM");
    g.base_clock_hz = unknown("not used here (UNCONF)");
    g.boost_clock_hz = cited(mhz(2617), "[S47]");
    g.tensor_clock_hz = cited(mhz(2617), "[S47]", "1801 AI TOPS / 2 = 84 x 4096 x 2.617 GHz");
    g.max_clock_hz = unknown("not reported (UNCONF)");
    g.memory_bytes = cited(gb(16), "[S47]", "GDDR7, 256-bit, 30 Gbps");
    g.memory_bandwidth_bytes_per_s = cited(gb_per_s(960), "[S47]");
    g.l2_bytes = cited(64 * mib, "[S47]");
    g.power_limit_w = cited(360, "[S47]", "total graphics power");
    g.power_limit_min_w = unknown("not published");
    g.power_limit_max_w = unknown("not published (board partners differ)");
    g.pcie_gen = cited(5, "[S47]");
    g.pcie_bandwidth_bytes_per_s =
        derived_value(gb_per_s(64), "[S18]", "d: Gen5 x16 = 64 GB/s per direction (nominal)");
    g.p2p = cited(0, "[S18]", "stock GeForce driver: no PCIe P2P");
    const double clk = mhz(2617);
    auto& fp4 = g.peak(peak_key::fp4);
    fp4.dense_flops_per_s = derived_value(tflops(1801) / 2, "[S47]", "d: 1801 AI TOPS (sparse FP4) / 2");
    fp4.sparse_flops_per_s = cited(tflops(1801), "[S47]", "'AI TOPS'");
    fp4.flops_per_clock_per_sm = derived_value(4096, "[S12]", "d: as the RTX 5090");
    auto& fp8 = g.peak(peak_key::fp8);
    fp8.dense_flops_per_s = derived_value(1024 * 84 * clk, "[S12][S47]",
                                          "d: 1024 FLOP/clk/SM (FP32 acc, as the RTX 5090) x 84 x 2.617 GHz");
    fp8.dense_fp16_acc_flops_per_s = derived_value(2048 * 84 * clk, "[S12][S47]", "d: 2048 x 84 x 2.617 GHz");
    fp8.flops_per_clock_per_sm = derived_value(1024, "[S12]", "d: as the RTX 5090");
    for (auto k : {peak_key::fp16, peak_key::bf16}) {
        auto& p = g.peak(k);
        p.dense_flops_per_s = derived_value(512 * 84 * clk, "[S12][S47]",
                                            "d: 512 FLOP/clk/SM (FP32 acc, as the RTX 5090) x 84 x 2.617 GHz");
        p.flops_per_clock_per_sm = derived_value(512, "[S12]", "d: as the RTX 5090");
    }
    g.peak(peak_key::fp16).dense_fp16_acc_flops_per_s =
        derived_value(1024 * 84 * clk, "[S12][S47]", "d: 1024 x 84 x 2.617 GHz");
    g.peak(peak_key::bf16).dense_fp16_acc_flops_per_s = unknown("BF16 has no FP16-accumulate mode [S12]");
    g.peak(peak_key::fp6).dense_flops_per_s = unknown("no FP6 figure published (UNCONF)");
    g.peak(peak_key::tf32).dense_flops_per_s = unknown("not published (UNCONF)");
    g.peak(peak_key::int8).dense_flops_per_s = unknown("not published (UNCONF)");
    g.peak(peak_key::fp32).dense_flops_per_s = cited(tflops(56.3), "[S47]", "vector");
    g.peak(peak_key::fp64).dense_flops_per_s = unknown("not published for GeForce (UNCONF)");
    return g;
}

}  // namespace roofline::gpus
