#!/usr/bin/env python3
"""Writes a synthetic Kineto trace of at least MB x 10^6 bytes by repeating the events of a real
one (default: the B200 TP8 vLLM sample, NCCL metadata included), each copy shifted past the
previous one in time and with fresh correlation and External ids, for the cluster benchmark.

    replicate_trace.py [--layout copies|real] SRC OUT MB [RANK]

RANK (optional) is written as distributedInfo.rank; "none" removes distributedInfo (the rank
then comes from the file name); without it the trace keeps the source's.

--layout copies (the default) writes each copy whole, one after the other: the CPU section and
the GPU section of a copy lie together. --layout real writes the file as the profiler writes a
long profile: every copy's CPU events (ops, python functions, annotations) first, then every
copy's GPU section (kernels, copies, launch calls, GPU annotations), then the flows: a reader that
holds the CPU ops until their kernels arrive holds them all.
"""
import gzip
import json
import sys

# Categories of the GPU section of a Kineto file (the rest but flows is the CPU section).
GPU_SECTION = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "gpu_user_annotation",
               "overhead", "Kernel", "Memcpy", "Memset", "Runtime"}


def section(e):
    """0: CPU section, 1: GPU section, 2: flows."""
    if e.get("ph") in ("s", "f", "t"):
        return 2
    return 1 if e.get("cat") in GPU_SECTION else 0


def main():
    args = sys.argv[1:]
    layout = "copies"
    if len(args) >= 2 and args[0] == "--layout":
        layout = args[1]
        args = args[2:]
        if layout not in ("copies", "real"):
            sys.exit("replicate_trace: --layout is copies or real")
    src, out, mb = args[0], args[1], float(args[2])
    rank = args[3] if len(args) > 3 else None
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
    def shifted(e, copy):
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
        return json.dumps(e2)

    with open(out, "w") as f:
        head = json.dumps(d)[:-1]  # without the closing brace
        f.write(head + (", " if d else "") + '"traceEvents": [\n')
        written, first = len(head), True

        def put(text):
            nonlocal written, first
            line = ("" if first else ",\n") + text
            first = False
            f.write(line)
            written += len(line)

        if layout == "copies":
            copy = 0
            while written < target:
                for e in events:
                    put(shifted(e, copy))
                copy += 1
        else:
            # As many copies as the copies layout writes (whole copies until the target; shifted
            # times and ids change the lengths), then each section of all of them.
            copy, size = 0, written
            while size < target:
                size += sum(len(shifted(e, copy)) + 2 for e in events)
                copy += 1
            parts = [[e for e in events if section(e) == k] for k in range(3)]
            for part in parts:
                for c in range(copy):
                    for e in part:
                        put(shifted(e, c))
        f.write("\n]}\n")
    print(f"{out}: {written / 1e6:.1f} MB, {copy} copies of {len(events)} events ({layout} layout)")


if __name__ == "__main__":
    main()
