// Power: what a 300 W cap costs.
//
// Board power = static + energy/FLOP x FLOP rate + energy/byte x DRAM byte rate (models/
// power.hpp). Under a cap the SM clock falls until the board fits: the compute roof falls with
// it, the memory roof does not. The RTX PRO 6000 Max-Q is the Workstation's GB202 at half the
// power; NVIDIA rates it ~13% lower in clock, with the same 1.79 TB/s. Energy per token is
// power x time / tokens: decode streams every weight for a few tokens, prefill for thousands.
// nvidia-smi's "100% utilization" only says a kernel was resident all the time (trace/power.hpp).
#include "roofline/models/power.hpp"

#include <optional>
#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_significant;

// The question's parameters: tokens of a decode step and of a prefill chunk.
constexpr double decode_tokens = 1, prefill_tokens = 8192;

namespace {
std::string percent(double v) {
    return report::format_percent(v, 0);
}
std::string significant(double v) {
    return format_significant(v);
}

// A GPU with what the power model needs: coefficients (nullopt = unknown), the ceilings the
// coefficients go with, the clock those peaks assume and the highest clock.
struct setup {
    gpu_spec g;
    std::optional<power_coefficients> power;
    ceilings c;
    double peak_clock_hz, max_clock_hz;

    power_limited under(const workload& w, double limit_w) const {
        return under_power_limit(w, c, *power, limit_w, peak_clock_hz, max_clock_hz);
    }
};

setup setup_of(const gpu_spec& g, const std::string& data) {
    setup s{g, default_power_coefficients(g), datasheet_ceilings(g),
            g.tensor_clock_hz.value_or(NAN), g.max_clock_hz.value_or(NAN)};
    if (g.id == "h200-sxm") {  // measured by this project: achievable ceilings and fitted power
        const calibration cal = read_calibration(data + "/calibration/h200-sxm.json");
        s.c = apply_calibration(s.c, cal);
        if (auto p = calibrated_power_coefficients(cal)) s.power = p;
        if (auto it = cal.ceiling_sources.find("bf16"); it != cal.ceiling_sources.end())
            s.peak_clock_hz = it->second.clock_hz;
    }
    if (std::isnan(s.max_clock_hz)) s.max_clock_hz = s.peak_clock_hz;
    return s;
}

// One row of the power table: bound and time always; clock, power and energy where the power
// model has coefficients for the GPU (else NaN, printed "unknown").
std::vector<std::string> power_row(const setup& s, double limit, double tokens, const workload& w) {
    const roof_times t = time_lower_bound(w, s.c);
    power_limited p{NAN, NAN, NAN, t.lower_bound_s, NAN, false, s.c};
    if (s.power) p = s.under(w, limit);
    const bool over = p.power_w > limit * 1.001;  // even the lowest clock does not fit
    const auto watts = [&](double v) { return report::format_watts(v) + (over ? " (!)" : ""); };
    return {s.g.id,
            report::format_watts(limit),
            tokens == decode_tokens ? "decode" : "prefill",
            std::string(to_string(t.predicted)),
            learn::or_unknown(p.clock_hz, report::format_mhz),
            learn::or_unknown(p.power_w, watts),
            learn::or_unknown(p.power_w / limit, percent),
            report::format_seconds(p.time_s),
            learn::or_unknown(p.energy_j / tokens, significant)};
}

// The BF16 roof of `s` over intensities 1 .. 10^4 (24 points per decade), at full clock and,
// where the power model can say, under the GPU's own limit.
void add_roofs(learn::chart& ch, const setup& s, double bytes, std::size_t colour) {
    const double own = s.g.power_limit_w.value_or(NAN);
    const std::string name = s.power ? " uncapped" : " (" + report::format_watts(own) + ")";
    learn::series roof{s.g.id + name, {}, colour, s.power.has_value()};
    learn::series capped{s.g.id + " at " + report::format_watts(own), {}, colour, false};
    for (double j = 0; j <= 96; ++j) {
        const double ai = std::pow(10.0, j / 24);
        workload w;
        w.flops_at(peak_key::bf16) = ai * bytes;
        w.bytes_at(memory_level::dram) = bytes;
        roof.xy.push_back({ai, ai * bytes / time_lower_bound(w, s.c).lower_bound_s / 1e12});
        if (s.power) capped.xy.push_back({ai, ai * bytes / s.under(w, own).time_s / 1e12});
    }
    ch.lines.push_back(roof);
    if (s.power) ch.lines.push_back(capped);
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_power", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        const gpu_spec &ws = catalog.at("rtx-pro-6000"), &maxq = catalog.at("rtx-pro-6000-maxq");
        const double cap_w = maxq.power_limit_w.require(maxq.id, "power_limit_w");  // the 300 W
        std::string out = "Power: what a 300 W cap costs (RTX PRO 6000 Workstation vs Max-Q)\n\n";

        // 1. The catalog: the vendor's own rating of the same chip at two power limits.
        auto t1 = report::text_table::with_headers(
            {"GPU", "limit", "clock", "BF16", "NVFP4", "DRAM", "BF16 I*", "BF16/W"});
        const auto row = [](const gpu_spec& g) {
            const ceilings c = datasheet_ceilings(g);
            const double w = g.power_limit_w.value_or(NAN), bf16 = c.flops_at(peak_key::bf16);
            const double dram = c.bytes_at(memory_level::dram), fp4 = c.flops_at(peak_key::fp4);
            return std::vector<double>{
                w, g.tensor_clock_hz.value_or(NAN), bf16, fp4, dram, bf16 / dram, bf16 / w};
        };
        const auto a = row(ws), b = row(maxq);
        for (const auto* v : {&a, &b})
            t1.add_row({v == &a ? ws.id : maxq.id, report::format_watts((*v)[0]),
                        report::format_mhz((*v)[1]), report::format_flops_per_s((*v)[2]),
                        report::format_flops_per_s((*v)[3]), report::format_bytes_per_s((*v)[4]),
                        format_significant((*v)[5]), report::format_si((*v)[6], "FLOP/J")});
        std::vector<std::string> ratio = {"Max-Q / WS"};
        for (std::size_t i = 0; i < a.size(); ++i)
            ratio.push_back(format_significant(b[i] / a[i]) + "x");
        out += t1.add_row(ratio).render() + "\n";

        // 2. The power model on one Llama-3.1-70B gate+up GEMM, decode and prefill, under each
        // GPU's own limit and (where the model can say) under the 300 W cap.
        const model_config llama = read_hf_config(o.data_dir + "/models/llama-3.1-70b/config.json");
        const auto gemm = [&](double m) {
            return gemm_workload({m, 2.0 * llama.intermediate_size, double(llama.hidden_size)},
                                 dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
        };
        auto t2 = report::text_table::with_headers(
            {"GPU", "limit", "phase", "bound", "clock", "power", "of limit", "time", "J/token"});
        learn::chart ch{
            .title = "Power: what a cap does to the compute roof",
            .subtitle = "BF16; RTX PRO 6000: datasheet; h200-sxm: power model, measured",
            .x_label = "arithmetic intensity (FLOP per DRAM byte)",
            .y_label = "attainable TFLOP/s"};
        std::string unknown;
        std::vector<setup> setups;
        for (const char* id : {"rtx-pro-6000", "rtx-pro-6000-maxq", "h200-sxm"}) {
            const setup& s = setups.emplace_back(setup_of(catalog.at(id), o.data_dir));
            const double own = s.g.power_limit_w.value_or(NAN);
            std::vector<double> limits = {own};
            if (cap_w != own && s.power) limits.push_back(cap_w);  // a cap needs the power model
            for (const double limit : limits) {
                for (double m : {decode_tokens, prefill_tokens})
                    t2.add_row(power_row(s, limit, m, gemm(m)));
            }
            if (!s.power)
                unknown += s.g.id + ": power unknown (no coefficients in models/power.hpp)\n";
            add_roofs(ch, s, gemm(decode_tokens).dram_bytes(), setups.size() - 1);
        }
        out +=
            t2.render() + unknown +
            "(!) over the cap at any clock: the model lowers the SM clock, not DRAM traffic.\n\n";

        // 3. "100% utilization" at half the power: the field report on 8x RTX PRO 6000.
        const power_log log =
            read_nvidia_smi_csv(o.data_dir + "/samples/glm5-nvfp4-8x-rtx-pro-6000/nvidia_smi.csv");
        const power_evidence e = summarize_power(log.samples, &ws);  // no limit in the log
        const double draw = e.median_draw_w.value_or(NAN);
        out += fmt::format(
            "Field report (data/samples/glm5-nvfp4-8x-rtx-pro-6000): nvidia-smi shows {}\n"
            "utilization at a median {} per card: {} of the Workstation's limit, {} of the\n"
            "Max-Q's. The log has no edition, limit or clocks: it cannot say if a cap was hit.\n",
            percent(e.median_utilization_gpu.value_or(NAN)), report::format_watts(draw),
            percent(e.fraction_of_limit.value_or(NAN)), percent(draw / cap_w));
        const setup& h = setups.back();  // h200-sxm: its coefficients come with its calibration
        if (!h.power) throw error("h200-sxm: data/calibration/h200-sxm.json has no power fit");
        const double own = h.g.power_limit_w.value_or(NAN);
        const power_limited dec = h.under(gemm(decode_tokens), own),
                            pre = h.under(gemm(prefill_tokens), own);
        out += fmt::format(
            "utilization.gpu is the share of time a kernel was resident, not of SMs busy. On\n"
            "h200-sxm (measured; RTX PRO 6000 is not) a decode GEMM draws {} ({} of the limit)\n"
            "at full clock, a prefill GEMM {} at a {} clock: both read 100%. Saturation is\n"
            "the cap with a lowered clock; far under the cap at full clock, the SMs wait.\n"
            "Energy per token of this GEMM on h200-sxm: decode (batch {:.0f}) {} J, prefill\n"
            "({:.0f} tokens) {} J: decode pays {}x more per token for the same weights.\n",
            report::format_watts(dec.power_w), report::format_percent(dec.power_w / own, 0),
            report::format_watts(pre.power_w), report::format_mhz(pre.clock_hz), decode_tokens,
            format_significant(dec.energy_j / decode_tokens), prefill_tokens,
            format_significant(pre.energy_j / prefill_tokens),
            format_significant(dec.energy_j / pre.energy_j * prefill_tokens / decode_tokens));
        ch.notes = {
            "rtx-pro-6000 (600 W) vs Max-Q (300 W): vendor ratings; power coefficients unknown.",
            "h200-sxm: coefficients fitted from this project's measurements (data/calibration/)."};
        learn::finish(out, ch, o.svg_path);
    });
}
