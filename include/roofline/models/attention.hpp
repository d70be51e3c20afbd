#pragma once
// Attention: FLOP and bytes of the score (Q K^T) and value (P V) products for MHA, GQA, MQA,
// MLA (absorbed and non-absorbed), DeepSeek sparse attention (DSA) and sliding windows, for
// prefill (causal, chunked onto a cached prefix) and decode, over a paged KV cache.
//
// A batch is a list of sequence groups: `count` sequences that each add `new_tokens` queries
// on top of `context_tokens` already cached (decode: new_tokens = 1; prefill chunk: the chunk
// on top of its prefix). Query j (0-based) of a causal group sees c + j + 1 keys, capped at the
// window W (sliding window) or at the top-k selected tokens (DSA):
//
//   pairs = sum_{x = c+1}^{c+n} min(x, W)        (non-causal: n x min(c + n, W))
//
// FLOP per (query, key) pair per query head:
//   MHA/GQA/MQA:        2 d_qk (Q K^T) + 2 d_v (P V)
//   MLA absorbed:       2 (r + d_rope) + 2 r       (r = kv_lora_rank: q and output stay latent,
//                                                    W_UK / W_UV folded into the projections)
//   MLA non-absorbed:   2 (d_nope + d_rope) + 2 d_v (K, V expanded per head from the latent)
//   DSA indexer:        + 2 index_n_heads index_head_dim per (query, key) over the whole context
//
// Minimum DRAM bytes: Q read and O written once, each distinct cached token read once (the KV
// cache at its dtype; MLA: the latent, shared by all heads), new tokens' K/V written once, and
// the indexer's keys over the whole context. A lower bound: flash kernels re-read K/V once per
// query tile, which tile models (below) add.
//
// Softmax exponentials run on the vector pipe and are not counted (under 1% of the tensor FLOP
// for d >= 64; the reason FlashAttention-3 overlaps them).

#include <algorithm>  // std::min, std::max
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/model_config.hpp"

namespace roofline {

/// The attention of one layer on one GPU (heads already divided by tensor parallelism).
struct attention_shape {
    attention_kind kind = attention_kind::gqa;
    double heads = 0;       ///< query heads on this GPU
    double kv_heads = 0;    ///< GQA KV heads on this GPU (MHA: = heads; MQA: 1); unused for MLA
    double head_dim = 0;    ///< GQA d_qk = d_v
    // MLA
    double kv_lora_rank = 0;
    double qk_nope_head_dim = 0;
    double qk_rope_head_dim = 0;
    double v_head_dim = 0;
    bool absorbed = true;   ///< MLA: absorbed (decode) or expanded (prefill) form
    // limits
    double window = 0;      ///< sliding window in tokens; 0 = none
    double index_topk = 0;  ///< DSA: tokens selected per query; 0 = dense attention
    double index_n_heads = 0;
    double index_head_dim = 0;
    double index_key_bytes = 0;  ///< bytes per cached indexer key (132 for FP8 + scale)
    bool causal = true;
};

/// A group of identical sequences in a batch.
struct sequence_group {
    double count = 1;           ///< sequences in the group
    double new_tokens = 1;      ///< queries each adds this step (decode: 1)
    double context_tokens = 0;  ///< tokens already cached before this step
};

/// Sum over x = a..b of min(x, cap) (cap <= 0: no cap), in closed form.
inline double capped_range_sum(double a, double b, double cap) {
    if (b < a) return 0.0;
    auto sum = [](double lo, double hi) { return hi < lo ? 0.0 : (lo + hi) * (hi - lo + 1) / 2.0; };
    if (cap <= 0.0 || b <= cap) return sum(a, b);
    if (a > cap) return (b - a + 1) * cap;
    return sum(a, cap) + (b - cap) * cap;
}

/// (query, key) pairs one sequence of a group scores, with the key span capped at `cap`.
inline double attention_pairs(const sequence_group& g, double cap, bool causal) {
    const double n = g.new_tokens, c = g.context_tokens;
    if (n <= 0) return 0.0;
    if (causal) return capped_range_sum(c + 1, c + n, cap);
    const double keys = cap > 0 ? std::min(c + n, cap) : c + n;
    return n * keys;
}

/// KV-cache bytes per cached token on this GPU for the shape, at `kv` dtype.
inline double attention_kv_bytes_per_token(const attention_shape& s, dtype kv) {
    if (s.kind == attention_kind::mla) return (s.kv_lora_rank + s.qk_rope_head_dim) * bytes_per_element(kv);
    return 2.0 * s.kv_heads * s.head_dim * bytes_per_element(kv);
}

/// FLOP per (query, key) pair, all query heads on this GPU.
inline double attention_flops_per_pair(const attention_shape& s) {
    if (s.kind == attention_kind::mla) {
        if (s.absorbed) return s.heads * (2.0 * (s.kv_lora_rank + s.qk_rope_head_dim) + 2.0 * s.kv_lora_rank);
        return s.heads * (2.0 * (s.qk_nope_head_dim + s.qk_rope_head_dim) + 2.0 * s.v_head_dim);
    }
    return s.heads * 4.0 * s.head_dim;
}

/// The work of attention (main attention and, for DSA, the indexer) over `groups`.
///  * `kv`: KV-cache dtype; `act`: dtype of Q and O; `math`: rate class of the products
///    (bf16 for FlashAttention/FlashMLA); `index_math`: rate class of the indexer (fp8 in
///    DeepSeek-V3.2's DeepGEMM kernel).
/// Launches: one for attention, two more (scores, top-k) for the indexer.
/// Throws `usage_error` for a shape without heads.
inline workload attention_workload(const attention_shape& s, const std::vector<sequence_group>& groups,
                                   dtype kv, dtype act = dtype::bf16, peak_key math = peak_key::bf16,
                                   peak_key index_math = peak_key::fp8) {
    if (!(s.heads > 0)) throw usage_error("attention: heads must be positive");
    workload w;
    const double act_b = bytes_per_element(act);
    const double kv_tok = attention_kv_bytes_per_token(s, kv);
    const double cap = s.index_topk > 0 ? s.index_topk : s.window;
    const bool mla = s.kind == attention_kind::mla;
    const double q_dim = mla ? (s.absorbed ? s.kv_lora_rank + s.qk_rope_head_dim : s.qk_nope_head_dim + s.qk_rope_head_dim)
                             : s.head_dim;
    const double o_dim = mla ? (s.absorbed ? s.kv_lora_rank : s.v_head_dim) : s.head_dim;
    double any = 0;
    for (const auto& g : groups) {
        if (g.count <= 0 || g.new_tokens <= 0) continue;
        any += g.count;
        const double n = g.new_tokens, total = g.context_tokens + g.new_tokens;
        const double pairs = attention_pairs(g, cap, s.causal);
        w.flops_at(math) += g.count * pairs * attention_flops_per_pair(s);
        // Distinct cached tokens read: the window's span, the DSA selection, or everything.
        double keys_read = total;
        if (s.window > 0) keys_read = std::min(total, s.window + n - 1);
        if (s.index_topk > 0) keys_read = std::min(total, s.index_topk * n);
        double bytes = keys_read * kv_tok                  // KV read
                       + n * kv_tok                        // new K/V (latent) written
                       + n * s.heads * (q_dim + o_dim) * act_b;  // Q read, O written
        if (s.index_topk > 0) {
            const double ipairs = attention_pairs(g, 0.0, s.causal);
            w.flops_at(index_math) += g.count * ipairs * 2.0 * s.index_n_heads * s.index_head_dim;
            bytes += total * s.index_key_bytes                            // indexer keys read
                     + n * s.index_key_bytes                              // new keys written
                     + n * s.index_n_heads * s.index_head_dim * 1.0       // FP8 indexer queries
                     + n * s.index_topk * 4.0;                            // selected indices (int32)
        }
        w.bytes_at(memory_level::dram) += g.count * bytes;
    }
    if (any > 0) w.launches = s.index_topk > 0 ? 3 : 1;
    return w;
}

}  // namespace roofline
