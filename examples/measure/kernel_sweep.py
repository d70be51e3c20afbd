"""Kernel sweeps on one GPU through PyTorch: the measured side of `roofline kernel`.

Ops (all random data, never zeros):
  gemm         bf16 x[M,K] @ W[N,K]^T (torch.mm, cuBLAS), M = 1..16384, LLM-shaped (N, K)
  gemm         fp8 e4m3 via torch._scaled_mm, per-tensor scales, bf16 output, same shapes
  grouped_mm   torch._grouped_mm bf16, MoE experts (E=64, hidden 4096, inter 1536, top-4),
               gate_up [T*k, H] x [E, H, 2I] and down [T*k, I] x [E, I, H], tokens T = 1..16384,
               uniform and Zipf-skewed routing (per-expert token counts recorded)
  sdpa_prefill causal SDPA (flash backend where it runs), GQA
  sdpa_decode  SDPA with q_len 1 over a KV cache, GQA
  copy         device-to-device tensor copy, 1 MiB .. 4 GiB
  launch       empty kernel (torch.cuda._sleep(0)), host enqueue cost, eager and graph-replayed tiny kernel

Timing: CUDA events around every execution, after warm-up; a spin kernel queued first keeps
the host ahead of the device so that launch gaps are not timed; median, p10, p90 of the
repetitions. When one input set fits in 2x L2, executions rotate over enough sets (>= 3x L2 in
total) that each reads its inputs from DRAM.

Minimum bytes (what a perfect kernel must move through DRAM; documented per op in the output):
  gemm: A + B read once, C written once. grouped_mm: the gathered activations [T*k, K] read,
  the output [T*k, N] written, and the weights of the experts that got at least one token
  read once. sdpa: Q, K, V read and O written once. copy: read + write. FLOP: 2 per
  multiply-add; causal prefill counts only the unmasked (i >= j) pairs.

Usage: python3 kernel_sweep.py --out kernels.json [--quick]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Nvml, environment, log, summary, write_json  # noqa: E402

DEV = torch.device("cuda", 0)
L2 = 50 * 2**20  # replaced by the device's value in main()
NV: Nvml | None = None
RESULTS: list[dict] = []
OUT = ""


def n_sets(set_bytes: float) -> int:
    """Input sets to rotate so that no execution finds its inputs in L2."""
    if set_bytes > 2 * L2:
        return 1
    return int(min(64, math.ceil(3 * L2 / max(set_bytes, 1))))


def bench(fn, sets: int, target_s: float = 0.08, min_reps: int = 10, max_reps: int = 300) -> dict:
    """Times fn(i) (i selects the input set, i % sets) with CUDA events. Returns summary + clocks."""
    # Warm-up: at least 3 calls and 10 ms; gives the estimate of one execution's time.
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    calls = 0
    while calls < 3 or time.perf_counter() - t0 < 0.01:
        fn(calls % sets)
        calls += 1
        if calls % 8 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    est = (time.perf_counter() - t0) / calls
    reps = int(max(min_reps, min(max_reps, target_s / max(est, 1e-6))))
    times = []
    clocks = None
    batch = 50
    done = 0
    while done < reps:
        nb = min(batch, reps - done)
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(nb)]
        # Keep the device busy while the host queues the batch (about 40 us per call).
        spin_s = max(0.0, nb * 40e-6 - nb * est)
        if spin_s > 0:
            torch.cuda._sleep(int(spin_s * 2.0e9))
        for j in range(nb):
            ev[j][0].record()
            fn((done + j) % sets)
            ev[j][1].record()
        if clocks is None and NV is not None:
            clocks = NV.sample()  # read while the batch runs
        torch.cuda.synchronize()
        times += [a.elapsed_time(b) * 1e-3 for a, b in ev]
        done += nb
    out = summary(times)
    out["clocks"] = clocks
    return out


def record(op: str, params: dict, dtype: str, r: dict, flops: float, nbytes: float, sets: int, **extra):
    rec = {"op": op, **params, "dtype": dtype, **{k: r[k] for k in ("median_s", "p10_s", "p90_s", "min_s", "reps")},
           "flops": flops, "bytes": nbytes,
           "achieved_flops_per_s": flops / r["median_s"] if flops else None,
           "achieved_bytes_per_s": nbytes / r["median_s"] if nbytes else None,
           "rotating_sets": sets, "clocks": r["clocks"], **extra}
    RESULTS.append(rec)
    return rec


def guarded(name, fn):
    try:
        fn()
    except Exception as e:  # one failing op family must not lose the others
        log(f"{name} FAILED: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        RESULTS.append({"op": name, "error": f"{type(e).__name__}: {str(e)[:500]}"})
    flush()


def try_config(label: str, fn) -> None:
    """Runs one configuration; a failure is recorded and the sweep goes on."""
    try:
        fn()
    except Exception as e:
        log(f"{label} FAILED: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
        RESULTS.append({"op": label, "error": f"{type(e).__name__}: {str(e)[:300]}"})
        torch.cuda.synchronize()


def flush():
    write_json(OUT, {"schema": "roofline.kernels/1", "environment": ENV, "definitions": DEFINITIONS,
                     "results": RESULTS})


DEFINITIONS = {
    "gemm": "C[M,N] = A[M,K] @ W[N,K]^T. flops = 2*M*N*K. bytes = (M*K + N*K)*elem + M*N*2 (bf16 out). "
            "bf16: torch.mm(A, W.t()); fp8_e4m3: torch._scaled_mm(A, W.t(), scale_a=1, scale_b=1, "
            "out_dtype=bf16) with float32 per-tensor scales.",
    "grouped_mm": "MoE expert GEMM through torch._grouped_mm (bf16), tokens sorted by expert; "
                  "rows = tokens*topk. gate_up: [rows, H] x [E, H, 2I]; down: [rows, I] x [E, I, H]. "
                  "flops = 2*rows*K*N. bytes = rows*K*2 + rows*N*2 + active_experts*K*N*2 "
                  "(active = experts with >= 1 token). expert_tokens lists tokens per expert.",
    "sdpa_prefill": "F.scaled_dot_product_attention, causal, q_len = kv_len = seq, GQA (enable_gqa). "
                    "flops = 4*B*Hq*D*seq*(seq+1)/2. bytes = 2*B*seq*D*(Hq + Hkv)*2 (Q, O, K, V once).",
    "sdpa_decode": "F.scaled_dot_product_attention, q_len 1 over kv_len cached tokens, GQA. "
                   "flops = 4*B*Hq*D*kv_len. bytes = 2*B*kv_len*Hkv*D*2 (K and V) + 2*B*Hq*D*2 (q, o).",
    "copy": "dst.copy_(src), device to device. bytes = 2*size (read + write). flops = 0.",
    "launch": "launch_empty_kernel: device time of torch.cuda._sleep(0) between events (back to back); "
              "launch_host_enqueue: host wall time per launch while queueing 500 empty kernels (20 repetitions); "
              "tiny_kernel_eager: wall time per x.add_(1) on one element in a Python loop (launch bound); "
              "tiny_kernel_graph: device time per kernel of 1,000 x.add_(1) captured in one CUDA graph.",
    "units": "seconds, FLOP, bytes; clocks: NVML reading taken while the timed batch ran (Hz, W).",
}
ENV: dict = {}


def sweep_gemm(quick: bool):
    Ms = [2**i for i in range(0, 15)]
    NKs = [(4096, 4096), (14336, 4096), (4096, 14336), (8192, 8192)]
    if quick:
        Ms, NKs = [1, 64, 4096], [(4096, 4096)]
    for dtype in ("bf16", "fp8_e4m3"):
        for N, K in NKs:
            for M in Ms:
                def one(M=M, N=N, K=K, dtype=dtype):
                    es = 1 if dtype == "fp8_e4m3" else 2
                    set_bytes = (M * K + N * K) * es + M * N * 2
                    s = n_sets(set_bytes)
                    As = [torch.randn(M, K, device=DEV, dtype=torch.bfloat16) for _ in range(s)]
                    Ws = [torch.randn(N, K, device=DEV, dtype=torch.bfloat16) for _ in range(s)]
                    if dtype == "bf16":
                        Cs = [torch.empty(M, N, device=DEV, dtype=torch.bfloat16) for _ in range(s)]

                        def fn(i, As=As, Ws=Ws, Cs=Cs):
                            torch.mm(As[i], Ws[i].t(), out=Cs[i])
                        # correctness on the first 64 rows, against float32
                        ref = As[0][:64].float() @ Ws[0].float().t()
                        fn(0)
                        err = ((Cs[0][:64].float() - ref).norm() / ref.norm()).item()
                    else:
                        As = [a.to(torch.float8_e4m3fn) for a in As]
                        Ws = [w.to(torch.float8_e4m3fn) for w in Ws]
                        unit = torch.tensor(1.0, device=DEV, dtype=torch.float32)  # per-tensor scale

                        def fn(i, As=As, Ws=Ws):
                            torch._scaled_mm(As[i], Ws[i].t(), scale_a=unit, scale_b=unit, out_dtype=torch.bfloat16)
                        ref = As[0][:64].float() @ Ws[0].float().t()
                        out = torch._scaled_mm(As[0], Ws[0].t(), scale_a=unit, scale_b=unit, out_dtype=torch.bfloat16)
                        err = ((out[:64].float() - ref).norm() / ref.norm()).item()
                    r = bench(fn, s)
                    rec = record("gemm", {"m": M, "n": N, "k": K}, dtype, r, 2.0 * M * N * K, set_bytes, s,
                                 check_rel_error=err)
                    del As, Ws
                    if M in (1, 256, 4096, 16384):
                        log(f"gemm {dtype} M={M:5d} N={N} K={K}: {rec['median_s'] * 1e6:9.1f} us "
                            f"{(rec['achieved_flops_per_s'] or 0) / 1e12:7.1f} TFLOP/s "
                            f"{rec['achieved_bytes_per_s'] / 1e12:5.2f} TB/s err {err:.1e}")

                try_config(f"gemm {dtype} M={M} N={N} K={K}", one)
            flush()
    torch.cuda.empty_cache()


def routing(T: int, E: int, k: int, kind: str, gen) -> torch.Tensor:
    """Expert ids [T, k], distinct per token. uniform: each expert equally likely;
    zipf:S: expert e (0-based) drawn with probability proportional to 1/(e+1)^S."""
    if kind == "uniform":
        return torch.rand(T, E, device=DEV, generator=gen).topk(k, dim=-1).indices
    s = float(kind.split(":")[1])
    p = 1.0 / torch.arange(1, E + 1, device=DEV, dtype=torch.float32) ** s
    return torch.multinomial(p.expand(T, E), k, replacement=False, generator=gen)


def sweep_grouped(quick: bool):
    E, H, I, k = 64, 4096, 1536, 4
    Ts = [2**i for i in range(0, 15)] if not quick else [1, 128, 4096]
    gen = torch.Generator(device=DEV)
    gen.manual_seed(3)
    # Expert weights stored [E, N, K] (nn.Linear layout); the GEMM sees the [E, K, N] transpose.
    # Three copies rotate so that small token counts do not find their experts in L2.
    copies = 3
    W13 = [torch.randn(E, 2 * I, H, device=DEV, dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
    W2 = [torch.randn(E, H, I, device=DEV, dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
    for kind in ("uniform", "zipf:1.2"):
        for T in Ts:
            def one(T=T, kind=kind):
                ids = routing(T, E, k, kind, gen)
                counts = torch.bincount(ids.reshape(-1), minlength=E).to(torch.int32)
                offs = torch.cumsum(counts, 0, dtype=torch.int32)
                rows = T * k
                active = int((counts > 0).sum().item())
                counts_l = counts.tolist()
                for name, K, N, Ws in (("gate_up", H, 2 * I, W13), ("down", I, H, W2)):
                    xs = [torch.randn(rows, K, device=DEV, dtype=torch.bfloat16) for _ in range(copies)]

                    def fn(i, xs=xs, Ws=Ws):
                        torch._grouped_mm(xs[i], Ws[i].transpose(-2, -1), offs=offs)
                    # correctness: the first and the busiest expert's block against torch.mm
                    out = torch._grouped_mm(xs[0], Ws[0].transpose(-2, -1), offs=offs)
                    e = int(torch.argmax(counts).item())
                    lo = int(offs[e].item()) - counts_l[e]
                    ref = xs[0][lo:lo + counts_l[e]].float() @ Ws[0][e].float().t()
                    err = ((out[lo:lo + counts_l[e]].float() - ref).norm() / ref.norm()).item()
                    r = bench(fn, copies)
                    nbytes = rows * K * 2 + rows * N * 2 + active * K * N * 2
                    rec = record("grouped_mm", {"tokens": T, "experts": E, "topk": k, "hidden": H, "inter": I,
                                                "gemm": name, "rows": rows, "k": K, "n": N, "routing": kind,
                                                "active_experts": active, "max_expert_tokens": max(counts_l),
                                                "expert_tokens": counts_l},
                                 "bf16", r, 2.0 * rows * K * N, nbytes, copies, check_rel_error=err)
                    if T in (1, 64, 1024, 16384):
                        log(f"grouped {name:7s} {kind:8s} T={T:5d} active={active:2d}: {rec['median_s'] * 1e6:8.1f} us "
                            f"{rec['achieved_flops_per_s'] / 1e12:6.1f} TFLOP/s {rec['achieved_bytes_per_s'] / 1e12:5.2f} TB/s "
                            f"err {err:.1e}")
            try_config(f"grouped_mm {kind} T={T}", one)
        flush()
    del W13, W2
    torch.cuda.empty_cache()


def sdpa_call(backends, q, k, v, **kw):
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel(backends):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True, **kw)


def pick_backend(q, k, v, **kw):
    """First of flash, cuDNN, efficient that runs this call; None if none does."""
    from torch.nn.attention import SDPBackend
    for b in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
        try:
            sdpa_call([b], q, k, v, **kw)
            return b
        except Exception:
            continue
    return None


def sweep_sdpa(quick: bool):
    D = 128
    pre = [(1, 1024), (1, 4096), (1, 16384), (4, 2048), (8, 4096), (16, 1024)]
    heads = [(32, 8), (64, 8)]
    if quick:
        pre, heads = [(1, 1024)], [(32, 8)]
    for Hq, Hkv in heads:
        for B, S in pre:
            def one(B=B, S=S, Hq=Hq, Hkv=Hkv):
                q = torch.randn(B, Hq, S, D, device=DEV, dtype=torch.bfloat16)
                kk = torch.randn(B, Hkv, S, D, device=DEV, dtype=torch.bfloat16)
                vv = torch.randn_like(kk)
                be = pick_backend(q, kk, vv, is_causal=True)
                if be is None:
                    raise RuntimeError("no fused SDPA backend for causal GQA prefill")
                out = sdpa_call([be], q[:, :, :256], kk[:, :, :256], vv[:, :, :256], is_causal=True)
                kr = kk[:, :, :256].repeat_interleave(Hq // Hkv, 1).float()
                vr = vv[:, :, :256].repeat_interleave(Hq // Hkv, 1).float()
                ref = F.scaled_dot_product_attention(q[:, :, :256].float(), kr, vr, is_causal=True)
                err = ((out.float() - ref).norm() / ref.norm()).item()
                nbytes = 2 * B * S * D * (Hq + Hkv) * 2
                s = n_sets(nbytes)
                qs = [q] + [torch.randn_like(q) for _ in range(s - 1)]
                ks = [kk] + [torch.randn_like(kk) for _ in range(s - 1)]
                vs = [vv] + [torch.randn_like(vv) for _ in range(s - 1)]
                r = bench(lambda i: sdpa_call([be], qs[i], ks[i], vs[i], is_causal=True), s)
                flops = 4.0 * B * Hq * D * S * (S + 1) / 2
                rec = record("sdpa_prefill", {"batch": B, "seq": S, "heads": Hq, "kv_heads": Hkv, "head_dim": D,
                                              "causal": True}, "bf16", r, flops, nbytes, s,
                             backend=str(be), check_rel_error=err)
                log(f"sdpa prefill B={B:2d} S={S:5d} H={Hq}/{Hkv} [{be}]: {rec['median_s'] * 1e6:9.1f} us "
                    f"{rec['achieved_flops_per_s'] / 1e12:6.1f} TFLOP/s err {err:.1e}")
                del qs, ks, vs, q, kk, vv
            try_config(f"sdpa_prefill B={B} S={S} H={Hq}/{Hkv}", one)
        flush()
    dec = [(b, L) for b in (1, 8, 32, 64, 128, 256) for L in (1024, 4096, 16384)]
    if quick:
        dec = [(8, 1024)]
    for Hq, Hkv in heads:
        for B, L in dec:
            if Hq == 64 and L != 4096:
                continue
            def one(B=B, L=L, Hq=Hq, Hkv=Hkv):
                q = torch.randn(B, Hq, 1, D, device=DEV, dtype=torch.bfloat16)
                kk = torch.randn(B, Hkv, L, D, device=DEV, dtype=torch.bfloat16)
                vv = torch.randn_like(kk)
                be = pick_backend(q, kk, vv)
                if be is None:
                    raise RuntimeError("no fused SDPA backend for GQA decode")
                out = sdpa_call([be], q[:2], kk[:2], vv[:2])  # check on two sequences, float32 reference
                ref = F.scaled_dot_product_attention(q[:2].float(), kk[:2].repeat_interleave(Hq // Hkv, 1).float(),
                                                     vv[:2].repeat_interleave(Hq // Hkv, 1).float())
                err = ((out.float() - ref).norm() / ref.norm()).item()
                nbytes = 2 * B * L * Hkv * D * 2 + 2 * B * Hq * D * 2
                s = n_sets(nbytes)
                qs = [q] + [torch.randn_like(q) for _ in range(s - 1)]
                ks = [kk] + [torch.randn_like(kk) for _ in range(s - 1)]
                vs = [vv] + [torch.randn_like(vv) for _ in range(s - 1)]
                r = bench(lambda i: sdpa_call([be], qs[i], ks[i], vs[i]), s)
                rec = record("sdpa_decode", {"batch": B, "kv_len": L, "heads": Hq, "kv_heads": Hkv, "head_dim": D},
                             "bf16", r, 4.0 * B * Hq * D * L, nbytes, s, backend=str(be), check_rel_error=err)
                if L == 4096 or B in (1, 256):
                    log(f"sdpa decode B={B:3d} L={L:5d} H={Hq}/{Hkv} [{be}]: {rec['median_s'] * 1e6:8.1f} us "
                        f"{rec['achieved_bytes_per_s'] / 1e12:5.2f} TB/s err {err:.1e}")
                del qs, ks, vs, q, kk, vv
            try_config(f"sdpa_decode B={B} L={L} H={Hq}/{Hkv}", one)
        flush()
    torch.cuda.empty_cache()


def sweep_copy(quick: bool):
    sizes = [2**i for i in range(20, 33)] if not quick else [2**20, 2**28]
    for n in sizes:
        s = n_sets(2 * n)
        src = [torch.randint(0, 255, (n,), device=DEV, dtype=torch.uint8) for _ in range(s)]
        dst = [torch.empty(n, device=DEV, dtype=torch.uint8) for _ in range(s)]
        dst[0].copy_(src[0])
        assert torch.equal(dst[0], src[0])
        r = bench(lambda i: dst[i].copy_(src[i]), s)
        rec = record("copy", {"size_bytes": n}, "uint8", r, 0.0, 2.0 * n, s)
        log(f"copy {n / 2**20:7.0f} MiB: {rec['median_s'] * 1e6:9.1f} us {rec['achieved_bytes_per_s'] / 1e12:5.2f} TB/s")
        del src, dst
    torch.cuda.empty_cache()


def sweep_launch(quick: bool):
    # Device time of an empty kernel, back to back.
    r = bench(lambda i: torch.cuda._sleep(0), 1, target_s=0.02, min_reps=200, max_reps=2000)
    record("launch", {"what": "launch_empty_kernel"}, "none", r, 0.0, 0.0, 1)
    # Host cost per launch: queue 500 empty kernels, wall time / 500 (20 repetitions).
    xs = []
    for _ in range(20):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(500):
            torch.cuda._sleep(0)
        xs.append((time.perf_counter() - t) / 500)
    torch.cuda.synchronize()
    rr = summary(xs)
    rr["clocks"] = NV.sample() if NV else None
    record("launch", {"what": "launch_host_enqueue"}, "none", rr, 0.0, 0.0, 1)
    # Eager tiny kernel in a Python loop: x.add_(1) on one element.
    x = torch.zeros(1, device=DEV)
    xs = []
    for _ in range(20):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(500):
            x.add_(1.0)
        torch.cuda.synchronize()
        xs.append((time.perf_counter() - t) / 500)
    rr = summary(xs)
    rr["clocks"] = NV.sample() if NV else None
    record("launch", {"what": "tiny_kernel_eager"}, "fp32", rr, 0.0, 8.0, 1)
    # The same 1,000 kernels captured in a CUDA graph and replayed.
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            x.add_(1.0)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(1000):
            x.add_(1.0)
    r = bench(lambda i: g.replay(), 1, target_s=0.05, min_reps=20, max_reps=100)
    for key in ("median_s", "p10_s", "p90_s", "min_s", "mean_s"):
        r[key] /= 1000
    record("launch", {"what": "tiny_kernel_graph", "kernels_per_graph": 1000}, "fp32", r, 0.0, 8.0, 1)
    for rec in RESULTS:
        if rec.get("op") == "launch":
            log(f"launch {rec['what']:22s}: median {rec['median_s'] * 1e6:7.2f} us")


def main():
    global L2, NV, OUT, ENV
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--quick", action="store_true", help="a few shapes per family (smoke test)")
    p.add_argument("--only", default="gemm,grouped,sdpa,copy,launch")
    a = p.parse_args()
    OUT = a.out
    torch.cuda.set_device(DEV)
    props = torch.cuda.get_device_properties(DEV)
    L2 = getattr(props, "L2_cache_size", L2) or L2
    NV = Nvml(0)
    ENV = environment()
    ENV["l2_bytes_used_for_rotation"] = L2
    ENV["timing"] = ("CUDA events per execution after warm-up (>= 3 calls and 10 ms); a torch.cuda._sleep "
                     "spin kernel keeps the host ahead; median/p10/p90 over >= 10 repetitions and ~80 ms")
    log(f"{props.name}, {props.multi_processor_count} SMs, L2 {L2 / 2**20:.0f} MiB")
    torch.backends.cuda.matmul.allow_tf32 = False
    fams = {"gemm": sweep_gemm, "grouped": sweep_grouped, "sdpa": sweep_sdpa, "copy": sweep_copy,
            "launch": sweep_launch}
    for name in a.only.split(","):
        t = time.perf_counter()
        guarded(name, lambda: fams[name](a.quick))
        log(f"{name} sweep done in {time.perf_counter() - t:.1f} s")
    flush()
    log(f"wrote {OUT} ({len(RESULTS)} records)")


if __name__ == "__main__":
    main()
