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
#include <cmath>      // std::ceil
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

/// The most new tokens per sequence a step runs as decode (MLA absorbed, reading the cached KV
/// as decode does): plain decode (1) and speculative verification (the drafted tokens + 1; MTP
/// heads and draft models verify 2-8). Longer groups are prefill (MLA expanded).
inline constexpr double max_decode_step_tokens = 16;

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


// ---------------------------------------------------------------------------------------------
// Tile feasibility (FlashAttention-style kernels, e.g. SGLang's Triton extend/prefill attention)
//
// One CTA takes BLOCK_M queries of one head and walks the keys in BLOCK_N slices. Shared memory
// holds, in 16-bit elements:
//   Q (BM x d) + Q_pe (BM x d_pe) + stages x [K (BN x d) + K_pe (BN x d_pe) + V (BN x d_v)]
//   + P (BM x BN, the probabilities staged as an MMA operand)
// d_pe is MLA's rope part when the kernel keeps it apart (SGLang's BLOCK_DPE). Case C07
// (sgl-project/sglang#17908, #27962): the extend kernel's Hopper-sized 128 x 64 block with
// d = 128, d_pe = 64, d_v = 128 needs 32,768 + 16,384 + 16,384 + 8,192 + 16,384 + 16,384
// = 106,496 B and the prefill kernel's 128 x 128 block with d = d_v = 128 needs 131,072 B; SM120
// allows 101,376 B per block. Every query tile re-reads the K/V it attends from L2.
// ---------------------------------------------------------------------------------------------

/// A FlashAttention CTA tile.
struct attention_tile {
    int block_m = 128;  ///< queries per CTA
    int block_n = 64;   ///< keys per step
    int stages = 1;     ///< K/V buffers in flight
};

/// Shared-memory feasibility of an attention tile, with the numbers behind it.
struct attention_tile_feasibility {
    attention_tile tile;
    bool fits = false;
    std::string reason;
    double q_bytes = 0, kv_bytes = 0, p_bytes = 0;
    double smem_bytes = 0;
    double smem_limit_bytes = 0;
};

/// Shared memory of `t` for head dims `d` (Q/K), `d_pe` (separate rope part, 0 if none) and `d_v`,
/// at `elem_bytes` per element (2 for bf16/fp16), against `smem_limit_bytes` per block.
inline attention_tile_feasibility attention_tile_fits(const attention_tile& t, double d, double d_pe, double d_v,
                                                      double smem_limit_bytes, double elem_bytes = 2.0) {
    attention_tile_feasibility f;
    f.tile = t;
    const double bm = t.block_m, bn = t.block_n;
    f.q_bytes = bm * (d + d_pe) * elem_bytes;
    f.kv_bytes = t.stages * bn * (d + d_pe + d_v) * elem_bytes;
    f.p_bytes = bm * bn * elem_bytes;
    f.smem_bytes = f.q_bytes + f.kv_bytes + f.p_bytes;
    f.smem_limit_bytes = smem_limit_bytes;
    f.fits = t.block_m > 0 && t.block_n > 0 && t.stages > 0 && f.smem_bytes <= smem_limit_bytes;
    if (!f.fits)
        f.reason = std::to_string(t.block_m) + " x " + std::to_string(t.block_n) + " block needs " +
                   std::to_string(static_cast<long long>(f.smem_bytes)) + " B of shared memory > " +
                   std::to_string(static_cast<long long>(smem_limit_bytes)) + " B per block";
    return f;
}

/// The first tile of the usual sequence (128x128, 128x64, 64x64, 64x32, 32x32, 16x16: the order
/// the Triton kernels fall back through) that fits; `rejected` receives the ones that did not.
/// Throws `usage_error` when none fits.
inline attention_tile_feasibility choose_attention_tile(double d, double d_pe, double d_v, double smem_limit_bytes,
                                                        std::vector<attention_tile_feasibility>* rejected = nullptr,
                                                        int stages = 1, double elem_bytes = 2.0) {
    const attention_tile order[] = {{128, 128, stages}, {128, 64, stages}, {64, 64, stages},
                                    {64, 32, stages},   {32, 32, stages},  {16, 16, stages}};
    for (const auto& t : order) {
        auto f = attention_tile_fits(t, d, d_pe, d_v, smem_limit_bytes, elem_bytes);
        if (f.fits) return f;
        if (rejected) rejected->push_back(f);
    }
    throw usage_error("attention: no tile fits " + std::to_string(static_cast<long long>(smem_limit_bytes)) +
                      " B of shared memory");
}

/// Bytes query tiles of `block_m` re-read from L2 for one sequence group: every tile of one head
/// loads the keys it attends (causal: the tile's mean span), K and V at `kv_elem_bytes`:
///   heads x sum over tiles of keys x (d + d_v) x b
inline double attention_tile_kv_reads(const attention_shape& s, const sequence_group& g, int block_m,
                                      double kv_elem_bytes = 2.0) {
    const double n = g.new_tokens, c = g.context_tokens;
    if (n <= 0 || block_m <= 0) return 0.0;
    const double tiles = std::ceil(n / block_m);
    const double cap = s.index_topk > 0 ? s.index_topk : s.window;
    // keys seen per tile: context plus the tile's queries so far (causal), averaged over tiles
    double keys = s.causal ? c + n / 2.0 + block_m / 2.0 : c + n;
    keys = std::min(keys, c + n);
    if (cap > 0) keys = std::min(keys, cap + block_m);
    const bool mla = s.kind == attention_kind::mla;
    const double dqk = mla ? s.qk_nope_head_dim + s.qk_rope_head_dim : s.head_dim;
    const double dv = mla ? s.v_head_dim : s.head_dim;
    return g.count * s.heads * tiles * keys * (dqk + dv) * kv_elem_bytes;
}

}  // namespace roofline
