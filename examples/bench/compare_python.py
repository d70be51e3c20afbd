#!/usr/bin/env python3
"""Kineto ingest: roofline against Python's json.load on the same file, with peak memory.

Usage: compare_python.py TOOL [--mb 128] [--big-mb 1000] [--dir /tmp] [--roofline BIN ...] [--cpus 0|all]
       compare_python.py --file TRACE.json --variants "" --roofline BIN [--runs 3] [--cpus all]
TOOL is the kineto_ingest_tool binary. `--file` times an existing decompressed trace instead of
generating one (e.g. replicate_trace.py's 117 MB B200 trace; no TOOL needed with --variants "");
`--runs N` alternates json.load and each binary N times and prints each run and the medians. `--roofline BIN` (repeatable, e.g. a build of main and
one of a branch) also times `BIN trace FILE --json` end to end: read, analysis and report. Generates a trace of --mb MB (and one of --big-mb MB to
show that memory stays flat), then runs each variant in its own process on one core
(taskset -c 0 when available; `--cpus all`: unpinned, so that the library's parse threads run
beside the reading one) and json.load in a Python subprocess, and prints MB/s, the ratio to
json.load and the peak RSS of each.
"""
import argparse, os, resource, shutil, subprocess, sys, time

PY_LOAD = r"""
import json, os, resource, sys, time
p = sys.argv[1]
t0 = time.perf_counter(); c0 = time.process_time()
with open(p) as f:
    d = json.load(f)
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
mb = os.path.getsize(p) / 1e6
print(f"json.load wall_s={wall:.3f} cpu_s={cpu:.3f} mb_per_s={mb / wall:.1f} cpu_mb_per_s={mb / cpu:.1f} "
      f"peak_rss_mb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} count={len(d['traceEvents'])} file_mb={mb:.1f}")
"""

PIN = []

def run(cmd):
    pin = PIN
    out = subprocess.run(pin + cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    name, *fields = out.split()
    return name, dict(f.split("=") for f in fields)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool", nargs="?")
    ap.add_argument("--file", help="an existing decompressed Kineto trace to time instead of generated ones")
    ap.add_argument("--runs", type=int, default=1, help="alternating runs of json.load and each binary (medians)")
    ap.add_argument("--mb", type=float, default=128)
    ap.add_argument("--big-mb", type=float, default=1000)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--variants", default="summarize,read,scan-simdjson,scan-nlohmann")
    ap.add_argument("--roofline", action="append", default=[], help="a roofline CLI binary to time `trace FILE --json` with")
    ap.add_argument("--cpus", default="0", help="CPUs to pin every run to (taskset -c), or 'all' for none")
    a = ap.parse_args()
    global PIN
    PIN = ["taskset", "-c", a.cpus] if a.cpus != "all" and shutil.which("taskset") else []
    if a.file:
        alternate(a)
        return
    if not a.tool:
        ap.error("TOOL is needed unless --file is given")
    sizes = [a.mb] + ([a.big_mb] if a.big_mb > 0 else [])
    for mb in sizes:
        path = os.path.join(a.dir, f"roofline_kineto_{int(mb)}mb.json")
        if not os.path.exists(path) or os.path.getsize(path) < mb * 1e6:
            subprocess.run([a.tool, "generate", path, str(mb)], check=True)
        rows = []
        if mb == a.mb:  # json.load on the 1 GB file needs ~5 GB of RAM: only on the first size
            rows.append(run([sys.executable, "-c", PY_LOAD, path]))
        for v in a.variants.split(","):
            try:
                rows.append(run([a.tool, v, path]))
            except subprocess.CalledProcessError as e:
                print(f"{v}: failed: {e.stderr.strip()}")
        for k, binary in enumerate(a.roofline):
            wall, cpu = time_trace(binary, path)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            file_mb = os.path.getsize(path) / 1e6
            rows.append((f"trace#{k}", {"wall_s": wall, "mb_per_s": file_mb / wall, "cpu_mb_per_s": file_mb / cpu,
                                        "peak_rss_mb": after.ru_maxrss / 1024, "file_mb": file_mb}))
            print(f"trace#{k} = {binary}")
        py = next((r for n, r in rows if n == "json.load"), None)
        print(f"\n== {os.path.basename(path)} ({float(rows[0][1]['file_mb']):.1f} MB)")
        print(f"{'variant':<16} {'wall s':>8} {'MB/s':>8} {'cpu MB/s':>9} {'x json.load':>12} {'peak RSS MB':>12}")
        for n, r in rows:
            ratio = f"{float(r['mb_per_s']) / float(py['mb_per_s']):.1f}x" if py else "-"
            print(f"{n:<16} {float(r['wall_s']):>8.2f} {float(r['mb_per_s']):>8.1f} {float(r['cpu_mb_per_s']):>9.1f} {ratio:>12} {float(r['peak_rss_mb']):>12.1f}")

def time_trace(binary, path):
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(PIN + [binary, "trace", path, "--json"], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def alternate(a):
    """json.load and `BIN trace FILE --json` on one existing file, alternated a.runs times."""
    path = a.file
    walls = {"json.load": []}
    for b in a.roofline:
        walls[b] = []
    for i in range(a.runs):
        name, r = run([sys.executable, "-c", PY_LOAD, path])
        walls["json.load"].append(float(r["wall_s"]))
        for b in a.roofline:
            wall, cpu = time_trace(b, path)
            walls[b].append(wall)
        print(f"run {i + 1}: " + "  ".join(f"{k} {v[-1]:.3f} s" for k, v in walls.items()), flush=True)
    med = {k: sorted(v)[len(v) // 2] for k, v in walls.items()}
    mb = os.path.getsize(path) / 1e6
    print(f"\n== {os.path.basename(path)} ({mb:.1f} MB), medians of {a.runs} alternating runs")
    for k, v in med.items():
        ratio = med["json.load"] / v
        print(f"{k:<40} {v:8.3f} s {mb / v:9.1f} MB/s {ratio:8.1f}x json.load")


if __name__ == "__main__":
    main()
