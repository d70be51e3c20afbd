# End-to-end tests of `roofline model` and `roofline kernel`.
set(_cfg ${PROJECT_SOURCE_DIR}/../shared/samples/model_configs)

# --- model: a small config in the repo, worked by hand -------------------------------------------
# 1 dense + 2 MoE layers + 1 MTP layer (h 64, MLA 32 + 8, 8 experts of 32, top-2, 1 shared).
roofline_cli_test(model_tiny ARGS model --model tests/cli/data/tiny_moe_config.json
                  PASS "KV cache 240 B per token \\(bf16, 3 layers")
roofline_cli_test(model_tiny_json ARGS model --model tests/cli/data/tiny_moe_config.json --json
                  PASS "\"kv_bytes_per_token\": 240.0")
roofline_cli_test(model_missing_file ARGS model --model tests/cli/data/no_such_config.json EXIT 2)
roofline_cli_test(model_bad_quant ARGS model --model tests/cli/data/tiny_moe_config.json --quant int3 EXIT 2)
roofline_cli_test(model_bad_kv_dtype ARGS model --model tests/cli/data/tiny_moe_config.json --kv-dtype fp3 EXIT 2)

# --- model: real configs, when ../shared is present ------------------------------------------------
if(EXISTS ${_cfg}/zai-org--GLM-5_config.json AND EXISTS ${_cfg}/nvidia--GLM-5-NVFP4_hf_quant_config.json)
    roofline_cli_test(model_glm5 ARGS model --model ${_cfg}/zai-org--GLM-5_config.json
                      PASS "743.91B total, 40.83B active per token")
    roofline_cli_test(model_glm5_nvfp4_tp8 ARGS model --model ${_cfg}/zai-org--GLM-5_config.json
                      --quant ${_cfg}/nvidia--GLM-5-NVFP4_hf_quant_config.json --tp 8
                      PASS "55224 B per token \\(MLA latent cache replicated")
    roofline_cli_test(model_glm5_json ARGS model --model ${_cfg}/zai-org--GLM-5_config.json --json
                      PASS "\"total_params\": 743911")
endif()
if(EXISTS ${_cfg}/openai--gpt-oss-120b_config.json)
    roofline_cli_test(model_gpt_oss ARGS model --model ${_cfg}/openai--gpt-oss-120b_config.json
                      PASS "116.83B total, 5.13B active")
endif()

# --- kernel gemm ----------------------------------------------------------------------------------
# 4096^3 bf16 on H200: 1.374e11 / (0.75 x 989e12) + 0.86 us = 186.2 us; lower bound 139.0 us.
roofline_cli_test(kernel_gemm ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
                  PASS "predicted 186.2 us \\(compute-bound\\); lower bound 139.0 us")
roofline_cli_test(kernel_gemm_json ARGS kernel gemm --m 1 --n 8192 --k 8192 --dtype bf16 --gpu h200-sxm --json
                  PASS "\"bound\": \"memory\"")
roofline_cli_test(kernel_gemm_nvfp4_hopper ARGS kernel gemm --m 16 --n 8192 --k 8192 --dtype nvfp4 --gpu h200-sxm
                  PASS "falls back to a bf16 compute path")
# With a calibration file: 1.374e11 / 7.9e14 + 0.86 us = 174.8 us (its 4 us eager launch floor is a
# host term, not part of the kernel's time).
roofline_cli_test(kernel_gemm_calibration ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
                  --calibration tests/cli/data/calibration_h200.json PASS "predicted 174.8 us")
roofline_cli_test(kernel_gemm_calibration_bad_key ARGS kernel gemm --m 1 --n 1 --k 1 --dtype bf16 --gpu h200-sxm
                  --calibration tests/cli/data/calibration_bad_key.json EXIT 2)
roofline_cli_test(kernel_gemm_calibration_malformed ARGS kernel gemm --m 1 --n 1 --k 1 --dtype bf16 --gpu h200-sxm
                  --calibration tests/cli/data/calibration_malformed.json EXIT 2)
roofline_cli_test(kernel_gemm_unknown_dtype ARGS kernel gemm --m 1 --n 1 --k 1 --dtype fp3 --gpu h200-sxm EXIT 2)
roofline_cli_test(kernel_gemm_unknown_gpu ARGS kernel gemm --m 1 --n 1 --k 1 --dtype bf16 --gpu h300 EXIT 2)
roofline_cli_test(kernel_gemm_negative ARGS kernel gemm --m -1 --n 1 --k 1 --dtype bf16 --gpu h200-sxm EXIT 2)
# A dimension past 1e8 is a typo (1e30 printed a 9.5e26-wave tile before), and so are 2 PB copies.
roofline_cli_test(kernel_gemm_implausible ARGS kernel gemm --m 1e30 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm EXIT 2)
roofline_cli_test(kernel_attention_implausible ARGS kernel attention --batch 1 --q-len 1 --kv-len 1e12 --heads 32
    --kv-heads 8 --head-dim 128 --dtype bf16 --gpu h200-sxm EXIT 2)
roofline_cli_test(kernel_copy_implausible ARGS kernel copy --bytes 2e15 --gpu h200-sxm EXIT 2)
roofline_cli_test(kernel_copy_large ARGS kernel copy --bytes 1e12 --gpu h200-sxm PASS "copy")
# The operand dtypes by name: --act-dtype/--weight-dtype mean the same in gemm and moe.
roofline_cli_test(kernel_gemm_act_weight_dtype ARGS kernel gemm --m 16 --n 4096 --k 4096 --act-dtype bf16 --weight-dtype fp8
                  --gpu h200-sxm --json PASS "\"a_dtype\": \"bf16\",[^}]*\"b_dtype\": \"fp8_e4m3\"")
roofline_cli_test(kernel_gemm_no_dtype ARGS kernel gemm --m 1 --n 1 --k 1 --weight-dtype fp8 --gpu h200-sxm EXIT 2)
roofline_cli_test(kernel_copy_zero ARGS kernel copy --bytes 0 --gpu h200-sxm EXIT 2)
roofline_cli_test(model_bad_tp ARGS model --model tests/cli/data/tiny_moe_config.json --tp 0 EXIT 2)

# --- kernel moe -----------------------------------------------------------------------------------
roofline_cli_test(kernel_moe ARGS kernel moe --tokens 16 --experts 256 --topk 8 --hidden 7168 --inter 2048
                  --dtype nvfp4 --gpu b200 PASS "active experts 102.0 of 256")
roofline_cli_test(kernel_moe_zipf_json ARGS kernel moe --tokens 64 --experts 128 --topk 8 --hidden 2048 --inter 768
                  --dtype bf16 --routing zipf:1.2 --gpu h200-sxm --json PASS "\"routing\": \"zipf:1.2\"")
roofline_cli_test(kernel_moe_bad_routing ARGS kernel moe --tokens 1 --experts 8 --topk 2 --hidden 8 --inter 8
                  --dtype bf16 --routing zipf:x --gpu h200-sxm EXIT 2)
# A zipf exponent in hex ("zipf:0x2", which std::stod reads as 2) is no exponent.
roofline_cli_test(kernel_moe_hex_routing ARGS kernel moe --tokens 1 --experts 8 --topk 2 --hidden 8 --inter 8
                  --dtype bf16 --routing zipf:0x2 --gpu h200-sxm EXIT 2 PASS "zipf needs a positive exponent")
roofline_cli_test(kernel_moe_weight_dtype ARGS kernel moe --tokens 16 --experts 256 --topk 8 --hidden 7168 --inter 2048
                  --weight-dtype nvfp4 --gpu b200 PASS "active experts 102.0 of 256")
roofline_cli_test(kernel_moe_dtype_conflict ARGS kernel moe --tokens 16 --experts 256 --topk 8 --hidden 7168 --inter 2048
                  --dtype nvfp4 --weight-dtype fp8 --gpu b200 EXIT 2)
roofline_cli_test(kernel_moe_bad_ep ARGS kernel moe --tokens 1 --experts 8 --topk 2 --hidden 8 --inter 8
                  --dtype bf16 --ep 3 --gpu h200-sxm EXIT 2)

# --- kernel attention (C07 on SM120) --------------------------------------------------------------
roofline_cli_test(kernel_attention_c07 ARGS kernel attention --batch 1 --q-len 4096 --kv-len 4096 --heads 16
                  --mla --kv-lora-rank 512 --qk-rope-head-dim 64 --causal --dtype bf16 --gpu rtx-pro-6000
                  PASS "rejected: 128 x 64 block needs 106496 B of shared memory > 101376 B per block")
roofline_cli_test(kernel_attention_decode_json ARGS kernel attention --batch 64 --q-len 1 --kv-len 4096 --heads 32
                  --kv-heads 8 --head-dim 128 --dtype bf16 --gpu h200-sxm --json PASS "\"bound\": \"memory\"")
roofline_cli_test(kernel_attention_no_head_dim ARGS kernel attention --q-len 1 --kv-len 8 --heads 4 --dtype bf16
                  --gpu h200-sxm EXIT 2)

# --- kernel copy and collective -------------------------------------------------------------------
# 1 GB copy on H200: 2e9 B / (0.9 x 4.8e12) + 0.86 us = 463.8 us.
roofline_cli_test(kernel_copy ARGS kernel copy --bytes 1e9 --gpu h200-sxm PASS "predicted 463.8 us")
# 16 MB copied back to back stays in the 50 MB L2: 32e6 B / 8.20 TB/s (measured L2) + 0.86 us = 4.8 us.
roofline_cli_test(kernel_copy_l2 ARGS kernel copy --bytes 16e6 --gpu h200-sxm PASS "predicted 4.8 us.*priced at L2")
roofline_cli_test(kernel_copy_cold ARGS kernel copy --bytes 16e6 --gpu h200-sxm --cold PASS "predicted 8.3 us")
# C03: a 4 KB NCCL all-reduce over 8 PCIe GPUs without P2P: the datasheet lower bound 3.6 + 14 x
# 2.96 us + 0.2 us = 45.3 us; the measured 8x RTX 5090 profile (45 us at 4 KB) predicts it.
roofline_cli_test(kernel_collective_c03 ARGS kernel collective --op all_reduce --bytes 4096 --ranks 8 --gpu rtx-5090
                  PASS "predicted 45\\.[0-9] us .*lower bound 45.3 us.*predicted by the measured profile")
roofline_cli_test(kernel_collective_json ARGS kernel collective --op all_gather --bytes 1e9 --ranks 8 --gpu h200-sxm
                  --json PASS "\"busbw_factor\": 0.875")
roofline_cli_test(kernel_collective_bad_op ARGS kernel collective --op broadcast --bytes 1 --ranks 2 --gpu h200-sxm EXIT 2)
roofline_cli_test(kernel_collective_bad_link ARGS kernel collective --op all_reduce --bytes 1 --ranks 2 --gpu h200-sxm
                  --link infiniband EXIT 2)
# The measured 8x RTX PRO 6000 profile beside the datasheet link: one TP8 all-reduce of GLM-5's
# decode (1024 x 6144 bf16 = 12.6 MB), the fastest algorithm as `analyze` prices it (two-shot with
# P2P): 3.6 us + 2 x 3.0 us + 1.75 x 12582912 B / 22.2 GB/s = 1.0015 ms, busbw 22.0 GB/s.
roofline_cli_test(kernel_collective_measured_profile ARGS kernel collective --op all_reduce --bytes 12582912 --ranks 8
    --gpu rtx-pro-6000 PASS "predicted 1\\.00[12] ms.*predicted by the measured profile.*busbw 22\\.0 GB/s.*measured profile: 8 ranks, measured: 8x RTX PRO 6000")
# The host topology (`nvidia-smi topo -m` of a two-socket box): P2P on every hop with
# NCCL_P2P_LEVEL=SYS, staged through host memory without (tests/io/nvidia_smi_topo_test.cpp).
roofline_cli_test(kernel_collective_topology ARGS kernel collective --op all_reduce --bytes 14336 --ranks 8
    --gpu rtx-pro-6000-server --link pcie --topology tests/io/data/nvidia_smi_topo_8gpu_2socket.txt --nccl-p2p-level-sys
    PASS "predicted 6.0 us.*2 socket\\(s\\)")
roofline_cli_test(kernel_collective_topology_no_p2p ARGS kernel collective --op all_reduce --bytes 14336 --ranks 8
    --gpu rtx-pro-6000-server --link pcie --topology tests/io/data/nvidia_smi_topo_8gpu_2socket.txt --p2p off
    PASS "predicted 45.8 us.*staged through host memory")
# 16 H100 ranks over the network are 2 HGX nodes of 8 (models/collective.hpp): the NVLink level
# bounds it, 2 x 7/8 x 1e9 B / 450 GB/s = 3.889 ms (the NICs: 1e9 B per node / 8 x 50 GB/s =
# 2.5 ms), + 3.6 us + 14 x 0.47 + 2 x 2.7 us = 3.904 ms. The flat ring over the NICs it replaces
# priced 37.5 ms, six times what nccl-tests measures on such a pair of nodes.
roofline_cli_test(kernel_collective_network ARGS kernel collective --op all_reduce --bytes 1e9 --ranks 16 --gpu h100-sxm
    --link network PASS "lower bound 3.904 ms.*2 nodes x 8 GPUs.*= 3.889 ms.*= 2.500 ms: the intra-node level.*InfiniBand NDR")
# Without --link, 16 ranks are beyond the 8-GPU HGX domain: the same hierarchy, said in a note
# (TP16 at NVLink throughout priced 4.478 ms before, with no note); --link nvlink keeps one
# NVLink domain and says so.
roofline_cli_test(kernel_collective_beyond_domain ARGS kernel collective --op all_reduce --bytes 1073741824 --ranks 16
    --gpu h100-sxm PASS "predicted 4.191 ms.*more than one 8-GPU scale-up domain \\(an HGX baseboard")
roofline_cli_test(kernel_collective_beyond_domain_nvlink ARGS kernel collective --op all_reduce --bytes 1073741824 --ranks 16
    --gpu h100-sxm --link nvlink PASS "predicted 4.478 ms.*priced at nvlink throughout as --link asks")
# --gpus-per-node lays the ranks out: 4 nodes x 4, network-bound: 2 x 3/4 x 1e9 / (4 x 50 GB/s) = 7.5 ms.
roofline_cli_test(kernel_collective_gpus_per_node ARGS kernel collective --op all_reduce --bytes 1e9 --ranks 16
    --gpu h100-sxm --gpus-per-node 4 PASS "4 nodes x 4 GPUs.*= 7.500 ms: the network level")
roofline_cli_test(kernel_collective_gpus_per_node_pcie ARGS kernel collective --op all_reduce --bytes 1e9 --ranks 16
    --gpu h100-sxm --gpus-per-node 4 --link pcie EXIT 2 PASS "--gpus-per-node lays ranks out on nodes joined by the network")
# fp8 attention on a GPU without fp8 units (A100): engines dequantise in the kernel and compute at
# 16 bits, as the GEMM and MoE fallbacks do; the bound is known, the bytes stay at fp8.
roofline_cli_test(kernel_attention_fp8_fallback ARGS kernel attention --gpu a100-sxm4-80gb --dtype fp8 --batch 8 --heads 32
    --kv-heads 8 --head-dim 128 --kv-len 4096 --q-len 1
    PASS "\\(memory-bound\\).*fp8_e4m3 has no tensor-core path on a100-sxm4-80gb \\(sm80\\): attention computes at bf16"
    FAIL "bound unknown")
# A mistyped required option is named as unknown, with the option it resembles, not reported as
# the required one missing (a new user's break test).
roofline_cli_test(kernel_typo_of_required ARGS kernel attention --gpu h100-sxm --batch 8 --heads 32 --head-dim 128
    --kvlen 4096 --q-len 1 EXIT 2 PASS "unknown option .--kvlen. \\(did you mean --kv-len\\?\\)")
# Hybrid linear attention (Qwen3.5): 45 Gated DeltaNet layers hold state, 15 full layers cache
# tokens (15,360 B per token at fp8), 192,061,440 B of state per sequence (tests/models/parameters_test.cpp).
set(_q35 ${PROJECT_SOURCE_DIR}/../shared/samples/aiconfigurator/model_configs/Qwen--Qwen3.5-397B-A17B_config.json)
if(EXISTS "${_q35}")
    roofline_cli_test(model_qwen35_linear_attention ARGS model --model ${_q35} --quant fp8 --kv-dtype fp8 --json
        PASS "\"kv_bytes_per_token\": 15360.0,.*\"linear_attention_layers\": 45,.*\"linear_state_bytes_per_sequence\": 192061440.0")
    roofline_cli_test(model_qwen35_text ARGS model --model ${_q35} --quant fp8 --kv-dtype fp8
        PASS "396.35B total, 16.33B active per token.*15 layers.*45 Gated DeltaNet layers cache no tokens; they hold 192.06 MB of state per sequence")
endif()
