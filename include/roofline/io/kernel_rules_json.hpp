#pragma once
// Kernel-name rule files (data/kernel_rules.json and user files given with `--rules FILE`).
//
// Format: {"rules": [{"phase": "gemm", "pattern": "nvjet|xmma", "note": "..."}, ...]}; a bare
// array of rules is accepted too. `phase` is one of the names of `kernel_phase`; `pattern` an
// ECMAScript regular expression searched case-insensitively anywhere in the kernel name.
//
// The built-in rules (data/kernel_rules.json) are compiled in (io/detail/builtin_kernel_rules.hpp):
// the library reads no file unless asked. `$ROOFLINE_DATA_DIR/kernel_rules.json` replaces them
// when that environment variable is set; `--rules FILE` rules are tried before them.

#include <cstdlib>  // std::getenv
#include <string>   // std::string

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/kernel_rules.hpp"

namespace roofline {

/// Parses the text of a rule file; `source` names it in errors (a path, or "built-in ..."). Throws
/// `parse_error` naming the source, the rule index and the field for malformed JSON, a missing or
/// unknown phase, or an invalid pattern.
kernel_rules parse_kernel_rules(const std::string& text, const std::string& source);

/// Reads a rule file. Errors as `parse_kernel_rules`, plus `parse_error` for a missing or
/// unreadable file.
kernel_rules read_kernel_rules(const std::string& path);

/// Where errors in the compiled-in rules would point.
inline constexpr const char* builtin_kernel_rules_source = "built-in kernel rules (data/kernel_rules.json)";

/// The built-in rules: the compiled-in copy of data/kernel_rules.json, or
/// `$ROOFLINE_DATA_DIR/kernel_rules.json` when that environment variable is set (an override,
/// for trying edited rules without rebuilding). Errors as `read_kernel_rules`.
kernel_rules builtin_kernel_rules();

/// The built-in rules (`builtin_kernel_rules()`), with the rules in `user_rules_path` (if not
/// empty) tried first.
kernel_rules load_kernel_rules(const std::string& user_rules_path = {});

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/builtin_kernel_rules.hpp"
#include "roofline/io/detail/json_text.hpp"

namespace roofline {
ROOFLINE_INLINE kernel_rules parse_kernel_rules(const std::string& text, const std::string& source) {
    const std::string& path = source;
    const auto spans = io::detail::split_json_values(text);
    if (spans.empty()) throw parse_error(path, "line 1", "", "empty file");
    const auto doc = io::detail::parse_json_span(path, text, spans.front());
    const nlohmann::json* list = &doc;
    if (doc.is_object()) {
        const auto it = doc.find("rules");
        if (it == doc.end()) throw parse_error(path, "", "rules", "missing (expected {\"rules\": [...]})");
        list = &*it;
    }
    if (!list->is_array()) throw parse_error(path, "", "rules", "not an array");
    kernel_rules out;
    std::size_t i = 0;
    for (const auto& r : *list) {
        const std::string place = "rule " + std::to_string(i++);
        if (!r.is_object()) throw parse_error(path, place, "", "not an object");
        const auto ph = r.find("phase");
        const auto pat = r.find("pattern");
        if (ph == r.end() || !ph->is_string()) throw parse_error(path, place, "phase", "missing or not a string");
        if (pat == r.end() || !pat->is_string() || pat->get_ref<const std::string&>().empty())
            throw parse_error(path, place, "pattern", "missing, empty or not a string");
        const auto phase = parse_kernel_phase(ph->get_ref<const std::string&>());
        if (!phase)
            throw parse_error(path, place, "phase",
                              "unknown phase \"" + ph->get<std::string>() +
                                  "\" (gemm, moe_gemm, attention, communication, memcpy, memset, norm, "
                                  "activation, elementwise, sampling, other)");
        std::string note;
        if (const auto n = r.find("note"); n != r.end() && n->is_string()) note = n->get<std::string>();
        try {
            out.add(kernel_rule(pat->get<std::string>(), *phase, note, path));
        } catch (const usage_error& e) {
            throw parse_error(path, place, "pattern", e.what());
        }
    }
    return out;
}

ROOFLINE_INLINE kernel_rules read_kernel_rules(const std::string& path) {
    return parse_kernel_rules(io::read_all(path), path);
}

ROOFLINE_INLINE kernel_rules builtin_kernel_rules() {
    if (const char* env = std::getenv("ROOFLINE_DATA_DIR"); env && *env)
        return read_kernel_rules(std::string(env) + "/kernel_rules.json");
    return parse_kernel_rules(io::detail::builtin_kernel_rules_json, builtin_kernel_rules_source);
}

ROOFLINE_INLINE kernel_rules load_kernel_rules(const std::string& user_rules_path) {
    auto rules = builtin_kernel_rules();
    if (!user_rules_path.empty()) rules.prepend(read_kernel_rules(user_rules_path));
    return rules;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
