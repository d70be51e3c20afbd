#pragma once
// The shape of a transformer language model, as the models in `models/` need it.
//
// A `model_config` is a plain struct: the readers in `io/hf_config.hpp` fill it from a Hugging
// Face `config.json` (and a ModelOpt `hf_quant_config.json`), tests and users may build one by
// hand. Nothing here depends on JSON. Field names follow the Hugging Face keys where one exists;
// where families disagree (gpt-oss `num_local_experts` versus DeepSeek `n_routed_experts`) the
// reader maps them onto one field, documented there.
//
// Attention kinds:
//  * MHA / GQA / MQA: K and V have `num_kv_heads` heads of `head_dim` (MHA: kv = q heads; MQA: 1).
//  * MLA (DeepSeek-V2/V3, Kimi-K2, GLM-5): K and V are expanded per head from one shared latent
//    of `kv_lora_rank` values plus a `qk_rope_head_dim` rotary key; the KV cache holds only the
//    latent and the rope key (512 + 64 = 576 values per token per layer in all three).
//  * DSA (DeepSeek sparse attention, DeepSeek-V3.2 and GLM-5): MLA plus a small "lightning
//    indexer" (`index_n_heads` heads of `index_head_dim`) scoring every cached token and selecting
//    `index_topk` of them for the main attention.
//  * Sliding window (gpt-oss, Mistral): listed per layer in `layer_types`; such a layer attends to
//    (and caches) at most `sliding_window` tokens.
//  * Linear attention (Gated DeltaNet: Qwen3-Next, Qwen3.5): `linear_attention` layers in
//    `layer_types` keep no per-token cache but a recurrent state per sequence (`linear_*` fields:
//    one linear_key_head_dim x linear_value_head_dim matrix per value head, and a short
//    convolution's last kernel - 1 inputs); the other layers are full attention, whose query
//    projection doubles when `attn_output_gate` gates its output per head.

#include <cstdint>      // std::uint8_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/dtype.hpp"

namespace roofline {

/// How attention keys and values are represented.
enum class attention_kind : std::uint8_t {
    gqa,  ///< MHA (kv heads = heads), GQA (1 < kv heads < heads) or MQA (kv heads = 1)
    mla,  ///< multi-head latent attention: cache holds kv_lora_rank + qk_rope_head_dim values
};

/// Attention span of one layer.
enum class layer_attention : std::uint8_t {
    full,     ///< attends to the whole context
    sliding,  ///< attends to the last `sliding_window` tokens
    linear,   ///< Gated DeltaNet linear attention: a recurrent state per sequence, no KV cache
};

/// "full", "sliding" or "linear" (the `model --json` layers' "attention").
constexpr const char* to_string(layer_attention a) {
    return a == layer_attention::sliding ? "sliding" : a == layer_attention::linear ? "linear" : "full";
}

/// Feed-forward block of one layer.
enum class mlp_kind : std::uint8_t {
    dense,  ///< one gated MLP of `intermediate_size`
    moe,    ///< routed experts (+ shared experts) of `moe_intermediate_size`
};

/// Classes of weight matrices: the unit at which quantisation and phases are accounted.
enum class module_class : std::uint8_t {
    attention,       ///< Q/K/V/O projections (MLA: q_a, q_b, kv_a, kv_b, o)
    indexer,         ///< DSA lightning-indexer projections (wq_b, wk, weights_proj)
    dense_mlp,       ///< gate/up/down of a dense MLP layer
    routed_experts,  ///< gate/up/down of the routed experts
    shared_experts,  ///< gate/up/down of the always-active shared experts
    router,          ///< the expert router ("gate") matrix
    embedding,       ///< input token embedding table
    lm_head,         ///< output projection to the vocabulary
    norm,            ///< RMSNorm / LayerNorm weights and small vectors (biases, sinks)
};

inline constexpr std::size_t module_class_count = 9;

/// Name used in JSON and tables: "attention", "indexer", "dense_mlp", ...
constexpr std::string_view to_string(module_class m) {
    constexpr std::string_view names[module_class_count] = {
        "attention", "indexer", "dense_mlp", "routed_experts", "shared_experts",
        "router",    "embedding", "lm_head", "norm"};
    return names[static_cast<std::size_t>(m)];
}

/// Weight (and activation) quantisation of a checkpoint.
///
/// Linear weights are stored in `weights` unless their module name matches one of
/// `exclude_patterns` (then `unquantized`). Patterns are globs (`*` any run of characters,
/// `?` one) matched against the full Hugging Face module name or any dotted ancestor of it,
/// as ModelOpt's `exclude_modules` (`model.layers.*.self_attn*`) and transformers'
/// `modules_to_not_convert` (`model.layers.*.self_attn`) are used; a pattern starting with
/// `re:` is an ECMAScript regular expression (compressed-tensors `ignore`).
/// Routers, embeddings and norms are never quantised: they are not `nn.Linear` layers in the
/// reference implementations (DeepSeek `MoEGate`) or every quantiser lists them as excluded.
struct weight_quantization {
    std::string method = "none";  ///< "none", "fp8", "nvfp4", "mxfp4" (what the weights are)
    std::string producer;         ///< e.g. "modelopt 0.42.0rc1", "config.json quantization_config"
    dtype weights = dtype::bf16;      ///< storage dtype of quantised linear weights
    dtype activations = dtype::bf16;  ///< GEMM input dtype (NVFP4 W4A4: nvfp4; MXFP4 W4A16: bf16)
    dtype unquantized = dtype::bf16;  ///< dtype of everything left out (the checkpoint's torch_dtype)
    /// Extra scale bits per weight not captured by `weights` (FP8 with one FP32 scale per
    /// 128 x 128 block: 32 / 16384 bits). Block-scaled dtypes (NVFP4, MXFP4) already include theirs.
    double extra_scale_bits_per_weight = 0.0;
    int group_size = 0;  ///< values per scale where the file states it (NVFP4: 16)
    std::vector<std::string> exclude_patterns;
    dtype kv_cache = dtype::bf16;  ///< KV-cache dtype (ModelOpt `kv_cache_quant_algo`)
    std::string source;            ///< file the quantisation was read from

    bool quantized() const { return method != "none"; }
};

/// The shape of a transformer LM. Sizes are element counts; zero means "absent".
struct model_config {
    std::string name;    ///< display name (file stem or `_name_or_path`)
    std::string family;  ///< Hugging Face `model_type`: "deepseek_v3", "glm_moe_dsa", "gpt_oss", ...
    std::string source;  ///< file read, if any

    // --- trunk ---
    int hidden_size = 0;
    int num_layers = 0;  ///< decoder layers of the main model (MTP layers excluded)
    int vocab_size = 0;
    bool tie_word_embeddings = false;

    // --- attention ---
    attention_kind attention = attention_kind::gqa;
    int num_attention_heads = 0;
    int num_kv_heads = 0;  ///< GQA KV heads (MLA: nominally = heads; unused for the cache)
    int head_dim = 0;      ///< GQA head dimension (HF `head_dim`, else hidden / heads)
    bool attention_bias = false;  ///< Q/K/V/O projections carry biases (gpt-oss)
    bool qk_norm = false;         ///< per-head RMSNorm on Q and K (Qwen3)
    bool attention_sinks = false; ///< one learned sink logit per head (gpt-oss)

    // --- MLA (attention == mla) ---
    int q_lora_rank = 0;  ///< 0: Q is projected directly (DeepSeek-V2-Lite)
    int kv_lora_rank = 0;
    int qk_nope_head_dim = 0;
    int qk_rope_head_dim = 0;
    int v_head_dim = 0;

    // --- DSA lightning indexer (0 when absent) ---
    int index_topk = 0;
    int index_n_heads = 0;
    int index_head_dim = 0;

    // --- sliding window ---
    int sliding_window = 0;  ///< tokens; 0 = no sliding-window layers
    /// Per-layer span; empty means every layer is `full`.
    std::vector<layer_attention> layer_types;

    // --- linear attention (Gated DeltaNet; 0 when the model has no `linear` layers) ---
    int linear_num_key_heads = 0;    ///< HF `linear_num_key_heads` (q and k heads)
    int linear_num_value_heads = 0;  ///< HF `linear_num_value_heads` (v heads; one state each)
    int linear_key_head_dim = 0;     ///< HF `linear_key_head_dim`
    int linear_value_head_dim = 0;   ///< HF `linear_value_head_dim`
    int linear_conv_kernel_dim = 0;  ///< HF `linear_conv_kernel_dim` (causal depthwise conv over q, k, v)
    dtype linear_state = dtype::fp32;  ///< HF `mamba_ssm_dtype` (the recurrent state's dtype; float32 default)
    bool attn_output_gate = false;   ///< HF `attn_output_gate`: full-attention q_proj also emits a per-head gate

    // --- feed-forward ---
    int intermediate_size = 0;      ///< dense MLP width
    int num_experts = 0;            ///< routed experts; 0 = dense model
    int experts_per_token = 0;      ///< top-k
    int moe_intermediate_size = 0;  ///< width of one routed expert
    int num_shared_experts = 0;     ///< DeepSeek `n_shared_experts`
    int shared_expert_intermediate_size = 0;  ///< width of one shared expert (0: = moe_intermediate_size)
    bool expert_bias = false;  ///< experts and router carry biases (gpt-oss)
    bool router_score_bias = false;  ///< DeepSeek `e_score_correction_bias` (E values per layer)
    /// Per-layer MLP kind; empty means the rule: MoE when num_experts > 0 and
    /// layer >= first_dense_layers and (layer - first_dense_layers) % moe_layer_freq == 0.
    std::vector<mlp_kind> mlp_types;
    int first_dense_layers = 0;  ///< DeepSeek `first_k_dense_replace`
    int moe_layer_freq = 1;

    // --- multi-token prediction ---
    int mtp_layers = 0;  ///< DeepSeek `num_nextn_predict_layers` (draft layers after the main ones)

    int max_position_embeddings = 0;

    weight_quantization quant;

    // --- derived ---
    bool is_moe() const { return num_experts > 0; }
    bool has_indexer() const { return index_topk > 0; }
    /// Main layers whose span is `linear` (Gated DeltaNet).
    int linear_layers() const {
        int n = 0;
        for (int i = 0; i < num_layers; ++i) n += attention_at(i) == layer_attention::linear;
        return n;
    }

    /// Span of layer `i` (0-based).
    layer_attention attention_at(int i) const {
        if (i >= 0 && static_cast<std::size_t>(i) < layer_types.size())
            return layer_types[static_cast<std::size_t>(i)];
        return layer_attention::full;
    }

    /// MLP kind of layer `i` (0-based). MTP layers (i >= num_layers) follow the last layer's kind.
    mlp_kind mlp_at(int i) const {
        if (i >= 0 && static_cast<std::size_t>(i) < mlp_types.size())
            return mlp_types[static_cast<std::size_t>(i)];
        if (!is_moe()) return mlp_kind::dense;
        if (i >= num_layers && num_layers > 0) i = num_layers - 1;
        if (i < first_dense_layers) return mlp_kind::dense;
        const int f = moe_layer_freq > 0 ? moe_layer_freq : 1;
        return (i - first_dense_layers) % f == 0 ? mlp_kind::moe : mlp_kind::dense;
    }

    /// Q/K head dimension: MLA qk_nope + qk_rope, else head_dim.
    int qk_head_dim() const {
        return attention == attention_kind::mla ? qk_nope_head_dim + qk_rope_head_dim : head_dim;
    }
    /// V head dimension: MLA v_head_dim, else head_dim.
    int v_dim() const { return attention == attention_kind::mla ? v_head_dim : head_dim; }

    /// Width of one shared expert.
    int shared_expert_width() const {
        return shared_expert_intermediate_size > 0 ? shared_expert_intermediate_size
                                                   : moe_intermediate_size;
    }

    /// Number of MoE layers among the main layers.
    int moe_layer_count() const {
        int n = 0;
        for (int i = 0; i < num_layers; ++i) n += mlp_at(i) == mlp_kind::moe;
        return n;
    }
};

}  // namespace roofline
