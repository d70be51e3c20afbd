#pragma once
// Shared pieces of the `roofline` command: the registration functions of each subcommand and
// the options every subcommand understands.

#include <cmath>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

namespace roofline::cli {

/// CLI11 validator: a finite number > 0 (CLI::PositiveNumber prints its range as 309 digits and
/// lets "nan" and "inf" through).
inline const CLI::Validator finite_positive(
    [](std::string& s) -> std::string {
        try {
            std::size_t used = 0;
            const double v = std::stod(s, &used);
            if (used == s.size() && std::isfinite(v) && v > 0) return {};
        } catch (const std::exception&) {
        }
        return "must be a finite number > 0, got \"" + s + "\"";
    },
    "> 0");

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
void add_inspect_command(CLI::App& app, common_options& common);
void add_plan_command(CLI::App& app, common_options& common);
void add_calibrate_command(CLI::App& app, common_options& common);

}  // namespace roofline::cli
