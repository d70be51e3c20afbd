#!/usr/bin/env python3
"""Writes a synthetic Kineto trace of at least MB x 10^6 bytes by repeating the events of a real
one (default: the B200 TP8 vLLM sample, NCCL metadata included), each copy shifted past the
previous one in time and with fresh correlation and External ids, for the cluster benchmark.

    replicate_trace.py SRC OUT MB [RANK]

RANK (optional) is written as distributedInfo.rank; "none" removes distributedInfo (the rank
then comes from the file name); without it the trace keeps the source's.
"""
import gzip
import json
import sys


def main():
    src, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rank = sys.argv[4] if len(sys.argv) > 4 else None
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        d = json.load(f)
    events = d.pop("traceEvents")
    if rank == "none":
        d.pop("distributedInfo", None)
    elif rank is not None and isinstance(d.get("distributedInfo"), dict):
        d["distributedInfo"]["rank"] = int(rank)
    ts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(ts) - min(ts) + 1000.0
    id_step = 10 ** 7
    target = int(mb * 1e6)
    with open(out, "w") as f:
        head = json.dumps(d)[:-1]  # without the closing brace
        f.write(head + (", " if d else "") + '"traceEvents": [\n')
        written, copy, first = len(head), 0, True
        while written < target:
            for e in events:
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = e2["ts"] + copy * span
                args = e2.get("args")
                if isinstance(args, dict) and ("correlation" in args or "External id" in args):
                    args = dict(args)
                    for k in ("correlation", "External id"):
                        if isinstance(args.get(k), int):
                            args[k] = args[k] + copy * id_step
                    e2["args"] = args
                if e2.get("ph") in ("s", "f") and isinstance(e2.get("id"), int):
                    e2["id"] = e2["id"] + copy * id_step
                line = ("" if first else ",\n") + json.dumps(e2)
                first = False
                f.write(line)
                written += len(line)
            copy += 1
        f.write("\n]}\n")
    print(f"{out}: {written / 1e6:.1f} MB, {copy} copies of {len(events)} events")


if __name__ == "__main__":
    main()
