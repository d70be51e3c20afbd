#pragma once
// Power and clock samples of a GPU over time, as nvidia-smi (or NVML) reports them.
//
// Two readings here are easy to misread:
// - `utilization_gpu` is the fraction of the sample period during which at least one kernel was
//   resident on the GPU (NVML `utilization.gpu`), not the fraction of SMs busy. A single tiny
//   kernel running back to back shows 100 %.
// - The clock-event reasons ("throttle reasons" before driver R535) say *why* the SM clock is
//   below its maximum. `SwPowerCap` set with the board power near its limit is the mark of a
//   power-bound phase: the compute ceiling in force is derated by sm_clock / max_sm_clock.
//
// Source of the bit values: NVML `nvmlClocksEventReason*` constants (nvml.h), repeated in
// ../shared/FORMATS.md section 6.

#include <cmath>     // std::isnan
#include <cstdint>   // std::uint64_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/core/error.hpp"
#include "roofline/trace/read_stats.hpp"

namespace roofline {

/// NVML clock-event reason bits (`nvmlClocksEventReason*`, nvml.h).
namespace clocks_event_reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
}  // namespace clocks_event_reason

/// One sample of one GPU. Numeric fields are NaN when the log lacks them or says `[N/A]`.
struct power_sample {
    static constexpr double unknown = std::numeric_limits<double>::quiet_NaN();

    /// Local wall-clock time of the sample parsed as if it were UTC, in seconds since 1970
    /// (nvidia-smi prints local time without a zone). NaN when the log has no timestamp.
    double wall_time_s = unknown;
    int gpu_index = 0;                ///< nvidia-smi `index` (0 when the log has none)
    double power_draw_w = unknown;    ///< board power draw, W
    /// Power limit in force, W: `enforced.power.limit` when logged, else `power.limit`.
    double power_limit_w = unknown;
    double sm_clock_hz = unknown;      ///< current SM clock (`clocks.current.sm`), Hz
    double max_sm_clock_hz = unknown;  ///< maximum SM clock (`clocks.max.sm`), Hz
    double mem_clock_hz = unknown;     ///< current memory clock (`clocks.current.memory`), Hz
    /// Fraction (0..1) of the sample period with at least one kernel resident (not SM busy).
    double utilization_gpu = unknown;
    /// Fraction (0..1) of the sample period during which device memory was read or written.
    double utilization_memory = unknown;
    double temperature_c = unknown;  ///< GPU core temperature, degrees Celsius
    /// NVML clock-event reason bitmask (see `clocks_event_reason`): from the hex
    /// `clocks_event_reasons.active` column, or assembled from the per-reason Active/Not Active
    /// columns; nullopt when the log has neither.
    std::optional<std::uint64_t> clocks_event_reasons;

    /// True when the reasons are known and include `bit`.
    bool has_reason(std::uint64_t bit) const {
        return clocks_event_reasons && (*clocks_event_reasons & bit) != 0;
    }
    bool gpu_idle() const { return has_reason(clocks_event_reason::gpu_idle); }
    bool applications_clocks_setting() const {
        return has_reason(clocks_event_reason::applications_clocks_setting);
    }
    /// The driver lowered the clock to keep board power under the limit (a power-bound mark).
    bool sw_power_cap() const { return has_reason(clocks_event_reason::sw_power_cap); }
    bool hw_slowdown() const { return has_reason(clocks_event_reason::hw_slowdown); }
    bool sync_boost() const { return has_reason(clocks_event_reason::sync_boost); }
    bool sw_thermal_slowdown() const { return has_reason(clocks_event_reason::sw_thermal_slowdown); }
    bool hw_thermal_slowdown() const { return has_reason(clocks_event_reason::hw_thermal_slowdown); }
    bool hw_power_brake_slowdown() const {
        return has_reason(clocks_event_reason::hw_power_brake_slowdown);
    }
    bool display_clock_setting() const {
        return has_reason(clocks_event_reason::display_clock_setting);
    }
    /// Board power over its limit (0..1+); NaN when either is unknown.
    double power_fraction() const { return power_draw_w / power_limit_w; }
    /// SM clock over its maximum (0..1); NaN when either is unknown.
    double sm_clock_fraction() const { return sm_clock_hz / max_sm_clock_hz; }
};

/// A power/clock log of one or more GPUs (samples in file order, GPUs interleaved).
struct power_log {
    std::string file;                   ///< path as given
    std::vector<power_sample> samples;  ///< in file order
    /// GPU product names by `gpu_index` (empty string where the log has no `name`).
    std::vector<std::string> gpu_names;
    read_stats stats;

    /// Samples of one GPU, in file order.
    std::vector<power_sample> samples_of(int gpu_index) const {
        std::vector<power_sample> out;
        for (const auto& s : samples)
            if (s.gpu_index == gpu_index) out.push_back(s);
        return out;
    }
};

/// Throws `usage_error` naming `log.file` when no sample holds any power evidence: no power
/// draw, SM clock, clock-event reasons or utilization (a log of timestamps and names only is
/// not a power log; its verdicts would rest on nothing). A log whose rows were all skipped
/// passes: its read counts say why, and the analysis goes on without power.
inline void require_power_evidence(const power_log& log) {
    if (log.samples.empty()) return;  // every row skipped: the reader's counts say why, the analysis degrades
    for (const auto& s : log.samples)
        if (std::isfinite(s.power_draw_w) || std::isfinite(s.sm_clock_hz) || s.clocks_event_reasons ||
            std::isfinite(s.utilization_gpu))
            return;
    throw usage_error(log.file + ": no power evidence in " + std::to_string(log.samples.size()) +
                      " samples: none has power.draw, clocks.sm, clocks_event_reasons or utilization.gpu "
                      "(log them with nvidia-smi --query-gpu=timestamp,index,power.draw,enforced.power.limit,"
                      "clocks.sm,clocks.max.sm,clocks_event_reasons.sw_power_cap,utilization.gpu)");
}

}  // namespace roofline
