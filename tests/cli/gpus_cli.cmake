# End-to-end tests of `roofline gpus`: the table, --compare, --json and --gpu-file.
roofline_cli_test(gpus_table ARGS gpus PASS "rtx-pro-6000-maxq +12.0 +188")
roofline_cli_test(gpus_table_b200_ridge ARGS gpus PASS "b200 +10.0 +148 +192 +7.67\\* +126.5 +227 +1000")
roofline_cli_test(gpus_json ARGS gpus --json PASS "\"id\": \"rtx-pro-6000-maxq\"")
roofline_cli_test(gpus_json_compare ARGS gpus --json --compare b200,gb200 PASS "\"power_limit_w\": 1200")
# The 600 W Workstation Edition beside the 300 W Max-Q, with the source of each.
roofline_cli_test(gpus_compare_power ARGS gpus --compare rtx-pro-6000,rtx-pro-6000-maxq
                  PASS "power limit W +600  \\[S15\\] +300  \\[S15\\]")
roofline_cli_test(gpus_compare_sources ARGS gpus --compare b200,gb200 PASS "\\[C10\\] Field case C10")
roofline_cli_test(gpus_compare_unknown_id ARGS gpus --compare b200,h300 EXIT 2)
roofline_cli_test(gpus_compare_empty_id ARGS gpus --compare b200, EXIT 2)
roofline_cli_test(gpus_file_malformed ARGS gpus --gpu-file tests/cli/data/gpu_overlay_malformed.json EXIT 2)
roofline_cli_test(gpus_file_missing ARGS gpus --gpu-file tests/cli/data/no_such_file.json EXIT 2)
roofline_cli_test(gpus_file_human_units ARGS gpus --gpu-file tests/cli/data/gpu_overlay_human_units.json EXIT 2)
roofline_cli_test(gpus_file_overlay ARGS gpus --gpu-file tests/cli/data/gpu_overlay_lab.json --compare lab-gpu,b200
                  PASS "memory TB/s +2.000  user file tests/cli/data/gpu_overlay_lab.json +6.000  measured")
