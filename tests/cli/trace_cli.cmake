# `roofline trace` end to end on the shared sample traces (skipped when ../shared is absent),
# plus bad input that must exit 2 with a one-line error.
get_filename_component(_trace_samples "${PROJECT_SOURCE_DIR}/../shared/samples" ABSOLUTE)

if(EXISTS "${_trace_samples}/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz")
    # 768 kernels, 24,656 events read (python json), none skipped.
    roofline_cli_test(trace_b200_json ARGS trace "${_trace_samples}/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz" --json
                      PASS "\"format\": \"kineto\",[^}]*\"kernel_count\": 768,[^}]*\"kernel_time_s\": 0\\.0108629")
    roofline_cli_test(trace_b200_json_events ARGS trace "${_trace_samples}/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz" --json
                      PASS "\"events_read\": 24656,[^}]*\"events_skipped\": 0")
    roofline_cli_test(trace_b200_text ARGS trace "${_trace_samples}/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz"
                      PASS "768 kernels.*moe_gemm")
endif()
if(EXISTS "${_trace_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json")
    roofline_cli_test(trace_deepseek_text ARGS trace "${_trace_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json" --top 5
                      PASS "963 kernels, 244\\.041 ms of kernel time.*communication")
endif()
if(EXISTS "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv")
    roofline_cli_test(trace_nsys_kern_sum ARGS trace "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv" --json
                      PASS "\"format\": \"nsys-cuda-gpu-kern-sum\",[^}]*\"kernel_count\": 78016")
endif()
if(EXISTS "${_trace_samples}/bench/inferencex_agg_kimik2.5_1k1k_conc4.json")
    # JSON without traceEvents: a one-line error and exit code 2.
    roofline_cli_test(trace_not_a_trace ARGS trace "${_trace_samples}/bench/inferencex_agg_kimik2.5_1k1k_conc4.json" EXIT 2)
endif()
roofline_cli_test(trace_missing_file ARGS trace /nonexistent/trace.json EXIT 2)
roofline_cli_test(trace_bad_rules ARGS trace /nonexistent/trace.json --rules /nonexistent/rules.json EXIT 2)
roofline_cli_test(trace_bad_rules_file ARGS trace data/kernel_rules.json --rules README.md EXIT 2)
