// Tests of models/capacity.hpp: Little's law, KV capacity, prefill-rate limit, and case C13.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>

#include "roofline/core/catalog.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/capacity.hpp"
#include "test_support.hpp"

using namespace roofline;

TEST_CASE("Little's law and the prefill-rate limit, by hand") {
    // 1,000 tok/s out at 20 tok/s per user: 50 streams.
    CHECK(implied_concurrent_streams(1000, 20) == 50);
    // 40,000 prefill tok/s at ISL 8,000: 5 new streams/s, each living 1,000 / 20 = 50 s -> 250.
    CHECK(prefill_limited_streams(40000, 8000, 1000, 20) == 250);
    CHECK_THROWS_AS(implied_concurrent_streams(0, 1), usage_error);
    const auto r = check_concurrency(300, 250);
    CHECK_FALSE(r.consistent);
    CHECK(r.reason.find("KV cache holds at most 250") != std::string::npos);
    CHECK(check_concurrency(30, 250, 100).consistent);
    CHECK_FALSE(check_concurrency(120, 250, 100).consistent);
}

TEST_CASE("KV capacity of a hand-built GQA model, by hand") {
    model_config c;
    c.num_layers = 10;
    c.num_kv_heads = 8;
    c.head_dim = 128;
    // 4 GPUs of 80 GB, TP2 (2 replicas), weights 40 GB, 1,000-token sequences, bf16.
    // Free per GPU: 72 - 20 = 52 GB. Per sequence per GPU: 1,000 x 10 x 2 x 4 heads x 128 x 2 B
    // = 20.48 MB -> 2,539.06 per replica, 5,078.1 in all.
    const auto k = kv_capacity_limit(c, 40e9, 80e9, 4, 2, 1000, dtype::bf16);
    CHECK(k.free_bytes_per_gpu == approx(52e9));
    CHECK(k.bytes_per_sequence_per_gpu == approx(20.48e6));
    CHECK(k.max_sequences == approx(2.0 * 52e9 / 20.48e6));
    CHECK_THROWS_AS(kv_capacity_limit(c, 1, 80e9, 3, 2, 1000, dtype::bf16), usage_error);
}

TEST_CASE("C13: 884 tok/s/GPU at 21.9 tok/s/user on 8x B200 implies 323 streams, KV holds ~304 at TP8") {
    // ai-dynamo/aiconfigurator#1396: Kimi-K2.5 NVFP4, ISL 8192 / OSL 1024, 8x B200. Predicted
    // 884 tok/s/GPU at 21.9 tok/s/user; measured 192 at 44.6. Kimi-K2-Instruct's config stands
    // in for K2.5 (same language model shape: 61 layers, MLA, 384 experts).
    const auto path = roofline::test::shared_sample("model_configs/moonshotai--Kimi-K2-Instruct_config.json").string();
    if (!roofline::test::have_sample(path)) return;
    auto c = read_hf_config(path);
    // NVFP4 as NVIDIA's MLA checkpoints quantise it: experts and MLPs in FP4, attention and
    // lm_head kept in BF16 (the GLM-5 / DeepSeek-V3.2 NVFP4 exclude lists); FP8 KV.
    c.quant.method = "nvfp4";
    c.quant.weights = c.quant.activations = dtype::nvfp4;
    c.quant.exclude_patterns = {"lm_head", "model.layers.*.self_attn*"};
    c.quant.kv_cache = dtype::fp8_e4m3;
    const auto pc = count_parameters(c);
    const double implied = implied_concurrent_streams(884.0 * 8, 21.9);
    const double measured = implied_concurrent_streams(192.0 * 8, 44.6);
    CHECK(implied == approx(322.9).epsilon(0.001));
    CHECK(measured == approx(34.4).epsilon(0.002));
    // KV per token: 61 x 576 B = 35,136 B; a 9,216-token sequence 323.8 MB, on every TP rank.
    const auto b200 = gpus::b200();
    const auto k = kv_capacity_limit(c, pc.total_weight_bytes, b200.memory_bytes.require(b200.id, "memory_bytes"), 8, 8,
                                     8192 + 1024, dtype::fp8_e4m3);
    CHECK(k.bytes_per_sequence_per_gpu == approx(35136.0 * 9216));
    // Weights ~590 GB -> ~74 GB per GPU; of the B200's device-visible 191.5 GB, 0.9 x 191.5 =
    // 172.4 GB usable, 172.4 - 73.8 = ~98.6 GB free -> ~304 sequences (at the datasheet's
    // 180 GB: ~272), still fewer than the 323 the prediction implies.
    CHECK(pc.total_weight_bytes == approx(590e9).epsilon(0.02));
    CHECK(k.max_sequences == approx((0.9 * 191503138816.0 - pc.total_weight_bytes / 8) / (35136.0 * 9216)).epsilon(0.01));
    CHECK(k.max_sequences == approx(304).epsilon(0.03));
    const auto predicted = check_concurrency(implied, k.max_sequences);
    CHECK_FALSE(predicted.consistent);  // the planner's point cannot be served at TP8
    CHECK(check_concurrency(measured, k.max_sequences).consistent);
    MESSAGE("C13: " << predicted.reason);
}
