"""A trace's kernels on the roofline of its GPU, with matplotlib (Debian python3-matplotlib).

    PYTHONPATH=build/python python3 examples/python/plot/trace_roofline.py TRACE [--power CSV] [-o OUT.png]

Every kernel name `roofline trace` could price (it knows its FLOP and DRAM bytes, from the shapes
the trace recorded) is one point: x = arithmetic intensity (FLOP per DRAM byte), y = achieved
FLOP/s (its FLOP over its measured time), the marker size its share of the GPU time, the colour
its bound. The roofs are the datasheet dense peak of the kernels' rate class and the DRAM
bandwidth, from `roofline roof --json`; nothing is computed here that the library did not.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import roofline  # noqa: E402

COLOURS = {"compute": "tab:blue", "memory": "tab:orange", "power": "tab:red",
           "communication": "tab:purple", "latency": "tab:gray", "unknown": "black"}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("--power")
    p.add_argument("--dtype", default="bf16", help="rate class of the compute roof (default bf16)")
    p.add_argument("-o", "--output", default="trace_roofline.png")
    a = p.parse_args()

    t = roofline.trace(a.trace, power=a.power)
    df = roofline.to_pandas(t, "kernels")
    df = df[(df.flops > 0) & (df.dram_bytes > 0) & (df.total_s > 0)].copy()
    df["intensity"] = df.flops / df.dram_bytes
    df["achieved_flops_per_s"] = df.flops / df.total_s
    r = roofline.roof(gpu=t["gpu"]["id"], dtype=a.dtype)
    peak, bw = r["peak_flops_per_s"], r["dram_bytes_per_s"]

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    lo = min(df.intensity.min(), 0.1) / 2
    hi = max(df.intensity.max(), r["ridge_point_flop_per_byte"]) * 4
    xs = [lo, r["ridge_point_flop_per_byte"], hi]
    ax.plot(xs, [min(peak, bw * x) for x in xs], color="black", lw=1.5)
    ax.annotate(f"{a.dtype} peak {peak / 1e12:.0f} TFLOP/s", (hi, peak), ha="right", va="bottom")
    ax.annotate(f"DRAM {bw / 1e12:.2f} TB/s", (lo * 1.5, bw * lo * 1.5), xytext=(-6, 12),
                textcoords="offset points", va="bottom")
    for bound, rows in df.groupby("bound"):
        ax.scatter(rows.intensity, rows.achieved_flops_per_s, s=20 + 600 * rows.share,
                   color=COLOURS.get(bound, "black"), alpha=0.7, label=f"{bound}-bound", edgecolor="k")
    for _, k in df.nlargest(4, "share").iterrows():
        ax.annotate(k["name"][:32], (k.intensity, k.achieved_flops_per_s), fontsize=7,
                    xytext=(4, -10), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("achieved FLOP/s")
    ax.set_title(f"{a.trace.split('/')[-2] if '/' in a.trace else a.trace} on {t['gpu']['id']}: "
                 f"{t['verdict']['bound']}-bound", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    fig.savefig(a.output)
    print(f"{len(df)} kernels priced of {len(t['kernels'])}; wrote {a.output}")


if __name__ == "__main__":
    main()
