# `roofline inspect` without --format: the format told from the content. Counts from the files:
# the gemm_power log has 255 sample rows; its trace 192 events, 30 of them GPU events.
roofline_cli_test(inspect_detect_smi ARGS inspect data/samples/h200/gemm_power/nvidia_smi.csv.gz
    PASS "\\(nvidia-smi\\): 255 samples of 1 GPU")
roofline_cli_test(inspect_detect_kineto ARGS inspect data/samples/h200/gemm_power/trace.json.gz
    PASS "\\(kineto\\): 30 GPU events.*192 read, 30 kept, 0 skipped, 162 other \\(context: CPU-side events, metadata\\)")
roofline_cli_test(inspect_detect_unknown ARGS inspect data/models/glm-5/config.json EXIT 2)
# nvidia-smi dmon output is told from its "# gpu" header (issue 14).
roofline_cli_test(inspect_detects_dmon ARGS inspect tests/cli/data/dmon_h200.txt PASS "\\(nvidia-smi-dmon\\):.*records: 4 read, 4 kept")
# An ncu metric reported as n/a is neither kept nor skipped, and is named (3 on the RTX 5090
# GEMV export: flop_count_hp.sum, flop_count_sp.sum, sm__ops_path_tensor_src_bf16_dst_bf16.sum).
get_filename_component(_ncu_samples "${PROJECT_SOURCE_DIR}/../shared/samples/ncu" ABSOLUTE)
if(EXISTS ${_ncu_samples}/rtx5090_gemv_kernel0001.metrics.csv)
    roofline_cli_test(inspect_ncu_not_available ARGS inspect ${_ncu_samples}/rtx5090_gemv_kernel0001.metrics.csv
        PASS "records: 11 read, 8 kept, 0 skipped, 3 other \\(1 not_available\\(Command line profiler metrics / flop_count_hp\\.sum\\), 1 not_available\\(Command line profiler metrics / flop_count_sp\\.sum\\), 1 not_available\\(sm__ops_path_tensor_src_bf16_dst_bf16\\.sum\\)\\)")
    # The roofline section export has no duration: inspect says so, and trace names why it has nothing.
    roofline_cli_test(inspect_ncu_no_duration ARGS inspect ${_ncu_samples}/rtx5090_gemv_kernel0001.roofline_section.csv
        PASS "details page: 1 kernel, 0 with a duration \\(`roofline trace` skips the rest")
    roofline_cli_test(trace_ncu_no_duration ARGS trace ${_ncu_samples}/rtx5090_gemv_kernel0001.roofline_section.csv
        --gpu rtx-5090 EXIT 2 PASS "no GPU activity to analyse: 1 record read, skipped: 1 no_duration \\(an Nsight Compute export needs")
endif()
