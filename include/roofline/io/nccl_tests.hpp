#pragma once
// nccl-tests output -> `collective_sweep`.
//
// Two forms (../shared/FORMATS.md section 7; nccl-tests `src/util.cu`):
// - stdout: `#` preamble (`# nThread ...`, `# Using devices`, one `#  Rank r Group g Pid p on host
//   device d [bus] <GPU name>` per rank), a header `#  size count type redop root time algbw busbw
//   #wrong time algbw busbw #wrong` (out-of-place group, then in-place; old versions print
//   `error` for `#wrong`, some omit redop/root, newer add per-iteration columns and a timestamp),
//   a units line, data rows, and a footer (`# Out of bounds values : 0 OK`, `# Avg bus bandwidth
//   : X`). Under MPI lines may carry a `[1,0]<stdout>:` prefix and NCCL INFO lines interleave;
//   anything else (a markdown preamble, the command line) is ignored. `#wrong` may be `N/A`.
// - JSON (`--output_file`/`-J`, file version 2): {"config": {..., "devices": [...]},
//   "results": [{"size", "count", "type", "redop", "root", "out_of_place": {"time", "alg_bw",
//   "bus_bw", "nwrong"}, "in_place": {...}}], "average_bus_bandwidth": {"bandwidth"},
//   "out_of_bounds": {"count"}}; a NaN is written as the string "nan".
// Units: time in microseconds, bandwidths in GB/s (10^9 B/s).

#include <cctype>       // std::isalnum
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/collective_sweep.hpp"

namespace roofline {

/// Reads nccl-tests stdout (plain or .gz). Data rows with unparseable numbers are skipped and
/// counted. Throws `parse_error` for a missing or empty file, or one with no result table.
collective_sweep read_nccl_tests(const std::string& path);

/// Reads the JSON report of nccl-tests (file version 2). Throws `parse_error` for malformed JSON
/// (line and column) or a file without `results`; result entries with bad numbers are skipped.
collective_sweep read_nccl_tests_json(const std::string& path);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/json_text.hpp"
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

inline std::vector<std::string_view> split_blanks(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i])) ++i;
        std::size_t j = i;
        while (j < s.size() && !is_space(s[j])) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

/// `line` without an MPI output prefix such as "[1,0]<stdout>:".
inline std::string_view strip_mpi_prefix(std::string_view line) {
    if (line.size() > 2 && line[0] == '[') {
        const auto close = line.find("]<std");
        if (close != std::string_view::npos) {
            const auto colon = line.find(">:", close);
            if (colon != std::string_view::npos) return line.substr(colon + 2);
        }
    }
    return line;
}

/// "all_reduce" from "... all_reduce_perf ..." ("" if absent).
inline std::string collective_from_text(std::string_view s) {
    const auto k = s.find("_perf");
    if (k == std::string_view::npos) return {};
    std::size_t b = k;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_')) --b;
    return std::string(s.substr(b, k - b));
}

}  // namespace io::detail

ROOFLINE_INLINE collective_sweep read_nccl_tests(const std::string& path) {
    using namespace io::detail;
    collective_sweep s;
    s.file = path;
    io::input_file in(path);
    io::line_reader lines(in);
    std::string raw;
    // Column positions from the header: the first time/algbw/busbw/#wrong group is out-of-place.
    struct group {
        int time = -1, algbw = -1, busbw = -1, wrong = -1;
    } groups[2];
    int c_size = -1, c_count = -1, c_type = -1, c_redop = -1, c_root = -1;
    std::size_t header_tokens = 0;
    bool any_line = false, have_header = false;
    while (lines.next(raw)) {
        std::string_view line = trim(strip_mpi_prefix(raw));
        if (line.empty()) continue;
        any_line = true;
        if (s.collective.empty()) s.collective = collective_from_text(line);
        if (line.front() == '#') {
            const std::string_view body = trim(line.substr(1));
            const auto tk = split_blanks(body);
            if (!tk.empty() && tk[0] == "Rank") {
                ++s.ranks;
                const auto close = body.find(']');
                s.devices.emplace_back(close == std::string_view::npos ? std::string() : valid_utf8(trim(body.substr(close + 1))));
                // "Rank 0 Group 0 Pid 6899 on HOST device 0 [...] NAME": the host of this rank.
                std::string host;
                for (std::size_t i = 0; i + 1 < tk.size(); ++i)
                    if (tk[i] == "on" && (i + 2 >= tk.size() || tk[i + 2] == "device")) {
                        host = valid_utf8(tk[i + 1]);
                        break;
                    }
                s.hosts.push_back(std::move(host));
            } else if (!tk.empty() && tk[0] == "size") {
                header_tokens = tk.size();
                int g = -1;
                for (std::size_t i = 0; i < tk.size(); ++i) {
                    const std::string_view t = tk[i];
                    const int ii = static_cast<int>(i);
                    if (t == "size") c_size = ii;
                    else if (t == "count") c_count = ii;
                    else if (t == "type") c_type = ii;
                    else if (t == "redop") c_redop = ii;
                    else if (t == "root") c_root = ii;
                    else if (t == "time" || t == "cputime") {
                        if (++g < 2) groups[g].time = ii;
                    } else if (g >= 0 && g < 2 && t == "algbw") groups[g].algbw = ii;
                    else if (g >= 0 && g < 2 && t == "busbw") groups[g].busbw = ii;
                    else if (g >= 0 && g < 2 && (t == "#wrong" || t == "error")) groups[g].wrong = ii;
                }
                have_header = c_size >= 0 && groups[0].time >= 0;
            } else if (body.rfind("Avg bus bandwidth", 0) == 0) {
                const auto colon = body.find(':');
                if (colon != std::string_view::npos) {
                    const auto v = split_blanks(body.substr(colon + 1));
                    if (!v.empty())
                        if (const auto x = parse_double(v[0])) s.avg_busbw_bytes_per_s = *x * 1e9;
                }
            } else if (body.rfind("Out of bounds values", 0) == 0) {
                const auto colon = body.find(':');
                if (colon != std::string_view::npos) {
                    const auto v = split_blanks(body.substr(colon + 1));
                    if (!v.empty())
                        if (const auto x = parse_double(v[0])) s.out_of_bounds = *x;
                }
            }
            continue;
        }
        if (!have_header) continue;  // a markdown preamble, the command line, ...
        const auto tk = split_blanks(line);
        if (tk.empty() || !parse_double(tk[0])) continue;  // NCCL INFO lines and other text
        ++s.stats.events_read;
        // A trace-replay row leaves the out-of-place group blank: 4 tokens fewer.
        const bool only_in_place = tk.size() + 4 <= header_tokens && groups[1].time >= 0 &&
                                   tk.size() < static_cast<std::size_t>(groups[1].wrong + 1);
        auto at = [&](int c, int shift = 0) -> std::optional<std::string_view> {
            const int k = c - shift;
            if (c < 0 || k < 0 || static_cast<std::size_t>(k) >= tk.size()) return std::nullopt;
            return tk[static_cast<std::size_t>(k)];
        };
        collective_point p;
        std::string bad;
        const auto size = at(c_size) ? parse_double(*at(c_size)) : std::nullopt;
        if (!size || !std::isfinite(*size) || *size < 0) {
            s.stats.skip("bad_value(size)");
            continue;
        }
        p.size_bytes = *size;
        if (const auto c = at(c_count)) p.count = parse_double(*c).value_or(0);
        if (const auto t = at(c_type)) p.type = std::string(*t);
        if (const auto r = at(c_redop)) p.redop = std::string(*r);
        if (const auto r = at(c_root)) p.root = static_cast<int>(parse_int(*r).value_or(-1));
        for (int g = 0; g < 2 && bad.empty(); ++g) {
            if (groups[g].time < 0) continue;
            if (g == 0 && only_in_place) continue;
            const int shift = only_in_place ? 4 : 0;
            const auto t = at(groups[g].time, shift), a = at(groups[g].algbw, shift), b = at(groups[g].busbw, shift);
            if (!t || !a || !b) {
                bad = "wrong_column_count";
                break;
            }
            const auto tv = parse_double(*t), av = parse_double(*a), bv = parse_double(*b);
            // "nan" and "inf" parse as numbers; a time or bandwidth must be finite and >= 0.
            auto ok = [](const std::optional<double>& v) { return v && std::isfinite(*v) && *v >= 0; };
            if (!ok(tv) || !ok(av) || !ok(bv)) {
                bad = "bad_value(time/algbw/busbw)";
                break;
            }
            collective_timing ct;
            ct.time_s = *tv * 1e-6;
            ct.algbw_bytes_per_s = *av * 1e9;
            ct.busbw_bytes_per_s = *bv * 1e9;
            if (const auto w = at(groups[g].wrong, shift))
                if (const auto wv = parse_double(*w)) ct.wrong = *wv;
            (g == 0 ? p.out_of_place : p.in_place) = ct;
        }
        if (!bad.empty()) {
            s.stats.skip(bad);
            continue;
        }
        s.points.push_back(std::move(p));
        ++s.stats.events_kept;
    }
    if (!any_line) throw parse_error(path, "line 1", "", "empty file");
    if (!have_header)
        throw parse_error(path, lines.place(), "",
                          "no nccl-tests result table (no \"#  size  count  type ...\" header up to here)");
    return s;
}

ROOFLINE_INLINE collective_sweep read_nccl_tests_json(const std::string& path) {
    using namespace io::detail;
    collective_sweep s;
    s.file = path;
    const std::string text = io::read_all(path);
    const auto spans = split_json_values(text);
    if (spans.empty()) throw parse_error(path, "line 1", "", "empty file");
    const auto doc = parse_json_span(path, text, spans.front());
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
        throw parse_error(path, "", "results", "missing: not an nccl-tests JSON report");
    auto num = [](const nlohmann::json& v) -> std::optional<double> {
        if (v.is_number()) return v.get<double>();
        if (v.is_string()) return parse_double(v.get<std::string>());  // "nan", "-1"
        return std::nullopt;
    };
    if (const auto a = doc.find("args"); a != doc.end() && a->is_array() && !a->empty() && (*a)[0].is_string())
        s.collective = collective_from_text((*a)[0].get<std::string>());
    if (const auto c = doc.find("config"); c != doc.end() && c->is_object())
        if (const auto d = c->find("devices"); d != c->end() && d->is_array())
            for (const auto& x : *d) {
                ++s.ranks;
                s.devices.push_back(x.is_object() && x.contains("device_info") && x["device_info"].is_string()
                                        ? x["device_info"].get<std::string>()
                                        : std::string());
            }
    for (const auto& r : doc["results"]) {
        ++s.stats.events_read;
        if (!r.is_object()) {
            s.stats.skip("not_an_object");
            continue;
        }
        collective_point p;
        const auto size = r.contains("size") ? num(r["size"]) : std::nullopt;
        if (!size || !std::isfinite(*size) || *size < 0) {
            s.stats.skip("bad_value(size)");
            continue;
        }
        p.size_bytes = *size;
        if (r.contains("count")) p.count = num(r["count"]).value_or(0);
        if (r.contains("type") && r["type"].is_string()) p.type = r["type"].get<std::string>();
        if (r.contains("redop") && r["redop"].is_string()) p.redop = r["redop"].get<std::string>();
        if (r.contains("root")) p.root = to_int_or<int>(num(r["root"]).value_or(-1), -1);
        bool bad = false;
        for (const char* key : {"out_of_place", "in_place"}) {
            const auto it = r.find(key);
            if (it == r.end() || !it->is_object()) continue;
            // NaN stands for absent: it fails every check below.
            const auto get = [&](const char* k) {
                return it->contains(k) ? num((*it)[k]).value_or(std::nan("")) : std::nan("");
            };
            const double t = it->contains("time") ? get("time") : get("cpu_time");
            const double a = get("alg_bw"), b = get("bus_bw");
            if (!std::isfinite(t) || t < 0 || !std::isfinite(a) || a < 0 || !std::isfinite(b) || b < 0) {
                bad = true;
                break;
            }
            collective_timing ct{t * 1e-6, a * 1e9, b * 1e9, std::nullopt};
            if (it->contains("nwrong")) ct.wrong = num((*it)["nwrong"]);
            (std::string_view(key) == "out_of_place" ? p.out_of_place : p.in_place) = ct;
        }
        if (bad) {
            s.stats.skip("bad_value(time/alg_bw/bus_bw)");
            continue;
        }
        s.points.push_back(std::move(p));
        ++s.stats.events_kept;
    }
    if (const auto a = doc.find("average_bus_bandwidth"); a != doc.end() && a->is_object() && a->contains("bandwidth"))
        if (const auto v = num((*a)["bandwidth"])) s.avg_busbw_bytes_per_s = *v * 1e9;
    if (const auto o = doc.find("out_of_bounds"); o != doc.end() && o->is_object() && o->contains("count"))
        s.out_of_bounds = num((*o)["count"]);
    return s;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
