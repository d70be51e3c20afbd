// Tests of io/hf_config.hpp: the Hugging Face config readers on the real configs in
// ../shared/samples/model_configs (skipped when absent) and on malformed input.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include "roofline/io/hf_config.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::have_sample;
using roofline::test::shared_sample;

namespace {

std::string config_path(const std::string& name) {
    return shared_sample("model_configs/" + name).string();
}

/// Writes `text` to a temporary file and returns its path.
std::string temp_json(const std::string& stem, const std::string& text) {
    const auto p = std::filesystem::temp_directory_path() / ("roofline_hf_" + stem + ".json");
    std::ofstream(p) << text;
    return p.string();
}

}  // namespace

TEST_CASE("GLM-5's config reads as MLA with a DSA indexer, 3 dense layers and 75 MoE layers") {
    const auto path = config_path("zai-org--GLM-5_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    CHECK(c.family == "glm_moe_dsa");
    CHECK(c.hidden_size == 6144);
    CHECK(c.num_layers == 78);
    CHECK(c.attention == attention_kind::mla);
    CHECK(c.q_lora_rank == 2048);
    CHECK(c.kv_lora_rank == 512);
    CHECK(c.qk_nope_head_dim == 192);
    CHECK(c.qk_rope_head_dim == 64);
    CHECK(c.qk_head_dim() == 256);
    CHECK(c.v_head_dim == 256);
    CHECK(c.index_topk == 2048);
    CHECK(c.index_n_heads == 32);
    CHECK(c.index_head_dim == 128);
    CHECK(c.num_experts == 256);
    CHECK(c.experts_per_token == 8);
    CHECK(c.moe_intermediate_size == 2048);
    CHECK(c.num_shared_experts == 1);
    CHECK(c.intermediate_size == 12288);
    CHECK(c.first_dense_layers == 3);
    // The GLM-5 report lists 3 dense + 75 MoE layers and 1 MTP layer.
    CHECK(c.moe_layer_count() == 75);
    CHECK(c.mlp_at(2) == mlp_kind::dense);
    CHECK(c.mlp_at(3) == mlp_kind::moe);
    CHECK(c.mtp_layers == 1);
    CHECK(c.vocab_size == 154880);
    CHECK_FALSE(c.tie_word_embeddings);
    CHECK_FALSE(c.quant.quantized());
    CHECK(c.quant.unquantized == dtype::bf16);
}

TEST_CASE("DeepSeek-V3 and Kimi-K2 read their FP8 block quantisation from config.json") {
    const auto ds = config_path("deepseek-ai--DeepSeek-V3_config.json");
    const auto kimi = config_path("moonshotai--Kimi-K2-Instruct_config.json");
    if (!have_sample(ds) || !have_sample(kimi)) return;
    const auto c = read_hf_config(ds);
    CHECK(c.family == "deepseek_v3");
    CHECK(c.num_attention_heads == 128);
    CHECK(c.num_layers == 61);
    CHECK(c.moe_layer_count() == 58);
    CHECK_FALSE(c.has_indexer());
    CHECK(c.quant.method == "fp8");
    CHECK(c.quant.weights == dtype::fp8_e4m3);
    CHECK(c.quant.activations == dtype::fp8_e4m3);
    // One FP32 scale per 128 x 128 block: 32 / 16384 bits per weight.
    CHECK(c.quant.extra_scale_bits_per_weight == approx(32.0 / 16384.0));
    CHECK(c.router_score_bias);  // noaux_tc: e_score_correction_bias

    const auto k = read_hf_config(kimi);
    CHECK(k.family == "kimi_k2");
    CHECK(k.num_experts == 384);
    CHECK(k.first_dense_layers == 1);
    CHECK(k.moe_layer_count() == 60);
    CHECK(k.mtp_layers == 0);
    CHECK(k.num_attention_heads == 64);
}

TEST_CASE("DeepSeek-V3.2 adds the indexer keys to the DeepSeek-V3 shape") {
    const auto path = config_path("deepseek-ai--DeepSeek-V3.2_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    CHECK(c.family == "deepseek_v32");
    CHECK(c.index_topk == 2048);
    CHECK(c.index_n_heads == 64);
    CHECK(c.index_head_dim == 128);
}

TEST_CASE("Qwen3 MoE maps num_experts and decoder_sparse_step, every layer is MoE") {
    const auto big = config_path("Qwen--Qwen3-235B-A22B_config.json");
    const auto small = config_path("Qwen--Qwen3-30B-A3B_config.json");
    if (!have_sample(big) || !have_sample(small)) return;
    const auto c = read_hf_config(big);
    CHECK(c.attention == attention_kind::gqa);
    CHECK(c.num_kv_heads == 4);
    CHECK(c.head_dim == 128);
    CHECK(c.num_experts == 128);
    CHECK(c.experts_per_token == 8);
    CHECK(c.moe_intermediate_size == 1536);
    CHECK(c.moe_layer_count() == 94);
    CHECK(c.qk_norm);
    CHECK(c.layer_types.empty());  // sliding_window null, use_sliding_window false
    const auto s = read_hf_config(small);
    CHECK(s.hidden_size == 2048);
    CHECK(s.moe_intermediate_size == 768);
    CHECK(s.moe_layer_count() == 48);
}

TEST_CASE("gpt-oss uses its own key names: num_local_experts, layer_types, mxfp4") {
    const auto path = config_path("openai--gpt-oss-120b_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    CHECK(c.family == "gpt_oss");
    CHECK(c.num_experts == 128);
    CHECK(c.experts_per_token == 4);
    CHECK(c.moe_intermediate_size == 2880);  // from intermediate_size
    CHECK(c.head_dim == 64);
    CHECK(c.num_kv_heads == 8);
    CHECK(c.sliding_window == 128);
    REQUIRE(c.layer_types.size() == 36);
    CHECK(c.attention_at(0) == layer_attention::sliding);
    CHECK(c.attention_at(1) == layer_attention::full);
    int sliding = 0;
    for (auto t : c.layer_types) sliding += t == layer_attention::sliding;
    CHECK(sliding == 18);
    CHECK(c.attention_bias);
    CHECK(c.quant.method == "mxfp4");
    CHECK(c.quant.weights == dtype::mxfp4);
    CHECK(c.quant.activations == dtype::bf16);
    CHECK(c.quant.exclude_patterns.size() == 4);
}

TEST_CASE("Llama-3.1-70B is a dense GQA model with head_dim from hidden / heads") {
    const auto path = config_path("meta-llama--Meta-Llama-3.1-70B_config.json");
    if (!have_sample(path)) return;
    const auto c = read_hf_config(path);
    CHECK_FALSE(c.is_moe());
    CHECK(c.head_dim == 128);  // 8192 / 64
    CHECK(c.num_kv_heads == 8);
    CHECK(c.intermediate_size == 28672);
    CHECK(c.mlp_at(0) == mlp_kind::dense);
}

TEST_CASE("ModelOpt hf_quant_config.json sets NVFP4 weights, FP8 KV cache and the exclude list") {
    const auto cfg = config_path("zai-org--GLM-5_config.json");
    const auto quant = config_path("nvidia--GLM-5-NVFP4_hf_quant_config.json");
    if (!have_sample(cfg) || !have_sample(quant)) return;
    auto c = read_hf_config(cfg);
    apply_hf_quant_config(c, quant);
    CHECK(c.quant.method == "nvfp4");
    CHECK(c.quant.weights == dtype::nvfp4);
    CHECK(c.quant.activations == dtype::nvfp4);
    CHECK(c.quant.kv_cache == dtype::fp8_e4m3);
    CHECK(c.quant.group_size == 16);
    CHECK(c.quant.exclude_patterns.size() == 471);  // FORMATS.md section 8
    CHECK(c.quant.producer.rfind("modelopt 0.42.0rc1", 0) == 0);
}

TEST_CASE("quantization_config variants inside config.json: modelopt and compressed-tensors") {
    SUBCASE("modelopt with an ignore list and a kv_cache_scheme") {
        const auto p = temp_json("modelopt", R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
            "num_attention_heads":4,"vocab_size":100,"intermediate_size":128,
            "quantization_config":{"quant_method":"modelopt","quant_algo":"NVFP4",
              "ignore":["lm_head"],"kv_cache_scheme":{"num_bits":8,"type":"float"}}})");
        const auto c = read_hf_config(p);
        CHECK(c.quant.weights == dtype::nvfp4);
        CHECK(c.quant.kv_cache == dtype::fp8_e4m3);
        CHECK(c.quant.exclude_patterns == std::vector<std::string>{"lm_head"});
    }
    SUBCASE("compressed-tensors NVFP4 under text_config nesting") {
        const auto p = temp_json("ct", R"({"model_type":"qwen3_5_moe","text_config":{"hidden_size":64,
            "num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,"num_experts":8,
            "num_experts_per_tok":2,"moe_intermediate_size":32},
            "quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{
              "weights":{"num_bits":4,"type":"float","group_size":16},
              "input_activations":{"num_bits":4,"type":"float"}}},"ignore":["re:.*mlp.gate$"]}})");
        const auto c = read_hf_config(p);
        CHECK(c.num_experts == 8);
        CHECK(c.moe_layer_count() == 2);
        CHECK(c.quant.weights == dtype::nvfp4);
        CHECK(c.quant.activations == dtype::nvfp4);
    }
    SUBCASE("compressed-tensors 4-bit int groups of 32 (Kimi-K2.5): W4A16 int4, its exclusions kept") {
        const auto p = temp_json("ct_int4", R"({"model_type":"kimi_k25","text_config":{"model_type":"kimi_k2",
            "hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,"n_routed_experts":8,
            "num_experts_per_tok":2,"moe_intermediate_size":32,"intermediate_size":128,
            "quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{
              "input_activations":null,"weights":{"num_bits":4,"type":"int","group_size":32,"strategy":"group",
              "symmetric":true}}},"ignore":["lm_head","re:.*self_attn.*"]}}})");
        const auto c = read_hf_config(p);
        CHECK(c.quant.method == "int4");
        CHECK(c.quant.weights == dtype::int4);
        CHECK(c.quant.activations == dtype::bf16);  // input_activations null: W4A16
        CHECK(c.quant.group_size == 32);
        CHECK(c.quant.exclude_patterns == std::vector<std::string>{"lm_head", "re:.*self_attn.*"});
        // 4-bit values and one BF16 scale per 32: 4.5 bits a weight.
        CHECK(bytes_per_element(dtype::int4) == approx(4.5 / 8));
    }
    SUBCASE("compressed-tensors \"re:\" pattern the matcher cannot read: the file, the place and the entry") {
        const auto p = temp_json("ct_lookahead", R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
            "num_attention_heads":4,"vocab_size":100,"intermediate_size":128,
            "quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{
              "weights":{"num_bits":4,"type":"int","group_size":32}}},"ignore":["lm_head","re:(?=mlp).*"]}})");
        try {
            (void)read_hf_config(p);
            FAIL("no error");
        } catch (const parse_error& e) {
            CHECK(e.file() == p);
            CHECK(e.place() == "quantization_config");
            CHECK(e.field() == "ignore[1]");
            CHECK(std::string(e.what()).find("lookaround") != std::string::npos);
        }
    }
    SUBCASE("compressed-tensors 8-bit int: named as unsupported, with what is") {
        const auto p = temp_json("ct_int8", R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
            "num_attention_heads":4,"vocab_size":100,"intermediate_size":128,
            "quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{
              "weights":{"num_bits":8,"type":"int"}}}}})");
        CHECK_THROWS_WITH_AS((void)read_hf_config(p), doctest::Contains("8-bit int (accepted: 4-bit float NVFP4, 8-bit float FP8, 4-bit int W4A16)"),
                             parse_error);
    }
}

TEST_CASE("bad configs fail with parse_error naming the file and the key") {
    SUBCASE("missing hidden_size") {
        const auto p = temp_json("missing", R"({"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"intermediate_size":8})");
        try {
            (void)read_hf_config(p);
            FAIL("no error");
        } catch (const parse_error& e) {
            CHECK(e.file() == p);
            CHECK(e.field() == "hidden_size");
            CHECK(std::string(e.what()).find("missing") != std::string::npos);
        }
    }
    SUBCASE("MoE without a top-k key names both spellings") {
        const auto p = temp_json("topk", R"({"hidden_size":8,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"num_experts":4,"moe_intermediate_size":8})");
        try {
            (void)read_hf_config(p);
            FAIL("no error");
        } catch (const parse_error& e) {
            CHECK(e.field() == "num_experts_per_tok");
            CHECK(std::string(e.what()).find("experts_per_token") != std::string::npos);
        }
    }
    SUBCASE("wrong type") {
        const auto p = temp_json("type", R"({"hidden_size":"big","num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"intermediate_size":8})");
        CHECK_THROWS_WITH_AS((void)read_hf_config(p), doctest::Contains("\"hidden_size\""), parse_error);
    }
    SUBCASE("negative size") {
        const auto p = temp_json("neg", R"({"hidden_size":-8,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"intermediate_size":8})");
        CHECK_THROWS_AS((void)read_hf_config(p), parse_error);
    }
    SUBCASE("malformed JSON names the byte") {
        const auto p = temp_json("malformed", R"({"hidden_size": 8,)");
        CHECK_THROWS_WITH_AS((void)read_hf_config(p), doctest::Contains("byte"), parse_error);
    }
    SUBCASE("unreadable file") {
        CHECK_THROWS_AS((void)read_hf_config("/nonexistent/config.json"), parse_error);
    }
    SUBCASE("unsupported quant_algo in hf_quant_config.json") {
        const auto cfg = temp_json("cfg_ok", R"({"hidden_size":8,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"intermediate_size":8})");
        const auto q = temp_json("q_bad", R"({"quantization":{"quant_algo":"W4A8_AWQ"}})");
        auto c = read_hf_config(cfg);
        CHECK_THROWS_WITH_AS(apply_hf_quant_config(c, q), doctest::Contains("quant_algo"), parse_error);
        const auto q2 = temp_json("q_missing", R"({"producer":{"name":"modelopt"}})");
        CHECK_THROWS_WITH_AS(apply_hf_quant_config(c, q2), doctest::Contains("quantization"), parse_error);
    }
    SUBCASE("layer_types of the wrong length") {
        const auto p = temp_json("lt", R"({"hidden_size":8,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"intermediate_size":8,"sliding_window":4,"layer_types":["sliding_attention"]})");
        CHECK_THROWS_WITH_AS((void)read_hf_config(p), doctest::Contains("layer_types"), parse_error);
    }
}

TEST_CASE("a config with MoE or MLA fields but not the key that turns them on is an error, not another model") {
    const std::string trunk = R"("hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128, "vocab_size": 129280,
        "intermediate_size": 18432, "torch_dtype": "bfloat16")";
    const auto error_of = [&](const std::string& stem, const std::string& extra) {
        try {
            read_hf_config(temp_json(stem, "{" + trunk + ", " + extra + "}"));
        } catch (const parse_error& e) {
            return std::string(e.what());
        }
        return std::string("read");
    };
    // DeepSeek-V3's MoE keys without n_routed_experts: it would be read as a dense 18,432-wide model.
    CHECK(error_of("no_experts", R"("num_experts_per_tok": 8, "moe_intermediate_size": 2048, "n_shared_experts": 1)")
              .find("n_routed_experts") != std::string::npos);
    // MLA's head dimensions without kv_lora_rank: it would be read as MHA.
    CHECK(error_of("no_kv_lora", R"("qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "q_lora_rank": 1536)")
              .find("kv_lora_rank") != std::string::npos);
    // Experts and 3 dense layers, no moe_intermediate_size: intermediate_size cannot size both.
    CHECK(error_of("no_moe_width", R"("n_routed_experts": 256, "num_experts_per_tok": 8, "first_k_dense_replace": 3)")
              .find("moe_intermediate_size") != std::string::npos);
    // Every layer MoE (Mixtral, gpt-oss): the experts' width is intermediate_size, as those configs write it.
    CHECK(error_of("mixtral_style", R"("num_local_experts": 8, "num_experts_per_tok": 2)") == "read");
    // "n_shared_experts": 0 on a dense model says nothing.
    CHECK(error_of("zero_shared", R"("n_shared_experts": 0)") == "read");
}

TEST_CASE("a shared expert of its own width: Qwen2-MoE's and MiniMax's keys") {
    const std::string trunk = R"("hidden_size": 3072, "num_hidden_layers": 62, "num_attention_heads": 48, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 200064, "intermediate_size": 1536, "num_local_experts": 256, "num_experts_per_tok": 8,
        "torch_dtype": "bfloat16")";
    // MiniMax-M1/M2 write the shared MLP's width as shared_intermediate_size: read, not dropped.
    const auto minimax = read_hf_config(temp_json("minimax_shared", "{" + trunk + R"(, "shared_intermediate_size": 1024})"));
    CHECK(minimax.num_shared_experts == 1);
    CHECK(minimax.shared_expert_intermediate_size == 1024);
    // 0, as MiniMax-M2.5 writes it: no shared expert.
    const auto none = read_hf_config(temp_json("minimax_no_shared", "{" + trunk + R"(, "shared_intermediate_size": 0})"));
    CHECK(none.num_shared_experts == 0);
    // Qwen2-MoE's key reads as before.
    const auto qwen = read_hf_config(temp_json("qwen_shared", "{" + trunk + R"(, "shared_expert_intermediate_size": 512})"));
    CHECK(qwen.num_shared_experts == 1);
    CHECK(qwen.shared_expert_intermediate_size == 512);
    // The real MiniMax-M2.5 config: 8 routed experts a token, no shared one.
    const auto real = shared_sample("aiconfigurator/model_configs/MiniMaxAI--MiniMax-M2.5_config.json");
    if (!have_sample(real)) return;
    const auto m = read_hf_config(real.string());
    CHECK(m.experts_per_token == 8);
    CHECK(m.num_shared_experts == 0);
}
