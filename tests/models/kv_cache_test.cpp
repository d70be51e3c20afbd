// Tests of models/kv_cache.hpp: KV bytes per token by attention kind, windows and TP sharding.
#include <doctest/doctest.h>

#include <string>

#include "roofline/io/hf_config.hpp"
#include "roofline/models/kv_cache.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::have_sample;
using roofline::test::shared_sample;

namespace {
std::string config_path(const std::string& name) { return shared_sample("model_configs/" + name).string(); }
}  // namespace

TEST_CASE("MLA caches 576 values per token per layer, DSA adds 132-byte indexer keys") {
    const auto ds = config_path("deepseek-ai--DeepSeek-V3_config.json");
    const auto glm = config_path("zai-org--GLM-5_config.json");
    if (!have_sample(ds) || !have_sample(glm)) return;
    const auto c = read_hf_config(ds);
    CHECK(kv_values_per_token_layer(c) == 576);
    // bf16: 576 x 2 = 1,152 B per layer x 61 layers = 70,272 B per token.
    CHECK(kv_bytes_per_token(c, dtype::bf16) == 70272.0);
    CHECK(kv_bytes_per_token(c, dtype::fp8_e4m3) == 576.0 * 61);
    const auto g = read_hf_config(glm);
    // GLM-5 fp8: 576 B latent + 128 FP8 indexer key + 4 B scale = 708 B per layer x 78 = 55,224 B.
    CHECK(kv_bytes_per_token(g, dtype::fp8_e4m3) == 708.0 * 78);
}

TEST_CASE("GQA caches 2 x kv_heads x head_dim, sliding layers cap at the window") {
    const auto path = config_path("openai--gpt-oss-120b_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    // 2 x 8 x 64 = 1,024 values x 2 B = 2,048 B per layer; 36 layers -> 73,728 B per token.
    CHECK(kv_bytes_per_token(c, dtype::bf16) == 73728.0);
    CHECK(kv_bytes_per_token_full_layers(c, dtype::bf16) == 18 * 2048.0);
    // 10,000-token context: 18 full layers x 10,000 + 18 sliding x 128 tokens, x 2,048 B
    // = (180,000 + 2,304) x 2,048 = 373,358,592 B.
    CHECK(kv_bytes_for_context(c, 10000, dtype::bf16) == 373358592.0);
    CHECK(kv_bytes_for_context(c, 100, dtype::bf16) == 100 * 73728.0);
}

TEST_CASE("TP splits GQA KV heads but replicates the MLA latent") {
    model_config mla;
    mla.attention = attention_kind::mla;
    mla.num_layers = 10;
    mla.kv_lora_rank = 512;
    mla.qk_rope_head_dim = 64;
    const auto s = kv_per_gpu(mla, dtype::bf16, 8);
    CHECK(s.replication == 8);
    CHECK(s.bytes_per_token_per_gpu == 10 * 1152.0);  // the whole latent on every rank
    CHECK_FALSE(s.note.empty());

    model_config gqa;
    gqa.num_layers = 10;
    gqa.num_kv_heads = 8;
    gqa.head_dim = 128;
    const auto s8 = kv_per_gpu(gqa, dtype::bf16, 8);
    // 1 head per rank: 2 x 1 x 128 x 2 B x 10 layers = 5,120 B.
    CHECK(s8.bytes_per_token_per_gpu == 5120.0);
    CHECK(s8.replication == 1.0);
    gqa.num_kv_heads = 4;
    const auto s4 = kv_per_gpu(gqa, dtype::bf16, 8);
    CHECK(s4.kv_heads_per_gpu == 1.0);
    CHECK(s4.replication == 2.0);  // 8 ranks hold 4 heads twice
}
