#pragma once
// Small text helpers shared by the readers: trimming, case-insensitive comparison, strict
// number parsing (the whole field must be a number), thousands separators, civil dates.

#include <charconv>      // std::from_chars
#include <cmath>         // std::isfinite
#include <cstdint>       // std::int64_t
#include <limits>        // std::numeric_limits
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc

namespace roofline::io::detail {

/// The largest rank count a file may name: a sanity bound beyond any cluster, small enough that
/// per-rank tables can be allocated.
inline constexpr int max_ranks = 1 << 20;

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/// `s` without leading and trailing blanks.
inline std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

/// ASCII case-insensitive equality.
inline bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

/// ASCII case-insensitive prefix test.
inline bool istarts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

/// `s` in ASCII lower case.
inline std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = lower(c);
    return out;
}

/// `v` truncated to the integer type `Int` when it is a number within `Int`'s range, else
/// `fallback`. (Converting NaN, an infinity or an out-of-range double to an integer is undefined
/// behaviour; files hold such numbers: "ts": 1e300, "CorrId": "nan".)
template <class Int>
constexpr Int to_int_or(double v, Int fallback) {
    // Bounds in double: min() is a power of two (exact); max() + 1 is one too, and rounding
    // max() up to it (64-bit types) does no harm because the test is strict.
    constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<Int>::max()) + 1.0;
    if (!(v > lo - 1.0 && v < hi)) return fallback;
    return static_cast<Int>(v);
}

/// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above
/// U+10FFFF).
inline bool is_utf8(std::string_view s) {
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) len = 2;
        else if (c == 0xE0) len = 3, lo = 0xA0;
        else if (c >= 0xE1 && c <= 0xEC) len = 3;
        else if (c == 0xED) len = 3, hi = 0x9F;
        else if (c >= 0xEE && c <= 0xEF) len = 3;
        else if (c == 0xF0) len = 4, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3) len = 4;
        else if (c == 0xF4) len = 4, hi = 0x8F;
        else return false;
        if (i + len > n) return false;
        const auto c1 = static_cast<unsigned char>(s[i + 1]);
        if (c1 < lo || c1 > hi) return false;
        for (std::size_t k = 2; k < len; ++k) {
            const auto ck = static_cast<unsigned char>(s[i + k]);
            if (ck < 0x80 || ck > 0xBF) return false;
        }
        i += len;
    }
    return true;
}

/// `s` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD. Text from CSV
/// files (kernel and GPU names) is not validated by any parser, and JSON output must be UTF-8.
inline std::string valid_utf8(std::string_view s) {
    if (is_utf8(s)) return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    std::size_t i = 0;
    while (i < s.size()) {
        // The longest well-formed sequence starting at i (1 to 4 bytes), else one bad byte.
        std::size_t len = 0;
        for (std::size_t k = 1; k <= 4 && i + k <= s.size(); ++k)
            if (is_utf8(s.substr(i, k))) {
                len = k;
                break;
            }
        if (len == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.substr(i, len));
            i += len;
        }
    }
    return out;
}

/// The whole of `s` (trimmed) as a finite or infinite double, or nullopt. Accepts a leading
/// '+', "inf"/"infinity"/"nan" in any case. Does not accept thousands separators.
inline std::optional<double> parse_double(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

/// The whole of `s` as a signed integer, or nullopt.
inline std::optional<std::int64_t> parse_int(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

/// A number written with thousands separators in either convention: "13,485", "1,234.5",
/// "27.595.520" (European grouping), "1.234,5" (European decimal comma), "1 234". A single
/// separator followed by exactly three digits ("1,000" or "1.000") is ambiguous; `comma_groups`
/// says how to read a lone comma (true: thousands, the US/C locale tools default to), and a
/// lone '.' is always a decimal point.
inline std::optional<double> parse_grouped_number(std::string_view s, bool comma_groups = true) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    const std::size_t commas = [&] {
        std::size_t n = 0;
        for (char c : s) n += c == ',';
        return n;
    }();
    const std::size_t dots = [&] {
        std::size_t n = 0;
        for (char c : s) n += c == '.';
        return n;
    }();
    char group = 0, decimal = '.';
    if (commas && dots) {
        // Whichever comes last is the decimal separator.
        if (s.rfind(',') > s.rfind('.')) {
            group = '.';
            decimal = ',';
        } else {
            group = ',';
        }
    } else if (commas > 1) {
        group = ',';
    } else if (dots > 1) {
        group = '.';
        decimal = ',';
    } else if (commas == 1) {
        if (comma_groups) group = ',';
        else decimal = ',';
    }
    std::string clean;
    clean.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == group || c == ' ' || c == '\'') {
            // A group separator must be followed by exactly three digits.
            if (c == group) {
                std::size_t j = i + 1, digits = 0;
                while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j, ++digits;
                if (digits != 3) return std::nullopt;
            }
            continue;
        }
        clean += (c == decimal) ? '.' : c;
    }
    return parse_double(clean);
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// Seconds since 1970 (as if UTC) of "YYYY/MM/DD HH:MM:SS[.fff]" or "YYYY-MM-DD[ T]HH:MM:SS[.fff]";
/// nullopt when `s` is not such a timestamp.
inline std::optional<double> parse_timestamp(std::string_view s) {
    s = trim(s);
    auto num = [&](std::size_t pos, std::size_t len) -> std::optional<int> {
        if (pos + len > s.size()) return std::nullopt;
        int v = 0;
        for (std::size_t i = pos; i < pos + len; ++i) {
            if (s[i] < '0' || s[i] > '9') return std::nullopt;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    if (s.size() < 19) return std::nullopt;
    const char ds = s[4];
    if ((ds != '/' && ds != '-') || s[7] != ds || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
        s[16] != ':')
        return std::nullopt;
    const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
               se = num(17, 2);
    if (!y || !mo || !d || !h || !mi || !se || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
        *mi > 59 || *se > 60)
        return std::nullopt;
    double frac = 0;
    if (s.size() > 19) {
        if (s[19] != '.' && s[19] != ',') return std::nullopt;
        const auto f = parse_double("0." + std::string(s.substr(20)));
        if (!f) return std::nullopt;
        frac = *f;
    }
    const auto days = days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
    return static_cast<double>(days) * 86400.0 + *h * 3600.0 + *mi * 60.0 + *se + frac;
}

}  // namespace roofline::io::detail
