# %% [markdown]
# # Where is the ridge?  (Python twin of examples/learn/ridge.cpp)
#
# A kernel that does F FLOP and moves B bytes of DRAM needs at least max(F / P, B / W) seconds on
# a GPU with peak P (FLOP/s) and bandwidth W (B/s). The two terms are equal at the ridge point
# I* = P / W: below it the kernel waits for memory, above it for the tensor cores.
# P depends on the dtype (and on SM120 GeForce parts on the accumulator); W does not. Every number
# comes from the module: the catalog (`roofline.gpus`, `models.datasheet_ceilings`) and the model
# configs in data/models/. Run: PYTHONPATH=build/python python3 examples/learn/python/ridge.py
# Chart: with `--svg FILE` and matplotlib installed, the roofs are drawn with matplotlib;
# without matplotlib the script prints the tables only (and says so on stderr).

# %%
import math
import os
import sys

import roofline
from roofline import models as rm

args = sys.argv[1:]
data = args[args.index("--data") + 1] if "--data" in args else os.environ.get(
    "ROOFLINE_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "data"))
svg = args[args.index("--svg") + 1] if "--svg" in args else None
ids = ["h200-sxm", "b200", "rtx-pro-6000", "gb10"]
rates = [("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "NVFP4")]


def peak_text(p):  # "none": the GPU lacks the units; "unknown": nobody published it
    return "none" if p == 0 else ("unknown" if math.isnan(p) else rm.format_flops_per_s(p))


def ridge_text(r):
    return "none" if r == 0 else ("unknown" if math.isnan(r) else rm.format_significant(r))


# %% [markdown]
# ## 1. The ridge per GPU and dtype

# %%
print("Where is the ridge? Dense tensor peaks and ridge points I* = P / W (FLOP per DRAM byte)\n")
rows, roofs = [], []
for gpu in ids:
    c = rm.datasheet_ceilings(gpu)
    row = [gpu, rm.format_bytes_per_s(c.dram_bytes_per_s)]
    for key, name in rates:
        p, ridge = c.flops_at(key), rm.ridge_point(c, key)
        row += [peak_text(p), ridge_text(ridge)]
        if p > 0:  # NaN > 0 is False: an unknown peak is not drawn
            roofs.append((f"{gpu} {name}", c.dram_bytes_per_s, p, ridge))
    rows.append(row)
print(rm.table(["GPU", "DRAM", "BF16", "I*", "FP8", "I*", "NVFP4", "I*"], rows))

# %% [markdown]
# ## 2. SM120: the accumulator sets the rate on GeForce, not on RTX PRO
# FP32-accumulate peaks are `dense_flops_per_s`, FP16-accumulate ones `dense_fp16_acc_flops_per_s`
# (null where unpublished).

# %%
print("SM120 accumulate: FP32-accumulate vs FP16-accumulate dense peaks (DRAM bandwidth is the same)\n")
num = lambda v: math.nan if v is None else float(v)
rows = []
for g in roofline.gpus(compare=["rtx-pro-6000", "rtx-5090"]):
    w = num(g["memory_bandwidth_bytes_per_s"])
    for k in ["fp16", "fp8"]:
        f32, f16 = num(g["dense_flops_per_s"].get(k)), num(g["dense_fp16_acc_flops_per_s"].get(k))
        ratio = f16 / f32 if f32 and not math.isnan(f16) else math.nan
        rows.append([g["id"], k, peak_text(f32), ridge_text(f32 / w), peak_text(f16), ridge_text(f16 / w),
                     "unknown" if math.isnan(ratio) else rm.format_significant(ratio) + "x"])
print(rm.table(["GPU", "dtype", "FP32 acc", "I*", "FP16 acc", "I*", "FP16/FP32"], rows))

# %% [markdown]
# ## 3. One kernel, four GPUs: Llama-3.1-70B's MLP down projection [M x 28672] . [28672 x 8192]

# %%
llama = rm.read_model(os.path.join(data, "models", "llama-3.1-70b", "config.json"))
tokens = 256  # the question's parameter: a prefill chunk or a big decode batch
work = {g: rm.gemm(tokens, llama.hidden_size, llama.intermediate_size, "bf16", "bf16", "bf16", g) for g in ids}
ai = work[ids[0]].arithmetic_intensity()
print(f"One kernel: Llama-3.1-70B down_proj in BF16, M = {tokens}, N = {llama.hidden_size}, "
      f"K = {llama.intermediate_size}: I = {rm.format_significant(ai)} FLOP/B\n")
rows, bound = [], {"memory": [], "compute": []}
for gpu in ids:
    c = rm.datasheet_ceilings(gpu)
    if math.isnan(c.flops_at("bf16")):  # the model cannot price what nobody published
        memory_s = work[gpu].dram_bytes() / c.dram_bytes_per_s
        rows.append([gpu] + ["unknown"] * 4 + [rm.format_seconds(memory_s)])
        continue
    t = rm.time_lower_bound(work[gpu], c)
    bound[t["bound"]].append(gpu)
    rows.append([gpu, ridge_text(rm.ridge_point(c, "bf16")), t["bound"]] +
                [rm.format_seconds(t[k]) for k in ("lower_bound_s", "compute_s", "memory_s")])
print(rm.table(["GPU", "BF16 I*", "bound", "time", "compute", "memory"], rows), end="")
print(f"\nThe same kernel (I = {rm.format_significant(ai)}) is compute-bound on "
      f"{', '.join(bound['compute']) or 'none'} and memory-bound on {', '.join(bound['memory']) or 'none'}:\n"
      "its intensity sits right of the first ridge and left of the others.")
note = roofline.gpus(compare="rtx-pro-6000")[0]["notes"]["flops_per_clock_per_sm.bf16"]
print(f'RTX PRO 6000 runs FP32 accumulate at full rate (catalog: "{note}"); GeForce halves it.')

# %% [markdown]
# ## The chart: roofs min(P, I x W) on log-log axes, the kernel's intensity as a vertical line

# %%
if svg:
    try:
        import matplotlib
        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: not drawn (matplotlib is not installed; the tables above are the answer)", file=sys.stderr)
    else:
        for name, w, p, ridge in roofs:
            plt.loglog([1, ridge, 1e4], [w / 1e12, p / 1e12, p / 1e12], label=name,
                       linestyle="--" if "NVFP4" in name else "-")
        plt.axvline(ai, color="grey", linestyle=":")
        plt.title("Where is the ridge?")
        plt.xlabel("arithmetic intensity I (FLOP per DRAM byte)")
        plt.ylabel("attainable TFLOP/s")
        plt.legend(fontsize=7)
        plt.savefig(svg)
        print(f"chart: {svg}", file=sys.stderr)
