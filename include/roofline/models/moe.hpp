#pragma once
// Mixture-of-experts: which experts a batch touches, and the grouped GEMM over them.
//
// Under uniform routing each token picks k of E experts; an expert stays idle for a token with
// probability 1 - k/E, so over T independent tokens
//
//   E[active experts] = E (1 - (1 - k/E)^T)
//
// and every active expert's weights are read once per step, however few tokens it got. That is
// why MoE decode is bound by weight bytes far beyond the "active parameters" figure.
//
// Skewed routing: expert i is picked with weight 1 / i^s (Zipf, s > 0), k distinct experts per
// token, sampled with a fixed seed (Efraimidis-Spirakis keys, a portable 64-bit generator), so
// results are reproducible everywhere. A measured histogram (tokens per expert) is taken as is.
//
// The grouped GEMM runs one GEMM per expert e with M = t_e tokens:
//   gate_up: [t_e x h] . [h x 2 i]      down: [t_e x i] . [i x h]        (gated MLP, SwiGLU)
//   FLOP  = 2 t_e (2 h i + i h) = 6 t_e h i
//   bytes = active experts x 3 h i x w (weights incl. block scales) + t_e (2 h + 3 i) x a
//   AI_e  = 6 t_e h i / (3 h i w + t_e (2 h + 3 i) a)
// Under expert parallelism (EP) experts are split over ranks in contiguous blocks; the busiest
// rank sets the step, so the imbalance factor (max / mean rank load) multiplies that rank's
// compute and activation traffic. Within one GPU a persistent grouped GEMM spreads tiles over
// all SMs, so per-expert imbalance (reported as max / mean tokens per expert) costs time only
// through the ranks. Tensor parallelism (TP) splits every expert's i over tp ranks.
// Dispatch and combine: each rank sends its tokens' k hidden vectors to the experts' ranks,
// (ep - 1) / ep of them off-GPU, and gets the outputs back.

#include <algorithm>  // std::max, std::max_element, std::sort
#include <cmath>      // std::pow, std::log
#include <cstdint>    // std::uint64_t
#include <string>     // std::string
#include <string_view>  // std::string_view
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/gemm.hpp"

namespace roofline {

/// Expected number of distinct experts `tokens` tokens touch when each picks `topk` of
/// `experts` uniformly: E (1 - (1 - k/E)^T). Throws `usage_error` unless 0 < k <= E, T >= 0.
inline double expected_active_experts(double experts, double topk, double tokens) {
    if (!(experts > 0) || !(topk > 0) || topk > experts || !(tokens >= 0))
        throw usage_error("moe: need 0 < topk <= experts and tokens >= 0");
    return experts * (1.0 - std::pow(1.0 - topk / experts, tokens));
}

/// How tokens choose experts.
struct moe_routing {
    enum class kind { uniform, zipf, histogram };
    kind type = kind::uniform;
    double zipf_s = 0;                  ///< Zipf exponent (kind::zipf)
    std::vector<double> histogram;      ///< tokens per expert (kind::histogram)
    std::uint64_t seed = 0x5eed5eedULL; ///< sampling seed (kind::zipf)
};

/// Parses "uniform" or "zipf:S" (S > 0). Throws `usage_error` otherwise.
inline moe_routing parse_routing(std::string_view s) {
    moe_routing r;
    if (s == "uniform") return r;
    if (s.rfind("zipf:", 0) == 0) {
        const std::string num(s.substr(5));
        std::size_t used = 0;
        double v = 0;
        try {
            if (num.find_first_of("xX") == std::string::npos) v = std::stod(num, &used);  // decimal only, not 0x2
        } catch (...) {
            used = 0;
        }
        if (used != num.size() || !(v > 0))
            throw usage_error("routing \"" + std::string(s) + "\": zipf needs a positive exponent, e.g. zipf:1.2");
        r.type = moe_routing::kind::zipf;
        r.zipf_s = v;
        return r;
    }
    throw usage_error("unknown routing \"" + std::string(s) + "\" (accepted: uniform, zipf:S)");
}

namespace detail::moe {
/// SplitMix64: a small portable generator (same sequence on every platform).
struct splitmix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in (0, 1).
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
};
}  // namespace detail::moe

/// Tokens per expert for `tokens` tokens choosing `topk` of `experts` under `r`:
///  * uniform: the expectation T k / E for every expert (a balanced split);
///  * zipf: sampled, k distinct experts per token with weights 1 / rank^s, fixed seed
///    (at most 65,536 tokens are sampled; larger batches scale the counts);
///  * histogram: the given counts (their number must equal `experts`).
/// Throws `usage_error` for inconsistent inputs.
inline std::vector<double> tokens_per_expert(double tokens, int experts, int topk, const moe_routing& r) {
    if (experts <= 0 || topk <= 0 || topk > experts || !(tokens >= 0))
        throw usage_error("moe: need 0 < topk <= experts and tokens >= 0");
    std::vector<double> counts(static_cast<std::size_t>(experts), 0.0);
    switch (r.type) {
        case moe_routing::kind::uniform:
            std::fill(counts.begin(), counts.end(), tokens * topk / experts);
            return counts;
        case moe_routing::kind::histogram:
            if (r.histogram.size() != counts.size())
                throw usage_error("moe: the routing histogram has " + std::to_string(r.histogram.size()) +
                                  " entries for " + std::to_string(experts) + " experts");
            for (double v : r.histogram)
                if (!(v >= 0)) throw usage_error("moe: routing histogram entries must be >= 0");
            return r.histogram;
        case moe_routing::kind::zipf: break;
    }
    const double sampled = std::min(tokens, 65536.0);
    detail::moe::splitmix64 rng{r.seed};
    std::vector<double> weight(counts.size());
    for (int i = 0; i < experts; ++i) weight[static_cast<std::size_t>(i)] = 1.0 / std::pow(i + 1.0, r.zipf_s);
    std::vector<std::pair<double, int>> keys(counts.size());
    for (long long t = 0; t < static_cast<long long>(sampled); ++t) {
        // Efraimidis-Spirakis: the k smallest -ln(u) / w are a weighted sample without replacement.
        for (int i = 0; i < experts; ++i)
            keys[static_cast<std::size_t>(i)] = {-std::log(rng.uniform()) / weight[static_cast<std::size_t>(i)], i};
        std::partial_sort(keys.begin(), keys.begin() + topk, keys.end());
        for (int j = 0; j < topk; ++j) counts[static_cast<std::size_t>(keys[static_cast<std::size_t>(j)].second)] += 1;
    }
    if (sampled > 0 && sampled < tokens)
        for (double& c : counts) c *= tokens / sampled;
    return counts;
}

/// One grouped GEMM: `m[e]` rows for group e, each against its own [k x n] weight matrix.
/// FLOP 2 sum(m) n k at `peak`; bytes: weights of groups with m > 0 (n k w each, scales
/// included), activations sum(m) k a in and sum(m) n c out. One launch.
inline workload grouped_gemm_workload(const std::vector<double>& m, double n, double k, dtype a, dtype w, dtype c,
                                      peak_key peak) {
    workload out;
    double rows = 0, active = 0;
    for (double v : m) {
        rows += v;
        active += v > 0 ? 1.0 : 0.0;
    }
    out.flops_at(peak) = 2.0 * rows * n * k;
    out.bytes_at(memory_level::dram) =
        active * n * k * bytes_per_element(w) + rows * (k * bytes_per_element(a) + n * bytes_per_element(c));
    out.launches = 1;
    return out;
}

/// A mixture-of-experts layer's feed-forward on one GPU.
struct moe_problem {
    double tokens = 0;       ///< tokens in the step (all EP ranks together)
    int experts = 0;
    int topk = 0;
    double hidden = 0;
    double inter = 0;        ///< one routed expert's intermediate size
    int shared_experts = 0;  ///< always-active experts of width `shared_inter` (0: = inter)
    double shared_inter = 0;
    dtype weights = dtype::bf16;
    dtype activations = dtype::bf16;
    int ep = 1;              ///< expert-parallel ranks
    int tp = 1;              ///< tensor-parallel split of every expert's intermediate dimension
    moe_routing routing;
};

/// The MoE feed-forward priced for the busiest GPU.
struct moe_result {
    std::vector<double> tokens_per_expert;
    double active_experts = 0;          ///< distinct experts with tokens (closed form for uniform)
    double mean_tokens_per_expert = 0;  ///< T k / E
    double max_tokens_per_expert = 0;
    double imbalance = 1;               ///< max / mean tokens per expert
    double rank_imbalance = 1;          ///< max / mean tokens per EP rank (time effect)
    double flops_gate_up = 0, flops_down = 0, flops_shared = 0;  ///< busiest GPU
    double weight_bytes = 0;      ///< busiest GPU: active routed experts + shared, incl. scales
    double activation_bytes = 0;  ///< busiest GPU
    double all_to_all_bytes = 0;  ///< per GPU: dispatch + combine, off-GPU share
    std::vector<double> expert_intensity;  ///< FLOP/byte per expert (0 for idle experts)
    compute_path path;
    workload work;  ///< busiest GPU (FLOP, DRAM bytes, link bytes, launches)
};

/// Prices a MoE layer's feed-forward on `g` (compute path from the weights' and activations'
/// dtypes). Throws `usage_error` for non-positive sizes, ep not dividing E, or bad routing.
inline moe_result moe_layer(const moe_problem& p, const gpu_spec& g) {
    if (!(p.hidden > 0) || !(p.inter > 0) || p.ep < 1 || p.tp < 1)
        throw usage_error("moe: hidden, inter, ep and tp must be positive");
    if (p.experts % p.ep != 0)
        throw usage_error("moe: ep (" + std::to_string(p.ep) + ") must divide the experts (" +
                          std::to_string(p.experts) + ")");
    moe_result r;
    r.tokens_per_expert = tokens_per_expert(p.tokens, p.experts, p.topk, p.routing);
    const double E = p.experts, h = p.hidden, i = p.inter / p.tp;
    r.mean_tokens_per_expert = p.tokens * p.topk / E;
    r.max_tokens_per_expert = *std::max_element(r.tokens_per_expert.begin(), r.tokens_per_expert.end());
    r.imbalance = r.mean_tokens_per_expert > 0 ? r.max_tokens_per_expert / r.mean_tokens_per_expert : 1.0;
    if (p.routing.type == moe_routing::kind::uniform) {
        r.active_experts = expected_active_experts(E, p.topk, p.tokens);
    } else {
        for (double t : r.tokens_per_expert) r.active_experts += t > 0 ? 1.0 : 0.0;
    }

    // Ranks: contiguous blocks of E / ep experts.
    const int per_rank = p.experts / p.ep;
    std::vector<double> rank_tokens(static_cast<std::size_t>(p.ep), 0.0), rank_active(static_cast<std::size_t>(p.ep), 0.0);
    for (int e = 0; e < p.experts; ++e) {
        const double t = r.tokens_per_expert[static_cast<std::size_t>(e)];
        rank_tokens[static_cast<std::size_t>(e / per_rank)] += t;
        rank_active[static_cast<std::size_t>(e / per_rank)] += t > 0 ? 1.0 : 0.0;
    }
    std::size_t busiest = 0;
    for (std::size_t k = 1; k < rank_tokens.size(); ++k)
        if (rank_tokens[k] > rank_tokens[busiest]) busiest = k;
    const double mean_rank = p.tokens * p.topk / p.ep;
    r.rank_imbalance = mean_rank > 0 ? rank_tokens[busiest] / mean_rank : 1.0;
    double active_here = rank_active[busiest];
    if (p.routing.type == moe_routing::kind::uniform) active_here = r.active_experts / p.ep;

    const double w = bytes_per_element(p.weights), a = bytes_per_element(p.activations);
    const double pairs = rank_tokens[busiest];
    r.path = gemm_compute_path(p.weights, p.activations, g);
    r.flops_gate_up = 2.0 * pairs * h * 2.0 * i;
    r.flops_down = 2.0 * pairs * i * h;
    const double expert_bytes = 3.0 * h * i * w;
    r.weight_bytes = active_here * expert_bytes;
    r.activation_bytes = pairs * (2.0 * h + 3.0 * i) * a;
    if (p.shared_experts > 0) {
        // Shared experts run on this rank's own tokens (T / ep), split by tp like the routed ones.
        const double si = p.shared_experts * (p.shared_inter > 0 ? p.shared_inter : p.inter) / p.tp;
        const double own = p.tokens / p.ep;
        r.flops_shared = 2.0 * own * 3.0 * h * si;
        r.weight_bytes += 3.0 * h * si * w;
        r.activation_bytes += own * (2.0 * h + 3.0 * si) * a;
    }
    r.expert_intensity.resize(r.tokens_per_expert.size(), 0.0);
    for (std::size_t e = 0; e < r.tokens_per_expert.size(); ++e) {
        const double t = r.tokens_per_expert[e];
        if (t > 0) r.expert_intensity[e] = 6.0 * t * h * i / (expert_bytes + t * (2.0 * h + 3.0 * i) * a);
    }
    if (p.ep > 1) {
        const double own = p.tokens / p.ep;
        const double off = (p.ep - 1.0) / p.ep;
        r.all_to_all_bytes = own * p.topk * h * off * (a + bytes_per_element(dtype::bf16));
    }
    r.work.flops_at(r.path.peak) = r.flops_gate_up + r.flops_down + r.flops_shared;
    r.work.bytes_at(memory_level::dram) = r.weight_bytes + r.activation_bytes;
    r.work.link_bytes = r.all_to_all_bytes;
    r.work.launches = 2 + (p.shared_experts > 0 ? 2 : 0) + (p.ep > 1 ? 2 : 0);
    return r;
}

}  // namespace roofline
