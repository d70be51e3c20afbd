#pragma once
// Disaggregated serving in the planner: a deployment of N GPUs split into a prefill pool and a
// decode pool, each of workers (model instances) of its own layout, the KV cache of every prompt
// sent from a prefill worker to a decode worker. For each GPU and count, every pair of worker
// layouts whose sizes are powers of two within one scale-up domain, every split of the N GPUs
// into x prefill and y decode workers that uses all of them, and every per-worker decode
// concurrency of the sweep is priced as `estimate_serving` prices a disaggregated configuration
// (analysis/estimate.hpp) at the roof: TPOT is the decode worker's step at its batch, TTFT the
// prompt's prefill on a prefill worker plus the queue over the prefill pool and the KV transfer,
// or where longer the wait Little's law gives where the prefill pool limits the rate.
//
// Stages:
//  1. `run_plan` once per (GPU, worker size): every single-instance layout at the sweep's
//     concurrencies and at the prefill batch (memory check, steps, power, as aggregated);
//  2. pair the fitting points: prefill worker at the prefill batch, decode worker at each
//     concurrency, over each split (`detail::estimate::disaggregated_terms`);
//  3. the Pareto front of tokens/s per GPU against tokens/s per user over those meeting the SLOs.

#include <algorithm>  // std::max, std::sort, std::unique
#include <cmath>      // std::floor
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint16_t
#include <map>        // std::map
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/analysis/estimate.hpp"
#include "roofline/analysis/pareto.hpp"
#include "roofline/analysis/plan.hpp"
#include "roofline/core/error.hpp"
#include "roofline/models/model_config.hpp"

namespace roofline {

/// One disaggregated deployment. Rates are per deployment unless the name says per GPU or user.
struct disaggregated_plan_point {
    std::uint16_t gpu = 0;  ///< index into `plan_request::gpus`
    int count = 0;          ///< GPUs: prefill workers x their size + decode workers x theirs
    disaggregated_pools pools;
    double concurrency = 0;  ///< requests in flight over the deployment, shared by the decode workers
    double ttft_s = 0, tpot_s = 0;
    double tokens_per_s_per_gpu = 0;   ///< input + output
    double tokens_per_s_per_user = 0;  ///< output, 1 / TPOT
    double output_tokens_per_s = 0;
    double kv_transfer_s = 0;  ///< one prompt's KV cache, prefill to decode worker
    /// Prefill workers one decode worker needs so prompts are prefilled as fast as the decode
    /// pool finishes requests (`estimate_result::balanced_prefill_per_decode`).
    double balanced_prefill_per_decode = 0;
    bound decode_bound = bound::latency, prefill_bound = bound::latency;
    bool meets_slo = false;
};

/// The disaggregated sweep: its counts and front.
struct disaggregated_plan {
    std::vector<disaggregated_plan_point> pareto;  ///< fitting, SLO-meeting, by tokens/s per user
    /// Each (GPU, count)'s own front over the same points, for charts.
    std::vector<disaggregated_plan_point> series_fronts;
    std::size_t points_evaluated = 0;  ///< (pools, split, concurrency) combinations priced
    std::size_t fitting = 0;           ///< both pools fit in memory
    std::size_t meeting_slo = 0;
    double prefill_batch = 1;          ///< the most prompts one prefill step holds: floor(chunk / ISL), >= 1
    std::vector<std::string> notes;
};

namespace detail::disagg {

/// Powers of two from 1 up to `limit`.
inline std::vector<int> worker_sizes(int limit) {
    std::vector<int> out;
    for (int g = 1; g <= limit; g *= 2) out.push_back(g);
    return out;
}

/// The fitting single-instance points of one worker size: per layout, by concurrency.
struct worker_points {
    int gpus = 0;
    std::vector<parallel_layout> layouts;
    std::vector<std::map<double, plan_point>> by_concurrency;  ///< parallel to `layouts`
};

/// One deployment of `n` GPUs in `pools` at `conc` requests in flight, priced at the roof from
/// its decode worker's point `pd` (at conc / decode workers) and its prefill worker's `pp` (at
/// the pools' batch), as `estimate_serving` prices it; `gpu` (the index) is left to the caller.
inline disaggregated_plan_point price_point(const model_config& c, const plan_request& rq, const gpu_spec& gpu,
                                            const disaggregated_pools& pools, double conc, int n, const plan_point& pd,
                                            const plan_point& pp, std::string& link_note) {
    estimate_request er;
    er.gpu = gpu;
    er.concurrency = conc;
    er.isl = rq.isl;
    er.osl = rq.osl;
    er.speculative = rq.speculative;
    er.kv_cache = rq.kv_cache;
    er.prefill_chunk_tokens = rq.prefill_chunk_tokens;
    er.disaggregated = pools;
    estimate_result e;
    e.gpus = n;
    detail::estimate::disaggregated_terms(c, er, pd, pp, e, &link_note);
    detail::estimate::finish(e, er, roof_efficiency());
    disaggregated_plan_point p;
    p.count = n;
    p.pools = pools;
    p.concurrency = conc;
    p.ttft_s = e.ttft_s;
    p.tpot_s = e.tpot_s;
    // The closed loop's rate (Little's law, as `estimate` and an aggregated point price it), at
    // most what the prefill pool hands over (`finish`: `prefill_pool_prompts_per_s` x OSL); at
    // the roof TTFT is at least the pool's queue, term [10], so a point the cap binds waits in
    // TTFT what it loses in throughput.
    p.output_tokens_per_s = e.output_tokens_per_s;
    p.tokens_per_s_per_gpu = p.output_tokens_per_s * (1.0 + rq.isl / rq.osl) / n;
    p.tokens_per_s_per_user = e.tokens_per_s_per_user;
    p.kv_transfer_s = e.kv_transfer_s;
    p.balanced_prefill_per_decode = e.balanced_prefill_per_decode;
    p.decode_bound = pd.decode_bound;
    p.prefill_bound = pp.prefill_bound;
    p.meets_slo = (!rq.ttft_slo_s || p.ttft_s <= *rq.ttft_slo_s) && (!rq.tpot_slo_s || p.tpot_s <= *rq.tpot_slo_s);
    return p;
}

}  // namespace detail::disagg

/// Plans disaggregated deployments of `c` (quantisation applied) for `rq`: its GPUs, counts,
/// concurrencies (over the deployment), ISL/OSL, SLOs, KV dtype, ceilings, power and speculation.
/// Worker sizes are powers of two below the count and within the GPU's scale-up domain
/// (`scale_up_domain`, or `rq.max_gpus_per_instance`); the decode workers share the requests in
/// flight evenly (C / workers each, at least one); a prefill worker's step holds the prompts of
/// its share, C / prefill workers, at most floor(chunk tokens / ISL) and at least one. `kv_transfer_bytes_per_s` (per GPU):
/// the rate the KV cache moves at; nullopt, the GPU's default link. `visit(point)` sees every
/// configuration whose pools fit, SLO or not. Throws `usage_error` as `run_plan` does.
template <class Visit>
disaggregated_plan plan_disaggregated(const model_config& c, const plan_request& rq,
                                      std::optional<double> kv_transfer_bytes_per_s, Visit&& visit) {
    using detail::disagg::worker_points;
    if (!(rq.isl >= 1) || !(rq.osl >= 1)) throw usage_error("plan: ISL and OSL must be >= 1 token");
    disaggregated_plan out;
    out.prefill_batch = std::max(1.0, std::floor(rq.prefill_chunk_tokens / rq.isl));
    int max_count = 0;
    for (int n : rq.counts) max_count = std::max(max_count, n);
    pareto_accumulator<disaggregated_plan_point> front;
    std::vector<pareto_accumulator<disaggregated_plan_point>> series(rq.gpus.size() * rq.counts.size());
    std::string link_note, no_fit;
    for (std::size_t gi = 0; gi < rq.gpus.size(); ++gi) {
        const auto& gpu = rq.gpus[gi];
        int limit = max_count - 1;  // a worker leaves room for one of the other pool
        const int domain = rq.max_gpus_per_instance ? *rq.max_gpus_per_instance : scale_up_domain(gpu).first;
        if (domain > 0) limit = std::min(limit, domain);
        // Stage 1: every single-instance layout of each worker size, at every share of the
        // sweep's concurrencies a decode worker can get and every prefill batch.
        std::vector<worker_points> sizes;
        std::string gpu_no_fit;
        std::vector<int> worker_gpus = detail::disagg::worker_sizes(limit);
        if (rq.layouts.only) {  // one layout for both pools
            const int g = rq.layouts.only->gpus();
            worker_gpus.assign(g <= limit ? 1 : 0, g);
        }
        for (int g : worker_gpus) {
            plan_request sub = rq;
            sub.gpus = {gpu};
            sub.counts = {g};
            sub.concurrencies.clear();
            for (int y = 1; y * g < max_count; ++y)
                for (double conc : rq.concurrencies)
                    if (conc / y >= 1) sub.concurrencies.push_back(conc / y);
            for (double b = 1; b <= out.prefill_batch; ++b) sub.concurrencies.push_back(b);
            std::sort(sub.concurrencies.begin(), sub.concurrencies.end());
            sub.concurrencies.erase(std::unique(sub.concurrencies.begin(), sub.concurrencies.end()),
                                    sub.concurrencies.end());
            sub.evaluate_kv_limit = false;
            sub.ttft_slo_s.reset();
            sub.tpot_slo_s.reset();
            worker_points w;
            w.gpus = g;
            run_plan(c, sub, [&](const plan_point& p) {
                if (p.instances != 1 || !p.fits()) return;
                std::size_t i = 0;
                while (i < w.layouts.size() && !(w.layouts[i].tp == p.layout.tp && w.layouts[i].ep == p.layout.ep &&
                                                  w.layouts[i].dp == p.layout.dp && w.layouts[i].pp == p.layout.pp))
                    ++i;
                if (i == w.layouts.size()) {
                    w.layouts.push_back(p.layout);
                    w.by_concurrency.emplace_back();
                }
                w.by_concurrency[i].emplace(p.concurrency, p);
            });
            if (!w.layouts.empty()) sizes.push_back(std::move(w));
            else gpu_no_fit += (gpu_no_fit.empty() ? "" : ", ") + std::to_string(g);
        }
        if (!gpu_no_fit.empty()) no_fit += (no_fit.empty() ? "" : "; ") + gpu.id + ": " + gpu_no_fit + " GPUs";
        // Stage 2: pairs of worker layouts over each split of each count.
        for (std::size_t ni = 0; ni < rq.counts.size(); ++ni) {
            const int n = rq.counts[ni];
            auto& series_front = series[gi * rq.counts.size() + ni];
            for (const auto& pre : sizes) {
                for (const auto& dec : sizes) {
                    for (int x = 1; x * pre.gpus + dec.gpus <= n; ++x) {
                        const int rest = n - x * pre.gpus;
                        if (rest % dec.gpus != 0) continue;
                        const int y = rest / dec.gpus;
                        for (std::size_t pi = 0; pi < pre.layouts.size(); ++pi) {
                            for (std::size_t di = 0; di < dec.layouts.size(); ++di) {
                                for (double conc : rq.concurrencies) {
                                    if (conc / y < 1) continue;  // a decode worker without a request
                                    ++out.points_evaluated;
                                    const double batch =
                                        std::clamp(std::floor(conc / x), 1.0, out.prefill_batch);
                                    const auto pp_it = pre.by_concurrency[pi].find(batch);
                                    if (pp_it == pre.by_concurrency[pi].end()) continue;  // the prefill worker does not fit
                                    const auto pd_it = dec.by_concurrency[di].find(conc / y);
                                    if (pd_it == dec.by_concurrency[di].end()) continue;
                                    ++out.fitting;
                                    disaggregated_pools pools;
                                    pools.prefill = pre.layouts[pi];
                                    pools.decode = dec.layouts[di];
                                    pools.prefill_workers = x;
                                    pools.decode_workers = y;
                                    pools.prefill_batch = batch;
                                    pools.kv_transfer_bytes_per_s = kv_transfer_bytes_per_s;
                                    auto p = detail::disagg::price_point(c, rq, gpu, pools, conc, n, pd_it->second,
                                                                         pp_it->second, link_note);
                                    p.gpu = static_cast<std::uint16_t>(gi);
                                    visit(static_cast<const disaggregated_plan_point&>(p));
                                    if (!p.meets_slo) continue;
                                    ++out.meeting_slo;
                                    front.add(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu, p);
                                    series_front.add(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu, p);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out.pareto = front.front();
    for (const auto& sf : series)
        for (auto& p : sf.front()) out.series_fronts.push_back(std::move(p));
    out.notes.push_back("disaggregated: worker sizes are powers of two within one scale-up domain, and a split "
                        "uses every GPU of the count; the decode workers share the requests in flight, and a prefill "
                        "worker's step holds its share of them, at most " + detail::plan::fmt(out.prefill_batch) +
                        " (the chunk over the ISL); TPOT is the decode worker's step alone, TTFT "
                        "the prompt's prefill + the queue over the prefill pool + the KV transfer, or where the "
                        "prefill pool limits the rate the longer wait Little's law gives");
    if (!no_fit.empty())
        out.notes.push_back("disaggregated: workers too small to hold the model at any concurrency (weights, "
                            "activations and KV cache), so left out: " + no_fit);
    if (!link_note.empty())
        out.notes.push_back("disaggregated: KV transfer priced at the GPU's own link (NVLink; PCIe on cards without it); pass --kv-link-gbps for "
                            "pools on different nodes");
    return out;
}

/// `plan_disaggregated` without a visitor: the counts and the front.
inline disaggregated_plan plan_disaggregated(const model_config& c, const plan_request& rq,
                                             std::optional<double> kv_transfer_bytes_per_s = std::nullopt) {
    return plan_disaggregated(c, rq, kv_transfer_bytes_per_s, [](const disaggregated_plan_point&) {});
}

}  // namespace roofline
