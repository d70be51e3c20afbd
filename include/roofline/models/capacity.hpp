#pragma once
// Serving capacity checks: how many sequences can decode at once, and whether a claimed
// operating point is consistent with that (case C13).
//
// Little's law (L = lambda W) for decoding streams: the output tokens a deployment produces per
// second, divided by the tokens per second each user sees, is the number of streams decoding at
// once:
//   streams = (output tok/s per GPU x GPUs) / (tok/s per user)
// Two ceilings bound it:
//  * KV memory: free memory after weights, over the KV bytes of one sequence at its full length.
//    Under TP the MLA latent cache is replicated on every rank (models/kv_cache.hpp), so a TP
//    group holds only what one GPU's free memory holds.
//  * prefill rate: a stream only starts after its prompt is prefilled; at P prefill tokens/s and
//    ISL tokens per prompt, P / ISL streams start per second, each living OSL / (tok/s per user)
//    seconds, so at most (P / ISL) x (OSL / per-user rate) streams are alive.

#include <algorithm>  // std::max, std::min
#include <string>     // std::string

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/parameters.hpp"

namespace roofline {

/// Streams decoding at once by Little's law: total output tok/s / per-user tok/s.
/// Throws `usage_error` for non-positive rates.
inline double implied_concurrent_streams(double output_tokens_per_s, double tokens_per_s_per_user) {
    if (!(output_tokens_per_s > 0) || !(tokens_per_s_per_user > 0))
        throw usage_error("capacity: throughput and per-user rate must be positive");
    return output_tokens_per_s / tokens_per_s_per_user;
}

/// Sequences the KV cache holds.
struct kv_capacity {
    double free_bytes_per_gpu = 0;     ///< usable memory minus this GPU's share of the weights
    double bytes_per_sequence_per_gpu = 0;
    double max_sequences = 0;          ///< over the whole deployment
    std::string note;
};

/// KV capacity of `gpus` GPUs of `memory_bytes` each, serving `c` (weights `weight_bytes` in
/// total, split over the TP x PP GPUs of one replica) with TP degree `tp` and `gpus / (tp pp)`
/// replicas, for sequences of `context_tokens`. `usable_fraction` is the share of memory the
/// engine may use (vLLM's gpu_memory_utilization default 0.9); activations and CUDA graphs are
/// not deducted, so this is an upper bound. Throws `usage_error` for bad sizes.
inline kv_capacity kv_capacity_limit(const model_config& c, double weight_bytes, double memory_bytes, int gpus,
                                     int tp, double context_tokens, dtype kv, double usable_fraction = 0.9,
                                     int pp = 1) {
    if (gpus < 1 || tp < 1 || pp < 1 || gpus % (tp * pp) != 0)
        throw usage_error("capacity: gpus must be a multiple of tp x pp");
    if (!(memory_bytes > 0) || !(context_tokens > 0)) throw usage_error("capacity: memory and context must be positive");
    kv_capacity k;
    const auto shard = kv_per_gpu(c, kv, tp);
    k.note = shard.note;
    k.free_bytes_per_gpu = memory_bytes * usable_fraction - weight_bytes / (tp * pp);
    // One sequence's KV on one GPU: its TP share (or the replicated latent), its PP share of layers.
    k.bytes_per_sequence_per_gpu = kv_bytes_for_context_per_gpu(c, context_tokens, kv, tp) / pp;
    const double per_replica = k.free_bytes_per_gpu > 0 && k.bytes_per_sequence_per_gpu > 0
                                   ? k.free_bytes_per_gpu / k.bytes_per_sequence_per_gpu
                                   : 0.0;
    k.max_sequences = per_replica * (gpus / (tp * pp));
    return k;
}

/// Streams the prefill rate can keep alive: (P / ISL) x (OSL / per-user rate).
inline double prefill_limited_streams(double prefill_tokens_per_s, double isl, double osl, double tokens_per_s_per_user) {
    if (!(prefill_tokens_per_s > 0) || !(isl > 0) || !(osl > 0) || !(tokens_per_s_per_user > 0))
        throw usage_error("capacity: prefill rate, ISL, OSL and per-user rate must be positive");
    return prefill_tokens_per_s / isl * (osl / tokens_per_s_per_user);
}

/// The consistency verdict for an operating point.
struct concurrency_check {
    double implied_streams = 0;
    double kv_limit = 0;       ///< 0 when not checked
    double prefill_limit = 0;  ///< 0 when not checked
    bool consistent = true;
    std::string reason;
};

/// Checks `implied` streams against the limits given (a limit <= 0 is not checked).
inline concurrency_check check_concurrency(double implied, double kv_limit, double prefill_limit = 0) {
    concurrency_check r;
    r.implied_streams = implied;
    r.kv_limit = kv_limit;
    r.prefill_limit = prefill_limit;
    if (kv_limit > 0 && implied > kv_limit) {
        r.consistent = false;
        r.reason = "implies " + std::to_string(static_cast<long long>(implied + 0.5)) +
                   " concurrent streams but the KV cache holds at most " +
                   std::to_string(static_cast<long long>(kv_limit)) + " at this length";
    } else if (prefill_limit > 0 && implied > prefill_limit) {
        r.consistent = false;
        r.reason = "implies " + std::to_string(static_cast<long long>(implied + 0.5)) +
                   " concurrent streams but prefill can start only enough for " +
                   std::to_string(static_cast<long long>(prefill_limit));
    }
    return r;
}

}  // namespace roofline
