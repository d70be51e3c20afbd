// Tests of report/gpu_table.hpp: the catalog overview and the side-by-side comparison.
#include "roofline/report/gpu_table.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "roofline/core/catalog.hpp"

using namespace roofline;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::string line_starting(const std::string& text, const std::string& prefix) {
    for (const auto& l : lines_of(text))
        if (l.rfind(prefix, 0) == 0) return l;
    return {};
}

}  // namespace

TEST_CASE("numbers are shown with the decimals that matter") {
    CHECK(detail::short_number(989.0, 1) == "989");
    CHECK(detail::short_number(209.5, 1) == "209.5");
    CHECK(detail::short_number(4.8, 2, false) == "4.80");
    CHECK(detail::cell(cited(7.672e12, "[S9]"), 1e12, 2) == "7.67 ");
    CHECK(detail::cell(derived_value(7.672e12, "[C10]", "d: x"), 1e12, 2) == "7.67*");
    CHECK(detail::cell(unknown("why"), 1, 0) == "? ");
    CHECK(detail::cell(cited(0, "[S15]"), 1e12, 2, true) == "- ");
}

TEST_CASE("the overview has one row per GPU and fits a 100-column terminal") {
    const auto all = builtin_gpus();
    const std::string t = format_gpu_table(all);
    const auto lines = lines_of(t);
    // 2 header lines + rule + one line per GPU (37) + 3 legend lines.
    CHECK(lines.size() == 2 + 1 + all.size() + 3);
    for (const auto& l : lines) CHECK_MESSAGE(l.size() <= 100, l);
    // B200: CC 10.0, 148 SMs, 191.5 GB, 7.67 TB/s (derived), 126.5 MiB L2, 227 KiB per block,
    // 1000 W, NVLink 1.80 TB/s, FP4/FP8/BF16 9000/4500/2250, ridge 2.25e15 / 7.672e12 = 293.
    const std::string b200 = line_starting(t, "b200 ");
    CHECK(b200.find("10.0") != std::string::npos);
    CHECK(b200.find("7.67*") != std::string::npos);
    CHECK(b200.find("126.5") != std::string::npos);
    CHECK(b200.find(" 227 ") != std::string::npos);
    CHECK(b200.find("1.80") != std::string::npos);
    CHECK(b200.find("9000") != std::string::npos);
    CHECK(b200.find("293*") != std::string::npos);
    // Unknown and unsupported are visible, not zero.
    CHECK(line_starting(t, "gb300 ").find("   ? ") != std::string::npos);   // SM count
    CHECK(line_starting(t, "h100-sxm ").find(" - ") != std::string::npos);  // no FP4
    // RTX 5090 BF16 ridge: 209.5e12 / 1.792e12 = 116.9 -> 117.
    CHECK(line_starting(t, "rtx-5090 ").find("209.5") != std::string::npos);
    CHECK(line_starting(t, "rtx-5090 ").find(" 117") != std::string::npos);
}

TEST_CASE("the comparison shows each value with its source, the notes and the legend") {
    const std::string t = format_gpu_compare({gpus::rtx_pro_6000(), gpus::rtx_pro_6000_maxq()});
    const std::string power = line_starting(t, "power limit W ");
    CHECK(power.find("600  [S15]") != std::string::npos);
    CHECK(power.find("300  [S15]") != std::string::npos);
    // Max-Q clock is derived (*), the Workstation clock is device-reported.
    const std::string clock = line_starting(t, "boost clock MHz ");
    CHECK(clock.find("2617  [S24]") != std::string::npos);
    CHECK(clock.find("2286* [S15]") != std::string::npos);
    // Notes: a shared per-architecture note once, under "all"; per-SKU derivations per GPU.
    CHECK(t.find("smem per block KiB (opt-in): all: 99 KiB opt-in") != std::string::npos);
    CHECK(t.find("BF16 dense TFLOP/s: rtx-pro-6000: d: 1024 FLOP/clk/SM x 188 SMs x 2.617 GHz") !=
          std::string::npos);
    CHECK(t.find("INT8 dense TOP/s: all: no INT8 figure published") != std::string::npos);
    // Legend: each cited id once, with its text.
    CHECK(t.find("\n  [S15] NVIDIA RTX PRO 6000 Blackwell datasheets") != std::string::npos);
    CHECK(t.find("[S5] ") == std::string::npos);  // not cited by these two GPUs
    // Device names above the table.
    CHECK(t.find("reports \"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition\"") !=
          std::string::npos);
}

TEST_CASE("the comparison marks GeForce FP16-accumulate rows only where a GPU has them") {
    const std::string with = format_gpu_compare({gpus::rtx_5090(), gpus::b200()});
    const std::string fp8 = line_starting(with, "FP8 FP16-acc TFLOP/s");
    CHECK(fp8.find("838") != std::string::npos);
    const std::string without = format_gpu_compare({gpus::b200(), gpus::gb200()});
    CHECK(without.find("FP16-acc") == std::string::npos);
    // B200 memory bandwidth is the derived driver figure, and the note says why 8 TB/s is not used.
    CHECK(line_starting(without, "memory TB/s").find("7.672* [C10][S5]") != std::string::npos);
    CHECK(without.find("DGX datasheet 8 TB/s [S5][S10] not used") != std::string::npos);
}
