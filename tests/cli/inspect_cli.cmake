# `roofline inspect` without --format: the format told from the content. Counts from the files:
# the gemm_power log has 255 sample rows; its trace 192 events, 30 of them GPU events.
roofline_cli_test(inspect_detect_smi ARGS inspect data/samples/h200/gemm_power/nvidia_smi.csv.gz
    PASS "\\(nvidia-smi\\): 255 samples of 1 GPU")
roofline_cli_test(inspect_detect_kineto ARGS inspect data/samples/h200/gemm_power/trace.json.gz
    PASS "\\(kineto\\): 30 GPU events.*192 read, 30 kept, 0 skipped")
roofline_cli_test(inspect_detect_unknown ARGS inspect data/models/glm-5/config.json EXIT 2)
# nvidia-smi dmon output is told from its "# gpu" header (issue 14).
roofline_cli_test(inspect_detects_dmon ARGS inspect tests/cli/data/dmon_h200.txt PASS "\\(nvidia-smi-dmon\\):.*records: 4 read, 4 kept")
