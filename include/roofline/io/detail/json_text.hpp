#pragma once
// JSON text as benchmark tools write it, made digestible for nlohmann/json:
// - Python's `json.dumps` writes the bare literals `Infinity`, `-Infinity` and `NaN`, which
//   JSON forbids; a pre-pass that knows where strings are replaces them (outside strings only)
//   with sentinel strings that `json_number` turns back into numbers;
// - SGLang appends one object per line (JSONL), vLLM `--append-result` appends objects too:
//   `split_json_values` cuts the text into its top-level values;
// - a parse error names the line and column in the original text;
// - nesting is bounded before any parse (`check_json_nesting`): nlohmann/json copies and compares
//   values recursively, so 200k nested arrays (400 KB of text) overflow the stack long after a
//   successful parse. Input size is bounded by `check_json_file_size` before a file is read.

#include <cmath>        // INFINITY, NAN
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uintmax_t
#include <filesystem>   // std::filesystem::file_size
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "roofline/core/error.hpp"

namespace roofline::io::detail {

/// Sentinels for the non-finite literals. The leading U+0001 keeps them apart from any text a
/// benchmark would write.
inline constexpr std::string_view json_pos_inf = "\x01roofline:+Infinity";
inline constexpr std::string_view json_neg_inf = "\x01roofline:-Infinity";
inline constexpr std::string_view json_nan = "\x01roofline:NaN";

/// "line L, column C" of byte `offset` (0-based) in `text`.
inline std::string line_column(std::string_view text, std::size_t offset) {
    if (offset > text.size()) offset = text.size();
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

/// The deepest nesting any JSON input of ours needs is under 20 (a Kineto event's args, a GPU
/// file's peaks); 1000 (as the Kineto scanner) leaves room and keeps recursion shallow.
inline constexpr std::size_t max_json_depth = 1000;

/// Throws `parse_error` naming `file` and the line and column where `text` nests objects and
/// arrays deeper than `max_depth` (brackets inside strings do not count).
inline void check_json_nesting(const std::string& file, std::string_view text,
                               std::size_t max_depth = max_json_depth) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth)
                throw parse_error(file, line_column(text, i), "",
                                  "malformed JSON: nests deeper than " + std::to_string(max_depth) +
                                      " levels (no input of this kind needs more)");
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
}

/// Throws `parse_error` when the file at `path` is larger than `max_bytes` (`what` names the
/// kind of file: "a GPU file"). Files that do not exist pass (the reader says so).
inline void check_json_file_size(const std::string& path, const char* what,
                                 std::uintmax_t max_bytes = std::uintmax_t(64) << 20) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    if (!ec && n > max_bytes)
        throw parse_error(path, "", "",
                          std::to_string(n) + " bytes: larger than the " + std::to_string(max_bytes >> 20) +
                              " MiB any " + what + " needs");
}

/// One top-level value of a text: [begin, end) byte range.
struct json_span {
    std::size_t begin = 0, end = 0;
};

/// Cuts `text` into its top-level JSON values (objects, arrays or scalars separated by blanks),
/// tracking strings so that brackets inside them do not count. An unbalanced last value runs to
/// the end of the text (the parser then reports where it ends).
inline std::vector<json_span> split_json_values(std::string_view text) {
    std::vector<json_span> out;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n) {
        while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n' ||
                         text[i] == ','))
            ++i;
        if (i >= n) break;
        const std::size_t begin = i;
        if (text[i] == '{' || text[i] == '[') {
            int depth = 0;
            bool in_string = false;
            for (; i < n; ++i) {
                const char c = text[i];
                if (in_string) {
                    if (c == '\\') ++i;
                    else if (c == '"') in_string = false;
                    continue;
                }
                if (c == '"') in_string = true;
                else if (c == '{' || c == '[') ++depth;
                else if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        ++i;
                        break;
                    }
                }
            }
        } else {
            while (i < n && text[i] != '\n') ++i;
        }
        out.push_back({begin, i});
    }
    return out;
}

/// `text` with `Infinity`, `-Infinity` and `NaN` outside strings replaced by sentinel strings.
/// `shifts` receives (position in the output, cumulative growth) after each replacement, for
/// mapping parser offsets back to the input.
inline std::string replace_nonfinite(std::string_view text,
                                     std::vector<std::pair<std::size_t, std::size_t>>& shifts) {
    std::string out;
    out.reserve(text.size());
    shifts.clear();
    bool in_string = false;
    auto is_ident = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) out += text[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out += c;
            continue;
        }
        const bool boundary = i == 0 || !is_ident(text[i - 1]);
        std::string_view token, sentinel;
        if (boundary && text.substr(i, 9) == "-Infinity") token = "-Infinity", sentinel = json_neg_inf;
        else if (boundary && text.substr(i, 8) == "Infinity") token = "Infinity", sentinel = json_pos_inf;
        else if (boundary && text.substr(i, 3) == "NaN") token = "NaN", sentinel = json_nan;
        if (!token.empty() && (i + token.size() == text.size() || !is_ident(text[i + token.size()]))) {
            out += '"';
            // JSON strings cannot hold a raw control character: write U+0001 as an escape.
            out += "\\u0001";
            out += sentinel.substr(1);
            out += '"';
            i += token.size() - 1;
            const std::size_t growth = (shifts.empty() ? 0 : shifts.back().second) +
                                       (sentinel.size() - 1 + 6 + 2) - token.size();
            shifts.emplace_back(out.size(), growth);
            continue;
        }
        out += c;
    }
    return out;
}

/// A `parse_error` for a nlohmann/json exception other than a syntax error, thrown while
/// parsing `text`: out_of_range 406 "number overflow parsing '1e999'" (a number beyond the range
/// of a double, found by fuzzing; it escaped the readers, which caught only syntax errors). The
/// place is the line and column of the token the message quotes, searched from byte `from`.
inline parse_error json_exception_error(const std::string& file, std::string_view text, const nlohmann::json::exception& e,
                                        std::size_t from = 0) {
    std::string detail = e.what();
    if (const auto k = detail.find("] "); detail.rfind("[json.exception.", 0) == 0 && k != std::string::npos)
        detail = detail.substr(k + 2);
    std::string place;
    const auto open = detail.find('\''), close = detail.rfind('\'');
    if (open != std::string::npos && close > open + 1)
        if (const auto at = text.find(detail.substr(open + 1, close - open - 1), from); at != std::string_view::npos)
            place = line_column(text, at);
    return parse_error(file, place, "", "malformed JSON: " + detail);
}

/// Parses the value in `text[span]` (non-finite literals allowed). Throws `parse_error` naming
/// `file` and the line and column in `text` of a syntax error.
inline nlohmann::json parse_json_span(const std::string& file, std::string_view text, json_span span) {
    std::vector<std::pair<std::size_t, std::size_t>> shifts;
    check_json_nesting(file, text.substr(0, span.end));
    const std::string clean = replace_nonfinite(text.substr(span.begin, span.end - span.begin), shifts);
    try {
        return nlohmann::json::parse(clean);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte: 1-based index of the last character read in `clean`; map it back.
        std::size_t pos = e.byte == 0 ? 0 : e.byte - 1;
        std::size_t growth = 0;
        for (const auto& [at, g] : shifts)
            if (at <= pos) growth = g;
        pos = pos >= growth ? pos - growth : 0;
        std::string detail = e.what();
        if (const auto k = detail.find(": syntax error"); k != std::string::npos) detail = detail.substr(k + 2);
        else if (const auto k2 = detail.rfind("] "); k2 != std::string::npos) detail = detail.substr(k2 + 2);
        throw parse_error(file, line_column(text, span.begin + pos), "", "malformed JSON: " + detail);
    } catch (const nlohmann::json::exception& e) {
        throw json_exception_error(file, text, e, span.begin);
    }
}

/// A JSON number, a non-finite sentinel, or a numeric string ("inf", "12.5") as a double;
/// nullopt for anything else (null, objects, other strings).
inline std::optional<double> json_number(const nlohmann::json& v) {
    if (v.is_number()) return v.get<double>();
    if (!v.is_string()) return std::nullopt;
    const auto& s = v.get_ref<const std::string&>();
    if (s == json_pos_inf) return std::numeric_limits<double>::infinity();
    if (s == json_neg_inf) return -std::numeric_limits<double>::infinity();
    if (s == json_nan) return std::numeric_limits<double>::quiet_NaN();
    return std::nullopt;
}

/// True when `v` is one of the non-finite sentinels.
inline bool json_is_nonfinite_sentinel(const nlohmann::json& v) {
    if (!v.is_string()) return false;
    const auto& s = v.get_ref<const std::string&>();
    return s == json_pos_inf || s == json_neg_inf || s == json_nan;
}

}  // namespace roofline::io::detail
