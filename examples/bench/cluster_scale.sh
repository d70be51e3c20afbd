#!/usr/bin/env bash
# Cluster-trace scaling benchmark (README "Cluster traces"): N synthetic ranks of MB megabytes
# each, analysed by `roofline trace DIR -j JOBS`; prints, for each N, wall seconds, CPU seconds
# (user + system: what a loaded machine does not inflate), CPU seconds per rank and peak RSS
# (GNU time's maximum resident set size).
#
#   examples/bench/cluster_scale.sh BUILD_DIR [MB=100] [JOBS=2] [N...=8 16 32 64]
#
# The rank trace is the real B200 TP8 sample (../shared/samples/kineto, NCCL metadata included)
# repeated to MB megabytes with shifted times and ids (examples/bench/replicate_trace.py), its
# distributedInfo removed, then copied to rank-0.json ... rank-(N-1).json (rank from the file
# name); the copies are real files, read from the page cache when it holds them. Needs python3
# and GNU time (/usr/bin/time).
set -euo pipefail
build=${1:?usage: cluster_scale.sh BUILD_DIR [MB] [JOBS] [N...]}
mb=${2:-100}
jobs=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(8 16 32 64)
work=${CLUSTER_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
trap '[ -n "${CLUSTER_BENCH_KEEP:-}" ] || rm -rf "$work"' EXIT
src=${CLUSTER_BENCH_SOURCE:-$(dirname "$0")/../../../shared/samples/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz}
python3 "$(dirname "$0")/replicate_trace.py" "$src" "$work/one.json" "$mb" none >/dev/null
printf '%6s %6s %8s %8s %14s %12s\n' ranks jobs wall_s cpu_s cpu_s_per_rank peak_rss_MB
for n in "${counts[@]}"; do
    rm -rf "$work/ranks" && mkdir -p "$work/ranks"
    for ((r = 0; r < n; r++)); do cp "$work/one.json" "$work/ranks/rank-$r.json"; done
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$build/roofline" trace "$work/ranks" -j "$jobs" >"$work/report.txt"
    read -r wall user sys kb <"$work/time.txt"
    awk -v n="$n" -v j="$jobs" -v w="$wall" -v u="$user" -v s="$sys" -v kb="$kb" \
        'BEGIN { printf "%6d %6d %8.1f %8.1f %14.2f %12.1f\n", n, j, w, u + s, (u + s) / n, kb / 1024 }'
done
