// `roofline calibrate`: fit achievable ceilings, kernel efficiency curves, link and power
// coefficients to measurements of one GPU, and write the overlay every command reads with
// `--calibration FILE`.
//
//   roofline calibrate INPUTS... --gpu ID -o FILE.json [--link nvlink|pcie|pcie-no-p2p|network]
//                      [--smi-fields timestamp,power.draw,...] [--folds 5] [--gpu-file F] [--json]
//
// Inputs are recognised by content (io/measurements.hpp): roofline.ceilings/1 (measure_ceilings),
// roofline.kernels/1 (kernel_sweep.py), the validation sweep and its power phases,
// roofline.allreduce_sweep/1, nccl-tests stdout or JSON, ncu --csv, nvidia-smi --query-gpu CSV
// (a header-less log needs --smi-fields), Kineto traces recorded with shapes (GEMM rates). The text report lists every fitted value with its
// residuals (in sample and cross-validated); --json prints the overlay itself.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/analysis/calibration.hpp"
#include "roofline/io/gpu_json.hpp"

namespace roofline::cli {
namespace {

std::string pct(double f) { return std::isfinite(f) ? fmt::format("{:.1f}%", 100 * f) : "-"; }

void print_report(const calibrate_result& r, const gpu_spec& g, const std::string& out) {
    const auto& c = r.overlay;
    fmt::print("calibration of {} ({}) -> {}\nmeasured on: {}\n\ninputs:\n", g.id, g.name, out, describe(c.device));
    for (const auto& in : c.inputs)
        fmt::print("  {} [{}]: {} records read, {} used{}\n", in.file, in.format, in.records_read, in.records_used,
                   in.note.empty() ? "" : ": " + in.note);
    fmt::print("\nceilings (upper envelope of what was measured):\n");
    for (const auto& [key, src] : c.ceiling_sources) {
        double v = NAN;
        if (key == "dram_bytes_per_s" && c.dram_bytes_per_s) v = *c.dram_bytes_per_s;
        else if (key == "l2_bytes_per_s" && c.l2_bytes_per_s) v = *c.l2_bytes_per_s;
        else if (key == "launch_latency_s" && c.launch_latency_s) v = *c.launch_latency_s;
        else if (key == "graph_launch_latency_s" && c.graph_launch_latency_s) v = *c.graph_launch_latency_s;
        else if (auto k = parse_peak_key(key); k && c.overrides_flops(*k)) v = *c.flops_per_s[static_cast<std::size_t>(*k)];
        std::string value;
        if (key.find("latency") != std::string::npos) value = fmt::format("{:.2f} us", v * 1e6);
        else if (key.find("bytes") != std::string::npos) value = fmt::format("{:.2f} TB/s", v / 1e12);
        else {
            value = fmt::format("{:.0f} TFLOP/s", v / 1e12);
            if (std::isfinite(src.flops_per_clock)) {
                const auto k = parse_peak_key(key);
                const auto per_sm = g.sm_count.known() ? src.flops_per_clock / *g.sm_count.value : NAN;
                const auto& pk = g.peak(*k);
                const double dense = pk.flops_per_clock_per_sm.known() ? *pk.flops_per_clock_per_sm.value : NAN;
                // The best rate per clock may be another measurement than the best rate (a
                // power-capped GEMM at a lower clock): said, with its clock.
                value += fmt::format(", best per clock {:.0f} FLOP per SM per clock", per_sm);
                if (std::isfinite(src.clock_hz)) value += fmt::format(" at {:.0f} MHz", src.clock_hz / 1e6);
                if (std::isfinite(dense)) value += fmt::format(" ({:.0f}% of the dense {:.0f})", 100 * per_sm / dense, dense);
            }
        }
        fmt::print("  {:<24} {:<48} {}\n", key, value, src.method);
    }
    if (!c.curves.empty()) {
        fmt::print("\ncurves   device time t = t_fixed + [split kernel] t_split + max(F_eff / (phi f), B / W); floor: the "
                   "host floor of an eager call, a separate term:\n");
        fmt::print("  {:<24} {:<5} {:>5} {:>9} {:>9} {:>10} {:>9} {:>9} {:>10} {:>15} {:>15}\n", "family/backend", "peak", "n",
                   "t_fixed", "t_split", "phi/SM", "W", "floor", "padding", "in sample",
                   fmt::format("{}-fold CV", c.curves.empty() ? 0 : c.curves.front().fit.cv_folds));
        for (const auto& cv : c.curves) {
            const double per_sm = g.sm_count.known() ? cv.flops_per_clock / *g.sm_count.value : NAN;
            std::string pad = "-";
            if (cv.tile_rows > 0) pad = fmt::format("M tile {:.0f}", cv.tile_rows);
            if (cv.causal_block_keys > 0) pad = fmt::format("diag {:.0f}", cv.causal_block_keys);
            if (cv.whole_waves) pad = "waves";
            if (cv.decode_tile_rows > 0) pad = fmt::format("M tile {:.0f}", cv.decode_tile_rows);
            fmt::print("  {:<24} {:<5} {:>5} {:>7.1f}us {:>9} {:>10} {:>9} {:>9} {:>10} {:>7} {:>7} {:>7} {:>7}\n",
                       std::string(to_string(cv.family)) + (cv.backend.empty() ? "" : "/" + cv.backend), to_string(cv.peak),
                       cv.fit.points, cv.fixed_latency_s * 1e6,
                       cv.split_extra_s > 0 ? fmt::format("{:.1f}us", cv.split_extra_s * 1e6) : "-",
                       std::isfinite(per_sm) ? fmt::format("{:.0f}", per_sm) : "-",
                       std::isfinite(cv.bytes_per_s) ? fmt::format("{:.2f}TB/s", cv.bytes_per_s / 1e12) : "-",
                       cv.floor_s > 0 ? fmt::format("{:.1f}us", cv.floor_s * 1e6) : "-", pad, pct(cv.fit.median_abs_error),
                       pct(cv.fit.p90_abs_error), pct(cv.fit.cv_median_abs_error), pct(cv.fit.cv_p90_abs_error));
        }
        fmt::print("  (median and p90 |error|; phi: achieved FLOP per SM clock cycle; '-': not identified, the "
                   "ceilings price it)\n");
        for (const auto& cv : c.curves)
            if (!cv.fit.capped.empty())
                fmt::print("  {}/{}: {} (the fit exceeded it)\n", to_string(cv.family), cv.backend.empty() ? "-" : cv.backend,
                           cv.fit.capped);
        std::string clockless;
        for (const auto& cv : c.curves)
            if (!cv.clocks_recorded)
                clockless += (clockless.empty() ? "" : ", ") + std::string(to_string(cv.family)) + "/" +
                             (cv.backend.empty() ? "-" : cv.backend) + " " + std::string(to_string(cv.peak));
        if (!clockless.empty())
            fmt::print("  no SM clock in their records: {} (phi at the maximum clock: the rates measured under the "
                       "sweep's power limit; `kernel` prices them at that clock, not the power model's)\n",
                       clockless);
    }
    for (const auto& l : c.links) {
        fmt::print("\nlink {} ({} over {} ranks, {} sizes): alpha {:.2f} us, base {:.2f} us, beta {:.1f} GB/s; "
                   "|error| median {}, p90 {}\n",
                   to_string(l.link), l.op, l.ranks, l.points, l.params.alpha_s * 1e6, l.params.base_latency_s * 1e6,
                   l.params.beta_bytes_per_s / 1e9, pct(l.median_abs_error), pct(l.p90_abs_error));
        if (l.host_floor_s)
            fmt::print("  small messages took {:.1f} us a call whatever their size, {:.0f}x NCCL's modeled latency: a "
                       "host floor (eager calls), kept as host_floor_s; alpha and base are NCCL's, which a CUDA-graph "
                       "step pays (the |error| above is the fit's with the floor as its latency: alpha and base do not "
                       "reproduce the sweep's small sizes)\n",
                       *l.host_floor_s * 1e6,
                       *l.host_floor_s / collective_time(parse_collective_op(l.op), 0, l.ranks, l.params).latency_s);
    }
    if (c.power) {
        const auto& p = c.power->coefficients;
        std::string e;
        for (auto k : all_peak_keys)
            if (std::isfinite(p.flop_energy_at(k)))
                e += fmt::format("{}{} {:.3f} pJ/FLOP", e.empty() ? "" : ", ", to_string(k), p.flop_energy_at(k) * 1e12);
        const double range = c.power->power_range_w;
        fmt::print("\npower ({} steady samples): static {:.1f} W; {} at {:.0f} MHz (energy per FLOP ~ f^{:.1f}); DRAM "
                   "{:.1f} pJ/B; residual rms {:.1f} W ({} of the {:.0f} W range of the samples), max {:.1f} W ({}){}\n",
                   c.power->samples, p.static_w, e, p.reference_clock_hz / 1e6, p.clock_exponent - 1,
                   p.joules_per_dram_byte * 1e12, c.power->rms_residual_w, pct(c.power->rms_residual_w / range), range,
                   c.power->max_abs_residual_w, pct(c.power->max_abs_residual_w / range),
                   c.power->unreliable ? fmt::format("; UNRELIABLE: max above {:.0f}% of the range",
                                                     100 * power_fit_unreliable_fraction)
                                       : "");
        for (const auto& s : r.power_points)
            fmt::print("  {:<52} {:>6.1f} W at {:>4.0f} MHz, {:>6.0f} TFLOP/s, {:>5.2f} TB/s: model {:>6.1f} W\n",
                       s.label + " (" + s.file.substr(s.file.find_last_of('/') + 1) + ")", s.power_w, s.sm_clock_hz / 1e6,
                       [&] { double f = 0; for (double v : s.flops_per_s) f += v; return f / 1e12; }(),
                       s.dram_bytes_per_s / 1e12, predicted_power_w(p, s));
    }
    if (!r.notes.empty()) fmt::print("\n");
    for (const auto& n : r.notes) fmt::print("note: {}\n", n);
}

}  // namespace

void add_calibrate_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("calibrate", "Fit ceilings, kernel curves, link and power coefficients to "
                                                "measurements; write a calibration overlay");
    static std::vector<std::string> inputs;
    static std::string gpu, out, link, smi_fields, gpu_file, created;
    static int folds = 5;
    static bool json = false;
    // Fresh values each registration (the Python module registers once per call).
    inputs.clear();
    gpu.clear(), out.clear(), link.clear(), smi_fields.clear(), gpu_file.clear(), created.clear();
    folds = 5;
    json = false;
    cmd->add_option("INPUTS", inputs, "measurement files (formats recognised by content)")->required();
    cmd->add_option("--gpu", gpu, "GPU id (see `roofline gpus`)")->required();
    cmd->add_option("-o,--output", out, "calibration file to write (JSON)")->required();
    cmd->add_option("--link", link, "link the collective sweeps ran over: nvlink, pcie, pcie-no-p2p or network (default: the GPU's; sweeps on several hosts are network)");
    cmd->add_option("--smi-fields", smi_fields, "--query-gpu field list of header-less nvidia-smi logs");
    cmd->add_option("--folds", folds, "cross-validation folds for the curves' held-out errors (0: none)");
    cmd->add_option("--gpu-file", gpu_file, "JSON file that adds or overrides GPU entries");
    cmd->add_option("--created-utc", created, "timestamp to record instead of now (reproducible files)");
    cmd->add_flag("--json", json, "print the overlay as JSON instead of the report");
    cmd->callback([&common] {
        (void)common;
        if (folds < 0 || folds == 1) throw usage_error("--folds must be 0 (none) or at least 2");
        // Writing the overlay over one of its inputs would destroy the measurement.
        std::error_code ec;
        for (const auto& in : inputs)
            if (in == out || (std::filesystem::exists(out, ec) && std::filesystem::equivalent(in, out, ec)))
                throw usage_error("calibrate: -o " + out + " is one of the input files: it would be overwritten; write the "
                                  "overlay elsewhere");
        const gpu_catalog catalog = load_gpu_catalog(gpu_file);
        const gpu_spec& g = pick_gpu(catalog, gpu);
        calibrate_options o;
        if (!link.empty()) {
            o.link = parse_link_kind(link);
            o.link_given = true;
        }
        o.smi_query_fields = smi_fields;
        o.created_utc = created;
        o.curves.folds = folds;
        const auto r = calibrate(inputs, g, o);
        write_calibration(out, r.overlay);
        if (json) std::puts(calibration_to_json(r.overlay).dump(2).c_str());
        else print_report(r, g, out);
    });
}

}  // namespace roofline::cli
