#pragma once
// Human units at the edge: the one place where SI values become text for people.
//
// Inside the library every quantity is an SI base unit in a `double` (core/units.hpp). Reports
// print them with three significant digits and a decimal prefix, as datasheets do:
//   12.3e-6 s -> "12.3 us"     4.56e-3 s -> "4.56 ms"     1.23e9 B -> "1.23 GB"
//   989e12 FLOP/s -> "989 TFLOP/s"   4.8e12 B/s -> "4.80 TB/s"   0.452 -> "45.2%"
// A value that is not a finite number prints as "n/a", so an unknown never looks like a number.
// Microseconds print as "us" (ASCII), so that tables line up in every terminal.

#include <fmt/format.h>

#include <array>        // std::array
#include <cmath>        // std::isfinite, std::floor, std::log10, std::pow, std::round, std::fabs
#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move

namespace roofline::report {

namespace detail {

/// One decimal (or binary) prefix: multiply the printed number by `scale` to get the value.
struct unit_prefix {
    double scale;
    std::string_view symbol;
};

inline constexpr std::array<unit_prefix, 4> time_prefixes = {
    {{1e-9, "n"}, {1e-6, "u"}, {1e-3, "m"}, {1.0, ""}}};
inline constexpr std::array<unit_prefix, 7> decimal_prefixes = {
    {{1.0, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}, {1e18, "E"}}};
inline constexpr std::array<unit_prefix, 6> binary_prefixes = {{{1.0, ""},
                                                                {1024.0, "Ki"},
                                                                {1048576.0, "Mi"},
                                                                {1073741824.0, "Gi"},
                                                                {1099511627776.0, "Ti"},
                                                                {1125899906842624.0, "Pi"}}};

/// `v` rounded to `significant` significant digits (v > 0, finite).
inline double round_significant(double v, int significant) {
    const int exponent = static_cast<int>(std::floor(std::log10(v)));
    const double step = std::pow(10.0, exponent - significant + 1);
    return std::round(v / step) * step;
}

/// Digits after the decimal point that show `significant` digits of `x` (x >= 0).
inline int decimals_for(double x, int significant) {
    if (x <= 0.0) return 0;
    const int d = significant - 1 - static_cast<int>(std::floor(std::log10(x) + 1e-9));
    return d < 0 ? 0 : d;
}

/// Removes trailing zeros after a decimal point ("1.50" -> "1.5", "2.00" -> "2").
inline std::string trim_zeros(std::string s) {
    if (s.find('.') == std::string::npos) return s;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

template <std::size_t N>
std::string with_prefix(double v, std::string_view unit, const std::array<unit_prefix, N>& prefixes,
                        int significant, bool trim) {
    if (!std::isfinite(v)) return "n/a";
    if (v == 0.0) return fmt::format("0 {}", unit);
    const bool negative = v < 0.0;
    const double a = round_significant(std::fabs(v), significant);
    // The largest prefix that keeps the number at or above 1 (the smallest one otherwise),
    // judged on the value and on its rounding: 999.6e3 rounds up to "1.00 M", and 1024 is
    // "1.00 Ki" although it rounds to 1020 (binary prefixes are not powers of ten).
    std::size_t p = 0;
    for (std::size_t i = 0; i < N; ++i)
        if (a >= prefixes[i].scale * (1.0 - 1e-12) || std::fabs(v) >= prefixes[i].scale) p = i;
    const double x = round_significant(std::fabs(v) / prefixes[p].scale, significant);
    std::string number = fmt::format("{:.{}f}", x, decimals_for(x, significant));
    if (trim) number = trim_zeros(std::move(number));
    return fmt::format("{}{} {}{}", negative ? "-" : "", number, prefixes[p].symbol, unit);
}

}  // namespace detail

/// `v` with `significant` significant digits and the decimal SI prefix that keeps the number in
/// [1, 1000): format_si(4.8e12, "B/s") == "4.80 TB/s". `trim` drops trailing zeros ("1 TB/s"),
/// for axis ticks. "n/a" for NaN and infinities.
inline std::string format_si(double v, std::string_view unit, int significant = 3,
                             bool trim = false) {
    return detail::with_prefix(v, unit, detail::decimal_prefixes, significant, trim);
}

/// A duration in seconds: "850 ns", "12.3 us", "4.56 ms", "1.20 s" (seconds above 1 s: "4520 s").
inline std::string format_seconds(double s) {
    return detail::with_prefix(s, "s", detail::time_prefixes, 3, false);
}

/// A size in bytes with decimal prefixes, as memory capacities and traffic are quoted:
/// 1.23e9 -> "1.23 GB".
inline std::string format_bytes(double bytes) {
    return format_si(bytes, "B");
}

/// A size in bytes with binary prefixes, for what the hardware sizes in powers of two (L2,
/// shared memory): 52428800 -> "50.0 MiB", 232448 -> "227 KiB".
inline std::string format_bytes_binary(double bytes) {
    return detail::with_prefix(bytes, "B", detail::binary_prefixes, 3, false);
}

/// A compute rate: 989e12 -> "989 TFLOP/s", 1.979e15 -> "1.98 PFLOP/s".
inline std::string format_flops_per_s(double flops_per_s) {
    return format_si(flops_per_s, "FLOP/s");
}

/// A bandwidth: 4.8e12 -> "4.80 TB/s", 64e9 -> "64.0 GB/s".
inline std::string format_bytes_per_s(double bytes_per_s) {
    return format_si(bytes_per_s, "B/s");
}

/// A power: 700 -> "700 W", 1200 -> "1.20 kW".
inline std::string format_watts(double w) {
    return format_si(w, "W");
}

/// A clock in whole MHz, as nvidia-smi and datasheets quote SM clocks: 1.41e9 -> "1410 MHz".
inline std::string format_mhz(double hz) {
    if (!std::isfinite(hz)) return "n/a";
    return fmt::format("{:.0f} MHz", hz / 1e6);
}

/// A fraction as a percentage with `decimals` digits after the point: 0.452 -> "45.2%".
inline std::string format_percent(double fraction, int decimals = 1) {
    if (!std::isfinite(fraction)) return "n/a";
    return fmt::format("{:.{}f}%", fraction * 100.0, decimals);
}

/// A plain number with `significant` significant digits and no prefix: 206.04 -> "206",
/// 0.125 -> "0.125", 4.8 -> "4.80". Integers at or above 10^significant print whole
/// (12345.6 -> "12346"), never in exponent notation.
inline std::string format_significant(double v, int significant = 3) {
    if (!std::isfinite(v)) return "n/a";
    if (v == 0.0) return "0";
    const double a = std::fabs(v);
    const double r = a >= std::pow(10.0, significant) ? std::round(a)
                                                      : detail::round_significant(a, significant);
    return fmt::format("{}{:.{}f}", v < 0.0 ? "-" : "", r, detail::decimals_for(r, significant));
}

/// Arithmetic intensity in FLOP per byte: 206.04 -> "206 FLOP/B".
inline std::string format_flop_per_byte(double ai) {
    if (!std::isfinite(ai)) return "n/a";
    return format_significant(ai) + " FLOP/B";
}

/// A count with thousands separators: 3740 -> "3,740", 1234567 -> "1,234,567" (rounded to an
/// integer).
inline std::string format_count(double n) {
    if (!std::isfinite(n)) return "n/a";
    const bool negative = n < 0.0;
    std::string digits = fmt::format("{:.0f}", std::fabs(n));
    std::string out;
    const std::size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
    out.append(digits, 0, first);
    for (std::size_t i = first; i < digits.size(); i += 3) {
        out.push_back(',');
        out.append(digits, i, 3);
    }
    return (negative && out != "0" ? "-" : "") + out;
}

/// Requests in flight: a whole number as `format_count` ("1,024"), a fractional one (a mean
/// concurrency) to three decimals at most, not rounded to a count: 1.5 -> "1.5".
inline std::string format_requests(double n) {
    if (!std::isfinite(n) || n == std::round(n) || std::fabs(n) >= 1e6) return format_count(n);
    std::string s = fmt::format("{:.3f}", n);
    while (s.back() == '0') s.pop_back();
    return s;
}

}  // namespace roofline::report
