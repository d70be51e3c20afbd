#pragma once
// Calibration overlays: what `roofline calibrate` measured on one GPU, and how every pricing
// command applies it (`--calibration FILE`).
//
// Format (JSON). Version 0, still read, has only flat ceilings (every key optional):
//   {"gpu": "h200-sxm",
//    "ceilings": {"bf16": 7.9e14,              // FLOP/s per rate class or dtype name
//                 "dram_bytes_per_s": 4.3e12, "l2_bytes_per_s": 1.0e13,
//                 "link_bytes_per_s": 3.6e11, "launch_latency_s": 5e-6}}
// A version-0 file must have that `ceilings` object and nothing but `gpu` beside it: any other
// JSON (`{"foo": 1}`, a model config, a trace) is not a calibration and is refused.
// Version 1 (`"schema": "roofline.calibration/1"`) keeps that `ceilings` object unchanged (a
// version-0 reader still understands it) and adds, each with where it came from:
//   "created_utc", "tool", "gpu",
//   "device":  {"id", "name", "sm_count", "memory_bytes", "max_sm_clock_hz", "memory_clock_hz",
//               "driver"}: the GPU the measurements were made on, as they report it,
//   "inputs":  [{"file", "format", "records_read", "records_used", "note" (optional: why the
//               file was not used, or used once as a copy of another input)}],
//   "ceiling_sources": {"<ceilings key>": {"files": [...], "records": N, "method": "...",
//                       "flops_per_clock": phi (rate classes), "clock_hz": f}},
//   "graph_launch_latency_s": s,
//   "curves":  [{"family", "peak", "backend" ("" = any), "fixed_latency_s", "flops_per_clock", "bytes_per_s",
//                "floor_s", "tile_rows", "causal_block_keys", "whole_waves" (bool, optional),
//                "decode_tile_rows", "split_extra_s" (optional), "clocks_recorded" (bool, optional,
//                true when absent: false = the fitted records carried no SM clock, the rates are
//                the sweep's own under its power limit, `kernel_curve::clocks_recorded`),
//                "fit": {"points", "median_abs_error", "p90_abs_error", "cv_median_abs_error",
//                        "cv_p90_abs_error", "cv_folds", "floor_points", "compute_points",
//                        "memory_points", "source", "capped" (optional)}}],
//   "links":   [{"link", "op", "ranks", "alpha_s", "beta_bytes_per_s", "base_latency_s", "p2p",
//                "host_floor_s" (optional: the sweep's small sizes were host-bound, seconds a
//                call; alpha and base are then NCCL's), "fit": {"points", "median_abs_error",
//                "p90_abs_error"}, "from": {...}}],
//   "power":   {"static_w", "joules_per_flop": {"bf16": J, ...}, "joules_per_dram_byte",
//               "reference_clock_hz", "clock_exponent", "power_limit_w", "max_clock_hz",
//               "fit": {"samples", "rms_residual_w", "max_abs_residual_w", and optional
//                       "power_range_w", "rms_fraction_of_range", "max_abs_fraction_of_range",
//                       "unreliable_above_fraction", "unreliable" (bool: the largest residual
//                       exceeds that fraction of the range)}, "from": {...}}
// Curve parameters: models/kernel_time.hpp; link parameters: models/collective.hpp; power:
// models/power.hpp. Units SI; null stands for "not identified" (NaN).
// Errors: unreadable file, malformed JSON, an unsupported schema version, unknown keys,
// non-positive or non-numeric values throw `parse_error` naming the file and the key.
// An overlay holds for the GPU it measured only: `require_calibration_gpu` refuses (usage_error,
// exit 2 in the CLI) applying it to another, naming both. The overlay's types and how it is
// applied live in models/calibration_overlay.hpp (no JSON); this header adds the file format.

#include <array>     // std::array
#include <cmath>     // std::isfinite
#include <cstdio>    // std::snprintf
#include <cstddef>   // std::size_t
#include <filesystem>  // std::filesystem::is_directory
#include <fstream>     // std::ifstream, std::ofstream
#include <system_error>  // std::error_code
#include <initializer_list>  // std::initializer_list
#include <limits>    // std::numeric_limits
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::move, std::pair
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/power.hpp"

#include <nlohmann/json_fwd.hpp>

namespace roofline {

inline constexpr const char* calibration_schema = "roofline.calibration/1";

/// The overlay as JSON (format above; always version 1).
nlohmann::ordered_json calibration_to_json(const calibration& cal);

/// Writes the overlay to `path` (2-space indented JSON). Throws `usage_error` when the file
/// cannot be written.
void write_calibration(const std::string& path, const calibration& cal);

/// Reads a calibration file (version 0 or 1, format above). Throws `parse_error`.
calibration read_calibration(const std::string& path);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/json_text.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

inline nlohmann::ordered_json num_or_null(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json source_json(const calibration_source& s) {
    nlohmann::ordered_json j = {{"files", s.files}, {"records", s.records}, {"method", s.method}};
    if (std::isfinite(s.flops_per_clock)) j["flops_per_clock"] = s.flops_per_clock;
    if (std::isfinite(s.clock_hz)) j["clock_hz"] = s.clock_hz;
    return j;
}

/// Reads a number at `o[key]`: null -> NaN when `nullable`, else the value; throws
/// `parse_error` for other types, non-finite or (when `positive`) non-positive values.
inline double cal_number(const std::string& file, const std::string& place, const nlohmann::json& o,
                         const std::string& key, bool positive, bool nullable = true, bool required = false) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto it = o.find(key);
    if (it == o.end()) {
        if (required) throw parse_error(file, place, key, "missing");
        return nan;
    }
    if (it->is_null()) {
        if (nullable) return nan;
        throw parse_error(file, place, key, "must be a number, got null");
    }
    if (!it->is_number()) throw parse_error(file, place, key, std::string("expected a number, got ") + it->type_name());
    const double v = it->get<double>();
    if (!std::isfinite(v) || (positive ? v <= 0 : v < 0))
        throw parse_error(file, place, key, positive ? "must be a positive number" : "must be a non-negative number");
    return v;
}

inline calibration_source read_source(const std::string& file, const std::string& place, const nlohmann::json& o) {
    calibration_source s;
    if (!o.is_object()) throw parse_error(file, place, "", "expected an object");
    if (const auto f = o.find("files"); f != o.end() && f->is_array())
        for (const auto& x : *f)
            if (x.is_string()) s.files.push_back(x.get<std::string>());
    const double r = cal_number(file, place, o, "records", false);
    s.records = io::detail::to_int_or<std::size_t>(r, 0);
    if (const auto m = o.find("method"); m != o.end() && m->is_string()) s.method = m->get<std::string>();
    s.flops_per_clock = cal_number(file, place, o, "flops_per_clock", true);
    s.clock_hz = cal_number(file, place, o, "clock_hz", true);
    return s;
}

inline void check_keys(const std::string& file, const std::string& place, const nlohmann::json& o,
                       std::initializer_list<const char*> known) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        bool ok = false;
        for (const char* k : known) ok = ok || it.key() == k;
        if (!ok) throw parse_error(file, place, it.key(), "unknown key");
    }
}

}  // namespace io::detail

ROOFLINE_INLINE nlohmann::ordered_json calibration_to_json(const calibration& cal) {
    using io::detail::num_or_null;
    using io::detail::source_json;
    nlohmann::ordered_json j;
    j["schema"] = calibration_schema;
    j["gpu"] = cal.gpu;
    j["created_utc"] = cal.created_utc;
    j["tool"] = cal.tool;
    {
        const auto& d = cal.device;
        const auto opt = [](const std::optional<double>& v) {
            return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
        };
        j["device"] = {{"id", d.id.empty() ? cal.gpu : d.id},
                       {"name", d.name},
                       {"sm_count", opt(d.sm_count)},
                       {"memory_bytes", opt(d.memory_bytes)},
                       {"max_sm_clock_hz", opt(d.max_sm_clock_hz)},
                       {"memory_clock_hz", opt(d.memory_clock_hz)},
                       {"driver", d.driver}};
    }
    j["inputs"] = nlohmann::ordered_json::array();
    for (const auto& in : cal.inputs) {
        nlohmann::ordered_json x = {{"file", in.file}, {"format", in.format}, {"records_read", in.records_read},
                                    {"records_used", in.records_used}};
        if (!in.note.empty()) x["note"] = in.note;
        j["inputs"].push_back(x);
    }
    nlohmann::ordered_json c = nlohmann::ordered_json::object();
    for (auto k : all_peak_keys)
        if (cal.overrides_flops(k)) c[std::string(to_string(k))] = *cal.flops_per_s[static_cast<std::size_t>(k)];
    if (cal.dram_bytes_per_s) c["dram_bytes_per_s"] = *cal.dram_bytes_per_s;
    if (cal.l2_bytes_per_s) c["l2_bytes_per_s"] = *cal.l2_bytes_per_s;
    if (cal.link_bytes_per_s) c["link_bytes_per_s"] = *cal.link_bytes_per_s;
    if (cal.launch_latency_s) c["launch_latency_s"] = *cal.launch_latency_s;
    j["ceilings"] = c;
    nlohmann::ordered_json srcs = nlohmann::ordered_json::object();
    for (const auto& [k, s] : cal.ceiling_sources) srcs[k] = source_json(s);
    j["ceiling_sources"] = srcs;
    j["graph_launch_latency_s"] = cal.graph_launch_latency_s ? nlohmann::ordered_json(*cal.graph_launch_latency_s) : nlohmann::ordered_json(nullptr);
    j["curves"] = nlohmann::ordered_json::array();
    for (const auto& cv : cal.curves) {
        const auto& f = cv.fit;
        j["curves"].push_back({{"family", std::string(to_string(cv.family))},
                               {"peak", std::string(to_string(cv.peak))},
                               {"backend", cv.backend},
                               {"fixed_latency_s", cv.fixed_latency_s},
                               {"flops_per_clock", num_or_null(cv.flops_per_clock)},
                               {"bytes_per_s", num_or_null(cv.bytes_per_s)},
                               {"floor_s", cv.floor_s},
                               {"tile_rows", cv.tile_rows},
                               {"causal_block_keys", cv.causal_block_keys},
                               {"whole_waves", cv.whole_waves},
                               {"decode_tile_rows", cv.decode_tile_rows},
                               {"split_extra_s", cv.split_extra_s},
                               {"clocks_recorded", cv.clocks_recorded},
                               {"fit",
                                {{"points", f.points},
                                 {"median_abs_error", num_or_null(f.median_abs_error)},
                                 {"p90_abs_error", num_or_null(f.p90_abs_error)},
                                 {"cv_median_abs_error", num_or_null(f.cv_median_abs_error)},
                                 {"cv_p90_abs_error", num_or_null(f.cv_p90_abs_error)},
                                 {"cv_folds", f.cv_folds},
                                 {"floor_points", f.floor_points},
                                 {"compute_points", f.compute_points},
                                 {"memory_points", f.memory_points},
                                 {"source", f.source},
                                 {"capped", f.capped}}}});
    }
    j["links"] = nlohmann::ordered_json::array();
    for (const auto& l : cal.links) {
        nlohmann::ordered_json x = {{"link", std::string(to_string(l.link))},
                                    {"op", l.op},
                                    {"ranks", l.ranks},
                                    {"alpha_s", l.params.alpha_s},
                                    {"beta_bytes_per_s", l.params.beta_bytes_per_s},
                                    {"base_latency_s", l.params.base_latency_s},
                                    {"p2p", l.params.p2p}};
        if (l.host_floor_s) x["host_floor_s"] = *l.host_floor_s;
        x["fit"] = {{"points", l.points},
                    {"median_abs_error", num_or_null(l.median_abs_error)},
                    {"p90_abs_error", num_or_null(l.p90_abs_error)}};
        x["from"] = source_json(l.from);
        j["links"].push_back(std::move(x));
    }
    if (cal.power) {
        const auto& p = *cal.power;
        nlohmann::ordered_json e = nlohmann::ordered_json::object();
        for (auto k : all_peak_keys)
            if (std::isfinite(p.coefficients.flop_energy_at(k)))
                e[std::string(to_string(k))] = p.coefficients.flop_energy_at(k);
        j["power"] = {{"static_w", p.coefficients.static_w},
                      {"joules_per_flop", e},
                      {"joules_per_dram_byte", p.coefficients.joules_per_dram_byte},
                      {"reference_clock_hz", p.coefficients.reference_clock_hz},
                      {"clock_exponent", p.coefficients.clock_exponent},
                      {"power_limit_w", num_or_null(p.power_limit_w)},
                      {"max_clock_hz", num_or_null(p.max_clock_hz)},
                      {"fit",
                       {{"samples", p.samples},
                        {"rms_residual_w", num_or_null(p.rms_residual_w)},
                        {"max_abs_residual_w", num_or_null(p.max_abs_residual_w)},
                        {"power_range_w", num_or_null(p.power_range_w)},
                        {"rms_fraction_of_range", num_or_null(p.rms_residual_w / p.power_range_w)},
                        {"max_abs_fraction_of_range", num_or_null(p.max_abs_residual_w / p.power_range_w)},
                        {"unreliable_above_fraction", power_fit_unreliable_fraction},
                        {"unreliable", p.unreliable}}},
                      {"from", source_json(p.from)}};
    } else {
        j["power"] = nullptr;
    }
    return j;
}

ROOFLINE_INLINE void write_calibration(const std::string& path, const calibration& cal) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw usage_error("cannot write the calibration file " + path);
    out << calibration_to_json(cal).dump(1) << "\n";
    if (!out) throw usage_error("cannot write the calibration file " + path);
}

ROOFLINE_INLINE calibration read_calibration(const std::string& path) {
    using io::detail::cal_number;
    std::error_code dir_ec;
    if (std::filesystem::is_directory(path, dir_ec)) throw parse_error(path, "", "", "is a folder, not a JSON file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(path, "", "", "cannot open the calibration file");
    const std::string text = io::detail::read_json_text(path, "calibration file");
    io::detail::check_json_nesting(path, text);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw parse_error(path, "byte " + std::to_string(e.byte), "", "malformed JSON");
    } catch (const nlohmann::json::exception& e) {  // a number beyond the range of a double
        throw io::detail::json_exception_error(path, text, e);
    }
    if (!doc.is_object()) throw parse_error(path, "", "", "expected a JSON object");
    calibration o;
    o.source = path;
    if (const auto s = doc.find("schema"); s != doc.end()) {
        if (!s->is_string() || s->get<std::string>() != calibration_schema)
            throw parse_error(path, "", "schema",
                              "unsupported calibration schema " + s->dump() + " (this build reads " +
                                  calibration_schema + " and the schema-less version 0)");
        o.version = 1;
        io::detail::check_keys(path, "", doc,
                               {"schema", "gpu", "device", "created_utc", "tool", "inputs", "ceilings",
                                "ceiling_sources", "graph_launch_latency_s", "curves", "links", "power"});
    } else {
        // Version 0: only a ceilings object and the GPU's id. Anything else is another kind of
        // file (a model config, a trace, `{"foo": 1}`), never a calibration that changes nothing.
        if (doc.find("ceilings") == doc.end())
            throw parse_error(path, "", "ceilings",
                              "missing: not a calibration overlay (neither \"schema\": \"" + std::string(calibration_schema) +
                                  "\" nor a \"ceilings\" object; `roofline calibrate` writes one)");
        for (auto it = doc.begin(); it != doc.end(); ++it)
            if (it.key() != "ceilings" && it.key() != "gpu")
                throw parse_error(path, "", it.key(),
                                  "unknown key: not a calibration overlay (version 0 has only \"gpu\" and \"ceilings\")");
    }
    const auto str = [](const nlohmann::json& d, const char* k) {
        const auto it = d.find(k);
        return it != d.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    o.gpu = str(doc, "gpu");
    o.created_utc = str(doc, "created_utc");
    o.tool = str(doc, "tool");
    if (const auto g = doc.find("gpu"); g != doc.end() && !g->is_string())
        throw parse_error(path, "", "gpu", std::string("expected a catalog id string, got ") + g->type_name());
    o.device.id = o.gpu;
    if (const auto d = doc.find("device"); d != doc.end()) {
        if (!d->is_object()) throw parse_error(path, "", "device", "expected an object");
        io::detail::check_keys(path, "device", *d,
                               {"id", "name", "sm_count", "memory_bytes", "max_sm_clock_hz", "memory_clock_hz", "driver"});
        if (const std::string id = str(*d, "id"); !id.empty()) {
            if (!o.gpu.empty() && id != o.gpu)
                throw parse_error(path, "device", "id", "\"" + id + "\" disagrees with \"gpu\": \"" + o.gpu + "\"");
            o.device.id = id;
            if (o.gpu.empty()) o.gpu = id;
        }
        o.device.name = str(*d, "name");
        o.device.driver = str(*d, "driver");
        for (auto [key, dst] : {std::pair<const char*, std::optional<double>*>{"sm_count", &o.device.sm_count},
                                {"memory_bytes", &o.device.memory_bytes},
                                {"max_sm_clock_hz", &o.device.max_sm_clock_hz},
                                {"memory_clock_hz", &o.device.memory_clock_hz}})
            if (const double v = cal_number(path, "device", *d, key, true); std::isfinite(v)) *dst = v;
    }
    if (const auto c = doc.find("ceilings"); c != doc.end()) {
        if (!c->is_object()) throw parse_error(path, "", "ceilings", "expected an object");
        for (auto it = c->begin(); it != c->end(); ++it) {
            const std::string key = it.key();
            if (!it.value().is_number())
                throw parse_error(path, "ceilings", key, std::string("expected a number, got ") + it.value().type_name());
            const double v = it.value().get<double>();
            if (!std::isfinite(v) || v <= 0) throw parse_error(path, "ceilings", key, "must be a positive number");
            if (key == "dram_bytes_per_s") o.dram_bytes_per_s = v;
            else if (key == "l2_bytes_per_s") o.l2_bytes_per_s = v;
            else if (key == "link_bytes_per_s") o.link_bytes_per_s = v;
            else if (key == "launch_latency_s") o.launch_latency_s = v;
            else if (auto k = parse_peak_key(key)) o.flops_per_s[static_cast<std::size_t>(*k)] = v;
            else if (auto d = parse_dtype(key)) o.flops_per_s[static_cast<std::size_t>(peak_of(*d))] = v;
            else
                throw parse_error(path, "ceilings", key,
                                  "unknown key (accepted: a dtype such as bf16 or fp8, dram_bytes_per_s, "
                                  "l2_bytes_per_s, link_bytes_per_s, launch_latency_s)");
        }
    }
    if (o.gpu.empty())
        throw parse_error(path, "", "gpu",
                          "missing: a calibration overlay names the GPU it was measured on (a catalog id such as "
                          "\"h200-sxm\"); it holds for that GPU only");
    if (o.version == 0) return o;

    if (const auto in_list = doc.find("inputs"); in_list != doc.end() && in_list->is_array())
        for (const auto& x : *in_list) {
            calibration_input ci;
            ci.file = str(x, "file");
            ci.format = str(x, "format");
            const double rr = cal_number(path, "inputs", x, "records_read", false);
            const double ru = cal_number(path, "inputs", x, "records_used", false);
            ci.records_read = io::detail::to_int_or<std::size_t>(rr, 0);
            ci.records_used = io::detail::to_int_or<std::size_t>(ru, 0);
            ci.note = str(x, "note");
            o.inputs.push_back(ci);
        }
    if (const auto s = doc.find("ceiling_sources"); s != doc.end() && s->is_object())
        for (auto it = s->begin(); it != s->end(); ++it) {
            auto src = io::detail::read_source(path, "ceiling_sources", it.value());
            if (auto k = parse_peak_key(it.key())) {
                if (std::isfinite(src.flops_per_clock))
                    o.flops_per_clock[static_cast<std::size_t>(*k)] = src.flops_per_clock;
            }
            o.ceiling_sources[it.key()] = std::move(src);
        }
    if (const double g = cal_number(path, "", doc, "graph_launch_latency_s", true); std::isfinite(g))
        o.graph_launch_latency_s = g;
    if (const auto cs = doc.find("curves"); cs != doc.end()) {
        if (!cs->is_array()) throw parse_error(path, "", "curves", "expected an array");
        for (std::size_t i = 0; i < cs->size(); ++i) {
            const auto& x = (*cs)[i];
            const std::string place = "curves[" + std::to_string(i) + "]";
            if (!x.is_object()) throw parse_error(path, place, "", "expected an object");
            io::detail::check_keys(path, place, x,
                                   {"family", "peak", "backend", "fixed_latency_s", "flops_per_clock", "bytes_per_s", "floor_s",
                                    "tile_rows", "causal_block_keys", "whole_waves", "decode_tile_rows", "split_extra_s", "clocks_recorded", "fit"});
            kernel_curve cv;
            const auto fam = parse_kernel_family(str(x, "family"));
            if (!fam)
                throw parse_error(path, place, "family",
                                  "unknown family (accepted: gemm, grouped_gemm, attention_prefill, attention_decode, copy)");
            cv.family = *fam;
            const auto pk = parse_peak_key(str(x, "peak"));
            if (!pk) throw parse_error(path, place, "peak", "unknown rate class");
            cv.peak = *pk;
            cv.backend = str(x, "backend");
            if (!cv.backend.empty() && normalize_kernel_backend(cv.backend) != cv.backend)
                throw parse_error(path, place, "backend",
                                  "unknown backend \"" + cv.backend +
                                      "\" (accepted: flash, cudnn, mem_efficient, math, nvjet, cublas, cutlass, triton, or \"\")");
            const auto zero_if_nan = [](double v) { return std::isfinite(v) ? v : 0.0; };
            cv.fixed_latency_s = zero_if_nan(cal_number(path, place, x, "fixed_latency_s", false, false, true));
            cv.flops_per_clock = cal_number(path, place, x, "flops_per_clock", true);
            cv.bytes_per_s = cal_number(path, place, x, "bytes_per_s", true);
            cv.floor_s = zero_if_nan(cal_number(path, place, x, "floor_s", false, false));
            cv.tile_rows = zero_if_nan(cal_number(path, place, x, "tile_rows", false, false));
            cv.causal_block_keys = zero_if_nan(cal_number(path, place, x, "causal_block_keys", false, false));
            if (const auto w = x.find("whole_waves"); w != x.end()) {
                if (!w->is_boolean())
                    throw parse_error(path, place, "whole_waves", std::string("expected true or false, got ") + w->type_name());
                cv.whole_waves = w->get<bool>();
            }
            if (const auto w = x.find("clocks_recorded"); w != x.end()) {
                if (!w->is_boolean())
                    throw parse_error(path, place, "clocks_recorded", std::string("expected true or false, got ") + w->type_name());
                cv.clocks_recorded = w->get<bool>();
            }
            cv.decode_tile_rows = zero_if_nan(cal_number(path, place, x, "decode_tile_rows", false, false));
            cv.split_extra_s = zero_if_nan(cal_number(path, place, x, "split_extra_s", false, false));
            if (const auto f = x.find("fit"); f != x.end() && f->is_object()) {
                const std::string fp = place + ".fit";
                const double pts = cal_number(path, fp, *f, "points", false);
                cv.fit.points = io::detail::to_int_or<std::size_t>(pts, 0);
                cv.fit.median_abs_error = cal_number(path, fp, *f, "median_abs_error", false);
                cv.fit.p90_abs_error = cal_number(path, fp, *f, "p90_abs_error", false);
                cv.fit.cv_median_abs_error = cal_number(path, fp, *f, "cv_median_abs_error", false);
                cv.fit.cv_p90_abs_error = cal_number(path, fp, *f, "cv_p90_abs_error", false);
                const double folds = cal_number(path, fp, *f, "cv_folds", false);
                cv.fit.cv_folds = io::detail::to_int_or<int>(folds, 0);
                for (auto [key, dst] : {std::pair<const char*, std::size_t*>{"floor_points", &cv.fit.floor_points},
                                        {"compute_points", &cv.fit.compute_points},
                                        {"memory_points", &cv.fit.memory_points}}) {
                    const double v = cal_number(path, fp, *f, key, false);
                    *dst = io::detail::to_int_or<std::size_t>(v, 0);
                }
                cv.fit.source = str(*f, "source");
                if (f->contains("capped")) cv.fit.capped = str(*f, "capped");
            }
            o.curves.push_back(std::move(cv));
        }
    }
    if (const auto ls = doc.find("links"); ls != doc.end()) {
        if (!ls->is_array()) throw parse_error(path, "", "links", "expected an array");
        for (std::size_t i = 0; i < ls->size(); ++i) {
            const auto& x = (*ls)[i];
            const std::string place = "links[" + std::to_string(i) + "]";
            if (!x.is_object()) throw parse_error(path, place, "", "expected an object");
            calibrated_link l;
            try {
                l.link = parse_link_kind(str(x, "link"));
            } catch (const usage_error& e) {
                throw parse_error(path, place, "link", e.what());
            }
            l.op = str(x, "op");
            const double ranks = cal_number(path, place, x, "ranks", true, false, true);
            l.ranks = io::detail::to_int_or<int>(ranks, 0);
            if (l.ranks < 1 || l.ranks > io::detail::max_ranks) throw parse_error(path, place, "ranks", "not a rank count (1 to 1048576)");
            l.params.alpha_s = cal_number(path, place, x, "alpha_s", false, false, true);
            l.params.beta_bytes_per_s = cal_number(path, place, x, "beta_bytes_per_s", true, false, true);
            l.params.base_latency_s = cal_number(path, place, x, "base_latency_s", false, false, true);
            if (const auto p2p = x.find("p2p"); p2p != x.end() && p2p->is_boolean()) l.params.p2p = p2p->get<bool>();
            if (x.contains("host_floor_s") && !x["host_floor_s"].is_null())
                l.host_floor_s = cal_number(path, place, x, "host_floor_s", true, false, true);
            if (const auto f = x.find("fit"); f != x.end() && f->is_object()) {
                const double pts = cal_number(path, place, *f, "points", false);
                l.points = io::detail::to_int_or<std::size_t>(pts, 0);
                l.median_abs_error = cal_number(path, place, *f, "median_abs_error", false);
                l.p90_abs_error = cal_number(path, place, *f, "p90_abs_error", false);
            }
            if (const auto f = x.find("from"); f != x.end()) l.from = io::detail::read_source(path, place, *f);
            l.params.source = "calibration: " + path;
            o.links.push_back(std::move(l));
        }
    }
    if (const auto p = doc.find("power"); p != doc.end() && !p->is_null()) {
        if (!p->is_object()) throw parse_error(path, "", "power", "expected an object");
        calibrated_power cp;
        auto& c = cp.coefficients;
        c.joules_per_flop.fill(std::numeric_limits<double>::quiet_NaN());
        c.static_w = cal_number(path, "power", *p, "static_w", false, false, true);
        c.joules_per_dram_byte = cal_number(path, "power", *p, "joules_per_dram_byte", false, false, true);
        c.reference_clock_hz = cal_number(path, "power", *p, "reference_clock_hz", true, false, true);
        c.clock_exponent = cal_number(path, "power", *p, "clock_exponent", true, false, true);
        if (const auto e = p->find("joules_per_flop"); e != p->end() && e->is_object())
            for (auto it = e->begin(); it != e->end(); ++it) {
                const auto k = parse_peak_key(it.key());
                if (!k) throw parse_error(path, "power.joules_per_flop", it.key(), "unknown rate class");
                c.joules_per_flop[static_cast<std::size_t>(*k)] = cal_number(path, "power.joules_per_flop", *e, it.key(), false, false);
            }
        cp.power_limit_w = cal_number(path, "power", *p, "power_limit_w", true);
        cp.max_clock_hz = cal_number(path, "power", *p, "max_clock_hz", true);
        if (const auto f = p->find("fit"); f != p->end() && f->is_object()) {
            const double n = cal_number(path, "power.fit", *f, "samples", false);
            cp.samples = io::detail::to_int_or<std::size_t>(n, 0);
            cp.rms_residual_w = cal_number(path, "power.fit", *f, "rms_residual_w", false);
            cp.max_abs_residual_w = cal_number(path, "power.fit", *f, "max_abs_residual_w", false);
            cp.power_range_w = cal_number(path, "power.fit", *f, "power_range_w", false);
            if (const auto u = f->find("unreliable"); u != f->end()) {
                if (!u->is_boolean())
                    throw parse_error(path, "power.fit", "unreliable", std::string("expected true or false, got ") + u->type_name());
                cp.unreliable = u->get<bool>();
            }
        }
        if (const auto f = p->find("from"); f != p->end()) cp.from = io::detail::read_source(path, "power", *f);
        c.source = "calibration: " + path;
        o.power = cp;
    }
    return o;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
