#pragma once
// What a served model needs in GPU memory: weights under a parallel layout, the KV cache of the
// sequences in flight, and the activations of the largest step; and whether that fits.
//
// Weights per GPU (heaviest pipeline stage; layout conventions of models/transformer.hpp):
//   routed experts                     / (tp dp)   (E / ep experts, each split over tp dp / ep)
//   TP-split matrices (attention heads, dense MLP, shared experts, embedding, lm_head)  / tp
//   GQA k_proj / v_proj                x kv_heads_per_gpu / kv_heads (replicated when kv < tp)
//   replicated (MLA q_a / kv_a, DSA indexer, router, norms)                            x 1
// Stage s of pp holds layers [s ceil(L/pp), (s+1) ceil(L/pp)); the first also the embedding,
// the last lm_head and the final norm. MTP draft layers are not loaded (speculative decoding off).
//
// KV cache per GPU: the sequences of this GPU's DP replica (C / dp per instance), each at its full
// ISL + OSL tokens (what it holds when it finishes), at its TP share (the MLA latent is replicated
// on every TP rank, models/kv_cache.hpp) and PP share of the layers.
//
// Activations (our estimate, not a kernel's measured workspace): the largest live tensors of one
// layer for the step's tokens on this GPU:
//   a = b_act [ T_dp (4 h) + max(3 T_dp i / tp, 3 T k / ep x i_moe / moe_tp, 2 T_dp H/tp (d_qk + d_v)) ]
//       + 2 x 4 B x rows x V / tp
// (residual, normed input, attention output and MLP output of the hidden size; the widest
// intermediate: gate/up/SiLU of a dense MLP, of the routed experts, or Q/K/V/O of prefill
// attention; FP32 logits and probabilities of the sampled rows).
//
// Fit, as vLLM budgets it (`gpu_memory_utilization`, default 0.9): weights + activations +
// KV cache <= 0.9 x memory; the rest holds the CUDA context, CUDA graphs and NCCL buffers.

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cmath>      // std::ceil
#include <cstdint>    // std::uint8_t
#include <string_view>  // std::string_view
#include <vector>     // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/parameters.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

/// vLLM's default `gpu_memory_utilization` (vllm/config: 0.9): the share of GPU memory the
/// engine budgets for weights, activations and the KV cache.
inline constexpr double default_memory_utilization = 0.9;

/// One decoder layer's weight bytes, by how a layout divides them.
struct layer_weight_shares {
    double tp_split_bytes = 0;    ///< divided by tp
    double replicated_bytes = 0;  ///< on every GPU
    double kv_proj_bytes = 0;     ///< GQA k_proj / v_proj: x kv_heads_per_gpu / kv_heads
    double routed_bytes = 0;      ///< routed experts: divided by tp x dp
};

/// A model's weights, digested once so that bytes per GPU under any layout cost O(pp).
struct weight_inventory {
    std::vector<layer_weight_shares> prefix;  ///< prefix[i] = sum over main layers [0, i)
    double embedding_bytes = 0;   ///< vocabulary-parallel: / tp
    double lm_head_bytes = 0;     ///< / tp; 0 when tied to the embedding
    double final_norm_bytes = 0;
    bool tied = false;
    int num_layers = 0;
    int num_kv_heads = 0;
    bool gqa = true;

    /// Share of the GQA k/v projections one GPU holds at TP degree `tp`: max(1, ceil(kv / tp)) / kv.
    double kv_proj_share(int tp) const {
        if (!gqa || num_kv_heads <= 0) return 1.0;
        return std::max(1.0, std::ceil(static_cast<double>(num_kv_heads) / tp)) / num_kv_heads;
    }

    /// Weight bytes of stage `stage` of `l.pp` on one GPU.
    double stage_bytes_per_gpu(const parallel_layout& l, int stage) const {
        const int per = (num_layers + l.pp - 1) / l.pp;
        const int first = std::min(num_layers, stage * per), last = std::min(num_layers, first + per);
        const auto& a = prefix[static_cast<std::size_t>(first)];
        const auto& b = prefix[static_cast<std::size_t>(last)];
        double bytes = (b.tp_split_bytes - a.tp_split_bytes) / l.tp + (b.replicated_bytes - a.replicated_bytes) +
                       (b.kv_proj_bytes - a.kv_proj_bytes) * kv_proj_share(l.tp) +
                       (b.routed_bytes - a.routed_bytes) / (static_cast<double>(l.tp) * l.dp);
        if (stage == 0) bytes += embedding_bytes / l.tp;
        if (stage == l.pp - 1) {
            bytes += lm_head_bytes / l.tp + final_norm_bytes;
            if (tied && l.pp > 1) bytes += embedding_bytes / l.tp;  // the head reuses the table
        }
        return bytes;
    }

    /// Weight bytes per GPU under `l`: the heaviest pipeline stage.
    double bytes_per_gpu(const parallel_layout& l) const {
        double worst = 0;
        for (int s = 0; s < l.pp; ++s) worst = std::max(worst, stage_bytes_per_gpu(l, s));
        return worst;
    }
};

/// Digests `c`'s weights under its quantisation (models/parameters.hpp inventory).
inline weight_inventory weight_inventory_of(const model_config& c) {
    weight_inventory w;
    w.num_layers = c.num_layers;
    w.num_kv_heads = c.num_kv_heads;
    w.gqa = c.attention == attention_kind::gqa;
    w.tied = c.tie_word_embeddings;
    w.prefix.assign(static_cast<std::size_t>(c.num_layers) + 1, {});
    const auto ends_with = [](std::string_view s, std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    for (int i = 0; i < c.num_layers; ++i) {
        layer_weight_shares s = w.prefix[static_cast<std::size_t>(i)];
        for (const auto& t : layer_weights(c, i)) {
            const double b = weight_bytes_per_copy(c.quant, t) * t.copies;
            if (t.cls == module_class::routed_experts) s.routed_bytes += b;
            else if (w.gqa && (ends_with(t.name, "k_proj") || ends_with(t.name, "v_proj"))) s.kv_proj_bytes += b;
            else if (t.tp_split) s.tp_split_bytes += b;
            else s.replicated_bytes += b;
        }
        w.prefix[static_cast<std::size_t>(i) + 1] = s;
    }
    for (const auto& t : model_edge_weights(c)) {
        const double b = weight_bytes_per_copy(c.quant, t) * t.copies;
        if (t.cls == module_class::embedding) w.embedding_bytes = b;
        else if (t.cls == module_class::lm_head) w.lm_head_bytes = b;
        else w.final_norm_bytes += b;
    }
    return w;
}

/// Weight bytes per GPU of `c` under `l` (heaviest pipeline stage). Throws `usage_error` for an
/// invalid layout.
inline double weight_bytes_per_gpu(const model_config& c, const parallel_layout& l) {
    l.validate();
    return weight_inventory_of(c).bytes_per_gpu(l);
}

/// Share of the model's KV bytes per token one GPU of a TP group holds (`kv_per_gpu` over
/// `kv_bytes_per_token`): 1 under MLA (the latent is replicated), max(1, ceil(kv / tp)) / kv under GQA.
inline double kv_share_per_gpu(const model_config& c, dtype kv, int tp) {
    const double all = kv_bytes_per_token(c, kv);
    return all > 0 ? kv_per_gpu(c, kv, tp).bytes_per_token_per_gpu / all : 0.0;
}

/// KV-cache bytes one sequence of `context_tokens` occupies on one GPU under `l`.
inline double kv_bytes_per_sequence_per_gpu(const model_config& c, dtype kv, const parallel_layout& l,
                                            double context_tokens) {
    return kv_bytes_for_context_per_gpu(c, context_tokens, kv, l.tp) / l.pp;
}

/// Activation bytes one GPU holds for a step of `tokens` new tokens (all DP replicas of the
/// instance together) sampling `sampled_rows` rows, under `l` (estimate in the header comment).
inline double activation_bytes_per_gpu(const model_config& c, const parallel_layout& l, double tokens,
                                       double sampled_rows, dtype act = dtype::bf16) {
    const double b = bytes_per_element(act), h = c.hidden_size, t_dp = tokens / l.dp;
    double widest = 0;
    if (c.intermediate_size > 0) widest = 3.0 * t_dp * c.intermediate_size / l.tp;
    if (c.is_moe())
        widest = std::max(widest, 3.0 * tokens * c.experts_per_token / l.ep * c.moe_intermediate_size / l.moe_tp());
    const double heads = static_cast<double>(c.num_attention_heads) / l.tp;
    widest = std::max(widest, 2.0 * t_dp * heads * (c.qk_head_dim() + c.v_dim()));
    return b * (4.0 * t_dp * h + widest) + 2.0 * 4.0 * (sampled_rows / l.dp) * c.vocab_size / l.tp;
}

/// What does not fit, if anything.
enum class memory_verdict : std::uint8_t { fits, weights, activations, kv_cache };

/// "fits", "weights", "activations", "kv_cache".
constexpr std::string_view to_string(memory_verdict v) {
    constexpr std::array<std::string_view, 4> names = {"fits", "weights", "activations", "kv_cache"};
    return names[static_cast<std::size_t>(v)];
}

/// The memory of one GPU, with the numbers behind the verdict (bytes).
struct memory_fit {
    double usable_bytes = 0;      ///< utilisation x capacity
    double weight_bytes = 0;
    double activation_bytes = 0;
    double kv_bytes = 0;          ///< the KV cache of the sequences this GPU holds
    double kv_bytes_per_sequence = 0;
    double sequences = 0;         ///< sequences whose KV this GPU holds
    /// Sequences the KV cache can hold beside weights and activations (0 when none).
    double max_sequences = 0;
    memory_verdict verdict = memory_verdict::fits;
    bool fits() const { return verdict == memory_verdict::fits; }
};

/// Checks weights + activations + `sequences` x `kv_bytes_per_sequence` against
/// `utilization` x `capacity_bytes`, in that order (the first that overflows is the verdict).
inline memory_fit check_memory(double capacity_bytes, double weight_bytes, double activation_bytes,
                               double kv_bytes_per_sequence, double sequences,
                               double utilization = default_memory_utilization) {
    memory_fit m;
    m.usable_bytes = utilization * capacity_bytes;
    m.weight_bytes = weight_bytes;
    m.activation_bytes = activation_bytes;
    m.kv_bytes_per_sequence = kv_bytes_per_sequence;
    m.sequences = sequences;
    m.kv_bytes = kv_bytes_per_sequence * sequences;
    const double room = m.usable_bytes - weight_bytes - activation_bytes;
    m.max_sequences = room > 0 && kv_bytes_per_sequence > 0 ? room / kv_bytes_per_sequence : 0.0;
    if (weight_bytes > m.usable_bytes) m.verdict = memory_verdict::weights;
    else if (room < 0) m.verdict = memory_verdict::activations;
    else if (m.kv_bytes > room) m.verdict = memory_verdict::kv_cache;
    return m;
}

}  // namespace roofline
