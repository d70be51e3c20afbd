#pragma once
// The five answers to "what is holding this back?".

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

namespace roofline {

/// What bounds a phase.
///  * compute: the arithmetic units are the busiest resource and near their ceiling;
///  * memory: bytes through a memory level (DRAM, L2, shared memory) are;
///  * power: the board sits at its power limit and the SM clock is held below its maximum, so
///    the compute ceiling in force is lower than the datasheet's;
///  * communication: bytes or latency over the interconnect (collectives) dominate;
///  * latency: no roof is near; launch overhead, small grids, serialisation or idle time.
enum class bound : std::uint8_t { compute, memory, power, communication, latency };

inline constexpr std::array<bound, 5> all_bounds = {bound::compute, bound::memory, bound::power,
                                                   bound::communication, bound::latency};

/// JSON / CLI name: "compute", "memory", "power", "communication", "latency".
constexpr std::string_view to_string(bound b) {
    constexpr std::array<std::string_view, 5> names = {"compute", "memory", "power",
                                                       "communication", "latency"};
    return names[static_cast<std::size_t>(b)];
}

/// Inverse of `to_string(bound)`; nullopt for anything else.
constexpr std::optional<bound> parse_bound(std::string_view s) {
    for (auto b : all_bounds)
        if (to_string(b) == s) return b;
    return std::nullopt;
}

}  // namespace roofline
