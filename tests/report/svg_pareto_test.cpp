// Tests of report/svg_pareto.hpp: the Pareto front by hand, and a well-formed chart.
#include "roofline/report/svg_pareto.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "report/markup_check.hpp"

using namespace roofline::report;

namespace {
std::vector<pareto_point> sample_points() {
    // x = tokens/s per user, y = tokens/s per GPU.
    return {{"h200", "A", 10, 100, ""},            // front: the highest throughput
            {"h200", "B", 20, 80, ""},             // front
            {"b200", "C", 15, 70, ""},             // dominated by B (20 >= 15, 80 >= 70)
            {"b200", "D", 30, 10, ""},             // front: the most interactive
            {"b200", "E", 30, 5, ""},              // dominated by D (same x, lower y)
            {"h200", "F", std::nan(""), 500, ""},  // not a number: ignored
            {"h200", "G", 10, 100, ""}};           // duplicate of A: only A is kept
}
}  // namespace

TEST_CASE("the Pareto front keeps exactly the non-dominated points, by interactivity") {
    const auto pts = sample_points();
    CHECK(pareto_front(pts) == std::vector<std::size_t>{0, 1, 3});
    CHECK(pareto_front({}).empty());
}

TEST_CASE("the Pareto chart is well-formed, labels its front and counts skipped points") {
    pareto_chart ch;
    ch.title = "Throughput <against> interactivity & more";
    ch.points = sample_points();
    const auto svg = render_pareto_svg(ch);
    CHECK(roofline::test::markup_problem(svg) == "");
    CHECK_FALSE(roofline::test::has_non_finite_text(svg));
    CHECK(svg.find("Throughput &lt;against&gt; interactivity &amp; more") != std::string::npos);
    CHECK(svg.find("class=\"pareto-front\"") != std::string::npos);
    CHECK(svg.find(">A</text>") != std::string::npos);
    CHECK(svg.find(">B</text>") != std::string::npos);
    CHECK(svg.find(">D</text>") != std::string::npos);
    CHECK(svg.find(">C</text>") == std::string::npos);  // off the front: tooltip only
    CHECK(svg.find("1 point not drawn") != std::string::npos);
    // Two GPUs in the legend; x axis from 0 with nice ticks (step 5 over 0..30 -> up to 35).
    CHECK(svg.find(">h200</text>") != std::string::npos);
    CHECK(svg.find(">b200</text>") != std::string::npos);
    CHECK(svg.find(">35</text>") != std::string::npos);
}

TEST_CASE("a logarithmic Pareto chart is well-formed too") {
    pareto_chart ch;
    ch.log_x = ch.log_y = true;
    ch.points = sample_points();
    const auto svg = render_pareto_svg(ch);
    CHECK(roofline::test::markup_problem(svg) == "");
    CHECK_FALSE(roofline::test::has_non_finite_text(svg));
}

TEST_CASE("two GPUs with the same points: the covered one is drawn as a wide ring, every point keeps its size") {
    // A Max-Q and a Workstation card where power does not bind price every point alike; drawn
    // plainly, the later series' circles covered the earlier's exactly. Points 0.5 px apart count.
    pareto_chart ch;
    ch.points = {{"8x rtx-pro-6000", "TP8 c=64", 20, 300, ""},
                 {"8x rtx-pro-6000-maxq", "TP8 c=64", 20, 300, ""},
                 {"8x rtx-pro-6000", "TP4 c=16", 40, 100, ""},
                 {"8x rtx-pro-6000-maxq", "TP4 c=16", 39.98, 100, ""},
                 {"8x rtx-pro-6000", "TP2 c=4", 60, 20, ""}};  // the Max-Q has none here
    const auto svg = render_pareto_svg(ch);
    CHECK(roofline::test::markup_problem(svg) == "");
    const auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
        return n;
    };
    // The front keeps the first of identical points (rtx-pro-6000's, drawn on top at 5.5 px);
    // the Max-Q's two off-front points under them are rings of 4 + 3 px in their colour.
    CHECK(count(R"(class="point ringed")") == 2);
    CHECK(count(R"(r="7.0" fill="#D55E00")") == 2);
    CHECK(count(R"(class="point front")") == 3);
    CHECK(count(R"(r="5.5" fill="#0072B2")") == 4);  // the 3 front points keep their size; and the legend swatch
    CHECK(svg.find("another GPU gives the same point") != std::string::npos);
    // A point under a front point is not another place its label could be read as naming: no
    // leader line from the marker to a label beside it.
    CHECK(count(R"(stroke="#777" stroke-width="0.8")") == 0);
    // Apart, nothing is ringed and no note is added.
    ch.points.resize(1);
    ch.points.push_back({"8x rtx-pro-6000-maxq", "TP8 c=32", 25, 250, ""});
    const auto apart = render_pareto_svg(ch);
    CHECK(apart.find("ringed") == std::string::npos);
    CHECK(apart.find("another GPU gives the same point") == std::string::npos);
}

TEST_CASE("a front label is not placed on its point's line beside another GPU's point") {
    // The README's plan chart: the most interactive B200 point sits near the plot's right edge, so
    // its label went to the left, where it ended beside an RTX PRO point on the same line and read
    // as that point's label. Here the front is that one point (nothing else to avoid).
    pareto_chart ch;
    ch.log_x = ch.log_y = true;
    const std::string long_label = "TP8 / MoE TP1xEP8 c=1";
    ch.points = {{"8x b200", long_label, 330, 100, ""},
                 {"8x rtx-pro-6000", "TP2 c=64", 91, 100, ""},  // off the front, on the B200 point's line
                 {"8x rtx-pro-6000", "TP2 c=1", 11, 10, ""}};
    const auto svg = render_pareto_svg(ch);
    CHECK(roofline::test::markup_problem(svg) == "");
    // Pixel positions: the circles' centres by their tooltips, the label's baseline and start.
    const auto attr = [&](std::size_t at, const std::string& name) {
        const auto p = svg.find(name + "=\"", at) + name.size() + 2;
        return std::stod(svg.substr(p, svg.find('"', p) - p));
    };
    const auto circle_of = [&](const std::string& tip) {
        const auto at = svg.find("<title>" + tip);
        REQUIRE(at != std::string::npos);
        const auto c = svg.find("<circle", at);
        return std::pair{attr(c, "cx"), attr(c, "cy")};
    };
    const auto [own_x, own_y] = circle_of("8x b200 \u00b7 " + long_label);
    const auto [rtx_x, rtx_y] = circle_of("8x rtx-pro-6000 \u00b7 TP2 c=64");
    REQUIRE(own_y == doctest::Approx(rtx_y));
    const auto label = svg.rfind("<text", svg.find(">" + long_label + "</text>"));
    const double x = attr(label, "x"), baseline = attr(label, "y");
    const double w = svg::text_width(long_label, 11.0);
    REQUIRE(own_x + 8.5 + w > 960.0);  // no room on the right (the plot ends at 1,000 - 40 px)
    REQUIRE(own_x - 8.5 - w - rtx_x < 2.0 * 8.5);  // the left place would start under 17 px right of the RTX point (the README chart: 16 px)
    const bool on_the_line = baseline - 14.0 + 3.5 < own_y && own_y < baseline + 3.5;  // the 14 px box holds the line
    const bool between = x > rtx_x && x + w < own_x;
    CHECK_FALSE((on_the_line && between));
}
