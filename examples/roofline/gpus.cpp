// `roofline gpus`: the GPU catalog.
//
//   roofline gpus                         one row per GPU (fits a terminal)
//   roofline gpus --compare b200,gb200    side by side, every value with its source and notes
//   roofline gpus --json                  the catalog as a JSON array (or the compared GPUs)
//   roofline gpus --gpu-file F.json       with a user overlay applied (see io/gpu_json.hpp)
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/report/gpu_table.hpp"

namespace roofline::cli {

namespace {

/// "a,b,c" -> {"a", "b", "c"}; an empty item is a usage error.
std::vector<std::string> split_ids(const std::string& list) {
    std::vector<std::string> ids;
    std::size_t start = 0;
    while (true) {
        const auto comma = list.find(',', start);
        std::string id =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (id.empty())
            throw usage_error("--compare: empty GPU id in \"" + list + "\" (expected ID,ID,...)");
        ids.push_back(std::move(id));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return ids;
}

}  // namespace

void add_gpus_command(CLI::App& app, common_options& common) {
    struct options {
        std::string compare;
        bool json = false;
    };
    static options opt;
    opt = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = app.add_subcommand("gpus", "The GPU catalog with sources");
    cmd->add_option("--gpu-file", common.gpu_file,
                    "JSON file that adds GPUs or overrides fields (one object or an array)");
    cmd->add_option("--compare", opt.compare,
                    "GPU ids to show side by side with sources, e.g. b200,gb200");
    cmd->add_flag("--json", opt.json, "Print JSON (an array of GPU objects) instead of a table");
    cmd->callback([&common] {
        const gpu_catalog catalog = load_gpu_catalog(common.gpu_file);
        std::vector<gpu_spec> selected;
        if (opt.compare.empty()) {
            selected = catalog.all();
        } else {
            for (const auto& id : split_ids(opt.compare)) selected.push_back(pick_gpu(catalog, id));
        }
        if (opt.json) {
            fmt::print("{}\n", to_json(selected).dump(2));
        } else if (opt.compare.empty()) {
            fmt::print("{}", format_gpu_table(selected));
        } else {
            fmt::print("{}", format_gpu_compare(selected));
        }
    });
}

}  // namespace roofline::cli
