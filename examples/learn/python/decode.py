# %% [markdown]
# # When does decode stop being memory-bound?  (Python twin of examples/learn/decode.cpp)
#
# A decode step multiplies M token vectors by every weight matrix. For [M x K] . [K x N] with b
# bytes per weight and a per activation: F = 2 M N K, B = K N b + M (K + N) a, so
# I(M) = F / B ~ 2 M / b while M << K, N. The weights are read once per step whatever M is: the
# intensity grows with the batch until it reaches the ridge I* = P / W, at the critical batch
# M* ~ I* b / 2. NVFP4 weights (b = 0.5625 B with their scales) lower M* when the math stays BF16
# (W4A16); FP4 math (W4A4) also raises P by 4x, so M* moves back up. The GEMM is Llama-3.1-70B's
# fused gate+up projection, priced by the module's GEMM model on the catalog's datasheet ceilings.
# Run: PYTHONPATH=build/python python3 examples/learn/python/decode.py
# Chart: with `--svg FILE` and matplotlib installed, attainable TFLOP/s vs M; else tables only.

# %%
import math
import os
import sys

from roofline import models as rm

args = sys.argv[1:]
data = args[args.index("--data") + 1] if "--data" in args else os.environ.get(
    "ROOFLINE_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "data"))
svg = args[args.index("--svg") + 1] if "--svg" in args else None
ids = ["h200-sxm", "b200", "rtx-pro-6000", "gb10"]
configs = [("BF16", "bf16", "bf16"), ("NVFP4 W4A16", "nvfp4", "bf16"), ("NVFP4 W4A4", "nvfp4", "nvfp4")]
min_batch, max_batch = 1, 16384  # the batch range swept
llama = rm.read_model(os.path.join(data, "models", "llama-3.1-70b", "config.json"))


def gemm_at(m, weights, activations, gpu):  # FLOP at the rate the GPU runs these dtypes, BF16 out
    return rm.gemm(m, 2.0 * llama.intermediate_size, llama.hidden_size, activations, weights, "bf16", gpu)


# %% [markdown]
# The critical batch: the smallest M at which compute time reaches memory time (bisection on the
# model, geometric, as the C++ twin does). NaN when the GPU's peak is unknown.

# %%
def critical_batch(weights, activations, gpu, c):
    def compute_wins(m):
        t = rm.time_lower_bound(gemm_at(m, weights, activations, gpu), c)
        return t["compute_s"] >= t["memory_s"]
    if math.isnan(c.flops_at(rm.gemm_compute_path(weights, activations, gpu)["peak"])):
        return math.nan
    lo, hi = float(min_batch), 1e7
    if compute_wins(lo):
        return lo
    if not compute_wins(hi):
        return math.inf
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if compute_wins(mid) else (mid, hi)
    return math.ceil(hi)


# %%
print(f"When does decode stop being memory-bound? Llama-3.1-70B gate+up GEMM [M x {llama.hidden_size}] . "
      f"[{llama.hidden_size} x {2 * llama.intermediate_size}]\n")
rows, notes, curves = [], [], []
for gpu in ids:
    c = rm.datasheet_ceilings(gpu)
    for name, w, a in configs:
        path = rm.gemm_compute_path(w, a, gpu)
        if not path["native"] and a == "nvfp4":
            notes.append(path["note"])
        ridge, m_star = rm.ridge_point(c, path["peak"]), critical_batch(w, a, gpu, c)
        known = not math.isnan(m_star)
        step = lambda m: rm.format_seconds(rm.time_lower_bound(gemm_at(m, w, a, gpu), c)["lower_bound_s"]) \
            if known else "unknown"
        rows.append([gpu, name, path["peak"], "unknown" if math.isnan(ridge) else rm.format_significant(ridge),
                     ("never" if math.isinf(m_star) else rm.format_count(m_star)) if known else "unknown",
                     step(min_batch), step(max_batch)])
        if known and name != "NVFP4 W4A16":
            ms = [min_batch * 2 ** (j / 4) for j in range(4 * 14 + 1)]
            tf = [gemm_at(m, w, a, gpu).total_flops() / rm.time_lower_bound(gemm_at(m, w, a, gpu), c)[
                "lower_bound_s"] / 1e12 for m in ms]
            curves.append((f"{gpu} {name}", ms, tf))
print(rm.table(["GPU", "weights", "runs at", "I*", "M*", "step at M=1", "at M=16384"], rows), end="")
for n in notes:
    print("note: " + n)

# %% [markdown]
# ## The BF16 sweep on every GPU: where each one crosses its ridge

# %%
print("\nBF16 sweep: intensity and predicted bound per GPU\n")
rows, m = [], min_batch
while m <= max_batch:
    w = gemm_at(m, "bf16", "bf16", ids[0])
    row = [rm.format_count(m), rm.format_significant(w.arithmetic_intensity())]
    for gpu in ids:
        c = rm.datasheet_ceilings(gpu)
        row.append("unknown" if math.isnan(c.flops_at("bf16")) else rm.time_lower_bound(w, c)["bound"])
    rows.append(row)
    m *= 4
print(rm.table(["M", "I (FLOP/B)"] + ids, rows), end="")
pro = rm.datasheet_ceilings("rtx-pro-6000")
stars = [rm.format_count(critical_batch(w, a, "rtx-pro-6000", pro)) for _, w, a in configs]
t = [rm.time_lower_bound(gemm_at(min_batch, w, a, "rtx-pro-6000"), pro)["lower_bound_s"] for _, w, a in configs]
print(f"\nOn rtx-pro-6000, M* is {stars[0]} in BF16, {stars[1]} with NVFP4 weights and BF16 math, "
      f"{stars[2]} in NVFP4 W4A4;\nbelow M*, a W4A4 step takes {t[0] / t[2]:.2f}x less time than a BF16 "
      "one (the weight bytes it streams).")

# %%
if svg:
    try:
        import matplotlib
        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: not drawn (matplotlib is not installed; the tables above are the answer)", file=sys.stderr)
    else:
        for name, ms, tf in curves:
            plt.loglog(ms, tf, label=name, linestyle="--" if "NVFP4" in name else "-")
        plt.title("When does decode stop being memory-bound?")
        plt.xlabel("batch M (tokens per step)")
        plt.ylabel("attainable TFLOP/s")
        plt.legend(fontsize=7)
        plt.savefig(svg)
        print(f"chart: {svg}", file=sys.stderr)
