// Power: what a 300 W cap costs.
//
// Board power = static + energy per FLOP x FLOP rate + energy per byte x DRAM byte rate
// (models/power.hpp). Energy per FLOP grows with the SM clock (voltage follows the clock), so
// under a power cap the firmware lowers the clock until the board fits, and the compute roof
// falls with the clock; the memory roof does not. The RTX PRO 6000 Max-Q is the Workstation
// card's GB202 at half the power (300 W vs 600 W): NVIDIA rates it at a ~13% lower clock, the
// same 1.79 TB/s. Memory-bound decode loses nothing; compute-bound prefill loses the clock.
//
// Energy per token is power x time / tokens: a decode step streams every weight for a handful
// of tokens, prefill streams them once for thousands, so decode costs far more per token.
// And nvidia-smi's "100% utilization" only says a kernel was resident all the time
// (trace/power.hpp): a memory-bound kernel keeps it at 100% while drawing well under the limit.
#include <optional>
#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/power.hpp"
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_significant;

// The question's parameters: tokens of a decode step and of a prefill chunk.
constexpr double decode_tokens = 1, prefill_tokens = 8192;

namespace {
// A GPU with what the power model needs: coefficients (nullopt = unknown), the ceilings the
// coefficients go with, the clock those peaks assume and the highest clock.
struct setup {
    gpu_spec g;
    std::optional<power_coefficients> power;
    ceilings c;
    double peak_clock_hz, max_clock_hz;
};
setup setup_of(const gpu_spec& g, const std::string& data) {
    setup s{g, default_power_coefficients(g), datasheet_ceilings(g), g.tensor_clock_hz.value_or(NAN), g.max_clock_hz.value_or(NAN)};
    if (g.id == "h200-sxm") {  // measured by this project: achievable ceilings and fitted power
        const calibration cal = read_calibration(data + "/calibration/h200-sxm.json");
        s.c = apply_calibration(s.c, cal);
        if (auto p = calibrated_power_coefficients(cal)) s.power = p;
        if (auto it = cal.ceiling_sources.find("bf16"); it != cal.ceiling_sources.end()) s.peak_clock_hz = it->second.clock_hz;
    }
    if (std::isnan(s.max_clock_hz)) s.max_clock_hz = s.peak_clock_hz;
    return s;
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_power", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        const gpu_spec &ws = catalog.at("rtx-pro-6000"), &maxq = catalog.at("rtx-pro-6000-maxq");
        const double cap_w = maxq.power_limit_w.require(maxq.id, "power_limit_w");  // the 300 W of the question
        std::string out = "Power: what a 300 W cap costs (RTX PRO 6000 Workstation vs Max-Q, datasheet)\n\n";

        // 1. The catalog: the vendor's own rating of the same chip at two power limits.
        auto t1 = report::text_table::with_headers({"GPU", "limit", "clock", "BF16", "NVFP4", "DRAM", "BF16 I*", "BF16/W"});
        const auto row = [](const gpu_spec& g) {
            const ceilings c = datasheet_ceilings(g);
            const double w = g.power_limit_w.value_or(NAN);
            return std::vector<double>{w, g.tensor_clock_hz.value_or(NAN), c.flops_at(peak_key::bf16), c.flops_at(peak_key::fp4), c.bytes_at(memory_level::dram), ridge_point(c, peak_key::bf16),
                                       c.flops_at(peak_key::bf16) / w};
        };
        const auto a = row(ws), b = row(maxq);
        for (const auto* g : {&ws, &maxq}) {
            const auto v = row(*g);
            t1.add_row({g->id, report::format_watts(v[0]), report::format_mhz(v[1]), report::format_flops_per_s(v[2]),
                        report::format_flops_per_s(v[3]), report::format_bytes_per_s(v[4]), format_significant(v[5]),
                        report::format_si(v[6], "FLOP/J")});
        }
        std::vector<std::string> ratio = {"Max-Q / WS"};
        for (std::size_t i = 0; i < a.size(); ++i) ratio.push_back(format_significant(b[i] / a[i]) + "x");
        t1.add_row(ratio);
        out += t1.render() + "\n";

        // 2. The power model: clock, power, time and energy per token of one Llama-3.1-70B
        // gate+up GEMM in decode and in prefill, under each GPU's limit and under the 300 W cap.
        const model_config llama = read_hf_config(o.data_dir + "/models/llama-3.1-70b/config.json");
        const auto gemm = [&](double m) {
            return gemm_workload({m, 2.0 * llama.intermediate_size, double(llama.hidden_size)}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
        };
        auto t2 = report::text_table::with_headers({"GPU", "limit", "phase", "bound", "clock", "power", "of limit", "time", "J/token"});
        std::vector<std::string> unknown_power;
        learn::chart ch{"Power: what a cap does to the compute roof", "BF16; RTX PRO 6000: datasheet ratings; h200-sxm: power model, measured coefficients",
                        "arithmetic intensity (FLOP per DRAM byte)", "attainable TFLOP/s", "", "", true, true, {}, {}, {}, {}};
        std::size_t colours = 0;
        for (const char* id : {"rtx-pro-6000", "rtx-pro-6000-maxq", "h200-sxm"}) {
            const setup s = setup_of(catalog.at(id), o.data_dir);
            const double own = s.g.power_limit_w.value_or(NAN);
            if (!s.power) unknown_power.push_back(s.g.id);
            std::vector<double> limits = {own};
            if (cap_w != own && s.power) limits.push_back(cap_w);  // a cap needs the model
            for (double limit : limits)
                for (double m : {decode_tokens, prefill_tokens}) {
                    const workload w = gemm(m);
                    const roof_times t = time_lower_bound(w, s.c);
                    std::vector<std::string> r = {s.g.id, report::format_watts(limit), m == decode_tokens ? "decode" : "prefill",
                                                  std::string(to_string(t.predicted))};
                    if (!s.power) {  // no coefficients: the time at full clock is known, power is not
                        r.insert(r.end(), {"unknown", "unknown", "unknown", report::format_seconds(t.lower_bound_s), "unknown"});
                    } else {
                        const power_limited p = under_power_limit(w, s.c, *s.power, limit, s.peak_clock_hz, s.max_clock_hz);
                        r.insert(r.end(), {report::format_mhz(p.clock_hz), report::format_watts(p.power_w) + (p.power_w > limit * 1.001 ? " (!)" : ""),
                                           report::format_percent(p.power_w / limit, 0), report::format_seconds(p.time_s),
                                           format_significant(p.energy_j / m)});
                    }
                    t2.add_row(r);
                }
            // The chart: the datasheet roof, and the roof the power model leaves under the GPU's own limit.
            const std::size_t colour = colours++;
            learn::series roof{s.g.id + " uncapped", {}, colour, true}, capped{s.g.id + " at " + report::format_watts(own), {}, colour, false};
            const double bytes = gemm(decode_tokens).dram_bytes();
            for (double j = 0; j <= 96; ++j) {  // intensities 1 .. 10^4, 24 per decade
                const double ai = std::pow(10.0, j / 24);
                workload w;
                w.flops_at(peak_key::bf16) = ai * bytes;
                w.bytes_at(memory_level::dram) = bytes;
                roof.xy.push_back({ai, ai * bytes / time_lower_bound(w, s.c).lower_bound_s / 1e12});
                const double t = s.power ? under_power_limit(w, s.c, *s.power, own, s.peak_clock_hz, s.max_clock_hz).time_s : NAN;
                capped.xy.push_back({ai, ai * bytes / t / 1e12});
            }
            if (s.power) ch.lines.push_back(roof), ch.lines.push_back(capped);
            else ch.lines.push_back({s.g.id + " (" + report::format_watts(own) + ")", roof.xy, colour, false});
        }
        out += t2.render();
        out += "(!) the model cannot fit this under the cap: it lowers the SM clock, and the DRAM traffic alone draws more.\n";
        for (const auto& id : unknown_power)
            out += id + ": power unknown: models/power.hpp has no coefficients for it (none measured yet).\n";
        out += "\n";

        // 3. "100% utilization" at half the power: the field report on 8x RTX PRO 6000.
        const power_log log = read_nvidia_smi_csv(o.data_dir + "/samples/glm5-nvfp4-8x-rtx-pro-6000/nvidia_smi.csv");
        double lo = INFINITY, hi = 0, sum = 0, util = 0;
        for (const auto& x : log.samples) lo = std::min(lo, x.power_draw_w), hi = std::max(hi, x.power_draw_w), sum += x.power_draw_w, util += x.utilization_gpu;
        const double n = static_cast<double>(log.samples.size()), mean = sum / n;
        out += fmt::format("Field report (data/samples/glm5-nvfp4-8x-rtx-pro-6000): GLM-5 NVFP4 on 8 cards, nvidia-smi shows\n"
                           "{} utilization at {}-{} per card: {} of the Workstation's {} limit, or {} of the\n"
                           "Max-Q's: the log has no edition, limit or clocks, so it cannot say whether a cap was reached.\n",
                           report::format_percent(util / n, 0), report::format_watts(lo), report::format_watts(hi),
                           report::format_percent(mean / ws.power_limit_w.value_or(NAN), 0), report::format_watts(a[0]),
                           report::format_percent(mean / cap_w, 0));
        const setup h = setup_of(catalog.at("h200-sxm"), o.data_dir);
        if (!h.power) throw error("h200-sxm: no power coefficients (data/calibration/h200-sxm.json has none)");
        const double own = h.g.power_limit_w.value_or(NAN);
        const power_limited dec = under_power_limit(gemm(decode_tokens), h.c, *h.power, own, h.peak_clock_hz, h.max_clock_hz);
        const power_limited pre = under_power_limit(gemm(prefill_tokens), h.c, *h.power, own, h.peak_clock_hz, h.max_clock_hz);
        out += fmt::format("utilization.gpu is the share of time a kernel was resident, not of SMs busy. On h200-sxm, whose\n"
                           "power was measured (RTX PRO 6000's is not), the model puts a decode GEMM at {} ({} of the limit,\n"
                           "full clock) and a prefill GEMM at {} with the clock held at {}: both read 100% in nvidia-smi.\n"
                           "Saturation is the cap with a lowered clock; far under the cap at full clock, the SMs wait for\n"
                           "memory, the host or the network.\n",
                           report::format_watts(dec.power_w), report::format_percent(dec.power_w / own, 0), report::format_watts(pre.power_w),
                           report::format_mhz(pre.clock_hz));
        out += fmt::format("Energy per token of this GEMM on h200-sxm: decode (batch {:.0f}) {} J, prefill ({:.0f} tokens) {} J: {}x.\n",
                           decode_tokens, format_significant(dec.energy_j / decode_tokens), prefill_tokens,
                           format_significant(pre.energy_j / prefill_tokens),
                           format_significant(dec.energy_j / decode_tokens / (pre.energy_j / prefill_tokens)));
        ch.notes.push_back("rtx-pro-6000 (600 W) vs Max-Q (300 W): the vendor's ratings; their power-model coefficients are unknown.");
        ch.notes.push_back("h200-sxm: coefficients fitted from this project's measurements (data/calibration/h200-sxm.json).");
        learn::finish(out, ch, o.svg_path);
    });
}
