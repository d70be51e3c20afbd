# `roofline plan`: the text front, the --json contract keys, CSV, SLO filtering, the SVG chart
# (rendered in headless Chromium when present), and bad input.
set(_plan_glm --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpus rtx-pro-6000 --counts 8 --isl 1024 --osl 1024)
roofline_cli_test(plan_glm5_front ARGS plan ${_plan_glm}
    PASS "680[ \n]+configurations, 305 fit in memory.*Pareto front.*rtx-pro-6000 +8 +attention TP1 DP2, MoE TP2 x EP1 PP4 +1,632")
roofline_cli_test(plan_glm5_rejections ARGS plan ${_plan_glm}
    PASS "Rejected: 233 weights do not fit; 115 KV cache does not fit; 27 fewer requests than instances")
# The KV-limited maximum each layout reports is evaluated too (here 30 of them), and the memory
# headroom assumed is printed.
roofline_cli_test(plan_kv_limit_and_headroom ARGS plan ${_plan_glm}
    PASS "13 concurrencies \\+ 30 at the KV-limited maximum.*memory headroom assumed: 10% of GPU memory")
# --rate: the fewest GPUs that serve the load in replicas of one fitting, SLO-meeting deployment.
roofline_cli_test(plan_rate_sizing ARGS plan ${_plan_glm} --rate 5
    PASS "Sizing for 5.00 requests/s: [0-9,]+ GPUs: [0-9,]+ x \\(8 rtx-pro-6000 GPUs, attention TP")
# Without a TTFT limit the sizing says that any TTFT was accepted, and which.
roofline_cli_test(plan_rate_sizing_without_ttft_slo ARGS plan ${_plan_glm} --rate 5
    PASS "\n  no --ttft-slo-ms: any TTFT is accepted \\(this deployment's: [0-9.]+ m?s\\); pass one to size under")
roofline_cli_test(plan_json_ttft_queue ARGS plan ${_plan_glm} --json
    PASS "\"ttft_prefill_s\": [0-9.e-]+,.*\"ttft_queue_s\": [0-9.e-]+,")
# --json: nlohmann writes object keys sorted; the contract keys of a point, in that order, then the
# top-level pareto[], points[] and points_evaluated.
roofline_cli_test(plan_json_point_keys ARGS plan ${_plan_glm} --json
    PASS "\"bound\":.*\"concurrency\":.*\"count\":.*\"dp\":.*\"ep\":.*\"fits\":.*\"gpu\":.*\"pp\":.*\"tokens_per_s_per_gpu\":.*\"tokens_per_s_per_user\":.*\"tp\":.*\"tpot_s\":.*\"ttft_s\":")
roofline_cli_test(plan_json_top_keys ARGS plan ${_plan_glm} --json
    PASS "\"pareto\": \\[.*\"points\": \\[.*\"points_evaluated\": 680")
roofline_cli_test(plan_json_reason ARGS plan ${_plan_glm} --json
    PASS "\"reason\": \"weights need [0-9.]+ GB per GPU, more than the 86.4 GB usable of a rtx-pro-6000\"")
roofline_cli_test(plan_csv ARGS plan ${_plan_glm} --csv
    PASS "^gpu,count,tp,ep,dp,pp,instances,concurrency,fits,rejection,reason,meets_slo,tokens_per_s_per_gpu.*\nrtx-pro-6000,8,1,1,1,1,8,1,0,idle_instances,1 request in flight for 8 model instances")
# 69 since the own prefill counts the prompts ahead of it once (65 before: TTFTs were higher).
roofline_cli_test(plan_slo_filters ARGS plan ${_plan_glm} --tpot-slo-ms 20 --ttft-slo-ms 2000
    PASS "69[ \n]+meet the SLOs[ \n]+\\(TTFT <= 2.00 s, TPOT <= 20.0 ms\\)")
# A point that fits but misses a limit says so in --csv (and --json): rejection "slo", the reason.
roofline_cli_test(plan_csv_slo_reason ARGS plan ${_plan_glm} --tpot-slo-ms 20 --csv
    PASS "\n[^\n]*,1,slo,TPOT [0-9.]+ ms above the 20\\.0 ms limit,0,")
roofline_cli_test(plan_json_slo_reason ARGS plan ${_plan_glm} --tpot-slo-ms 20 --json
    PASS "\"fits\": true,[^}]*\"meets_slo\": false,[^}]*\"reason\": \"TPOT [0-9.]+ ms above the 20\\.0 ms limit\",[^}]*\"rejection\": \"slo\"")
# A GPU or count listed twice (an alias names it too) is exit 2, not a sweep counted twice.
roofline_cli_test(plan_duplicate_gpu ARGS plan --model data/models/glm-5/config.json --gpus h200-sxm,h200-sxm
    --counts 8 --isl 1024 --osl 1024 EXIT 2 PASS "--gpus \"h200-sxm,h200-sxm\": h200-sxm is listed twice")
roofline_cli_test(plan_duplicate_count ARGS plan --model data/models/glm-5/config.json --gpus b200
    --counts 4-8,8 --isl 1024 --osl 1024 EXIT 2 PASS "--counts \"4-8,8\": 8 is listed twice")
roofline_cli_test(plan_slo_none ARGS plan ${_plan_glm} --tpot-slo-ms 1
    PASS "No configuration fits and meets the SLOs")
roofline_cli_test(plan_dense_all_gpus ARGS plan --model data/samples/h200-serving/config.json --gpus all
    --counts 1-8 --isl 1024 --osl 512 --concurrency 64,256 PASS "Pareto front.*h200-sxm|b200|b300|gb")
roofline_cli_test(plan_unknown_gpu ARGS plan --model data/models/glm-5/config.json --gpus b200,rtx-pro-7000
    --counts 8 --isl 1024 --osl 1024 EXIT 2)
roofline_cli_test(plan_bad_counts ARGS plan --model data/models/glm-5/config.json --gpus b200 --counts 0,8
    --isl 1024 --osl 1024 EXIT 2)
roofline_cli_test(plan_bad_concurrency ARGS plan ${_plan_glm} --concurrency 4,x EXIT 2)
# Hex is not a concurrency; an exponent's minus sign is not a range's dash.
roofline_cli_test(plan_hex_concurrency ARGS plan ${_plan_glm} --concurrency 0x10 EXIT 2
    PASS "--concurrency: \"0x10\" is hexadecimal: numbers are read in decimal")
roofline_cli_test(plan_exponent_concurrency ARGS plan ${_plan_glm} --concurrency 1e-300 EXIT 2
    PASS "--concurrency: 1e-300 is below one request")
# A fractional concurrency (a mean) is printed as given, not rounded to a count.
roofline_cli_test(plan_fractional_concurrency ARGS plan ${_plan_glm} --concurrency 1.5 --csv
    PASS "1.50 requests in flight for 8 model instances")
roofline_cli_test(plan_bad_kv_dtype ARGS plan ${_plan_glm} --kv-dtype fp3 EXIT 2)
roofline_cli_test(plan_bad_quant ARGS plan --model data/models/glm-5/config.json --quant int3 --gpus b200
    --counts 8 --isl 1024 --osl 1024 EXIT 2)
roofline_cli_test(plan_missing_model ARGS plan --model data/models/no-such/config.json --gpus b200 --counts 8
    --isl 1024 --osl 1024 EXIT 2)

# points[] is streamed by report::json_text_writer, pareto[] written by nlohmann: the same text.
add_test(NAME cli_plan_json_points_match_pareto
         COMMAND ${CMAKE_COMMAND} -DROOFLINE=$<TARGET_FILE:roofline_cli>
                 -P ${CMAKE_CURRENT_LIST_DIR}/plan_json_stream_check.cmake)
set_tests_properties(cli_plan_json_points_match_pareto PROPERTIES LABELS "cli" TIMEOUT 120
                     WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

find_program(ROOFLINE_CHROMIUM chromium PATHS /usr/bin NO_DEFAULT_PATH)
if(ROOFLINE_CHROMIUM AND Python3_Interpreter_FOUND)
    add_test(NAME cli_render_plan_chromium
             COMMAND ${CMAKE_COMMAND}
                     -DROOFLINE=$<TARGET_FILE:roofline_cli>
                     -DCHROMIUM=${ROOFLINE_CHROMIUM}
                     -DPYTHON=${Python3_EXECUTABLE}
                     -DCHECK=${CMAKE_CURRENT_LIST_DIR}/png_check.py
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/render_plan
                     -P ${CMAKE_CURRENT_LIST_DIR}/plan_render_check.cmake)
    set_tests_properties(cli_render_plan_chromium PROPERTIES LABELS "cli;render" TIMEOUT 300
                         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
# --calibration applies the overlay to the GPU it was made on (the H200 here), and says so.
roofline_cli_test(plan_calibration ARGS plan --model data/samples/h200-serving/config.json --gpus h200-sxm,b200 --counts 1
    --isl 1024 --osl 512 --concurrency 256 --calibration data/calibration/h200-sxm.json
    PASS "h200-sxm: calibrated by data/calibration/h200-sxm.json")

# Max-Q (300 W) and Workstation (600 W) cards on a prefill-heavy load (8,000 tokens in, 100 out):
# the power model (models/power.hpp, fitted to the published rtx6kpro power-limit sweep) holds
# the Max-Q's prefill clock lower, so its front is lower at the same layout and concurrency.
set(_plan_prefill plan --model data/samples/h200-serving/config.json --counts 1 --isl 8000 --osl 100)
roofline_cli_test(plan_prefill_heavy_workstation ARGS ${_plan_prefill} --gpus rtx-pro-6000
    PASS "rtx-pro-6000 +1 +attention TP1, MoE TP1 x EP1 +42 +28,679 ")
roofline_cli_test(plan_prefill_heavy_maxq ARGS ${_plan_prefill} --gpus rtx-pro-6000-maxq
    PASS "rtx-pro-6000-maxq +1 +attention TP1, MoE TP1 x EP1 +42 +23,139 ")
# --disagg: a prefill pool and a decode pool. GLM-5 NVFP4 on RTX PRO 6000 needs 8 GPUs per worker
# (no layout of 1, 2 or 4 holds it), so 8 GPUs have no disaggregated split and 16 have one:
# 8 prefill + 8 decode, 30 fitting 8-GPU layouts each, 13 concurrencies: 30 x 30 x 13 = 11,700.
set(_plan_disagg plan --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpus rtx-pro-6000 --counts 8,16 --isl 1024 --osl 1024 --disagg)
roofline_cli_test(plan_disagg_glm5 ARGS ${_plan_disagg}
    PASS "Disaggregated \\(a prefill pool and a decode pool of workers, the KV cache sent between them\\): 11,700[ \n]+configurations.*prefill pool +decode pool.*rtx-pro-6000 +16 +[^\n]+ x1 +[^\n]+ x1 .*workers too small to hold the model[^:]*:[ \n]+rtx-pro-6000: 1, 2, 4 GPUs")
roofline_cli_test(plan_disagg_json_keys ARGS ${_plan_disagg} --json
    PASS "\"disaggregated\": \\{\n  \"fitting\": [0-9]+,\n  \"meeting_slo\": [0-9]+,\n  \"notes\": \\[.*\"pareto\": \\[\n   \\{\n    \"balanced_prefill_per_decode\": [0-9.e+-]+,\n    \"concurrency\": [0-9.]+,\n    \"count\": 16,\n    \"decode\": \\{\n     \"dp\": [0-9]+,\n     \"ep\": [0-9]+,\n     \"pp\": [0-9]+,\n     \"tp\": [0-9]+,\n     \"workers\": 1\n    \\},\n    \"decode_bound\": \"[a-z]+\",.*\"kv_transfer_s\":.*\"prefill\": \\{\n     \"batch\": [0-9.]+,.*\"workers\": 1\n    \\},\n    \"prefill_bound\".*\"tpot_s\": [0-9.e-]+,\n    \"ttft_s\": [0-9.e-]+\n   \\}.*\"points_evaluated\": 11700,\n  \"prefill_batch\": 8.0\n \\}")
roofline_cli_test(plan_disagg_csv ARGS ${_plan_disagg} --csv EXIT 2)
roofline_cli_test(plan_disagg_rate ARGS ${_plan_disagg} --rate 2 EXIT 2)
roofline_cli_test(plan_kv_link_without_disagg ARGS ${_plan_glm} --kv-link-gbps 400 EXIT 2)
# V100 has no bf16 units: 16-bit work priced at its fp16 rate (and said), not every layout unpriced.
roofline_cli_test(plan_v100_fp16 ARGS plan --model data/models/llama-3.1-70b/config.json --quant fp8 --gpus v100-sxm2-16gb
    --counts 8 --isl 1024 --osl 1024 PASS "v100-sxm2-16gb +8 +TP8 .*v100-sxm2-16gb has no bf16 units: bf16 work is priced at its fp16 rate")
# A limit below 1 us keeps its digits ("TPOT <= 0 us" had read as no limit).
roofline_cli_test(plan_sub_us_slo ARGS plan --model data/models/llama-3.1-70b/config.json --quant fp8 --gpus h200-sxm
    --counts 8 --isl 1024 --osl 1024 --tpot-slo-ms 0.0001 PASS "0 meet the SLOs[ \n]+\\(TPOT <= 0.1 us\\)")
