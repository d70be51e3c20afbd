#pragma once
// The classic roofline chart (Williams, Waterman, Patterson, CACM 2009) as standalone SVG text.
//
//   attainable FLOP/s = min(P, I x W)        log-log: x = arithmetic intensity I (FLOP/byte),
//                                            y = FLOP/s; a memory roof is a line of slope 1
//                                            (bandwidth W), a compute roof a horizontal line (P)
//
// Drawn: one slope per memory level with a known bandwidth (DRAM; L2 where known, after Yang,
// Kurth and Williams 2020), one horizontal roof per requested rate class, the ridge point of
// each primary compute roof against the DRAM slope (I* = P / W), and optionally a dashed
// power-capped roof (compute peaks scale with the SM clock a power cap holds). Each measured
// phase or kernel is a circle at (its intensity, its achieved FLOP/s) whose AREA is its share of
// the time, coloured by the verdict's bound, with a tooltip (`<title>`) giving the numbers.
//
// Input is a plain struct, so any layer's results can be drawn; `ceiling_lines()` builds the
// ceilings from `roofline::ceilings`. Nothing that is not a finite positive number is drawn:
// such points and ceilings are skipped and counted in a footnote, never emitted as "nan".

#include <fmt/format.h>

#include <algorithm>  // std::sort, std::max, std::min
#include <cmath>      // std::isfinite, std::sqrt, std::atan2, std::hypot
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint8_t, std::uint64_t
#include <numbers>    // std::numbers::pi
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/bound.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/svg.hpp"
#include "roofline/report/table.hpp"

namespace roofline::report {

/// What a ceiling line bounds: bytes (a slope) or FLOP (a horizontal roof).
enum class ceiling_kind : std::uint8_t { memory, compute };

/// How a ceiling line is drawn.
enum class ceiling_style : std::uint8_t {
    primary,       ///< solid, dark: DRAM and the requested compute peaks (ridge points marked)
    secondary,     ///< solid, grey: further memory levels (L2)
    power_capped,  ///< dashed, in the power colour: a compute roof derated to a capped SM clock
};

/// One ceiling of the chart.
struct ceiling_line {
    ceiling_kind kind = ceiling_kind::compute;
    double value = 0.0;  ///< B/s for a memory slope, FLOP/s for a compute roof
    std::string name;    ///< "DRAM", "L2", "bf16", "bf16/fp16" (used in ridge labels)
    std::string label;   ///< the drawn text, e.g. "bf16 989 TFLOP/s", "DRAM 4.80 TB/s"
    ceiling_style style = ceiling_style::primary;
};

/// One measured phase or kernel.
struct chart_point {
    std::string label;  ///< drawn beside the circle (shortened if long) and in the tooltip
    double arithmetic_intensity = 0.0;                 ///< FLOP per DRAM byte
    double achieved_flops_per_s = 0.0;                 ///< FLOP / measured time
    double time_share = 0.0;                           ///< fraction of the total time, in (0, 1]
    roofline::bound bound = roofline::bound::latency;  ///< the verdict, sets the colour
    std::string detail;  ///< further tooltip lines (e.g. "61% of the bf16 roof")
};

/// A roofline chart: titles, ceilings, points, footnotes, and its size in pixels.
struct roofline_chart {
    std::string title;     ///< e.g. "NVIDIA H200 SXM 141GB: roofline"
    std::string subtitle;  ///< e.g. "h200-sxm, ceilings: datasheet (dense tensor peaks)"
    std::vector<ceiling_line> ceilings;
    std::vector<chart_point> points;
    std::vector<std::string> notes;  ///< footnotes, one line each
    double width_px = 1000.0;
    double height_px = 640.0;  ///< grows when footnotes need more room
};

/// Ceiling lines of `c` for a chart: the DRAM slope (primary), the L2 slope where its bandwidth
/// is known (secondary), and one primary compute roof per key in `keys` whose peak is known and
/// non-zero (unknown or unsupported ones are left out: the caller says why). Keys with the same
/// peak share one roof: "bf16/fp16 989 TFLOP/s".
std::vector<ceiling_line> ceiling_lines(const ceilings& c,
                                        const std::vector<peak_key>& keys);

/// The compute roof of rate class `k` at a capped SM clock: P_k x clock / reference (tensor
/// rates scale with the SM clock: rate = SMs x FLOP/clk/SM x clock), drawn dashed and labelled
/// "bf16 at 1410 MHz (power cap): 762 TFLOP/s". `reference_clock_hz` is the clock the peak
/// assumes (gpu_spec::tensor_clock_hz). Throws `usage_error` for a non-positive clock or an
/// unknown or zero peak.
ceiling_line power_capped_roof(const ceilings& c, peak_key k, double clock_hz,
                               double reference_clock_hz);

/// Radius in pixels of the circle for a time share: r = 36 px x sqrt(share), so that the AREA
/// is proportional to the share (a phase taking all the time is a 36 px circle). Shares above 1
/// are drawn as 1; the radius never falls below 2 px (shares under 0.3%) so every point stays
/// visible.
double point_radius_px(double time_share);

/// The time share of the legend's size key: its circle is drawn at `point_radius_px` of it and
/// labelled with it ("10%"), beside the caption "circle area = share of time:".
inline constexpr double size_key_share = 0.10;

/// The chart as standalone SVG text (UTF-8, no XML declaration, so it can also be inlined into
/// HTML). Layout: title and subtitle on top, the log-log plot, the bound legend and a size key
/// (when there are points), then footnotes. Never throws for bad numbers: they are skipped and
/// counted in a footnote.
std::string render_roofline_svg(const roofline_chart& chart);

/// A chart of `g`'s ceilings `c` for the rate classes `keys` (no points yet): titled with the
/// GPU's name, subtitled with its id and where the ceilings come from (`ceilings::origin`).
roofline_chart make_roofline_chart(const gpu_spec& g, const ceilings& c,
                                   const std::vector<peak_key>& keys);

}  // namespace roofline::report

#if ROOFLINE_BODIES_REPORT

namespace roofline::report {
ROOFLINE_INLINE std::vector<ceiling_line> ceiling_lines(const ceilings& c,
                                                        const std::vector<peak_key>& keys) {
    std::vector<ceiling_line> out;
    const double dram = c.bytes_at(memory_level::dram), l2 = c.bytes_at(memory_level::l2);
    if (std::isfinite(dram) && dram > 0.0)
        out.push_back({ceiling_kind::memory, dram, "DRAM", "DRAM " + format_bytes_per_s(dram),
                       ceiling_style::primary});
    if (std::isfinite(l2) && l2 > 0.0)
        out.push_back({ceiling_kind::memory, l2, "L2", "L2 " + format_bytes_per_s(l2),
                       ceiling_style::secondary});
    std::vector<ceiling_line> roofs;
    for (auto k : keys) {
        const double p = c.flops_at(k);
        if (!std::isfinite(p) || p <= 0.0) continue;
        bool merged = false;
        for (auto& r : roofs)
            if (std::abs(r.value - p) <= 1e-9 * p) {
                if (r.name.find(to_string(k)) == std::string::npos)
                    r.name += "/" + std::string(to_string(k));
                merged = true;
            }
        if (!merged)
            roofs.push_back(
                {ceiling_kind::compute, p, std::string(to_string(k)), {}, ceiling_style::primary});
    }
    for (auto& r : roofs) {
        r.label = r.name + " " + format_flops_per_s(r.value);
        out.push_back(std::move(r));
    }
    return out;
}

ROOFLINE_INLINE ceiling_line power_capped_roof(const ceilings& c, peak_key k, double clock_hz,
                                               double reference_clock_hz) {
    const double p = c.flops_at(k);
    if (!std::isfinite(p) || p <= 0.0)
        throw usage_error("power_capped_roof: the " + std::string(to_string(k)) +
                          " peak is unknown or zero");
    if (!(clock_hz > 0.0) || !(reference_clock_hz > 0.0) || !std::isfinite(clock_hz) ||
        !std::isfinite(reference_clock_hz))
        throw usage_error("power_capped_roof: clocks must be positive finite numbers of hertz");
    const double v = p * clock_hz / reference_clock_hz;
    std::string name = std::string(to_string(k)) + " at " + format_mhz(clock_hz) + " (power cap)";
    std::string label = name + ": " + format_flops_per_s(v);
    return {ceiling_kind::compute, v, std::move(name), std::move(label),
            ceiling_style::power_capped};
}

ROOFLINE_INLINE double point_radius_px(double time_share) {
    const double s = std::min(std::max(time_share, 0.0), 1.0);
    return std::max(36.0 * std::sqrt(s), 2.0);
}

namespace detail {

inline std::string x_tick_label(double v) {
    if (v >= 1.0) return format_count(v);
    return detail::trim_zeros(fmt::format("{:.6f}", v));
}

inline bool finite_positive(double v) {
    return std::isfinite(v) && v > 0.0;
}

}  // namespace detail

ROOFLINE_INLINE std::string render_roofline_svg(const roofline_chart& chart) {
    using svg::num;
    // ---- keep what can be drawn ----
    std::vector<ceiling_line> mem, comp;
    std::size_t skipped_ceilings = 0;
    for (const auto& c : chart.ceilings) {
        if (!detail::finite_positive(c.value)) {
            ++skipped_ceilings;
            continue;
        }
        (c.kind == ceiling_kind::memory ? mem : comp).push_back(c);
    }
    std::vector<chart_point> points;
    std::size_t skipped_points = 0;
    for (const auto& p : chart.points) {
        if (detail::finite_positive(p.arithmetic_intensity) &&
            detail::finite_positive(p.achieved_flops_per_s) &&
            detail::finite_positive(p.time_share))
            points.push_back(p);
        else
            ++skipped_points;
    }
    // Big circles first, so small ones are drawn on top and stay visible.
    std::stable_sort(points.begin(), points.end(), [](const chart_point& a, const chart_point& b) {
        return a.time_share > b.time_share;
    });

    double w_min = 0, w_max = 0, p_max = 0, p_min = 0;
    for (const auto& m : mem) {
        w_min = w_min == 0 ? m.value : std::min(w_min, m.value);
        w_max = std::max(w_max, m.value);
    }
    for (const auto& c : comp) {
        p_max = std::max(p_max, c.value);
        p_min = p_min == 0 ? c.value : std::min(p_min, c.value);
    }

    // ---- ranges: x from 0.1 to 10^4 FLOP/B at least, widened to hold every ridge and point ----
    double x_lo = 0.1, x_hi = 1e4;
    if (w_min > 0)
        for (const auto& c : comp)
            if (c.style == ceiling_style::primary)
                x_hi = std::max(x_hi, svg::decade_ceil(c.value / w_min * 5.0));
    double y_top = p_max, y_bottom = 0;
    for (const auto& p : points) {
        x_lo = std::min(x_lo, svg::decade_floor(p.arithmetic_intensity / 1.5));
        x_hi = std::max(x_hi, svg::decade_ceil(p.arithmetic_intensity * 1.5));
        y_top = std::max(y_top, p.achieved_flops_per_s);
    }
    if (y_top == 0) y_top = w_max > 0 ? w_max * x_hi : 1e15;
    if (w_min > 0)
        y_bottom = w_min * x_lo;
    else if (p_min > 0)
        y_bottom = p_min / 1e3;
    else
        y_bottom = y_top / 1e4;
    for (const auto& p : points) y_bottom = std::min(y_bottom, p.achieved_flops_per_s / 1.5);
    const double y_lo = svg::decade_floor(y_bottom);
    const double y_hi = y_top * 2.5;  // head room for the labels of the top roof

    // ---- geometry ----
    const double width = chart.width_px;
    std::vector<std::string> notes;
    if (skipped_points)
        notes.push_back(fmt::format(
            "{} point{} not drawn: intensity, rate or time share not a finite positive number",
            skipped_points, skipped_points == 1 ? "" : "s"));
    if (skipped_ceilings)
        notes.push_back(fmt::format("{} ceiling{} not drawn: value unknown or not positive",
                                    skipped_ceilings, skipped_ceilings == 1 ? "" : "s"));
    for (const auto& n : chart.notes) notes.push_back(n);
    const svg::rect plot{112.0, 70.0, width - 112.0 - 40.0, chart.height_px - 70.0 - 116.0};
    const svg::log_axis xa{x_lo, x_hi, plot.x, plot.right()};
    const svg::log_axis ya{y_lo, y_hi, plot.bottom(), plot.y};
    const std::string clip_id =
        fmt::format("roofline-clip-{:016x}", svg::fnv1a(chart.title + "\n" + chart.subtitle + "\n" +
                                                        std::to_string(points.size()) + "\n" +
                                                        std::to_string(comp.size() + mem.size())));

    std::string out;
    auto emit = [&out](const std::string& s) { out += s; };
    emit(fmt::format(
        R"(<defs><clipPath id="{}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>)"
        "\n",
        clip_id, num(plot.x), num(plot.y), num(plot.w), num(plot.h)));
    // Titles.
    emit(svg::text(plot.x, 30, chart.title, 18, "start", "#111", R"(font-weight="bold")"));
    if (!chart.subtitle.empty()) emit(svg::text(plot.x, 52, chart.subtitle, 13, "start", "#555"));

    // ---- grid and axes ----
    emit(R"(<g class="grid" stroke-width="1">)"
         "\n");
    for (double v : xa.minor_ticks())
        emit(fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#f0f0f0"/>)"
                         "\n",
                         num(xa(v)), num(plot.y), num(plot.bottom())));
    for (double v : ya.minor_ticks())
        emit(fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#f0f0f0"/>)"
                         "\n",
                         num(ya(v)), num(plot.x), num(plot.right())));
    for (double v : xa.decades())
        emit(fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#d4d4d4"/>)"
                         "\n",
                         num(xa(v)), num(plot.y), num(plot.bottom())));
    for (double v : ya.decades())
        emit(fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#d4d4d4"/>)"
                         "\n",
                         num(ya(v)), num(plot.x), num(plot.right())));
    emit("</g>\n");
    emit(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)"
                     "\n",
                     num(plot.x), num(plot.y), num(plot.w), num(plot.h)));
    for (double v : xa.decades()) {
        emit(fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#888"/>)"
                         "\n",
                         num(xa(v)), num(plot.bottom()), num(plot.bottom() + 5)));
        emit(svg::text(xa(v), plot.bottom() + 19, detail::x_tick_label(v), 12, "middle", "#333"));
    }
    for (double v : ya.decades()) {
        emit(fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#888"/>)"
                         "\n",
                         num(plot.x - 5), num(ya(v)), num(plot.x)));
        emit(svg::text(plot.x - 8, ya(v) + 4, format_si(v, "FLOP/s", 3, true), 12, "end", "#333"));
    }
    emit(svg::text(plot.x + plot.w / 2, plot.bottom() + 42, "Arithmetic intensity (FLOP/byte)", 13,
                   "middle", "#222"));
    emit(svg::text(0, 0, "Attainable performance (FLOP/s)", 13, "middle", "#222",
                   fmt::format(R"~(transform="translate({} {}) rotate(-90)")~", num(22),
                               num(plot.y + plot.h / 2))));

    // ---- ceilings ----
    svg::label_placer placer(plot);
    auto colour_of = [](const ceiling_line& c) -> std::string_view {
        switch (c.style) {
            case ceiling_style::primary:
                return "#222222";
            case ceiling_style::secondary:
                return "#7a7a7a";
            case ceiling_style::power_capped:
                return svg::bound_colour(bound::power);
        }
        return "#222222";
    };
    struct segment {
        double x1, y1, x2, y2;  // data space
    };
    std::vector<segment> mem_segments, comp_segments;
    for (const auto& m : mem) {
        double x1 = x_lo, x2 = p_max > 0 ? p_max / m.value : x_hi;
        x1 = std::max(x1, y_lo / m.value);
        x2 = std::min(x2, x_hi);
        mem_segments.push_back({x1, m.value * x1, x2, m.value * x2});
    }
    for (const auto& c : comp) {
        const double x1 = std::min(std::max(w_max > 0 ? c.value / w_max : x_lo, x_lo), x_hi);
        comp_segments.push_back({x1, c.value, x_hi, c.value});
    }
    emit(fmt::format(
        R"~(<g class="ceilings" clip-path="url(#{})" fill="none" stroke-linecap="round">)~"
        "\n",
        clip_id));
    auto draw_ceiling = [&](const ceiling_line& c, const segment& s) {
        const double px1 = xa(s.x1), py1 = ya(s.y1), px2 = xa(s.x2), py2 = ya(s.y2);
        placer.add_segment(px1, py1, px2, py2);
        emit(fmt::format(
            R"(<g><title>{}</title><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{}/></g>)"
            "\n",
            escape_xml(c.label), num(px1), num(py1), num(px2), num(py2), colour_of(c),
            c.style == ceiling_style::secondary ? "1.8" : "2.4",
            c.style == ceiling_style::power_capped ? R"( stroke-dasharray="9 6")" : ""));
    };
    for (std::size_t i = 0; i < mem.size(); ++i) draw_ceiling(mem[i], mem_segments[i]);
    for (std::size_t i = 0; i < comp.size(); ++i) draw_ceiling(comp[i], comp_segments[i]);
    emit("</g>\n");

    // Ridge points of the primary compute roofs against the lowest-bandwidth slope (DRAM).
    struct ridge {
        double x, y;
        std::string label;
    };
    std::vector<ridge> ridges;
    std::size_t primary_roofs = 0;
    for (const auto& c : comp) primary_roofs += c.style == ceiling_style::primary;
    if (w_min > 0)
        for (const auto& c : comp) {
            if (c.style != ceiling_style::primary) continue;
            const double r = c.value / w_min;
            if (r < x_lo || r > x_hi) continue;
            ridges.push_back({r, c.value,
                              (primary_roofs > 1 ? c.name + " ridge " : std::string("ridge ")) +
                                  format_flop_per_byte(r)});
        }
    for (const auto& r : ridges) {
        emit(fmt::format(
            R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#9a9a9a" stroke-dasharray="2 3"/>)"
            "\n",
            num(xa(r.x)), num(ya(r.y)), num(plot.bottom())));
        placer.add_segment(xa(r.x), ya(r.y), xa(r.x), plot.bottom(), 0.3);
    }

    // Circles are obstacles for every label (ceiling labels included).
    std::vector<double> radius(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        radius[i] = point_radius_px(points[i].time_share);
        const double cx = xa(points[i].arithmetic_intensity),
                     cy = ya(points[i].achieved_flops_per_s);
        placer.add_obstacle({cx - radius[i], cy - radius[i], 2 * radius[i], 2 * radius[i]}, 0.35);
    }

    // ---- ceiling labels ----
    const double label_px = 12.0, label_h = 15.0;
    emit(fmt::format(R"(<g class="ceiling-labels" font-size="{}">)"
                     "\n",
                     num(label_px)));
    // Compute roofs: right end above the line, else below it, else near its left end.
    for (std::size_t i = 0; i < comp.size(); ++i) {
        const auto& c = comp[i];
        const double y = ya(c.value), w = svg::text_width(c.label, label_px);
        const double left = xa(comp_segments[i].x1) + 10;
        std::vector<svg::rect> cand = {{plot.right() - 8 - w, y - 4 - label_h, w, label_h},
                                       {plot.right() - 8 - w, y + 4, w, label_h},
                                       {left, y - 4 - label_h, w, label_h},
                                       {left, y + 4, w, label_h}};
        // Then further off the line, clear of circles sitting on it.
        for (int k = 1; k <= 3; ++k) {
            cand.push_back({plot.right() - 8 - w, y + 4 + k * label_h, w, label_h});
            cand.push_back({plot.right() - 8 - w, y - 4 - (k + 1) * label_h, w, label_h});
        }
        const auto& b = cand[placer.place(cand)];
        emit(
            svg::text(b.x, b.y + label_h - 4, c.label, label_px, "start", colour_of(c), svg::halo));
    }
    // Memory slopes: along the line, 30% of the way up (in log space), rotated to its angle on
    // screen.
    const double angle =
        std::atan2(ya.px_per_decade(), xa.px_per_decade());  // radians above horizontal
    for (std::size_t i = 0; i < mem.size(); ++i) {
        const auto& s = mem_segments[i];
        const double t = 0.3;
        const double lx =
            std::pow(10.0, std::log10(s.x1) + t * (std::log10(s.x2) - std::log10(s.x1)));
        const double px = xa(lx), py = ya(mem[i].value * lx);
        const double w = svg::text_width(mem[i].label, label_px);
        const double ox = px - std::sin(angle) * 6.0, oy = py - std::cos(angle) * 6.0;
        emit(svg::text(ox, oy, mem[i].label, label_px, "start", colour_of(mem[i]),
                       fmt::format(R"~({} transform="rotate({:.2f} {} {})")~", svg::halo,
                                   -angle * 180.0 / std::numbers::pi, num(ox), num(oy))));
        // Reserve the rotated label as a chain of small boxes along its baseline.
        for (int k = 0; k < 4; ++k) {
            const double d = w * (k + 0.5) / 4.0;
            const double cx = ox + std::cos(angle) * d - std::sin(angle) * label_h / 2;
            const double cy = oy - std::sin(angle) * d - std::cos(angle) * label_h / 2;
            placer.add_obstacle({cx - w / 8 - 2, cy - label_h / 2, w / 4 + 4, label_h});
        }
    }
    // Ridge markers and labels: beside the marker, below the roof (the compute-bound side) when
    // there is room; otherwise (many roofs close together) upright along the ridge's drop line,
    // just above the x axis, where the label still sits on its own ridge.
    for (const auto& r : ridges) {
        const double px = xa(r.x), py = ya(r.y), w = svg::text_width(r.label, label_px);
        std::vector<svg::rect> cand;
        for (int k = 0; k < 2; ++k) cand.push_back({px + 8, py + 6 + k * label_h, w, label_h});
        for (int k = 0; k < 2; ++k) cand.push_back({px - 8 - w, py + 6 + k * label_h, w, label_h});
        cand.push_back({px - 8 - w, py - 6 - label_h, w, label_h});
        emit(fmt::format(
            R"(<circle cx="{}" cy="{}" r="4.5" fill="#ffffff" stroke="#222222" stroke-width="2"/>)"
            "\n",
            num(px), num(py)));
        const auto [k, cost] = placer.best(cand);
        if (cost < 1.0) {
            placer.add_obstacle(cand[k]);
            emit(svg::text(cand[k].x, cand[k].y + label_h - 4, r.label, label_px, "start", "#222",
                           svg::halo));
        } else {
            const double bx = px - 4, by = plot.bottom() - 6;
            placer.add_obstacle({bx - label_h + 4, by - w, label_h, w});
            emit(svg::text(
                bx, by, r.label, label_px, "start", "#222",
                fmt::format(R"~({} transform="rotate(-90 {} {})")~", svg::halo, num(bx), num(by))));
        }
    }
    emit("</g>\n");

    // ---- points ----
    emit(fmt::format(R"~(<g class="points" clip-path="url(#{})">)~"
                     "\n",
                     clip_id));
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        const double cx = xa(p.arithmetic_intensity), cy = ya(p.achieved_flops_per_s);
        std::string tip =
            fmt::format("{}\narithmetic intensity: {}\nachieved: {}\ntime share: {}\nbound: {}",
                        p.label, format_flop_per_byte(p.arithmetic_intensity),
                        format_flops_per_s(p.achieved_flops_per_s), format_percent(p.time_share),
                        to_string(p.bound));
        if (!p.detail.empty()) tip += "\n" + p.detail;
        emit(fmt::format(
            R"(<g class="point"><title>{}</title><circle cx="{}" cy="{}" r="{:.2f}" fill="{}" )"
            R"(fill-opacity="0.55" stroke="{}" stroke-width="1.5"/></g>)"
            "\n",
            escape_xml(tip), num(cx), num(cy), radius[i], svg::bound_colour(p.bound),
            svg::bound_colour(p.bound)));
    }
    emit("</g>\n");
    // Point labels, biggest share first; labels set off their circle get a leader line.
    const double point_px = 11.0, point_h = 14.0;
    emit(fmt::format(R"(<g class="point-labels" font-size="{}">)"
                     "\n",
                     num(point_px)));
    // Points whose label reads the same (after shortening) drawn at one place (two launches of
    // a kernel with the same shape, or two kernels whose long names shorten alike) get one
    // label, "name (2 points)", not the same text twice side by side: the tooltips tell them
    // apart.
    std::vector<int> same_as(points.size(), -1), copies(points.size(), 1);
    std::vector<std::string> shown(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) shown[i] = ellipsize_middle(points[i].label, 30);
    for (std::size_t i = 0; i < points.size(); ++i)
        for (std::size_t j = 0; j < i && !points[i].label.empty(); ++j)
            if (same_as[j] < 0 && shown[j] == shown[i] &&
                std::hypot(xa(points[i].arithmetic_intensity) - xa(points[j].arithmetic_intensity),
                           ya(points[i].achieved_flops_per_s) - ya(points[j].achieved_flops_per_s)) <= 2.0) {
                same_as[i] = static_cast<int>(j);
                ++copies[j];
                break;
            }
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (p.label.empty() || same_as[i] >= 0) continue;
        const std::string text = shown[i] + (copies[i] > 1 ? fmt::format(" ({} points)", copies[i]) : std::string());
        const double cx = xa(p.arithmetic_intensity), cy = ya(p.achieved_flops_per_s);
        const double w = svg::text_width(text, point_px);
        std::vector<int> ring;
        const auto cand = svg::candidates_around(cx, cy, radius[i], w, point_h, 5, &ring);
        const std::size_t k = placer.place(cand);
        const auto& b = cand[k];
        if (ring[k] >= 1) {
            const double tx = std::min(std::max(cx, b.x), b.right()),
                         ty = std::min(std::max(cy, b.y), b.bottom());
            const double d = std::hypot(tx - cx, ty - cy);
            if (d > radius[i] + 6)
                emit(fmt::format(
                    R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#777" stroke-width="0.8"/>)"
                    "\n",
                    num(cx + (tx - cx) * radius[i] / d), num(cy + (ty - cy) * radius[i] / d),
                    num(tx), num(ty)));
        }
        emit(svg::text(b.x, b.y + point_h - 3.5, text, point_px, "start", "#222", svg::halo));
    }
    emit("</g>\n");

    // ---- legend and footnotes ----
    double y = plot.bottom() + 70;
    if (!points.empty()) {
        double x = plot.x;
        emit(svg::text(x, y + 4, "bound:", 12, "start", "#333"));
        x += svg::text_width("bound:", 12) + 10;
        for (auto b : all_bounds) {
            emit(fmt::format(
                R"(<circle cx="{}" cy="{}" r="6" fill="{}" fill-opacity="0.55" stroke="{}" stroke-width="1.5"/>)"
                "\n",
                num(x + 6), num(y), svg::bound_colour(b), svg::bound_colour(b)));
            emit(svg::text(x + 16, y + 4, to_string(b), 12, "start", "#333"));
            x += 16 + svg::text_width(to_string(b), 12) + 18;
        }
        // The size key: the caption, then the key circle with its share written right beside it,
        // both from one value (the words can only say the share the circle is drawn at).
        const double key_r = point_radius_px(size_key_share);
        const std::string caption = "circle area = share of time:";
        x += 12;
        emit(svg::text(x, y + 4, caption, 12, "start", "#333"));
        x += svg::text_width(caption, 12) + 8;
        emit(fmt::format(
            R"(<circle class="size-key" cx="{}" cy="{}" r="{:.2f}" fill="none" stroke="#555" stroke-width="1"/>)"
            "\n",
            num(x + key_r), num(y), key_r));
        emit(svg::text(x + 2 * key_r + 4, y + 4, format_percent(size_key_share, 0), 12, "start", "#333"));
        y += 26;
    }
    for (const auto& n : notes) {
        emit(svg::text(plot.x, y + 4, n, 11, "start", "#666"));
        y += 14;
    }
    return svg::document(width, std::max(chart.height_px, y + 4),
                         chart.title.empty() ? "Roofline" : chart.title, out);
}

ROOFLINE_INLINE roofline_chart make_roofline_chart(const gpu_spec& g, const ceilings& c,
                                                   const std::vector<peak_key>& keys) {
    roofline_chart chart;
    chart.title = (g.name.empty() ? g.id : g.name) + ": roofline";
    chart.subtitle =
        g.id + " \u00b7 ceilings: " + (c.origin.empty() ? std::string("unspecified") : c.origin);
    if (c.origin == "datasheet") chart.subtitle += " (dense tensor peaks)";
    chart.ceilings = ceiling_lines(c, keys);
    return chart;
}

}  // namespace roofline::report
#endif  // ROOFLINE_BODIES_REPORT
