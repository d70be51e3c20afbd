#pragma once
// Generated from data/kernel_rules.json by tests/io/embed_kernel_rules.cmake: do not edit.
// tests/trace/kernel_rules_test.cpp checks that this text equals the file byte for byte.

namespace roofline::io::detail {

/// The text of data/kernel_rules.json, compiled in (read by `builtin_kernel_rules()`).
inline constexpr const char builtin_kernel_rules_json[] = R"rules_json({
  "schema": "roofline-kernel-rules-1",
  "description": "Ordered rules mapping GPU kernel names to the phase of an inference step. Each pattern is an ECMAScript regular expression searched case-insensitively anywhere in the (demangled) kernel name; the first rule that matches decides, and a name no rule matches is 'other'. Rules given with --rules FILE (same format) are tried before these. Phases: gemm, moe_gemm, attention, communication, memcpy, memset, norm, activation, elementwise, sampling, other.",
  "rules": [
    {"phase": "communication", "pattern": "nccl", "note": "NCCL collectives: ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ncclKernel_*"},
    {"phase": "communication", "pattern": "cross_device_reduce|custom_?all_?reduce|all_?reduce|one_?shot|two_?shot|lamport", "note": "custom all-reduce (vLLM/SGLang cross_device_reduce_1stage, PyTorch symmetric-memory multimem_all_reduce_kernel, TensorRT-LLM lamport/one-shot/two-shot)"},
    {"phase": "communication", "pattern": "all_?gather|reduce_?scatter|all_?to_?all|all2all|alltoall|moe_a2a|mnnvl|userbuffers", "note": "other collectives and all-to-all"},
    {"phase": "communication", "pattern": "dpsk::ep::|deep_?ep|internode::|intranode::|nvshmem", "note": "DeepEP dispatch/combine/notify kernels (expert-parallel all-to-all)"},

    {"phase": "memcpy", "pattern": "^memcpy|^\\[cuda memcpy", "note": "Kineto 'Memcpy HtoD (Pinned -> Device)', nsys '[CUDA memcpy Host-to-Device]'"},
    {"phase": "memset", "pattern": "^memset|^\\[cuda memset", "note": "Kineto 'Memset (Device)', nsys '[CUDA memset]'"},

    {"phase": "elementwise", "pattern": "reshape_and_cache|concat_and_cache|set_kv_buffer|store_kv", "note": "KV-cache writes (names contain 'flash'/'mla' but move bytes only)"},
    {"phase": "elementwise", "pattern": "grouped_gemm::cuda::utils::|prepare_grouped_gemm_data|fill_tensormaps|moe_align_block_size|count_and_sort_expert", "note": "set-up and layout kernels around grouped GEMMs"},
    {"phase": "elementwise", "pattern": "moe::dev::routing|moe::dev::finalize|finalizekernel|expandinputrows|moe_permute|moe_unpermute|moe_sum", "note": "MoE routing, permute and finalize (un-permute + weighted sum) kernels, TensorRT-LLM and vLLM"},
    {"phase": "elementwise", "pattern": "quantize_with_block_size|scaled_fp8_quant|per_token_quant|per_token_group_quant|cast_to_fp8|fp4_quant|quantize_kernel", "note": "activation quantisation kernels (names carry template arguments that mention flash/gemm types)"},

    {"phase": "moe_gemm", "pattern": "fused_moe|moe_gemm|moegemm|moefcgemm|cutlass_moe|moe_mm|moe::dev::gemm", "note": "Triton fused_moe_kernel (SGLang/vLLM), CUTLASS/TensorRT-LLM MoE GEMMs"},
    {"phase": "moe_gemm", "pattern": "grouped_?gemm|grouped_?mm|m_grouped|groupproblemshape|kernelptrarray|ptrarray", "note": "grouped GEMMs: DeepGEMM m_grouped_*, torch._grouped_mm (CUTLASS GemmUniversal<GroupProblemShape>, ptr-array), CUTLASS grouped"},
    {"phase": "moe_gemm", "pattern": "^bmm_\\w*(e2m1|e4m3)", "note": "TensorRT-LLM batched GEMMs used for MXFP4/FP8 MoE experts on Blackwell (bmm_MxE4m3_MxE2m1..., bmm_Bfloat16_MxE2m1...)"},

    {"phase": "attention", "pattern": "flash|fmha|sdpa|attention|_attn|attn_|xqa|mla_|_mla|flashinfer|batchdecode|batchprefill|singledecode|singleprefill|merge_?state", "note": "FlashAttention 2/3, fmhaSm100a*, cuDNN SDPA, FlashInfer, FlashMLA, TensorRT-LLM XQA, paged attention"},
    {"phase": "attention", "pattern": "_fwd_kernel_stage|_fwd_grouped_kernel_stage|decode_att|extend_att|prefill_att|^_fwd_kernel", "note": "Triton decode/extend attention kernels (SGLang/vLLM)"},

    {"phase": "gemm", "pattern": "nvjet|xmma|gemm|gemv|cublaslt::|splitkreduce|cijk_|matmul|scaled_mm|wgmma|tensorop|^bmm_|triton_tem_", "note": "cuBLAS nvjet_* and sm90_xmma_*, cuBLASLt split-K reduce, CUTLASS, DeepGEMM dense, hipBLASLt Cijk_*, Triton matmul templates"},

    {"phase": "norm", "pattern": "rms_?norm|layer_?norm|ln_fwd|ln_bwd|ln_bwd_finalize|group_?norm|batch_?norm|instance_?norm|l2_?norm|norm_kernel", "note": "RMSNorm/LayerNorm (vLLM rms_norm_kernel, fused_add_rms_norm_kernel, apex/TE ln_fwd, PyTorch vectorized_layer_norm_kernel)"},
    {"phase": "activation", "pattern": "silu|gelu|swiglu|geglu|relu|act_and_mul|sigmoid|tanh|swish|mish|softplus", "note": "activations, fused gate*up activations"},
    {"phase": "sampling", "pattern": "sampling|sampler|top_?k_?top_?p|topktopp|multinomial|argmax|gumbel|min_?p_|renorm_prob", "note": "token sampling (FlashInfer sampling, greedy argmax, top-k/top-p)"},

    {"phase": "elementwise", "pattern": "elementwise|vectorized_|unrolled_|reduce_kernel|reduce_fused|copy|fill|cast|quant|rotary|rope|transpose|gather|scatter|index|sort|top_?k|histogram|scan|arange|embedding|softmax|routing|finalize|permute|expand|catarray|triton_|masked|where|cumsum|mapping|count_expert|dispatch_layout|distribution|cub::|clamp", "note": "element-wise, reduction, copy, cast/quantise, rotary, index/gather/scatter, sort/top-k, MoE routing/permute/finalize, Triton fused point-wise kernels"}
  ]
}
)rules_json";

}  // namespace roofline::io::detail
