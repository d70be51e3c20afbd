#pragma once
// A streaming JSON writer whose text is byte for byte what nlohmann::json::dump(indent) writes
// for the same value, so a large document can be written piece by piece (plan --json's points)
// without building an nlohmann::json per element. Keys are written in the order given: a caller
// that must match nlohmann's output (its objects are std::map, keys sorted) gives them sorted.
// Numbers go through nlohmann's own formatter (nlohmann::detail::to_chars, the Grisu2 shortest
// form that dump uses), so doubles print identically ("1.0", "1e-05", "1.5e+20"); NaN and
// infinities are written as null, as dump does. Strings are escaped as dump does with its
// default ensure_ascii = false: `"` `\\` `\b` `\f` `\n` `\r` `\t`, other bytes below 0x20 as
// `\u00xx` (lower-case hex), everything else verbatim. tests/report/json_writer_test.cpp
// compares the writer with dump on every kind of value.

#include <array>        // std::array
#include <cmath>        // std::isfinite
#include <cstdint>      // std::int64_t
#include <nlohmann/json.hpp>
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace roofline::report {

/// Appends JSON text to a string. `indent` spaces per level (as dump's argument; negative: the
/// compact form, as dump(-1)); `depth`: the nesting level of the first value written (a value
/// that is an element of a top-level array is at depth 1). Misuse (a value without a key inside
/// an object, an unbalanced end) is not checked: the caller writes a fixed shape.
class json_text_writer {
public:
    json_text_writer(std::string& out, int indent, int depth = 0) : out_(out), indent_(indent), depth_(depth) {}

    /// `{`; the members follow as key() + a value.
    void begin_object() { open('{'); }
    /// `}` (on its own line after members, as dump writes it; `{}` when empty).
    void end_object() { close('}'); }
    /// `[`; the elements follow as values.
    void begin_array() { open('['); }
    /// `]`.
    void end_array() { close(']'); }

    /// The next member's key: the separator, the line break and indentation, `"key": `.
    void key(std::string_view k) {
        element_start();
        append_string(k);
        out_ += indent_ >= 0 ? ": " : ":";
        after_key_ = true;
    }

    /// A double: nlohmann's shortest form, null when NaN or infinite.
    void number(double v) {
        element_start();
        if (!std::isfinite(v)) {
            out_ += "null";
            return;
        }
        std::array<char, 64> buf{};
        char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
        out_.append(buf.data(), static_cast<std::size_t>(end - buf.data()));
    }
    /// An integer, in decimal.
    void integer(std::int64_t v) {
        element_start();
        out_ += std::to_string(v);
    }
    /// `true` / `false`.
    void boolean(bool v) {
        element_start();
        out_ += v ? "true" : "false";
    }
    /// A string, escaped as dump escapes it.
    void string(std::string_view s) {
        element_start();
        append_string(s);
    }
    /// `null`.
    void null() {
        element_start();
        out_ += "null";
    }

private:
    void open(char c) {
        element_start();
        out_ += c;
        ++depth_;
        first_.push_back(true);
    }
    void close(char c) {
        const bool empty = first_.back();
        first_.pop_back();
        --depth_;
        if (!empty && indent_ >= 0) {
            out_ += '\n';
            out_.append(static_cast<std::size_t>(indent_ * depth_), ' ');
        }
        out_ += c;
    }
    /// Before a key or a value: nothing right after a key; else the separator and the line
    /// break and indentation of an element of the open container (none at the top level).
    void element_start() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (first_.empty()) return;
        if (!first_.back()) out_ += ',';
        first_.back() = false;
        if (indent_ >= 0) {
            out_ += '\n';
            out_.append(static_cast<std::size_t>(indent_ * depth_), ' ');
        }
    }
    void append_string(std::string_view s) {
        out_ += '"';
        for (unsigned char ch : s) {
            switch (ch) {
                case '"': out_ += "\\\""; break;
                case '\\': out_ += "\\\\"; break;
                case '\b': out_ += "\\b"; break;
                case '\f': out_ += "\\f"; break;
                case '\n': out_ += "\\n"; break;
                case '\r': out_ += "\\r"; break;
                case '\t': out_ += "\\t"; break;
                default:
                    if (ch < 0x20) {
                        static constexpr char hex[] = "0123456789abcdef";
                        out_ += "\\u00";
                        out_ += hex[ch >> 4];
                        out_ += hex[ch & 15];
                    } else {
                        out_ += static_cast<char>(ch);
                    }
            }
        }
        out_ += '"';
    }

    std::string& out_;
    int indent_;
    int depth_;
    bool after_key_ = false;
    std::vector<bool> first_;  ///< per open container: no element written yet
};

}  // namespace roofline::report
