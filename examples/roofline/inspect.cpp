// `roofline inspect`: what a reader makes of one input file. Reads FILE with the reader for
// --format (told from the content when absent, where it can be) and prints how many records it read, kept and skipped, with the skip reasons, plus a
// one-line summary of what was found. For a user asking "does roofline understand my file?",
// and for the bad-input tests (tests/bad_inputs/), which need every reader reachable from the
// command line.
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/bench_json.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/measurements.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/nsys_sqlite.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/trace/read_stats.hpp"

namespace roofline::cli {

namespace {

/// What inspecting one file found.
struct inspection {
    read_stats stats;
    bool counted = true;  ///< false for formats read whole or not at all (configs)
    std::string found;    ///< one line: what the file holds
};

std::string plural(std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

inspection inspect_file(const std::string& path, const std::string& format) {
    inspection r;
    if (format == "kineto") {
        const auto t = read_kineto(path);
        r.stats = t.stats;
        std::size_t kernels = 0;
        for (const auto& e : t.events) kernels += e.activity == gpu_activity::kernel;
        r.found = plural(t.events.size(), "GPU event", "GPU events") + " (" + plural(kernels, "kernel", "kernels") + ")";
    } else if (format == "nsys") {
        const auto rules = load_kernel_rules();
        if (is_sqlite_file(path)) {
            const auto t = read_nsys_sqlite(path, rules);
            r.stats = t.stats;
            std::size_t kernels = 0, gpu_ranges = 0;
            for (const auto& e : t.events) kernels += e.activity == gpu_activity::kernel;
            for (const auto& a : t.annotations) gpu_ranges += a.gpu;
            r.found = "SQLite export: " + plural(t.events.size(), "GPU event", "GPU events") + " (" +
                      plural(kernels, "kernel", "kernels") + "), " +
                      plural(t.annotations.size() - gpu_ranges, "NVTX range", "NVTX ranges") + ", " +
                      plural(t.devices.size(), "GPU", "GPUs") + (t.devices.empty() ? "" : " (" + t.devices.front().name + ")");
        } else if (detect_nsys_report(path) == nsys_report::cuda_gpu_trace) {
            const auto t = read_nsys_gpu_trace(path, rules);
            r.stats = t.stats;
            r.found = "cuda_gpu_trace: " + plural(t.events.size(), "GPU event", "GPU events");
        } else {
            const auto s = read_nsys_kern_sum(path, rules);
            r.stats = s.stats;
            r.found = "cuda_gpu_kern_sum: " + plural(s.kernels.size(), "kernel name", "kernel names");
        }
    } else if (format == "ncu") {
        const auto n = read_ncu_csv(path);
        r.stats = n.stats;
        std::size_t timed = 0;
        for (const auto& k : n.kernels) timed += k.duration_s >= 0 && std::isfinite(k.duration_s);
        r.found = n.page + " page: " + plural(n.kernels.size(), "kernel", "kernels");
        if (timed < n.kernels.size())  // `roofline trace` keeps only kernels with a duration
            r.found += fmt::format(", {} with a duration (`roofline trace` skips the rest: it needs "
                                   "gpu__time_duration.sum or the Duration of GPU Speed Of Light Throughput)",
                                   timed);
    } else if (format == "nvidia-smi" || format == "nvidia-smi-dmon") {
        const auto log = format == "nvidia-smi" ? read_nvidia_smi_csv(path) : read_nvidia_smi_dmon(path);
        r.stats = log.stats;
        std::set<int> gpus;
        for (const auto& s : log.samples) gpus.insert(s.gpu_index);
        r.found = plural(log.samples.size(), "sample", "samples") + " of " + plural(gpus.size(), "GPU", "GPUs");
    } else if (format == "nccl-tests" || format == "nccl-tests-json") {
        const auto s = format == "nccl-tests" ? read_nccl_tests(path) : read_nccl_tests_json(path);
        r.stats = s.stats;
        r.found = plural(s.points.size(), "size", "sizes") + (s.collective.empty() ? "" : " of " + s.collective) + ", " +
                  plural(static_cast<std::size_t>(s.ranks), "rank", "ranks");
    } else if (format == "bench") {
        const auto b = read_bench_results(path);
        r.stats = b.stats;
        r.found = plural(b.runs.size(), "run", "runs") + " (" + b.runs.front().format + ")";
    } else if (format == "hf-config") {
        const auto c = read_hf_config(path);
        r.counted = false;
        r.found = fmt::format("{}: {} layers, hidden {}{}", c.family.empty() ? "model" : c.family, c.num_layers,
                              c.hidden_size, c.num_experts > 0 ? fmt::format(", {} experts", c.num_experts) : "");
    } else if (format == "hf-quant") {
        model_config c;
        apply_hf_quant_config(c, path);
        r.counted = false;
        r.found = fmt::format("{}: weights {}, KV cache {}, {} exclusions", c.quant.method, to_string(c.quant.weights),
                              to_string(c.quant.kv_cache), c.quant.exclude_patterns.size());
    } else if (format == "gpu-json") {
        gpu_catalog catalog = gpu_catalog::builtin();
        const std::size_t before = catalog.all().size();
        load_gpu_overlay(catalog, path);
        r.counted = false;
        r.found = fmt::format("catalog of {} GPUs ({} added)", catalog.all().size(), catalog.all().size() - before);
    } else if (format == "calibration") {
        const auto o = read_calibration(path);
        std::size_t n = o.dram_bytes_per_s.has_value() + o.l2_bytes_per_s.has_value() + o.link_bytes_per_s.has_value() +
                        o.launch_latency_s.has_value();
        for (const auto& f : o.flops_per_s) n += f.has_value();
        r.counted = false;
        r.found = plural(n, "ceiling", "ceilings") + " overridden";
    } else if (format == "kernel-rules") {
        const auto rules = read_kernel_rules(path);
        r.counted = false;
        r.found = plural(rules.rules().size(), "rule", "rules");
    } else {
        throw usage_error("--format \"" + format +
                          "\": unknown (accepted: kineto, nsys, ncu, nvidia-smi, nvidia-smi-dmon, nccl-tests, "
                          "nccl-tests-json, bench, hf-config, hf-quant, gpu-json, calibration, kernel-rules)");
    }
    return r;
}

/// The --format of `path` told by its content (io/measurements.hpp, then the nsys header), for
/// the formats that can be told apart; a usage error asking for --format otherwise.
std::string detect_format(const std::string& path) {
    if (is_sqlite_file(path)) return "nsys";  // an nsys SQLite export
    switch (detect_measurement_format(path)) {
        case measurement_format::kineto_trace: return "kineto";
        case measurement_format::nccl_tests_text: return "nccl-tests";
        case measurement_format::nccl_tests_json: return "nccl-tests-json";
        case measurement_format::ncu_csv: return "ncu";
        case measurement_format::nvidia_smi_csv: return "nvidia-smi";
        case measurement_format::nvidia_smi_dmon: return "nvidia-smi-dmon";
        default: break;
    }
    try {
        (void)detect_nsys_report(path);
        return "nsys";
    } catch (const parse_error&) {
    }
    throw usage_error(path + ": the format cannot be told from the content: pass --format");
}

}  // namespace

void add_inspect_command(CLI::App& app, common_options& common) {
    struct options {
        std::string path, format;
        bool json = false;
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = app.add_subcommand("inspect", "What a reader makes of one input file: records read, kept and "
                                              "skipped (by reason)");
    cmd->add_option("FILE", o.path, "the input file (.gz accepted where the format allows)")->required();
    cmd->add_option("--format", o.format,
                    "kineto, nsys (stats CSV or SQLite export), ncu, nvidia-smi, nvidia-smi-dmon, nccl-tests, "
                    "nccl-tests-json, bench, "
                    "hf-config, hf-quant, gpu-json, calibration, kernel-rules (default: told from the content for "
                    "kineto, nsys, ncu, nvidia-smi, nvidia-smi-dmon and nccl-tests files)");
    cmd->add_flag("--json", o.json, "Print JSON");
    cmd->callback([&common] {
        (void)common;
        if (o.format.empty()) o.format = detect_format(o.path);
        const inspection r = inspect_file(o.path, o.format);
        if (o.json) {
            nlohmann::ordered_json j;
            j["file"] = o.path;
            j["format"] = o.format;
            if (r.counted) {
                j["events_read"] = r.stats.events_read;
                j["events_kept"] = r.stats.events_kept;
                j["events_skipped"] = r.stats.events_skipped;
                j["skipped_by_reason"] = nlohmann::ordered_json::object();
                for (const auto& [reason, n] : r.stats.skipped_by_reason) j["skipped_by_reason"][reason] = n;
                j["events_other"] = r.stats.events_other();
                j["other_by_reason"] = nlohmann::ordered_json::object();
                for (const auto& [reason, n] : r.stats.other_by_reason) j["other_by_reason"][reason] = n;
            }
            j["found"] = r.found;
            std::puts(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
            return;
        }
        fmt::print("{} ({}): {}\n", o.path, o.format, r.found);
        if (!r.counted) return;
        fmt::print("records: {} read, {} kept, {} skipped", r.stats.events_read, r.stats.events_kept,
                   r.stats.events_skipped);
        std::string reasons;
        for (const auto& [reason, n] : r.stats.skipped_by_reason)
            reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, reason);
        if (!reasons.empty()) fmt::print(" ({})", reasons);
        // Records neither kept nor skipped: named where the reader says why (n/a metrics), else
        // counted as context (metadata, CPU-side events).
        if (const std::size_t other = r.stats.events_other(); other > 0) {
            std::size_t named = 0;
            std::string why;
            for (const auto& [reason, n] : r.stats.other_by_reason) {
                why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, reason);
                named += n;
            }
            if (named == 0) why = "context: CPU-side events, metadata";
            else if (named < other) why += fmt::format(", {} context", other - named);
            fmt::print(", {} other ({})", other, why);
        }
        fmt::print("\n");
    });
}

}  // namespace roofline::cli
