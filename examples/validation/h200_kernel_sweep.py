#!/usr/bin/env python3
"""Measure kernel times on one GPU for validating `roofline kernel` (and power coefficients).

Writes $OUT/kernels.json: one record per shape {kind, params, time_s (median of trials)}, and
$OUT/power.json + $OUT/smi.csv: a sustained bf16 GEMM and a sustained copy under nvidia-smi
logging, with achieved FLOP/s and bytes/s, for fitting models/power.hpp.

Timing: CUDA events around a loop of back-to-back launches (median of 5 trials); operands
rotate among enough buffers to exceed the 50 MB L2, so weights stream from DRAM as in serving.
Run: python3 examples/validation/h200_kernel_sweep.py  (needs PyTorch with CUDA).
"""
import json, os, subprocess, time
import torch

OUT = os.environ.get("OUT", ".")
dev = torch.device("cuda")
L2_BYTES = 50 * 2**20
records = []


def timed(fn, target_s=0.02, trials=5):
    """Median seconds per call of fn() over `trials` loops of back-to-back calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); fn(); e.record(); torch.cuda.synchronize()
    one = max(s.elapsed_time(e) / 1e3, 1e-6)
    n = max(1, min(2000, int(target_s / one)))
    ts = []
    for _ in range(trials):
        s.record()
        for _ in range(n):
            fn()
        e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / 1e3 / n)
    ts.sort()
    return ts[len(ts) // 2]


def copies_needed(nbytes):
    return max(1, min(16, int(4 * L2_BYTES // max(nbytes, 1)) + 1))


def rotating(make, nbytes):
    bufs = [make() for _ in range(copies_needed(nbytes))]
    i = [0]
    def nxt():
        i[0] = (i[0] + 1) % len(bufs)
        return bufs[i[0]]
    return nxt


def record(kind, params, fn):
    try:
        t = timed(fn)
        records.append({"kind": kind, "params": params, "time_s": t})
        print(kind, params, f"{t*1e6:.1f} us", flush=True)
    except Exception as ex:  # report, never hide
        records.append({"kind": kind, "params": params, "error": str(ex)[:200]})
        print(kind, params, "ERROR", str(ex)[:200], flush=True)
    torch.cuda.empty_cache()


def gemm_sweep():
    shapes = []
    for m in [1, 16, 64, 256, 1024, 4096, 16384]:
        for n, k in [(4096, 4096), (8192, 8192), (28672, 8192), (8192, 28672)]:
            shapes.append((m, n, k))
    for m, n, k in shapes:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        nb = rotating(lambda: torch.randn(k, n, device=dev, dtype=torch.bfloat16), k * n * 2)
        record("gemm", {"m": m, "n": n, "k": k, "dtype": "bf16"}, lambda: a @ nb())
    for m in [16, 1024, 4096, 16384]:
        n = k = 8192
        a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        nb = rotating(lambda: torch.randn(n, k, device=dev).to(torch.float8_e4m3fn), k * n)
        one = torch.tensor(1.0, device=dev)
        record("gemm", {"m": m, "n": n, "k": k, "dtype": "fp8"},
               lambda: torch._scaled_mm(a, nb().t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))


def moe_sweep():
    # Grouped GEMM (gate_up then down, as torch._grouped_mm does one each) over E experts.
    for experts, hidden, inter in [(32, 4096, 1536), (128, 2048, 768)]:
        for per_expert in [16, 64, 256, 1024]:
            tokens = experts * per_expert
            x = torch.randn(tokens, hidden, device=dev, dtype=torch.bfloat16)
            offs = torch.arange(1, experts + 1, device=dev, dtype=torch.int32) * per_expert
            wb = experts * hidden * inter * 2 * 3
            w1 = rotating(lambda: torch.randn(experts, hidden, 2 * inter, device=dev, dtype=torch.bfloat16), wb)
            h = torch.randn(tokens, inter, device=dev, dtype=torch.bfloat16)
            w2 = rotating(lambda: torch.randn(experts, inter, hidden, device=dev, dtype=torch.bfloat16), wb)
            def step():
                torch._grouped_mm(x, w1(), offs=offs)
                torch._grouped_mm(h, w2(), offs=offs)
            record("moe", {"experts": experts, "hidden": hidden, "inter": inter,
                           "tokens_per_expert": per_expert, "topk": 1, "dtype": "bf16"}, step)


def attention_sweep():
    F = torch.nn.functional
    for L in [1024, 4096, 16384]:
        q = torch.randn(1, 32, L, 128, device=dev, dtype=torch.bfloat16)
        k = torch.randn(1, 8, L, 128, device=dev, dtype=torch.bfloat16)
        v = torch.randn(1, 8, L, 128, device=dev, dtype=torch.bfloat16)
        record("attention", {"batch": 1, "q_len": L, "kv_len": L, "heads": 32, "kv_heads": 8,
                             "head_dim": 128, "causal": True},
               lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))
    for B in [1, 16, 64]:
        for L in [1024, 4096, 16384]:
            q = torch.randn(B, 32, 1, 128, device=dev, dtype=torch.bfloat16)
            kvb = B * 8 * L * 128 * 2 * 2
            kk = rotating(lambda: (torch.randn(B, 8, L, 128, device=dev, dtype=torch.bfloat16),
                                   torch.randn(B, 8, L, 128, device=dev, dtype=torch.bfloat16)), kvb)
            def dec():
                k, v = kk()
                F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
            record("attention", {"batch": B, "q_len": 1, "kv_len": L, "heads": 32, "kv_heads": 8,
                                 "head_dim": 128, "causal": False}, dec)


def copy_sweep():
    for nbytes in [2**20, 16 * 2**20, 256 * 2**20, 2**30, 4 * 2**30]:
        src = rotating(lambda: torch.empty(nbytes, device=dev, dtype=torch.uint8).random_(), nbytes)
        dst = torch.empty(nbytes, device=dev, dtype=torch.uint8)
        record("copy", {"bytes": nbytes}, lambda: dst.copy_(src()))


def power_run():
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,power.draw,enforced.power.limit,clocks.sm,"
                            "clocks.max.sm,clocks_event_reasons.sw_power_cap",
                            "--format=csv,noheader,nounits", "-lms", "100"],
                           stdout=open(os.path.join(OUT, "smi.csv"), "w"))
    phases = {}
    time.sleep(2)
    n = 16384
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    t0 = time.time(); iters = 0
    while time.time() - t0 < 15:
        for _ in range(20):
            a @ b
        torch.cuda.synchronize(); iters += 20
    t1 = time.time()
    phases["gemm"] = {"start": t0, "end": t1, "flops_per_s": 2 * n**3 * iters / (t1 - t0)}
    del a, b
    torch.cuda.empty_cache(); time.sleep(3)
    nbytes = 4 * 2**30
    src = torch.empty(nbytes, device=dev, dtype=torch.uint8).random_()
    dst = torch.empty_like(src)
    t0 = time.time(); iters = 0
    while time.time() - t0 < 10:
        for _ in range(20):
            dst.copy_(src)
        torch.cuda.synchronize(); iters += 20
    t1 = time.time()
    phases["copy"] = {"start": t0, "end": t1, "bytes_per_s": 2 * nbytes * iters / (t1 - t0)}
    time.sleep(3)
    phases["idle_end"] = time.time()
    smi.terminate()
    json.dump(phases, open(os.path.join(OUT, "power.json"), "w"), indent=1)
    print("power phases", phases, flush=True)


if __name__ == "__main__":
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    gemm_sweep(); moe_sweep(); attention_sweep(); copy_sweep()
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "records": records},
              open(os.path.join(OUT, "kernels.json"), "w"), indent=1)
    power_run()
