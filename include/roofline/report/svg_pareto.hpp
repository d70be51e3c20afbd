#pragma once
// The capacity planner's chart: throughput against interactivity, with the Pareto front.
//
//   x = output tokens/s per user (interactivity: 1 / TPOT)
//   y = tokens/s per GPU (throughput: what a GPU-hour buys)
//
// Serving trades one for the other through the batch: more concurrent users raise throughput
// per GPU and lower each user's speed. A configuration is on the Pareto front when no other one
// is at least as good on both axes and better on one. The front is drawn as a step line (the
// edge of the region the configurations reach); each GPU's own front is drawn thin in its
// colour when several GPUs are compared. Front points are labelled; every point has a tooltip.
// Points whose coordinates are not finite positive numbers are skipped and counted in a note.

#include <fmt/format.h>

#include <algorithm>  // std::stable_sort, std::reverse, std::find, std::max, std::min
#include <cmath>      // std::isfinite, std::floor, std::ceil, std::hypot
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/pareto.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/svg.hpp"
#include "roofline/report/table.hpp"

namespace roofline::report {

/// One evaluated configuration.
struct pareto_point {
    std::string gpu;                     ///< series (one colour per GPU), e.g. "8x h200-sxm"
    std::string label;                   ///< the layout, e.g. "TP8 c=64"; drawn for front points
    double tokens_per_s_per_user = 0.0;  ///< x: output tokens/s each user sees
    double tokens_per_s_per_gpu = 0.0;   ///< y: total tokens/s divided by the GPU count
    std::string detail;                  ///< further tooltip lines (TTFT, TPOT, bound, ...)
};

/// A Pareto chart: titles, points, footnotes, axis scales and size in pixels.
struct pareto_chart {
    std::string title;
    std::string subtitle;
    std::vector<pareto_point> points;
    std::vector<std::string> notes;
    bool log_x = false;  ///< logarithmic x axis (for sweeps spanning decades)
    bool log_y = false;  ///< logarithmic y axis
    double width_px = 1000.0;
    double height_px = 640.0;
};

/// Indices of the points on the Pareto front (maximising both axes), ordered by x ascending
/// (so y descending). Points with a non-finite or non-positive coordinate are ignored; of
/// identical points only the first is kept (analysis/pareto.hpp).
std::vector<std::size_t> pareto_front(const std::vector<pareto_point>& pts);

/// The chart as standalone SVG text (no XML declaration; can be inlined into HTML).
std::string render_pareto_svg(const pareto_chart& chart);

}  // namespace roofline::report

#if ROOFLINE_BODIES_REPORT

namespace roofline::report {
ROOFLINE_INLINE std::vector<std::size_t> pareto_front(const std::vector<pareto_point>& pts) {
    return roofline::pareto_front(
        pts, [](const pareto_point& p) { return p.tokens_per_s_per_user; },
        [](const pareto_point& p) { return p.tokens_per_s_per_gpu; });
}

namespace detail {

/// Marker radii of the Pareto chart (px): a front point, an off-front one, and what a ring (a
/// point another GPU's covers) adds around either.
inline constexpr double front_marker_px = 5.5, off_front_marker_px = 4.0, ring_extra_px = 3.0;

/// Axis mapping for the Pareto chart: linear from 0 with "nice" ticks, or logarithmic by decades.
struct pareto_axis {
    bool log = false;
    double step = 1.0;  ///< linear tick step; the axis ends on a multiple of it
    svg::linear_axis lin;
    svg::log_axis lg;
    double operator()(double v) const { return log ? lg(v) : lin(v); }
    std::vector<double> ticks() const {
        if (log) return lg.decades();
        std::vector<double> out;
        for (int k = 0; k * step <= lin.hi * (1 + 1e-9); ++k) out.push_back(k * step);
        return out;
    }
    static pareto_axis make(bool log, double lo, double hi, double px_lo, double px_hi) {
        pareto_axis a;
        a.log = log;
        if (log) {
            a.lg = {svg::decade_floor(lo / 1.2), svg::decade_ceil(hi * 1.2), px_lo, px_hi};
        } else {
            a.step = svg::nice_step(hi);
            a.lin = {0.0, std::ceil(hi * 1.05 / a.step) * a.step, px_lo, px_hi};
        }
        return a;
    }
};

inline std::string tick_text(double v) {
    if (v >= 1.0 || v == 0.0) return format_count(v);
    return trim_zeros(fmt::format("{:.6f}", v));
}

/// Step line through front points (x ascending, y descending): from each point straight down
/// to the next one's y, then across to it: the edge of the union of the boxes [0, x] x [0, y].
inline std::string step_path(const std::vector<std::pair<double, double>>& px) {
    std::string d;
    for (std::size_t i = 0; i < px.size(); ++i) {
        if (i == 0) {
            d += fmt::format("M{} {}", svg::num(px[i].first), svg::num(px[i].second));
        } else {
            d += fmt::format(" L{} {} L{} {}", svg::num(px[i - 1].first), svg::num(px[i].second),
                             svg::num(px[i].first), svg::num(px[i].second));
        }
    }
    return d;
}

}  // namespace detail

ROOFLINE_INLINE std::string render_pareto_svg(const pareto_chart& chart) {
    using svg::num;
    std::vector<pareto_point> pts;
    std::size_t skipped = 0;
    for (const auto& p : chart.points) {
        if (std::isfinite(p.tokens_per_s_per_user) && std::isfinite(p.tokens_per_s_per_gpu) &&
            p.tokens_per_s_per_user > 0 && p.tokens_per_s_per_gpu > 0)
            pts.push_back(p);
        else
            ++skipped;
    }
    // Series in order of first appearance.
    std::vector<std::string> gpus;
    for (const auto& p : pts)
        if (std::find(gpus.begin(), gpus.end(), p.gpu) == gpus.end()) gpus.push_back(p.gpu);
    auto series_of = [&gpus](const std::string& g) {
        return static_cast<std::size_t>(std::find(gpus.begin(), gpus.end(), g) - gpus.begin());
    };

    std::vector<std::string> notes;
    if (skipped)
        notes.push_back(
            fmt::format("{} point{} not drawn: a coordinate is not a finite positive number",
                        skipped, skipped == 1 ? "" : "s"));
    for (const auto& n : chart.notes) notes.push_back(n);
    const double width = chart.width_px;
    const svg::rect plot{96.0, 70.0, width - 96.0 - 40.0, chart.height_px - 70.0 - 116.0};

    double x_min = 1, x_max = 1, y_min = 1, y_max = 1;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double x = pts[i].tokens_per_s_per_user, y = pts[i].tokens_per_s_per_gpu;
        x_min = i ? std::min(x_min, x) : x;
        x_max = i ? std::max(x_max, x) : x;
        y_min = i ? std::min(y_min, y) : y;
        y_max = i ? std::max(y_max, y) : y;
    }
    const auto xa = detail::pareto_axis::make(chart.log_x, x_min, x_max, plot.x, plot.right());
    const auto ya = detail::pareto_axis::make(chart.log_y, y_min, y_max, plot.bottom(), plot.y);
    const std::string clip_id = fmt::format(
        "pareto-clip-{:016x}",
        svg::fnv1a(chart.title + "\n" + chart.subtitle + "\n" + std::to_string(pts.size())));

    std::string out;
    out += fmt::format(
        R"(<defs><clipPath id="{}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>)"
        "\n",
        clip_id, num(plot.x - 8), num(plot.y - 8), num(plot.w + 16), num(plot.h + 16));
    out += svg::text(plot.x, 30, chart.title, 18, "start", "#111", R"(font-weight="bold")");
    if (!chart.subtitle.empty()) out += svg::text(plot.x, 52, chart.subtitle, 13, "start", "#555");

    // Grid, ticks, axis titles.
    for (double v : xa.ticks()) {
        out += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e2e2e2"/>)"
                           "\n",
                           num(xa(v)), num(plot.y), num(plot.bottom()));
        out += svg::text(xa(v), plot.bottom() + 19, detail::tick_text(v), 12, "middle", "#333");
    }
    for (double v : ya.ticks()) {
        out += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#e2e2e2"/>)"
                           "\n",
                           num(ya(v)), num(plot.x), num(plot.right()));
        out += svg::text(plot.x - 8, ya(v) + 4, detail::tick_text(v), 12, "end", "#333");
    }
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)"
                       "\n",
                       num(plot.x), num(plot.y), num(plot.w), num(plot.h));
    out += svg::text(plot.x + plot.w / 2, plot.bottom() + 42,
                     "Interactivity (output tokens/s per user)", 13, "middle", "#222");
    out += svg::text(0, 0, "Throughput (tokens/s per GPU)", 13, "middle", "#222",
                     fmt::format(R"~(transform="translate({} {}) rotate(-90)")~", num(22),
                                 num(plot.y + plot.h / 2)));

    // Fronts: each GPU's own (thin, when several are compared), then the overall one.
    const auto front = pareto_front(pts);
    out += fmt::format(
        R"~(<g class="fronts" clip-path="url(#{})" fill="none" stroke-linejoin="round">)~"
        "\n",
        clip_id);
    if (gpus.size() > 1)
        for (std::size_t s = 0; s < gpus.size(); ++s) {
            std::vector<pareto_point> sub;
            for (const auto& p : pts)
                if (p.gpu == gpus[s]) sub.push_back(p);
            std::vector<std::pair<double, double>> px;
            for (auto i : pareto_front(sub))
                px.emplace_back(xa(sub[i].tokens_per_s_per_user), ya(sub[i].tokens_per_s_per_gpu));
            // Every other series dashed: two GPUs whose fronts coincide (a Max-Q and a
            // Workstation card on a decode-bound load) still show both colours.
            if (px.size() > 1)
                out += fmt::format(
                    R"(<path d="{}" stroke="{}" stroke-width="1.3" stroke-opacity="0.75"{}/>)"
                    "\n",
                    detail::step_path(px), svg::series_colour(s), s % 2 ? R"( stroke-dasharray="6 4")" : "");
        }
    std::vector<std::pair<double, double>> front_px;
    for (auto i : front)
        front_px.emplace_back(xa(pts[i].tokens_per_s_per_user), ya(pts[i].tokens_per_s_per_gpu));
    if (front_px.size() > 1)
        out += fmt::format(R"(<path class="pareto-front" d="{}" stroke="#222" stroke-width="2.2"/>)"
                           "\n",
                           detail::step_path(front_px));
    out += "</g>\n";

    // Points: off-front ones small and light, front ones larger with a dark ring.
    svg::label_placer placer(plot);
    std::vector<bool> on_front(pts.size(), false);
    for (auto i : front) on_front[i] = true;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double cx = xa(pts[i].tokens_per_s_per_user), cy = ya(pts[i].tokens_per_s_per_gpu);
        const double r = on_front[i] ? detail::front_marker_px : detail::off_front_marker_px;
        placer.add_obstacle({cx - r, cy - r, 2 * r, 2 * r}, 0.5);
    }
    for (std::size_t k = 1; k < front_px.size(); ++k) {
        placer.add_segment(front_px[k - 1].first, front_px[k - 1].second, front_px[k - 1].first,
                           front_px[k].second);
        placer.add_segment(front_px[k - 1].first, front_px[k].second, front_px[k].first,
                           front_px[k].second);
    }
    out += fmt::format(R"~(<g class="points" clip-path="url(#{})">)~"
                       "\n",
                       clip_id);
    // Two GPUs can give the same point (a Max-Q and a Workstation card where power does not
    // bind). A point that another GPU's point covers (drawn later within 1.5 px) is drawn as a
    // wider ring around it, so both colours show and every point keeps its size; the legend
    // says so.
    std::vector<std::size_t> order;
    for (int pass = 0; pass < 2; ++pass)  // front points on top
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (on_front[i] == (pass == 1)) order.push_back(i);
    std::vector<bool> covered(pts.size(), false);
    for (std::size_t a = 0; a < order.size(); ++a)
        for (std::size_t b = a + 1; b < order.size() && !covered[order[a]]; ++b) {
            const auto& p = pts[order[a]];
            const auto& q = pts[order[b]];
            covered[order[a]] = p.gpu != q.gpu &&
                                std::hypot(xa(p.tokens_per_s_per_user) - xa(q.tokens_per_s_per_user),
                                           ya(p.tokens_per_s_per_gpu) - ya(q.tokens_per_s_per_gpu)) <= 1.5;
        }
    const bool ringed_any = std::find(covered.begin(), covered.end(), true) != covered.end();
    for (const std::size_t i : order) {
        const auto& p = pts[i];
        const double radius = (on_front[i] ? detail::front_marker_px : detail::off_front_marker_px) +
                              (covered[i] ? detail::ring_extra_px : 0.0);
        const auto colour = svg::series_colour(series_of(p.gpu));
        std::string tip =
            fmt::format("{} \u00b7 {}\ntokens/s per user: {}\ntokens/s per GPU: {}", p.gpu,
                        p.label, format_significant(p.tokens_per_s_per_user),
                        format_significant(p.tokens_per_s_per_gpu));
        if (on_front[i]) tip += "\non the Pareto front";
        if (!p.detail.empty()) tip += "\n" + p.detail;
        out += fmt::format(
            R"(<g class="point{}{}"><title>{}</title><circle cx="{}" cy="{}" r="{}" fill="{}" )"
            R"(fill-opacity="{}" stroke="{}" stroke-width="{}"/></g>)"
            "\n",
            on_front[i] ? " front" : "", covered[i] ? " ringed" : "", escape_xml(tip),
            num(xa(p.tokens_per_s_per_user)), num(ya(p.tokens_per_s_per_gpu)), num(radius), colour,
            covered[i] ? "0.15" : on_front[i] ? "0.9" : "0.45", covered[i] ? colour : on_front[i] ? "#222" : colour,
            covered[i] ? "2.5" : on_front[i] ? "1.5" : "1");
    }
    out += "</g>\n";

    // Labels of front points.
    const double fs = 11.0, lh = 14.0;
    out += "<g class=\"point-labels\">\n";
    for (auto i : front) {
        const auto& p = pts[i];
        if (p.label.empty()) continue;
        const std::string t = ellipsize_middle(p.label, 40);
        const double cx = xa(p.tokens_per_s_per_user), cy = ya(p.tokens_per_s_per_gpu);
        std::vector<int> ring;
        const auto cand = svg::candidates_around(cx, cy, detail::front_marker_px, svg::text_width(t, fs), lh, 4, &ring);
        // A label within twice its own point's distance of another point can read as that
        // point's (text beside a point on its line more than text above or below it: vertical
        // gaps count double); a point drawn where this one is (another GPU's, ringed) is no
        // other place to mistake it for:
        // such a place costs as much as crossing a line, and where it is still taken a leader
        // line says which point it names.
        const auto gap = [](const svg::rect& b, double px, double py) {
            return std::hypot(std::max({b.x - px, 0.0, px - b.right()}), 2.0 * std::max({b.y - py, 0.0, py - b.bottom()}));
        };
        const auto ambiguous = [&](const svg::rect& b) {
            const double own = gap(b, cx, cy);
            for (std::size_t j = 0; j < pts.size(); ++j) {
                const double px = xa(pts[j].tokens_per_s_per_user), py = ya(pts[j].tokens_per_s_per_gpu);
                const bool under_marker = std::hypot(px - cx, py - cy) <= detail::front_marker_px + detail::ring_extra_px;
                if (j != i && !under_marker && gap(b, px, py) < 2.0 * own) return true;
            }
            return false;
        };
        std::size_t k = 0;
        double k_cost = 0.0;
        for (std::size_t c = 0; c < cand.size(); ++c) {
            const double cost = placer.cost(cand[c]) + (ambiguous(cand[c]) ? 1.0 : 0.0) + 0.01 * static_cast<double>(c);
            if (c == 0 || cost < k_cost) k = c, k_cost = cost;
        }
        placer.add_obstacle(cand[k]);
        const auto& b = cand[k];
        if (ring[k] >= 1 || ambiguous(b)) {
            const double tx = std::min(std::max(cx, b.x), b.right()),
                         ty = std::min(std::max(cy, b.y), b.bottom());
            out += fmt::format(
                R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#777" stroke-width="0.8"/>)"
                "\n",
                num(cx), num(cy), num(tx), num(ty));
        }
        out += svg::text(b.x, b.y + lh - 3.5, t, fs, "start", "#222", svg::halo);
    }
    out += "</g>\n";

    // Legend: one swatch per GPU, then the front; footnotes below.
    double y = plot.bottom() + 70, x = plot.x;
    for (std::size_t s = 0; s < gpus.size(); ++s) {
        const double w = 16 + svg::text_width(gpus[s], 12) + 18;
        if (x + w > width - 20) {
            x = plot.x;
            y += 20;
        }
        out += fmt::format(R"(<circle cx="{}" cy="{}" r="5.5" fill="{}" fill-opacity="0.9"/>)"
                           "\n",
                           num(x + 6), num(y), svg::series_colour(s));
        out += svg::text(x + 16, y + 4, gpus[s], 12, "start", "#333");
        x += w;
    }
    if (!front.empty()) {
        if (x + 150 > width - 20) {
            x = plot.x;
            y += 20;
        }
        out += fmt::format(
            R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#222" stroke-width="2.2"/>)"
            "\n",
            num(x), num(y), num(x + 22), num(y));
        out += svg::text(x + 28, y + 4, "Pareto front (labelled)", 12, "start", "#333");
    }
    y += 26;
    if (ringed_any) {
        out += svg::text(plot.x, y + 4,
                         "a wide ring around a point: another GPU gives the same point there (hover for both)", 11,
                         "start", "#666");
        y += 14;
    }
    for (const auto& n : notes) {
        out += svg::text(plot.x, y + 4, n, 11, "start", "#666");
        y += 14;
    }
    return svg::document(width, std::max(chart.height_px, y + 4),
                         chart.title.empty() ? "Pareto front" : chart.title, out);
}

}  // namespace roofline::report
#endif  // ROOFLINE_BODIES_REPORT
