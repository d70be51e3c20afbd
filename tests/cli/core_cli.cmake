roofline_cli_test(roof_h200 ARGS roof --gpu h200-sxm --dtype bf16 PASS "ridge 206 FLOP/byte")
roofline_cli_test(roof_unknown_gpu ARGS roof --gpu h300 --dtype bf16 EXIT 2)
roofline_cli_test(roof_unknown_dtype ARGS roof --gpu h200-sxm --dtype fp3 EXIT 2)
# Work on a rate the GPU has no units for (V100 has no bf16) is left out of the roofs: bound
# "unknown", `unpriced` naming it, the time a lower bound; fp8 there falls back to fp16 (V100 has
# no bf16 either), so the same GEMM is compute-bound at 1.47 ms.
roofline_cli_test(kernel_no_units_unknown ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu v100-sxm2-32gb --json
    PASS "\"bound\": \"unknown\",.*\"unpriced\": \"this GPU has no bf16 units \\(137.4 GFLOP left out\\)\"")
roofline_cli_test(kernel_no_units_text ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu v100-sxm2-32gb
    PASS "predicted at least 125.1 us \\(bound unknown\\)")
roofline_cli_test(kernel_fp8_falls_back_fp16 ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype fp8 --gpu v100-sxm2-32gb
    PASS "predicted 1.467 ms \\(compute-bound\\).*FLOP 1.374e\\+11 fp16.*FP16 compute path")
# A word that is no command is named with the commands there are.
roofline_cli_test(unknown_command ARGS analyse x EXIT 2 PASS "unknown command \"analyse\" \\(commands: gpus, roof, analyze")
roofline_cli_test(unknown_kernel ARGS kernel matmul EXIT 2 PASS "unknown command \"matmul\" \\(kernel takes: gemm, moe")
# A ModelOpt quant config given as the model is named as that.
roofline_cli_test(model_quant_config_as_model ARGS model --model data/models/glm-5/hf_quant_config.json EXIT 2
    PASS "a ModelOpt hf_quant_config.json .* pass it with --quant")
roofline_cli_test(kernel_collective_one_rank ARGS kernel collective --op all_reduce --ranks 1 --bytes 1e6 --gpu h200-sxm
    EXIT 2 PASS "--ranks 1: a collective needs at least 2 ranks")
