// Tests of core/dtype.hpp: storage bits including block scales, names, parsing.
#include <doctest/doctest.h>

#include "roofline/core/dtype.hpp"

using namespace roofline;

// Compile-time facts: the tables are constexpr.
static_assert(traits(dtype::nvfp4).bits_per_element() == 4.5);   // 4 + 8/16
static_assert(traits(dtype::mxfp4).bits_per_element() == 4.25);  // 4 + 8/32
static_assert(traits(dtype::mxfp8).bits_per_element() == 8.25);  // 8 + 8/32
static_assert(bytes_per_element(dtype::bf16) == 2.0);
static_assert(peak_of(dtype::tf32) == peak_key::tf32);
static_assert(peak_of(dtype::nvfp4) == peak_key::fp4);

TEST_CASE("every dtype's table row is at its own index") {
    for (std::size_t i = 0; i < dtype_count; ++i) CHECK(static_cast<std::size_t>(dtype_table[i].id) == i);
}

TEST_CASE("dtype names parse, case-insensitively, with the aliases seen in traces") {
    CHECK(parse_dtype("NVFP4") == dtype::nvfp4);
    CHECK(parse_dtype("fp4") == dtype::nvfp4);
    CHECK(parse_dtype("c10::BFloat16") == dtype::bf16);
    CHECK(parse_dtype("float8_e4m3fn") == dtype::fp8_e4m3);
    CHECK(parse_dtype("fp8") == dtype::fp8_e4m3);
    CHECK_FALSE(parse_dtype("fp3").has_value());
    CHECK_THROWS_WITH_AS(parse_dtype_or_throw("fp3"), doctest::Contains("unknown dtype \"fp3\""), usage_error);
    for (const auto& t : dtype_table) CHECK(parse_dtype(t.name) == t.id);
}
