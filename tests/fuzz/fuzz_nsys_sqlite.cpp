// Fuzz target: Nsight Systems SQLite exports (io/nsys_sqlite.hpp), read the way `roofline trace`
// reads them (through the trace-file dispatcher too). libsqlite3 answers a corrupt page with an
// error code; what is checked here is our side: every error is a one-line parse_error naming
// the file, and the counts add up. Without SQLite support in the build the reader only refuses.
#include <unistd.h>  // getpid

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/nsys_sqlite.hpp"
#include "roofline/io/trace_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    kernel_rules& rules = fuzz::kernel_rules_for_next_input();
    // libsqlite3 resolves symbolic links before opening, and /proc/self/fd/N of the in-memory
    // file points at "/memfd:... (deleted)": every open failed with "unable to open database
    // file" and the reader was never reached. This target writes a real file instead.
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/roofline_fuzz_nsys_" + std::to_string(::getpid()) + ".sqlite";
    }();
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) std::abort();
        if (size && std::fwrite(data, 1, size, f) != size) std::abort();
        std::fclose(f);
    }
    if (fuzz::inflates_beyond(data, size, path)) return -1;
    fuzz::expect_only_roofline_errors([&] {
        const auto t = read_nsys_sqlite(path, rules);
        fuzz::require(t.stats.events_kept + t.stats.events_skipped <= t.stats.events_read);
        for (const auto& e : t.events) fuzz::require(e.duration_s >= 0);
        (void)summarize(t);
    }, path);
    fuzz::expect_only_roofline_errors([&] { (void)summarize_trace_file(path, rules); }, path);
    return 0;
}
