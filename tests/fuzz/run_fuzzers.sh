#!/usr/bin/env bash
# Runs the libFuzzer targets of a build (configured with -DROOFLINE_BUILD_FUZZERS=ON, clang++).
#
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS [JOBS] [TARGET...]
#
# Each target runs SECONDS (libFuzzer -max_total_time), JOBS targets at a time (default 2), with
# a 2 GiB RSS limit, a 10 s per-input timeout, its format's dictionary, and seeds prepared at run
# time from the repository's data and ../shared/samples (make_seeds.py). Inputs that add
# coverage accumulate in BUILD_DIR/fuzz-corpus/<target>/ (kept between runs); a crash, leak,
# timeout or sanitizer report leaves the input in BUILD_DIR/fuzz-artifacts/<target>/ and makes
# the script exit 1, printing the finding, the log's last lines and each input under 16 KiB as
# base64. Logs: BUILD_DIR/fuzz-logs/<target>.log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [JOBS] [TARGET...]}" && pwd)"
seconds="${2:?seconds}"
jobs="${3:-2}"
shift $(( $# >= 3 ? 3 : $# ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$build"/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$(basename "$f")"); done
fi
if [ ${#targets[@]} -eq 0 ]; then
    echo "no fuzz targets in $build/fuzz (configure with -DROOFLINE_BUILD_FUZZERS=ON and clang++)" >&2
    exit 2
fi

cli=""
for c in "$build/roofline" "$here/../../build/roofline"; do [ -x "$c" ] && cli="$c" && break; done
python3 "$here/make_seeds.py" "$build/fuzz-seeds" ${cli:+--cli "$cli"} > "$build/fuzz-seeds.log" || exit 2

dict_of() {  # target -> format dictionary (plus the JSON one for JSON formats)
    case "$1" in
        fuzz_kineto|fuzz_chrome_trace_scan) echo "json kineto" ;;
        fuzz_nsys_csv) echo "csv nsys" ;;
        fuzz_nsys_sqlite) echo "nsys_sqlite" ;;
        fuzz_ncu_csv) echo "csv ncu" ;;
        fuzz_nvidia_smi_csv) echo "csv nvidia_smi" ;;
        fuzz_nvidia_smi_dmon) echo "dmon" ;;
        fuzz_nccl_tests|fuzz_nccl_tests_json) echo "json nccl_tests" ;;
        fuzz_bench_json) echo "json bench" ;;
        fuzz_hf_config|fuzz_hf_quant_config) echo "json hf_config" ;;
        fuzz_gpu_json|fuzz_calibration) echo "json gpu_json" ;;
        fuzz_kernel_rules) echo "json kernel_rules" ;;
        fuzz_measurements) echo "json" ;;
        fuzz_input|fuzz_serving_runs_csv) echo "csv" ;;
        fuzz_serving_efficiency) echo "json" ;;
        *) echo "json" ;;
    esac
}

run_one() {
    local t="$1"
    local corpus="$build/fuzz-corpus/$t" seeds="$build/fuzz-seeds/$t" art="$build/fuzz-artifacts/$t"
    local dict="$build/fuzz-dicts/$t.dict" log="$build/fuzz-logs/$t.log"
    mkdir -p "$corpus" "$seeds" "$art" "$build/fuzz-dicts" "$build/fuzz-logs"
    : > "$dict"
    for d in $(dict_of "$t"); do cat "$here/dict/$d.dict" >> "$dict"; done
    "$build/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -dict="$dict" -artifact_prefix="$art/" -print_final_stats=1 "$corpus" "$seeds" > "$log" 2>&1
    local rc=$?
    local execs cov
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*')
    if [ $rc -eq 0 ]; then
        echo "$t: ok, ${execs:-?} inputs in ${seconds} s, coverage ${cov:-?} edges"
    else
        echo "$t: FAILED (exit $rc): see $log and $art/"
        # What broke, for a log that is all one has (CI): the finding's lines (sanitizer report,
        # failed fuzz check, uncaught exception, harness failure), the log's last lines, and each
        # crashing input under 16 KiB as base64 (`base64 -d > crash` reproduces it:
        # `BUILD_DIR/fuzz/TARGET crash`).
        grep -m6 -E 'ERROR|runtime error|Assertion|deadly|timeout|uncaught|terminate called|what\(\)|fuzz check failed|fuzz harness' "$log" | sed 's/^/    /'
        echo "    --- last lines of $log:"
        grep -v -E '^#[0-9]+|^"|^###' "$log" | tail -n 25 | sed 's/^/    /'
        for a in "$art"/*; do
            [ -f "$a" ] || continue
            local n
            n=$(wc -c < "$a")
            echo "    --- artifact $(basename "$a") ($n bytes)"
            if [ "$n" -le 16384 ]; then base64 -w 120 "$a" | sed 's/^/    /'; fi
            # Run alone once: a finding that does not come back on its own input depends on
            # state left by earlier inputs (or on the machine), which the log then says.
            local again
            again=$(timeout 120 "$build/fuzz/$t" -runs=1 -artifact_prefix="$build/fuzz-logs/$t-alone-" "$a" 2>&1)
            echo "    --- run alone: exit $?"
            echo "$again" | grep -m6 -E 'ERROR|runtime error|Assertion|deadly|terminate called|what\(\)|fuzz check failed|fuzz harness' | sed 's/^/    /'
        done
        echo "$t" >> "$failures"
    fi
}

failures="$build/fuzz-logs/failures.txt"
mkdir -p "$build/fuzz-logs"
: > "$failures"
for t in "${targets[@]}"; do
    if [ ! -x "$build/fuzz/$t" ]; then echo "$t: not built" >&2; echo "$t" >> "$failures"; continue; fi
    run_one "$t" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
done
wait
[ ! -s "$failures" ]
