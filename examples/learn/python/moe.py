# %% [markdown]
# # MoE: grouped GEMM at real batch sizes  (Python twin of examples/learn/moe.cpp)
#
# A DeepSeek-V3 MoE layer routes each token to k = 8 of E = 256 experts. At batch T the expected
# number of experts with work is E (1 - (1 - k/E)^T), each with about T k / E tokens: a decode
# step streams the weights of every active expert for a handful of tokens, so the grouped GEMM is
# memory-bound until an expert holds ~I* b / 2 tokens of its own. Under expert parallelism (EP8)
# the busiest GPU sets the step time; a Zipf routing skew concentrates tokens on the GPU that holds
# the hottest experts: imbalance is its own bound. Every number: the module's MoE model
# (`models.moe_layer`), the catalog's datasheet ceilings and data/models/deepseek-v3/config.json.
# Run: PYTHONPATH=build/python python3 examples/learn/python/moe.py
# Chart: with `--svg FILE` and matplotlib installed, layer time vs batch; else tables only.

# %%
import math
import os
import sys

from roofline import models as rm

args = sys.argv[1:]
data = args[args.index("--data") + 1] if "--data" in args else os.environ.get(
    "ROOFLINE_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "data"))
svg = args[args.index("--svg") + 1] if "--svg" in args else None
min_batch, max_batch, ep, zipf_s = 1, 4096, 8, 1.0  # the question's parameters
ds = rm.read_model(os.path.join(data, "models", "deepseek-v3", "config.json"))
bc = rm.datasheet_ceilings("b200")

# %% [markdown]
# ## One MoE layer on the busiest of 8 GPUs (b200), uniform vs Zipf routing, every 4x in batch

# %%
print(f"MoE grouped GEMM: DeepSeek-V3 ({ds.num_experts} routed experts, top-{ds.experts_per_token}, "
      f"{ds.num_shared_experts} shared; {ds.weights_dtype} weights), one MoE layer, EP{ep}\n")
rows, curves = [], {}
T = min_batch
while T <= max_batch:
    for gpu in ("b200", "rtx-pro-6000"):
        c = rm.datasheet_ceilings(gpu)
        ru, rz = rm.moe_layer(ds, T, gpu, ep), rm.moe_layer(ds, T, gpu, ep, zipf_s)
        tu, tz = rm.time_lower_bound(ru["work"], c), rm.time_lower_bound(rz["work"], c)
        for name, t in ((f"{gpu} uniform", tu), (f"{gpu} Zipf", tz)):
            curves.setdefault(name, []).append((T, t["lower_bound_s"] * 1e6))
        if gpu != "b200" or int(math.log2(T)) % 2:
            continue  # table: b200, every 4x
        sig = rm.format_significant
        rows.append([rm.format_count(T), sig(ru["active_experts"]), sig(ru["mean_tokens_per_expert"]),
                     rm.format_bytes(ru["weight_bytes"]), sig(ru["work"].arithmetic_intensity()),
                     rm.format_seconds(tu["lower_bound_s"]), tu["bound"], sig(rz["max_tokens_per_expert"]),
                     sig(rz["rank_imbalance"]) + "x", rm.format_seconds(tz["lower_bound_s"]), tz["bound"]])
    T *= 2
print(rm.table(["batch", "active", "tok/expert", "weights/GPU", "I/expert", "b200", "bound", "Zipf max tok",
                "rank imb.", "b200 Zipf", "bound"], rows), end="")

# %% [markdown]
# ## Where an expert's GEMM crosses the ridge, and what the skew costs
# Half of the experts are busy once (1 - k/E)^T = 1/2. The expert GEMM's intensity grows with its
# own tokens: bisect on the model for the batch at which it reaches the b200 ridge.

# %%
layer = lambda T, z=None: rm.moe_layer(ds, T, "b200", ep, z)
half_active = math.log(0.5) / math.log(1.0 - ds.experts_per_token / ds.num_experts)
ridge = rm.ridge_point(bc, layer(1)["peak"])
lo, hi = float(min_batch), 1e7
for _ in range(60):
    mid = math.sqrt(lo * hi)
    lo, hi = (lo, mid) if layer(mid)["expert_intensity"][0] >= ridge else (mid, hi)
ratio = lambda T: (rm.time_lower_bound(layer(T, zipf_s)["work"], bc)["lower_bound_s"] /
                   rm.time_lower_bound(layer(T)["work"], bc)["lower_bound_s"])
mid_batch = math.sqrt(min_batch * max_batch)
sig = rm.format_significant
print(f"\nPer GPU and layer, the weights streamed grow from {rm.format_bytes(layer(min_batch)['weight_bytes'])} "
      f"(batch 1) to {rm.format_bytes(layer(max_batch)['weight_bytes'])} (batch {max_batch}): from the\n"
      f"active experts to nearly all of them; half of the experts are busy from a batch of "
      f"{math.ceil(half_active)} tokens.\n"
      f"An expert's GEMM crosses the b200 {layer(1)['peak']} ridge ({sig(ridge)} FLOP/B) only with about "
      f"{hi * ds.experts_per_token / ds.num_experts:.0f} tokens of its own.\n"
      f"Under Zipf s={zipf_s:g} routing the GPU holding the hottest experts gets "
      f"{sig(layer(max_batch, zipf_s)['rank_imbalance'])}x its share of tokens at batch {max_batch}.\n"
      f"While every GPU streams all its experts anyway, that costs little ({sig(ratio(mid_batch))}x at batch "
      f"{mid_batch:.0f}); once the hot GPU\nturns compute-bound the step waits for it: {sig(ratio(max_batch))}x "
      f"at batch {max_batch} on b200, while the other {ep - 1} GPUs wait.\n"
      "Expert-parallel load balancing (replicating hot experts) exists to remove exactly this bound.")

# %%
if svg:
    try:
        import matplotlib
        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: not drawn (matplotlib is not installed; the tables above are the answer)", file=sys.stderr)
    else:
        for name, xy in curves.items():
            plt.loglog(*zip(*xy), label=name, linestyle="--" if "Zipf" in name else "-")
        plt.title("MoE: one DeepSeek-V3 layer per step, EP8")
        plt.xlabel("batch (tokens per step)")
        plt.ylabel("MoE layer time (us)")
        plt.legend(fontsize=7)
        plt.savefig(svg)
        print(f"chart: {svg}", file=sys.stderr)
