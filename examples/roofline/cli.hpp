#pragma once
// Shared pieces of the `roofline` command: the registration functions of each subcommand and
// the options every subcommand understands.

#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "roofline/core/catalog.hpp"

namespace roofline::cli {

/// A number's text without the blanks around it and its sign (" -0x8 " -> "0x8"): what the
/// parsers read the digits of.
inline std::string_view unsigned_number_text(std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
    return v;
}

/// A hexadecimal number ("0x10", "-0X1p3", " 0x8"): CLI11 and std::stod would read it (as 16,
/// -8, 8; both skip leading blanks), a reader of these numbers would not expect it, so numeric
/// option values in hex are refused.
inline bool hex_number(std::string_view v) {
    v = unsigned_number_text(v);
    if (v.size() < 3 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return false;
    for (char c : v.substr(2))
        if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'p' && c != 'P' && c != '+' && c != '-')
            return false;
    return true;
}

/// A whole number written with a leading zero ("010", "-08"): CLI11 reads integers in base 0, so
/// "010" would be 8 (octal); a reader expects 10.
inline bool leading_zero_integer(std::string_view v) {
    v = unsigned_number_text(v);
    if (v.size() < 2 || v[0] != '0') return false;
    for (char c : v)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

/// The usage error's text for a hexadecimal value (CLI11 prefixes the option's name).
inline std::string hex_refusal(const std::string& value) {
    return "\"" + value + "\" is hexadecimal: numbers are read in decimal";
}

/// CLI11 validator: refuses a hexadecimal value (`hex_number`) and a whole number with a leading
/// zero (`leading_zero_integer`: octal to CLI11). `run_program` attaches it to every option whose
/// value CLI11 converts to a number; no description, so --help is unchanged.
inline const CLI::Validator decimal_only(
    [](std::string& s) -> std::string {
        if (hex_number(s)) return hex_refusal(s);
        if (leading_zero_integer(s)) return "\"" + s + "\" has a leading zero (read as octal): numbers are read in decimal";
        return {};
    },
    "");

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

/// CLI11 validator: any finite number ("nan", "inf" and "1e999" are usage errors).
inline const CLI::Validator finite_number(
    [](std::string& s) -> std::string {
        try {
            std::size_t used = 0;
            const double v = std::stod(s, &used);
            if (used == s.size() && std::isfinite(v)) return {};
        } catch (const std::exception&) {
        }
        return "must be a finite number, got \"" + s + "\"";
    },
    "finite");

/// CLI11 validator: a finite number >= 0.
inline const CLI::Validator finite_non_negative(
    [](std::string& s) -> std::string {
        try {
            std::size_t used = 0;
            const double v = std::stod(s, &used);
            if (used == s.size() && std::isfinite(v) && v >= 0) return {};
        } catch (const std::exception&) {
        }
        return "must be a finite number >= 0, got \"" + s + "\"";
    },
    ">= 0");

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

/// The catalog entry a typed GPU name means (`gpu_catalog::lookup`: "H200", "b200", "rtx6000",
/// "5090"); when the name is not an id as written, one line on stderr says which entry was taken
/// and what that assumes (stdout, and so --json and --csv, stay unchanged).
inline const gpu_spec& pick_gpu(const gpu_catalog& catalog, const std::string& name) {
    const gpu_lookup l = catalog.lookup(name);
    if (!l.gpu) return catalog.at(name);  // throws, naming the candidates or the known ids
    if (!l.how.empty()) std::fprintf(stderr, "roofline: GPU %s\n", l.how.c_str());
    return *l.gpu;
}

/// Throws `usage_error` when `mhz` (--sm-clock-mhz, MHz) exceeds `g`'s maximum SM clock: a
/// clock above it would price kernels under their speed of light. An unknown maximum passes.
inline void require_clock_within_max(const gpu_spec& g, double mhz) {
    const double f_max = g.max_clock_hz.value_or(std::nan(""));
    if (std::isfinite(f_max) && mhz * 1e6 > f_max * 1.0001) {
        char b[200];
        std::snprintf(b, sizeof b, "--sm-clock-mhz %.0f: above %s's maximum SM clock of %.0f MHz", mhz, g.id.c_str(), f_max / 1e6);
        throw usage_error(b);
    }
}

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
void add_merge_command(CLI::App& app, common_options& common);

/// `roofline trace` over several ranks (several files, a folder, or `--summary-out`).
struct cluster_trace_request {
    std::vector<std::string> paths;  ///< files and folders as given
    std::string summary_out, rules_path, power, gpu, visible_devices;
    std::optional<double> power_offset;
    unsigned jobs = 1;
    int gpus_per_node = 0;
    bool json = false;
};
/// Runs it (examples/roofline/merge.cpp): the cluster report, or one rank's summary file.
void run_cluster_trace(const cluster_trace_request& request, common_options& common);

}  // namespace roofline::cli
