// Fuzz target: the nccl-tests JSON report (io/nccl_tests.hpp).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/nccl_tests.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const auto s = read_nccl_tests_json(path);
        fuzz::require(s.stats.events_kept == s.points.size());
        fuzz::require(s.stats.events_kept + s.stats.events_skipped <= s.stats.events_read);
    }, path);
    return 0;
}
