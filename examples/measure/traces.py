"""Kineto traces of four workloads whose bottleneck is known by construction, each with a
100 ms nvidia-smi log over the whole run (the trace covers only a few steps near its end, so it
stays small and sees the steady state: clocks and power settled).

  gemm_power      bf16 16384^3 GEMMs back to back for ~25 s: the 700 W cap pulls the SM clock
                  down (power-bound).
  elementwise     z = x + y over 1 Gi bf16 elements (6 GiB moved per op): memory-bound.
  decode_attention SDPA decode, batch 64, 32 query / 8 KV heads, context 8192, bf16: memory-bound.
  tiny_kernels    a Python loop of 1-element adds and multiplies: latency (launch) bound.

Usage: python3 traces.py NAME --out DIR [--seconds S]
Writes DIR/trace.json.gz, DIR/nvidia_smi.csv.gz, DIR/meta.json.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import environment, gzip_file, log, smi_log, write_json  # noqa: E402

DEV = torch.device("cuda", 0)


def workload(name: str):
    """Returns (step function, per-step work description, ops per step, default seconds)."""
    bf = torch.bfloat16
    if name == "gemm_power":
        n = 16384
        a = torch.randn(n, n, device=DEV, dtype=bf)
        b = torch.randn(n, n, device=DEV, dtype=bf)
        c = torch.empty(n, n, device=DEV, dtype=bf)

        def step():
            for _ in range(4):
                torch.mm(a, b, out=c)
        return step, {"op": "gemm", "m": n, "n": n, "k": n, "dtype": "bf16", "per_step": 4,
                      "flops_per_op": 2.0 * n**3, "bytes_per_op": 3 * n * n * 2}, 25.0
    if name == "elementwise":
        n = 2**30
        x = torch.randn(n, device=DEV, dtype=bf)
        y = torch.randn(n, device=DEV, dtype=bf)
        z = torch.empty(n, device=DEV, dtype=bf)

        def step():
            for _ in range(5):
                torch.add(x, y, out=z)
        return step, {"op": "add", "elements": n, "dtype": "bf16", "per_step": 5,
                      "flops_per_op": float(n), "bytes_per_op": 3 * n * 2}, 10.0
    if name == "decode_attention":
        B, Hq, Hkv, L, D = 64, 32, 8, 8192, 128
        q = torch.randn(B, Hq, 1, D, device=DEV, dtype=bf)
        k = torch.randn(B, Hkv, L, D, device=DEV, dtype=bf)
        v = torch.randn_like(k)

        from torch.nn.attention import SDPBackend, sdpa_kernel
        fused = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]

        def step():
            with sdpa_kernel(fused):  # never the unfused math path
                for _ in range(10):
                    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return step, {"op": "sdpa_decode", "batch": B, "heads": Hq, "kv_heads": Hkv, "kv_len": L, "head_dim": D,
                      "dtype": "bf16", "per_step": 10, "flops_per_op": 4.0 * B * Hq * D * L,
                      "bytes_per_op": 2 * B * Hkv * L * D * 2 + 2 * B * Hq * D * 2}, 10.0
    if name == "tiny_kernels":
        x = torch.randn(1024, device=DEV)
        y = torch.randn(1024, device=DEV)

        def step():
            nonlocal x
            for _ in range(100):
                x = x * 0.999 + y
        return step, {"op": "mul+add on 1024 fp32", "per_step": 200, "flops_per_op": 1024.0,
                      "bytes_per_op": 3 * 1024 * 4}, 8.0
    raise SystemExit(f"unknown workload {name}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=0.0)
    p.add_argument("--profile-steps", type=int, default=0)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.cuda.set_device(DEV)
    step, work, default_s = workload(a.name)
    seconds = a.seconds or default_s
    prof_steps = a.profile_steps or {"gemm_power": 3, "elementwise": 5, "decode_attention": 5,
                                     "tiny_kernels": 5}[a.name]
    smi_path = os.path.join(a.out, "nvidia_smi.csv")
    trace_path = os.path.join(a.out, "trace.json")
    meta = {"workload": a.name, "work": work, "environment": environment(), "argv": sys.argv}
    with smi_log(smi_path, "0") as cmd:
        meta["nvidia_smi_command"] = " ".join(cmd)
        for _ in range(2):
            step()  # warm-up: cuBLAS handles, kernels loaded
        torch.cuda.synchronize()
        t0 = time.time()
        steps = 0
        # Unprofiled until the last ~15 % of the run (at least 1 s left), then profile a few steps.
        while time.time() - t0 < seconds * 0.85:
            step()
            steps += 1
            if steps % 4 == 0:
                torch.cuda.synchronize()  # keep the queue short so wall time tracks device time
        torch.cuda.synchronize()
        t_unprof = time.time() - t0
        meta["unprofiled_steps"] = steps
        meta["unprofiled_s"] = t_unprof
        meta["unprofiled_ops_per_s"] = steps * work["per_step"] / t_unprof
        sched = schedule(wait=0, warmup=1, active=prof_steps, repeat=1)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                     schedule=sched, on_trace_ready=lambda pr: pr.export_chrome_trace(trace_path)) as prof:
            for i in range(prof_steps + 1):
                with record_function(f"{a.name}_step"):
                    step()
                prof.step()
        torch.cuda.synchronize()
        t_end = time.time()
        # Run on to the full length so the log's tail matches the trace's conditions.
        while time.time() - t0 < seconds:
            step()
            torch.cuda.synchronize()
        meta["run_start_unix"] = t0
        meta["profile_end_unix"] = t_end
        meta["run_end_unix"] = time.time()
    gzip_file(smi_path)
    if os.path.exists(trace_path):
        gzip_file(trace_path)
    ops_s = meta["unprofiled_ops_per_s"]
    meta["achieved_flops_per_s"] = ops_s * work["flops_per_op"]
    meta["achieved_bytes_per_s"] = ops_s * work["bytes_per_op"]
    write_json(os.path.join(a.out, "meta.json"), meta)
    log(f"{a.name}: {steps} steps in {t_unprof:.1f} s, {ops_s:.1f} ops/s, "
        f"{meta['achieved_flops_per_s'] / 1e12:.1f} TFLOP/s, {meta['achieved_bytes_per_s'] / 1e12:.2f} TB/s; "
        f"trace {os.path.getsize(trace_path + '.gz') / 1e3 if os.path.exists(trace_path + '.gz') else 0:.0f} KB gz")


if __name__ == "__main__":
    main()
