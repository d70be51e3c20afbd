# `roofline estimate`: one configuration (text, --json contract keys, --emit), bad input, and
# --from-csv on a 100-run subset of the shared measured runs (estimate_csv_subset.cmake).
set(_est_glm --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json --gpu b200
    --isl 1024 --osl 1024 --tp 1 --dp 8 --ep 8 --concurrency 256)
roofline_cli_test(estimate_glm5_text ARGS estimate ${_est_glm}
    PASS "attention TP1 DP8, MoE TP1 x EP8 at 256 requests.*memory headroom assumed 10%.*TTFT [0-9.]+ ms +TPOT [0-9.]+ ms")
roofline_cli_test(estimate_glm5_json ARGS estimate ${_est_glm} --json
    PASS "\"tokens_per_s_per_gpu\": [0-9.e+]+,.*\"tokens_per_s_per_user\": [0-9.e+]+,.*\"tpot_s\": [0-9.e-]+,.*\"ttft_s\": [0-9.e-]+")
# TTFT by what a request waits for: the same four parts in the text and in --json.
roofline_cli_test(estimate_glm5_ttft_parts_text ARGS estimate ${_est_glm}
    PASS "TTFT = own prefill [0-9.]+ ms \\+ queue [0-9.]+ ms \\+ first-token step [0-9.]+ ms \\+ fixed costs [0-9.]+ ms")
roofline_cli_test(estimate_glm5_ttft_parts_json ARGS estimate ${_est_glm} --json
    PASS "\"ttft_parts_s\": {[^}]*\"first_token_step\": [0-9.e-]+,[^}]*\"fixed_costs\": [0-9.e-]+,[^}]*\"own_prefill\": [0-9.e-]+,[^}]*\"queue\": [0-9.e-]+")
roofline_cli_test(estimate_emit_sglang ARGS estimate ${_est_glm} --emit sglang
    PASS "sglang.launch_server --model-path data/models/glm-5 --tp-size 8 --dp-size 8 --enable-dp-attention --ep-size 8 --max-running-requests 256")
# Engines load a checkpoint folder or a Hugging Face id, not a config file: an aiconfigurator-style
# "org--name_config.json" becomes "org/name"; a config of another name becomes <MODEL>, with a note.
get_filename_component(_est_dsv3 "${PROJECT_SOURCE_DIR}/../shared/samples/model_configs/deepseek-ai--DeepSeek-V3_config.json" ABSOLUTE)
if(EXISTS "${_est_dsv3}")
    roofline_cli_test(estimate_emit_hf_id ARGS estimate --model ${_est_dsv3} --quant fp8 --gpu b200 --isl 1024 --osl 1024
        --tp 8 --concurrency 4 --emit vllm PASS "\nvllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 ")
endif()
roofline_cli_test(estimate_emit_placeholder ARGS estimate --model tests/cli/data/tiny_moe_config.json --quant bf16 --gpu b200
    --isl 1024 --osl 1024 --tp 1 --concurrency 4 --emit sglang
    PASS "--model-path <MODEL> --tp-size 1.*\n# <MODEL>: the checkpoint folder or Hugging Face id of tests/cli/data/tiny_moe_config\\.json")
# Pool options without --disagg would be ignored: exit 2 naming the option.
roofline_cli_test(estimate_pool_option_without_disagg ARGS estimate ${_est_glm} --prefill-workers 2 EXIT 2
    PASS "--prefill-workers needs --disagg")
roofline_cli_test(estimate_disagg ARGS estimate ${_est_glm} --disagg --prefill-layout 8,1,1,1 --prefill-workers 2
    --decode-workers 1 PASS "prefill pool: attention TP8, MoE TP8 x EP1 x 2 workers.*balanced pools: [0-9.]+ prefill workers per decode worker")
# --emit with --disagg: a prefill worker's line and a decode worker's, each with the engine's
# disaggregation flag, then what goes in front.
roofline_cli_test(estimate_disagg_emit ARGS estimate ${_est_glm} --disagg --prefill-layout 8,1,1,1 --prefill-workers 2
    --decode-workers 1 --emit sglang
    PASS "# prefill pool: 2 workers, each:\npython -m sglang.launch_server [^\n]*--tp-size 8 [^\n]*--disaggregation-mode prefill\n# decode pool: 1 worker, each:\n[^\n]*--dp-size 8 --enable-dp-attention[^\n]*--disaggregation-mode decode\n# in front: python -m sglang_router.launch_router --pd-disaggregation")
# A slow --kv-link-gbps under a table that weighs KV transfer at 0 (disagg/sglang): the excess is charged and said.
roofline_cli_test(estimate_disagg_slow_kv_link ARGS estimate ${_est_glm} --disagg --prefill-layout 8,1,1,1 --kv-link-gbps 1
    --efficiency data/serving/aiconfigurator_fit.json --backend sglang
    PASS "KV transfer at the given rate: [0-9.]+ ms a prompt, [0-9.]+ ms more than over the default link; the efficiency weighs KV transfer at 0.00")
# --mtp: the speculation note and the --json key.
roofline_cli_test(estimate_mtp_json ARGS estimate ${_est_glm} --mtp 2 --acceptance 0.8 --json
    PASS "\"speculative decoding: 2 drafted tokens per step at 80% acceptance emit 2.44 tokens.*\"speculative\": {\n  \"acceptance_rate\": 0.8,\n  \"draft_tokens\": 2,\n  \"tokens_per_step\": 2.44")
# A table without a TPOT group for the mode: an error naming what it has, not the roof in silence.
roofline_cli_test(estimate_table_without_tpot_group ARGS estimate ${_est_glm} --efficiency tests/cli/data/efficiency_ttft_only.json
    --backend sglang EXIT 2 PASS "has no TPOT group for decode/agg/sglang nor a shorter level of it \\(it has: agg/sglang\\)")
# --mtp without --acceptance would price 0% acceptance: an error, as the reverse is.
roofline_cli_test(estimate_mtp_without_acceptance ARGS estimate ${_est_glm} --mtp 2 EXIT 2 PASS "--mtp needs --acceptance")
# A backend the table has no group of this mode for: TTFT from the mode's pooled group, said.
roofline_cli_test(estimate_backend_without_mode_group ARGS estimate ${_est_glm} --disagg --efficiency data/serving/aiconfigurator_fit.json
    --backend vllm PASS "has no disagg/vllm group \\(too few such runs to fit\\): TTFT from disagg, fitted on every backend's runs of the mode.*has no decode/disagg/vllm group \\(fewer than 30 such runs, or not among the 3 backends with the most runs, which alone get their own GEMM coefficient\\): TPOT from decode/disagg, every coefficient fitted on every backend's runs")
# vLLM's expert parallelism spans tp x dp: a MoE TP x EP it cannot run is said beside its flags.
roofline_cli_test(estimate_vllm_emit_ep ARGS estimate --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpu b200 --isl 1024 --osl 1024 --tp 8 --ep 4 --concurrency 64 --emit vllm
    PASS "--enable-expert-parallel [^\n]*# vLLM runs the experts EP8 \\(tp x dp\\), not the MoE TP2 x EP4 priced")
roofline_cli_test(estimate_bad_layout ARGS estimate ${_est_glm} --ep 3 EXIT 2)
# A backend the efficiency table has no group for, or --backend without a table: exit 2, not a
# silent fall back to the pooled fit or the roof.
roofline_cli_test(estimate_unknown_backend ARGS estimate ${_est_glm} --efficiency data/serving/aiconfigurator_fit.json --backend foo EXIT 2)
roofline_cli_test(estimate_backend_without_table ARGS estimate ${_est_glm} --backend sglang EXIT 2)
# TPOT with the backend's own GEMM coefficient (decode/mode/backend).
roofline_cli_test(estimate_known_backend ARGS estimate ${_est_glm} --efficiency data/serving/aiconfigurator_fit.json --backend sglang
    PASS "efficiency: data/serving/aiconfigurator_fit.json TTFT agg/sglang, TPOT decode/agg/sglang")
# The fitted table's held-out bands: the range its runs measured against such predictions, in the
# text and as --json ttft_range_s / tpot_range_s; null at the roof (no table).
roofline_cli_test(estimate_heldout_range_text ARGS estimate ${_est_glm} --efficiency data/serving/aiconfigurator_fit.json
    --backend sglang PASS "held out, 8 in 10 runs of the fitted groups measured:   TTFT [0-9.]+-[0-9.]+ ms \\([0-9.]+-[0-9.]+x the estimate, [0-9]+ runs\\)   TPOT [0-9.]+-[0-9.]+ ms")
roofline_cli_test(estimate_heldout_range_json ARGS estimate ${_est_glm} --efficiency data/serving/aiconfigurator_fit.json
    --backend sglang --json PASS "\"tpot_range_s\": {[^}]*\"p10\": [0-9.e-]+,[^}]*\"p90\": [0-9.e-]+,[^}]*\"runs\": [0-9]+[^}]*}.*\"ttft_range_s\": {[^}]*\"p10\": [0-9.e-]+")
roofline_cli_test(estimate_heldout_range_roof ARGS estimate ${_est_glm} --json PASS "\"tpot_range_s\": null.*\"ttft_range_s\": null")
roofline_cli_test(estimate_missing ARGS estimate --model data/models/glm-5/config.json --gpu b200 EXIT 2)
roofline_cli_test(estimate_bad_emit ARGS estimate ${_est_glm} --emit tgi EXIT 2 PASS "--emit: tgi not in")
roofline_cli_test(estimate_csv_no_dir ARGS estimate --from-csv tests/cli/data/none.csv EXIT 2)
# Runs measured under their configuration's speed of light (a TPOT of 1e-5 ms, a TTFT of 1e-5 ms
# for a 1,024-token prompt): counted in the text, named in --json, kept in the tables.
roofline_cli_test(estimate_csv_below_sol_text ARGS estimate --from-csv tests/cli/data/runs_below_sol.csv --model-dir tests/cli/data
    PASS "speed of light: 1 of 3 runs with a stated decode batch \\(and draft count\\) measure TPOT under the decode step[^\n]*, 1 of 3 runs TTFT under their prompt's own prefill.*\\| agg \\| 3 \\|")
roofline_cli_test(estimate_csv_below_sol_json ARGS estimate --from-csv tests/cli/data/runs_below_sol.csv --model-dir tests/cli/data --json
    PASS "\"below_speed_of_light\": {[^}]*\"tpot\": \\[[^}]*\"fast_c8\"[^}]*\"tpot_bound_runs\": 3,[^}]*\"ttft\": \\[[^}]*\"slow_c8_ttft\"")
# Runs of one model: holding it out leaves nothing to fit on, and the summary says so.
roofline_cli_test(estimate_csv_one_model ARGS estimate --from-csv tests/cli/data/runs_below_sol.csv --model-dir tests/cli/data
    PASS "assumed: held out: the runs are of one model \\(tiny_moe\\), so no other model's runs fit its held-out efficiency")
# A speculating run without a draft count gets no TPOT bound (three drafts would allow 2x the
# one-draft bound): of two equally impossible runs only the one with its draft count is flagged.
roofline_cli_test(estimate_csv_below_sol_no_drafts ARGS estimate --from-csv tests/cli/data/runs_mtp_no_drafts.csv --model-dir tests/cli/data
    PASS "speed of light: 1 of 1 runs with a stated decode batch \\(and draft count\\) measure TPOT under")
get_filename_component(_samples "${PROJECT_SOURCE_DIR}/../shared/samples" ABSOLUTE)
add_test(NAME cli_estimate_csv_subset
         COMMAND ${CMAKE_COMMAND} -DROOFLINE=$<TARGET_FILE:roofline_cli>
                 -DCSV=${_samples}/aiconfigurator/silicon_sample.csv
                 -DDIR1=${_samples}/aiconfigurator/model_configs -DDIR2=${_samples}/model_configs
                 -DSUBSET=${CMAKE_CURRENT_BINARY_DIR}/silicon_subset.csv
                 -DFACTS=${PROJECT_SOURCE_DIR}/data/serving/inferencex_run_facts.csv
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/estimate_csv_subset.cmake)
set_tests_properties(cli_estimate_csv_subset PROPERTIES LABELS cli TIMEOUT 300 WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# The committed facts' db-dump layouts re-derive from the script (byte for byte).
if(Python3_Interpreter_FOUND)
    add_test(NAME cli_facts_db_dump_layouts
             COMMAND ${CMAKE_COMMAND} -DPYTHON=${Python3_EXECUTABLE}
                     -DSCRIPT=${PROJECT_SOURCE_DIR}/examples/serving/inferencex_run_facts.py
                     -DCSV=${_samples}/aiconfigurator/silicon_sample.csv
                     -DFACTS=${PROJECT_SOURCE_DIR}/data/serving/inferencex_run_facts.csv
                     -DCOPY=${CMAKE_CURRENT_BINARY_DIR}/facts_db_dump_copy.csv
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/facts_db_dump_check.cmake)
    set_tests_properties(cli_facts_db_dump_layouts PROPERTIES LABELS cli TIMEOUT 120)
endif()
# A --model-dir that holds none of the file's models estimates nothing: exit 2 with the commonest
# reason, not a table of no runs at exit 0 (a new user's break test).
if(EXISTS "${_trace_samples}/aiconfigurator/silicon_sample.csv")
    roofline_cli_test(estimate_csv_no_models ARGS estimate --from-csv "${_trace_samples}/aiconfigurator/silicon_sample.csv"
        --model-dir tests/cli EXIT 2 PASS "none of its 5221 runs could be estimated \\([0-9]+ of them: model: no config for \"")
endif()
# A dense model's dp is dp replicas of the model (TP4 DP2: two TP4 copies), not TP8; a layout the
# model cannot run (more stages than layers, EP without experts) and a --prefill-layout of other
# than four degrees are refused; flags of one configuration are refused beside --from-csv.
set(_est_dense --model data/models/llama-3.1-70b/config.json --quant fp8 --gpu h200-sxm --isl 1024 --osl 1024 --concurrency 16)
roofline_cli_test(estimate_dense_dp_named ARGS estimate ${_est_dense} --tp 4 --dp 2
    PASS "on 8 GPUs of h200-sxm: TP4 DP2 at 16 requests")
roofline_cli_test(estimate_pp_over_layers ARGS estimate ${_est_dense} --tp 1 --pp 96 EXIT 2
    PASS "pp 96 is more pipeline stages than the model's 80 layers")
roofline_cli_test(estimate_ep_on_dense ARGS estimate ${_est_dense} --tp 4 --ep 2 EXIT 2
    PASS "ep 2 on a model without experts")
roofline_cli_test(estimate_prefill_layout_short ARGS estimate ${_est_glm} --disagg --prefill-layout 4 EXIT 2)
roofline_cli_test(estimate_prefill_layout_long ARGS estimate ${_est_glm} --disagg --prefill-layout 4,1,1,1,9 EXIT 2)
roofline_cli_test(estimate_csv_with_gpu ARGS estimate --from-csv tests/cli/data/none.csv --model-dir tests --gpu b200 EXIT 2)
roofline_cli_test(estimate_out_without_csv ARGS estimate ${_est_glm} --out /tmp/x.csv EXIT 2)
roofline_cli_test(estimate_facts_without_csv ARGS estimate ${_est_glm} --run-facts data/serving/inferencex_run_facts.csv EXIT 2
    PASS "--run-facts needs --from-csv")
# A facts file that would change a measurement, or is not a facts file at all (a runs file has
# silicon_*_ms columns): exit 2 naming the file and the column.
roofline_cli_test(estimate_facts_of_wrong_kind ARGS estimate --from-csv tests/cli/data/none.csv --model-dir tests
    --run-facts tests/cli/data/facts_with_measured.csv EXIT 2
    PASS "facts_with_measured.csv: line 1: .silicon_ttft_ms.: a facts file cannot change what was measured")
# TP that does not divide the heads: estimate notes it as analyze warns (engines refuse or pad).
roofline_cli_test(estimate_tp_not_dividing_heads ARGS estimate ${_est_dense} --tp 3
    PASS "TP3 does not divide the model's 64 query heads and the 8 KV heads")
# Dense replicas launch as data parallel replicas: vLLM --data-parallel-size, each at its share.
roofline_cli_test(estimate_dense_dp_emit ARGS estimate ${_est_dense} --tp 4 --dp 2 --emit vllm
    PASS "--tensor-parallel-size 4 --data-parallel-size 2 --max-num-seqs 8 ")
# --sol is the speed of light: with a fitted table beside it one would be silently dropped.
roofline_cli_test(estimate_sol_with_efficiency ARGS estimate ${_est_dense} --tp 4 --sol
    --efficiency data/serving/aiconfigurator_fit.json EXIT 2 PASS "--sol prices the speed of light \\(no efficiency\\)")
# A GPU without BF16 units (V100): the estimate prices 16-bit work at FP16 and says so, as plan does.
roofline_cli_test(estimate_v100_bf16_priced_fp16 ARGS estimate --model data/models/llama-3.1-70b/config.json --quant bf16
    --gpu v100-sxm2-32gb --isl 512 --osl 128 --tp 8 --concurrency 4
    PASS "TPOT [0-9.]+ ms.*v100-sxm2-32gb has no bf16 units: bf16 work is priced at its fp16 rate")
# int4 is a weight format: a GEMM's activations stay 16-bit (weights at 4.5 bits: 8192 x 8192 x
# 0.5625 B = 37.7 MB of the 38.27 MB), and it is refused as an attention or KV-cache dtype. The
# title names both operands.
roofline_cli_test(kernel_gemm_int4_weights ARGS kernel gemm --m 16 --n 8192 --k 8192 --dtype int4 --gpu h200-sxm
    PASS "gemm 16x8192x8192 bf16, int4 weights.*DRAM 38.27 MB")
roofline_cli_test(kernel_attention_int4_refused ARGS kernel attention --batch 1 --q-len 1 --kv-len 4096 --heads 32
    --dtype int4 --gpu h200-sxm EXIT 2 PASS "int4 is a weight format \\(W4A16\\), not an attention or KV-cache dtype")
# Ranks that fit one node cross no network: priced at the node's own link, with a note.
roofline_cli_test(kernel_collective_network_one_node ARGS kernel collective --op all_reduce --bytes 1048576 --ranks 4
    --gpu h200-sxm --link network --gpus-per-node 8 PASS "4 ranks fit one node of 8 GPUs: nothing crosses the network, priced at nvlink")
# A GPU without the peak a model needs: "not priced", not "does not fit"; --emit says whether it
# fits is unknown.
roofline_cli_test(estimate_unpriced_gpu ARGS estimate --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpu gb10 --isl 1024 --osl 1024 --tp 1 --concurrency 4 --emit vllm
    PASS "  not priced: gb10: the bf16 peak is unknown or absent.*# not priced \\(gb10: [^)]*\\): whether it fits is unknown")
# ISL + OSL beyond the model's max_position_embeddings (202,752 for GLM-5): priced, and said.
roofline_cli_test(estimate_context_beyond_model ARGS estimate --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpu b200 --isl 300000 --osl 1024 --tp 8 --ep 8 --concurrency 1
    PASS "context: ISL \\+ OSL = 301024 tokens, beyond the model's max_position_embeddings \\(202752\\)")
# A KV-cache dtype an engine takes no flag for: priced, and --emit says the line keeps the default.
roofline_cli_test(estimate_emit_kv_fp4 ARGS estimate ${_est_glm} --kv-dtype fp4 --emit sglang
    PASS "# KV cache [a-z0-9_]+: sglang takes no such KV-cache dtype.*--kv-cache-dtype auto")
roofline_cli_test(estimate_emit_kv_e5m2 ARGS estimate ${_est_glm} --kv-dtype fp8_e5m2 --emit vllm
    PASS "--kv-cache-dtype fp8_e5m2")
# --prefill-batch below one prompt is a usage error, not read as 1.
roofline_cli_test(estimate_prefill_batch_below_one ARGS estimate ${_est_glm} --disagg --prefill-layout 8,8,1,1
    --prefill-batch 0.3 EXIT 2)
# --limit counts runs from 1: 0 is not "all", and a negative count is a short usage error.
roofline_cli_test(estimate_csv_limit_zero ARGS estimate --from-csv tests/cli/data/runs_below_sol.csv --model-dir tests/cli/data
    --limit 0 EXIT 2 PASS "--limit: Value 0 not in range 1 to 100000000")
# Fewer requests than decode workers: priced, and said (an aggregated deployment is rejected).
roofline_cli_test(estimate_disagg_idle_decode_workers ARGS estimate ${_est_glm} --disagg --prefill-layout 8,8,1,1
    --decode-workers 300 PASS "256 requests in flight for 300 decode workers: some would sit idle")
# An option's value in hex (which CLI11 and std::stod would read as 1,024) is refused, joined or not.
roofline_cli_test(estimate_hex_isl ARGS estimate ${_est_glm} --isl=0x400 EXIT 2
    PASS "--isl: \"0x400\" is hexadecimal: numbers are read in decimal")
# CLI11 reads whole numbers in base 0 ("010" as 8) and skips blanks before a number (" 0x400"):
# both refused too.
roofline_cli_test(estimate_octal_dp ARGS estimate --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpu b200 --isl 1024 --osl 1024 --tp 1 --dp 010 --ep 8 --concurrency 256 EXIT 2
    PASS "--dp: \"010\" has a leading zero \\(read as octal\\): numbers are read in decimal")
roofline_cli_test(estimate_blank_hex_isl ARGS estimate --model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json
    --gpu b200 "--isl= 0x400" --osl 1024 --tp 1 --dp 8 --ep 8 --concurrency 256 EXIT 2
    PASS "--isl: \" 0x400\" is hexadecimal")
# Only numbers are refused in hex: a file named like one is a file (the check had scanned every
# word after an option).
roofline_cli_test(estimate_hex_like_file_name ARGS estimate --from-csv 0x1f --model-dir data/models EXIT 2
    PASS "error: 0x1f: cannot open")
# A rate under 10 tokens/s keeps three significant digits (4,096 GPUs serving one request had
# printed "0 tok/s per GPU").
roofline_cli_test(estimate_small_rate_digits ARGS estimate --model data/models/glm-5/config.json
    --quant data/models/glm-5/hf_quant_config.json --gpu b200 --isl 1024 --osl 1024 --tp 4096 --concurrency 1
    PASS "0\\.00112 tok/s per GPU   2\\.30 tok/s per user")
# A backend named like a mode: its decode/MODE/BACKEND key, not the other mode's decode/disagg
# read as an older table's decode/BACKEND.
roofline_cli_test(estimate_backend_named_like_mode ARGS estimate ${_est_glm}
    --efficiency tests/cli/data/efficiency_backend_named_disagg.json --backend disagg
    PASS "TTFT agg/disagg, TPOT decode/agg/disagg")
# One request on one GPU: singular words in the headline.
roofline_cli_test(estimate_singular_headline ARGS estimate --model data/models/llama-3.1-70b/config.json --quant fp8 --gpu h200
    --isl 1024 --osl 128 --tp 1 --concurrency 1 PASS "on 1 GPU of h200[^\n]* at 1 request in flight")
