// Tests of report/csv.hpp: RFC 4180 quoting, numbers in SI units, unknowns empty.
#include "roofline/report/csv.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

using namespace roofline::report;

TEST_CASE("fields are quoted exactly when RFC 4180 requires it") {
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("") == "");
    CHECK(csv_field("a,b") == "\"a,b\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("line\nbreak") == "\"line\nbreak\"");
    CHECK(csv_field("cr\rhere") == "\"cr\rhere\"");
    CHECK(csv_field(" padded") == "\" padded\"");
    CHECK(csv_field("gemm<float>") == "gemm<float>");
}

TEST_CASE("records end with CRLF, numbers are SI and round-trip, unknown is an empty field") {
    std::ostringstream s;
    csv_writer w(s);
    w.row({"kernel", "time_s"});
    w.record("gemm<float, 128>", 3, 4.8e12, 0.125, std::nan(""), true);
    CHECK(s.str() == "kernel,time_s\r\n\"gemm<float, 128>\",3,4800000000000,0.125,,1\r\n");
    CHECK(csv_number(1e-7) == "1e-07");
    CHECK(std::stod(csv_number(0.1 + 0.2)) == 0.1 + 0.2);  // shortest text that reads back exactly
}

TEST_CASE("LF line endings on request") {
    std::ostringstream s;
    csv_writer w(s, false);
    w.record("a", 1);
    CHECK(s.str() == "a,1\n");
}
