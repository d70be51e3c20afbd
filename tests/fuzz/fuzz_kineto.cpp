// Fuzz target: Kineto / PyTorch profiler traces (io/kineto.hpp). Runs the full reader with the
// default event parser (simdjson when built with it), the same build on the nlohmann/json
// parser, and the streaming summary; when both full reads succeed on a trace without duplicate
// keys they must agree on what was read, kept and skipped. (With a key given twice, nlohmann
// keeps the last value while the simdjson path stops reading an event at a `cat` of no
// interest, so `{"cat":"python_function","cat":"kernel"}` is dropped by one and kept by the
// other; real traces never repeat a key.)
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/trace/summary.hpp"

namespace {

/// True when some object in the JSON text has a key twice (false for invalid JSON).
bool has_duplicate_keys(const std::uint8_t* data, std::size_t size) {
    struct handler : nlohmann::json_sax<nlohmann::json> {
        std::vector<std::set<std::string>> keys;
        bool duplicate = false;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t&) override { return true; }
        bool string(string_t&) override { return true; }
        bool binary(binary_t&) override { return true; }
        bool start_object(std::size_t) override {
            keys.emplace_back();
            return true;
        }
        bool key(string_t& k) override {
            duplicate = duplicate || !keys.back().insert(k).second;
            return !duplicate;
        }
        bool end_object() override {
            keys.pop_back();
            return true;
        }
        bool start_array(std::size_t) override { return true; }
        bool end_array() override { return true; }
        bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
    } h;
    nlohmann::json::sax_parse(data, data + size, &h, nlohmann::json::input_format_t::json, false);
    return h.duplicate;
}

roofline::kernel_trace read_with_nlohmann(const std::string& path, const roofline::kernel_rules& rules) {
    roofline::kernel_trace t;
    t.file = path;
    t.format = "kineto";
    roofline::io::detail::kineto_builder b(t, rules, true);
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
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    const kernel_rules& r = fuzz::kernel_rules_for_next_input();
    kineto_options o;
    o.rules = &r;
    kernel_trace fast, portable;
    const bool fast_ok = fuzz::expect_only_roofline_errors([&] { fast = read_kineto(path, o); }, path);
    const bool portable_ok = fuzz::expect_only_roofline_errors([&] { portable = read_with_nlohmann(path, r); }, path);
    if (fast_ok) {
        // The counting convention of trace/read_stats.hpp.
        fuzz::require(fast.stats.events_kept + fast.stats.events_skipped <= fast.stats.events_read);
        fuzz::require(fast.stats.events_kept == fast.events.size());
        (void)summarize(fast);
    }
    if (fast_ok && portable_ok && !has_duplicate_keys(data, size)) {
        fuzz::require(fast.stats.events_read == portable.stats.events_read);
        fuzz::require(fast.stats.events_kept == portable.stats.events_kept);
        fuzz::require(fast.stats.skipped_by_reason == portable.stats.skipped_by_reason);
    }
    fuzz::expect_only_roofline_errors([&] { (void)summarize_kineto(path, r); }, path);
    return 0;
}
