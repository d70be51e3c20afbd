// Fuzz target: nvidia-smi --query-gpu CSV logs (io/nvidia_smi.hpp), with and without a header,
// and the power summary the analysis computes from them.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/io/nvidia_smi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    auto check = [&](const power_log& log) {
        fuzz::require(log.stats.events_kept == log.samples.size());
        fuzz::require(log.stats.events_kept + log.stats.events_skipped <= log.stats.events_read);
        (void)summarize_power(log.samples, nullptr);
    };
    fuzz::expect_only_roofline_errors([&] { check(read_nvidia_smi_csv(path)); }, path);
    nvidia_smi_options o;
    o.query_fields = "timestamp,index,name,power.draw,power.limit,clocks.sm,clocks.max.sm,utilization.gpu,"
                     "clocks_event_reasons.active";
    fuzz::expect_only_roofline_errors([&] { check(read_nvidia_smi_csv(path, o)); }, path);
    return 0;
}
