// Tests of io/detail/text.hpp helpers added for hardening: integer conversion of numbers read
// from files (NaN and out-of-range values are undefined behaviour in a plain cast) and UTF-8
// repair of names read from CSV files (JSON output must be UTF-8).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "roofline/io/detail/text.hpp"

using namespace roofline::io::detail;

TEST_CASE("to_int_or truncates numbers in range and refuses the rest") {
    CHECK(to_int_or<int>(12.9, -1) == 12);
    CHECK(to_int_or<int>(-12.9, 0) == -12);
    CHECK(to_int_or<int>(2147483647.0, -1) == 2147483647);
    CHECK(to_int_or<int>(2147483648.0, -1) == -1);
    CHECK(to_int_or<int>(-2147483648.0, 0) == -2147483647 - 1);
    CHECK(to_int_or<int>(-2147483649.0, 0) == 0);
    CHECK(to_int_or<std::int64_t>(1e300, -1) == -1);
    CHECK(to_int_or<std::int64_t>(-1e300, -1) == -1);
    CHECK(to_int_or<std::int64_t>(9.2e18, -1) == static_cast<std::int64_t>(9.2e18));
    CHECK(to_int_or<std::int64_t>(9223372036854775808.0, -1) == -1);  // 2^63
    CHECK(to_int_or<std::int64_t>(std::nan(""), -1) == -1);
    CHECK(to_int_or<std::int64_t>(std::numeric_limits<double>::infinity(), -1) == -1);
    CHECK(to_int_or<std::uint32_t>(4294967295.0, 0) == 4294967295u);
    CHECK(to_int_or<std::uint32_t>(4294967296.0, 7) == 7);  // 2^32, "GrdZ" in a fuzzed nsys row
    CHECK(to_int_or<std::uint32_t>(-5.0, 7) == 7);
}

TEST_CASE("is_utf8 accepts well-formed UTF-8 only") {
    CHECK(is_utf8("plain ascii"));
    CHECK(is_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é, €, an emoji
    CHECK_FALSE(is_utf8("\xff"));
    CHECK_FALSE(is_utf8("\xc3"));          // truncated
    CHECK_FALSE(is_utf8("\xc0\xaf"));      // overlong '/'
    CHECK_FALSE(is_utf8("\xed\xa0\x80"));  // a UTF-16 surrogate
    CHECK_FALSE(is_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST_CASE("valid_utf8 replaces each bad byte by U+FFFD and keeps the rest") {
    CHECK(valid_utf8("gemm_kernel") == "gemm_kernel");
    CHECK(valid_utf8("gemm_\xff\xfe\xc3_kernel") == "gemm_\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd_kernel");
    CHECK(valid_utf8("caf\xc3\xa9\xff") == "caf\xc3\xa9\xef\xbf\xbd");
    CHECK(is_utf8(valid_utf8("\xe2\x82")));
}
