#pragma once
// The terms of a serving estimate and their coefficients: TPOT and TTFT as non-negative linear
// combinations of physical times (decode steps, prefill, queueing, KV transfer) and fixed costs
// (per layer, per MoE layer, per step). analysis/estimate.hpp computes the terms of one
// configuration; analysis/serving_fit.hpp fits coefficients to measured runs;
// io/serving_efficiency_json.hpp reads and writes fitted tables.

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <utility>  // std::pair

namespace roofline {

/// Terms of the estimate (seconds), the inputs of `apply_efficiency`.
struct serving_features {
    static constexpr std::size_t tpot_terms = 6, ttft_terms = 8;
    /// TPOT: decode steps per token (pp x t_dec / tokens per step), prefill interleaved per output
    /// token (aggregated only), layers a token passes (count: s per layer per step), MoE layers
    /// (count: routing and permutation per step), sequences per step of an instance (count: host
    /// work per sequence: scheduling, sampling, detokenising), 1 (a per-step constant). Counts
    /// are divided by the tokens a step emits per sequence (speculative decoding).
    std::array<double, tpot_terms> tpot{};
    /// TTFT: the prompt's own prefill, the closed-loop queue ahead of it (steady_state.hpp), the
    /// KV transfer (disaggregated) or half a decode step (aggregated), one decode step (the
    /// batch slot the first token waits for), 1 (a constant), the prompt's tokens (count: host
    /// work per prompt token: tokenising, copying, scheduling), layers x the prompt's chunk steps
    /// (count: per-layer fixed cost of a prefill step) and MoE layers x chunk steps (count:
    /// routing and permutation per prefill step). The three counts are the prefill's fixed
    /// costs, as the per-layer terms are for TPOT: measured TTFT at low concurrency is 2-7x the
    /// modeled prefill for MoE models and 0.5-1.5x for dense ones (README: TTFT as queueing).
    std::array<double, ttft_terms> ttft{};
};

/// Coefficients of `serving_features` (non-negative).
struct serving_efficiency {
    std::array<double, serving_features::tpot_terms> tpot{1, 1, 0, 0, 0, 0};
    std::array<double, serving_features::ttft_terms> ttft{1, 1, 1, 0, 0, 0, 0, 0};
    std::string source = "roof";  ///< "roof", or the fitted table and its key
};

/// The roof: every physical term at coefficient 1, no fixed costs.
inline serving_efficiency roof_efficiency() { return {}; }

/// TPOT and TTFT from features and coefficients: dot products.
inline std::pair<double, double> apply_efficiency(const serving_features& f, const serving_efficiency& e) {
    double tpot = 0, ttft = 0;
    for (std::size_t i = 0; i < f.tpot.size(); ++i) tpot += e.tpot[i] * f.tpot[i];
    for (std::size_t i = 0; i < f.ttft.size(); ++i) ttft += e.ttft[i] * f.ttft[i];
    return {tpot, ttft};
}

/// Names of the terms, in order (a table's "tpot_terms" and "ttft_terms").
inline constexpr std::array<const char*, serving_features::tpot_terms> tpot_term_names = {
    "decode_step_per_token_s", "prefill_interleaved_per_token_s", "per_layer_s", "per_moe_layer_s",
    "per_sequence_s", "constant_s"};
inline constexpr std::array<const char*, serving_features::ttft_terms> ttft_term_names = {
    "own_prefill_s", "closed_loop_queue_s", "kv_transfer_or_half_decode_step_s", "decode_step_s", "constant_s",
    "per_prompt_token_s", "per_layer_prefill_step_s", "per_moe_layer_prefill_step_s"};

}  // namespace roofline
