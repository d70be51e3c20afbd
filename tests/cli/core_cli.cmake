roofline_cli_test(roof_h200 ARGS roof --gpu h200-sxm --dtype bf16 PASS "ridge 206 FLOP/byte")
roofline_cli_test(roof_unknown_gpu ARGS roof --gpu h300 --dtype bf16 EXIT 2)
roofline_cli_test(roof_unknown_dtype ARGS roof --gpu h200-sxm --dtype fp3 EXIT 2)
