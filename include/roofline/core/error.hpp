#pragma once
// Errors for bad input, kept apart from programming errors (those are asserts).
//
// Every input error names where it happened so that a user can open the file and look:
//   trace.json: byte 18,422: event 311: "dur" is negative
// `parse_error` carries the pieces separately so that callers (and tests) can inspect them.
// Messages are one line: they quote keys and values from the input, so control characters in
// them are written as escapes ("\n", "\x01").

#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <utility>    // std::move

namespace roofline {

namespace detail {

/// `s` with line breaks and other control characters escaped, so that it prints as one line.
inline std::string one_line(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (u < 0x20 || u == 0x7f) {
            constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace detail

/// Base of every error the library throws for bad input or bad usage. `what()` is one line
/// (control characters escaped).
class error : public std::runtime_error {
public:
    explicit error(const std::string& what) : std::runtime_error(detail::one_line(what)) {}
    explicit error(const char* what) : error(std::string(what)) {}
};

/// Bad usage: an unknown GPU id, dtype or option value. The message names the value and,
/// where it helps, the accepted ones.
class usage_error : public error {
public:
    using error::error;
};

/// A malformed or incomplete input file.
///
/// `file`: path as given by the user (may be empty for in-memory input).
/// `place`: "line 12", "byte 18422", "row 3, column \"Duration (ns)\"", ... (may be empty).
/// `field`: the key or column at fault (may be empty).
/// `what()` joins them: `file: place: field: detail`.
class parse_error : public error {
public:
    parse_error(std::string file, std::string place, std::string field, const std::string& detail)
        : error(compose(file, place, field, detail)),
          file_(std::move(file)),
          place_(std::move(place)),
          field_(std::move(field)) {}

    const std::string& file() const noexcept { return file_; }
    const std::string& place() const noexcept { return place_; }
    const std::string& field() const noexcept { return field_; }

private:
    static std::string compose(const std::string& file, const std::string& place,
                               const std::string& field, const std::string& detail) {
        std::string out;
        auto add = [&out](const std::string& s) {
            if (s.empty()) return;
            if (!out.empty()) out += ": ";
            out += s;
        };
        add(file.empty() ? std::string("<input>") : file);
        add(place);
        if (!field.empty()) add("\"" + field + "\"");
        add(detail);
        return out;
    }

    std::string file_;
    std::string place_;
    std::string field_;
};

}  // namespace roofline
