// Fuzz target: Kineto / PyTorch profiler traces (io/kineto.hpp). Runs the full reader with the
// default event parser (simdjson when built with it), the same build on the nlohmann/json
// parser, and the streaming summary; when both full reads succeed they must agree on what was
// read, kept and skipped.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/trace/summary.hpp"

namespace {

const roofline::kernel_rules& rules() {
    static const roofline::kernel_rules r = roofline::load_kernel_rules();
    return r;
}

roofline::kernel_trace read_with_nlohmann(const std::string& path) {
    roofline::kernel_trace t;
    t.file = path;
    t.format = "kineto";
    roofline::io::detail::kineto_builder b(t, rules(), true);
    roofline::io::detail::scan_chrome_trace<roofline::io::detail::nlohmann_event_parser>(
        path, [&](std::string_view key, std::string_view json, std::uint64_t off) { b.top_level(key, json, off); },
        [&](const roofline::io::detail::chrome_event& e, std::uint64_t off, std::size_t i) { b.event(e, off, i); },
        &roofline::io::detail::kineto_used_category);
    b.finish();
    return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const auto& path = fuzz::input_file_for(data, size).path();
    kineto_options o;
    o.rules = &rules();
    kernel_trace fast, portable;
    const bool fast_ok = fuzz::expect_only_roofline_errors([&] { fast = read_kineto(path, o); }, path);
    const bool portable_ok = fuzz::expect_only_roofline_errors([&] { portable = read_with_nlohmann(path); }, path);
    if (fast_ok) {
        // The counting convention of trace/read_stats.hpp.
        fuzz::require(fast.stats.events_kept + fast.stats.events_skipped <= fast.stats.events_read);
        fuzz::require(fast.stats.events_kept == fast.events.size());
        (void)summarize(fast);
    }
    if (fast_ok && portable_ok) {
        fuzz::require(fast.stats.events_read == portable.stats.events_read);
        fuzz::require(fast.stats.events_kept == portable.stats.events_kept);
        fuzz::require(fast.stats.skipped_by_reason == portable.stats.skipped_by_reason);
    }
    fuzz::expect_only_roofline_errors([&] { (void)summarize_kineto(path, rules()); }, path);
    return 0;
}
