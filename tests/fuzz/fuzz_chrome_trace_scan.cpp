// Fuzz target: the top-level splitter of Chrome traces (io/detail/chrome_trace_scan.hpp). On any
// input neither scan may crash, hang or leak; on valid JSON the 64-byte SIMD block scan and the
// byte-by-byte scan must cut the input into the same slices (or both reject it, e.g. for
// nesting too deep). On malformed JSON they may cut differently (garbage between events is
// split at commas by one and at blanks by the other): the event parser rejects such slices
// either way. Small buffers make every refill path run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "roofline/io/detail/chrome_trace_scan.hpp"

namespace {

struct cut {
    std::vector<std::pair<std::uint64_t, std::string>> events, tops;
    bool ok = false;
};

cut split(const std::string& path, std::size_t chunk, bool simd) {
    cut c;
    c.ok = roofline::fuzz::expect_only_roofline_errors(
        [&] {
            roofline::io::input_file in(path, 256);
            roofline::io::detail::chrome_trace_splitter s(in, chunk, simd);
            s.run([&](std::string_view key, std::string_view json, std::uint64_t off) {
                      c.tops.emplace_back(off, std::string(key) + "=" + std::string(json));
                  },
                  [&](std::string_view json, std::uint64_t off, std::size_t) { c.events.emplace_back(off, std::string(json)); });
        },
        path);
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string* input = roofline::fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    const std::size_t chunk = 64 + (size % 3) * 100;
    const cut scalar = split(path, chunk, false);
    const cut simd = split(path, chunk, true);
    if (!nlohmann::json::accept(data, data + size)) return 0;
    roofline::fuzz::require(scalar.ok == simd.ok);
    if (scalar.ok) {
        roofline::fuzz::require(scalar.tops == simd.tops);
        roofline::fuzz::require(scalar.events == simd.events);
    }
    return 0;
}
