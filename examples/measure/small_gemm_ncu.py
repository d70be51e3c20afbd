"""Small-M (GEMV-like) GEMMs of the independent H200 sweep, one call each between
cudaProfilerStart/Stop, for Nsight Compute: the memory-bound GEMMs the uncalibrated model prices
2-7 us short (data/samples/h200-stacks/ncu-small_gemm/README.md).

The shapes are those of examples/validation/h200_graph_sweep.py (`gemm_case`: torch.mm for bf16,
torch._scaled_mm with unit scales for fp8 e4m3, weights [N, K] transposed), so their ncu numbers
sit beside the sweep's graph-replay times. Usage, on the GPU machine:

  ncu --clock-control none --profile-from-start off --csv --page raw \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
      --section Occupancy --section WarpStateStats \
      python3 small_gemm_ncu.py cases.json > ncu_raw.csv
"""
from __future__ import annotations

import json
import sys

import torch

DEV = torch.device("cuda", 0)
BF = torch.bfloat16
# (dtype, M, N, K)
CASES = [("fp8_e4m3", 3, 5120, 5120), ("fp8_e4m3", 96, 5120, 5120), ("fp8_e4m3", 3, 3072, 12288),
         ("fp8_e4m3", 24, 3072, 12288), ("bf16", 3, 5120, 5120), ("bf16", 3, 3072, 12288),
         ("bf16", 3, 28672, 8192)]


def build(dtype, M, N, K):
    es = 1 if dtype == "fp8_e4m3" else 2
    a = torch.randn(M, K, device=DEV, dtype=BF)
    w = torch.randn(N, K, device=DEV, dtype=BF)
    meta = dict(dtype=dtype, m=M, n=N, k=K, bytes=(M * K + N * K) * es + M * N * 2, flops=2.0 * M * N * K)
    if dtype == "bf16":
        c = torch.empty(M, N, device=DEV, dtype=BF)
        return (lambda: torch.mm(a, w.t(), out=c)), meta
    a8, w8 = a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
    one = torch.tensor(1.0, device=DEV)
    return (lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=BF)), meta


def main():
    out = []
    # A 256 MiB buffer written between cases: every case's weights come from DRAM, not L2.
    flush = torch.empty(256 * 2**20, device=DEV, dtype=torch.uint8)
    for case in CASES:
        fn, meta = build(*case)
        for _ in range(5):
            fn()
        flush.zero_()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        fn()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
        out.append(meta)
    text = json.dumps(out, indent=1) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        sys.stderr.write(text)


if __name__ == "__main__":
    main()
