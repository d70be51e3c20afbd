# `roofline roof`: ceilings, ridge points, JSON keys, chart files, bad input.
# H100 SXM: 989 TFLOP/s bf16 over 3.35 TB/s = 295.2 FLOP/byte.
roofline_cli_test(roof_h100 ARGS roof --gpu h100-sxm --dtype bf16 PASS "ridge 295 FLOP/byte")
# fp8 on H200: 1979 / 4.8 = 412.3 FLOP/byte; the tables list the other rate classes too.
roofline_cli_test(roof_h200_fp8 ARGS roof --gpu h200-sxm --dtype fp8 PASS "fp8_e4m3 peak 1.98 PFLOP/s, DRAM 4.80 TB/s, ridge 412 FLOP/byte")
roofline_cli_test(roof_tables ARGS roof --gpu h200-sxm --dtype bf16 PASS "fp64 \\(vector\\) +34.0 TFLOP/s")
roofline_cli_test(roof_json ARGS roof --gpu h200-sxm --dtype bf16 --json
                  PASS "\"ridge_point_flop_per_byte\": 206.04")
roofline_cli_test(roof_csv ARGS roof --gpu h200-sxm --dtype bf16 --csv PASS "h200-sxm,bf16,tensor,989000000000000,FLOP/s,206.04")
roofline_cli_test(roof_power_cap ARGS roof --gpu h200-sxm --dtype bf16 --sm-clock-mhz 1410
                  PASS "bf16 at 1410 MHz \\(power cap\\): 762 TFLOP/s")
roofline_cli_test(roof_svg ARGS roof --gpu h200-sxm --dtype bf16 --svg ${CMAKE_CURRENT_BINARY_DIR}/roof_cli_test.svg
                  PASS "wrote .*roof_cli_test.svg")
# Hopper has no FP4 tensor cores; an unwritable chart path is bad input too.
roofline_cli_test(roof_fp4_on_hopper ARGS roof --gpu h200-sxm --dtype nvfp4 EXIT 2)
roofline_cli_test(roof_svg_unwritable ARGS roof --gpu h200-sxm --svg /nonexistent-dir/roof.svg EXIT 2)
roofline_cli_test(roof_json_and_csv ARGS roof --gpu h200-sxm --json --csv EXIT 2)
# --gpu-file works on roof as on every command that takes --gpu: the lab GPU's ridge is
# 756 TFLOP/s / 2 TB/s = 378 FLOP/B.
roofline_cli_test(roof_gpu_file ARGS roof --gpu lab-gpu --gpu-file tests/cli/data/gpu_overlay_lab.json PASS "378")
# GB10's bf16 peak is unpublished: without --dtype the headline is the first dtype whose peak is known.
roofline_cli_test(roof_gb10_default_dtype ARGS roof --gpu gb10 PASS "has no published bf16 peak; showing")
# V100 has no bf16 tensor math: the default headline is fp16 (NVIDIA V100 datasheet: 125 TFLOP/s
# SXM2 tensor), not an exit.
roofline_cli_test(roof_v100_default_dtype ARGS roof --gpu v100-sxm2-32gb PASS "has no bf16 tensor math; showing fp16")
roofline_cli_test(roof_gb10_bf16_asked ARGS roof --gpu gb10 --dtype bf16 EXIT 2)
