// Tests of models/transformer.hpp: one serving step's phases against hand calculations, the
// mixed prefill+decode case C14, MoE active experts, TP communication, sliding windows, DSA,
// and NVFP4 on Hopper.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "roofline/core/catalog.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/transformer.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::have_sample;
using roofline::test::shared_sample;

namespace {

std::string config_path(const std::string& name) { return shared_sample("model_configs/" + name).string(); }

/// The hand-countable dense model (test_support.hpp).
model_config tiny_dense() { return test::tiny_dense_model(); }

bool has_note(const step_model& s, const std::string& needle) {
    return std::any_of(s.notes.begin(), s.notes.end(),
                       [&](const std::string& n) { return n.find(needle) != std::string::npos; });
}

}  // namespace

TEST_CASE("a tiny dense decode step: GEMM and attention work as worked by hand") {
    const auto c = tiny_dense();
    const auto g = gpus::h200_sxm();
    // Two sequences decoding one token each with 10 tokens cached.
    const auto s = model_step(c, step_batch::decode(2, 10), {}, g);
    REQUIRE(s.layers.size() == 2);
    const auto& l = s.layers[0];
    // dense_gemm: 2 tokens x 36,864 weights (q 4096, k 2048, v 2048, o 4096, MLP 3 x 8192) x 2
    // = 147,456 bf16 FLOP. Bytes: weights 73,728 + activations: q (64 + 64), k (64 + 32),
    // v (64 + 32), o (64 + 64), gate (64 + 128), up (64 + 128), down (128 + 64) = 1,024 values
    // x 2 tokens x 2 B = 4,096 -> 77,824 B.
    CHECK(l.at(step_phase::dense_gemm).flops_at(peak_key::bf16) == 147456.0);
    CHECK(l.at(step_phase::dense_gemm).dram_bytes() == 77824.0);
    CHECK(l.at(step_phase::dense_gemm).launches == 7);
    // attention: each query sees 11 keys; 4 heads x (2 x 16 + 2 x 16) = 256 FLOP per pair
    // -> 2 x 11 x 256 = 5,632. Bytes per sequence: 11 cached+new keys x 128 B (2 x 2 heads x 16
    // x 2 B) = 1,408, new K/V 128, Q and O 4 x 32 x 2 = 256 -> 1,792; x 2 = 3,584.
    CHECK(l.at(step_phase::attention).flops_at(peak_key::bf16) == 5632.0);
    CHECK(l.at(step_phase::attention).dram_bytes() == 3584.0);
    // No TP: no communication inside the layers.
    CHECK(l.at(step_phase::communication).link_bytes == 0.0);
    CHECK(l.at(step_phase::moe_gemm).total_flops() == 0.0);
    // lm_head on the 2 sampled rows: 2 x 2 x 64 x 100 = 25,600 FLOP; sampling 3 x 2 x 100 x 4 B.
    CHECK(s.extras[static_cast<std::size_t>(step_phase::dense_gemm)].flops_at(peak_key::bf16) == 25600.0);
    CHECK(s.total(step_phase::sampling).dram_bytes() == 2400.0);
    // Totals are the layers plus the extras.
    CHECK(s.total(step_phase::dense_gemm).flops_at(peak_key::bf16) == 2 * 147456.0 + 25600.0);
}

TEST_CASE("C14: a mixed prefill+decode step reads the weights once and costs about the max") {
    const auto path = config_path("meta-llama--Meta-Llama-3.1-70B_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    const auto g = gpus::h200_sxm();
    const auto ceil = datasheet_ceilings(g);
    // vLLM on H200 (aiconfigurator#1150): ISL 2048 prefill of one request next to 4 decodes.
    const auto decode = step_batch::decode(4, 2048);
    const auto prefill = step_batch::prefill(1, 2048);
    auto mixed = step_batch::decode(4, 2048);
    mixed.add_prefill(1, 2048);
    const auto sd = model_step(c, decode, {}, g), sp = model_step(c, prefill, {}, g), sm = model_step(c, mixed, {}, g);
    // Weight bytes appear once: the mixed step's GEMM bytes are far below the two steps' sum
    // (both carry the full 141 GB of bf16 weights).
    const double wd = sd.total(step_phase::dense_gemm).dram_bytes();
    const double wp = sp.total(step_phase::dense_gemm).dram_bytes();
    const double wm = sm.total(step_phase::dense_gemm).dram_bytes();
    CHECK(wm < 0.6 * (wd + wp));
    CHECK(wm >= std::max(wd, wp));
    // GEMM FLOP add up: 2052 tokens' worth.
    CHECK(sm.total(step_phase::dense_gemm).flops_at(peak_key::bf16) ==
          approx(sd.total(step_phase::dense_gemm).flops_at(peak_key::bf16) +
                          sp.total(step_phase::dense_gemm).flops_at(peak_key::bf16)));
    const double td = price_step(sd, ceil).lower_bound_s;
    const double tp = price_step(sp, ceil).lower_bound_s;
    const double tm = price_step(sm, ceil).lower_bound_s;
    // Decode alone: ~141 GB / 4.8 TB/s = 29 ms; prefill alone: ~2 x 2048 x 70.6e9 / 989e12 = 292 ms.
    CHECK(td == approx(0.0294).epsilon(0.05));
    CHECK(tp == approx(0.292).epsilon(0.05));
    // Mixed ~ max(prefill, decode), well below the sum the per-op planner predicted.
    CHECK(tm >= std::max(td, tp));
    CHECK(tm <= 1.02 * std::max(td, tp));
    CHECK(tm < 0.93 * (td + tp));
}

TEST_CASE("MoE decode reads every expert the batch touches: E (1 - (1 - k/E)^T)") {
    const auto path = config_path("deepseek-ai--DeepSeek-V3_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    const auto g = gpus::h200_sxm();
    parallel_layout tp8;
    tp8.tp = 8;
    const auto one = model_step(c, step_batch::decode(1, 1000), tp8, g);
    const auto& moe1 = one.layers[3].at(step_phase::moe_gemm);  // layer 3 is the first MoE layer
    // One token: 8 experts active; FP8 expert = 44,040,192 x (1 + 32/16384/8) B, split over 8 ranks.
    const double expert_bytes = 44040192.0 * (1.0 + 4.0 / 16384.0);
    const double routed_weight_bytes = 8 * expert_bytes / 8;
    // Shared expert (1/8 of 44,040,192 FP8 weights) and router (256 x 7168 bf16 + 256 bias) too.
    const double shared = expert_bytes / 8;
    const double router = 256.0 * 7168 * 2 + 256 * 2;
    // Activations: router input 7168 x 2 B and FP32 logits 256 x 4 B; shared expert gate/up read
    // 7168 and write 256, down reads 256 and writes 7168 (x 2 B) = 44,544; routed: 8 pairs x
    // (2 x 7168 + 3 x 2048 / 8) x 2 B = 241,664. Sum 301,568 B.
    const double acts = 14336.0 + 1024 + 44544 + 241664;
    CHECK(moe1.dram_bytes() == approx(routed_weight_bytes + shared + router + acts));
    // 256 tokens: 256 (1 - (31/32)^256) = 255.93 experts active -> ~32x the bytes of one token.
    const auto many = model_step(c, step_batch::decode(256, 1000), tp8, g);
    const double routed256 = many.layers[3].at(step_phase::moe_gemm).dram_bytes();
    CHECK(expected_active_experts(256, 8, 256) == approx(255.925).epsilon(1e-4));
    CHECK(routed256 > 28 * routed_weight_bytes);
    // FP8 experts on Hopper run at the FP8 rate: 2 x 256 x 8 x 3 x 7168 x 2048 / 8 FLOP per GPU.
    CHECK(many.layers[3].at(step_phase::moe_gemm).flops_at(peak_key::fp8) ==
          approx(2.0 * 256 * 8 * 3 * 7168 * 2048 / 8 + 2.0 * 256 * 3 * 7168 * 2048 / 8));
}

TEST_CASE("TP adds two all-reduces of tokens x hidden x 2 B per layer") {
    const auto c = tiny_dense();
    const auto g = gpus::h200_sxm();
    parallel_layout tp4;
    tp4.tp = 4;
    const auto s = model_step(c, step_batch::decode(8, 100), tp4, g);
    // Message: 8 tokens x 64 x 2 B = 1,024 B; the fastest NVLink algorithm for it, twice.
    const auto link = default_link_params(g, link_kind::nvlink);
    const auto ar = best_collective(collective_op::all_reduce, 1024, 4, link);
    const auto& comm = s.layers[0].at(step_phase::communication);
    CHECK(comm.link_bytes == approx(2 * ar.link_bytes));
    CHECK(comm.latency_s == approx(2 * ar.latency_s));
    CHECK(comm.launches == 2);
    // Heads split 4 ways: attention FLOP per GPU are a quarter of TP1's.
    const auto s1 = model_step(c, step_batch::decode(8, 100), {}, g);
    CHECK(s.layers[0].at(step_phase::attention).flops_at(peak_key::bf16) ==
          approx(s1.layers[0].at(step_phase::attention).flops_at(peak_key::bf16) / 4));
}

TEST_CASE("MLA under TP: every rank reads the whole latent cache") {
    const auto path = config_path("deepseek-ai--DeepSeek-V3_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    const auto g = gpus::h200_sxm();
    parallel_layout tp8;
    tp8.tp = 8;
    step_options o;
    o.kv_cache = dtype::bf16;
    const auto s = model_step(c, step_batch::decode(1, 10000), tp8, g, o);
    // 10,001 tokens x 576 x 2 B latent read + 1 new token written + Q (16 heads x 576) and
    // O (16 x 512) in bf16.
    const double expect = 10001.0 * 1152 + 1152 + 16.0 * (576 + 512) * 2;
    CHECK(s.layers[0].at(step_phase::attention).dram_bytes() == approx(expect));
    CHECK(has_note(s, "replicated"));
}

TEST_CASE("gpt-oss sliding layers read at most the window") {
    const auto path = config_path("openai--gpt-oss-120b_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    const auto s = model_step(c, step_batch::decode(1, 10000), {}, gpus::h200_sxm());
    const double sliding = s.layers[0].at(step_phase::attention).dram_bytes();
    const double full = s.layers[1].at(step_phase::attention).dram_bytes();
    // Sliding: 128 keys x 2,048 B (+ new K/V + Q/O); full: 10,001 keys.
    CHECK(sliding == approx(128.0 * 2048 + 2048 + 64.0 * 128 * 2));
    CHECK(full == approx(10001.0 * 2048 + 2048 + 64.0 * 128 * 2));
    // MXFP4 experts with BF16 activations on Hopper: W4A16 at the BF16 rate.
    CHECK(s.layers[0].at(step_phase::moe_gemm).flops_at(peak_key::bf16) > 0);
    CHECK(has_note(s, "W4A16"));
}

TEST_CASE("DSA: the indexer scans the whole context, the attention only top-k tokens") {
    const auto cfg = config_path("zai-org--GLM-5_config.json");
    const auto quant = config_path("nvidia--GLM-5-NVFP4_hf_quant_config.json");
    if (!have_sample(cfg) || !have_sample(quant)) return;
    auto c = read_hf_config(cfg);
    apply_hf_quant_config(c, quant);
    const auto g = gpus::h200_sxm();
    const auto s = model_step(c, step_batch::decode(1, 100000), {}, g);
    const auto& att = s.layers[5].at(step_phase::attention);
    // Main attention (fp8 KV): 2,048 selected latents x 576 B + new 576; Q 64 x 576 and
    // O 64 x 512 bf16. Indexer: 100,001 keys x 132 B + new 132 + FP8 queries 32 x 128 +
    // 2,048 int32 indices.
    const double main = 2048.0 * 576 + 576 + 64.0 * (576 + 512) * 2;
    const double index = 100001.0 * 132 + 132 + 32.0 * 128 + 2048 * 4;
    CHECK(att.dram_bytes() == approx(main + index));
    // Indexer FLOP in FP8: 100,001 keys x 2 x 32 x 128.
    CHECK(att.flops_at(peak_key::fp8) == approx(100001.0 * 2 * 32 * 128));
    // NVFP4 has no tensor-core path on Hopper: the experts fall back to BF16, and we say so.
    CHECK(s.layers[5].at(step_phase::moe_gemm).flops_at(peak_key::fp4) == 0.0);
    CHECK(s.layers[5].at(step_phase::moe_gemm).flops_at(peak_key::bf16) > 0.0);
    CHECK(has_note(s, "falls back"));
    // The step still prices on H200 datasheet ceilings.
    CHECK(price_step(s, datasheet_ceilings(g)).lower_bound_s > 0.0);
}

TEST_CASE("NVFP4 experts run at the FP4 rate on a GPU that has FP4 tensor cores") {
    auto c = tiny_dense();
    c.num_experts = 8;
    c.experts_per_token = 2;
    c.moe_intermediate_size = 32;
    c.quant.method = "nvfp4";
    c.quant.weights = c.quant.activations = dtype::nvfp4;
    // A spec with FP4 support (facts only the step model reads; not a catalog entry).
    auto g = gpus::h200_sxm();
    g.id = "test-fp4";
    g.peak(peak_key::fp4).supported = true;
    g.peak(peak_key::fp4).dense_flops_per_s = cited(9e15, "test");
    const auto s = model_step(c, step_batch::decode(4, 10), {}, g);
    // 4 tokens x 2 experts x 3 x 64 x 32 MACs x 2 = 98,304 FP4 FLOP per layer.
    CHECK(s.layers[0].at(step_phase::moe_gemm).flops_at(peak_key::fp4) == 98304.0);
    CHECK_FALSE(has_note(s, "falls back"));
}

TEST_CASE("EP with DP attention: all-to-all dispatch and combine replace the MoE all-reduce") {
    auto c = tiny_dense();
    c.num_experts = 8;
    c.experts_per_token = 2;
    c.moe_intermediate_size = 32;
    parallel_layout l;
    l.tp = 1;
    l.dp = 4;
    l.ep = 4;
    const auto g = gpus::h200_sxm();
    const auto s = model_step(c, step_batch::decode(16, 10), l, g);
    // 4 tokens per replica x 2 experts x 64 x 2 B = 1,024 B dispatched and combined each.
    const auto link = default_link_params(g, link_kind::nvlink);
    const auto a2a = best_collective(collective_op::all_to_all, 1024, 4, link);
    CHECK(s.layers[0].at(step_phase::communication).link_bytes == approx(2 * a2a.link_bytes));
    // Every GPU holds 2 of the 8 experts, gets 16 x 2 / 4 = 8 pairs.
    CHECK(s.layers[0].at(step_phase::moe_gemm).flops_at(peak_key::bf16) ==
          approx(2.0 * 8 * 3 * 64 * 32 + 2.0 * 4 * 64 * 8));  // experts + router
    CHECK_THROWS_AS(model_step(c, step_batch::decode(1, 1), parallel_layout{1, 3, 1, 1}, g), usage_error);
}

TEST_CASE("laws: a step's lower bound grows with context and batch, never below any roof") {
    const auto c = tiny_dense();
    const auto g = gpus::h200_sxm();
    const auto ceil = datasheet_ceilings(g);
    double prev = 0;
    for (double ctx : {0.0, 100.0, 1000.0, 10000.0, 100000.0}) {
        const auto t = price_step(model_step(c, step_batch::decode(8, ctx), {}, g), ceil);
        CHECK(t.lower_bound_s > prev);
        prev = t.lower_bound_s;
        for (auto p : all_step_phases) {
            const auto& pt = t.at(p);
            CHECK(pt.lower_bound_s >= std::max({pt.compute_s, pt.memory_s, pt.link_s}) * (1 - 1e-12));
        }
    }
    prev = 0;
    for (double b : {1.0, 4.0, 16.0, 64.0, 256.0}) {
        const auto t = price_step(model_step(c, step_batch::decode(b, 1000), {}, g), ceil);
        CHECK(t.lower_bound_s > prev);
        prev = t.lower_bound_s;
    }
    CHECK_THROWS_AS(model_step(c, step_batch{}, {}, g), usage_error);
}

TEST_CASE("C02: TP2 decode on 2x RTX 5090 is communication/latency-bound, P2P halves the AR cost") {
    // noonghunna/club-3090#873: Qwen3.6-35B-A3B NVFP4, TP2, FP8 KV; decode 223 -> 288 tok/s when a
    // patched driver enables P2P. Qwen3-30B-A3B (same A3B MoE shape class, 48 layers) stands in.
    const auto path = config_path("Qwen--Qwen3-30B-A3B_config.json");
    if (!have_sample(path)) return;
    auto c = read_hf_config(path);
    c.quant.method = "nvfp4";
    c.quant.weights = c.quant.activations = dtype::nvfp4;
    c.quant.exclude_patterns = {"lm_head"};
    c.quant.kv_cache = dtype::fp8_e4m3;
    const auto g = gpus::rtx_5090();
    parallel_layout tp2;
    tp2.tp = 2;
    step_options p2p, host;
    p2p.link = link_kind::pcie;
    host.link = link_kind::pcie_no_p2p;
    const auto t_p2p = price_step(model_step(c, step_batch::decode(1, 1000), tp2, g, p2p),
                                  datasheet_ceilings(g, link_kind::pcie));
    const auto t_host = price_step(model_step(c, step_batch::decode(1, 1000), tp2, g, host),
                                   datasheet_ceilings(g, link_kind::pcie_no_p2p));
    // Memory roofline: the weights and KV one token reads per GPU at 1.79 TB/s, ~0.6 ms, i.e.
    // ~1,600 tok/s (CASES.md: "~2,000 tok/s" from ~0.85 GB per GPU).
    double memory_s = 0;
    for (auto ph : all_step_phases) memory_s += t_host.at(ph).memory_s;
    CHECK(1.0 / memory_s > 1300);
    CHECK(1.0 / memory_s < 2500);
    // 96 all-reduces per step: NCCL through the host (ring, 2 x 2.96 + 3.6 us each) against the
    // one-shot P2P kernel (1.0 + 3.6 us): the communication phase roughly halves.
    CHECK(t_host.dominant() == step_phase::communication);
    CHECK(t_host.at(step_phase::communication).lower_bound_s > 1.5 * t_p2p.at(step_phase::communication).lower_bound_s);
    CHECK(t_host.at(step_phase::communication).lower_bound_s > memory_s);
    CHECK(t_host.at(step_phase::communication).predicted == bound::latency);
    // The step speeds up by more than the +29% the report measured (our floor has no other overheads).
    CHECK(t_host.lower_bound_s / t_p2p.lower_bound_s > 1.29);
}

TEST_CASE("C05: 72 FP8 MoE decodes on one RTX PRO 6000 Server: the roofline is far above 150-165 tok/s") {
    // vllm-project/vllm#44688: Qwen3.6-35B-A3B-FP8 (256 experts, top-8), 72 agents, 7-25k-token
    // prompts, FP8 KV: ~150-165 tok/s aggregate decode. With 72 decodes, 256 (1 - (248/256)^72)
    // = 230 experts (90%) are touched per step.
    CHECK(expected_active_experts(256, 8, 72) / 256 == approx(0.898).epsilon(0.002));
    const auto path = config_path("Qwen--Qwen3-30B-A3B_config.json");  // stand-in: 128 experts, top-8
    if (!have_sample(path)) return;
    auto c = read_hf_config(path);
    c.quant.method = "fp8";
    c.quant.weights = c.quant.activations = dtype::fp8_e4m3;
    c.quant.exclude_patterns = {"lm_head"};
    c.quant.kv_cache = dtype::fp8_e4m3;
    const auto g = gpus::rtx_pro_6000_server();
    const auto s = model_step(c, step_batch::decode(72, 15000), {}, g);
    const auto t = price_step(s, datasheet_ceilings(g));
    // Every phase is memory-bound (weights of ~all experts plus 72 x 15k tokens of FP8 KV), and
    // the step's roofline allows >1,000 tok/s: 160 tok/s is <15% MBU, far below every roof.
    const double roofline_tok_s = 72 / t.lower_bound_s;
    CHECK(roofline_tok_s > 1000);
    CHECK(160 / roofline_tok_s < 0.15);
    CHECK(t.at(step_phase::moe_gemm).predicted == bound::memory);
    CHECK(t.at(step_phase::attention).predicted == bound::memory);
}

TEST_CASE("a GPU without BF16 units prices a 16-bit model's step at its FP16 rate, with a note") {
    // V100: no BF16 tensor cores, 125 TFLOP/s FP16 (datasheet). The step's 16-bit work must land
    // on the FP16 roof (engines serve such models in FP16), not be left out of the roofs; the
    // FLOP are the same as on an H100, only the rate they are priced at moves.
    const auto c = tiny_dense();
    parallel_layout tp2;
    tp2.tp = 2;
    const auto v100 = gpus::v100_sxm2(32);
    const auto s = model_step(c, step_batch::decode(8, 1024), tp2, v100);
    const auto h = model_step(c, step_batch::decode(8, 1024), tp2, gpus::h100_sxm());
    CHECK(s.total().flops_at(peak_key::bf16) == 0.0);
    CHECK(s.total().flops_at(peak_key::fp16) == approx(h.total().flops_at(peak_key::bf16)));
    bool noted = false;
    for (const auto& n : s.notes) noted = noted || n.find("has no bf16 units: bf16 work is priced at its fp16 rate") != std::string::npos;
    CHECK(noted);
    CHECK(step_unpriced(price_step(s, datasheet_ceilings(v100))).fully_priced());
}

TEST_CASE("every catalog GPU prices a GEMM, a decode step and a collective without an exception") {
    // A missing ceiling never aborts: work it cannot price is left out and recorded. Hand check
    // on GB10 (BF16 unknown): a bf16 GEMM of 2 x 4096 x 4096 x 4096 = 137.4 GFLOP is unpriced,
    // and its 3 x 4096^2 x 2 B = 100.7 MB of DRAM traffic take 100.7 MB / 273 GB/s = 368.7 us.
    const auto c = tiny_dense();
    int unpriced_gpus = 0;
    for (const auto& g : gpu_catalog::builtin().all()) {
        INFO(g.id);
        const ceilings ceil = datasheet_ceilings(g);
        roof_times gemm;
        CHECK_NOTHROW(gemm = time_lower_bound(
                          gemm_workload({4096, 4096, 4096}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16), ceil));
        CHECK(gemm.lower_bound_s > 0.0);
        CHECK(std::isfinite(gemm.lower_bound_s));
        if (!gemm.fully_priced()) {
            ++unpriced_gpus;
            CHECK(gemm.unpriced_flops[static_cast<std::size_t>(peak_key::bf16)] == approx(2.0 * 4096 * 4096 * 4096));
            CHECK(unpriced_summary(gemm, ceil).find("bf16") != std::string::npos);
        }
        parallel_layout tp2;
        tp2.tp = 2;
        step_time step;
        CHECK_NOTHROW(step = price_step(model_step(c, step_batch::decode(8, 1024), tp2, g), ceil));
        CHECK(step.lower_bound_s > 0.0);
        CHECK(std::isfinite(step.lower_bound_s));
        const link_params link = link_params_or_unpriced(g, g.default_link());
        collective_cost ar;
        CHECK_NOTHROW(ar = best_collective(collective_op::all_reduce, 1 << 20, 8, link));
        CHECK(ar.time_s > 0.0);
        CHECK(std::isfinite(ar.time_s));
        if (!link.known()) CHECK(ar.bandwidth_s == 0.0);
    }
    // V100 (x4, no BF16 units), GB10 and Jetson Thor (BF16 unknown), RTX 5080 has BF16: 6.
    CHECK(unpriced_gpus == 6);
    const auto gb10 = gpus::gb10();
    const auto t = time_lower_bound(gemm_workload({4096, 4096, 4096}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16),
                                    datasheet_ceilings(gb10));
    CHECK(t.compute_s == 0.0);
    CHECK(t.lower_bound_s == approx(3.0 * 4096 * 4096 * 2 / 273e9));
    CHECK(t.predicted == bound::memory);
    CHECK(unpriced_summary(t, datasheet_ceilings(gb10)) == "bf16 ceiling unknown (137.4 GFLOP left out)");
    CHECK(unpriced_summary(t, datasheet_ceilings(gpus::v100_sxm2(32))) == "this GPU has no bf16 units (137.4 GFLOP left out)");
}
