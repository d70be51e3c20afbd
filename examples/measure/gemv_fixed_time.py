"""The fixed device time of a cuBLAS GEMV-like GEMM on this GPU: M = 8 rows against weights of
N x K, N fixed (so the grid is fixed), K swept so that the weight bytes go from 10 MB to 1 GB.
Each point is timed as device time: R calls over rotating weight sets (enough to defeat the L2)
captured in one CUDA graph, replayed 7 times between CUDA events, median / R. A straight line
t = t0 + bytes / r through the points of one kernel name gives t0, the kernel's time beyond its
bytes (launch inside a graph, first loads, epilogue, tail), and r, its streaming rate
(data/samples/h200-stacks/gemv_fixed_time/README.md). These shapes are in neither validation sweep.

Usage, on the GPU machine: python3 gemv_fixed_time.py points.json
"""
from __future__ import annotations

import json
import statistics
import sys

import torch

DEV = torch.device("cuda", 0)
BF = torch.bfloat16
L2 = 60 * 2**20
M = 8
KS = [1024, 2048, 4096, 8192, 16384, 32768, 65536]


def kernel_names(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(0)
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})


def point(dtype, N, K):
    es = 1 if dtype == "fp8_e4m3" else 2
    wbytes = N * K * es
    sets = max(2, min(64, -(-3 * L2 // wbytes)))
    a = torch.randn(M, K, device=DEV, dtype=BF)
    ws = [torch.randn(N, K, device=DEV, dtype=BF) for _ in range(sets)]
    if dtype == "bf16":
        outs = [torch.empty(M, N, device=DEV, dtype=BF) for _ in range(sets)]
        fn = lambda i: torch.mm(a, ws[i].t(), out=outs[i])  # noqa: E731
    else:
        a8 = a.to(torch.float8_e4m3fn)
        ws = [w.to(torch.float8_e4m3fn) for w in ws]
        one = torch.tensor(1.0, device=DEV)
        fn = lambda i: torch._scaled_mm(a8, ws[i].t(), scale_a=one, scale_b=one, out_dtype=BF)  # noqa: E731
    for i in range(3):
        fn(i % sets)
    torch.cuda.synchronize()
    calls = max(sets, min(200, int(2e-3 / max(wbytes / 4e12, 1e-6))))
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn(0)
        with torch.cuda.graph(g, stream=s):
            for c in range(calls):
                fn(c % sets)
    torch.cuda.current_stream().wait_stream(s)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) * 1e-3 / calls)
    rec = dict(dtype=dtype, m=M, n=N, k=K, weight_bytes=wbytes, bytes=(M * K) * es + wbytes + M * N * 2,
               sets=sets, graph_calls=calls, median_s=statistics.median(times), kernels=kernel_names(fn))
    del g, ws
    torch.cuda.empty_cache()
    return rec


def main():
    pts = []
    for dtype in ("bf16", "fp8_e4m3"):
        for N in (5120, 16384):
            for K in KS:
                r = point(dtype, N, K)
                pts.append(r)
                print(f"{dtype:9s} N={N:6d} K={K:6d} {r['bytes'] / 1e6:8.1f} MB {r['median_s'] * 1e6:9.2f} us  "
                      f"{r['bytes'] / r['median_s'] / 1e12:5.2f} TB/s  {' + '.join(k[:48] for k in r['kernels'])}",
                      flush=True)
    env = dict(torch=torch.__version__, cuda=torch.version.cuda, device=torch.cuda.get_device_name(0))
    with open(sys.argv[1] if len(sys.argv) > 1 else "points.json", "w") as f:
        json.dump(dict(environment=env, points=pts), f, indent=1)


if __name__ == "__main__":
    main()
