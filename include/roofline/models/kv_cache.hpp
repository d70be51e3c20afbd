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

/// KV-cache bytes per token over all main layers, while the context is shorter than any
/// sliding window (each layer stores the token).
inline double kv_bytes_per_token(const model_config& c, dtype kv) {
    return c.num_layers * kv_bytes_per_token_layer(c, kv);
}

/// KV-cache bytes per token over the full-attention layers only: the growth per token once the
/// context exceeds the sliding window.
inline double kv_bytes_per_token_full_layers(const model_config& c, dtype kv) {
    int full = 0;
    for (int i = 0; i < c.num_layers; ++i) full += c.attention_at(i) == layer_attention::full;
    return full * kv_bytes_per_token_layer(c, kv);
}

/// Tokens layer `i` keeps for a sequence of `context_tokens`: min(context, window) on sliding layers.
inline double kv_tokens_held(const model_config& c, int layer, double context_tokens) {
    if (c.attention_at(layer) == layer_attention::sliding && c.sliding_window > 0)
        return std::min(context_tokens, static_cast<double>(c.sliding_window));
    return context_tokens;
}

/// KV-cache bytes of one sequence of `context_tokens` tokens (all layers, windows applied).
inline double kv_bytes_for_context(const model_config& c, double context_tokens, dtype kv) {
    double b = 0.0;
    const double per_layer = kv_bytes_per_token_layer(c, kv);
    for (int i = 0; i < c.num_layers; ++i) b += kv_tokens_held(c, i, context_tokens) * per_layer;
    return b;
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
        s.bytes_per_token_per_gpu = c.num_layers * kv_bytes_per_token_layer(c, kv);
        if (tp > 1)
            s.note = "MLA latent cache replicated on every TP rank (all heads share one latent); "
                     "TP does not divide it";
        return s;
    }
    const double heads = c.num_kv_heads;
    s.kv_heads_per_gpu = std::max(1.0, std::ceil(heads / tp));
    s.replication = s.kv_heads_per_gpu * tp / heads;
    s.bytes_per_token_per_gpu =
        c.num_layers * (2.0 * s.kv_heads_per_gpu * c.head_dim * bytes_per_element(kv) + idx);
    if (s.replication > 1.0)
        s.note = "fewer KV heads (" + std::to_string(c.num_kv_heads) + ") than TP ranks (" +
                 std::to_string(tp) + "): KV heads replicated";
    return s;
}

}  // namespace roofline
