// Tests of models/moe.hpp: active experts, routing (uniform, Zipf, histogram), grouped GEMM
// FLOP and bytes, EP imbalance and all-to-all bytes, and case C08 (NVFP4 grouped GEMM on B200).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <numeric>

#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/units.hpp"
#include "roofline/models/moe.hpp"

using namespace roofline;
using namespace roofline::units;

TEST_CASE("expected active experts: E (1 - (1 - k/E)^T)") {
    CHECK(expected_active_experts(256, 8, 1) == approx(8));
    // 256 (1 - (31/32)^16) = 256 x 0.3982 = 101.9
    CHECK(expected_active_experts(256, 8, 16) == approx(256 * (1 - std::pow(31.0 / 32, 16))));
    CHECK(expected_active_experts(256, 8, 256) == approx(255.925).epsilon(1e-4));
    CHECK(expected_active_experts(128, 8, 0) == 0.0);
    CHECK_THROWS_AS(expected_active_experts(8, 16, 1), usage_error);
}

TEST_CASE("routing parses uniform and zipf:S, and rejects the rest") {
    CHECK(parse_routing("uniform").type == moe_routing::kind::uniform);
    const auto z = parse_routing("zipf:1.2");
    CHECK(z.type == moe_routing::kind::zipf);
    CHECK(z.zipf_s == 1.2);
    CHECK_THROWS_AS(parse_routing("zipf:"), usage_error);
    CHECK_THROWS_AS(parse_routing("zipf:-1"), usage_error);
    CHECK_THROWS_AS(parse_routing("random"), usage_error);
}

TEST_CASE("Zipf routing is sampled reproducibly and concentrates the load") {
    const auto r = parse_routing("zipf:1.0");
    const auto a = tokens_per_expert(64, 128, 8, r), b = tokens_per_expert(64, 128, 8, r);
    CHECK(a == b);  // fixed seed
    CHECK(std::accumulate(a.begin(), a.end(), 0.0) == 64.0 * 8);
    // Expert 0 (weight 1) gets more than the uniform share of 4 tokens; fewer experts are active.
    CHECK(a[0] > 4.0 * 2);
    double active = 0;
    for (double t : a) active += t > 0;
    CHECK(active < expected_active_experts(128, 8, 64));
    // A stronger skew concentrates more.
    const auto steep = tokens_per_expert(64, 128, 8, parse_routing("zipf:2.0"));
    CHECK(*std::max_element(steep.begin(), steep.end()) >= *std::max_element(a.begin(), a.end()));
}

TEST_CASE("a uniform MoE layer: FLOP, active-expert weight bytes, intensity, by hand") {
    moe_problem p;
    p.tokens = 16;
    p.experts = 256;
    p.topk = 8;
    p.hidden = 7168;
    p.inter = 2048;
    p.weights = dtype::nvfp4;
    p.activations = dtype::nvfp4;
    const auto r = moe_layer(p, gpus::h200_sxm());
    // 16 x 8 = 128 pairs: gate_up 2 x 128 x 7168 x 4096, down 2 x 128 x 2048 x 7168.
    CHECK(r.flops_gate_up == 2.0 * 128 * 7168 * 4096);
    CHECK(r.flops_down == 2.0 * 128 * 2048 * 7168);
    // One expert: 3 x 7168 x 2048 x 0.5625 B = 24,772,608 B; 101.94 active experts.
    CHECK(r.active_experts == approx(expected_active_experts(256, 8, 16)));
    CHECK(r.weight_bytes == approx(r.active_experts * 24772608.0));
    CHECK(r.mean_tokens_per_expert == 0.5);
    CHECK(r.imbalance == approx(1.0));
    // Per-expert AI with 0.5 tokens: 6 x 0.5 x 7168 x 2048 / (24,772,608 + 0.5 x (14,336 + 6,144) x 0.5625).
    CHECK(r.expert_intensity[0] == approx(6 * 0.5 * 7168.0 * 2048 / (24772608.0 + 0.5 * 20480 * 0.5625)));
    // NVFP4 on Hopper: BF16 compute path, flagged.
    CHECK(r.path.peak == peak_key::bf16);
    CHECK_FALSE(r.path.native);
}

TEST_CASE("EP: the busiest rank sets the time, all-to-all bytes by hand") {
    moe_problem p;
    p.tokens = 70;
    p.experts = 8;
    p.topk = 2;
    p.hidden = 64;
    p.inter = 32;
    p.ep = 2;
    p.routing.type = moe_routing::kind::histogram;
    p.routing.histogram = {100, 0, 0, 0, 10, 10, 10, 10};  // 140 = 70 tokens x 2
    const auto r = moe_layer(p, gpus::h200_sxm());
    // Ranks hold experts 0-3 (100 tokens) and 4-7 (40); mean 70 -> rank imbalance 100 / 70.
    CHECK(r.rank_imbalance == approx(100.0 / 70));
    CHECK(r.imbalance == approx(100.0 / 17.5));  // max 100 over mean 140 / 8
    CHECK(r.active_experts == 5);
    // Busiest rank: 100 pairs x 6 x 64 x 32 FLOP; 1 active expert of 3 x 64 x 32 x 2 B.
    CHECK(r.flops_gate_up + r.flops_down == 6.0 * 100 * 64 * 32);
    CHECK(r.weight_bytes == 3.0 * 64 * 32 * 2);
    // Dispatch + combine: 35 own tokens x 2 x 64 x 1/2 off-GPU x (2 + 2) B = 8,960 B.
    CHECK(r.all_to_all_bytes == 35.0 * 2 * 64 * 0.5 * 4);
    CHECK(r.work.link_bytes == r.all_to_all_bytes);
    p.ep = 3;
    CHECK_THROWS_AS(moe_layer(p, gpus::h200_sxm()), usage_error);
}

TEST_CASE("C08: NVFP4 grouped GEMM m=16 x 32 groups, n 2048, k 7168 on B200 is memory-bound near 34 us") {
    // NVIDIA/cutlass#2266 (CUTLASS ex. 75): ~3 TB/s, ~4 TB/s after retiling.
    // B200 facts: 7.67 TB/s (7680-bit bus at 3996 MHz, pytorch/ao#4002), 9 PFLOP/s dense FP4.
    gpu_spec b200;
    b200.id = "test-b200";
    b200.memory_bandwidth_bytes_per_s = cited(tb_per_s(7.67), "C10");
    b200.peak(peak_key::fp4).dense_flops_per_s = cited(pflops(9), "HARDWARE.md 2");
    b200.nvlink_bandwidth_bytes_per_s = cited(tb_per_s(1.8), "HARDWARE.md 2");
    const auto c = datasheet_ceilings(b200);
    const std::vector<double> m(32, 16.0);
    const auto w = grouped_gemm_workload(m, 2048, 7168, dtype::nvfp4, dtype::nvfp4, dtype::bf16, peak_key::fp4);
    // Weights 32 x 2048 x 7168 x 0.5625 = 264,241,152 B ("~264 MB incl. scales"); activations
    // 512 x 7168 x 0.5625 = 2,064,384 in, 512 x 2048 x 2 = 2,097,152 out.
    const double weights = 264241152.0;
    CHECK(w.dram_bytes() == weights + 2064384.0 + 2097152.0);
    CHECK(w.flops_at(peak_key::fp4) == 2.0 * 512 * 2048 * 7168);
    // AI: 1.5032e10 / 264.2 MB = 56.9 on weights alone ("~57"), 56.0 with activations.
    CHECK(w.flops_at(peak_key::fp4) / weights == approx(56.89).epsilon(1e-3));
    const auto t = time_lower_bound(w, c);
    CHECK(t.predicted == bound::memory);
    // Floor: 264.2 MB / 7.67 TB/s = 34.5 us (35.0 us with activations).
    CHECK(weights / 7.67e12 == approx(34.45e-6).epsilon(1e-3));
    CHECK(t.lower_bound_s == approx(35.0e-6).epsilon(0.005));
    // Far left of the FP4 ridge (9e15 / 7.67e12 = 1,173 FLOP/B).
    CHECK(ridge_point(c, peak_key::fp4) == approx(1173.4).epsilon(1e-3));
    // The measured ~66-88 us is 40-53% of the DRAM roof.
    CHECK(t.lower_bound_s / 88e-6 == approx(0.40).epsilon(0.02));
}
