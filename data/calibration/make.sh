#!/bin/sh
# Re-creates data/calibration/h200-sxm.json from the recorded H200 measurements (run from the
# repository root after building the `roofline` command into build/). Kernel curves are fitted to
# device time only: the graph-replayed sweep of the fitted shapes (data/validation/h200-graph/
# kernels_fit_device_time.json), never to eager wall times. data/validation/h200-graph/
# kernels_independent.json is never an input: it is the held-out check.
set -e
ROOFLINE=${ROOFLINE:-./build/roofline}
M=data/measurements/h200
V=data/validation
"$ROOFLINE" calibrate \
    $V/h200-graph/kernels_fit_device_time.json $M/ceilings.json $M/allreduce_2gpu.json \
    $M/ceilings_nvidia_smi.csv.gz $V/h200_power_phases.json $V/h200_power_smi.csv.gz \
    --smi-fields timestamp,power.draw,enforced.power.limit,clocks.sm,clocks.max.sm,clocks_event_reasons.sw_power_cap \
    --link nvlink --gpu h200-sxm --created-utc "${CREATED_UTC:-2026-12-01T09:00:00Z}" \
    -o data/calibration/h200-sxm.json "$@"
