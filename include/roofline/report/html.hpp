#pragma once
// One self-contained HTML report: sections of text, tables and inline SVG charts, with a little
// CSS and nothing else (no script, no external file), so it can be mailed or attached to a bug.
//
// All text (headings, paragraphs, table cells, preformatted blocks) is escaped: kernel names
// such as `void gemm<float, 128>(Params&)` show as written. SVG blocks are inserted as markup:
// they must come from this library's renderers (svg_roofline.hpp, svg_pareto.hpp), which
// escape their own text.

#include <fmt/format.h>

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "roofline/report/markup.hpp"
#include "roofline/report/table.hpp"

namespace roofline::report {

/// A section of the report: a heading and an ordered list of blocks.
class html_section {
  public:
    explicit html_section(std::string heading) : heading_(std::move(heading)) {}

    /// A paragraph of plain text.
    html_section& add_paragraph(std::string text) { return add(kind::paragraph, std::move(text)); }
    /// A table; `caption` (plain text) may be empty.
    html_section& add_table(text_table table, std::string caption = {}) {
        blocks_.push_back({kind::table, std::move(caption), std::move(table)});
        return *this;
    }
    /// An SVG document produced by this library's renderers, inlined as markup.
    html_section& add_svg(std::string svg) { return add(kind::svg, std::move(svg)); }
    /// Plain text kept as laid out (e.g. a terminal report), in a monospace block.
    html_section& add_preformatted(std::string text) {
        return add(kind::preformatted, std::move(text));
    }

    /// The section as HTML: `<section><h2>` ... `</section>`.
    std::string render() const;

    const std::string& heading() const { return heading_; }

  private:
    enum class kind : std::uint8_t { paragraph, table, svg, preformatted };
    struct block {
        kind k;
        std::string text;
        text_table table;
    };
    html_section& add(kind k, std::string text) {
        blocks_.push_back({k, std::move(text), {}});
        return *this;
    }
    std::string heading_;
    std::vector<block> blocks_;
};

/// A whole report: title, subtitle (plain text, e.g. the command that produced it) and sections.
struct html_report {
    std::string title;
    std::string subtitle;
    std::vector<html_section> sections;
};

/// A text table as an HTML `<table>`: header cells in `<thead>`, numeric columns (as the text
/// table resolves them) right-aligned with tabular figures, cells longer than 40 characters
/// allowed to wrap anywhere (kernel names have no spaces); `caption` is escaped.
inline std::string html_table(const text_table& t, std::string_view caption = {}) {
    std::string out = "<table>\n";
    if (!caption.empty()) out += fmt::format("<caption>{}</caption>\n", escape_xml(caption));
    const table_layout layout = t.layout();
    std::vector<bool> right(t.columns().size());
    for (std::size_t c = 0; c < right.size(); ++c) right[c] = layout.right_aligned(c);
    out += "<thead><tr>";
    for (std::size_t c = 0; c < right.size(); ++c)
        out += fmt::format("<th{}>{}</th>", right[c] ? R"( class="num")" : "",
                           escape_xml(t.columns()[c].header));
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows()) {
        out += "<tr>";
        for (std::size_t c = 0; c < right.size(); ++c) {
            // Long text (kernel names) may break anywhere, so the table fits the page.
            const char* cls = right[c]                     ? R"( class="num")"
                              : display_width(row[c]) > 40 ? R"( class="wrap")"
                                                           : "";
            out += fmt::format("<td{}>{}</td>", cls, escape_xml(row[c]));
        }
        out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n";
    return out;
}

namespace detail {
/// `svg` without an XML declaration or doctype, which are not allowed inside HTML.
inline std::string_view strip_xml_prolog(std::string_view svg) {
    for (;;) {
        const auto start = svg.find_first_not_of(" \t\r\n");
        if (start == std::string_view::npos) return {};
        svg.remove_prefix(start);
        if (svg.substr(0, 2) == "<?" || svg.substr(0, 2) == "<!") {
            const auto end = svg.find('>');
            if (end == std::string_view::npos) return {};
            svg.remove_prefix(end + 1);
        } else {
            return svg;
        }
    }
}
}  // namespace detail

inline std::string html_section::render() const {
    std::string out = fmt::format("<section>\n<h2>{}</h2>\n", escape_xml(heading_));
    for (const auto& b : blocks_) {
        switch (b.k) {
            case kind::paragraph:
                out += fmt::format("<p>{}</p>\n", escape_xml(b.text));
                break;
            case kind::table:
                out += html_table(b.table, b.text);
                break;
            case kind::svg:
                out += fmt::format("<figure>\n{}</figure>\n", detail::strip_xml_prolog(b.text));
                break;
            case kind::preformatted:
                out += fmt::format("<pre>{}</pre>\n", escape_xml(b.text));
                break;
        }
    }
    out += "</section>\n";
    return out;
}

/// The report as one HTML5 document (UTF-8).
inline std::string render_html(const html_report& r) {
    constexpr std::string_view css =
        R"(body{font-family:"DejaVu Sans","Liberation Sans",Arial,Helvetica,sans-serif;color:#222;margin:24px auto;max-width:1080px;padding:0 16px;line-height:1.4}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.subtitle{color:#555;margin:0 0 12px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
caption{text-align:left;color:#555;padding-bottom:4px}
th,td{padding:3px 10px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
.wrap{overflow-wrap:anywhere;min-width:16em}
th{background:#f4f4f4;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
pre{background:#f7f7f7;padding:10px;overflow-x:auto;font-size:12px}
figure{margin:8px 0}figure svg{max-width:100%;height:auto}
footer{color:#777;font-size:12px;margin-top:32px})";
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out += fmt::format("<title>{}</title>\n<style>\n{}\n</style>\n</head>\n<body>\n",
                       escape_xml(r.title), css);
    out += fmt::format("<h1>{}</h1>\n", escape_xml(r.title));
    if (!r.subtitle.empty())
        out += fmt::format("<p class=\"subtitle\">{}</p>\n", escape_xml(r.subtitle));
    for (const auto& s : r.sections) out += s.render();
    out += "<footer>Generated by roofline.</footer>\n</body>\n</html>\n";
    return out;
}

}  // namespace roofline::report
