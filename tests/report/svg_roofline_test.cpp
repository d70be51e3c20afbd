// Tests of report/svg_roofline.hpp: the chart is well-formed SVG, its ridge label carries the
// right number, circle areas follow time shares, and no non-finite number reaches the text.
#include "roofline/report/svg_roofline.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "report/markup_check.hpp"
#include "roofline/core/catalog.hpp"

using namespace roofline;
using namespace roofline::report;

namespace {

/// Radii of the point circles, in document order.
std::vector<double> point_radii(const std::string& svg) {
    static const std::regex re(
        R"re(<g class="point"><title>[^<]*</title><circle [^>]*\br="([0-9.]+)")re");
    std::vector<double> r;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
         ++it)
        r.push_back(std::stod((*it)[1].str()));
    return r;
}

roofline_chart h200_bf16_chart() {
    const auto g = gpus::h200_sxm();
    return make_roofline_chart(g, datasheet_ceilings(g), {peak_key::bf16});
}

}  // namespace

TEST_CASE(
    "ceiling lines: DRAM slope, one roof per known peak, equal peaks merged, unknown L2 left out") {
    const auto c = datasheet_ceilings(gpus::h200_sxm());
    const auto lines =
        ceiling_lines(c, {peak_key::bf16, peak_key::fp16, peak_key::fp4, peak_key::fp8});
    // DRAM; bf16 and fp16 share 989 TFLOP/s; fp4 is unsupported on Hopper (peak 0): left out.
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].kind == ceiling_kind::memory);
    CHECK(lines[0].label == "DRAM 4.80 TB/s");
    CHECK(lines[1].label == "bf16/fp16 989 TFLOP/s");
    CHECK(lines[2].label == "fp8 1.98 PFLOP/s");
    auto with_l2 = c;
    with_l2.bytes_at(memory_level::l2) = 12e12;  // a calibrated L2 bandwidth
    CHECK(ceiling_lines(with_l2, {peak_key::bf16}).size() == 3);
}

TEST_CASE("the power-capped roof scales the peak with the SM clock") {
    const auto c = datasheet_ceilings(gpus::h200_sxm());
    // 989 TFLOP/s x 1410 / 1830 MHz = 762.02 TFLOP/s.
    const auto l = power_capped_roof(c, peak_key::bf16, 1410e6, 1830e6);
    CHECK(l.value == approx(989e12 * 1410.0 / 1830.0));
    CHECK(l.label == "bf16 at 1410 MHz (power cap): 762 TFLOP/s");
    CHECK(l.style == ceiling_style::power_capped);
    CHECK_THROWS_AS(power_capped_roof(c, peak_key::fp4, 1410e6, 1830e6), usage_error);
    CHECK_THROWS_AS(power_capped_roof(c, peak_key::bf16, 0.0, 1830e6), usage_error);
}

TEST_CASE("the H200 bf16 chart is well-formed SVG with the ridge at 206 FLOP/byte") {
    auto chart = h200_bf16_chart();
    const auto svg = render_roofline_svg(chart);
    CHECK(test::markup_problem(svg) == "");
    CHECK_FALSE(test::has_non_finite_text(svg));
    // 989e12 / 4.8e12 = 206.04 FLOP/byte.
    CHECK(svg.find(">ridge 206 FLOP/B<") != std::string::npos);
    CHECK(svg.find(">bf16 989 TFLOP/s<") != std::string::npos);
    CHECK(svg.find(">DRAM 4.80 TB/s<") != std::string::npos);
    CHECK(svg.find("NVIDIA H200 SXM 141GB: roofline") != std::string::npos);
    CHECK(svg.find("ceilings: datasheet") != std::string::npos);
    // x from 0.1 to 10^4 FLOP/B (ridge x 5 = 1030 stays under 10^4), decade ticks in human units.
    CHECK(svg.find(">0.1<") != std::string::npos);
    CHECK(svg.find(">10,000<") != std::string::npos);
    CHECK(svg.find(">100,000<") == std::string::npos);
    CHECK(svg.find(">1 PFLOP/s<") != std::string::npos);
    CHECK(svg.find(">1 TFLOP/s<") != std::string::npos);
    CHECK(svg.find("<script") == std::string::npos);
}

TEST_CASE("two requested roofs get two ridge labels named by rate class") {
    const auto g = gpus::h200_sxm();
    const auto svg = render_roofline_svg(
        make_roofline_chart(g, datasheet_ceilings(g), {peak_key::bf16, peak_key::fp8}));
    // fp8: 1979e12 / 4.8e12 = 412.3 FLOP/byte.
    CHECK(svg.find(">bf16 ridge 206 FLOP/B<") != std::string::npos);
    CHECK(svg.find(">fp8 ridge 412 FLOP/B<") != std::string::npos);
    CHECK(test::markup_problem(svg) == "");
}

TEST_CASE("circle area is proportional to time share") {
    auto chart = h200_bf16_chart();
    chart.points = {{"gemm", 300, 700e12, 0.40, bound::compute, ""},
                    {"attention", 1.2, 4.5e12, 0.10, bound::memory, ""},
                    {"allreduce", 0.2, 0.1e12, 0.025, bound::communication, ""}};
    const auto r = point_radii(render_roofline_svg(chart));
    REQUIRE(r.size() == 3);
    // r = 36 px x sqrt(share): 22.77, 11.38, 5.69 px; r^2 ratios equal share ratios (4 and 16)
    // to the 0.01 px the SVG prints.
    CHECK(r[0] == approx(36.0 * std::sqrt(0.40)).epsilon(1e-3));
    CHECK(r[0] * r[0] / (r[1] * r[1]) == approx(4.0).epsilon(2e-3));
    CHECK(r[0] * r[0] / (r[2] * r[2]) == approx(16.0).epsilon(4e-3));
}

TEST_CASE("the size key's words give the share its circle is drawn at, right beside it") {
    // One kernel at 100% (a 36 px circle) and one at 10%: the key circle is the 10% point's
    // size, and the words next to it say 10%, not a sentence that could be read as labelling
    // another circle.
    auto chart = h200_bf16_chart();
    chart.points = {{"gemm", 300, 700e12, 1.0, bound::compute, ""}, {"copy", 0.2, 0.5e12, 0.10, bound::memory, ""}};
    const auto svg = render_roofline_svg(chart);
    const auto r = point_radii(svg);
    REQUIRE(r.size() == 2);
    static const std::regex key(
        R"re(<circle class="size-key" cx="([0-9.]+)" cy="[0-9.]+" r="([0-9.]+)"[^>]*/>\n<text x="([0-9.]+)"[^>]*>([^<]*)</text>)re");
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, key));
    const double cx = std::stod(m[1].str()), kr = std::stod(m[2].str()), tx = std::stod(m[3].str());
    CHECK(kr == r[1]);                                  // the 10% point's radius, 11.38 px
    CHECK(kr == approx(36.0 * std::sqrt(size_key_share)).epsilon(1e-3));
    CHECK(m[4].str() == "10%");                         // its words: the share it is drawn at
    CHECK(tx - (cx + kr) == approx(4.0).epsilon(0.05));  // right beside it
    CHECK(svg.find(">circle area = share of time:<") != std::string::npos);
    CHECK(svg.find("this circle") == std::string::npos);
    CHECK(test::markup_problem(svg) == "");
}

TEST_CASE("points with non-finite or zero values are skipped and counted, never drawn as nan") {
    auto chart = h200_bf16_chart();
    const double nan = std::nan("");
    chart.points = {{"ok", 10, 40e12, 0.5, bound::memory, ""},
                    {"nan intensity", nan, 40e12, 0.2, bound::memory, ""},
                    {"zero rate", 10, 0.0, 0.2, bound::memory, ""},
                    {"inf share", 10, 40e12, INFINITY, bound::latency, ""}};
    chart.ceilings.push_back(
        {ceiling_kind::compute, nan, "fp6", "fp6 unknown", ceiling_style::primary});
    const auto svg = render_roofline_svg(chart);
    CHECK(point_radii(svg).size() == 1);
    CHECK(svg.find("3 points not drawn") != std::string::npos);
    CHECK(svg.find("1 ceiling not drawn") != std::string::npos);
    CHECK_FALSE(test::has_non_finite_text(svg));
    CHECK(test::markup_problem(svg) == "");
}

TEST_CASE("kernel names with markup characters are escaped in labels and tooltips") {
    auto chart = h200_bf16_chart();
    chart.points = {
        {"void gemm<float, 128>(Params&)", 50, 100e12, 0.3, bound::memory, "a \"quoted\" note"}};
    const auto svg = render_roofline_svg(chart);
    CHECK(test::markup_problem(svg) == "");
    CHECK(svg.find("gemm<float") == std::string::npos);
    CHECK(svg.find("void gemm&lt;float, 128&gt;(Params&amp;)") != std::string::npos);
    CHECK(svg.find("a &quot;quoted&quot; note") != std::string::npos);
    // The tooltip gives the numbers: 50 FLOP/B, 100 TFLOP/s, 30.0% of the time, memory-bound.
    CHECK(svg.find("arithmetic intensity: 50.0 FLOP/B\nachieved: 100 TFLOP/s\ntime share: "
                   "30.0%\nbound: memory") != std::string::npos);
}

TEST_CASE("the axes widen to hold points beyond the default range") {
    auto chart = h200_bf16_chart();
    chart.points = {{"elementwise", 0.02, 0.05e12, 0.2, bound::memory, ""}};
    const auto svg = render_roofline_svg(chart);
    // 0.02 / 1.5 = 0.0133 -> the axis starts at the decade 0.01; 0.05e12 / 1.5 -> 10 GFLOP/s.
    CHECK(svg.find(">0.01<") != std::string::npos);
    CHECK(svg.find(">10 GFLOP/s<") != std::string::npos);
}

TEST_CASE("the radius of a share stays visible and bounded") {
    CHECK(point_radius_px(1.0) == approx(36.0));
    CHECK(point_radius_px(0.25) == approx(18.0));
    CHECK(point_radius_px(4.0) == approx(36.0));  // shares above 1 drawn as 1
    CHECK(point_radius_px(1e-6) == approx(2.0));  // floor: 36 x sqrt(1e-6) = 0.036 px
}

TEST_CASE(
    "every catalog GPU with a known DRAM bandwidth draws a well-formed chart for all its rate "
    "classes") {
    std::vector<peak_key> keys(all_peak_keys.begin(), all_peak_keys.end());
    int drawn = 0;
    const auto catalog = gpu_catalog::builtin();
    for (const auto& g : catalog.all()) {
        if (!g.memory_bandwidth_bytes_per_s.known()) {
            MESSAGE("skipped: " << g.id << " has no DRAM bandwidth in the catalog yet");
            continue;
        }
        CAPTURE(g.id);
        const auto svg = render_roofline_svg(make_roofline_chart(g, datasheet_ceilings(g), keys));
        CHECK(test::markup_problem(svg) == "");
        CHECK_FALSE(test::has_non_finite_text(svg));
        CHECK(svg.find(">DRAM ") != std::string::npos);
        ++drawn;
    }
    CHECK(drawn >= 2);  // at least the SM90 entries (h100-sxm, h200-sxm)
}

TEST_CASE("two points of one label at one place get one label with their count of points") {
    // A trace's two reduce_kernel launches of the same shape land on the same spot; they were
    // labelled twice, side by side. One label "reduce_kernel (2 points)" now, two tooltips still.
    auto chart = h200_bf16_chart();
    chart.points = {{"reduce_kernel", 2.0, 1e12, 0.05, bound::memory, ""},
                    {"reduce_kernel", 2.0, 1e12, 0.04, bound::memory, ""},
                    {"reduce_kernel", 200.0, 300e12, 0.02, bound::compute, ""},  // elsewhere: its own label
                    {"gemm", 2.0, 1e12, 0.03, bound::memory, ""}};               // same spot, other name
    const auto svg = render_roofline_svg(chart);
    CHECK(test::markup_problem(svg) == "");
    CHECK(svg.find(">reduce_kernel (2 points)</text>") != std::string::npos);
    CHECK(svg.find(">reduce_kernel</text>") != std::string::npos);
    CHECK(svg.find(">gemm</text>") != std::string::npos);
    const auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count(">reduce_kernel</text>") == 1);  // the one elsewhere
    CHECK(count(">reduce_kernel (2 points)</text>") == 1);
    CHECK(count("<title>reduce_kernel") == 3);
}

TEST_CASE("two kernels whose long names shorten alike at one place get one label") {
    // cuBLAS kernel names that differ only in their middle (the tile size) shorten to one text
    // at 30 columns; at one spot they were labelled twice with that text.
    const std::string a = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_kernel";
    const std::string b = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize1x1x1_execute_kernel";
    REQUIRE(a != b);
    const std::string shown = ellipsize_middle(a, 30);
    REQUIRE(shown == ellipsize_middle(b, 30));
    auto chart = h200_bf16_chart();
    chart.points = {{a, 300.0, 500e12, 0.05, bound::compute, ""}, {b, 300.0, 500e12, 0.04, bound::compute, ""}};
    const auto svg = render_roofline_svg(chart);
    CHECK(test::markup_problem(svg) == "");
    CHECK(svg.find(">" + shown + " (2 points)</text>") != std::string::npos);
    CHECK(svg.find(">" + shown + "</text>") == std::string::npos);
    CHECK(svg.find("<title>" + a) != std::string::npos);  // both tooltips keep their full names
    CHECK(svg.find("<title>" + b) != std::string::npos);
}
