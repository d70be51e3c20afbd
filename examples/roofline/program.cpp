// The `roofline` program: one CLI11 application with every subcommand (program.hpp).

#include "program.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>  // mallopt
#endif

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/version.hpp"

namespace roofline::cli {

namespace {

/// Lower-case letters and digits of `s` ("--KV_len" -> "kvlen").
std::string folded(std::string_view s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// Levenshtein distance of two short words.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

/// The first `--word` of argv that neither `cmd` nor a command above it knows, as "unknown
/// option "--kvlen" (did you mean --kv-len?)"; "" when every option is known.
std::string unknown_option(const CLI::App* cmd, int argc, const char* const* argv) {
    std::vector<std::string> known;
    for (const CLI::App* a = cmd; a != nullptr; a = a->get_parent())
        for (const CLI::Option* o : a->get_options())
            for (const auto& n : o->get_lnames()) known.push_back(n);
    for (int i = 1; i < argc; ++i) {
        std::string word = argv[i];
        if (word.rfind("--", 0) != 0 || word.size() < 3) continue;
        std::string name = word.substr(2, word.find('=') == std::string::npos ? std::string::npos : word.find('=') - 2);
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        std::string best;
        std::size_t best_d = 3;  // suggest within two edits of the letters
        for (const auto& k : known) {
            const std::size_t d = edit_distance(folded(name), folded(k));
            if (d < best_d) best_d = d, best = k;
        }
        return "unknown option \"--" + name + "\"" + (best.empty() ? std::string() : " (did you mean --" + best + "?)");
    }
    return {};
}

}  // namespace

std::string parse_error_message(CLI::App& app, const CLI::ParseError& e, int argc, const char* const* argv) {
    // Bad usage: one line, like every other input error. A word that is no command where a
    // command is expected ("roofline analyse", "kernel matmul") is named, with the commands.
    std::string why = e.what();
    CLI::App* cur = &app;
    for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
        const std::string word = argv[i];
        CLI::App* next = nullptr;
        std::string names;
        for (CLI::App* sub : cur->get_subcommands([](CLI::App*) { return true; })) {
            names += (names.empty() ? "" : ", ") + sub->get_name();
            if (sub->get_name() == word) next = sub;
        }
        if (names.empty()) break;  // a command that takes files and values, not commands
        if (!next) {
            return "unknown command \"" + word + "\" (" + (cur == &app ? "commands" : cur->get_name() + " takes") +
                   ": " + names + ")";
        }
        cur = next;
    }
    // A mistyped option ("--kvlen" for "--kv-len"): reported by CLI11 as the required option
    // missing, or as arguments not expected; name the word the command does not know, and the
    // option it resembles.
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr || dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr)
        if (std::string unknown = unknown_option(cur, argc, argv); !unknown.empty()) why = unknown;
    return why;
}

/// Every option of `app` and its subcommands whose value CLI11 converts to a number (type
/// FLOAT, INT or UINT, one value or a list) refuses a hexadecimal value (`decimal_only`); file
/// names and other text stay as given (a file named "0x1f" is a file).
static void refuse_hex_numbers(CLI::App& app) {
    for (CLI::Option* opt : app.get_options()) {
        // The type's name without its validators' descriptions ("INT:INT in [1 - 4096]": INT).
        const std::string full = opt->get_type_name(), type = full.substr(0, full.find(':'));
        if (type.find("FLOAT") != std::string::npos || type.find("INT") != std::string::npos) opt->check(decimal_only);
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_hex_numbers(*sub);
}

int run_program(int argc, char** argv) {
#if defined(__GLIBC__)
    // The program's heap, not the library's: glibc gives blocks over 128 KB (the trace reader's
    // batches, growing per-kernel vectors) their own mappings and returns freed heap tops to the
    // system, so each new block is fresh pages, each page a fault; on a paravirtualised VM the
    // faults were 16% of `roofline trace`'s samples (perf). Blocks under 64 MiB from the heap, and
    // freed memory kept for reuse: 0.405 -> 0.345 s median on the 117 MB trace, 12,900 -> 8,600
    // minor faults, peak RSS 32 -> 41 MB (README, "Trace ingest").
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    CLI::App app{"roofline: what is holding a GPU inference workload back (compute, memory, power, "
                 "communication or latency)"};
    app.require_subcommand(1);
    // "roofline 0.1.0 (simdjson on, sqlite on, gzip zlib)": the version and the optional fast paths.
    app.set_version_flag("--version", roofline::version_line(), "Print the version and the optional fast paths built in");
    common_options common;
    add_all_commands(app, common);
    refuse_hex_numbers(app);
    try {
        app.parse(argc, argv);
        // Output that could not be written (a full disk, a closed pipe) is an error, not exit 0.
        std::cout.flush();
        if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
            throw roofline::usage_error("writing the output failed (disk full or pipe closed?)");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        const std::string why = parse_error_message(app, e, argc, argv);
        std::fprintf(stderr, "roofline: error: %s (see --help)\n", why.c_str());
        return 2;
    } catch (const roofline::error& e) {
        std::fprintf(stderr, "roofline: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "roofline: internal error: %s\n", e.what());
        return 1;
    }
    return 0;
}

}  // namespace roofline::cli
