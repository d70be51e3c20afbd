#pragma once
// One serving step of a transformer LM on one GPU: the phases, per layer and in total.
//
// A step processes a batch of sequence groups (decode sequences with their context lengths,
// prefill chunks on top of their cached prefixes) under a parallel layout, and is split into
// the phases an engine's trace shows:
//
//   attention         score and value products over the KV cache (incl. the DSA indexer)
//   dense_gemm        QKV/O projections (MLA: q_a, q_b, kv_a, kv_b, o), indexer projections,
//                     dense MLP layers, lm_head
//   moe_gemm          router, routed experts (grouped GEMM), shared experts
//   communication     TP all-reduces, EP all-to-all dispatch/combine, DP gathers, logits gather
//   norm_elementwise  RMSNorms with residual adds, rotary embedding, SiLU-and-mul, top-k routing
//   sampling          softmax and sampling over the vocabulary
//
// Each phase is a `workload` (FLOP per rate class, DRAM bytes, link bytes, launches, latency)
// for one GPU; `time_lower_bound` prices it.
//
// Mixed prefill + decode steps (case C14): engines run every token of the step through one GEMM,
// so weights are read once per step and GEMM FLOP scale with the summed token count; attention
// is priced per sequence. A mixed step therefore costs about the larger of its parts, not the sum.
//
// Parallel layout (per pipeline stage, tp x dp GPUs):
//  * tp: attention heads and dense weights are split over tp ranks (vLLM/SGLang TP). MLA's
//    q_a/kv_a projections and the DSA indexer are replicated (ReplicatedLinear), and so is the
//    MLA latent KV cache (models/kv_cache.hpp).
//  * dp: data-parallel attention replicas (SGLang --enable-dp-attention): each takes 1/dp of
//    the sequences. With dp = 1 every TP rank sees every token.
//  * ep: the routed experts are split over ep of the tp x dp GPUs; each expert's FFN is further
//    split over moe_tp = tp dp / ep GPUs. Shared experts are split like dense weights (tp).
//  * pp: layers are split into pp stages of ceil(L / pp); the modeled stage (default: the
//    last, which also runs lm_head and sampling) is reported. Pipeline bubbles are not modeled.
// Routing is uniform: each GPU gets T k / ep token-expert pairs, and expects
// (E / ep)(1 - (1 - k/E)^T) active experts.

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cmath>      // std::ceil
#include <cstdio>     // std::snprintf
#include <cstdint>    // std::uint8_t
#include <optional>   // std::optional
#include <string>     // std::string
#include <string_view>  // std::string_view
#include <vector>     // std::vector

#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/linear_attention.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/parameters.hpp"

namespace roofline {

/// The phases of a step, in the order they are reported.
enum class step_phase : std::uint8_t { attention, dense_gemm, moe_gemm, communication, norm_elementwise, sampling };

inline constexpr std::size_t step_phase_count = 6;

inline constexpr std::array<step_phase, step_phase_count> all_step_phases = {
    step_phase::attention,     step_phase::dense_gemm,       step_phase::moe_gemm,
    step_phase::communication, step_phase::norm_elementwise, step_phase::sampling};

/// "attention", "dense_gemm", "moe_gemm", "communication", "norm_elementwise", "sampling".
constexpr std::string_view to_string(step_phase p) {
    constexpr std::array<std::string_view, step_phase_count> names = {
        "attention", "dense_gemm", "moe_gemm", "communication", "norm_elementwise", "sampling"};
    return names[static_cast<std::size_t>(p)];
}

/// The sequences one step processes.
struct step_batch {
    std::vector<sequence_group> groups;

    /// `sequences` decode sequences, each with `context_tokens` cached (one new token each).
    static step_batch decode(double sequences, double context_tokens) {
        step_batch b;
        b.add_decode(sequences, context_tokens);
        return b;
    }
    /// `sequences` prompts of `prompt_tokens` each on top of `cached_prefix` cached tokens.
    static step_batch prefill(double sequences, double prompt_tokens, double cached_prefix = 0) {
        step_batch b;
        b.add_prefill(sequences, prompt_tokens, cached_prefix);
        return b;
    }
    step_batch& add_decode(double sequences, double context_tokens) {
        groups.push_back({sequences, 1, context_tokens});
        return *this;
    }
    step_batch& add_prefill(double sequences, double prompt_tokens, double cached_prefix = 0) {
        groups.push_back({sequences, prompt_tokens, cached_prefix});
        return *this;
    }

    /// New tokens in the step (the GEMM M dimension, summed over all groups).
    double tokens() const {
        double t = 0;
        for (const auto& g : groups) t += g.count * g.new_tokens;
        return t;
    }
    /// Sequences that sample a token this step (every decode and every prompt it finishes).
    double sampled_sequences() const {
        double s = 0;
        for (const auto& g : groups) s += g.count;
        return s;
    }
};

/// How the model is spread over GPUs (conventions in the header comment).
struct parallel_layout {
    int tp = 1, ep = 1, dp = 1, pp = 1;

    int gpus() const { return tp * dp * pp; }
    /// GPUs that share one expert's FFN: tp dp / ep.
    int moe_tp() const { return tp * dp / ep; }

    /// Throws `usage_error` unless every degree is >= 1 and ep divides tp x dp.
    void validate() const {
        if (tp < 1 || ep < 1 || dp < 1 || pp < 1) throw usage_error("parallel layout: tp, ep, dp, pp must be >= 1");
        if ((tp * dp) % ep != 0)
            throw usage_error("parallel layout: ep (" + std::to_string(ep) + ") must divide tp x dp (" +
                              std::to_string(tp * dp) + ")");
    }
    /// Throws `usage_error` (naming `what`, e.g. "--pp") unless the layout can run `m`: at most one
    /// pipeline stage per decoder layer (a stage would hold none), and no expert parallelism on a
    /// model without experts.
    void validate_for(const model_config& m, const std::string& what = "layout") const {
        try {
            validate();
        } catch (const usage_error& e) {
            throw usage_error(what + ": " + e.what());
        }
        if (m.num_layers > 0 && pp > m.num_layers)
            throw usage_error(what + ": pp " + std::to_string(pp) + " is more pipeline stages than the model's " +
                              std::to_string(m.num_layers) + " layers: a stage would hold none");
        if (!m.is_moe() && ep > 1)
            throw usage_error(what + ": ep " + std::to_string(ep) + " on a model without experts (dense): expert "
                                     "parallelism needs MoE layers");
    }
};

/// What tensor parallelism `tp` does not divide evenly among `m`'s attention heads, as a
/// sentence ("TP3 does not divide the model's 64 query heads ..."); empty when it divides (MLA
/// shares one latent, so only its query heads count). Engines refuse such a layout or pad heads;
/// the step model splits the work evenly regardless.
inline std::string tp_head_split_problem(const model_config& m, int tp) {
    std::string bad;
    if (tp > 1 && m.num_attention_heads > 0 && m.num_attention_heads % tp != 0)
        bad = std::to_string(m.num_attention_heads) + " query heads";
    if (tp > 1 && m.attention != attention_kind::mla && m.num_kv_heads > 0 &&
        ((m.num_kv_heads >= tp && m.num_kv_heads % tp != 0) || (m.num_kv_heads < tp && tp % m.num_kv_heads != 0)))
        bad += (bad.empty() ? "" : " and the ") + std::to_string(m.num_kv_heads) + " KV heads";
    if (bad.empty()) return {};
    const auto per = [&](int heads) {
        char b[32];
        std::snprintf(b, sizeof b, "%.2f", static_cast<double>(heads) / tp);
        return std::string(b);
    };
    return "TP" + std::to_string(tp) + " does not divide the model's " + bad + " (per GPU: " +
           per(m.num_attention_heads) + " query, " + per(m.num_kv_heads) +
           " KV heads): serving engines refuse this layout or pad heads; the model splits the work evenly, as if "
           "it divided";
}

/// Options of the step model.
struct step_options {
    dtype activations = dtype::bf16;   ///< dtype of activations between kernels and of attention math
    std::optional<dtype> kv_cache;     ///< default: the model's quantisation `kv_cache`
    std::optional<link_kind> link;     ///< default: the GPU's default link
    std::optional<link_params> link_override;  ///< e.g. from calibration
    bool mla_absorbed_decode = true;   ///< MLA: absorbed form for decode, expanded for prefill
    int stage = -1;                    ///< pipeline stage to model; -1 = the last
    bool include_mtp = false;          ///< also run the MTP draft layer(s) once
};

/// One phase's work on one GPU.
struct phase_work {
    step_phase phase = step_phase::attention;
    workload work;
};

/// The phases of one layer on one GPU.
struct layer_step {
    int layer = 0;
    mlp_kind mlp = mlp_kind::dense;
    layer_attention span = layer_attention::full;
    std::array<workload, step_phase_count> phases{};

    const workload& at(step_phase p) const { return phases[static_cast<std::size_t>(p)]; }
    workload& at(step_phase p) { return phases[static_cast<std::size_t>(p)]; }
    workload total() const {
        workload w;
        for (const auto& p : phases) w += p;
        return w;
    }
};

/// One step on one GPU of the modeled stage.
struct step_model {
    parallel_layout layout;
    int first_layer = 0, last_layer = 0;   ///< modeled stage holds layers [first, last)
    double tokens = 0;                     ///< new tokens in the whole step (all DP replicas)
    double tokens_per_replica = 0;         ///< tokens / dp: the dense GEMM M on one GPU
    dtype kv_cache = dtype::bf16;
    link_params link;
    std::vector<layer_step> layers;        ///< per layer of the stage
    /// Work outside the decoder layers: embedding, final norm, lm_head, logits gather, sampling,
    /// pipeline hand-off.
    std::array<workload, step_phase_count> extras{};
    std::array<workload, step_phase_count> totals{};  ///< per GPU: layers + extras
    std::vector<std::string> notes;        ///< fallbacks, replication, assumptions that apply

    const workload& total(step_phase p) const { return totals[static_cast<std::size_t>(p)]; }
    workload total() const {
        workload w;
        for (const auto& p : totals) w += p;
        return w;
    }
};

namespace detail::step {

inline void note_once(std::vector<std::string>& notes, const std::string& n) {
    if (n.empty()) return;
    for (const auto& e : notes)
        if (e == n) return;
    notes.push_back(n);
}

inline bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Work of one linear layer on `tokens` tokens, with `shard` of its weights on this GPU.
inline workload linear_work(const model_config& c, const weight_tensor& t, double tokens, double shard,
                            const gpu_spec& g, dtype act, std::vector<std::string>& notes) {
    const dtype wd = weight_dtype(c.quant, t);
    const dtype ad = (wd == c.quant.weights && c.quant.quantized()) ? c.quant.activations : act;
    const auto path = gemm_compute_path(wd, ad, g);
    note_once(notes, path.note.empty() ? "" : t.name.substr(t.name.rfind('.') + 1) + ": " + path.note);
    const bool row_parallel = ends_with(t.name, "o_proj") || ends_with(t.name, "out_proj") || ends_with(t.name, "down_proj");
    workload w;
    w.flops_at(path.peak) = 2.0 * tokens * t.in_features * t.out_features * shard;
    const double act_b = bytes_per_element(act);
    w.bytes_at(memory_level::dram) = weight_bytes_per_copy(c.quant, t) * shard +
                                     tokens * act_b *
                                         (t.in_features * (row_parallel ? shard : 1.0) +
                                          t.out_features * (row_parallel ? 1.0 : shard));
    w.launches = 1;
    return w;
}

inline workload collective_work(collective_op op, double bytes, int ranks, const link_params& p) {
    if (ranks <= 1 || bytes <= 0) return {};
    return best_collective(op, bytes, ranks, p).work();
}

}  // namespace detail::step

/// The attention of one layer of `c` as one GPU of a TP group of `tp` sees it: heads / tp query
/// heads, `kv_heads_per_gpu` KV heads (models/kv_cache.hpp `kv_per_gpu`), the MLA and DSA indexer
/// dimensions, and the sliding window where the layer's `span` is sliding.
inline attention_shape attention_shape_per_gpu(const model_config& c, double tp, double kv_heads_per_gpu,
                                               layer_attention span) {
    attention_shape a;
    a.kind = c.attention;
    a.heads = static_cast<double>(c.num_attention_heads) / tp;
    a.kv_heads = kv_heads_per_gpu;
    a.head_dim = c.head_dim;
    a.kv_lora_rank = c.kv_lora_rank;
    a.qk_nope_head_dim = c.qk_nope_head_dim;
    a.qk_rope_head_dim = c.qk_rope_head_dim;
    a.v_head_dim = c.v_head_dim;
    a.window = span == layer_attention::sliding ? c.sliding_window : 0;
    a.index_topk = c.index_topk;
    a.index_n_heads = c.index_n_heads;
    a.index_head_dim = c.index_head_dim;
    a.index_key_bytes = indexer_key_bytes_per_token(c);
    return a;
}

/// Models one step of `c` on GPU `g` for `batch` under `layout` (see the header comment).
/// Throws `usage_error` for an invalid layout, an empty batch, or a link without bandwidth.
inline step_model model_step(const model_config& c, const step_batch& batch, const parallel_layout& layout,
                             const gpu_spec& g, const step_options& opt = {}) {
    using namespace detail::step;
    layout.validate();
    if (batch.tokens() <= 0) throw usage_error("step: the batch has no tokens");
    if (c.num_layers <= 0 || c.hidden_size <= 0) throw usage_error("step: the model has no layers");

    step_model s;
    s.layout = layout;
    s.kv_cache = opt.kv_cache.value_or(c.quant.kv_cache);
    s.link = opt.link_override ? *opt.link_override : link_params_or_unpriced(g, opt.link.value_or(g.default_link()));
    const int tp = layout.tp, dp = layout.dp, ep = layout.ep, moe_tp = layout.moe_tp();
    const double h = c.hidden_size, act_b = bytes_per_element(opt.activations);
    const double T = batch.tokens(), T_dp = T / dp;
    s.tokens = T;
    s.tokens_per_replica = T_dp;

    // Pipeline stage.
    const int per_stage = (c.num_layers + layout.pp - 1) / layout.pp;
    const int stage = opt.stage < 0 ? layout.pp - 1 : std::min(opt.stage, layout.pp - 1);
    s.first_layer = stage * per_stage;
    s.last_layer = std::min(c.num_layers, s.first_layer + per_stage);
    const bool last_stage = stage == layout.pp - 1, first_stage = stage == 0;
    if (layout.pp > 1) note_once(s.notes, "pipeline parallel: stage " + std::to_string(stage) + " of " +
                                              std::to_string(layout.pp) + " modeled; bubbles not modeled");

    // Sequences on this GPU's DP replica, and tokens the MLA kv_b expansion runs over.
    std::vector<sequence_group> decode_groups, prefill_groups;
    double kv_b_tokens = 0;
    for (auto gr : batch.groups) {
        gr.count /= dp;
        if (gr.count <= 0 || gr.new_tokens <= 0) continue;
        const bool decode = gr.new_tokens <= max_decode_step_tokens;  // or speculative verification
        (decode ? decode_groups : prefill_groups).push_back(gr);
        const bool absorbed = decode && opt.mla_absorbed_decode;
        kv_b_tokens += gr.count * (absorbed ? gr.new_tokens : gr.new_tokens + gr.context_tokens);
    }

    // KV heads per GPU.
    const auto kv_shard = kv_per_gpu(c, s.kv_cache, tp);
    note_once(s.notes, kv_shard.note);
    // The DSA indexer runs in FP8 (DeepSeek-V3.2 DeepGEMM fp8_mqa_logits) where the GPU has FP8.
    const peak_key index_math = g.peak(peak_key::fp8).supported ? peak_key::fp8 : peak_key::bf16;

    const auto add_layer = [&](int layer) {
        layer_step ls;
        ls.layer = layer;
        ls.mlp = c.mlp_at(layer);
        ls.span = c.attention_at(layer);
        const auto tensors = layer_weights(c, layer);

        // --- dense_gemm: attention / indexer / dense MLP / MTP projections ---
        for (const auto& t : tensors) {
            if (!t.linear) continue;
            if (t.cls != module_class::attention && t.cls != module_class::indexer && t.cls != module_class::dense_mlp)
                continue;
            double shard = t.tp_split ? 1.0 / tp : 1.0;
            if (c.attention == attention_kind::gqa && (ends_with(t.name, "k_proj") || ends_with(t.name, "v_proj")))
                shard = kv_shard.kv_heads_per_gpu / c.num_kv_heads;
            const bool kv_b = ends_with(t.name, "kv_b_proj");
            ls.at(step_phase::dense_gemm) +=
                linear_work(c, t, kv_b ? kv_b_tokens : T_dp, shard, g, opt.activations, s.notes);
        }

        // --- attention ---
        attention_shape a = attention_shape_per_gpu(c, tp, kv_shard.kv_heads_per_gpu, ls.span);
        const dtype kvd = s.kv_cache;
        auto& ne = ls.at(step_phase::norm_elementwise);
        if (ls.span == layer_attention::linear) {
            // Gated DeltaNet (models/linear_attention.hpp): the recurrence over every group, its
            // state instead of a KV cache; then the gated RMSNorm of the output (read o and z,
            // write), and the two fused add+RMSNorms below. No rope.
            const auto la = linear_attention_shape_per_gpu(c, tp);
            std::vector<sequence_group> all = decode_groups;
            all.insert(all.end(), prefill_groups.begin(), prefill_groups.end());
            ls.at(step_phase::attention) += linear_attention_workload(la, all, opt.activations, peak_of(opt.activations));
            ne.bytes_at(memory_level::dram) += 2 * 4 * T_dp * h * act_b + 3 * T_dp * la.value_dim() * act_b;
            ne.launches += 3;
        } else if (!decode_groups.empty()) {
            a.absorbed = opt.mla_absorbed_decode;
            ls.at(step_phase::attention) += attention_workload(a, decode_groups, kvd, opt.activations,
                                                               peak_of(opt.activations), index_math);
        }
        if (!prefill_groups.empty() && ls.span != layer_attention::linear) {
            a.absorbed = false;
            ls.at(step_phase::attention) += attention_workload(a, prefill_groups, kvd, opt.activations,
                                                               peak_of(opt.activations), index_math);
        }

        // --- norms and elementwise (bytes only: arithmetic intensity far below 1 FLOP/B) ---
        const double q_heads = a.heads;
        if (ls.span == layer_attention::linear) {
            // counted above
        } else if (c.attention == attention_kind::mla) {
            ne.bytes_at(memory_level::dram) += 2 * 4 * T_dp * h * act_b;  // 2 fused add+RMSNorm: read x, r; write y, r
            ne.launches += 2;
            ne.bytes_at(memory_level::dram) += 2 * T_dp * (c.q_lora_rank + c.kv_lora_rank) * act_b;  // latent norms
            ne.bytes_at(memory_level::dram) += 2 * T_dp * (q_heads + 1) * c.qk_rope_head_dim * act_b;  // rope
            ne.launches += 2;
        } else {
            ne.bytes_at(memory_level::dram) += 2 * 4 * T_dp * h * act_b;  // 2 fused add+RMSNorm: read x, r; write y, r
            ne.launches += 2;
            ne.bytes_at(memory_level::dram) += 2 * T_dp * (q_heads + a.kv_heads) * c.head_dim * act_b;  // rope
            ne.launches += 1;
            if (c.attn_output_gate) {  // sigmoid(gate) x output: read both, write
                ne.bytes_at(memory_level::dram) += 3 * T_dp * q_heads * c.head_dim * act_b;
                ne.launches += 1;
            }
        }

        // --- feed-forward ---
        if (ls.mlp == mlp_kind::dense) {
            const double di = static_cast<double>(c.intermediate_size) / tp;
            ne.bytes_at(memory_level::dram) += T_dp * 3 * di * act_b;  // SiLU-and-mul: read 2, write 1
            ne.launches += 1;
        } else {
            auto& moe = ls.at(step_phase::moe_gemm);
            const double E = c.num_experts, k = c.experts_per_token, mi = c.moe_intermediate_size;
            for (const auto& t : tensors) {
                if (t.cls == module_class::router) {
                    // Router GEMM in the unquantised dtype, replicated, on this replica's tokens.
                    workload r = gemm_workload({T_dp, E, h}, opt.activations, weight_dtype(c.quant, t), dtype::fp32,
                                               peak_of(c.quant.unquantized));
                    r.bytes_at(memory_level::dram) += t.bias_params * bytes_per_element(c.quant.unquantized);
                    moe += r;
                } else if (t.cls == module_class::shared_experts) {
                    moe += linear_work(c, t, T_dp, 1.0 / tp, g, opt.activations, s.notes);
                }
            }
            // Routed experts on this GPU: T k / ep pairs; (E/ep)(1 - (1 - k/E)^T) active experts.
            const double active_local = expected_active_experts(E, k, T) / ep;
            const double pairs = T * k / ep;
            const auto lp = summarize_layer(c, layer);
            dtype wd = c.quant.unquantized;
            double expert_macs = 0;  // multiply-adds per token through one expert: 3 h mi
            for (const auto& t : tensors)
                if (t.cls == module_class::routed_experts) {
                    wd = weight_dtype(c.quant, t);
                    expert_macs += t.in_features * t.out_features;
                }
            const dtype ad = (wd == c.quant.weights && c.quant.quantized()) ? c.quant.activations : opt.activations;
            const auto path = gemm_compute_path(wd, ad, g);
            note_once(s.notes, path.note.empty() ? "" : "experts: " + path.note);
            workload r;
            r.flops_at(path.peak) = 2.0 * pairs * expert_macs / moe_tp;
            r.bytes_at(memory_level::dram) = active_local * lp.expert_bytes / moe_tp  // weights of active experts
                                             + pairs * (2 * h + 3 * mi / moe_tp) * act_b;  // in, gate/up out, down in, out
            r.launches = 2;  // gate_up and down grouped GEMMs
            moe += r;
            // Routing top-k and SiLU-and-mul of the experts.
            ne.bytes_at(memory_level::dram) += T_dp * E * 4.0 * 2 + pairs * 3 * mi / moe_tp * act_b;
            if (c.num_shared_experts > 0) {
                const double si = static_cast<double>(c.num_shared_experts) * c.shared_expert_width() / tp;
                ne.bytes_at(memory_level::dram) += T_dp * 3 * si * act_b;
            }
            ne.launches += 2;
        }

        // --- communication ---
        auto& comm = ls.at(step_phase::communication);
        const double msg = T_dp * h * act_b;
        comm += collective_work(collective_op::all_reduce, msg, tp, s.link);  // after o_proj
        if (ls.mlp == mlp_kind::dense || dp == 1) {
            comm += collective_work(collective_op::all_reduce, msg, tp, s.link);  // after the MLP / MoE
        } else if (ep > 1) {
            // DP attention + EP: dispatch tokens to their experts and combine the outputs.
            const double disp = T_dp * c.experts_per_token * h;
            const dtype dd = detail::is_fp4(c.quant.activations) || detail::is_fp8(c.quant.activations)
                                 ? c.quant.activations : opt.activations;
            comm += collective_work(collective_op::all_to_all, disp * bytes_per_element(dd), ep, s.link);
            comm += collective_work(collective_op::all_to_all, disp * act_b, ep, s.link);
            if (moe_tp > 1) note_once(s.notes, "EP with moe_tp > 1: the intra-expert TP reduction is not modeled");
        } else {
            // DP attention without EP: gather every replica's tokens, MoE over tp x dp, scatter back.
            comm += collective_work(collective_op::all_gather, T * h * act_b, tp * dp, s.link);
            comm += collective_work(collective_op::reduce_scatter, T * h * act_b, tp * dp, s.link);
        }
        s.layers.push_back(ls);
    };

    for (int i = s.first_layer; i < s.last_layer; ++i) add_layer(i);
    if (opt.include_mtp && last_stage)
        for (int j = 0; j < c.mtp_layers; ++j) add_layer(c.num_layers + j);

    const auto at = [&](step_phase p) -> workload& { return s.extras[static_cast<std::size_t>(p)]; };
    if (first_stage) {
        // Embedding lookup: read one row per token, write the hidden state.
        at(step_phase::norm_elementwise).bytes_at(memory_level::dram) += 2 * T_dp * h * act_b;
        at(step_phase::norm_elementwise).launches += 1;
    }
    if (last_stage) {
        const double rows = batch.sampled_sequences() / dp;  // one logits row per sampled sequence
        at(step_phase::norm_elementwise).bytes_at(memory_level::dram) += 2 * T_dp * h * act_b;  // final norm
        at(step_phase::norm_elementwise).launches += 1;
        for (const auto& t : model_edge_weights(c)) {
            if (t.cls == module_class::lm_head || (c.tie_word_embeddings && t.cls == module_class::embedding)) {
                weight_tensor head = t;
                head.linear = t.cls == module_class::lm_head;
                head.in_features = h;
                head.out_features = c.vocab_size;
                at(step_phase::dense_gemm) += linear_work(c, head, rows, 1.0 / tp, g, opt.activations, s.notes);
            }
        }
        at(step_phase::communication) +=
            collective_work(collective_op::all_gather, rows * c.vocab_size * act_b, tp, s.link);
        // Sampling: softmax reads the FP32 logits and writes probabilities; the sampler reads them.
        auto& smp = at(step_phase::sampling);
        smp.bytes_at(memory_level::dram) = 3.0 * rows * c.vocab_size * 4.0;
        smp.launches = 3;
    }
    if (layout.pp > 1) {
        // Hand the hidden states to the next stage (point-to-point, one step).
        workload p2p;
        p2p.link_bytes = T_dp * h * act_b;
        p2p.latency_s = s.link.base_latency_s + s.link.alpha_s;
        p2p.launches = 1;
        at(step_phase::communication) += p2p;
    }
    // A GPU without BF16 units (V100, T4) serves 16-bit models in FP16: its BF16 work runs at the
    // FP16 rate (as the planner prices it, analysis/plan.hpp), not left out of the roofs.
    if (!g.peak(peak_key::bf16).supported && g.peak(peak_key::fp16).supported) {
        bool moved = false;
        const auto move = [&](workload& w) {
            const double f = w.flops_at(peak_key::bf16);
            if (!(f > 0)) return;
            w.flops_at(peak_key::fp16) += f;
            w.flops_at(peak_key::bf16) = 0;
            moved = true;
        };
        for (auto& ls : s.layers)
            for (auto& w : ls.phases) move(w);
        for (auto& w : s.extras) move(w);
        if (moved)
            note_once(s.notes, g.id + " has no bf16 units: bf16 work is priced at its fp16 rate (engines serve "
                                      "16-bit models in fp16 there)");
    }
    for (std::size_t p = 0; p < step_phase_count; ++p) {
        s.totals[p] = s.extras[p];
        for (const auto& ls : s.layers) s.totals[p] += ls.phases[p];
    }
    return s;
}

/// The price of one phase over a step: per-layer lower bounds summed (each layer's kernels run
/// one after another, so a memory-bound decode layer and a compute-bound prefill layer do not
/// average out), with the roof times summed alongside.
struct phase_time {
    double lower_bound_s = 0;
    double compute_s = 0, memory_s = 0, link_s = 0, latency_s = 0;
    /// FLOP per rate class and link bytes left unpriced (unknown or absent ceiling; see
    /// `roof_times::unpriced_flops`), summed over the phase's layers.
    std::array<double, peak_key_count> unpriced_flops{};
    double unpriced_link_bytes = 0;
    /// The bound of the layers that account for most of the phase's time.
    bound predicted = bound::latency;
};

/// Prices of one step's phases.
struct step_time {
    std::array<phase_time, step_phase_count> phases{};
    double lower_bound_s = 0;  ///< sum over phases (they run one after another on a GPU)

    const phase_time& at(step_phase p) const { return phases[static_cast<std::size_t>(p)]; }
    /// The phase taking the most time.
    step_phase dominant() const {
        std::size_t best = 0;
        for (std::size_t i = 1; i < step_phase_count; ++i)
            if (phases[i].lower_bound_s > phases[best].lower_bound_s) best = i;
        return static_cast<step_phase>(best);
    }
    /// Share of the step's lower bound spent in phase `p` (0 when the step takes no time).
    double share(step_phase p) const { return lower_bound_s > 0 ? at(p).lower_bound_s / lower_bound_s : 0.0; }
};

/// The roof times of a whole step's unpriced work (FLOP per class and link bytes, summed over its
/// phases), for `unpriced_summary`.
inline roof_times step_unpriced(const step_time& t) {
    roof_times r;
    for (const auto& p : t.phases) {
        for (std::size_t k = 0; k < peak_key_count; ++k) r.unpriced_flops[k] += p.unpriced_flops[k];
        r.unpriced_link_bytes += p.unpriced_link_bytes;
    }
    return r;
}

/// The least time each phase of `s` takes on `ceil` (per layer, then summed), and the step's.
/// Work on a rate class the ceilings lack or do not know is left unpriced and summed into each
/// phase's `unpriced_flops` (never an exception); `step_unpriced` totals them.
inline step_time price_step(const step_model& s, const ceilings& ceil) {
    step_time t;
    for (std::size_t i = 0; i < step_phase_count; ++i) {
        std::array<double, 5> by_bound{};
        phase_time& pt = t.phases[i];
        const auto add = [&](const workload& w) {
            const auto r = time_lower_bound(w, ceil);
            pt.lower_bound_s += r.lower_bound_s;
            pt.compute_s += r.compute_s;
            pt.memory_s += r.memory_s;
            pt.link_s += r.link_s;
            pt.latency_s += r.latency_s;
            for (std::size_t k = 0; k < peak_key_count; ++k) pt.unpriced_flops[k] += r.unpriced_flops[k];
            pt.unpriced_link_bytes += r.unpriced_link_bytes;
            by_bound[static_cast<std::size_t>(r.predicted)] += r.lower_bound_s;
        };
        for (const auto& l : s.layers) add(l.phases[i]);
        add(s.extras[i]);
        std::size_t best = static_cast<std::size_t>(bound::latency);
        for (std::size_t b = 0; b < by_bound.size(); ++b)
            if (by_bound[b] > by_bound[best]) best = b;
        pt.predicted = static_cast<bound>(best);
        t.lower_bound_s += pt.lower_bound_s;
    }
    return t;
}

}  // namespace roofline
