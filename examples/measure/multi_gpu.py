"""Multi-GPU recordings for the cluster analysis (issue 17): per-rank Kineto traces of tensor- and
expert-parallel work, a known straggler, and collective bus-bandwidth sweeps.

NOT YET RUN: written while no multi-GPU machine was lent (2026-12-01). Run it on a machine with
4 or 8 GPUs as `python3 multi_gpu.py STAGE --out DIR [--gpus N]`; it spawns one process per GPU
(NCCL backend; NVLink multicast stays off: NCCL_NVLS_ENABLE=0 and friends are set below) and
rank 0 logs every GPU with nvidia-smi at 100 ms.

Stages (each writes DIR/<stage>/rank<R>.trace.json.gz, nvidia_smi.csv.gz, meta.json):
  tp_decode      Llama-3.1-70B-shaped TP decode (hidden 8192, 64/8 heads of 128, FFN 28672,
                 --layers of them, random bf16), batch 1 and 64, eager and one CUDA graph per
                 step: an all-reduce after attention and after the MLP of every layer.
  ep_moe         a DeepSeek-V3-shaped MoE layer (hidden 7168, expert FFN 2048, 256 experts,
                 top-8) with experts split over the ranks: all-to-all dispatch, grouped GEMM,
                 all-to-all combine; uniform routing, then skewed (rank 1's experts get 3x the tokens).
  straggler      tp_decode (batch 64, eager) with rank 1 spinning --delay-us before each
                 all-reduce of the MLP: a known straggler and a known wait on every other rank.
  busbw          all-reduce and all-to-all, 8 B .. 4 GiB, written as nccl-tests text
                 (DIR/busbw/all_reduce_perf.txt, alltoall_perf.txt) for `roofline calibrate`.
The expected answers go into each folder's README before `roofline trace` is run on it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import environment, gzip_file, quantile, smi_log, write_json  # noqa: E402

BF = torch.bfloat16
L70 = dict(hidden=8192, heads=64, kv_heads=8, head_dim=128, inter=28672)


class TPDecoder:
    """One rank's shard of a Llama-70B-shaped decoder (column/row parallel, Megatron style)."""

    def __init__(self, rank, world, B, L, layers, dev):
        c = L70
        self.B, self.world, self.dev = B, world, dev
        self.hq, self.hkv = c["heads"] // world, max(1, c["kv_heads"] // world)
        d, h, i = c["head_dim"], c["hidden"], c["inter"] // world
        g = torch.Generator(device=dev)
        g.manual_seed(rank)
        r = lambda *s: torch.randn(*s, device=dev, dtype=BF, generator=g) * 0.02
        self.layers = [dict(wqkv=r((self.hq + 2 * self.hkv) * d, h), wo=r(h, self.hq * d), wgu=r(2 * i, h),
                            wd=r(h, i), kc=r(B, self.hkv, L, d), vc=r(B, self.hkv, L, d))
                       for _ in range(layers)]
        self.ln = torch.ones(h, device=dev, dtype=BF)
        self.x = torch.randn(B, h, device=dev, dtype=BF)
        self.delay_cycles = 0

    def step(self):
        c, B, d = L70, self.B, L70["head_dim"]
        x = self.x
        for p in self.layers:
            hn = F.rms_norm(x, (c["hidden"],), self.ln, 1e-5)
            qkv = hn @ p["wqkv"].t()
            q = qkv[:, :self.hq * d].view(B, self.hq, 1, d)
            o = F.scaled_dot_product_attention(q, p["kc"], p["vc"], enable_gqa=self.hq != self.hkv)
            a = o.reshape(B, -1) @ p["wo"].t()
            dist.all_reduce(a)
            x = x + a
            hn = F.rms_norm(x, (c["hidden"],), self.ln, 1e-5)
            gu = hn @ p["wgu"].t()
            i = gu.shape[1] // 2
            m = (F.silu(gu[:, :i]) * gu[:, i:]) @ p["wd"].t()
            if self.delay_cycles:
                torch.cuda._sleep(self.delay_cycles)  # the injected straggler
            dist.all_reduce(m)
            x = x + m
        self.x.copy_(x)


def graphed(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def record(step, out, rank, steps=5, seconds=3.0):
    """Times the steps unprofiled (events, median), then writes rank<R>.trace.json.gz."""
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    ts, t0 = [], time.time()
    while time.time() - t0 < seconds or len(ts) < 5:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        step()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e-3)
    dist.barrier()
    path = os.path.join(out, f"rank{rank}.trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    gzip_file(path)
    return {"step_time_s": {"median": quantile(ts, 0.5), "p10": quantile(ts, 0.1), "p90": quantile(ts, 0.9)},
            "timed_steps": len(ts)}


def ep_moe_step(rank, world, dev, T, skew):
    """Builds one rank's MoE layer; returns its step function."""
    H, I, E, k = 7168, 2048, 256, 8
    El = E // world
    g = torch.Generator(device=dev)
    g.manual_seed(100 + rank)
    w13 = torch.randn(El, 2 * I, H, device=dev, dtype=BF, generator=g) * 0.02
    w2 = torch.randn(El, H, I, device=dev, dtype=BF, generator=g) * 0.02
    x = torch.randn(T, H, device=dev, dtype=BF, generator=g)
    p = torch.ones(E, device=dev)
    if skew:
        p[El:2 * El] = 3.0  # rank 1's experts get 3x the tokens
    ids = torch.multinomial(p.expand(T, E), k, replacement=False, generator=g)

    def step():
        flat = ids.reshape(-1)
        order = torch.argsort(flat)
        dest = flat[order] // El
        send_counts = torch.bincount(dest, minlength=world)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        sc, rc = send_counts.tolist(), recv_counts.tolist()
        xs = x.index_select(0, order // k)
        recv = torch.empty(sum(rc), H, device=dev, dtype=BF)
        dist.all_to_all_single(recv, xs, rc, sc)  # dispatch
        eid = torch.empty(sum(rc), device=dev, dtype=flat.dtype)
        dist.all_to_all_single(eid, flat[order] % El, rc, sc)
        o2 = torch.argsort(eid)
        counts = torch.bincount(eid, minlength=El)
        offs = torch.cumsum(counts, 0, dtype=torch.int32)
        h1 = torch._grouped_mm(recv[o2], w13.transpose(-2, -1), offs=offs)
        y = torch._grouped_mm(F.silu(h1[:, :I]) * h1[:, I:], w2.transpose(-2, -1), offs=offs)
        back = torch.empty_like(y)
        back[o2] = y
        out = torch.empty(T * k, H, device=dev, dtype=BF)
        dist.all_to_all_single(out, back, sc, rc)  # combine
        return out
    return step


def busbw(rank, world, dev, out):
    """nccl-tests-style tables (size, count, type, redop, root, time, algbw, busbw, #wrong)."""
    lines = {"all_reduce_perf.txt": [], "alltoall_perf.txt": []}
    size = 8
    while size <= 4 << 30:
        n = size // 2
        t = torch.randn(n, device=dev, dtype=BF)
        o = torch.empty_like(t)
        for name, fn, factor in (("all_reduce_perf.txt", lambda: dist.all_reduce(t), 2 * (world - 1) / world),
                                 ("alltoall_perf.txt", lambda: dist.all_to_all_single(o, t) if n % world == 0 else None,
                                  (world - 1) / world)):
            if name == "alltoall_perf.txt" and n % world:
                continue
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            iters = 20 if size < (64 << 20) else 5
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(iters):
                fn()
            e.record()
            e.synchronize()
            us = s.elapsed_time(e) * 1e3 / iters
            algbw = size / (us * 1e-6) / 1e9
            lines[name].append(f"{size:>12} {n:>12}  bfloat16     sum      -1 {us:8.1f} {algbw:6.2f} {algbw * factor:6.2f}      0")
        size *= 4
    if rank == 0:
        for name, rows in lines.items():
            with open(os.path.join(out, name), "w") as f:
                f.write(f"# nccl-tests format, written by multi_gpu.py busbw (torch.distributed, {world} GPUs, 1 node)\n")
                f.write(f"#  Rank  0 Group  0 Pid {os.getpid()} on localhost device  0 [0x00] {torch.cuda.get_device_name(0)}\n")
                f.write("#       size        count      type   redop    root     time   algbw   busbw #wrong\n")
                f.write("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n")
                f.write("\n".join(rows) + "\n")


def worker(rank, world, a):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533", RANK=str(rank), WORLD_SIZE=str(world),
                      LOCAL_RANK=str(rank))
    dev = torch.device("cuda", rank)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    meta = {"stage": a.stage, "world": world, "rank": rank, "environment": environment() if rank == 0 else None}
    out = os.path.join(a.out, a.stage)
    os.makedirs(out, exist_ok=True)
    runs = {}
    if a.stage in ("tp_decode", "straggler"):
        for B, mode in ([(64, "eager")] if a.stage == "straggler" else [(1, "eager"), (1, "graph"), (64, "eager"), (64, "graph")]):
            m = TPDecoder(rank, world, B, 4096, a.layers, dev)
            if a.stage == "straggler" and rank == 1:
                m.delay_cycles = int(a.delay_us * 1.98e3)  # ~1980 cycles per us at full clock
            step = graphed(m.step) if mode == "graph" else m.step
            sub = os.path.join(out, f"b{B}_{mode}")
            os.makedirs(sub, exist_ok=True)
            runs[f"b{B}_{mode}"] = record(step, sub, rank)
            del m
            torch.cuda.empty_cache()
    elif a.stage == "ep_moe":
        for skew in (False, True):
            sub = os.path.join(out, "skewed" if skew else "uniform")
            os.makedirs(sub, exist_ok=True)
            runs[os.path.basename(sub)] = record(ep_moe_step(rank, world, dev, 512, skew), sub, rank)
    elif a.stage == "busbw":
        busbw(rank, world, dev, out)
    meta["runs"] = runs
    write_json(os.path.join(out, f"meta_rank{rank}.json"), meta)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stage", choices=("tp_decode", "ep_moe", "straggler", "busbw"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--delay-us", type=float, default=200.0)
    a = ap.parse_args()
    if a.gpus < 2:
        raise SystemExit(f"multi_gpu.py needs at least 2 GPUs; this machine has {a.gpus}")
    os.makedirs(os.path.join(a.out, a.stage), exist_ok=True)
    gpus = ",".join(str(i) for i in range(a.gpus))
    with smi_log(os.path.join(a.out, a.stage, "nvidia_smi.csv"), gpus):
        mp.spawn(worker, args=(a.gpus, a), nprocs=a.gpus, join=True)
    gzip_file(os.path.join(a.out, a.stage, "nvidia_smi.csv"))


if __name__ == "__main__":
    main()
