# %% [markdown]
# # Attention: prefill vs decode, GQA vs MLA, SM120's shared memory  (twin of attention.cpp)
#
# Decode attention reads the whole KV cache of a sequence to score ONE new query: per cached
# token 4 d FLOP per query head against one read of the token's K and V. With GQA (Llama: 64
# query heads share 8 KV heads) that is I ~ 8 FLOP/B, far left of every ridge. MLA (DeepSeek-V3,
# GLM-5) caches one 576-value latent per token that all heads share: I ~ 240 (or 120). Prefill
# scores n queries against n keys: compute-bound. A FlashAttention kernel holds its query tile,
# keys, values and probabilities in shared memory: SM120 offers 99 KB per block, SM100 227 KB; a
# smaller BLOCK_M means more query tiles, each re-reading its keys from L2.
# Every number: the module's KV-cache and attention models, the catalog, data/models/ configs.
# Run: PYTHONPATH=build/python python3 examples/learn/python/attention.py
# Chart: with `--svg FILE` and matplotlib installed, intensity vs context; else tables only.

# %%
import os
import sys

import roofline
from roofline import models as rm

args = sys.argv[1:]
data = args[args.index("--data") + 1] if "--data" in args else os.environ.get(
    "ROOFLINE_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "data"))
svg = args[args.index("--svg") + 1] if "--svg" in args else None
context, tp = 8192, 8  # the question's parameters: context of the tables, TP degree
folders = ["llama-3.1-70b", "deepseek-v3", "glm-5"]
models = {f: rm.read_model(os.path.join(data, "models", f, "config.json")) for f in folders}
kind = lambda c: "GQA" if c.attention == "gqa" else ("MLA+DSA" if c.has_indexer else "MLA")

# %% [markdown]
# ## 1. KV cache per token (all layers), and what TP does to it

# %%
print("Attention: KV bytes per token, arithmetic intensity, and shared-memory tiles\n")
rows = []
for f, c in models.items():
    s = rm.kv_per_gpu(c, "bf16", tp)
    rows.append([f, kind(c), rm.format_significant(rm.kv_values_per_token_layer(c)), str(c.num_layers),
                 rm.format_bytes(rm.kv_bytes_per_token(c, "bf16")), rm.format_bytes(rm.kv_bytes_per_token(c, "fp8")),
                 rm.format_bytes(s["bytes_per_token_per_gpu"]) + (" (replicated)" if s["replication"] > 1 else "")])
print(rm.table(["model", "kind", "values/token/layer", "layers", "BF16 KV/token", "FP8", "per GPU at TP8"], rows),
      end="")
print("(GLM-5 adds its DSA indexer key, FP8 with one FP32 scale per 128 values, to every token.)\n")

# %% [markdown]
# ## 2. Arithmetic intensity of one sequence's attention, and the bound on two GPUs
# decode = 1 new token on `context` cached ones (MLA absorbed); prefill = `context` new tokens.

# %%
attn = lambda c, ctx, decode: rm.attention(c, 1, ctx, True) if decode else rm.attention(c, ctx, 0, False)
hc, pc = rm.datasheet_ceilings("h200-sxm"), rm.datasheet_ceilings("rtx-pro-6000")
print(f"One sequence, context {context} tokens, BF16 KV (BF16 ridge: h200-sxm "
      f"{rm.format_significant(rm.ridge_point(hc, 'bf16'))}, rtx-pro-6000 "
      f"{rm.format_significant(rm.ridge_point(pc, 'bf16'))} FLOP/B)\n")
rows, curves = [], []
for f, c in models.items():
    for decode in (True, False):
        w = attn(c, context, decode)
        rows.append([f, "decode" if decode else "prefill", rm.format_si(w.total_flops(), "FLOP"),
                     rm.format_bytes(w.dram_bytes()), rm.format_significant(w.arithmetic_intensity()),
                     rm.time_lower_bound(w, hc)["bound"], rm.time_lower_bound(w, pc)["bound"]])
        ctxs = [512 * 2 ** i for i in range(9)]
        curves.append((f"{f} {'decode' if decode else 'prefill'}", ctxs,
                       [attn(c, x, decode).arithmetic_intensity() for x in ctxs]))
print(rm.table(["model", "phase", "FLOP", "DRAM bytes", "I (FLOP/B)", "h200-sxm", "rtx-pro-6000"], rows))

# %% [markdown]
# ## 3. Which prefill tile fits in shared memory, and the L2 re-reads a smaller tile costs

# %%
smem = {g["id"]: g["smem_per_block_bytes"] for g in roofline.gpus(compare=["rtx-pro-6000", "b200"])}
s120, s100 = smem["rtx-pro-6000"], smem["b200"]
print(f"Prefill tiles (BF16, 1 stage): SM120 {rm.format_bytes_binary(s120)} vs SM100 "
      f"{rm.format_bytes_binary(s100)} of shared memory per block\n")
rows = []
for f, c in models.items():
    mla = c.attention == "mla"
    d, d_pe, d_v = (c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_dim) if mla else (c.head_dim, 0, c.v_dim)
    small, big = rm.choose_attention_tile(d, d_pe, d_v, s120), rm.choose_attention_tile(d, d_pe, d_v, s100)
    reads = lambda t: rm.attention_tile_kv_reads(c, context, t["block_m"])  # K/V bytes from L2
    ratio = reads(small) / reads(big)
    tile = lambda t: f"{t['block_m']}x{t['block_n']}"
    rows.append([f, f"{d}+{d_pe}, {d_v}", tile(small), rm.format_bytes_binary(small["smem_bytes"]),
                 tile(big), rm.format_bytes_binary(big["smem_bytes"]), rm.format_significant(ratio) + "x"])
    for reason in small["rejected"]:
        print(f"{f} on SM120: {reason}")
print()
print(rm.table(["model", "d_qk+d_pe, d_v", "SM120 tile", "smem", "SM100 tile", "smem", "L2 re-reads SM120/SM100"],
               rows), end="")
print("Halving BLOCK_M doubles the query tiles, and each tile re-reads its keys from L2 (case C07).")

# %%
if svg:
    try:
        import matplotlib
        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: not drawn (matplotlib is not installed; the tables above are the answer)", file=sys.stderr)
    else:
        for name, xs, ys in curves:
            plt.loglog(xs, ys, label=name, linestyle="--" if "prefill" in name else "-")
        for c, name in ((hc, "h200-sxm"), (pc, "rtx-pro-6000")):
            plt.axhline(rm.ridge_point(c, "bf16"), color="grey", linestyle=":", label=f"{name} BF16 ridge")
        plt.title("Attention: arithmetic intensity vs context")
        plt.xlabel("context (tokens)")
        plt.ylabel("arithmetic intensity (FLOP per DRAM byte)")
        plt.legend(fontsize=7)
        plt.savefig(svg)
        print(f"chart: {svg}", file=sys.stderr)
