#pragma once
// Shared pieces of the `roofline` command: the registration functions of each subcommand and
// the options every subcommand understands.

#include <string>

#include <CLI/CLI.hpp>

namespace roofline::cli {

/// Options common to every subcommand.
struct common_options {
    std::string gpu_file;     ///< --gpu-file: JSON that adds or overrides catalog entries
    std::string calibration;  ///< --calibration: overlay of measured ceilings
};

void add_gpus_command(CLI::App& app, common_options& common);
void add_roof_command(CLI::App& app, common_options& common);
void add_analyze_command(CLI::App& app, common_options& common);
void add_trace_command(CLI::App& app, common_options& common);
void add_model_command(CLI::App& app, common_options& common);
void add_kernel_command(CLI::App& app, common_options& common);
void add_calibrate_command(CLI::App& app, common_options& common);

}  // namespace roofline::cli
