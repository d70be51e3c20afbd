// Tests of models/kernel_time.hpp: predicted kernel times (lower bound at achievable ceilings
// plus a launch floor) against this project's H200 measurements (data/validation), and laws.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/core/catalog.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/moe.hpp"
#include "test_support.hpp"

using namespace roofline;

TEST_CASE("predicted time = lower bound at derated ceilings + the device-side cost of each kernel, by hand") {
    const auto g = gpus::h200_sxm();
    const auto ds = datasheet_ceilings(g);
    const auto used = achievable(ds);
    // 4096^3 bf16: 1.374e11 / (0.75 x 989e12) = 185.3 us + 0.86 us = 186.1 us; lower bound 139.0 us.
    // No 5 us launch floor inside a kernel's duration: that is the host's, a separate term.
    const auto w = gemm_workload({4096, 4096, 4096}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
    const auto t = price_kernel(w, ds, used);
    CHECK(t.lower_bound_s() == approx(137438953472.0 / 989e12));
    CHECK(t.predicted_s() == approx(137438953472.0 / (0.75 * 989e12) + 0.86e-6));
    CHECK(t.predicted_bound() == bound::compute);
    CHECK(t.datasheet_bound() == bound::compute);
    // 1 GB copy: 2e9 B / (0.9 x 4.8e12) + 0.86 us = 463.8 us; called eagerly it still takes that
    // (the 5 us host floor hides under it); a tiny kernel called eagerly costs the floor.
    workload copy;
    copy.bytes_at(memory_level::dram) = 2e9;
    copy.launches = 1;
    const double t_copy = price_kernel(copy, ds, used).predicted_s();
    CHECK(t_copy == approx(2e9 / 4.32e12 + 0.86e-6));
    CHECK(price_kernel(copy, ds, used).predicted_bound() == bound::memory);
    CHECK(eager_call_time_s(t_copy) == t_copy);
    CHECK(eager_call_time_s(1.2e-6) == 5e-6);
    // A working set that fits in L2 is priced at L2: a 16 MB copy touches 32 MB of the 50 MB L2;
    // at the measured 8.2 TB/s L2 it takes 32e6 / 8.2e12 + 0.86 = 4.76 us, not the 8.3 us of DRAM.
    CHECK(fits_in_l2(32e6, *g.l2_bytes.value));
    CHECK_FALSE(fits_in_l2(64e6, *g.l2_bytes.value));
    auto with_l2 = used;
    with_l2.bytes_at(memory_level::l2) = measured_l2_bytes_per_s(g.id);
    const auto hot = copy_workload(16e6, true), cold = copy_workload(16e6, false);
    CHECK(time_lower_bound(hot, with_l2).lower_bound_s == approx(32e6 / 8.201344e12 + 0.86e-6));
    CHECK(time_lower_bound(cold, with_l2).lower_bound_s == approx(32e6 / 4.32e12 + 0.86e-6));
    CHECK(std::isnan(measured_l2_bytes_per_s("b200")));
}

TEST_CASE("curves are keyed by backend: a curve of another backend never prices a kernel") {
    CHECK(normalize_kernel_backend("SDPBackend.FLASH_ATTENTION") == "flash");
    CHECK(normalize_kernel_backend("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7") == "cudnn");
    CHECK(normalize_kernel_backend("efficient") == "mem_efficient");
    CHECK(normalize_kernel_backend("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT") == "nvjet");
    CHECK(normalize_kernel_backend("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
                                   "cutlass::bfloat16_t") == "flash");
    CHECK(normalize_kernel_backend("_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9x") == "cutlass");
    CHECK(normalize_kernel_backend("triton_tem_fused_mm_0") == "triton");
    CHECK(normalize_kernel_backend("Memcpy DtoD (Device -> Device)").empty());
    kernel_efficiency e;
    kernel_curve flash, any_gemm;
    flash.family = kernel_family::attention_decode;
    flash.backend = "flash";
    any_gemm.family = kernel_family::gemm;  // fitted to kernels of unknown backend: the op family's
    e.curves = {flash, any_gemm};
    CHECK(e.curve_for(kernel_family::attention_decode, peak_key::bf16, "flash") == &e.curves[0]);
    CHECK(e.curve_for(kernel_family::attention_decode, peak_key::bf16, "cudnn") == nullptr);
    CHECK(e.curve_for(kernel_family::attention_decode, peak_key::bf16, "") == &e.curves[0]);  // backend unknown
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "nvjet") == &e.curves[1]);  // no nvjet curve: the op family's
    kernel_curve nvjet = any_gemm;
    nvjet.backend = "nvjet";
    e.curves.push_back(nvjet);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "nvjet") == &e.curves[2]);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "") == &e.curves[1]);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::fp8, "nvjet") == nullptr);
}

TEST_CASE("cuBLAS is one library: a curve fitted to nvjet kernels prices a GEMM asked for as cublas") {
    // The committed H200 overlay's GEMM curves carry the backend of the kernels recorded,
    // nvjet_sm90_* (cuBLAS's); `kernel --backend cublas` found none of them.
    kernel_efficiency e;
    kernel_curve any_gemm, nvjet, cutlass;
    any_gemm.family = nvjet.family = cutlass.family = kernel_family::gemm;
    nvjet.backend = "nvjet";
    cutlass.backend = "cutlass";
    e.curves = {any_gemm, nvjet, cutlass};
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "cublas") == &e.curves[1]);  // the library's, before the family's
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "nvjet") == &e.curves[1]);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "cutlass") == &e.curves[2]);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "triton") == &e.curves[0]);  // no triton curve: the family's
    kernel_curve cublas = nvjet;
    cublas.backend = "cublas";
    e.curves.push_back(cublas);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "cublas") == &e.curves[3]);  // the exact backend first
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "nvjet") == &e.curves[1]);
    // A cuBLAS curve never prices a CUTLASS kernel: one library, not all of them.
    e.curves = {nvjet};
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16, "cutlass") == nullptr);
    // What a user types: any case, the libraries' own spellings; a kernel-name fragment is not one.
    CHECK(parse_kernel_backend("cuBLAS") == "cublas");
    CHECK(parse_kernel_backend("cublasLt") == "cublas");
    CHECK(parse_kernel_backend("NVJET") == "nvjet");
    CHECK(parse_kernel_backend("SDPBackend.FLASH_ATTENTION") == "flash");
    CHECK(parse_kernel_backend("EFFICIENT_ATTENTION") == "mem_efficient");
    CHECK(parse_kernel_backend("cudnn_attention") == "cudnn");
    CHECK(parse_kernel_backend("xcublasx").empty());
    CHECK(parse_kernel_backend("flashy").empty());
    CHECK(parse_kernel_backend("").empty());
    // Per family, the backends its kernels run on.
    CHECK(kernel_backends(kernel_family::gemm) == std::vector<std::string_view>{"nvjet", "cublas", "cutlass", "triton"});
    CHECK(kernel_backends(kernel_family::grouped_gemm) == std::vector<std::string_view>{"cutlass", "triton"});
    CHECK(kernel_backends(kernel_family::attention_decode) ==
          std::vector<std::string_view>{"flash", "cudnn", "mem_efficient", "math"});
    CHECK(kernel_backends(kernel_family::copy).empty());
}

TEST_CASE("uncalibrated, kernels are priced as they run: whole grouped-GEMM tiles, published attention rates") {
    const auto ds = datasheet_ceilings(gpus::h200_sxm());
    const auto used = achievable(ds);
    // PyTorch's SM90 grouped GEMM: 64x128 Pingpong below 129 mean rows per group, 128x256
    // Cooperative above, cluster 2 along M: a group of 1 row computes 128 rows, of 375 rows 512.
    const auto small = torch_grouped_gemm_tiling(62.5, 1536), large = torch_grouped_gemm_tiling(375, 1536);
    CHECK(small.padded_rows(1) == 128);
    CHECK(small.padded_rows(130) == 256);
    CHECK(large.padded_rows(375) == 512);
    CHECK(large.padded_cols(1536) == 1536);
    CHECK(torch_grouped_gemm_tiling(375, 1536, 10).tile_m == 64);  // SM100: 64x128 for every shape
    // Groups of 1, 130 and 0 rows (mean 43.7: Pingpong), n = 3072, k = 4096: 384 rows computed,
    // 9.664e9 FLOP, at 0.75 x 989 TFLOP/s, and its bytes at 0.9 x 4.8 TB/s, one after the other
    // (the kernel does not overlap them: ncu-grouped_gemm/README.md); two kernels
    // (prepare_grouped_gemm_data first).
    const std::vector<double> rows = {1, 130, 0};
    const auto w = grouped_gemm_workload(rows, 3072, 4096, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
    const auto k = grouped_gemm_features(rows, 3072, 4096, w, peak_key::bf16);
    const auto r = price_kernel_as_run(w, {k}, ds, used);
    const double padded = 384.0 * 2 * 3072 * 4096;
    CHECK(r.executed_flops == approx(padded));
    const double mem = w.dram_bytes() / (0.9 * ds.bytes_at(memory_level::dram));
    // Two experts' weights (2 x 3072 x 4096 x 2 B = 50.3 MB) and 131 rows in and out: 52.2 MB,
    // 12.1 us at 4.32 TB/s; 13.0 us of padded tile math; with the two kernels' 1.7 us, 26.8 us
    // (the larger of the two roofs would give 14.7 us).
    CHECK(w.dram_bytes() == approx(2.0 * 3072 * 4096 * 2 + 131.0 * (4096 + 3072) * 2));
    CHECK(r.time.predicted_s() == approx(padded / (0.75 * 989e12) + mem + 2 * 0.86e-6));
    CHECK(r.time.predicted_s() == approx(26.83e-6).epsilon(2e-3));
    CHECK(r.time.predicted_bound() == bound::compute);
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "grouped GEMM: weight loads and tile math in series, DRAM time + tensor time (Nsight Compute "
                    "on H200: both roofs half used at once)") != r.notes.end());
    // In series: the sum of the two roofs replaces the larger; latency and link stay as they were.
    roof_times t;
    t.compute_s = 3e-6, t.memory_s = 5e-6, t.link_s = 1e-6, t.latency_s = 2e-6;
    grouped_gemm_in_series(t);
    CHECK(t.lower_bound_s == approx(10e-6));
    CHECK(t.predicted == bound::memory);
    t = {};
    t.compute_s = 0, t.memory_s = 5e-6, t.lower_bound_s = 5e-6;
    grouped_gemm_in_series(t);  // no math: nothing to add
    CHECK(t.lower_bound_s == approx(5e-6));
    CHECK(r.time.lower_bound_s() == approx(price_kernel(w, ds, used).lower_bound_s()));
    // FlashAttention-3 paper, Fig. 5 (H100, head dim 128): FA2 causal 298 TFLOP/s at 2k, 319 at
    // 4k; at 3072 queries 298 + log2(1.5) x 21 = 310.3, of 989.4.
    CHECK(published_attention_fraction("flash", true, 4096) == approx(319.0 / 989.4));
    CHECK(published_attention_fraction("flash", true, 3072) == approx(310.28 / 989.4).epsilon(1e-4));
    CHECK(published_attention_fraction("cudnn", false, 16384) == approx(595.0 / 989.4));
    CHECK(published_attention_fraction("", true, 65536) == approx(616.0 / 989.4));  // FA3, its last point
    CHECK(std::isnan(published_attention_fraction("flash", true, 0)));
    // Independent-sweep case c082: B=2 S=3072 H=40/8 causal through PyTorch's flash backend:
    // 1.933e11 FLOP / (989e12 x 0.3136) + 0.86 us = 624.2 us (measured 668.6 us; 0.75 of the
    // peak would say 261.5).
    attention_shape s;
    s.heads = 40;
    s.kv_heads = 8;
    s.head_dim = 128;
    s.causal = true;
    const auto aw = attention_workload(s, {{2, 3072, 0}}, dtype::bf16);
    auto af = attention_features(aw, peak_key::bf16, 2, 3072, 40, 128, true);
    af.backend = "flash";
    CHECK(price_kernel_as_run(aw, {af}, ds, used).time.predicted_s() == approx(624.2e-6).epsilon(0.002));
    // FA2 decode (independent-sweep case B=96 L=2048 H=32/8, flash): 4 query rows per KV head in
    // 128-row tiles, 32x the useful 4 x 128 x 2048 x 32 x 96 = 3.221e9 FLOP = 1.031e11, at FA2's
    // 362 TFLOP/s (2k keys, not causal) + 0.86 us = 285.7 us (measured 333.1 us; DRAM streaming
    // alone says 187.7). 96 x 8 = 768 CTAs >= 0.8 x 2 x 132 SMs: no split-KV.
    attention_shape gq;
    gq.heads = 32;
    gq.kv_heads = 8;
    gq.head_dim = 128;
    const auto dw = attention_workload(gq, {{96, 1, 2047}}, dtype::bf16);
    auto df = attention_features(dw, peak_key::bf16, 96, 1, 32, 128, false, 8, 132);
    CHECK(df.decode_rows == 4);
    CHECK(df.decode_keys == approx(2048));
    df.backend = "flash";
    const auto dr = price_kernel_as_run(dw, {df}, ds, used);
    CHECK(dr.executed_flops == approx(32 * 4.0 * 128 * 2048 * 32 * 96));
    CHECK(dr.time.predicted_s() == approx(32 * 4.0 * 128 * 2048 * 32 * 96 / 362e12 + 0.86e-6).epsilon(0.003));
    // Split-KV (16 x 8 = 128 CTAs < 211) or another backend: priced as before.
    auto split = attention_features(dw, peak_key::bf16, 16, 1, 32, 128, false, 8, 132);
    split.backend = "flash";
    CHECK(price_kernel_as_run(dw, {split}, ds, used).executed_flops == approx(dw.total_flops()));
    // ... but split-KV is two kernels (flash_fwd_splitkv_kernel, then its combine kernel): 2048 keys
    // are 16 key blocks of 128 (d = 128), so it splits; DRAM-bound + 2 x 0.86 us.
    CHECK(price_kernel_as_run(dw, {split}, ds, used).time.predicted_s() ==
          approx(dw.dram_bytes() / (0.9 * 4.8e12) + 2 * 0.86e-6));
    auto one_block = split;  // 128 keys: one key block, nothing to split
    one_block.decode_keys = 128;
    CHECK(price_kernel_as_run(dw, {one_block}, ds, used).time.predicted_s() ==
          approx(dw.dram_bytes() / (0.9 * 4.8e12) + 0.86e-6));
    df.backend = "cudnn";
    CHECK(price_kernel_as_run(dw, {df}, ds, used).executed_flops == approx(dw.total_flops()));
}

TEST_CASE("uncalibrated, dense GEMMs as they run: the nvjet tile in whole waves, split-K's second kernel, Hopper FP8") {
    const auto g = gpus::h200_sxm();
    const auto ds = datasheet_ceilings(g);
    const auto used = achievable(ds);
    // nvjet names: the first AxB is cuBLAS's (m, n) tile, i.e. B rows along PyTorch's M x A columns along N.
    const auto t1 = parse_nvjet_tile("nvjet_sm90_tst_128x128_64x6_4x1_v_bz_TNT");
    REQUIRE(t1);
    CHECK(t1->rows == 128);
    CHECK(t1->cols == 128);
    CHECK_FALSE(t1->split_k);
    const auto t2 = parse_nvjet_tile("nvjet_sm90_qqtst_64x8_128x16_4x1_v_bz_algo2_splitK_TNT");
    REQUIRE(t2);
    CHECK(t2->rows == 8);
    CHECK(t2->cols == 64);
    CHECK(t2->split_k);
    const auto t3 = parse_nvjet_tile("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT");
    REQUIRE(t3);
    CHECK(t3->rows == 128);
    CHECK(t3->cols == 320);
    CHECK_FALSE(parse_nvjet_tile("Memset (Device)"));
    CHECK_FALSE(parse_nvjet_tile("void cublasLt::splitKreduce_kernel<32, 16, int, float>"));
    // Waves: m = 384, n = 5120 in 128x128 tiles is 3 x 40 = 120 CTAs, one wave of 132 SMs:
    // 132 x 2 x 128 x 128 x 5120 = 2.214e10 FLOP against the useful 2.013e10 (1.1x).
    CHECK(wave_quantized_gemm_flops(384, 5120, 5120, *t1, 132) == approx(132.0 * 2 * 128 * 128 * 5120));
    // 1536 x 5120: 12 x 40 = 480 CTAs, 4 waves (3.64 full): 528 tiles.
    CHECK(wave_quantized_gemm_flops(1536, 5120, 5120, *t1, 132) == approx(528.0 * 2 * 128 * 128 * 5120));
    CHECK(wave_quantized_gemm_flops(384, 5120, 5120, *t2, 132) == approx(2.0 * 384 * 5120 * 5120));  // split-K
    // Independent-sweep case c003 (bf16 384 x 5120 x 5120, nvjet 128x128): 2.214e10 / (0.75 x 989e12)
    // + a cuBLAS kernel's 3.2 us (gemv_fixed_time) = 33.05 us (measured 35.1 us; the useful FLOP
    // and one tiny kernel's 0.86 us alone say 28.0).
    const auto w = gemm_workload({384, 5120, 5120}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
    auto k = gemm_features(w, peak_key::bf16);
    k.gemm_m = 384, k.gemm_n = 5120, k.gemm_k = 5120, k.sm_count = 132;
    k.tile_rows = 128, k.tile_cols = 128;
    const auto r = price_kernel_as_run(w, {k}, ds, used);
    CHECK(r.executed_flops == approx(132.0 * 2 * 128 * 128 * 5120));
    CHECK(r.time.predicted_s() == approx(2.2145e10 / (0.75 * 989e12) + 3.2e-6).epsilon(1e-3));
    CHECK(r.time.predicted_s() == approx(33.05e-6).epsilon(1e-3));
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "GEMM: a cuBLAS kernel's fixed device time 3.2 us (H200 GEMV microbenchmark), not 0.86 us per "
                    "kernel") != r.notes.end());
    // Without the tile (what `roofline kernel` knows): the useful FLOP and one tiny kernel's time.
    auto plain = k;
    plain.tile_rows = plain.tile_cols = 0;
    CHECK(price_kernel_as_run(w, {plain}, ds, used).time.predicted_s() ==
          approx(2.0 * 384 * 5120 * 5120 / (0.75 * 989e12) + 0.86e-6));
    // Split-K (case c021, bf16 3 x 3072 x 12288): DRAM-bound, 75.6 MB / 4.32 TB/s, and two kernels
    // with the 7.7 us of a split-K pair (gemv_fixed_time): 25.2 us (measured 25.1 us).
    const auto ws = gemm_workload({3, 3072, 12288}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
    auto ks = gemm_features(ws, peak_key::bf16);
    ks.gemm_m = 3, ks.gemm_n = 3072, ks.gemm_k = 12288, ks.sm_count = 132;
    ks.tile_rows = 8, ks.tile_cols = 128, ks.split_k = true;
    CHECK(price_kernel_as_run(ws, {ks}, ds, used).time.predicted_s() ==
          approx(ws.dram_bytes() / (0.9 * 4.8e12) + 7.7e-6));
    CHECK(ws.dram_bytes() / (0.9 * 4.8e12) + 7.7e-6 == approx(25.2e-6).epsilon(2e-3));
    // Hopper FP8: 8192^3 at 0.75 x 1979 TFLOP/s x 70.9 / 80.3 (MAMF, H100: FP8 / BF16 fraction of
    // peak) = 1310.5 TFLOP/s: 1.0995e12 / 1310.5e12 + 0.86 us = 839.9 us; on compute capability 10,
    // or at a measured FP8 ceiling, 0.75 x 1979: 741.6 us.
    CHECK(fp8_gemm_rate_vs_bf16(9) == approx(0.88294).epsilon(1e-4));
    CHECK(fp8_gemm_rate_vs_bf16(10) == 1.0);
    const auto w8 = gemm_workload({8192, 8192, 8192}, dtype::fp8_e4m3, dtype::fp8_e4m3, dtype::bf16, peak_key::fp8);
    const auto k8 = gemm_features(w8, peak_key::fp8);
    CHECK(ds.flops_at(peak_key::fp8) == approx(1979e12));
    CHECK(price_kernel_as_run(w8, {k8}, ds, used, {}, 9).time.predicted_s() == approx(839.9e-6).epsilon(1e-3));
    CHECK(price_kernel_as_run(w8, {k8}, ds, used, {}, 10).time.predicted_s() == approx(741.6e-6).epsilon(1e-3));
    auto measured = used;
    measured.flops_at(peak_key::fp8) = 1232e12;  // a calibrated ceiling: already holds the FP8 loss
    CHECK(price_kernel_as_run(w8, {k8}, ds, measured, {}, 9).time.predicted_s() ==
          approx(8192.0 * 8192 * 8192 * 2 / 1232e12 + 0.86e-6));
}

TEST_CASE("on this project's H200 measurements the median absolute error is below 25%") {
    const auto path = roofline::test::repo_data("validation/h200_kernels.json");
    if (!roofline::test::have_sample(path)) return;
    std::ifstream in(path);
    const auto doc = nlohmann::json::parse(in);
    const auto g = gpus::h200_sxm();
    const auto ds = datasheet_ceilings(g);
    auto used = achievable(ds);
    // This sweep times eager calls back to back: each pays the host's launch floor.
    used.launch_latency_s = kernel_efficiency{}.launch_floor_s;
    std::vector<double> errors;
    std::vector<std::pair<std::string, double>> per_kind;
    for (const auto& r : doc.at("records")) {
        if (!r.contains("time_s")) continue;
        const std::string kind = r.at("kind");
        const auto& p = r.at("params");
        workload w;
        if (kind == "gemm") {
            const dtype d = p.at("dtype") == "fp8" ? dtype::fp8_e4m3 : dtype::bf16;
            w = gemm_workload({p.at("m"), p.at("n"), p.at("k")}, d, d, dtype::bf16, g);
        } else if (kind == "moe") {
            moe_problem m;
            m.experts = p.at("experts");
            m.topk = p.at("topk");
            m.hidden = p.at("hidden");
            m.inter = p.at("inter");
            m.tokens = m.experts * p.at("tokens_per_expert").get<double>();
            // The sweep gives every expert exactly tokens_per_expert rows.
            m.routing.type = moe_routing::kind::histogram;
            m.routing.histogram.assign(static_cast<std::size_t>(m.experts), p.at("tokens_per_expert").get<double>());
            w = moe_layer(m, g).work;
        } else if (kind == "attention") {
            attention_shape s;
            s.heads = p.at("heads");
            s.kv_heads = p.at("kv_heads");
            s.head_dim = p.at("head_dim");
            s.causal = p.at("causal");
            const double q = p.at("q_len"), kv = p.at("kv_len");
            w = attention_workload(s, {{p.at("batch"), q, kv - q}}, dtype::bf16);
        } else if (kind == "copy") {
            w.bytes_at(memory_level::dram) = 2.0 * p.at("bytes").get<double>();
            w.launches = 1;
        } else {
            continue;
        }
        const double measured = r.at("time_s");
        const auto t = price_kernel(w, ds, used);
        // Laws: the prediction is never below the lower bound, which the measurement never beats
        // by more than the GEMV/cache effects allow.
        CHECK(t.predicted_s() >= t.lower_bound_s());
        const double err = std::abs(t.predicted_s() - measured) / measured;
        errors.push_back(err);
        per_kind.emplace_back(kind, err);
    }
    REQUIRE(errors.size() >= 50);
    std::sort(errors.begin(), errors.end());
    const double median = errors[errors.size() / 2];
    const double p90 = errors[static_cast<std::size_t>(0.9 * static_cast<double>(errors.size()))];
    MESSAGE("H200 kernels: n=" << errors.size() << " median |error| " << median * 100 << "%, p90 " << p90 * 100 << "%");
    CHECK(median <= 0.25);
    CHECK(p90 <= 0.60);
}

TEST_CASE("a calibrated curve prices a kernel as fixed + max(F_eff / (phi f), B / W), the host floor apart, by hand") {
    const auto used = achievable(datasheet_ceilings(gpus::h200_sxm()));
    kernel_curve c;
    c.family = kernel_family::grouped_gemm;
    c.fixed_latency_s = 20e-6;
    c.flops_per_clock = 4e5;
    c.bytes_per_s = 3e12;
    c.floor_s = 50e-6;
    c.tile_rows = 128;
    // Two experts with 1 and 130 rows, n = 3072, k = 4096: padded rows 128 + 256 = 384,
    // F_eff = 384 x 2 x 3072 x 4096 = 9.664e9 FLOP (useful: 131 x ... = 3.297e9).
    const std::vector<double> rows = {1, 130, 0};
    const auto w = grouped_gemm_workload(rows, 3072, 4096, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
    const auto k = grouped_gemm_features(rows, 3072, 4096, w, peak_key::bf16);
    CHECK(k.group_rows.size() == 2);  // the empty group is dropped
    CHECK(c.effective_flops(k) == approx(384.0 * 2 * 3072 * 4096));
    // At 1.5 GHz: compute 9.664e9 / (4e5 x 1.5e9) = 16.1 us; bytes = 2 x 3072 x 4096 x 2 (weights)
    // + 131 x (4096 + 3072) x 2 = 52.21 MB -> 17.4 us; device = 20 + 17.4 = 37.4 us < floor 50 us.
    const double bytes = 2.0 * 3072 * 4096 * 2 + 131.0 * (4096 + 3072) * 2;
    CHECK(k.dram_bytes == approx(bytes));
    const auto t = calibrated_kernel_time(k, c, used, 1.5e9, "given");
    CHECK(t.compute_s == approx(384.0 * 2 * 3072 * 4096 / (4e5 * 1.5e9)));
    CHECK(t.memory_s == approx(bytes / 3e12));
    CHECK(t.device_s == approx(20e-6 + bytes / 3e12));
    // The kernel's time is its device time; the host floor is a separate term, for eager calls
    // (with a 4.4 us launch gap: max(50, 4.4 + 37.4) = 50 us).
    CHECK(t.time_s == approx(t.device_s));
    CHECK(t.eager_call_s == 50e-6);
    CHECK(calibrated_kernel_time(k, c, used, 1.5e9, "given", 4.4e-6).eager_call_s == 50e-6);
    CHECK(t.predicted == bound::latency);  // t_fixed 20 us > the 17.4 us memory roof
    // Without the floor and at half the clock the compute term (32.2 us) binds.
    c.floor_s = 0;
    const auto slow = calibrated_kernel_time(k, c, used, 0.75e9, "given");
    CHECK(slow.predicted == bound::compute);
    CHECK(slow.time_s == approx(20e-6 + 384.0 * 2 * 3072 * 4096 / (4e5 * 0.75e9)));
    // Unidentified bandwidth (NaN): the ceilings' DRAM bandwidth (0.9 x 4.8 TB/s) prices bytes.
    c.bytes_per_s = std::nan("");
    CHECK(c.memory_time_s(k, used) == approx(bytes / 4.32e12));
}

TEST_CASE("causal prefill curves add whole diagonal blocks, uniform routing spreads rows over active experts") {
    kernel_curve c;
    c.family = kernel_family::attention_prefill;
    c.causal_block_keys = 128;
    attention_shape s;
    s.heads = 32;
    s.kv_heads = 8;
    s.head_dim = 128;
    s.causal = true;
    const auto w = attention_workload(s, {{2, 1024, 0}}, dtype::bf16);
    const auto k = attention_features(w, peak_key::bf16, 2, 1024, 32, 128, true);
    CHECK(k.family == kernel_family::attention_prefill);
    // 4 d x heads x queries x sequences = 4 x 128 x 32 x 1024 x 2 FLOP per extra key.
    CHECK(k.flops_per_diagonal_key == 4.0 * 128 * 32 * 1024 * 2);
    CHECK(c.effective_flops(k) == approx(w.total_flops() + 128 * k.flops_per_diagonal_key));
    CHECK(attention_features(w, peak_key::bf16, 2, 1, 32, 128, false).family == kernel_family::attention_decode);
    // 4 rows over 3.2 expected active experts: three groups of 1.25 and one of 0.25.
    const auto rows = uniform_group_rows(4, 3.2);
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] == approx(1.25));
    CHECK(rows[3] == approx(0.25));
    CHECK(uniform_group_rows(0, 3).empty());
}

TEST_CASE("under a power limit the clock falls until the modeled power fits") {
    const auto used = achievable(datasheet_ceilings(gpus::h200_sxm()));
    kernel_curve c;
    c.flops_per_clock = 4.5e5;
    c.bytes_per_s = 4e12;
    power_coefficients p;
    p.joules_per_flop.fill(std::nan(""));
    p.static_w = 120;
    p.joules_per_flop[static_cast<std::size_t>(peak_key::bf16)] = 0.75e-12;
    p.joules_per_dram_byte = 120e-12;
    p.reference_clock_hz = 1.41e9;
    p.clock_exponent = 3;
    // A large compute-bound GEMM, F / t = phi f: P(f) = 120 + 0.75e-12 (f / 1.41e9)^2 x 4.5e5 f
    // + 120e-12 x (B / F) x 4.5e5 f, B / F = 3 x 16384^2 x 2 / (2 x 16384^3) = 1.83e-4 B/FLOP
    // (14.8 W at 1.5 GHz). P = 700 W: f^3 = 565.2 x 1.41^2 x 1e18 / 3.375e-7 -> f = 1.494 GHz.
    const auto k = gemm_features(gemm_workload({16384, 16384, 16384}, dtype::bf16, dtype::bf16, dtype::bf16,
                                               peak_key::bf16), peak_key::bf16);
    const double f = power_capped_clock_hz(k, c, used, p, 700, 1.98e9);
    CHECK(f == approx(1.494e9).epsilon(0.002));
    // A copy (no FLOP): no energy coefficient is needed and the clock stays at its maximum.
    CHECK(power_capped_clock_hz(copy_features(1e9), c, used, p, 700, 1.98e9) == 1.98e9);
    CHECK_THROWS_AS(power_capped_clock_hz(k, c, used, p, 0, 1.98e9), usage_error);
}
