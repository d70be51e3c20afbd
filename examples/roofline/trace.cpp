// `roofline trace`: where the GPU time of a measured trace went, per phase and per kernel.
// (The per-kernel roofline verdicts come with the analysis layer.)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/trace_file.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline::cli {

namespace {

std::string shorten(std::string_view s, std::size_t width) {
    if (s.size() <= width) return std::string(s);
    return std::string(s.substr(0, width - 3)) + "...";
}

// Counts are doubles inside (nsys reports aggregate them); they print as integers.
std::uint64_t as_count(double x) { return static_cast<std::uint64_t>(x + 0.5); }

nlohmann::ordered_json to_json(const trace_summary& s) {
    nlohmann::ordered_json j;
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
    for (const auto& [reason, n] : s.stats.skipped_by_reason) sum["skipped_by_reason"][reason] = n;
    j["phases"] = nlohmann::ordered_json::array();
    for (const auto& p : s.phases)
        j["phases"].push_back({{"phase", std::string(to_string(p.phase))},
                               {"count", as_count(p.count)},
                               {"total_s", p.total_s},
                               {"share", p.share}});
    j["kernels"] = nlohmann::ordered_json::array();
    for (const auto& k : s.kernels)
        j["kernels"].push_back({{"name", k.name},
                                {"phase", std::string(to_string(k.phase))},
                                {"activity", std::string(to_string(k.activity))},
                                {"count", as_count(k.count)},
                                {"total_s", k.total_s},
                                {"mean_s", k.mean_s()},
                                {"share", k.share}});
    return j;
}

void print_text(const trace_summary& s, std::size_t top) {
    fmt::print("{} ({}): {:.0f} kernels, {:.3f} ms of kernel time, {:.3f} ms of GPU activity\n", s.file,
               s.format, s.kernel_count, s.kernel_time_s * 1e3, s.gpu_time_s * 1e3);
    fmt::print("events: {} read, {} kept, {} skipped", s.stats.events_read, s.stats.events_kept,
               s.stats.events_skipped);
    if (!s.stats.skipped_by_reason.empty()) {
        std::string reasons;
        for (const auto& [r, n] : s.stats.skipped_by_reason) reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, r);
        fmt::print(" ({})", reasons);
    }
    fmt::print("\n\n{:<14} {:>9} {:>12} {:>7}\n", "phase", "count", "total ms", "share");
    for (const auto& p : s.phases)
        fmt::print("{:<14} {:>9.0f} {:>12.3f} {:>6.1f}%\n", to_string(p.phase), p.count, p.total_s * 1e3, p.share * 100);
    const std::size_t n = top == 0 ? s.kernels.size() : std::min(top, s.kernels.size());
    fmt::print("\n{:<80} {:<13} {:>8} {:>11} {:>10} {:>7}\n", "kernel", "phase", "count", "total ms", "mean us", "share");
    for (std::size_t i = 0; i < n; ++i) {
        const auto& k = s.kernels[i];
        fmt::print("{:<80} {:<13} {:>8.0f} {:>11.3f} {:>10.2f} {:>6.1f}%\n", shorten(k.name, 80), to_string(k.phase),
                   k.count, k.total_s * 1e3, k.mean_s() * 1e6, k.share * 100);
    }
    if (n < s.kernels.size()) fmt::print("({} more kernel names; --top 0 lists all)\n", s.kernels.size() - n);
}

}  // namespace

void add_trace_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("trace", "Where the GPU time of a trace went: per phase and per kernel "
                                            "(Kineto .json/.json.gz, nsys stats CSV)");
    static std::string path, rules_path;
    static bool json = false;
    static std::size_t top = 20;
    cmd->add_option("TRACE", path, "Kineto/PyTorch profiler trace (.json, .json.gz) or nsys stats CSV "
                                   "(cuda_gpu_kern_sum, cuda_gpu_trace)")
        ->required();
    cmd->add_option("--rules", rules_path, "Kernel-name rules (JSON) tried before the built-in data/kernel_rules.json");
    cmd->add_flag("--json", json, "Print JSON (summary, phases, kernels) instead of tables");
    cmd->add_option("--top", top, "Kernel names listed in the text table (0: all)");
    cmd->callback([&common] {
        (void)common;
        const auto rules = load_kernel_rules(rules_path);
        const auto s = summarize_trace_file(path, rules);
        if (json) {
            std::puts(to_json(s).dump(2).c_str());
        } else {
            print_text(s, top);
        }
    });
}

}  // namespace roofline::cli
