#pragma once
// Linear attention (Gated DeltaNet: Qwen3-Next, Qwen3.5): FLOP and bytes of the recurrence of
// one layer on one GPU, for decode and chunked prefill.
//
// Each value head keeps a d_k x d_v state S per sequence. A decode token (the recurrent form,
// fla's fused_recurrent_gated_delta_rule) decays S, reads S^T k, writes the delta-rule update
// k (beta (v - S^T k))^T and reads the output q^T S: about 6 d_k d_v FLOP per value head (the
// decay and the elementwise work counted with them). A prefill chunk runs the chunked form
// (fla's chunk_gated_delta_rule, blocks of `gated_delta_chunk_tokens` = 64 tokens): within a
// block, scores and outputs as in attention (2 B d_k + 2 B d_v per token per head, B the block
// length), across blocks the same state products as decode (6 d_k d_v per token per head).
// Query and key heads (linear_num_key_heads) are shared by linear_num_value_heads / key_heads
// value heads each, as GQA shares KV heads; the kernels expand them, so the FLOP count by value
// head.
//
// Minimum DRAM bytes per sequence: the state read and written once per step (at its dtype,
// float32 in Qwen3.5's `mamba_ssm_dtype`), the conv's last kernel - 1 inputs read and written
// (16-bit); per new token: the conv's input and output (conv_dim = 2 key_dim + value_dim) and
// the recurrence's q, k, v read, its output, beta and decay (2 per value head) written. The
// state traffic is what makes the layer cost at decode: 4 MiB per sequence per layer for
// Qwen3.5-397B (64 heads x 128 x 128 x 4 B), read and written every step.
//
// Tensor parallelism splits key and value heads (vLLM and SGLang shard the projections and the
// state by head): a GPU of a TP group of tp holds max(1, ceil(heads / tp)) of each.

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::ceil
#include <vector>     // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/attention.hpp"  // sequence_group, max_decode_step_tokens
#include "roofline/models/model_config.hpp"

namespace roofline {

/// Tokens per block of the chunked Gated DeltaNet kernel (fla `chunk_gated_delta_rule`, BT = 64).
inline constexpr double gated_delta_chunk_tokens = 64;

/// One linear-attention layer on one GPU (heads already divided by tensor parallelism).
struct linear_attention_shape {
    double key_heads = 0;       ///< q and k heads on this GPU
    double value_heads = 0;     ///< value heads (states) on this GPU
    double key_head_dim = 0;    ///< d_k
    double value_head_dim = 0;  ///< d_v
    double conv_kernel = 0;     ///< depthwise causal conv width
    dtype state = dtype::fp32;  ///< dtype of the recurrent state

    double key_dim() const { return key_heads * key_head_dim; }
    double value_dim() const { return value_heads * value_head_dim; }
    double conv_dim() const { return 2.0 * key_dim() + value_dim(); }
    /// Bytes of one sequence's state and conv inputs on this GPU.
    double state_bytes() const {
        return value_heads * key_head_dim * value_head_dim * bytes_per_element(state) +
               std::max(0.0, conv_kernel - 1) * conv_dim() * 2.0;
    }
};

/// The linear-attention layer of `c` as one GPU of a TP group of `tp` holds it.
inline linear_attention_shape linear_attention_shape_per_gpu(const model_config& c, int tp) {
    tp = std::max(tp, 1);
    linear_attention_shape s;
    s.key_heads = std::max(1.0, std::ceil(static_cast<double>(c.linear_num_key_heads) / tp));
    s.value_heads = std::max(1.0, std::ceil(static_cast<double>(c.linear_num_value_heads) / tp));
    s.key_head_dim = c.linear_key_head_dim;
    s.value_head_dim = c.linear_value_head_dim;
    s.conv_kernel = c.linear_conv_kernel_dim;
    s.state = c.linear_state;
    return s;
}

/// FLOP per new token of a sequence adding `new_tokens` this step: the recurrent form for decode
/// and speculative verification (<= max_decode_step_tokens), the chunked form for prefill.
inline double linear_attention_flops_per_token(const linear_attention_shape& s, double new_tokens) {
    const double conv = 2.0 * s.conv_dim() * s.conv_kernel;  // depthwise: one multiply-add per channel tap
    double per_head = 6.0 * s.key_head_dim * s.value_head_dim;  // state products
    if (new_tokens > max_decode_step_tokens)  // chunked form: intra-block scores and outputs
        per_head += 2.0 * std::min(new_tokens, gated_delta_chunk_tokens) * (s.key_head_dim + s.value_head_dim);
    return s.value_heads * per_head + conv;
}

/// Activation bytes per new token through the conv and the recurrence, at `act`.
inline double linear_attention_bytes_per_token(const linear_attention_shape& s, dtype act) {
    return bytes_per_element(act) * (2.0 * s.conv_dim()   // conv input read, output written
                                     + s.conv_dim()       // q, k, v read by the recurrence
                                     + s.value_dim()      // output written
                                     + 2.0 * s.value_heads);  // beta and decay inputs
}

/// The work of one linear-attention layer over `groups` (decode and prefill alike): FLOP at
/// `math`, DRAM bytes (each sequence's state and conv inputs read and written once, activations
/// per token). Launches: two (conv, recurrence) when any group has tokens.
inline workload linear_attention_workload(const linear_attention_shape& s, const std::vector<sequence_group>& groups,
                                          dtype act = dtype::bf16, peak_key math = peak_key::bf16) {
    workload w;
    double any = 0;
    const double per_tok_b = linear_attention_bytes_per_token(s, act);
    for (const auto& g : groups) {
        if (g.count <= 0 || g.new_tokens <= 0) continue;
        any += g.count;
        w.flops_at(math) += g.count * g.new_tokens * linear_attention_flops_per_token(s, g.new_tokens);
        w.bytes_at(memory_level::dram) += g.count * (2.0 * s.state_bytes() + g.new_tokens * per_tok_b);
    }
    if (any > 0) w.launches = 2;
    return w;
}

}  // namespace roofline
