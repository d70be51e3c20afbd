// `roofline trace` over several ranks, and `roofline merge`: the cluster report.
//
//   roofline trace RANK0 RANK1 ... | DIR  [-j N] [--power LOG [--visible-devices 0,1,..]
//                  [--gpus-per-node N]] [--gpu ID] [--rules FILE] [--json]
//   roofline trace RANK_FILE --summary-out r.json [same options]
//   roofline merge r0.json r1.json ... [--json]
//
// Several files (or a folder of them) are analysed `-j` at a time, each in bounded memory, and
// joined into one report (analysis/cluster.hpp). `--summary-out` writes one rank's summary
// instead (io/rank_summary.hpp), so that ranks can be analysed anywhere (GNU parallel, a Slurm
// job array) and joined by `merge`: the merged report is byte-identical to the direct one.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "roofline/analysis/cluster.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/io/rank_summary.hpp"
#include "roofline/report/cluster_report.hpp"

namespace roofline::cli {

namespace {

// True when the first MiB of `path` (inflated) reads as a Chrome/Kineto trace: a top-level array
// of events, or an object with a "traceEvents" key. False for the other JSON a run folder holds
// (config.json, hf_quant_config.json, meta.json). An unreadable file counts as a trace, so that
// its reader names the error and the place.
bool looks_like_trace(const std::string& path) {
    try {
        io::input_file in(path);
        std::string head(std::size_t{1} << 20, '\0');
        std::size_t got = 0, n = 0;
        while (got < head.size() && (n = in.read(head.data() + got, head.size() - got)) > 0) got += n;
        head.resize(got);
        const auto first = head.find_first_not_of(" \t\r\n");
        if (first == std::string::npos) return false;
        return head[first] == '[' || head.find("\"traceEvents\"") != std::string::npos;
    } catch (const parse_error&) {
        return true;
    }
}

// The trace files of `paths`: files as given; folders expanded to their *.json / *.json.gz files
// that read as traces (not recursive), sorted by name, the others skipped and named on stderr.
// A folder without any trace, or a file given twice, is an error.
std::vector<std::string> expand_rank_paths(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    for (const auto& p : paths) {
        std::error_code ec;
        if (!fs::is_directory(p, ec)) {
            out.push_back(p);
            continue;
        }
        std::vector<std::string> found, skipped, subfolders;
        for (const auto& e : fs::directory_iterator(p, ec)) {
            const std::string n = e.path().filename().string();
            if (std::error_code dec; e.is_directory(dec)) subfolders.push_back(n);
            const auto ends = [&](const std::string& s) { return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0; };
            if (!e.is_regular_file() || !(ends(".json") || ends(".json.gz"))) continue;
            (looks_like_trace(e.path().string()) ? found : skipped).push_back(e.path().string());
        }
        if (ec) throw usage_error(p + ": cannot list the folder: " + ec.message());
        std::sort(skipped.begin(), skipped.end());
        std::string names;
        for (const auto& f : skipped) names += (names.empty() ? "" : ", ") + fs::path(f).filename().string();
        if (found.empty()) {
            // Folders are not searched recursively: say so when the traces may be one level down
            // (HolisticTraceAnalysis's critical_path/ and trace_diff/ hold only subfolders).
            std::sort(subfolders.begin(), subfolders.end());
            std::string subs;
            for (std::size_t i = 0; i < subfolders.size() && i < 5; ++i) subs += (i ? ", " : "") + subfolders[i];
            if (subfolders.size() > 5) subs += ", ...";
            throw usage_error(p + ": the folder has no .json or .json.gz trace files" +
                              (skipped.empty() ? std::string() : " (not traces: " + names + ")") +
                              (subfolders.empty() ? std::string()
                                                  : "; subfolders are not searched: it has " +
                                                        std::to_string(subfolders.size()) + " (" + subs +
                                                        "), name one of them"));
        }
        if (!skipped.empty())
            std::fprintf(stderr, "roofline trace: %s: skipped %zu JSON file(s) that are not traces (no traceEvents in "
                                 "the first MiB): %s\n",
                         p.c_str(), skipped.size(), names.c_str());
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    // Each rank is one file: the same file twice (by its canonical path) is a usage error.
    std::vector<std::pair<std::string, std::string>> seen;
    for (const auto& f : out) {
        std::error_code ec;
        const auto canon = fs::weakly_canonical(f, ec);
        const std::string key = ec ? f : canon.string();
        for (const auto& [k, given] : seen)
            if (k == key)
                throw usage_error(f + ": given twice (also as " + given + "): each rank is one trace file");
        seen.emplace_back(key, f);
    }
    return out;
}

std::vector<int> parse_index_list(const std::string& s) {
    std::vector<int> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const auto j = s.find(',', i);
        const std::string item = s.substr(i, j == std::string::npos ? std::string::npos : j - i);
        std::size_t used = 0;
        int v = -1;
        try {
            v = std::stoi(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || item.empty() || v < 0)
            throw usage_error("--visible-devices: \"" + item + "\" is not a GPU index (expected a list like 0,1,2,3)");
        out.push_back(v);
        if (j == std::string::npos) break;
        i = j + 1;
    }
    return out;
}

void print_cluster(const cluster_report& r, bool json) {
    if (json)
        std::puts(report::cluster_report_json(r).dump(2).c_str());
    else
        fmt::print("{}", report::render_cluster_text(r));
}

}  // namespace

void run_cluster_trace(const cluster_trace_request& q, common_options& common) {
    const auto paths = expand_rank_paths(q.paths);
    if (!q.summary_out.empty() && paths.size() != 1)
        throw usage_error("--summary-out writes one rank's summary: give one trace file (got " +
                          std::to_string(paths.size()) + ")");
    const auto rules = load_kernel_rules(q.rules_path);
    const gpu_catalog catalog = load_gpu_catalog(common.gpu_file);
    cluster_options o;
    o.analysis.gpu_id = q.gpu;
    o.analysis.power_offset_s = q.power_offset;
    o.rules = &rules;
    o.jobs = q.jobs;
    o.gpus_per_node = q.gpus_per_node;
    std::optional<power_log> power;
    if (!q.power.empty()) {
        power = read_nvidia_smi_csv(q.power);
        require_power_evidence(*power);
        o.power = &*power;
        if (!q.visible_devices.empty()) o.visible_devices = parse_index_list(q.visible_devices);
    } else if (!q.visible_devices.empty() || q.gpus_per_node > 0) {
        throw usage_error("--visible-devices and --gpus-per-node need --power");
    }
    auto summaries = summarize_rank_files(paths, catalog, o);
    if (!q.summary_out.empty()) {
        write_rank_summary(summaries.front(), q.summary_out);
        fmt::print("wrote {}: rank {} (from {}), {} collective kernels\n", q.summary_out, summaries.front().rank,
                   summaries.front().rank_source, summaries.front().collectives.size());
        return;
    }
    print_cluster(build_cluster_report(std::move(summaries)), q.json);
}

void add_merge_command(CLI::App& app, common_options& /*common*/) {
    auto* cmd = app.add_subcommand(
        "merge", "Join rank summaries (roofline trace RANK --summary-out r.json) into the cluster report");
    static std::vector<std::string> files;
    static bool json = false;
    files.clear(), json = false;  // fresh values each registration (the Python module)
    cmd->add_option("SUMMARY", files, "rank summaries (JSON) written by roofline trace --summary-out")->required();
    cmd->add_flag("--json", json, "print JSON (verdict, ranks, collectives, stragglers, notes)");
    cmd->callback([] {
        std::vector<rank_summary> s;
        for (const auto& f : files) s.push_back(read_rank_summary(f));
        print_cluster(build_cluster_report(std::move(s)), json);
    });
}

}  // namespace roofline::cli
