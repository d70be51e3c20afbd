// Fuzz target: GPU JSON overlays (io/gpu_json.hpp) applied to the built-in catalog, then the
// export and the ceilings every command derives from a GPU.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/io/gpu_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    static const gpu_catalog builtin = gpu_catalog::builtin();
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        gpu_catalog c = builtin;
        load_gpu_overlay(c, path);
        for (const auto& g : c.all()) {
            (void)datasheet_ceilings(g);
            (void)to_json(g).dump();
        }
    }, path);
    return 0;
}
