// Tests of report/html.hpp and report/markup.hpp: escaping, tables, inline SVG.
#include "roofline/report/html.hpp"

#include <doctest/doctest.h>

#include <string>

#include "report/markup_check.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/report/svg_roofline.hpp"

using namespace roofline;
using namespace roofline::report;

TEST_CASE("XML escaping covers the five special characters and forbidden control bytes") {
    CHECK(escape_xml("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;");
    CHECK(escape_xml("tab\tok") == "tab\tok");
    CHECK(escape_xml(std::string("nul\x01", 4)) == "nul\uFFFD");
}

TEST_CASE("the HTML report escapes kernel names everywhere and inlines the chart") {
    const std::string kernel = "void gemm<float, 128>(Params&)";
    auto t = text_table::with_headers({"kernel", "time"});
    t.add_row({kernel, "4.56 ms"});
    html_section s("Kernels & <phases>");
    s.add_paragraph("slowest: " + kernel);
    s.add_table(t, "per kernel <all>");
    s.add_preformatted(kernel + "\n  42 calls");
    const auto g = gpus::h200_sxm();
    s.add_svg(render_roofline_svg(make_roofline_chart(g, datasheet_ceilings(g), {peak_key::bf16})));
    html_report r{"Report <1>", "roofline trace a&b.json", {s}};
    const auto html = render_html(r);

    CHECK(test::markup_problem(html, true) == "");
    CHECK(html.find("gemm<float") == std::string::npos);
    CHECK(html.find("<td>void gemm&lt;float, 128&gt;(Params&amp;)</td>") != std::string::npos);
    CHECK(html.find("<td class=\"num\">4.56 ms</td>") != std::string::npos);
    CHECK(html.find("<th class=\"num\">time</th>") != std::string::npos);
    CHECK(html.find("<h2>Kernels &amp; &lt;phases&gt;</h2>") != std::string::npos);
    CHECK(html.find("<caption>per kernel &lt;all&gt;</caption>") != std::string::npos);
    CHECK(html.find("<title>Report &lt;1&gt;</title>") != std::string::npos);
    CHECK(html.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(html.find("ridge 206 FLOP/B") != std::string::npos);
    // Self-contained: no script, no external stylesheet or image.
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
}

TEST_CASE("an XML prolog in an inlined SVG is dropped") {
    html_section s("chart");
    s.add_svg(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg "
        "xmlns=\"http://www.w3.org/2000/svg\"></svg>");
    const auto html = s.render();
    CHECK(html.find("<?xml") == std::string::npos);
    CHECK(html.find("<figure>\n<svg xmlns") != std::string::npos);
}

TEST_CASE("the markup check used by these tests catches what it must") {
    CHECK(test::markup_problem("<a><b/>x &amp; y</a>") == "");
    CHECK(test::markup_problem("<a><b></a>") != "");
    CHECK(test::markup_problem("<a>x & y</a>") != "");
    CHECK(test::markup_problem("<a>gemm<float></a>") != "");
    CHECK(test::markup_problem("<a t=\"x<y\"/>") != "");
    CHECK(test::has_non_finite_text("<text x=\"nan\"/>"));
    CHECK(test::has_non_finite_text("r=\"-inf\""));
    CHECK_FALSE(test::has_non_finite_text("information financial"));
}
