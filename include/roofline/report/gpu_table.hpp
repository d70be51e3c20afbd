#pragma once
// The GPU catalog as text: a one-row-per-GPU overview that fits a terminal, and a side-by-side
// comparison of a few GPUs with every value's source, its notes and the legend of the sources.
//
// Marks, in both views: "*" after a value derived from vendor numbers (the formula is in the
// notes), "?" for unknown, "-" for a rate the GPU lacks or a link it does not have.
// Units are the datasheets': decimal GB and TB/s, binary KiB/MiB for on-chip memories (as
// NVIDIA prints them), TFLOP/s (INT8: TOP/s), dense unless a row says sparse.

#include <fmt/format.h>

#include <algorithm>  // std::max
#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <optional>   // std::optional
#include <set>        // std::set
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/gpus/sources.hpp"

namespace roofline {

namespace detail {

/// Renders rows of cells as aligned columns: the first column left-aligned, the others right,
/// two spaces apart. The first `header_rows` rows are headers, followed by a rule.
inline std::string render_columns(const std::vector<std::vector<std::string>>& rows,
                                  std::size_t header_rows, const char* separator = "  ") {
    const std::string sep(separator);
    std::vector<std::size_t> width;
    for (const auto& r : rows) {
        if (width.size() < r.size()) width.resize(r.size(), 0);
        for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    }
    std::size_t total = 0;
    for (auto w : width) total += w + sep.size();
    std::string out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::string line;
        for (std::size_t c = 0; c < rows[i].size(); ++c) {
            if (c > 0) line += sep;
            if (c == 0)
                line += fmt::format("{:<{}}", rows[i][c], width[c]);
            else
                line += fmt::format("{:>{}}", rows[i][c], width[c]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
        if (i + 1 == header_rows) out += std::string(total - sep.size(), '-') + "\n";
    }
    return out;
}

/// A number with at most `decimals` decimals; with `strip`, no trailing zeros (989, 209.5).
inline std::string short_number(double v, int decimals, bool strip = true) {
    std::string s = fmt::format("{:.{}f}", v, decimals);
    if (strip && s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

/// A catalog value scaled to display units, with its mark: "7.67*", "180 ", "?", "- ".
/// `zero_is_none`: 0 prints "-" (no NVLink). Known values end in "*" or " " so that digits
/// line up in right-aligned columns.
/// `fixed`: keep trailing zeros (bandwidths line up as 4.80, 1.60).
inline std::string cell(const spec_value& v, double scale, int decimals, bool zero_is_none = false,
                        bool fixed = false) {
    if (!v.known()) return "? ";
    if (zero_is_none && *v.value == 0.0) return "- ";
    return short_number(*v.value / scale, decimals, !fixed) + (v.derived ? "*" : " ");
}

/// A dense peak cell in TFLOP/s: "-" when unsupported; no decimals from 1000 up (1008), one
/// from 10 (209.5), two below (1.25).
inline std::string peak_cell(const gpu_spec& g, peak_key k, const spec_value& v) {
    if (!g.peak(k).supported) return "- ";
    const double tf = v.value_or(0.0) / 1e12;
    return cell(v, 1e12, tf >= 1000 ? 0 : (tf >= 10 ? 1 : 2));
}

/// Dense peak over DRAM bandwidth in FLOP/B, or nullopt when either is unknown.
inline std::optional<double> ridge_flops_per_byte(const gpu_spec& g, peak_key k) {
    const auto p = g.dense_flops_per_s(k);
    if (!p || !g.memory_bandwidth_bytes_per_s.known() || *g.memory_bandwidth_bytes_per_s.value <= 0)
        return std::nullopt;
    return *p / *g.memory_bandwidth_bytes_per_s.value;
}

inline std::string ridge_cell(const gpu_spec& g, peak_key k) {
    if (!g.peak(k).supported) return "- ";
    const auto r = ridge_flops_per_byte(g, k);
    if (!r) return "? ";
    const bool derived =
        g.peak(k).dense_flops_per_s.derived || g.memory_bandwidth_bytes_per_s.derived;
    return fmt::format("{:.0f}", *r) + (derived ? "*" : " ");
}

}  // namespace detail

/// The catalog overview: one row per GPU with id, compute capability, SMs, memory (GB, TB/s),
/// L2 (MiB), shared memory per block (KiB, opt-in), default power limit (W), NVLink (TB/s,
/// bidirectional), dense FP4/FP8/BF16 (TFLOP/s) and the BF16 ridge point (FLOP/B). About 90
/// columns wide; a legend of the marks follows.
inline std::string format_gpu_table(const std::vector<gpu_spec>& gpus) {
    std::vector<std::vector<std::string>> rows = {
        {"", "", "", "mem", "mem", "L2", "smem/", "power", "NVLink", "FP4", "FP8", "BF16", "BF16"},
        {"id", "CC", "SMs", "GB", "TB/s", "MiB", "blkKiB", "W", "TB/s", "TF/s", "TF/s", "TF/s",
         "ridge"}};
    for (const auto& g : gpus) {
        rows.push_back(
            {g.id, g.compute_capability(), detail::cell(g.sm_count, 1, 0),
             detail::cell(g.memory_bytes, 1e9, 0),
             detail::cell(g.memory_bandwidth_bytes_per_s, 1e12, 2, false, true),
             detail::cell(g.l2_bytes, 1024.0 * 1024.0, 1),
             detail::cell(g.smem_per_block_bytes, 1024.0, 0), detail::cell(g.power_limit_w, 1, 0),
             detail::cell(g.nvlink_bandwidth_bytes_per_s, 1e12, 2, true, true),
             detail::peak_cell(g, peak_key::fp4, g.peak(peak_key::fp4).dense_flops_per_s),
             detail::peak_cell(g, peak_key::fp8, g.peak(peak_key::fp8).dense_flops_per_s),
             detail::peak_cell(g, peak_key::bf16, g.peak(peak_key::bf16).dense_flops_per_s),
             detail::ridge_cell(g, peak_key::bf16)});
    }
    return detail::render_columns(rows, 2, " ") +
           "TF/s: dense TFLOP/s, FP32 accumulate. smem/blk: shared memory per block (opt-in).\n"
           "ridge: BF16 peak / memory bandwidth, FLOP/B. * derived, ? unknown, - none.\n"
           "Sources, notes and formulas: roofline gpus --compare ID,ID\n";
}

namespace detail {

/// One row of the comparison: a label and, per GPU, the displayed value and the field whose
/// source, note and marks it shows (empty for computed or text rows).
struct compare_row {
    std::string label;
    std::vector<std::string> values;
    std::vector<const spec_value*> fields;
    std::string field_name;
};

}  // namespace detail

/// Side-by-side comparison of a few GPUs (2-3 fit a wide terminal): one row per field, one
/// column per GPU showing value, mark and source ids; then every note (derivations, where
/// sources disagree and which value is used) and the text of each source cited.
inline std::string format_gpu_compare(const std::vector<gpu_spec>& gpus) {
    using detail::cell;
    std::vector<detail::compare_row> rows;
    auto text_row = [&](std::string label, auto get) {
        detail::compare_row r{std::move(label), {}, {}, {}};
        for (const auto& g : gpus) {
            r.values.push_back(get(g));
            r.fields.push_back(nullptr);
        }
        rows.push_back(std::move(r));
    };
    // `member` picks the spec_value; `scale`/`decimals` format it; `field` names it for notes.
    auto value_row = [&](std::string label, const std::string& field, double scale, int decimals,
                         bool zero_is_none = false, bool skip_if_empty = false,
                         bool fixed = false) {
        detail::compare_row r{std::move(label), {}, {}, field};
        bool any = false;
        for (const auto& g : gpus) {
            const spec_value* v = nullptr;
            for_each_spec_value(g, [&](const std::string& n, const spec_value& sv, bool) {
                if (n == field) v = &sv;
            });
            any = any || v->known() || !v->note.empty();
            r.values.push_back(cell(*v, scale, decimals, zero_is_none, fixed));
            r.fields.push_back(v);
        }
        if (any || !skip_if_empty) rows.push_back(std::move(r));
    };

    text_row("compute capability", [](const gpu_spec& g) { return g.compute_capability(); });
    value_row("SMs", "sm_count", 1, 0);
    value_row("base clock MHz", "base_clock_hz", 1e6, 0);
    value_row("boost clock MHz", "boost_clock_hz", 1e6, 0);
    value_row("tensor clock of peaks MHz", "tensor_clock_hz", 1e6, 0);
    value_row("max clock MHz", "max_clock_hz", 1e6, 0);
    text_row("memory type", [](const gpu_spec& g) { return g.memory_type; });
    value_row("memory GB", "memory_bytes", 1e9, 1);
    value_row("memory TB/s", "memory_bandwidth_bytes_per_s", 1e12, 3, false, false, true);
    value_row("L2 MiB", "l2_bytes", 1024.0 * 1024.0, 1);
    value_row("smem per SM KiB", "smem_per_sm_bytes", 1024.0, 0);
    value_row("smem per block KiB (opt-in)", "smem_per_block_bytes", 1024.0, 0);
    value_row("registers per SM", "registers_per_sm", 1, 0);
    value_row("max threads per SM", "max_threads_per_sm", 1, 0);
    value_row("TMEM per SM KiB", "tmem_per_sm_bytes", 1024.0, 0);
    value_row("power limit W", "power_limit_w", 1, 0);
    value_row("power limit min W", "power_limit_min_w", 1, 0);
    value_row("power limit max W", "power_limit_max_w", 1, 0);
    value_row("NVLink TB/s (bidirectional)", "nvlink_bandwidth_bytes_per_s", 1e12, 2, true);
    value_row("PCIe generation", "pcie_gen", 1, 0, true);
    value_row("PCIe GB/s per direction", "pcie_bandwidth_bytes_per_s", 1e9, 1, true);
    {
        detail::compare_row r{"PCIe P2P (stock driver)", {}, {}, "p2p"};
        for (const auto& g : gpus) {
            r.values.push_back(!g.p2p.known() ? "? " : (*g.p2p.value > 0 ? "yes " : "no "));
            r.fields.push_back(&g.p2p);
        }
        rows.push_back(std::move(r));
    }
    for (auto k : all_peak_keys) {
        const std::string key(to_string(k));
        std::string upper = key;
        for (auto& ch : upper) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
        const std::string unit = k == peak_key::int8 ? "TOP/s" : "TFLOP/s";
        const std::string kind = is_tensor(k) ? "dense " : "vector ";
        detail::compare_row r{upper + " " + kind + unit, {}, {}, "dense_flops_per_s." + key};
        for (const auto& g : gpus) {
            const auto& p = g.peak(k);
            std::string v = detail::peak_cell(g, k, p.dense_flops_per_s);
            // The accumulator, where it is not the usual one (FP32 for floats, INT32 for INT8).
            if (p.supported && p.dense_flops_per_s.known() && !p.accumulate.empty() &&
                p.accumulate != "fp32" && p.accumulate != "int32")
                v = p.accumulate + " acc " + v;
            r.values.push_back(v);
            r.fields.push_back(&p.dense_flops_per_s);
        }
        rows.push_back(std::move(r));
        value_row(upper + " sparse " + unit, "sparse_flops_per_s." + key, 1e12, 1, false, true);
        value_row(upper + " FP16-acc " + unit, "dense_fp16_acc_flops_per_s." + key, 1e12, 1, false,
                  true);
        value_row(upper + " FLOP/clk/SM", "flops_per_clock_per_sm." + key, 1, 0, false, true);
    }
    for (auto k : {peak_key::fp4, peak_key::fp8, peak_key::bf16}) {
        std::string upper(to_string(k));
        for (auto& ch : upper) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
        text_row("ridge " + upper + " FLOP/B (computed)",
                 [k](const gpu_spec& g) { return detail::ridge_cell(g, k); });
    }

    // Cells: value, then the source ids.
    std::vector<std::vector<std::string>> table;
    std::vector<std::string> header = {"field"};
    for (const auto& g : gpus) {
        header.push_back(g.id);
        header.push_back("source");
    }
    table.push_back(header);
    std::set<std::string> cited;
    for (const auto& r : rows) {
        std::vector<std::string> line = {r.label};
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            line.push_back(r.values[i]);
            const spec_value* f = r.fields[i];
            line.push_back(f ? f->source : "");
            if (f) {
                // Collect every bracketed id, in the source or the note, for the legend.
                for (const std::string* s : {&f->source, &f->note})
                    for (std::size_t a = s->find('['); a != std::string::npos;
                         a = s->find('[', a + 1)) {
                        const auto b = s->find(']', a);
                        if (b == std::string::npos) break;
                        cited.insert(s->substr(a, b - a + 1));
                    }
            }
        }
        table.push_back(std::move(line));
    }
    // Value columns right-aligned, source columns left-aligned.
    std::vector<std::size_t> width(table[0].size(), 0);
    for (const auto& l : table)
        for (std::size_t c = 0; c < l.size(); ++c) width[c] = std::max(width[c], l[c].size());
    // Who is who, above the table: id, marketing name, architecture, the device name it reports.
    std::string out;
    std::size_t id_width = 0;
    for (const auto& g : gpus) id_width = std::max(id_width, g.id.size());
    for (const auto& g : gpus) {
        std::string names;
        for (const auto& n : g.device_names)
            names += (names.empty() ? "" : ", ") + ("\"" + n + "\"");
        out += fmt::format("{:<{}}  {} ({}, {}){}\n", g.id, id_width, g.name, g.arch, g.sm_arch,
                           names.empty() ? "" : "; reports " + names);
    }
    out += "\n";
    for (std::size_t i = 0; i < table.size(); ++i) {
        std::string line;
        for (std::size_t c = 0; c < table[i].size(); ++c) {
            if (c > 0) line += c % 2 == 1 ? "  " : " ";
            const bool left = c == 0 || c % 2 == 0;
            line += left ? fmt::format("{:<{}}", table[i][c], width[c])
                         : fmt::format("{:>{}}", table[i][c], width[c]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
        if (i == 0) {
            std::size_t total = 0;
            for (auto w : width) total += w + 2;
            out += std::string(total, '-') + "\n";
        }
    }
    out += "* derived from vendor numbers (formula below), ? unknown, - none or not supported.\n";

    // Notes: derivations, disagreements and why unknowns are unknown.
    // A note every GPU shares (a per-architecture fact) is printed once, under "all".
    out += "\nNotes:\n";
    for (const auto& r : rows) {
        bool same = gpus.size() > 1;
        for (std::size_t i = 0; i < gpus.size(); ++i)
            same = same && r.fields[i] != nullptr && r.fields[0] != nullptr &&
                   r.fields[i]->note == r.fields[0]->note;
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            if (r.fields[i] == nullptr || r.fields[i]->note.empty()) continue;
            out += fmt::format("  {}: {}: {}\n", r.label, same ? std::string("all") : gpus[i].id,
                               r.fields[i]->note);
            if (same) break;
        }
    }

    // The legend, in the order of the citation list; ids an overlay made up come last.
    out += "\nSources:\n";
    for (const auto& c : gpus::catalog_sources())
        if (cited.erase(std::string(c.id))) out += fmt::format("  {} {}\n", c.id, c.text);
    for (const auto& id : cited) out += fmt::format("  {} (not in the built-in list)\n", id);
    return out;
}

}  // namespace roofline
