// Fuzz target: nvidia-smi dmon output (io/nvidia_smi.hpp).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/nvidia_smi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const auto log = read_nvidia_smi_dmon(path);
        fuzz::require(log.stats.events_kept == log.samples.size());
        fuzz::require(log.stats.events_kept + log.stats.events_skipped <= log.stats.events_read);
    }, path);
    return 0;
}
