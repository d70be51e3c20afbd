#!/usr/bin/env python3
"""Runs two `roofline` binaries on every sample trace and compares what they print, byte for byte:
text, --json and --csv of each trace in data/samples and ../shared/samples (Kineto, nsys CSV,
Nsight Compute CSV), the option sets the CLI tests use (--power, --model, --ncu, --device), and
their exit codes and error messages.

    compare_trace_outputs.py OLD NEW [--stream]

--stream runs NEW with --stream on the Kineto traces (the streaming analysis, whatever their
size) and compares the JSON field by field instead: equal but for the medians of rows with more
than 256 distinct values (within 0.55%) and the note saying the trace was read as a stream.
Exit status 1 when any run differs.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared", "samples"))


def traces():
    """Every trace file of the samples (not power logs, configs, bench results)."""
    out = []
    for root in (os.path.join(REPO, "data", "samples"), SHARED):
        for d, _, files in os.walk(root):
            for f in sorted(files):
                p = os.path.join(d, f)
                if f.endswith((".json", ".json.gz")) and ("trace" in f or "/kineto/" in p or "/hta/" in p or "/h200/" in p):
                    if f in ("meta.json", "config.json", "cases.json", "points.json") or "sweep_order" in p:
                        continue
                    if "model_configs" in p or "aiconfigurator" in p or "/bench/" in p:
                        continue
                    out.append(p)
                elif f.startswith(("cuda_gpu_trace", "cuda_gpu_kern_sum")) or "ncu_raw" in f or \
                        (f.endswith(".csv") and "/ncu/" in p) or (f.endswith(".csv") and "/nsys/" in p):
                    out.append(p)
    return sorted(out)


def invocations():
    """Argument lists: each trace three ways, then the option sets of the CLI tests."""
    runs = []
    for t in traces():
        for fmt in ([], ["--json"], ["--csv"]):
            runs.append(["trace", t] + fmt)
    s = os.path.join(REPO, "data", "samples")
    for name in ("gemm_power", "elementwise", "decode_attention", "tiny_kernels", "allreduce_2gpu"):
        d = os.path.join(s, "h200", name)
        runs.append(["trace", os.path.join(d, "trace.json.gz"), "--power", os.path.join(d, "nvidia_smi.csv.gz"), "--json"])
        runs.append(["trace", os.path.join(d, "trace.json.gz"), "--power", os.path.join(d, "nvidia_smi.csv.gz")])
    st = os.path.join(s, "h200-stacks")
    for name in sorted(os.listdir(st)):
        d = os.path.join(st, name)
        if os.path.exists(os.path.join(d, "trace.json.gz")) and os.path.exists(os.path.join(d, "nvidia_smi.csv.gz")):
            extra = []
            if os.path.exists(os.path.join(d, "config.json")):
                meta = json.load(open(os.path.join(d, "meta.json"))) if os.path.exists(os.path.join(d, "meta.json")) else {}
                batch = str(meta.get("batch", 8))
                extra = ["--model", os.path.join(d, "config.json"), "--batch", batch, "--context", "1024"]
            runs.append(["trace", os.path.join(d, "trace.json.gz"), "--power", os.path.join(d, "nvidia_smi.csv.gz"), "--json"] + extra)
    runs.append(["trace", os.path.join(st, "graph_decode_b8", "trace.json.gz"), "--ncu",
                 os.path.join(st, "ncu-graph_decode_b128", "ncu_raw.csv.gz"), "--json"])
    runs.append(["trace", os.path.join(s, "h200-serving", "trace.json.gz"), "--power",
                 os.path.join(s, "h200-serving", "nvidia_smi.csv"), "--model", os.path.join(s, "h200-serving", "config.json"),
                 "--batch", "256", "--context", "1281", "--json"])
    runs.append(["trace", os.path.join(SHARED, "h200", "h200x2_tp_mlp_allreduce_rank0.trace.json.gz"), "--device", "1"])
    runs.append(["trace", os.path.join(SHARED, "h200", "h200_moe_decode_step.trace.json.gz"), "--power",
                 os.path.join(SHARED, "h200", "h200_sweep_nvidia_smi.csv.gz"), "--json"])
    return [r for r in runs if all(not a.startswith("/") or os.path.exists(a) for a in r)]


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, cwd=REPO)
    return p.returncode, p.stdout, p.stderr


def json_same(a, b):
    """Equal JSON but for medians (within 0.55%) and the streaming note."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        for k in a:
            if k == "notes" and isinstance(a[k], list):
                if a[k] != [n for n in b[k] if not str(n).startswith("read as a stream")]:
                    return False
            elif k.startswith("median_") and isinstance(a[k], (int, float)) and isinstance(b[k], (int, float)):
                if abs(a[k] - b[k]) > 0.0055 * max(abs(a[k]), abs(b[k])):
                    return False
            elif not json_same(a[k], b[k]):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_same(x, y) for x, y in zip(a, b))
    return a == b


def main():
    old, new = sys.argv[1], sys.argv[2]
    stream = "--stream" in sys.argv[3:]
    runs = invocations()
    differ = 0
    compared = 0
    for args in runs:
        kineto = args[1].endswith((".json", ".json.gz")) and "ncu" not in os.path.basename(args[1])
        if stream and not (kineto and "--json" in args):
            continue
        a = run(old, args)
        b = run(new, args + (["--stream"] if stream else []))
        compared += 1
        same = a == b if not stream else (a[0] == b[0] and (a[0] != 0 or json_same(json.loads(a[1]), json.loads(b[1]))))
        if not same:
            differ += 1
            print("DIFFERS:", " ".join(os.path.relpath(x, REPO) if x.startswith("/") else x for x in args))
    kind = "JSON equal but for medians within 0.55% and the streaming note" if stream else "byte-identical (stdout, stderr, exit code)"
    print(f"{compared - differ} of {compared} runs {kind}; {len(traces())} trace files")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
