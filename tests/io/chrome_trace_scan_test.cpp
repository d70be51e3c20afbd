// Regression tests of io/detail/chrome_trace_scan.hpp from fuzzing (tests/fuzz/README.md): inputs
// on which the byte-by-byte scan and the 64-byte block scan disagreed, looped or could recurse
// without bound. Both scans must give the same answer on each.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/io_test_support.hpp"
#include "roofline/io/detail/chrome_trace_scan.hpp"

using namespace roofline;
using roofline::test::temp_file;

namespace {

/// "events: a|b|c" or "error: <message>" for the scan of `text` (simd or not).
std::string scan(const std::string& text, bool simd, std::size_t chunk = 64) {
    const temp_file f(text, ".json");
    std::string out = "events:";
    try {
        io::input_file in(f.path(), 16);
        io::detail::chrome_trace_splitter s(in, chunk, simd);
        s.run([](std::string_view, std::string_view, std::uint64_t) {},
              [&](std::string_view t, std::uint64_t, std::size_t) {
                  out += ' ';  // not `" " + std::string(t)`: g++ 12 -O3 warns (-Wrestrict, GCC bug 105329)
                  out += t;
              });
    } catch (const parse_error& e) {
        return std::string("error: ") + e.what();
    }
    return out;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a '}' that closes the traceEvents array is an error in both scans") {
    // The byte-by-byte scan took the '}' for an empty event and handed it over forever (found
    // by fuzz_chrome_trace_scan: out of memory after millions of empty events).
    const std::string text = "{\"traceEvents\":[{\"ph\":\"X\"},}]}";
    for (bool simd : {false, true}) {
        CAPTURE(simd);
        const auto r = scan(text, simd);
        CHECK(has(r, "error: "));
        CHECK(has(r, "byte 27"));
        CHECK(has(r, "'}' closes the traceEvents array"));
    }
}

TEST_CASE("a top-level key without a value is an error") {
    for (const char* text : {"{\"traceEvents\":[], \"a\":}", "{\"a\":,\"traceEvents\":[]}", "{\"a\":]}"}) {
        CAPTURE(text);
        const auto r = scan(text, true);
        CHECK(has(r, "malformed JSON: no value for key \"a\""));
    }
}

TEST_CASE("nesting deeper than 1000 levels is an error, at 1001 and not at 1000") {
    auto event = [](int depth) {
        return "{\"ph\":\"X\",\"args\":{\"Input Dims\":" + std::string(static_cast<std::size_t>(depth - 2), '[') +
               std::string(static_cast<std::size_t>(depth - 2), ']') + "}}";
    };
    for (bool simd : {false, true}) {
        CAPTURE(simd);
        // event(d) nests d levels: the event object, args, then d - 2 arrays.
        CHECK(has(scan("{\"traceEvents\":[" + event(1000) + "]}", simd, 4096), "events: {"));
        const auto deep = scan("{\"traceEvents\":[" + event(1001) + "]}", simd, 4096);
        CHECK(has(deep, "byte 16: malformed JSON: the value starting here nests deeper than 1000 levels (event 0)"));
        // A deep top-level value is caught too.
        const auto top = scan("{\"metadata\":" + std::string(1500, '[') + std::string(1500, ']') + ",\"traceEvents\":[]}", simd);
        CHECK(has(top, "nests deeper than 1000 levels"));
    }
}
