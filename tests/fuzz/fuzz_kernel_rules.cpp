// Fuzz target: kernel-name rule files given with --rules (io/kernel_rules_json.hpp), used to
// classify a few real kernel names.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const auto rules = read_kernel_rules(path);
        for (const char* name : {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTT",
                                 "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"})
            (void)rules.classify(name);
    }, path);
    return 0;
}
