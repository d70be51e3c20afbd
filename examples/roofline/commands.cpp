// Registers every subcommand on one CLI11 app: the `roofline` program (main.cpp) and the Python
// module (examples/python/module.cpp) both call this, so they always offer the same commands.

#include "commands.hpp"

namespace roofline::cli {

void add_all_commands(CLI::App& app, common_options& common) {
    add_gpus_command(app, common);
    add_roof_command(app, common);
    add_analyze_command(app, common);
    add_trace_command(app, common);
    add_model_command(app, common);
    add_kernel_command(app, common);
    add_inspect_command(app, common);
    add_plan_command(app, common);
    add_estimate_command(app, common);
    add_calibrate_command(app, common);
    add_merge_command(app, common);
}

}  // namespace roofline::cli
