// Tests of models/parameters.hpp: parameter counts against hand calculations and against the
// totals the vendors publish, and weight bytes under NVFP4 / MXFP4 / FP8 quantisation.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "roofline/io/hf_config.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/parameters.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::have_sample;
using roofline::test::shared_sample;

namespace {
std::string config_path(const std::string& name) { return shared_sample("model_configs/" + name).string(); }
std::size_t idx(module_class m) { return static_cast<std::size_t>(m); }
}  // namespace

TEST_CASE("glob patterns match module names and their dotted ancestors") {
    using detail::module_pattern_matches;
    CHECK(module_pattern_matches("model.layers.*.self_attn", "model.layers.7.self_attn.q_proj"));
    CHECK(module_pattern_matches("model.layers.0.self_attn.indexer*", "model.layers.0.self_attn.indexer.wk"));
    CHECK(module_pattern_matches("model.layers.78*", "model.layers.78.mlp.experts.0.up_proj"));
    CHECK_FALSE(module_pattern_matches("model.layers.78*", "model.layers.7.mlp.gate"));
    CHECK_FALSE(module_pattern_matches("model.layers.1.self_attn.o_proj", "model.layers.10.self_attn.o_proj"));
    CHECK(module_pattern_matches("lm_head", "lm_head"));
    CHECK(module_pattern_matches("re:.*mlp\\.gate$", "model.layers.3.mlp.gate"));
    CHECK_FALSE(module_pattern_matches("re:.*mlp\\.gate$", "model.layers.3.mlp.gate_proj"));
    // Asked again, the answers come from the per-thread cache: still the same, per module name.
    CHECK(module_pattern_matches("re:.*mlp\\.gate$", "model.layers.3.mlp.gate"));
    CHECK_FALSE(module_pattern_matches("re:.*mlp\\.gate$", "model.layers.3.mlp.gate_proj"));
    CHECK_FALSE(module_pattern_matches("re:.*self_attn.*", "model.layers.3.mlp.gate"));
}

TEST_CASE("past the cache's bound of compiled patterns, a pattern still answers right") {
    // 5,000 distinct patterns on one thread: the first 4,096 are kept compiled, the rest are
    // compiled per call; each matches its own layer and not its neighbour.
    using detail::module_pattern_matches;
    int right = 0;
    for (int i = 0; i < 5000; ++i) {
        const std::string pattern = "re:^model\\.layers\\." + std::to_string(i) + "\\.mlp$";
        right += module_pattern_matches(pattern, "model.layers." + std::to_string(i) + ".mlp") &&
                 !module_pattern_matches(pattern, "model.layers." + std::to_string(i + 1) + ".mlp");
    }
    CHECK(right == 5000);
}

TEST_CASE("a hand-built dense GQA model counts as worked by hand") {
    // h = 64, 2 layers, 4 heads of 16, 2 KV heads, MLP 128, vocab 100, untied.
    model_config c = test::tiny_dense_model();
    const auto pc = count_parameters(c);
    // attention: q 64*64 = 4096, k 64*32 = 2048, v 2048, o 4096 -> 12,288
    // MLP: 3 * 64 * 128 = 24,576; norms 2 * 64 = 128 -> layer 36,992; x2 = 73,984
    // embedding 6,400 + lm_head 6,400 + final norm 64 -> total 86,848
    CHECK(pc.layers[0].params[idx(module_class::attention)] == 12288);
    CHECK(pc.layers[0].total_params() == 36992);
    CHECK(pc.total_params == 86848);
    // active (dense): everything but the embedding table: 86,848 - 6,400 = 80,448
    CHECK(pc.active_params == 80448);
    CHECK(pc.active_params_with_embedding == 86848);
    // bf16: 2 bytes per parameter.
    CHECK(pc.total_weight_bytes == 2 * 86848);
    c.tie_word_embeddings = true;
    CHECK(count_parameters(c).total_params == 86848 - 6400);
}

TEST_CASE("Llama-3.1-70B has 70,553,706,496 parameters") {
    const auto path = config_path("meta-llama--Meta-Llama-3.1-70B_config.json");
    if (!have_sample(path)) return;
    const auto pc = count_parameters(read_hf_config(path));
    // Per layer: q 8192^2 + k,v 2 x 8192 x 1024 + o 8192^2 = 150,994,944; MLP 3 x 8192 x 28672 =
    // 704,643,072; norms 16,384 -> 855,654,400 x 80 = 68,452,352,000. Embedding and lm_head
    // 128,256 x 8,192 = 1,050,673,152 each; final norm 8,192. Meta's model card: 70.6B.
    CHECK(pc.total_params == 70553706496.0);
    CHECK(pc.total_params == approx(70.6e9).epsilon(0.002));
}

TEST_CASE("Qwen3.5-397B-A17B: Gated DeltaNet and gated full attention, 396.35B total, 16.33B active, its state per sequence") {
    const auto path = shared_sample("aiconfigurator/model_configs/Qwen--Qwen3.5-397B-A17B_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path.string());
    CHECK(c.linear_layers() == 45);  // three linear layers to each full one (full_attention_interval 4)
    CHECK(c.attention_at(3) == layer_attention::full);
    CHECK(c.attn_output_gate);
    const auto pc = count_parameters(c);
    // By hand (hidden 4096, key_dim 16 x 128 = 2048, value_dim 64 x 128 = 8192):
    //   linear layer: in_proj_qkvz 4096 x (2 x 2048 + 2 x 8192) = 83,886,080; in_proj_ba 4096 x 128 =
    //     524,288; conv1d 12,288 x 4 = 49,152; dt_bias, A_log 64 each; norm 128; out_proj 8192 x
    //     4096 = 33,554,432 -> 118,014,208
    //   full layer: q_proj 4096 x 32 x 256 x 2 (gate) = 67,108,864; k, v 2 x 4096 x 512 =
    //     4,194,304; o_proj 8192 x 4096 = 33,554,432; q_norm, k_norm 256 each -> 104,858,112
    //   every layer: 2 norms 8,192; router 4096 x 512 = 2,097,152; 512 experts x 3 x 4096 x 1024 =
    //     6,442,450,944; shared expert 3 x 4096 x 1024 = 12,582,912
    //   45 x 118,014,208 + 15 x 104,858,112 + 60 x 6,457,139,200 + 2 x 248,320 x 4096 + 4096
    //     = 396,346,104,576 ("397B"); active: 10 of 512 experts -> 16,331,676,416 ("A17B" with the
    //     embedding: 17,348,795,136).
    CHECK(pc.total_params == 396346104576.0);
    CHECK(pc.active_params == 16331676416.0);
    CHECK(pc.active_params_with_embedding == 17348795136.0);
    // State: 45 layers x (64 x 128 x 128 x 4 B fp32 + 3 x 12,288 x 2 B conv) = 192,061,440 B per
    // sequence; the KV cache only on the 15 full layers: 2 KV heads x 256 x 2 x 15 = 15,360
    // values per token.
    CHECK(linear_state_bytes_per_sequence(c) == 192061440.0);
    CHECK(kv_bytes_per_token(c, dtype::fp8_e4m3) == 15360.0);
    CHECK(kv_bytes_for_context(c, 1000, dtype::fp8_e4m3) == 15360.0 * 1000 + 192061440.0);
    // TP4: a GPU holds 16 of the 64 value heads' state and one of the two KV heads (replicated).
    CHECK(kv_bytes_for_context_per_gpu(c, 1000, dtype::fp8_e4m3, 4) == approx(7680.0 * 1000 + 192061440.0 / 4));
}

TEST_CASE("a layer type the reader does not know is an error naming the layer") {
    const auto path = shared_sample("aiconfigurator/model_configs/Qwen--Qwen3.5-397B-A17B_config.json");
    if (!have_sample(path)) return;
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find("\"linear_attention\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 18, "\"mamba_attention\"");
    const auto tmp = std::filesystem::temp_directory_path() / "roofline_qwen35_bad_layer.json";
    {
        std::ofstream out(tmp);
        out << text;
    }
    CHECK_THROWS_WITH_AS(read_hf_config(tmp.string()), doctest::Contains("unknown layer type \"mamba_attention\""), parse_error);
    std::filesystem::remove(tmp);
}

TEST_CASE("DeepSeek-V3: 671B total, 37B active, MTP counted apart") {
    const auto path = config_path("deepseek-ai--DeepSeek-V3_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    const auto pc = count_parameters(c);
    // MLA per layer: q_a 7168x1536 = 11,010,048; q_b 1536 x 128 x 192 = 37,748,736;
    // kv_a 7168 x 576 = 4,128,768; kv_b 512 x 128 x 256 = 16,777,216; o 128 x 128 x 7168 =
    // 117,440,512; norms 1536 + 512 -> 187,107,328.
    CHECK(pc.layers[0].params[idx(module_class::attention)] + 1536 + 512 ==
          approx(187107328.0 + 1536 + 512));
    // One expert 3 x 7168 x 2048 = 44,040,192.
    CHECK(pc.layers[3].expert_params == 44040192.0);
    // Total worked in the test's companion script: 3 dense layers of 583,483,392 + 58 MoE layers
    // of 11,507,286,272 + embedding and head 2 x 129,280 x 7,168 + norm 7,168 = 671,026,419,200.
    CHECK(pc.total_params == 671026419200.0);
    // DeepSeek-V3 report: "671B total parameters, 37B activated for each token".
    CHECK(pc.total_params == approx(671e9).epsilon(0.002));
    CHECK(pc.active_params == approx(37e9).epsilon(0.02));  // 36.63B, lm_head included
    // The HF checkpoint's 685B adds the 14B MTP module (which also stores copies of the
    // embedding and head, 2 x 0.93B, not counted here): 11.6B of MTP layer weights.
    CHECK(pc.mtp_params == approx(11.6e9).epsilon(0.01));
}

TEST_CASE("published totals: GLM-5, Kimi-K2, Qwen3 MoE, gpt-oss (each with its vendor's convention)") {
    struct expect {
        const char* file;
        double total, active;
        bool active_includes_embedding;
        double tolerance;
    };
    // Sources: GLM-5 technical report (744B / 40B); Kimi-K2 model card (1T / 32B activated);
    // Qwen3 technical report (235B / 22B; 30.5B / 3.3B, embeddings included in "activated");
    // OpenAI gpt-oss model card (116.83B total, 5.13B active, embedding excluded).
    const expect cases[] = {
        {"zai-org--GLM-5_config.json", 744e9, 40e9, false, 0.025},
        {"moonshotai--Kimi-K2-Instruct_config.json", 1.0e12, 32e9, false, 0.03},
        {"Qwen--Qwen3-235B-A22B_config.json", 235e9, 22e9, true, 0.02},
        {"Qwen--Qwen3-30B-A3B_config.json", 30.5e9, 3.3e9, true, 0.02},
        {"openai--gpt-oss-120b_config.json", 116.83e9, 5.13e9, false, 0.002},
    };
    for (const auto& e : cases) {
        const auto path = config_path(e.file);
        if (!have_sample(path)) continue;
        CAPTURE(e.file);
        const auto pc = count_parameters(read_hf_config(path));
        CHECK(pc.total_params == approx(e.total).epsilon(e.tolerance));
        const double active = e.active_includes_embedding ? pc.active_params_with_embedding : pc.active_params;
        CHECK(active == approx(e.active).epsilon(e.tolerance));
    }
}

TEST_CASE("GLM-5-NVFP4 keeps attention, indexer, lm_head and the MTP layer in BF16") {
    const auto cfg = config_path("zai-org--GLM-5_config.json");
    const auto quant = config_path("nvidia--GLM-5-NVFP4_hf_quant_config.json");
    if (!have_sample(cfg) || !have_sample(quant)) return;
    auto c = read_hf_config(cfg);
    apply_hf_quant_config(c, quant);
    const auto pc = count_parameters(c);
    const auto& moe = pc.layers[10];
    // One routed expert 3 x 6144 x 2048 = 37,748,736 weights x 0.5625 B (4.5 bits) = 21,233,664 B.
    CHECK(moe.expert_bytes == 21233664.0);
    // Attention projections excluded -> 2 bytes per parameter.
    CHECK(moe.weight_bytes[idx(module_class::attention)] == 2 * moe.params[idx(module_class::attention)]);
    CHECK(moe.weight_bytes[idx(module_class::indexer)] == 2 * moe.params[idx(module_class::indexer)]);
    CHECK(moe.weight_bytes[idx(module_class::shared_experts)] ==
          approx(0.5625 * moe.params[idx(module_class::shared_experts)]));
    CHECK(dominant_weight_dtype(c, module_class::routed_experts, 10) == dtype::nvfp4);
    CHECK(dominant_weight_dtype(c, module_class::attention, 10) == dtype::bf16);
    CHECK(dominant_weight_dtype(c, module_class::lm_head, 0) == dtype::bf16);
    CHECK(dominant_weight_dtype(c, module_class::dense_mlp, 0) == dtype::nvfp4);
    // The MTP layer (78) is excluded whole ("model.layers.78*"): all BF16.
    const auto& mtp = pc.layers.back();
    CHECK(mtp.mtp);
    CHECK(mtp.total_weight_bytes() == approx(2 * mtp.total_params()));
    // About 744B parameters in ~440 GB: 4.5-bit experts dominate.
    CHECK(pc.total_weight_bytes < 0.32 * 2 * pc.total_params);
}

TEST_CASE("DeepSeek-V3.2-NVFP4 leaves o_proj in NVFP4, Qwen3-NVFP4 quantises attention too") {
    const auto ds = config_path("deepseek-ai--DeepSeek-V3.2_config.json");
    const auto dsq = config_path("nvidia--DeepSeek-V3.2-NVFP4_hf_quant_config.json");
    const auto qw = config_path("Qwen--Qwen3-235B-A22B_config.json");
    const auto qwq = config_path("nvidia--Qwen3-235B-A22B-NVFP4_hf_quant_config.json");
    if (!have_sample(ds) || !have_sample(dsq) || !have_sample(qw) || !have_sample(qwq)) return;
    auto c = read_hf_config(ds);
    apply_hf_quant_config(c, dsq);
    for (const auto& t : layer_weights(c, 5)) {
        if (t.name == "model.layers.5.self_attn.o_proj") CHECK(weight_dtype(c.quant, t) == dtype::nvfp4);
        if (t.name == "model.layers.5.self_attn.q_b_proj") CHECK(weight_dtype(c.quant, t) == dtype::bf16);
        if (t.name == "model.layers.5.self_attn.indexer.wk") CHECK(weight_dtype(c.quant, t) == dtype::bf16);
        if (t.cls == module_class::router) CHECK(weight_dtype(c.quant, t) == dtype::bf16);
    }
    auto q = read_hf_config(qw);
    apply_hf_quant_config(q, qwq);
    CHECK(dominant_weight_dtype(q, module_class::attention, 0) == dtype::nvfp4);
    CHECK(dominant_weight_dtype(q, module_class::router, 0) == dtype::bf16);
    CHECK(dominant_weight_dtype(q, module_class::lm_head, 0) == dtype::bf16);
}

TEST_CASE("gpt-oss MXFP4: experts at 4.25 bits, attention and router in BF16") {
    const auto path = config_path("openai--gpt-oss-120b_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    const auto pc = count_parameters(c);
    const auto& l = pc.layers[0];
    // One expert: gate_up 2880 x 5760 + down 2880 x 2880 = 24,883,200 weights x 0.53125 B
    // = 13,219,200 B, plus biases 5760 + 2880 = 8,640 in BF16 = 17,280 B.
    CHECK(l.expert_bytes == approx(13219200.0 + 17280.0));
    CHECK(l.weight_bytes[idx(module_class::attention)] == 2 * l.params[idx(module_class::attention)]);
    CHECK(dominant_weight_dtype(c, module_class::router, 0) == dtype::bf16);
}

TEST_CASE("FP8 block quantisation adds one FP32 scale per 128 x 128 block") {
    model_config c;
    c.hidden_size = 128;
    c.num_layers = 1;
    c.num_attention_heads = 1;
    c.num_kv_heads = 1;
    c.head_dim = 128;
    c.intermediate_size = 128;
    c.vocab_size = 10;
    c.tie_word_embeddings = true;
    c.quant.method = "fp8";
    c.quant.weights = dtype::fp8_e4m3;
    c.quant.extra_scale_bits_per_weight = 32.0 / 16384.0;
    const auto pc = count_parameters(c);
    // 7 matrices of 128 x 128 (q, k, v, o, gate, up, down) = 114,688 weights: 1 B each + 4 B per
    // block (7 blocks) = 114,716 B; norms 2 x 128 + final 128 + embedding 1,280 in BF16 = 3,328 B.
    CHECK(pc.total_weight_bytes == approx(114716.0 + 3328.0));
}
