// Fuzz target: Nsight Systems `nsys stats` CSV reports (io/nsys_csv.hpp) and the trace-file
// dispatcher of `roofline trace` (io/trace_file.hpp).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/trace_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    // The per-name cache is kept across inputs (regex classification dominates the run time)
    // and emptied every 1000 inputs so that it does not grow without bound.
    static const kernel_rules builtin = load_kernel_rules();
    static kernel_rules rules = builtin;
    static unsigned n = 0;
    if (++n % 1000 == 0) rules = builtin;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] { (void)detect_nsys_report(path); }, path);
    fuzz::expect_only_roofline_errors([&] {
        const auto s = read_nsys_kern_sum(path, rules);
        fuzz::require(s.stats.events_kept + s.stats.events_skipped <= s.stats.events_read);
    }, path);
    fuzz::expect_only_roofline_errors([&] {
        const auto t = read_nsys_gpu_trace(path, rules);
        fuzz::require(t.stats.events_kept == t.events.size());
        fuzz::require(t.stats.events_kept + t.stats.events_skipped <= t.stats.events_read);
        (void)summarize(t);
    }, path);
    fuzz::expect_only_roofline_errors([&] { (void)summarize_trace_file(path, rules); }, path);
    return 0;
}
