#pragma once
// GPU specs as JSON: the catalog export (`roofline gpus --json`) and user overlays
// (`--gpu-file F.json`) that add GPUs or override fields of built-in ones.
//
// Schema. A file holds one GPU object or an array of them. Numbers are SI base units (bytes,
// B/s, Hz, W, FLOP/s); null means unknown. Every key but "id" is optional in an overlay entry
// whose id is already in the catalog: only the keys given replace the built-in values.
//
//   {
//     "id": "b200",                                    catalog key (required)
//     "name": "NVIDIA HGX B200 (B200 SXM 180GB)",       marketing name
//     "arch": "blackwell", "sm_arch": "sm100", "memory_type": "HBM3e",
//     "compute_capability": "10.0",                     "major.minor" string
//     "device_names": ["NVIDIA B200"],                  names cudaGetDeviceProperties reports
//     "sm_count": 148, "base_clock_hz": null, "boost_clock_hz": 1.965e9,
//     "tensor_clock_hz": 1.8557e9, "max_clock_hz": 1.965e9,
//     "memory_bytes": 1.8e11, "memory_bandwidth_bytes_per_s": 7.672e12,
//     "l2_bytes": 132644864, "l2_bandwidth_bytes_per_s": null,
//     "smem_per_sm_bytes": 233472, "smem_per_block_bytes": 232448,
//     "registers_per_sm": 65536, "max_threads_per_sm": 2048, "tmem_per_sm_bytes": 262144,
//     "power_limit_w": 1000, "power_limit_range_w": [null, 1000],   [min, max]
//     "nvlink_bandwidth_bytes_per_s": 1.8e12,           bidirectional total; 0 = none
//     "pcie_gen": 5, "pcie_bandwidth_bytes_per_s": 6.4e10,   per direction
//     "p2p": true,                                      PCIe/NVLink peer access with the stock
//     driver "dense_flops_per_s": {"fp4": 9e15, ..., "fp64": 3.7e13},   null: unknown or
//     unsupported "sparse_flops_per_s": {...}, "dense_fp16_acc_flops_per_s": {...},
//     "flops_per_clock_per_sm": {...},                  same keys: fp4 fp6 fp8 fp16 bf16 tf32 int8
//     fp32 fp64 "accumulate": {"bf16": "fp32", "int8": "int32", ...}, "unsupported": ["fp4",
//     "fp6"],                    rate classes the GPU lacks (peak 0, not unknown) "sources":
//     {"memory_bandwidth_bytes_per_s": "[C10][S5]", "dense_flops_per_s.bf16": "...", ...}, "notes":
//     {"<field>": "why, or the formula"}, "derived": ["<field>", ...]                       values
//     computed from vendor numbers
//   }
//
// In "sources", "notes" and "derived", fields are named as in `for_each_spec_value`: the keys
// above, peaks as "dense_flops_per_s.bf16", the power range as "power_limit_min_w" and
// "power_limit_max_w". An overlay value without a "sources" entry is cited as the file itself.
// A new id must give at least name, compute_capability, sm_count (a number, or null with a
// "notes" entry saying why), memory_bandwidth_bytes_per_s and one dense_flops_per_s entry; other
// fields start unknown.
//
// Errors: a bad file throws `parse_error` naming the file, the entry ("entry 2 (id \"x\")") and
// the field; values that look like human units (8000 for a bandwidth in B/s, 1980 for a clock in
// Hz) are rejected rather than read a million times too small.

#include <cmath>     // std::isfinite, std::floor
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t
#include <filesystem>  // std::filesystem::is_directory
#include <fstream>     // std::ifstream
#include <system_error>  // std::error_code
#include <map>       // std::map
#include <optional>  // std::optional
#include <set>       // std::set
#include <sstream>   // std::ostringstream
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"

#include <nlohmann/json_fwd.hpp>

namespace roofline {

/// One GPU as a JSON object (schema above). Peaks the GPU lacks are null in
/// "dense_flops_per_s" and listed in "unsupported"; unknown values are null.
nlohmann::json to_json(const gpu_spec& g);

/// nlohmann/json's ADL hook, so that `nlohmann::json j = spec;` works.
void to_json(nlohmann::json& j, const gpu_spec& g);

/// An array with one object per GPU.
nlohmann::json to_json(const std::vector<gpu_spec>& gpus);

/// A complete GPU spec from one JSON object (schema above): the rules for a new GPU apply
/// (name, compute_capability, sm_count, memory_bandwidth_bytes_per_s and one dense peak).
/// `file` and `place` name the input in errors. Throws `parse_error`.
gpu_spec gpu_from_json(const nlohmann::json& j, const std::string& file,
                       const std::string& place = {});

/// Applies a `--gpu-file` overlay to a catalog. The file holds one object or an array; an entry
/// whose id is in the catalog overrides only the fields it gives; a new id adds a GPU (and must
/// be complete, see above). Entries apply in order. Throws `parse_error` naming the file, the
/// entry and the field (a missing or unreadable file, malformed JSON with its byte offset).
void load_gpu_overlay(gpu_catalog& catalog, const std::string& path);

/// The built-in catalog with the overlay at `path` applied; `path` empty: the built-in one.
gpu_catalog load_gpu_catalog(const std::string& path = {});

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/json_text.hpp"
#include "roofline/io/input.hpp"

namespace roofline {
namespace detail {

/// A JSON number: an integer when the value is integral (sm_count 148, not 148.0), else a double.
inline nlohmann::json json_number(double v) {
    if (std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
    return v;
}

inline nlohmann::json json_value(const spec_value& v) {
    return v.known() ? json_number(*v.value) : nlohmann::json(nullptr);
}

/// Keys of the scalar numeric fields, in output order (p2p and the power range are separate).
inline const std::vector<std::string>& gpu_json_scalar_keys() {
    static const std::vector<std::string> keys = {"sm_count",
                                                  "base_clock_hz",
                                                  "boost_clock_hz",
                                                  "tensor_clock_hz",
                                                  "max_clock_hz",
                                                  "memory_bytes",
                                                  "memory_bandwidth_bytes_per_s",
                                                  "l2_bytes",
                                                  "l2_bandwidth_bytes_per_s",
                                                  "smem_per_sm_bytes",
                                                  "smem_per_block_bytes",
                                                  "registers_per_sm",
                                                  "max_threads_per_sm",
                                                  "tmem_per_sm_bytes",
                                                  "power_limit_w",
                                                  "nvlink_bandwidth_bytes_per_s",
                                                  "pcie_gen",
                                                  "pcie_bandwidth_bytes_per_s"};
    return keys;
}

/// Keys of the per-peak-key objects.
inline const std::vector<std::string>& gpu_json_peak_keys() {
    static const std::vector<std::string> keys = {"dense_flops_per_s", "sparse_flops_per_s",
                                                  "dense_fp16_acc_flops_per_s",
                                                  "flops_per_clock_per_sm"};
    return keys;
}

/// The spec_value a field name (as `for_each_spec_value` names it) refers to, or nullptr.
/// `Spec` is `gpu_spec` or `const gpu_spec`.
template <class Spec>
auto gpu_field(Spec& g, const std::string& name) -> decltype(&g.sm_count) {
    decltype(&g.sm_count) found = nullptr;
    for_each_spec_value(g, [&](const std::string& n, auto& v, bool) {
        if (n == name) found = &v;
    });
    return found;
}

/// Reads and validates overlay entries; one instance per entry.
class gpu_json_reader {
  public:
    gpu_json_reader(const std::string& file, std::string place)
        : file_(file), place_(std::move(place)) {}

    /// Applies entry `j` to `g`. `is_new`: `g` is blank and the entry must be complete.
    void apply(gpu_spec& g, const nlohmann::json& j, bool is_new) {
        if (!j.is_object()) fail("", "expected a JSON object for a GPU entry, got " + type_of(j));
        static const std::set<std::string> text_keys = {"id", "name", "arch", "sm_arch",
                                                        "memory_type"};
        static const std::set<std::string> other_keys = {"compute_capability",
                                                         "device_names",
                                                         "power_limit_range_w",
                                                         "p2p",
                                                         "accumulate",
                                                         "unsupported",
                                                         "sources",
                                                         "notes",
                                                         "derived"};
        std::set<std::string> scalar_keys(gpu_json_scalar_keys().begin(),
                                          gpu_json_scalar_keys().end());
        std::set<std::string> peak_maps(gpu_json_peak_keys().begin(), gpu_json_peak_keys().end());
        for (const auto& [key, value] : j.items()) {
            (void)value;
            if (!text_keys.count(key) && !other_keys.count(key) && !scalar_keys.count(key) &&
                !peak_maps.count(key))
                fail(key, "unknown field (see io/gpu_json.hpp for the schema)");
        }

        const auto sources = string_map(j, "sources");
        const auto notes = string_map(j, "notes");
        const auto derived = string_set(j, "derived");
        std::set<std::string> set_fields;  // fields this entry gives a value for

        for (const auto& key : {"name", "arch", "sm_arch", "memory_type"}) {
            if (!j.contains(key)) continue;
            const auto& v = j.at(key);
            if (!v.is_string()) fail(key, "expected a string, got " + type_of(v));
            std::string s = v.get<std::string>();
            if (std::string(key) == "name")
                g.name = std::move(s);
            else if (std::string(key) == "arch")
                g.arch = std::move(s);
            else if (std::string(key) == "sm_arch")
                g.sm_arch = std::move(s);
            else
                g.memory_type = std::move(s);
        }
        if (j.contains("compute_capability"))
            read_compute_capability(g, j.at("compute_capability"));
        if (j.contains("device_names")) {
            const auto& v = j.at("device_names");
            if (!v.is_array())
                fail("device_names", "expected an array of strings, got " + type_of(v));
            g.device_names.clear();
            for (const auto& s : v) {
                if (!s.is_string()) fail("device_names", "expected strings, got " + type_of(s));
                g.device_names.push_back(s.get<std::string>());
            }
        }

        auto assign = [&](const std::string& field, const nlohmann::json& v) {
            spec_value* target = gpu_field(g, field);
            if (target == nullptr) fail(field, "not a GPU field");
            std::optional<double> value;
            if (!v.is_null()) {
                if (!v.is_number())
                    fail(field, "expected a number (SI units) or null, got " + type_of(v));
                value = v.get<double>();
                check_value(field, *value);
            }
            set_fields.insert(field);
            spec_value out;
            out.value = value;
            auto s = sources.find(field);
            auto n = notes.find(field);
            out.note = n != notes.end() ? n->second
                                        : (value ? std::string() : "set to unknown in " + file_);
            out.source =
                s != sources.end() ? s->second : (value ? "user file " + file_ : std::string());
            out.derived = derived.count(field) > 0;
            *target = std::move(out);
        };

        for (const auto& key : gpu_json_scalar_keys())
            if (j.contains(key)) assign(key, j.at(key));
        if (j.contains("power_limit_range_w")) {
            const auto& v = j.at("power_limit_range_w");
            if (!v.is_array() || v.size() != 2)
                fail("power_limit_range_w", "expected [min, max] (numbers in W or null)");
            assign("power_limit_min_w", v[0]);
            assign("power_limit_max_w", v[1]);
            if (g.power_limit_min_w.known() && g.power_limit_max_w.known() &&
                *g.power_limit_min_w.value > *g.power_limit_max_w.value)
                fail("power_limit_range_w", "min is above max");
        }
        if (j.contains("p2p")) {
            const auto& v = j.at("p2p");
            if (v.is_boolean())
                assign("p2p", v.get<bool>() ? 1.0 : 0.0);
            else if (v.is_null())
                assign("p2p", v);
            else
                fail("p2p", "expected true, false or null, got " + type_of(v));
        }

        // Rate classes the GPU lacks: their dense peak is 0, not unknown.
        std::set<std::string> unsupported;
        if (j.contains("unsupported")) {
            const auto& v = j.at("unsupported");
            if (!v.is_array())
                fail("unsupported", "expected an array of peak keys, got " + type_of(v));
            for (auto k : all_peak_keys) g.peak(k).supported = true;
            for (const auto& s : v) {
                if (!s.is_string()) fail("unsupported", "expected peak keys, got " + type_of(s));
                const auto k = parse_peak_key(s.get<std::string>());
                if (!k)
                    fail("unsupported",
                         "unknown peak key \"" + s.get<std::string>() + "\"" + peak_keys_hint());
                g.peak(*k).supported = false;
                unsupported.insert(std::string(to_string(*k)));
            }
        }
        for (const auto& map : gpu_json_peak_keys()) {
            if (!j.contains(map)) continue;
            const auto& m = j.at(map);
            if (!m.is_object())
                fail(map, "expected an object keyed by peak key, got " + type_of(m));
            for (const auto& [key, v] : m.items()) {
                const auto k = parse_peak_key(key);
                if (!k) fail(map + "." + key, "unknown peak key" + peak_keys_hint());
                const std::string field = map + "." + std::string(to_string(*k));
                const bool listed = unsupported.count(std::string(to_string(*k))) > 0;
                if (map == "dense_flops_per_s" && listed && !v.is_null() &&
                    !(v.is_number() && v.get<double>() == 0))
                    fail(field, "is listed in \"unsupported\" but given a peak");
                if (map == "dense_flops_per_s" && !g.peak(*k).supported && v.is_null()) {
                    // An unsupported class is written as null; its peak is 0, not unknown.
                    assign(field, 0.0);
                } else {
                    assign(field, v);
                    // A peak given for a class the GPU was thought to lack makes it supported.
                    if (map == "dense_flops_per_s" && !listed && !v.is_null())
                        g.peak(*k).supported = true;
                }
            }
        }
        for (const auto& key : unsupported) {
            const std::string field = "dense_flops_per_s." + key;
            if (!set_fields.count(field)) assign(field, 0.0);
        }
        if (j.contains("accumulate")) {
            const auto& m = j.at("accumulate");
            if (!m.is_object())
                fail("accumulate", "expected an object keyed by peak key, got " + type_of(m));
            for (const auto& [key, v] : m.items()) {
                const auto k = parse_peak_key(key);
                if (!k) fail("accumulate." + key, "unknown peak key" + peak_keys_hint());
                if (!v.is_string())
                    fail("accumulate." + key, "expected a string, got " + type_of(v));
                g.peak(*k).accumulate = v.get<std::string>();
            }
        }

        // A source, note or "derived" mark for a field the entry does not set is a mistake
        // (a typo in a field name, or a value forgotten): say so instead of ignoring it.
        for (const auto* m : {&sources, &notes})
            for (const auto& [field, text] : *m) {
                (void)text;
                if (!set_fields.count(field))
                    fail(std::string(m == &sources ? "sources." : "notes.") + field,
                         "names a field this entry does not set");
            }
        for (const auto& field : derived)
            if (!set_fields.count(field))
                fail("derived", "\"" + field + "\" is not set by this entry");

        if (is_new) require_complete(g, j);
    }

  private:
    [[noreturn]] void fail(const std::string& field, const std::string& detail) const {
        throw parse_error(file_, place_, field, detail);
    }

    static std::string type_of(const nlohmann::json& v) { return v.type_name(); }

    static std::string peak_keys_hint() {
        return " (expected fp4 fp6 fp8 fp16 bf16 tf32 int8 fp32 fp64)";
    }

    std::map<std::string, std::string> string_map(const nlohmann::json& j, const char* key) const {
        std::map<std::string, std::string> out;
        if (!j.contains(key)) return out;
        const auto& m = j.at(key);
        if (!m.is_object()) fail(key, "expected an object of field -> string, got " + type_of(m));
        for (const auto& [field, v] : m.items()) {
            if (!v.is_string())
                fail(std::string(key) + "." + field, "expected a string, got " + type_of(v));
            out[field] = v.get<std::string>();
        }
        return out;
    }

    std::set<std::string> string_set(const nlohmann::json& j, const char* key) const {
        std::set<std::string> out;
        if (!j.contains(key)) return out;
        const auto& a = j.at(key);
        if (!a.is_array()) fail(key, "expected an array of field names, got " + type_of(a));
        for (const auto& v : a) {
            if (!v.is_string()) fail(key, "expected field names, got " + type_of(v));
            out.insert(v.get<std::string>());
        }
        return out;
    }

    void read_compute_capability(gpu_spec& g, const nlohmann::json& v) const {
        if (!v.is_string())
            fail("compute_capability", "expected a string like \"12.0\", got " + type_of(v));
        const std::string s = v.get<std::string>();
        const auto dot = s.find('.');
        auto digits = [](const std::string& t) {
            return !t.empty() && t.size() <= 2 &&
                   t.find_first_not_of("0123456789") == std::string::npos;
        };
        if (dot == std::string::npos || !digits(s.substr(0, dot)) || !digits(s.substr(dot + 1)))
            fail("compute_capability", "expected \"major.minor\" like \"12.0\", got \"" + s + "\"");
        g.cc_major = std::stoi(s.substr(0, dot));
        g.cc_minor = std::stoi(s.substr(dot + 1));
    }

    /// Rejects negative values and values that look like human units.
    void check_value(const std::string& field, double v) const {
        if (!std::isfinite(v)) fail(field, "must be finite");
        if (v < 0) fail(field, "must not be negative, got " + show(v));
        auto ends_with = [&](const char* suffix) {
            const std::string s(suffix);
            return field.size() >= s.size() &&
                   field.compare(field.size() - s.size(), s.size(), s) == 0;
        };
        auto starts_with = [&](const char* prefix) { return field.rfind(prefix, 0) == 0; };
        if (v == 0) return;
        if (ends_with("bandwidth_bytes_per_s") && v < 1e9)
            fail(field, show(v) + " B/s is below 1 GB/s: values are SI units (8 TB/s is 8e12)");
        if (ends_with("_clock_hz") && v < 1e7)
            fail(field, show(v) + " Hz is below 10 MHz: values are SI units (1980 MHz is 1.98e9)");
        if ((starts_with("dense_") || starts_with("sparse_")) && v < 1e9)
            fail(field,
                 show(v) +
                     " FLOP/s is below 1 GFLOP/s: values are SI units (989 TFLOP/s is 9.89e14)");
        if (field == "memory_bytes" && v < 1e8)
            fail(field, show(v) + " B is below 100 MB: values are SI units (80 GB is 8e10)");
        if ((field == "l2_bytes" || field == "smem_per_sm_bytes" ||
             field == "smem_per_block_bytes" || field == "tmem_per_sm_bytes") &&
            v < 1024)
            fail(field, show(v) + " B is below 1 KiB: values are bytes (227 KiB is 232448)");
        if ((field == "sm_count" || field == "pcie_gen" || field == "registers_per_sm" ||
             field == "max_threads_per_sm") &&
            std::floor(v) != v)
            fail(field, "must be a whole number, got " + show(v));
        // Counts are used as ints (the CUDA layer matches sm_count to the device's).
        if ((field == "sm_count" || field == "pcie_gen" || field == "registers_per_sm" ||
             field == "max_threads_per_sm") &&
            v > 2147483647.0)
            fail(field, "must be below 2^31, got " + show(v));
        if (field == "p2p" && v != 1) fail(field, "expected true or false");
    }

    void require_complete(const gpu_spec& g, const nlohmann::json& j) const {
        for (const char* key : {"name", "compute_capability"})
            if (!j.contains(key)) fail(key, "required for a GPU that is not in the catalog");
        if (!j.contains("memory_bandwidth_bytes_per_s") ||
            j.at("memory_bandwidth_bytes_per_s").is_null())
            fail("memory_bandwidth_bytes_per_s",
                 "required (a number) for a GPU that is not in the catalog");
        // The SM count may be given as null when a note says why (GB300: not published).
        if (!j.contains("sm_count") ||
            (j.at("sm_count").is_null() &&
             !(j.contains("notes") && j.at("notes").contains("sm_count"))))
            fail("sm_count",
                 "required for a GPU that is not in the catalog (a number, or null with a "
                 "\"notes\" entry saying why)");
        bool any_peak = false;
        for (auto k : all_peak_keys)
            if (g.peak(k).supported && g.peak(k).dense_flops_per_s.value_or(0.0) > 0.0)
                any_peak = true;
        if (!any_peak)
            fail("dense_flops_per_s",
                 "a GPU that is not in the catalog needs at least one dense peak");
    }

    static std::string show(double v) {
        std::ostringstream os;
        os << v;
        return os.str();
    }

    std::string file_;
    std::string place_;
};

/// A blank spec for a new overlay GPU: every required field unknown, citing the file.
inline gpu_spec blank_gpu(const std::string& id, const std::string& file) {
    gpu_spec g;
    g.id = id;
    for_each_spec_value(g, [&](const std::string&, spec_value& v, bool optional) {
        if (!optional) v = unknown("not given in " + file);
    });
    return g;
}

inline std::string entry_place(std::size_t index, const std::string& id) {
    std::string place = "entry " + std::to_string(index);
    if (!id.empty()) place += " (id \"" + id + "\")";
    return place;
}

/// The "id" of entry `j`, or a parse_error naming the entry.
inline std::string entry_id(const nlohmann::json& j, const std::string& file, std::size_t index) {
    if (!j.is_object())
        throw parse_error(
            file, entry_place(index, ""), "",
            std::string("expected a JSON object for a GPU entry, got ") + j.type_name());
    if (!j.contains("id")) throw parse_error(file, entry_place(index, ""), "id", "missing");
    const auto& id = j.at("id");
    if (!id.is_string() || id.get<std::string>().empty())
        throw parse_error(file, entry_place(index, ""), "id", "expected a non-empty string");
    return id.get<std::string>();
}

}  // namespace detail

ROOFLINE_INLINE nlohmann::json to_json(const gpu_spec& g) {
    using detail::json_value;
    nlohmann::json j;
    j["id"] = g.id;
    j["name"] = g.name;
    j["arch"] = g.arch;
    j["sm_arch"] = g.sm_arch;
    j["compute_capability"] = g.compute_capability();
    j["device_names"] = g.device_names;
    j["memory_type"] = g.memory_type;
    for (const auto& key : detail::gpu_json_scalar_keys())
        j[key] = json_value(*detail::gpu_field(g, key));
    j["power_limit_range_w"] =
        nlohmann::json::array({json_value(g.power_limit_min_w), json_value(g.power_limit_max_w)});
    j["p2p"] = g.p2p.known() ? nlohmann::json(*g.p2p.value > 0) : nlohmann::json(nullptr);
    nlohmann::json unsupported = nlohmann::json::array();
    for (const auto& map : detail::gpu_json_peak_keys()) j[map] = nlohmann::json::object();
    j["accumulate"] = nlohmann::json::object();
    for (auto k : all_peak_keys) {
        const auto& p = g.peak(k);
        const std::string key(to_string(k));
        j["dense_flops_per_s"][key] =
            p.supported ? json_value(p.dense_flops_per_s) : nlohmann::json(nullptr);
        // Optional rates appear only where known or annotated ("BF16 has no FP16-accumulate mode").
        auto optional = [&](const char* map, const spec_value& v) {
            if (v.known() || !v.note.empty()) j[map][key] = json_value(v);
        };
        optional("sparse_flops_per_s", p.sparse_flops_per_s);
        optional("dense_fp16_acc_flops_per_s", p.dense_fp16_acc_flops_per_s);
        optional("flops_per_clock_per_sm", p.flops_per_clock_per_sm);
        if (!p.accumulate.empty()) j["accumulate"][key] = p.accumulate;
        if (!p.supported) unsupported.push_back(key);
    }
    j["unsupported"] = unsupported;
    nlohmann::json sources = nlohmann::json::object(), notes = nlohmann::json::object();
    nlohmann::json derived = nlohmann::json::array();
    for_each_spec_value(g, [&](const std::string& field, const spec_value& v, bool) {
        if (!v.source.empty()) sources[field] = v.source;
        if (!v.note.empty()) notes[field] = v.note;
        if (v.derived) derived.push_back(field);
    });
    j["sources"] = sources;
    j["notes"] = notes;
    j["derived"] = derived;
    return j;
}

ROOFLINE_INLINE void to_json(nlohmann::json& j, const gpu_spec& g) {
    j = to_json(g);
}

ROOFLINE_INLINE nlohmann::json to_json(const std::vector<gpu_spec>& gpus) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& g : gpus) a.push_back(to_json(g));
    return a;
}

ROOFLINE_INLINE gpu_spec gpu_from_json(const nlohmann::json& j, const std::string& file,
                                       const std::string& place) {
    const std::string id = detail::entry_id(j, file, 0);
    gpu_spec g = detail::blank_gpu(id, file);
    detail::gpu_json_reader(file, place.empty() ? "id \"" + id + "\"" : place).apply(g, j, true);
    return g;
}

ROOFLINE_INLINE void load_gpu_overlay(gpu_catalog& catalog, const std::string& path) {
    std::error_code dir_ec;
    if (std::filesystem::is_directory(path, dir_ec)) throw parse_error(path, "", "", "is a folder, not a JSON file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(path, "", "", "cannot open the GPU file");
    const std::string text = io::detail::read_json_text(path, "GPU file");
    io::detail::check_json_nesting(path, text);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann's message: "[json.exception.parse_error.101] parse error at line 3, column 1:
        // syntax error while parsing ...". Keep the line and column and the reason.
        const std::string what = e.what();
        std::string place = "byte " + std::to_string(e.byte), reason;
        const auto at = what.find("at line ");
        const auto colon = at == std::string::npos ? at : what.find(": ", at);
        if (colon != std::string::npos) {
            place = what.substr(at + 3, colon - at - 3) + " (" + place + ")";
            reason = ": " + what.substr(colon + 2);
        }
        throw parse_error(path, place, "", "malformed JSON" + reason);
    } catch (const nlohmann::json::exception& e) {  // a number beyond the range of a double
        throw io::detail::json_exception_error(path, text, e);
    }
    std::vector<nlohmann::json> entries;
    if (doc.is_array()) {
        if (doc.empty()) throw parse_error(path, "", "", "the array holds no GPU entries");
        entries.assign(doc.begin(), doc.end());
    } else if (doc.is_object()) {
        entries.push_back(doc);
    } else {
        throw parse_error(
            path, "", "",
            std::string("expected a GPU object or an array of them, got ") + doc.type_name());
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string id = detail::entry_id(entries[i], path, i);
        const std::string place = detail::entry_place(i, id);
        gpu_spec g = catalog.find(id) ? *catalog.find(id) : detail::blank_gpu(id, path);
        detail::gpu_json_reader(path, place).apply(g, entries[i], catalog.find(id) == nullptr);
        catalog.add_or_replace(std::move(g));
    }
}

ROOFLINE_INLINE gpu_catalog load_gpu_catalog(const std::string& path) {
    gpu_catalog c = gpu_catalog::builtin();
    if (!path.empty()) load_gpu_overlay(c, path);
    return c;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
