// Fuzz target: SGLang / vLLM / InferenceX benchmark results (io/bench_json.hpp), lenient and
// strict.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/bench_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const auto r = read_bench_results(path);
        fuzz::require(r.stats.events_kept == r.runs.size());
        fuzz::require(r.stats.events_kept + r.stats.events_skipped == r.stats.events_read);
    }, path);
    fuzz::expect_only_roofline_errors([&] { (void)read_bench(path); }, path);
    return 0;
}
