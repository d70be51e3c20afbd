// Tests of report/trace_report.hpp: the `roofline trace --json` contract keys, a text report
// that fits 100 columns, the CSV layout, and well-formed SVG/HTML.
#include "roofline/report/trace_report.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "report/markup_check.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
std::optional<trace_analysis> gemm_power() {
    const auto dir = test::repo_data("samples/h200/gemm_power");
    if (!test::have_sample(dir / "trace.json.gz")) return std::nullopt;
    static const auto t = read_kineto((dir / "trace.json.gz").string());
    static const auto p = read_nvidia_smi_csv((dir / "nvidia_smi.csv.gz").string());
    trace_analysis_options o;
    o.power = &p;
    return analyze_trace(t, gpu_catalog::builtin(), o);
}
}  // namespace

TEST_CASE("the JSON has every key the issue names, with the recorded verdict") {
    const auto a = gemm_power();
    if (!a) return;
    const auto j = report::trace_analysis_json(*a, "nvidia_smi.csv.gz");
    CHECK(j.at("verdict").at("bound") == "power");
    CHECK(j.at("verdict").at("reason").get<std::string>().find("700 W") != std::string::npos);
    for (const char* k : {"kernel_count", "kernel_time_s", "events_read", "events_skipped"})
        CHECK(j.at("summary").contains(k));
    CHECK(j.at("summary").at("kernel_count") == 15);
    REQUIRE(j.at("phases").size() == 2);
    for (const auto& p : j.at("phases")) {
        for (const char* k :
             {"name", "time_s", "share", "bound", "roof_utilization", "phase", "count", "total_s"})
            CHECK(p.contains(k));
        for (const char* k : {"compute", "memory", "power", "communication"})
            CHECK(p.at("roof_utilization").contains(k));
    }
    const auto& gemm = j.at("phases").at(0);
    CHECK(gemm.at("name") == "gemm");
    CHECK(gemm.at("bound") == "power");
    CHECK(gemm.at("roof_utilization").at("power").get<double>() ==
          doctest::Approx(692.0 / 700.0).epsilon(0.01));
    CHECK(j.at("kernels").size() == 2);
    CHECK(j.at("kernels").at(0).contains("mean_s"));
    const auto& p = j.at("power");
    for (const char* k : {"limit_w", "median_draw_w", "fraction_of_limit", "clock_fraction_of_max",
                          "power_cap_active_fraction", "offset_s", "gpu_index", "energy_j"})
        CHECK(p.contains(k));
    CHECK(p.at("limit_w") == 700.0);
    CHECK(p.at("gpu_index") == 0);
    CHECK(p.at("offset_s") == 0.0);
    CHECK(j.at("steps").size() == 3);
}

TEST_CASE("the text report fits a 100-column terminal and says the verdict") {
    const auto a = gemm_power();
    if (!a) return;
    const auto text = report::render_trace_text(*a);
    CHECK(text.find("Verdict: power-bound") != std::string::npos);
    std::istringstream in(text);
    std::string line;
    std::size_t lines = 0;
    while (std::getline(in, line)) {
        ++lines;
        CHECK_MESSAGE(report::display_width(line) <= 100, line);
    }
    CHECK(lines > 20);
}

TEST_CASE("the CSV has one record per window, phase, kernel and step") {
    const auto a = gemm_power();
    if (!a) return;
    std::ostringstream out;
    report::write_trace_csv(out, *a);
    const auto csv = out.str();
    CHECK(
        csv.rfind(
            "level,name,phase,count,total_s,mean_s,share,bound,compute,memory,communication,power,",
            0) == 0);
    std::size_t records = 0;
    for (char c : csv) records += c == '\n';
    CHECK(records == 1 + 1 + 2 + 2 + 3);  // header, window, 2 phases, 2 kernels, 3 steps
    CHECK(csv.find("window,window,,30,") != std::string::npos);
}

TEST_CASE("the chart draws the power-capped roof and the kernel; SVG and HTML are well-formed") {
    const auto a = gemm_power();
    if (!a) return;
    const auto g = gpus::h200_sxm();
    const auto chart = report::trace_roofline_chart(*a, g);
    bool capped = false;
    for (const auto& c : chart.ceilings)
        capped = capped || c.style == report::ceiling_style::power_capped;
    CHECK(capped);
    REQUIRE(chart.points.size() == 1);  // the GEMM (the 4-byte memsets have no FLOP)
    CHECK(chart.points[0].arithmetic_intensity ==
          doctest::Approx(8796093022208.0 / 1610612736.0));  // 5461
    CHECK(chart.points[0].bound == bound::power);
    const auto svg = report::render_roofline_svg(chart);
    CHECK(test::markup_problem(svg) == "");
    const auto html = report::render_trace_html(*a, g);
    CHECK(test::markup_problem(html, true) == "");
    CHECK(html.find("Verdict: power-bound") != std::string::npos);
}

TEST_CASE("kernel names are shortened for tables and labels") {
    using report::detail::trace_rep::display_kernel_name;
    using report::detail::trace_rep::short_kernel_name;
    const std::string n =
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "std::array<char*, 3ul> >"
        "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
    CHECK(display_kernel_name(n) ==
          "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char*, 3ul> >");
    CHECK(short_kernel_name(n) == "vectorized_elementwise_kernel");
    CHECK(short_kernel_name("Memset (Device)") == "Memset");
    CHECK(
        short_kernel_name(
            "_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel"
            "13GemmUniversalINS5_17GroupProblemShape") == "device_kernel<...GemmUniversal...>");
}
