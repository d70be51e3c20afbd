#!/usr/bin/env python3
"""Prepares the seed corpus of each fuzz target from real files, at run time.

Usage: make_seeds.py OUT_DIR [--cli PATH_TO_roofline]

Reads data/samples/, data/models/, data/measurements/, data/validation/, tests/bad_inputs/,
tests/cli/data/ and ../shared/samples/ (when present), and writes OUT_DIR/<target>/ with small
files a fuzzer can mutate: gzip inflated, long logs cut to their first lines, big Kineto traces
cut to a few hundred events (still valid traces), so that every seed fits the fuzzers' -max_len.
Nothing is written into the repository and the shared files are never copied into it.
"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared", "samples"))
MAX_BYTES = 60000  # below the largest -max_len used by run_fuzzers.sh


def files(*patterns):
    out = []
    for p in patterns:
        base = SHARED if p.startswith("shared:") else ROOT
        p = p.split(":", 1)[1] if p.startswith("shared:") else p
        out += sorted(glob.glob(os.path.join(base, p), recursive=True))
    return [f for f in out if os.path.isfile(f)]


def content(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:  # a corrupt gzip seed stays as it is
            pass
    return data


def head_lines(data, limit=MAX_BYTES):
    """The first whole lines of `data` that fit in `limit` bytes."""
    if len(data) <= limit:
        return data
    cut = data.rfind(b"\n", 0, limit)
    return data[: cut + 1 if cut > 0 else limit]


def small_kineto(data, events=150):
    """A valid Kineto trace with the top-level keys and a sample of events of each category."""
    try:
        doc = json.loads(data)
    except Exception:
        return [head_lines(data)]
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return [head_lines(data)]
    evs = doc["traceEvents"]
    by_cat = {}
    for e in evs:
        key = e.get("cat", "") if isinstance(e, dict) else ""
        by_cat.setdefault(key, []).append(e)
    out = []
    # One seed per slice of the file, and one with a few events of every category.
    mixed = []
    for lst in by_cat.values():
        mixed += lst[:8]
    top = {k: v for k, v in doc.items() if k != "traceEvents"}
    for chunk in (mixed, evs[:events], evs[len(evs) // 2 : len(evs) // 2 + events]):
        t = dict(top)
        t["traceEvents"] = chunk
        b = json.dumps(t, separators=(",", ":")).encode()
        while len(b) > MAX_BYTES and len(chunk) > 4:
            chunk = chunk[: len(chunk) // 2]
            t["traceEvents"] = chunk
            b = json.dumps(t, separators=(",", ":")).encode()
        out.append(b)
    return out


def write(out_dir, target, name, data):
    d = os.path.join(out_dir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    cli = None
    if "--cli" in sys.argv:
        cli = sys.argv[sys.argv.index("--cli") + 1]
    shutil.rmtree(out_dir, ignore_errors=True)

    bad = lambda ext: files("tests/bad_inputs/**/*" + ext)
    plan = {
        "fuzz_kineto": (files("shared:kineto/*", "shared:h200/*.trace.json.gz", "data/samples/**/trace.json.gz")
                        + [f for f in bad(".json") + bad(".json.gz") if "kineto" in os.path.basename(f)], "kineto"),
        "fuzz_nsys_csv": (files("shared:nsys/*.csv") + [f for f in bad(".csv") if "nsys" in os.path.basename(f)], "lines"),
        "fuzz_ncu_csv": (files("shared:ncu/*.csv", "shared:h200/*ncu*") + [f for f in bad(".csv") if "ncu" in os.path.basename(f)], "lines"),
        "fuzz_nvidia_smi_csv": (files("shared:h200/*nvidia_smi*", "data/**/*nvidia_smi*.csv*", "data/validation/*smi*")
                                + [f for f in bad(".csv") + bad(".csv.gz") if "smi" in os.path.basename(f)], "lines"),
        "fuzz_nvidia_smi_dmon": ([f for f in bad(".txt") if "dmon" in os.path.basename(f)], "lines"),
        "fuzz_nccl_tests": (files("shared:nccl/*.txt") + [f for f in bad(".txt") if "nccl" in os.path.basename(f)], "lines"),
        "fuzz_nccl_tests_json": ([f for f in bad(".json") if "nccl" in os.path.basename(f)], "whole"),
        "fuzz_bench_json": (files("shared:bench/*", "data/samples/**/bench.jsonl")
                            + [f for f in bad(".json") + bad(".jsonl") if "bench" in os.path.basename(f)], "whole"),
        "fuzz_hf_config": (files("shared:model_configs/*_config.json", "data/models/**/config.json",
                                 "data/samples/**/config.json", "tests/cli/data/*config*.json")
                           + [f for f in bad(".json") if "hf_config" in os.path.basename(f)], "whole"),
        "fuzz_hf_quant_config": (files("shared:model_configs/*hf_quant_config.json", "data/models/**/hf_quant_config.json")
                                 + [f for f in bad(".json") if "hf_quant" in os.path.basename(f)], "whole"),
        "fuzz_gpu_json": (files("tests/cli/data/gpu_overlay_*.json") + [f for f in bad(".json") if "gpu" in os.path.basename(f)], "whole"),
        "fuzz_calibration": (files("tests/cli/data/calibration_*.json", "data/calibration/*.json") + [f for f in bad(".json") if "calibration" in os.path.basename(f)], "whole"),
        "fuzz_measurements": (files("data/measurements/**/*.json", "data/validation/*.json"), "whole"),
        "fuzz_kernel_rules": (files("data/kernel_rules.json") + [f for f in bad(".json") if "rules" in os.path.basename(f)], "whole"),
        "fuzz_serving_runs_csv": (files("shared:aiconfigurator/silicon_sample.csv", "data/serving/inferencex_run_facts.csv"), "lines"),
        "fuzz_serving_efficiency": (files("data/serving/aiconfigurator_fit.json", "tests/cli/data/efficiency_*.json"), "whole"),
    }
    # The byte layer and the splitter see everything (compressed seeds stay compressed for
    # the byte layer).
    for target, (paths, mode) in plan.items():
        for p in paths:
            data = content(p)
            name = os.path.basename(p).replace(".gz", "")
            seeds = small_kineto(data) if mode == "kineto" else [head_lines(data)]
            for i, s in enumerate(seeds):
                write(out_dir, target, f"{i}_{name}", s)
    for f in os.listdir(os.path.join(out_dir, "fuzz_kineto")):
        with open(os.path.join(out_dir, "fuzz_kineto", f), "rb") as src:
            write(out_dir, "fuzz_chrome_trace_scan", f, src.read())
    for p in files("tests/bad_inputs/**/*", "data/samples/glm5-nvfp4-8x-rtx-pro-6000/*", "data/measurements/h200/*.gz"):
        with open(p, "rb") as f:
            data = f.read()
        if len(data) <= MAX_BYTES:
            write(out_dir, "fuzz_input", os.path.basename(p), data)
    small = b"a,b\n\"x,\"\"y\"\"\",2\n"
    write(out_dir, "fuzz_input", "two_members.csv.gz", gzip.compress(small) + gzip.compress(small))
    write(out_dir, "fuzz_input", "truncated.csv.gz", gzip.compress(small * 20)[:-9])
    # The nsys SQLite export: the hand-made fixture database, built here from its SQL text, plus
    # copies without their NVTX or string tables.
    try:
        import sqlite3
        import tempfile
        with open(os.path.join(ROOT, "tests/io/data/nsys_sqlite_basic.sql")) as f:
            sql = f.read()
        for name, drop in (("basic", []), ("no_nvtx", ["NVTX_EVENTS"]), ("no_strings", ["StringIds"])):
            with tempfile.TemporaryDirectory() as tmp:
                db_path = os.path.join(tmp, "x.sqlite")
                db = sqlite3.connect(db_path)
                db.executescript(sql)
                for table in drop:
                    db.execute(f"DROP TABLE IF EXISTS {table}")
                db.commit()
                db.execute("VACUUM")
                db.close()
                with open(db_path, "rb") as f:
                    write(out_dir, "fuzz_nsys_sqlite", f"{name}.sqlite", f.read())
    except Exception as e:  # no sqlite3 module: the target starts from the other seeds
        print(f"fuzz_nsys_sqlite: no database seeds ({e})", file=sys.stderr)
    # Every target starts from a gzip bomb (50 KB inflating to 50 MiB of line breaks, 13 s
    # through fuzz_input's tiny buffers under ASan): the targets must skip it (fuzz_support.hpp,
    # inflates_beyond), or the run fails on a timeout as CI stop 10 did. And one just under the
    # limit, which they must read.
    bomb = gzip.compress(b"\n" * (50 << 20), 9)
    under = gzip.compress(head_lines(small * ((1 << 20) // len(small)), (1 << 20) - 1), 9)
    for target in list(plan) + ["fuzz_input", "fuzz_chrome_trace_scan", "fuzz_nsys_sqlite"]:
        write(out_dir, target, "gzip_bomb_50MiB.gz", bomb)
        write(out_dir, target, "gzip_under_1MiB.gz", under)
    # Deep nesting for every JSON reader (issue 14: 200k nested arrays crashed the GPU-file reader
    # through nlohmann/json's recursive copy): arrays and objects 20,000 deep, alone and inside
    # the key each reader looks at first. The readers must refuse them, not recurse.
    deep = 20000
    deep_seeds = {
        "deep_arrays.json": b"[" * deep + b"]" * deep,
        "deep_objects.json": b'{"a":' * deep + b"1" + b"}" * deep,
        "deep_in_key.json": b'{"traceEvents":' + b"[" * deep + b"]" * deep + b"}",
    }
    for target in ("fuzz_kineto", "fuzz_chrome_trace_scan", "fuzz_nccl_tests_json", "fuzz_bench_json",
                   "fuzz_hf_config", "fuzz_hf_quant_config", "fuzz_gpu_json", "fuzz_calibration",
                   "fuzz_measurements", "fuzz_kernel_rules", "fuzz_serving_efficiency", "fuzz_input"):
        for name, data in deep_seeds.items():
            write(out_dir, target, name, data)
    # The catalog export is the richest GPU JSON there is.
    if cli and os.path.exists(cli):
        exported = subprocess.run([cli, "gpus", "--json"], capture_output=True).stdout
        if exported:
            doc = json.loads(exported)
            for g in doc[:8]:
                write(out_dir, "fuzz_gpu_json", "catalog_" + str(g.get("id", "x")) + ".json", json.dumps(g, indent=1).encode())
    for target in list(plan) + ["fuzz_input", "fuzz_chrome_trace_scan", "fuzz_nsys_sqlite"]:
        n = len(os.listdir(os.path.join(out_dir, target))) if os.path.isdir(os.path.join(out_dir, target)) else 0
        print(f"{target}: {n} seeds")


if __name__ == "__main__":
    main()
