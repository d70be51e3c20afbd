#!/usr/bin/env python3
"""The GPU's state while each case of a sweep ran: SM clock, power, temperature, power cap.

    sweep_clocks.py SMI.csv[.gz] SWEEP.json[.gz]... [--min-us T] [--op gemm] [--dtype fp8_e4m3]

SMI: the nvidia-smi log `h200_graph_sweep.py --smi-log` writes (CSV with a header, timestamps in
the machine's local time, UTC on the device machine). SWEEP: its `roofline.kernels/1` files,
whose records carry `t_start_unix` / `t_end_unix` (the wall-clock span of the graph timing).
For the selected records (default: GEMMs of at least 100 us) prints per file the number of
cases, the median over cases of the median SM clock, power and temperature logged inside each
case's span, the share of those samples with the SW power cap active, and the median achieved
rate scaled to the maximum clock (FLOP/s x max clock / logged clock): equal scaled rates mean
the sets differ by clock alone. Standard library only.
"""
import argparse
import csv
import datetime
import gzip
import json
import statistics
import sys


def opener(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def number(text):
    return float(text.strip().split()[0])


def read_smi(path):
    rows = []
    with opener(path) as f:
        r = csv.reader(f)
        head = [h.strip() for h in next(r)]
        col = {h.split(" [")[0]: i for i, h in enumerate(head)}
        need = ("timestamp", "clocks.current.sm", "clocks.max.sm", "power.draw", "temperature.gpu",
                "clocks_event_reasons.sw_power_cap")
        for n in need:
            if n not in col:
                sys.exit(f"{path}: no column {n!r} in the header")
        for line, row in enumerate(r, start=2):
            if not row:
                continue
            try:
                t = datetime.datetime.strptime(row[col["timestamp"]].strip(), "%Y/%m/%d %H:%M:%S.%f")
                t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
                rows.append((t, number(row[col["clocks.current.sm"]]), number(row[col["clocks.max.sm"]]),
                             number(row[col["power.draw"]]), number(row[col["temperature.gpu"]]),
                             row[col["clocks_event_reasons.sw_power_cap"]].strip() == "Active"))
            except (ValueError, IndexError) as e:
                sys.exit(f"{path}:{line}: {e}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("smi")
    ap.add_argument("sweeps", nargs="+")
    ap.add_argument("--min-us", type=float, default=100.0)
    ap.add_argument("--op", default="gemm")
    ap.add_argument("--dtype", default=None)
    o = ap.parse_args()
    smi = read_smi(o.smi)
    print("| file | dtype | n | SM clock | power | temperature | SW power cap | rate at max clock |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in o.sweeps:
        with opener(path) as f:
            d = json.load(f)
        by_dtype = {}
        for r in d["results"]:
            if r.get("op") != o.op or not r.get("median_s") or r["median_s"] * 1e6 < o.min_us:
                continue
            if o.dtype and r.get("dtype") != o.dtype:
                continue
            if "t_start_unix" not in r:
                sys.exit(f"{path}: case {r.get('case')} has no t_start_unix (recorded before the stamps)")
            s = [x for x in smi if r["t_start_unix"] <= x[0] <= r["t_end_unix"]]
            if not s:
                continue
            clk = statistics.median(x[1] for x in s)
            rate = r["flops"] / r["median_s"] * s[0][2] / clk if r.get("flops") else float("nan")
            by_dtype.setdefault(r["dtype"], []).append((clk, statistics.median(x[3] for x in s),
                                                        statistics.median(x[4] for x in s),
                                                        sum(x[5] for x in s) / len(s), rate))
        for dt, v in sorted(by_dtype.items()):
            med = lambda i: statistics.median(x[i] for x in v)
            print(f"| {path.rsplit('/', 1)[-1]} | {dt} | {len(v)} | {med(0):.0f} MHz | {med(1):.0f} W | {med(2):.0f} C | "
                  f"{100 * med(3):.0f}% | {med(4) / 1e12:.0f} TFLOP/s |")


if __name__ == "__main__":
    main()
