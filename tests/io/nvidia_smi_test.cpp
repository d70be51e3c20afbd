// Tests of io/nvidia_smi.hpp on the H200 sweep log recorded for this project and on small
// logs written here for each variant of the format.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "io/io_test_support.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("the H200 sweep log reads whole and shows the 700 W power-cap window") {
    const auto p = test::shared_sample("h200/h200_sweep_nvidia_smi.csv.gz");
    if (!test::have_sample(p)) return;
    const auto log = read_nvidia_smi_csv(p.string());
    // 283 lines = 1 header + 282 rows (counted with zcat | wc -l), all well formed.
    CHECK(log.stats.events_read == 282);
    CHECK(log.stats.events_kept == 282);
    CHECK(log.stats.events_skipped == 0);
    REQUIRE(log.samples.size() == 282);
    REQUIRE(log.gpu_names.size() == 1);
    CHECK(log.gpu_names[0] == "NVIDIA H200");

    const auto& first = log.samples.front();
    // "2026/11/30 03:25:21.923" as if UTC = 1796009121.923 s (python calendar.timegm).
    CHECK(first.wall_time_s == approx(1796009121.923).epsilon(1e-12));
    CHECK(first.gpu_index == 0);
    CHECK(first.power_draw_w == approx(80.46));
    CHECK(first.power_limit_w == approx(700.0));
    CHECK(first.sm_clock_hz == approx(345e6));
    CHECK(first.max_sm_clock_hz == approx(1980e6));
    CHECK(first.mem_clock_hz == approx(3201e6));
    CHECK(first.utilization_gpu == 0.0);
    CHECK(first.temperature_c == 36.0);
    CHECK(first.gpu_idle());
    CHECK_FALSE(first.sw_power_cap());

    // Counted with python csv on the same file: 103 rows carry bit 0x4 (SwPowerCap) (the
    // per-reason column says Active on the same 103); 54 rows are idle (0x1).
    std::size_t capped = 0, idle = 0;
    for (const auto& s : log.samples) {
        capped += s.sw_power_cap();
        idle += s.gpu_idle();
    }
    CHECK(capped == 103);
    CHECK(idle == 54);

    // The sustained GEMM: 69 samples at >= 685 W, every one with SwPowerCap, SM clock between
    // 1380 and 1485 MHz (mean 1447.2) of the 1980 MHz maximum.
    std::size_t at_cap = 0;
    double clock_min = 1e12, clock_max = 0, clock_sum = 0;
    for (const auto& s : log.samples) {
        if (s.power_draw_w < 685.0) continue;
        ++at_cap;
        CHECK(s.sw_power_cap());
        CHECK(s.power_fraction() > 0.97);
        clock_min = std::min(clock_min, s.sm_clock_hz);
        clock_max = std::max(clock_max, s.sm_clock_hz);
        clock_sum += s.sm_clock_hz;
    }
    CHECK(at_cap == 69);
    CHECK(clock_min == approx(1380e6));
    CHECK(clock_max == approx(1485e6));
    CHECK(clock_sum / static_cast<double>(at_cap) == approx(1447.1739e6).epsilon(1e-6));
}

TEST_CASE("nvidia-smi CSV variants: units, nounits, N/A, per-reason columns, old names, GPUs") {
    SUBCASE("units inside cells, [N/A] and [Not Supported] give NaN") {
        const temp_file f(
            "timestamp, index, name, power.draw [W], power.limit [W], clocks.current.sm [MHz], "
            "utilization.gpu [%], temperature.gpu\n"
            "2025/01/02 10:00:00.500, 0, NVIDIA GB10, 31.20 W, [N/A], 2418 MHz, 87 %, 45\n"
            "2025/01/02 10:00:01.500, 0, NVIDIA GB10, [Not Supported], N/A, 2418 MHz, 90 %, 46\n",
            ".csv");
        const auto log = read_nvidia_smi_csv(f.path());
        REQUIRE(log.samples.size() == 2);
        CHECK(log.samples[0].power_draw_w == approx(31.2));
        CHECK(std::isnan(log.samples[0].power_limit_w));
        CHECK(std::isnan(log.samples[1].power_draw_w));
        CHECK(log.samples[0].utilization_gpu == approx(0.87));
        CHECK(log.samples[1].wall_time_s - log.samples[0].wall_time_s == approx(1.0));
        CHECK_FALSE(log.samples[0].clocks_event_reasons.has_value());
        CHECK(std::isnan(log.samples[0].max_sm_clock_hz));
    }
    SUBCASE("nounits: the header's unit applies; enforced limit wins over power.limit") {
        const temp_file f(
            "index, power.draw [W], power.limit [W], enforced.power.limit [W], clocks.sm [MHz]\n"
            "0, 450.5, 700.00, 600.00, 1755\n",
            ".csv");
        const auto log = read_nvidia_smi_csv(f.path());
        REQUIRE(log.samples.size() == 1);
        CHECK(log.samples[0].power_limit_w == 600.0);
        CHECK(log.samples[0].sm_clock_hz == 1755e6);
        CHECK(std::isnan(log.samples[0].wall_time_s));
    }
    SUBCASE("per-reason Active/Not Active columns with the old throttle names build the mask") {
        const temp_file f(
            "index, clocks_throttle_reasons.sw_power_cap, clocks_throttle_reasons.hw_slowdown, "
            "clocks_throttle_reasons.sw_thermal_slowdown, clocks_throttle_reasons.gpu_idle\n"
            "0, Active, Not Active, Active, Not Active\n"
            "0, Not Active, Not Active, Not Active, Not Active\n"
            "0, [N/A], [N/A], [N/A], [N/A]\n",
            ".csv");
        const auto log = read_nvidia_smi_csv(f.path());
        REQUIRE(log.samples.size() == 3);
        // 0x4 (SwPowerCap) | 0x20 (SwThermalSlowdown) = 0x24
        CHECK(log.samples[0].clocks_event_reasons == std::optional<std::uint64_t>(0x24));
        CHECK(log.samples[0].sw_power_cap());
        CHECK(log.samples[0].sw_thermal_slowdown());
        CHECK_FALSE(log.samples[0].hw_slowdown());
        CHECK(log.samples[1].clocks_event_reasons == std::optional<std::uint64_t>(0));
        CHECK_FALSE(log.samples[2].clocks_event_reasons.has_value());
    }
    SUBCASE("the hex .active mask wins over per-reason columns") {
        const temp_file f(
            "index, clocks_event_reasons.active, clocks_event_reasons.sw_power_cap\n"
            "0, 0x0000000000000088, Not Active\n",
            ".csv");
        const auto log = read_nvidia_smi_csv(f.path());
        REQUIRE(log.samples.size() == 1);
        CHECK(log.samples[0].hw_slowdown());             // 0x8
        CHECK(log.samples[0].hw_power_brake_slowdown()); // 0x80
        CHECK_FALSE(log.samples[0].sw_power_cap());
    }
    SUBCASE("several GPUs interleave; names are kept per index") {
        const temp_file f(
            "timestamp, index, name, power.draw [W]\n"
            "2025/01/02 10:00:00.000, 0, NVIDIA H100 80GB HBM3, 100.00 W\n"
            "2025/01/02 10:00:00.000, 1, NVIDIA H100 80GB HBM3, 200.00 W\n"
            "2025/01/02 10:00:01.000, 0, NVIDIA H100 80GB HBM3, 110.00 W\n"
            "2025/01/02 10:00:01.000, 1, NVIDIA H100 80GB HBM3, 210.00 W\n",
            ".csv.gz");
        const auto log = read_nvidia_smi_csv(f.path());
        REQUIRE(log.samples.size() == 4);
        REQUIRE(log.gpu_names.size() == 2);
        const auto g1 = log.samples_of(1);
        REQUIRE(g1.size() == 2);
        CHECK(g1[0].power_draw_w == 200.0);
        CHECK(g1[1].power_draw_w == 210.0);
    }
    SUBCASE("without an index column GPUs are told apart by uuid in order of appearance") {
        const temp_file f(
            "uuid, power.draw [W]\nGPU-aaa, 1 W\nGPU-bbb, 2 W\nGPU-aaa, 3 W\n", ".csv");
        const auto log = read_nvidia_smi_csv(f.path());
        REQUIRE(log.samples.size() == 3);
        CHECK(log.samples[1].gpu_index == 1);
        CHECK(log.samples[2].gpu_index == 0);
    }
    SUBCASE("noheader needs the field list") {
        const std::string body = "2025/01/02 10:00:00.000, 0, 350.25 W, 1980 MHz\n";
        const temp_file f(body, ".csv");
        CHECK_THROWS_AS(read_nvidia_smi_csv(f.path()), parse_error);
        const auto log =
            read_nvidia_smi_csv(f.path(), {"timestamp,index,power.draw,clocks.sm"});
        REQUIRE(log.samples.size() == 1);
        CHECK(log.samples[0].power_draw_w == approx(350.25));
        CHECK(log.samples[0].sm_clock_hz == 1980e6);
        // A list of another width than the rows is an error naming both counts, not a log whose
        // every row is skipped.
        CHECK_THROWS_WITH_AS(read_nvidia_smi_csv(f.path(), {"timestamp,index,power.draw"}),
                             doctest::Contains("field list has 3 fields but the first row has 4 values"), parse_error);
    }
}

TEST_CASE("nvidia-smi CSV bad input: skipped rows are counted, broken files are errors") {
    SUBCASE("a truncated last row and a garbage value are skipped by reason") {
        const temp_file f(
            "index, power.draw [W], utilization.gpu [%]\n"
            "0, 100 W, 50 %\n"
            "0, lots W, 50 %\n"
            "0, -5 W, 50 %\n"
            "0, 100 W",
            ".csv");
        const auto log = read_nvidia_smi_csv(f.path());
        CHECK(log.stats.events_read == 4);
        CHECK(log.stats.events_kept == 1);
        CHECK(log.stats.events_skipped == 3);
        CHECK(log.stats.skipped_by_reason.at("wrong_column_count") == 1);
        CHECK(log.stats.skipped_by_reason.at("bad_value(power.draw)") == 1);
        CHECK(log.stats.skipped_by_reason.at("negative_or_nan(power.draw)") == 1);
    }
    SUBCASE("empty file") {
        const temp_file f("", ".csv");
        CHECK_THROWS_WITH_AS(read_nvidia_smi_csv(f.path()), doctest::Contains("empty file"),
                             parse_error);
    }
    SUBCASE("not an nvidia-smi log") {
        const temp_file f("{\"traceEvents\": []}\n", ".csv");
        CHECK_THROWS_WITH_AS(read_nvidia_smi_csv(f.path()), doctest::Contains("line 1"), parse_error);
    }
    SUBCASE("a name column alone is not an nvidia-smi header") {
        // An Nsight Systems kernel summary: "Name" is its kernel names; no timestamp or measured field.
        const temp_file f("Time (%),Total Time (ns),Instances,Name\n61.2,1200400,300,\"gemv\"\n", ".csv");
        CHECK_THROWS_WITH_AS(read_nvidia_smi_csv(f.path()), doctest::Contains("not an nvidia-smi --query-gpu CSV header"),
                             parse_error);
        const temp_file g("name, index, uuid\nNVIDIA H200, 0, GPU-1\n", ".csv");
        CHECK_THROWS_AS(read_nvidia_smi_csv(g.path()), parse_error);
    }
    SUBCASE("missing file") {
        CHECK_THROWS_WITH_AS(read_nvidia_smi_csv("/nonexistent/smi.csv"),
                             doctest::Contains("cannot open"), parse_error);
    }
    SUBCASE("corrupt gzip") {
        auto bytes = test::gzip_bytes("index, power.draw [W]\n0, 100 W\n");
        bytes[bytes.size() / 2] ^= 0x55;
        bytes[bytes.size() / 2 + 1] ^= 0x55;
        const temp_file f(bytes, ".csv.gz", temp_file::mode::raw_bytes);
        CHECK_THROWS_AS(read_nvidia_smi_csv(f.path()), parse_error);
    }
}

TEST_CASE("nvidia-smi dmon output") {
    SUBCASE("plain dmon with repeated header and '-' for n/a") {
        const temp_file f(
            "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
            "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz\n"
            "    0     70     31     40      5     10      0      0      0      0   2619    345\n"
            "    1    650     60      -     99     80      0      0      0      0   2619   1755\n"
            "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
            "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz\n"
            "    0     71     31     40      5     10      0      0      0      0   2619    345\n"
            "    1    650\n",
            ".txt");
        const auto log = read_nvidia_smi_dmon(f.path());
        CHECK(log.stats.events_read == 4);
        CHECK(log.stats.events_kept == 3);
        CHECK(log.stats.skipped_by_reason.at("wrong_column_count") == 1);
        REQUIRE(log.samples.size() == 3);
        CHECK(log.samples[1].gpu_index == 1);
        CHECK(log.samples[1].power_draw_w == 650.0);
        CHECK(log.samples[1].sm_clock_hz == 1755e6);
        CHECK(log.samples[1].mem_clock_hz == 2619e6);
        CHECK(log.samples[1].utilization_gpu == approx(0.99));
        CHECK(std::isnan(log.samples[1].wall_time_s));
        CHECK(std::isnan(log.samples[1].power_limit_w));
    }
    SUBCASE("-o DT prepends date and time") {
        const temp_file f(
            "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem   mclk   pclk\n"
            "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %    MHz    MHz\n"
            " 20250102   10:00:01      0     70     31     40      5     10   2619    345\n",
            ".txt.gz");
        const auto log = read_nvidia_smi_dmon(f.path());
        REQUIRE(log.samples.size() == 1);
        // 2025-01-02 10:00:01 as if UTC: days_from_civil = 20090 -> 20090*86400 + 36001.
        CHECK(log.samples[0].wall_time_s == approx(20090.0 * 86400 + 36001).epsilon(1e-12));
    }
    SUBCASE("no header is an error") {
        const temp_file f("0 70 31\n", ".txt");
        CHECK_THROWS_AS(read_nvidia_smi_dmon(f.path()), parse_error);
    }
}
