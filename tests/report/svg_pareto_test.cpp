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
    // Apart, nothing is ringed and no note is added.
    ch.points.resize(1);
    ch.points.push_back({"8x rtx-pro-6000-maxq", "TP8 c=32", 25, 250, ""});
    const auto apart = render_pareto_svg(ch);
    CHECK(apart.find("ringed") == std::string::npos);
    CHECK(apart.find("another GPU gives the same point") == std::string::npos);
}
