#pragma once
// Stage 1 of the trace analysis: which GPU of the trace, which catalog entry it is, and the
// ceilings every later stage prices against. Nothing is priced or grouped here.

#include <algorithm>  // std::sort
#include <functional>  // std::function
#include <cstddef>    // std::size_t
#include <limits>     // std::numeric_limits
#include <map>        // std::map
#include <memory>     // std::shared_ptr
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/kernel_time.hpp"

namespace roofline {

/// What the stages after GPU selection share: the trace, the analysed device's activities in
/// time order, the GPU entry and its ceilings.
struct trace_gpu_context {
    const kernel_trace* trace = nullptr;
    const trace_analysis_options* options = nullptr;
    const gpu_spec* gpu = nullptr;
    /// Owns the entry when the GPU is unknown (`unknown_gpu_spec`: no roof priced); `gpu` points
    /// into it. Shared, so copies of the context stay valid.
    std::shared_ptr<const gpu_spec> owned_gpu;
    const device_properties* props = nullptr;  ///< the device's properties, if the trace has them
    int device = -1;
    std::vector<int> devices;       ///< devices with activity
    std::vector<std::size_t> mine;  ///< indices of the analysed device's events, by start time
    double sm_count = 0;
    ceilings datasheet;               ///< over the GPU's default link
    ceilings achievable;              ///< efficiency-derated (or calibrated), no launch latency
    ceilings pcie;                    ///< datasheet, link = the PCIe host link
    std::optional<link_params> link;  ///< the default link's collective model, if known
    int power_log_index = -1;         ///< the power log's GPU taken as this device (-1: no log)
};

/// The power log's GPU index taken as trace device `device`: the same index when the log has
/// it, else the log's first GPU; -1 without a log.
int power_log_index(const power_log* log, int device);

/// Picks the device (`options.device`, else the busiest), resolves its GPU and prices the
/// ceilings. Adds to `a`: device, devices, gpu, gpu_name, datasheet, reference clock, notes and
/// warnings. A GPU that cannot be resolved is analysed as `unknown_gpu_spec` (no roof priced; a
/// warning names --gpu); kernel names may give the architecture when the trace has no device
/// properties. Throws `usage_error` for a trace without activity, a device without activity, or
/// an AMD GPU (not in the catalog).
trace_gpu_context select_trace_gpu(const kernel_trace& t, const gpu_catalog& catalog,
                                   const trace_analysis_options& options,
                                   trace_analysis& a);

/// `select_trace_gpu` for a trace read as a stream (analysis/trace_stream.hpp), whose events are
/// not in `t`: the device from `time_by_device` (summed activity time per device, in file
/// order), the architecture from `by_kernel_names` when the trace has no device properties.
/// `c.mine` stays empty. Throws as `select_trace_gpu`.
trace_gpu_context select_trace_gpu_from(const kernel_trace& t, const std::map<int, double>& time_by_device,
                                        const std::function<gpu_resolution()>& by_kernel_names,
                                        const gpu_catalog& catalog, const trace_analysis_options& options,
                                        trace_analysis& a);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE int power_log_index(const power_log* log, int device) {
    if (!log || log->samples.empty()) return -1;
    std::map<int, std::size_t> per_index;
    for (const auto& s : log->samples) ++per_index[s.gpu_index];
    return per_index.count(device) ? device : per_index.begin()->first;
}

ROOFLINE_INLINE trace_gpu_context select_trace_gpu(const kernel_trace& t, const gpu_catalog& catalog,
                                                   const trace_analysis_options& options,
                                                   trace_analysis& a) {
    std::map<int, double> time_by_device;
    for (const auto& e : t.events) time_by_device[e.device] += e.duration_s;
    trace_gpu_context c = select_trace_gpu_from(
        t, time_by_device, [&] { return resolve_by_kernel_names(t, catalog); }, catalog, options, a);
    for (std::size_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].device == c.device) c.mine.push_back(i);
    std::sort(c.mine.begin(), c.mine.end(), [&](std::size_t x, std::size_t y) {
        return t.events[x].start_s < t.events[y].start_s;
    });
    return c;
}

ROOFLINE_INLINE trace_gpu_context select_trace_gpu_from(const kernel_trace& t, const std::map<int, double>& time_by_device,
                                                        const std::function<gpu_resolution()>& by_kernel_names,
                                                        const gpu_catalog& catalog, const trace_analysis_options& options,
                                                        trace_analysis& a) {
    if (time_by_device.empty()) {
        // Say what the reader left out, so "no activity" is not a mystery (an ncu section export
        // without durations, a trace of CPU ops only).
        std::string why;
        for (const auto& [reason, n] : t.stats.skipped_by_reason)
            why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
        if (t.stats.skipped_by_reason.count("no_duration"))
            why += " (an Nsight Compute export needs gpu__time_duration.sum or the Duration metric of "
                   "GPU Speed Of Light Throughput)";
        throw usage_error(t.file + ": the trace has no GPU activity to analyse" +
                          (why.empty() ? std::string()
                                      : ": " + std::to_string(t.stats.events_read) +
                                            (t.stats.events_read == 1 ? " record" : " records") +
                                            " read, skipped: " + why));
    }
    trace_gpu_context c;
    c.trace = &t;
    c.options = &options;
    for (const auto& [d, s] : time_by_device) c.devices.push_back(d);
    if (options.device >= 0) {
        if (!time_by_device.count(options.device))
            throw usage_error(t.file + ": no GPU activity on device " + std::to_string(options.device));
        c.device = options.device;
    } else {
        double best = -1;
        for (const auto& [d, s] : time_by_device)
            if (s > best) best = s, c.device = d;
    }
    if (c.devices.size() > 1)
        a.notes.push_back("the trace has activity on " + std::to_string(c.devices.size()) +
                          " GPUs; analysing device " + std::to_string(c.device) +
                          " (the busiest; --device picks another)");
    // The enforced power limit, when logged, tells SKUs of one chip apart.
    c.power_log_index = power_log_index(options.power, c.device);
    std::optional<double> log_limit;
    if (c.power_log_index >= 0) {
        std::vector<double> lim;
        for (const auto& s : options.power->samples)
            if (s.gpu_index == c.power_log_index) lim.push_back(s.power_limit_w);
        log_limit = detail::finite_median(lim);
    }
    for (const auto& d : t.devices)
        if (d.id == c.device) c.props = &d;
    if (!c.props && !t.devices.empty()) c.props = &t.devices.front();
    a.gpu = resolve_trace_gpu(c.props, catalog, log_limit, options.gpu_id);
    // No device properties (or none the catalog knows): kernel names may give the architecture;
    // else every roof stays unknown and the timeline, phases, steps and overlap still come out.
    if (a.gpu.id.empty() && c.props && a.gpu.reason.find("AMD GPU") != std::string::npos)
        throw usage_error(t.file + ": " + a.gpu.reason);
    if (a.gpu.id.empty() && !c.props) a.gpu = by_kernel_names();
    if (a.gpu.assumed && !a.gpu.ambiguous) a.notes.push_back("GPU " + a.gpu.reason);
    if (a.gpu.id.empty()) {
        a.warnings.push_back("no GPU known: " + a.gpu.reason);
        c.owned_gpu = std::make_shared<const gpu_spec>(unknown_gpu_spec(a.gpu.reason));
    }
    const gpu_spec& g = c.owned_gpu ? *c.owned_gpu : catalog.at(a.gpu.id);
    c.gpu = &g;
    a.gpu_name = g.name;
    a.device = c.device;
    a.devices = c.devices;
    a.datasheet = datasheet_ceilings(g);
    c.datasheet = a.datasheet;
    c.achievable = achievable(a.datasheet, options.efficiency);
    if (options.calibrated) {
        require_calibration_gpu(*options.calibrated, g);  // another GPU's overlay: exit 2, both named
        c.achievable = apply_calibration(c.achievable, *options.calibrated);
        a.calibration_source = options.calibrated->source.empty() ? std::string("(in memory)") : options.calibrated->source;
        if (const std::string n = unreliable_power_note(
                *options.calibrated, "trace does not use it (power verdicts come from the --power log)");
            !n.empty())
            a.notes.push_back(n);
    }
    c.achievable.launch_latency_s = 0;  // kernel durations do not include their launch
    a.reference_clock_hz = g.tensor_clock_hz.value_or(
        g.boost_clock_hz.value_or(std::numeric_limits<double>::quiet_NaN()));
    if (a.gpu.ambiguous) a.warnings.push_back("GPU " + a.gpu.reason);
    c.sm_count = c.props && c.props->num_sms > 0 ? c.props->num_sms : g.sm_count.value_or(0);
    try {
        c.link = default_link_params(g, g.default_link());
    } catch (const usage_error&) {
    }
    c.pcie = a.datasheet;
    c.pcie.link = link_kind::pcie;
    c.pcie.link_bytes_per_s = link_bandwidth_bytes_per_s(g, link_kind::pcie);
    return c;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
