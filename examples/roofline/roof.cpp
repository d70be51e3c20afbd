// `roofline roof`: the ceilings of one GPU, its ridge points, and the classic roofline chart.
//
//   roofline roof --gpu h200-sxm --dtype bf16 [--svg roof.svg] [--html roof.html] [--json|--csv]
//                 [--sm-clock-mhz 1410] [--calibration FILE]
//
// --dtype takes one dtype or a comma-separated list (bf16,fp8): the first is the headline; each
// gets a compute roof in the chart. The tables list every rate class the GPU has.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/html.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/svg_roofline.hpp"
#include "roofline/report/table.hpp"

namespace roofline::cli {

namespace {

struct roof_options {
    std::string gpu_id;
    std::vector<std::string> dtype_names{"bf16"};
    std::string svg_path;
    std::string html_path;
    bool json = false;
    bool csv = false;
    double sm_clock_mhz = 0.0;
    std::string calibration;
    bool dtype_given = false;  ///< --dtype on the command line; else bf16, or the first known peak
    std::string gpu_file;
};

/// The requested rate class's peak, or a usage error saying why there is none.
double require_peak(const gpu_spec& g, const ceilings& c, dtype d) {
    const peak_key k = peak_of(d);
    const double p = c.flops_at(k);
    if (!g.peak(k).supported || p == 0.0)
        throw usage_error(
            fmt::format("{}: {} matrix math is not supported on this GPU ({} rate class)", g.id,
                        to_string(d), to_string(k)));
    if (!std::isfinite(p))
        throw usage_error(fmt::format("{}: the dense {} peak is unknown{}", g.id, to_string(k),
                                      g.peak(k).dense_flops_per_s.note.empty()
                                          ? std::string()
                                          : " (" + g.peak(k).dense_flops_per_s.note + ")"));
    return p;
}

std::string peak_cell(const gpu_spec& g, const ceilings& c, peak_key k) {
    if (!g.peak(k).supported || c.flops_at(k) == 0.0) return "not supported";
    const double p = c.flops_at(k);
    return std::isfinite(p) ? report::format_flops_per_s(p) : "unknown";
}

std::string ridge_cell(const ceilings& c, peak_key k, memory_level m) {
    const double r = ridge_point(c, k, m);
    return std::isfinite(r) && r > 0.0 ? report::format_flop_per_byte(r) : "-";
}

std::string link_name(link_kind k) {
    switch (k) {
        case link_kind::nvlink:
            return "NVLink";
        case link_kind::pcie:
            return "PCIe";
        case link_kind::pcie_no_p2p:
            return "PCIe without P2P";
        case link_kind::network:
            return "network";
    }
    return "PCIe";
}

/// Where each ceiling `roof` shows comes from: "calibrated" (the overlay measured it) or
/// "datasheet". Text, JSON, CSV and the chart say the same (one decision, here).
struct ceiling_origins {
    std::array<bool, peak_key_count> flops{};
    bool dram = false, l2 = false, link = false;
    std::string file;  ///< the overlay ("" without one)
    std::string name;  ///< its file name, for the tables' source column

    static const char* word(bool calibrated) { return calibrated ? "calibrated" : "datasheet"; }
    bool of(peak_key k) const { return flops[static_cast<std::size_t>(k)]; }
};

ceiling_origins origins_of(const std::optional<calibration>& cal) {
    ceiling_origins o;
    if (!cal) return o;
    for (auto k : all_peak_keys) o.flops[static_cast<std::size_t>(k)] = cal->overrides_flops(k);
    o.dram = cal->dram_bytes_per_s.has_value();
    o.l2 = cal->l2_bytes_per_s.has_value();
    o.link = cal->link_bytes_per_s.has_value();
    o.file = cal->source;
    o.name = std::filesystem::path(cal->source).filename().string();
    return o;
}

report::text_table compute_table(const gpu_spec& g, const ceilings& c,
                                 const std::vector<peak_key>& wanted, const ceiling_origins& from) {
    auto t = report::text_table({{"rate class", report::align::left},
                                 {"dense peak", report::align::right},
                                 {"from", report::align::left},
                                 {"accumulate", report::align::left},
                                 {"ridge (DRAM)", report::align::right},
                                 {"ridge (L2)", report::align::right},
                                 {"source", report::align::left}});
    for (auto k : all_peak_keys) {
        const bool asked = std::find(wanted.begin(), wanted.end(), k) != wanted.end();
        std::string name =
            std::string(to_string(k)) + (is_tensor(k) ? "" : " (vector)") + (asked ? " *" : "");
        const auto& p = g.peak(k);
        t.add_row({name, peak_cell(g, c, k), ceiling_origins::word(from.of(k)),
                   p.accumulate.empty() ? "-" : p.accumulate, ridge_cell(c, k, memory_level::dram),
                   ridge_cell(c, k, memory_level::l2),
                   from.of(k) ? from.name : p.dense_flops_per_s.source});
    }
    return t;
}

report::text_table memory_table(const gpu_spec& g, const ceilings& c, const ceiling_origins& from) {
    auto t = report::text_table({{"ceiling", report::align::left},
                                 {"bandwidth", report::align::right},
                                 {"from", report::align::left},
                                 {"note", report::align::left}});
    auto bw = [](double v) {
        return std::isfinite(v) && v > 0.0 ? report::format_bytes_per_s(v) : "unknown";
    };
    t.add_row({"DRAM (" + (g.memory_type.empty() ? std::string("memory") : g.memory_type) + ")",
               bw(c.bytes_at(memory_level::dram)), ceiling_origins::word(from.dram),
               from.dram ? from.name : g.memory_bandwidth_bytes_per_s.source});
    t.add_row({"L2", bw(c.bytes_at(memory_level::l2)), ceiling_origins::word(from.l2),
               from.l2 ? from.name
                       : (g.l2_bandwidth_bytes_per_s.known() ? g.l2_bandwidth_bytes_per_s.source
                                                             : g.l2_bandwidth_bytes_per_s.note)});
    std::string link_note = from.link ? from.name + ", per direction" : "per direction";
    if (c.link == link_kind::nvlink && g.nvlink_bandwidth_bytes_per_s.known() && !from.link)
        link_note += ", " + report::format_bytes_per_s(*g.nvlink_bandwidth_bytes_per_s.value) +
                     " bidirectional";
    if (c.link == link_kind::pcie_no_p2p) link_note += ", staged through host memory";
    t.add_row({"link: " + link_name(c.link), bw(c.link_bytes_per_s), ceiling_origins::word(from.link), link_note});
    return t;
}

/// The requested rate classes' compute roofs at --sm-clock-mhz (none without it): the one
/// computation text, JSON and the chart show.
std::vector<clock_roof> roofs_at_clock(const gpu_spec& g, const ceilings& c, const std::vector<peak_key>& keys,
                                       const roof_options& o, const std::optional<calibration>& cal) {
    std::vector<clock_roof> out;
    if (!(o.sm_clock_mhz > 0.0)) return out;
    for (auto k : keys) out.push_back(compute_roof_at_clock(g, c, cal ? &*cal : nullptr, k, o.sm_clock_mhz * 1e6));
    return out;
}

/// "bf16 at 1410 MHz (power cap)": below the clock its ceiling stands for; "(calibrated ceiling)"
/// when held at it; "(above the datasheet's 1830 MHz)" above a datasheet clock.
std::string clock_roof_name(const clock_roof& r) {
    std::string why;
    if (r.held_at_ceiling) why = "held at the calibrated ceiling";
    else if (r.clock_hz < r.reference_clock_hz * (1 - 1e-9)) why = r.calibrated ? "power cap, calibrated" : "power cap";
    else why = std::string(r.calibrated ? "calibrated" : "datasheet") + ", at or above its " +
               report::format_mhz(r.reference_clock_hz);
    return std::string(to_string(r.peak)) + " at " + report::format_mhz(r.clock_hz) + " (" + why + ")";
}

/// What the roof at a clock rests on, in words.
std::string clock_roof_basis(const clock_roof& r) {
    if (!r.calibrated)
        return fmt::format("datasheet: {} at {}", report::format_flops_per_s(r.ceiling_flops_per_s),
                           report::format_mhz(r.reference_clock_hz));
    std::string s = fmt::format("calibrated: {} FLOP per clock, the {} ceiling at {}", report::format_count(r.flops_per_clock),
                                report::format_flops_per_s(r.ceiling_flops_per_s), report::format_mhz(r.reference_clock_hz));
    if (r.held_at_ceiling)
        s += fmt::format("; {} x {} = {} would exceed what was measured", report::format_count(r.flops_per_clock),
                         report::format_mhz(r.clock_hz), report::format_flops_per_s(r.flops_per_clock * r.clock_hz));
    return s;
}

report::roofline_chart chart_for(const gpu_spec& g, const ceilings& c,
                                 const std::vector<peak_key>& keys, const std::vector<clock_roof>& at_clock,
                                 const ceiling_origins& from) {
    auto chart = report::make_roofline_chart(g, c, keys);
    // Every roof says where it comes from, as the tables do.
    for (auto& line : chart.ceilings) {
        bool calibrated = false;
        if (line.kind == report::ceiling_kind::memory) calibrated = line.name == "DRAM" ? from.dram : from.l2;
        else
            for (auto k : keys) calibrated = calibrated || (from.of(k) && line.name.find(to_string(k)) != std::string::npos);
        if (!from.file.empty()) line.label += calibrated ? " (calibrated)" : " (datasheet)";
    }
    if (!at_clock.empty()) {  // the first dtype's roof at the clock, dashed
        const auto& r = at_clock.front();
        const std::string name = clock_roof_name(r);
        chart.ceilings.push_back({report::ceiling_kind::compute, r.flops_per_s, name,
                                  name + ": " + report::format_flops_per_s(r.flops_per_s),
                                  report::ceiling_style::power_capped});
    }
    if (!from.file.empty()) chart.notes.push_back("Measured ceilings from the calibration " + from.file + " (labelled calibrated).");
    if (!std::isfinite(c.bytes_at(memory_level::l2)))
        chart.notes.push_back("L2 bandwidth not published for this GPU: no L2 slope drawn.");
    chart.notes.push_back(
        g.tensor_clock_hz.known()
            ? "Dense (no 2:4 sparsity) datasheet tensor peaks at the clock the datasheet assumes (" +
                  report::format_mhz(*g.tensor_clock_hz.value) + ")."
            : std::string("Dense (no 2:4 sparsity) datasheet tensor peaks."));
    return chart;
}

void run_roof(roof_options o) {
    const auto catalog = load_gpu_catalog(o.gpu_file);
    const auto& g = pick_gpu(catalog, o.gpu_id);
    if (o.dtype_names.empty()) throw usage_error("--dtype: give at least one dtype");
    const double bf16_peak = datasheet_ceilings(g).flops_at(peak_key::bf16);
    if (!o.dtype_given && (!std::isfinite(bf16_peak) || !(bf16_peak > 0) || !g.peak(peak_key::bf16).supported)) {
        // Without --dtype, bf16 is the headline; a GPU whose bf16 peak is unpublished (GB10) or
        // that has no bf16 tensor math (V100) gets the first dtype whose peak is known instead,
        // and says so.
        const char* why = std::isfinite(bf16_peak) ? "no bf16 tensor math" : "no published bf16 peak";
        for (dtype d : {dtype::fp8_e4m3, dtype::nvfp4, dtype::fp16, dtype::int8}) {
            const double p = datasheet_ceilings(g).flops_at(peak_of(d));
            if (g.peak(peak_of(d)).supported && std::isfinite(p) && p > 0) {
                o.dtype_names = {std::string(to_string(d))};
                std::fprintf(stderr, "roofline roof: %s has %s; showing %s (choose with --dtype)\n", g.id.c_str(), why,
                             o.dtype_names.front().c_str());
                break;
            }
        }
    }
    if (o.json && o.csv) throw usage_error("--json and --csv: choose one output format");
    std::vector<dtype> dtypes;
    std::vector<peak_key> keys;
    for (const auto& n : o.dtype_names) {
        const dtype d = parse_dtype_or_throw(n);
        dtypes.push_back(d);
        if (std::find(keys.begin(), keys.end(), peak_of(d)) == keys.end())
            keys.push_back(peak_of(d));
    }
    if (o.sm_clock_mhz < 0.0 || !std::isfinite(o.sm_clock_mhz))
        throw usage_error("--sm-clock-mhz: must be a positive number of MHz");
    require_clock_within_max(g, o.sm_clock_mhz);
    ceilings c = datasheet_ceilings(g);
    std::optional<calibration> cal;
    if (!o.calibration.empty()) {
        cal = read_calibration(o.calibration);
        require_calibration_gpu(*cal, g);
        c = apply_calibration(c, *cal);
    }
    for (auto d : dtypes) require_peak(g, c, d);
    const ceiling_origins from = origins_of(cal);
    const auto at_clock = roofs_at_clock(g, c, keys, o, cal);
    const dtype head = dtypes.front();
    const double peak = c.flops_at(peak_of(head)), dram = c.bytes_at(memory_level::dram);
    const double ridge = ridge_point(c, peak_of(head));

    if (!o.svg_path.empty())
        report::write_text_file(o.svg_path, report::render_roofline_svg(chart_for(g, c, keys, at_clock, from)));
    if (!o.html_path.empty()) {
        report::html_report r;
        r.title = (g.name.empty() ? g.id : g.name) + ": ceilings and roofline";
        r.subtitle = fmt::format("roofline roof --gpu {} --dtype {}; ceilings: {}", g.id,
                                 fmt::join(o.dtype_names, ","), c.origin);
        report::html_section ceilings_section("Ceilings");
        ceilings_section.add_paragraph(
            fmt::format("{} peak {}, DRAM {}: ridge point {} (kernels below it are memory-bound, "
                        "above it compute-bound).",
                        to_string(head), report::format_flops_per_s(peak),
                        report::format_bytes_per_s(dram), report::format_flop_per_byte(ridge)));
        ceilings_section.add_table(compute_table(g, c, keys, from),
                                   "Compute (dense tensor peaks; * = requested)");
        ceilings_section.add_table(memory_table(g, c, from), "Memory and interconnect");
        report::html_section chart_section("Roofline chart");
        chart_section.add_svg(report::render_roofline_svg(chart_for(g, c, keys, at_clock, from)));
        r.sections = {std::move(ceilings_section), std::move(chart_section)};
        report::write_text_file(o.html_path, report::render_html(r));
    }

    if (o.json) {
        nlohmann::json ridges = nlohmann::json::array();
        for (auto k : all_peak_keys) {
            const double p = c.flops_at(k);
            if (!(std::isfinite(p) && p > 0.0)) continue;
            ridges.push_back(
                {{"peak", std::string(to_string(k))},
                 {"flops_per_s", p},
                 {"from", ceiling_origins::word(from.of(k))},
                 {"dram_flop_per_byte", report::json_number(ridge_point(c, k, memory_level::dram))},
                 {"l2_flop_per_byte", report::json_number(ridge_point(c, k, memory_level::l2))}});
        }
        nlohmann::json names = nlohmann::json::array();
        for (auto d : dtypes) names.push_back(std::string(to_string(d)));
        // Where each ceiling comes from, keyed as "ceilings" is.
        nlohmann::json flops_from = nlohmann::json::object();
        for (auto k : all_peak_keys) flops_from[std::string(to_string(k))] = ceiling_origins::word(from.of(k));
        const nlohmann::json origin = {{"flops_per_s", flops_from},
                                       {"bytes_per_s", {{"dram", ceiling_origins::word(from.dram)},
                                                        {"l2", ceiling_origins::word(from.l2)}}},
                                       {"link_bytes_per_s", ceiling_origins::word(from.link)},
                                       {"calibration", from.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(from.file)}};
        // The compute roofs at --sm-clock-mhz (null without it), as the text prints them.
        nlohmann::json clock = nullptr;
        if (!at_clock.empty()) {
            nlohmann::json roofs = nlohmann::json::array();
            for (const auto& r : at_clock)
                roofs.push_back({{"peak", std::string(to_string(r.peak))},
                                 {"flops_per_s", r.flops_per_s},
                                 {"dram_flop_per_byte", report::json_number(r.flops_per_s / dram)},
                                 {"l2_flop_per_byte", report::json_number(r.flops_per_s / c.bytes_at(memory_level::l2))},
                                 {"from", ceiling_origins::word(r.calibrated)},
                                 {"ceiling_flops_per_s", r.ceiling_flops_per_s},
                                 {"flops_per_clock", r.flops_per_clock},
                                 {"reference_clock_hz", r.reference_clock_hz},
                                 {"held_at_ceiling", r.held_at_ceiling},
                                 {"label", clock_roof_name(r)}});
            clock = {{"sm_clock_hz", o.sm_clock_mhz * 1e6}, {"roofs", roofs}};
        }
        const nlohmann::json j = {{"gpu", g.id},
                                  {"ceiling_origin", origin},
                                  {"at_sm_clock", clock},
                                  {"name", g.name},
                                  {"dtype", std::string(to_string(head))},
                                  {"dtypes", names},
                                  {"peak_flops_per_s", peak},
                                  {"dram_bytes_per_s", dram},
                                  {"ridge_point_flop_per_byte", report::json_number(ridge)},
                                  {"ceilings", report::to_json(c)},
                                  {"ridge_points", ridges}};
        std::cout << j.dump(2) << "\n";
        return;
    }
    if (o.csv) {
        report::csv_writer w(std::cout);
        w.row({"gpu", "ceiling", "kind", "value", "unit", "ridge_dram_flop_per_byte",
               "ridge_l2_flop_per_byte", "from"});
        // Empty fields for what is unknown or unsupported, as JSON's nulls.
        auto known = [](double v) { return std::isfinite(v) && v > 0.0 ? v : NAN; };
        for (auto k : all_peak_keys)
            w.record(g.id, to_string(k), is_tensor(k) ? "tensor" : "vector", known(c.flops_at(k)),
                     "FLOP/s", known(ridge_point(c, k, memory_level::dram)),
                     known(ridge_point(c, k, memory_level::l2)), ceiling_origins::word(from.of(k)));
        w.record(g.id, "dram", "memory", known(c.bytes_at(memory_level::dram)), "B/s", NAN, NAN,
                 ceiling_origins::word(from.dram));
        w.record(g.id, "l2", "memory", known(c.bytes_at(memory_level::l2)), "B/s", NAN, NAN,
                 ceiling_origins::word(from.l2));
        w.record(g.id, report::link_kind_name(c.link), "link", known(c.link_bytes_per_s), "B/s",
                 NAN, NAN, ceiling_origins::word(from.link));
        // The roofs at --sm-clock-mhz, one row each (kind "at_clock", the ceiling "bf16@1410MHz").
        for (const auto& r : at_clock)
            w.record(g.id, fmt::format("{}@{:.0f}MHz", to_string(r.peak), r.clock_hz / 1e6), "at_clock", r.flops_per_s,
                     "FLOP/s", known(r.flops_per_s / dram), known(r.flops_per_s / c.bytes_at(memory_level::l2)),
                     ceiling_origins::word(r.calibrated));
        return;
    }

    fmt::print("{}: {} peak {}, DRAM {}, ridge {} FLOP/byte\n", g.id, to_string(head),
               report::format_flops_per_s(peak), report::format_bytes_per_s(dram),
               report::format_significant(ridge));
    fmt::print("{} ({}, sm{}{}), ceilings: {} (dense tensor peaks)\n\n",
               g.name.empty() ? g.id : g.name, g.arch, g.cc_major, g.cc_minor, c.origin);
    fmt::print("{}\n{}", compute_table(g, c, keys, from).render(), memory_table(g, c, from).render());
    if (!at_clock.empty()) fmt::print("\n");
    for (const auto& r : at_clock)
        fmt::print("{}: {}; ridge {} ({})\n", clock_roof_name(r), report::format_flops_per_s(r.flops_per_s),
                   report::format_flop_per_byte(r.flops_per_s / dram), clock_roof_basis(r));
    if (!o.svg_path.empty()) fmt::print("\nwrote {}\n", o.svg_path);
    if (!o.html_path.empty())
        fmt::print("{}wrote {}\n", o.svg_path.empty() ? "\n" : "", o.html_path);
}

}  // namespace

void add_roof_command(CLI::App& app, common_options& common) {
    auto* cmd =
        app.add_subcommand("roof", "Ceilings and ridge points of a GPU, and its roofline chart");
    static roof_options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    cmd->add_option("--gpu", o.gpu_id, "GPU id (see `roofline gpus`)")->required();
    cmd->add_option(
           "--dtype", o.dtype_names,
           "dtype of the matrix math, or a comma-separated list (the first is the headline)")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--svg", o.svg_path, "write the roofline chart to this SVG file");
    cmd->add_option("--html", o.html_path, "write an HTML report (tables and chart) to this file");
    cmd->add_option("--sm-clock-mhz", o.sm_clock_mhz,
                    "also give each requested dtype's compute roof at this SM clock (e.g. the clock a "
                    "power cap holds; text, JSON at_sm_clock, CSV at_clock rows) and draw the first's; a "
                    "calibrated roof is its measured FLOP per clock x this clock, never above the "
                    "calibrated ceiling");
    cmd->add_option("--calibration", o.calibration,
                    "calibration overlay (`roofline calibrate`): measured ceilings replace the datasheet's");
    cmd->add_flag("--json", o.json, "print the ceilings and ridge points as JSON");
    cmd->add_flag("--csv", o.csv, "print the ceilings as CSV");
    cmd->add_option("--gpu-file", common.gpu_file, "JSON that adds or overrides GPU entries");
    cmd->callback([cmd, &common] {
        o.dtype_given = cmd->count("--dtype") > 0;
        o.gpu_file = common.gpu_file;
        run_roof(o);
    });
}

}  // namespace roofline::cli
