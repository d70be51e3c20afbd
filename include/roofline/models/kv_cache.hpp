#pragma once
// KV-cache bytes per token, for capacity planning and for the bytes decode attention reads.
//
//   GQA / MHA / MQA:  2 x kv_heads x head_dim values per token per layer (K and V)
//   MLA:              kv_lora_rank + qk_rope_head_dim values (the latent and the rope key;
//                     512 + 64 = 576 for DeepSeek-V3, Kimi-K2 and GLM-5)
//   DSA indexer:      + one index_head_dim key per token per layer, stored as FP8 with one FP32
//                     scale per 128 values (DeepSeek-V3.2-Exp reference inference code,
//                     `Indexer.k_cache` float8_e4m3fn + `k_scale_cache` float32): 128 + 4 = 132 B
//   sliding window:   a sliding layer holds at most `sliding_window` tokens
//   linear attention: a Gated DeltaNet layer caches no tokens; it holds per sequence one
//                     linear_key_head_dim x linear_value_head_dim state per value head at
//                     `mamba_ssm_dtype` (float32 in Qwen3.5's config: 64 x 128 x 128 x 4 B =
//                     4 MiB a layer) and the conv's last kernel - 1 inputs of q, k, v (conv_dim
//                     channels, 16-bit, as vLLM's and SGLang's mamba cache store them)
//
// Values are stored at the KV-cache dtype (bf16: 2 B, fp8: 1 B). Engines add per-block scales
// or padding for fp8 MLA caches (FlashMLA's FP8 layout keeps the rope part in bf16); those are
// kernel choices, not model facts, and are left out. MTP draft layers are excluded.
//
// Tensor parallelism: GQA splits KV heads across ranks (a rank holds max(1, kv_heads / tp)
// heads, so with kv_heads < tp heads are replicated); MLA's latent is shared by every head, so
// every TP rank holds the whole latent cache: TP does not divide it (replication = tp). Data-
// parallel attention (SGLang `--enable-dp-attention`) avoids that by splitting sequences instead.

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::ceil
#include <string>     // std::string

#include "roofline/core/dtype.hpp"
#include "roofline/models/model_config.hpp"

namespace roofline {

/// Bytes of one indexer key per token per layer: index_head_dim FP8 values plus one FP32 scale
/// per 128 (DeepSeek-V3.2-Exp reference code); 0 without an indexer.
inline double indexer_key_bytes_per_token(const model_config& c) {
    if (!c.has_indexer()) return 0.0;
    return c.index_head_dim * 1.0 + std::ceil(c.index_head_dim / 128.0) * 4.0;
}

/// KV values (K and V, or latent + rope) per token in one layer, over all heads.
inline double kv_values_per_token_layer(const model_config& c) {
    if (c.attention == attention_kind::mla) return static_cast<double>(c.kv_lora_rank) + c.qk_rope_head_dim;
    return 2.0 * c.num_kv_heads * c.head_dim;
}

/// KV-cache bytes one token adds to one layer (indexer keys included), at dtype `kv`.
inline double kv_bytes_per_token_layer(const model_config& c, dtype kv) {
    return kv_values_per_token_layer(c) * bytes_per_element(kv) + indexer_key_bytes_per_token(c);
}

/// Main layers that cache tokens (all but linear-attention layers).
inline int kv_layers(const model_config& c) { return c.num_layers - c.linear_layers(); }

/// KV-cache bytes per token over all main layers, while the context is shorter than any
/// sliding window (each layer that caches tokens stores the token; linear layers none).
inline double kv_bytes_per_token(const model_config& c, dtype kv) {
    return kv_layers(c) * kv_bytes_per_token_layer(c, kv);
}

/// Bytes of the recurrent state one sequence holds over all linear-attention layers (0 without
/// them): per layer linear_num_value_heads x key_head_dim x value_head_dim at `linear_state`,
/// plus (kernel - 1) x conv_dim 16-bit conv inputs, conv_dim = 2 key_dim + value_dim.
inline double linear_state_bytes_per_sequence(const model_config& c) {
    const int n = c.linear_layers();
    if (n == 0) return 0.0;
    const double hv = c.linear_num_value_heads;
    const double state = hv * c.linear_key_head_dim * c.linear_value_head_dim * bytes_per_element(c.linear_state);
    const double conv_dim = 2.0 * c.linear_num_key_heads * c.linear_key_head_dim + hv * c.linear_value_head_dim;
    return n * (state + std::max(0, c.linear_conv_kernel_dim - 1) * conv_dim * 2.0);
}

/// Share of the linear-attention state one GPU of a TP group of `tp` holds: its value heads,
/// max(1, ceil(heads / tp)) of linear_num_value_heads (1 without linear layers).
inline double linear_state_share_per_gpu(const model_config& c, int tp) {
    if (c.linear_num_value_heads <= 0) return 1.0;
    const double heads = c.linear_num_value_heads;
    return std::max(1.0, std::ceil(heads / std::max(tp, 1))) / heads;
}

/// KV-cache bytes per token over the full-attention layers only: the growth per token once the
/// context exceeds the sliding window.
inline double kv_bytes_per_token_full_layers(const model_config& c, dtype kv) {
    int full = 0;
    for (int i = 0; i < c.num_layers; ++i) full += c.attention_at(i) == layer_attention::full;
    return full * kv_bytes_per_token_layer(c, kv);
}

/// Tokens layer `i` keeps for a sequence of `context_tokens`: min(context, window) on sliding
/// layers, none on linear-attention layers.
inline double kv_tokens_held(const model_config& c, int layer, double context_tokens) {
    if (c.attention_at(layer) == layer_attention::linear) return 0.0;
    if (c.attention_at(layer) == layer_attention::sliding && c.sliding_window > 0)
        return std::min(context_tokens, static_cast<double>(c.sliding_window));
    return context_tokens;
}

/// KV-cache bytes of the cached tokens of one sequence of `context_tokens` tokens (all layers,
/// windows applied; without the linear-attention state).
inline double kv_token_bytes_for_context(const model_config& c, double context_tokens, dtype kv) {
    double b = 0.0;
    const double per_layer = kv_bytes_per_token_layer(c, kv);
    for (int i = 0; i < c.num_layers; ++i) b += kv_tokens_held(c, i, context_tokens) * per_layer;
    return b;
}

/// Cache bytes of one sequence of `context_tokens` tokens: its cached tokens
/// (`kv_token_bytes_for_context`) and its linear-attention state.
inline double kv_bytes_for_context(const model_config& c, double context_tokens, dtype kv) {
    return kv_token_bytes_for_context(c, context_tokens, kv) + linear_state_bytes_per_sequence(c);
}

/// How a tensor-parallel group holds the KV cache.
struct kv_sharding {
    double bytes_per_token_per_gpu = 0;  ///< all layers, per GPU of the TP group
    double kv_heads_per_gpu = 0;         ///< GQA heads a rank holds (MLA: 1 latent)
    double replication = 1;              ///< copies of each cached value across the TP group
    std::string note;
};

/// KV-cache bytes per token per GPU under tensor parallelism of degree `tp` (>= 1).
inline kv_sharding kv_per_gpu(const model_config& c, dtype kv, int tp) {
    tp = std::max(tp, 1);
    kv_sharding s;
    const double idx = indexer_key_bytes_per_token(c);
    if (c.attention == attention_kind::mla) {
        s.kv_heads_per_gpu = 1;
        s.replication = tp;
        s.bytes_per_token_per_gpu = kv_layers(c) * kv_bytes_per_token_layer(c, kv);
        if (tp > 1)
            s.note = "MLA latent cache replicated on every TP rank (all heads share one latent); "
                     "TP does not divide it";
        return s;
    }
    const double heads = c.num_kv_heads;
    s.kv_heads_per_gpu = std::max(1.0, std::ceil(heads / tp));
    s.replication = s.kv_heads_per_gpu * tp / heads;
    s.bytes_per_token_per_gpu =
        kv_layers(c) * (2.0 * s.kv_heads_per_gpu * c.head_dim * bytes_per_element(kv) + idx);
    if (s.replication > 1.0)
        s.note = "fewer KV heads (" + std::to_string(c.num_kv_heads) + ") than TP ranks (" +
                 std::to_string(tp) + "): KV heads replicated";
    return s;
}

/// Cache bytes one sequence of `context_tokens` holds on one GPU of a TP group of `tp`: its
/// cached tokens at `kv_per_gpu`'s share (heads, or the replicated MLA latent) and its
/// linear-attention state at `linear_state_share_per_gpu`'s.
inline double kv_bytes_for_context_per_gpu(const model_config& c, double context_tokens, dtype kv, int tp) {
    const double all = kv_bytes_per_token(c, kv);
    const double share = all > 0 ? kv_per_gpu(c, kv, tp).bytes_per_token_per_gpu / all : 0.0;
    return kv_token_bytes_for_context(c, context_tokens, kv) * share +
           linear_state_bytes_per_sequence(c) * linear_state_share_per_gpu(c, tp);
}

}  // namespace roofline
