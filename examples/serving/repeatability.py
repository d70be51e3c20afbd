#!/usr/bin/env python3
"""How well measured serving runs repeat: for every configuration the silicon CSV measured more
than once (model, GPU, backend, precision, mode, lengths, concurrency, layout, and, with a run
facts file, decode workers and speculation), the error of predicting one distinct measurement by
another, |a / b - 1| over ordered pairs; median and p90 per mode, for TPOT and TTFT. Rows whose
values are identical (one measurement copied into two source files) count once.

    repeatability.py SILICON_CSV [RUN_FACTS_CSV]

The floor any predictor meets on such runs (README, "Predicting measured serving"). Needs pandas.
"""
import sys

import pandas as pd


def main():
    runs = pd.read_csv(sys.argv[1])
    if len(sys.argv) > 2:
        facts = pd.read_csv(sys.argv[2]).set_index("id")
        for col in facts.columns:
            if col == "source":
                continue
            known = runs.id.map(facts[col])
            runs[col] = known.where(known.notna(), runs[col]) if col in runs else known
    key = ["model_path", "system", "backend", "precision", "mode", "isl", "osl", "silicon_data_source_conc",
           "tp_size", "attention_dp_size", "moe_ep_size", "prefill_tp_size", "decode_tp_size",
           "decode_attention_dp_size", "decode_num_workers", "spec_decoding", "draft_tokens"]
    runs["silicon_data_source_conc"] = runs.silicon_data_source.str.extract(r"silicon_concurrency=(\d+)")[0]
    for k in key:
        if k not in runs:
            runs[k] = ""
        runs[k] = runs[k].astype(str)
    rows = []
    for _, g in runs.groupby(key):
        distinct = g.drop_duplicates(["silicon_tpot_ms", "silicon_ttft_ms"])
        if len(distinct) < 2:
            continue
        for col in ("silicon_tpot_ms", "silicon_ttft_ms"):
            v = distinct[col].values
            rows += [(g["mode"].iloc[0], col, abs(a / b - 1)) for i, a in enumerate(v) for j, b in enumerate(v) if i != j]
    r = pd.DataFrame(rows, columns=["mode", "metric", "error"])
    out = r.groupby(["mode", "metric"]).error.agg(pairs="size", median="median", p90=lambda e: e.quantile(0.9, interpolation="higher"))
    print(out.to_string(float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
