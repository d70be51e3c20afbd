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
    kernel_rules& rules = fuzz::kernel_rules_for_next_input();
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
