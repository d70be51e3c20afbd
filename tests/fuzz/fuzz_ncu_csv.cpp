// Fuzz target: Nsight Compute CSV, raw and details pages (io/ncu_csv.hpp).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/ncu_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const auto r = read_ncu_csv(path);
        fuzz::require(r.stats.events_kept + r.stats.events_skipped <= r.stats.events_read);
    }, path);
    return 0;
}
