// Fuzz target: calibration JSON (io/calibration.hpp), applied to a built-in GPU's ceilings.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/io/calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    static const gpu_catalog builtin = gpu_catalog::builtin();
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const auto o = read_calibration(path);
        (void)apply_calibration(datasheet_ceilings(builtin.at("h200-sxm")), o);
    }, path);
    return 0;
}
