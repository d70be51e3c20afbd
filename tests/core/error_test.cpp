// Tests of core/error.hpp: messages name file, place and field, and stay on one line whatever
// the input quoted in them holds (found by fuzzing: a JSON key with a line break in it made the
// CLI print a two-line error).
#include <doctest/doctest.h>

#include <string>

#include "roofline/core/error.hpp"

using namespace roofline;

TEST_CASE("parse_error joins file, place, field and detail") {
    const parse_error e("trace.json", "byte 18422", "dur", "is negative");
    CHECK(std::string(e.what()) == "trace.json: byte 18422: \"dur\": is negative");
    CHECK(e.file() == "trace.json");
    CHECK(e.place() == "byte 18422");
    CHECK(e.field() == "dur");
    CHECK(std::string(parse_error("", "", "", "empty").what()) == "<input>: empty");
}

TEST_CASE("error messages are one line: control characters from the input are escaped") {
    const parse_error e("a.json", "byte 14", "key\nwith\r\tbreaks\x01", "malformed");
    CHECK(std::string(e.what()) == "a.json: byte 14: \"key\\nwith\\r\\tbreaks\\x01\": malformed");
    CHECK(e.field() == "key\nwith\r\tbreaks\x01");  // the pieces keep the raw text
    const usage_error u("--quant \"x\ny\x7f\"");
    CHECK(std::string(u.what()) == "--quant \"x\\ny\\x7f\"");
    // Bytes of UTF-8 text are not control characters.
    CHECK(std::string(usage_error("gemm_\xc3\xa9").what()) == "gemm_\xc3\xa9");
}
