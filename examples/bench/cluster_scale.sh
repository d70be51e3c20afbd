#!/usr/bin/env bash
# Cluster-trace scaling benchmark (README "Cluster traces"): N synthetic ranks of MB megabytes
# each, analysed by `roofline trace DIR -j JOBS`; prints ranks, wall seconds, seconds per rank
# and peak RSS (GNU time's maximum resident set size) for each N.
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
printf '%6s %6s %10s %12s %12s\n' ranks jobs wall_s s_per_rank peak_rss_MB
for n in "${counts[@]}"; do
    rm -rf "$work/ranks" && mkdir -p "$work/ranks"
    for ((r = 0; r < n; r++)); do cp "$work/one.json" "$work/ranks/rank-$r.json"; done
    /usr/bin/time -f '%e %M' -o "$work/time.txt" "$build/roofline" trace "$work/ranks" -j "$jobs" >"$work/report.txt"
    read -r wall kb <"$work/time.txt"
    awk -v n="$n" -v j="$jobs" -v w="$wall" -v kb="$kb" 'BEGIN { printf "%6d %6d %10.1f %12.2f %12.1f\n", n, j, w, w / n, kb / 1024 }'
done
