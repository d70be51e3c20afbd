# End-to-end tests of `roofline calibrate` and of `--calibration` in kernel, roof and analyze.
set(_m data/measurements/h200)
set(_v data/validation)
set(_cal data/calibration/h200-sxm.json)
set(_smi_fields timestamp,power.draw,enforced.power.limit,clocks.sm,clocks.max.sm,clocks_event_reasons.sw_power_cap)
set(_out ${CMAKE_CURRENT_BINARY_DIR}/calibrate_cli_out.json)

# --- calibrate: the recorded H200 data (data/calibration/make.sh without --created-utc) ------------
roofline_cli_test(calibrate_h200 ARGS calibrate ${_m}/kernels.json ${_m}/ceilings.json ${_m}/allreduce_2gpu.json
    ${_m}/kernels_nvidia_smi.csv.gz ${_m}/ceilings_nvidia_smi.csv.gz ${_v}/h200_power_phases.json
    ${_v}/h200_power_smi.csv.gz --smi-fields ${_smi_fields} --link nvlink --gpu h200-sxm -o ${_out}
    PASS "measured on: h200-sxm \\(NVIDIA H200, 132 SMs.*grouped_gemm +bf16 +60 .*link nvlink \\(all_reduce over 2 ranks, 21 sizes\\).*power \\(11 steady samples\\)")
roofline_cli_test(calibrate_h200_json ARGS calibrate ${_m}/kernels.json --gpu h200-sxm -o ${_out} --json --folds 0
    PASS "\"schema\": \"roofline.calibration/1\".*\"family\": \"attention_decode\"")
# A trace recorded with shapes: 12 bf16 GEMMs of 16384^3 linked to their aten::mm (kernels of
# 12.30-12.77 ms) set the bf16 ceiling: at most 2 x 16384^3 / 12.30 ms = 715 TFLOP/s.
roofline_cli_test(calibrate_trace ARGS calibrate data/samples/h200/gemm_power/trace.json.gz --gpu h200-sxm -o ${_out}
    PASS "bf16 +7[01][0-9] TFLOP/s +max over 12 measurement")
# Shared samples: five kernels profiled by ncu (bf16 GEMM: 1.1167e12 FLOP in 1.3857 ms at
# 1597 MHz = 3822 FLOP per SM per clock, 93% of 4096) and nccl-tests on 16 H100s (two nodes).
set(_shared ${PROJECT_SOURCE_DIR}/../shared/samples)
if(EXISTS ${_shared}/h200/h200_ncu_raw_5_kernels.csv.gz)
    roofline_cli_test(calibrate_ncu ARGS calibrate ${_shared}/h200/h200_ncu_raw_5_kernels.csv.gz --gpu h200-sxm -o ${_out}
        PASS "best per clock 3822 FLOP per SM per clock at 1597 MHz \\(93% of the dense 4096\\)")
endif()
# 16 ranks on two hosts (ztan-mig-235z, ztan-mig-gq73, 8 each, read from the rank lines): the
# ring's slowest hop is the network, so the sweep is fitted as the network link, never NVLink;
# --link nvlink is refused, and H100 collectives do not calibrate an H200.
if(EXISTS ${_shared}/nccl/all_reduce_perf_2x8xH100.txt)
    roofline_cli_test(calibrate_nccl_two_hosts ARGS calibrate ${_shared}/nccl/all_reduce_perf_2x8xH100.txt --gpu h100-sxm -o ${_out}
        PASS "link network \\(all_reduce over 16 ranks.*on 2 hosts \\(16 ranks, read from the file's rank lines\\) fitted as the network link")
    roofline_cli_test(calibrate_nccl_two_hosts_nvlink ARGS calibrate ${_shared}/nccl/all_reduce_perf_2x8xH100.txt --gpu h100-sxm
        --link nvlink -o ${_out} EXIT 2 PASS "runs its ranks on 2 hosts: its collectives cross the network, not nvlink")
    # The overlay it writes, priced back (models/collective.hpp): the fitted flat ring (30 steps x
    # 2.70 us + 62.1 us, 2 x 15/16 x 1 GiB / 273.5 GB/s) predicts 7.503 ms for the measured
    # 6.759 ms; the datasheet bound is the 2 x 8 hierarchy, 4.191 ms, below both (the flat ring
    # over the NICs it replaces was 40.274 ms, above both). On 8 ranks the overlay's network
    # link does not apply, and a note says so.
    set(_net ${CMAKE_CURRENT_BINARY_DIR}/calibrate_cli_network.json)
    roofline_cli_test(calibrate_nccl_two_hosts_overlay ARGS calibrate ${_shared}/nccl/all_reduce_perf_2x8xH100.txt
        --gpu h100-sxm -o ${_net} PASS "beta 273.5 GB/s")
    set_tests_properties(cli_calibrate_nccl_two_hosts_overlay PROPERTIES FIXTURES_SETUP h100_network_overlay)
    roofline_cli_test(kernel_collective_two_hosts_calibrated ARGS kernel collective --op all_reduce --bytes 1073741824
        --ranks 16 --gpu h100-sxm --link network --calibration ${_net}
        PASS "\\(ring\\) on h100-sxm: predicted 7.503 ms \\(communication-bound\\); lower bound 4.191 ms")
    roofline_cli_test(kernel_collective_overlay_link_unused ARGS kernel collective --op all_reduce --bytes 1073741824
        --ranks 8 --gpu h100-sxm --calibration ${_net}
        PASS "the calibration's network link \\(all_reduce over 16 ranks\\) was not used: this collective is priced over nvlink")
    set_tests_properties(cli_kernel_collective_two_hosts_calibrated cli_kernel_collective_overlay_link_unused
        PROPERTIES FIXTURES_REQUIRED h100_network_overlay)
    roofline_cli_test(calibrate_nccl_wrong_gpu ARGS calibrate ${_shared}/nccl/all_reduce_perf_2x8xH100.txt --gpu h200-sxm
        -o ${_out} EXIT 2 PASS "measured on \"NVIDIA H100 80GB HBM3\", not on h200-sxm")
endif()
# A single ncu GEMV (2.3 MB from DRAM, 0.35 TB/s of the RTX 5090's 1.79 TB/s) saturates nothing:
# it is refused as a DRAM ceiling, with the reason, and with nothing left calibrate is exit 2.
if(EXISTS ${_shared}/ncu/rtx5090_gemv_kernel0001.details.csv)
    roofline_cli_test(calibrate_gemv_refused ARGS calibrate ${_shared}/ncu/rtx5090_gemv_kernel0001.details.csv
        --gpu rtx-5090 -o ${_out} EXIT 2 PASS "nothing to fit.*dram_bytes_per_s: refused 1 of 1 measurement.*under 4x the")
endif()
# Bad input: an unrecognised file, a header-less nvidia-smi log without its fields, no output.
roofline_cli_test(calibrate_unknown_input ARGS calibrate README.md --gpu h200-sxm -o ${_out} EXIT 2)
# An H200 trace calibrated as a B200: its deviceProperties name the GPU, so exit 2 naming both.
roofline_cli_test(calibrate_trace_of_another_gpu ARGS calibrate data/samples/h200/gemm_power/trace.json.gz --gpu b200 -o ${_out} EXIT 2
                  PASS "calibrate --gpu b200: [^ ]*trace\\.json\\.gz was measured on \"NVIDIA H200\", not on b200")
roofline_cli_test(calibrate_headerless_smi ARGS calibrate ${_v}/h200_power_smi.csv.gz --gpu h200-sxm -o ${_out} EXIT 2)
roofline_cli_test(calibrate_no_output ARGS calibrate ${_m}/kernels.json --gpu h200-sxm EXIT 2)
roofline_cli_test(calibrate_bad_folds ARGS calibrate ${_m}/kernels.json --gpu h200-sxm -o ${_out} --folds 1 EXIT 2)
roofline_cli_test(calibrate_malformed ARGS calibrate tests/cli/data/calibration_malformed.json --gpu h200-sxm -o ${_out} EXIT 2)

# --- kernel with the committed calibration ---------------------------------------------------------
# gemm curve (bf16, nvjet, fitted to device time): t_fixed 3.049 us, phi 342,686 FLOP/clock,
# W 4.149 TB/s. 4096^3 at 1440 MHz: 1.3744e11 / (342686 x 1.44e9) = 278.52 us (> 100.66 MB /
# 4.149 TB/s = 24.3 us) + 3.05 us = 281.6 us (`kernel` knows no cuBLAS tile: useful FLOP). The
# sweep recorded no clocks, so phi assumes 1980 MHz and the text says what that costs.
roofline_cli_test(kernel_gemm_calibrated_clock ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --calibration ${_cal} --sm-clock-mhz 1440 PASS "predicted 281.6 us \\(compute-bound\\).*the fitted records had no clock")
# Without a clock: the curve's records carried none, so its rates are those measured under the
# sweep's 700 W limit and the power model does not lower the clock again: 1.3744e11 /
# (342686 x 1.98e9) + 3.05 us = 205.6 us; measured 196.6 us (2026-12-01), 203.6 and 181.2 us
# (2026-12-03). With the power model's 1615 MHz it priced 251.4 us, 28% slow.
roofline_cli_test(kernel_gemm_calibrated_power ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --calibration ${_cal} PASS "predicted 205.6 us .*at 1980 MHz \\(the fitted sweep's own clocks: it recorded none")
# Decode attention at batch 1 (flash curve, device time): 8 CTAs, 32 key blocks, so FA2 splits
# the keys and runs its combine kernel: 0.94 us + 10.59 us + 16.79 MB / 4.194 TB/s = 15.5 us
# (measured 18.8 us at B=1, L=4096 in the fitted sweep); no eager per-call floor inside (the old
# host-timed fit priced 91.8 us).
roofline_cli_test(kernel_attention_calibrated_device ARGS kernel attention --batch 1 --q-len 1 --kv-len 4096 --heads 32
    --kv-heads 8 --head-dim 128 --dtype bf16 --gpu h200-sxm --calibration ${_cal}
    PASS "predicted 15.5 us")
# The calibration has no cuDNN decode curve: a cuDNN kernel is priced at the calibrated ceilings, and said.
roofline_cli_test(kernel_attention_calibrated_cudnn ARGS kernel attention --batch 1 --q-len 1 --kv-len 4096 --heads 32
    --kv-heads 8 --head-dim 128 --dtype bf16 --gpu h200-sxm --calibration ${_cal} --backend cudnn
    PASS "no curve for backend cudnn")
# MoE: gate_up and down priced by the grouped curve.
roofline_cli_test(kernel_moe_calibrated ARGS kernel moe --tokens 64 --experts 64 --topk 4 --hidden 4096 --inter 1536
    --dtype bf16 --gpu h200-sxm --calibration ${_cal} --json PASS "\"name\": \"gate_up\".*\"name\": \"down\"")
# Collective: the fitted NVLink beta 333.9 GB/s with NCCL's latency (1 step x 0.47 us + 3.6 us
# base; the sweep's 36.8 us a call is a host floor, not the link's: calibrate's host_floor_s).
roofline_cli_test(kernel_collective_calibrated ARGS kernel collective --op all_reduce --bytes 268435456 --ranks 2
    --gpu h200-sxm --calibration ${_cal} PASS "1 steps x 0.47 us [+] 3.6 us base; algbw 332.2 GB/s")
# ... and the datasheet lower bound stays: one-shot, 3.6 + 0.47 us + 268435456 B / 450 GB/s = 600.6 us.
roofline_cli_test(kernel_collective_calibrated_lower_bound ARGS kernel collective --op all_reduce --bytes 268435456
    --ranks 2 --gpu h200-sxm --calibration ${_cal} PASS "lower bound 600.6 us.*predicted by the calibration.*datasheet link \\(the lower bound\\): 600.6 us")
roofline_cli_test(kernel_bad_clock ARGS kernel gemm --m 1 --n 1 --k 1 --dtype bf16 --gpu h200-sxm
    --calibration ${_cal} --sm-clock-mhz -5 EXIT 2)

# --- roof and analyze -------------------------------------------------------------------------------
# Calibrated ceilings: bf16 759 TFLOP/s (a 4096^3 GEMM of a 2026-12-03 fit recording), DRAM
# 4.30 TB/s: ridge 759e12 / 4.296e12 = 177 FLOP/B.
roofline_cli_test(roof_calibrated ARGS roof --gpu h200-sxm --dtype bf16 --calibration ${_cal}
    PASS "bf16 peak 759 TFLOP/s, DRAM 4.30 TB/s, ridge 177 FLOP/byte")
roofline_cli_test(roof_calibration_missing ARGS roof --gpu h200-sxm --calibration no-such.json EXIT 2)
# An overlay holds for the GPU it measured: the H200 one on a B200 analysis is exit 2 naming both
# (it once changed the B200's 19,041 tok/s to 11,420 without a word), as on every pricing command.
roofline_cli_test(analyze_b200_h200_calibration ARGS analyze data/samples/h200-serving/bench.jsonl --gpu b200 --count 1
    --model data/samples/h200-serving/config.json --calibration ${_cal}
    EXIT 2 PASS "h200-sxm.json was measured on h200-sxm \\(NVIDIA H200, 132 SMs.*not on b200 \\(NVIDIA HGX B200")
roofline_cli_test(kernel_b200_h200_calibration ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu b200
    --calibration ${_cal} EXIT 2 PASS "not on b200")
roofline_cli_test(roof_b200_h200_calibration ARGS roof --gpu b200 --dtype bf16 --calibration ${_cal} EXIT 2 PASS "not on b200")
# JSON that is not an overlay: a model config, and {"foo": 1}.
roofline_cli_test(kernel_calibration_model_config ARGS kernel gemm --m 1 --n 1 --k 1 --dtype bf16 --gpu h200-sxm
    --calibration data/samples/h200-serving/config.json EXIT 2 PASS "not a calibration overlay")
roofline_cli_test(roof_calibration_foo ARGS roof --gpu h200-sxm --calibration tests/cli/data/calibration_foo.json
    EXIT 2 PASS "not a calibration overlay")
# calibrate refuses files measured on another GPU than --gpu.
roofline_cli_test(calibrate_wrong_gpu ARGS calibrate ${_m}/ceilings.json --gpu b200 -o ${_out}
    EXIT 2 PASS "ceilings.json was measured on \"NVIDIA H200\", not on b200")
roofline_cli_test(analyze_h200_calibrated ARGS analyze data/samples/h200-serving/bench.jsonl --gpu h200-sxm --count 1
    --model data/samples/h200-serving/config.json --calibration ${_cal} --json
    PASS "\"ceilings\": \"datasheet; modeled: calibrated: data/calibration/h200-sxm.json")
# From the ceiling microbenchmarks and the sweep alone every compute sample sits at the 700 W cap:
# the power fit would be a constant, so it is left out and the note says why.
roofline_cli_test(calibrate_power_degenerate ARGS calibrate ${_m}/kernels.json ${_m}/ceilings.json ${_m}/allreduce_2gpu.json
    ${_m}/kernels_nvidia_smi.csv.gz --link nvlink --gpu h200-sxm -o ${CMAKE_CURRENT_BINARY_DIR}/calibrate_degenerate.json
    PASS "power not fitted: the 7 steady samples do not separate static from dynamic power")

# --- overlays and clocks that cannot be right (a new user's break test, 2026-12-03) -------------
# The overlay written over one of its inputs would destroy the measurement: exit 2.
roofline_cli_test(calibrate_output_is_input ARGS calibrate ${_out} --gpu h200-sxm -o ${_out} EXIT 2
    PASS "is one of the input files")
# A clock above the GPU's maximum would price a kernel under its speed of light: exit 2.
roofline_cli_test(kernel_clock_above_max ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --calibration ${_cal} --sm-clock-mhz 3000 EXIT 2 PASS "above h200-sxm's maximum SM clock of 1980 MHz")
roofline_cli_test(roof_clock_above_max ARGS roof --gpu h200-sxm --sm-clock-mhz 3000 EXIT 2 PASS "maximum SM clock")
# Without --calibration the clock changes nothing, and the note says so.
roofline_cli_test(kernel_clock_without_calibration ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --sm-clock-mhz 1500 PASS "predicted 186.2 us.*without --calibration it changes nothing")
# A hand-edited overlay whose bf16 ceiling is 1 EFLOP/s (the H200's datasheet: 989 TFLOP/s): exit 2 naming the key.
roofline_cli_test(kernel_overlay_above_datasheet ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --calibration tests/cli/data/calibration_above_datasheet.json EXIT 2
    PASS "\"ceilings.bf16\": 1e\\+06 TFLOP/s, above the datasheet's 989 TFLOP/s")
# plan with an overlay of a GPU none of --gpus is: exit 2 naming both (it was silently ignored).
roofline_cli_test(plan_overlay_of_another_gpu ARGS plan --model data/models/llama-3.1-70b/config.json --quant bf16 --gpus b200
    --counts 8 --isl 1024 --osl 256 --concurrency 16 --calibration ${_cal} EXIT 2 PASS "not on b200")
# A GEMM record of an unknown dtype is an error naming the record (it was fitted as bf16).
roofline_cli_test(calibrate_unknown_gemm_dtype ARGS calibrate tests/cli/data/kernel_sweep_bad_dtype.json --gpu h200-sxm
    -o ${_out} EXIT 2 PASS "kernel_sweep_bad_dtype.json: record 2: \"dtype\": unknown dtype \"bf17\" for op gemm")
# A truncated sweep (the first 2,000 bytes of kernels_independent.json) is its JSON error with the
# place, not "not a recognised measurement file".
roofline_cli_test(calibrate_truncated_sweep ARGS calibrate tests/cli/data/kernel_sweep_truncated.json --gpu h200-sxm
    -o ${_out} EXIT 2 PASS "kernel_sweep_truncated.json: line 27, column [0-9]+: malformed JSON")
# The 2-rank all-reduce fit applied to an 8-rank all-to-all: said, and named in the ceilings used.
roofline_cli_test(kernel_collective_calibrated_other_op ARGS kernel collective --op all_to_all --bytes 10000000 --ranks 8
    --gpu h200-sxm --calibration ${_cal}
    PASS "fitted to all_reduce over 2 ranks; applied to all_to_all over 8 ranks.*ceilings used: datasheet \\+ measured L2 \\+ calibrated link")

# --- calibrated and datasheet kept apart, backends, inputs and fits said (a user's break test) -------
# roof: every row says where it comes from; at 1900 MHz the bf16 roof is held at the calibrated
# 759 TFLOP/s (479,192 FLOP per clock x 1900 MHz = 910 TFLOP/s would exceed what was measured),
# at 1410 MHz 479,192 x 1.41e9 = 676 TFLOP/s; --json carries the same roofs.
roofline_cli_test(roof_calibrated_origins ARGS roof --gpu h200-sxm --dtype bf16 --calibration ${_cal}
    PASS "fp16 +989 TFLOP/s +datasheet .*bf16 \\* +759 TFLOP/s +calibrated .*DRAM \\(HBM3e\\) +4.30 TB/s +calibrated")
roofline_cli_test(roof_calibrated_clock_held ARGS roof --gpu h200-sxm --dtype bf16 --calibration ${_cal} --sm-clock-mhz 1900
    PASS "bf16 at 1900 MHz \\(held at the calibrated ceiling\\): 759 TFLOP/s; ridge 177 FLOP/B")
roofline_cli_test(roof_calibrated_clock_capped ARGS roof --gpu h200-sxm --dtype bf16 --calibration ${_cal} --sm-clock-mhz 1410
    PASS "bf16 at 1410 MHz \\(power cap, calibrated\\): 676 TFLOP/s; ridge 157 FLOP/B")
roofline_cli_test(roof_calibrated_clock_json ARGS roof --gpu h200-sxm --dtype bf16 --calibration ${_cal} --sm-clock-mhz 1900 --json
    PASS "\"at_sm_clock\": {\n +\"roofs\": \\[\n +{\n +\"ceiling_flops_per_s\": 758669617249391[.0-9]*,.*\"flops_per_s\": 758669617249391[.0-9]*,\n +\"from\": \"calibrated\",\n +\"held_at_ceiling\": true")
roofline_cli_test(roof_calibrated_csv ARGS roof --gpu h200-sxm --dtype bf16 --calibration ${_cal} --sm-clock-mhz 1410 --csv
    PASS "h200-sxm,fp16,tensor,989000000000000,FLOP/s,[0-9.]+,[0-9.]+,datasheet.*h200-sxm,bf16@1410MHz,at_clock,6756[0-9.]+,FLOP/s,[0-9.]+,[0-9.]+,calibrated")
# kernel --backend: cuBLAS's nvjet kernels are cuBLAS, in any case (205.6 us: the nvjet curve, as
# without --backend); a backend the op does not run on is exit 2 naming the accepted ones.
roofline_cli_test(kernel_gemm_backend_cublas ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --calibration ${_cal} --backend cuBLAS PASS "predicted 205.6 us .*predicted by the calibrated curve")
roofline_cli_test(kernel_gemm_backend_flash ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --gpu h200-sxm
    --calibration ${_cal} --backend flash EXIT 2
    PASS "unknown backend \"flash\" for gemm \\(accepted: nvjet, cublas, cutlass, triton; any case\\)")
roofline_cli_test(kernel_moe_backend_nvjet ARGS kernel moe --tokens 64 --experts 64 --topk 4 --hidden 4096 --inter 1536
    --dtype bf16 --gpu h200-sxm --backend nvjet EXIT 2 PASS "for moe \\(accepted: cutlass, triton; any case\\)")
roofline_cli_test(kernel_copy_backend ARGS kernel copy --bytes 1000000 --gpu h200-sxm --backend cublas EXIT 2
    PASS "kernel copy: --backend cublas: a copy has no backend to choose")
# An overlay without an fp16 GEMM curve or ceiling: said, naming what it has, in text and JSON.
roofline_cli_test(kernel_gemm_fp16_no_curve ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype fp16 --gpu h200-sxm
    --calibration ${_cal}
    PASS "h200-sxm.json has no gemm curve for fp16 \\(gemm curves: bf16/nvjet, fp8/nvjet\\): gemm priced uncalibrated, at the datasheet fp16 peak x efficiency")
roofline_cli_test(kernel_gemm_fp16_no_curve_json ARGS kernel gemm --m 4096 --n 4096 --k 4096 --dtype fp16 --gpu h200-sxm
    --calibration ${_cal} --json
    PASS "\"uncalibrated_parts\": \\[\n +{\n +\"backend\": \"\",\n +\"ceiling\": \"datasheet\",\n +\"family\": \"gemm\",\n +\"name\": \"gemm\",\n +\"overlay_curves\": \\[\n +\"bf16/nvjet\",\n +\"fp8/nvjet\"\n +\\],\n +\"peak\": \"fp16\"")
# calibrate: an input given twice counts once, and the report says so; an nvidia-smi log it
# cannot use says why (no power-phase file to align with; its idle samples at the maximum clock
# follow busy ones within NVML's one-second average), and with nothing else the error does.
roofline_cli_test(calibrate_duplicate_input ARGS calibrate ${_m}/ceilings.json ${_m}/ceilings.json --gpu h200-sxm -o ${_out}
    PASS "ceilings.json \\[roofline.ceilings/1\\]: 15 records read, 13 used\n  [^ ]*ceilings.json \\[roofline.ceilings/1\\]: 0 records read, 0 used: given again: used once.*max over 3 measurement")
roofline_cli_test(calibrate_smi_unusable ARGS calibrate ${_m}/kernels_nvidia_smi.csv.gz --gpu h200-sxm -o ${_out} EXIT 2
    PASS "kernels_nvidia_smi.csv.gz \\[nvidia-smi CSV\\]: 221 records read, 0 used: an nvidia-smi log of 221 samples with values for timestamp, power.draw, enforced.power.limit, clocks.sm, clocks.max.sm, utilization.gpu; no power-phase file among the inputs")
# The power fit of the recorded data: its largest residual, 74.5 W, is 12.3% of the 608 W its
# samples span: flagged unreliable in the report and in the overlay (power.fit.unreliable).
set(_power_inputs ${_m}/ceilings.json ${_m}/ceilings_nvidia_smi.csv.gz ${_v}/h200_power_phases.json ${_v}/h200_power_smi.csv.gz
    --smi-fields ${_smi_fields} --gpu h200-sxm -o ${CMAKE_CURRENT_BINARY_DIR}/calibrate_power.json)
roofline_cli_test(calibrate_power_unreliable ARGS calibrate ${_power_inputs}
    PASS "residual rms 45.6 W \\(7.5% of the 608 W range of the samples\\), max 74.5 W \\(12.3%\\); UNRELIABLE: max above 10% of the range.*note: power model unreliable")
roofline_cli_test(calibrate_power_unreliable_json ARGS calibrate ${_power_inputs} --json
    PASS "\"power_range_w\": 607.66[0-9]*,\n +\"rms_fraction_of_range\": 0.0749[0-9]*,\n +\"max_abs_fraction_of_range\": 0.1226[0-9]*,\n +\"unreliable_above_fraction\": 0.1,\n +\"unreliable\": true")
# The bundled H200 overlay's power fit is flagged unreliable (max residual 12% of its range):
# plan, which prices power-capped clocks from it, says so; analyze and trace say it is unused.
roofline_cli_test(plan_calibration_power_unreliable ARGS plan --model data/samples/h200-serving/config.json --gpus h200-sxm
    --counts 1 --isl 1024 --osl 512 --concurrency 256 --calibration ${_cal}
    PASS "h200-sxm: the calibration's power model is flagged unreliable \\(its largest residual, 75 W, is[ \n]+12% of the 608 W its 11 samples span\\): clocks and throughput under a power limit")
roofline_cli_test(analyze_calibration_power_unreliable ARGS analyze data/samples/h200-serving/bench.jsonl --gpu h200-sxm
    --count 1 --model data/samples/h200-serving/config.json --calibration ${_cal}
    PASS "the calibration's power model is flagged unreliable \\([^)]*\\): analyze does not use it")
roofline_cli_test(trace_calibration_power_unreliable ARGS trace data/samples/h200/gemm_power/trace.json.gz
    --calibration ${_cal} PASS "the calibration's power model is flagged unreliable \\([^)]*\\): trace does not use")
