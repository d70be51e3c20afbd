#pragma once
// Calibration overlays: measured ("achievable") ceilings that replace datasheet-derived ones.
//
// Format (JSON), every key optional:
//   {"gpu": "h200-sxm",                       // informative
//    "ceilings": {"bf16": 7.9e14,             // FLOP/s per rate class or dtype name
//                 "fp8": 1.45e15,
//                 "dram_bytes_per_s": 4.3e12,
//                 "l2_bytes_per_s": 1.0e13,
//                 "link_bytes_per_s": 3.6e11,
//                 "launch_latency_s": 5e-6}}
// A later `roofline calibrate` writes this file; for now it only overrides ceilings.
// Errors: unreadable file, malformed JSON, unknown keys, non-positive or non-numeric values
// throw `parse_error` naming the file and the key.

#include <array>     // std::array
#include <cmath>     // std::isfinite
#include <fstream>   // std::ifstream
#include <iterator>  // std::istreambuf_iterator
#include <optional>  // std::optional
#include <string>    // std::string

#include <nlohmann/json.hpp>

#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/detail/json_text.hpp"

namespace roofline {

/// Ceilings a calibration file overrides (unset: keep the default).
struct calibration_overrides {
    std::array<std::optional<double>, peak_key_count> flops_per_s{};
    std::optional<double> dram_bytes_per_s, l2_bytes_per_s, link_bytes_per_s, launch_latency_s;
    std::string source;  ///< the file

    bool overrides_flops(peak_key k) const { return flops_per_s[static_cast<std::size_t>(k)].has_value(); }
};

/// Reads a calibration file (format above). Throws `parse_error`.
inline calibration_overrides read_calibration(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(path, "", "", "cannot open the calibration file");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw parse_error(path, "byte " + std::to_string(e.byte), "", "malformed JSON");
    } catch (const nlohmann::json::exception& e) {  // a number beyond the range of a double
        throw io::detail::json_exception_error(path, text, e);
    }
    if (!doc.is_object()) throw parse_error(path, "", "", "expected a JSON object");
    calibration_overrides o;
    o.source = path;
    if (!doc.contains("ceilings")) return o;
    const auto& c = doc.at("ceilings");
    if (!c.is_object()) throw parse_error(path, "", "ceilings", "expected an object");
    for (auto it = c.begin(); it != c.end(); ++it) {
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
    return o;
}

/// `c` with the calibrated values put in; `origin` records the file.
inline ceilings apply_calibration(ceilings c, const calibration_overrides& o) {
    for (auto k : all_peak_keys)
        if (o.overrides_flops(k)) c.flops_at(k) = *o.flops_per_s[static_cast<std::size_t>(k)];
    if (o.dram_bytes_per_s) c.bytes_at(memory_level::dram) = *o.dram_bytes_per_s;
    if (o.l2_bytes_per_s) c.bytes_at(memory_level::l2) = *o.l2_bytes_per_s;
    if (o.link_bytes_per_s) c.link_bytes_per_s = *o.link_bytes_per_s;
    if (o.launch_latency_s) c.launch_latency_s = *o.launch_latency_s;
    c.origin += " + calibration: " + o.source;
    return c;
}

}  // namespace roofline
