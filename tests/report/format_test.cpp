// Tests of report/format.hpp: human units, three significant digits, exact strings.
#include "roofline/report/format.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace roofline::report;

TEST_CASE(
    "durations print with three significant digits and the prefix that keeps them between 1 and "
    "1000") {
    CHECK(format_seconds(12.3e-6) == "12.3 us");
    CHECK(format_seconds(4.56e-3) == "4.56 ms");
    CHECK(format_seconds(850e-9) == "850 ns");
    CHECK(format_seconds(1.2) == "1.20 s");
    CHECK(format_seconds(4520.4) == "4520 s");  // no prefix above seconds
    CHECK(format_seconds(0.0) == "0 s");
    CHECK(format_seconds(-3e-3) == "-3.00 ms");
    // 999.7 us rounds to 1000 us at three digits, which is 1.00 ms: the prefix follows the
    // rounding.
    CHECK(format_seconds(999.7e-6) == "1.00 ms");
    CHECK(format_seconds(0.5e-9) == "0.500 ns");
}

TEST_CASE("sizes, rates, bandwidths and power use decimal prefixes as datasheets do") {
    CHECK(format_bytes(1.23e9) == "1.23 GB");
    CHECK(format_bytes(141e9) == "141 GB");
    CHECK(format_bytes(512) == "512 B");
    CHECK(format_flops_per_s(989e12) == "989 TFLOP/s");    // H100/H200 dense bf16
    CHECK(format_flops_per_s(1979e12) == "1.98 PFLOP/s");  // dense fp8
    CHECK(format_flops_per_s(67e12) == "67.0 TFLOP/s");
    CHECK(format_bytes_per_s(4.8e12) == "4.80 TB/s");
    CHECK(format_bytes_per_s(3.35e12) == "3.35 TB/s");
    CHECK(format_bytes_per_s(64e9) == "64.0 GB/s");
    CHECK(format_watts(700) == "700 W");
    CHECK(format_watts(1200) == "1.20 kW");
    CHECK(format_mhz(1.41e9) == "1410 MHz");
    // Axis ticks drop trailing zeros.
    CHECK(format_si(1e15, "FLOP/s", 3, true) == "1 PFLOP/s");
    CHECK(format_si(1e11, "FLOP/s", 3, true) == "100 GFLOP/s");
    CHECK(format_si(2.5e12, "B/s", 3, true) == "2.5 TB/s");
}

TEST_CASE("binary sizes for what the hardware sizes in powers of two") {
    CHECK(format_bytes_binary(50.0 * 1024 * 1024) == "50.0 MiB");  // H100/H200 L2
    CHECK(format_bytes_binary(232448) == "227 KiB");  // 227 x 1024: SM90 opt-in smem per block
    CHECK(format_bytes_binary(100) == "100 B");
    // At a binary boundary the prefix follows the value, not its 3-digit rounding (1024 -> 1020).
    CHECK(format_bytes_binary(1024) == "1.00 KiB");
    CHECK(format_bytes_binary(1024.0 * 1024 * 1024) == "1.00 GiB");
    CHECK(format_bytes_binary(1023) == "1020 B");
}

TEST_CASE("percentages, plain numbers, intensities and counts") {
    CHECK(format_percent(0.452) == "45.2%");
    CHECK(format_percent(1.0) == "100.0%");
    CHECK(format_percent(0.00049, 2) == "0.05%");
    CHECK(format_significant(206.0417) == "206");  // 989e12 / 4.8e12
    CHECK(format_significant(0.125) == "0.125");
    CHECK(format_significant(4.8) == "4.80");
    CHECK(format_significant(12345.6) == "12346");  // whole numbers are never cut to 12300
    CHECK(format_significant(999.96) == "1000");
    CHECK(format_flop_per_byte(206.0417) == "206 FLOP/B");
    CHECK(format_flop_per_byte(7.0833) == "7.08 FLOP/B");  // 34e12 / 4.8e12
    CHECK(format_count(3740) == "3,740");
    CHECK(format_count(1234567) == "1,234,567");
    CHECK(format_count(999) == "999");
    CHECK(format_count(-1234) == "-1,234");
    CHECK(format_count(0) == "0");
}

TEST_CASE("a value that is not a finite number prints as n/a, never as a number") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(format_seconds(nan) == "n/a");
    CHECK(format_flops_per_s(inf) == "n/a");
    CHECK(format_bytes(-inf) == "n/a");
    CHECK(format_percent(nan) == "n/a");
    CHECK(format_significant(nan) == "n/a");
    CHECK(format_flop_per_byte(inf) == "n/a");
    CHECK(format_count(nan) == "n/a");
    CHECK(format_mhz(nan) == "n/a");
}
