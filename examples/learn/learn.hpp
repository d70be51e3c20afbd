#pragma once
// What the six teaching programs in examples/learn/ share: their command line (--svg FILE,
// --data DIR), "unknown" for a value the catalog does not have, and one small line chart
// (log or linear axes, series, marked points, guide lines) drawn with the building blocks of
// report/svg.hpp. The roofline chart of report/svg_roofline.hpp draws one GPU; these questions
// compare several GPUs, models or links on one picture, so they need a plain x-y chart.

#include <fmt/format.h>

#include <cmath>        // std::isfinite, std::isnan
#include <cstdio>       // std::fputs
#include <cstdlib>      // std::getenv
#include <exception>    // std::exception
#include <fstream>      // std::ofstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/core/error.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/svg.hpp"

namespace learn {

namespace svg = roofline::report::svg;

/// Command line of every program: `--svg FILE` (default `<name>.svg`), `--data DIR` (default
/// $ROOFLINE_DATA_DIR, else the data/ folder of the source tree fixed at build time).
struct options {
    std::string svg_path;
    std::string data_dir;
};

/// Parses argv; throws `roofline::usage_error` for anything else.
inline options parse_options(int argc, char** argv, std::string_view name) {
    options o{std::string(name) + ".svg", {}};
    if (const char* env = std::getenv("ROOFLINE_DATA_DIR"); env && *env) o.data_dir = env;
#ifdef ROOFLINE_DATA_DIR
    if (o.data_dir.empty()) o.data_dir = ROOFLINE_DATA_DIR;
#endif
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if ((a == "--svg" || a == "--data") && i + 1 < argc)
            (a == "--svg" ? o.svg_path : o.data_dir) = argv[++i];
        else
            throw roofline::usage_error(std::string(name) + ": usage: " + std::string(name) +
                                        " [--svg FILE] [--data DIR]");
    }
    return o;
}

/// `format(v)`, or "unknown" when `v` is NaN (the catalog or a model does not know it).
template <class F>
std::string or_unknown(double v, F&& format) {
    return std::isnan(v) ? std::string("unknown") : format(v);
}

/// Writes `text` to `path`; throws `roofline::error` naming the file when it cannot.
inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw roofline::error(path + ": cannot write");
}

/// One line of the chart: (x, y) pairs in display units; a NaN y breaks the line.
struct series {
    std::string name;
    std::vector<std::pair<double, double>> xy;
    std::size_t colour = 0;  ///< index into report::svg::series_colour
    bool dashed = false;
};

/// A marked point with a short label (a ridge, a crossing).
struct marker {
    double x = 0, y = 0;
    std::string label;
    std::size_t colour = 0;
};

/// A dotted guide line across the plot: horizontal at y = value, or vertical at x = value.
struct guide {
    bool horizontal = true;
    double value = 0;
    std::string label;
};

/// An x-y chart. Axis ticks print `tick_unit` with SI prefixes when it is set ("B": 1 kB,
/// 1 MB), else as plain numbers.
struct chart {
    std::string title{}, subtitle{}, x_label{}, y_label{}, x_tick_unit{}, y_tick_unit{};
    bool log_x = true, log_y = true;
    std::vector<series> lines{};
    std::vector<marker> markers{};
    std::vector<guide> guides{};
    std::vector<std::string> notes{};
};

namespace detail {
inline bool drawable(double v, bool log) {
    return std::isfinite(v) && (!log || v > 0);
}

inline std::string tick(double v, const std::string& unit) {
    if (!unit.empty()) return roofline::report::format_si(v, unit, 3, true);
    if (v >= 1) return roofline::report::format_count(v);
    return roofline::report::detail::trim_zeros(fmt::format("{:.6f}", v));
}

/// An axis over the values `vs`: decades on a log axis, a 0-based nice range on a linear one.
struct axis {
    bool log = true;
    double lo = 1, hi = 10, px_lo = 0, px_hi = 1;
    double operator()(double v) const {
        return log ? svg::log_axis{lo, hi, px_lo, px_hi}(v)
                   : svg::linear_axis{lo, hi, px_lo, px_hi}(v);
    }
    std::vector<double> ticks() const {
        if (log) return svg::log_axis{lo, hi, px_lo, px_hi}.decades();
        std::vector<double> t;
        const double step = svg::nice_step(hi - lo);
        for (double v = lo; v <= hi * (1 + 1e-9); v += step) t.push_back(v);
        return t;
    }
};

inline axis make_axis(const std::vector<double>& vs, bool log, double px_lo, double px_hi) {
    double lo = 0, hi = 0;
    bool any = false;
    for (double v : vs)
        if (drawable(v, log)) {
            lo = any ? std::min(lo, v) : v;
            hi = any ? std::max(hi, v) : v;
            any = true;
        }
    if (!any) return {log, 1, 10, px_lo, px_hi};
    if (log) {  // to the next power of ten, or 1.6x beyond the data when that is nearer
        lo = std::max(svg::decade_floor(lo), lo / 1.6);
        hi = std::min(svg::decade_ceil(hi), hi * 1.6);
        if (hi <= lo * 10) hi = lo * 10;
    } else {
        lo = std::min(0.0, lo);
        const double step = svg::nice_step(hi - lo);
        hi = std::ceil(hi / step) * step;
        if (hi <= lo) hi = lo + 1;
    }
    return {log, lo, hi, px_lo, px_hi};
}
}  // namespace detail

/// The chart as standalone SVG text, 900 px wide: plot on the left, legend on the right,
/// footnotes below. Points that cannot be drawn (NaN, or <= 0 on a log axis) are left out.
inline std::string render(const chart& c) {
    const double width = 900, left = 78, top = 64, plot_w = 600, plot_h = 420;
    const double height = top + plot_h + 58 + 16.0 * static_cast<double>(c.notes.size());
    std::vector<double> xs, ys;
    for (const auto& s : c.lines)
        for (auto [x, y] : s.xy) xs.push_back(x), ys.push_back(y);
    for (const auto& m : c.markers) xs.push_back(m.x), ys.push_back(m.y);
    for (const auto& g : c.guides) (g.horizontal ? ys : xs).push_back(g.value);
    const auto X = detail::make_axis(xs, c.log_x, left, left + plot_w);
    const auto Y = detail::make_axis(ys, c.log_y, top + plot_h, top);
    const svg::rect plot{left, top, plot_w, plot_h};
    const std::string clip = fmt::format("clip{:x}", svg::fnv1a(c.title));
    std::string b =
        fmt::format(R"(<clipPath id="{}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>)"
                    "\n",
                    clip, svg::num(left), svg::num(top), svg::num(plot_w), svg::num(plot_h));
    b += svg::text(16, 26, c.title, 17, "start", "#222", R"(font-weight="bold")");
    b += svg::text(16, 46, c.subtitle, 12, "start", "#555");
    for (double t : X.ticks()) {  // grid and tick labels
        b += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/>)"
                         "\n",
                         svg::num(X(t)), svg::num(top), svg::num(top + plot_h));
        b += svg::text(X(t), top + plot_h + 16, detail::tick(t, c.x_tick_unit), 11, "middle",
                       "#444");
    }
    for (double t : Y.ticks()) {
        b += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/>)"
                         "\n",
                         svg::num(left), svg::num(Y(t)), svg::num(left + plot_w));
        b += svg::text(left - 6, Y(t) + 4, detail::tick(t, c.y_tick_unit), 11, "end", "#444");
    }
    b += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)"
                     "\n",
                     svg::num(left), svg::num(top), svg::num(plot_w), svg::num(plot_h));
    b += svg::text(left + plot_w / 2, top + plot_h + 38, c.x_label, 13, "middle");
    b += fmt::format(R"~(<g transform="translate(20 {}) rotate(-90)">)~",
                     svg::num(top + plot_h / 2));
    b += svg::text(0, 0, c.y_label, 13, "middle") + "</g>\n";
    svg::label_placer placer(plot);
    b += fmt::format(R"~(<g clip-path="url(#{})" fill="none" stroke-width="2">)~"
                     "\n",
                     clip);
    for (const auto& s : c.lines) {
        std::string pts;
        const auto flush = [&] {
            if (pts.empty()) return;
            b += fmt::format(R"(<polyline points="{}" stroke="{}"{}/>)"
                             "\n",
                             pts, svg::series_colour(s.colour),
                             s.dashed ? R"( stroke-dasharray="7 4")" : "");
            pts.clear();
        };
        double px = 0, py = 0;
        for (auto [x, y] : s.xy) {
            if (!detail::drawable(x, c.log_x) || !detail::drawable(y, c.log_y)) {
                flush();
                continue;
            }
            if (!pts.empty()) placer.add_segment(px, py, X(x), Y(y), 0.5);
            px = X(x), py = Y(y);
            if (!pts.empty())
                pts += ' ';  // appends, not `"" + std::string`: GCC bug 105329 (-Wrestrict)
            pts += svg::num(px);
            pts += ',';
            pts += svg::num(py);
        }
        flush();
    }
    b += "</g>\n";
    for (const auto& g : c.guides) {  // after the lines, so that their labels avoid them
        const bool h = g.horizontal;
        if (!detail::drawable(g.value, h ? c.log_y : c.log_x)) continue;
        const double p = h ? Y(g.value) : X(g.value), w = svg::text_width(g.label, 11);
        b += fmt::format(
            R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#666" stroke-dasharray="2 3"/>)"
            "\n",
            svg::num(h ? left : p), svg::num(h ? p : top), svg::num(h ? left + plot_w : p),
            svg::num(h ? p : top + plot_h));
        // Label candidates: right end above / below the line, left end above / below (vertical:
        // bottom and top, right of the line).
        const std::vector<svg::rect> boxes =
            h ? std::vector<svg::rect>{{left + plot_w - 4 - w, p - 15, w, 12},
                                       {left + plot_w - 4 - w, p + 3, w, 12},
                                       {left + 4, p - 15, w, 12},
                                       {left + 4, p + 3, w, 12}}
              : std::vector<svg::rect>{{p + 4, top + plot_h - 18, w, 12}, {p + 4, top + 6, w, 12}};
        const auto& r = boxes[placer.place(boxes)];
        b += svg::text(r.x, r.y + 10, g.label, 11, "start", "#444", svg::halo);
    }
    for (const auto& m : c.markers) {  // circles first, so that labels avoid every circle
        if (!detail::drawable(m.x, c.log_x) || !detail::drawable(m.y, c.log_y)) continue;
        b += fmt::format(R"(<circle cx="{}" cy="{}" r="4.5" fill="{}" stroke="#fff"/>)"
                         "\n",
                         svg::num(X(m.x)), svg::num(Y(m.y)), svg::series_colour(m.colour));
        placer.add_obstacle({X(m.x) - 5, Y(m.y) - 5, 10, 10});
    }
    for (const auto& m : c.markers) {
        if (!detail::drawable(m.x, c.log_x) || !detail::drawable(m.y, c.log_y) || m.label.empty())
            continue;
        const auto boxes =
            svg::candidates_around(X(m.x), Y(m.y), 4.5, svg::text_width(m.label, 11), 12, 3);
        const auto& r = boxes[placer.place(boxes)];
        b +=
            svg::text(r.x, r.y + 10, m.label, 11, "start", svg::series_colour(m.colour), svg::halo);
    }
    double ly = top + 8;  // legend
    for (const auto& s : c.lines) {
        const double lx = left + plot_w + 16;
        b +=
            fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)"
                        "\n",
                        svg::num(lx), svg::num(ly), svg::num(lx + 24), svg::num(ly),
                        svg::series_colour(s.colour), s.dashed ? R"( stroke-dasharray="7 4")" : "");
        b += svg::text(lx + 30, ly + 4, s.name, 12);
        ly += 19;
    }
    double ny = top + plot_h + 62;
    for (const auto& n : c.notes) b += svg::text(16, ny, n, 11, "start", "#555"), ny += 16;
    return svg::document(width, height, c.title, b);
}

/// Prints `text` to stdout and writes the chart to `path` (saying where on stderr, so that
/// stdout does not depend on the path).
inline void finish(const std::string& text, const chart& c, const std::string& path) {
    write_file(path, render(c));
    std::fputs((text.empty() || text.back() == '\n' ? text : text + "\n").c_str(), stdout);
    std::fputs(("chart: " + path + "\n").c_str(), stderr);
}

/// Runs `body(options)` as a program's main: a library error is one line on stderr and exit 2.
template <class F>
int run(int argc, char** argv, std::string_view name, F&& body) {
    try {
        body(parse_options(argc, argv, name));
        return 0;
    } catch (const std::exception& e) {
        std::fputs((std::string(name) + ": " + e.what() + "\n").c_str(), stderr);
        return 2;
    }
}

}  // namespace learn
