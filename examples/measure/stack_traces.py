"""Traces of the stacks people serve with, each with its truth measured outside the profiler.

Every workload is a step function whose work (FLOP, bytes) is counted by hand below. The script
times the steps unprofiled first (CUDA events around each step, median), with nvidia-smi logging
at 100 ms over the whole run, then records a few steps with the PyTorch profiler (Kineto,
record_shapes) or, with --nsys, brackets them with cudaProfilerStart/Stop for
`nsys profile --capture-range=cudaProfilerApi` (run_stacks.sh does that).

  graph_decode_b8     decode step of a 4-layer Llama-shaped model (hidden 4096, GQA 32/8,
                      FFN 14336, vocab 32768, bf16), batch 8, context 2048, replayed from ONE
                      CUDA graph per step (as vLLM/SGLang decode): weight-streaming, memory-bound.
  graph_decode_b128   the same, batch 128, context 1024.
  piecewise_decode    the same model, batch 32, context 2048: per layer two CUDA graphs (norm+QKV,
                      O-proj+MLP) with the attention run eagerly between them (vLLM's piecewise
                      graphs).
  eager_decode_b8     the graph_decode_b8 step run eagerly (thousands of launches per second).
  compile_block       torch.compile (default mode) of a prefill transformer block (4 x 1024 tokens):
                      Inductor's triton_poi/red/per kernels around cuBLAS GEMMs.
  compile_autotune    the same block, mode="max-autotune-no-cudagraphs" with Triton GEMM templates
                      only (triton_tem_* kernels).
  sdpa_flash_prefill  causal SDPA prefill, flash backend, B 4, 32 heads, 4096 tokens, head dim 128.
  flex_prefill        the same attention through FlexAttention (compiled), causal block mask.
  fp8_gemm            torch._scaled_mm e4m3 x e4m3 -> bf16, 8192^3, per-tensor scales.
  moe_grouped         a MoE layer at decode batch 256: router GEMM, top-8 of 64 experts, sort,
                      torch._grouped_mm gate_up and down (hidden 4096, expert FFN 1536), combine.
  h2d_pinned          1 GiB host-to-device copies from pinned memory (host link bound).
  h2d_pageable        the same from pageable memory.
  overlap_streams     8 bf16 8192^3 GEMMs on one stream while 2 x 256 MiB pinned H2D copies run on another.

Usage: python3 stack_traces.py NAME --out DIR [--nsys] [--steps N]
Writes DIR/trace.json.gz (Kineto) or nothing (nsys writes its report), DIR/nvidia_smi.csv.gz,
DIR/meta.json (work per step, measured step time and rates, wall-clock bounds).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import environment, gzip_file, log, quantile, smi_log, write_json  # noqa: E402

DEV = torch.device("cuda", 0)
BF = torch.bfloat16

# The 4-layer Llama-shaped model (config written next to the traces as config.json).
CFG = dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, inter=14336, layers=4, vocab=32768)


def hf_config() -> dict:
    """The Hugging Face config.json of the decode model (for `roofline trace --model`)."""
    c = CFG
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": c["hidden"],
            "intermediate_size": c["inter"], "num_attention_heads": c["heads"],
            "num_key_value_heads": c["kv_heads"], "head_dim": c["head_dim"], "num_hidden_layers": c["layers"],
            "vocab_size": c["vocab"], "tie_word_embeddings": False, "torch_dtype": "bfloat16",
            "rms_norm_eps": 1e-5, "max_position_embeddings": 8192, "hidden_act": "silu"}


def decode_work(B: int, L: int) -> dict:
    """Hand count for one decode step: weights read once, KV cache read once, GEMM FLOP."""
    c = CFG
    h, q, kv, i = c["hidden"], c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["inter"]
    layer_params = h * (q + 2 * kv) + q * h + h * 2 * i + i * h
    params = c["layers"] * layer_params + c["vocab"] * h  # + LM head (embedding gather is B rows)
    kv_bytes = c["layers"] * B * L * 2 * kv * 2
    gemm_flops = 2.0 * B * params
    attn_flops = c["layers"] * 4.0 * B * c["heads"] * c["head_dim"] * L
    return {"batch": B, "context": L, "weight_bytes": params * 2, "kv_cache_bytes": kv_bytes,
            "bytes_per_step": params * 2 + kv_bytes, "flops_per_step": gemm_flops + attn_flops,
            "gemm_flops": gemm_flops, "attention_flops": attn_flops}


class Decoder:
    """Random-weight decode model with a static KV cache of `L` positions per sequence."""

    def __init__(self, B: int, L: int):
        c = CFG
        h, q, kv, i = c["hidden"], c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["inter"]
        g = torch.Generator(device=DEV)
        g.manual_seed(0)
        r = lambda *s: (torch.randn(*s, device=DEV, dtype=BF, generator=g) * 0.02)
        self.B, self.L = B, L
        self.emb = r(c["vocab"], h)
        self.layers = [dict(ln1=torch.ones(h, device=DEV, dtype=BF), wqkv=r(q + 2 * kv, h), wo=r(h, q),
                            ln2=torch.ones(h, device=DEV, dtype=BF), wgu=r(2 * i, h), wd=r(h, i),
                            kc=r(B, c["kv_heads"], L, c["head_dim"]), vc=r(B, c["kv_heads"], L, c["head_dim"]))
                       for _ in range(c["layers"])]
        self.lnf = torch.ones(h, device=DEV, dtype=BF)
        self.lm = r(c["vocab"], h)
        self.tokens = torch.randint(0, c["vocab"], (B,), device=DEV)
        self.pos = torch.tensor([L - 1], device=DEV)
        ang = torch.arange(c["head_dim"] // 2, device=DEV, dtype=torch.float32) * 1e-3
        self.cos = torch.cat([ang.cos(), ang.cos()]).to(BF)
        self.sin = torch.cat([ang.sin(), ang.sin()]).to(BF)
        self.backend = None

    def rope(self, t):
        d = t.shape[-1] // 2
        return t * self.cos + torch.cat([-t[..., d:], t[..., :d]], dim=-1) * self.sin

    def pre_attn(self, x, p):
        c = CFG
        hn = F.rms_norm(x, (c["hidden"],), p["ln1"], 1e-5)
        qkv = hn @ p["wqkv"].t()
        qd, kvd = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
        q = self.rope(qkv[:, :qd].view(self.B, c["heads"], 1, c["head_dim"]))
        k = self.rope(qkv[:, qd:qd + kvd].view(self.B, c["kv_heads"], 1, c["head_dim"]))
        v = qkv[:, qd + kvd:].reshape(self.B, c["kv_heads"], 1, c["head_dim"])
        p["kc"].index_copy_(2, self.pos, k)
        p["vc"].index_copy_(2, self.pos, v)
        return q

    def attn(self, q, p):
        from torch.nn.attention import sdpa_kernel
        with sdpa_kernel([self.backend]):
            return F.scaled_dot_product_attention(q, p["kc"], p["vc"], enable_gqa=True)

    def post_attn(self, x, o, p):
        c = CFG
        x = x + o.reshape(self.B, -1) @ p["wo"].t()
        hn = F.rms_norm(x, (c["hidden"],), p["ln2"], 1e-5)
        gu = hn @ p["wgu"].t()
        a = F.silu(gu[:, :c["inter"]]) * gu[:, c["inter"]:]
        return x + a @ p["wd"].t()

    def head(self, x):
        x = F.rms_norm(x, (CFG["hidden"],), self.lnf, 1e-5)
        logits = x @ self.lm.t()
        self.tokens.copy_(torch.argmax(logits, dim=-1))

    def step(self):
        x = F.embedding(self.tokens, self.emb)
        for p in self.layers:
            q = self.pre_attn(x, p)
            x = self.post_attn(x, self.attn(q, p), p)
        self.head(x)

    def pick_backend(self):
        from torch.nn.attention import SDPBackend
        p = self.layers[0]
        q = torch.randn(self.B, CFG["heads"], 1, CFG["head_dim"], device=DEV, dtype=BF)
        for b in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
            try:
                self.backend = b
                self.attn(q, p)
                torch.cuda.synchronize()
                return str(b)
            except Exception:
                continue
        raise RuntimeError("no fused SDPA backend for GQA decode")


def capture(fn, warm: int = 3):
    """A CUDA graph of fn() (captured on a side stream after warm-up, as torch.cuda.graph does)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warm):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    return g


def decode_workload(name: str):
    B, L = {"graph_decode_b8": (8, 2048), "graph_decode_b128": (128, 1024), "piecewise_decode": (32, 2048),
            "eager_decode_b8": (8, 2048)}[name]
    m = Decoder(B, L)
    backend = m.pick_backend()
    work = {"op": "llama4l_decode", **decode_work(B, L), "sdpa_backend": backend, "model": CFG}
    if name.startswith("graph_decode"):
        g = capture(m.step)
        work["graphs_per_step"] = 1
        return g.replay, work
    if name == "eager_decode_b8":
        work["graphs_per_step"] = 0
        return m.step, work
    # piecewise: static buffers between the pieces
    xs = torch.zeros(B, CFG["hidden"], device=DEV, dtype=BF)
    qs = torch.zeros(B, CFG["heads"], 1, CFG["head_dim"], device=DEV, dtype=BF)
    os_ = torch.zeros_like(qs)
    g_emb = capture(lambda: xs.copy_(F.embedding(m.tokens, m.emb)))
    pieces = []
    for p in m.layers:
        g1 = capture(lambda p=p: qs.copy_(m.pre_attn(xs, p)))
        g2 = capture(lambda p=p: xs.copy_(m.post_attn(xs, os_, p)))
        pieces.append((p, g1, g2))
    g_head = capture(lambda: m.head(xs))

    def step():
        g_emb.replay()
        for p, g1, g2 in pieces:
            g1.replay()
            os_.copy_(m.attn(qs, p))  # eager attention between the graphs
            g2.replay()
        g_head.replay()
    work["graphs_per_step"] = 2 + 2 * CFG["layers"]
    return step, work


class Block(torch.nn.Module):
    """One Llama-shaped transformer block over [B, S, hidden] (prefill, causal)."""

    def __init__(self):
        super().__init__()
        c = CFG
        h, q, kv, i = c["hidden"], c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["inter"]
        self.ln1 = torch.nn.RMSNorm(h, eps=1e-5)
        self.ln2 = torch.nn.RMSNorm(h, eps=1e-5)
        self.wqkv = torch.nn.Linear(h, q + 2 * kv, bias=False)
        self.wo = torch.nn.Linear(q, h, bias=False)
        self.wgu = torch.nn.Linear(h, 2 * i, bias=False)
        self.wd = torch.nn.Linear(i, h, bias=False)

    def forward(self, x):
        c = CFG
        B, S, _ = x.shape
        qd, kvd = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
        qkv = self.wqkv(self.ln1(x))
        q = qkv[..., :qd].view(B, S, c["heads"], c["head_dim"]).transpose(1, 2)
        k = qkv[..., qd:qd + kvd].view(B, S, c["kv_heads"], c["head_dim"]).transpose(1, 2)
        v = qkv[..., qd + kvd:].reshape(B, S, c["kv_heads"], c["head_dim"]).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.wo(o.transpose(1, 2).reshape(B, S, qd))
        gu = self.wgu(self.ln2(x))
        return x + self.wd(F.silu(gu[..., :c["inter"]]) * gu[..., c["inter"]:])


def block_work(B: int, S: int) -> dict:
    c = CFG
    h, q, kv, i = c["hidden"], c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["inter"]
    params = h * (q + 2 * kv) + q * h + h * 2 * i + i * h
    T = B * S
    gemm = 2.0 * T * params
    attn = 4.0 * B * c["heads"] * c["head_dim"] * S * (S + 1) / 2
    # DRAM floor: weights once, activations in/out of each GEMM once (bf16)
    act = 2 * T * (h + (q + 2 * kv) + q + h + h + 2 * i + i + h)
    return {"tokens": T, "batch": B, "seq": S, "gemm_flops": gemm, "attention_flops": attn,
            "flops_per_step": gemm + attn, "bytes_per_step": params * 2 + act}


def compile_workload(name: str):
    import torch._inductor.config as icfg
    blk = Block().to(DEV, BF)
    B, S = 4, 1024
    x = torch.randn(B, S, CFG["hidden"], device=DEV, dtype=BF)
    if name == "compile_autotune":
        icfg.max_autotune_gemm_backends = "TRITON"  # Triton GEMM templates (triton_tem_*) only
        f = torch.compile(blk, mode="max-autotune-no-cudagraphs")
    else:
        f = torch.compile(blk)
    with torch.no_grad():
        t0 = time.time()
        f(x)
        torch.cuda.synchronize()
        compile_s = time.time() - t0

    def step():
        with torch.no_grad():
            f(x)
    return step, {"op": "transformer_block_prefill", **block_work(B, S), "compile_s": compile_s,
                  "mode": "max-autotune-no-cudagraphs (TRITON gemm)" if name == "compile_autotune" else "default"}


def attention_workload(name: str):
    B, H, S, D = 4, 32, 4096, 128
    q = torch.randn(B, H, S, D, device=DEV, dtype=BF)
    k = torch.randn_like(q)
    v = torch.randn_like(q)
    flops = 4.0 * B * H * D * S * (S + 1) / 2
    work = {"op": "causal_attention_prefill", "batch": B, "heads": H, "seq": S, "head_dim": D,
            "flops_per_step": flops, "bytes_per_step": 4 * B * H * S * D * 2}
    if name == "sdpa_flash_prefill":
        from torch.nn.attention import SDPBackend, sdpa_kernel

        def step():
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                F.scaled_dot_product_attention(q, k, v, is_causal=True)
        work["backend"] = "flash"
        return step, work
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    mask = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, S, S, device=DEV)
    fa = torch.compile(flex_attention)
    t0 = time.time()
    fa(q, k, v, block_mask=mask)
    torch.cuda.synchronize()
    work["compile_s"] = time.time() - t0
    work["backend"] = "flex_attention (compiled)"
    return (lambda: fa(q, k, v, block_mask=mask)), work


def gemm_workloads(name: str):
    if name == "fp8_gemm":
        n = 8192
        a = torch.randn(n, n, device=DEV, dtype=BF).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=DEV, dtype=BF).to(torch.float8_e4m3fn)
        one = torch.tensor(1.0, device=DEV)

        def step():
            for _ in range(4):
                torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=BF)
        return step, {"op": "fp8_gemm", "m": n, "n": n, "k": n, "per_step": 4,
                      "flops_per_step": 4 * 2.0 * n**3, "bytes_per_step": 4 * (2 * n * n + 2 * n * n)}
    # moe_grouped
    T, E, H, I, k = 256, 64, 4096, 1536, 8
    g = torch.Generator(device=DEV)
    g.manual_seed(1)
    x = torch.randn(T, H, device=DEV, dtype=BF, generator=g)
    wr = torch.randn(E, H, device=DEV, dtype=BF, generator=g) * 0.02
    w13 = torch.randn(E, 2 * I, H, device=DEV, dtype=BF, generator=g) * 0.02
    w2 = torch.randn(E, H, I, device=DEV, dtype=BF, generator=g) * 0.02

    def step():
        logits = x @ wr.t()
        wts, ids = torch.topk(torch.softmax(logits.float(), dim=-1), k, dim=-1)
        flat = ids.reshape(-1)
        order = torch.argsort(flat)
        counts = torch.bincount(flat, minlength=E)
        offs = torch.cumsum(counts, 0, dtype=torch.int32)
        xs = x.index_select(0, order // k)
        h1 = torch._grouped_mm(xs, w13.transpose(-2, -1), offs=offs)
        a = F.silu(h1[:, :I]) * h1[:, I:]
        y = torch._grouped_mm(a, w2.transpose(-2, -1), offs=offs)
        out = torch.zeros(T, H, device=DEV, dtype=torch.float32)
        out.index_add_(0, order // k, (y.float() * wts.reshape(-1)[order, None]))
        return out
    rows = T * k
    wbytes = E * 3 * H * I * 2  # all 64 experts get tokens at 2048 routed rows
    return step, {"op": "moe_layer", "tokens": T, "experts": E, "topk": k, "hidden": H, "inter": I,
                  "flops_per_step": 2.0 * rows * H * 3 * I + 2.0 * T * H * E,
                  "bytes_per_step": wbytes + E * H * 2 + rows * (H + 3 * I + H) * 2}


def copy_workloads(name: str):
    if name in ("h2d_pinned", "h2d_pageable"):
        n = 1 << 30
        host = torch.empty(n, dtype=torch.uint8, pin_memory=(name == "h2d_pinned"))
        host.fill_(0x5A)  # DMA does not care about the values; fill_ is fast on 1 GiB
        dev = torch.empty(n, dtype=torch.uint8, device=DEV)

        def step():
            for _ in range(2):
                dev.copy_(host, non_blocking=(name == "h2d_pinned"))
        return step, {"op": "h2d_copy", "pinned": name == "h2d_pinned", "bytes_per_copy": n, "per_step": 2,
                      "bytes_per_step": 2 * n, "host_link_bytes_per_step": 2 * n, "flops_per_step": 0}
    # overlap_streams
    n = 8192
    a = torch.randn(n, n, device=DEV, dtype=BF)
    b = torch.randn(n, n, device=DEV, dtype=BF)
    c = torch.empty(n, n, device=DEV, dtype=BF)
    m = 256 << 20
    host = torch.empty(m, dtype=torch.uint8, pin_memory=True)
    host.fill_(0x5A)
    dst = torch.empty(m, dtype=torch.uint8, device=DEV)
    side = torch.cuda.Stream()

    def step():
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                dst.copy_(host, non_blocking=True)
        for _ in range(8):
            torch.mm(a, b, out=c)
        torch.cuda.current_stream().wait_stream(side)
    return step, {"op": "gemm_and_h2d_overlap", "gemms_per_step": 8, "copies_per_step": 2,
                  "copy_bytes": m, "flops_per_step": 8 * 2.0 * n**3, "gemm_bytes_per_step": 8 * 3 * n * n * 2,
                  "host_link_bytes_per_step": 2 * m}


def workload(name: str):
    if "decode" in name:
        return decode_workload(name)
    if name.startswith("compile"):
        return compile_workload(name)
    if name in ("sdpa_flash_prefill", "flex_prefill"):
        return attention_workload(name)
    if name in ("fp8_gemm", "moe_grouped"):
        return gemm_workloads(name)
    if name in ("h2d_pinned", "h2d_pageable", "overlap_streams"):
        return copy_workloads(name)
    raise SystemExit(f"unknown workload {name}")


def timed_steps(step, seconds: float) -> list[float]:
    """Per-step device-inclusive times (CUDA events), unprofiled, for about `seconds`."""
    ts = []
    t0 = time.time()
    while time.time() - t0 < seconds or len(ts) < 5:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        step()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e-3)
    return ts


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--nsys", action="store_true", help="cudaProfilerStart/Stop around the steps, no Kineto")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.cuda.set_device(DEV)
    torch.manual_seed(0)
    meta = {"workload": a.name, "environment": environment(), "argv": sys.argv, "profiled_steps": a.steps,
            "capture": "nsys (cudaProfilerApi range)" if a.nsys else "kineto (record_shapes=True)"}
    smi_path = os.path.join(a.out, "nvidia_smi.csv")
    trace_path = os.path.join(a.out, "trace.json")
    with smi_log(smi_path, "0") as cmd:
        meta["nvidia_smi_command"] = " ".join(cmd)
        t_setup = time.time()
        step, work = workload(a.name)
        meta["setup_s"] = time.time() - t_setup
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        meta["run_start_unix"] = time.time()
        ts = timed_steps(step, a.seconds)
        meta["timed_steps"] = len(ts)
        meta["step_time_s"] = {"median": quantile(ts, 0.5), "p10": quantile(ts, 0.1), "p90": quantile(ts, 0.9)}
        med = meta["step_time_s"]["median"]
        for key in ("flops_per_step", "bytes_per_step", "host_link_bytes_per_step", "gemm_bytes_per_step"):
            if work.get(key):
                meta["achieved_" + key.replace("_per_step", "_per_s")] = work[key] / med
        meta["profile_start_unix"] = time.time()
        if a.nsys:
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStart()
            nvtx = not a.name.startswith("graph")  # graph runs: steps must come from the graph launches
            for i in range(a.steps):
                if nvtx:
                    torch.cuda.nvtx.range_push(f"step_{i}")
                step()
                if nvtx:
                    torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()
        else:
            # No schedule and no record_function: no ProfilerStep#N or user annotation, so the
            # analysis must find the steps from what the stack itself records (graph launches,
            # the repeating kernel sequence).
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
                for _ in range(a.steps):
                    step()
                torch.cuda.synchronize()
            prof.export_chrome_trace(trace_path)
        meta["profile_end_unix"] = time.time()
        tail = timed_steps(step, 1.0)  # the log's tail under the same conditions
        meta["tail_step_time_median_s"] = quantile(tail, 0.5)
        meta["run_end_unix"] = time.time()
    meta["work"] = work
    gzip_file(smi_path)
    if os.path.exists(trace_path):
        gzip_file(trace_path)
    write_json(os.path.join(a.out, "meta.json"), meta)
    if "decode" in a.name:
        write_json(os.path.join(a.out, "config.json"), hf_config())
    rate = ", ".join(f"{k[9:]} {v / 1e12:.2f} T" for k, v in meta.items() if k.startswith("achieved_"))
    log(f"{a.name}: {len(ts)} steps, median {med * 1e3:.3f} ms/step; {rate}")


if __name__ == "__main__":
    main()
