// Tests of io/calibration.hpp: reading ceiling overrides and applying them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "roofline/core/catalog.hpp"
#include "roofline/io/calibration.hpp"

using namespace roofline;

namespace {
std::string temp_json(const std::string& stem, const std::string& text) {
    const auto p = std::filesystem::temp_directory_path() / ("roofline_cal_" + stem + ".json");
    std::ofstream(p) << text;
    return p.string();
}
}  // namespace

TEST_CASE("calibration overrides named ceilings by dtype or rate-class name and keeps the rest") {
    const auto p = temp_json("ok", R"({"ceilings": {"bf16": 7.9e14, "float8_e4m3fn": 1.45e15,
        "dram_bytes_per_s": 4.3e12, "link_bytes_per_s": 3.6e11, "launch_latency_s": 4e-6}})");
    const auto o = read_calibration(p);
    CHECK(o.overrides_flops(peak_key::bf16));
    CHECK(o.overrides_flops(peak_key::fp8));  // a dtype spelling maps to its rate class
    CHECK_FALSE(o.overrides_flops(peak_key::fp16));
    const auto c = apply_calibration(datasheet_ceilings(gpus::h200_sxm()), o);
    CHECK(c.flops_at(peak_key::bf16) == 7.9e14);
    CHECK(c.flops_at(peak_key::fp8) == 1.45e15);
    CHECK(c.flops_at(peak_key::fp16) == 989e12);
    CHECK(c.bytes_at(memory_level::dram) == 4.3e12);
    CHECK(c.link_bytes_per_s == 3.6e11);
    CHECK(c.launch_latency_s == 4e-6);
    CHECK(c.origin.find(p) != std::string::npos);
}

TEST_CASE("bad calibration files name the file and the key") {
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("neg", R"({"ceilings": {"bf16": -1}})")),
                         doctest::Contains("\"bf16\""), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("str", R"({"ceilings": {"dram_bytes_per_s": "4 TB/s"}})")),
                         doctest::Contains("expected a number"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("key", R"({"ceilings": {"hbm": 1}})")),
                         doctest::Contains("unknown key"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("bad", R"({"ceilings": )")), doctest::Contains("byte"), parse_error);
    CHECK_THROWS_AS(read_calibration("/nonexistent/cal.json"), parse_error);
    // No "ceilings": nothing overridden.
    CHECK_FALSE(read_calibration(temp_json("empty", R"({"gpu": "h200-sxm"})")).dram_bytes_per_s.has_value());
}
