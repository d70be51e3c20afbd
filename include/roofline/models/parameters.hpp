#pragma once
// Parameter counts and weight bytes of a transformer, per layer and per module class.
//
// The model is listed as an inventory of named weight tensors with the Hugging Face module
// names (`model.layers.3.self_attn.q_b_proj`), so that quantisation exclude patterns resolve
// exactly as the checkpoint's quantiser applied them, one tensor at a time. From the inventory:
//
//   total  = sum over main layers of all weights + embedding + lm_head + final norm
//   active = total - (E - k) routed experts per MoE layer - input embedding table
//
// Conventions (stated because vendors differ): `total_params` excludes MTP draft layers
// (DeepSeek-V3's 671B is "main model weights" without the 14B MTP module, its model card says);
// `active_params` excludes the input embedding table (a token reads one row of it, not the
// table) and includes the lm_head, as OpenAI's gpt-oss model card counts 5.13B active;
// `active_params_with_embedding` adds the embedding back, the convention Qwen3's 3.3B uses.
//
// Weight bytes use the storage bits of each tensor's dtype including block scales
// (NVFP4 4.5 bits, MXFP4 4.25 bits; see core/dtype.hpp) plus any per-block scale the
// quantisation states (FP8 128 x 128 blocks: +32 bits per 16,384 weights). Biases and norms
// stay in the checkpoint's unquantised dtype.

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <unordered_map>  // std::unordered_map (compiled "re:" patterns)
#include <vector>       // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/module_regex.hpp"

namespace roofline {

namespace detail {

/// Glob match: `*` matches any run of characters (dots included), `?` one character.
inline bool glob_match(std::string_view pattern, std::string_view text) {
    std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

/// True when `pattern` matches `name` or one of its dotted ancestors ("a.b.c" -> "a.b", "a").
inline bool module_pattern_matches(const std::string& pattern, std::string_view name) {
    if (pattern.rfind("re:", 0) == 0) {
        // Each pattern compiled once and each (pattern, module) answered once per thread: a
        // std::regex built and run per call was 60% of `estimate --from-csv` (5,221 rows, every
        // weight tensor of every row checked against every pattern). A match anywhere counts
        // (Python's re.search; a full match is one). models/module_regex.hpp: the syntax.
        thread_local std::unordered_map<std::string, module_regex> compiled;
        thread_local std::unordered_map<std::string, bool> answered;
        std::string key = pattern;
        key += '\n';
        key += name;
        if (const auto a = answered.find(key); a != answered.end()) return a->second;
        // Both caches stop growing at a bound (a program reading configs without end keeps its
        // memory): a pattern past it is compiled for the call, an answer past it not kept.
        bool hit = false;
        if (auto it = compiled.find(pattern); it != compiled.end()) hit = it->second.search(name);
        else if (compiled.size() < 4096)
            hit = compiled.emplace(pattern, module_regex(std::string_view(pattern).substr(3))).first->second.search(name);
        else hit = module_regex(std::string_view(pattern).substr(3)).search(name);
        if (answered.size() < 65536) answered.emplace(std::move(key), hit);
        return hit;
    }
    std::string_view n = name;
    while (true) {
        if (glob_match(pattern, n)) return true;
        const auto dot = n.rfind('.');
        if (dot == std::string_view::npos) return false;
        n = n.substr(0, dot);
    }
}

}  // namespace detail

/// One weight tensor (or a set of identical copies: the routed experts of a layer).
struct weight_tensor {
    std::string name;  ///< representative Hugging Face module name
    module_class cls = module_class::attention;
    double in_features = 0;   ///< GEMM K (0 for vectors)
    double out_features = 0;  ///< GEMM N
    double weight_params = 0; ///< elements of the matrix (or vector), one copy
    double bias_params = 0;   ///< bias elements, one copy (kept unquantised)
    double copies = 1;        ///< routed experts: E
    double active_copies = 1; ///< copies one token uses: routed experts k, else 1
    bool linear = true;       ///< a GEMM weight a quantiser may convert
    bool tp_split = true;     ///< split across tensor-parallel ranks (false: replicated)

    double params() const { return (weight_params + bias_params) * copies; }
    double active_params() const { return (weight_params + bias_params) * active_copies; }
};

/// True when the quantisation leaves `name` out (matches an exclude pattern).
inline bool quantization_excludes(const weight_quantization& q, std::string_view name) {
    for (const auto& p : q.exclude_patterns)
        if (detail::module_pattern_matches(p, name)) return true;
    return false;
}

/// Storage dtype of a tensor's weight matrix under `q`: the quantised dtype for linear
/// layers other than router/embedding that no pattern excludes, else the unquantised dtype.
inline dtype weight_dtype(const weight_quantization& q, const weight_tensor& t) {
    if (!q.quantized() || !t.linear) return q.unquantized;
    if (t.cls == module_class::router || t.cls == module_class::embedding || t.cls == module_class::norm)
        return q.unquantized;
    return quantization_excludes(q, t.name) ? q.unquantized : q.weights;
}

/// Bytes of one copy of a tensor under `q`: weights at their dtype (+ extra block scales when
/// quantised), biases at the unquantised dtype.
inline double weight_bytes_per_copy(const weight_quantization& q, const weight_tensor& t) {
    const dtype d = weight_dtype(q, t);
    double per_weight = bytes_per_element(d);
    if (q.quantized() && d == q.weights && d != q.unquantized) per_weight += q.extra_scale_bits_per_weight / 8.0;
    return t.weight_params * per_weight + t.bias_params * bytes_per_element(q.unquantized);
}

namespace detail {

inline std::string layer_prefix(int layer) { return "model.layers." + std::to_string(layer) + "."; }

inline weight_tensor linear(std::string name, module_class cls, double in, double out, bool bias,
                            bool tp_split = true) {
    weight_tensor t;
    t.name = std::move(name);
    t.cls = cls;
    t.in_features = in;
    t.out_features = out;
    t.weight_params = in * out;
    t.bias_params = bias ? out : 0.0;
    t.tp_split = tp_split;
    return t;
}

inline weight_tensor vector_param(std::string name, double n, module_class cls = module_class::norm) {
    weight_tensor t;
    t.name = std::move(name);
    t.cls = cls;
    t.weight_params = n;
    t.linear = false;
    t.tp_split = false;
    return t;
}

}  // namespace detail

/// The weight tensors of decoder layer `layer` (0-based; `layer >= num_layers` is an MTP layer,
/// which adds DeepSeek's enorm, hnorm, eh_proj and shared_head.norm to a full decoder layer).
/// Names follow the Hugging Face checkpoints of DeepSeek-V3 (MLA, MoE, indexer), Qwen3 and
/// Llama (q/k/v/o_proj, gate/up/down_proj), gpt-oss (mlp.router, fused mlp.experts.gate_up_proj).
inline std::vector<weight_tensor> layer_weights(const model_config& c, int layer) {
    using detail::linear;
    using detail::vector_param;
    const double h = c.hidden_size, H = c.num_attention_heads;
    const std::string p = detail::layer_prefix(layer);
    std::vector<weight_tensor> w;

    w.push_back(vector_param(p + "input_layernorm", h));
    w.push_back(vector_param(p + "post_attention_layernorm", h));

    // --- attention ---
    const std::string a = p + "self_attn.";
    if (c.attention_at(layer) == layer_attention::linear) {
        // Gated DeltaNet (transformers' Qwen3NextGatedDeltaNet, under `linear_attn.`): q, k, v and
        // the output gate z in one projection, the per-head beta and decay inputs b, a in
        // another, a depthwise causal conv over q, k, v (conv_dim x kernel weights), dt_bias and
        // A_log per value head, a gated RMSNorm of head_v_dim, out_proj back to hidden.
        const std::string la = p + "linear_attn.";
        const double key_dim = static_cast<double>(c.linear_num_key_heads) * c.linear_key_head_dim;
        const double value_dim = static_cast<double>(c.linear_num_value_heads) * c.linear_value_head_dim;
        const double hv = c.linear_num_value_heads;
        w.push_back(linear(la + "in_proj_qkvz", module_class::attention, h, 2 * key_dim + 2 * value_dim, false));
        w.push_back(linear(la + "in_proj_ba", module_class::attention, h, 2 * hv, false));
        w.push_back(vector_param(la + "conv1d", (2 * key_dim + value_dim) * c.linear_conv_kernel_dim));
        w.push_back(vector_param(la + "dt_bias", hv));
        w.push_back(vector_param(la + "A_log", hv));
        w.push_back(vector_param(la + "norm", c.linear_value_head_dim));
        w.push_back(linear(la + "out_proj", module_class::attention, value_dim, h, false));
    } else if (c.attention == attention_kind::mla) {
        const double qk = c.qk_nope_head_dim + c.qk_rope_head_dim;
        if (c.q_lora_rank > 0) {
            // q_a_proj and kv_a_proj_with_mqa are replicated under TP (vLLM/SGLang ReplicatedLinear).
            w.push_back(linear(a + "q_a_proj", module_class::attention, h, c.q_lora_rank, false, false));
            w.push_back(vector_param(a + "q_a_layernorm", c.q_lora_rank));
            w.push_back(linear(a + "q_b_proj", module_class::attention, c.q_lora_rank, H * qk, false));
        } else {
            w.push_back(linear(a + "q_proj", module_class::attention, h, H * qk, false));
        }
        w.push_back(linear(a + "kv_a_proj_with_mqa", module_class::attention, h,
                           c.kv_lora_rank + c.qk_rope_head_dim, false, false));
        w.push_back(vector_param(a + "kv_a_layernorm", c.kv_lora_rank));
        w.push_back(linear(a + "kv_b_proj", module_class::attention, c.kv_lora_rank,
                           H * (c.qk_nope_head_dim + c.v_head_dim), false));
        w.push_back(linear(a + "o_proj", module_class::attention, H * c.v_head_dim, h, false));
    } else {
        const double hd = c.head_dim, kv = c.num_kv_heads;
        const bool b = c.attention_bias;
        // attn_output_gate (Qwen3.5): q_proj emits a sigmoid gate per query value beside q.
        w.push_back(linear(a + "q_proj", module_class::attention, h, H * hd * (c.attn_output_gate ? 2 : 1), b));
        w.push_back(linear(a + "k_proj", module_class::attention, h, kv * hd, b));
        w.push_back(linear(a + "v_proj", module_class::attention, h, kv * hd, b));
        w.push_back(linear(a + "o_proj", module_class::attention, H * hd, h, b));
        if (c.qk_norm) {
            w.push_back(vector_param(a + "q_norm", hd));
            w.push_back(vector_param(a + "k_norm", hd));
        }
        if (c.attention_sinks) w.push_back(vector_param(a + "sinks", H));
    }
    if (c.has_indexer()) {
        // DSA lightning indexer (DeepSeek-V3.2 `Indexer`): wq_b from the q latent, one shared key
        // head wk, LayerNorm k_norm (weight + bias), per-head weights_proj. Replicated under TP.
        const std::string ix = a + "indexer.";
        const double ih = c.index_n_heads, id = c.index_head_dim;
        const double q_in = c.q_lora_rank > 0 ? c.q_lora_rank : h;
        w.push_back(linear(ix + "wq_b", module_class::indexer, q_in, ih * id, false, false));
        w.push_back(linear(ix + "wk", module_class::indexer, h, id, false, false));
        w.push_back(vector_param(ix + "k_norm", 2 * id));
        w.push_back(linear(ix + "weights_proj", module_class::indexer, h, ih, false, false));
    }

    // --- feed-forward ---
    const std::string m = p + "mlp.";
    if (c.mlp_at(layer) == mlp_kind::dense) {
        const double di = c.intermediate_size;
        w.push_back(linear(m + "gate_proj", module_class::dense_mlp, h, di, false));
        w.push_back(linear(m + "up_proj", module_class::dense_mlp, h, di, false));
        w.push_back(linear(m + "down_proj", module_class::dense_mlp, di, h, false));
    } else {
        const double E = c.num_experts, k = c.experts_per_token, mi = c.moe_intermediate_size;
        const bool gpt_oss = c.expert_bias;  // gpt-oss: fused gate_up, biases, `router`
        auto router = linear(m + (gpt_oss ? "router" : "gate"), module_class::router, h, E, gpt_oss, false);
        if (c.router_score_bias) router.bias_params += E;  // e_score_correction_bias
        w.push_back(router);
        auto expert = [&](std::string name, double in, double out) {
            auto t = linear(std::move(name), module_class::routed_experts, in, out, c.expert_bias);
            t.copies = E;
            t.active_copies = k;
            return t;
        };
        if (gpt_oss) {
            w.push_back(expert(m + "experts.gate_up_proj", h, 2 * mi));
            w.push_back(expert(m + "experts.down_proj", mi, h));
        } else {
            w.push_back(expert(m + "experts.0.gate_proj", h, mi));
            w.push_back(expert(m + "experts.0.up_proj", h, mi));
            w.push_back(expert(m + "experts.0.down_proj", mi, h));
        }
        if (c.num_shared_experts > 0) {
            // DeepSeek fuses the n shared experts into one MLP of width n x moe_intermediate_size.
            const double si = static_cast<double>(c.num_shared_experts) * c.shared_expert_width();
            w.push_back(linear(m + "shared_experts.gate_proj", module_class::shared_experts, h, si, false));
            w.push_back(linear(m + "shared_experts.up_proj", module_class::shared_experts, h, si, false));
            w.push_back(linear(m + "shared_experts.down_proj", module_class::shared_experts, si, h, false));
        }
    }

    if (layer >= c.num_layers) {
        // DeepSeek-V3 MTP module: RMSNorms of the embedding and hidden state, their projection,
        // and the shared head's norm. Its embedding and head are the main model's (shared).
        w.push_back(vector_param(p + "enorm", h));
        w.push_back(vector_param(p + "hnorm", h));
        w.push_back(linear(p + "eh_proj", module_class::attention, 2 * h, h, false));
        w.push_back(vector_param(p + "shared_head.norm", h));
    }
    return w;
}

/// Embedding, lm_head and final norm.
inline std::vector<weight_tensor> model_edge_weights(const model_config& c) {
    const double h = c.hidden_size, V = c.vocab_size;
    std::vector<weight_tensor> w;
    auto emb = detail::linear("model.embed_tokens", module_class::embedding, V, h, false, true);
    emb.linear = false;  // a lookup table, not a GEMM
    w.push_back(emb);
    if (!c.tie_word_embeddings) w.push_back(detail::linear("lm_head", module_class::lm_head, h, V, false));
    w.push_back(detail::vector_param("model.norm", h));
    return w;
}

/// Parameters and weight bytes of one decoder layer, by module class.
struct layer_parameters {
    int layer = 0;
    bool mtp = false;  ///< a multi-token-prediction draft layer
    mlp_kind mlp = mlp_kind::dense;
    layer_attention span = layer_attention::full;
    std::array<double, module_class_count> params{};        ///< all weights
    std::array<double, module_class_count> active_params{}; ///< weights one token uses
    std::array<double, module_class_count> weight_bytes{};  ///< all weights, under the quantisation
    std::array<double, module_class_count> active_weight_bytes{};
    double expert_params = 0;  ///< one routed expert (0 in dense layers)
    double expert_bytes = 0;   ///< one routed expert, under the quantisation

    double total_params() const { return sum(params); }
    double total_active_params() const { return sum(active_params); }
    double total_weight_bytes() const { return sum(weight_bytes); }
    double total_active_weight_bytes() const { return sum(active_weight_bytes); }

private:
    static double sum(const std::array<double, module_class_count>& a) {
        double s = 0;
        for (double v : a) s += v;
        return s;
    }
};

/// Parameter counts of a whole model (conventions in the header comment).
struct parameter_count {
    std::vector<layer_parameters> layers;  ///< main layers, then MTP layers
    double embedding_params = 0;
    double lm_head_params = 0;   ///< 0 when tied to the embedding
    double final_norm_params = 0;
    double embedding_bytes = 0;
    double lm_head_bytes = 0;

    double total_params = 0;   ///< main model incl. embedding and lm_head; MTP excluded
    double active_params = 0;  ///< per token; input embedding table and MTP excluded
    double active_params_with_embedding = 0;
    double mtp_params = 0;     ///< MTP layers (their shared embedding/head not counted again)
    double total_weight_bytes = 0;   ///< main model, under the quantisation
    double active_weight_bytes = 0;  ///< per token, embedding excluded
    double mtp_weight_bytes = 0;
    std::array<double, module_class_count> params_by_class{};  ///< main model
    std::array<double, module_class_count> bytes_by_class{};   ///< main model
};

/// Summarises one layer's inventory.
inline layer_parameters summarize_layer(const model_config& c, int layer) {
    layer_parameters lp;
    lp.layer = layer;
    lp.mtp = layer >= c.num_layers;
    lp.mlp = c.mlp_at(layer);
    lp.span = c.attention_at(layer);
    for (const auto& t : layer_weights(c, layer)) {
        const auto i = static_cast<std::size_t>(t.cls);
        const double b = weight_bytes_per_copy(c.quant, t);
        lp.params[i] += t.params();
        lp.active_params[i] += t.active_params();
        lp.weight_bytes[i] += b * t.copies;
        lp.active_weight_bytes[i] += b * t.active_copies;
        if (t.cls == module_class::routed_experts) {
            lp.expert_params += t.weight_params + t.bias_params;
            lp.expert_bytes += b;
        }
    }
    return lp;
}

/// Counts parameters and weight bytes of `c` under `c.quant`.
inline parameter_count count_parameters(const model_config& c) {
    parameter_count pc;
    for (int i = 0; i < c.num_layers + c.mtp_layers; ++i) {
        auto lp = summarize_layer(c, i);
        if (lp.mtp) {
            pc.mtp_params += lp.total_params();
            pc.mtp_weight_bytes += lp.total_weight_bytes();
        } else {
            pc.total_params += lp.total_params();
            pc.active_params += lp.total_active_params();
            pc.total_weight_bytes += lp.total_weight_bytes();
            pc.active_weight_bytes += lp.total_active_weight_bytes();
            for (std::size_t k = 0; k < module_class_count; ++k) {
                pc.params_by_class[k] += lp.params[k];
                pc.bytes_by_class[k] += lp.weight_bytes[k];
            }
        }
        pc.layers.push_back(std::move(lp));
    }
    for (const auto& t : model_edge_weights(c)) {
        const double n = t.params();
        const double b = weight_bytes_per_copy(c.quant, t) * t.copies;
        const auto k = static_cast<std::size_t>(t.cls);
        pc.params_by_class[k] += n;
        pc.bytes_by_class[k] += b;
        pc.total_params += n;
        pc.total_weight_bytes += b;
        if (t.cls == module_class::embedding) {
            pc.embedding_params = n;
            pc.embedding_bytes = b;
        } else {
            if (t.cls == module_class::lm_head) {
                pc.lm_head_params = n;
                pc.lm_head_bytes = b;
            } else {
                pc.final_norm_params = n;
            }
            pc.active_params += n;
            pc.active_weight_bytes += b;
        }
    }
    pc.active_params_with_embedding = pc.active_params + pc.embedding_params;
    return pc;
}

/// The dtype most of a module class's weights are stored in, at layer `layer` (by bytes;
/// `unquantized` when the class is absent there). For reports; the step model prices each
/// tensor at its own dtype.
inline dtype dominant_weight_dtype(const model_config& c, module_class cls, int layer) {
    std::array<double, dtype_count> by{};
    const auto ts = cls == module_class::lm_head || cls == module_class::embedding
                        ? model_edge_weights(c)
                        : layer_weights(c, layer);
    for (const auto& t : ts)
        if (t.cls == cls) by[static_cast<std::size_t>(weight_dtype(c.quant, t))] += t.params();
    std::size_t best = static_cast<std::size_t>(c.quant.unquantized);
    for (std::size_t i = 0; i < dtype_count; ++i)
        if (by[i] > by[best]) best = i;
    return static_cast<dtype>(best);
}

}  // namespace roofline
