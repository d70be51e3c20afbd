# %% [markdown]
# # Collectives: when TP over PCIe is the wall  (Python twin of examples/learn/collectives.cpp)
#
# An all-reduce of S bytes over n GPUs costs, in the alpha-beta model, t = base + steps x alpha +
# link_bytes / beta: a ring moves 2 (n - 1) / n x S per rank in 2 (n - 1) steps; one-shot and
# two-shot kernels (which need P2P) take fewer steps. Small messages pay alpha, large ones S / beta;
# they meet at S ~ alpha x steps x beta / (link bytes per byte). Tensor parallelism all-reduces
# twice per layer, at decode sizes (batch x hidden x 2 B): alpha territory, so without P2P (alpha
# 2.96 us per hop) a TP8 decode step can spend more time talking than computing.
# Every number: the module's collective and decode-step models (`models.all_reduce`,
# `models.decode_step`), NCCL's tuning constants and the catalog's links, data/models/glm-5.
# Run: PYTHONPATH=build/python python3 examples/learn/python/collectives.py
# Chart: with `--svg FILE` and matplotlib installed, all-reduce time vs S; else tables only.

# %%
import os
import sys

import roofline
from roofline import models as rm

args = sys.argv[1:]
data = args[args.index("--data") + 1] if "--data" in args else os.environ.get(
    "ROOFLINE_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "data"))
svg = args[args.index("--svg") + 1] if "--svg" in args else None
ranks, context, batches = 8, 4096, (1, 64)  # the question's parameters
links = [("h200-sxm", "nvlink"), ("rtx-pro-6000", "pcie"), ("rtx-pro-6000", "pcie-no-p2p")]
sizes = [1024 * 2 ** i for i in range(21)]  # 1 KiB .. 1 GiB

# %% [markdown]
# ## The links: alpha per hop, base latency, beta, and where latency equals bandwidth time

# %%
print(f"All-reduce over {ranks} GPUs, alpha-beta model (fastest of ring / one-shot / two-shot where P2P allows)\n")
rows, curves = [], []
for gpu, link in links:
    p = rm.link_params(gpu, link)
    one = rm.all_reduce(1.0, ranks, gpu, link, best=False)  # the ring, per byte
    rows.append([link, gpu, rm.format_seconds(p["alpha_s"]), rm.format_seconds(p["base_latency_s"]),
                 rm.format_bytes_per_s(p["beta_bytes_per_s"]), "yes" if p["p2p"] else "no",
                 rm.format_bytes(one["latency_s"] * p["beta_bytes_per_s"] / one["link_bytes"])])
    curves.append((link, [rm.all_reduce(s, ranks, gpu, link)["time_s"] * 1e6 for s in sizes]))
print(rm.table(["link", "GPU", "alpha/hop", "base", "beta", "P2P", "latency = bandwidth at"], rows))

# %% [markdown]
# ## All-reduce time vs message size: the fastest algorithm per link

# %%
rows = []
for s in sizes[::4]:
    best = [rm.all_reduce(s, ranks, gpu, link) for gpu, link in links]
    rows.append([rm.format_bytes_binary(s)] + [rm.format_seconds(b["time_s"]) + " " + b["algorithm"] for b in best] +
                [rm.format_bytes_per_s(best[1]["busbw_bytes_per_s"])])
print(rm.table(["S", "nvlink", "pcie", "pcie-no-p2p", "pcie busbw"], rows))

# %% [markdown]
# ## A GLM-5 NVFP4 decode step on 8x RTX PRO 6000: TP 1..8 over PCIe, with and without P2P
# (weights/GPU above the card's memory are marked: such a TP degree cannot hold the model).

# %%
glm = rm.read_model(os.path.join(data, "models", "glm-5", "config.json"),
                    os.path.join(data, "models", "glm-5", "hf_quant_config.json"))
capacity = roofline.gpus(compare="rtx-pro-6000")[0]["memory_bytes"]
print(f"GLM-5 NVFP4 decode step on rtx-pro-6000 ({context} tokens of context per sequence), per GPU\n")
rows, verdict = [], ""
for batch in batches:
    for link in ("pcie", "pcie-no-p2p"):
        first = 0
        for tp in (1, 2, 4, 8):
            s = rm.decode_step(glm, batch, context, tp, "rtx-pro-6000", link)
            if not first and s["dominant"] == "communication":
                first = tp
            w = s["weight_bytes_per_gpu"]
            too_big = f" (>{capacity / 1e9:.0f} GB)" if w > capacity else ""
            rows.append([str(batch), str(tp), rm.format_bytes(w) + too_big,
                         link, rm.format_seconds(s["lower_bound_s"]), rm.format_seconds(s["communication_s"]),
                         rm.format_percent(s["communication_share"]), s["dominant"]])
        verdict += f"batch {batch}, {link}: " + (f"communication is the largest phase from TP{first}" if first else
                                                 f"communication is never the largest phase up to TP{ranks}") + "\n"
print(rm.table(["batch", "TP", "weights/GPU", "link", "step", "communication", "share", "largest phase"], rows))
print(verdict + f"Each layer all-reduces twice ({2 * glm.num_layers} all-reduces per step); at decode sizes "
      "each costs alpha, not S / beta.")

# %%
if svg:
    try:
        import matplotlib
        matplotlib.use("svg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: not drawn (matplotlib is not installed; the tables above are the answer)", file=sys.stderr)
    else:
        for name, ts in curves:
            plt.loglog(sizes, ts, label=name)
        for batch in batches:
            plt.axvline(batch * glm.hidden_size * rm.bytes_per_element("bf16"), color="grey", linestyle=":")
        plt.title("All-reduce time vs message size")
        plt.xlabel("message size S (bytes)")
        plt.ylabel("all-reduce time (us)")
        plt.legend(fontsize=7)
        plt.savefig(svg)
        print(f"chart: {svg}", file=sys.stderr)
