#!/usr/bin/env python3
"""How much the same kernel case moves between two recordings of one sweep.

    sweep_repeatability.py A.json[.gz] B.json[.gz] [--min-us T]

A and B: `roofline.kernels/1` sweeps of the same cases (examples/validation/h200_graph_sweep.py),
e.g. data/validation/h200-graph/kernels_independent.json and
data/samples/h200-stacks/sweep_order/interleaved_independent.json.gz. Cases are matched by their
`case` id and checked to have the same op and shape. Prints, per op family (gemm by dtype,
grouped_mm, sdpa prefill / decode with their backend, copy), the number of cases and the median
and p90 of |t_B / t_A - 1| of the recorded time (`median_s`), and the median ratio t_B / t_A.
--min-us keeps only cases of at least T microseconds in A (large kernels, where the power cap
acts). Standard library only.
"""
import argparse
import gzip
import json
import sys

SHAPE_KEYS = ("op", "m", "n", "k", "dtype", "batch", "seq", "kv_len", "heads", "kv_heads", "head_dim", "causal",
              "tokens", "experts", "topk", "hidden", "inter", "gemm", "routing", "size_bytes", "l2_resident", "backend")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    if d.get("schema") != "roofline.kernels/1":
        sys.exit(f"{path}: schema {d.get('schema')!r}, expected 'roofline.kernels/1'")
    return {r["case"]: r for r in d["results"] if "case" in r and r.get("median_s")}


def family(r):
    op = r["op"]
    if op == "gemm":
        return "gemm " + ("fp8" if r["dtype"].startswith("fp8") else r["dtype"])
    if op.startswith("sdpa"):
        return op.replace("_", " ") + (" " + r["backend"] if r.get("backend") else "")
    return op


def quantile(xs, q):
    """Nearest-rank quantile, as the library's `quantile_nearest_rank`."""
    s = sorted(xs)
    i = max(0, min(len(s) - 1, int(-(-q * len(s) // 1)) - 1))
    return s[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--min-us", type=float, default=0.0)
    o = ap.parse_args()
    a, b = load(o.a), load(o.b)
    fams = {}
    for case, ra in a.items():
        rb = b.get(case)
        if rb is None:
            continue
        sa = {k: ra.get(k) for k in SHAPE_KEYS}
        sb = {k: rb.get(k) for k in SHAPE_KEYS}
        if sa != sb:
            sys.exit(f"case {case}: not the same shape in both files: {sa} vs {sb}")
        if ra["median_s"] * 1e6 < o.min_us:
            continue
        fams.setdefault(family(ra), []).append(rb["median_s"] / ra["median_s"])
    print(f"{o.b} against {o.a}" + (f" (cases >= {o.min_us:g} us)" if o.min_us else ""))
    print("| family | n | median abs change | p90 abs change | median ratio |")
    print("|---|---:|---:|---:|---:|")
    every = []
    for f in sorted(fams):
        r = fams[f]
        every += r
        d = [abs(x - 1) for x in r]
        print(f"| {f} | {len(r)} | {100 * quantile(d, 0.5):.1f}% | {100 * quantile(d, 0.9):.1f}% | {quantile(r, 0.5):.3f} |")
    if every:
        d = [abs(x - 1) for x in every]
        print(f"| all | {len(every)} | {100 * quantile(d, 0.5):.1f}% | {100 * quantile(d, 0.9):.1f}% | "
              f"{quantile(every, 0.5):.3f} |")


if __name__ == "__main__":
    main()
