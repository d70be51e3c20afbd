#!/usr/bin/env python3
"""Peak memory and time of `roofline trace` (text and --json) as a trace grows: dense synthetic
Kineto traces (dense_trace.py: one H200 decode loop, about 1 KB of file per kernel, written in
the profiler's layout: every CPU op, then the GPU section, then the step annotations) of the
given sizes, each run once per mode with GNU time's peak RSS (`/usr/bin/time -v`).

    trace_memory.py [ROOFLINE ...] [--gb 0.1 1 10] [--step-kernels 1000] [--modes text json]
                    [--dir /tmp] [--keep]

ROOFLINE: binaries to measure (default build/roofline), each on every size. A trace is written
to DIR as roofline_dense_<GB>gb_s<STEP_KERNELS>.json (generating 10 GB takes about 3 minutes),
reused when present, and removed afterwards unless --keep. Prints one line per run: the file's
size, kernels, step rows, how it was read (whole, or as a stream), seconds and peak RSS.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def option(args, name, n=1, default=None):
    if name not in args:
        return default
    i = args.index(name)
    values = []
    j = i + 1
    while j < len(args) and not args[j].startswith("--") and (n is None or len(values) < n):
        values.append(args[j])
        j += 1
    del args[i:j]
    return values if n is None else values[0]


def measure(roofline, trace, mode, out):
    """(seconds, user seconds, peak RSS in MB) of one run, its stdout in `out`."""
    cmd = ["/usr/bin/time", "-v", roofline, "trace", trace] + (["--json"] if mode == "json" else [])
    with open(out, "wb") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"trace_memory: {' '.join(cmd)} failed:\n{p.stderr}")
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, m, s = wall.groups()
    secs = int(h or 0) * 3600 + int(m) * 60 + float(s)
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return secs, user, kb / 1024


def facts(out, mode):
    """(kernels, step rows, 'stream' or 'whole') from a run's output."""
    with open(out, "rb") as f:
        head = f.read(1 << 16).decode("utf-8", "replace")
        f.seek(max(0, os.path.getsize(out) - (1 << 20)))
        tail = f.read().decode("utf-8", "replace")
    how = "stream" if "read as a stream" in tail.replace("\n    ", " ") else "whole"
    if mode == "json":
        kernels = int(re.search(r'"kernel_count": (\d+)', head).group(1))
        steps = 0
        with open(out, "rb") as f:  # step rows: each opens with its name at 6 spaces of indent
            in_steps = False
            for line in f:
                if line.startswith(b'  "steps": ['):
                    in_steps = b"[]" not in line
                elif in_steps:
                    if line.startswith(b"  ]"):
                        break
                    steps += line.startswith(b'      "name": ')
    else:
        kernels = int(re.search(r"(\d+) kernels, ", head).group(1))
        steps = 0
        with open(out, "rb") as f:
            in_steps = False
            for line in f:
                if line.startswith(b"Steps ("):
                    in_steps, steps = True, -2  # its header and rule
                elif in_steps:
                    if not line.strip():
                        break
                    steps += 1
    return kernels, max(steps, 0), how


def main():
    args = sys.argv[1:]
    sizes = [float(x) for x in option(args, "--gb", None, ["0.1", "1", "10"])]
    step_kernels = int(option(args, "--step-kernels", 1, "1000"))
    modes = option(args, "--modes", None, ["text", "json"])
    d = option(args, "--dir", 1, os.environ.get("TMPDIR", "/tmp"))
    keep = "--keep" in args
    if keep:
        args.remove("--keep")
    binaries = args or ["build/roofline"]
    print(f"{'binary':<28} {'trace':>9} {'kernels':>11} {'steps':>7} {'mode':<5} {'read':<6} "
          f"{'seconds':>8} {'user s':>8} {'peak RSS':>9}")
    for gb in sizes:
        trace = os.path.join(d, f"roofline_dense_{gb:g}gb_s{step_kernels}.json")
        made = False
        if not os.path.exists(trace):
            subprocess.run([sys.executable, os.path.join(HERE, "dense_trace.py"), trace, str(gb),
                            "--step-kernels", str(step_kernels)], check=True, stdout=subprocess.DEVNULL)
            made = True
        mb = os.path.getsize(trace) / 1e6
        try:
            for roofline in binaries:
                for mode in modes:
                    out = os.path.join(d, f"roofline_dense_out.{os.getpid()}")
                    try:
                        secs, user, rss = measure(roofline, trace, mode, out)
                        kernels, steps, how = facts(out, mode)
                    finally:
                        if os.path.exists(out):
                            os.remove(out)
                    print(f"{roofline[-28:]:<28} {mb:>6.0f} MB {kernels:>11,} {steps:>7,} {mode:<5} {how:<6} "
                          f"{secs:>8.1f} {user:>8.1f} {rss:>6.0f} MB", flush=True)
        finally:
            if made and not keep:
                os.remove(trace)


if __name__ == "__main__":
    main()
