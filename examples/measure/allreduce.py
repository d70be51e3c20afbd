"""Two-GPU NCCL all-reduce through torch.distributed: a communication-bound trace and a size sweep.

1. Trace (communication-bound by construction): each step runs a small GEMM
   (x[1024, 4096] @ W[4096, 4096]^T, ~34 GFLOP) and then all-reduces a 256 MiB bf16 tensor.
   Rank 0 is profiled for a few steps near the end of a ~12 s run; nvidia-smi logs both GPUs.
2. Sweep: all_reduce (sum, bf16) of 1 KiB .. 1 GiB, out of place semantics as nccl-tests'
   in-place column (torch all_reduce is in place). For each size: 5 warm-up calls, then `iters`
   calls between two CUDA events on each rank; time = the slower rank's mean per call.
   algbw = size / time, busbw = algbw * 2(n-1)/n (nccl-tests PERFORMANCE.md definitions).

NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0 is set here as well as by the machine.

Usage: python3 allreduce.py --out DIR [--seconds 12]
Writes DIR/trace.json.gz (rank 0), DIR/nvidia_smi.csv.gz (GPUs 0 and 1), DIR/meta.json, DIR/sweep.json.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import environment, gzip_file, log, smi_log, write_json  # noqa: E402


def worker(rank: int, world: int, a):
    dev = torch.device("cuda", rank)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{a.port}", rank=rank, world_size=world,
                            device_id=dev)
    bf = torch.bfloat16
    # Correctness: sum of (rank + 1) over ranks.
    t = torch.full((1024,), float(rank + 1), device=dev)
    dist.all_reduce(t)
    expect = world * (world + 1) / 2
    assert torch.all(t == expect).item(), f"all_reduce gave {t[0].item()}, expected {expect}"

    # --- 1. communication-bound trace -------------------------------------------------------
    n = 128 * 2**20  # 128 Mi bf16 = 256 MiB
    buf = torch.randn(n, device=dev, dtype=bf)
    x = torch.randn(1024, 4096, device=dev, dtype=bf)
    w = torch.randn(4096, 4096, device=dev, dtype=bf)

    def step():
        torch.mm(x, w.t())
        dist.all_reduce(buf)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    t0 = time.time()
    steps = 0
    while True:
        # all ranks agree on when to stop (rank 0's clock decides)
        flag = torch.tensor([1 if time.time() - t0 < a.seconds * 0.8 else 0], device=dev)
        dist.broadcast(flag, 0)
        if flag.item() == 0:
            break
        for _ in range(4):
            step()
        steps += 4
        torch.cuda.synchronize()
    t_unprof = time.time() - t0
    prof_steps = 5
    trace_path = os.path.join(a.out, "trace.json")
    from torch.profiler import ProfilerActivity, profile, record_function, schedule
    if rank == 0:
        sched = schedule(wait=0, warmup=1, active=prof_steps, repeat=1)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, schedule=sched,
                     on_trace_ready=lambda pr: pr.export_chrome_trace(trace_path)) as prof:
            for _ in range(prof_steps + 1):
                with record_function("tp_step"):
                    step()
                prof.step()
    else:
        for _ in range(prof_steps + 1):
            step()
    torch.cuda.synchronize()
    t_end = time.time()
    dist.barrier()

    # --- 2. size sweep -------------------------------------------------------------------------
    sweep = []
    size = 1024
    big = torch.randn(2**29, device=dev, dtype=bf)  # 1 GiB
    while size <= 2**30:
        count = size // 2
        v = big[:count]
        iters = 50 if size <= 2**24 else (20 if size <= 2**28 else 10)
        for _ in range(5):
            dist.all_reduce(v)
        torch.cuda.synchronize()
        dist.barrier()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(iters):
            dist.all_reduce(v)
        e1.record()
        torch.cuda.synchronize()
        my = torch.tensor([e0.elapsed_time(e1) * 1e-3 / iters], device=dev, dtype=torch.float64)
        dist.all_reduce(my, op=dist.ReduceOp.MAX)
        time_s = my.item()
        algbw = size / time_s
        busbw = algbw * 2 * (world - 1) / world
        sweep.append({"size_bytes": size, "count": count, "dtype": "bf16", "redop": "sum", "iters": iters,
                      "time_s": time_s, "algbw_bytes_per_s": algbw, "busbw_bytes_per_s": busbw})
        size *= 2
    dist.barrier()
    if rank == 0:
        meta = {"world_size": world, "trace_step": "torch.mm(x[1024,4096], W[4096,4096]^T) then all_reduce "
                "of 128 Mi bf16 (256 MiB)", "unprofiled_steps": steps, "unprofiled_s": t_unprof,
                "unprofiled_step_s": t_unprof / max(steps, 1),
                "allreduce_bytes": n * 2, "gemm_flops": 2.0 * 1024 * 4096 * 4096,
                "run_start_unix": t0, "profile_end_unix": t_end, "environment": environment(),
                "nccl_env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")}}
        write_json(os.path.join(a.out, "meta.json"), meta)
        write_json(os.path.join(a.out, "sweep.json"), {
            "schema": "roofline.allreduce_sweep/1", "tool": "examples/measure/allreduce.py",
            "definitions": "time_s: slower rank's mean per call (CUDA events around `iters` back-to-back "
                           "torch.distributed.all_reduce, NCCL, in place); algbw = size/time; "
                           "busbw = algbw*2(n-1)/n (nccl-tests).",
            "world_size": world, "gpu": torch.cuda.get_device_name(dev), "environment": meta["environment"],
            "results": sweep})
        for r in sweep:
            if r["size_bytes"] in (2**10, 2**20, 2**24, 2**28, 2**30):
                log(f"all_reduce {r['size_bytes']:>11d} B: {r['time_s'] * 1e6:10.1f} us  algbw "
                    f"{r['algbw_bytes_per_s'] / 1e9:7.1f} GB/s  busbw {r['busbw_bytes_per_s'] / 1e9:7.1f} GB/s")
        log(f"trace step {t_unprof / max(steps, 1) * 1e3:.2f} ms ({steps} unprofiled steps)")
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=12.0)
    p.add_argument("--port", type=int, default=29531)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    world = torch.cuda.device_count()
    if world < 2:
        raise SystemExit(f"needs 2 GPUs, found {world}")
    world = 2
    smi = os.path.join(a.out, "nvidia_smi.csv")
    with smi_log(smi, "0,1"):
        mp.spawn(worker, args=(world, a), nprocs=world, join=True)
    gzip_file(smi)
    tp = os.path.join(a.out, "trace.json")
    if os.path.exists(tp):
        gzip_file(tp)
    log("all-reduce done")


if __name__ == "__main__":
    main()
