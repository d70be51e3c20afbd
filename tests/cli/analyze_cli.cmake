# `roofline analyze` on the bundled real inputs, and its errors.
set(_glm data/samples/glm5-nvfp4-8x-rtx-pro-6000)
set(_glm_args analyze ${_glm}/bench.jsonl --gpu rtx-pro-6000 --count 8 --model data/models/glm-5/config.json
    --quant data/models/glm-5/hf_quant_config.json --power ${_glm}/nvidia_smi.csv)
roofline_cli_test(analyze_glm5_default ARGS ${_glm_args} PASS "Verdict: communication-bound")
roofline_cli_test(analyze_glm5_not_power ARGS ${_glm_args} PASS "not power-bound: median draw 290 W is 48% of the 600 W limit")
roofline_cli_test(analyze_glm5_maxq_question ARGS ${_glm_args} PASS "97% of a Max-Q's 300 W")
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
