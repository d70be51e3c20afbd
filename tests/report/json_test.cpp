// Tests of report/json.hpp: ceilings as JSON, null for unknown and unsupported.
#include "roofline/report/json.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "roofline/core/catalog.hpp"

using namespace roofline;

TEST_CASE("H200 datasheet ceilings as JSON") {
    const auto j = report::to_json(datasheet_ceilings(gpus::h200_sxm()));
    CHECK(j["origin"] == "datasheet");
    CHECK(j["flops_per_s"]["bf16"].get<double>() == 989e12);
    CHECK(j["flops_per_s"]["fp8"].get<double>() == 1979e12);
    CHECK(j["flops_per_s"]["fp4"].is_null());  // unsupported on Hopper
    CHECK(j["bytes_per_s"]["dram"].get<double>() == 4.8e12);
    CHECK(j["bytes_per_s"]["l2"].is_null());  // not published
    CHECK(j["link"] == "nvlink");
    CHECK(j["link_bytes_per_s"].get<double>() == 450e9);  // 900 GB/s bidirectional / 2
    CHECK(j.dump().find("NaN") == std::string::npos);
}

TEST_CASE("json_number maps non-finite values to null") {
    CHECK(report::json_number(std::nan("")).is_null());
    CHECK(report::json_number(INFINITY).is_null());
    CHECK(report::json_number(0.0) == 0.0);
    CHECK(report::json_rate(0.0).is_null());
}
