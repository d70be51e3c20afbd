// Fuzz target: our own measurement files (io/measurements.hpp): format detection, then every
// reader on the same bytes (each must either read them or throw a one-line roofline::error).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/measurements.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] { (void)detect_measurement_format(path); }, path);
    fuzz::expect_only_roofline_errors([&] { (void)read_kernel_sweep(path); }, path);
    fuzz::expect_only_roofline_errors([&] { (void)read_ceilings_report(path); }, path);
    fuzz::expect_only_roofline_errors([&] { (void)read_allreduce_sweep(path); }, path);
    fuzz::expect_only_roofline_errors([&] { (void)read_power_phases(path); }, path);
    return 0;
}
