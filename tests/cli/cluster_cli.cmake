# `roofline trace` over several ranks and `roofline merge` (README "Cluster traces"), on the two
# real HTA ranks (skipped when ../shared is absent), plus bad input that must exit 2.
get_filename_component(_cluster_samples "${PROJECT_SOURCE_DIR}/../shared/samples" ABSOLUTE)
set(_hta_ranks "${_cluster_samples}/hta/trace_filter")
if(EXISTS "${_hta_ranks}/sampled_rank-0.json.gz")
    roofline_cli_test(cluster_two_files ARGS trace "${_hta_ranks}/sampled_rank-1.json.gz" "${_hta_ranks}/sampled_rank-0.json.gz"
                      PASS "Cluster: 2 ranks.*\n +0 +distributedInfo\\.rank .*\n +1 +distributedInfo\\.rank")
    # A folder: its .json/.json.gz files, sorted by name; 10 SendRecv matched per rank.
    roofline_cli_test(cluster_folder ARGS trace "${_hta_ranks}" -j 2
                      PASS "SendRecv +stream 84 +8 .*SendRecv +stream 203 +2 ")
    roofline_cli_test(cluster_json ARGS trace "${_hta_ranks}" --json
                      PASS "\"ranks\": \\[.*\"rank\": 0,.*\"rank_source\": \"distributedInfo\\.rank\".*\"collective_kernels\": 10")
    roofline_cli_test(cluster_summary_out ARGS trace "${_hta_ranks}/sampled_rank-1.json.gz" --summary-out ${CMAKE_CURRENT_BINARY_DIR}/cluster_r1.json
                      PASS "wrote .*cluster_r1\\.json: rank 1 \\(from distributedInfo\\.rank\\), 10 collective kernels")
    add_test(NAME cli_cluster_merge_equals_direct COMMAND ${CMAKE_COMMAND} -DROOFLINE=$<TARGET_FILE:roofline_cli>
             "-DTRACES=${_hta_ranks}/sampled_rank-0.json.gz;${_hta_ranks}/sampled_rank-1.json.gz"
             -DOUT=${CMAKE_CURRENT_BINARY_DIR}/cluster_merge -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/cluster_merge_check.cmake)
    set_tests_properties(cli_cluster_merge_equals_direct PROPERTIES LABELS cli WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    roofline_cli_test(cluster_summary_out_two_files ARGS trace "${_hta_ranks}" --summary-out ${CMAKE_CURRENT_BINARY_DIR}/x.json EXIT 2)
    roofline_cli_test(cluster_same_rank_twice ARGS trace "${_hta_ranks}/sampled_rank-0.json.gz" "${_hta_ranks}/sampled_rank-0.json.gz" EXIT 2)
    # The same rank file twice is refused, not analysed as two ranks.
    roofline_cli_test(cluster_same_file_twice ARGS trace "${_hta_ranks}/sampled_rank-0.json.gz" "${_hta_ranks}/sampled_rank-0.json.gz" EXIT 2)
    # A folder with a config.json beside the traces: skipped and named.
    add_test(NAME cli_cluster_folder_skips_other_json
             COMMAND ${CMAKE_COMMAND} -DROOFLINE=$<TARGET_FILE:roofline_cli>
             "-DTRACES=${_hta_ranks}/sampled_rank-0.json.gz;${_hta_ranks}/sampled_rank-1.json.gz"
             -DEXTRA=${PROJECT_SOURCE_DIR}/data/models/glm-5/config.json
             -DOUT=${CMAKE_CURRENT_BINARY_DIR}/cluster_folder_mixed -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/cluster_folder_check.cmake)
    set_tests_properties(cli_cluster_folder_skips_other_json PROPERTIES LABELS cli WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    roofline_cli_test(cluster_svg_refused ARGS trace "${_hta_ranks}" --svg ${CMAKE_CURRENT_BINARY_DIR}/x.svg EXIT 2)
endif()
roofline_cli_test(merge_not_a_summary ARGS merge README.md EXIT 2)
# A trace where its summary belongs: the error names the command that writes the summary.
roofline_cli_test(merge_trace_given ARGS merge data/samples/h200/gemm_power/trace.json.gz EXIT 2
                  PASS "trace\\.json\\.gz: top level: a Kineto/Chrome trace, not a rank summary: write its summary with `roofline trace")
if(EXISTS "${_cluster_samples}/hta/rank_non_gpu/rank_non_gpu.json.gz")
    # HTA's rank without GPU events: no rank to analyse is exit 2, as for the file alone.
    roofline_cli_test(cluster_no_gpu_activity ARGS trace "${_cluster_samples}/hta/rank_non_gpu" EXIT 2
                      PASS "no rank has GPU activity to analyse")
endif()
roofline_cli_test(merge_missing_file ARGS merge /nonexistent/r0.json EXIT 2)
roofline_cli_test(cluster_empty_folder ARGS trace tests/headers EXIT 2)
# A folder that holds only folders (as HTA's critical_path/ does): the error says they are not searched.
roofline_cli_test(cluster_folder_of_folders ARGS trace tests EXIT 2
                  PASS "tests: the folder has no \\.json or \\.json\\.gz trace files; subfolders are not searched: it has [0-9]+ \\(analysis, bad_inputs, cli, consumer, core, \\.\\.\\.\\), name one of them")
# A folder of JSON files none of which is a trace (a model's config and quantisation config).
roofline_cli_test(cluster_folder_without_traces ARGS trace data/models/glm-5 EXIT 2)
if(EXISTS "${_cluster_samples}/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz")
    # One rank of a TP8 job: one NCCL all-gather with metadata (process group 3) and 73
    # multimem_all_reduce_kernel launches (PyTorch symmetric memory, no metadata) on stream 7.
    roofline_cli_test(cluster_summary_b200 ARGS trace "${_cluster_samples}/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz" --summary-out ${CMAKE_CURRENT_BINARY_DIR}/cluster_b200.json
                      PASS "rank 0 \\(from distributedInfo\\.rank\\), 74 collective kernels")
endif()
if(EXISTS "${_cluster_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json")
    # Rank 0 of 64: 36 DeepEP kernels (12 cached_notify, 8 dispatch, 8 combine, 4 layout, 4
    # notify_dispatch on stream 27), no NCCL metadata: matched by stream, name and position.
    roofline_cli_test(cluster_summary_deepseek ARGS trace "${_cluster_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json" --summary-out ${CMAKE_CURRENT_BINARY_DIR}/cluster_deepseek.json
                      PASS "rank 0 \\(from distributedInfo\\.rank\\), 36 collective kernels")
endif()
