// `roofline gpus`: the catalog. (Being completed: table, --compare, --json, --gpu-file.)
#include <cstdio>

#include "cli.hpp"
#include "roofline/core/catalog.hpp"

namespace roofline::cli {

void add_gpus_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("gpus", "The GPU catalog with sources");
    cmd->add_option("--gpu-file", common.gpu_file, "JSON file that adds or overrides GPU entries");
    cmd->callback([&common] {
        (void)common;
        for (const auto& g : gpu_catalog::builtin().all()) std::printf("%s\n", g.id.c_str());
    });
}

}  // namespace roofline::cli
