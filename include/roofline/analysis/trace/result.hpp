#pragma once
// The data the trace-analysis stages pass along and return (analysis/trace_analysis.hpp runs
// them): the options, one priced activity, one report row, the step detection, the power picture
// and the whole analysis. Stages fill these; the report layer only reads them.

#include <array>     // std::array
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint8_t
#include <cstdio>    // std::snprintf
#include <string_view>  // std::string_view
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/power_alignment.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_profile.hpp"
#include "roofline/trace/power.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// What `analyze_trace` needs besides the trace.
struct trace_analysis_options {
    std::string gpu_id;                    ///< `--gpu`; empty: resolved from the trace
    const power_log* power = nullptr;      ///< `--power`
    std::optional<double> power_offset_s;  ///< `--power-offset`
    int device = -1;  ///< GPU of the trace to analyse; -1: the one with the most GPU time
    /// `--model`: prices kernels without shapes (CUDA-graph traces) with `batch` per step.
    const model_config* model = nullptr;
    parallel_layout layout;
    std::optional<step_batch> batch;
    /// Steps the trace holds, for `--model`; 0: detected (analysis/trace/steps.hpp).
    double steps = 0;
    verdict_thresholds thresholds;
    kernel_efficiency efficiency;
    /// `--calibration`: an overlay whose measured ceilings replace the achievable ones; one made
    /// on another GPU than the trace's is a `usage_error` naming both (`require_calibration_gpu`).
    const calibration* calibrated = nullptr;
    /// `--ncu`: an Nsight Compute report whose measured FLOP and DRAM bytes replace the modeled
    /// work of the kernels it profiled (matched by name and launch order, where the grids agree).
    const ncu_report* ncu = nullptr;
};

/// The link a priced activity's link bytes cross: each is its own roof.
enum class link_roof : std::uint8_t {
    peer,     ///< GPU to GPU: NVLink, or PCIe peer-to-peer (collectives, peer copies)
    host,     ///< the PCIe host link (host <-> device copies)
    network,  ///< off the node (collectives whose group spans nodes)
};
inline constexpr std::size_t link_roof_count = 3;
/// "NVLink/peer", "PCIe host link", "network".
constexpr std::string_view to_string(link_roof r) {
    switch (r) {
        case link_roof::peer: return "NVLink/peer";
        case link_roof::host: return "PCIe host link";
        case link_roof::network: return "network";
    }
    return "NVLink/peer";
}

/// The modeled work and price of one activity (the recovery stage's output per event). A trace
/// holds one per activity, so it keeps the work and what it needs to price it, not the priced
/// roof times (`event_sol` computes those on demand) nor any string of its own.
struct event_price {
    bool priced = false;
    bool helper = false;  ///< launched by an op whose work another kernel carries
    link_roof link = link_roof::peer;  ///< the roof of the link bytes (`event_sol(...).link_s`)
    int op_work = -1;                  ///< index into the op-work table (shapes, sibling)
    /// Evidence: "shapes", "collective", "bytes", "model", "sibling" (a same-name, same-grid
    /// kernel's shapes), "ncu" (measured by Nsight Compute); a string literal, empty when unpriced.
    std::string_view source;
    workload work;
    double achievable_s = 0;  ///< lower bound at the achievable ceilings, s
    std::optional<double> busbw;
    /// One op or transfer this activity ran, with shapes ("mm [64x4096] x [4096x4096] bf16");
    /// a view into `recovered_work::strings`.
    std::string_view example;
};

/// Latency evidence of a group of kernels.
struct latency_evidence {
    double kernels = 0;
    double median_kernel_s = std::numeric_limits<double>::quiet_NaN();
    /// Share of the group's kernel time in kernels whose grid has fewer blocks than the GPU has
    /// SMs.
    double small_grid_share = std::numeric_limits<double>::quiet_NaN();
    double median_grid_blocks = std::numeric_limits<double>::quiet_NaN();
    /// Share of the kernels launched by a CUDA graph replay (`is_graph_launch_api`).
    double graph_launched_share = std::numeric_limits<double>::quiet_NaN();
    /// Time-weighted Kineto `est. achieved occupancy %` over kernels that report one (> 0).
    double occupancy_pct = std::numeric_limits<double>::quiet_NaN();
};

/// One row of a report: a kernel name, a phase, a step, an op launch group or the window.
struct analysis_row {
    std::string name;
    kernel_phase phase = kernel_phase::other;
    gpu_activity activity = gpu_activity::kernel;
    double count = 0;    ///< activities
    double total_s = 0;  ///< summed durations
    double share = 0;    ///< of the analysed GPU's summed activity time
    double min_s = std::numeric_limits<double>::quiet_NaN(),
           max_s = std::numeric_limits<double>::quiet_NaN();
    double span_s = 0;    ///< steps and windows: first start to last end
    double busy_s = 0;    ///< steps and windows: union of activity
    double priced_s = 0;  ///< time of the activities with modeled work
    /// Phase rows of a window: the wall time the window's split gives them (exposed time for
    /// collectives, a share of the busy time for the others); NaN for other rows.
    double wall_s = std::numeric_limits<double>::quiet_NaN();
    /// Evidence used: "shapes", "collective", "bytes", "model", "sibling", "ncu" (joined by '+').
    std::string pricing;
    workload work;   ///< summed modeled work
    roof_times sol;  ///< summed per-activity roof times at datasheet ceilings
    /// `sol.link_s` split by the link each activity crossed (index by `link_roof`).
    std::array<double, link_roof_count> link_roof_s{};
    double achievable_s = 0;  ///< summed lower bounds at achievable ceilings
    /// Roof time / priced time per roof; `communication` is the most utilised link.
    roof_utilization utilization;
    std::array<double, link_roof_count> link_utilization{};  ///< per link roof
    /// Windows and steps: roof time over the wall-clock span (idle time included).
    std::optional<roof_utilization> span_utilization;
    std::optional<double> compute_at_clock;  ///< compute utilisation at the measured SM clock
    /// The roof the verdict names: "compute", "DRAM", "L2", ..., "NVLink/peer", "PCIe host link",
    /// "network"; empty for power, latency and unknown verdicts.
    std::string roof;
    std::optional<power_evidence> power;
    std::optional<double> energy_j;
    std::optional<verdict> result;  ///< nullopt: no modeled work ("unknown")
    std::string unknown_reason;
    std::vector<std::string> notes;
    latency_evidence latency;
    // communication
    double exposed_s =
        std::numeric_limits<double>::quiet_NaN();  ///< collectives not overlapped by compute
    double overlapped_s = std::numeric_limits<double>::quiet_NaN();
    std::optional<double> busbw_bytes_per_s;  ///< measured, nccl-tests definition
    std::string example;                      ///< one op or collective this row ran, with shapes
    // op launch groups
    std::string input_dims;   ///< `Input Dims` of the launching op (op rows)
    std::string input_types;  ///< `Input type` of the launching op (op rows)

    double mean_s() const {
        return count > 0 ? total_s / count : std::numeric_limits<double>::quiet_NaN();
    }
    /// True when the GPU is unknown (`unknown_gpu_spec`): no ceiling priced, so no utilisation.
    bool no_gpu = false;
    /// True when the row's utilisation of each roof is known: it has modeled work and the GPU
    /// (its ceilings) is known.
    bool roofs_known() const { return priced_s > 0 && !no_gpu; }
    /// "compute", ..., "latency", or "unknown".
    std::string bound_name() const {
        return result ? std::string(to_string(result->what)) : "unknown";
    }
    /// "memory (DRAM)", "communication (PCIe host link)", "latency", "unknown".
    std::string bound_with_roof() const {
        return roof.empty() || roof == bound_name() ? bound_name() : bound_name() + " (" + roof + ")";
    }
};

/// How the steps of a trace were found (analysis/trace/steps.hpp).
struct step_detection {
    /// "ProfilerStep", "CUDA graph launches", "GPU annotations", "repeating kernel sequence",
    /// or "one step" (nothing marked steps: the window is one step).
    std::string source;
    std::size_t count = 1;  ///< steps the window holds (>= 1; `--steps` when given)
    std::string note;       ///< how the source was read, for people
};

/// Power evidence of one GPU of the log over the analysed window.
struct gpu_power {
    int gpu_index = 0;
    std::string gpu_name;
    power_evidence evidence;
    /// At its limit, the cap active and the clock held: this GPU's compute ceiling is derated.
    bool capped = false;
    /// 1 / clock fraction - 1: how much longer compute-bound work takes at its held clock.
    std::optional<double> compute_slowdown;
};

/// The power picture of the analysed GPU (and, from a multi-GPU log, of every GPU).
struct trace_power {
    int gpu_index = 0;
    std::string gpu_name;  ///< as the log names it
    power_alignment alignment;
    std::string source;  ///< "trace window" or "busy period"
    std::string note;    ///< why those samples
    /// A short window's nearest busy period: its distance from the window and the distance
    /// beyond which it is far (analysis/power_alignment.hpp), NaN when none was weighed.
    double busy_gap_s = std::numeric_limits<double>::quiet_NaN(),
           near_s = std::numeric_limits<double>::quiet_NaN();
    bool assumed = false;  ///< a far busy period used: the log next to the window shows its state
    bool refused = false;  ///< a far busy period not used: the window's own samples are
    /// The state compared for a far busy period (power_selection's next_* and period_*).
    std::optional<double> next_clock_fraction, next_cap_fraction, period_clock_fraction, period_cap_fraction;
    double start_log_s = std::numeric_limits<double>::quiet_NaN(),
           end_log_s = std::numeric_limits<double>::quiet_NaN();
    power_evidence evidence;
    std::optional<double> median_sm_clock_hz, max_sm_clock_hz, mean_draw_w;
    std::optional<double> energy_j;            ///< over the trace window
    std::optional<double> energy_per_token_j;  ///< when the tokens are known (`--model` batch)
    std::vector<gpu_power> per_gpu;  ///< every GPU of the log over the same samples' window
    std::vector<std::string> notes;
};

/// The analysis of one trace.
struct trace_analysis {
    std::string file, format;
    trace_summary summary;  ///< every device, as `roofline trace` always printed it
    gpu_resolution gpu;
    std::string gpu_name;
    int device = -1;
    std::vector<int> devices;  ///< devices with activity in the trace
    ceilings datasheet;
    /// The calibration overlay the achievable ceilings came from ("" when none; `--calibration`).
    std::string calibration_source;
    double reference_clock_hz =
        std::numeric_limits<double>::quiet_NaN();  ///< clock the peaks assume
    double window_start_s = 0, window_end_s = 0;
    analysis_row window;                ///< the whole window of the analysed GPU
    std::vector<analysis_row> phases;   ///< longest first
    std::vector<analysis_row> kernels;  ///< by name, longest first
    /// By launching op, its input shapes and types: what a user joins against model code.
    std::vector<analysis_row> ops;
    std::vector<analysis_row> steps;  ///< step windows, in time order
    std::string step_source;          ///< `step_detection.source` where step rows exist, else ""
    step_detection step_info;         ///< how many steps, from what
    std::size_t sibling_priced = 0;   ///< kernels without a launching op priced by a sibling
    std::size_t ncu_matched = 0;      ///< kernels whose work came from the ncu report
    double unlinked_share = 0;  ///< share of GPU time in kernels without op, sibling or model
    /// Kernel time that no source priced, by launching op ("kernel NAME" without one), longest
    /// first: what `priced_share` leaves out. `share`: of the analysed GPU's activity time.
    struct unpriced_kernels {
        std::string name;
        double time_s = 0, share = 0;
    };
    std::vector<unpriced_kernels> unpriced;
    // timeline
    double busy_fraction = 0;
    std::size_t idle_gaps = 0;
    double median_gap_s = std::numeric_limits<double>::quiet_NaN(),
           max_gap_s = std::numeric_limits<double>::quiet_NaN();
    double concurrency = 1;  ///< summed activity time / busy time (1: strictly serial)
    std::size_t streams = 0;
    double communication_s = 0, exposed_communication_s = 0, overlapped_communication_s = 0;
    /// Wall time of the window by what bounds it: index by `bound`, [5] = unknown (no model).
    std::array<double, 6> time_by_bound{};
    double priced_share = 0;  ///< share of GPU activity time with modeled work
    std::optional<trace_power> power;
    double tokens = 0;  ///< tokens processed (from `--model` batch x steps), 0 when unknown
    std::vector<std::string> notes;
    std::vector<std::string> warnings;
};

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::trace_an {

inline std::string pct(double f) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * f);
    return b;
}
inline std::string num(double v, int digits = 0) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}
/// "12.3 us", "4.56 ms", "1.20 s" (the report layer has fmt; this layer keeps to snprintf).
inline std::string dur(double s) {
    if (!std::isfinite(s)) return "n/a";
    if (s >= 1.0) return num(s, 2) + " s";
    if (s >= 1e-3) return num(s * 1e3, s >= 0.1 ? 0 : 2) + " ms";
    return num(s * 1e6, s >= 1e-5 ? 0 : 1) + " us";
}
/// "4 B", "12.3 kB", "268.4 MB", "2.15 GB".
inline std::string mb(double bytes) {
    if (bytes >= 1e9) return num(bytes / 1e9, 2) + " GB";
    if (bytes >= 1e6) return num(bytes / 1e6, 1) + " MB";
    if (bytes >= 1e3) return num(bytes / 1e3, 1) + " kB";
    return num(bytes) + " B";
}
inline void note_once(std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
        if (x == s) return;
    v.push_back(s);
}

}  // namespace detail::trace_an

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
