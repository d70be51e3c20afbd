"""Grouped MoE GEMMs (torch._grouped_mm) of the independent H200 sweep, one call each between
cudaProfilerStart/Stop, for Nsight Compute: what the CUTLASS ptr-array kernel moves through DRAM
and how busy it keeps the SMs (data/samples/h200-stacks/ncu-grouped_gemm/README.md).

The cases are those of examples/validation/h200_graph_sweep.py (`grouped_case`: 128 experts,
hidden 2048, inter 768, top-8, the same seeds), so their ncu numbers sit beside the sweep's
graph-replay times. Usage, on the GPU machine:

  ncu --clock-control none --profile-from-start off --csv --page raw \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
      --section Occupancy --section WarpStateStats \
      python3 grouped_gemm_ncu.py cases.json > ncu_raw.csv

Without ncu it prints each case's CUDA-event time (median of 50 calls over 3 rotating weight sets),
so one run also shows the times the profiled calls should have.
"""
from __future__ import annotations

import json
import statistics
import sys

import torch

DEV = torch.device("cuda", 0)
BF = torch.bfloat16
# (tokens, gemm, routing): c070, c073, c076, c077, c078 of kernels_independent.json
CASES = [(2, "gate_up", "uniform"), (24, "down", "uniform"), (1000, "gate_up", "uniform"),
         (1000, "down", "uniform"), (6000, "gate_up", "uniform")]
E, H, I, TOPK = 128, 2048, 768, 8


def build(T, gemm, kind):
    rows = T * TOPK
    K, N = (H, 2 * I) if gemm == "gate_up" else (I, H)
    gen = torch.Generator(device=DEV)
    gen.manual_seed(T * 7 + E)  # as h200_graph_sweep.py
    if kind == "uniform":
        ids = torch.rand(T, E, device=DEV, generator=gen).topk(TOPK, dim=-1).indices
    else:
        p = 1.0 / torch.arange(1, E + 1, device=DEV, dtype=torch.float32) ** 1.2
        ids = torch.multinomial(p.expand(T, E), TOPK, replacement=False, generator=gen)
    counts = torch.bincount(ids.reshape(-1), minlength=E).to(torch.int32)
    offs = torch.cumsum(counts, 0, dtype=torch.int32)
    active = int((counts > 0).sum().item())
    Ws = [torch.randn(E, N, K, device=DEV, dtype=BF) * 0.02 for _ in range(3)]
    xs = [torch.randn(rows, K, device=DEV, dtype=BF) for _ in range(3)]
    meta = dict(tokens=T, gemm=gemm, routing=kind, rows=rows, k=K, n=N, active_experts=active,
                max_expert_tokens=int(counts.max().item()),
                bytes=rows * K * 2 + rows * N * 2 + active * K * N * 2, flops=2.0 * rows * K * N)
    return (lambda i: torch._grouped_mm(xs[i], Ws[i].transpose(-2, -1), offs=offs)), meta


def main():
    out = []
    for T, gemm, kind in CASES:
        fn, meta = build(T, gemm, kind)
        for i in range(6):
            fn(i % 3)
        torch.cuda.synchronize()
        times = []
        for r in range(50):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn(r % 3)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1e-3)
        meta["event_median_s"] = statistics.median(times)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        fn(1)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
        out.append(meta)
        del fn
        torch.cuda.empty_cache()
    path = sys.argv[1] if len(sys.argv) > 1 else None
    text = json.dumps(out, indent=1) + "\n"
    if path:
        with open(path, "w") as f:
            f.write(text)
    else:
        sys.stderr.write(text)


if __name__ == "__main__":
    main()
