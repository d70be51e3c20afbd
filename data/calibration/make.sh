#!/bin/sh
# Re-creates data/calibration/h200-sxm.json from the recorded H200 measurements (run from the
# repository root after building the `roofline` command into build/). Kernel curves are fitted to
# device time only: the graph-replayed sweep of the fitted shapes (data/validation/h200-graph/
# kernels_fit_device_time.json, recorded 2026-12-01, and its two re-recordings of 2026-12-03 in
# data/samples/h200-stacks/sweep_order/: the same cases on the same kind of GPU, whose large GEMMs
# moved by 2-5% with the GPU's state), never to eager wall times. No recording of the independent
# set (kernels_independent.json, sweep_order/*_independent.json.gz) is ever an input: they are
# the held-out check.
set -e
ROOFLINE=${ROOFLINE:-./build/roofline}
M=data/measurements/h200
V=data/validation
S=data/samples/h200-stacks/sweep_order
"$ROOFLINE" calibrate \
    $V/h200-graph/kernels_fit_device_time.json $S/reversed_fit.json.gz $S/interleaved_fit.json.gz \
    $M/ceilings.json $M/allreduce_2gpu.json \
    $M/ceilings_nvidia_smi.csv.gz $V/h200_power_phases.json $V/h200_power_smi.csv.gz \
    --smi-fields timestamp,power.draw,enforced.power.limit,clocks.sm,clocks.max.sm,clocks_event_reasons.sw_power_cap \
    --link nvlink --gpu h200-sxm --created-utc "${CREATED_UTC:-2026-12-03T09:00:00Z}" \
    -o data/calibration/h200-sxm.json "$@"
