"""Records what the CUDA runtime and nvidia-smi report about each visible GPU: the device-visible
memory (the capacity a serving engine sizes its KV cache from: vLLM's gpu_memory_utilization and
SGLang's mem_fraction_static are fractions of it), L2, SM count, clocks and power limits.

Usage (on the device machine): python3 examples/measure/device_properties.py OUT.json
Writes JSON {"schema": "roofline.device_properties/1", "recorded_utc", "devices": [...]} with,
per device: name, total_memory_bytes (cudaDeviceProp.totalGlobalMem via torch), mem_get_info
free/total bytes, l2_bytes, sm_count, compute capability, and nvidia-smi's memory.total (MiB),
clocks.max.sm, clocks.max.mem, power.limit, driver_version, vbios_version, as printed.
"""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import torch


def smi(fields: list[str]) -> list[dict[str, str]]:
    r = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader"],
                       capture_output=True, text=True, timeout=30, check=True)
    return [dict(zip(fields, (v.strip() for v in line.split(",")))) for line in r.stdout.strip().splitlines()]


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "device_properties.json"
    fields = ["index", "name", "memory.total", "clocks.max.sm", "clocks.max.mem", "power.limit",
              "driver_version", "vbios_version", "pci.bus_id"]
    rows = smi(fields)
    devices = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        free, total = torch.cuda.mem_get_info(i)
        d = {"index": i, "name": p.name, "total_memory_bytes": p.total_memory,
             "mem_get_info_free_bytes": free, "mem_get_info_total_bytes": total,
             "l2_bytes": getattr(p, "L2_cache_size", None), "sm_count": p.multi_processor_count,
             "compute_capability": f"{p.major}.{p.minor}", "nvidia_smi": rows[i] if i < len(rows) else None}
        devices.append(d)
        print(f"GPU {i} {p.name}: totalGlobalMem {p.total_memory} B = {p.total_memory / 2**30:.2f} GiB = "
              f"{p.total_memory / 1e9:.2f} GB; mem_get_info total {total} free {free}; "
              f"nvidia-smi memory.total {d['nvidia_smi']['memory.total'] if d['nvidia_smi'] else '?'}; "
              f"L2 {d['l2_bytes']} B; {p.multi_processor_count} SMs", flush=True)
    doc = {"schema": "roofline.device_properties/1", "tool": "examples/measure/device_properties.py",
           "recorded_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "torch": torch.__version__, "cuda": torch.version.cuda, "devices": devices}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
