#pragma once
// Nsight Systems `nsys stats` CSV reports -> kernel summaries and traces.
//
// - `cuda_gpu_kern_sum` (pre-2022: `gpukernsum`): one row per kernel name: `Time (%)`,
//   `Total Time (ns)`, `Instances`, `Avg (ns)`, `Med (ns)`, `Min (ns)`, `Max (ns)`,
//   `StdDev (ns)`, `Name` (older: `Time(%)`, `Average`, `Minimum`, `Maximum`).
// - `cuda_gpu_trace`: one row per kernel or memory operation: `Start (ns)`, `Duration (ns)`,
//   `CorrId`, `GrdX..Z`, `BlkX..Z`, `Reg/Trd`, `StcSMem (MB)`, `DymSMem (MB)`, `Bytes (MB)`,
//   `Throughput (MB/s)`, `SrcMemKd`, `DstMemKd`, `Device`, `Ctx`, [`GreenCtx`], `Strm`, `Name`;
//   memory operations are named `[CUDA memcpy Host-to-Device]`, `[CUDA memset]`.
// Columns are found by name (prefix match, case and blanks ignored), never by position; the unit
// in a header's parentheses follows `--timeunit` (ns, us, ms, s); lines before the header
// (progress messages, `** ... (cuda_gpu_kern_sum):` banners) are skipped; numbers may carry
// thousands separators. "MB" is taken as 10^6 bytes (nsys reports use decimal units).
// Source: ../shared/FORMATS.md section 4 and the RTX 5090 sample report.

#include <algorithm>         // std::min
#include <cmath>             // std::isnan, std::isfinite
#include <cstddef>           // std::size_t
#include <cstdint>           // std::int64_t, std::uint32_t
#include <initializer_list>  // std::initializer_list
#include <optional>          // std::optional
#include <string>            // std::string
#include <string_view>       // std::string_view
#include <unordered_map>     // std::unordered_map
#include <vector>            // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// Which `nsys stats` report a CSV holds.
enum class nsys_report { cuda_gpu_kern_sum, cuda_gpu_trace };

/// Which report `path` holds (by its header), or a `parse_error` when it is neither.
nsys_report detect_nsys_report(const std::string& path);

/// Reads an `nsys stats --report cuda_gpu_kern_sum --format csv` report into a summary.
/// Rows with a bad number are skipped and counted; a missing file, an empty one, or one without a
/// recognisable header or without the `Name` and `Total Time` columns is a `parse_error`.
trace_summary read_nsys_kern_sum(const std::string& path, const kernel_rules& rules);

/// Reads an `nsys stats --report cuda_gpu_trace --format csv` report into a `kernel_trace`
/// (one event per row; no CPU-side ops, which this report does not carry). Rows with a missing
/// or bad start/duration, a negative duration, or the wrong number of cells are skipped and
/// counted; a file without the report's header is a `parse_error`.
kernel_trace read_nsys_gpu_trace(const std::string& path, const kernel_rules& rules);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

/// Header cell without blanks, lower case, unit split off: "Total Time (ns)" -> {"totaltime","ns"}.
struct nsys_header_cell {
    std::string key, unit;
};
inline nsys_header_cell nsys_split_header(std::string_view cell) {
    nsys_header_cell h;
    cell = trim(cell);
    std::string_view name = cell;
    if (const auto open = cell.rfind('('); open != std::string_view::npos && cell.back() == ')') {
        h.unit = to_lower(trim(cell.substr(open + 1, cell.size() - open - 2)));
        name = cell.substr(0, open);
    }
    for (char c : name)
        if (c != ' ' && c != '\t') h.key += lower(c);
    return h;
}

/// Seconds per unit of a time header ("ns", "us", "ms", "s"); nsys' default is ns.
inline std::optional<double> nsys_time_scale(std::string_view unit) {
    if (unit.empty() || unit == "ns" || unit == "nsec") return 1e-9;
    if (unit == "us" || unit == "usec" || unit == "\xc2\xb5s") return 1e-6;
    if (unit == "ms" || unit == "msec") return 1e-3;
    if (unit == "s" || unit == "sec") return 1.0;
    return std::nullopt;
}

/// Finds the header row of an nsys report: the first record with a "Name" column and one of the
/// time columns. Returns false at the end of the file.
inline bool nsys_find_header(io::csv_reader& csv, std::vector<std::string>& cells, std::string& raw) {
    while (csv.next(cells, raw)) {
        bool name = false, time = false;
        for (const auto& c : cells) {
            const auto h = nsys_split_header(c);
            name = name || h.key == "name";
            time = time || h.key == "totaltime" || h.key == "start" || h.key == "time" || h.key == "time%" ||
                   h.key == "duration";
        }
        if (name && time) return true;
    }
    return false;
}

/// Index of the first column whose key starts with one of `prefixes`; -1 if none.
inline int nsys_column(const std::vector<nsys_header_cell>& h, std::initializer_list<std::string_view> prefixes) {
    for (std::string_view p : prefixes)
        for (std::size_t i = 0; i < h.size(); ++i)
            if (h[i].key == p) return static_cast<int>(i);
    for (std::string_view p : prefixes)
        for (std::size_t i = 0; i < h.size(); ++i)
            if (h[i].key.rfind(p, 0) == 0) return static_cast<int>(i);
    return -1;
}

inline gpu_activity nsys_activity(std::string_view name) {
    if (istarts_with(name, "[CUDA memcpy")) return gpu_activity::memcpy;
    if (istarts_with(name, "[CUDA memset")) return gpu_activity::memset;
    return gpu_activity::kernel;
}

}  // namespace io::detail

ROOFLINE_INLINE nsys_report detect_nsys_report(const std::string& path) {
    io::input_file in(path);
    io::csv_reader csv(in);
    std::vector<std::string> cells;
    std::string raw;
    if (!io::detail::nsys_find_header(csv, cells, raw))
        throw parse_error(path, csv.line_number() == 0 ? "line 1" : csv.place(), "",
                          csv.line_number() == 0 ? "empty file"
                                                 : "not an nsys stats CSV report (no header with \"Name\" and a time "
                                                   "column up to here)");
    for (const auto& c : cells)
        if (io::detail::nsys_split_header(c).key == "start") return nsys_report::cuda_gpu_trace;
    return nsys_report::cuda_gpu_kern_sum;
}

ROOFLINE_INLINE trace_summary read_nsys_kern_sum(const std::string& path, const kernel_rules& rules) {
    using namespace io::detail;
    io::input_file in(path);
    io::csv_reader csv(in);
    std::vector<std::string> cells;
    std::string raw;
    if (!nsys_find_header(csv, cells, raw))
        throw parse_error(path, csv.place(), "", "not an nsys cuda_gpu_kern_sum CSV (no header with \"Name\" and \"Total Time\")");
    std::vector<nsys_header_cell> h;
    for (const auto& c : cells) h.push_back(nsys_split_header(c));
    const int c_name = nsys_column(h, {"name"});
    const int c_total = nsys_column(h, {"totaltime"});
    const int c_count = nsys_column(h, {"instances", "calls", "count"});
    const int c_min = nsys_column(h, {"min", "minimum"});
    const int c_max = nsys_column(h, {"max", "maximum"});
    if (c_name < 0 || c_total < 0 || c_count < 0)
        throw parse_error(path, csv.place(), c_total < 0 ? "Total Time" : c_count < 0 ? "Instances" : "Name",
                          "column missing from the cuda_gpu_kern_sum header");
    const auto scale = nsys_time_scale(h[static_cast<std::size_t>(c_total)].unit);
    if (!scale) throw parse_error(path, csv.place(), "Total Time", "unknown time unit \"" + h[static_cast<std::size_t>(c_total)].unit + "\"");
    // Columns without a unit (old "Average", "Minimum") share the Total Time column's unit.
    auto unit_of = [&](int c) {
        if (c < 0 || h[static_cast<std::size_t>(c)].unit.empty()) return scale;
        return nsys_time_scale(h[static_cast<std::size_t>(c)].unit);
    };
    const auto min_scale = unit_of(c_min), max_scale = unit_of(c_max);

    read_stats st;
    summary_builder b;
    while (csv.next(cells, raw)) {
        if (trim(raw).empty()) continue;
        ++st.events_read;
        if (cells.size() != h.size()) {
            st.skip("wrong_column_count");
            continue;
        }
        const auto total = parse_grouped_number(cells[static_cast<std::size_t>(c_total)]);
        const auto count = parse_grouped_number(cells[static_cast<std::size_t>(c_count)]);
        if (!total || !count) {
            st.skip(!total ? "bad_value(Total Time)" : "bad_value(Instances)");
            continue;
        }
        if (!std::isfinite(*total) || !std::isfinite(*count)) {  // "nan", "inf" parse as numbers
            st.skip(!std::isfinite(*total) ? "non_finite(Total Time)" : "non_finite(Instances)");
            continue;
        }
        if (*total < 0 || *count < 0) {
            st.skip("negative_value");
            continue;
        }
        auto opt = [&](int c, std::optional<double> s) {
            if (c < 0 || !s) return kernel_event::unknown;
            const auto v = parse_grouped_number(cells[static_cast<std::size_t>(c)]);
            return v && std::isfinite(*v) ? *v * *s : kernel_event::unknown;
        };
        const std::string name = valid_utf8(cells[static_cast<std::size_t>(c_name)]);
        const auto activity = nsys_activity(name);
        const auto phase = activity == gpu_activity::memcpy   ? kernel_phase::memcpy
                           : activity == gpu_activity::memset ? kernel_phase::memset
                                                              : rules.classify(name);
        b.add_many(name, phase, activity, *count, *total * *scale, opt(c_min, min_scale), opt(c_max, max_scale));
        ++st.events_kept;
    }
    return b.finish(path, "nsys-cuda-gpu-kern-sum", st);
}

ROOFLINE_INLINE kernel_trace read_nsys_gpu_trace(const std::string& path, const kernel_rules& rules) {
    using namespace io::detail;
    kernel_trace t;
    t.file = path;
    t.format = "nsys-cuda-gpu-trace";
    io::input_file in(path);
    io::csv_reader csv(in);
    std::vector<std::string> cells;
    std::string raw;
    if (!nsys_find_header(csv, cells, raw))
        throw parse_error(path, csv.place(), "", "not an nsys cuda_gpu_trace CSV (no header with \"Start\" and \"Name\")");
    std::vector<nsys_header_cell> h;
    for (const auto& c : cells) h.push_back(nsys_split_header(c));
    const int c_start = nsys_column(h, {"start"}), c_dur = nsys_column(h, {"duration"}), c_name = nsys_column(h, {"name"});
    if (c_start < 0 || c_dur < 0 || c_name < 0)
        throw parse_error(path, csv.place(), c_start < 0 ? "Start" : c_dur < 0 ? "Duration" : "Name",
                          "column missing from the cuda_gpu_trace header");
    const auto s_start = nsys_time_scale(h[static_cast<std::size_t>(c_start)].unit);
    const auto s_dur = nsys_time_scale(h[static_cast<std::size_t>(c_dur)].unit);
    if (!s_start || !s_dur) throw parse_error(path, csv.place(), "Duration", "unknown time unit");
    const int c_corr = nsys_column(h, {"corrid"}), c_strm = nsys_column(h, {"strm", "stream"}),
              c_dev = nsys_column(h, {"device"}), c_reg = nsys_column(h, {"reg/trd"}),
              c_ssm = nsys_column(h, {"stcsmem"}), c_dsm = nsys_column(h, {"dymsmem"}),
              c_bytes = nsys_column(h, {"bytes"});
    const int c_grid[3] = {nsys_column(h, {"grdx"}), nsys_column(h, {"grdy"}), nsys_column(h, {"grdz"})};
    const int c_block[3] = {nsys_column(h, {"blkx"}), nsys_column(h, {"blky"}), nsys_column(h, {"blkz"})};
    auto mb_scale = [&](int c) {  // "(MB)" -> 1e6 B, "(B)" -> 1
        if (c < 0) return 1.0;
        const auto& u = h[static_cast<std::size_t>(c)].unit;
        return u == "b" ? 1.0 : u == "kb" ? 1e3 : u == "gb" ? 1e9 : 1e6;
    };
    std::unordered_map<const char*, kernel_phase> phases;
    bool origin = false;
    double origin_s = 0;
    while (csv.next(cells, raw)) {
        if (trim(raw).empty()) continue;
        auto& st = t.stats;
        ++st.events_read;
        if (cells.size() != h.size()) {
            st.skip("wrong_column_count");
            continue;
        }
        auto num = [&](int c) -> std::optional<double> {
            if (c < 0) return std::nullopt;
            return parse_grouped_number(cells[static_cast<std::size_t>(c)]);
        };
        const auto start = num(c_start), dur = num(c_dur);
        if (!start) { st.skip("bad_value(Start)"); continue; }
        if (!dur) { st.skip("bad_value(Duration)"); continue; }
        if (!std::isfinite(*start)) { st.skip("non_finite(Start)"); continue; }  // "nan", "inf"
        if (!std::isfinite(*dur)) { st.skip("non_finite(Duration)"); continue; }
        if (*dur < 0) { st.skip("negative_dur"); continue; }
        kernel_event e;
        e.name = t.strings->intern(valid_utf8(cells[static_cast<std::size_t>(c_name)]));
        e.activity = nsys_activity(e.name);
        if (e.activity == gpu_activity::kernel) {
            auto it = phases.find(e.name.data());
            if (it == phases.end()) it = phases.emplace(e.name.data(), rules.classify(e.name)).first;
            e.phase = it->second;
        } else {
            e.phase = e.activity == gpu_activity::memcpy ? kernel_phase::memcpy : kernel_phase::memset;
        }
        const double start_s = *start * *s_start;
        if (!origin) {
            origin = true;
            origin_s = start_s;
            t.time_origin_us = start_s * 1e6;
        }
        e.start_s = start_s - origin_s;
        e.duration_s = *dur * *s_dur;
        if (const auto v = num(c_corr)) e.correlation = to_int_or<std::int64_t>(*v, -1);
        if (const auto v = num(c_strm)) e.stream = to_int_or<std::int64_t>(*v, -1);
        if (const auto v = num(c_reg)) e.registers_per_thread = to_int_or<int>(*v, -1);
        for (int i = 0; i < 3; ++i) {
            if (const auto g = num(c_grid[i])) e.grid[static_cast<std::size_t>(i)] = to_int_or<std::uint32_t>(*g, 0);
            if (const auto b = num(c_block[i])) e.block[static_cast<std::size_t>(i)] = to_int_or<std::uint32_t>(*b, 0);
        }
        auto finite = [&](int c) {  // optional columns: "nan" or "inf" mean unknown
            const auto v = num(c);
            return v && std::isfinite(*v) ? v : std::nullopt;
        };
        const auto ssm = finite(c_ssm), dsm = finite(c_dsm);
        if (ssm || dsm) e.shared_memory_bytes = ssm.value_or(0) * mb_scale(c_ssm) + dsm.value_or(0) * mb_scale(c_dsm);
        if (const auto b = finite(c_bytes)) e.bytes = *b * mb_scale(c_bytes);
        if (c_dev >= 0) {  // "NVIDIA H100 80GB HBM3 (0)" -> device 0 named "NVIDIA H100 80GB HBM3"
            const std::string& d = cells[static_cast<std::size_t>(c_dev)];
            const auto open = d.rfind('(');
            if (open != std::string::npos)
                if (const auto k = parse_int(std::string_view(d).substr(open + 1, d.size() - open - 2))) {
                    e.device = static_cast<int>(*k);
                    // The name before " (N)" is the device's name: the only device property an
                    // nsys stats CSV carries, enough for `resolve_trace_gpu` to match by name.
                    const std::string name(trim(std::string_view(d).substr(0, open)));
                    if (!name.empty() && std::none_of(t.devices.begin(), t.devices.end(),
                                                      [&](const device_properties& p) { return p.id == e.device; })) {
                        device_properties p;
                        p.id = e.device;
                        p.name = name;
                        t.devices.push_back(p);
                    }
                }
        }
        t.events.push_back(e);
        ++st.events_kept;
    }
    // Rows need not be in time order: move the origin to the earliest start.
    double min_start = 0;
    for (const auto& e : t.events) min_start = std::min(min_start, e.start_s);
    if (min_start < 0) {
        for (auto& e : t.events) e.start_s -= min_start;
        t.time_origin_us += min_start * 1e6;
    }
    t.links.gpu_events = t.events.size();
    t.links.unlinked = t.events.size();
    return t;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
