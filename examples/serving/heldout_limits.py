#!/usr/bin/env python3
"""What the held-out errors of `roofline estimate --from-csv` are made of, and how far to trust
the held-out range `estimate --efficiency` prints.

    heldout_limits.py PREDICTIONS_CSV SILICON_CSV [--trees]

PREDICTIONS_CSV is `roofline estimate --from-csv ... --out PREDICTIONS_CSV`; SILICON_CSV the runs
file it read (for the layout columns that name a series). Prints, per mode:

1. The held-out median |error| of TTFT and TPOT, then the same after dividing each run's
   prediction by an oracle factor: the median measured / predicted of its model, of its (model,
   backend, GPU), and of its series (one configuration swept over concurrency). A factor no
   held-out fit can know (it is read from the run's own model); what remains after it is the
   error a perfect per-model level would still leave.
2. The coverage of the 10th-90th percentile band of measured / predicted, checked model by
   model: the band of a group computed without a model's runs, the share of that model's runs
   inside it (TTFT grouped by mode and backend, TPOT by mode, as the fitted table groups them).
3. With --trees (a few minutes): a generic learner in place of the linear fit, held out the same
   way: gradient-boosted regression trees (L1 loss, 200 trees of depth 4, learning rate 0.1, 32
   quantile bins) on log measured / roof, from the logs of every TTFT term, of the roof TTFT and
   TPOT, concurrency and lengths, the layout's sizes and the backend, GPU and mode; its held-out
   median |error| beside the fit's.

Needs pandas and numpy.
"""
import sys

import numpy as np
import pandas as pd

SERIES = ["model_path", "backend", "backend_version", "system", "precision", "mode", "isl", "osl", "tp_size",
          "pp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size", "prefill_num_workers", "prefill_tp_size",
          "prefill_attention_dp_size", "decode_num_workers", "decode_tp_size", "decode_attention_dp_size"]


def median_error(log_ratio):
    """Median |predicted / measured - 1| from log(measured / predicted)."""
    return 100 * np.median(np.abs(np.exp(-log_ratio) - 1))


def nearest_rank(values, q):
    v = np.sort(values)
    return v[max(int(np.ceil(q * len(v))) - 1, 0)]


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--trees"]):
        sys.exit(__doc__)
    d = pd.read_csv(sys.argv[1])
    d = d[d.skipped.isna()].copy()
    runs = pd.read_csv(sys.argv[2]).set_index("id")
    d["series"] = runs.loc[d.id, SERIES].astype(str).agg("|".join, axis=1).values
    d["group"] = d["mode"] + "/" + d.backend
    for what in ("ttft", "tpot"):
        d[what] = np.log(d[f"measured_{what}_ms"] / d[f"heldout_{what}_ms"])

    print("1. held-out median |error|, and after an oracle factor per ...")
    print("   mode    metric  held out     model  model/backend/GPU  series of >= 3 runs")
    for mode in ("agg", "disagg"):
        x = d[d["mode"] == mode]
        for what in ("ttft", "tpot"):
            r = x[what]
            cells = [median_error(r)]
            for keys in (["model_path"], ["model_path", "backend", "system"]):
                cells.append(median_error(r - r.groupby([x[k] for k in keys]).transform("median")))
            # A series of one or two runs is its own factor: only series of three or more count.
            size = r.groupby(x.series).transform("size")
            cells.append(median_error((r - r.groupby(x.series).transform("median"))[size >= 3]))
            print(f"   {mode:7} {what.upper():6} {cells[0]:8.1f}% {cells[1]:8.1f}% {cells[2]:17.1f}% {cells[3]:18.1f}%")

    print("2. coverage of the 10th-90th percentile band, each model's runs against a band made without them")
    for what, group in (("ttft", "group"), ("tpot", "mode")):
        inside = []
        for model in d.model_path.unique():
            own = d.model_path == model
            for g in d[own][group].unique():
                others = d[(~own) & (d[group] == g)][what].values
                if len(others) == 0:
                    continue
                lo, hi = nearest_rank(others, 0.1), nearest_rank(others, 0.9)
                mine = d[own & (d[group] == g)][what].values
                inside.extend((mine >= lo) & (mine <= hi))
        print(f"   {what.upper()}: {100 * np.mean(inside):.1f}% of {len(inside)} runs inside (80% by construction in-sample)")

    if "--trees" in sys.argv[3:]:
        trees(d, runs)


def boosted_trees(m, target, rows, n_trees=200, rate=0.1, depth=4, min_leaf=20, bins=32):
    """L1 gradient boosting on quantile-binned features m[rows]: returns a predictor of m."""
    edges = [np.unique(np.quantile(m[rows, j], np.linspace(0, 1, bins + 1)[1:-1])) for j in range(m.shape[1])]
    binned = lambda x: np.column_stack([np.searchsorted(edges[j], x[:, j]) for j in range(x.shape[1])])
    b, y = binned(m[rows]), target[rows]

    def grow(idx, sign, level):
        if level == 0 or len(idx) < 2 * min_leaf:
            return idx
        best, total, n = None, sign[idx].sum(), len(idx)
        for j in range(b.shape[1]):
            count = np.cumsum(np.bincount(b[idx, j], minlength=bins + 1))[:-1]
            summed = np.cumsum(np.bincount(b[idx, j], weights=sign[idx], minlength=bins + 1))[:-1]
            ok = (count >= min_leaf) & (n - count >= min_leaf)
            if ok.any():
                gain = np.where(ok, summed ** 2 / np.maximum(count, 1) + (total - summed) ** 2 / np.maximum(n - count, 1), -1)
                k = int(np.argmax(gain))
                if best is None or gain[k] > best[0]:
                    best = (gain[k], j, k)
        if best is None:
            return idx
        _, j, k = best
        return (j, k, grow(idx[b[idx, j] <= k], sign, level - 1), grow(idx[b[idx, j] > k], sign, level - 1))

    def values(node, residual):  # leaves become the median residual of their rows
        if isinstance(node, np.ndarray):
            return float(np.median(residual[node])) if len(node) else 0.0
        return (node[0], node[1], values(node[2], residual), values(node[3], residual))

    def apply(node, x):
        out = np.zeros(len(x))
        stack = [(node, np.arange(len(x)))]
        while stack:
            nd, idx = stack.pop()
            if not isinstance(nd, tuple):
                out[idx] = nd
                continue
            left = x[idx, nd[0]] <= nd[1]
            stack += [(nd[2], idx[left]), (nd[3], idx[~left])]
        return out

    start, current, forest = np.median(y), np.full(len(y), np.median(y)), []
    for _ in range(n_trees):
        residual = y - current
        tree = values(grow(np.arange(len(y)), np.sign(residual), depth), residual)
        current += rate * apply(tree, b)
        forest.append(tree)
    return lambda x: start + rate * sum(apply(t, binned(x)) for t in forest)


def trees(d, runs):
    f = np.array([[float(v) for v in t.split(";")] for t in d.ttft_terms])
    cols = [np.log(np.maximum(f[:, j], 1e-6)) for j in range(f.shape[1])]
    cols += [np.log(d.roof_ttft_ms.values), np.log(d.roof_tpot_ms.values), np.log(d.concurrency.values),
             np.log(d.isl.values), np.log(d.osl.values), f[:, 6], f[:, 7]]
    for c in ("tp_size", "attention_dp_size", "moe_ep_size", "pp_size"):
        cols.append(np.log(np.nan_to_num(runs.loc[d.id, c].values.astype(float), nan=1) + 0.5))
    for column in ("backend", "system", "mode"):
        cols += [(d[column] == v).values * 1.0 for v in sorted(d[column].unique())]
    m = np.column_stack(cols)
    models = d.model_path.values
    print("3. held-out median |error|: boosted trees against the fit")
    for what in ("ttft", "tpot"):
        target = np.log(d[f"measured_{what}_ms"].values / d[f"roof_{what}_ms"].values)
        pred = np.zeros(len(d))
        for model in np.unique(models):
            predict = boosted_trees(m, target, np.where(models != model)[0])
            pred[models == model] = predict(m[models == model])
        for mode in ("agg", "disagg"):
            k = (d["mode"] == mode).values
            print(f"   {mode:7} {what.upper()}: trees {median_error(target[k] - pred[k]):.1f}%, "
                  f"fit {median_error(d[what].values[k]):.1f}%")


if __name__ == "__main__":
    main()
