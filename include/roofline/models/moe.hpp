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

#include <cmath>  // std::pow

#include "roofline/core/error.hpp"

namespace roofline {

/// Expected number of distinct experts `tokens` tokens touch when each picks `topk` of
/// `experts` uniformly: E (1 - (1 - k/E)^T). Throws `usage_error` unless 0 < k <= E, T >= 0.
inline double expected_active_experts(double experts, double topk, double tokens) {
    if (!(experts > 0) || !(topk > 0) || topk > experts || !(tokens >= 0))
        throw usage_error("moe: need 0 < topk <= experts and tokens >= 0");
    return experts * (1.0 - std::pow(1.0 - topk / experts, tokens));
}

}  // namespace roofline
