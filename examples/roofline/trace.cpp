// `roofline trace`: what bounds a measured trace, per kernel, phase and step, with the numbers
// behind each verdict.
//
//   roofline trace TRACE [--power nvidia-smi.csv] [--power-offset S] [--gpu ID] [--device N]
//                  [--model CONFIG [--quant Q] [--tp N] [--ep N] --batch B [--context L]
//                   [--prefill-tokens T] [--steps S]] [--rules FILE] [--json|--csv]
//                  [--svg FILE] [--html FILE] [--top N] [--ncu REPORT.csv]
//
// TRACE is a Kineto/PyTorch profiler trace (.json, .json.gz), an nsys stats CSV report or an
// nsys SQLite export (`nsys export --type sqlite`), or an Nsight Compute CSV report (each
// profiled kernel gets a verdict from its measured work). An nsys `cuda_gpu_kern_sum` report has no
// timeline: only its time summary is printed.
//
// Several Kineto traces or a folder of them (one per rank), or `--summary-out r.json` with one,
// go to the cluster report instead (examples/roofline/merge.cpp: -j, --visible-devices,
// --gpus-per-node; `roofline merge` joins summaries).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli.hpp"
#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/analysis/trace_stream.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/nsys_sqlite.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/io/trace_file.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/trace_report.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline::cli {

namespace {

struct trace_cli_options {
    std::string path, rules_path, power, smi_fields, gpu, model, quant, svg, html, calibration, ncu;
    std::optional<double> power_offset, batch, context, prefill_tokens, steps;
    int device = -1, tp = 1, ep = 1, dp = 1;
    bool json = false, csv = false, stream = false;
    std::size_t top = 12;
    cluster_trace_request cluster;  ///< several ranks: files, -j, --summary-out, ...
};

std::uint64_t as_count(double x) {
    return static_cast<std::uint64_t>(x + 0.5);
}

// An nsys kernel summary (no timeline): the time tables only, as before the verdicts existed.
void print_summary_only(const trace_summary& s, const trace_cli_options& o) {
    const std::string why =
        "an nsys cuda_gpu_kern_sum report has no timeline or shapes: verdicts need a Kineto trace "
        "or an nsys cuda_gpu_trace report";
    if (o.json) {
        nlohmann::ordered_json j;
        j["verdict"] = {{"bound", "unknown"}, {"reason", why}};
        auto& sum = j["summary"];
        sum["file"] = s.file;
        sum["format"] = s.format;
        sum["kernel_count"] = as_count(s.kernel_count);
        sum["kernel_time_s"] = s.kernel_time_s;
        sum["gpu_time_s"] = s.gpu_time_s;
        sum["events_read"] = s.stats.events_read;
        sum["events_kept"] = s.stats.events_kept;
        sum["events_skipped"] = s.stats.events_skipped;
        sum["skipped_by_reason"] = nlohmann::ordered_json::object();
        for (const auto& [reason, n] : s.stats.skipped_by_reason)
            sum["skipped_by_reason"][reason] = n;
        j["phases"] = nlohmann::ordered_json::array();
        for (const auto& p : s.phases)
            j["phases"].push_back({{"phase", std::string(to_string(p.phase))},
                                   {"name", std::string(to_string(p.phase))},
                                   {"count", as_count(p.count)},
                                   {"total_s", p.total_s},
                                   {"time_s", p.total_s},
                                   {"share", p.share},
                                   {"bound", "unknown"}});
        j["kernels"] = nlohmann::ordered_json::array();
        for (const auto& k : s.kernels)
            j["kernels"].push_back({{"name", k.name},
                                    {"phase", std::string(to_string(k.phase))},
                                    {"activity", std::string(to_string(k.activity))},
                                    {"count", as_count(k.count)},
                                    {"total_s", k.total_s},
                                    {"mean_s", k.mean_s()},
                                    {"share", k.share},
                                    {"bound", "unknown"}});
        std::puts(j.dump(2).c_str());
        return;
    }
    if (o.csv) {  // the columns of a trace's --csv; what needs shapes or a timeline stays empty
        report::csv_writer w(std::cout);
        w.row({"level", "name", "phase", "count", "total_s", "mean_s", "share", "bound", "compute",
               "memory", "communication", "power", "lower_bound_s", "achievable_s", "flops",
               "dram_bytes", "link_bytes", "reason", "roof", "l2_bytes", "shared_memory_bytes",
               "input_dims", "input_types"});
        const std::vector<std::string> unknown_cells(9);  // compute .. link_bytes
        const auto rec = [&](const char* level, const std::string& name, const std::string& phase, double count,
                             double total_s, double mean_s, double share) {
            std::vector<std::string> f = {level, name, phase, std::to_string(as_count(count)),
                                          fmt::format("{}", total_s), fmt::format("{}", mean_s),
                                          fmt::format("{}", share), "unknown"};
            f.insert(f.end(), unknown_cells.begin(), unknown_cells.end());
            f.insert(f.end(), {why, "", "", "", "", ""});
            w.row(f);
        };
        for (const auto& p : s.phases)
            rec("phase", std::string(to_string(p.phase)), std::string(to_string(p.phase)), p.count, p.total_s,
                p.count > 0 ? p.total_s / p.count : 0.0, p.share);
        for (const auto& k : s.kernels)
            rec("kernel", k.name, std::string(to_string(k.phase)), k.count, k.total_s, k.mean_s(), k.share);
        return;
    }
    // A summary report has no timeline: times add up per event, overlap between streams is unknown.
    fmt::print("{} ({}): {:.0f} kernels, {:.3f} ms of kernel time, {:.3f} ms of GPU work summed over kernels, "
               "copies and memsets (no timeline: overlap unknown)\n",
               s.file, s.format, s.kernel_count, s.kernel_time_s * 1e3, s.gpu_time_s * 1e3);
    fmt::print("events: {} read, {} kept, {} skipped\n{}\n\n", s.stats.events_read,
               s.stats.events_kept, s.stats.events_skipped, why);
    auto pt = report::text_table::with_headers({"phase", "count", "total", "share"});
    for (const auto& p : s.phases)
        pt.add_row({std::string(to_string(p.phase)), report::format_count(p.count),
                    report::format_seconds(p.total_s), report::format_percent(p.share)});
    fmt::print("{}\n", pt.render(100));
    auto kt =
        report::text_table::with_headers({"kernel", "phase", "count", "total", "mean", "share"});
    const std::size_t n = o.top == 0 ? s.kernels.size() : std::min(o.top, s.kernels.size());
    for (std::size_t i = 0; i < n; ++i) {
        const auto& k = s.kernels[i];
        kt.add_row({k.name, std::string(to_string(k.phase)), report::format_count(k.count),
                    report::format_seconds(k.total_s), report::format_seconds(k.mean_s()),
                    report::format_percent(k.share)});
    }
    fmt::print("{}", kt.render(100));
}

}  // namespace

void add_trace_command(CLI::App& app, common_options& common) {
    auto* cmd =
        app.add_subcommand("trace",
                           "What bounds a measured trace: per kernel, phase and step verdicts "
                           "(Kineto .json/.json.gz, nsys stats CSV, nsys SQLite export)");
    static trace_cli_options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    cmd->add_option("TRACE", o.cluster.paths,
                    "Kineto/PyTorch profiler trace (.json, .json.gz), nsys stats CSV "
                    "(cuda_gpu_trace; cuda_gpu_kern_sum gives the time summary only) or nsys SQLite "
                    "export (nsys export --type sqlite); several Kineto traces or a folder of them: "
                    "one per rank, the cluster report")
        ->required();
    cmd->add_option("-j,--jobs", o.cluster.jobs, "ranks analysed at once (several traces)")
        ->check(CLI::Range(1u, 256u));
    cmd->add_option("--summary-out", o.cluster.summary_out,
                    "write this rank's summary (JSON) for `roofline merge` instead of a report");
    cmd->add_option("--visible-devices", o.cluster.visible_devices,
                    "CUDA_VISIBLE_DEVICES of the job (several ranks with --power): log GPU of each local rank");
    cmd->add_option("--gpus-per-node", o.cluster.gpus_per_node,
                    "ranks per node, for local rank = rank mod N (several ranks with --power; default: "
                    "the log's GPUs)")
        ->check(CLI::PositiveNumber);
    auto* power = cmd->add_option("--power", o.power,
                                  "nvidia-smi --query-gpu CSV or nvidia-smi dmon log taken while the trace was taken");
    // Both only mean something for a --power log: without one they are an error, not ignored.
    cmd->add_option("--smi-fields", o.smi_fields, "--query-gpu field list of a header-less --power log")
        ->needs(power);
    cmd->add_option(
        "--power-offset", o.power_offset,
        "seconds added to the trace's Unix time to get the log's (for traces without a Unix clock: "
        "the trace's start after the log's first sample); default: detected")
        ->check(finite_number)
        ->needs(power);
    cmd->add_option("--gpu", o.gpu,
                    "GPU id (see `roofline gpus`); default: from the trace's device properties");
    cmd->add_option("--gpu-file", common.gpu_file, "JSON that adds or overrides GPU entries");
    cmd->add_option("--device", o.device, "GPU of the trace to analyse (default: the busiest)")
        ->check(finite_non_negative);
    cmd->add_option("--model", o.model,
                    "Hugging Face config.json, to price kernels without shapes (CUDA graphs)");
    cmd->add_option("--quant", o.quant, "ModelOpt hf_quant_config.json for --model");
    cmd->add_option("--tp", o.tp, "tensor parallel degree for --model")->check(finite_positive);
    cmd->add_option("--ep", o.ep, "expert parallel degree for --model")->check(finite_positive);
    cmd->add_option("--dp", o.dp, "data parallel (attention) degree for --model: ep divides tp x dp")
        ->check(finite_positive);
    cmd->add_option("--batch", o.batch,
                    "sequences per step for --model (decode: one new token each)")
        ->check(finite_positive);
    cmd->add_option("--context", o.context, "mean cached context per sequence for --model, tokens")
        ->check(finite_non_negative);
    cmd->add_option("--prefill-tokens", o.prefill_tokens,
                    "prompt tokens per sequence: the step is a prefill of --batch prompts")
        ->check(finite_positive);
    cmd->add_option(
           "--steps", o.steps,
           "steps in the trace for --model (default: ProfilerSteps or annotations, else 1)")
        ->check(finite_positive);
    cmd->add_option("--ncu", o.ncu,
                    "Nsight Compute CSV (ncu --csv, raw or details page) of kernels of this run: their "
                    "measured FLOP and DRAM bytes replace the modeled ones (matched by name and launch "
                    "order); TRACE may itself be such a report");
    cmd->add_option("--rules", o.rules_path,
                    "Kernel-name rules (JSON) tried before the built-in data/kernel_rules.json");
    cmd->add_flag("--stream", o.stream,
                  "read a Kineto trace as a stream in bounded memory whatever its size (default: once "
                  "its tables pass 16 MB; slower: the file is read again)");
    cmd->add_flag("--json", o.json, "print JSON (verdict, phases, kernels, steps, summary, power)");
    cmd->add_flag("--csv", o.csv, "print CSV (one record per window, phase, kernel and step)");
    cmd->add_option("--svg", o.svg,
                    "write the roofline chart (one circle per kernel) to this SVG file");
    cmd->add_option("--html", o.html, "write an HTML report (verdict, tables, chart) to this file");
    cmd->add_option("--top", o.top, "kernel names listed in the text report (0: all)")->check(finite_non_negative);
    cmd->add_option("--calibration", o.calibration,
                    "calibration overlay (`roofline calibrate`): measured ceilings replace the achievable ones");
    cmd->callback([&common] {
        if (o.json && o.csv) throw usage_error("--json and --csv exclude each other");
        o.path = o.cluster.paths.front();
        if (o.cluster.paths.size() > 1 || std::filesystem::is_directory(o.path) || !o.cluster.summary_out.empty()) {
            if (o.csv || !o.svg.empty() || !o.html.empty() || !o.model.empty() || o.device >= 0 || !o.calibration.empty() ||
                o.stream)
                throw usage_error("--csv, --svg, --html, --model, --device, --calibration and --stream take one trace, "
                                  "not several ranks or --summary-out");
            o.cluster.rules_path = o.rules_path;
            o.cluster.power = o.power;
            o.cluster.power_offset = o.power_offset;
            o.cluster.gpu = o.gpu;
            o.cluster.json = o.json;
            run_cluster_trace(o.cluster, common);
            return;
        }
        if (o.model.empty() != !o.batch.has_value())
            throw usage_error(o.model.empty() ? "--batch needs --model"
                                              : "--model needs --batch (sequences per step)");
        const auto rules = load_kernel_rules(o.rules_path);
        std::optional<ncu_report> ncu;
        if (!o.ncu.empty()) ncu = read_ncu_csv(o.ncu);
        const bool ncu_alone = !is_sqlite_file(o.path) && is_ncu_csv(o.path);
        if (ncu_alone) {
            if (ncu) throw usage_error("--ncu with an ncu report as TRACE: give one of them");
            ncu = read_ncu_csv(o.path);
        }
        const auto format = ncu_alone ? trace_format::kineto : detect_trace_format(o.path);
        if (format == trace_format::nsys_cuda_gpu_kern_sum) {
            // What needs a timeline, shapes or a device is an error here, not silently ignored.
            const std::vector<std::pair<bool, const char*>> needs_timeline = {
                {!o.svg.empty(), "--svg"},   {!o.html.empty(), "--html"}, {!o.power.empty(), "--power"},
                {!o.model.empty(), "--model"}, {!o.ncu.empty(), "--ncu"},   {!o.calibration.empty(), "--calibration"},
                {o.device >= 0, "--device"}, {!o.gpu.empty(), "--gpu"}, {!o.quant.empty(), "--quant"},
                {o.batch.has_value(), "--batch"}, {o.context.has_value(), "--context"},
                {o.prefill_tokens.has_value(), "--prefill-tokens"}, {o.steps.has_value(), "--steps"},
                {o.tp != 1 || o.ep != 1 || o.dp != 1, "--tp/--ep/--dp"}, {o.stream, "--stream"}};
            for (const auto& [given, flag] : needs_timeline)
                if (given)
                    throw usage_error(std::string(flag) + ": " + o.path +
                                      " is an nsys cuda_gpu_kern_sum report (time per kernel name, no timeline, "
                                      "shapes or devices); export cuda_gpu_trace or SQLite (nsys export --type "
                                      "sqlite) for it");
            print_summary_only(read_nsys_kern_sum(o.path, rules), o);
            return;
        }
        kineto_options ko;
        ko.rules = &rules;
        // A Kineto trace is read whole while its tables stay small, else analysed as a stream in
        // bounded memory (analysis/trace_stream.hpp) once the options are read.
        bool streamed = false;
        if (o.stream && (ncu_alone || format != trace_format::kineto))
            throw usage_error("--stream reads Kineto traces; " + o.path + " is " +
                              (ncu_alone ? "an Nsight Compute report" : "an nsys export") + ", read whole");
        const kernel_trace t = [&] {
            if (ncu_alone) return ncu_report_trace(*ncu, rules);
            if (format == trace_format::nsys_sqlite) return read_nsys_sqlite(o.path, rules);
            if (format != trace_format::kineto) return read_nsys_gpu_trace(o.path, rules);
            if (o.stream) {
                streamed = true;
                return kernel_trace{};
            }
            kineto_options budget = ko;
            budget.max_table_bytes = default_whole_trace_table_bytes;
            try {
                return read_kineto(o.path, budget);
            } catch (const trace_too_large&) {
                streamed = true;
                return kernel_trace{};
            }
        }();
        const gpu_catalog catalog = load_gpu_catalog(common.gpu_file);

        trace_analysis_options ao;
        ao.gpu_id = o.gpu;
        ao.device = o.device;
        std::optional<power_log> power;
        if (!o.power.empty()) {
            power = read_power_log(o.power, nvidia_smi_options{o.smi_fields});
            require_power_evidence(*power);
            ao.power = &*power;
        }
        ao.power_offset_s = o.power_offset;
        if (ncu) ao.ncu = &*ncu;
        std::optional<model_config> model;
        if (!o.model.empty()) {
            model = read_hf_config(o.model);
            if (!o.quant.empty()) apply_hf_quant_config(*model, o.quant);
            ao.model = &*model;
            ao.layout.tp = o.tp;
            ao.layout.ep = o.ep;
            ao.layout.dp = o.dp;
            ao.layout.validate();
            ao.batch = o.prefill_tokens
                           ? step_batch::prefill(*o.batch, *o.prefill_tokens, o.context.value_or(0))
                           : step_batch::decode(*o.batch, o.context.value_or(0));
            ao.steps = o.steps.value_or(0);
        } else if (!o.quant.empty() || o.context || o.prefill_tokens || o.steps) {
            throw usage_error("--quant, --context, --prefill-tokens and --steps need --model");
        }
        std::optional<calibration> cal;
        if (!o.calibration.empty()) {
            cal = read_calibration(o.calibration);
            ao.calibrated = &*cal;
        }
        const auto a = streamed ? analyze_kineto_stream_or_whole(o.path, catalog, ao, ko) : analyze_trace(t, catalog, ao);
        const gpu_spec g = a.gpu.id.empty() ? unknown_gpu_spec(a.gpu.reason) : catalog.at(a.gpu.id);

        if (!o.svg.empty())
            report::write_text_file(
                o.svg, report::render_roofline_svg(report::trace_roofline_chart(a, g)));
        if (!o.html.empty()) report::write_text_file(o.html, report::render_trace_html(a, g));
        if (o.json) {
            report::write_trace_analysis_json(stdout, a, o.power);
        } else if (o.csv) {
            report::write_trace_csv(std::cout, a);
        } else {
            report::write_trace_text(stdout, a, o.top);
            if (!o.svg.empty()) fmt::print("\nwrote {}\n", o.svg);
            if (!o.html.empty()) fmt::print("{}wrote {}\n", o.svg.empty() ? "\n" : "", o.html);
        }
    });
}

}  // namespace roofline::cli
