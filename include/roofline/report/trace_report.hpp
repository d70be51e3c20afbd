#pragma once
// Reports of a trace analysis (analysis/trace_analysis.hpp): the terminal text, JSON, CSV, the
// roofline chart with one circle per kernel, and the HTML page that bundles them.
//
// Text fits 100 columns: tables shrink kernel names in the middle (report/table.hpp) and long
// reasons wrap. JSON keys (the `roofline trace --json` contract):
//   verdict   {bound, roof, reason, notes[], roof_utilization {compute, memory, power,
//              communication, compute_at_measured_clock, dram, l2, shared_memory, nvlink_peer,
//              pcie_host, network}, span_roof_utilization, time_by_bound_s, time_by_bound_share}
//   summary   the per-phase/per-kernel time summary of every device (io ingest keys)
//   phases[]  {name, phase, count, total_s, time_s, share, wall_s, bound, roof, reason,
//              roof_utilization, ...}
//   kernels[] {name, phase, activity, count, total_s, mean_s, share, bound, reason, ...}
//   ops[]     one per op launch group: kernels' fields plus input_dims, input_types
//   steps[]   {name, span_s, busy_s, busy_fraction, count, total_s, bound, reason, ...}
//   step_detection {source, count, note}; steps_from (the step rows' source, "" without rows)
//   power     {limit_w, median_draw_w, fraction_of_limit, clock_fraction_of_max,
//              power_cap_active_fraction, offset_s, gpu_index, energy_j, ..., per_gpu[]} when a
//              log is given
//   gpu, window, ceilings, calibration (the overlay file of --calibration, or null), notes[], warnings[]
// `roof_utilization` of every row (the window too) is its roof times over its modeled time;
// the text prints these same numbers.
// Units are SI in JSON and CSV (seconds, bytes, FLOP, watts, joules; fractions in [0, 1]);
// unknown values are null (JSON) or empty (CSV).

#include <fmt/format.h>

#include <algorithm>  // std::max, std::min
#include <cctype>       // std::isalnum
#include <cmath>        // std::isfinite
#include <cstdio>       // std::FILE, std::fwrite
#include <functional>   // std::function
#include <optional>     // std::optional
#include <ostream>      // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/html.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/svg_roofline.hpp"
#include "roofline/report/table.hpp"

#include <nlohmann/json_fwd.hpp>

namespace roofline::report {

/// The analysis as JSON (the `roofline trace --json` contract; see the file comment).
/// `power_file`: the log's path as given (null when none).
nlohmann::ordered_json trace_analysis_json(const trace_analysis& a,
                                           std::string_view power_file = {});

/// Writes `trace_analysis_json(a, power_file).dump(2)` and a newline to `out`: the same bytes,
/// with the step rows' JSON made one row at a time (a trace of 100,000 steps would otherwise
/// hold their JSON and its text at once: several KB per step).
void write_trace_analysis_json(std::FILE* out, const trace_analysis& a, std::string_view power_file = {});

/// The phase table: time, share, count, bound, utilisation of each roof, SOL time.
text_table trace_phase_table(const trace_analysis& a);

/// The kernel table (the `top` longest names; 0: all).
text_table trace_kernel_table(const trace_analysis& a, std::size_t top);

/// The step table (ProfilerStep or annotation windows).
text_table trace_step_table(const trace_analysis& a);

/// The window's roofs line: utilisation of each roof over the modeled time (the verdict's
/// `roof_utilization`), and of compute and memory over the window's span.
std::string window_roofs_text(const analysis_row& w);

/// The terminal report (fits 100 columns). `top`: kernel names listed (0: all).
std::string render_trace_text(const trace_analysis& a, std::size_t top = 12);

/// Writes `render_trace_text(a, top)` to `out`: the same bytes, the step table a row at a time
/// (read twice from `a.steps`: its widths, then its lines) rather than held whole.
void write_trace_text(std::FILE* out, const trace_analysis& a, std::size_t top = 12);

/// One CSV record per row: the window, each phase, each kernel name, each op launch group,
/// each step. Columns: level,name,phase,count,total_s,mean_s,share,bound,compute,memory,
/// communication,power,lower_bound_s,achievable_s,flops,dram_bytes,link_bytes,reason, then
/// (added later, so appended) roof,l2_bytes,shared_memory_bytes,input_dims,input_types.
/// Utilisations are over each row's modeled time, as in the JSON's `roof_utilization`.
void write_trace_csv(std::ostream& out, const trace_analysis& a);

/// The roofline chart of the analysis: datasheet DRAM (and L2 where known) slopes and the
/// compute roofs of the rate classes the modeled work uses; one circle per kernel name with
/// FLOP and DRAM bytes (area = share of GPU time, colour = bound); a dashed power-capped roof
/// when the cap held the SM clock below the clock the peaks assume.
roofline_chart trace_roofline_chart(const trace_analysis& a, const gpu_spec& g,
                                    std::size_t max_points = 12);

/// The HTML report: verdict, power, tables and the chart in one page.
std::string render_trace_html(const trace_analysis& a, const gpu_spec& g,
                              std::size_t top = 25);

}  // namespace roofline::report

#if ROOFLINE_BODIES_REPORT
#include <nlohmann/json.hpp>

namespace roofline::report {
namespace detail::trace_rep {

inline std::string pct0(double f) {
    return std::isfinite(f) ? fmt::format("{:.0f}%", 100.0 * f) : "n/a";
}
inline std::string opt_pct(const std::optional<double>& f) {
    return f ? pct0(*f) : "-";
}

/// `text` wrapped at `width` columns, continuation lines indented by `indent` spaces; the first
/// line starts after `first_indent` columns already used by the caller.
inline std::string wrap(std::string_view text, std::size_t indent, std::size_t width = 100,
                        std::size_t first_indent = 0) {
    std::string out, line;
    std::size_t used = first_indent;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t j = text.find(' ', i);
        if (j == std::string_view::npos) j = text.size();
        const std::string_view word = text.substr(i, j - i);
        const std::size_t w = display_width(word);
        if (!line.empty() && used + 1 + w > width) {
            out += line + "\n";
            line = std::string(indent, ' ');
            used = indent;
            line += word;
            used += w;
        } else {
            if (!line.empty() && line.back() != ' ') {
                line += ' ';
                ++used;
            }
            line += word;
            used += w;
        }
        i = j + 1;
    }
    out += line;
    return out;
}

/// `label` padded to 9 columns, then `text` wrapped with continuation lines under it.
inline std::string labelled(std::string_view label, std::string_view text) {
    std::string l(label);
    if (l.size() < 9) l.append(9 - l.size(), ' ');
    return l + wrap(text, 9, 100, 9) + "\n";
}

/// A mangled name the demangler could not read (Kineto truncates very long CUTLASS names):
/// its nested name and the first template argument that names the algorithm, e.g.
/// "_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x...GemmUniversal..." ->
/// "cutlass::device_kernel<...GemmUniversal...>".
inline std::string mangled_display(std::string_view n) {
    std::vector<std::string> ids;
    std::string head;
    bool in_head = n.rfind("_ZN", 0) == 0;
    std::size_t i = in_head ? 3 : 2;
    while (i < n.size()) {
        if (std::isdigit(static_cast<unsigned char>(n[i]))) {
            std::size_t len = 0;
            while (i < n.size() && std::isdigit(static_cast<unsigned char>(n[i])))
                len = len * 10 + static_cast<std::size_t>(n[i++] - '0');
            if (len == 0 || i + len > n.size()) break;
            const std::string id(n.substr(i, len));
            i += len;
            if (in_head)
                head += (head.empty() ? "" : "::") + id;
            else
                ids.push_back(id);
        } else {
            if (n[i] == 'I' || n[i] == 'E') in_head = false;
            ++i;
        }
    }
    if (head.empty()) return std::string(n);
    for (std::string_view key :
         {"Gemm", "Mma", "Attention", "Fmha", "fmha", "Conv", "gemm", "attention"})
        for (const auto& id : ids)
            if (id.find(key) != std::string::npos) return head + "<..." + id + "...>";
    return head + "<...>";
}

/// A kernel name for a table: namespaces, "void " and the parameter list dropped, template
/// arguments kept ("void at::native::vectorized_elementwise_kernel<4,
/// at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, ...)" ->
/// "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char*, 3ul> >").
inline std::string display_kernel_name(std::string_view n) {
    if (n.rfind("_Z", 0) == 0) return mangled_display(n);
    if (n.rfind("void ", 0) == 0) n.remove_prefix(5);
    // Drop the parameter list: the last top-level "(...)" at the end.
    if (!n.empty() && n.back() == ')') {
        int depth = 0;
        for (std::size_t i = n.size(); i-- > 0;) {
            if (n[i] == ')')
                ++depth;
            else if (n[i] == '(' && --depth == 0) {
                if (i > 0) n = n.substr(0, i);
                break;
            }
        }
    }
    std::string out;
    std::size_t i = 0;
    while (i < n.size()) {
        if (n.compare(i, 23, "(anonymous namespace)::") == 0) {
            i += 23;
            continue;
        }
        std::size_t j = i;
        while (j < n.size() && (std::isalnum(static_cast<unsigned char>(n[j])) || n[j] == '_')) ++j;
        if (j > i && n.compare(j, 2, "::") == 0) {
            i = j + 2;  // a namespace or class qualifier
            continue;
        }
        if (j > i) {
            out.append(n.substr(i, j - i));
            i = j;
        } else {
            out += n[i++];
        }
    }
    return out;
}

/// A kernel name as people say it: no "void ", no template arguments or parameters, the last
/// namespace component ("at::native::vectorized_elementwise_kernel<8, ...>(...)" ->
/// "vectorized_elementwise_kernel").
inline std::string short_kernel_name(std::string_view n) {
    if (n.rfind("_Z", 0) == 0) {
        const std::string m = mangled_display(n);
        const auto p = m.find("<...");
        const std::string head = m.substr(0, p);
        const auto q = head.rfind("::");
        return (q == std::string::npos ? head : head.substr(q + 2)) +
               (p == std::string::npos ? "" : m.substr(p));
    }
    if (n.rfind("void ", 0) == 0) n.remove_prefix(5);
    n = n.substr(0, n.find_first_of("<("));
    while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
    const auto p = n.rfind("::");
    if (p != std::string_view::npos) n.remove_prefix(p + 2);
    return std::string(n.empty() ? std::string_view("kernel") : n);
}

inline nlohmann::ordered_json num(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}
inline nlohmann::ordered_json num(const std::optional<double>& v) {
    return v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json utilization_json(const analysis_row& r) {
    nlohmann::ordered_json u;
    const bool known = r.roofs_known();
    const auto val = [&](double v) { return known ? num(v) : nlohmann::ordered_json(nullptr); };
    u["compute"] = val(r.utilization.compute);
    u["memory"] = val(r.utilization.memory);
    u["power"] = r.power ? num(r.power->fraction_of_limit) : nlohmann::ordered_json(nullptr);
    u["communication"] = val(r.utilization.communication);
    u["compute_at_measured_clock"] = num(r.compute_at_clock);
    u["dram"] = val(r.utilization.memory_level[0]);
    u["l2"] = val(r.utilization.memory_level[1]);
    u["shared_memory"] = val(r.utilization.memory_level[2]);
    u["nvlink_peer"] = val(r.link_utilization[static_cast<std::size_t>(link_roof::peer)]);
    u["pcie_host"] = val(r.link_utilization[static_cast<std::size_t>(link_roof::host)]);
    u["network"] = val(r.link_utilization[static_cast<std::size_t>(link_roof::network)]);
    return u;
}

/// Utilisation over a window's wall-clock span (idle time included); null for other rows.
inline nlohmann::ordered_json span_utilization_json(const analysis_row& r) {
    if (!r.span_utilization) return nullptr;
    const auto& u = *r.span_utilization;
    return {{"compute", num(u.compute)},
            {"memory", num(u.memory)},
            {"communication", num(u.communication)},
            {"dram", num(u.memory_level[0])}};
}

inline nlohmann::ordered_json power_json(const power_evidence& p) {
    return {{"limit_w", num(p.limit_w)},
            {"limit_from_log", p.limit_from_log},
            {"median_draw_w", num(p.median_draw_w)},
            {"fraction_of_limit", num(p.fraction_of_limit)},
            {"clock_fraction_of_max", num(p.clock_fraction_of_max)},
            {"power_cap_active_fraction", num(p.power_cap_active_fraction)},
            {"median_utilization_gpu", num(p.median_utilization_gpu)},
            {"samples", p.samples}};
}

inline nlohmann::ordered_json row_json(const analysis_row& r, bool kernel_row) {
    nlohmann::ordered_json j;
    j["name"] = r.name;
    if (kernel_row) {
        j["phase"] = std::string(to_string(r.phase));
        j["activity"] = std::string(to_string(r.activity));
    } else if (r.span_s == 0) {
        j["phase"] = std::string(to_string(r.phase));
    }
    j["count"] = static_cast<std::uint64_t>(r.count + 0.5);
    j["total_s"] = r.total_s;
    j["time_s"] = r.total_s;
    j["mean_s"] = num(r.mean_s());
    if (kernel_row) {
        j["min_s"] = num(r.min_s);
        j["max_s"] = num(r.max_s);
    }
    j["share"] = r.share;
    if (std::isfinite(r.wall_s)) j["wall_s"] = r.wall_s;
    if (r.span_s > 0) {
        j["span_s"] = r.span_s;
        j["busy_s"] = r.busy_s;
    }
    j["bound"] = r.bound_name();
    j["roof"] = r.roof;
    j["reason"] = r.result ? r.result->reason : r.unknown_reason;
    j["roof_utilization"] = utilization_json(r);
    if (r.span_s > 0) {
        j["span_roof_utilization"] = span_utilization_json(r);
        j["busy_fraction"] = num(r.busy_s / r.span_s);
    }
    j["modeled_time_s"] = r.priced_s;
    j["pricing"] = r.pricing;
    j["lower_bound_s"] = r.no_gpu ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.sol.lower_bound_s);
    j["achievable_s"] = r.no_gpu ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.achievable_s);
    j["flops"] = r.work.total_flops();
    j["dram_bytes"] = r.work.dram_bytes();
    j["l2_bytes"] = r.work.bytes[static_cast<std::size_t>(memory_level::l2)];
    j["shared_memory_bytes"] = r.work.bytes[static_cast<std::size_t>(memory_level::smem)];
    j["link_bytes"] = r.work.link_bytes;
    j["example"] = r.example;
    if (r.phase == kernel_phase::communication) {
        j["exposed_s"] = num(r.exposed_s);
        j["overlapped_s"] = num(r.overlapped_s);
        j["busbw_bytes_per_s"] = num(r.busbw_bytes_per_s);
        const double comm = r.exposed_s + r.overlapped_s;
        j["overlapped_share"] = comm > 0 ? num(r.overlapped_s / comm) : nlohmann::ordered_json(nullptr);
    }
    const auto& l = r.latency;
    j["latency"] = {{"median_kernel_s", num(l.median_kernel_s)},
                    {"small_grid_share", num(l.small_grid_share)},
                    {"median_grid_blocks", num(l.median_grid_blocks)},
                    {"est_occupancy_pct", num(l.occupancy_pct)}};
    j["power"] = r.power ? power_json(*r.power) : nlohmann::ordered_json(nullptr);
    j["energy_j"] = num(r.energy_j);
    nlohmann::ordered_json notes = nlohmann::ordered_json::array();
    if (r.result)
        for (const auto& n : r.result->notes) notes.push_back(n);
    for (const auto& n : r.notes) notes.push_back(n);
    j["notes"] = notes;
    return j;
}

}  // namespace detail::trace_rep

namespace detail::trace_rep {
ROOFLINE_INLINE nlohmann::ordered_json analysis_json(const trace_analysis& a, std::string_view power_file,
                                                     bool with_steps);
}

ROOFLINE_INLINE nlohmann::ordered_json trace_analysis_json(const trace_analysis& a,
                                                           std::string_view power_file) {
    return detail::trace_rep::analysis_json(a, power_file, true);
}

ROOFLINE_INLINE void write_trace_analysis_json(std::FILE* out, const trace_analysis& a, std::string_view power_file) {
    using namespace detail::trace_rep;
    using json = nlohmann::ordered_json;
    const json j = analysis_json(a, power_file, false);
    std::string text;
    nlohmann::detail::serializer<json> s(nlohmann::detail::output_adapter<char>(text), ' ');
    const auto flush = [&] {
        std::fwrite(text.data(), 1, text.size(), out);
        text.clear();
    };
    // What dump(2) writes for the top-level object, member by member (nlohmann's serializer).
    text += "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        text += first ? "  \"" : ",\n  \"";
        first = false;
        text += it.key();
        text += "\": ";
        if (it.key() == "steps" && !a.steps.empty()) {
            text += "[\n";
            bool first_step = true;
            for (const auto& r : a.steps) {
                text += first_step ? "    " : ",\n    ";
                first_step = false;
                s.dump(row_json(r, false), true, false, 2, 4);
                flush();
            }
            text += "\n  ]";
        } else {
            s.dump(it.value(), true, false, 2, 2);
        }
        flush();
    }
    text += "\n}\n";
    flush();
}

ROOFLINE_INLINE nlohmann::ordered_json detail::trace_rep::analysis_json(const trace_analysis& a,
                                                                        std::string_view power_file, bool with_steps) {
    using namespace detail::trace_rep;
    nlohmann::ordered_json j;
    j["input"] = {{"trace", a.file},
                  {"format", a.format},
                  {"power", power_file.empty() ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(power_file)}};
    j["gpu"] = {
        {"id", a.gpu.id},         {"name", a.gpu_name},           {"method", a.gpu.method},
        {"reason", a.gpu.reason}, {"ambiguous", a.gpu.ambiguous}, {"assumed", a.gpu.assumed}, {"candidates", a.gpu.candidates},
        {"device", a.device},     {"devices", a.devices}};
    nlohmann::ordered_json v;
    v["bound"] = a.window.bound_name();
    v["roof"] = a.window.roof;
    v["reason"] = a.window.result ? a.window.result->reason : a.window.unknown_reason;
    v["notes"] = a.window.result ? a.window.result->notes : std::vector<std::string>{};
    v["roof_utilization"] = utilization_json(a.window);
    v["span_roof_utilization"] = span_utilization_json(a.window);
    nlohmann::ordered_json tb;
    for (auto b : all_bounds)
        tb[std::string(to_string(b))] = a.time_by_bound[static_cast<std::size_t>(b)];
    tb["unknown"] = a.time_by_bound[5];
    v["time_by_bound_s"] = tb;
    nlohmann::ordered_json tbs;  // the same over the window's span (the text's percentages)
    const double span = a.window.span_s > 0 ? a.window.span_s : 1.0;
    for (auto b : all_bounds)
        tbs[std::string(to_string(b))] = a.time_by_bound[static_cast<std::size_t>(b)] / span;
    tbs["unknown"] = a.time_by_bound[5] / span;
    v["time_by_bound_share"] = tbs;
    j["verdict"] = v;
    j["window"] = {{"start_s", a.window_start_s},
                   {"end_s", a.window_end_s},
                   {"span_s", a.window.span_s},
                   {"busy_s", a.window.busy_s},
                   {"busy_fraction", a.busy_fraction},
                   {"idle_fraction", a.window.span_s > 0 ? std::max(0.0, a.window.span_s - a.window.busy_s) / a.window.span_s : 0.0},
                   {"idle_gaps", a.idle_gaps},
                   {"median_gap_s", num(a.median_gap_s)},
                   {"max_gap_s", num(a.max_gap_s)},
                   {"concurrency", a.concurrency},
                   {"streams", a.streams},
                   {"communication_s", a.communication_s},
                   {"exposed_communication_s", a.exposed_communication_s},
                   {"overlapped_communication_s", a.overlapped_communication_s},
                   {"modeled_share", a.priced_share},
                   {"exposed_communication_share",
                    a.window.span_s > 0 ? a.exposed_communication_s / a.window.span_s : 0.0},
                   {"unlinked_share", a.unlinked_share},
                   {"unpriced", [&] {
                        auto u = nlohmann::ordered_json::array();
                        for (const auto& x : a.unpriced)
                            u.push_back({{"name", x.name}, {"time_s", x.time_s}, {"share", x.share}});
                        return u;
                    }()},
                   {"sibling_priced_kernels", a.sibling_priced},
                   {"ncu_matched_kernels", a.ncu_matched},
                   {"lower_bound_s", a.window.no_gpu ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.window.sol.lower_bound_s)},
                   {"achievable_s", a.window.no_gpu ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.window.achievable_s)},
                   {"tokens", a.tokens > 0 ? nlohmann::ordered_json(a.tokens)
                                           : nlohmann::ordered_json(nullptr)}};
    // The summary of the ingest issue, unchanged.
    const auto& s = a.summary;
    auto& sum = j["summary"];
    sum["file"] = s.file;
    sum["format"] = s.format;
    sum["kernel_count"] = static_cast<std::uint64_t>(s.kernel_count + 0.5);
    sum["kernel_time_s"] = s.kernel_time_s;
    sum["gpu_time_s"] = s.gpu_time_s;
    sum["events_read"] = s.stats.events_read;
    sum["events_kept"] = s.stats.events_kept;
    sum["events_skipped"] = s.stats.events_skipped;
    sum["skipped_by_reason"] = nlohmann::ordered_json::object();
    for (const auto& [reason, n] : s.stats.skipped_by_reason) sum["skipped_by_reason"][reason] = n;
    j["phases"] = nlohmann::ordered_json::array();
    for (const auto& r : a.phases) {
        auto p = row_json(r, false);
        p["phase"] = r.name;  // the ingest key, kept
        j["phases"].push_back(std::move(p));
    }
    j["kernels"] = nlohmann::ordered_json::array();
    for (const auto& r : a.kernels) j["kernels"].push_back(row_json(r, true));
    j["ops"] = nlohmann::ordered_json::array();
    for (const auto& r : a.ops) {
        auto o = row_json(r, true);
        o["input_dims"] = r.input_dims;
        o["input_types"] = r.input_types;
        j["ops"].push_back(std::move(o));
    }
    j["steps_from"] = a.step_source;
    j["step_detection"] = {{"source", a.step_info.source},
                           {"count", a.step_info.count},
                           {"note", a.step_info.note}};
    j["steps"] = nlohmann::ordered_json::array();
    if (with_steps)
        for (const auto& r : a.steps) j["steps"].push_back(row_json(r, false));
    if (a.power) {
        const auto& p = *a.power;
        const auto& e = p.evidence;
        j["power"] = {{"limit_w", num(e.limit_w)},
                      {"limit_from_log", e.limit_from_log},
                      {"median_draw_w", num(e.median_draw_w)},
                      {"mean_draw_w", num(p.mean_draw_w)},
                      {"fraction_of_limit", num(e.fraction_of_limit)},
                      {"clock_fraction_of_max", num(e.clock_fraction_of_max)},
                      {"median_sm_clock_hz", num(p.median_sm_clock_hz)},
                      {"max_sm_clock_hz", num(p.max_sm_clock_hz)},
                      {"power_cap_active_fraction", num(e.power_cap_active_fraction)},
                      {"median_utilization_gpu", num(e.median_utilization_gpu)},
                      {"offset_s", num(p.alignment.offset_s)},
                      {"offset_basis", p.alignment.basis},
                      {"alignment", p.alignment.method},
                      {"alignment_ok", p.alignment.ok},
                      {"onset_skew_s", num(p.alignment.onset_skew_s)},
                      {"gpu_index", p.gpu_index},
                      {"gpu_name", p.gpu_name},
                      {"source", p.source},
                      {"busy_period_gap_s", num(p.busy_gap_s)},
                      {"busy_period_near_s", num(p.near_s)},
                      {"busy_period_assumed", p.assumed},
                      {"busy_period_refused", p.refused},
                      {"samples", e.samples},
                      {"energy_j", num(p.energy_j)},
                      {"energy_per_token_j", num(p.energy_per_token_j)},
                      {"notes", p.notes}};
        // Last, after the flat keys: the state compared for a far busy period.
        j["power"]["busy_period_check"] = {
            {"next_to_window_clock_fraction_of_max", num(p.next_clock_fraction)},
            {"next_to_window_power_cap_active_fraction", num(p.next_cap_fraction)},
            {"period_clock_fraction_of_max", num(p.period_clock_fraction)},
            {"period_power_cap_active_fraction", num(p.period_cap_fraction)}};
        auto per = nlohmann::ordered_json::array();
        for (const auto& g : p.per_gpu)
            per.push_back({{"gpu_index", g.gpu_index},
                           {"gpu_name", g.gpu_name},
                           {"capped", g.capped},
                           {"compute_slowdown", num(g.compute_slowdown)},
                           {"evidence", power_json(g.evidence)}});
        j["power"]["per_gpu"] = per;
    }
    j["ceilings"] = nlohmann::ordered_json::parse(to_json(a.datasheet).dump());
    j["calibration"] = a.calibration_source.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.calibration_source);
    j["notes"] = a.notes;
    j["warnings"] = a.warnings;
    return j;
}

ROOFLINE_INLINE text_table trace_phase_table(const trace_analysis& a) {
    using detail::trace_rep::opt_pct;
    using detail::trace_rep::pct0;
    const bool link = a.window.sol.link_s > 0;
    std::vector<std::string> h = {"phase", "time", "share", "count", "bound", "compute", "memory"};
    if (link) h.push_back("link");
    h.insert(h.end(), {"power", "lower bound"});
    auto t = text_table::with_headers(h);
    for (const auto& r : a.phases) {
        const bool k = r.roofs_known();
        std::vector<std::string> row = {r.name,
                                        format_seconds(r.total_s),
                                        format_percent(r.share),
                                        format_count(r.count),
                                        r.bound_name(),
                                        k ? pct0(r.utilization.compute) : "-",
                                        k ? pct0(r.utilization.memory) : "-"};
        if (link) row.push_back(k ? pct0(r.utilization.communication) : "-");
        row.push_back(r.power ? opt_pct(r.power->fraction_of_limit) : "-");
        row.push_back(!k                           ? "-"
                      : r.sol.lower_bound_s < 1e-9 ? "< 1 ns"
                                                   : format_seconds(r.sol.lower_bound_s));
        t.add_row(row);
    }
    return t;
}

ROOFLINE_INLINE text_table trace_kernel_table(const trace_analysis& a, std::size_t top) {
    using detail::trace_rep::pct0;
    const bool link = a.window.sol.link_s > 0;
    std::vector<std::string> h = {"kernel", "phase", "count",   "mean",
                                  "share",  "bound", "compute", "memory"};
    if (link) h.push_back("link");
    auto t = text_table::with_headers(h);
    const std::size_t n = top == 0 ? a.kernels.size() : std::min(top, a.kernels.size());
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = a.kernels[i];
        const bool k = r.roofs_known();
        std::vector<std::string> row = {detail::trace_rep::display_kernel_name(r.name),
                                        std::string(to_string(r.phase)),
                                        format_count(r.count),
                                        format_seconds(r.mean_s()),
                                        format_percent(r.share),
                                        r.bound_name(),
                                        k ? pct0(r.utilization.compute) : "-",
                                        k ? pct0(r.utilization.memory) : "-"};
        if (link) row.push_back(k ? pct0(r.utilization.communication) : "-");
        t.add_row(row);
    }
    return t;
}

namespace detail::trace_rep {
// The step table's columns and the cells of one step row.
inline std::vector<std::string> step_headers(const trace_analysis& a) {
    std::vector<std::string> h = {"step", "span", "busy", "kernels", "bound", "compute", "memory"};
    if (a.window.sol.link_s > 0) h.push_back("link");
    return h;
}
inline std::vector<std::string> step_cells(const trace_analysis& a, const analysis_row& r) {
    std::vector<std::string> row = {r.name,
                                    format_seconds(r.span_s),
                                    r.span_s > 0 ? pct0(r.busy_s / r.span_s) : "-",
                                    format_count(r.count),
                                    r.bound_name(),
                                    r.roofs_known() ? pct0(r.utilization.compute) : "-",
                                    r.roofs_known() ? pct0(r.utilization.memory) : "-"};
    if (a.window.sol.link_s > 0) row.push_back(r.roofs_known() ? pct0(r.utilization.communication) : "-");
    return row;
}
}  // namespace detail::trace_rep

ROOFLINE_INLINE text_table trace_step_table(const trace_analysis& a) {
    using namespace detail::trace_rep;
    auto t = text_table::with_headers(step_headers(a));
    for (const auto& r : a.steps) t.add_row(step_cells(a, r));
    return t;
}

ROOFLINE_INLINE std::string window_roofs_text(const analysis_row& w) {
    using detail::trace_rep::pct0;
    std::string s = "roofs over the modeled time: compute " + pct0(w.utilization.compute);
    if (w.compute_at_clock) s += " (" + pct0(*w.compute_at_clock) + " at the measured SM clock)";
    s += ", DRAM " + pct0(w.utilization.memory_level[0]);
    if (w.utilization.memory_level[1] > 0) s += ", L2 " + pct0(w.utilization.memory_level[1]);
    for (std::size_t k = 0; k < link_roof_count; ++k)
        if (w.link_utilization[k] > 0)
            s += ", " + std::string(to_string(static_cast<link_roof>(k))) + " " + pct0(w.link_utilization[k]);
    if (w.span_utilization)
        s += "; over the window's span: compute " + pct0(w.span_utilization->compute) + ", memory " +
             pct0(w.span_utilization->memory);
    return s;
}

namespace detail::trace_rep {
/// The terminal report, handed to `emit` in pieces: the step table a line at a time.
inline void trace_text(const trace_analysis& a, std::size_t top, const std::function<void(std::string_view)>& emit) {
    std::string o;
    const auto& s = a.summary;
    o += fmt::format("roofline trace: {} ({})\n", a.file, a.format);
    o += labelled("GPU",
                  fmt::format("{} ({}): {}{}", a.gpu.id, a.gpu_name, a.gpu.reason,
                              a.devices.size() > 1 ? fmt::format("; device {} of {} in the trace",
                                                                 a.device, a.devices.size())
                                                   : std::string()));
    o += labelled("Window",
                  fmt::format("{} on device {}: GPU busy {}, {} idle gaps (median {}), {} stream{}",
                              format_seconds(a.window.span_s), a.device,
                              format_percent(a.busy_fraction), a.idle_gaps,
                              std::isfinite(a.median_gap_s) ? format_seconds(a.median_gap_s) : "-",
                              a.streams, a.streams == 1 ? "" : "s"));
    o += labelled(
        "Events",
        fmt::format("{} read, {} kept, {} skipped; {:.0f} kernels, {} of kernel time (all devices)",
                    s.stats.events_read, s.stats.events_kept, s.stats.events_skipped,
                    s.kernel_count, format_seconds(s.kernel_time_s)));
    // An unknown GPU (`analysis_row::no_gpu`) prices no ceiling: the bounds are unknown, not 0 s.
    o += labelled("Modeled",
                  a.window.no_gpu
                      ? fmt::format("{} of the GPU time has modeled work; lower bound unknown (no GPU: pass --gpu)",
                                    format_percent(a.priced_share))
                      : fmt::format("{} of the GPU time has modeled work; lower bound {} at datasheet ceilings, {} "
                                    "at achievable ones{}",
                                    format_percent(a.priced_share), format_seconds(a.window.sol.lower_bound_s),
                                    format_seconds(a.window.achievable_s),
                                    a.calibration_source.empty() ? std::string()
                                                                 : " (calibrated: " + a.calibration_source + ")"));
    o += labelled("Steps", fmt::format("{} ({}): {}", a.step_info.count, a.step_info.source, a.step_info.note));
    if (a.communication_s > 0)
        o += labelled("Collect.",
                      fmt::format("{} of collectives: {} exposed, {} overlapped by compute",
                                  format_seconds(a.communication_s),
                                  format_seconds(a.exposed_communication_s),
                                  format_seconds(a.overlapped_communication_s)));
    if (a.power) {
        const auto& p = *a.power;
        const auto& e = p.evidence;
        // A log that could not be placed on the trace says so here, not only in the notes.
        std::string align =
            p.alignment.ok
                ? fmt::format("nvidia-smi GPU {}{}; aligned by {}, offset {:.3f} s ({})", p.gpu_index,
                              p.gpu_name.empty() ? "" : " \"" + p.gpu_name + "\"", p.alignment.method,
                              std::isfinite(p.alignment.offset_s) ? p.alignment.offset_s : 0.0, p.alignment.basis)
                : fmt::format("nvidia-smi GPU {}{}; not aligned: no sample falls in the trace window (tried: {}, "
                              "offset {:.3f} s; see the power notes)",
                              p.gpu_index, p.gpu_name.empty() ? "" : " \"" + p.gpu_name + "\"",
                              p.alignment.method.empty() ? "nothing" : p.alignment.method,
                              std::isfinite(p.alignment.offset_s) ? p.alignment.offset_s : 0.0);
        if (p.alignment.onset_skew_s)
            align += fmt::format("; the log's activity starts {:.2f} s after the first kernel",
                                 *p.alignment.onset_skew_s);
        o += labelled("Power", align);
        if (!p.source.empty()) {
            o += labelled(
                "",
                fmt::format(
                    "limit {} ({}), median draw {} = {} of it; SM clock {} = {} of max; power cap "
                    "active {} of samples; energy {} over the window",
                    e.limit_w ? format_watts(*e.limit_w) : "unknown",
                    e.limit_from_log ? "enforced" : "catalog default",
                    e.median_draw_w ? format_watts(*e.median_draw_w) : "unknown",
                    opt_pct(e.fraction_of_limit),
                    p.median_sm_clock_hz ? format_mhz(*p.median_sm_clock_hz) : "unknown",
                    opt_pct(e.clock_fraction_of_max), opt_pct(e.power_cap_active_fraction),
                    p.energy_j ? format_si(*p.energy_j, "J") : "n/a"));
            o += labelled("", "samples: " + p.note);
        }
    }
    // Verdict.
    o += fmt::format("\nVerdict: {}{}{}\n", a.window.bound_name(), a.window.result ? "-bound" : "",
                     a.window.roof.empty() || a.window.roof == "collectives" || a.window.roof == a.window.bound_name()
                         ? ""
                         : " (" + a.window.roof + ")");
    o += "  " +
         wrap(a.window.result ? a.window.result->reason : a.window.unknown_reason, 2, 100, 2) +
         "\n";
    if (a.window.result)
        for (const auto& n : a.window.result->notes) o += "  - " + wrap(n, 4, 100, 4) + "\n";
    if (a.window.roofs_known()) o += "  " + wrap(window_roofs_text(a.window), 2, 100, 2) + "\n";
    o += fmt::format("  wall time by bound:");
    bool any = false;
    for (std::size_t k = 0; k < 6; ++k) {
        const double span = a.window.span_s > 0 ? a.window.span_s : 1.0;
        if (!(a.time_by_bound[k] / span >= 0.0005)) continue;
        o += fmt::format("{} {} {}", any ? "," : "",
                         k < 5 ? to_string(static_cast<bound>(k)) : "unknown",
                         format_percent(a.time_by_bound[k] / span));
        any = true;
    }
    o += "\n\nPhases (utilisation of each roof over the phase's modeled time)\n" +
         trace_phase_table(a).render(100);
    for (const auto& r : a.phases)
        if (r.share >= 0.01 || a.phases.size() <= 4)
            o += "  " +
                 wrap(r.name + ": " + (r.result ? r.result->reason : r.unknown_reason), 4, 100, 2) +
                 "\n";
    const std::size_t n = top == 0 ? a.kernels.size() : std::min(top, a.kernels.size());
    o += fmt::format("\nKernels ({} of {} names)\n", n, a.kernels.size()) +
         trace_kernel_table(a, top).render(100);
    // The five longest kernels' work and notes; past them, a shown kernel above 100% of a roof
    // has a note that explains it (L2-resident tensors) or a warning: its notes are printed too.
    o += "Work of the longest kernels:\n";
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = a.kernels[i];
        const bool longest = i < 5;
        if (!longest && (r.notes.empty() || !(r.utilization.compute > 1.0 || r.utilization.memory > 1.0))) continue;
        std::string what = !longest                ? std::string()
                           : !r.example.empty()    ? r.example
                           : r.unknown_reason.empty() ? std::string("no model")
                                                      : r.unknown_reason;
        for (const auto& x : r.notes) what += (what.empty() ? "" : "; ") + x;
        o += "  " + wrap(ellipsize_middle(short_kernel_name(r.name), 36) + ": " + what, 4, 100, 2) + "\n";
    }
    if (!a.steps.empty()) {
        // A line at a time: a trace may have 100,000 steps.
        o += fmt::format("\nSteps ({})\n", a.step_source);
        std::vector<table_column> columns;
        for (auto& h : step_headers(a)) columns.push_back({std::move(h), align::automatic});
        table_layout layout(std::move(columns));
        for (const auto& r : a.steps) layout.add(step_cells(a, r));
        layout.fit(100);
        o += layout.head();
        emit(o);
        o.clear();
        for (const auto& r : a.steps) emit(layout.line(step_cells(a, r)));
    }
    if (a.power && (a.power->notes.size() > 1 ||
                    (a.power->notes.size() == 1 && a.power->notes[0] != a.power->note))) {
        o += "\nPower notes:\n";
        for (const auto& x : a.power->notes)
            if (x != a.power->note) o += "  - " + wrap(x, 4, 100, 4) + "\n";
    }
    if (!a.warnings.empty()) {
        o += "\nWarnings:\n";
        for (const auto& x : a.warnings) o += "  ! " + wrap(x, 4, 100, 4) + "\n";
    }
    if (!a.notes.empty()) {
        o += "\nNotes:\n";
        for (const auto& x : a.notes) o += "  - " + wrap(x, 4, 100, 4) + "\n";
    }
    emit(o);
}
}  // namespace detail::trace_rep

ROOFLINE_INLINE std::string render_trace_text(const trace_analysis& a, std::size_t top) {
    std::string o;
    detail::trace_rep::trace_text(a, top, [&](std::string_view s) { o += s; });
    return o;
}

ROOFLINE_INLINE void write_trace_text(std::FILE* out, const trace_analysis& a, std::size_t top) {
    detail::trace_rep::trace_text(a, top, [&](std::string_view s) { std::fwrite(s.data(), 1, s.size(), out); });
}

ROOFLINE_INLINE void write_trace_csv(std::ostream& out, const trace_analysis& a) {
    csv_writer w(out);
    w.row({"level", "name", "phase", "count", "total_s", "mean_s", "share", "bound", "compute",
           "memory", "communication", "power", "lower_bound_s", "achievable_s", "flops",
           "dram_bytes", "link_bytes", "reason", "roof", "l2_bytes", "shared_memory_bytes",
           "input_dims", "input_types"});
    const auto rec = [&](std::string_view level, const analysis_row& r, std::string phase) {
        const bool k = r.roofs_known();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double pw = r.power && r.power->fraction_of_limit ? *r.power->fraction_of_limit : nan;
        w.record(std::string(level), r.name, phase, r.count, r.total_s, r.mean_s(), r.share,
                 r.bound_name(), k ? r.utilization.compute : nan, k ? r.utilization.memory : nan,
                 k ? r.utilization.communication : nan, pw, r.no_gpu ? nan : r.sol.lower_bound_s,
                 r.no_gpu ? nan : r.achievable_s,
                 r.work.total_flops(), r.work.dram_bytes(), r.work.link_bytes,
                 r.result ? r.result->reason : r.unknown_reason, r.roof,
                 r.work.bytes[static_cast<std::size_t>(memory_level::l2)],
                 r.work.bytes[static_cast<std::size_t>(memory_level::smem)], r.input_dims, r.input_types);
    };
    rec("window", a.window, "");
    for (const auto& r : a.phases) rec("phase", r, r.name);
    for (const auto& r : a.kernels) rec("kernel", r, std::string(to_string(r.phase)));
    for (const auto& r : a.ops) rec("op", r, std::string(to_string(r.phase)));
    for (const auto& r : a.steps) rec("step", r, "");
}

ROOFLINE_INLINE roofline_chart trace_roofline_chart(const trace_analysis& a, const gpu_spec& g,
                                                    std::size_t max_points) {
    using namespace detail::trace_rep;
    std::vector<peak_key> keys;
    for (auto k : all_peak_keys)
        if (a.window.work.flops_at(k) > 0) keys.push_back(k);
    if (keys.empty()) keys.push_back(peak_key::bf16);
    auto chart = make_roofline_chart(g, a.datasheet, keys);
    chart.title = (g.name.empty() ? g.id : g.name) + ": " + a.window.bound_name() +
                  (a.window.result ? "-bound" : "");
    chart.subtitle = a.file + " \u00b7 " + chart.subtitle +
                     (a.calibration_source.empty() ? std::string() : " \u00b7 achievable ceilings calibrated: " + a.calibration_source);
    // Derated roof: the cap held the clock below the one the peaks assume.
    if (a.power && a.power->median_sm_clock_hz && std::isfinite(a.reference_clock_hz)) {
        const auto& e = a.power->evidence;
        const double clock = *a.power->median_sm_clock_hz;
        if (e.power_cap_active_fraction && *e.power_cap_active_fraction >= 0.5 &&
            clock < 0.98 * a.reference_clock_hz) {
            chart.ceilings.push_back(
                power_capped_roof(a.datasheet, keys.front(), clock, a.reference_clock_hz));
            chart.notes.push_back(fmt::format(
                "dashed: the {} roof at the median SM clock the power cap held ({} of the {} "
                "the peak assumes)",
                to_string(keys.front()), format_mhz(clock), format_mhz(a.reference_clock_hz)));
        }
    }
    std::size_t drawn = 0, without = 0;
    for (const auto& r : a.kernels) {
        if (!(r.priced_s > 0) || !(r.work.total_flops() > 0) || !(r.work.dram_bytes() > 0)) {
            ++without;
            continue;
        }
        if (drawn >= max_points) break;
        chart_point p;
        p.label = short_kernel_name(r.name);
        p.arithmetic_intensity = r.work.total_flops() / r.work.dram_bytes();
        p.achieved_flops_per_s = r.work.total_flops() / r.priced_s;
        p.time_share = r.share;
        p.bound = r.result ? r.result->what : bound::latency;
        p.detail =
            fmt::format("{}\n{}\ncompute {} / memory {} of the datasheet ceilings\n{}",
                        to_string(r.phase), r.example, pct0(r.utilization.compute),
                        pct0(r.utilization.memory), r.result ? r.result->reason : r.unknown_reason);
        chart.points.push_back(std::move(p));
        ++drawn;
    }
    chart.notes.push_back(fmt::format(
        "circles: kernels with modeled FLOP and DRAM bytes ({} drawn); window {}, GPU busy {}",
        drawn, format_seconds(a.window.span_s), format_percent(a.busy_fraction)));
    if (without > 0)
        chart.notes.push_back(fmt::format(
            "{} kernel name{} without FLOP or bytes (copies, collectives, unmodeled) not drawn",
            without, without == 1 ? "" : "s"));
    return chart;
}

ROOFLINE_INLINE std::string render_trace_html(const trace_analysis& a, const gpu_spec& g,
                                              std::size_t top) {
    using namespace detail::trace_rep;
    html_report r;
    r.title = "roofline trace: " + a.file;
    r.subtitle = a.gpu.id + " (" + a.gpu_name + "): " + a.gpu.reason;
    html_section verdict("Verdict: " + a.window.bound_name() + (a.window.result ? "-bound" : ""));
    verdict.add_paragraph(a.window.result ? a.window.result->reason : a.window.unknown_reason);
    if (a.window.result)
        for (const auto& n : a.window.result->notes) verdict.add_paragraph("Note: " + n);
    auto facts = text_table::with_headers({"fact", "value"});
    facts.add_row({"window", format_seconds(a.window.span_s)});
    facts.add_row({"GPU busy", format_percent(a.busy_fraction)});
    facts.add_row({"modeled share of GPU time", format_percent(a.priced_share)});
    facts.add_row({"steps", fmt::format("{} ({}): {}", a.step_info.count, a.step_info.source, a.step_info.note)});
    facts.add_row({"lower bound (datasheet)", format_seconds(a.window.sol.lower_bound_s)});
    if (a.communication_s > 0)
        facts.add_row(
            {"collectives exposed / overlapped", format_seconds(a.exposed_communication_s) + " / " +
                                                     format_seconds(a.overlapped_communication_s)});
    for (std::size_t k = 0; k < 6; ++k)
        if (a.time_by_bound[k] > 0)
            facts.add_row({std::string("wall time ") +
                               (k < 5 ? std::string(to_string(static_cast<bound>(k))) : "unknown"),
                           format_percent(a.time_by_bound[k] /
                                          (a.window.span_s > 0 ? a.window.span_s : 1.0))});
    verdict.add_table(facts);
    r.sections.push_back(std::move(verdict));
    html_section chart("Roofline chart");
    chart.add_svg(render_roofline_svg(trace_roofline_chart(a, g)));
    r.sections.push_back(std::move(chart));
    if (a.power) {
        const auto& p = *a.power;
        const auto& e = p.evidence;
        html_section ps("Power");
        auto t = text_table::with_headers({"quantity", "value"});
        t.add_row({"log GPU", std::to_string(p.gpu_index) +
                                  (p.gpu_name.empty() ? "" : " (" + p.gpu_name + ")")});
        t.add_row({"alignment", (p.alignment.ok ? "" : "not aligned (tried: ") + p.alignment.method +
                                    fmt::format(", offset {:.3f} s", p.alignment.offset_s) +
                                    (p.alignment.ok ? "" : ")")});
        // No source: no sample was selected (the log does not cover the trace window); say so
        // and why, as the text report's "samples:" line does.
        t.add_row({"samples", p.source.empty() ? "none" + (p.note.empty() ? std::string(": no sample falls in the trace window") : ": " + p.note)
                                               : std::to_string(e.samples) + " from the " + p.source});
        t.add_row({"limit", e.limit_w ? format_watts(*e.limit_w) : "unknown"});
        t.add_row({"median draw", e.median_draw_w ? format_watts(*e.median_draw_w) : "unknown"});
        t.add_row({"of the limit", opt_pct(e.fraction_of_limit)});
        t.add_row({"SM clock of max", opt_pct(e.clock_fraction_of_max)});
        t.add_row({"power cap active", opt_pct(e.power_cap_active_fraction)});
        t.add_row({"energy over the window", p.energy_j ? format_si(*p.energy_j, "J") : "n/a"});
        ps.add_table(t);
        for (const auto& n : p.notes) ps.add_paragraph(n);
        r.sections.push_back(std::move(ps));
    }
    html_section phases("Phases");
    phases.add_table(trace_phase_table(a),
                     "utilisation of each roof over the phase's modeled time");
    for (const auto& row : a.phases)
        phases.add_paragraph(row.name + ": " +
                             (row.result ? row.result->reason : row.unknown_reason));
    r.sections.push_back(std::move(phases));
    html_section kernels("Kernels");
    kernels.add_table(trace_kernel_table(a, top));
    r.sections.push_back(std::move(kernels));
    if (!a.steps.empty()) {
        html_section steps("Steps (" + a.step_source + ")");
        steps.add_table(trace_step_table(a));
        r.sections.push_back(std::move(steps));
    }
    if (!a.warnings.empty() || !a.notes.empty()) {
        html_section notes("Notes and warnings");
        for (const auto& w : a.warnings) notes.add_paragraph("Warning: " + w);
        for (const auto& n : a.notes) notes.add_paragraph(n);
        r.sections.push_back(std::move(notes));
    }
    return render_html(r);
}

}  // namespace roofline::report
#endif  // ROOFLINE_BODIES_REPORT
