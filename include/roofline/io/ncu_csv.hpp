#pragma once
// Nsight Compute CSV -> `ncu_report` (empirical roofline points).
//
// Both pages `ncu --csv` writes (../shared/FORMATS.md section 5):
// - `--page raw`: wide, one row per launch: `ID, Process ID, Process Name, Host Name, Kernel
//   Name, Context, Stream, Block Size, Grid Size, Device, CC,` then one column per metric; the row
//   after the header holds the units ("byte", "nsecond", "%", ...).
// - `--page details` (default): long, one row per metric: identity columns, `Section Name`,
//   [`Body Item Label`], `Metric Name`, `Metric Unit`, `Metric Value`, then rule columns (rows
//   may stop early). Metrics asked for with `--metrics` appear under their raw names, section rows
//   under display names ("Duration", "DRAM Throughput"); the display names that map to the
//   roofline metrics are translated (see `ncu_display_alias`).
// Lines before the header (`==PROF==`, `==WARNING==`, application output) are skipped. Values
// may carry thousands separators ("13,485"; European "27.595.520" too), units are auto-scaled
// (byte/Kbyte/Mbyte/Gbyte, nsecond/usecond/msecond, hz/Mhz/Ghz, Gbyte/s; decimal prefixes, as
// the RTX 5090 sample confirms: 345.14 Gbyte/s x 6.75 us = 2.33 Mbyte), and `n/a` means the
// metric does not exist on that GPU.

#include <algorithm>         // std::min
#include <array>             // std::array
#include <cmath>             // std::isnan, std::isfinite
#include <cstdint>           // std::uint32_t
#include <cstdlib>           // std::atoi, std::strtod
#include <initializer_list>  // std::initializer_list
#include <cstddef>      // std::size_t
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_profile.hpp"
#include "roofline/trace/kernel_rules.hpp"

namespace roofline {

/// Reads an `ncu --csv` report (raw or details page, plain or .gz). Metric values that are not
/// numbers (other than `n/a` and empty) are skipped and counted. Throws `parse_error` for a
/// missing, empty or corrupt file, or one without the `"ID","Process ID",...` header.
ncu_report read_ncu_csv(const std::string& path);

/// True when `path` is an `ncu --csv` report: its header row (after any `==PROF==` lines and
/// application output in the first 64 KiB) starts with `"ID","Process ID"`.
bool is_ncu_csv(const std::string& path);

/// An ncu report as a trace: one kernel per profiled launch, in ID order, laid back to back
/// from time 0 with ncu's measured durations (ncu serialises and replays each launch, so the
/// report has no timeline: gaps and overlap are unknown). Phases from `rules`; the device from
/// the report's `Device` column and `device__attribute_display_name` when reported. Launches
/// without a duration are skipped and counted. Format "ncu-csv".
kernel_trace ncu_report_trace(const ncu_report& r, const kernel_rules& rules);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

/// Seconds per unit for a time unit ("nsecond", "ns", "usecond", "us", "msecond", "ms",
/// "second", "s"); nullopt for anything else.
inline std::optional<double> ncu_time_unit(std::string_view u) {
    if (u == "ns" || u == "nsecond") return 1e-9;
    if (u == "us" || u == "usecond") return 1e-6;
    if (u == "ms" || u == "msecond") return 1e-3;
    if (u == "s" || u == "second") return 1.0;
    return std::nullopt;
}

/// Factor from `unit` to SI: decimal prefixes K/M/G/T on any unit ("Mbyte", "Ghz", "Kinst"),
/// time units as seconds, "X/s" and "X/second" scale as X, "X/<time>" divides by the time.
/// Percent and counts stay as they are.
inline double ncu_unit_scale(std::string_view unit) {
    unit = trim(unit);
    if (unit.empty() || unit == "%") return 1.0;
    std::string_view num = unit, den;
    if (const auto slash = unit.find('/'); slash != std::string_view::npos) {
        num = unit.substr(0, slash);
        den = unit.substr(slash + 1);
    }
    auto scale_of = [](std::string_view u) -> double {
        if (const auto t = ncu_time_unit(u)) return *t;
        if (u.size() > 1) {
            const std::string_view rest = u.substr(1);
            const bool word = rest == "byte" || iequals(rest, "hz") || rest == "inst" || rest == "cycle" ||
                              rest == "sector" || rest == "request" || rest == "warp" || rest == "block" ||
                              rest == "thread" || rest == "wavefront";
            if (word) {
                switch (u[0]) {
                    case 'K': case 'k': return 1e3;
                    case 'M': return 1e6;
                    case 'G': case 'g': return 1e9;
                    case 'T': case 't': return 1e12;
                    default: break;
                }
            }
        }
        return 1.0;
    };
    double s = scale_of(num);
    if (!den.empty()) {
        if (const auto t = ncu_time_unit(den)) s /= *t;
    }
    return s;
}

/// The raw metric a details-page display row stands for ("" if none).
inline std::string ncu_display_alias(std::string_view section, std::string_view name, std::string_view unit) {
    const bool pct = unit == "%";
    if (section == "GPU Speed Of Light Throughput") {
        if (name == "Duration") return "gpu__time_duration.sum";
        if (name == "DRAM Frequency") return "dram__cycles_elapsed.avg.per_second";
        if (name == "SM Frequency") return "sm__cycles_elapsed.avg.per_second";
        if (name == "Memory Throughput" && pct) return "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
        if (name == "DRAM Throughput" && pct) return "dram__throughput.avg.pct_of_peak_sustained_elapsed";
        if (name == "L1/TEX Cache Throughput" && pct) return "l1tex__throughput.avg.pct_of_peak_sustained_active";
        if (name == "L2 Cache Throughput" && pct) return "lts__throughput.avg.pct_of_peak_sustained_elapsed";
        if (name == "Compute (SM) Throughput" && pct) return "sm__throughput.avg.pct_of_peak_sustained_elapsed";
    }
    if (section == "Occupancy" && name == "Achieved Occupancy") return "sm__warps_active.avg.pct_of_peak_sustained_active";
    if (section == "Memory Workload Analysis" && name == "Memory Throughput" && !pct) return "dram__bytes.sum.per_second";
    return {};
}

inline bool ncu_identity_column(std::string_view c) {
    return c == "ID" || c == "Process ID" || c == "Process Name" || c == "Host Name" || c == "Kernel Name" ||
           c == "Context" || c == "Stream" || c == "Block Size" || c == "Grid Size" || c == "Device" || c == "CC" ||
           c == "Kernel Time" || c == "Cluster Size" || c == "Function Name" || c == "Demangled Name" ||
           c == "Mangled Name";
}

/// Fills the named fields of `k` from `k.metrics` (see trace/kernel_profile.hpp for the rules).
inline void ncu_derive(kernel_profile& k) {
    const auto& m = k.metrics;
    auto get = [&](std::string_view name) -> double {
        const auto it = m.find(std::string(name));
        return it == m.end() ? kernel_profile::unknown : it->second;
    };
    auto first = [&](std::initializer_list<std::string_view> names) {
        for (auto n : names) {
            const double v = get(n);
            if (!std::isnan(v)) return v;
        }
        return kernel_profile::unknown;
    };
    k.duration_s = first({"gpu__time_duration.sum", "gpu__time_duration.avg"});
    k.sm_clock_hz = first({"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second"});
    k.dram_clock_hz = get("dram__cycles_elapsed.avg.per_second");
    k.dram_read_bytes = get("dram__bytes_read.sum");
    k.dram_write_bytes = get("dram__bytes_write.sum");
    k.dram_bytes = get("dram__bytes.sum");
    if (std::isnan(k.dram_bytes) && !std::isnan(k.dram_read_bytes) && !std::isnan(k.dram_write_bytes))
        k.dram_bytes = k.dram_read_bytes + k.dram_write_bytes;
    if (std::isnan(k.dram_bytes)) k.dram_bytes = get("dram__bytes.sum.per_second") * k.duration_s;
    k.l2_bytes = get("lts__t_bytes.sum");
    if (std::isnan(k.l2_bytes)) k.l2_bytes = get("lts__t_sectors.sum") * 32.0;  // 32-B sectors
    if (std::isnan(k.l2_bytes)) k.l2_bytes = get("lts__t_bytes.sum.per_second") * k.duration_s;
    k.l1_bytes = get("l1tex__t_bytes.sum");
    if (std::isnan(k.l1_bytes)) k.l1_bytes = get("l1tex__t_bytes.sum.per_second") * k.duration_s;

    // Tensor ops: sm__ops_path_tensor_src_<prec>[_dst_<acc>][_sparsity_on|off].sum. A plain
    // metric wins over its sparsity split; a precision's all-accumulator metric wins over the
    // per-accumulator ones (no double counting).
    constexpr std::string_view prefix = "sm__ops_path_tensor_src_";
    std::map<std::string, double> plain_by_base, split_by_base;  // base = prec[_dst_acc]
    for (const auto& [name, v] : m) {
        if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0) continue;
        if (name.compare(name.size() - 4, 4, ".sum") != 0 || std::isnan(v)) continue;
        std::string base = name.substr(prefix.size(), name.size() - prefix.size() - 4);
        const auto sp = base.find("_sparsity_");
        if (sp != std::string::npos) split_by_base[base.substr(0, sp)] += v;
        else plain_by_base[base] = v;
    }
    for (const auto& [b, v] : split_by_base) plain_by_base.emplace(b, v);
    std::map<std::string, double> all_acc, per_acc;
    for (const auto& [b, v] : plain_by_base) {
        const auto d = b.find("_dst_");
        if (d == std::string::npos) all_acc[b] = v;
        else per_acc[b.substr(0, d)] += v;
    }
    for (const auto& [p, v] : per_acc) all_acc.emplace(p, v);
    k.tensor_flops_by_precision = all_acc;

    // Vector FLOP = add + mul + 2 fma, from totals or from per-cycle rates x clock x duration.
    const double cycles = k.sm_clock_hz * k.duration_s;
    auto inst = [&](std::string_view op) {
        for (std::string_view unit : {"smsp__", "sm__"}) {
            const std::string base = std::string(unit) + "sass_thread_inst_executed_op_" + std::string(op) + "_pred_on.sum";
            const double total = get(base);
            if (!std::isnan(total)) return total;
            const double rate = get(base + ".per_cycle_elapsed");
            if (!std::isnan(rate)) return rate * cycles;
        }
        return kernel_profile::unknown;
    };
    auto vector_flops = [&](char p, std::string_view legacy) {
        const double add = inst(std::string(1, p) + "add"), mul = inst(std::string(1, p) + "mul"),
                     fma = inst(std::string(1, p) + "fma");
        if (std::isnan(add) && std::isnan(mul) && std::isnan(fma)) return get(legacy);
        return (std::isnan(add) ? 0 : add) + (std::isnan(mul) ? 0 : mul) + 2 * (std::isnan(fma) ? 0 : fma);
    };
    k.fp32_flops = vector_flops('f', "flop_count_sp.sum");
    k.fp64_flops = vector_flops('d', "flop_count_dp.sum");
    k.fp16_flops = vector_flops('h', "flop_count_hp.sum");

    k.sm_throughput_pct = get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    k.memory_throughput_pct = get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    k.dram_throughput_pct = get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
    k.l2_throughput_pct = get("lts__throughput.avg.pct_of_peak_sustained_elapsed");
    k.l1_throughput_pct = first({"l1tex__throughput.avg.pct_of_peak_sustained_active", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"});
    k.tensor_pipe_active_pct = first({"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
                                      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"});
    k.achieved_occupancy_pct = get("sm__warps_active.avg.pct_of_peak_sustained_active");
}

}  // namespace io::detail

ROOFLINE_INLINE ncu_report read_ncu_csv(const std::string& path) {
    using namespace io::detail;
    ncu_report r;
    r.file = path;
    io::input_file in(path);
    io::csv_reader csv(in);
    std::vector<std::string> cells, header;
    std::string raw;
    bool any = false;
    while (csv.next(cells, raw)) {
        if (!trim(raw).empty()) any = true;
        if (cells.size() > 4 && cells[0] == "ID" && (cells[1] == "Process ID" || cells[4] == "Kernel Name")) {
            header = cells;
            break;
        }
    }
    if (!any) throw parse_error(path, "line 1", "", "empty file");
    if (header.empty())
        throw parse_error(path, csv.place(), "", "not an Nsight Compute CSV (no \"ID\",\"Process ID\",... header up to here)");
    auto col = [&](std::string_view n) -> int {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == n) return static_cast<int>(i);
        return -1;
    };
    const int c_id = 0, c_name = col("Kernel Name"), c_dev = col("Device"), c_cc = col("CC"),
              c_block = col("Block Size"), c_grid = col("Grid Size");
    const int c_metric = col("Metric Name"), c_unit = col("Metric Unit"), c_value = col("Metric Value"),
              c_section = col("Section Name"), c_label = col("Body Item Label");
    auto cell = [&](int c) -> std::string { return c >= 0 && static_cast<std::size_t>(c) < cells.size() ? cells[static_cast<std::size_t>(c)] : std::string(); };
    std::map<int, std::size_t> by_id;  // launch ID -> index in r.kernels
    auto kernel_for = [&]() -> kernel_profile& {
        const auto id = parse_int(cell(c_id));
        const int key = id ? static_cast<int>(*id) : -1;
        auto it = by_id.find(key);
        if (it == by_id.end()) {
            kernel_profile k;
            k.id = key;
            k.name = valid_utf8(cell(c_name));
            k.device = valid_utf8(cell(c_dev));
            k.compute_capability = cell(c_cc);
            k.block_size = cell(c_block);
            k.grid_size = cell(c_grid);
            it = by_id.emplace(key, r.kernels.size()).first;
            r.kernels.push_back(std::move(k));
        }
        return r.kernels[it->second];
    };
    // Parses one value into SI; false when it is absent (n/a), text (kept in text_metrics) or a
    // malformed number (skipped and counted).
    auto value = [&](kernel_profile& k, const std::string& text, std::string_view unit, const std::string& metric, double& out) {
        const std::string_view v = trim(text);
        ++r.stats.events_read;
        if (v.empty() || iequals(v, "n/a")) {  // absent on this GPU: neither kept nor skipped, but named
            r.stats.other("not_available(" + metric + ")");
            return false;
        }
        const auto x = parse_grouped_number(v);
        if (!x) {
            const char c = v.front();
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
                r.stats.skip("bad_value(" + metric + ")");
            } else {
                k.text_metrics[metric] = valid_utf8(v);
                ++r.stats.events_kept;
            }
            return false;
        }
        if (!std::isfinite(*x)) {  // "nan", "inf", or beyond the range of a double
            r.stats.skip("bad_value(" + metric + ")");
            return false;
        }
        out = *x * ncu_unit_scale(unit);
        ++r.stats.events_kept;
        return true;
    };

    if (c_metric >= 0 && c_value >= 0) {
        r.page = "details";
        while (csv.next(cells, raw)) {
            if (trim(raw).empty() || static_cast<std::size_t>(c_value) >= cells.size()) continue;
            const std::string metric = cell(c_metric);
            if (metric.empty()) continue;  // a section line with no metric (rule rows)
            auto& k = kernel_for();
            const std::string unit = cell(c_unit), section = cell(c_section), label = cell(c_label);
            double x = 0;
            const bool raw_name = metric.find("__") != std::string::npos;
            const std::string key = raw_name ? metric : section + " / " + (label.empty() ? "" : label + " / ") + metric;
            if (!value(k, cell(c_value), unit, key, x)) continue;
            k.metrics[key] = x;
            if (!raw_name) {
                const auto alias = ncu_display_alias(section, metric, unit);
                if (!alias.empty()) k.metrics.emplace(alias, x);  // a raw metric of that name wins
            }
        }
    } else {
        r.page = "raw";
        std::vector<std::string> units;
        std::size_t first_metric = 0;
        while (first_metric < header.size() && ncu_identity_column(header[first_metric])) ++first_metric;
        while (csv.next(cells, raw)) {
            if (trim(raw).empty()) continue;
            if (units.empty() && !cells.empty() && cells[0].empty()) {  // the units row
                units = cells;
                continue;
            }
            if (cells.size() != header.size()) {
                r.stats.skip("wrong_column_count");
                ++r.stats.events_read;
                continue;
            }
            auto& k = kernel_for();
            for (std::size_t j = first_metric; j < header.size(); ++j) {
                double x = 0;
                const std::string_view unit = j < units.size() ? std::string_view(units[j]) : std::string_view();
                if (value(k, cells[j], unit, header[j], x)) k.metrics[header[j]] = x;
            }
        }
    }
    for (auto& k : r.kernels) {
        ncu_derive(k);
        if (const auto it = k.text_metrics.find("device__attribute_display_name"); it != k.text_metrics.end())
            k.device_name = it->second;
    }
    return r;
}

ROOFLINE_INLINE bool is_ncu_csv(const std::string& path) {
    io::input_file in(path);
    std::string head(65536, '\0');
    head.resize(in.read(head.data(), head.size()));
    return head.find("\"ID\",\"Process ID\"") != std::string::npos;
}

namespace io::detail {
/// "(4096, 1, 1)" -> {4096, 1, 1}; zeros where the text is not three integers.
inline std::array<std::uint32_t, 3> ncu_dim3(std::string_view s) { return parse_dim3(s); }
}  // namespace io::detail

ROOFLINE_INLINE kernel_trace ncu_report_trace(const ncu_report& r, const kernel_rules& rules) {
    kernel_trace t;
    t.file = r.file;
    t.format = "ncu-csv";
    double at = 0;
    std::map<int, device_properties> devices;
    for (const auto& k : r.kernels) {
        ++t.stats.events_read;
        if (!(k.duration_s >= 0) || !std::isfinite(k.duration_s)) {
            t.stats.skip("no_duration");
            continue;
        }
        kernel_event e;
        e.name = t.strings->intern(k.name);
        e.phase = rules.classify(e.name);
        e.device = io::detail::to_int_or<int>(std::strtod(k.device.c_str(), nullptr), 0);
        e.stream = 0;
        e.start_s = at;
        e.duration_s = k.duration_s;
        e.grid = io::detail::ncu_dim3(k.grid_size);
        e.block = io::detail::ncu_dim3(k.block_size);
        at += k.duration_s;
        t.events.push_back(e);
        ++t.stats.events_kept;
        auto& d = devices[e.device];
        d.id = e.device;
        if (d.name.empty()) d.name = k.device_name;
        if (const auto sm = k.metrics.find("device__attribute_multiprocessor_count"); sm != k.metrics.end() && d.num_sms < 0)
            d.num_sms = io::detail::to_int_or<int>(sm->second, -1);
        if (d.compute_major < 0 && !k.compute_capability.empty()) {
            d.compute_major = std::atoi(k.compute_capability.c_str());
            const auto dot = k.compute_capability.find('.');
            d.compute_minor = dot == std::string::npos ? 0 : std::atoi(k.compute_capability.c_str() + dot + 1);
        }
    }
    for (auto& [id, d] : devices) t.devices.push_back(d);
    return t;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
