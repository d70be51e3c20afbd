// Fuzz target: ModelOpt hf_quant_config.json (io/hf_config.hpp) applied to a fixed model, then
// the parameter count that depends on its exclusion patterns.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/parameters.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    // A small MoE model with MLA, so that exclusion patterns meet every kind of module.
    static const model_config base = [] {
        model_config c;
        c.name = "fuzz";
        c.family = "deepseek_v3";
        c.hidden_size = 256;
        c.num_layers = 3;
        c.num_attention_heads = 4;
        c.num_kv_heads = 4;
        c.head_dim = 64;
        c.vocab_size = 1000;
        c.intermediate_size = 512;
        c.attention = attention_kind::mla;
        c.kv_lora_rank = 64;
        c.q_lora_rank = 96;
        c.qk_nope_head_dim = 32;
        c.qk_rope_head_dim = 16;
        c.v_head_dim = 32;
        c.num_experts = 8;
        c.experts_per_token = 2;
        c.moe_intermediate_size = 128;
        c.num_shared_experts = 1;
        c.first_dense_layers = 1;
        return c;
    }();
    fuzz::expect_only_roofline_errors([&] {
        model_config c = base;
        apply_hf_quant_config(c, path);
        (void)count_parameters(c);
    }, path);
    return 0;
}
