#!/bin/sh
# Re-creates data/calibration/h200-sxm.json from the recorded H200 measurements (run from the
# repository root after building the `roofline` command into build/).
set -e
ROOFLINE=${ROOFLINE:-./build/roofline}
M=data/measurements/h200
V=data/validation
"$ROOFLINE" calibrate \
    $M/kernels.json $M/ceilings.json $M/allreduce_2gpu.json \
    $M/kernels_nvidia_smi.csv.gz $M/ceilings_nvidia_smi.csv.gz \
    $V/h200_power_phases.json $V/h200_power_smi.csv.gz \
    --smi-fields timestamp,power.draw,enforced.power.limit,clocks.sm,clocks.max.sm,clocks_event_reasons.sw_power_cap \
    --link nvlink --gpu h200-sxm --created-utc "${CREATED_UTC:-2026-11-30T06:00:00Z}" \
    -o data/calibration/h200-sxm.json "$@"
