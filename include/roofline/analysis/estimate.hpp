#pragma once
// One serving configuration, estimated: a model on `gpus` GPUs of one kind in one layout at a
// concurrency, aggregated (prefill and decode on the same instances) or disaggregated (separate
// prefill and decode pools with the KV cache sent between them), optionally with speculative
// decoding. `roofline estimate` prints it; `roofline estimate --from-csv` sets it beside
// measured runs (analysis/serving_fit.hpp).
//
// Stages:
//  1. `price_roof`: the planner's step model (analysis/plan.hpp) for one layout and concurrency:
//     memory check, decode step, prefill chunk, steady state (analysis/steady_state.hpp);
//  2. `serving_features`: the roof split into the terms a serving engine adds to or scales
//     (decode steps by phase: attention, GEMMs, communication, the rest; prefill interleaved
//     with decode, per-layer, per-MoE-layer and per-activated-expert fixed costs that dominate
//     small batches, TTFT queueing behind the prompts of a wave, KV transfer);
//  3. `apply_efficiency`: a linear combination of those terms with non-negative coefficients:
//     the roof itself (`roof_efficiency`, every coefficient 1 on the physical terms) or a table
//     fitted per backend from measured runs (data/serving/, analysis/serving_fit.hpp).

#include <algorithm>  // std::max, std::min
#include <array>     // std::array
#include <cmath>     // std::pow, std::isfinite
#include <cstdio>    // std::snprintf
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "roofline/analysis/plan.hpp"
#include "roofline/analysis/steady_state.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/serving_terms.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

/// The two pools of a disaggregated deployment. Workers are model instances of their layout.
struct disaggregated_pools {
    parallel_layout prefill, decode;
    int prefill_workers = 1, decode_workers = 1;
    /// Prompts one prefill worker runs per step (>= 1; at most its share of the requests in
    /// flight, C / prefill_workers, is priced). `plan --disagg` uses min(floor(C / workers),
    /// floor(chunk / ISL)), at least 1.
    double prefill_batch = 1;
    /// Bandwidth the KV cache of a prompt moves at from a prefill to a decode worker, B/s per
    /// GPU. nullopt: the GPU's scale-up link (NVLink) as modeled by the planner.
    std::optional<double> kv_transfer_bytes_per_s;
    /// False where `prefill_workers` is assumed, not stated (a runs file without the count): the
    /// prefill pool's queue (TTFT term [10]) is then not priced, 0.
    bool prefill_workers_known = true;
};

/// One configuration to estimate.
struct estimate_request {
    gpu_spec gpu;
    parallel_layout layout;       ///< aggregated: the layout of one instance
    int instances = 1;            ///< aggregated: instances sharing the requests
    double concurrency = 1;       ///< requests in flight over the deployment
    double isl = 0, osl = 0;
    std::optional<disaggregated_pools> disaggregated;
    std::optional<speculative_decoding> speculative;
    std::optional<dtype> kv_cache;
    dtype activations = dtype::bf16;
    double prefill_chunk_tokens = default_prefill_chunk_tokens;
    double memory_utilization = default_memory_utilization;
    bool speed_of_light = false;
    bool power_limit = true;
    std::optional<link_params> link_override;
};

/// The estimate.
struct estimate_result {
    bool fits = false;
    std::string reason;  ///< why not, with the numbers (the planner's `describe_rejection`)
    double ttft_s = std::numeric_limits<double>::quiet_NaN();
    ttft_parts ttft_split;  ///< `ttft_s` by what a request waits for (zeros when it does not fit)
    double tpot_s = std::numeric_limits<double>::quiet_NaN();
    double tokens_per_s_per_gpu = std::numeric_limits<double>::quiet_NaN();   ///< input + output
    double tokens_per_s_per_user = std::numeric_limits<double>::quiet_NaN();  ///< output, 1 / TPOT
    double output_tokens_per_s = std::numeric_limits<double>::quiet_NaN();    ///< deployment
    /// TTFT and TPOT of the step model at `roof_efficiency` (no fitted efficiency): the
    /// planner's roof, not a lower bound (a fitted queue or fixed-cost coefficient below 1 can
    /// price under it). With attention DP its TTFT queue drains one rank's prompts per step
    /// (`queue_s_per_token`), where an aggregated plan point drains every rank's at once.
    double roof_ttft_s = std::numeric_limits<double>::quiet_NaN();
    double roof_tpot_s = std::numeric_limits<double>::quiet_NaN();
    /// Held-out range (seconds): `ttft_s` and `tpot_s` times the efficiency's `heldout_ratio_band`
    /// p10 and p90 (8 in 10 of the fitted group's runs, each predicted with its model held out,
    /// measured within such a range); nullopt without a band (the roof, an older table) or
    /// when the configuration does not fit.
    std::optional<std::pair<double, double>> ttft_range_s, tpot_range_s;
    double kv_transfer_s = 0;           ///< disaggregated: one prompt's KV cache
    /// Disaggregated with a given KV rate (`disaggregated_pools::kv_transfer_bytes_per_s`): how
    /// much longer `kv_transfer_s` is than over the default link (the GPU's scale-up link, or its
    /// network between nodes), the link the runs a table was fitted on moved their KV over. A
    /// fitted table weighs the transfer over that link at its coefficient (b3: 0 in some groups,
    /// a transfer hidden behind the prefill; over 100 in another, standing in for what else the
    /// first token waits for); the time beyond it is charged at coefficient 1 (`finish`), so a
    /// slow link the fit never saw lengthens TTFT by its own time, not by b3 times it.
    double kv_transfer_beyond_default_s = 0;
    /// Likewise for the prefill pool's queue (TTFT term [10]): how much longer it is with the
    /// given KV rate than over the default link (a slow link can make the transfer, not the
    /// prefill, what limits the prompts handed over), charged at coefficient 1 (`finish`).
    double prefill_pool_queue_beyond_default_s = 0;
    /// Disaggregated: the prompts per second the prefill pool hands over at most
    /// (`prefill_pool_prompts_per_s`, over the given link), which caps the output rate at this
    /// x OSL; +infinity aggregated.
    double prefill_pool_prompts_per_s = std::numeric_limits<double>::infinity();
    double memory_headroom = 0;         ///< share of memory left unused (1 - utilization)
    int gpus = 0;
    /// Disaggregated: prefill workers one decode worker needs so that prompts are prefilled as
    /// fast as the decode pool finishes requests (its output rate / OSL x ISL prefill seconds).
    double balanced_prefill_per_decode = std::numeric_limits<double>::quiet_NaN();
    /// Requests the deployment's KV caches hold at this ISL + OSL: every instance's when
    /// aggregated, every decode worker's when disaggregated (`decode_point.max_concurrency` is
    /// one decode worker's there).
    double max_concurrency = std::numeric_limits<double>::quiet_NaN();
    serving_features features;
    plan_point decode_point, prefill_point;  ///< the planner's points (prefill: disaggregated)
    plan_result decode_plan;                 ///< for `describe_rejection`
    std::vector<std::string> notes;
};

namespace detail::estimate {

/// The planner's point for one instance layout at `concurrency` over `instances` instances.
inline std::pair<plan_point, plan_result> plan_one(const model_config& c, const estimate_request& rq,
                                                   const parallel_layout& l, int instances, double concurrency) {
    plan_request pr;
    pr.gpus = {rq.gpu};
    pr.counts = {l.gpus() * instances};
    pr.isl = rq.isl;
    pr.osl = rq.osl;
    pr.concurrencies = {std::max(1.0, concurrency)};
    pr.kv_cache = rq.kv_cache;
    pr.activations = rq.activations;
    pr.prefill_chunk_tokens = rq.prefill_chunk_tokens;
    pr.memory_utilization = rq.memory_utilization;
    pr.layouts.only = l;
    pr.power_limit = rq.power_limit;
    pr.speed_of_light = rq.speed_of_light;
    pr.link_override = rq.link_override;
    pr.speculative = rq.speculative;
    pr.max_gpus_per_instance = 0;  // checked (and noted) by the caller
    pr.evaluate_kv_limit = false;
    auto r = run_plan(c, pr, true);
    if (r.points.size() != 1) throw usage_error("estimate: the layout gave no point");
    plan_point p = r.points.front();
    return {p, std::move(r)};
}

/// Prefill seconds per prompt token of a point (its chunk step over the chunk's tokens).
inline double prefill_s_per_token(const plan_point& p) {
    return p.prefill_tokens > 0 ? p.prefill_step_s / p.prefill_tokens : std::numeric_limits<double>::quiet_NaN();
}

/// Prefill seconds per prompt token that the closed-loop queue drains at, for an instance
/// of `l`: the chunk step over the chunk's tokens, times the attention-DP size. With attention
/// DP every rank schedules its own prompts but all ranks run each step together (the MoE
/// layers' collectives join them), so prompts that reach different ranks at different times,
/// as a closed loop's staggered requests do, are prefilled in different steps: the queue drains
/// one rank's chunk per step, not dp of them (TensorRT-LLM aligns the ranks' prefills only with
/// `attention_dp_config.enable_balance`, off by default). Held out, this took the aggregated
/// TTFT median from 34.8% to 33.5% and the disaggregated one from 54.9% to 47.5% (README).
inline double queue_s_per_token(const plan_point& p, const parallel_layout& l) {
    return prefill_s_per_token(p) * std::max(1, l.dp);
}

/// Prompts per second a disaggregated deployment's prefill pool hands over at most: each of its
/// `workers` prefills a prompt in ISL x `s_per_token` and sends its KV cache in `kv_transfer_s`,
/// the two overlapping (the link carries one prompt's while the worker prefills the next), so
/// workers / max(the two); +infinity when both are 0 (nothing priced).
inline double prefill_pool_prompts_per_s(int workers, double isl, double s_per_token, double kv_transfer_s) {
    const double per_prompt = std::max(s_per_token > 0 ? isl * s_per_token : 0.0, kv_transfer_s);
    return per_prompt > 0 ? workers / per_prompt : std::numeric_limits<double>::infinity();
}

/// The prefill pool's queue (TTFT term [10], seconds): where the pool hands over fewer prompts
/// than the decode pool would finish, a closed loop of `requests` runs at `prompts_per_s` and by
/// Little's law a request spends requests / rate in all, (OSL - 1) x `decode_per_token_s` of it
/// decoding: the rest, less nothing, is waiting; 0 where the decode pool limits.
inline double prefill_pool_queue_s(double requests, double prompts_per_s, double osl, double decode_per_token_s) {
    if (!(prompts_per_s > 0) || !std::isfinite(prompts_per_s)) return 0.0;
    return std::max(0.0, requests / prompts_per_s - std::max(0.0, osl - 1.0) * decode_per_token_s);
}

/// Prefill chunk steps of the closed-loop queue ahead of a request at `requests` in flight: half
/// the other requests' prompts (`closed_loop_queue_s`'s wave) in chunks of
/// `prefill_chunk_tokens`, fractional (the wave's prompts share chunks).
inline double queue_chunk_steps(double requests, const estimate_request& rq) {
    return std::max(0.0, requests - 1.0) / 2.0 * rq.isl / std::max(1.0, rq.prefill_chunk_tokens);
}

/// Counts the fixed-cost terms of `serving_features` multiply: layers, MoE layers, experts a
/// token activates in an MoE layer (routed top-k plus one for the shared experts, fused; 0
/// dense), tokens a decode step emits per sequence, prefill chunk steps of one prompt.
struct term_counts {
    double layers = 0, moe_layers = 0, experts_per_token = 0, tokens_per_step = 1, prompt_chunks = 1;
};

inline term_counts counts_of(const model_config& c, const estimate_request& rq) {
    term_counts t;
    t.layers = c.num_layers;
    t.moe_layers = c.is_moe() ? c.moe_layer_count() : 0;
    // Shared experts run as one fused MLP (vLLM's and SGLang's DeepSeek-V2 models build one of
    // n_shared x the expert width): one problem a layer however many the config counts.
    t.experts_per_token = c.is_moe() ? c.experts_per_token + std::min(c.num_shared_experts, 1) : 0;
    t.tokens_per_step = rq.speculative ? rq.speculative->tokens_per_step() : 1.0;
    t.prompt_chunks = std::ceil(rq.isl / std::max(1.0, rq.prefill_chunk_tokens));
    return t;
}

/// `total` seconds split by a step's shares per `step_phase` (`plan_point::decode_phase_share`
/// or `prefill_phase_share`): {attention, GEMMs (dense and MoE), communication, the rest (norms,
/// elementwise, sampling)}. The rest is what the first three leave, so the four sum to `total`
/// (shares all 0, a step of no time: all of it in the rest).
inline std::array<double, 4> split_by_phase(double total, const std::array<double, step_phase_count>& share) {
    const auto at = [&](step_phase p) { return share[static_cast<std::size_t>(p)]; };
    const double attention = total * at(step_phase::attention);
    const double gemm = total * (at(step_phase::dense_gemm) + at(step_phase::moe_gemm));
    const double comm = total * at(step_phase::communication);
    return {attention, gemm, comm, total - attention - gemm - comm};
}

/// TPOT terms of `serving_features` from the decode seconds per token `dec_per_token` and the
/// interleaved prefill per token `prefill_per_token`, split by the phase shares of `decode`
/// (its decode step) and `prefill` (its prefill chunk step), and the counts of `t` at
/// `c_inst` sequences per instance.
inline std::array<double, serving_features::tpot_terms> tpot_terms_of(double dec_per_token, double prefill_per_token,
                                                                      const plan_point& decode, const plan_point& prefill,
                                                                      const term_counts& t, double c_inst) {
    const auto d = split_by_phase(dec_per_token, decode.decode_phase_share);
    const double pre_attention = prefill_per_token * prefill.prefill_phase_share[static_cast<std::size_t>(step_phase::attention)];
    return {d[0], d[1], d[2], d[3], pre_attention, prefill_per_token - pre_attention, t.layers / t.tokens_per_step,
            t.moe_layers / t.tokens_per_step, c_inst / t.tokens_per_step, 1.0,
            t.moe_layers * t.experts_per_token / t.tokens_per_step};
}

/// Disaggregated: the terms from the decode pool's point `pd` (one worker at its share of the
/// requests) and the prefill pool's `pp` (one worker at its batch), both fitting; fills
/// `out.features`, `kv_transfer_s` and `balanced_prefill_per_decode`. The KV cache of a prompt
/// (ISL tokens at the KV dtype) moves over the prefill worker's GPUs at
/// `kv_transfer_bytes_per_s`, else at the GPU's scale-up link (and `link_note` says so).
inline void disaggregated_terms(const model_config& c, const estimate_request& rq, const plan_point& pd,
                                const plan_point& pp, estimate_result& out, std::string* link_note = nullptr) {
    const auto& d = *rq.disaggregated;
    const auto t = counts_of(c, rq);
    const double c_dec = rq.concurrency / d.decode_workers;
    const double dec_per_token = d.decode.pp * pd.decode_step_s / t.tokens_per_step;  // speculation as aggregated
    const auto kv_dtype = rq.kv_cache.value_or(c.quant.kv_cache);
    const double kv_bytes = kv_bytes_for_context(c, rq.isl, kv_dtype);
    // The default link: what the fitted runs moved their KV caches over.
    double default_bw = 0;
    std::string default_note;
    {
        // A prefill worker and a decode worker that cannot share one scale-up domain are on
        // different nodes: the KV cache crosses the network (each GPU's NIC), not NVLink.
        const int domain = scale_up_domain(rq.gpu).first;
        const auto fabric = default_network_fabric(rq.gpu);
        if (domain > 0 && d.prefill.gpus() + d.decode.gpus() > domain && fabric) {
            default_bw = fabric->bytes_per_s_per_gpu;
            default_note = "KV transfer priced at " + fabric->name + ": a prefill worker (" +
                           std::to_string(d.prefill.gpus()) + " GPUs) and a decode worker (" +
                           std::to_string(d.decode.gpus()) + ") do not fit one " + std::to_string(domain) +
                           "-GPU scale-up domain; pass --kv-link-gbps for another network";
        } else {
            default_bw = link_bandwidth_bytes_per_s(rq.gpu, rq.gpu.default_link());
            default_note = "KV transfer priced at the GPU's scale-up link (" + rq.gpu.id +
                           "); pass a network rate for pools on different nodes";
        }
    }
    const auto transfer_s = [&](double bw) { return (std::isfinite(bw) && bw > 0) ? kv_bytes / (bw * d.prefill.gpus()) : 0.0; };
    const double given_bw = d.kv_transfer_bytes_per_s.value_or(0.0);
    if (given_bw > 0) {
        out.kv_transfer_s = transfer_s(given_bw);
        out.kv_transfer_beyond_default_s = std::max(0.0, out.kv_transfer_s - transfer_s(default_bw));
    } else {
        out.kv_transfer_s = transfer_s(default_bw);
        if (link_note) *link_note = default_note;
    }
    const double t_pre = prefill_s_per_token(pp);
    out.features.tpot = tpot_terms_of(dec_per_token, 0.0, pd, pp, t, c_dec);
    const double c_pre = rq.concurrency / d.prefill_workers;
    // The KV term is the transfer over the link the fitted runs used; the excess is `finish`'s.
    // The prefill pool's queue over the default link (the runs fitted moved their KV caches
    // over it), and how much longer over the given one (`finish` charges that at 1).
    const auto pool_queue_s = [&](double prompts_per_s) {
        return d.prefill_workers_known ? prefill_pool_queue_s(rq.concurrency, prompts_per_s, rq.osl, dec_per_token) : 0.0;
    };
    out.prefill_pool_prompts_per_s = prefill_pool_prompts_per_s(d.prefill_workers, rq.isl, t_pre, out.kv_transfer_s);
    const double pool_queue_default_s = pool_queue_s(
        prefill_pool_prompts_per_s(d.prefill_workers, rq.isl, t_pre, out.kv_transfer_s - out.kv_transfer_beyond_default_s));
    out.prefill_pool_queue_beyond_default_s = std::max(0.0, pool_queue_s(out.prefill_pool_prompts_per_s) - pool_queue_default_s);
    out.features.ttft = {pp.ttft_prefill_s,
                         closed_loop_queue_s(c_pre, rq.isl, queue_s_per_token(pp, d.prefill), 0.0),
                         out.kv_transfer_s - out.kv_transfer_beyond_default_s, d.decode.pp * pd.decode_step_s, 1.0, rq.isl, t.layers * t.prompt_chunks,
                         t.moe_layers * t.prompt_chunks, closed_loop_queue_s(c_pre, rq.isl, t_pre, 0.0),
                         t.layers * queue_chunk_steps(c_pre, rq), pool_queue_default_s};
    // Balance: decode pool output / OSL requests per second need ISL x t_pre prefill seconds each.
    const double req_per_s_per_decode = (c_dec / dec_per_token) / rq.osl;
    out.balanced_prefill_per_decode = req_per_s_per_decode * rq.isl * t_pre;
}

/// Says when the prefill pool limits a disaggregated deployment's rate (TTFT term [10], with a
/// given link's excess, > 0): the prompts/s it hands over, the requests/s the decode pool would
/// finish, and the wait Little's law gives at the roof's speeds (the efficiency weighs it).
inline void note_prefill_pool_limit(estimate_result& out, const estimate_request& rq) {
    const auto& d = *rq.disaggregated;
    const double wait_s = out.features.ttft[10] + out.prefill_pool_queue_beyond_default_s;
    if (!(wait_s > 0)) return;
    const double handed = out.prefill_pool_prompts_per_s;
    const double finished = rq.concurrency / (rq.osl * decode_per_token_s(out.features));
    const auto sig = [](double v) {  // three significant digits
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", v);
        return std::string(buf);
    };
    const bool one = d.prefill_workers == 1;
    out.notes.push_back("the prefill pool limits the rate: " + std::to_string(d.prefill_workers) + " prefill worker" +
                        (one ? " hands" : "s hand") + " over " + sig(handed) +
                        " prompts/s (a prompt's prefill or its KV transfer, the longer), where the decode pool would finish " +
                        sig(finished) + " requests/s; by Little's law a request waits " + sig(wait_s) +
                        " s before it decodes at the roof's speeds (TTFT's prefill-pool queue)");
}

/// TPOT, TTFT and the rates of `out` from its features at `e` (and at the roof).
inline void finish(estimate_result& out, const estimate_request& rq, const serving_efficiency& e) {
    const auto [tpot, fitted_ttft] = apply_efficiency(out.features, e);
    const double rtpot = apply_efficiency(out.features, roof_efficiency()).first;
    // A KV transfer slower than the fitted runs' link: its excess at coefficient 1, or where
    // longer the prefill pool's queue's excess (Little's law's wait holds the request's own
    // transfer: the two are one wait, not a sum).
    const double kv_excess_s = out.kv_transfer_beyond_default_s, queue_excess_s = out.prefill_pool_queue_beyond_default_s;
    const double roof_ttft = roof_ttft_s(out.features, kv_excess_s, queue_excess_s);
    const bool at_roof = is_roof_ttft(e);
    const double ttft = at_roof ? roof_ttft : fitted_ttft + std::max(kv_excess_s, queue_excess_s);
    out.fits = true;
    out.tpot_s = tpot;
    out.ttft_s = ttft;
    out.ttft_split = split_ttft(out.features, e);
    // The four parts sum to TTFT: the transfer's excess in the first token's step, the rest of
    // what the link or the pool adds in the queue.
    out.ttft_split.first_token_step_s += kv_excess_s;
    out.ttft_split.queue_s += ttft - fitted_ttft - kv_excess_s;
    if (kv_excess_s > 0)
        out.notes.push_back("KV transfer at the given rate: " + detail::plan::fmt(out.kv_transfer_s * 1e3, 1) + " ms a prompt, " +
                            detail::plan::fmt(out.kv_transfer_beyond_default_s * 1e3, 1) +
                            " ms more than over the default link; the efficiency weighs KV transfer at " +
                            detail::plan::fmt(e.ttft[2], 2) + " (its runs moved KV over the default link), the excess at 1" +
                            (!at_roof && queue_excess_s > kv_excess_s
                                 ? ", and where longer the prefill pool's queue's excess, " +
                                       detail::plan::fmt(queue_excess_s * 1e3, 1) + " ms (the link limits the prompts handed over)"
                                 : std::string()));
    out.roof_tpot_s = rtpot;
    out.roof_ttft_s = roof_ttft;
    if (e.ttft_band) out.ttft_range_s = std::pair{ttft * e.ttft_band->p10, ttft * e.ttft_band->p90};
    if (e.tpot_band) out.tpot_range_s = std::pair{tpot * e.tpot_band->p10, tpot * e.tpot_band->p90};
    // Little's law at this TTFT and TPOT, at most what the prefill pool hands over (a fitted
    // TTFT may weigh the pool's queue below its physical length).
    out.output_tokens_per_s = std::min(closed_loop_output_tokens_per_s(rq.concurrency, rq.osl, ttft, tpot),
                                       out.prefill_pool_prompts_per_s * rq.osl);
    out.tokens_per_s_per_gpu = out.output_tokens_per_s * (1.0 + rq.isl / rq.osl) / out.gpus;
    out.tokens_per_s_per_user = 1.0 / tpot;
}

/// The planner's notes on how it priced the configuration that an estimate must say too (a GPU
/// without BF16 units priced at FP16; speculative decoding's tokens per step and what is
/// priced of it; a context beyond the model's), appended to `notes` once each.
inline void forward_pricing_notes(const plan_result& r, std::vector<std::string>& notes) {
    for (const auto& n : r.notes)
        if ((n.find("has no bf16 units") != std::string::npos || n.rfind("speculative decoding:", 0) == 0 ||
             n.rfind("context:", 0) == 0) &&
            std::find(notes.begin(), notes.end(), n) == notes.end())
            notes.push_back(n);
}

/// Says when the power limit holds a step's clock down (`bound::power`): only GPUs with power
/// coefficients (models/power.hpp: the H200 SXM's, measured, and the RTX PRO 6000 editions')
/// are priced so; others run at full clock, so a capped GPU can come out slower than an
/// uncapped one of the same silicon (an H200's prefill against an H100's).
inline void note_power_limit(const plan_point& p, const gpu_spec& g, std::vector<std::string>& notes) {
    const bool dec = p.decode_bound == bound::power, pre = p.prefill_bound == bound::power;
    if (!dec && !pre) return;
    notes.push_back(std::string(dec && pre ? "decode and prefill" : dec ? "decode" : "prefill") +
                    " held down by the power limit: " + g.id +
                    "'s power coefficients (models/power.hpp) lower its clock where compute binds; GPUs without "
                    "coefficients (H100, B200, ...) are priced at full clock");
}

/// The input checks of `estimate_serving` (usage_error on bad input).
inline void check_request(const estimate_request& rq) {
    if (!(rq.isl >= 1) || !(rq.osl >= 1)) throw usage_error("estimate: ISL and OSL must be >= 1 token");
    if (!(rq.concurrency >= 1)) throw usage_error("estimate: concurrency must be >= 1 request");
    if (rq.speculative && (rq.speculative->acceptance_rate < 0 || rq.speculative->acceptance_rate >= 1 ||
                           rq.speculative->draft_tokens < 1))
        throw usage_error("estimate: speculative decoding needs >= 1 draft token and an acceptance rate in [0, 1)");
    if (rq.disaggregated && (rq.disaggregated->prefill_workers < 1 || rq.disaggregated->decode_workers < 1))
        throw usage_error("estimate: worker counts must be >= 1");
    if (rq.disaggregated && !(rq.disaggregated->prefill_batch >= 1))
        throw usage_error("estimate: the prefill batch must be >= 1 prompt");
}

}  // namespace detail::estimate

/// A dense model has no attention DP: DP in a disaggregated pool is replicas, i.e. more workers
/// (as aggregated, where a dense model's DP is instances). The request with each pool's DP
/// folded into its worker count and a note saying so; nullopt when nothing changes (MoE, DP 1,
/// aggregated).
inline std::optional<std::pair<estimate_request, std::string>> dense_dp_as_workers(const model_config& c,
                                                                                   const estimate_request& rq) {
    if (!rq.disaggregated || c.is_moe() || (rq.disaggregated->prefill.dp <= 1 && rq.disaggregated->decode.dp <= 1))
        return std::nullopt;
    auto q = rq;
    auto& d = *q.disaggregated;
    d.prefill_workers *= std::max(1, d.prefill.dp);
    d.decode_workers *= std::max(1, d.decode.dp);
    d.prefill.dp = d.decode.dp = 1;
    return std::pair{q, "a dense model's DP in a pool is replicas: priced as " + std::to_string(d.prefill_workers) +
                            " prefill and " + std::to_string(d.decode_workers) + " decode workers of DP1"};
}

/// Estimates `rq` for model `c` (quantisation applied) at efficiency `e`. A configuration that
/// does not fit comes back with `fits == false` and the reason; bad input throws `usage_error`.
inline estimate_result estimate_serving(const model_config& c, const estimate_request& rq,
                                        const serving_efficiency& e = roof_efficiency()) {
    using detail::estimate::plan_one;
    using detail::estimate::prefill_s_per_token;
    detail::estimate::check_request(rq);
    if (auto q = dense_dp_as_workers(c, rq)) {
        auto r = estimate_serving(c, q->first, e);
        r.notes.push_back(q->second);
        return r;
    }
    estimate_result out;
    out.memory_headroom = 1.0 - rq.memory_utilization;
    const auto t = detail::estimate::counts_of(c, rq);
    const auto domain = scale_up_domain(rq.gpu).first;

    for (const auto* l : {&rq.layout, rq.disaggregated ? &rq.disaggregated->prefill : nullptr})
        if (l)
            if (std::string w = tp_head_split_problem(c, l->tp); !w.empty() && std::find(out.notes.begin(), out.notes.end(), w) == out.notes.end())
                out.notes.push_back(std::move(w));
    // Instances wider than one scale-up domain: the planner prices their collectives as NCCL's
    // hierarchy (plan.hpp `step_coefficients::spanning`).
    const auto fabric = default_network_fabric(rq.gpu);
    for (const auto* l : {rq.disaggregated ? &rq.disaggregated->prefill : &rq.layout,
                          rq.disaggregated ? &rq.disaggregated->decode : nullptr})
        if (l && domain > 0 && l->gpus() > domain && fabric) {
            std::string w = (rq.disaggregated ? (l == &rq.disaggregated->prefill ? "a prefill worker" : "a decode worker")
                                              : "an instance") +
                            std::string(" spans ") + std::to_string(l->gpus()) + " GPUs, more than one " +
                            std::to_string(domain) + "-GPU scale-up domain: collectives over more ranks than a domain "
                            "priced as NCCL's hierarchy, the scale-up link inside a domain and " +
                            fabric->name + " between (models/collective.hpp)";
            out.notes.push_back(std::move(w));
        }
    if (!rq.disaggregated) {
        const auto& l = rq.layout;
        out.gpus = l.gpus() * rq.instances;
        auto [p, r] = plan_one(c, rq, l, rq.instances, rq.concurrency);
        out.decode_point = p;
        out.max_concurrency = p.max_concurrency;
        out.decode_plan = std::move(r);
        detail::estimate::forward_pricing_notes(out.decode_plan, out.notes);
        if (!p.fits()) {
            out.reason = describe_rejection(p, out.decode_plan);
            return out;
        }
        detail::estimate::note_power_limit(p, rq.gpu, out.notes);
        const double c_inst = rq.concurrency / rq.instances;
        const double t_dec = p.decode_step_s;
        // Speculation (the planner's `plan_request::speculative`): t_dec is a verification step
        // of k + 1 tokens per sequence with its drafting, emitting tokens_per_step tokens each.
        const double dec_per_token = l.pp * t_dec / t.tokens_per_step;
        out.features.tpot = detail::estimate::tpot_terms_of(dec_per_token, p.tpot_s - dec_per_token, p, p, t, c_inst);
        out.features.ttft = {p.ttft_prefill_s, closed_loop_queue_s(c_inst, rq.isl, detail::estimate::queue_s_per_token(p, l), 0.0),
                             0.5 * t_dec, l.pp * t_dec, 1.0,  // the first token passes all pp stages
                             rq.isl, t.layers * t.prompt_chunks, t.moe_layers * t.prompt_chunks,
                             closed_loop_queue_s(c_inst, rq.isl, detail::estimate::prefill_s_per_token(p), 0.0),
                             t.layers * detail::estimate::queue_chunk_steps(c_inst, rq),
                             0.0};  // no prefill pool: the wave's queue is the closed loop's
    } else {
        const auto& d = *rq.disaggregated;
        out.gpus = d.prefill.gpus() * d.prefill_workers + d.decode.gpus() * d.decode_workers;
        auto [pd, rd] = plan_one(c, rq, d.decode, 1, rq.concurrency / d.decode_workers);
        // A prefill step holds no more prompts than its worker's share of the requests in flight.
        const double prefill_batch = std::min(d.prefill_batch, std::max(1.0, rq.concurrency / d.prefill_workers));
        auto [pp, rp] = plan_one(c, rq, d.prefill, 1, prefill_batch);
        out.decode_point = pd;
        out.prefill_point = pp;
        out.max_concurrency = pd.max_concurrency * d.decode_workers;
        out.decode_plan = std::move(rd);
        detail::estimate::forward_pricing_notes(out.decode_plan, out.notes);
        if (!pd.fits()) {
            out.reason = "decode pool: " + describe_rejection(pd, out.decode_plan);
            return out;
        }
        if (!pp.fits()) {
            out.reason = "prefill pool: " + describe_rejection(pp, rp);
            return out;
        }
        // Fewer requests than decode workers: some workers idle (an aggregated deployment with
        // fewer requests than instances is rejected; a pool is priced at its share, and said).
        if (rq.concurrency < d.decode_workers)
            out.notes.push_back(detail::plan::requests_text(rq.concurrency) + " in flight for " +
                                std::to_string(d.decode_workers) +
                                " decode workers: some would sit idle (each decode step priced at one request)");
        std::string link_note;
        detail::estimate::disaggregated_terms(c, rq, pd, pp, out, &link_note);
        if (!link_note.empty()) out.notes.push_back(link_note);
    }
    detail::estimate::finish(out, rq, e);
    if (rq.disaggregated) detail::estimate::note_prefill_pool_limit(out, rq);
    return out;
}

/// Lower bounds on what a run of `rq` can measure (`serving_speed_of_light`), s; NaN: unknown.
struct serving_bounds {
    double tpot_s = std::numeric_limits<double>::quiet_NaN();
    double ttft_s = std::numeric_limits<double>::quiet_NaN();
};

/// Lower bounds on TPOT and TTFT for the configuration `rq` as stated, both at datasheet
/// ceilings (`speed_of_light`: no efficiency, no launch cost, no power cap; MoE weights of the
/// experts a step touches under uniform routing, the planner's count, which skewed routing can
/// beat at small batches) and without communication (an engine may hide it behind compute):
///  * TPOT: the plain decode step's attention, GEMMs and the rest (`serving_features::tpot`
///    [0], [1], [3]) at `rq.concurrency` sequences in decode (the caller passes the batch it
///    knows: an engine that admits fewer than the requests in flight decodes a smaller batch),
///    divided by 1 + the drafted tokens of a speculating request (every draft accepted, its
///    verification free); NaN when `bound_tpot` is false (the caller cannot state what bounds
///    it: a disaggregated run whose decode worker count, so its decode batch, is not known; a
///    speculating run whose draft count is not known);
///  * TTFT: the prompt's own prefill alone: one request in flight, its whole prompt in one
///    chunk (no re-read of a chunked prefix), and with attention DP the step of the dp ranks'
///    prompts over dp (one prompt's share: its attention is priced dp times too few, so lower
///    still).
/// A layout with pipeline stages has no bound (NaN): the planner prices a pipeline at its
/// slowest stage, which is not a lower bound for one request. A measured run under one did not
/// run as stated (a prefix cache, failed or short requests, speculation or a layout not
/// recorded). NaN where the configuration does not fit (TPOT: at `rq.concurrency`; TTFT: with
/// one request) or cannot be priced; never throws for that (the caller's own estimate reports it).
inline serving_bounds serving_speed_of_light(const model_config& c, estimate_request rq, bool bound_tpot = true) {
    serving_bounds b;
    const auto staged = [](const parallel_layout& l) { return l.pp > 1; };
    if (staged(rq.layout) || (rq.disaggregated && (staged(rq.disaggregated->prefill) || staged(rq.disaggregated->decode))))
        return b;
    const double emitted = rq.speculative ? 1.0 + std::max(0, rq.speculative->draft_tokens) : 1.0;
    rq.speed_of_light = true;
    rq.power_limit = false;
    rq.speculative.reset();
    const auto without_communication = [](double total, const plan_point& p) {
        return total * (1.0 - p.prefill_phase_share[static_cast<std::size_t>(step_phase::communication)]);
    };
    try {
        if (bound_tpot) {
            const auto sol = estimate_serving(c, rq);
            const auto& t = sol.features.tpot;
            if (sol.fits) b.tpot_s = (t[0] + t[1] + t[3]) / emitted;
        }
        rq.concurrency = 1;
        rq.instances = 1;
        rq.prefill_chunk_tokens = std::max(rq.prefill_chunk_tokens, rq.isl);
        if (rq.disaggregated) {
            rq.disaggregated->prefill_workers = rq.disaggregated->decode_workers = 1;
            rq.disaggregated->prefill_batch = 1;
        }
        const auto one = estimate_serving(c, rq);
        if (one.fits) {
            const auto& point = rq.disaggregated ? one.prefill_point : one.decode_point;
            const int dp = std::max(1, rq.disaggregated ? rq.disaggregated->prefill.dp : rq.layout.dp);
            b.ttft_s = without_communication(one.features.ttft[0], point) / dp;
        }
    } catch (const error&) {
        // left unknown
    }
    return b;
}

}  // namespace roofline
