#!/usr/bin/env bash
# Records the serving-stack traces of stack_traces.py (Kineto, and nsys for the decode runs), an
# ncu report of one eager decode step, and the two device-time kernel sweeps of
# examples/validation/h200_graph_sweep.py, on one H200. Each stage has its own time limit; a failing
# stage does not stop the others; $OUT/<stage>.tgz is re-packed after every step.
#
#   OUT=/some/dir bash examples/measure/run_stacks.sh [stage ...]
#   stages: env kineto nsys ncu ncu_b128 sweep_independent sweep_fit
#
# nsys needs libdw beside it (../shared/NSYS.md): the Debian packages libdw1 and libelf1 in .debs/.
# Clocks and power limits are never touched.
set +e
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PY:-python3}
OUT=${OUT:-$PWD/stacks_out}
RES=${RES:-/tmp/roofline_stacks}
START=$(date +%s)
DEADLINE=$((START + ${MEASURE_DEADLINE_S:-560}))
mkdir -p "$OUT" "$RES"
LOG=$RES/run_log.txt
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
say() { echo "=== [$(date +%H:%M:%S) +$(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
pack() {  # one archive per stage folder (each file that comes back must stay under 16 MiB)
    local d
    for d in "$RES"/*/; do
        d=$(basename "$d"); [ "$d" = libdw ] && continue
        tar -czf "$OUT/$d.tmp.tgz" -C "$RES" --exclude='*.nsys-rep' --exclude='*.qdstrm' "$d" && mv "$OUT/$d.tmp.tgz" "$OUT/$d.tgz"
    done
    cp "$LOG" "$OUT/run_log.txt"
    [ -f "$RES/environment.txt" ] && cp "$RES/environment.txt" "$OUT/"
}
run() {  # run LIMIT_S CMD...: at most LIMIT_S seconds, less if the deadline is near
    local limit=$1; shift
    local left=$((DEADLINE - $(date +%s) - 15))
    if [ "$left" -lt 15 ]; then say "skip: ${left}s left: $*"; return 1; fi
    [ "$limit" -gt "$left" ] && limit=$left
    say "run (limit ${limit}s): $*"
    timeout --signal=INT --kill-after=10 "$limit" "$@" 2>&1 | tail -n 25 | tee -a "$LOG"
    local rc=${PIPESTATUS[0]}
    say "rc=$rc"
    return $rc
}

NS=${NSYS:-/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys}
nsys_env() {
    local w=$RES/libdw
    if [ ! -d "$w" ]; then for f in "$ROOT"/.debs/*.deb; do dpkg -x "$f" "$w"; done; fi
    export LD_LIBRARY_PATH=$w/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
}

KINETO=${KINETO:-graph_decode_b8 graph_decode_b128 piecewise_decode eager_decode_b8 sdpa_flash_prefill fp8_gemm moe_grouped h2d_pinned h2d_pageable overlap_streams compile_block flex_prefill compile_autotune}
NSYS_RUNS=${NSYS_RUNS:-graph_decode_b8 graph_decode_b128 eager_decode_b8}

for stage in ${*:-env kineto nsys ncu sweep_independent sweep_fit}; do
    case $stage in
    env)
        say "stage env"
        { nvidia-smi; nvidia-smi -q -d POWER,CLOCK; nvidia-smi topo -m; $PY -c "import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())"; } > "$RES/environment.txt" 2>&1
        pack ;;
    kineto)
        for w in $KINETO; do
            lim=60; case $w in compile_autotune) lim=200;; compile_block|flex_prefill) lim=120;; esac
            run $lim $PY "$HERE/stack_traces.py" "$w" --out "$RES/kineto/$w" --seconds 3
            pack
        done ;;
    nsys)
        nsys_env
        for w in $NSYS_RUNS; do
            d=$RES/nsys/$w; mkdir -p "$d"
            run 90 "$NS" profile -t cuda,nvtx --sample=none --cpuctxsw=none --cuda-graph-trace=node \
                --capture-range=cudaProfilerApi --capture-range-end=stop -o "$d/run" --force-overwrite true \
                $PY "$HERE/stack_traces.py" "$w" --out "$d" --seconds 2 --nsys
            run 60 "$NS" export --type sqlite -o "$d/run.sqlite" --force-overwrite true "$d/run.nsys-rep"
            run 60 "$NS" stats --force-export=false -r cuda_gpu_trace,cuda_gpu_kern_sum -f csv -o "$d/run" "$d/run.sqlite"
            rm -f "$d/run.nsys-rep"
            pack
        done ;;
    ncu)
        d=$RES/ncu/eager_decode_b8; mkdir -p "$d"
        run 180 bash -c "ncu --clock-control none --profile-from-start off --section SpeedOfLight \
            --section SpeedOfLight_RooflineChart --section MemoryWorkloadAnalysis --section LaunchStats \
            --section Occupancy --csv --page raw $PY '$HERE/stack_traces.py' eager_decode_b8 --out '$d' \
            --seconds 0.5 --steps 1 --nsys > '$d/ncu_raw.csv' 2> '$d/ncu_stderr.txt'"
        pack ;;
    ncu_b128)
        # One CUDA-graph decode step at batch 128, every graph node profiled as its own kernel:
        # Nsight Compute's own SOL for the attention kernel whose verdict `trace` and the
        # recording's README disagree on (data/samples/h200-stacks/ncu-graph_decode_b128/).
        d=$RES/ncu/graph_decode_b128; mkdir -p "$d"
        run 240 bash -c "ncu --clock-control none --profile-from-start off --graph-profiling node --section SpeedOfLight \
            --section SpeedOfLight_RooflineChart --section MemoryWorkloadAnalysis --section LaunchStats \
            --section Occupancy --csv --page raw $PY '$HERE/stack_traces.py' graph_decode_b128 --out '$d' \
            --seconds 0.5 --steps 1 --nsys > '$d/ncu_raw.csv' 2> '$d/ncu_stderr.txt'"
        pack ;;
    sweep_independent)
        mkdir -p "$RES/sweep"
        run 200 $PY "$ROOT/examples/validation/h200_graph_sweep.py" --set independent --out "$RES/sweep/kernels_independent.json"
        pack ;;
    sweep_fit)
        mkdir -p "$RES/sweep"
        run 240 $PY "$ROOT/examples/validation/h200_graph_sweep.py" --set fit --out "$RES/sweep/kernels_fit_device_time.json"
        pack ;;
    esac
done
say "done"
pack
