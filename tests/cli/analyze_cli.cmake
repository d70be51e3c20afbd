# `roofline analyze` on the bundled real inputs, and its errors.
set(_glm data/samples/glm5-nvfp4-8x-rtx-pro-6000)
set(_glm_args analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8 --model data/models/glm-5/config.json
    --quant data/models/glm-5/hf_quant_config.json --power ${_glm}/nvidia_smi.csv)
roofline_cli_test(analyze_glm5_default ARGS ${_glm_args} PASS "Verdict: communication-bound")
roofline_cli_test(analyze_glm5_not_power ARGS ${_glm_args} PASS "not power-bound: median draw 290 W is 48% of the 600 W limit")
roofline_cli_test(analyze_glm5_maxq_question ARGS ${_glm_args} PASS "97% of a Max-Q's 300 W")
# On a Max-Q the same run is modeled at its 300 W against a 600 W Workstation card (decode-only:
# 4,174 against 4,223 tok/s, the Max-Q's lower top clock), in --json as `power_cap`.
roofline_cli_test(analyze_glm5_maxq_power_cap ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000-maxq --count 8
    --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json --power ${_glm}/nvidia_smi.csv --json
    PASS "\"power_cap\": {.*\"cost_fraction\": 0\\.011[0-9]*,.*\"reference\": {.*\"gpu\": \"rtx-pro-6000\",.*\"limit_w\": 600\\.0")
roofline_cli_test(analyze_glm5_json ARGS ${_glm_args} --json
    PASS "\"bound\": \"communication\".*\"predicted_time_share\".*\"fraction_of_limit\": 0\\.48")
roofline_cli_test(analyze_unknown_gpu ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-7000 --count 8
    --model data/models/glm-5/config.json EXIT 2)
roofline_cli_test(analyze_missing_model ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8
    --model data/models/no-such/config.json EXIT 2)
roofline_cli_test(analyze_bench_is_not_json ARGS analyze data/models/glm-5/../../samples/glm5-nvfp4-8x-rtx-pro-6000/README.md
    --gpu rtx-pro-6000 --count 8 --model data/models/glm-5/config.json EXIT 2)
roofline_cli_test(analyze_bad_layout ARGS ${_glm_args} --tp 3 EXIT 2)
roofline_cli_test(analyze_bad_kv_dtype ARGS ${_glm_args} --kv-dtype fp3 EXIT 2)
roofline_cli_test(analyze_bench_nan ARGS analyze tests/cli/data/bench_nan_throughput.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json EXIT 2)
# A failed benchmark (every request errored: completed 0, output_throughput 0) measured nothing:
# exit 2, not a 0% run.
roofline_cli_test(analyze_bench_zero_completed ARGS analyze tests/cli/data/bench_zero_completed.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json EXIT 2)
# The failed run first, then the H200 recording's run (data/samples/h200-serving): the first is
# skipped and named, the second analysed.
roofline_cli_test(analyze_bench_one_failed_run ARGS analyze tests/cli/data/bench_one_failed_run.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json
    PASS "line 1: run 1 completed no requests \\(completed 0\\): skipped.*Throughput")
roofline_cli_test(analyze_bench_truncated ARGS analyze tests/cli/data/bench_truncated.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json EXIT 2)
roofline_cli_test(analyze_config_missing_key ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8
    --model tests/cli/data/config_missing_hidden_size.json EXIT 2)
set(_glm_no_power analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8 --model data/models/glm-5/config.json
    --quant data/models/glm-5/hf_quant_config.json)
roofline_cli_test(analyze_unreadable_power ARGS ${_glm_no_power} --power ${_glm}/no-such-log.csv EXIT 2)
roofline_cli_test(analyze_power_twice ARGS ${_glm_args} --power ${_glm}/nvidia_smi.csv EXIT 2)
roofline_cli_test(analyze_h200_serving ARGS analyze data/samples/h200-serving/bench.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json --power data/samples/h200-serving/nvidia_smi.csv
    PASS "measured TPOT 41.49 ms.*limit 700 W \\(enforced, from the log\\)")
# The power cap at the run's pace (half its roof's rate): the log shows the full clock at 87% of
# 700 W, and the model keeps decode at the full 1830 MHz too (at the roof's pace it said 1118 MHz).
roofline_cli_test(analyze_h200_serving_power_cap_at_pace ARGS analyze data/samples/h200-serving/bench.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json --power data/samples/h200-serving/nvidia_smi.csv --json
    PASS "\"power_cap\": {\n +\"at_limit\": {\n +\"capped\": [a-z]+,\n +\"decode_clock_hz\": 1830000000\\.0,.*\"pace\": 2\\.00")
roofline_cli_test(analyze_power_log_all_bad ARGS ${_glm_no_power} --power tests/cli/data/nvidia_smi_negative.csv
    PASS "2 of 2 power samples skipped.*no usable power samples")
roofline_cli_test(analyze_unquantised_does_not_fit ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8
    --model data/models/glm-5/config.json PASS "weights need 189.7 GB per GPU but rtx-pro-6000 has 96 GB")
# A checkpoint folder stands for its config.json; a folder without one is a one-line error.
roofline_cli_test(analyze_model_folder ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8
    --model data/models/glm-5 --quant data/models/glm-5/hf_quant_config.json PASS "weights 58.8 GB per GPU")
roofline_cli_test(analyze_model_folder_without_config ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8
    --model tests EXIT 2)
# Implausible numbers are usage errors, not infinite roofs.
roofline_cli_test(analyze_isl_absurd ARGS ${_glm_args} --isl 1e308 --osl 1000 EXIT 2)

# --- issue 14: every GPU, every file variant, no abort on an unknown ceiling ---
get_filename_component(_trace_samples "${PROJECT_SOURCE_DIR}/../shared/samples" ABSOLUTE)
set(_h200s analyze data/samples/h200-serving/bench.jsonl --count 1 --model data/samples/h200-serving/config.json)
# GB10 has no published BF16 peak: the run is analysed, the unpriced work named (was: exit 2).
roofline_cli_test(analyze_gb10_unknown_bf16 ARGS ${_h200s} --gpu gb10
    PASS "decode step: bf16 ceiling unknown \\([0-9.]+ [kMGT]?FLOP left out\\)")
roofline_cli_test(analyze_gb10_json ARGS ${_h200s} --gpu gb10 --json PASS "\"unpriced\": \\[\n *\"decode step: bf16 ceiling unknown")
# Names people type: the entry taken is said on stderr.
roofline_cli_test(analyze_gpu_typed_name ARGS ${_h200s} --gpu H200 PASS "GPU \"H200\" taken as h200-sxm")
# --quant presets as in `plan`.
roofline_cli_test(analyze_quant_preset ARGS ${_h200s} --gpu h200-sxm --quant fp8 PASS "Verdict: ")
roofline_cli_test(analyze_quant_bad_preset ARGS ${_h200s} --gpu h200-sxm --quant fp3 EXIT 2)
# --power: nvidia-smi dmon output, and a header-less query log with its field list.
roofline_cli_test(analyze_power_dmon ARGS ${_h200s} --gpu h200-sxm --power tests/cli/data/dmon_h200.txt
    PASS "Power \\(tests/cli/data/dmon_h200.txt: 4 samples")
roofline_cli_test(analyze_power_noheader ARGS ${_h200s} --gpu h200-sxm --power tests/cli/data/smi_noheader_h200.csv
    --smi-fields "timestamp,index,name,power.draw,power.limit,enforced.power.limit,clocks.current.sm,clocks.max.sm,clocks.current.memory,utilization.gpu,utilization.memory,temperature.gpu,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown"
    PASS "Power \\(tests/cli/data/smi_noheader_h200.csv: 20 samples")
roofline_cli_test(analyze_power_noheader_no_fields ARGS ${_h200s} --gpu h200-sxm --power tests/cli/data/smi_noheader_h200.csv EXIT 2)
# A field list of another width than the log's rows (14 fields for 15 values) is an error, not a
# log whose every row is skipped.
roofline_cli_test(analyze_power_noheader_wrong_fields ARGS ${_h200s} --gpu h200-sxm --power tests/cli/data/smi_noheader_h200.csv
    --smi-fields "timestamp,index,name,power.draw,power.limit,enforced.power.limit,clocks.current.sm,clocks.max.sm,clocks.current.memory,utilization.gpu,utilization.memory,temperature.gpu,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap"
    EXIT 2)
roofline_cli_test(analyze_nonfinite_isl ARGS ${_h200s} --gpu h200-sxm --isl nan --osl 100 EXIT 2)
# 64 query / 8 KV heads over TP6: said, not silent.
if(EXISTS "${_trace_samples}/model_configs/meta-llama--Meta-Llama-3.1-70B_config.json")
    roofline_cli_test(analyze_tp_does_not_divide ARGS analyze data/samples/h200-serving/bench.jsonl --gpu h200-sxm --count 6
        --model "${_trace_samples}/model_configs/meta-llama--Meta-Llama-3.1-70B_config.json"
        PASS "TP6 does not divide the model's 64 query heads and the 8 KV heads")
endif()
# InferenceX aggregated results record their GPU (`hw`): this one ran on an AMD MI355X, so a roof
# of an NVIDIA GPU is refused, naming the file, line and field (a new user's break test: it
# was priced as an H200 or a B200 at exit 0).
if(EXISTS "${_trace_samples}/bench/inferencex_agg_kimik2.5_1k1k_conc4.json")
    roofline_cli_test(analyze_inferencex_other_gpu ARGS analyze "${_trace_samples}/bench/inferencex_agg_kimik2.5_1k1k_conc4.json"
        --gpu b200 --count 8 --model "${_trace_samples}/model_configs/moonshotai--Kimi-K2-Instruct_config.json"
        EXIT 2 PASS "conc4.json line 1: hw: the run was recorded on \"mi355x\" \\(an AMD GPU\\), not on --gpu b200")
endif()
# A setup that cannot have run (the weights do not fit one GPU: --count forgotten) has no bound
# for a verdict; the assumed count is said.
roofline_cli_test(analyze_glm5_no_count ARGS analyze data/samples/glm5-nvfp4-8x-rtx-pro-6000/bench.jsonl --gpu rtx-pro-6000
    --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    PASS "Verdict: inconsistent input \\(the modeled wall would be [a-z]+-bound\\)(.|\n)*--count not given: 1 GPU assumed")
# `analyze` on every catalog GPU: no exception, whatever its unknowns.
foreach(_id v100-sxm2-16gb v100-sxm2-32gb v100-pcie-16gb v100-pcie-32gb a100-sxm4-40gb a100-sxm4-80gb
        a100-pcie-40gb a100-pcie-80gb a800-sxm4-80gb a800-pcie-80gb a30 l4 l40s rtx-4090 h100-sxm h100-pcie
        h100-nvl h800 h20 h200-sxm h200-nvl gh200 gh200-144gb b200 gb200 b300 gb300 jetson-thor rtx-pro-6000
        rtx-pro-6000-maxq rtx-pro-6000-server rtx-pro-5000 rtx-pro-5000-72gb rtx-pro-4500 rtx-5090 rtx-5080 gb10)
    roofline_cli_test(analyze_every_gpu_${_id} ARGS ${_h200s} --gpu ${_id} PASS "Verdict: ([a-z]+-bound|inconsistent input)")
endforeach()
# `trace --gpu` of the chip that ran the trace (an H200, sm90): every Hopper entry prices it;
# any other chip is refused, by compute capability (Kineto) or by device name (nsys CSV).
foreach(_id h100-sxm h100-pcie h100-nvl h800 h20 h200-sxm h200-nvl gh200 gh200-144gb)
    roofline_cli_test(trace_every_gpu_${_id} ARGS trace data/samples/h200/elementwise/trace.json.gz --gpu ${_id}
        PASS "GPU +${_id} ")
endforeach()
foreach(_id v100-sxm2-16gb a100-sxm4-80gb l40s b200 gb300 jetson-thor rtx-pro-6000 rtx-5090 gb10)
    roofline_cli_test(trace_other_chip_${_id} ARGS trace data/samples/h200/elementwise/trace.json.gz --gpu ${_id}
        EXIT 2 PASS "but the trace was recorded on \"NVIDIA H200\" of compute capability 9\\.0 \\(sm90\\)")
endforeach()
roofline_cli_test(trace_other_chip_by_name ARGS trace data/samples/h200-stacks/nsys-eager_decode_b8/cuda_gpu_trace.csv.gz
    --gpu rtx-5090 EXIT 2 PASS "but the trace was recorded on \"NVIDIA H200\" \\(h200-sxm, sm90\\)")
# A power log of another chip is refused (an H200 log on an RTX PRO 6000 run was warned about,
# then used at its 700 W); a log far shorter than the run is said to be probably another run's
# (a 26 s GEMM log against a 46.6 s serving run read "the board sat at its power limit").
roofline_cli_test(analyze_power_other_chip ARGS analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8 --model data/models/glm-5/config.json
    --quant data/models/glm-5/hf_quant_config.json --power data/samples/h200/gemm_power/nvidia_smi.csv.gz
    EXIT 2 PASS "nvidia_smi.csv.gz: name: the log is of \"NVIDIA H200\" \\(h200-sxm, sm90\\), not of --gpu rtx-pro-6000")
roofline_cli_test(analyze_power_other_run ARGS ${_h200s} --gpu h200-sxm --power data/samples/h200/gemm_power/nvidia_smi.csv.gz --json
    PASS "nvidia_smi.csv.gz spans 26.1 s but the run lasted 46.6 s \\(duration\\): it covers at most 56% of the run; a log of another run")
# A file of another kind is named as that kind, with the command or flag that reads it.
roofline_cli_test(analyze_given_power_log ARGS analyze ${_glm}/nvidia_smi.csv --gpu rtx-pro-6000 --count 8
    --model data/models/glm-5/config.json EXIT 2
    PASS "nvidia_smi.csv: line 1: an nvidia-smi --query-gpu log \\(pass it with --power\\), not a benchmark result")
roofline_cli_test(trace_given_bench ARGS trace ${_glm}/bench.jsonl EXIT 2
    PASS "bench.jsonl: \"traceEvents\": missing: a SGLang/vLLM benchmark result \\(`roofline analyze` reads it\\), not a Chrome/Kineto trace")
roofline_cli_test(trace_given_model_config ARGS trace data/models/glm-5/config.json EXIT 2
    PASS "a Hugging Face model config \\(pass it with --model\\), not a Chrome/Kineto trace")
# The text prints the roof utilisations --json gives (verdict.roof_utilization, achieved-rate basis).
roofline_cli_test(analyze_roof_utilization_line ARGS ${_glm_args}
    PASS "datasheet roofs busy at the achieved rate: compute 7%, memory 22%, communication 22%\n")
roofline_cli_test(analyze_roof_utilization_basis ARGS ${_glm_args} --json
    PASS "\"communication\": 0\\.223[0-9]*,[^}]*\"compute\": 0\\.070[0-9]*,[^}]*\"memory\": 0\\.217[0-9]*[^}]*},[^}]*\"roof_utilization_basis\": \"achieved_rate\"")
# A run dated 2020 (benchmark_start_time_unix) and a log of 2026: not one sample in the run's
# window at any zone offset, so the log is another run's and is not used (a warning says when
# each was), where it had been taken as the run's power evidence.
roofline_cli_test(analyze_power_log_of_another_time ARGS analyze tests/cli/data/bench_dated_2020.jsonl --gpu h200-sxm --count 8
    --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --power data/samples/h200/gemm_power/nvidia_smi.csv.gz
    PASS "no sample of the log falls in the run's window \\(benchmark_start_time_unix/benchmark_end_time_unix: 2020-09-13 12:26 UTC.*the log spans 2026-.*not used as this run's power evidence")
# Bench times that cannot be a run's window are refused naming the field (they had been read as
# another run's log): an end before the start, Unix times in milliseconds, a duration that
# disagrees with the window (a unit off).
roofline_cli_test(analyze_bench_times_inverted ARGS analyze tests/cli/data/bench_times_inverted.jsonl --gpu h200-sxm
    --count 8 --model data/models/llama-3.1-70b/config.json EXIT 2
    PASS "line 1: .benchmark_end_time_unix.: is before benchmark_start_time_unix")
roofline_cli_test(analyze_bench_times_ms ARGS analyze tests/cli/data/bench_times_ms.jsonl --gpu h200-sxm
    --count 8 --model data/models/llama-3.1-70b/config.json EXIT 2
    PASS "line 1: .benchmark_start_time_unix.: is not Unix seconds \\(above 1e11: milliseconds\\?\\)")
roofline_cli_test(analyze_bench_duration_mismatch ARGS analyze tests/cli/data/bench_duration_mismatch.jsonl --gpu h200-sxm
    --count 8 --model data/models/llama-3.1-70b/config.json EXIT 2
    PASS "line 1: .duration.: is 6e\\+05 s, but benchmark_start/end_time_unix span 600 s")
