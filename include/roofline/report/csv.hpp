#pragma once
// CSV output as RFC 4180 defines it, so that spreadsheets, pandas and csvkit read it back intact:
//  * a field containing a comma, a double quote, CR or LF is enclosed in double quotes, and each
//    double quote inside it is doubled: say "hi", ok -> "say ""hi"", ok";
//  * records end with CRLF (RFC 4180 section 2.1); `csv_writer` can write LF instead;
//  * numbers are written in SI base units with the shortest text that reads back to the same
//    double (fmt's default), never with human prefixes; an unknown (NaN, infinity) is an empty
//    field, which every CSV reader maps to missing.
// Fields with leading or trailing spaces are quoted too: RFC 4180 keeps spaces as part of the
// field, but some readers trim unquoted ones.

#include <fmt/format.h>

#include <cmath>        // std::isfinite
#include <cstdint>      // std::int64_t
#include <ostream>      // std::ostream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_floating_point_v, std::is_integral_v
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"

namespace roofline::report {

/// One CSV field, quoted when RFC 4180 requires it.
std::string csv_field(std::string_view s);

/// A number as a CSV field: the shortest text that reads back to the same double (fmt's `{}`):
/// 4.8e12 -> "4800000000000", 0.125 -> "0.125", 1e-7 -> "1e-07"; empty for NaN and infinities.
std::string csv_number(double v);

/// Writes CSV records to a stream.
class csv_writer {
  public:
    /// `crlf`: end records with "\r\n" (RFC 4180, the default) or with "\n".
    explicit csv_writer(std::ostream& out, bool crlf = true)
        : out_(&out), eol_(crlf ? "\r\n" : "\n") {}

    /// Writes one record of text fields.
    void row(const std::vector<std::string>& fields) {
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i) *out_ << ',';
            *out_ << csv_field(fields[i]);
        }
        *out_ << eol_;
    }

    /// Writes one record from mixed values: strings are quoted as needed, floating-point
    /// numbers go through `csv_number`, integers and bools print as integers.
    template <class... Fields>
    void record(const Fields&... fields) {
        std::vector<std::string> text;
        text.reserve(sizeof...(fields));
        (text.push_back(to_field(fields)), ...);
        row(text);
    }

  private:
    template <class T>
    static std::string to_field(const T& v) {
        if constexpr (std::is_same_v<T, bool>)
            return v ? "1" : "0";
        else if constexpr (std::is_floating_point_v<T>)
            return csv_number(static_cast<double>(v));
        else if constexpr (std::is_integral_v<T>)
            return fmt::format("{}", v);
        else
            return std::string(std::string_view(v));
    }

    std::ostream* out_;
    std::string_view eol_;
};

}  // namespace roofline::report

#if ROOFLINE_BODIES_REPORT

namespace roofline::report {
ROOFLINE_INLINE std::string csv_field(std::string_view s) {
    const bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos ||
                       (!s.empty() && (s.front() == ' ' || s.back() == ' '));
    if (!quote) return std::string(s);
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

ROOFLINE_INLINE std::string csv_number(double v) {
    if (!std::isfinite(v)) return {};
    return fmt::format("{}", v);
}

}  // namespace roofline::report
#endif  // ROOFLINE_BODIES_REPORT
