#pragma once
// Rank summaries (trace/rank_summary.hpp) as versioned JSON: written by
// `roofline trace RANK_FILE --summary-out r.json`, read by `roofline merge`.
//
//   {"schema": "roofline.rank_summary", "version": 1, "file": ..., "rank": 3, ...,
//    "streams": [{"stream": 7, ...}], "launch_delay": {...},
//    "collectives": [{"process_group": "0", "seq": 0, "name": "allreduce", "start_s": ...,
//                     "before_by_phase_s": {"gemm": 0.0012, ...}}]}
//
// Numbers are written with full precision (nlohmann's shortest round-trip form), unknown numbers
// as null, so a summary read back equals the one written, bit for bit: merged summaries give the
// same report as the direct analysis. A reader refuses another schema, a newer version, and a
// missing or mistyped field, naming the file and the field.

#include <cmath>          // std::isfinite
#include <fstream>        // std::ifstream, std::ofstream
#include <limits>         // std::numeric_limits
#include <sstream>        // std::ostringstream
#include <string>         // std::string
#include <vector>         // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/rank_summary.hpp"

#include <nlohmann/json_fwd.hpp>

namespace roofline {

/// The `schema` value of a rank summary.
inline constexpr const char* rank_summary_schema = "roofline.rank_summary";

/// `s` as JSON (see the file comment for the layout).
nlohmann::ordered_json rank_summary_json(const rank_summary& s);

/// Parses a rank summary from JSON text; `file` names it in errors. Throws `parse_error` for
/// malformed JSON, another schema, a newer version, or a missing or mistyped field.
rank_summary parse_rank_summary(const std::string& text, const std::string& file);

/// Reads a rank summary file (gzip inflated; `summary_file` set to `path`). Throws
/// `parse_error` (see `parse_rank_summary`), for an unreadable or empty file, and for a trace
/// given in its place (naming the command that writes its summary).
rank_summary read_rank_summary(const std::string& path);

/// Writes `s` to `path` (pretty-printed JSON). Throws `usage_error` when it cannot be written.
void write_rank_summary(const rank_summary& s, const std::string& path);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>

#include "roofline/io/detail/json_text.hpp"
#include "roofline/io/input.hpp"

namespace roofline {
namespace io::detail::rank_json {

using json = nlohmann::ordered_json;

inline json num(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

/// Field access with errors naming the file and the JSON path.
struct reader {
    const std::string& file;

    const json& at(const json& o, const char* key, const std::string& where) const {
        if (!o.is_object()) throw parse_error(file, where, "", "expected an object");
        const auto it = o.find(key);
        if (it == o.end()) throw parse_error(file, where, key, "missing");
        return *it;
    }
    double real(const json& o, const char* key, const std::string& where) const {
        const auto& v = at(o, key, where);
        if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
        if (!v.is_number()) throw parse_error(file, where, key, "expected a number or null");
        return v.get<double>();
    }
    std::int64_t integer(const json& o, const char* key, const std::string& where) const {
        const auto& v = at(o, key, where);
        if (!v.is_number_integer()) throw parse_error(file, where, key, "expected an integer");
        return v.get<std::int64_t>();
    }
    std::string text(const json& o, const char* key, const std::string& where) const {
        const auto& v = at(o, key, where);
        if (!v.is_string()) throw parse_error(file, where, key, "expected a string");
        return v.get<std::string>();
    }
    const json& array(const json& o, const char* key, const std::string& where) const {
        const auto& v = at(o, key, where);
        if (!v.is_array()) throw parse_error(file, where, key, "expected an array");
        return v;
    }
};

inline kernel_phase phase_named(const reader& r, const std::string& name, const std::string& where) {
    for (auto p : all_kernel_phases)
        if (to_string(p) == name) return p;
    throw parse_error(r.file, where, name, "not a kernel phase");
}

}  // namespace io::detail::rank_json

ROOFLINE_INLINE nlohmann::ordered_json rank_summary_json(const rank_summary& s) {
    using io::detail::rank_json::num;
    nlohmann::ordered_json j;
    j["schema"] = rank_summary_schema;
    j["version"] = s.schema_version;
    j["file"] = s.file;
    j["format"] = s.format;
    j["rank"] = s.rank;
    j["rank_source"] = s.rank_source;
    j["world_size"] = s.world_size;
    j["gpu_id"] = s.gpu_id;
    j["gpu_name"] = s.gpu_name;
    j["device"] = s.device;
    j["window_s"] = num(s.window_s);
    j["busy_s"] = num(s.busy_s);
    j["idle_s"] = num(s.idle_s);
    j["communication_s"] = num(s.communication_s);
    j["exposed_communication_s"] = num(s.exposed_communication_s);
    j["bound"] = s.bound;
    j["verdict_reason"] = s.verdict_reason;
    j["mean_power_w"] = s.mean_power_w ? num(*s.mean_power_w) : nlohmann::ordered_json(nullptr);
    j["power_gpu_index"] = s.power_gpu_index;
    j["power_note"] = s.power_note;
    j["launch_floor_s"] = num(s.launch_floor_s);
    auto& st = j["streams"] = nlohmann::ordered_json::array();
    for (const auto& x : s.streams)
        st.push_back({{"stream", x.stream},
                      {"activities", x.activities},
                      {"span_s", num(x.span_s)},
                      {"busy_s", num(x.busy_s)},
                      {"host_wait_s", num(x.host_wait_s)},
                      {"kernel_wait_s", num(x.kernel_wait_s)},
                      {"other_s", num(x.other_s)}});
    j["launch_delay"] = {{"count", s.launch_delay.count},
                         {"mean_s", num(s.launch_delay.mean_s)},
                         {"median_s", num(s.launch_delay.median_s)},
                         {"p90_s", num(s.launch_delay.p90_s)},
                         {"max_s", num(s.launch_delay.max_s)}};
    j["seq_source"] = s.seq_source;
    auto& cs = j["collectives"] = nlohmann::ordered_json::array();
    for (const auto& c : s.collectives) {
        nlohmann::ordered_json before = nlohmann::ordered_json::object();
        for (std::size_t p = 0; p < kernel_phase_count; ++p)
            if (c.before_by_phase_s[p] != 0) before[std::string(to_string(all_kernel_phases[p]))] = c.before_by_phase_s[p];
        cs.push_back({{"process_group", c.process_group},
                      {"seq", c.seq},
                      {"name", c.name},
                      {"start_s", num(c.start_s)},
                      {"duration_s", num(c.duration_s)},
                      {"bytes", num(c.bytes)},
                      {"group_size", c.group_size},
                      {"algorithm", c.algorithm},
                      {"model_transfer_s", num(c.model_transfer_s)},
                      {"before_by_phase_s", before}});
    }
    j["notes"] = s.notes;
    return j;
}

ROOFLINE_INLINE rank_summary parse_rank_summary(const std::string& text, const std::string& file) {
    using namespace io::detail::rank_json;
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw parse_error(file, "byte 0", "", "empty file");
    // A trace given where its summary belongs: say which command makes the summary.
    if (text[first] == '[' || text.substr(0, std::size_t{1} << 20).find("\"traceEvents\"") != std::string::npos)
        throw parse_error(file, "top level", "",
                          "a Kineto/Chrome trace, not a rank summary: write its summary with `roofline trace " +
                              file + " --summary-out SUMMARY.json`, or analyse the traces together with "
                              "`roofline trace RANK0 RANK1 ...`");
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded()) {
        io::detail::parse_json_span(file, text, {first, text.size()});  // throws, naming the line and column
        throw parse_error(file, "", "", "malformed JSON");
    }
    const reader r{file};
    const std::string top = "top level";
    if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() || j["schema"] != rank_summary_schema)
        throw parse_error(file, top, "schema", std::string("not a rank summary (expected \"") + rank_summary_schema +
                                                   "\"; write one with roofline trace FILE --summary-out)");
    rank_summary s;
    s.schema_version = static_cast<int>(r.integer(j, "version", top));
    if (s.schema_version < 1 || s.schema_version > rank_summary_schema_version)
        throw parse_error(file, top, "version",
                          "version " + std::to_string(s.schema_version) + " is not supported (this build reads 1 to " +
                              std::to_string(rank_summary_schema_version) + ")");
    s.file = r.text(j, "file", top);
    s.format = r.text(j, "format", top);
    s.rank = static_cast<int>(r.integer(j, "rank", top));
    s.rank_source = r.text(j, "rank_source", top);
    s.world_size = static_cast<int>(r.integer(j, "world_size", top));
    s.gpu_id = r.text(j, "gpu_id", top);
    s.gpu_name = r.text(j, "gpu_name", top);
    s.device = static_cast<int>(r.integer(j, "device", top));
    s.window_s = r.real(j, "window_s", top);
    s.busy_s = r.real(j, "busy_s", top);
    s.idle_s = r.real(j, "idle_s", top);
    s.communication_s = r.real(j, "communication_s", top);
    s.exposed_communication_s = r.real(j, "exposed_communication_s", top);
    s.bound = r.text(j, "bound", top);
    s.verdict_reason = r.text(j, "verdict_reason", top);
    if (const double w = r.real(j, "mean_power_w", top); std::isfinite(w)) s.mean_power_w = w;
    s.power_gpu_index = static_cast<int>(r.integer(j, "power_gpu_index", top));
    s.power_note = r.text(j, "power_note", top);
    s.launch_floor_s = r.real(j, "launch_floor_s", top);
    const auto& st = r.array(j, "streams", top);
    for (std::size_t i = 0; i < st.size(); ++i) {
        const std::string w = "streams[" + std::to_string(i) + "]";
        stream_idle x;
        x.stream = r.integer(st[i], "stream", w);
        x.activities = static_cast<std::size_t>(r.integer(st[i], "activities", w));
        x.span_s = r.real(st[i], "span_s", w);
        x.busy_s = r.real(st[i], "busy_s", w);
        x.host_wait_s = r.real(st[i], "host_wait_s", w);
        x.kernel_wait_s = r.real(st[i], "kernel_wait_s", w);
        x.other_s = r.real(st[i], "other_s", w);
        s.streams.push_back(x);
    }
    const auto& ld = r.at(j, "launch_delay", top);
    s.launch_delay.count = static_cast<std::size_t>(r.integer(ld, "count", "launch_delay"));
    s.launch_delay.mean_s = r.real(ld, "mean_s", "launch_delay");
    s.launch_delay.median_s = r.real(ld, "median_s", "launch_delay");
    s.launch_delay.p90_s = r.real(ld, "p90_s", "launch_delay");
    s.launch_delay.max_s = r.real(ld, "max_s", "launch_delay");
    s.seq_source = r.text(j, "seq_source", top);
    const auto& cs = r.array(j, "collectives", top);
    for (std::size_t i = 0; i < cs.size(); ++i) {
        const std::string w = "collectives[" + std::to_string(i) + "]";
        rank_collective c;
        c.process_group = r.text(cs[i], "process_group", w);
        c.seq = r.integer(cs[i], "seq", w);
        c.name = r.text(cs[i], "name", w);
        c.start_s = r.real(cs[i], "start_s", w);
        c.duration_s = r.real(cs[i], "duration_s", w);
        c.bytes = r.real(cs[i], "bytes", w);
        c.group_size = static_cast<int>(r.integer(cs[i], "group_size", w));
        c.algorithm = r.text(cs[i], "algorithm", w);
        c.model_transfer_s = r.real(cs[i], "model_transfer_s", w);
        const auto& b = r.at(cs[i], "before_by_phase_s", w);
        if (!b.is_object()) throw parse_error(file, w, "before_by_phase_s", "expected an object");
        for (const auto& [k, v] : b.items()) {
            if (!v.is_number()) throw parse_error(file, w + ".before_by_phase_s", k, "expected a number");
            c.before_by_phase_s[static_cast<std::size_t>(phase_named(r, k, w))] = v.get<double>();
        }
        s.collectives.push_back(std::move(c));
    }
    for (const auto& n : r.array(j, "notes", top)) {
        if (!n.is_string()) throw parse_error(file, top, "notes", "expected strings");
        s.notes.push_back(n.get<std::string>());
    }
    return s;
}

ROOFLINE_INLINE rank_summary read_rank_summary(const std::string& path) {
    io::detail::check_json_file_size(path, "rank summary");
    std::string text;
    {
        io::input_file in(path);  // gzip inflated; "cannot open" names the file
        char buf[1 << 16];
        for (std::size_t n; (n = in.read(buf, sizeof buf)) > 0;) {
            text.append(buf, n);
            if (text.size() > (std::size_t{64} << 20))  // a pipe or device that never ends (/dev/zero)
                throw parse_error(path, in.place(), "", "over 64 MiB: larger than any rank summary");
            // A gzip trace given by mistake may be gigabytes: its first MiB tells.
            if (text.size() >= (std::size_t{1} << 20) && text.find("\"traceEvents\"") != std::string::npos) break;
        }
    }
    rank_summary s = parse_rank_summary(text, path);
    s.summary_file = path;
    return s;
}

ROOFLINE_INLINE void write_rank_summary(const rank_summary& s, const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw usage_error(path + ": cannot write the rank summary");
    out << rank_summary_json(s).dump(1) << '\n';
    if (!out) throw usage_error(path + ": cannot write the rank summary");
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
