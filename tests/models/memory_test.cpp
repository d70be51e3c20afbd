// Tests of models/memory.hpp: weights per GPU under TP, PP and EP by hand, KV per sequence,
// the activation estimate, and the fit verdicts.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "test_support.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/parameters.hpp"

using namespace roofline;

namespace {
/// The hand-countable dense model (test_support.hpp).
model_config tiny() { return test::tiny_dense_model(); }
parallel_layout layout(int tp, int ep = 1, int dp = 1, int pp = 1) { return {tp, ep, dp, pp}; }
}  // namespace

TEST_CASE("weights per GPU under TP and PP, by hand") {
    const auto c = tiny();
    // Per layer (x 2 B): TP-split q 4096 + o 4096 + gate/up/down 24576 = 32768 params (65,536 B);
    // k + v 2 x 2048 (8,192 B), split by KV heads; norms 2 x 64 (256 B), replicated.
    // Edges: embedding and lm_head 100 x 64 x 2 B = 12,800 B each (split), final norm 128 B.
    const auto w = weight_inventory_of(c);
    CHECK(w.prefix[2].tp_split_bytes == 2 * 65536.0);
    CHECK(w.prefix[2].kv_proj_bytes == 2 * 8192.0);
    CHECK(w.prefix[2].replicated_bytes == 2 * 256.0);
    CHECK(w.prefix[2].routed_bytes == 0.0);
    // TP1: everything, = count_parameters' total: 2 x 73,984 + 12,800 x 2 + 128 = 173,696.
    CHECK(w.bytes_per_gpu(layout(1)) == 173696.0);
    CHECK(w.bytes_per_gpu(layout(1)) == approx(count_parameters(c).total_weight_bytes));
    // TP2: split / 2, one of two KV heads: 2 x (32,768 + 4,096 + 256) + 6,400 + 6,400 + 128 = 87,168.
    CHECK(w.bytes_per_gpu(layout(2)) == 87168.0);
    // TP4: two KV heads over four ranks: each holds one (replicated, share 1/2):
    // 2 x (16,384 + 4,096 + 256) + 3,200 + 3,200 + 128 = 48,000.
    CHECK(w.kv_proj_share(4) == 0.5);
    CHECK(w.bytes_per_gpu(layout(4)) == 48000.0);
    // PP2: stage 0 = layer 0 + embedding = 73,984 + 12,800 = 86,784; stage 1 = layer 1 + lm_head
    // + final norm = 86,912 (the heaviest).
    CHECK(w.stage_bytes_per_gpu(layout(1, 1, 1, 2), 0) == 86784.0);
    CHECK(w.bytes_per_gpu(layout(1, 1, 1, 2)) == 86912.0);
    CHECK(weight_bytes_per_gpu(c, layout(2)) == 87168.0);
}

TEST_CASE("routed experts are divided over tp x dp GPUs, whatever the EP degree") {
    auto c = tiny();
    c.num_experts = 8;
    c.experts_per_token = 2;
    c.moe_intermediate_size = 32;
    // Routed per layer: 8 experts x 3 x 64 x 32 params x 2 B = 98,304 B; router 64 x 8 x 2 B
    // = 1,024 B replicated.
    const auto w = weight_inventory_of(c);
    CHECK(w.prefix[1].routed_bytes == 98304.0);
    const double tp1 = w.bytes_per_gpu(layout(1));
    // DP4 attention + EP4: attention and norms replicated per replica, experts / 4.
    const double dp4 = w.bytes_per_gpu(layout(1, 4, 4));
    CHECK(tp1 - dp4 == approx(2 * 98304.0 * 3 / 4));
    CHECK(w.bytes_per_gpu(layout(1, 1, 4)) == dp4);  // EP does not change the bytes, only their split
}

TEST_CASE("KV per sequence per GPU and the activation estimate, by hand") {
    const auto c = tiny();
    // 2 layers x 2 (K, V) x 2 heads x 16 x 2 B = 256 B per token; 100 tokens -> 25,600 B.
    CHECK(kv_bytes_per_sequence_per_gpu(c, dtype::bf16, layout(1), 100) == 25600.0);
    CHECK(kv_bytes_per_sequence_per_gpu(c, dtype::fp8_e4m3, layout(1), 100) == 12800.0);
    CHECK(kv_bytes_per_sequence_per_gpu(c, dtype::bf16, layout(2), 100) == 12800.0);  // one head per rank
    CHECK(kv_bytes_per_sequence_per_gpu(c, dtype::bf16, layout(2, 1, 1, 2), 100) == 6400.0);
    // 400 tokens, 4 rows, TP1: 2 B x [400 x 4 x 64 + max(3 x 400 x 128, 2 x 400 x 4 x 32)]
    // + 8 B x 4 x 100 = 2 x (102,400 + 153,600) + 3,200 = 515,200 B.
    CHECK(activation_bytes_per_gpu(c, layout(1), 400, 4) == 515200.0);
    // TP2 halves the MLP width and the logits; the hidden-size tensors stay:
    // 2 x (102,400 + 76,800) + 1,600 = 360,000 B.
    CHECK(activation_bytes_per_gpu(c, layout(2), 400, 4) == 360000.0);
}

TEST_CASE("the fit verdict is the first budget that overflows, with the room the KV cache has") {
    // 100 GB at 0.9: 90 GB usable.
    auto m = check_memory(100e9, 95e9, 1e9, 1e9, 10);
    CHECK(m.verdict == memory_verdict::weights);
    m = check_memory(100e9, 80e9, 12e9, 1e9, 10);
    CHECK(m.verdict == memory_verdict::activations);
    CHECK(m.max_sequences == 0);
    m = check_memory(100e9, 60e9, 10e9, 1e9, 25);
    CHECK(m.verdict == memory_verdict::kv_cache);
    CHECK(m.max_sequences == approx(20));
    CHECK(m.kv_bytes == approx(25e9));
    m = check_memory(100e9, 60e9, 10e9, 1e9, 20);
    CHECK(m.fits());
    CHECK(to_string(memory_verdict::kv_cache) == "kv_cache");
}
