# The bad-input corpus: one entry per file of this folder (tests/cli/bad_inputs_cli.cmake turns
# each into a ctest `bad_input.<file>` that runs the `roofline` command with a 30 s timeout).
#
#   bad_input(FILE ARGS <roofline arguments, @FILE@ = the file> EXIT 2 ERROR <regex>)
#       a broken file: exit code 2 and a one-line error naming the file; ERROR matches the
#       place (line, byte, entry, key) and what is wrong;
#   bad_input(FILE ARGS ... EXIT 0 [SKIPPED n] [PASS <regex>])
#       bad records inside a good file: exit code 0, and the reader's count of skipped records,
#       shown as "n skipped" (`roofline inspect`), counted by hand from the file (the comment
#       says which records).
# Every file here was written for this corpus (none is a copy of someone else's file).

set(_trace trace @FILE@)
set(_gemm kernel gemm --gpu h200-sxm --m 64 --n 4096 --k 4096 --dtype bf16)
set(_model data/models/glm-5/config.json)

# --- Kineto / PyTorch profiler traces (`roofline trace`, `roofline inspect --format kineto`) ---
bad_input(kineto_empty.json ARGS ${_trace} EXIT 2 ERROR "byte 0: empty file")
bad_input(kineto_blank.json ARGS ${_trace} EXIT 2 ERROR "byte 0: empty file")
bad_input(kineto_truncated.json ARGS ${_trace} EXIT 2 ERROR "byte 157: truncated file: the value starting here is not closed \\(event 1\\)")
bad_input(kineto_truncated.json.gz ARGS ${_trace} EXIT 2 ERROR "byte [0-9]+ \\(decompressed\\): truncated gzip stream")
bad_input(kineto_corrupt.json.gz ARGS ${_trace} EXIT 2 ERROR "byte 0 \\(decompressed\\): corrupt gzip data")
bad_input(kineto_no_trace_events.json ARGS ${_trace} EXIT 2 ERROR "\"traceEvents\": missing")
bad_input(kineto_trace_events_not_array.json ARGS ${_trace} EXIT 2 ERROR "byte 15: \"traceEvents\" is not an array")
bad_input(kineto_trailing_garbage.json ARGS ${_trace} EXIT 2 ERROR "byte [0-9]+: malformed JSON: unexpected data after the trace")
# Events: a good kernel, one with dur -4, one good: 3 read, 1 skipped (negative_dur).
bad_input(kineto_negative_dur.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 1 PASS "3 read, 2 kept.*1 negative_dur")
# ts "NaN" and dur "Infinity" as strings (wrong type), dur null (missing): 3 of 4 skipped.
bad_input(kineto_nan_inf_times.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 3
          PASS "4 read, 1 kept.*1 missing_dur, 1 wrong_type\\(dur\\), 1 wrong_type\\(ts\\)")
# ts true, dur "12", a cpu_op with ts [1]: 3 of 4 skipped.
bad_input(kineto_wrong_types.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 3
          PASS "4 read, 1 kept.*1 wrong_type\\(dur\\), 2 wrong_type\\(ts\\)")
# traceEvents [kernel, 1, "text", null, []]: 4 elements that are not events.
bad_input(kineto_not_objects.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 4 PASS "5 read, 1 kept.*4 not_an_object")
bad_input(kineto_missing_name.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 1 PASS "1 missing_name")
# "dur": 2.0 then "dur": -2.0 in one event: the last value counts (as in both JSON parsers).
bad_input(kineto_duplicate_keys.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 1 PASS "1 negative_dur")
# 1e300 for ts, pid, tid, grid, registers, baseTimeNanoseconds, device properties: kept
# (a float in "grid" failed the whole trace on the simdjson path; casts of 1e300 to integers
# were undefined behaviour).
bad_input(kineto_huge_numbers.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 0 PASS "2 GPU events")
# Durations of 1e300 us and 1e11 us (over a day) skipped as implausible, one of 10.5 us kept: a
# 1e300 duration had stretched the window to 300 digits and printed "inf%" shares.
bad_input(kineto_implausible_dur.json ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 2 PASS "2 implausible_dur")
bad_input(kineto_non_utf8_name.json ARGS ${_trace} EXIT 2 ERROR "byte [0-9]+: event 1: malformed JSON.*UTF-8")
bad_input(kineto_deep_nesting.json ARGS ${_trace} EXIT 2 ERROR "byte [0-9]+: malformed JSON: the value starting here nests deeper than 1000 levels")

# --- nsys stats CSV (`roofline trace`, `roofline inspect --format nsys`) ---
# An nsys SQLite export compressed with gzip (made here: one empty TARGET_INFO_GPU table): the
# SQLite reader opens the file itself, so the message says to gunzip it.
bad_input(nsys_sqlite_gzipped.sqlite.gz ARGS ${_trace} EXIT 2 ERROR "byte 0: an SQLite database inside gzip: .* gunzip it first")
# Rows: good, Total Time "abc", -100000, 8 cells of 9, Instances "nan": 4 of 5 skipped.
bad_input(nsys_kern_sum_bad_rows.csv ARGS inspect @FILE@ --format nsys EXIT 0 SKIPPED 4
          PASS "5 read, 1 kept.*1 bad_value\\(Total Time\\), 1 negative_value, 1 non_finite\\(Instances\\), 1 wrong_column_count")
bad_input(nsys_kern_sum_unknown_unit.csv ARGS ${_trace} EXIT 2 ERROR "line 1: \"Total Time\": unknown time unit \"parsecs\"")
bad_input(nsys_kern_sum_missing_column.csv ARGS ${_trace} EXIT 2 ERROR "line 1: \"Total Time\": column missing")
# Rows: good, Duration -10, "nan", Start "inf", Duration "x12", 3 cells of 20: 5 of 6 skipped.
bad_input(nsys_gpu_trace_bad_rows.csv ARGS inspect @FILE@ --format nsys EXIT 0 SKIPPED 5
          PASS "6 read, 1 kept.*1 bad_value\\(Duration\\), 1 negative_dur, 1 non_finite\\(Duration\\), 1 non_finite\\(Start\\), 1 wrong_column_count")
# CorrId 1e30, GrdX 1e20, GrdY -5, GrdZ 2^32, Reg/Trd 1e300: kept, nothing undefined.
bad_input(nsys_gpu_trace_huge_numbers.csv ARGS inspect @FILE@ --format nsys EXIT 0 SKIPPED 0 PASS "2 GPU events")
# A kernel name with bytes ff fe c3: read, and the JSON output stays valid (U+FFFD).
bad_input(nsys_gpu_trace_non_utf8_name.csv ARGS ${_trace} --gpu h200-sxm --json EXIT 0 PASS "gemm_���_kernel")
bad_input(nsys_gpu_trace_unclosed_quote.csv ARGS ${_trace} EXIT 2 ERROR "line 3: quoted field not closed")
bad_input(nsys_not_a_report.csv ARGS ${_trace} EXIT 2 ERROR "line 2: not an nsys stats CSV report")

# --- Nsight Compute CSV (`roofline inspect --format ncu`) ---
bad_input(ncu_empty.csv ARGS inspect @FILE@ --format ncu EXIT 2 ERROR "line 1: empty file")
bad_input(ncu_no_header.csv ARGS inspect @FILE@ --format ncu EXIT 2 ERROR "line 2: not an Nsight Compute CSV")
# Values: 12.5, 81.3, "1,234.5" kept; "1.98x", "12e", "--5" bad; "n/a" absent: 3 skipped of 7.
bad_input(ncu_details_bad_values.csv ARGS inspect @FILE@ --format ncu EXIT 0 SKIPPED 3 PASS "7 read, 3 kept")
# Raw page: row 0 two values kept; a 7-cell row; row 2 "1e400" and "-"; row 3 "7" and "nan".
bad_input(ncu_raw_wrong_columns.csv ARGS inspect @FILE@ --format ncu EXIT 0 SKIPPED 4 PASS "7 read, 3 kept.*1 wrong_column_count")

# --- nvidia-smi --query-gpu CSV (`roofline inspect --format nvidia-smi`, `roofline analyze --power`) ---
bad_input(smi_empty.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 2 ERROR "line 1: empty file")
bad_input(smi_not_nvidia_smi.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 2 ERROR "line 1: not an nvidia-smi --query-gpu CSV header")
bad_input(smi_noheader.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 2 ERROR "line 1: no header line")
# An Nsight Systems kernel summary given as a power log: its "Name" column (kernel names) is no
# reason to read it as nvidia-smi's GPU name (it was, and its kernel names became GPU names).
bad_input(smi_nsys_kernel_summary.csv ARGS trace data/samples/h200/gemm_power/trace.json.gz --power @FILE@ EXIT 2 ERROR "line 1: not an nvidia-smi --query-gpu CSV header")
# Rows: good; -5 W; "nan W"; "inf W"; "245.31 furlongs"; month 13; index 99999999999; [N/A]
# (kept, unknown); a last line cut short: 7 of 9 skipped.
bad_input(smi_bad_values.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 0 SKIPPED 7
          PASS "9 read, 2 kept.*1 bad_value\\(index\\), 2 bad_value\\(power.draw\\), 1 bad_value\\(timestamp\\), 1 negative_or_nan\\(power.draw\\), 1 unknown_unit\\(power.draw\\), 1 wrong_column_count")
bad_input(smi_mixed_gpus_index.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 0 SKIPPED 0 PASS "6 samples of 2 GPUs")
# No index column: four rows per timestamp are four GPUs (nvidia-smi writes one row per GPU).
bad_input(smi_mixed_gpus_no_index.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 0 SKIPPED 0 PASS "12 samples of 4 GPUs")
bad_input(smi_corrupt.csv.gz ARGS analyze data/samples/glm5-nvfp4-8x-rtx-pro-6000/bench.jsonl --gpu rtx-pro-6000 --count 8
          --model ${_model} --power @FILE@ EXIT 2 ERROR "byte [0-9]+ \\(decompressed\\): (corrupt|truncated) gzip")
# 1e308 W, 1e300 MHz kept; "1e400 W" is not a finite number.
bad_input(smi_huge_numbers.csv ARGS inspect @FILE@ --format nvidia-smi EXIT 0 SKIPPED 1 PASS "2 read, 1 kept")

# --- nvidia-smi dmon (`roofline inspect --format nvidia-smi-dmon`) ---
bad_input(dmon_no_header.txt ARGS inspect @FILE@ --format nvidia-smi-dmon EXIT 2 ERROR "line 1: not nvidia-smi dmon output")
# Rows: good; pwr "abc"; pwr -5; 5 cells of 10; pwr "-" (n/a, kept): 3 of 5 skipped.
bad_input(dmon_bad_rows.txt ARGS inspect @FILE@ --format nvidia-smi-dmon EXIT 0 SKIPPED 3
          PASS "5 read, 2 kept.*1 bad_value\\(pwr\\), 1 negative_or_nan\\(pwr\\), 1 wrong_column_count")

# --- nccl-tests (`roofline inspect --format nccl-tests`, `nccl-tests-json`) ---
bad_input(nccl_no_table.txt ARGS inspect @FILE@ --format nccl-tests EXIT 2 ERROR "line 2: no nccl-tests result table")
# Rows: 8 B good; busbw "abc"; time -10; busbw "nan"; time "inf"; a row cut after algbw: 5 of 6
# skipped ("nan" and "inf" were kept as numbers before).
bad_input(nccl_bad_rows.txt ARGS inspect @FILE@ --format nccl-tests EXIT 0 SKIPPED 5
          PASS "6 read, 1 kept.*4 bad_value\\(time/algbw/busbw\\), 1 wrong_column_count")
bad_input(nccl_json_malformed.json ARGS inspect @FILE@ --format nccl-tests-json EXIT 2 ERROR "line 3, column 34: malformed JSON")
# Results: good; time "nan"; size -32; root 1e300 (kept, root unknown); a string: 3 of 5 skipped.
bad_input(nccl_json_bad_results.json ARGS inspect @FILE@ --format nccl-tests-json EXIT 0 SKIPPED 3
          PASS "5 read, 2 kept.*1 bad_value\\(size\\), 1 bad_value\\(time/alg_bw/bus_bw\\), 1 not_an_object")

# --- SGLang / vLLM / InferenceX benchmark results (`roofline analyze`, `roofline inspect --format bench`) ---
bad_input(bench_empty.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1: empty file")
bad_input(bench_malformed.json ARGS analyze @FILE@ --gpu h200-sxm --count 8 --model ${_model} EXIT 2 ERROR "line 3, column 12: malformed JSON")
# Runs: good; duration -1; completed "many"; duration 0; output_throughput NaN; no known key;
# good: 5 of 7 skipped.
bad_input(bench_skipped_runs.jsonl ARGS inspect @FILE@ --format bench EXIT 0 SKIPPED 5
          PASS "7 read, 2 kept.*1 nan\\(output_throughput\\), 1 negative\\(duration\\), 1 unknown_format, 1 wrong_type\\(completed\\), 1 zero\\(duration\\)")
bad_input(bench_all_bad.jsonl ARGS analyze @FILE@ --gpu h200-sxm --count 8 --model ${_model} EXIT 2 ERROR "line 1: \"duration\": is negative")
bad_input(bench_infinite_throughput.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1: \"output_throughput\": is infinite")
bad_input(bench_wrong_types.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1: \"completed\": not a number")
bad_input(bench_huge_numbers.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1: \"max_concurrency\": is implausible \\(above 1e15\\)")
# "duration": 100.0 and, later in the object, "duration": -3.0: the last one counts.
bad_input(bench_duplicate_keys.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1: \"duration\": is negative")
bad_input(bench_unknown_format.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1: not a SGLang, vLLM or InferenceX benchmark result")
bad_input(bench_truncated.jsonl ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 2, column 58: malformed JSON")
bad_input(bench_not_utf8.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "line 1, column [0-9]+: malformed JSON.*UTF-8")

# --- Hugging Face config.json and hf_quant_config.json (`roofline model`) ---
bad_input(hf_config_empty.json ARGS model --model @FILE@ EXIT 2 ERROR "file is empty")
bad_input(hf_config_missing_hidden.json ARGS model --model @FILE@ EXIT 2 ERROR "\"hidden_size\": required key is missing")
bad_input(hf_config_wrong_type.json ARGS model --model @FILE@ EXIT 2 ERROR "\"num_hidden_layers\": expected an integer, got string")
bad_input(hf_config_negative.json ARGS model --model @FILE@ EXIT 2 ERROR "\"num_attention_heads\": expected a positive size, got -32")
bad_input(hf_config_zero.json ARGS model --model @FILE@ EXIT 2 ERROR "\"vocab_size\": expected a positive size, got 0")
bad_input(hf_config_huge_layers.json ARGS model --model @FILE@ EXIT 2 ERROR "\"num_hidden_layers\": .*1000000000")
bad_input(hf_config_float_huge.json ARGS model --model @FILE@ EXIT 2 ERROR "\"hidden_size\": expected an integer")
bad_input(hf_config_truncated.json ARGS model --model @FILE@ EXIT 2 ERROR "byte 61: malformed JSON")
bad_input(hf_config_unknown_dtype.json ARGS model --model @FILE@ EXIT 2 ERROR "\"torch_dtype\": unknown dtype \"bfloat17\"")
bad_input(hf_config_topk_exceeds.json ARGS model --model @FILE@ EXIT 2 ERROR "\"num_experts_per_tok\": exceeds the number of experts")
# Every size at the reader's limit: the models compute in double, the answer is huge, not UB.
bad_input(hf_config_overflow.json ARGS model --model @FILE@ EXIT 0 PASS "1000 layers|parameters")
bad_input(hf_quant_unknown_algo.json ARGS model --model ${_model} --quant @FILE@ EXIT 2 ERROR "quantization: \"quant_algo\": unsupported quant_algo \"INT3\"")
bad_input(hf_quant_missing_quantization.json ARGS model --model ${_model} --quant @FILE@ EXIT 2 ERROR "\"quantization\": required key is missing")
bad_input(hf_quant_bad_excludes.json ARGS model --model ${_model} --quant @FILE@ EXIT 2 ERROR "quantization: \"exclude_modules\\[1\\]\": expected a string")

# --- GPU JSON overlays (`roofline gpus --gpu-file`) ---
bad_input(gpu_json_malformed.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "line 3, column 11 \\(byte 52\\): malformed JSON")
bad_input(gpu_json_negative.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "entry 0 \\(id \"h200-sxm\"\\): \"memory_bandwidth_bytes_per_s\"")
bad_input(gpu_json_nan_string.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "entry 0 \\(id \"h200-sxm\"\\): \"power_limit_w\"")
bad_input(gpu_json_incomplete_new.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "entry 0 \\(id \"my-gpu\"\\): \"compute_capability\": required")
bad_input(gpu_json_unknown_key.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "entry 0 \\(id \"h200-sxm\"\\): \"power_limit_watts\"")
bad_input(gpu_json_empty_array.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "the array holds no GPU entries")
bad_input(gpu_json_huge.json ARGS gpus --gpu-file @FILE@ EXIT 2 ERROR "entry 0 \\(id \"h200-sxm\"\\): \"sm_count\"")

# --- calibration JSON (`roofline kernel ... --calibration`) ---
bad_input(calibration_empty.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "byte [01]: malformed JSON")
bad_input(calibration_negative.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "ceilings: \"bf16\": must be a positive number")
bad_input(calibration_zero.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "ceilings: \"dram_bytes_per_s\": must be a positive number")
bad_input(calibration_string_value.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "ceilings: \"bf16\": expected a number, got string")
bad_input(calibration_unknown_key.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "ceilings: \"warp_drive\": unknown key")
bad_input(calibration_not_object.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "expected a JSON object")

# --- kernel-name rules (`roofline trace --rules`) ---
bad_input(kernel_rules_bad_regex.json ARGS trace data/samples/h200/elementwise/trace.json.gz --rules @FILE@
          EXIT 2 ERROR "rule 0: \"pattern\": .*not a valid regular expression")
bad_input(kernel_rules_unknown_phase.json ARGS trace data/samples/h200/elementwise/trace.json.gz --rules @FILE@
          EXIT 2 ERROR "rule 0: \"phase\": unknown phase \"warp\"")
# A repetition count past a long: undefined behaviour inside libstdc++'s regex compiler (found by
# fuzz_kernel_rules in CI); now refused before compiling.
bad_input(kernel_rules_huge_count.json ARGS trace data/samples/h200/elementwise/trace.json.gz --rules @FILE@
          EXIT 2 ERROR "rule 0: \"pattern\": .*has a count too large")

# --- found while hardening (see tests/fuzz/README.md) ---
# A 200,000-character kernel name starting "bmm_": std::regex's `\w*` recursed once per
# character and overflowed the stack; names are now classified by their first 4 KiB.
bad_input(kineto_long_kernel_name.json.gz ARGS inspect @FILE@ --format kineto EXIT 0 SKIPPED 0 PASS "2 GPU events \\(2 kernels\\)")
# `roofline analyze --power` with a log holding 8 good rows and 3 bad ones (negative draw, an
# unknown unit, a row cut short): the analysis runs and says what it left out.
bad_input(smi_analyze_bad_rows.csv ARGS analyze data/samples/glm5-nvfp4-8x-rtx-pro-6000/bench.jsonl --gpu rtx-pro-6000 --count 8
          --model ${_model} --power @FILE@ EXIT 0
          PASS "3 of 11 rows in .*smi_analyze_bad_rows.csv were skipped \\(1 negative_or_nan\\(power.draw\\), 1 unknown_unit\\(power.draw\\), 1 wrong_column_count\\)")
# A number beyond the range of a double: nlohmann/json throws out_of_range (406), not a
# parse_error, and it escaped every JSON reader as an internal error (exit 1). Found by
# fuzz_nccl_tests_json; now a parse_error naming the number's line and column.
bad_input(nccl_json_number_overflow.json ARGS inspect @FILE@ --format nccl-tests-json EXIT 2
          ERROR "line 2, column 12: malformed JSON: number overflow parsing '81e308'")
bad_input(bench_number_overflow.json ARGS inspect @FILE@ --format bench EXIT 2
          ERROR "line 2, column 14: malformed JSON: number overflow parsing '1e999'")
bad_input(hf_config_number_overflow.json ARGS model --model @FILE@ EXIT 2
          ERROR "line 3, column 23: malformed JSON: number overflow parsing '-1e400'")
bad_input(gpu_json_number_overflow.json ARGS gpus --gpu-file @FILE@ EXIT 2
          ERROR "line 2, column 19: malformed JSON: number overflow parsing '7e1000'")
bad_input(calibration_number_overflow.json ARGS ${_gemm} --calibration @FILE@ EXIT 2
          ERROR "line 1, column 23: malformed JSON: number overflow parsing '2E\\+999'")
# An all-reduce sweep claiming 10^12 ranks: it sized a per-rank table from the number (found in
# review of the calibration readers); rank counts above 2^20 are now an error.
bad_input(measurements_huge_world.json ARGS calibrate @FILE@ --gpu h200-sxm -o never-written.json EXIT 2
          ERROR "\"world_size\": missing or not a rank count")

# --- deep nesting, one per JSON reader (issue 14) ---
# 200,000 nested arrays (400 KB): nlohmann/json copied them recursively after parsing and
# `roof --gpu-file` died of SIGSEGV; every JSON reader now refuses nesting past 1000 levels
# before parsing, naming the line and column.
set(_deep "line 1, column [0-9]+: malformed JSON: nests deeper than 1000 levels")
bad_input(gpu_json_deep_nesting.json ARGS roof --gpu h200-sxm --gpu-file @FILE@ EXIT 2 ERROR "${_deep}")
bad_input(calibration_deep_nesting.json ARGS ${_gemm} --calibration @FILE@ EXIT 2 ERROR "${_deep}")
bad_input(hf_config_deep_nesting.json ARGS model --model @FILE@ EXIT 2 ERROR "${_deep}")
bad_input(bench_deep_nesting.json ARGS inspect @FILE@ --format bench EXIT 2 ERROR "${_deep}")
bad_input(nccl_json_deep_nesting.json ARGS inspect @FILE@ --format nccl-tests-json EXIT 2 ERROR "${_deep}")
bad_input(kernel_rules_deep_nesting.json ARGS inspect @FILE@ --format kernel-rules EXIT 2 ERROR "${_deep}")

# --- non-finite flags (issue 14): a usage error, never a NaN roof ---
bad_input(kineto_nonfinite_flags.json FLAG ARGS trace @FILE@ --gpu h200-sxm --power-offset nan
          EXIT 2 ERROR "--power-offset: must be a finite number, got \"nan\"")

# --- files of another kind (issue 14): the error says what the file is and what was expected ---
bad_input(trace_gzip_garbage.json.gz ARGS ${_trace} EXIT 2
          ERROR "byte 0: binary data \\(inside gzip\\): [0-9]+ of the first 2000 bytes are control characters, not a trace \\(expected a Kineto")
# (An Nsight Compute CSV is not among them: `roofline trace report.csv` analyses its kernels.)
