// Tests of models/attention.hpp: pair counts (causal, windowed, DSA), FLOP and bytes per
// attention kind, and tile feasibility on SM120 (case C07).
#include <doctest/doctest.h>

#include "approx.hpp"

#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/linear_attention.hpp"

using namespace roofline;

TEST_CASE("causal pair counts, with and without a cap") {
    // Prefill of 4 on an empty cache: 1 + 2 + 3 + 4 = 10 pairs.
    CHECK(attention_pairs({1, 4, 0}, 0, true) == 10);
    // Chunk of 3 after 5 cached: 6 + 7 + 8 = 21.
    CHECK(attention_pairs({1, 3, 5}, 0, true) == 21);
    // Window 7: min(6,7) + 7 + 7 = 20.
    CHECK(attention_pairs({1, 3, 5}, 7, true) == 20);
    // Non-causal decode over 100 cached keys: 1 x 101.
    CHECK(attention_pairs({1, 1, 100}, 0, false) == 101);
    CHECK(capped_range_sum(1, 10, 4) == 1 + 2 + 3 + 4 + 6 * 4);
    CHECK(capped_range_sum(5, 3, 0) == 0);
}

TEST_CASE("GQA prefill FLOP and bytes by hand") {
    attention_shape s;
    s.heads = 32;
    s.kv_heads = 8;
    s.head_dim = 128;
    // One 1024-token causal prefill: 1024 x 1025 / 2 = 524,800 pairs x 32 heads x 4 x 128 FLOP
    // = 8,598,323,200. Bytes: 1024 keys x 4,096 B (2 x 8 x 128 x 2) read + 1024 x 4,096 written
    // + Q and O 1024 x 32 x 256 x 2 B = 4,194,304 + 4,194,304 + 16,777,216 = 25,165,824.
    const auto w = attention_workload(s, {{1, 1024, 0}}, dtype::bf16);
    CHECK(w.flops_at(peak_key::bf16) == 8598323200.0);
    CHECK(w.dram_bytes() == 25165824.0);
    // fp8 KV halves the cache traffic.
    const auto w8 = attention_workload(s, {{1, 1024, 0}}, dtype::fp8_e4m3);
    CHECK(w8.dram_bytes() == 25165824.0 - 4194304.0);
    // Decode is memory-bound on H200: 64 sequences of 4096.
    const auto d = attention_workload(s, {{64, 1, 4096}}, dtype::bf16);
    CHECK(time_lower_bound(d, datasheet_ceilings(gpus::h200_sxm())).predicted == bound::memory);
}

TEST_CASE("MLA absorbed and non-absorbed FLOP per pair") {
    attention_shape s;
    s.kind = attention_kind::mla;
    s.heads = 128;
    s.kv_lora_rank = 512;
    s.qk_nope_head_dim = 128;
    s.qk_rope_head_dim = 64;
    s.v_head_dim = 128;
    // Absorbed: 128 x (2 x 576 + 2 x 512) = 278,528; expanded: 128 x (2 x 192 + 2 x 128) = 81,920.
    CHECK(attention_flops_per_pair(s) == 278528.0);
    s.absorbed = false;
    CHECK(attention_flops_per_pair(s) == 81920.0);
    // Cache: 576 values per token at the KV dtype.
    CHECK(attention_kv_bytes_per_token(s, dtype::fp8_e4m3) == 576.0);
}

TEST_CASE("laws: attention time grows with context, never below a roof") {
    attention_shape s;
    s.heads = 32;
    s.kv_heads = 8;
    s.head_dim = 128;
    const auto c = datasheet_ceilings(gpus::h200_sxm());
    double prev = 0;
    for (double ctx : {128.0, 1024.0, 8192.0, 65536.0}) {
        const auto t = time_lower_bound(attention_workload(s, {{8, 1, ctx}}, dtype::bf16), c);
        CHECK(t.lower_bound_s > prev);
        CHECK(t.lower_bound_s >= std::max(t.compute_s, t.memory_s));
        prev = t.lower_bound_s;
    }
}

TEST_CASE("C07: a 128x64 extend-attention block needs 106,496 B and is rejected on SM120, 64-wide fits") {
    // sgl-project/sglang#17908: Triton extend attention (MLA prefill, Kimi K2 / GLM: d = 128,
    // rope d_pe = 64, d_v = 128) with the Hopper-sized 128 x 64 block:
    // Q 128 x 128 x 2 = 32,768; Q_pe 128 x 64 x 2 = 16,384; K 64 x 128 x 2 = 16,384;
    // K_pe 64 x 64 x 2 = 8,192; V 64 x 128 x 2 = 16,384; P 128 x 64 x 2 = 16,384 -> 106,496 B.
    const double sm120_block = 101376;  // HARDWARE.md section 0
    const auto f = attention_tile_fits({128, 64, 1}, 128, 64, 128, sm120_block);
    CHECK(f.smem_bytes == 106496.0);
    CHECK_FALSE(f.fits);
    CHECK(f.reason.find("106496") != std::string::npos);
    // It fits Hopper's 232,448 B.
    CHECK(attention_tile_fits({128, 64, 1}, 128, 64, 128, 232448).fits);
    // The prefill kernel's 128 x 128 block (d = d_v = 128): 4 x 32,768 = 131,072 B (sglang#27962).
    CHECK(attention_tile_fits({128, 128, 1}, 128, 0, 128, sm120_block).smem_bytes == 131072.0);
    // Repriced: the first tile that fits SM120 is 64 x 64: 16,384 + 8,192 + 16,384 + 8,192 +
    // 16,384 + 8,192 = 73,728 B.
    std::vector<attention_tile_feasibility> rejected;
    const auto chosen = choose_attention_tile(128, 64, 128, sm120_block, &rejected);
    CHECK(chosen.tile.block_m == 64);
    CHECK(chosen.tile.block_n == 64);
    CHECK(chosen.smem_bytes == 73728.0);
    REQUIRE(rejected.size() == 2);
    CHECK(rejected[1].smem_bytes == 106496.0);
    // The smaller query tile costs K/V re-reads from L2: twice the tiles of 128.
    attention_shape s;
    s.heads = 16;
    s.head_dim = 128;
    const sequence_group prompt{1, 8192, 0};
    CHECK(attention_tile_kv_reads(s, prompt, 64) > 1.9 * attention_tile_kv_reads(s, prompt, 128));
}

TEST_CASE("Gated DeltaNet: decode reads and writes each sequence's state, prefill adds the chunk's intra-block work") {
    // Qwen3.5-shaped layer on one GPU of TP4: 4 key heads and 16 value heads of 128, conv 4.
    linear_attention_shape s;
    s.key_heads = 4;
    s.value_heads = 16;
    s.key_head_dim = 128;
    s.value_head_dim = 128;
    s.conv_kernel = 4;
    // conv_dim = 2 x 512 + 2048 = 3072; state 16 x 128 x 128 x 4 B = 1,048,576 B; conv inputs
    // 3 x 3072 x 2 B = 18,432 B.
    CHECK(s.conv_dim() == 3072);
    CHECK(s.state_bytes() == 1048576.0 + 18432.0);
    // Decode of 8 sequences: per token 16 x 6 x 128 x 128 + 2 x 3072 x 4 FLOP; bytes 2 x state per
    // sequence + per token (3 x 3072 + 2048 + 32) x 2 B.
    const auto d = linear_attention_workload(s, {{8, 1, 4000}});
    CHECK(d.flops_at(peak_key::bf16) == approx(8 * (16.0 * 6 * 128 * 128 + 2.0 * 3072 * 4)));
    CHECK(d.bytes_at(memory_level::dram) == approx(8 * (2 * 1067008.0 + (3 * 3072 + 2048 + 32) * 2.0)));
    CHECK(d.launches == 2);
    // The context does not matter (no KV cache): 4,000 or 40 cached tokens cost the same.
    CHECK(linear_attention_workload(s, {{8, 1, 40}}).bytes_at(memory_level::dram) == d.bytes_at(memory_level::dram));
    // A 1,024-token prefill chunk: blocks of 64 add 2 x 64 x (128 + 128) per token per value head.
    const auto p = linear_attention_workload(s, {{1, 1024, 0}});
    CHECK(p.flops_at(peak_key::bf16) ==
          approx(1024 * (16.0 * (6 * 128 * 128 + 2 * 64 * 256) + 2.0 * 3072 * 4)));
}
