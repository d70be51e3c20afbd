#pragma once
// nvidia-smi logs -> `power_log`.
//
// Two outputs are read:
// - `nvidia-smi --query-gpu=<fields> --format=csv[,noheader][,nounits] [-l S | -lms MS]`: one row
//   per GPU per sample, ", "-separated. The header repeats each field with its unit in brackets,
//   aliases expanded (`clocks.sm` -> `clocks.current.sm [MHz]`); cells carry units unless
//   `nounits` ("245.31 W", "1980 MHz", "87 %"); missing values read `[N/A]`, `[Not Supported]` or
//   `N/A`. Clock-event reasons come as the hex `clocks_event_reasons.active` bitmask and/or one
//   Active/Not Active column per reason; the pre-R535 `clocks_throttle_reasons.*` names are
//   accepted as aliases. Several GPUs interleave; rows are matched to GPUs by `index` (or by
//   `uuid`/`pci.bus_id` in order of first appearance; without any of them, rows sharing a
//   timestamp are GPUs 0, 1, ... in order). A log written with `noheader` needs the
//   `--query-gpu` field list (`nvidia_smi_options::query_fields`).
// - `nvidia-smi dmon [-s pucvmet] [-o DT]`: a whitespace-aligned table under two `#` lines (names
//   then units), `-` for n/a; the header may repeat and the latest one rules.
// Both read `.gz` too. Format notes: ../shared/FORMATS.md section 6; field meanings: `nvidia-smi
// --help-query-gpu`.

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/power.hpp"

namespace roofline {

/// Options of `read_nvidia_smi_csv`.
struct nvidia_smi_options {
    /// The `--query-gpu` field list ("timestamp,index,power.draw,..."), needed only for a log
    /// written with `--format=csv,noheader`; ignored when the file has a header line.
    std::string query_fields;
};

/// Reads a `nvidia-smi --query-gpu=... --format=csv` log (plain or .gz).
///
/// Rows with the wrong number of cells (a truncated last line), an unparseable or negative
/// number, or a bad timestamp are skipped and counted by reason in `stats`; `[N/A]` cells give
/// NaN. Throws `parse_error` (file, line) for a missing, empty or corrupt file, a header with no
/// known field, or a header-less log without `options.query_fields`.
power_log read_nvidia_smi_csv(const std::string& path, const nvidia_smi_options& options = {});

/// Reads `nvidia-smi dmon` output (plain or .gz): `gpu` -> index, `pwr` -> power draw,
/// `gtemp` -> temperature, `sm` -> utilization_gpu (dmon's "sm" column is the same
/// kernel-resident percentage as `utilization.gpu`), `mem` -> utilization_memory, `pclk` -> SM
/// clock, `mclk` -> memory clock; `-o D`/`-o T` columns -> wall_time_s (with the time only, the
/// seconds since midnight of an unknown day). Power limit, maximum clock and clock-event reasons
/// are not in dmon output and stay unknown.
///
/// Rows with a wrong cell count or a bad number are skipped and counted. Throws `parse_error`
/// for a missing, empty or corrupt file, or one without a `# gpu ...` header line.
power_log read_nvidia_smi_dmon(const std::string& path);

/// True when the first non-blank line of `path` (plain or .gz) is an `nvidia-smi dmon` header:
/// "#" followed by a "gpu" column ("# gpu   pwr gtemp ..."). False for anything else, and for a
/// file that cannot be read (the reader then says why).
bool looks_like_nvidia_smi_dmon(const std::string& path);

/// Reads a power log in either form nvidia-smi writes: `dmon` output (told by its "# gpu" header,
/// `read_nvidia_smi_dmon`) or a `--query-gpu` CSV, with or without a header
/// (`read_nvidia_smi_csv`; a header-less log needs `options.query_fields`, the `--smi-fields`
/// flag). Throws as those readers do.
power_log read_power_log(const std::string& path, const nvidia_smi_options& options = {});

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

/// What a nvidia-smi column holds.
enum class smi_field {
    other, timestamp, index, name, uuid, bus_id,
    power_draw, power_draw_average, power_draw_instant, power_limit, enforced_power_limit,
    clock_sm, clock_max_sm, clock_graphics, clock_max_graphics, clock_mem,
    utilization_gpu, utilization_memory, temperature, reasons_active, reason_bit,
};

struct smi_column {
    std::string name;  ///< field name without the unit, lower case
    std::string unit;  ///< unit from the header ("W", "MHz", "%"), may be empty
    smi_field kind = smi_field::other;
    std::uint64_t bit = 0;  ///< for reason_bit
};

/// Field kind of a `--query-gpu` name (lower case, unit removed), including aliases.
inline smi_column classify_smi_column(std::string_view header_cell) {
    smi_column c;
    std::string_view s = trim(header_cell);
    if (const auto open = s.find('['); open != std::string_view::npos) {
        const auto close = s.find(']', open);
        c.unit = std::string(trim(s.substr(open + 1, close == std::string_view::npos ? std::string_view::npos : close - open - 1)));
        s = trim(s.substr(0, open));
    }
    c.name = to_lower(s);
    static const std::map<std::string, smi_field, std::less<>> names = {
        {"timestamp", smi_field::timestamp},
        {"index", smi_field::index},
        {"name", smi_field::name},
        {"gpu_name", smi_field::name},
        {"uuid", smi_field::uuid},
        {"gpu_uuid", smi_field::uuid},
        {"pci.bus_id", smi_field::bus_id},
        {"gpu_bus_id", smi_field::bus_id},
        {"power.draw", smi_field::power_draw},
        {"power.draw.average", smi_field::power_draw_average},
        {"power.draw.instant", smi_field::power_draw_instant},
        {"power.limit", smi_field::power_limit},
        {"enforced.power.limit", smi_field::enforced_power_limit},
        {"clocks.sm", smi_field::clock_sm},
        {"clocks.current.sm", smi_field::clock_sm},
        {"clocks.max.sm", smi_field::clock_max_sm},
        {"clocks.max.graphics", smi_field::clock_max_graphics},
        {"clocks.max.gr", smi_field::clock_max_graphics},
        {"clocks.gr", smi_field::clock_graphics},
        {"clocks.current.graphics", smi_field::clock_graphics},
        {"clocks.mem", smi_field::clock_mem},
        {"clocks.current.memory", smi_field::clock_mem},
        {"utilization.gpu", smi_field::utilization_gpu},
        {"utilization.memory", smi_field::utilization_memory},
        {"temperature.gpu", smi_field::temperature},
    };
    if (const auto it = names.find(c.name); it != names.end()) {
        c.kind = it->second;
        return c;
    }
    for (std::string_view prefix : {"clocks_event_reasons.", "clocks_throttle_reasons."}) {
        if (c.name.rfind(prefix, 0) != 0) continue;
        const std::string_view reason = std::string_view(c.name).substr(prefix.size());
        static const std::map<std::string, std::uint64_t, std::less<>> bits = {
            {"gpu_idle", clocks_event_reason::gpu_idle},
            {"applications_clocks_setting", clocks_event_reason::applications_clocks_setting},
            {"sw_power_cap", clocks_event_reason::sw_power_cap},
            {"hw_slowdown", clocks_event_reason::hw_slowdown},
            {"sync_boost", clocks_event_reason::sync_boost},
            {"sw_thermal_slowdown", clocks_event_reason::sw_thermal_slowdown},
            {"hw_thermal_slowdown", clocks_event_reason::hw_thermal_slowdown},
            {"hw_power_brake_slowdown", clocks_event_reason::hw_power_brake_slowdown},
            {"display_clock_setting", clocks_event_reason::display_clock_setting},
        };
        if (reason == "active") {
            c.kind = smi_field::reasons_active;
        } else if (const auto b = bits.find(reason); b != bits.end()) {
            c.kind = smi_field::reason_bit;
            c.bit = b->second;
        }
        return c;
    }
    return c;
}

/// True for nvidia-smi's spellings of a missing value.
inline bool smi_missing(std::string_view v) {
    v = trim(v);
    return v.empty() || v == "-" || iequals(v, "N/A") || iequals(v, "NA") ||
           (v.size() >= 2 && v.front() == '[' && v.back() == ']');
}

/// Scale from `unit` to SI for the field kinds that have one; nullopt for an unknown unit.
inline std::optional<double> smi_unit_scale(smi_field kind, std::string_view unit) {
    unit = trim(unit);
    switch (kind) {
        case smi_field::power_draw:
        case smi_field::power_draw_average:
        case smi_field::power_draw_instant:
        case smi_field::power_limit:
        case smi_field::enforced_power_limit:
            if (unit.empty() || unit == "W") return 1.0;
            if (unit == "mW") return 1e-3;
            if (unit == "kW") return 1e3;
            return std::nullopt;
        case smi_field::clock_sm:
        case smi_field::clock_max_sm:
        case smi_field::clock_graphics:
        case smi_field::clock_max_graphics:
        case smi_field::clock_mem:
            if (unit.empty() || iequals(unit, "MHz")) return 1e6;  // nvidia-smi's clock unit
            if (iequals(unit, "GHz")) return 1e9;
            if (iequals(unit, "kHz")) return 1e3;
            if (iequals(unit, "Hz")) return 1.0;
            return std::nullopt;
        case smi_field::utilization_gpu:
        case smi_field::utilization_memory:
            if (unit.empty() || unit == "%") return 0.01;  // percent -> fraction
            return std::nullopt;
        case smi_field::temperature:
            if (unit.empty() || unit == "C") return 1.0;
            return std::nullopt;
        default:
            return 1.0;
    }
}

/// Splits "245.31 W" into 245.31 and "W"; nullopt when no number leads the cell.
inline std::optional<std::pair<double, std::string_view>> smi_number_and_unit(std::string_view v) {
    v = trim(v);
    std::size_t k = 0;
    while (k < v.size() && (std::string_view("+-.0123456789eE").find(v[k]) != std::string_view::npos)) {
        // 'e' only as an exponent: "1e3" but not the start of a unit.
        if ((v[k] == 'e' || v[k] == 'E') && (k == 0 || k + 1 >= v.size() || !(v[k + 1] == '-' || v[k + 1] == '+' || (v[k + 1] >= '0' && v[k + 1] <= '9'))))
            break;
        ++k;
    }
    const auto num = parse_double(v.substr(0, k));
    if (!num) return std::nullopt;
    return std::pair<double, std::string_view>{*num, trim(v.substr(k))};
}

/// Assigns GPU indices to uuid/bus-id keys in order of first appearance.
struct gpu_key_map {
    std::map<std::string, int> index_of;
    int get(const std::string& key) {
        const auto it = index_of.find(key);
        if (it != index_of.end()) return it->second;
        const int i = static_cast<int>(index_of.size());
        index_of.emplace(key, i);
        return i;
    }
};

inline void remember_gpu_name(power_log& log, int index, const std::string& name) {
    if (index < 0 || name.empty() || index > 4096) return;
    if (log.gpu_names.size() <= static_cast<std::size_t>(index)) log.gpu_names.resize(index + 1);
    if (log.gpu_names[index].empty()) log.gpu_names[index] = name;
}

}  // namespace io::detail

ROOFLINE_INLINE power_log read_nvidia_smi_csv(const std::string& path, const nvidia_smi_options& options) {
    using namespace io::detail;
    power_log log;
    log.file = path;
    io::input_file in(path);
    io::csv_reader csv(in);
    std::vector<std::string> cells;
    std::string raw;
    std::vector<smi_column> columns;
    std::vector<std::string> header_cells;
    gpu_key_map keys;
    bool any_line = false;

    bool has_gpu_key = false;   // an index, uuid or pci.bus_id column
    int timestamp_column = -1;
    std::string previous_timestamp;
    int previous_position = 0;
    // A header is nvidia-smi's when it names a timestamp or a measured field (power, clock,
    // utilization, temperature, throttle reason): a GPU name, index or id alone is not enough
    // (an Nsight Systems kernel summary has a "Name" column, and its kernel names were taken
    // for GPU names).
    auto set_columns = [&](const std::vector<std::string>& hdr) {
        columns.clear();
        bool known = false;
        has_gpu_key = false;
        timestamp_column = -1;
        for (const auto& h : hdr) {
            columns.push_back(classify_smi_column(h));
            const auto kind = columns.back().kind;
            known = known || (kind != smi_field::other && kind != smi_field::name && kind != smi_field::index &&
                              kind != smi_field::uuid && kind != smi_field::bus_id);
            has_gpu_key = has_gpu_key || kind == smi_field::index || kind == smi_field::uuid || kind == smi_field::bus_id;
            if (kind == smi_field::timestamp && timestamp_column < 0) timestamp_column = static_cast<int>(columns.size() - 1);
        }
        return known;
    };

    while (csv.next(cells, raw)) {
        if (trim(raw).empty()) continue;
        if (!any_line) {
            any_line = true;
            if (set_columns(cells)) {
                header_cells = cells;
                continue;
            }
            // No known field: either a header-less log or not an nvidia-smi CSV at all.
            const bool looks_like_data = !cells.empty() && (parse_timestamp(cells[0]) || parse_double(cells[0]));
            if (!looks_like_data)
                throw parse_error(path, csv.place(), "",
                                  "not an nvidia-smi --query-gpu CSV header (no timestamp or measured "
                                  "field such as power.draw, clocks.sm, utilization.gpu)");
            if (options.query_fields.empty())
                throw parse_error(path, csv.place(), "",
                                  "no header line (log written with --format=csv,noheader?): give "
                                  "the --query-gpu field list");
            std::vector<std::string> fields;
            io::split_csv(options.query_fields, fields);
            if (!set_columns(fields))
                throw usage_error("nvidia-smi query fields \"" + options.query_fields +
                                  "\": no known field");
            // The list must be the one the log was written with: a row of another width would
            // be skipped row by row and the log read as empty, or its columns taken for others.
            if (cells.size() != columns.size())
                throw parse_error(path, csv.place(), "",
                                  "the --query-gpu field list has " + std::to_string(columns.size()) +
                                      " fields but the first row has " + std::to_string(cells.size()) +
                                      " values: give the field list the log was written with");
        } else if (!header_cells.empty() && cells == header_cells) {
            continue;  // a header repeated by concatenated logs
        }

        ++log.stats.events_read;
        if (cells.size() != columns.size()) {
            log.stats.skip("wrong_column_count");
            continue;
        }
        // Without an index, uuid or bus id, rows that share a timestamp are GPUs 0, 1, ... of one
        // sample (nvidia-smi writes one row per GPU, in index order), counted before any check
        // so that a bad row does not shift the GPUs after it.
        int position = 0;
        if (!has_gpu_key && timestamp_column >= 0) {
            const std::string_view ts = trim(cells[static_cast<std::size_t>(timestamp_column)]);
            position = !previous_timestamp.empty() && ts == previous_timestamp ? previous_position + 1 : 0;
            previous_timestamp = std::string(ts);
            previous_position = position;
        }
        power_sample s;
        double draw = power_sample::unknown, draw_avg = power_sample::unknown,
               draw_inst = power_sample::unknown, limit = power_sample::unknown,
               enforced = power_sample::unknown, clk_gr = power_sample::unknown,
               clk_max_gr = power_sample::unknown;
        std::optional<std::uint64_t> mask_active;
        std::uint64_t mask_bits = 0;
        bool any_bit_known = false;
        std::optional<int> index;
        std::string gpu_key, gpu_name;
        std::string bad;  // reason to skip this row
        for (std::size_t i = 0; i < columns.size() && bad.empty(); ++i) {
            const auto& col = columns[i];
            const std::string_view v = trim(cells[i]);
            switch (col.kind) {
                case smi_field::other:
                    break;
                case smi_field::timestamp:
                    if (smi_missing(v)) break;
                    if (const auto t = parse_timestamp(v)) s.wall_time_s = *t;
                    else bad = "bad_value(timestamp)";
                    break;
                case smi_field::index:
                    if (smi_missing(v)) break;
                    if (const auto k = parse_int(v); k && *k >= 0 && *k < 1 << 20) index = static_cast<int>(*k);
                    else bad = "bad_value(index)";
                    break;
                case smi_field::name:
                    gpu_name = valid_utf8(v);
                    break;
                case smi_field::uuid:
                case smi_field::bus_id:
                    if (gpu_key.empty()) gpu_key = std::string(v);
                    break;
                case smi_field::reasons_active: {
                    if (smi_missing(v)) break;
                    std::string_view h = v;
                    if (istarts_with(h, "0x")) h.remove_prefix(2);
                    std::uint64_t m = 0;
                    const auto [p, ec] = std::from_chars(h.data(), h.data() + h.size(), m, 16);
                    if (ec != std::errc() || p != h.data() + h.size() || h.empty()) bad = "bad_value(" + col.name + ")";
                    else mask_active = m;
                    break;
                }
                case smi_field::reason_bit:
                    if (smi_missing(v)) break;
                    if (iequals(v, "Active")) {
                        mask_bits |= col.bit;
                        any_bit_known = true;
                    } else if (iequals(v, "Not Active")) {
                        any_bit_known = true;
                    } else {
                        bad = "bad_value(" + col.name + ")";
                    }
                    break;
                default: {
                    if (smi_missing(v)) break;
                    const auto nu = smi_number_and_unit(v);
                    if (!nu) {
                        bad = "bad_value(" + col.name + ")";
                        break;
                    }
                    const auto scale = smi_unit_scale(col.kind, nu->second.empty() ? std::string_view(col.unit) : nu->second);
                    if (!scale) {
                        bad = "unknown_unit(" + col.name + ")";
                        break;
                    }
                    const double x = nu->first * *scale;
                    if (!(x >= 0) || !std::isfinite(x)) {
                        bad = "negative_or_nan(" + col.name + ")";
                        break;
                    }
                    switch (col.kind) {
                        case smi_field::power_draw: draw = x; break;
                        case smi_field::power_draw_average: draw_avg = x; break;
                        case smi_field::power_draw_instant: draw_inst = x; break;
                        case smi_field::power_limit: limit = x; break;
                        case smi_field::enforced_power_limit: enforced = x; break;
                        case smi_field::clock_sm: s.sm_clock_hz = x; break;
                        case smi_field::clock_max_sm: s.max_sm_clock_hz = x; break;
                        case smi_field::clock_graphics: clk_gr = x; break;
                        case smi_field::clock_max_graphics: clk_max_gr = x; break;
                        case smi_field::clock_mem: s.mem_clock_hz = x; break;
                        case smi_field::utilization_gpu: s.utilization_gpu = x; break;
                        case smi_field::utilization_memory: s.utilization_memory = x; break;
                        case smi_field::temperature: s.temperature_c = x; break;
                        default: break;
                    }
                }
            }
        }
        if (!bad.empty()) {
            log.stats.skip(bad);
            continue;
        }
        // Preferences: power.draw, else its average, else the instant reading; the enforced
        // limit over the configured one; the graphics clock when the SM clock is not logged
        // (they are the same clock domain on NVIDIA data-center GPUs).
        s.power_draw_w = !std::isnan(draw) ? draw : !std::isnan(draw_avg) ? draw_avg : draw_inst;
        s.power_limit_w = !std::isnan(enforced) ? enforced : limit;
        if (std::isnan(s.sm_clock_hz)) s.sm_clock_hz = clk_gr;
        if (std::isnan(s.max_sm_clock_hz)) s.max_sm_clock_hz = clk_max_gr;
        if (mask_active) s.clocks_event_reasons = mask_active;
        else if (any_bit_known) s.clocks_event_reasons = mask_bits;
        s.gpu_index = index ? *index : !gpu_key.empty() ? keys.get(gpu_key) : position;
        remember_gpu_name(log, s.gpu_index, gpu_name);
        log.samples.push_back(s);
        ++log.stats.events_kept;
    }
    if (!any_line) throw parse_error(path, "line 1", "", "empty file");
    return log;
}

ROOFLINE_INLINE power_log read_nvidia_smi_dmon(const std::string& path) {
    using namespace io::detail;
    power_log log;
    log.file = path;
    io::input_file in(path);
    io::line_reader lines(in);
    std::string line;
    std::vector<std::string> names, units;
    bool expect_units = false, any_line = false;
    gpu_key_map keys;
    auto tokens = [](std::string_view s) {
        std::vector<std::string> out;
        std::size_t i = 0;
        while (i < s.size()) {
            while (i < s.size() && is_space(s[i])) ++i;
            std::size_t j = i;
            while (j < s.size() && !is_space(s[j])) ++j;
            if (j > i) out.emplace_back(s.substr(i, j - i));
            i = j;
        }
        return out;
    };
    while (lines.next(line)) {
        const std::string_view t = trim(line);
        if (t.empty()) continue;
        any_line = true;
        if (t.front() == '#') {
            auto tk = tokens(t.substr(1));
            bool has_gpu = false;
            for (auto& x : tk) has_gpu = has_gpu || iequals(x, "gpu");
            if (has_gpu) {
                names = std::move(tk);
                for (auto& x : names) x = to_lower(x);
                units.assign(names.size(), "");
                expect_units = true;
            } else if (expect_units) {
                if (tk.size() == names.size()) units = std::move(tk);
                expect_units = false;
            }
            continue;
        }
        expect_units = false;
        if (names.empty())
            throw parse_error(path, lines.place(), "", "not nvidia-smi dmon output (no \"# gpu ...\" header line)");
        ++log.stats.events_read;
        const auto cells = tokens(t);
        if (cells.size() != names.size()) {
            log.stats.skip("wrong_column_count");
            continue;
        }
        power_sample s;
        std::optional<double> day_s, time_of_day_s;
        std::string bad;
        for (std::size_t i = 0; i < names.size() && bad.empty(); ++i) {
            const std::string& n = names[i];
            const std::string& v = cells[i];
            if (n == "date") {
                const auto d = v.size() == 8 && v.find_first_not_of("0123456789") == std::string::npos ? parse_int(v)
                                                                                                      : std::nullopt;
                const auto month = d ? *d / 100 % 100 : 0, day = d ? *d % 100 : 0;
                if (d && month >= 1 && month <= 12 && day >= 1 && day <= 31) {
                    day_s = 86400.0 * static_cast<double>(days_from_civil(*d / 10000, static_cast<unsigned>(month),
                                                                          static_cast<unsigned>(day)));
                } else {
                    bad = "bad_value(date)";
                }
                continue;
            }
            if (n == "time") {
                const auto ts = parse_timestamp("1970-01-01 " + v);
                if (ts) time_of_day_s = *ts;
                else bad = "bad_value(time)";
                continue;
            }
            if (n == "gpu") {
                if (const auto k = parse_int(v); k && *k >= 0 && *k < 1 << 20) s.gpu_index = static_cast<int>(*k);
                else s.gpu_index = keys.get(v);
                continue;
            }
            smi_field kind = smi_field::other;
            if (n == "pwr") kind = smi_field::power_draw;
            else if (n == "gtemp") kind = smi_field::temperature;
            else if (n == "sm") kind = smi_field::utilization_gpu;
            else if (n == "mem") kind = smi_field::utilization_memory;
            else if (n == "pclk") kind = smi_field::clock_sm;
            else if (n == "mclk") kind = smi_field::clock_mem;
            if (kind == smi_field::other || smi_missing(v)) continue;
            const auto x = parse_double(v);
            const auto scale = smi_unit_scale(kind, units[i]);
            if (!x) bad = "bad_value(" + n + ")";
            else if (!scale) bad = "unknown_unit(" + n + ")";
            else if (!(*x >= 0)) bad = "negative_or_nan(" + n + ")";
            if (!bad.empty()) break;
            const double si = *x * *scale;
            switch (kind) {
                case smi_field::power_draw: s.power_draw_w = si; break;
                case smi_field::temperature: s.temperature_c = si; break;
                case smi_field::utilization_gpu: s.utilization_gpu = si; break;
                case smi_field::utilization_memory: s.utilization_memory = si; break;
                case smi_field::clock_sm: s.sm_clock_hz = si; break;
                case smi_field::clock_mem: s.mem_clock_hz = si; break;
                default: break;
            }
        }
        if (!bad.empty()) {
            log.stats.skip(bad);
            continue;
        }
        if (time_of_day_s) s.wall_time_s = day_s.value_or(0.0) + *time_of_day_s;
        log.samples.push_back(s);
        ++log.stats.events_kept;
    }
    if (!any_line) throw parse_error(path, "line 1", "", "empty file");
    if (names.empty()) throw parse_error(path, lines.place(), "", "not nvidia-smi dmon output (no \"# gpu ...\" header line)");
    return log;
}

ROOFLINE_INLINE bool looks_like_nvidia_smi_dmon(const std::string& path) {
    try {
        io::input_file in(path);
        std::string head(4096, '\0');
        head.resize(in.read(head.data(), head.size()));
        std::size_t i = 0;
        while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
        if (i >= head.size() || head[i] != '#') return false;
        const std::size_t end = head.find('\n', i);
        std::string first = head.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
        for (char& c : first)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        const std::size_t g = first.find("gpu");
        return g != std::string::npos && first.find_first_not_of(" \t") == g;
    } catch (const error&) {
        return false;
    }
}

ROOFLINE_INLINE power_log read_power_log(const std::string& path, const nvidia_smi_options& options) {
    if (looks_like_nvidia_smi_dmon(path)) return read_nvidia_smi_dmon(path);
    return read_nvidia_smi_csv(path, options);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
