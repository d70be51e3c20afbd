// The `roofline` program: one CLI11 application with every subcommand (program.hpp).

#include "program.hpp"

#include <cstdio>
#include <exception>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>  // mallopt
#endif

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/version.hpp"

namespace roofline::cli {

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
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
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
                why = "unknown command \"" + word + "\" (" + (cur == &app ? "commands" : cur->get_name() + " takes") +
                      ": " + names + ")";
                break;
            }
            cur = next;
        }
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
