"""roofline for Python: what is holding a GPU inference workload back.

Each function runs the `roofline` command's own code in-process (the C++ extension
`roofline._roofline`, built from the same headers and the same subcommand sources as the CLI) and
returns exactly what ``roofline <command> ... --json`` prints, as Python objects: the same keys,
the same numbers, no second implementation.

Arguments map onto the command line: positional arguments stay positional, a keyword argument
``name=value`` becomes ``--name value`` (underscores become dashes: ``power_offset=0.5`` is
``--power-offset 0.5``), ``True`` is a bare flag, ``False``/``None`` leave it out, and a list or
tuple is joined with commas (``gpus=["h200-sxm", "b200"]`` is ``--gpus h200-sxm,b200``), except
for the options given once per value (``model_dir=["a", "b"]`` is ``--model-dir a --model-dir b``).

Bad input raises ``roofline.Error`` (a ValueError) carrying the one-line message the CLI prints
after "roofline: error: ".

    >>> import roofline
    >>> t = roofline.trace("data/samples/h200/gemm_power/trace.json.gz",
    ...                    power="data/samples/h200/gemm_power/nvidia_smi.csv.gz")
    >>> t["verdict"]["bound"]
    'power'
"""

from . import _roofline
from ._roofline import Error, fast_paths, models, version_line

__version__ = _roofline.__version__
__all__ = ["Error", "analyze", "estimate", "fast_paths", "gpus", "inspect", "kernel", "model", "models", "plan",
           "roof", "run", "to_pandas", "trace", "version_line"]

# Options the CLI takes once per value (CLI11 vectors without a delimiter): a list repeats them.
_REPEATED = {"model_dir"}


def _value(v):
    if isinstance(v, (list, tuple)):
        return ",".join(_value(x) for x in v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _argv(command, args, flags):
    argv = command.split() + [_value(a) for a in args]
    for name, v in flags.items():
        if v is None or v is False:
            continue
        flag = "--" + name.replace("_", "-")
        if v is True:
            argv.append(flag)
        elif name in _REPEATED and isinstance(v, (list, tuple)):
            for x in v:
                argv += [flag, _value(x)]
        else:
            argv += [flag, _value(v)]
    return argv


def run(command, *args, **flags):
    """``roofline COMMAND ARGS... FLAGS...`` in-process; returns the printed text (str).

    ``run("gpus")`` is the table ``roofline gpus`` prints; ``run("trace", path, csv=True)`` the CSV.
    """
    return _roofline.run(_argv(command, args, flags))


def _json(command, args, flags):
    flags = dict(flags)
    flags["json"] = True
    return _roofline.run_json(_argv(command, args, flags))


def gpus(**flags):
    """The GPU catalog as ``roofline gpus --json`` prints it: a list of GPU objects.

    ``gpus(compare="b200,gb200")`` selects; ``gpu_file="lab.json"`` applies an overlay.
    """
    return _json("gpus", (), flags)


def roof(**flags):
    """Ceilings and ridge points of one GPU: ``roofline roof --gpu ID [--dtype D] ... --json``
    (gpu, peak_flops_per_s, dram_bytes_per_s, ridge_point_flop_per_byte, ceilings, ridge_points)."""
    return _json("roof", (), flags)


def model(**flags):
    """Parameters, weight and KV bytes of a model: ``roofline model --model CONFIG ... --json``."""
    return _json("model", (), flags)


def inspect(path, **flags):
    """What a reader makes of one input file: ``roofline inspect FILE ... --json``."""
    return _json("inspect", (path,), flags)


def kernel(kind, **flags):
    """One kernel priced on one GPU: ``roofline kernel KIND ... --json`` (a dict).

    ``kind`` is gemm, moe, attention, copy or collective, e.g.
    ``kernel("gemm", m=4096, n=4096, k=4096, dtype="bf16", gpu="h200-sxm")["bound"]``.
    """
    return _json("kernel " + kind, (), flags)


def analyze(bench, **flags):
    """A serving benchmark run: ``roofline analyze BENCH --gpu ID --count N --model CONFIG ... --json``.

    e.g. ``analyze("bench.jsonl", gpu="rtx-pro-6000", count=8, model="config.json", power="smi.csv")``.
    """
    return _json("analyze", (bench,), flags)


def trace(path, **flags):
    """A measured trace: ``roofline trace PATH [--power CSV] [--gpu ID] ... --json`` (a dict with
    input, gpu, verdict, window, phases, kernels, steps, power, ...)."""
    return _json("trace", (path,), flags)


def plan(**flags):
    """Capacity planning: ``roofline plan --model CONFIG --gpus IDS --counts N,.. --isl N --osl N ... --json``."""
    return _json("plan", (), flags)


def estimate(**flags):
    """One serving configuration, or measured runs beside their estimates: ``roofline estimate
    --model CONFIG --gpu ID --isl N --osl N --tp N --concurrency C ... --json`` (ttft_s, tpot_s,
    tokens_per_s_per_gpu, ...), or ``estimate(from_csv="runs.csv", model_dir=["a", "b"],
    run_facts="facts.csv")`` (the held-out error tables by_mode, by_gpu, ...)."""
    return _json("estimate", (), flags)


def to_pandas(result, table=None):
    """A pandas DataFrame of a result or of one of its tables (needs pandas, Debian python3-pandas).

    ``to_pandas(gpus())`` has one row per GPU; ``to_pandas(trace(...), "kernels")`` one row per
    kernel name; nested objects become dotted columns (``roof_utilization.compute``).
    """
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError("roofline.to_pandas needs pandas (Debian: apt-get install python3-pandas)") from e
    rows = result if table is None else result[table]
    if isinstance(rows, dict):
        rows = [rows]
    return pandas.json_normalize(rows)
