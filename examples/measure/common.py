"""Shared helpers for the H200 measurement scripts (examples/measure/).

Everything here runs on the device machine with the image's python3 (torch, triton, pynvml).
Times are SI seconds; sizes bytes; rates FLOP/s or B/s. Human units only in log lines.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

# The nvidia-smi fields every log records (FORMATS.md section 6). Older drivers know the reasons
# only under clocks_throttle_reasons.*; `smi_fields()` falls back to those names.
SMI_FIELDS = [
    "timestamp", "index", "name", "power.draw", "power.limit", "enforced.power.limit",
    "clocks.sm", "clocks.max.sm", "clocks.mem", "utilization.gpu", "utilization.memory",
    "temperature.gpu", "clocks_event_reasons.active", "clocks_event_reasons.sw_power_cap",
    "clocks_event_reasons.hw_slowdown",
]

_T0 = time.time()


def log(msg: str) -> None:
    """Progress line with wall-clock time and seconds since the script started."""
    now = _dt.datetime.now().strftime("%H:%M:%S")
    print(f"[{now} +{time.time() - _T0:6.1f}s] {msg}", flush=True)


def smi_fields() -> list[str]:
    """The field list nvidia-smi accepts here (new reason names, else the deprecated aliases)."""
    for fields in (SMI_FIELDS,
                   [f.replace("clocks_event_reasons", "clocks_throttle_reasons") for f in SMI_FIELDS]):
        try:
            r = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv"],
                               capture_output=True, text=True, timeout=20)
            if r.returncode == 0:
                return fields
        except (OSError, subprocess.SubprocessError):
            break
    return [f for f in SMI_FIELDS if "reasons" not in f]


@contextlib.contextmanager
def smi_log(path: str, gpus: str = "0", interval_ms: int = 100):
    """Runs `nvidia-smi --query-gpu=... --format=csv -lms interval_ms -i gpus > path` meanwhile."""
    fields = smi_fields()
    cmd = ["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv",
           f"-lms", str(interval_ms), "-i", gpus]
    f = open(path, "w")
    proc = None
    try:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
        time.sleep(0.5)  # a few idle samples before the work starts
        yield cmd
        time.sleep(0.5)  # and after it
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        f.close()


def gzip_file(src: str, dst: str | None = None, remove: bool = True) -> str:
    """Gzips `src` to `dst` (default src + '.gz'); returns dst."""
    dst = dst or src + ".gz"
    with open(src, "rb") as fi, gzip.open(dst, "wb", compresslevel=9) as fo:
        shutil.copyfileobj(fi, fo)
    if remove:
        os.remove(src)
    return dst


def write_json(path: str, obj) -> None:
    """Writes JSON atomically (so a killed run leaves either the old or the new file)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, allow_nan=True)
        f.write("\n")
    os.replace(tmp, path)


def quantile(xs: list[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default 'linear' method), q in [0, 1]."""
    s = sorted(xs)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(xs: list[float]) -> dict:
    """median/p10/p90/min/mean of a list of seconds."""
    return {
        "median_s": quantile(xs, 0.5), "p10_s": quantile(xs, 0.1), "p90_s": quantile(xs, 0.9),
        "min_s": min(xs), "mean_s": statistics.fmean(xs), "reps": len(xs),
    }


class Nvml:
    """Thin pynvml wrapper: current SM/memory clock, power and reasons for one GPU (None if absent)."""

    def __init__(self, index: int = 0):
        self.ok = False
        try:
            import pynvml  # nvidia-ml-py
            pynvml.nvmlInit()
            self.n = pynvml
            self.h = pynvml.nvmlDeviceGetHandleByIndex(index)
            self.ok = True
        except Exception as e:  # no NVML: clocks stay unknown
            log(f"NVML unavailable: {e}")

    def sample(self) -> dict | None:
        if not self.ok:
            return None
        n, h = self.n, self.h
        out = {}
        for key, fn in (
            ("sm_clock_hz", lambda: n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM) * 1e6),
            ("mem_clock_hz", lambda: n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM) * 1e6),
            ("max_sm_clock_hz", lambda: n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_SM) * 1e6),
            ("power_w", lambda: n.nvmlDeviceGetPowerUsage(h) / 1e3),
            ("enforced_power_limit_w", lambda: n.nvmlDeviceGetEnforcedPowerLimit(h) / 1e3),
            ("temperature_c", lambda: n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)),
            ("clocks_event_reasons", lambda: int(getattr(
                n, "nvmlDeviceGetCurrentClocksEventReasons",
                getattr(n, "nvmlDeviceGetCurrentClocksThrottleReasons", None))(h))),
        ):
            try:
                out[key] = fn()
            except Exception:
                out[key] = None
        return out


def environment() -> dict:
    """Versions and device facts, for the README and the JSON environment blocks."""
    env: dict = {"recorded_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                 "local_timezone": time.strftime("%Z"), "python": sys.version.split()[0]}
    try:
        import torch
        env["torch"] = torch.__version__
        env["torch_cuda"] = torch.version.cuda
        env["cudnn"] = torch.backends.cudnn.version()
        env["nccl"] = ".".join(map(str, torch.cuda.nccl.version())) if torch.cuda.is_available() else None
        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(0)
            env["gpu"] = p.name
            env["gpu_count"] = torch.cuda.device_count()
            env["sm_count"] = p.multi_processor_count
            env["compute_capability"] = f"{p.major}.{p.minor}"
            env["memory_bytes"] = p.total_memory
            env["l2_bytes"] = getattr(p, "L2_cache_size", None)
    except Exception as e:
        env["torch_error"] = repr(e)
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception:
        pass
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,vbios_version,power.limit,"
                            "enforced.power.limit,clocks.max.sm,clocks.max.mem,pci.bus_id",
                            "--format=csv,noheader", "-i", "0"], capture_output=True, text=True, timeout=20)
        parts = [s.strip() for s in r.stdout.strip().split(",")]
        if len(parts) == 7:
            keys = ["driver", "vbios", "power_limit", "enforced_power_limit", "max_sm_clock",
                    "max_mem_clock", "pci_bus_id"]
            env.update(dict(zip(keys, parts)))
    except Exception as e:
        env["nvidia_smi_error"] = repr(e)
    return env
