#!/usr/bin/env bash
# Records everything examples/measure/ measures, in one go, on a machine with two H200 GPUs
# (single-GPU stages use GPU 0). Each stage is independent: a failing or slow stage is cut off
# by its own time limit and the others still run. After every stage the results gathered so far
# are packed into $OUT/results.tgz (so a run stopped early still returns what it finished).
#
#   OUT=/some/dir bash examples/measure/run_all.sh [stage ...]
#   stages: env sweep ceilings serving traces allreduce   (default: all, in this order)
#
# Environment: PY (python with torch; default python3), MEASURE_DEADLINE_S (total seconds,
# default 540), MEASURE_BIN (a prebuilt measure_ceilings; else it is built here with nvcc).
set +e
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-python3}
OUT=${OUT:-$PWD/measure_out}
RES=${RES:-/tmp/roofline_measure}
START=$(date +%s)
DEADLINE=$((START + ${MEASURE_DEADLINE_S:-540}))
mkdir -p "$OUT" "$RES/measurements" "$RES/samples/h200" "$RES/samples/h200-serving"
LOG=$RES/run_log.txt
# NVLink multicast stays off (it can take a shared host's GPUs out of service).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1

say() { echo "=== [$(date +%H:%M:%S) +$(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
pack() {
    tar -czf "$OUT/results.tmp.tgz" -C "$RES" . && mv "$OUT/results.tmp.tgz" "$OUT/results.tgz"
    cp "$LOG" "$OUT/run_log.txt"
}
# stage NAME LIMIT_S CMD...: runs CMD with at most LIMIT_S seconds (less if the deadline is near).
stage() {
    local name=$1 limit=$2
    shift 2
    local left=$((DEADLINE - $(date +%s) - 10))
    if [ "$left" -lt 20 ]; then say "skip $name: ${left}s left before the deadline"; return; fi
    [ "$limit" -gt "$left" ] && limit=$left
    say "stage $name (limit ${limit}s)"
    local t0=$(date +%s)
    timeout --signal=INT --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
    local rc=${PIPESTATUS[0]}
    say "stage $name rc=$rc in $(( $(date +%s) - t0 ))s"
    pack
}
SMI_PID=
smi_start() {  # smi_start FILE GPUS: nvidia-smi at 100 ms in the background
    nvidia-smi --query-gpu="$SMI_FIELDS" --format=csv -lms 100 -i "$2" > "$1" 2>&1 &
    SMI_PID=$!
    sleep 0.5
}
smi_stop() {
    sleep 0.5
    [ -n "$SMI_PID" ] && kill "$SMI_PID" 2>/dev/null && wait "$SMI_PID" 2>/dev/null
    SMI_PID=
    gzip -9f "$1"
}

STAGES=${*:-env sweep ceilings serving traces allreduce}
SMI_FIELDS=$($PY -c "import sys; sys.path.insert(0, '$HERE'); from common import smi_fields; print(','.join(smi_fields()))" 2>/dev/null)
SMI_FIELDS=${SMI_FIELDS:-timestamp,index,name,power.draw,power.limit,enforced.power.limit,clocks.sm,clocks.max.sm,clocks.mem,utilization.gpu,utilization.memory,temperature.gpu}

# The ceilings program: a prebuilt binary if it runs here, else built with this machine's nvcc
# (in the background, from the start, while other stages use the GPU).
BUILD_DIR=$RES/../roofline_measure_build
mkdir -p "$BUILD_DIR"
find_cublaslt_dir() {
    for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
        [ -e "$d/libcublasLt.so" ] || [ -e "$d/libcublasLt.so.13" ] || [ -e "$d/libcublasLt.so.12" ] && { echo "$d"; return; }
    done
    $PY - <<'EOF' 2>/dev/null
import glob, os, site
for s in site.getsitepackages():
    for p in glob.glob(os.path.join(s, "nvidia", "**", "libcublasLt.so*"), recursive=True):
        print(os.path.dirname(p)); raise SystemExit
EOF
}
CUBLASLT_DIR=$(find_cublaslt_dir)
export LD_LIBRARY_PATH=${CUBLASLT_DIR:+$CUBLASLT_DIR:}$LD_LIBRARY_PATH
INC=$HERE/../../include
[ -d "$INC/roofline/cuda" ] || INC=$HERE/include
build_ceilings() {
    local ltinc=""
    [ -f /usr/local/cuda/include/cublasLt.h ] || ltinc="-I$CUBLASLT_DIR/../include"
    local ltlib=${CUBLASLT_DIR:+-L$CUBLASLT_DIR}
    [ -e "$CUBLASLT_DIR/libcublasLt.so" ] || { [ -n "$CUBLASLT_DIR" ] && ln -sf "$(ls "$CUBLASLT_DIR"/libcublasLt.so.* | head -1)" "$BUILD_DIR/libcublasLt.so"; ltlib="$ltlib -L$BUILD_DIR"; }
    nvcc -O3 -std=c++20 -arch=sm_90 -I"$INC" $ltinc "$HERE/measure_ceilings.cu" $ltlib -lcublasLt \
        -o "$BUILD_DIR/measure_ceilings" > "$BUILD_DIR/build.log" 2>&1
    echo "nvcc rc=$?" >> "$BUILD_DIR/build.log"
}

for s in $STAGES; do
case $s in
env)
    say "environment"
    {
        date -u; date; echo "TZ: $(date +%Z)"; uname -a; nproc; free -g | head -2
        nvidia-smi
        nvidia-smi topo -m
        nvidia-smi --query-gpu=index,name,driver_version,vbios_version,power.limit,enforced.power.limit,power.default_limit,power.max_limit,clocks.max.sm,clocks.max.mem,pci.bus_id --format=csv
        nvcc --version | tail -2
        $PY -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version(), 'nccl', torch.cuda.nccl.version(), 'triton', triton.__version__, 'gpus', torch.cuda.device_count()); p = torch.cuda.get_device_properties(0); print(p)"
        echo "smi fields: $SMI_FIELDS"
        echo "cublasLt dir: $CUBLASLT_DIR"; ls /usr/local/cuda/include/cublasLt.h 2>&1
        env | grep -E '^(NCCL|TORCH_SYMM|NVSHMEM)_' | sort
    } > "$RES/env.txt" 2>&1
    cat "$RES/env.txt" | tee -a "$LOG"
    (build_ceilings) &
    BUILD_PID=$!
    pack
    ;;
sweep)
    smi_start "$RES/measurements/kernels_nvidia_smi.csv" 0
    stage sweep 170 $PY "$HERE/kernel_sweep.py" --out "$RES/measurements/kernels.json"
    smi_stop "$RES/measurements/kernels_nvidia_smi.csv"
    pack
    ;;
ceilings)
    BIN=""
    if [ -n "$MEASURE_BIN" ] && "$MEASURE_BIN" --help > /dev/null 2>&1; then
        BIN=$MEASURE_BIN
        say "using prebuilt $BIN"
    else
        [ -n "$MEASURE_BIN" ] && { "$MEASURE_BIN" --help 2>&1 | head -3 | tee -a "$LOG"; }
        [ -n "$BUILD_PID" ] && wait "$BUILD_PID"
        [ -f "$BUILD_DIR/measure_ceilings" ] || build_ceilings
        cat "$BUILD_DIR/build.log" | tail -20 | tee -a "$LOG"
        BIN=$BUILD_DIR/measure_ceilings
    fi
    smi_start "$RES/measurements/ceilings_nvidia_smi.csv" 0
    stage ceilings 100 "$BIN" --device 0 --seconds 1.0 --out "$RES/measurements/ceilings.json"
    smi_stop "$RES/measurements/ceilings_nvidia_smi.csv"
    pack
    ;;
serving)
    smi_start "$RES/samples/h200-serving/nvidia_smi.csv" 0
    stage serving 180 $PY "$HERE/serve_moe.py" --out "$RES/samples/h200-serving"
    smi_stop "$RES/samples/h200-serving/nvidia_smi.csv"
    pack
    ;;
traces)
    stage trace_gemm_power 45 $PY "$HERE/traces.py" gemm_power --out "$RES/samples/h200/gemm_power"
    stage trace_elementwise 30 $PY "$HERE/traces.py" elementwise --out "$RES/samples/h200/elementwise"
    stage trace_decode_attention 30 $PY "$HERE/traces.py" decode_attention --out "$RES/samples/h200/decode_attention"
    stage trace_tiny_kernels 30 $PY "$HERE/traces.py" tiny_kernels --out "$RES/samples/h200/tiny_kernels"
    ;;
allreduce)
    stage allreduce 90 $PY "$HERE/allreduce.py" --out "$RES/samples/h200/allreduce_2gpu"
    ;;
*)
    say "unknown stage $s"
    ;;
esac
done
say "all stages done"
ls -laR "$RES" | tee -a "$LOG" | tail -60
pack
