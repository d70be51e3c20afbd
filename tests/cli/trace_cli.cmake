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
                      PASS "963 kernels, 244 ms of kernel time.*communication")
endif()
if(EXISTS "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv")
    roofline_cli_test(trace_nsys_kern_sum ARGS trace "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv" --json
                      PASS "\"format\": \"nsys-cuda-gpu-kern-sum\",[^}]*\"kernel_count\": 78016")
    # --csv in the columns of a trace's CSV (bound unknown); --svg cannot chart it: exit 2.
    roofline_cli_test(trace_nsys_kern_sum_csv ARGS trace "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv" --csv
        PASS "^level,name,phase,count,total_s,mean_s,share,bound,[^\n]*\nphase,gemm,gemm,19648,0\.089730009,[^\n]*,unknown,")
    roofline_cli_test(trace_nsys_kern_sum_svg ARGS trace "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv" --svg x.svg
        EXIT 2 PASS "--svg: .* is an nsys cuda_gpu_kern_sum report")
endif()
if(EXISTS "${_trace_samples}/bench/inferencex_agg_kimik2.5_1k1k_conc4.json")
    # JSON without traceEvents: a one-line error and exit code 2.
    roofline_cli_test(trace_not_a_trace ARGS trace "${_trace_samples}/bench/inferencex_agg_kimik2.5_1k1k_conc4.json" EXIT 2)
endif()
roofline_cli_test(trace_missing_file ARGS trace /nonexistent/trace.json EXIT 2)
roofline_cli_test(trace_bad_rules ARGS trace /nonexistent/trace.json --rules /nonexistent/rules.json EXIT 2)
roofline_cli_test(trace_bad_rules_file ARGS trace data/kernel_rules.json --rules README.md EXIT 2)

# Verdicts on this project's H200 recordings (data/samples/h200/*/README.md states each one).
set(_h200 "${PROJECT_SOURCE_DIR}/data/samples/h200")
foreach(_case gemm_power:power elementwise:memory decode_attention:memory tiny_kernels:latency allreduce_2gpu:communication)
    string(REPLACE ":" ";" _pair ${_case})
    list(GET _pair 0 _name)
    list(GET _pair 1 _bound)
    roofline_cli_test(trace_h200_${_name}_json ARGS trace "${_h200}/${_name}/trace.json.gz" --power "${_h200}/${_name}/nvidia_smi.csv.gz" --json
                      PASS "\"verdict\": {[^}]*\"bound\": \"${_bound}\"")
    roofline_cli_test(trace_h200_${_name}_text ARGS trace "${_h200}/${_name}/trace.json.gz" --power "${_h200}/${_name}/nvidia_smi.csv.gz"
                      PASS "Verdict: ${_bound}-bound")
endforeach()
# The power block of the contract: limit, draw, fraction, clock, cap, offset, GPU index, energy.
roofline_cli_test(trace_h200_power_keys ARGS trace "${_h200}/gemm_power/trace.json.gz" --power "${_h200}/gemm_power/nvidia_smi.csv.gz" --json
                  PASS "\"power\": {[^}]*\"limit_w\": 700\\.0,[^}]*\"median_draw_w\": 69[0-9][.0-9]*,[^}]*\"fraction_of_limit\": 0\\.9[0-9]*,[^}]*\"clock_fraction_of_max\": 0\\.7[0-9]*,[^}]*\"power_cap_active_fraction\": 1\\.0,[^}]*\"offset_s\": 0\\.0,[^}]*\"gpu_index\": 0,[^}]*\"energy_j\": [0-9]")
# Phases carry their roof utilisation; without a power log there is no power block.
roofline_cli_test(trace_h200_phase_keys ARGS trace "${_h200}/elementwise/trace.json.gz" --json
                  PASS "\"name\": \"elementwise\",[^]]*\"time_s\": [^]]*\"share\": 1\\.0,[^]]*\"bound\": \"memory\",[^]]*\"roof_utilization\": {[^}]*\"compute\": [^}]*\"memory\": 0\\.9[^}]*\"power\": null,[^}]*\"communication\": 0\\.0")
roofline_cli_test(trace_h200_csv ARGS trace "${_h200}/allreduce_2gpu/trace.json.gz" --csv
                  PASS "^level,name,phase,count,total_s,mean_s,share,bound,.*\nwindow,window,,10,[^\n]*,communication,")
# A user offset that puts the window on the idle part of the log is accepted, and flagged.
# 2.5 s moves the window past the log's end: the Power line says so (the note says by how much).
roofline_cli_test(trace_h200_offset ARGS trace "${_h200}/gemm_power/trace.json.gz" --power "${_h200}/gemm_power/nvidia_smi.csv.gz" --power-offset 2.5
                  PASS "not aligned: no sample falls in the trace window \\(tried:[ \n]+--power-offset, offset 2\\.500 s")
roofline_cli_test(trace_h200_gpu_override ARGS trace "${_h200}/elementwise/trace.json.gz" --gpu h200-nvl
                  PASS "h200-nvl \\(.*\\): given with --gpu \\(the trace's device reports[ \n]+\"NVIDIA[ \n]+H200\"\\)")
roofline_cli_test(trace_h200_svg ARGS trace "${_h200}/gemm_power/trace.json.gz" --power "${_h200}/gemm_power/nvidia_smi.csv.gz" --svg ${CMAKE_CURRENT_BINARY_DIR}/trace_gemm_power.svg
                  PASS "wrote .*trace_gemm_power\\.svg")
if(EXISTS "${_trace_samples}/h200/h200_moe_decode_step.trace.json.gz")
    roofline_cli_test(trace_moe_decode_shapes ARGS trace "${_trace_samples}/h200/h200_moe_decode_step.trace.json.gz" --json
                      PASS "_grouped_mm \\[256x4096\\] x \\[32x4096x3072\\] bf16")
    # The reviewer's command: the 6-ms window falls where the sweep log shows the GPU idle (126 W,
    # 1980 MHz, no throttle reason). The 16384^3 GEMM burn 5.2 s earlier is another workload: far
    # (more than the window + 3 sample periods away) with no activity next to the window, it is
    # not used; the window's own sample is the evidence: not capped, no compute slowdown.
    roofline_cli_test(trace_moe_decode_power_not_borrowed ARGS trace "${_trace_samples}/h200/h200_moe_decode_step.trace.json.gz"
                      --power "${_trace_samples}/h200/h200_sweep_nvidia_smi.csv.gz"
                      PASS "median draw 126 W = 18% of it. SM clock 1980 MHz = 100% of max.[ \n]+power cap active 0% of samples.*busy[ \n]+period[ \n]+5\\.2[ \n]+s[ \n]+before[ \n]+the[ \n]+window.*is[ \n]+not[ \n]+used")
    roofline_cli_test(trace_moe_decode_power_not_borrowed_json ARGS trace "${_trace_samples}/h200/h200_moe_decode_step.trace.json.gz"
                      --power "${_trace_samples}/h200/h200_sweep_nvidia_smi.csv.gz" --json
                      PASS "\"power\": {[^}]*\"median_draw_w\": 125\\.72,[^}]*\"clock_fraction_of_max\": 1\\.0,[^}]*\"power_cap_active_fraction\": 0\\.0,[^}]*\"source\": \"trace window\",[^}]*\"busy_period_gap_s\": 5\\.1[0-9]*,[^}]*\"busy_period_refused\": true,[^}]*\"samples\": 1,.*\"per_gpu\": \\[[^]]*\"capped\": false,[^]]*\"compute_slowdown\": 0\\.0,")
    roofline_cli_test(trace_moe_decode_power_not_borrowed_csv ARGS trace "${_trace_samples}/h200/h200_moe_decode_step.trace.json.gz"
                      --power "${_trace_samples}/h200/h200_sweep_nvidia_smi.csv.gz" --csv
                      PASS "\nphase,moe_gemm,moe_gemm,8,[^\n]*,0\\.1796,")
endif()
# Bad usage: --model without --batch, both output formats, an unknown GPU, a malformed log.
roofline_cli_test(trace_model_without_batch ARGS trace "${_h200}/elementwise/trace.json.gz" --model data/models/glm-5/config.json EXIT 2)
roofline_cli_test(trace_json_and_csv ARGS trace "${_h200}/elementwise/trace.json.gz" --json --csv EXIT 2)
roofline_cli_test(trace_unknown_gpu ARGS trace "${_h200}/elementwise/trace.json.gz" --gpu no-such-gpu EXIT 2)
roofline_cli_test(trace_bad_power_log ARGS trace "${_h200}/elementwise/trace.json.gz" --power README.md EXIT 2)
# --calibration on trace: the H200 overlay's measured ceilings price the recorded GEMM; the verdict
# stays power-bound (the board sat at its limit), now against the measured bf16 ceiling.
roofline_cli_test(trace_calibration ARGS trace data/samples/h200/gemm_power/trace.json.gz
    --power data/samples/h200/gemm_power/nvidia_smi.csv.gz --calibration data/calibration/h200-sxm.json
    PASS "Verdict: power-bound")

# --- issue 14 ---
# The EP64 DeepSeek training trace (H800): --dp makes tp x dp = 64, which ep 64 divides.
if(EXISTS "${_trace_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json")
    roofline_cli_test(trace_deepseek_ep64_dp ARGS trace "${_trace_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json"
        --model "${_trace_samples}/model_configs/deepseek-ai--DeepSeek-V3_config.json" --ep 64 --dp 64 --batch 1
        --prefill-tokens 4096 --top 3 PASS "963 kernels")
    roofline_cli_test(trace_deepseek_ep64_no_dp ARGS trace "${_trace_samples}/kineto/deepseek_v3_train_ep64_h800.trace.json"
        --model "${_trace_samples}/model_configs/deepseek-ai--DeepSeek-V3_config.json" --ep 64 --batch 1 EXIT 2)
endif()
# Old HTA traces: no device properties, old-style "Kernel" events: read, GPU told from the kernels.
if(EXISTS "${_trace_samples}/hta/trace_file_list/inference_rank_1.json.gz")
    roofline_cli_test(trace_hta_old_style ARGS trace "${_trace_samples}/hta/trace_file_list/inference_rank_1.json.gz"
        PASS "4 kernels.*assumed v100-sxm2-32gb")
    roofline_cli_test(trace_hta_v100 ARGS trace "${_trace_samples}/hta/trace_diff/test/test.json.gz" --json
        PASS "\"id\": \"v100-sxm2-16gb\"")
    roofline_cli_test(trace_hta_amd ARGS trace "${_trace_samples}/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz" EXIT 2)
endif()
roofline_cli_test(trace_nonfinite_batch ARGS trace data/samples/h200/elementwise/trace.json.gz --gpu h200-sxm
    --model data/samples/h200-serving/config.json --batch inf EXIT 2)
# Today's serving stacks (data/samples/h200-stacks/*/README.md states each answer).
set(_stacks "${PROJECT_SOURCE_DIR}/data/samples/h200-stacks")
if(EXISTS "${_stacks}/graph_decode_b8/trace.json.gz")
    # Five cudaGraphLaunch replays are five steps, and --model prices five steps of work.
    roofline_cli_test(trace_stacks_graph_steps ARGS trace "${_stacks}/graph_decode_b8/trace.json.gz"
        --model "${_stacks}/graph_decode_b8/config.json" --batch 8 --context 2048 --json
        PASS "\"step_detection\": {[^}]*\"source\": \"CUDA graph launches\",[^}]*\"count\": 5")
    roofline_cli_test(trace_stacks_graph_memory ARGS trace "${_stacks}/graph_decode_b8/trace.json.gz"
        --model "${_stacks}/graph_decode_b8/config.json" --batch 8 --context 2048
        PASS "Steps +5 \\(CUDA graph launches\\).*Verdict: memory-bound")
    roofline_cli_test(trace_stacks_nsys_graph_steps ARGS trace "${_stacks}/nsys-graph_decode_b8/cuda_gpu_trace.csv.gz" --gpu h200-sxm
        PASS "Steps +5 \\(CUDA graph launches\\)")
    roofline_cli_test(trace_stacks_piecewise_steps ARGS trace "${_stacks}/piecewise_decode/trace.json.gz"
        PASS "Steps +5 \\(CUDA graph launches\\): 50 CUDA graph launches, 10 per step")
    roofline_cli_test(trace_stacks_h2d_pinned ARGS trace "${_stacks}/h2d_pinned/trace.json.gz" --power "${_stacks}/h2d_pinned/nvidia_smi.csv.gz"
        PASS "Verdict: communication-bound \\(PCIe host link\\)")
    roofline_cli_test(trace_stacks_h2d_pageable ARGS trace "${_stacks}/h2d_pageable/trace.json.gz" --power "${_stacks}/h2d_pageable/nvidia_smi.csv.gz"
        PASS "Verdict: latency-bound")
    # The ncu report joined with the eager trace: every profiled kernel matched, GEMMs memory-bound.
    roofline_cli_test(trace_stacks_ncu_join ARGS trace "${_stacks}/eager_decode_b8/trace.json.gz" --ncu "${_stacks}/ncu-eager_decode_b8/ncu_raw.csv.gz" --json
        PASS "\"ncu_matched_kernels\": 108")
    # A report of another run (batch 128) joined with the batch-8 CUDA-graph trace: kernels of the
    # same names in the same order ran other grids, so their counters are not used, and it is said
    # (a new user's break test: 78 of 100 were matched and replaced the work).
    roofline_cli_test(trace_stacks_ncu_other_run ARGS trace "${_stacks}/graph_decode_b8/trace.json.gz" --ncu "${_stacks}/ncu-graph_decode_b128/ncu_raw.csv.gz" --json
        PASS "74 of 100 profiled kernels matched a trace kernel by name and order but ran another grid, so their counters were not used")
    roofline_cli_test(trace_stacks_op_rows ARGS trace "${_stacks}/eager_decode_b8/trace.json.gz" --csv
        PASS "\nop,aten::mm,gemm,")
    # The other recordings, each against the verdict its README wrote down before the analysis ran.
    foreach(_rec compile_block compile_autotune fp8_gemm overlap_streams)
        roofline_cli_test(trace_stacks_${_rec} ARGS trace "${_stacks}/${_rec}/trace.json.gz" --power "${_stacks}/${_rec}/nvidia_smi.csv.gz"
            PASS "Verdict: power-bound")
    endforeach()
    foreach(_rec sdpa_flash_prefill flex_prefill eager_decode_b8)
        roofline_cli_test(trace_stacks_${_rec} ARGS trace "${_stacks}/${_rec}/trace.json.gz" --power "${_stacks}/${_rec}/nvidia_smi.csv.gz"
            PASS "Verdict: latency-bound")
    endforeach()
    roofline_cli_test(trace_stacks_moe_grouped ARGS trace "${_stacks}/moe_grouped/trace.json.gz" --power "${_stacks}/moe_grouped/nvidia_smi.csv.gz"
        PASS "Verdict: memory-bound \\(DRAM\\)")
    # graph_decode_b128: its README expects memory-bound; the analysis finds attention (48% of the
    # window) streaming DRAM at 54% of the datasheet bandwidth, under the 60% rule: latency. The
    # facts both agree on are tested; the verdict is reported in the README as a disagreement.
    roofline_cli_test(trace_stacks_graph_b128_facts ARGS trace "${_stacks}/graph_decode_b128/trace.json.gz"
        --model "${_stacks}/graph_decode_b128/config.json" --batch 128 --context 1024
        PASS "Steps +5 \\(CUDA graph launches\\).*attention 4[0-9]% \\(memory 5[0-9]%\\)")
    # Nsight Compute's own measurement of that step (ncu-graph_decode_b128/README.md): the attention
    # kernel at 53% of DRAM peak, GEMMs at 63-78%: attention latency-bound, GEMMs memory-bound. The
    # report has no tensor FLOP metrics: compute is the tensor pipe's activity (attention 52% of
    # cycles, its GEMMs 30-52%), not the 5% and 0% the vector FLOP alone gave.
    roofline_cli_test(trace_stacks_ncu_b128 ARGS trace "${_stacks}/ncu-graph_decode_b128/ncu_raw.csv.gz"
        PASS "Verdict: latency-bound.*attention +853 us +45.4% +4 +latency +49% +53%.*gemm +633 us +33.7% +21 +memory +41% +69%.*: 21[ \n]+kernels[ \n]+ran[ \n]+on[ \n]+the[ \n]+tensor[ \n]+pipe")
    # Nsight Compute on five grouped MoE GEMMs of the independent sweep (ncu-grouped_gemm/README.md):
    # four memory-bound calls at 47-69% of DRAM (62% over their time), one compute-bound at 81% of
    # the tensor pipe; the window has no roof near: latency-bound.
    roofline_cli_test(trace_stacks_ncu_grouped_gemm ARGS trace "${_stacks}/ncu-grouped_gemm/ncu_raw.csv.gz"
        PASS "10 kernels.*Verdict: latency-bound.*moe_gemm +1.16 ms.*device_kernel<enabl[^\n]*moe_gemm +4 +146 us +49.8% +memory +38% +62%.*moe_gemm +1 +577 us +49.1% +compute +81% +42%")
    # Nsight Compute on seven small-M GEMMs of the independent sweep (ncu-small_gemm/README.md): the
    # large GEMV memory-bound at 89% of DRAM, the small fp8 ones latency-bound under the 60% line.
    roofline_cli_test(trace_stacks_ncu_small_gemm ARGS trace "${_stacks}/ncu-small_gemm/ncu_raw.csv.gz"
        PASS "10 kernels.*Verdict: memory-bound \\(DRAM\\).*nvjet_sm90_tst_128x8_64x12_2x1_v_bz_TNT +gemm +1 +110 us +51.7% +memory +0% +89%.*nvjet_sm90_qqtst_64x8_[^\n]*16_4x1_v_bz_algo2_TNT +gemm +1 +9.95 us +4.7% +latency +0% +55%")
    # nsys: the eager run's five NVTX ranges are its steps; the SQLite exports (gunzipped at test
    # time) give the graph launches and the same verdict as the Kineto recording.
    roofline_cli_test(trace_stacks_nsys_eager ARGS trace "${_stacks}/nsys-eager_decode_b8/cuda_gpu_trace.csv.gz" --gpu h200-sxm
        PASS "Verdict: latency-bound")
    if(SQLite3_FOUND)
        add_test(NAME cli_trace_stacks_nsys_sqlite COMMAND sh -c
            "gzip -dc '${_stacks}/nsys-graph_decode_b8/run.sqlite.gz' > nsys_graph_decode_b8.sqlite && '$<TARGET_FILE:roofline_cli>' trace nsys_graph_decode_b8.sqlite --model '${_stacks}/nsys-graph_decode_b8/config.json' --batch 8 --context 2048")
        set_tests_properties(cli_trace_stacks_nsys_sqlite PROPERTIES LABELS cli WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
            PASS_REGULAR_EXPRESSION "Steps +5 \\(CUDA graph launches\\).*Verdict: memory-bound")
        add_test(NAME cli_trace_stacks_nsys_sqlite_nvtx COMMAND sh -c
            "gzip -dc '${_stacks}/nsys-eager_decode_b8/run.sqlite.gz' > nsys_eager_decode_b8.sqlite && '$<TARGET_FILE:roofline_cli>' trace nsys_eager_decode_b8.sqlite")
        set_tests_properties(cli_trace_stacks_nsys_sqlite_nvtx PROPERTIES LABELS cli WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
            PASS_REGULAR_EXPRESSION "Steps +5 \\(GPU annotations\\).*Verdict: latency-bound")
    endif()
endif()
if(EXISTS "${_trace_samples}/h200/h200_ncu_raw_5_kernels.csv.gz")
    roofline_cli_test(trace_ncu_alone ARGS trace "${_trace_samples}/h200/h200_ncu_raw_5_kernels.csv.gz" --top 0
        PASS "\\(ncu-csv\\).*Kernels \\(5 of 5 names\\)")
endif()
# A power log from another run: no sample falls in the trace window, and the Power line says so
# (it said "aligned by timestamps" above a note saying nothing aligns).
roofline_cli_test(trace_power_log_of_another_run ARGS trace data/samples/h200/decode_attention/trace.json.gz
                  --power data/samples/h200/gemm_power/nvidia_smi.csv.gz
                  PASS "Power +nvidia-smi GPU 0 \"NVIDIA H200\"; not aligned: no sample falls in the trace window \\(tried: timestamps, offset 0\\.000 s; see the power notes\\)")
# An Nsight Compute report that names no device and records no SM count: the GPU is unknown, so no
# roof is priced: the rows say "-" (not 0%), the lower bound is unknown (not 0 s), and the GPU line
# lists the catalog's entries of its compute capability instead of '""' and '-1 SMs'.
if(EXISTS ${PROJECT_SOURCE_DIR}/../shared/samples/ncu/rtx5090_gemv_kernel0001.details.csv)
    roofline_cli_test(trace_ncu_unknown_gpu ARGS trace ${PROJECT_SOURCE_DIR}/../shared/samples/ncu/rtx5090_gemv_kernel0001.details.csv
        PASS "the trace names no device \\(CC 12.0, SM count not recorded\\); the catalog's CC\n? *12.0 entries: rtx-pro-6000.*lower bound unknown \\(no GPU: pass --gpu\\).*gemm   6.75 us  100.0%      1  unknown        -       -      -            -")
endif()
# A trace of CUDA-graph replays: the window's hint names what --model needs (--batch, --context),
# and its kernels are not compared with the eager launch floor (they pay the graph's launch cost).
roofline_cli_test(trace_graph_hint ARGS trace data/samples/h200-stacks/graph_decode_b8/trace.json.gz
    PASS "or pass --model\n  with --batch and --context \\(kernels replayed from CUDA graphs record no shapes\\)")
# Flags that mean nothing here are errors, not ignored: a power offset or field list without a
# power log, a negative device or --top.
roofline_cli_test(trace_power_offset_needs_power ARGS trace data/samples/h200/gemm_power/trace.json.gz --power-offset 1e300
    EXIT 2 PASS "--power-offset requires --power")
roofline_cli_test(trace_smi_fields_needs_power ARGS trace data/samples/h200/gemm_power/trace.json.gz --smi-fields index
    EXIT 2 PASS "--smi-fields requires --power")
roofline_cli_test(trace_negative_device ARGS trace data/samples/h200/gemm_power/trace.json.gz --device -1
    EXIT 2 PASS "--device: must be a finite number >= 0")
roofline_cli_test(trace_negative_top ARGS trace data/samples/h200/gemm_power/trace.json.gz --top -1
    EXIT 2 PASS "--top: must be a finite number >= 0")

# The power log of gemm_power with columns left out (tests/cli/data/smi_gemm_power_*.csv.gz, made
# from data/samples/h200/gemm_power/nvidia_smi.csv.gz by dropping them).
# No power.draw: the cap reason and the 72% clock still make it power-bound, and the reason says
# the draw was not logged (it printed "board at 0% of its 700 W limit").
roofline_cli_test(trace_power_no_draw ARGS trace "${_h200}/gemm_power/trace.json.gz"
    --power tests/cli/data/smi_gemm_power_no_draw.csv.gz
    PASS "power-bound: board draw not logged \\(no power.draw\\), 700 W limit.*SM clock held at 72% of max")
# No SM clock: whether the cap lowered it is unknown, so not power-bound, and the note says why
# (it said "the SM clock stayed near its maximum").
roofline_cli_test(trace_power_no_clock ARGS trace "${_h200}/gemm_power/trace.json.gz"
    --power tests/cli/data/smi_gemm_power_no_clock.csv.gz
    PASS "Verdict: compute-bound.*the log has no SM clock")
# Timestamps and names only: not a power log, exit 2 naming the file.
roofline_cli_test(trace_power_names_only ARGS trace "${_h200}/gemm_power/trace.json.gz"
    --power tests/cli/data/smi_gemm_power_names_only.csv.gz EXIT 2
    PASS "smi_gemm_power_names_only.csv.gz: no power evidence in 255 samples")
# --calibration says where the achievable ceilings came from, in the text and in --json.
roofline_cli_test(trace_calibration_named ARGS trace "${_h200}/gemm_power/trace.json.gz"
    --calibration data/calibration/h200-sxm.json PASS "at achievable ones \\(calibrated: data/calibration/h200-sxm.json\\)")
roofline_cli_test(trace_calibration_named_json ARGS trace "${_h200}/gemm_power/trace.json.gz"
    --calibration data/calibration/h200-sxm.json --json PASS "\"calibration\": \"data/calibration/h200-sxm.json\"")
if(EXISTS "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv")
    roofline_cli_test(trace_nsys_kern_sum_gpu ARGS trace "${_trace_samples}/nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv" --gpu h200-sxm
        EXIT 2 PASS "--gpu: .* is an nsys cuda_gpu_kern_sum report")
endif()
