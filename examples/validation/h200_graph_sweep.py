#!/usr/bin/env python3
"""An independent kernel sweep, timed as device time: CUDA-graph replays and profiler durations.

Two shape sets, one harness:
  --set fit          the shapes of examples/measure/kernel_sweep.py (what calibration fits),
                     re-timed here as device time;
  --set independent  other shapes and other backends (bf16/fp8 GEMM at Qwen/Mixtral-like N, K;
                     grouped GEMM with 128 experts, top-8; SDPA prefill through flash, cuDNN and
                     memory-efficient backends; decode at other batches/contexts; copies that
                     stay in L2 and that do not): the validation set, never fitted.

Per case: R calls (operands rotating over enough buffers to defeat the 60 MiB L2 unless the case
is meant to sit in L2) are captured in one CUDA graph; the graph is replayed 7 times between CUDA
events and the median / R is `graph_time_s` (no host dispatch inside). One eager call per case
also runs under the PyTorch profiler, annotated with the case id: the sum of its kernels'
durations is `kernel_time_s` and their names are `kernels` (what ran: nvjet / cutlass / cuDNN /
flash ...). Records use the schema of data/measurements/h200/kernels.json ("roofline.kernels/1"),
with `median_s` = graph_time_s, plus `harness`, `graph_time_s`, `kernel_time_s`, `kernels`,
`backend`.

Usage: python3 h200_graph_sweep.py --set independent --out kernels_independent.json
       python3 h200_graph_sweep.py --set fit --out FIT.json --set independent --out IND.json \
           --interleave --smi-log smi.csv
With several sets, each set's cases are written to its own --out (in the order given); they run
one set after the other, or with --interleave alternately (case i of each set in turn), so that
both sets see the same thermal history. Every record carries `t_start_unix` / `t_end_unix`, the
wall-clock span of its graph timing, to align with the nvidia-smi log that --smi-log writes
(common.smi_log, 50 ms).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "measure"))
from common import environment, log, quantile, smi_log, write_json  # noqa: E402

DEV = torch.device("cuda", 0)
BF = torch.bfloat16
L2 = 60 * 2**20
CASES: list[dict] = []  # {id, op, params, dtype, flops, bytes, make -> (fn(i), sets), backend}


def n_sets(set_bytes: float, in_l2: bool = False) -> int:
    if in_l2:
        return 1
    if set_bytes > 2 * L2:
        return 1
    return int(min(64, math.ceil(3 * L2 / max(set_bytes, 1))))


def case(op, params, dtype, flops, nbytes, make, backend=None, in_l2=False):
    CASES.append(dict(id=f"c{len(CASES):03d}", op=op, params=params, dtype=dtype, flops=flops, bytes=nbytes,
                      make=make, backend=backend, in_l2=in_l2))


def build_set(name: str) -> list[dict]:
    """The cases of set `name` ("fit" or "independent"), ids c000.. as when run alone."""
    CASES.clear()
    (fit_set if name == "fit" else independent_set)()
    return list(CASES)


# ---- case builders -------------------------------------------------------------------------
def gemm_case(M, N, K, dtype):
    es = 1 if dtype == "fp8_e4m3" else 2
    nbytes = (M * K + N * K) * es + M * N * 2

    def make():
        s = n_sets(nbytes)
        As = [torch.randn(M, K, device=DEV, dtype=BF) for _ in range(s)]
        Ws = [torch.randn(N, K, device=DEV, dtype=BF) for _ in range(s)]
        if dtype == "bf16":
            Cs = [torch.empty(M, N, device=DEV, dtype=BF) for _ in range(s)]
            return (lambda i: torch.mm(As[i], Ws[i].t(), out=Cs[i])), s
        As = [a.to(torch.float8_e4m3fn) for a in As]
        Ws = [w.to(torch.float8_e4m3fn) for w in Ws]
        one = torch.tensor(1.0, device=DEV)
        return (lambda i: torch._scaled_mm(As[i], Ws[i].t(), scale_a=one, scale_b=one, out_dtype=BF)), s
    case("gemm", {"m": M, "n": N, "k": K}, dtype, 2.0 * M * N * K, nbytes, make)


def grouped_case(T, E, H, I, k, gemm, kind="uniform"):
    rows = T * k
    K, N = (H, 2 * I) if gemm == "gate_up" else (I, H)
    gen = torch.Generator(device=DEV)
    gen.manual_seed(T * 7 + E)
    if kind == "uniform":
        ids = torch.rand(T, E, device=DEV, generator=gen).topk(k, dim=-1).indices
    else:
        p = 1.0 / torch.arange(1, E + 1, device=DEV, dtype=torch.float32) ** 1.2
        ids = torch.multinomial(p.expand(T, E), k, replacement=False, generator=gen)
    counts = torch.bincount(ids.reshape(-1), minlength=E).to(torch.int32)
    active = int((counts > 0).sum().item())
    nbytes = rows * K * 2 + rows * N * 2 + active * K * N * 2

    def make():
        offs = torch.cumsum(counts, 0, dtype=torch.int32)
        s = 3 if active * K * N * 2 < 2 * L2 else 1
        Ws = [torch.randn(E, N, K, device=DEV, dtype=BF) * 0.02 for _ in range(s)]
        xs = [torch.randn(rows, K, device=DEV, dtype=BF) for _ in range(s)]
        return (lambda i: torch._grouped_mm(xs[i], Ws[i].transpose(-2, -1), offs=offs)), s
    case("grouped_mm", {"tokens": T, "experts": E, "topk": k, "hidden": H, "inter": I, "gemm": gemm, "rows": rows,
                        "k": K, "n": N, "routing": kind, "active_experts": active,
                        "max_expert_tokens": int(counts.max().item())}, "bf16", 2.0 * rows * K * N, nbytes, make)


def sdpa_backend(name):
    from torch.nn.attention import SDPBackend
    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}[name]


def sdpa_prefill_case(B, S, Hq, Hkv, backend, D=128):
    nbytes = 2 * B * S * D * (Hq + Hkv) * 2
    flops = 4.0 * B * Hq * D * S * (S + 1) / 2

    def make():
        from torch.nn.attention import sdpa_kernel
        s = n_sets(nbytes)
        be = sdpa_backend(backend)
        qs = [torch.randn(B, Hq, S, D, device=DEV, dtype=BF) for _ in range(s)]
        ks = [torch.randn(B, Hkv, S, D, device=DEV, dtype=BF) for _ in range(s)]
        vs = [torch.randn(B, Hkv, S, D, device=DEV, dtype=BF) for _ in range(s)]

        def fn(i):
            with sdpa_kernel([be]):
                return F.scaled_dot_product_attention(qs[i], ks[i], vs[i], is_causal=True, enable_gqa=Hq != Hkv)
        return fn, s
    case("sdpa_prefill", {"batch": B, "seq": S, "heads": Hq, "kv_heads": Hkv, "head_dim": D, "causal": True},
         "bf16", flops, nbytes, make, backend=backend)


def sdpa_decode_case(B, L, Hq, Hkv, backend, D=128):
    nbytes = 2 * B * L * Hkv * D * 2 + 2 * B * Hq * D * 2
    flops = 4.0 * B * Hq * D * L

    def make():
        from torch.nn.attention import sdpa_kernel
        s = n_sets(nbytes)
        be = sdpa_backend(backend)
        qs = [torch.randn(B, Hq, 1, D, device=DEV, dtype=BF) for _ in range(s)]
        ks = [torch.randn(B, Hkv, L, D, device=DEV, dtype=BF) for _ in range(s)]
        vs = [torch.randn(B, Hkv, L, D, device=DEV, dtype=BF) for _ in range(s)]

        def fn(i):
            with sdpa_kernel([be]):
                return F.scaled_dot_product_attention(qs[i], ks[i], vs[i], enable_gqa=Hq != Hkv)
        return fn, s
    case("sdpa_decode", {"batch": B, "kv_len": L, "heads": Hq, "kv_heads": Hkv, "head_dim": D},
         "bf16", flops, nbytes, make, backend=backend)


def copy_case(nbytes_each, in_l2=False):
    def make():
        s = n_sets(2 * nbytes_each, in_l2)
        src = [torch.empty(nbytes_each // 2, device=DEV, dtype=BF).normal_() for _ in range(s)]
        dst = [torch.empty_like(x) for x in src]
        return (lambda i: dst[i].copy_(src[i])), s
    case("copy", {"size_bytes": nbytes_each, "l2_resident": in_l2}, "bf16", 0.0, 2.0 * nbytes_each, make,
         in_l2=in_l2)


def fit_set():
    Ms = [2**i for i in range(0, 15)]
    for dtype in ("bf16", "fp8_e4m3"):
        for N, K in ((4096, 4096), (14336, 4096), (4096, 14336), (8192, 8192)):
            for M in Ms:
                gemm_case(M, N, K, dtype)
    for kind in ("uniform", "zipf"):
        for T in [2**i for i in range(0, 15, 2)]:
            for g in ("gate_up", "down"):
                grouped_case(T, 64, 4096, 1536, 4, g, kind)
    for Hq, Hkv in ((32, 8), (64, 8)):
        for B, S in ((1, 1024), (1, 4096), (1, 16384), (4, 2048), (8, 4096), (16, 1024)):
            sdpa_prefill_case(B, S, Hq, Hkv, "flash")
    for B in (1, 8, 32, 64, 128, 256):
        for L in (1024, 4096, 16384):
            sdpa_decode_case(B, L, 32, 8, "flash")
    for mib in (1, 4, 16, 64, 256, 1024, 4096):
        copy_case(mib << 20)


def independent_set():
    for dtype in ("bf16", "fp8_e4m3"):
        for N, K in ((5120, 5120), (13824, 5120), (5120, 13824), (3072, 12288), (28672, 8192)):
            for M in (3, 24, 96, 384, 1536, 6144, 12288):
                gemm_case(M, N, K, dtype)
    for T in (2, 24, 160, 1000, 6000):
        for g in ("gate_up", "down"):
            grouped_case(T, 128, 2048, 768, 8, g)
    for T in (48, 3000):
        grouped_case(T, 128, 2048, 768, 8, "gate_up", "zipf")
    for be in ("flash", "cudnn", "efficient"):
        for B, S, Hq, Hkv in ((2, 3072, 40, 8), (1, 8192, 64, 4), (8, 1536, 28, 4)):
            sdpa_prefill_case(B, S, Hq, Hkv, be)
    for be in ("flash", "cudnn", "efficient"):
        for B, L, Hq, Hkv in ((16, 3000, 40, 8), (96, 2048, 32, 8), (4, 12000, 64, 4), (192, 640, 28, 4)):
            sdpa_decode_case(B, L, Hq, Hkv, be)
    for mib in (1, 16):
        copy_case(mib << 20, in_l2=True)
    for mib in (2, 48, 768, 3072):
        copy_case(mib << 20)


# ---- harness --------------------------------------------------------------------------------
def graph_time(fn, sets: int, target_s: float = 0.02) -> tuple[float, int]:
    """Seconds per call from replays of a graph of R calls (median of 7 replays)."""
    for i in range(3):
        fn(i % sets)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for i in range(5):
        fn(i % sets)
    e.record()
    e.synchronize()
    est = s.elapsed_time(e) * 1e-3 / 5
    R = int(max(sets, min(2000, max(4, target_s / max(est, 1e-7)))))
    R = sets * max(1, R // sets)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(0)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(R):
            fn(i % sets)
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(7):
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e-3 / R)
    del g
    return quantile(ts, 0.5), R


def kernel_times(fns: list[tuple[str, object]]) -> dict:
    """One profiled eager call per case: {case id: (sum of kernel durations s, [kernel names])}."""
    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for cid, fn in fns:
            with record_function("case:" + cid):
                fn(0)
            torch.cuda.synchronize()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    os.remove(path)
    ranges = sorted((e["ts"], e["ts"] + e["dur"], e["name"][5:]) for e in ev
                    if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("case:"))
    launch_case = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            for a, b, cid in ranges:
                if a <= e["ts"] <= b:
                    launch_case[e["args"]["correlation"]] = cid
                    break
    out: dict = {}
    for e in ev:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            cid = launch_case.get(e.get("args", {}).get("correlation"))
            if cid:
                t, names = out.get(cid, (0.0, []))
                out[cid] = (t + e["dur"] * 1e-6, names + [e["name"]])
    return out


def main():
    global L2
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=("fit", "independent"), action="append", required=True)
    ap.add_argument("--out", action="append", required=True, help="one per --set, in the same order")
    ap.add_argument("--interleave", action="store_true", help="alternate the sets' cases")
    ap.add_argument("--smi-log", help="write an nvidia-smi log (50 ms) of the whole run here")
    a = ap.parse_args()
    if len(a.out) != len(a.set):
        ap.error("give one --out per --set")
    torch.cuda.set_device(DEV)
    L2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", L2) or L2
    sets = {name: build_set(name) for name in a.set}
    order = []  # (set name, case) in run order
    if a.interleave:
        for i in range(max(len(c) for c in sets.values())):
            order += [(name, cs[i]) for name, cs in sets.items() if i < len(cs)]
    else:
        order = [(name, c) for name, cs in sets.items() for c in cs]
    env = environment()
    log(f"{len(order)} cases ({', '.join(a.set)}{', interleaved' if a.interleave else ''})")
    t0 = time.time()
    results = {name: [] for name in a.set}
    outs = dict(zip(a.set, a.out))
    batch: list = []

    def run_order(name):
        others = [n for n in a.set if n != name]
        if not others:
            return "alone"
        if a.interleave:
            return "interleaved with " + ", ".join(others)
        before = a.set[:a.set.index(name)]
        return "after " + ", ".join(before) if before else "before " + ", ".join(others)

    def write(name):
        write_json(outs[name], {"schema": "roofline.kernels/1", "environment": env, "sweep_set": name,
                                "run_order": run_order(name), "definitions": __doc__, "results": results[name]})

    def flush_batch():
        kt = kernel_times([(name + c["id"], fn) for name, c, fn, _ in batch]) if batch else {}
        for name, c, fn, (gt, R, sets_, t_a, t_b) in batch:
            k = kt.get(name + c["id"], (None, []))
            rec = {"op": c["op"], **c["params"], "dtype": c["dtype"], "median_s": gt, "graph_time_s": gt,
                   "kernel_time_s": k[0], "kernels": sorted(set(k[1])), "flops": c["flops"], "bytes": c["bytes"],
                   "achieved_flops_per_s": c["flops"] / gt if c["flops"] else None,
                   "achieved_bytes_per_s": c["bytes"] / gt, "rotating_sets": sets_, "graph_calls": R,
                   "harness": "cuda_graph_replay", "case": c["id"], "t_start_unix": t_a, "t_end_unix": t_b}
            if c["backend"]:
                rec["backend"] = c["backend"]
            results[name].append(rec)
        batch.clear()
        for name in a.set:
            write(name)

    with (smi_log(a.smi_log, interval_ms=50) if a.smi_log else contextlib.nullcontext()):
        for name, c in order:
            try:
                fn, sets_ = c["make"]()
                t_a = time.time()
                gt, R = graph_time(fn, sets_)
                batch.append((name, c, fn, (gt, R, sets_, t_a, time.time())))
            except Exception as e:
                msg = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
                log(f"{name} {c['id']} {c['op']} {c['params']} {c.get('backend')}: FAILED {msg}")
                results[name].append({"op": c["op"], **c["params"], "dtype": c["dtype"], "backend": c["backend"],
                                      "error": msg, "case": c["id"]})
                torch.cuda.synchronize()
            if len(batch) >= 12:
                flush_batch()
                torch.cuda.empty_cache()
        flush_batch()
    for name in a.set:
        ok = [r for r in results[name] if "error" not in r]
        log(f"{name}: {len(ok)} of {len(sets[name])} cases -> {outs[name]}")
    log(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
