#pragma once
// Units. Everything inside the library is SI base units held in `double`:
// seconds, bytes, FLOP, hertz, watts, joules. Names carry the unit (`time_s`,
// `memory_bandwidth_bytes_per_s`, `power_limit_w`). Human units (GB/s, TFLOP/s, MHz, ms)
// appear only at the edges: parsing input and formatting output, through these helpers.
//
// Decimal prefixes follow the datasheets (1 GB/s = 1e9 B/s, 1 TFLOP/s = 1e12 FLOP/s).
// Binary sizes (KiB, MiB, GiB) are used where the hardware is binary: shared memory, L2,
// nvidia-smi's "MiB".

namespace roofline::units {

inline constexpr double kilo = 1e3;
inline constexpr double mega = 1e6;
inline constexpr double giga = 1e9;
inline constexpr double tera = 1e12;
inline constexpr double peta = 1e15;

inline constexpr double kib = 1024.0;
inline constexpr double mib = 1024.0 * 1024.0;
inline constexpr double gib = 1024.0 * 1024.0 * 1024.0;

inline constexpr double micro = 1e-6;
inline constexpr double milli = 1e-3;
inline constexpr double nano = 1e-9;

/// 1 TFLOP/s in FLOP/s.
constexpr double tflops(double v) { return v * tera; }
/// 1 PFLOP/s in FLOP/s.
constexpr double pflops(double v) { return v * peta; }
/// 1 GB/s (decimal) in B/s.
constexpr double gb_per_s(double v) { return v * giga; }
/// 1 TB/s (decimal) in B/s.
constexpr double tb_per_s(double v) { return v * tera; }
/// 1 MHz in Hz.
constexpr double mhz(double v) { return v * mega; }
/// 1 GB (decimal) in bytes.
constexpr double gb(double v) { return v * giga; }
/// Microseconds to seconds.
constexpr double us(double v) { return v * micro; }
/// Milliseconds to seconds.
constexpr double ms(double v) { return v * milli; }

}  // namespace roofline::units
