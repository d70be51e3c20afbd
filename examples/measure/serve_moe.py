"""A serving-like benchmark of a small Qwen3-MoE-shaped decoder on one GPU, in plain PyTorch.

What it is: a continuous-batching engine (SGLang-style scheduling: prefill first when a slot is
free, else one decode step for every running request) over a model we define ourselves (bf16,
random weights; the shapes are written as a Hugging Face `config.json` with model_type
"qwen3_moe"). Requests of fixed input/output length arrive all at once (request rate inf), at
most `--max-concurrency` in flight, like `sglang.bench_serving --dataset-name random
--random-range-ratio 1 --max-concurrency C`. Every step ends with the sampled tokens copied to the
host (as a server does), and that host time stamps the tokens: TTFT, TPOT, ITL and E2E latency
follow bench_serving's definitions. The summary is one line of SGLang bench_serving JSONL.

Model per layer: RMSNorm, fused QKV GEMM, per-head q/k RMSNorm, rotary embedding, attention
(prefill: causal SDPA with GQA; decode: SDPA over a padded KV cache with a length mask), output
GEMM, RMSNorm, router GEMM + softmax + top-k (renormalised), token sort by expert, two
`torch._grouped_mm` expert GEMMs (gate+up fused, down) with SiLU-and-multiply between, weighted
scatter back. Then final norm, LM head on the last token, greedy argmax.

Usage: python3 serve_moe.py --out DIR [--layers 20 --concurrency 256 --input-len 1024
       --output-len 512 --target-s 55]
Writes DIR/config.json, DIR/bench.jsonl, DIR/steps.csv.gz, DIR/trace.json.gz, DIR/meta.json.
"""
from __future__ import annotations

import argparse
import collections
import csv
import gzip
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import environment, gzip_file, log, quantile, write_json  # noqa: E402


def make_config(a) -> dict:
    """The served model's HF-style config (qwen3_moe keys, FORMATS.md section 8)."""
    return {
        "architectures": ["Qwen3MoeForCausalLM"],
        "model_type": "qwen3_moe",
        "hidden_size": a.hidden,
        "num_hidden_layers": a.layers,
        "num_attention_heads": a.heads,
        "num_key_value_heads": a.kv_heads,
        "head_dim": a.head_dim,
        "num_experts": a.experts,
        "num_experts_per_tok": a.topk,
        "moe_intermediate_size": a.moe_inter,
        "intermediate_size": 3 * a.hidden,  # dense FFN size; unused (every layer is MoE)
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "norm_topk_prob": True,
        "vocab_size": a.vocab,
        "max_position_embeddings": a.input_len + a.output_len,
        "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0,
        "hidden_act": "silu",
        "attention_bias": False,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "_note": "shapes of the model served by examples/measure/serve_moe.py; random bf16 weights",
    }


class Model:
    """Random-weight bf16 Qwen3-MoE-shaped decoder with a padded per-slot KV cache."""

    def __init__(self, a, dev):
        self.a = a
        g = torch.Generator(device=dev)
        g.manual_seed(1234)
        bf = torch.bfloat16
        H, D, Hq, Hkv, E, I = a.hidden, a.head_dim, a.heads, a.kv_heads, a.experts, a.moe_inter

        def w(*shape, std=0.02):
            return (torch.randn(*shape, generator=g, device=dev, dtype=bf) * std)

        self.embed = w(a.vocab, H, std=1.0)
        self.lm_head = w(a.vocab, H)
        self.final_norm = torch.ones(H, device=dev, dtype=bf)
        self.layers = []
        for _ in range(a.layers):
            self.layers.append({
                "in_norm": torch.ones(H, device=dev, dtype=bf),
                "post_norm": torch.ones(H, device=dev, dtype=bf),
                "q_norm": torch.ones(D, device=dev, dtype=bf),
                "k_norm": torch.ones(D, device=dev, dtype=bf),
                "wqkv": w((Hq + 2 * Hkv) * D, H),
                "wo": w(H, Hq * D),
                "router": w(E, H),
                # Stored [E, N, K] like nn.Linear weights; the GEMM sees the [E, K, N] transpose.
                "w13": w(E, 2 * I, H),
                "w2": w(E, H, I),
            })
        Lmax = a.input_len + a.output_len
        self.Lmax = Lmax
        # KV cache [slot, position, kv_head, head_dim] per layer ("BSHD", strided views are fine).
        self.k_cache = [torch.zeros(a.concurrency, Lmax, Hkv, D, device=dev, dtype=bf) for _ in range(a.layers)]
        self.v_cache = [torch.zeros(a.concurrency, Lmax, Hkv, D, device=dev, dtype=bf) for _ in range(a.layers)]
        inv = 1.0 / (1e6 ** (torch.arange(0, D, 2, device=dev, dtype=torch.float32) / D))
        ang = torch.arange(Lmax, device=dev, dtype=torch.float32)[:, None] * inv[None, :]
        self.cos = ang.cos().to(bf)  # [Lmax, D/2]
        self.sin = ang.sin().to(bf)
        self.ones_assign = None

    # --- pieces -------------------------------------------------------------------------------
    def rope(self, x, pos):
        """x [..., T, h, D] with positions pos (broadcastable to x[..., :, 0, 0])."""
        D2 = x.shape[-1] // 2
        c = self.cos[pos].unsqueeze(-2)
        s = self.sin[pos].unsqueeze(-2)
        x1, x2 = x[..., :D2], x[..., D2:]
        return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)

    def moe(self, L, x):
        """x [T, H] -> [T, H] through top-k of E experts (torch._grouped_mm)."""
        a = self.a
        T = x.shape[0]
        logits = F.linear(x, L["router"])
        probs = torch.softmax(logits.float(), dim=-1)
        topw, topi = probs.topk(a.topk, dim=-1)
        topw = topw / topw.sum(dim=-1, keepdim=True)
        flat_e = topi.reshape(-1)
        order = torch.argsort(flat_e, stable=True)
        tok = order // a.topk
        counts = torch.zeros(a.experts, device=x.device, dtype=torch.int32)
        counts.scatter_add_(0, flat_e, torch.ones_like(flat_e, dtype=torch.int32))
        offs = torch.cumsum(counts, 0, dtype=torch.int32)
        xs = x.index_select(0, tok)
        h = torch._grouped_mm(xs, L["w13"].transpose(-2, -1), offs=offs)
        I = a.moe_inter
        act = F.silu(h[:, :I]) * h[:, I:]
        y = torch._grouped_mm(act, L["w2"].transpose(-2, -1), offs=offs)
        y = y * topw.reshape(-1).index_select(0, order).to(y.dtype).unsqueeze(-1)
        out = torch.zeros(T, x.shape[1], device=x.device, dtype=x.dtype)
        out.index_add_(0, tok, y)
        return out

    def qkv(self, L, x):
        a = self.a
        D, Hq, Hkv = a.head_dim, a.heads, a.kv_heads
        qkv = F.linear(x, L["wqkv"])
        q, k, v = qkv.split([Hq * D, Hkv * D, Hkv * D], dim=-1)
        q = F.rms_norm(q.unflatten(-1, (Hq, D)), (D,), L["q_norm"], 1e-6)
        k = F.rms_norm(k.unflatten(-1, (Hkv, D)), (D,), L["k_norm"], 1e-6)
        v = v.unflatten(-1, (Hkv, D))
        return q, k, v

    # --- steps --------------------------------------------------------------------------------
    @torch.inference_mode()
    def prefill(self, tokens, slots_t):
        """tokens [n, S] (device), slots_t [n] (device): fills the KV cache, returns next [n]."""
        a = self.a
        n, S = tokens.shape
        pos = torch.arange(S, device=tokens.device)
        x = self.embed[tokens]  # [n, S, H]
        for li, L in enumerate(self.layers):
            h = F.rms_norm(x, (a.hidden,), L["in_norm"], 1e-6)
            q, k, v = self.qkv(L, h)  # [n, S, h, D]
            q = self.rope(q, pos)
            k = self.rope(k, pos)
            self.k_cache[li][slots_t, :S] = k
            self.v_cache[li][slots_t, :S] = v
            o = prefill_attention(q, k, v)
            x = x + F.linear(o.flatten(-2), L["wo"])
            h = F.rms_norm(x, (a.hidden,), L["post_norm"], 1e-6)
            x = x + self.moe(L, h.flatten(0, 1)).view_as(h)
        last = F.rms_norm(x[:, -1], (a.hidden,), self.final_norm, 1e-6)
        return torch.argmax(F.linear(last, self.lm_head), dim=-1)

    @torch.inference_mode()
    def decode(self, tokens, slots_t, pos_t, kv_len):
        """One decode step. tokens, slots_t, pos_t [B] (device): last token, KV slot and its
        position; kv_len (host int) >= max(pos) + 1. Returns the next tokens [B].

        Attention runs over every slot of the cache (a strided view, no gather copy) with a length
        mask, the way a padded-cache engine does; rows of idle slots are computed and dropped."""
        a = self.a
        B = tokens.shape[0]
        C = a.concurrency
        G = a.heads // a.kv_heads
        kv_len = min(self.Lmax, (kv_len + 15) // 16 * 16)  # 16-aligned mask rows for the kernel
        x = self.embed[tokens]  # [B, H]
        pos_full = torch.zeros(C, device=tokens.device, dtype=pos_t.dtype)
        pos_full[slots_t] = pos_t
        mask = (torch.arange(kv_len, device=tokens.device)[None, :] <= pos_full[:, None]).view(C, 1, 1, kv_len)
        q_full = torch.zeros(C, a.kv_heads, G, a.head_dim, device=tokens.device, dtype=torch.bfloat16)
        for li, L in enumerate(self.layers):
            h = F.rms_norm(x, (a.hidden,), L["in_norm"], 1e-6)
            q, k, v = self.qkv(L, h)  # [B, h, D]
            q = self.rope(q, pos_t)
            k = self.rope(k, pos_t)
            self.k_cache[li][slots_t, pos_t] = k
            self.v_cache[li][slots_t, pos_t] = v
            # The G query heads of one KV head ride as G query rows (GQA without copying K/V).
            q_full[slots_t] = q.view(B, a.kv_heads, G, a.head_dim)
            o = decode_attention(q_full, self.k_cache[li], self.v_cache[li], kv_len, mask)
            o = o.index_select(0, slots_t)
            x = x + F.linear(o.reshape(B, a.heads * a.head_dim), L["wo"])
            h = F.rms_norm(x, (a.hidden,), L["post_norm"], 1e-6)
            x = x + self.moe(L, h)
        last = F.rms_norm(x, (a.hidden,), self.final_norm, 1e-6)
        return torch.argmax(F.linear(last, self.lm_head), dim=-1)


# SDPA backends chosen once at start-up by `pick_backends` (never the slow math fallback).
PREFILL_BACKENDS = None
DECODE_BACKENDS = None


def prefill_attention(q, k, v):
    """Causal GQA attention. q [n, S, Hq, D], k/v [n, S, Hkv, D] -> [n, S, Hq, D]."""
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel(PREFILL_BACKENDS):
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                           is_causal=True, enable_gqa=True)
    return o.transpose(1, 2)


def decode_attention(q_full, k_cache, v_cache, kv_len, mask):
    """q_full [C, Hkv, G, D]; caches [C, Lmax, Hkv, D]; mask [C, 1, 1, kv_len] -> [C, Hkv, G, D]."""
    from torch.nn.attention import sdpa_kernel
    K = k_cache[:, :kv_len].transpose(1, 2)
    V = v_cache[:, :kv_len].transpose(1, 2)
    with sdpa_kernel(DECODE_BACKENDS):
        return F.scaled_dot_product_attention(q_full, K, V, attn_mask=mask)


def pick_backends(a, dev):
    """Chooses the fused SDPA backends that run our two attention calls, and checks decode
    attention against a float32 reference (relative error)."""
    global PREFILL_BACKENDS, DECODE_BACKENDS
    from torch.nn.attention import SDPBackend
    bf = torch.bfloat16
    G, D, Hkv = a.heads // a.kv_heads, a.head_dim, a.kv_heads
    q = torch.randn(2, 64, a.heads, D, device=dev, dtype=bf)
    k = torch.randn(2, 64, Hkv, D, device=dev, dtype=bf)
    for b in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
        try:
            PREFILL_BACKENDS = [b]
            prefill_attention(q, k, k)
            break
        except Exception as e:
            log(f"prefill attention: {b} unavailable ({str(e).splitlines()[0][:100]})")
            PREFILL_BACKENDS = None
    assert PREFILL_BACKENDS is not None, "no fused SDPA backend for causal GQA prefill"
    C, Lmax, kv = 3, 80, 48
    kc = torch.randn(C, Lmax, Hkv, D, device=dev, dtype=bf)
    vc = torch.randn_like(kc)
    qf = torch.randn(C, Hkv, G, D, device=dev, dtype=bf)
    pos = torch.tensor([5, 40, 20], device=dev)
    mask = (torch.arange(kv, device=dev)[None, :] <= pos[:, None]).view(C, 1, 1, kv)
    Kf = kc[:, :kv].transpose(1, 2).float()
    Vf = vc[:, :kv].transpose(1, 2).float()
    s = (qf.float() @ Kf.transpose(-1, -2)) / math.sqrt(D)
    ref = torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ Vf
    for b in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        try:
            DECODE_BACKENDS = [b]
            o = decode_attention(qf, kc, vc, kv, mask)
            err = ((o.float() - ref).norm() / ref.norm()).item()
            log(f"decode attention via {b}: relative error {err:.2e} against float32")
            if err < 2e-2:
                break
        except Exception as e:
            log(f"decode attention: {b} unavailable ({str(e).splitlines()[0][:100]})")
        DECODE_BACKENDS = None
    assert DECODE_BACKENDS is not None, "no fused SDPA backend for masked decode attention"
    return str(PREFILL_BACKENDS[0]), str(DECODE_BACKENDS[0])


class Request:
    __slots__ = ("rid", "send_s", "token_s", "slot", "length", "last_token")

    def __init__(self, rid):
        self.rid = rid
        self.send_s = None
        self.token_s = []
        self.slot = None
        self.length = 0
        self.last_token = None


def bench_summary(a, reqs, t0, t_end) -> dict:
    """SGLang bench_serving keys (FORMATS.md section 2) from per-request token times."""
    done = [r for r in reqs if len(r.token_s) == a.output_len]
    dur = t_end - t0
    ms = 1e3
    ttft = [(r.token_s[0] - r.send_s) for r in done]
    e2e = [(r.token_s[-1] - r.send_s) for r in done]
    tpot = [(e - t) / (a.output_len - 1) for e, t in zip(e2e, ttft)] if a.output_len > 1 else []
    itl = [b - c for r in done for c, b in zip(r.token_s, r.token_s[1:])]
    # Peaks over 1-s buckets (bench_serving's max_output_tokens_per_s / max_concurrent_requests).
    nb = int(math.ceil(dur)) + 1
    tok_b = [0] * nb
    for r in done:
        for t in r.token_s:
            tok_b[min(int(t - t0), nb - 1)] += 1
    # Requests in flight at each instant (+1 when sent, -1 at the last token); a bucket's value
    # is the highest instantaneous count inside it.
    conc_b = [0] * nb
    level = 0
    for t, d in sorted([(r.send_s, 1) for r in done] + [(r.token_s[-1], -1) for r in done],
                       key=lambda e: (e[0], e[1])):
        level += d
        b = min(max(int(t - t0), 0), nb - 1)
        conc_b[b] = max(conc_b[b], level)

    def st(xs, p95=False):
        d = {"mean": statistics.fmean(xs) * ms if xs else float("nan"),
             "median": quantile(xs, 0.5) * ms if xs else float("nan"),
             "std": (statistics.pstdev(xs) * ms) if len(xs) > 1 else 0.0,
             "p99": quantile(xs, 0.99) * ms if xs else float("nan")}
        if p95:
            d["p95"] = quantile(xs, 0.95) * ms if xs else float("nan")
        return d

    out = {
        "tag": "roofline-h200-serving",
        "backend": "pytorch-moe-loop",
        "dataset_name": "random",
        "request_rate": float("inf"),
        "max_concurrency": a.concurrency,
        "sharegpt_output_len": None,
        "random_input_len": a.input_len,
        "random_output_len": a.output_len,
        "random_range_ratio": 1.0,
        "server_info": None,
        "duration": dur,
        "completed": len(done),
        "total_input_tokens": len(done) * a.input_len,
        "total_input_text_tokens": len(done) * a.input_len,
        "total_input_vision_tokens": 0,
        "total_output_tokens": len(done) * a.output_len,
        "total_output_tokens_retokenized": len(done) * a.output_len,
        "request_throughput": len(done) / dur,
        "input_throughput": len(done) * a.input_len / dur,
        "output_throughput": len(done) * a.output_len / dur,
        "total_throughput": len(done) * (a.input_len + a.output_len) / dur,
    }
    for name, xs, p95 in (("e2e_latency", e2e, False), ("ttft", ttft, False), ("tpot", tpot, False),
                          ("itl", itl, True)):
        for k, v in st(xs, p95).items():
            out[f"{k}_{name}_ms"] = v
    out["concurrency"] = sum(e2e) / dur
    out["accept_length"] = None
    out["max_output_tokens_per_s"] = max(tok_b) if tok_b else 0
    out["max_concurrent_requests"] = max(conc_b) if conc_b else 0
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--layers", type=int, default=20)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--experts", type=int, default=64)
    p.add_argument("--topk", type=int, default=4)
    p.add_argument("--moe-inter", type=int, default=1536)
    p.add_argument("--vocab", type=int, default=151936)
    p.add_argument("--concurrency", type=int, default=256)
    p.add_argument("--input-len", type=int, default=1024)
    p.add_argument("--output-len", type=int, default=512)
    p.add_argument("--prefill-tokens", type=int, default=8192, help="token budget of one prefill step")
    p.add_argument("--num-prompts", type=int, default=0, help="0: sized to --target-s")
    p.add_argument("--target-s", type=float, default=55.0)
    p.add_argument("--max-s", type=float, default=95.0, help="stop sending new requests after this")
    p.add_argument("--no-trace", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    cfg = make_config(a)
    write_json(os.path.join(a.out, "config.json"), cfg)

    log("building model (random bf16 weights)")
    m = Model(a, dev)
    torch.cuda.synchronize()
    wbytes = sum(t.numel() * t.element_size() for L in m.layers for t in L.values()) + \
        m.embed.numel() * 2 + m.lm_head.numel() * 2
    log(f"weights {wbytes / 1e9:.1f} GB, KV cache {2 * a.layers * m.k_cache[0].numel() * 2 / 1e9:.1f} GB, "
        f"allocated {torch.cuda.memory_allocated() / 1e9:.1f} GB")

    C, S, O = a.concurrency, a.input_len, a.output_len
    n_pre = max(1, min(C, a.prefill_tokens // S))
    gen = torch.Generator(device=dev)
    gen.manual_seed(7)

    def rand_tokens(n):
        return torch.randint(0, a.vocab, (n, S), device=dev, generator=gen)

    backends = pick_backends(a, dev)
    log(f"SDPA backends: prefill {backends[0]}, decode {backends[1]}")

    # Warm-up: one full prefill batch and decode at a few batch sizes (kernel selection, caches).
    log("warm-up")
    slots_all = torch.arange(C, device=dev)
    for _ in range(2):
        m.prefill(rand_tokens(n_pre), slots_all[:n_pre])
    torch.cuda.synchronize()
    t = time.perf_counter()
    nxt = m.prefill(rand_tokens(n_pre), slots_all[:n_pre])
    nxt.cpu()
    t_pre = time.perf_counter() - t
    for B in (1, 7, 64, C):
        tok = torch.randint(0, a.vocab, (B,), device=dev)
        pos_t = torch.full((B,), S + O // 2, device=dev)
        m.decode(tok, slots_all[:B], pos_t, S + O // 2 + 1).cpu()
    t = time.perf_counter()
    tok = torch.randint(0, a.vocab, (C,), device=dev)
    pos_t = torch.full((C,), S + O // 2, device=dev)
    for _ in range(3):
        m.decode(tok, slots_all, pos_t, S + O // 2 + 1).cpu()
    t_dec = (time.perf_counter() - t) / 3
    per_req = O * t_dec / C + t_pre / n_pre
    N = a.num_prompts or int(min(4096, max(C, round(a.target_s / per_req / C) * C)))
    log(f"prefill step ({n_pre}x{S} tokens) {t_pre * 1e3:.1f} ms, decode step (B={C}) {t_dec * 1e3:.1f} ms "
        f"-> {N} prompts for ~{N * per_req:.0f} s")

    # --- the benchmark ---------------------------------------------------------------------------
    reqs = [Request(i) for i in range(N)]
    next_send = 0
    pending = collections.deque()
    running = {}
    free = list(range(C))[::-1]
    steps = []
    t0 = time.perf_counter()
    last_log = t0
    stop_sending = False
    while True:
        now = time.perf_counter()
        if now - t0 > a.max_s:
            stop_sending = True
        inflight = len(pending) + len(running)
        while not stop_sending and next_send < N and inflight < C:
            reqs[next_send].send_s = now
            pending.append(reqs[next_send])
            next_send += 1
            inflight += 1
        if not pending and not running:
            break
        if pending and free:
            batch = [pending.popleft() for _ in range(min(n_pre, len(pending), len(free)))]
            for r in batch:
                r.slot = free.pop()
            slots_t = torch.tensor([r.slot for r in batch], device=dev)
            ts = time.perf_counter()
            out = m.prefill(rand_tokens(len(batch)), slots_t).cpu().tolist()
            te = time.perf_counter()
            for r, tkn in zip(batch, out):
                r.token_s.append(te)
                r.length = S
                r.last_token = tkn
                running[r.slot] = r
            steps.append((ts - t0, te - t0, "prefill", len(batch), len(batch) * S))
        else:
            rs = list(running.values())
            tokens = torch.tensor([r.last_token for r in rs], device=dev)
            slots_t = torch.tensor([r.slot for r in rs], device=dev)
            pos_l = [r.length for r in rs]
            pos_t = torch.tensor(pos_l, device=dev)
            ts = time.perf_counter()
            out = m.decode(tokens, slots_t, pos_t, max(pos_l) + 1).cpu().tolist()
            te = time.perf_counter()
            for r, tkn in zip(rs, out):
                r.token_s.append(te)
                r.length += 1
                r.last_token = tkn
                if len(r.token_s) == O:
                    del running[r.slot]
                    free.append(r.slot)
            steps.append((ts - t0, te - t0, "decode", len(rs), len(rs)))
        if te - last_log > 5:
            done = sum(1 for r in reqs if len(r.token_s) == O)
            log(f"t={te - t0:5.1f}s sent {next_send}/{N} done {done} running {len(running)} "
                f"pending {len(pending)}")
            last_log = te
    t_end = max(r.token_s[-1] for r in reqs if r.token_s)
    summ = bench_summary(a, reqs, t0, t_end)
    # Wall-clock (epoch) bounds of the benchmark, for aligning the nvidia-smi log.
    epoch_off = time.time() - time.perf_counter()
    meta = {"benchmark_start_time_unix": t0 + epoch_off, "benchmark_end_time_unix": t_end + epoch_off,
            "num_prompts": N, "prefill_batch_requests": n_pre, "decode_steps": sum(1 for s in steps if s[2] == "decode"),
            "prefill_steps": sum(1 for s in steps if s[2] == "prefill"), "weights_bytes": wbytes,
            "sdpa_backends": {"prefill": backends[0], "decode": backends[1]},
            "environment": environment(), "argv": sys.argv}
    with open(os.path.join(a.out, "bench.jsonl"), "w") as f:
        f.write(json.dumps(summ) + "\n")
    write_json(os.path.join(a.out, "meta.json"), meta)
    with gzip.open(os.path.join(a.out, "steps.csv.gz"), "wt") as f:
        w = csv.writer(f)
        w.writerow(["start_s", "end_s", "kind", "requests", "tokens"])
        for s in steps:
            w.writerow([f"{s[0]:.6f}", f"{s[1]:.6f}", s[2], s[3], s[4]])
    log(f"done: {summ['completed']} requests in {summ['duration']:.1f} s, "
        f"output {summ['output_throughput']:.0f} tok/s, total {summ['total_throughput']:.0f} tok/s, "
        f"TTFT median {summ['median_ttft_ms']:.0f} ms, TPOT median {summ['median_tpot_ms']:.1f} ms, "
        f"ITL median {summ['median_itl_ms']:.1f} ms")

    if not a.no_trace:
        # A short Kineto trace after the benchmark (so profiling does not perturb it): one prefill
        # of one request and one decode step of the full batch.
        from torch.profiler import ProfilerActivity, profile, record_function
        tok = torch.randint(0, a.vocab, (C,), device=dev)
        pos_t = torch.full((C,), S + O // 2, device=dev)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            with record_function(f"prefill_1x{S}"):
                m.prefill(rand_tokens(1), slots_all[:1]).cpu()
            prof.step()
            with record_function(f"decode_{C}x{S + O // 2 + 1}"):
                m.decode(tok, slots_all, pos_t, S + O // 2 + 1).cpu()
            prof.step()
        path = os.path.join(a.out, "trace.json")
        prof.export_chrome_trace(path)
        gzip_file(path)
        log(f"trace written ({os.path.getsize(path + '.gz') / 1e3:.0f} KB gz)")


if __name__ == "__main__":
    main()
