#pragma once
// The terms of a serving estimate and their coefficients: TPOT and TTFT as non-negative linear
// combinations of physical times (decode steps by phase, prefill, queueing, KV transfer) and fixed
// costs (per layer, per MoE layer, per expert a token activates, per step). analysis/estimate.hpp
// computes the terms of one configuration; analysis/serving_fit.hpp fits coefficients to
// measured runs; io/serving_efficiency_json.hpp reads and writes fitted tables.

#include <algorithm>  // std::max
#include <array>    // std::array
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair

namespace roofline {

/// Terms of the estimate (seconds), the inputs of `apply_efficiency`.
struct serving_features {
    static constexpr std::size_t tpot_terms = 11, ttft_terms = 11;
    /// TPOT: the decode steps per token (pp x t_dec / tokens per step) split by the planner's
    /// phases of the step (`plan_point::decode_phase_share`): [0] attention (KV-cache reads),
    /// [1] GEMMs (dense and MoE weights), [2] communication (all-reduce, all-to-all, pipeline
    /// hand-off), [3] the rest (norms, elementwise, sampling); the prefill interleaved per
    /// output token (aggregated only) split by the prefill chunk's phases: [4] attention, [5]
    /// the rest; then counts: [6] layers a token passes (s per layer per step), [7] MoE layers
    /// (routing per step; fitted at 0 since [10] joined), [8] sequences per step of an instance
    /// (host work per sequence: scheduling, sampling, detokenising), [9] 1 (a per-step
    /// constant), [10] MoE layers x the experts each token activates there (routed top-k plus
    /// one for the shared experts, which engines run fused: 9 for DeepSeek-V3, 4 for gpt-oss;
    /// the grouped GEMM's per-expert problems, the token copies permuted to them and combined
    /// back, per step). Counts are divided by the tokens a step emits per sequence (speculative
    /// decoding). [0]-[3] sum to
    /// the decode step per token and [4]-[5] to the interleaved prefill, so the roof (those six
    /// at 1) is the planner's TPOT; apart, a fit gives each phase its own efficiency.
    std::array<double, tpot_terms> tpot{};
    /// TTFT: the prompt's own prefill, the closed-loop queue ahead of it (steady_state.hpp), the
    /// KV transfer (disaggregated) or half a decode step (aggregated), one decode step through the
    /// pipeline (pp stage steps: the batch slot the first token waits for), 1 (a constant), the
    /// prompt's tokens (count: host work per prompt token: tokenising, copying, scheduling),
    /// layers x the prompt's chunk steps
    /// (count: per-layer fixed cost of a prefill step) and MoE layers x chunk steps (count:
    /// routing and permutation per prefill step). The three counts are the prefill's fixed
    /// costs, as the per-layer terms are for TPOT: measured TTFT at low concurrency is 2-7x the
    /// modeled prefill for MoE models and 0.5-1.5x for dense ones (README: TTFT as queueing).
    /// Then [8] the closed-loop queue drained by every attention-DP rank at once (the planner's
    /// balanced queue: [1] takes one rank's prompts per step; equal without attention DP; an
    /// engine whose DP ranks schedule and run apart, as vLLM's data-parallel engines do, drains
    /// so) and [9] layers x the prefill chunk steps of the queue ahead (count: the per-layer
    /// fixed cost of every chunk step a request waits through, as [6] is of its own); [10] the
    /// prefill pool's queue where it limits the rate (disaggregated): a closed loop of C requests
    /// whose prefill pool hands over at most P prompts/s (P = prefill workers / max(ISL x the
    /// prefill's seconds per token, the KV transfer), the planner's cap) runs at that rate, so by
    /// Little's law a request waits C / P - (OSL - 1) x the decode step per token in all before
    /// its decode, the rest of its time; at least 0 (the decode pool limits), 0 aggregated and
    /// where the prefill worker count is not known (`disaggregated_pools::prefill_workers_known`).
    /// A fit gives it a coefficient; the roof takes it as a floor (`roof_ttft_s`).
    std::array<double, ttft_terms> ttft{};
};

/// The TPOT terms a fit may use (bit i: term i): all but [6] per layer, [7] per MoE layer and [9]
/// the per-step constant. Held out model by model on NVIDIA's 5,221 measured runs (README "The
/// fit"), the fixed costs that scale with MoE layers (x the experts a token activates there) and
/// with sequences carry small-batch TPOT better alone: fitting the per-layer and constant terms
/// as well gave 15.5% / 44.2% aggregated TPOT median / p90 and 21.0% / 68.2% disaggregated,
/// without them 14.5% / 42.9% and 20.0% / 61.5% (a dense model's layers are cheap where an MoE model's are not, and the held-out fit
/// learned the per-layer cost from the MoE models). Since 2026-12-08 an MoE layer's fixed cost
/// is priced per expert a token activates there ([10]) in place of per layer ([7]): learned per
/// layer from the DeepSeek-like models (nine experts a token), it charged gpt-oss (four) 1.5x
/// its measured disaggregated TPOT. The features keep every term: tables fitted before use them.
inline constexpr unsigned tpot_fitted_terms =
    ((1u << serving_features::tpot_terms) - 1) & ~(1u << 6) & ~(1u << 7) & ~(1u << 9);

/// How far measured runs fell from a group's predictions, each run predicted with its own model
/// held out of the fit (analysis/serving_fit.hpp `leave_one_model_out`): the 10th, 50th and 90th
/// percentiles of measured / predicted (nearest rank) over the group's runs, and how many runs.
/// A prediction p of the group reads as "held out, 8 in 10 such runs measured between p10 x p
/// and p90 x p": an empirical range, not a bound, and only as wide as the runs it was judged on.
struct heldout_ratio_band {
    double p10 = 0, p50 = 0, p90 = 0;
    std::size_t runs = 0;
};

/// Coefficients of `serving_features` (non-negative).
struct serving_efficiency {
    std::array<double, serving_features::tpot_terms> tpot{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
    std::array<double, serving_features::ttft_terms> ttft{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    std::string source = "roof";  ///< "roof", or the fitted table and its key
    /// Measured / held-out predicted TTFT and TPOT of the runs the coefficients were judged on
    /// (a fitted table's; none for the roof or a table written before 2026-12-06).
    std::optional<heldout_ratio_band> ttft_band, tpot_band;
};

/// The roof: every physical term at coefficient 1, no fixed costs. The prefill pool's queue
/// (TTFT [10]) is not a term of the roof's sum but a floor under it (`roof_ttft_s`).
inline serving_efficiency roof_efficiency() { return {}; }

/// True when `e` prices TTFT at the roof: the roof's TTFT coefficients, not read from a table
/// (`source` "roof"; a table's coefficients are its own, whatever they are, so an older table
/// keeps its predictions). TPOT's coefficients do not matter.
inline bool is_roof_ttft(const serving_efficiency& e) { return e.source == "roof" && e.ttft == roof_efficiency().ttft; }

/// TPOT and TTFT from features and coefficients: dot products.
inline std::pair<double, double> apply_efficiency(const serving_features& f, const serving_efficiency& e) {
    double tpot = 0, ttft = 0;
    for (std::size_t i = 0; i < f.tpot.size(); ++i) tpot += e.tpot[i] * f.tpot[i];
    for (std::size_t i = 0; i < f.ttft.size(); ++i) ttft += e.ttft[i] * f.ttft[i];
    return {tpot, ttft};
}

/// TTFT at the roof (s): the roof's terms (own prefill, the wave's queue, the KV transfer or half
/// a decode step), or where more the prefill pool's queue [10], which is by Little's law all a
/// request spends before decoding when the pool limits the rate. The wave and the pool's queue
/// are two prices of one wait, so the roof takes the longer, not the sum. `kv_excess_s` and
/// `queue_excess_s` (s, >= 0): what a KV link slower than the default adds to the transfer and to
/// the pool's queue (`estimate_result::kv_transfer_beyond_default_s`, `..._queue_...`).
inline double roof_ttft_s(const serving_features& f, double kv_excess_s = 0, double queue_excess_s = 0) {
    return std::max(apply_efficiency(f, roof_efficiency()).second + kv_excess_s, f.ttft[10] + queue_excess_s);
}

/// TTFT split into what a request waits for (seconds; the four sum to `apply_efficiency`'s TTFT):
/// its own prefill ([0]), the queue ahead of it ([1], [8], [9] and [10]: the wave's prompts, the
/// fixed costs of their chunk steps and the prefill pool's queue where it limits the rate), the step that delivers the first token ([2], [3]: the
/// decode step, with the KV transfer when disaggregated), and the prefill's fixed costs ([4]-[7]: constant, per prompt token, per
/// layer and per MoE layer of its own chunk steps).
struct ttft_parts {
    double own_prefill_s = 0, queue_s = 0, first_token_step_s = 0, fixed_costs_s = 0;
};

/// `ttft_parts` of features `f` at coefficients `e`.
inline ttft_parts split_ttft(const serving_features& f, const serving_efficiency& e) {
    const auto at = [&](std::size_t i) { return e.ttft[i] * f.ttft[i]; };
    ttft_parts p;
    p.own_prefill_s = at(0);
    p.queue_s = at(1) + at(8) + at(9) + at(10);
    p.first_token_step_s = at(2) + at(3);
    p.fixed_costs_s = at(4) + at(5) + at(6) + at(7);
    return p;
}

/// Decode seconds per output token: the sum of the decode step's phase terms (TPOT terms 0-3).
inline double decode_per_token_s(const serving_features& f) { return f.tpot[0] + f.tpot[1] + f.tpot[2] + f.tpot[3]; }

/// Interleaved prefill seconds per output token: TPOT terms 4-5 (0 when disaggregated).
inline double prefill_interleaved_per_token_s(const serving_features& f) { return f.tpot[4] + f.tpot[5]; }

/// TPOT terms before the decode step and the interleaved prefill were split by phase (tables
/// written before: "decode_step_per_token_s", "prefill_interleaved_per_token_s", "per_layer_s",
/// "per_moe_layer_s", "per_sequence_s", "constant_s").
inline constexpr std::size_t legacy_tpot_terms = 6;

/// TPOT terms of a table written after the split by phase and before the per-expert term ([10],
/// 2026-12-08) joined: its coefficients are today's first 10, [10] 0 (the same TPOT for every
/// configuration).
inline constexpr std::size_t before_expert_tpot_terms = 10;

/// TPOT coefficients of a table of the `legacy_tpot_terms` terms as coefficients of today's: the
/// decode step's coefficient on each of its phases, the interleaved prefill's on both of its
/// parts, the counts' as they were (the same TPOT for every configuration).
inline std::array<double, serving_features::tpot_terms> tpot_from_legacy(const std::array<double, legacy_tpot_terms>& a) {
    return {a[0], a[0], a[0], a[0], a[1], a[1], a[2], a[3], a[4], a[5], 0};
}

/// TTFT terms of a table written before the balanced queue ([8]) and the queue's per-layer
/// chunk-step cost ([9]) joined (8), and before the prefill pool's queue ([10]) joined (10): its
/// coefficients are today's first 8 or 10, the others 0 (the same TTFT for every configuration).
inline constexpr std::array<std::size_t, 2> legacy_ttft_terms = {8, 10};

/// Names of the terms, in order (a table's "tpot_terms" and "ttft_terms").
inline constexpr std::array<const char*, serving_features::tpot_terms> tpot_term_names = {
    "decode_attention_per_token_s",  "decode_gemm_per_token_s",
    "decode_communication_per_token_s", "decode_other_per_token_s",
    "prefill_interleaved_attention_per_token_s", "prefill_interleaved_other_per_token_s",
    "per_layer_s", "per_moe_layer_s", "per_sequence_s", "constant_s", "per_moe_expert_s"};
inline constexpr std::array<const char*, serving_features::ttft_terms> ttft_term_names = {
    "own_prefill_s", "closed_loop_queue_s", "kv_transfer_or_half_decode_step_s", "decode_step_s", "constant_s",
    "per_prompt_token_s", "per_layer_prefill_step_s", "per_moe_layer_prefill_step_s",
    "closed_loop_queue_balanced_s", "per_layer_queue_chunk_step_s", "prefill_pool_queue_s"};

}  // namespace roofline
