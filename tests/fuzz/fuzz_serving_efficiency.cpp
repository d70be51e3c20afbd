// Fuzz target: the serving efficiency table (io/serving_efficiency_json.hpp): a table the reader
// accepts must hold finite coefficients in [0, 1e6], no list of zeros only, and ordered bands.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/serving_efficiency_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        for (const auto& [key, e] : read_serving_efficiency(path)) {
            (void)key;
            double tpot = 0, ttft = 0;
            for (double v : e.tpot) fuzz::require(v >= 0 && v <= max_efficiency_coefficient), tpot += v;
            for (double v : e.ttft) fuzz::require(v >= 0 && v <= max_efficiency_coefficient), ttft += v;
            fuzz::require(tpot > 0 && ttft > 0);
            for (const auto& b : {e.ttft_band, e.tpot_band})
                if (b) fuzz::require(b->p10 > 0 && b->p10 <= b->p50 && b->p50 <= b->p90 && b->p90 <= max_heldout_ratio && b->runs >= 1);
        }
    }, path);
    return 0;
}
