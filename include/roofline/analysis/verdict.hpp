#pragma once
// Verdicts: from what was measured (time, power, clocks) and what the work was (a workload
// priced against ceilings), say which of compute, memory, power, communication or latency
// bounds a phase, with the numbers behind it.
//
// The rules, in the order they are tried:
//  1. power: the board sits at its enforced limit (median draw >= 90% of it) with a power-cap
//     clock-event reason active in most samples, or that reason is active in nearly all samples
//     (>= 90%: the averaged draw can lag), and the SM clock is held clearly below its maximum,
//     for a phase whose compute roof matters. A memory-bound phase that touches the cap
//     at full clock stays memory-bound (the cap is noted).
//  2. communication: collectives (or link bytes) take the largest share of the critical path.
//  3. compute / memory: the most utilised roof, when it is near its ceiling (>= 60%).
//  4. latency: no roof is near. The reason says what the evidence points at (idle gaps,
//     small grids, polling collectives) where the caller provides it.
// "GPU utilisation 100%" from nvidia-smi means a kernel was resident during the sample period,
// not that the SMs were busy: it is never evidence of saturation here.

#include <algorithm>  // std::max
#include <cmath>      // std::isfinite
#include <cstdio>     // std::snprintf
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/bound.hpp"
#include "roofline/core/roofline.hpp"

namespace roofline {

/// The numbers behind every verdict, in one place.
struct verdict_thresholds {
    /// A roof is "near" from this fraction of its ceiling. Source: Nsight Compute's
    /// SOLBottleneck rule ("achieved compute throughput and/or memory bandwidth below 60.0% of
    /// peak typically indicate latency issues").
    double near_ceiling = 0.60;
    /// Median board draw at or above this fraction of the enforced limit counts as "at the
    /// limit". Ours: the power controller holds draw a few percent around the cap, and
    /// nvidia-smi's power.draw averages over its sample window.
    double at_power_limit = 0.90;
    /// A power-cap clock-event reason (SwPowerCap, HwPowerBrake) must be active in at least this
    /// fraction of the samples. Ours.
    double power_cap_active = 0.50;
    /// A power-cap reason active in at least this fraction of the samples is direct evidence from
    /// the driver that the limit binds, even where the logged draw (nvidia-smi's power.draw is a
    /// 1 s average, so an idle gap inside its window pulls it down) sits below `at_power_limit`.
    /// Ours: the reason is set by the power controller itself.
    double power_cap_sustained = 0.90;
    /// The median SM clock must be at or below this fraction of the maximum to count as "held
    /// below its maximum". Ours: boost clocks wander a few percent without any cap.
    double clock_held_below = 0.90;
    /// Collectives at or above this share of the critical path make a phase
    /// communication-bound. Ours (the largest share of a two-way split).
    double communication_share = 0.50;
    /// Achieved throughput above this multiple of the modeled roof means a wrong input (GPU,
    /// SKU, dtype, count). Ours: 5% for rounding in reported figures.
    double above_roof = 1.05;
};

/// Power and clock evidence over one window (a run, a phase, a kernel).
/// Fractions are in [0, 1]; absent values are nullopt.
struct power_evidence {
    std::optional<double> limit_w;                  ///< enforced power limit in force
    bool limit_from_log = false;                    ///< false: taken from the catalog default
    std::optional<double> median_draw_w;            ///< median board draw
    std::optional<double> fraction_of_limit;        ///< median draw / limit
    std::optional<double> clock_fraction_of_max;    ///< median SM clock / max SM clock
    std::optional<double> power_cap_active_fraction;  ///< samples with a power-cap reason active
    std::optional<double> median_utilization_gpu;  ///< nvidia-smi utilization.gpu (kernel resident)
    std::size_t samples = 0;

    /// Rule 1's three conditions, each unknown when its evidence is absent.
    bool at_limit(const verdict_thresholds& t) const {
        return fraction_of_limit && *fraction_of_limit >= t.at_power_limit;
    }
    bool cap_active(const verdict_thresholds& t) const {
        return power_cap_active_fraction && *power_cap_active_fraction >= t.power_cap_active;
    }
    /// The cap reason active in nearly every sample (`power_cap_sustained`).
    bool cap_sustained(const verdict_thresholds& t) const {
        return power_cap_active_fraction && *power_cap_active_fraction >= t.power_cap_sustained;
    }
    bool clock_held(const verdict_thresholds& t) const {
        return clock_fraction_of_max && *clock_fraction_of_max <= t.clock_held_below;
    }
    /// The note for a cap at the limit whose clock is not held: near its maximum, or not logged.
    std::string cap_without_held_clock_note() const {
        return clock_fraction_of_max ? "the power cap was touched but the SM clock stayed near its maximum"
                                     : "the power cap was active at the limit, but the log has no SM clock (clocks.sm, "
                                       "clocks.max.sm): whether the cap lowered it is unknown, so power is not the verdict";
    }
};

/// A classification with its evidence.
struct verdict {
    bound what = bound::latency;
    std::string reason;               ///< one line, for people
    roof_utilization utilization;     ///< fraction of each ceiling reached
    std::vector<std::string> notes;   ///< secondary observations ("power cap touched at full clock")
};

namespace detail {
inline std::string pct(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * f);
    return buf;
}
}  // namespace detail

/// What the caller knows about a measured phase besides its roof utilisation.
struct phase_evidence {
    roof_utilization utilization;      ///< work / measured time / ceiling, per roof
    /// Share of the phase's critical path spent in exposed (not overlapped) collectives, [0,1];
    /// nullopt when unknown.
    std::optional<double> communication_share;
    std::optional<power_evidence> power;
    /// Utilisation of the compute roof at the clock in force (derated for the measured clock);
    /// equals `utilization.compute` when no clock is known.
    std::optional<double> compute_at_measured_clock;
    /// Hints for a latency verdict, e.g. "GPU busy 23% of the window", "grid 8 blocks on 132 SMs".
    std::vector<std::string> latency_hints;
};

/// Classifies one measured phase by rules 1-4 above.
inline verdict classify(const phase_evidence& e, const verdict_thresholds& t = {}) {
    verdict v;
    v.utilization = e.utilization;
    const auto& u = e.utilization;
    const double compute_now = e.compute_at_measured_clock.value_or(u.compute);
    const bool compute_matters = u.compute >= u.memory || compute_now >= t.near_ceiling;

    if (e.power) {
        const auto& p = *e.power;
        const bool at_limit = p.at_limit(t), cap = p.cap_active(t), held = p.clock_held(t);
        if (((at_limit && cap) || p.cap_sustained(t)) && held && compute_matters) {
            v.what = bound::power;
            // A log without power.draw still shows the cap reason and the clock it left.
            v.reason = (p.fraction_of_limit ? "board at " + detail::pct(*p.fraction_of_limit) + " of its "
                                            : std::string("board draw not logged (no power.draw), ")) +
                       std::to_string(static_cast<int>(p.limit_w.value_or(0))) +
                       " W limit with the power cap active " +
                       detail::pct(*p.power_cap_active_fraction) + " of the time; SM clock held at " +
                       detail::pct(*p.clock_fraction_of_max) + " of max, so the compute ceiling is derated";
            return v;
        }
        if (at_limit && cap && !held)
            v.notes.push_back(p.cap_without_held_clock_note());
        else if (cap && !p.clock_fraction_of_max && !p.fraction_of_limit)
            v.notes.push_back("the power cap reason was active, but the log has neither power.draw nor the SM clock: "
                              "power cannot be the verdict");
    }

    if (e.communication_share && *e.communication_share >= t.communication_share) {
        v.what = bound::communication;
        v.reason = "collectives take " + detail::pct(*e.communication_share) +
                   " of the critical path";
        return v;
    }

    const double top = std::max(compute_now, u.memory);
    if (top >= t.near_ceiling) {
        if (u.memory > compute_now) {
            v.what = bound::memory;
            v.reason = "memory bandwidth at " + detail::pct(u.memory) + " of its ceiling (compute " +
                       detail::pct(compute_now) + ")";
        } else {
            v.what = bound::compute;
            v.reason = "compute at " + detail::pct(compute_now) + " of its ceiling (memory " +
                       detail::pct(u.memory) + ")";
        }
        return v;
    }

    v.what = bound::latency;
    v.reason = "no roof near: compute " + detail::pct(compute_now) + ", memory " + detail::pct(u.memory) +
               ", link " + detail::pct(u.communication) + " of their ceilings";
    for (const auto& h : e.latency_hints) v.reason += "; " + h;
    return v;
}

}  // namespace roofline
