"""Tests of the Python module (examples/python): run by ctest from the source directory with
PYTHONPATH pointing at build/python. Each check compares with what the CLI prints for the same
arguments (the CLI's --json is the contract), or with values from the sample's README."""
import json
import os
import subprocess
import sys

import roofline

CLI = sys.argv[1]  # the roofline executable, to compare documents
TRACE = "data/samples/h200/gemm_power/trace.json.gz"
POWER = "data/samples/h200/gemm_power/nvidia_smi.csv.gz"


def cli_json(*args):
    return json.loads(subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True).stdout)


# The acceptance check: the power-bound GEMM recording, as `roofline trace` says.
t = roofline.trace(TRACE, power=POWER)
assert t["verdict"]["bound"] == "power", t["verdict"]
assert t == cli_json("trace", TRACE, "--power", POWER), "trace: Python and CLI documents differ"
# 15 nvjet GEMMs in the file (and 15 memsets); the 12 inside the 3 profiled steps carry the
# recorded shapes (README of the sample) and, for the 3 launched before profiling, their
# same-name siblings' shapes: 15 x 2 x 16384^3 FLOP.
gemm = [k for k in t["kernels"] if k["phase"] == "gemm"]
assert len(gemm) == 1 and gemm[0]["count"] == 15, gemm
assert gemm[0]["name"].startswith("nvjet_sm90_tst_192x192") and gemm[0]["bound"] == "power"
assert gemm[0]["flops"] == 15 * 2 * 16384**3, gemm[0]["flops"]

# Options given once do not stick to the next call (each call parses afresh).
assert roofline.trace(TRACE)["input"]["power"] is None

# gpus(): the catalog, as `roofline gpus --json`.
g = roofline.gpus()
assert g == cli_json("gpus")
assert any(x["id"] == "h200-sxm" for x in g)
assert [x["id"] for x in roofline.gpus(compare=["b200", "gb200"])] == ["b200", "gb200"]

# kernel(): a 4096^3 bf16 GEMM on an H200 is compute-bound; flops = 2 m n k.
k = roofline.kernel("gemm", m=4096, n=4096, k=4096, dtype="bf16", gpu="h200-sxm")
assert k == cli_json("kernel", "gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "bf16", "--gpu", "h200-sxm")
assert k["bound"] == "compute" and k["flops"] == 2 * 4096**3, (k["bound"], k["flops"])

# analyze(): the README's default input, communication-bound as the CLI says.
B = "data/samples/glm5-nvfp4-8x-rtx-pro-6000/"
M = "data/models/glm-5/"
a = roofline.analyze(B + "bench.jsonl", gpu="rtx-pro-6000", count=8, model=M + "config.json",
                     quant=M + "hf_quant_config.json", power=B + "nvidia_smi.csv")
assert a == cli_json("analyze", B + "bench.jsonl", "--gpu", "rtx-pro-6000", "--count", "8", "--model", M + "config.json",
                     "--quant", M + "hf_quant_config.json", "--power", B + "nvidia_smi.csv")
assert a["verdict"]["bound"] == "communication", a["verdict"]

# plan(): lists become comma-separated flag values.
p = roofline.plan(model=M + "config.json", quant=M + "hf_quant_config.json", gpus=["h200-sxm"], counts=[8],
                  isl=1024, osl=256, concurrency=[64])
assert p == cli_json("plan", "--model", M + "config.json", "--quant", M + "hf_quant_config.json", "--gpus", "h200-sxm",
                     "--counts", "8", "--isl", "1024", "--osl", "256", "--concurrency", "64")
assert p["pareto"] and all(x["gpu"] == "h200-sxm" and x["count"] == 8 for x in p["pareto"]), p["pareto"]

# estimate(): one configuration, as the CLI's --json; a list of a repeated option repeats the flag.
e = roofline.estimate(model=M + "config.json", quant=M + "hf_quant_config.json", gpu="b200", isl=1024, osl=1024,
                      tp=1, dp=8, ep=8, concurrency=256)
assert e == cli_json("estimate", "--model", M + "config.json", "--quant", M + "hf_quant_config.json", "--gpu", "b200",
                     "--isl", "1024", "--osl", "1024", "--tp", "1", "--dp", "8", "--ep", "8", "--concurrency", "256")
assert e["tpot_s"] > 0 and e["gpus"] == 8, e
assert roofline._argv("estimate", (), {"model_dir": ["a", "b"]}) == ["estimate", "--model-dir", "a", "--model-dir", "b"]

# Errors: roofline.Error (a ValueError) with the CLI's one-line message.
for call, expected in [
    (lambda: roofline.trace("no/such/trace.json"), "no/such/trace.json"),
    (lambda: roofline.gpus(compare="b200,h300"), "h300"),
    (lambda: roofline.kernel("gemm", m=1, n=1, k=1, dtype="bf16"), "--gpu"),
    # A mistyped required option: named as the CLI names it, with the option it resembles.
    (lambda: roofline.kernel("attention", batch=1, q_len=1, kvlen=10, heads=8, head_dim=64, gpu="h100-sxm"),
     'unknown option "--kvlen" (did you mean --kv-len?)'),
]:
    try:
        call()
    except roofline.Error as e:
        assert isinstance(e, ValueError) and expected in str(e) and "\n" not in str(e), str(e)
    else:
        raise AssertionError("no error raised, expected one naming " + expected)

# roofline.models (models.cpp, for examples/learn/python): the same models as the CLI's roof and
# kernel commands, and the same errors.
from roofline import models
c = models.datasheet_ceilings("b200")
r = roofline.roof(gpu="b200")
assert models.ridge_point(c, "bf16") == r["ridge_point_flop_per_byte"], r["ridge_point_flop_per_byte"]
assert models.ridge_point(c, "fp4") == next(x for x in r["ridge_points"] if x["peak"] == "fp4")["dram_flop_per_byte"]
w = models.gemm(256, 8192, 28672, "bf16", "bf16", "bf16", "b200")
k = roofline.kernel("gemm", m=256, n=8192, k=28672, dtype="bf16", gpu="b200")
assert (w.total_flops(), w.dram_bytes()) == (k["flops"], k["bytes"]) == (2 * 256 * 8192 * 28672, k["bytes"]), k["bytes"]
lb = models.time_lower_bound(w, c)  # datasheet roofs: max(F / P, B / W)
assert lb["bound"] == "memory" and lb["lower_bound_s"] == max(k["flops"] / r["ceilings"]["flops_per_s"]["bf16"], k["bytes"] / c.dram_bytes_per_s), lb
assert models.format_significant(models.ridge_point(c, "bf16")) == "293"
assert models.table(["a", "b"], [["1", "22"]]) == "a   b\n-  --\n1  22\n", repr(models.table(["a", "b"], [["1", "22"]]))
for call, expected in [
    (lambda: models.datasheet_ceilings("h300"), "h300"),
    (lambda: models.gemm(1, 1, 1, "bf17", "bf16", "bf16", "b200"), "bf17"),
    (lambda: models.table(["a", "b"], [["1", "2", "3"]]), "3 cells"),
    (lambda: models.read_model("no/such/config.json"), "no/such/config.json"),
]:
    try:
        call()
    except roofline.Error as e:
        assert expected in str(e), str(e)
    else:
        raise AssertionError("no error raised, expected one naming " + expected)

assert roofline.__version__ == roofline.version_line.split()[1]
assert set(roofline.fast_paths) == {"simdjson", "sqlite", "gzip"}

# to_pandas(), where pandas is installed.
try:
    import pandas  # noqa: F401
except ImportError:
    if os.environ.get("ROOFLINE_REQUIRE_PANDAS") == "1":  # CI installs python3-pandas: no skip there
        raise AssertionError("ROOFLINE_REQUIRE_PANDAS=1 but " + sys.executable + " cannot import pandas")
    print("pandas not installed: to_pandas skipped")
else:
    df = roofline.to_pandas(t, "kernels")
    assert len(df) == len(t["kernels"]) and "roof_utilization.power" in df.columns, df.columns
    assert int(df[df.phase == "gemm"]["count"].iloc[0]) == 15
    assert len(roofline.to_pandas(g)) == len(g)
print("python module: all checks passed")
