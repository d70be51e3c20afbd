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

/// CLI11 validator: a finite number in (0, `max`]. Bounds that no real run reaches (10^8 tokens
/// per request, 10^8 requests or GPUs) turn a typo such as 1e308 into a usage error instead of
/// an infinite or meaningless roof.
inline CLI::Validator finite_positive_at_most(double max) {
    return CLI::Validator(
        [max](std::string& s) -> std::string {
            try {
                std::size_t used = 0;
                const double v = std::stod(s, &used);
                if (used == s.size() && std::isfinite(v) && v > 0 && v <= max) return {};
            } catch (const std::exception&) {
            }
            return "must be a number > 0 and <= " + CLI::detail::to_string(max) + ", got \"" + s + "\"";
        },
        "> 0");
}

/// The largest token count, request count or GPU count a command accepts (see finite_positive_at_most).
inline constexpr double max_plausible_count = 1e8;

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
void add_estimate_command(CLI::App& app, common_options& common);

}  // namespace roofline::cli
