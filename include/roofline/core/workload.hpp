#pragma once
// What one phase must do, independent of the hardware that does it.
//
// A workload counts work per resource: FLOP per rate class (a bf16 GEMM and an fp32 softmax run
// on different units at different rates), bytes per memory level, bytes over the interconnect,
// kernel launches, and latency that no bandwidth hides (the alpha term of a collective). Models
// in `models/` produce workloads; `roofline.hpp` prices them against `ceilings`.

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t
#include <string_view>  // std::string_view
#include <utility>  // std::move

#include "roofline/core/dtype.hpp"

namespace roofline {

/// Memory levels with their own bandwidth roof (the hierarchical roofline of Yang, Kurth and
/// Williams, 2020).
enum class memory_level : std::uint8_t { dram, l2, smem };

inline constexpr std::size_t memory_level_count = 3;

/// "dram", "l2", "smem".
constexpr std::string_view to_string(memory_level m) {
    constexpr std::array<std::string_view, memory_level_count> names = {"dram", "l2", "smem"};
    return names[static_cast<std::size_t>(m)];
}

/// Work of one phase on one GPU. All fields are totals for the phase (not rates).
struct workload {
    std::array<double, peak_key_count> flops{};         ///< FLOP per rate class (`peak_key`)
    std::array<double, memory_level_count> bytes{};     ///< bytes through each memory level
    double link_bytes = 0.0;  ///< bytes this GPU sends over its interconnect (one direction)
    double launches = 0.0;    ///< kernel launches, each paying the launch latency
    double latency_s = 0.0;   ///< latency no bandwidth hides (e.g. collective alpha terms), s

    double& flops_at(peak_key k) { return flops[static_cast<std::size_t>(k)]; }
    double flops_at(peak_key k) const { return flops[static_cast<std::size_t>(k)]; }
    double& bytes_at(memory_level m) { return bytes[static_cast<std::size_t>(m)]; }
    double bytes_at(memory_level m) const { return bytes[static_cast<std::size_t>(m)]; }

    /// DRAM bytes (the classic roofline's denominator).
    double dram_bytes() const { return bytes_at(memory_level::dram); }

    /// Sum of FLOP over all rate classes.
    double total_flops() const {
        double s = 0.0;
        for (double f : flops) s += f;
        return s;
    }

    /// Arithmetic intensity in FLOP/byte at a memory level; 0 when no bytes move there.
    double arithmetic_intensity(memory_level m = memory_level::dram) const {
        const double b = bytes_at(m);
        return b > 0.0 ? total_flops() / b : 0.0;
    }

    workload& operator+=(const workload& o) {
        for (std::size_t i = 0; i < flops.size(); ++i) flops[i] += o.flops[i];
        for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] += o.bytes[i];
        link_bytes += o.link_bytes;
        launches += o.launches;
        latency_s += o.latency_s;
        return *this;
    }
    friend workload operator+(workload a, const workload& b) { return a += b; }

    /// Every count multiplied by `k` (e.g. one layer times the number of layers).
    friend workload operator*(workload a, double k) {
        for (double& f : a.flops) f *= k;
        for (double& b : a.bytes) b *= k;
        a.link_bytes *= k;
        a.launches *= k;
        a.latency_s *= k;
        return a;
    }
    friend workload operator*(double k, workload a) { return std::move(a) * k; }
};

}  // namespace roofline
