#pragma once
// What bounds a measured trace: every GPU activity priced from what it had to do, grouped by
// kernel name, phase and step, each group classified by the verdict rules with its evidence.
//
// Pipeline (one GPU of the trace; the one with the most GPU time unless told otherwise):
//  1. GPU: `--gpu` or the trace's device properties against the catalog (analysis/gpu_match.hpp).
//  2. Work of each activity, from the best evidence at hand:
//       shapes      the launching op's `Input Dims` (analysis/op_workload.hpp); an op launching
//                   several kernels (split-K GEMM + reduction, grouped-GEMM setup + GEMM) gives
//                   its work to its longest kernel, the others are "helpers" without work;
//       collective  NCCL kernels' collective name, message size, group size and dtype, priced as
//                   link bytes plus latency by models/collective.hpp (ring unless the kernel's
//                   name says TREE);
//       bytes       memcpy and memset sizes (device copies read and write; host copies cross PCIe);
//       model       `--model` and a batch for kernels without shapes (CUDA-graph replays): each
//                   phase's work from models/transformer.hpp, times the number of steps, spread
//                   over the phase's kernels in proportion to their time.
//     Priced at datasheet ceilings, the work gives per-roof times (core/roofline.hpp):
//     utilisation of a roof = roof time / measured time, summed over a group's priced activities.
//  3. Timeline (analysis/intervals.hpp): busy = union of activity; idle gaps between it; exposed
//     communication = collective time minus any compute on other streams.
//  4. Power (analysis/power_alignment.hpp): the log's samples for the window; per phase either
//     the samples weighted by the phase's busy time in each (windows long enough to sample), or
//     the busy-period evidence for the phase that dominates a short window.
//  5. Verdicts (analysis/verdict.hpp `classify`) per kernel name, phase and step; the window's
//     verdict is the bound that accounts for the most wall time, counting idle time as latency
//     and exposed collectives as communication.
//  6. Consistency: a group above a roof (beyond `verdict_thresholds::above_roof`) means a wrong
//     input (GPU or SKU, dtype, shapes), except DRAM bytes of data that fits in L2.
// Nothing here prints; report/trace_report.hpp renders the result.

#include <algorithm>      // std::sort, std::max, std::min
#include <array>          // std::array
#include <cmath>          // std::isfinite, std::isnan
#include <cstdio>         // std::snprintf
#include <limits>         // std::numeric_limits
#include <map>            // std::map
#include <optional>       // std::optional
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move, std::pair
#include <vector>         // std::vector

#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/op_workload.hpp"
#include "roofline/analysis/power_alignment.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/trace/kernel_event.hpp"
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
    /// Steps the trace holds, for `--model`; 0: the ProfilerSteps or annotation windows, else 1.
    double steps = 0;
    verdict_thresholds thresholds;
    kernel_efficiency efficiency;
    /// `--calibration`: an overlay whose measured ceilings replace the achievable ones; one made
    /// on another GPU than the trace's is a `usage_error` naming both (`require_calibration_gpu`).
    const calibration* calibrated = nullptr;
};

/// Latency evidence of a group of kernels.
struct latency_evidence {
    double kernels = 0;
    double median_kernel_s = std::numeric_limits<double>::quiet_NaN();
    /// Share of the group's kernel time in kernels whose grid has fewer blocks than the GPU has
    /// SMs.
    double small_grid_share = std::numeric_limits<double>::quiet_NaN();
    double median_grid_blocks = std::numeric_limits<double>::quiet_NaN();
    /// Time-weighted Kineto `est. achieved occupancy %` over kernels that report one (> 0).
    double occupancy_pct = std::numeric_limits<double>::quiet_NaN();
};

/// One row of a report: a kernel name, a phase, a step or the whole window.
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
    std::string
        pricing;     ///< evidence used: "shapes", "collective", "bytes", "model" (joined by '+')
    workload work;   ///< summed modeled work
    roof_times sol;  ///< summed per-activity roof times at datasheet ceilings
    double achievable_s =
        0;  ///< summed lower bounds at achievable ceilings (models/kernel_time.hpp)
    roof_utilization utilization;            ///< roof time / priced time
    std::optional<double> compute_at_clock;  ///< compute utilisation at the measured SM clock
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

    double mean_s() const {
        return count > 0 ? total_s / count : std::numeric_limits<double>::quiet_NaN();
    }
    /// "compute", ..., "latency", or "unknown".
    std::string bound_name() const {
        return result ? std::string(to_string(result->what)) : "unknown";
    }
};

/// The power picture of the analysed GPU.
struct trace_power {
    int gpu_index = 0;
    std::string gpu_name;  ///< as the log names it
    power_alignment alignment;
    std::string source;  ///< "trace window" or "busy period"
    std::string note;    ///< why those samples
    double start_log_s = std::numeric_limits<double>::quiet_NaN(),
           end_log_s = std::numeric_limits<double>::quiet_NaN();
    power_evidence evidence;
    std::optional<double> median_sm_clock_hz, max_sm_clock_hz, mean_draw_w;
    std::optional<double> energy_j;            ///< over the trace window
    std::optional<double> energy_per_token_j;  ///< when the tokens are known (`--model` batch)
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
    double reference_clock_hz =
        std::numeric_limits<double>::quiet_NaN();  ///< clock the peaks assume
    double window_start_s = 0, window_end_s = 0;
    analysis_row window;                ///< the whole window of the analysed GPU
    std::vector<analysis_row> phases;   ///< longest first
    std::vector<analysis_row> kernels;  ///< by name, longest first
    std::vector<analysis_row> steps;    ///< ProfilerStep or annotation windows, in time order
    std::string step_source;            ///< "ProfilerStep", "GPU annotations", ""
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

/// Weighted median: the value where the cumulative weight reaches half.
inline std::optional<double> weighted_median(std::vector<std::pair<double, double>> vw) {
    std::erase_if(vw, [](const auto& p) { return !std::isfinite(p.first) || !(p.second > 0); });
    if (vw.empty()) return std::nullopt;
    std::sort(vw.begin(), vw.end());
    double total = 0;
    for (const auto& p : vw) total += p.second;
    double acc = 0;
    for (const auto& p : vw) {
        acc += p.second;
        if (acc >= total / 2) return p.first;
    }
    return vw.back().first;
}

/// Power evidence of samples weighted by `w` (the phase's busy share of each sample period).
inline power_evidence weighted_power(const std::vector<power_sample>& s,
                                     const std::vector<double>& w, const gpu_spec* g) {
    power_evidence e;
    std::vector<std::pair<double, double>> draw, limit, clock, util;
    double wr = 0, wc = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!(w[i] > 0)) continue;
        ++e.samples;
        draw.push_back({s[i].power_draw_w, w[i]});
        limit.push_back({s[i].power_limit_w, w[i]});
        if (s[i].max_sm_clock_hz > 0)
            clock.push_back({s[i].sm_clock_hz / s[i].max_sm_clock_hz, w[i]});
        util.push_back({s[i].utilization_gpu, w[i]});
        if (s[i].clocks_event_reasons) {
            wr += w[i];
            if (*s[i].clocks_event_reasons & power_cap_reason_mask) wc += w[i];
        }
    }
    if (e.samples == 0) return e;
    e.median_draw_w = weighted_median(draw);
    e.limit_w = weighted_median(limit);
    e.limit_from_log = e.limit_w.has_value();
    if (!e.limit_w && g && g->power_limit_w.known()) e.limit_w = g->power_limit_w.value;
    if (e.median_draw_w && e.limit_w && *e.limit_w > 0)
        e.fraction_of_limit = *e.median_draw_w / *e.limit_w;
    e.clock_fraction_of_max = weighted_median(clock);
    if (wr > 0) e.power_cap_active_fraction = wc / wr;
    e.median_utilization_gpu = weighted_median(util);
    return e;
}

/// Maps a Kineto/NCCL collective name to the model's op; nullopt for others (send, recv,
/// broadcast).
inline std::optional<collective_op> collective_of(std::string_view name) {
    std::string n;
    for (char c : name)
        if (c != '_') n += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (n.find("allreduce") != std::string::npos) return collective_op::all_reduce;
    if (n.find("allgather") != std::string::npos) return collective_op::all_gather;
    if (n.find("reducescatter") != std::string::npos) return collective_op::reduce_scatter;
    if (n.find("alltoall") != std::string::npos) return collective_op::all_to_all;
    return std::nullopt;
}

inline step_phase step_phase_of(kernel_phase p) {
    switch (p) {
        case kernel_phase::gemm:
            return step_phase::dense_gemm;
        case kernel_phase::moe_gemm:
            return step_phase::moe_gemm;
        case kernel_phase::attention:
            return step_phase::attention;
        case kernel_phase::communication:
            return step_phase::communication;
        case kernel_phase::sampling:
            return step_phase::sampling;
        default:
            return step_phase::norm_elementwise;
    }
}

/// The modeled work and price of one activity.
struct event_price {
    bool priced = false;
    bool helper = false;  ///< launched by an op whose work another kernel carries
    std::string source;   ///< "shapes", "collective", "bytes", "model"
    workload work;
    roof_times sol;
    double achievable_s = 0;
    int op_work = -1;  ///< index into the op-work table (shapes)
    std::optional<double> busbw;
    std::string example;
};

inline void add_roofs(roof_times& acc, const roof_times& t) {
    acc.tensor_s += t.tensor_s;
    acc.vector_s += t.vector_s;
    acc.compute_s += t.compute_s;
    for (std::size_t i = 0; i < memory_level_count; ++i)
        acc.memory_level_s[i] += t.memory_level_s[i];
    acc.memory_s += t.memory_s;
    acc.link_s += t.link_s;
    acc.latency_s += t.latency_s;
    acc.lower_bound_s += t.lower_bound_s;
}

/// Everything the row builders share.
/// True for a copy between host and device, by its name in either tool: Kineto "Memcpy HtoD
/// (Pinned -> Device)", "Memcpy DtoH ..."; nsys "[CUDA memcpy Host-to-Device]",
/// "[CUDA memcpy Device-to-Host]". Priced over PCIe, not DRAM.
inline bool host_copy(std::string_view name) {
    for (std::string_view k : {"HtoD", "DtoH", "Host-to-Device", "Device-to-Host"})
        if (name.find(k) != std::string_view::npos) return true;
    return false;
}

/// True for a copy between GPUs: Kineto "Memcpy PtoP ...", nsys "[CUDA memcpy Peer-to-Peer]".
inline bool peer_copy(std::string_view name) {
    return name.find("PtoP") != std::string_view::npos || name.find("Peer-to-Peer") != std::string_view::npos;
}

struct context {
    const kernel_trace* trace = nullptr;
    const gpu_spec* gpu = nullptr;
    const trace_analysis_options* options = nullptr;
    std::vector<event_price> prices;
    std::vector<op_work> op_works;
    std::vector<std::string> op_names;  ///< launching op of each op-work entry
    double sm_count = 0;
    // power
    bool power_window_mode = false;
    std::vector<power_sample> samples;  ///< selected samples (window mode: the window's)
    double period_s = 0.1;
    double origin_log_s = 0;
    std::optional<power_evidence> steady;  ///< busy-period evidence (steady mode)
    std::optional<double> steady_draw_w;
    std::optional<double> max_clock_hz;  ///< the log's maximum SM clock
};

/// Adds activity `i` to `r`.
inline void add_event(analysis_row& r, const context& c, std::size_t i) {
    const auto& e = c.trace->events[i];
    const auto& p = c.prices[i];
    r.count += 1;
    r.total_s += e.duration_s;
    r.min_s = std::isnan(r.min_s) ? e.duration_s : std::min(r.min_s, e.duration_s);
    r.max_s = std::isnan(r.max_s) ? e.duration_s : std::max(r.max_s, e.duration_s);
    if (p.priced) {
        r.priced_s += e.duration_s;
        r.work += p.work;
        add_roofs(r.sol, p.sol);
        r.achievable_s += p.achievable_s;
        if (r.pricing.find(p.source) == std::string::npos)
            r.pricing += (r.pricing.empty() ? "" : "+") + p.source;
        if (r.example.empty()) r.example = p.example;
    }
}

/// Latency evidence of the kernels `idx` (activity kernel only).
inline latency_evidence latency_of(const context& c, const std::vector<std::size_t>& idx) {
    latency_evidence l;
    std::vector<std::pair<double, double>> durs, grids;
    double t_small = 0, t_known = 0, occ_w = 0, occ_t = 0;
    for (auto i : idx) {
        const auto& e = c.trace->events[i];
        if (e.activity != gpu_activity::kernel) continue;
        l.kernels += 1;
        durs.push_back({e.duration_s, 1.0});
        const double blocks = double(e.grid[0]) * e.grid[1] * e.grid[2];
        if (blocks > 0) {
            t_known += e.duration_s;
            grids.push_back({blocks, e.duration_s});
            if (c.sm_count > 0 && blocks < c.sm_count) t_small += e.duration_s;
        }
        if (std::isfinite(e.occupancy_pct) && e.occupancy_pct > 0) {
            occ_w += e.occupancy_pct * e.duration_s;
            occ_t += e.duration_s;
        }
    }
    if (const auto m = weighted_median(durs)) l.median_kernel_s = *m;
    if (const auto m = weighted_median(grids)) l.median_grid_blocks = *m;
    if (t_known > 0) l.small_grid_share = t_small / t_known;
    if (occ_t > 0) l.occupancy_pct = occ_w / occ_t;
    return l;
}

/// Utilisation, consistency checks and the verdict of a filled row. `comm_share`: the exposed
/// share of the row's critical path (collective rows); `power`: its power evidence.
inline void classify_row(analysis_row& r, const context& c, std::optional<double> comm_share,
                         std::optional<power_evidence> power, std::vector<std::string>* warnings) {
    const auto& th = c.options->thresholds;
    if (!(r.priced_s > 0)) {
        if (r.unknown_reason.empty())
            r.unknown_reason = c.trace->format.rfind("nsys", 0) == 0
                                   ? "no modeled work: nsys records no shapes; pass --model and the batch"
                                   : "no modeled work: no shapes (record_shapes off, or an op the shape "
                                     "table does not price) and no --model";
        return;
    }
    const double t = r.priced_s;
    r.utilization.compute = r.sol.compute_s / t;
    r.utilization.memory = r.sol.memory_s / t;
    for (std::size_t i = 0; i < memory_level_count; ++i)
        r.utilization.memory_level[i] = r.sol.memory_level_s[i] / t;
    r.utilization.communication = r.sol.link_s / t;
    phase_evidence e;
    e.utilization = r.utilization;
    e.communication_share = comm_share;
    if (power && power->samples > 0) {
        e.power = power;
        r.power = power;
    }
    if (r.power && r.power->clock_fraction_of_max && c.max_clock_hz && r.sol.compute_s > 0) {
        // Peaks scale with the SM clock: the ceiling in force is P x clock / reference
        // (core/ceilings.hpp `at_sm_clock`), the reference being the clock the peaks assume.
        const double ref = c.gpu->tensor_clock_hz.value_or(c.gpu->boost_clock_hz.value_or(0));
        const double clock = *r.power->clock_fraction_of_max * *c.max_clock_hz;
        if (ref > 0 && clock > 0) {
            r.compute_at_clock = r.utilization.compute * ref / clock;
            e.compute_at_measured_clock = r.compute_at_clock;
        }
    }
    // Latency hints from the evidence at hand.
    const auto& l = r.latency;
    if (std::isfinite(l.small_grid_share) && l.small_grid_share >= 0.5)
        e.latency_hints.push_back("grids of ~" + num(l.median_grid_blocks) +
                                  (l.median_grid_blocks < 1.5 ? " block on " : " blocks on ") +
                                  num(c.sm_count) + " SMs");
    if (std::isfinite(l.median_kernel_s) &&
        l.median_kernel_s < c.options->efficiency.launch_floor_s)
        e.latency_hints.push_back("kernels of ~" + dur(l.median_kernel_s) + ", shorter than the " +
                                  dur(c.options->efficiency.launch_floor_s) +
                                  " eager launch floor");
    // Tensor-core GEMM and attention kernels run at low occupancy by design (large tiles, one CTA
    // per SM), and NCCL kernels use a few blocks: the estimate is a hint only for the others.
    const bool occupancy_matters =
        r.phase != kernel_phase::gemm && r.phase != kernel_phase::moe_gemm &&
        r.phase != kernel_phase::attention && r.phase != kernel_phase::communication;
    if (occupancy_matters && std::isfinite(l.occupancy_pct) && l.occupancy_pct < 25)
        e.latency_hints.push_back("est. occupancy " + num(l.occupancy_pct) + "%");
    if (r.span_s > 0 && r.busy_s > 0 && r.busy_s / r.span_s < 0.8)
        e.latency_hints.push_back("GPU busy " + pct(r.busy_s / r.span_s) + " of the window");
    r.result = classify(e, th);
    if (r.result->what == bound::power && r.compute_at_clock)
        r.result->reason += " (compute at " + pct(*r.compute_at_clock) +
                            " of the ceiling at that clock, " + pct(r.utilization.compute) +
                            " of the datasheet peak)";
    // A collective row far from its link but exposed is still about communication; one that is
    // overlapped has no critical-path share and reads as latency with that said.
    if (r.phase == kernel_phase::communication && r.result->what == bound::latency &&
        r.utilization.communication >= th.near_ceiling) {
        r.result->what = bound::communication;
        r.result->reason = "link at " + pct(r.utilization.communication) + " of its ceiling";
    }
    // Consistency: achieved above a roof.
    const double comp = r.compute_at_clock.value_or(r.utilization.compute);
    const auto above = [&](double u) { return u > th.above_roof; };
    std::string msg;
    if (above(comp)) msg = "compute at " + pct(comp) + " of its ceiling";
    if (above(r.utilization.memory))
        msg += (msg.empty() ? "" : ", ") + std::string("DRAM at ") + pct(r.utilization.memory) +
               " of its bandwidth";
    if (above(r.utilization.communication))
        msg +=
            (msg.empty() ? "" : ", ") + std::string("link at ") + pct(r.utilization.communication);
    if (!msg.empty()) {
        const double l2 = c.gpu->l2_bytes.value_or(0);
        const bool l2_fit = above(r.utilization.memory) && !above(comp) &&
                            !above(r.utilization.communication) && r.count > 0 && l2 > 0 &&
                            r.sol.memory_s > 0 && r.work.dram_bytes() / r.count < l2;
        if (l2_fit) {
            r.notes.push_back(msg + ": its tensors (" + mb(r.work.dram_bytes() / r.count) +
                              " per call) fit in the " + mb(l2) +
                              " L2, so repeated reads need not reach DRAM");
        } else {
            const std::string w = r.name + ": " + msg +
                                  ": above the roof, so an input is wrong (GPU or SKU: --gpu; "
                                  "dtype; shapes) or the work is less than modeled";
            r.notes.push_back(w);
            if (warnings) note_once(*warnings, w);
        }
    }
}

}  // namespace detail::trace_an

/// Analyses `t` (read with links to ops, e.g. by `read_kineto`) on a GPU of `catalog`.
/// Throws `usage_error` when the GPU cannot be resolved (pass `options.gpu_id`), when the trace
/// has no GPU activity, or when `options.device` has none.
inline trace_analysis analyze_trace(const kernel_trace& t, const gpu_catalog& catalog,
                                    const trace_analysis_options& options = {}) {
    using namespace detail::trace_an;
    trace_analysis a;
    a.file = t.file;
    a.format = t.format;
    a.summary = summarize(t);
    if (t.events.empty()) throw usage_error(t.file + ": the trace has no GPU activity to analyse");

    // ---- which GPU of the trace ----
    std::map<int, double> time_by_device;
    for (const auto& e : t.events) time_by_device[e.device] += e.duration_s;
    for (const auto& [d, s] : time_by_device) a.devices.push_back(d);
    if (options.device >= 0) {
        if (!time_by_device.count(options.device))
            throw usage_error(t.file + ": no GPU activity on device " +
                              std::to_string(options.device));
        a.device = options.device;
    } else {
        double best = -1;
        for (const auto& [d, s] : time_by_device)
            if (s > best) best = s, a.device = d;
    }
    if (a.devices.size() > 1)
        a.notes.push_back("the trace has activity on " + std::to_string(a.devices.size()) +
                          " GPUs; analysing device " + std::to_string(a.device) +
                          " (the busiest; --device picks another)");

    // ---- power log: the GPU index ----
    std::vector<power_sample> gpu_samples;
    std::optional<double> log_limit;
    int log_index = -1;
    if (options.power && !options.power->samples.empty()) {
        std::map<int, std::size_t> per_index;
        for (const auto& s : options.power->samples) ++per_index[s.gpu_index];
        if (per_index.count(a.device))
            log_index = a.device;
        else if (per_index.size() == 1)
            log_index = per_index.begin()->first;
        else
            log_index = per_index.begin()->first;
        gpu_samples = options.power->samples_of(log_index);
        std::sort(gpu_samples.begin(), gpu_samples.end(),
                  [](const power_sample& x, const power_sample& y) {
                      return x.wall_time_s < y.wall_time_s;
                  });
        std::vector<double> lim;
        for (const auto& s : gpu_samples) lim.push_back(s.power_limit_w);
        log_limit = detail::finite_median(lim);
    }

    // ---- GPU resolution ----
    const device_properties* props = nullptr;
    for (const auto& d : t.devices)
        if (d.id == a.device) props = &d;
    if (!props && !t.devices.empty()) props = &t.devices.front();
    a.gpu = resolve_trace_gpu(props, catalog, log_limit, options.gpu_id);
    if (a.gpu.id.empty()) throw usage_error(t.file + ": " + a.gpu.reason);
    const gpu_spec& g = catalog.at(a.gpu.id);
    a.gpu_name = g.name;
    a.datasheet = datasheet_ceilings(g);
    ceilings achievable_c = achievable(a.datasheet, options.efficiency);
    if (options.calibrated) {
        require_calibration_gpu(*options.calibrated, g);  // another GPU's overlay: exit 2, both named
        achievable_c = apply_calibration(achievable_c, *options.calibrated);
    }
    achievable_c.launch_latency_s = 0;  // kernel durations do not include their launch
    a.reference_clock_hz = g.tensor_clock_hz.value_or(
        g.boost_clock_hz.value_or(std::numeric_limits<double>::quiet_NaN()));
    if (a.gpu.ambiguous) a.warnings.push_back("GPU " + a.gpu.reason);

    context c;
    c.trace = &t;
    c.gpu = &g;
    c.options = &options;
    c.sm_count = props && props->num_sms > 0 ? props->num_sms : g.sm_count.value_or(0);
    c.prices.resize(t.events.size());

    // Activities of the analysed GPU.
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].device == a.device) mine.push_back(i);
    std::sort(mine.begin(), mine.end(), [&](std::size_t x, std::size_t y) {
        return t.events[x].start_s < t.events[y].start_s;
    });

    // ---- pricing ----
    const auto price = [&](event_price& p, const workload& w, const std::string& source,
                           const ceilings& sol_c) {
        p.priced = true;
        p.source = source;
        p.work = w;
        p.sol = time_lower_bound(w, sol_c);
        ceilings ach = achievable_c;
        ach.link = sol_c.link;
        ach.link_bytes_per_s = sol_c.link_bytes_per_s;
        p.achievable_s = time_lower_bound(w, ach).lower_bound_s;
    };
    std::optional<link_params> link;
    try {
        link = default_link_params(g, g.default_link());
    } catch (const usage_error&) {
    }
    ceilings pcie_c = a.datasheet;
    pcie_c.link = link_kind::pcie;
    pcie_c.link_bytes_per_s = link_bandwidth_bytes_per_s(g, link_kind::pcie);
    // Ops launching several kernels: the longest kernel carries the work.
    std::unordered_map<std::int32_t, std::vector<std::size_t>> by_op;
    for (auto i : mine) {
        const auto& e = t.events[i];
        if (e.activity == gpu_activity::kernel && e.op >= 0 && e.collective < 0)
            by_op[e.op].push_back(i);
    }
    std::unordered_map<std::int32_t, int> op_work_index;
    std::map<std::string, double> unpriced_op_time;  // op name -> kernel time
    for (auto& [op, idx] : by_op) {
        const auto& o = t.ops[static_cast<std::size_t>(op)];
        auto w = price_op(o, g);
        if (!w) {
            for (auto i : idx) unpriced_op_time[std::string(o.name)] += t.events[i].duration_s;
            continue;
        }
        const std::size_t main =
            *std::max_element(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
                return t.events[x].duration_s < t.events[y].duration_s;
            });
        const int wi = static_cast<int>(c.op_works.size());
        c.op_works.push_back(*w);
        c.op_names.push_back(std::string(o.name));
        op_work_index[op] = wi;
        for (auto i : idx) {
            if (i == main) {
                price(c.prices[i], w->work, "shapes", a.datasheet);
                c.prices[i].op_work = wi;
                c.prices[i].example = w->description;
            } else {
                c.prices[i].helper = true;
                c.prices[i].op_work = wi;
            }
        }
    }
    for (auto i : mine) {
        const auto& e = t.events[i];
        auto& p = c.prices[i];
        if (p.priced || p.helper) continue;
        if (e.collective >= 0 && link) {
            const auto& ci = t.collectives[static_cast<std::size_t>(e.collective)];
            const auto op = collective_of(ci.name);
            int ranks = ci.group_size;
            if (ranks < 1 && t.distributed) ranks = t.distributed->world_size;
            const double in_b = ci.in_msg_bytes(), out_b = ci.out_msg_bytes();
            double bytes = op == collective_op::all_gather ? out_b : in_b;
            if (op && ranks >= 1 && std::isfinite(bytes) && bytes >= 0) {
                const std::string kname(e.name);
                const auto algo =
                    kname.find("TREE") != std::string::npos && *op == collective_op::all_reduce
                        ? collective_algorithm::tree
                        : collective_algorithm::ring;
                const auto cost = collective_time(*op, bytes, ranks, *link, algo);
                price(p, cost.work(), "collective", a.datasheet);
                if (e.duration_s > 0) p.busbw = busbw(*op, ranks, bytes, e.duration_s);
                p.example = std::string(to_string(*op)) + " of " + mb(bytes) + " over " +
                            std::to_string(ranks) + " ranks (" + std::string(to_string(algo)) + ")";
            }
            continue;
        }
        if ((e.activity == gpu_activity::memset || e.activity == gpu_activity::memcpy) &&
            std::isfinite(e.bytes) && e.bytes > 0) {
            workload w;
            w.launches = 1;
            const std::string_view n = e.name;
            if (e.activity == gpu_activity::memset) {
                w.bytes_at(memory_level::dram) = e.bytes;
                price(p, w, "bytes", a.datasheet);
                p.example = "memset of " + mb(e.bytes);
            } else if (host_copy(n)) {
                w.link_bytes = e.bytes;
                if (std::isfinite(pcie_c.link_bytes_per_s)) {
                    price(p, w, "bytes", pcie_c);
                    p.example = "host copy of " + mb(e.bytes) + " over PCIe";
                }
            } else if (peer_copy(n)) {
                w.link_bytes = e.bytes;
                if (link) {
                    price(p, w, "bytes", a.datasheet);
                    p.example = "peer copy of " + mb(e.bytes);
                }
            } else {
                w.bytes_at(memory_level::dram) = 2.0 * e.bytes;  // read and write
                price(p, w, "bytes", a.datasheet);
                p.example = "device copy of " + mb(e.bytes);
            }
        }
    }
    if (!unpriced_op_time.empty()) {
        std::vector<std::pair<double, std::string>> v;
        for (const auto& [n, s] : unpriced_op_time) v.push_back({s, n});
        std::sort(v.rbegin(), v.rend());
        std::string list;
        for (std::size_t k = 0; k < v.size() && k < 5; ++k)
            list += (k ? ", " : "") + v[k].second + " " + dur(v[k].first);
        a.notes.push_back(
            "kernels of ops without a shape model (or without Input Dims) are unpriced: " + list +
            (v.size() > 5 ? ", ..." : ""));
    }

    // ---- steps ----
    struct step_window {
        std::string name;
        double start_s, end_s;
        std::vector<std::size_t> idx;
    };
    std::vector<step_window> steps;
    if (!t.steps.empty()) {
        a.step_source = "ProfilerStep";
        std::map<std::int64_t, std::size_t> slot;
        for (const auto& s : t.steps) {
            slot[s.number] = steps.size();
            steps.push_back({"ProfilerStep#" + std::to_string(s.number), 0, 0, {}});
        }
        for (auto i : mine)
            if (t.events[i].step >= 0 && slot.count(t.events[i].step))
                steps[slot[t.events[i].step]].idx.push_back(i);
    } else {
        std::vector<const annotation*> gpu_ann;
        for (const auto& an : t.annotations)
            if (an.gpu && (an.device == a.device || an.device < 0) &&
                std::string_view(an.name).rfind("nccl:", 0) != 0)
                gpu_ann.push_back(&an);
        std::sort(gpu_ann.begin(), gpu_ann.end(), [](auto* x, auto* y) {
            return x->start_s != y->start_s ? x->start_s < y->start_s
                                            : x->duration_s > y->duration_s;
        });
        double covered_until = -1e300;
        for (auto* an : gpu_ann) {
            if (an->start_s + an->duration_s <= covered_until) continue;  // nested in a kept one
            covered_until = an->start_s + an->duration_s;
            steps.push_back({std::string(an->name), an->start_s, an->start_s + an->duration_s, {}});
        }
        if (!steps.empty()) a.step_source = "GPU annotations";
        for (auto i : mine)
            for (auto& s : steps)
                if (t.events[i].start_s >= s.start_s && t.events[i].start_s < s.end_s) {
                    s.idx.push_back(i);
                    break;
                }
    }
    std::erase_if(steps, [](const step_window& s) { return s.idx.empty(); });

    // ---- model pricing for kernels without shapes ----
    if (options.model && options.batch) {
        step_options so;
        const step_model sm = model_step(*options.model, *options.batch, options.layout, g, so);
        const double n_steps =
            options.steps > 0 ? options.steps : (steps.empty() ? 1.0 : double(steps.size()));
        a.tokens = options.batch->tokens() * n_steps;
        std::array<bool, kernel_phase_count> shape_priced{};
        for (auto i : mine)
            if (c.prices[i].priced && c.prices[i].source == "shapes")
                shape_priced[static_cast<std::size_t>(t.events[i].phase)] = true;
        for (auto sp : all_step_phases) {
            std::vector<std::size_t> idx;
            double time = 0;
            bool shapes_there = false;
            for (auto i : mine) {
                const auto& e = t.events[i];
                if (e.activity != gpu_activity::kernel || step_phase_of(e.phase) != sp) continue;
                if (shape_priced[static_cast<std::size_t>(e.phase)]) shapes_there = true;
                if (c.prices[i].priced || c.prices[i].helper) continue;
                idx.push_back(i);
                time += e.duration_s;
            }
            const workload total = sm.total(sp) * n_steps;
            if (shapes_there || idx.empty() || !(time > 0)) continue;
            for (auto i : idx) {
                const double f = t.events[i].duration_s / time;
                price(c.prices[i], total * f, "model", a.datasheet);
                c.prices[i].example =
                    "--model " + std::string(to_string(sp)) + " x " + num(n_steps) + " steps";
            }
        }
        a.notes.push_back("--model priced kernels without shapes: " + num(n_steps) +
                          " step(s) of " + num(options.batch->tokens()) +
                          " tokens, each phase's work spread over its kernels by time");
        for (const auto& n : sm.notes) a.notes.push_back(n);
    }

    // ---- timeline ----
    std::vector<time_interval> all_iv, comm_iv, compute_iv;
    std::map<std::int64_t, int> streams;
    double activity_s = 0;
    for (auto i : mine) {
        const auto& e = t.events[i];
        const time_interval iv{e.start_s, e.end_s()};
        all_iv.push_back(iv);
        activity_s += e.duration_s;
        ++streams[e.stream];
        (e.phase == kernel_phase::communication ? comm_iv : compute_iv).push_back(iv);
    }
    const interval_set busy = merge_intervals(all_iv), comm = merge_intervals(comm_iv),
                       compute = merge_intervals(compute_iv);
    a.window_start_s = busy.front().start_s;
    a.window_end_s = busy.back().end_s;
    const double span = a.window_end_s - a.window_start_s;
    const double busy_s = total_length_s(busy);
    a.busy_fraction = span > 0 ? busy_s / span : 1.0;
    const auto gaps = gaps_s(busy);
    a.idle_gaps = gaps.size();
    if (!gaps.empty()) {
        auto g2 = gaps;
        std::sort(g2.begin(), g2.end());
        a.median_gap_s = g2[g2.size() / 2];
        a.max_gap_s = g2.back();
    }
    a.concurrency = busy_s > 0 ? activity_s / busy_s : 1.0;
    a.streams = streams.size();
    a.communication_s = total_length_s(comm);
    a.exposed_communication_s = total_length_s(subtract(comm, compute));
    a.overlapped_communication_s = a.communication_s - a.exposed_communication_s;

    // ---- power ----
    if (options.power) {
        trace_power pw;
        pw.gpu_index = log_index;
        if (log_index >= 0 && static_cast<std::size_t>(log_index) < options.power->gpu_names.size())
            pw.gpu_name = options.power->gpu_names[static_cast<std::size_t>(log_index)];
        if (log_index == a.device)
            pw.notes.push_back("log GPU index " + std::to_string(log_index) +
                               " taken as the trace's CUDA device " + std::to_string(a.device) +
                               " (true unless CUDA_VISIBLE_DEVICES reorders them)");
        else if (log_index >= 0)
            pw.notes.push_back("the log has no GPU index " + std::to_string(a.device) +
                               ": using index " + std::to_string(log_index));
        if (props && !pw.gpu_name.empty() &&
            detail::gpu_match::squash(pw.gpu_name) != detail::gpu_match::squash(props->name))
            a.warnings.push_back("the power log's GPU " + std::to_string(log_index) + " is \"" +
                                 pw.gpu_name + "\" but the trace ran on \"" + props->name + "\"");
        pw.alignment = align_power(gpu_samples, trace_epoch_s(t), a.window_start_s, a.window_end_s,
                                   options.power_offset_s, a.busy_fraction);
        for (const auto& w : pw.alignment.warnings)
            (pw.alignment.ok ? pw.notes : a.warnings).push_back(w);
        const auto sel =
            select_power_samples(gpu_samples, pw.alignment, a.window_start_s, a.window_end_s);
        pw.source = sel.source;
        pw.note = sel.note;
        pw.start_log_s = sel.start_log_s;
        pw.end_log_s = sel.end_log_s;
        if (!sel.samples.empty()) {
            pw.evidence = summarize_power(sel.samples, &g);
            std::vector<double> clk, mx, draw;
            for (const auto& s : sel.samples) {
                clk.push_back(s.sm_clock_hz);
                mx.push_back(s.max_sm_clock_hz);
                draw.push_back(s.power_draw_w);
            }
            pw.median_sm_clock_hz = detail::finite_median(clk);
            pw.max_sm_clock_hz = detail::finite_median(mx);
            double sum = 0, n = 0;
            for (double d : draw)
                if (std::isfinite(d)) sum += d, n += 1;
            if (n > 0) pw.mean_draw_w = sum / n;
            if (pw.mean_draw_w) pw.energy_j = *pw.mean_draw_w * span;
            if (pw.energy_j && a.tokens > 0) pw.energy_per_token_j = *pw.energy_j / a.tokens;
            c.samples = sel.samples;
            c.period_s = sel.period_s;
            c.origin_log_s = pw.alignment.origin_log_s;
            c.power_window_mode = sel.source == "trace window";
            if (!c.power_window_mode) {
                c.steady = pw.evidence;
                c.steady_draw_w = pw.mean_draw_w;
            }
            c.max_clock_hz = pw.max_sm_clock_hz;
            const auto& ev = pw.evidence;
            if (!ev.limit_from_log && ev.limit_w)
                pw.notes.push_back("the log has no power limit: " + g.id + "'s default " +
                                   num(*ev.limit_w) + " W assumed");
        }
        a.power = std::move(pw);
    }

    {
        std::size_t unlinked = 0;
        double unlinked_s = 0, all_s = 0;
        for (auto i : mine) {
            const auto& e = t.events[i];
            all_s += e.duration_s;
            if (e.activity == gpu_activity::kernel && e.op < 0 && !c.prices[i].priced)
                ++unlinked, unlinked_s += e.duration_s;
        }
        if (unlinked > 0)
            a.notes.push_back(
                std::to_string(unlinked) + " kernel(s) (" +
                pct(all_s > 0 ? unlinked_s / all_s : 0) +
                " of the GPU time) have no launching op in the trace (launched before the profiler "
                "recorded ops, or replayed from a CUDA graph): no shapes price them");
    }

    // ---- rows ----
    double gpu_time = 0;
    for (auto i : mine) gpu_time += t.events[i].duration_s;
    double priced_time = 0;
    for (auto i : mine) priced_time += c.prices[i].priced ? t.events[i].duration_s : 0.0;
    a.priced_share = gpu_time > 0 ? priced_time / gpu_time : 0;

    // Per-phase power evidence: samples weighted by the phase's busy time in each sample period
    // (window mode), or the busy-period evidence for the dominant phase (steady mode).
    const auto phase_power = [&](const std::vector<std::size_t>& idx, double share_of_busy,
                                 analysis_row& r) -> std::optional<power_evidence> {
        if (c.samples.empty()) return std::nullopt;
        if (!c.power_window_mode) {
            if (c.steady_draw_w) r.energy_j = *c.steady_draw_w * r.total_s;
            if (share_of_busy >= 0.5) return c.steady;
            return std::nullopt;
        }
        std::vector<time_interval> iv;
        for (auto i : idx) iv.push_back({t.events[i].start_s, t.events[i].end_s()});
        const auto set = merge_intervals(iv);
        std::vector<double> w(c.samples.size());
        double energy = 0;
        for (std::size_t k = 0; k < c.samples.size(); ++k) {
            const double b = c.samples[k].wall_time_s - c.origin_log_s;
            const double in = length_within_s(set, b - c.period_s, b);
            w[k] = in / c.period_s;
            if (std::isfinite(c.samples[k].power_draw_w)) energy += c.samples[k].power_draw_w * in;
        }
        r.energy_j = energy;
        auto e = weighted_power(c.samples, w, &g);
        if (e.samples == 0) return std::nullopt;
        return e;
    };

    // Builds phase rows of a set of activities and returns the window verdict and time by bound.
    const auto analyze_window = [&](const std::vector<std::size_t>& idx, analysis_row& win,
                                    std::vector<analysis_row>* phase_rows_out,
                                    std::array<double, 6>* by_bound_out,
                                    std::vector<std::string>* warnings) {
        std::vector<time_interval> iv, civ, kiv;
        double act = 0;
        for (auto i : idx) {
            const auto& e = t.events[i];
            iv.push_back({e.start_s, e.end_s()});
            (e.phase == kernel_phase::communication ? civ : kiv).push_back({e.start_s, e.end_s()});
            act += e.duration_s;
            add_event(win, c, i);
        }
        const auto b = merge_intervals(iv);
        const auto cm = merge_intervals(civ), cp = merge_intervals(kiv);
        win.span_s = b.empty() ? 0 : b.back().end_s - b.front().start_s;
        win.busy_s = total_length_s(b);
        win.latency = latency_of(c, idx);
        const double exposed = total_length_s(subtract(cm, cp));
        // Serialisation: kernels that never overlap (summed time = busy time).
        std::map<std::int64_t, int> win_streams;
        for (auto i : idx) ++win_streams[t.events[i].stream];
        const bool serial = win.busy_s > 0 && act / win.busy_s < 1.05;
        const std::string serial_hint =
            serial ? "; kernels ran one at a time on " + std::to_string(win_streams.size()) +
                         (win_streams.size() == 1 ? " stream" : " streams") + " (no overlap)"
                   : std::string();
        // Phase rows.
        std::map<kernel_phase, std::vector<std::size_t>> by_phase;
        for (auto i : idx) by_phase[t.events[i].phase].push_back(i);
        std::vector<analysis_row> rows;
        for (auto& [ph, pidx] : by_phase) {
            analysis_row r;
            r.name = std::string(to_string(ph));
            r.phase = ph;
            for (auto i : pidx) add_event(r, c, i);
            r.share = act > 0 ? r.total_s / act : 0;
            r.latency = latency_of(c, pidx);
            std::optional<double> comm_share;
            if (ph == kernel_phase::communication) {
                std::vector<time_interval> piv;
                for (auto i : pidx) piv.push_back({t.events[i].start_s, t.events[i].end_s()});
                const auto ps = merge_intervals(piv);
                r.exposed_s = total_length_s(subtract(ps, cp));
                r.overlapped_s = total_length_s(ps) - r.exposed_s;
                comm_share = win.span_s > 0 ? r.exposed_s / win.span_s : 0.0;
                if (r.overlapped_s > 0.5 * total_length_s(ps))
                    r.notes.push_back("collectives overlapped by compute on other streams " +
                                      pct(r.overlapped_s / total_length_s(ps)) +
                                      " of their time: mostly off the critical path");
                double bw_t = 0, bw_s = 0;
                for (auto i : pidx)
                    if (c.prices[i].busbw)
                        bw_t += t.events[i].duration_s,
                            bw_s += *c.prices[i].busbw * t.events[i].duration_s;
                if (bw_t > 0) r.busbw_bytes_per_s = bw_s / bw_t;
            }
            const auto pe = phase_power(pidx, act > 0 ? r.total_s / act : 0, r);
            classify_row(r, c, comm_share, pe, warnings);
            rows.push_back(std::move(r));
        }
        std::sort(rows.begin(), rows.end(), [](const analysis_row& x, const analysis_row& y) {
            return x.total_s > y.total_s;
        });
        // Wall time by bound: idle -> latency, exposed collectives -> communication, the rest of
        // the busy time split over the other phases by their activity time.
        std::array<double, 6> by{};
        const double idle = std::max(0.0, win.span_s - win.busy_s);
        by[static_cast<std::size_t>(bound::latency)] += idle;
        double non_comm = 0;
        for (const auto& r : rows)
            if (r.phase != kernel_phase::communication) non_comm += r.total_s;
        const double rest = std::max(0.0, win.busy_s - exposed);
        for (const auto& r : rows) {
            const std::size_t k = r.result ? static_cast<std::size_t>(r.result->what) : 5;
            if (r.phase == kernel_phase::communication) {
                by[r.result && r.result->what != bound::communication
                       ? k
                       : static_cast<std::size_t>(bound::communication)] += exposed;
            } else if (non_comm > 0) {
                by[k] += rest * r.total_s / non_comm;
            }
        }
        // The window's own utilisation: roof times of its modeled work over its wall time.
        if (win.span_s > 0) {
            win.utilization.compute = win.sol.compute_s / win.span_s;
            win.utilization.memory = win.sol.memory_s / win.span_s;
            for (std::size_t i = 0; i < memory_level_count; ++i)
                win.utilization.memory_level[i] = win.sol.memory_level_s[i] / win.span_s;
            win.utilization.communication = win.sol.link_s / win.span_s;
        }
        // Verdict: the bound that accounts for the most wall time (unknown only if nothing is
        // known).
        std::size_t best = 5;
        for (std::size_t k = 0; k < 5; ++k)
            if (by[k] > 0 && (best == 5 || by[k] > by[best])) best = k;
        const double total = win.span_s > 0 ? win.span_s : 1.0;
        if (best != 5 && by[5] > by[best] && by[best] / total < 0.25) best = 5;
        if (best == 5) {
            win.unknown_reason = pct(by[5] / total) +
                                 " of the window has no modeled work: record the trace with "
                                 "record_shapes=True or pass --model";
        } else {
            verdict v;
            v.what = static_cast<bound>(best);
            v.utilization = win.utilization;
            const std::string share = pct(by[best] / total);
            // Contributors to the winning bound: phases with that verdict by their wall time.
            const double rest_total = non_comm;
            std::vector<std::pair<double, const analysis_row*>> parts;
            for (const auto& r : rows)
                if (r.result && static_cast<std::size_t>(r.result->what) == best &&
                    r.phase != kernel_phase::communication && rest_total > 0)
                    parts.push_back({rest * r.total_s / rest_total, &r});
            std::sort(parts.begin(), parts.end(),
                      [](const auto& x, const auto& y) { return x.first > y.first; });
            const analysis_row* lead = parts.empty() ? nullptr : parts.front().second;
            const auto brief = [](const analysis_row& r) {  // "(memory 40%)": its most used roof
                const bool mem = r.utilization.memory >= r.utilization.compute;
                return std::string(mem ? "(memory " : "(compute ") +
                       pct(mem ? r.utilization.memory : r.utilization.compute) + ")";
            };
            std::string list;
            if (v.what == bound::latency && idle > 0) list = "idle " + pct(idle / total);
            for (std::size_t k = 0; k < parts.size() && k < 4; ++k) {
                if (parts[k].first / total < 0.01) break;
                list += (list.empty() ? "" : ", ") + parts[k].second->name + " " +
                        pct(parts[k].first / total);
                if (v.what == bound::latency) list += " " + brief(*parts[k].second);
            }
            if (v.what == bound::latency && idle >= by[best] * 0.5) {
                v.reason =
                    "the GPU is idle " + pct(idle / total) + " of the window (busy " +
                    pct(win.busy_s / total) +
                    "): the host does not keep it fed (launch overhead, Python, synchronisation)" +
                    serial_hint;
                if (lead) v.reason += "; the kernels themselves: " + lead->result->reason;
            } else if (v.what == bound::latency) {
                v.reason = "no roof is near for " + share + " of the window (" + list +
                           "): kernels well below their ceilings";
                if (win.busy_s / total >= 0.8)
                    v.reason += ", and the GPU is busy " + pct(win.busy_s / total) +
                                " of the time, so this is kernel efficiency or small work per "
                                "kernel, not launch gaps";
                v.reason += serial_hint;
            } else if (v.what == bound::communication) {
                v.reason = "exposed collectives take " + pct(exposed / total) + " of the window";
                const analysis_row* c_row = nullptr;
                for (const auto& r : rows)
                    if (r.phase == kernel_phase::communication) c_row = &r;
                if (c_row && c_row->result) {
                    if (c_row->busbw_bytes_per_s)
                        v.reason += " (busbw " + num(*c_row->busbw_bytes_per_s / 1e9) +
                                    " GB/s, link at " + pct(c_row->utilization.communication) +
                                    " of its ceiling)";
                    else
                        v.reason += " (" + c_row->result->reason + ")";
                }
            } else if (lead && parts.front().first >= 0.75 * by[best]) {
                v.reason = lead->name + " (" + pct(parts.front().first / total) +
                           " of the window) is " + std::string(to_string(v.what)) +
                           "-bound: " + lead->result->reason;
            } else if (lead) {
                v.reason = std::string(to_string(v.what)) + "-bound phases take " + share +
                           " of the window (" + list + "); largest: " + lead->name + ": " +
                           lead->result->reason;
            } else {
                v.reason = share + " of the window";
            }
            win.result = v;
        }
        if (phase_rows_out) *phase_rows_out = std::move(rows);
        if (by_bound_out) *by_bound_out = by;
    };

    a.window.name = "window";
    analyze_window(mine, a.window, &a.phases, &a.time_by_bound, &a.warnings);
    a.window.share = 1.0;
    if (a.power && a.window.result) {
        const auto& ev = a.power->evidence;
        if (ev.median_utilization_gpu && *ev.median_utilization_gpu >= 0.9 &&
            ev.fraction_of_limit && *ev.fraction_of_limit < 0.7 &&
            a.window.result->what == bound::communication)
            a.window.result->notes.push_back(
                "nvidia-smi utilization.gpu " + pct(*ev.median_utilization_gpu) + " at " +
                pct(*ev.fraction_of_limit) +
                " of the power limit: collective kernels resident and polling, not computing");
        a.window.power = ev;
        a.window.energy_j = a.power->energy_j;
    }
    // Collect phase notes on the window verdict (the cap touched, ...).
    for (const auto& r : a.phases)
        if (r.result && a.window.result && r.result->what == a.window.result->what)
            for (const auto& n : r.result->notes)
                note_once(a.window.result->notes, r.name + ": " + n);

    // Kernel-name rows.
    {
        std::map<std::string_view, std::vector<std::size_t>> by_name;
        for (auto i : mine) by_name[t.events[i].name].push_back(i);
        for (auto& [name, idx] : by_name) {
            analysis_row r;
            r.name = std::string(name);
            r.phase = t.events[idx.front()].phase;
            r.activity = t.events[idx.front()].activity;
            for (auto i : idx) add_event(r, c, i);
            r.share = gpu_time > 0 ? r.total_s / gpu_time : 0;
            r.latency = latency_of(c, idx);
            std::size_t helpers = 0;
            int helper_of = -1;
            for (auto i : idx)
                if (c.prices[i].helper) ++helpers, helper_of = c.prices[i].op_work;
            if (helpers > 0 && r.priced_s == 0)
                r.unknown_reason =
                    "launched by " + c.op_names[static_cast<std::size_t>(helper_of)] +
                    " with a longer kernel that carries the op's work (" +
                    c.op_works[static_cast<std::size_t>(helper_of)].description + ")";
            std::optional<double> comm_share;
            if (r.phase == kernel_phase::communication) {
                std::vector<time_interval> piv;
                for (auto i : idx) piv.push_back({t.events[i].start_s, t.events[i].end_s()});
                const auto ps = merge_intervals(piv);
                r.exposed_s = total_length_s(subtract(ps, compute));
                r.overlapped_s = total_length_s(ps) - r.exposed_s;
                comm_share = span > 0 ? r.exposed_s / span : 0.0;
                double bw_t = 0, bw_s = 0;
                for (auto i : idx)
                    if (c.prices[i].busbw)
                        bw_t += t.events[i].duration_s,
                            bw_s += *c.prices[i].busbw * t.events[i].duration_s;
                if (bw_t > 0) r.busbw_bytes_per_s = bw_s / bw_t;
            }
            for (auto i : idx) {
                const int wi = c.prices[i].op_work;
                if (wi >= 0)
                    for (const auto& n : c.op_works[static_cast<std::size_t>(wi)].assumptions)
                        note_once(r.notes, n);
            }
            const auto pe = phase_power(idx, gpu_time > 0 ? r.total_s / gpu_time : 0, r);
            classify_row(r, c, comm_share, pe, nullptr);
            a.kernels.push_back(std::move(r));
        }
        std::sort(a.kernels.begin(), a.kernels.end(),
                  [](const analysis_row& x, const analysis_row& y) {
                      return x.total_s != y.total_s ? x.total_s > y.total_s : x.name < y.name;
                  });
    }

    // Step rows.
    for (auto& s : steps) {
        analysis_row r;
        r.name = s.name;
        analyze_window(s.idx, r, nullptr, nullptr, nullptr);
        r.share = gpu_time > 0 ? r.total_s / gpu_time : 0;
        a.steps.push_back(std::move(r));
    }

    // Notes.
    if (a.priced_share < 0.5)
        a.notes.push_back(
            "only " + pct(a.priced_share) + " of the GPU time has modeled work" +
            (t.format.rfind("nsys", 0) == 0 ? ": nsys records no shapes; pass --model and the batch"
             : t.ops.empty()
                 ? ": the trace links no kernels to ops (record_shapes off, or a CUDA-graph "
                   "replay); pass --model and the batch"
                 : ""));
    if (a.power) {
        auto& pw = *a.power;
        if (!pw.note.empty()) note_once(pw.notes, pw.note);
    }
    return a;
}

}  // namespace roofline
