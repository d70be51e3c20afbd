# %% [markdown]
# # Power: what a 300 W cap costs  (Python twin of examples/learn/power.cpp)
#
# Board power grows with the SM clock and with the work per second: P(f) = static + dynamic(f) +
# DRAM energy x bytes/s. Under a limit the GPU lowers its clock until P(f) fits, and the compute
# roof falls with the clock; the DRAM roof does not. So a cap costs a compute-bound phase
# (prefill) time, and costs a memory-bound phase (decode) nothing while its draw stays under the
# cap. The RTX PRO 6000 Max-Q is the Workstation card at half the power limit. Every number: the
# module's power model (`models.under_power_limit`, models/power.hpp), the catalog, H200's
# measured calibration (data/calibration/h200-sxm.json) and a field nvidia-smi log.
# Run: PYTHONPATH=build/python python3 examples/learn/python/power.py
# No chart in this script: the C++ twin draws the capped roofs; here the tables are the answer.

# %%
import math
import os
import sys

import roofline
from roofline import models as rm

args = sys.argv[1:]
data = args[args.index("--data") + 1] if "--data" in args else os.environ.get(
    "ROOFLINE_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "data"))
decode_tokens, prefill_tokens = 1, 8192  # the question's parameters
spec = {g["id"]: g for g in roofline.gpus(compare=["rtx-pro-6000", "rtx-pro-6000-maxq", "h200-sxm"])}
cap_w = spec["rtx-pro-6000-maxq"]["power_limit_w"]  # the 300 W
unknown = lambda v, f: "unknown" if math.isnan(v) else f(v)
percent = lambda v: rm.format_percent(v, 0)

# %% [markdown]
# ## 1. The two editions on paper: same silicon, half the power limit, a lower clock

# %%
print("Power: what a 300 W cap costs (RTX PRO 6000 Workstation vs Max-Q)\n")
vals = {}
for gpu in ("rtx-pro-6000", "rtx-pro-6000-maxq"):
    c, g = rm.datasheet_ceilings(gpu), spec[gpu]
    bf16, dram = c.flops_at("bf16"), c.dram_bytes_per_s
    vals[gpu] = [g["power_limit_w"], g["tensor_clock_hz"], bf16, c.flops_at("fp4"), dram, bf16 / dram,
                 bf16 / g["power_limit_w"]]
rows = [[gpu, rm.format_watts(v[0]), rm.format_mhz(v[1]), rm.format_flops_per_s(v[2]), rm.format_flops_per_s(v[3]),
         rm.format_bytes_per_s(v[4]), rm.format_significant(v[5]), rm.format_si(v[6], "FLOP/J")]
        for gpu, v in vals.items()]
a, b = vals.values()
rows.append(["Max-Q / WS"] + [rm.format_significant(y / x) + "x" for x, y in zip(a, b)])
print(rm.table(["GPU", "limit", "clock", "BF16", "NVFP4", "DRAM", "BF16 I*", "BF16/W"], rows))

# %% [markdown]
# ## 2. Decode vs prefill of Llama-3.1-70B's gate+up GEMM under each limit
# H200 uses its measured ceilings and fitted power coefficients; the RTX PRO cards the datasheet.

# %%
llama = rm.read_model(os.path.join(data, "models", "llama-3.1-70b", "config.json"))
gemm = lambda m, gpu: rm.gemm(m, 2.0 * llama.intermediate_size, llama.hidden_size, "bf16", "bf16", "bf16", gpu)
calib = {"h200-sxm": os.path.join(data, "calibration", "h200-sxm.json")}
under = lambda gpu, m, limit: rm.under_power_limit(gemm(m, gpu), gpu, limit, calib.get(gpu))
rows, missing = [], ""
for gpu in ("rtx-pro-6000", "rtx-pro-6000-maxq", "h200-sxm"):
    own = spec[gpu]["power_limit_w"]
    known = under(gpu, decode_tokens, own)["known"]
    for limit in [own] + ([cap_w] if cap_w != own and known else []):  # a cap needs the power model
        for m in (decode_tokens, prefill_tokens):
            p = under(gpu, m, limit)
            over = " (!)" if p["power_w"] > limit * 1.001 else ""  # even the lowest clock does not fit
            rows.append([gpu, rm.format_watts(limit), "decode" if m == decode_tokens else "prefill", p["bound"],
                         unknown(p["clock_hz"], rm.format_mhz),
                         unknown(p["power_w"], lambda w: rm.format_watts(w) + over),
                         unknown(p["power_w"] / limit, percent), rm.format_seconds(p["time_s"]),
                         unknown(p["energy_j"] / m, rm.format_significant)])
    if not known:
        missing += f"{gpu}: power unknown (no coefficients in models/power.hpp)\n"
print(rm.table(["GPU", "limit", "phase", "bound", "clock", "power", "of limit", "time", "J/token"], rows), end="")
print(missing + "(!) over the cap at any clock: the model lowers the SM clock, not DRAM traffic.\n")

# %% [markdown]
# ## 3. 100% "utilization" at 48% of the limit: what a field log can and cannot say

# %%
e = rm.power_evidence(os.path.join(data, "samples", "glm5-nvfp4-8x-rtx-pro-6000", "nvidia_smi.csv"), "rtx-pro-6000")
draw = e["median_draw_w"]
print("Field report (data/samples/glm5-nvfp4-8x-rtx-pro-6000): nvidia-smi shows "
      f"{percent(e['median_utilization_gpu'])}\n"
      f"utilization at a median {rm.format_watts(draw)} per card: {percent(e['fraction_of_limit'])} of the "
      f"Workstation's limit, {percent(draw / cap_w)} of the\n"
      "Max-Q's. The log has no edition, limit or clocks: it cannot say if a cap was hit.")
own = spec["h200-sxm"]["power_limit_w"]
dec, pre = under("h200-sxm", decode_tokens, own), under("h200-sxm", prefill_tokens, own)
print("utilization.gpu is the share of time a kernel was resident, not of SMs busy. On\n"
      f"h200-sxm (measured; RTX PRO 6000 is not) a decode GEMM draws {rm.format_watts(dec['power_w'])} "
      f"({percent(dec['power_w'] / own)} of the limit)\n"
      f"at full clock, a prefill GEMM {rm.format_watts(pre['power_w'])} at a {rm.format_mhz(pre['clock_hz'])} "
      "clock: both read 100%. Saturation is\n"
      "the cap with a lowered clock; far under the cap at full clock, the SMs wait.\n"
      f"Energy per token of this GEMM on h200-sxm: decode (batch {decode_tokens}) "
      f"{rm.format_significant(dec['energy_j'] / decode_tokens)} J, prefill\n"
      f"({prefill_tokens} tokens) {rm.format_significant(pre['energy_j'] / prefill_tokens)} J: decode pays "
      f"{rm.format_significant(dec['energy_j'] / pre['energy_j'] * prefill_tokens / decode_tokens)}x more per token "
      "for the same weights.")
