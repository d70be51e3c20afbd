#pragma once
// The steady state of a serving engine under continuous batching: how decode steps and prefill
// chunks share a model instance's time, and what that gives in throughput and latency. One set
// of formulas for `roofline analyze` (analysis/serving.hpp) and `roofline plan` (analysis/plan.hpp).
//
// C requests in flight per model instance, each ISL prompt and OSL output tokens. Decode runs in
// steps of b sequences at the mean context L = ISL + OSL/2 (the middle of a request's life), each
// taking t_dec; prefill runs in chunks (SGLang `--chunked-prefill-size`) and costs t_pre per prompt
// token. A fully busy instance spends, per output token, t_dec / b in decode and (ISL / OSL) t_pre
// in prefill:
//
//   r_out   = 1 / ( t_dec / b + (ISL / OSL) t_pre )        output tokens/s per instance
//   r_total = r_out (1 + ISL / OSL)                          input + output tokens/s
//   decode share of busy time = r_out t_dec / b
//   C / r_out                                                (Little's law: C streams share r_out)
//
// Without pipeline parallelism b = C and C / r_out = t_dec + C (ISL / OSL) t_pre: a request's
// whole cycle (its own prefill included) per output token. The time between its tokens (TPOT,
// `inter_token_s`) holds its decode steps and only the prefill of the other C - 1 requests that
// lands between them: with the cycle Z = OSL t_dec + C ISL t_pre and the others' prompts spread
// over it, TPOT = t_dec + (C - 1) ISL t_pre TPOT / Z, so
//
//   TPOT = t_dec Z / (OSL t_dec + ISL t_pre)
//
// (t_dec at C = 1: the prompt's own prefill is in its TTFT, not between its tokens).
//
// With pp pipeline stages the C sequences are split into pp micro-batches of b = C / pp; every
// stage works on one micro-batch while the others hold the rest, a stage step takes t_dec(b),
// and each sequence gets a token every pp t_dec.
//
// TTFT (lower bound: queueing and the decode step a request waits behind are not counted): the
// prompt's ceil(ISL / chunk) chunk steps through the pp stages, (chunks + pp - 1) t_chunk.

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::ceil
#include <optional>   // std::optional

#include "roofline/core/compilation.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

/// SGLang's default `--chunked-prefill-size` on large-memory GPUs (sglang server_args.py): the
/// most prompt tokens one prefill step takes.
inline constexpr double default_prefill_chunk_tokens = 8192;

/// Mean context of a decoding sequence over its life, ISL + OSL / 2 (at least 1 token).
double mean_decode_context_tokens(double isl, double osl);

/// Speculative decoding (MTP heads or a draft model): `draft_tokens` proposed per step, each
/// accepted with probability `acceptance_rate` (the first rejection ends the run).
struct speculative_decoding {
    int draft_tokens = 1;         ///< k: tokens proposed per step (DeepSeek MTP: 1-3)
    double acceptance_rate = 0;   ///< a: of the first drafted token, in [0, 1)
    /// r: each later drafted token is accepted at r times the rate of the one before (a, a r,
    /// a r^2, ...), given it was reached; 1 (the default): the same rate a for every drafted token.
    double position_decay = 1.0;
    /// Expected tokens emitted per verification step: 1 + a1 + a1 a2 + ... + a1 ... ak with
    /// a_i = a r^(i-1) (with r = 1: 1 + a + a^2 + ... + a^k).
    double tokens_per_step() const {
        double t = 1, p = 1, a = acceptance_rate;
        for (int i = 1; i <= draft_tokens; ++i, a *= position_decay) t += (p *= a);
        return t;
    }
};

/// Acceptance rate of the first drafted token assumed for a run that speculates with MTP heads
/// but records no rate (`estimate --from-csv`): DeepSeek-V3's second-token acceptance, "between 85%
/// and 90%" (DeepSeek-V3 technical report, arXiv:2412.19437, section 5.4.3), at its low end.
inline constexpr double default_mtp_acceptance_rate = 0.85;

/// Decay per drafted position assumed with `default_mtp_acceptance_rate` (`speculative_decoding::
/// position_decay`): engines draft k > 1 tokens by reusing DeepSeek's one MTP module
/// autoregressively, and its later drafts are accepted less often. Nebius measured the original
/// DeepSeek-V3-0324 MTP module drafting 7 tokens at an average acceptance length of 3.20
/// (temperature 0, MT-Bench, HumanEval and GSM8K; model card of nebius/MTP-DeepSeek-V3-0324);
/// 1 + sum over i <= 7 of prod_{j <= i} 0.85 r^(j-1) = 3.20 gives r = 0.856.
inline constexpr double default_mtp_position_decay = 0.856;

/// The prefill step of the steady state.
struct prefill_chunk {
    sequence_group group;          ///< the prompts of one chunk step (one model instance)
    double tokens = 0;             ///< prompt tokens in the step
    double chunks_per_prompt = 1;  ///< steps one prompt needs: ceil(ISL / chunk)
    /// The step as a batch for `model_step`.
    step_batch batch() const {
        return step_batch::prefill(group.count, group.new_tokens, group.context_tokens);
    }
};

/// The chunk a steady-state instance prefills with `requests` in flight (ISL >= 1 tokens each):
///  * ISL <= chunk: P = min(chunk, ISL x requests) tokens as max(1, P / ISL) prompts of
///    min(ISL, P) tokens (several prompts batched into one step);
///  * ISL > chunk: one chunk of `chunk` tokens on top of a cached prefix of ISL / 2 (the mean
///    position of a chunk inside a long prompt).
prefill_chunk steady_prefill_chunk(double isl, double requests, double chunk_tokens = default_prefill_chunk_tokens);

/// The prefill step of an instance with attention data parallelism over `dp` ranks: each rank
/// schedules its own chunk (TensorRT-LLM and SGLang DP attention keep one scheduler per rank),
/// so the step holds `dp` chunks of `steady_prefill_chunk(isl, requests / dp, chunk_tokens)`.
/// One chunk budget for the whole instance would leave ranks idle (two 4,000-token prompts in
/// an 8,192-token chunk keep six of eight ranks without work) and price prefill ~1.7x too slow.
prefill_chunk dp_prefill_chunk(double isl, double requests, double chunk_tokens, int dp);

/// Rates of one model instance in the steady state (see the header comment).
struct steady_state_rates {
    double output_tokens_per_s = 0;  ///< r_out
    double total_tokens_per_s = 0;   ///< r_out (1 + ISL / OSL)
    double decode_share = 1;         ///< share of busy time in decode steps
    double tpot_s = 0;               ///< C / r_out
};

/// r_out, r_total, decode share and TPOT for decode steps of `decode_sequences` taking
/// `decode_step_s`, `requests` in flight per instance, prefill at `prefill_s_per_token` (nullopt:
/// prefill not modeled) and `isl_over_osl` prompt tokens per output token.
steady_state_rates steady_state(double decode_step_s, double decode_sequences, double requests,
                                std::optional<double> prefill_s_per_token, double isl_over_osl);

/// TPOT, the time between one request's tokens, in the steady state (see the header comment):
/// `decode_s` per token (pp t_dec, divided by the tokens a speculating step emits), `requests`
/// C in flight per instance, prefill at `prefill_s_per_token` (nullopt: not modeled: `decode_s`).
/// t_dec (OSL t_dec + C ISL t_pre) / (OSL t_dec + ISL t_pre): between t_dec at C = 1 and
/// C / r_out (`steady_state`'s `tpot_s`, which spreads the request's own prompt over its tokens
/// too) at large C.
double inter_token_s(double decode_s, double requests, double isl, double osl, std::optional<double> prefill_s_per_token);

/// Output tokens/s of a closed loop of `requests` in flight, each lasting TTFT + (OSL - 1) TPOT
/// (seconds) for its `osl` tokens: C OSL / (TTFT + (OSL - 1) TPOT) (Little's law).
double closed_loop_output_tokens_per_s(double requests, double osl, double ttft_s, double tpot_s);

/// Queueing before a request's prefill in a closed-loop benchmark (a fixed number of clients,
/// each sending its next request when the last one finishes, as aiperf, genai-perf and
/// bench_serving --max-concurrency do). The clients start together and the requests of one
/// wave reach the engine at once; a request waits, on average, for the prompts of half of the
/// other requests of its wave to be prefilled ahead of it, then for the step in progress:
///
///   wait = (C - 1) / 2 x ISL x t_pre_per_token  +  t_step / 2
///
/// C: requests in flight that share the prefill capacity (per instance; per prefill pool when
/// disaggregated), t_pre_per_token: prefill seconds per prompt token at the chunk size. By
/// Little's law the same wait holds in an open loop whose arrival rate keeps C requests in
/// flight with prefill the bottleneck; a lightly loaded open loop waits less.
double closed_loop_queue_s(double requests, double isl, double prefill_s_per_token, double step_s);

/// The prompt's own prefill in TTFT: its chunk steps through `pp` stages, (chunks + pp - 1)
/// t_chunk. A prompt that fits one chunk shares its step with `prompts_per_chunk` = k prompts
/// (per attention-DP rank); `closed_loop_queue_s` already counts the ones ahead of it (on
/// average (k - 1) / 2 of them), so its own step counts the rest: t_chunk (1 + 1/k) / 2 in
/// place of t_chunk (the step as a whole would count those ahead twice, up to 2x at large k).
double steady_ttft_s(double chunk_step_s, double chunks_per_prompt, int pp, double prompts_per_chunk = 1);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE double mean_decode_context_tokens(double isl, double osl) { return std::max(1.0, isl + osl / 2.0); }

ROOFLINE_INLINE prefill_chunk steady_prefill_chunk(double isl, double requests, double chunk_tokens) {
    prefill_chunk p;
    isl = std::max(1.0, isl);
    if (isl <= chunk_tokens) {
        const double pre = std::min(chunk_tokens, isl * requests);
        p.group = {std::max(1.0, pre / isl), std::min(isl, pre), 0.0};
        p.chunks_per_prompt = 1;
    } else {
        p.group = {1.0, chunk_tokens, isl / 2.0};
        p.chunks_per_prompt = std::ceil(isl / chunk_tokens);
    }
    p.tokens = p.group.count * p.group.new_tokens;
    return p;
}

ROOFLINE_INLINE prefill_chunk dp_prefill_chunk(double isl, double requests, double chunk_tokens, int dp) {
    if (dp <= 1) return steady_prefill_chunk(isl, requests, chunk_tokens);
    auto p = steady_prefill_chunk(isl, std::max(1.0, requests / dp), chunk_tokens);
    p.group.count *= dp;
    p.tokens *= dp;
    return p;
}

ROOFLINE_INLINE steady_state_rates steady_state(double decode_step_s, double decode_sequences, double requests,
                                                std::optional<double> prefill_s_per_token, double isl_over_osl) {
    steady_state_rates r;
    const double per_token_decode = decode_step_s / decode_sequences;
    r.output_tokens_per_s = 1.0 / (per_token_decode + (prefill_s_per_token ? isl_over_osl * *prefill_s_per_token : 0.0));
    r.total_tokens_per_s = r.output_tokens_per_s * (1.0 + isl_over_osl);
    r.decode_share = prefill_s_per_token ? r.output_tokens_per_s * per_token_decode : 1.0;
    r.tpot_s = requests / r.output_tokens_per_s;
    return r;
}

ROOFLINE_INLINE double inter_token_s(double decode_s, double requests, double isl, double osl,
                                     std::optional<double> prefill_s_per_token) {
    if (!prefill_s_per_token || !(osl > 0)) return decode_s;
    const double own = osl * decode_s + isl * *prefill_s_per_token;  // one request's decode + prefill
    if (!(own > 0)) return decode_s;
    return decode_s * (own + std::max(0.0, requests - 1.0) * isl * *prefill_s_per_token) / own;
}

ROOFLINE_INLINE double closed_loop_output_tokens_per_s(double requests, double osl, double ttft_s, double tpot_s) {
    return requests * osl / (ttft_s + (osl - 1) * tpot_s);
}

ROOFLINE_INLINE double closed_loop_queue_s(double requests, double isl, double prefill_s_per_token, double step_s) {
    return std::max(0.0, requests - 1.0) / 2.0 * isl * prefill_s_per_token + step_s / 2.0;
}

ROOFLINE_INLINE double steady_ttft_s(double chunk_step_s, double chunks_per_prompt, int pp, double prompts_per_chunk) {
    const double k = std::max(1.0, prompts_per_chunk);
    const double own = chunks_per_prompt <= 1 ? (1.0 + 1.0 / k) / 2.0 : chunks_per_prompt;
    return (own + pp - 1) * chunk_step_s;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
