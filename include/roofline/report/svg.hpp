#pragma once
// Building blocks shared by the SVG charts (svg_roofline.hpp, svg_pareto.hpp): axis scales,
// tick positions, an estimate of text width, label placement that avoids overlaps, and the
// colour palettes.
//
// The charts are standalone SVG 1.1 text: no script, no external fonts or files. Text uses the
// generic font stack "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif", so it renders
// wherever the file is opened; widths are estimated (0.6 em per character, DejaVu Sans' mean
// advance for mixed text rounded up), since no font metrics are at hand.

#include <fmt/format.h>

#include <algorithm>    // std::max, std::min
#include <array>        // std::array
#include <cmath>        // std::isfinite, std::log10, std::pow, std::floor, std::ceil
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/bound.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/table.hpp"

namespace roofline::report::svg {

/// A coordinate or length for an SVG attribute, one decimal. A non-finite value (a bug upstream:
/// callers filter those out) prints as 0 so that no "nan" ever reaches a document.
std::string num(double v);

/// FNV-1a hash of a string: a stable id for a chart's clip path, so that several charts can be
/// inlined into one HTML document without their ids colliding.
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ull);

/// Font stack of every chart.
inline constexpr std::string_view font_family =
    "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";

/// Estimated width in pixels of `s` set at `font_px`.
double text_width(std::string_view s, double font_px);

/// Axis-aligned rectangle in pixels (y grows downwards, as in SVG).
struct rect {
    double x = 0, y = 0, w = 0, h = 0;
    double right() const { return x + w; }
    double bottom() const { return y + h; }
    /// Area shared with `o`.
    double overlap(const rect& o) const {
        const double dx = std::min(right(), o.right()) - std::max(x, o.x);
        const double dy = std::min(bottom(), o.bottom()) - std::max(y, o.y);
        return dx > 0 && dy > 0 ? dx * dy : 0.0;
    }
    /// Area of this rectangle outside `bounds`.
    double outside(const rect& bounds) const { return w * h - overlap(bounds); }
};

/// True when the segment (x1,y1)-(x2,y2) passes through `r` (Liang-Barsky clipping).
bool segment_hits(const rect& r, double x1, double y1, double x2, double y2);

/// A logarithmic axis mapping [lo, hi] (lo > 0) onto pixels [px_lo, px_hi] (px_hi may be
/// smaller than px_lo, for a y axis that grows upwards).
struct log_axis {
    double lo = 1, hi = 10, px_lo = 0, px_hi = 1;
    double operator()(double v) const {
        return px_lo + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) *
                           (px_hi - px_lo);
    }
    /// Pixels per factor of ten.
    double px_per_decade() const {
        return std::abs(px_hi - px_lo) / (std::log10(hi) - std::log10(lo));
    }
    /// The powers of ten inside [lo, hi].
    std::vector<double> decades() const {
        std::vector<double> out;
        for (int e = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
             e <= static_cast<int>(std::floor(std::log10(hi) + 1e-9)); ++e)
            out.push_back(std::pow(10.0, e));
        return out;
    }
    /// 2x ... 9x each power of ten inside [lo, hi] (minor grid lines).
    std::vector<double> minor_ticks() const {
        std::vector<double> out;
        for (int e = static_cast<int>(std::floor(std::log10(lo)));
             e <= static_cast<int>(std::ceil(std::log10(hi))); ++e)
            for (int m = 2; m <= 9; ++m) {
                const double v = m * std::pow(10.0, e);
                if (v > lo && v < hi) out.push_back(v);
            }
        return out;
    }
};

/// A linear axis mapping [lo, hi] onto pixels [px_lo, px_hi].
struct linear_axis {
    double lo = 0, hi = 1, px_lo = 0, px_hi = 1;
    double operator()(double v) const { return px_lo + (v - lo) / (hi - lo) * (px_hi - px_lo); }
};

/// The largest power of ten at or below `v` (v > 0).
double decade_floor(double v);
/// The smallest power of ten at or above `v` (v > 0).
double decade_ceil(double v);

/// "Nice" tick step (1, 2 or 5 x 10^k) giving about `target` intervals over [0, span].
double nice_step(double span, int target = 6);

/// Places text labels so that they overlap neither one another nor declared obstacles, and stay
/// inside the plot. Each label offers candidate boxes in order of preference; the first one that
/// collides with nothing wins, else the one that collides least (a simple, deterministic nudge:
/// no iterative relaxation, so the same input always draws the same chart).
class label_placer {
  public:
    explicit label_placer(rect bounds) : bounds_(bounds) {}

    /// Something labels should stay off (another label, a circle's bounding box, a legend).
    /// `weight` scales the penalty per unit of overlapped area (labels: 1; circles: less).
    void add_obstacle(const rect& r, double weight = 1.0) { obstacles_.push_back({r, weight}); }

    /// A line labels should not cross (a ceiling: weight 1; a guide line: less).
    void add_segment(double x1, double y1, double x2, double y2, double weight = 1.0) {
        segments_.push_back({{x1, y1, x2, y2}, weight});
    }

    /// The best of `candidates` (all of the label's size) and its cost, without reserving it.
    std::pair<std::size_t, double> best(const std::vector<rect>& candidates) const {
        std::size_t best = 0;
        double best_cost = 0.0;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const double c = cost(candidates[i]) + 0.01 * static_cast<double>(i);
            if (i == 0 || c < best_cost) {
                best = i;
                best_cost = c;
            }
            if (c < 0.01 * static_cast<double>(i) + 1e-9) break;  // collides with nothing: take it
        }
        return {best, best_cost - 0.01 * static_cast<double>(best)};
    }

    /// Picks the best of `candidates`, reserves it as an obstacle and returns its index.
    std::size_t place(const std::vector<rect>& candidates) {
        const std::size_t i = best(candidates).first;
        if (!candidates.empty()) add_obstacle(candidates[i]);
        return i;
    }

    /// The cost of a box: ten times the overlapped area (as a fraction of the box) times the
    /// obstacle's weight, plus the weight of each line crossed, plus ten times the fraction
    /// outside the plot. Text on text is the worst outcome; crossing a line is tolerable.
    double cost(const rect& r) const {
        const double area = std::max(r.w * r.h, 1.0);
        double c = 10.0 * r.outside(bounds_) / area;
        for (const auto& o : obstacles_) {
            const double a = r.overlap(o.box);
            if (a > 0.0) c += o.weight * (1.0 + 10.0 * a / area);
        }
        for (const auto& s : segments_)
            if (segment_hits(r, s.xy[0], s.xy[1], s.xy[2], s.xy[3])) c += s.weight;
        return c;
    }

  private:
    struct obstacle {
        rect box;
        double weight;
    };
    rect bounds_;
    std::vector<obstacle> obstacles_;
    struct segment {
        std::array<double, 4> xy;
        double weight;
    };
    std::vector<segment> segments_;
};

/// Candidate boxes (w x h) for the label of a circle at (cx, cy) of radius r: right, left,
/// above, below and the diagonals, on `rings` rings moving outwards. `ring_of[i]` receives the
/// ring of candidate i (0 = touching the circle), so that far labels can get a leader line.
std::vector<rect> candidates_around(double cx, double cy, double r, double w, double h,
                                    int rings, std::vector<int>* ring_of = nullptr);

/// Colour of each bound, from the Okabe-Ito palette (distinguishable with the common colour
/// vision deficiencies): compute blue, memory orange, power vermillion, communication bluish
/// green, latency reddish purple.
std::string_view bound_colour(bound b);

/// Categorical colours (Okabe-Ito without yellow, then sky blue and grey): series i takes
/// colour i modulo 8.
std::string_view series_colour(std::size_t i);

/// `<text>` element at (x, y) (baseline) with escaped content. `anchor`: start, middle or end.
/// `extra` holds further attributes (already escaped), e.g. `font-weight="bold"`.
std::string text(double x, double y, std::string_view content, double font_px,
                 std::string_view anchor = "start", std::string_view fill = "#222",
                 std::string_view extra = {});

/// A whole SVG document: the root element (size, font, accessible title), a white background,
/// then `body`.
std::string document(double width, double height, std::string_view title,
                     std::string_view body);

/// Attributes that draw a white halo behind text, so labels stay readable over grid lines.
inline constexpr std::string_view halo =
    R"(stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke")";

}  // namespace roofline::report::svg

#if ROOFLINE_BODIES_REPORT

namespace roofline::report::svg {
ROOFLINE_INLINE std::string num(double v) {
    if (!std::isfinite(v)) return "0";
    std::string s = fmt::format("{:.1f}", v);
    if (s == "-0.0") s = "0.0";
    return s;
}

ROOFLINE_INLINE std::uint64_t fnv1a(std::string_view s, std::uint64_t h) {
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

ROOFLINE_INLINE double text_width(std::string_view s, double font_px) {
    return static_cast<double>(display_width(s)) * 0.6 * font_px;
}

ROOFLINE_INLINE bool segment_hits(const rect& r, double x1, double y1, double x2, double y2) {
    double t0 = 0.0, t1 = 1.0;
    const double dx = x2 - x1, dy = y2 - y1;
    const std::array<double, 4> p = {-dx, dx, -dy, dy};
    const std::array<double, 4> q = {x1 - r.x, r.right() - x1, y1 - r.y, r.bottom() - y1};
    for (std::size_t i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false;
        } else {
            const double t = q[i] / p[i];
            if (p[i] < 0.0)
                t0 = std::max(t0, t);
            else
                t1 = std::min(t1, t);
        }
    }
    return t0 <= t1;
}

ROOFLINE_INLINE double decade_floor(double v) {
    return std::pow(10.0, std::floor(std::log10(v) + 1e-9));
}

ROOFLINE_INLINE double decade_ceil(double v) {
    return std::pow(10.0, std::ceil(std::log10(v) - 1e-9));
}

ROOFLINE_INLINE double nice_step(double span, int target) {
    if (!(span > 0.0)) return 1.0;
    const double raw = span / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / mag;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * mag;
}

ROOFLINE_INLINE std::vector<rect> candidates_around(double cx, double cy, double r, double w, double h,
                                                    int rings, std::vector<int>* ring_of) {
    std::vector<rect> out;
    for (int k = 0; k < rings; ++k) {
        const double d = 3.0 + k * (h + 2.0);
        const double q = r * 0.71 + d * 0.71;
        const std::array<rect, 8> c = {{
            {cx + r + d, cy - h / 2, w, h},      // right
            {cx + q, cy - q - h, w, h},          // upper right
            {cx + q, cy + q, w, h},              // lower right
            {cx - r - d - w, cy - h / 2, w, h},  // left
            {cx - w / 2, cy - r - d - h, w, h},  // above
            {cx - w / 2, cy + r + d, w, h},      // below
            {cx - q - w, cy - q - h, w, h},      // upper left
            {cx - q - w, cy + q, w, h},          // lower left
        }};
        for (const auto& b : c) {
            out.push_back(b);
            if (ring_of) ring_of->push_back(k);
        }
    }
    return out;
}

ROOFLINE_INLINE std::string_view bound_colour(bound b) {
    constexpr std::array<std::string_view, 5> colours = {"#0072B2", "#E69F00", "#D55E00", "#009E73",
                                                         "#CC79A7"};
    return colours[static_cast<std::size_t>(b)];
}

ROOFLINE_INLINE std::string_view series_colour(std::size_t i) {
    constexpr std::array<std::string_view, 8> colours = {
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"};
    return colours[i % colours.size()];
}

ROOFLINE_INLINE std::string text(double x, double y, std::string_view content, double font_px,
                                 std::string_view anchor, std::string_view fill,
                                 std::string_view extra) {
    return fmt::format(
        R"(<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}"{}{}>{}</text>)"
        "\n",
        num(x), num(y), num(font_px), anchor, fill, extra.empty() ? "" : " ", extra,
        escape_xml(content));
}

ROOFLINE_INLINE std::string document(double width, double height, std::string_view title,
                                     std::string_view body) {
    return fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
        R"(font-family="{2}" role="img">)"
        "\n<title>{3}</title>\n"
        R"(<rect x="0" y="0" width="{0}" height="{1}" fill="#ffffff"/>)"
        "\n{4}</svg>\n",
        num(width), num(height), font_family, escape_xml(title), body);
}

}  // namespace roofline::report::svg
#endif  // ROOFLINE_BODIES_REPORT
