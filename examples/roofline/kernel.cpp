// `roofline kernel`: one kernel priced on one GPU.
//
//   roofline kernel gemm --m M --n N --k K --dtype D --gpu ID [--json]
//                       (or --act-dtype A --weight-dtype W: A and B operands apart)
//   roofline kernel moe --tokens T --experts E --topk K --hidden H --inter I --dtype D
//                       [--act-dtype A] [--routing uniform|zipf:S] --gpu ID
//                       (--dtype: the expert weights; --weight-dtype is its other spelling)
//   roofline kernel attention --batch B --q-len Q --kv-len L --heads H --kv-heads G --head-dim D
//                       [--causal] [--mla --kv-lora-rank R --qk-rope-head-dim P ...] --dtype D --gpu ID
//   roofline kernel copy --bytes N --gpu ID                       (N bytes read and N written)
//   roofline kernel collective --op all_reduce|all_gather|reduce_scatter|all_to_all --bytes N
//                       --ranks R --gpu ID [--link nvlink|pcie|pcie-no-p2p|network]
//                       [--topology TOPO.txt [--p2p on|off] [--nccl-p2p-level-sys]]
// Every subcommand accepts --json, --gpu-file F, --calibration F and --sm-clock-mhz F.
//
// Two times are reported:
//  * lower_bound_s: the roofline at datasheet ceilings (max over roofs + latency terms);
//  * predicted_time_s: the same workload at achievable ceilings (datasheet x the efficiencies
//    below) plus the device-side cost of each kernel (0.86 us; the host's eager launch floor is a
//    separate term, reported as eager_call_s, never inside a kernel's time), as the kernel runs
//    (`price_kernel_as_run`: a grouped GEMM computes whole tiles, `executed_flops`; attention
//    prefill runs at the published FlashAttention-2 / cuDNN / FlashAttention-3 rate; FA2 decode
//    without split-KV computes whole 128-row tiles, with split-KV it is two kernels; FP8 GEMMs
//    on compute capability 9 run at 70.9 / 80.3 of the BF16 fraction of peak; the dense GEMM's
//    wave quantisation needs the kernel's tile, which this command does not know). Calibration
//    replaces any ceiling it names, and where
//    it has a fitted curve for the kernel's family (models/kernel_time.hpp) the curve sets
//    predicted_time_s and bound, at the SM clock given by --sm-clock-mhz, else the clock the
//    calibrated power model allows under the GPU's power limit (when the curve's points carried
//    their clocks; a curve fitted without them already holds the rates measured under the
//    sweep's limit and is taken at the maximum clock), else the maximum clock. MoE
//    layers sum the curve over their gate_up and down grouped GEMMs.
//  Collectives: lower_bound_s is the datasheet link with NCCL's alpha and base latency, never
//  changed by --calibration; predicted_time_s uses the overlay's fitted link, else a measured
//  all-reduce profile of the GPU and link, else the datasheet link (`predicted_by` says which).
// JSON keys (stable): predicted_time_s, lower_bound_s, bound, flops, executed_flops, bytes, link_bytes,
// arithmetic_intensity, ceilings {datasheet, used}, efficiency, roof_times, notes, `unpriced` (only
// when work on a rate the GPU lacks or has no known ceiling for was left out: then `bound` is
// "unknown" and the times are lower bounds), and a
// per-kernel object (gemm, moe, attention, copy, collective); with a curve also `calibrated`
// {family, peak, clock_hz, clock_source, time_s, parts, curve, fit}.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/analysis/achievable.hpp"
#include "roofline/io/nvidia_smi_topo.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/host_topology.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/power.hpp"

namespace roofline::cli {
namespace {

struct kernel_common {
    std::string gpu, gpu_file, calibration, link, backend;
    double sm_clock_mhz = 0;
    bool json = false;
};

nlohmann::json num_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json ceilings_json(const ceilings& c) {
    nlohmann::json f = nlohmann::json::object();
    for (auto k : all_peak_keys) f[std::string(to_string(k))] = num_or_null(c.flops_at(k));
    return {{"flops_per_s", f},
            {"dram_bytes_per_s", num_or_null(c.bytes_at(memory_level::dram))},
            {"l2_bytes_per_s", num_or_null(c.bytes_at(memory_level::l2))},
            {"link", std::string(to_string(c.link))},
            {"link_bytes_per_s", num_or_null(c.link_bytes_per_s)},
            {"launch_latency_s", c.launch_latency_s},
            {"origin", c.origin}};
}

std::string human_time_3dp(double s) {
    if (s >= 1.0) return fmt::format("{:.3f} s", s);
    if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
    return fmt::format("{:.1f} us", s * 1e6);
}

/// The GPU, its datasheet ceilings and the ceilings used for the prediction.
struct pricing_context {
    gpu_spec gpu;
    ceilings datasheet, used;
    kernel_efficiency eff;
    link_params link;           ///< alpha-beta of the link in force (calibrated when the overlay has it)
    std::optional<calibration> cal;
    double sm_clock_hz = 0;     ///< --sm-clock-mhz (0: not given)
    std::string backend;        ///< --backend, normalised ("" unknown: the op family's curve)
    std::vector<std::string> notes;
};

/// The `--backend` value `o` gives for `kernel OP` (OP runs kernels of `family`; none: a
/// collective, which has no library choice), normalised (`parse_kernel_backend`); "" when not
/// given. A value that is not one of the op's backends (`kernel_backends`) is a usage error
/// naming the accepted ones: a GEMM cannot run on flash, and a typo must not price silently.
std::string backend_for(const kernel_common& o, std::string_view op, std::optional<kernel_family> family) {
    if (o.backend.empty()) return "";
    const std::vector<std::string_view> accepted = family ? kernel_backends(*family) : std::vector<std::string_view>{};
    if (accepted.empty())
        throw usage_error(fmt::format("kernel {}: --backend {}: a {} has no backend to choose (--backend is for gemm, "
                                      "moe and attention)",
                                      op, o.backend, op));
    const std::string b = parse_kernel_backend(o.backend);
    if (std::find(accepted.begin(), accepted.end(), b) == accepted.end()) {
        std::string names;
        for (auto a : accepted) names += (names.empty() ? "" : ", ") + std::string(a);
        throw usage_error(fmt::format("kernel {}: --backend: unknown backend \"{}\" for {} (accepted: {}; any case)", op,
                                      o.backend, op, names));
    }
    return b;
}

pricing_context make_context(const kernel_common& o, std::string_view op, std::optional<kernel_family> family,
                             std::optional<link_kind> link = std::nullopt) {
    pricing_context p;
    const gpu_catalog catalog = load_gpu_catalog(o.gpu_file);
    p.gpu = pick_gpu(catalog, o.gpu);
    const link_kind lk = link ? *link : (o.link.empty() ? p.gpu.default_link() : parse_link_kind(o.link));
    p.datasheet = datasheet_ceilings(p.gpu, lk);
    // An L2 bandwidth this project measured where the datasheet gives none (models/kernel_time.hpp).
    if (!std::isfinite(p.datasheet.bytes_at(memory_level::l2)))
        if (const double l2 = measured_l2_bytes_per_s(p.gpu.id); std::isfinite(l2)) {
            p.datasheet.bytes_at(memory_level::l2) = l2;
            p.datasheet.origin += " + measured L2";
        }
    p.used = achievable(p.datasheet, p.eff);
    try {
        p.link = default_link_params(p.gpu, lk);
    } catch (const usage_error&) {
        p.link.beta_bytes_per_s = std::nan("");  // only collectives need it; they say so
    }
    if (!std::isfinite(o.sm_clock_mhz) || o.sm_clock_mhz < 0) throw usage_error("--sm-clock-mhz must be a positive number");
    p.sm_clock_hz = o.sm_clock_mhz * 1e6;
    require_clock_within_max(p.gpu, o.sm_clock_mhz);
    if (p.sm_clock_hz > 0 && o.calibration.empty())
        p.notes.push_back("--sm-clock-mhz sets the clock of calibrated curves only: without --calibration it changes "
                          "nothing (the datasheet ceilings hold at the boost clock)");
    p.backend = backend_for(o, op, family);
    if (!o.calibration.empty()) {
        p.cal = read_calibration(o.calibration);
        require_calibration_gpu(*p.cal, p.gpu);
        apply_calibration(p.used, p.link, p.eff, *p.cal);
    }
    return p;
}

/// One kernel a calibrated curve prices, with the clock it assumed.
struct curve_part {
    std::string name;
    kernel_features features;
};

/// The SM clock for `k` under curve `c`: --sm-clock-mhz, else the power-capped clock of the
/// calibrated power model (for a curve fitted to records with clocks; one fitted without them
/// holds the rates measured under the sweep's power limit: the maximum clock), else the GPU's
/// maximum clock.
std::pair<double, std::string> clock_for(const pricing_context& p, const kernel_features& k, const kernel_curve& c) {
    if (p.sm_clock_hz > 0)
        return {p.sm_clock_hz, c.clocks_recorded
                                   ? std::string("given (--sm-clock-mhz)")
                                   : std::string("given (--sm-clock-mhz); the fitted records had no clock, so phi assumes "
                                                 "they ran at the maximum: a kernel that ran power-capped is priced "
                                                 "slower than it would run at this clock")};
    const double max_clock = p.gpu.max_clock_hz.value_or(p.gpu.boost_clock_hz.value_or(std::nan("")));
    if (!std::isfinite(max_clock)) throw usage_error(p.gpu.id + ": the maximum SM clock is unknown: give --sm-clock-mhz");
    if (p.cal && p.cal->power) {
        const auto& pw = *p.cal->power;
        const double limit = std::isfinite(pw.power_limit_w) ? pw.power_limit_w : p.gpu.power_limit_w.value_or(std::nan(""));
        if (std::isfinite(limit)) {
            const double f = power_capped_clock_hz(k, c, p.used, pw.coefficients, limit, max_clock);
            if (!c.clocks_recorded)
                return {f, fmt::format("the fitted sweep's own clocks: it recorded none, so its rates are those "
                                       "measured under its {:.0f} W limit",
                                       limit)};
            const std::string flag =
                pw.unreliable ? fmt::format("; the power model is flagged unreliable: its largest residual is {:.0f}% of "
                                            "the power its samples span",
                                            100 * pw.max_abs_residual_w / pw.power_range_w)
                              : std::string();
            return {f, (f < max_clock ? fmt::format("power-capped at {:.0f} W (calibrated power model)", limit)
                                      : fmt::format("maximum clock (under the {:.0f} W limit)", limit)) +
                           flag};
        }
    }
    return {max_clock, "maximum clock"};
}

/// Prices `w`, fills the common JSON keys, prints a text summary unless --json. When the
/// calibration has a curve for every one of `parts`, the curves set the prediction; `rest`
/// (work outside the parts, e.g. a MoE layer's shared experts and all-to-all) adds its
/// roofline time at the used ceilings.
nlohmann::json report(const std::string& title, const workload& w, const pricing_context& p,
                      std::vector<std::string> notes, std::vector<curve_part> parts = {},
                      const workload* rest = nullptr) {
    for (auto& part : parts)
        if (part.features.backend.empty()) part.features.backend = p.backend;
    bool all_curves = !parts.empty();
    for (const auto& part : parts) all_curves = all_curves && p.eff.curve_for(part.features);
    // Without curves: the kernels as they run (tile padding, published attention rates).
    std::vector<kernel_features> features;
    if (!all_curves)
        for (const auto& part : parts) features.push_back(part.features);
    const auto as_run = price_kernel_as_run(w, features, p.datasheet, p.used, p.eff, p.gpu.cc_major);
    const auto& lb = as_run.time.lower_bound;
    const auto& pr = as_run.time.predicted;
    notes.insert(notes.end(), as_run.notes.begin(), as_run.notes.end());
    notes.insert(notes.end(), p.notes.begin(), p.notes.end());
    nlohmann::json j;
    j["kernel"] = title;
    j["gpu"] = p.gpu.id;
    j["predicted_time_s"] = pr.lower_bound_s;
    j["lower_bound_s"] = lb.lower_bound_s;
    j["bound"] = std::string(to_string(pr.predicted));
    j["executed_flops"] = as_run.executed_flops;
    // An overlay that has no curve for a part says so, naming what it has: a kernel it cannot
    // price is uncalibrated, never silently.
    if (!all_curves && p.cal && !parts.empty()) {
        nlohmann::json missing = nlohmann::json::array();
        for (const auto& part : parts) {
            if (p.eff.curve_for(part.features)) continue;
            const auto& f = part.features;
            const std::string family(to_string(f.family)), peak(to_string(f.peak));
            std::vector<std::string> has;
            for (const auto& c : p.cal->curves)
                if (c.family == f.family)
                    has.push_back(std::string(to_string(c.peak)) + (c.backend.empty() ? "" : "/" + c.backend));
            std::string has_text;
            for (const auto& h : has) has_text += (has_text.empty() ? "" : ", ") + h;
            const bool ceiling = p.cal->overrides_flops(f.peak);
            const bool attention = f.family == kernel_family::attention_prefill || f.family == kernel_family::attention_decode;
            // Attention runs at its backend's published fraction of the datasheet peak
            // uncalibrated (price_kernel_as_run); GEMMs at the used ceiling.
            const std::string at = attention ? "at its backend's published fraction of the datasheet " + peak + " peak"
                                   : ceiling ? "at the calibrated " + peak + " ceiling"
                                             : "at the datasheet " + peak + " peak x efficiency (" + p.cal->source +
                                                   " measured no " + peak + " ceiling)";
            const std::string what = f.backend.empty() ? family + " curve for " + peak
                                                       : family + " " + peak + " curve for backend " + f.backend;
            if (!f.backend.empty())  // the wording the backend's refusal always had
                notes.push_back(fmt::format("the calibration has no curve for backend {}: {} priced uncalibrated, {} (a "
                                            "curve of another backend does not apply; {} has {} curves: {})",
                                            f.backend, part.name, at, p.cal->source, family,
                                            has_text.empty() ? "none" : has_text));
            else
                notes.push_back(fmt::format("{} has no {} ({} curves: {}): {} priced uncalibrated, {}", p.cal->source,
                                            what, family, has_text.empty() ? "none" : has_text, part.name, at));
            missing.push_back({{"name", part.name},
                               {"family", family},
                               {"peak", peak},
                               {"backend", f.backend},
                               {"overlay_curves", has},
                               {"ceiling", ceiling && !attention ? "calibrated" : "datasheet"}});
        }
        j["uncalibrated_parts"] = missing;
    }
    if (all_curves) {
        double total = 0, device = 0, eager = 0, largest = -1;
        nlohmann::json pj = nlohmann::json::array();
        for (const auto& part : parts) {
            const auto* c = p.eff.curve_for(part.features);
            if (c->peak != part.features.peak)
                notes.push_back(fmt::format("{}: priced by the calibration's {} {}{} curve ({} has none for {})", part.name,
                                            to_string(c->family), to_string(c->peak),
                                            c->backend.empty() ? "" : "/" + c->backend, p.cal ? p.cal->source : "it",
                                            to_string(part.features.peak)));
            const auto [f, why] = clock_for(p, part.features, *c);
            const auto ct = calibrated_kernel_time(part.features, *c, p.used, f, why, p.eff.launch_floor_s);
            total += ct.time_s;
            device += ct.device_s;
            eager += ct.eager_call_s;
            if (ct.eager_call_s > p.eff.launch_floor_s + ct.device_s * 1.0001)
                notes.push_back(fmt::format("{}: called eagerly, the host floor {} (host issue time per call, fitted "
                                            "separately) would set its wall time; the kernel itself takes {}",
                                            part.name, human_time_3dp(c->floor_s), human_time_3dp(ct.device_s)));
            if (ct.time_s > largest) largest = ct.time_s, j["bound"] = std::string(to_string(ct.predicted));
            pj.push_back({{"name", part.name},
                          {"family", std::string(to_string(c->family))},
                          {"peak", std::string(to_string(c->peak))},
                          {"time_s", ct.time_s},
                          {"device_s", ct.device_s},
                          {"eager_call_s", ct.eager_call_s},
                          {"compute_s", ct.compute_s},
                          {"memory_s", ct.memory_s},
                          {"clock_hz", ct.clock_hz},
                          {"clock_source", ct.clock_source},
                          {"bound", std::string(to_string(ct.predicted))},
                          {"curve",
                           {{"fixed_latency_s", c->fixed_latency_s},
                            {"flops_per_clock", num_or_null(c->flops_per_clock)},
                            {"bytes_per_s", num_or_null(c->bytes_per_s)},
                            {"floor_s", c->floor_s},
                            {"tile_rows", c->tile_rows},
                            {"causal_block_keys", c->causal_block_keys},
                            {"whole_waves", c->whole_waves},
                            {"decode_tile_rows", c->decode_tile_rows},
                            {"split_extra_s", c->split_extra_s}}},
                          {"fit",
                           {{"points", c->fit.points},
                            {"median_abs_error", num_or_null(c->fit.median_abs_error)},
                            {"p90_abs_error", num_or_null(c->fit.p90_abs_error)},
                            {"cv_median_abs_error", num_or_null(c->fit.cv_median_abs_error)},
                            {"cv_p90_abs_error", num_or_null(c->fit.cv_p90_abs_error)}}}});
        }
        if (rest) {
            const double r = time_lower_bound(*rest, p.used).lower_bound_s;
            total += r;
            device += r;
        }
        j["predicted_time_s"] = total;
        j["calibrated"] = {{"time_s", total},
                           {"device_time_s", device},
                           {"eager_call_s", eager},
                           {"parts", pj},
                           {"source", p.cal ? p.cal->source : std::string()}};
        notes.push_back("predicted by the calibrated curve" + std::string(parts.size() > 1 ? "s" : "") + " of " +
                        (p.cal ? p.cal->source : std::string("the calibration")) + " at " +
                        fmt::format("{:.0f} MHz", pj.front()["clock_hz"].get<double>() / 1e6) + " (" +
                        pj.front()["clock_source"].get<std::string>() + ")");
    }
    // Work the GPU has no units for (V100 bf16, L4 fp64) or whose ceiling is unknown is left out
    // of the roofs (time_lower_bound): the time is then a lower bound of unknown tightness and
    // no roof can be named. Curves price their parts themselves, so this is the uncalibrated path.
    if (!all_curves) {
        const std::string unpriced = unpriced_summary(pr, p.used);
        if (!unpriced.empty()) {
            j["bound"] = "unknown";
            j["unpriced"] = unpriced;
            notes.push_back(unpriced + ": that work is not in the roofs, so the time is a lower bound and "
                            "the bound is unknown (pick a --dtype the GPU has units for)");
        }
    }
    j["flops"] = w.total_flops();
    nlohmann::json by = nlohmann::json::object();
    for (auto k : all_peak_keys)
        if (w.flops_at(k) > 0) by[std::string(to_string(k))] = w.flops_at(k);
    j["flops_by_rate"] = by;
    j["bytes"] = w.dram_bytes();
    j["link_bytes"] = w.link_bytes;
    j["launches"] = w.launches;
    j["arithmetic_intensity"] = w.arithmetic_intensity();
    j["roof_times"] = {{"compute_s", pr.compute_s}, {"memory_s", pr.memory_s}, {"link_s", pr.link_s},
                       {"latency_s", pr.latency_s}};
    j["ceilings"] = {{"datasheet", ceilings_json(p.datasheet)}, {"used", ceilings_json(p.used)}};
    j["efficiency"] = {{"tensor", p.eff.tensor}, {"vector", p.eff.vector}, {"dram", p.eff.dram},
                       {"kernel_fixed_s", p.eff.kernel_fixed_s}, {"launch_floor_s", p.eff.launch_floor_s},
                       {"source", p.eff.source}, {"curves", p.eff.curves.size()}};
    // Wall time of one eager call (host floor per launch), a separate term from the kernel's time.
    if (!j.contains("calibrated"))
        j["eager_call_s"] = std::max(j["predicted_time_s"].get<double>(), w.launches * p.eff.launch_floor_s);
    else
        j["eager_call_s"] = j["calibrated"]["eager_call_s"];
    j["notes"] = notes;
    return j;
}


std::string human_bytes(double b) {
    if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
    if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
    if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
    return fmt::format("{:.0f} B", b);
}

void print(const nlohmann::json& j, const kernel_common& o, const std::vector<std::string>& extra_lines) {
    if (o.json) {
        fmt::print("{}\n", j.dump(2));
        return;
    }
    const bool unknown = j["bound"] == "unknown";
    fmt::print("{} on {}: predicted {}{} ({}); lower bound {} at datasheet ceilings\n", j["kernel"].get<std::string>(),
               j["gpu"].get<std::string>(), unknown ? "at least " : "",
               human_time_3dp(j["predicted_time_s"].get<double>()),
               unknown ? std::string("bound unknown") : j["bound"].get<std::string>() + "-bound",
               human_time_3dp(j["lower_bound_s"].get<double>()));
    std::string flops;
    for (auto it = j["flops_by_rate"].begin(); it != j["flops_by_rate"].end(); ++it)
        flops += fmt::format("{}{:.4g} {}", flops.empty() ? "" : ", ", it.value().get<double>(), it.key());
    if (j.contains("collective"))
        fmt::print("  message {}; link {} per rank\n", human_bytes(j["bytes"].get<double>()),
                   human_bytes(j["link_bytes"].get<double>()));
    else
        fmt::print("  FLOP {}; DRAM {}; link {}; AI {:.1f} FLOP/B\n", flops.empty() ? "0" : flops,
                   human_bytes(j["bytes"].get<double>()), human_bytes(j["link_bytes"].get<double>()),
                   j["arithmetic_intensity"].get<double>());
    const auto& rt = j["roof_times"];
    fmt::print("  roofs (used ceilings): compute {}, memory {}, link {}, latency {}\n",
               human_time_3dp(rt["compute_s"].get<double>()), human_time_3dp(rt["memory_s"].get<double>()),
               human_time_3dp(rt["link_s"].get<double>()), human_time_3dp(rt["latency_s"].get<double>()));
    for (const auto& l : extra_lines) fmt::print("  {}\n", l);
    for (const auto& n : j["notes"]) fmt::print("  note: {}\n", n.get<std::string>());
    fmt::print("  ceilings used: {}\n", j["ceilings"]["used"]["origin"].get<std::string>());
}

void add_common(CLI::App* cmd, kernel_common& o, bool with_link = false) {
    cmd->add_option("--gpu", o.gpu, "GPU id (see `roofline gpus`)")->required();
    cmd->add_option("--gpu-file", o.gpu_file, "JSON file that adds or overrides GPU entries");
    cmd->add_option("--calibration", o.calibration, "calibration overlay (`roofline calibrate`): measured ceilings and curves");
    cmd->add_option("--sm-clock-mhz", o.sm_clock_mhz, "SM clock for calibrated curves, at most the GPU's maximum (default: the power-capped clock of the calibrated power model for curves fitted with clocks, else the maximum clock; the note says which)")->check(finite_non_negative);
    cmd->add_flag("--json", o.json, "Print JSON");
    cmd->add_option("--backend", o.backend,
                    "library that runs the kernel, for calibrated curves (any case): gemm nvjet, cublas (one library: "
                    "cuBLAS runs nvjet kernels), cutlass, triton; moe cutlass, triton; attention flash, cudnn, "
                    "mem_efficient, math (SDPA); another value is exit 2; default: the op family's curve");
    if (with_link) cmd->add_option("--link", o.link, "nvlink, pcie, pcie-no-p2p or network (default: the GPU's)");
}

/// Throws a one-line `usage_error` unless `v` is positive (or >= 0 when `allow_zero`).
/// `v` must be finite, positive (or zero when `allow_zero`) and at most `max` (counts:
/// `max_plausible_count`, 1e8; a value past it is a typo such as 1e30, not a workload).
void require_positive(const char* flag, double v, bool allow_zero = false, double max = max_plausible_count) {
    if (!std::isfinite(v) || v < 0 || (!allow_zero && v == 0))
        throw usage_error(std::string(flag) + " must be " + (allow_zero ? "non-negative" : "positive") + ", got " +
                          fmt::format("{:g}", v));
    if (v > max)
        throw usage_error(std::string(flag) + " " + fmt::format("{:g}", v) + " is implausible (more than " +
                          fmt::format("{:g}", max) + ")");
}

dtype output_dtype(dtype d) { return (d == dtype::fp32 || d == dtype::tf32) ? dtype::fp32 : dtype::bf16; }

// --- gemm -----------------------------------------------------------------------------------

void add_gemm(CLI::App* kernel) {
    struct options {
        kernel_common c;
        double m = 0, n = 0, k = 0, batch = 1;
        std::string dtype_name, weight_dtype, act_dtype;
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = kernel->add_subcommand("gemm", "Dense GEMM C[m x n] = A[m x k] B[k x n]");
    cmd->add_option("--m", o.m, "rows of A and C (tokens)")->required();
    cmd->add_option("--n", o.n, "columns of B and C (output features)")->required();
    cmd->add_option("--k", o.k, "inner dimension (input features)")->required();
    cmd->add_option("--batch", o.batch, "independent GEMMs")->check(finite_non_negative);
    cmd->add_option("--dtype", o.dtype_name, "dtype of both operands (bf16, fp8, nvfp4, ...); or give --act-dtype and --weight-dtype");
    cmd->add_option("--act-dtype", o.act_dtype, "A (activation) dtype (default --dtype)");
    cmd->add_option("--weight-dtype", o.weight_dtype, "B (weight) dtype when it differs from A (e.g. W4A16; default --dtype)");
    add_common(cmd, o.c);
    cmd->callback([] {
        require_positive("--m", o.m);
        require_positive("--n", o.n);
        require_positive("--k", o.k);
        require_positive("--batch", o.batch);
        const auto p = make_context(o.c, "gemm", kernel_family::gemm);
        if (o.dtype_name.empty() && o.act_dtype.empty())
            throw usage_error("kernel gemm: give --dtype (both operands) or --act-dtype (and --weight-dtype)");
        dtype a = parse_dtype_or_throw(o.act_dtype.empty() ? o.dtype_name : o.act_dtype);
        // int4 is a weight format (W4A16): its activations are 16-bit unless --act-dtype says.
        if (o.act_dtype.empty() && a == dtype::int4) a = dtype::bf16;
        if (a == dtype::int4) throw usage_error("kernel gemm: --act-dtype int4: int4 is a weight format (W4A16), not an activation dtype");
        const dtype b = o.weight_dtype.empty() ? (o.dtype_name.empty() ? a : parse_dtype_or_throw(o.dtype_name))
                                               : parse_dtype_or_throw(o.weight_dtype);
        const gemm_shape s{o.m, o.n, o.k, o.batch};
        const auto path = gemm_compute_path(b, a, p.gpu);
        const auto w = gemm_workload(s, a, b, output_dtype(a), path.peak);
        std::vector<std::string> notes;
        if (!path.note.empty()) notes.push_back(path.note);
        // Both operands in the title when they differ (W4A16: "bf16, int4 weights").
        const std::string title =
            a == b ? fmt::format("gemm {:g}x{:g}x{:g} {}", o.m, o.n, o.k, to_string(a))
                   : fmt::format("gemm {:g}x{:g}x{:g} {}, {} weights", o.m, o.n, o.k, to_string(a), to_string(b));
        auto j = report(title, w, p, notes, {{"gemm", gemm_features(w, path.peak)}});
        j["gemm"] = {{"m", o.m}, {"n", o.n}, {"k", o.k}, {"batch", o.batch}, {"a_dtype", std::string(to_string(a))},
                     {"b_dtype", std::string(to_string(b))}, {"peak", std::string(to_string(path.peak))},
                     {"native", path.native}};
        std::vector<std::string> lines;
        // The tile view, where the GPU's shared memory and SM count are known.
        if (p.gpu.smem_per_block_bytes.known() && p.gpu.sm_count.known() && p.gpu.smem_per_sm_bytes.known()) {
            try {
                const auto t = best_tile(s, a, b, output_dtype(a), p.gpu, p.datasheet);
                j["gemm"]["tile"] = {{"bm", t.tile.bm}, {"bn", t.tile.bn}, {"bk", t.tile.bk},
                                     {"stages", t.tile.stages}, {"cta_pair", t.tile.cta_pair},
                                     {"smem_bytes", t.feasibility.smem_bytes},
                                     {"waves", t.waves}, {"wave_efficiency", t.wave_efficiency},
                                     {"l2_to_smem_bytes", t.l2_to_smem_bytes},
                                     {"smem_intensity", t.smem_intensity}};
                lines.push_back(fmt::format("best tile {}x{}x{} x{} stages{} ({} B smem): {:g} waves, {:.0f}% wave "
                                            "efficiency, {:.0f} FLOP per L2->SMEM byte",
                                            t.tile.bm, t.tile.bn, t.tile.bk, t.tile.stages,
                                            t.tile.cta_pair > 1 ? " (2-CTA)" : "", t.feasibility.smem_bytes, t.waves,
                                            100 * t.wave_efficiency, t.smem_intensity));
            } catch (const usage_error& e) {
                j["gemm"]["tile"] = nullptr;
                lines.push_back(std::string("tile view unavailable: ") + e.what());
            }
        }
        print(j, o.c, lines);
    });
}

// --- moe ------------------------------------------------------------------------------------

void add_moe(CLI::App* kernel) {
    struct options {
        kernel_common c;
        double tokens = 0, hidden = 0, inter = 0, shared_inter = 0;
        int experts = 0, topk = 0, shared = 0, ep = 1, tp = 1;
        std::string dtype_name, weight_dtype, act_dtype, routing = "uniform";
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = kernel->add_subcommand("moe", "Grouped MoE GEMM (gate/up and down) over the routed experts");
    cmd->add_option("--tokens", o.tokens, "tokens in the step")->required();
    cmd->add_option("--experts", o.experts, "routed experts")->required();
    cmd->add_option("--topk", o.topk, "experts per token")->required();
    cmd->add_option("--hidden", o.hidden, "hidden size")->required();
    cmd->add_option("--inter", o.inter, "expert intermediate size")->required();
    cmd->add_option("--shared-experts", o.shared, "always-active shared experts");
    cmd->add_option("--shared-inter", o.shared_inter, "shared expert intermediate size (default --inter)")->check(finite_non_negative);
    cmd->add_option("--dtype", o.dtype_name, "expert weight dtype (bf16, fp8, nvfp4, mxfp4, ...); --weight-dtype is the same flag");
    cmd->add_option("--weight-dtype", o.weight_dtype, "expert weight dtype (as in kernel gemm; the same as --dtype here)");
    cmd->add_option("--act-dtype", o.act_dtype, "activation dtype (default: the weight dtype)");
    cmd->add_option("--routing", o.routing, "uniform or zipf:S");
    cmd->add_option("--ep", o.ep, "expert-parallel ranks");
    cmd->add_option("--tp", o.tp, "tensor-parallel split of each expert");
    add_common(cmd, o.c, true);
    cmd->callback([] {
        require_positive("--tokens", o.tokens, true);
        require_positive("--experts", o.experts);
        require_positive("--topk", o.topk);
        require_positive("--hidden", o.hidden);
        require_positive("--inter", o.inter);
        require_positive("--shared-experts", o.shared, true);
        require_positive("--ep", o.ep);
        require_positive("--tp", o.tp);
        const auto p = make_context(o.c, "moe", kernel_family::grouped_gemm);
        moe_problem m;
        m.tokens = o.tokens;
        m.experts = o.experts;
        m.topk = o.topk;
        m.hidden = o.hidden;
        m.inter = o.inter;
        m.shared_experts = o.shared;
        m.shared_inter = o.shared_inter;
        if (o.dtype_name.empty() && o.weight_dtype.empty())
            throw usage_error("kernel moe: give --dtype or --weight-dtype (the expert weights' dtype)");
        if (!o.dtype_name.empty() && !o.weight_dtype.empty() && o.dtype_name != o.weight_dtype)
            throw usage_error("kernel moe: --dtype and --weight-dtype are the same flag, given " + o.dtype_name + " and " + o.weight_dtype);
        m.weights = parse_dtype_or_throw(o.weight_dtype.empty() ? o.dtype_name : o.weight_dtype);
        m.activations = o.act_dtype.empty() ? m.weights : parse_dtype_or_throw(o.act_dtype);
        if (o.act_dtype.empty() && (m.weights == dtype::bf16 || m.weights == dtype::fp16)) m.activations = m.weights;
        // int4 is a weight format (W4A16): its activations are 16-bit unless --act-dtype says.
        if (o.act_dtype.empty() && m.weights == dtype::int4) m.activations = dtype::bf16;
        if (m.activations == dtype::int4)
            throw usage_error("kernel moe: --act-dtype int4: int4 is a weight format (W4A16), not an activation dtype");
        m.ep = o.ep;
        m.tp = o.tp;
        m.routing = parse_routing(o.routing);
        const auto r = moe_layer(m, p.gpu);
        std::vector<std::string> notes;
        if (!r.path.note.empty()) notes.push_back(r.path.note);
        double ai_min = 0, ai_max = 0;
        for (double v : r.expert_intensity)
            if (v > 0) {
                ai_min = ai_min == 0 ? v : std::min(ai_min, v);
                ai_max = std::max(ai_max, v);
            }
        const std::string title = fmt::format("moe T={:g} E={} k={} h={:g} i={:g} {}", o.tokens, o.experts, o.topk,
                                              o.hidden, o.inter, to_string(m.weights));
        // Calibrated curves price the routed experts as two grouped GEMMs (gate_up, down) on the
        // busiest EP rank; shared experts and the all-to-all are priced at the used ceilings.
        std::vector<curve_part> parts;
        workload rest;
        {
            const int per_rank = m.experts / m.ep;
            int busiest = 0;
            double busiest_rows = -1;
            for (int rk = 0; rk < m.ep; ++rk) {
                double rows = 0;
                for (int e = rk * per_rank; e < (rk + 1) * per_rank; ++e) rows += r.tokens_per_expert[static_cast<std::size_t>(e)];
                if (rows > busiest_rows) busiest_rows = rows, busiest = rk;
            }
            std::vector<double> rows;
            if (m.routing.type == moe_routing::kind::uniform) {
                rows = uniform_group_rows(busiest_rows, r.active_experts / m.ep);
            } else {
                for (int e = busiest * per_rank; e < (busiest + 1) * per_rank; ++e)
                    rows.push_back(r.tokens_per_expert[static_cast<std::size_t>(e)]);
            }
            const double i = m.inter / m.tp;
            const auto gu = grouped_gemm_workload(rows, 2 * i, m.hidden, m.activations, m.weights, dtype::bf16, r.path.peak);
            const auto dn = grouped_gemm_workload(rows, m.hidden, i, m.activations, m.weights, dtype::bf16, r.path.peak);
            parts = {{"gate_up", grouped_gemm_features(rows, 2 * i, m.hidden, gu, r.path.peak)},
                     {"down", grouped_gemm_features(rows, m.hidden, i, dn, r.path.peak)}};
            for (auto& part : parts) part.features.group_count = per_rank;  // the rank's experts, empty ones too
            if (m.shared_experts > 0) {
                const double si = m.shared_experts * (m.shared_inter > 0 ? m.shared_inter : m.inter) / m.tp;
                const double own = m.tokens / m.ep;
                rest.flops_at(r.path.peak) = r.flops_shared;
                rest.bytes_at(memory_level::dram) = 3.0 * m.hidden * si * bytes_per_element(m.weights) +
                                                    own * (2.0 * m.hidden + 3.0 * si) * bytes_per_element(m.activations);
                rest.launches += 2;
            }
            rest.link_bytes = r.all_to_all_bytes;
            rest.launches += m.ep > 1 ? 2 : 0;
        }
        auto j = report(title, r.work, p, notes, parts, &rest);
        j["moe"] = {{"routing", o.routing},
                    {"active_experts", r.active_experts},
                    {"mean_tokens_per_expert", r.mean_tokens_per_expert},
                    {"max_tokens_per_expert", r.max_tokens_per_expert},
                    {"imbalance", r.imbalance},
                    {"rank_imbalance", r.rank_imbalance},
                    {"flops_gate_up", r.flops_gate_up},
                    {"flops_down", r.flops_down},
                    {"flops_shared", r.flops_shared},
                    {"weight_bytes", r.weight_bytes},
                    {"activation_bytes", r.activation_bytes},
                    {"all_to_all_bytes", r.all_to_all_bytes},
                    {"expert_intensity_min", ai_min},
                    {"expert_intensity_max", ai_max},
                    {"tokens_per_expert", r.tokens_per_expert}};
        print(j, o.c,
              {fmt::format("active experts {:.1f} of {}; tokens per expert mean {:.2f}, max {:.2f} (imbalance "
                           "{:.2f}, across EP ranks {:.2f})",
                           r.active_experts, o.experts, r.mean_tokens_per_expert, r.max_tokens_per_expert,
                           r.imbalance, r.rank_imbalance),
               fmt::format("weights {} (active experts incl. scales), activations {}, all-to-all {}; per-expert AI "
                           "{:.1f}-{:.1f} FLOP/B",
                           human_bytes(r.weight_bytes), human_bytes(r.activation_bytes),
                           human_bytes(r.all_to_all_bytes), ai_min, ai_max)});
    });
}

// --- attention ------------------------------------------------------------------------------

void add_attention(CLI::App* kernel) {
    struct options {
        kernel_common c;
        double batch = 1, q_len = 0, kv_len = 0, heads = 0, kv_heads = 0, head_dim = 0;
        double kv_lora = 0, rope = 0, nope = 0, v_head = 0, window = 0, index_topk = 0, index_heads = 0,
               index_dim = 0;
        bool causal = false, mla = false, absorbed = false;
        std::string dtype_name, kv_dtype;
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = kernel->add_subcommand("attention", "Attention (MHA/GQA/MQA, MLA, DSA, sliding window)");
    cmd->add_option("--batch", o.batch, "sequences")->check(finite_non_negative);
    cmd->add_option("--q-len", o.q_len, "query tokens per sequence (decode: 1)")->required();
    cmd->add_option("--kv-len", o.kv_len, "keys per sequence, the queries included")->required();
    cmd->add_option("--heads", o.heads, "query heads")->required();
    cmd->add_option("--kv-heads", o.kv_heads, "KV heads (GQA; MHA = heads, MQA = 1)")->check(finite_non_negative);
    cmd->add_option("--head-dim", o.head_dim, "head dimension (GQA)")->check(finite_non_negative);
    cmd->add_flag("--causal", o.causal, "causal mask (prefill)");
    cmd->add_flag("--mla", o.mla, "multi-head latent attention");
    cmd->add_option("--kv-lora-rank", o.kv_lora, "MLA latent size (512)")->check(finite_non_negative);
    cmd->add_option("--qk-rope-head-dim", o.rope, "MLA rope key size (64)")->check(finite_non_negative);
    cmd->add_option("--qk-nope-head-dim", o.nope, "MLA non-rope q/k head size (128)")->check(finite_non_negative);
    cmd->add_option("--v-head-dim", o.v_head, "MLA value head size (128)")->check(finite_non_negative);
    cmd->add_flag("--absorbed", o.absorbed, "MLA absorbed form (decode)");
    cmd->add_option("--window", o.window, "sliding window in tokens")->check(finite_non_negative);
    cmd->add_option("--index-topk", o.index_topk, "DSA: tokens selected per query")->check(finite_non_negative);
    cmd->add_option("--index-heads", o.index_heads, "DSA indexer heads")->check(finite_non_negative);
    cmd->add_option("--index-head-dim", o.index_dim, "DSA indexer head dimension")->check(finite_non_negative);
    cmd->add_option("--dtype", o.dtype_name, "compute dtype (bf16, fp16, fp8)")->required();
    cmd->add_option("--kv-dtype", o.kv_dtype, "KV-cache dtype (default: --dtype)");
    add_common(cmd, o.c);
    cmd->callback([] {
        require_positive("--batch", o.batch);
        require_positive("--q-len", o.q_len);
        require_positive("--kv-len", o.kv_len);
        require_positive("--heads", o.heads);
        require_positive("--window", o.window, true);
        require_positive("--index-topk", o.index_topk, true);
        const auto p = make_context(o.c, "attention", kernel_family::attention_prefill);
        const dtype d = parse_dtype_or_throw(o.dtype_name);
        const dtype kv = o.kv_dtype.empty() ? d : parse_dtype_or_throw(o.kv_dtype);
        if (d == dtype::int4 || kv == dtype::int4)
            throw usage_error("kernel attention: int4 is a weight format (W4A16), not an attention or KV-cache dtype "
                              "(accepted: bf16, fp16, fp8)");
        if (o.kv_len < o.q_len) throw usage_error("attention: --kv-len must include the queries (>= --q-len)");
        attention_shape s;
        s.heads = o.heads;
        s.causal = o.causal;
        s.window = o.window;
        s.index_topk = o.index_topk;
        s.index_n_heads = o.index_heads;
        s.index_head_dim = o.index_dim;
        if (o.index_topk > 0) {
            if (!(o.index_heads > 0) || !(o.index_dim > 0))
                throw usage_error("attention: --index-topk needs --index-heads and --index-head-dim");
            s.index_key_bytes = o.index_dim + std::ceil(o.index_dim / 128.0) * 4.0;
        }
        double d_qk = 0, d_pe = 0, d_v = 0;
        if (o.mla) {
            if (!(o.kv_lora > 0) || !(o.rope > 0)) throw usage_error("attention --mla needs --kv-lora-rank and --qk-rope-head-dim");
            s.kind = attention_kind::mla;
            s.kv_lora_rank = o.kv_lora;
            s.qk_rope_head_dim = o.rope;
            s.qk_nope_head_dim = o.nope > 0 ? o.nope : 128;
            s.v_head_dim = o.v_head > 0 ? o.v_head : 128;
            s.absorbed = o.absorbed;
            d_qk = o.absorbed ? o.kv_lora : s.qk_nope_head_dim;
            d_pe = o.rope;
            d_v = o.absorbed ? o.kv_lora : s.v_head_dim;
        } else {
            if (!(o.head_dim > 0)) throw usage_error("attention: --head-dim is required (or --mla)");
            s.head_dim = o.head_dim;
            s.kv_heads = o.kv_heads > 0 ? o.kv_heads : o.heads;
            d_qk = d_v = o.head_dim;
        }
        const sequence_group g{o.batch, o.q_len, o.kv_len - o.q_len};
        std::vector<std::string> notes, lines;
        // A rate the GPU lacks (fp8 on A100 and V100): engines dequantise the operands in the
        // kernel and compute at 16 bits (BF16, FP16 without BF16 units), as the GEMM and MoE
        // kernels' fallbacks (models/gemm.hpp `gemm_compute_path`); the bytes stay at --dtype.
        peak_key math = peak_of(d);
        if (!p.gpu.peak(math).supported) {
            const peak_key fallback = p.gpu.peak(peak_key::bf16).supported ? peak_key::bf16 : peak_key::fp16;
            if (p.gpu.peak(fallback).supported) {
                notes.push_back(std::string(to_string(d)) + " has no tensor-core path on " + p.gpu.id + " (" +
                                p.gpu.sm_arch + "): attention computes at " + std::string(to_string(fallback)) +
                                " (operands dequantised in the kernel); bytes still at " + std::string(to_string(d)));
                math = fallback;
            }
        }
        const auto w = attention_workload(s, {g}, kv, d, math,
                                          p.gpu.peak(peak_key::fp8).supported ? peak_key::fp8 : math);
        const std::string title = fmt::format("attention B={:g} q={:g} kv={:g} H={:g}{} {}", o.batch, o.q_len, o.kv_len,
                                              o.heads, o.mla ? " MLA" : "", to_string(d));
        auto j = report(title, w, p, notes,
                        {{"attention", attention_features(w, math, o.batch, o.q_len, o.heads, d_qk + d_pe, o.causal,
                                                         o.mla ? 0.0 : s.kv_heads, p.gpu.sm_count.value_or(0))}});
        j["attention"] = {{"kind", o.mla ? "mla" : "gqa"}, {"causal", o.causal}, {"absorbed", o.absorbed},
                          {"pairs_per_sequence", attention_pairs(g, s.index_topk > 0 ? s.index_topk : s.window, s.causal)},
                          {"kv_bytes_per_token", attention_kv_bytes_per_token(s, kv)}};
        if (p.gpu.smem_per_block_bytes.known()) {
            std::vector<attention_tile_feasibility> rejected;
            try {
                const auto t = choose_attention_tile(d_qk, d_pe, d_v, *p.gpu.smem_per_block_bytes.value, &rejected);
                j["attention"]["tile"] = {{"block_m", t.tile.block_m}, {"block_n", t.tile.block_n},
                                          {"smem_bytes", t.smem_bytes}, {"smem_limit_bytes", t.smem_limit_bytes}};
                lines.push_back(fmt::format("tile {}x{} ({:.0f} B of {:.0f} B shared memory per block)", t.tile.block_m,
                                            t.tile.block_n, t.smem_bytes, t.smem_limit_bytes));
            } catch (const usage_error& e) {
                lines.push_back(e.what());
            }
            nlohmann::json rj = nlohmann::json::array();
            for (const auto& r : rejected) {
                rj.push_back({{"block_m", r.tile.block_m}, {"block_n", r.tile.block_n}, {"smem_bytes", r.smem_bytes},
                              {"reason", r.reason}});
                lines.push_back("rejected: " + r.reason);
            }
            j["attention"]["rejected_tiles"] = rj;
        }
        print(j, o.c, lines);
    });
}

// --- copy -----------------------------------------------------------------------------------

void add_copy(CLI::App* kernel) {
    struct options {
        kernel_common c;
        double bytes = 0;
        bool cold = false;
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = kernel->add_subcommand("copy", "Device-to-device copy: N bytes read and N bytes written");
    cmd->add_option("--bytes", o.bytes, "bytes copied")->required();
    cmd->add_flag("--cold", o.cold, "buffers not in L2 (first touch, or rotating buffers): priced at DRAM");
    add_common(cmd, o.c);
    cmd->callback([] {
        require_positive("--bytes", o.bytes, false, 1e15);
        const auto p = make_context(o.c, "copy", kernel_family::copy);
        // Copied back to back, a working set that fits in L2 is served from it (models/kernel_time.hpp).
        const bool l2 = !o.cold && fits_in_l2(2.0 * o.bytes, p.gpu.l2_bytes.value_or(0)) &&
                        std::isfinite(p.used.bytes_at(memory_level::l2)) && std::isfinite(p.datasheet.bytes_at(memory_level::l2));
        const workload w = copy_workload(o.bytes, l2);
        std::vector<std::string> notes;
        std::vector<curve_part> parts;
        if (l2)
            notes.push_back(fmt::format("the {} touched fit in the {} L2: priced at L2 ({:.2f} TB/s; --cold for DRAM)",
                                        human_bytes(2.0 * o.bytes), human_bytes(p.gpu.l2_bytes.value_or(0)),
                                        p.used.bytes_at(memory_level::l2) / 1e12));
        else
            parts.push_back({"copy", copy_features(o.bytes)});
        auto j = report(fmt::format("copy {}", human_bytes(o.bytes)), w, p, notes, parts);
        j["copy"] = {{"bytes", o.bytes}, {"l2_resident", l2}};
        print(j, o.c, {});
    });
}

// --- collective -----------------------------------------------------------------------------

void add_collective(CLI::App* kernel) {
    struct options {
        kernel_common c;
        std::string op, algorithm, topology, p2p;
        bool p2p_sys = false;
        double bytes = 0;
        int ranks = 0, gpus_per_node = 0;
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = kernel->add_subcommand("collective", "All-reduce, all-gather, reduce-scatter or all-to-all");
    cmd->add_option("--topology", o.topology,
                    "`nvidia-smi topo -m` output of the host: sockets, PCIe switches and P2P set the PCIe ring");
    cmd->add_option("--p2p", o.p2p, "with --topology: on or off (default: the GPU's stock driver)");
    cmd->add_flag("--nccl-p2p-level-sys", o.p2p_sys,
                  "with --topology: NCCL uses P2P across sockets too (NCCL_P2P_LEVEL=SYS; NCCL's default does not)");
    cmd->add_option("--op", o.op, "all_reduce, all_gather, reduce_scatter or all_to_all")->required();
    cmd->add_option("--bytes", o.bytes, "buffer size S as nccl-tests counts it")->required();
    cmd->add_option("--ranks", o.ranks, "GPUs taking part")->required();
    cmd->add_option("--algorithm", o.algorithm, "ring, tree, one_shot or two_shot (default: the fastest)");
    cmd->add_option("--gpus-per-node", o.gpus_per_node,
                    "GPUs of one node (NVLink inside, the network between) for a network collective "
                    "(default: the GPU's scale-up domain when --ranks exceeds it, else 1)");
    add_common(cmd, o.c, true);
    cmd->callback([] {
        const auto op = parse_collective_op(o.op);
        require_positive("--bytes", o.bytes, false, 1e15);
        require_positive("--ranks", o.ranks);
        if (o.ranks < 2)  // priced, it read "0 steps x 16 us + 3.6 us base" and predicted 0
            throw usage_error("--ranks 1: a collective needs at least 2 ranks (one rank exchanges nothing)");
        if (o.gpus_per_node != 0) require_positive("--gpus-per-node", o.gpus_per_node);
        auto p = make_context(o.c, "collective", std::nullopt);
        std::vector<std::string> notes;
        // Ranks beyond one scale-up domain (models/collective.hpp `scale_up_domain`: 8 on an HGX
        // baseboard, 72 in an NVL72 rack) cross the scale-out network between domains. Without
        // --link they are priced as nodes x GPUs per node over the GPU's default fabric
        // (core/network.hpp), as `estimate` warns of for an instance wider than the domain.
        const auto [domain, domain_source] = scale_up_domain(p.gpu);
        const bool beyond = domain > 0 && o.ranks > domain;
        const bool fabric = default_network_fabric(p.gpu).has_value();
        if (o.gpus_per_node > 0 && !o.c.link.empty() && p.datasheet.link != link_kind::network)
            throw usage_error("--gpus-per-node lays ranks out on nodes joined by the network; the link here is " +
                              std::string(to_string(p.datasheet.link)) + " (--link network)");
        if (o.c.link.empty() && o.topology.empty() && fabric &&
            (beyond || (o.gpus_per_node > 0 && o.gpus_per_node < o.ranks))) {
            p = make_context(o.c, "collective", std::nullopt, link_kind::network);
            if (beyond && o.gpus_per_node == 0)
                notes.push_back(fmt::format("{} ranks are more than one {}-GPU scale-up domain ({}): priced as nodes of {} "
                                            "GPUs, NVLink inside a node and the network between (--link nvlink to price "
                                            "one NVLink domain)",
                                            o.ranks, domain, domain_source, domain));
        } else if (beyond && p.datasheet.link != link_kind::network) {
            notes.push_back(fmt::format("{} ranks are more than one {}-GPU scale-up domain ({}): priced at {} throughout{}; "
                                        "between domains the collective crosses the network and is slower",
                                        o.ranks, domain, domain_source, to_string(p.datasheet.link),
                                        o.c.link.empty() ? " (no network fabric known for " + p.gpu.id + ")"
                                                         : std::string(" as --link asks (--link network for the hierarchy)")));
        }
        if (p.datasheet.link == link_kind::network && o.gpus_per_node >= o.ranks && p.gpu.default_link() != link_kind::network) {
            // Every rank on one node: nothing crosses the network (it was priced as a ring over the
            // NICs, slower than the same ranks on two nodes).
            p = make_context(o.c, "collective", std::nullopt, p.gpu.default_link());
            notes.push_back(fmt::format("{} ranks fit one node of {} GPUs: nothing crosses the network, priced at {}",
                                        o.ranks, o.gpus_per_node, to_string(p.datasheet.link)));
        }
        const bool network = p.datasheet.link == link_kind::network;
        // The nodes: --gpus-per-node, else the domain when the ranks exceed it, else one rank per
        // node (a flat ring over the NICs, as --link network alone always priced).
        const int gpn = o.gpus_per_node > 0 ? o.gpus_per_node : (network && beyond ? domain : 1);
        const collective_layout layout = network ? layout_of(o.ranks, gpn) : collective_layout{1, o.ranks};
        std::optional<link_params> scale_up;  // the link inside a node of a network hierarchy
        if (network && layout.nodes > 1 && layout.gpus_per_node > 1) {
            try {
                scale_up = default_link_params(p.gpu, p.gpu.default_link());
            } catch (const usage_error& e) {
                notes.push_back(std::string("the link inside a node is unknown (") + e.what() +
                                "): priced as a flat ring over the network");
            }
        } else if (network && o.gpus_per_node == 0 && !beyond && o.ranks > 1) {
            notes.push_back(fmt::format("--link network with {} ranks: priced as one rank per node, a flat ring over the "
                                        "NICs (--gpus-per-node for ranks that share a node's NVLink)",
                                        o.ranks));
        }
        if (network) p.link.p2p = false;  // an overlay of an older version said true: no P2P kernels across hosts
        collective_algorithm forced = collective_algorithm::ring;
        if (!o.algorithm.empty()) {
            if (o.algorithm == "ring") forced = collective_algorithm::ring;
            else if (o.algorithm == "tree") forced = collective_algorithm::tree;
            else if (o.algorithm == "one_shot") forced = collective_algorithm::one_shot;
            else if (o.algorithm == "two_shot") forced = collective_algorithm::two_shot;
            else throw usage_error("unknown --algorithm \"" + o.algorithm + "\" (accepted: ring, tree, one_shot, two_shot)");
        }
        const auto price = [&](const link_params& l) {
            return o.algorithm.empty() ? best_collective(op, o.bytes, o.ranks, l) : collective_time(op, o.bytes, o.ranks, l, forced);
        };
        // Lower bound: the datasheet link with NCCL's alpha and base, whatever was measured.
        // Prediction: the calibrated link of the overlay, else a measured all-reduce profile of this
        // GPU and link (analysis/achievable.hpp, what `analyze` prices collectives with), else the
        // datasheet link. Link ceilings are not derated.
        const link_params ds_link = default_link_params(p.gpu, p.datasheet.link);  // throws, saying why
        std::optional<collective_levels> levels;
        if (scale_up) levels = hierarchical_levels(op, o.bytes, layout, *scale_up, ds_link);
        const link_params ds_lp = scale_up ? hierarchical_link_params(op, layout, *scale_up, ds_link) : ds_link;
        if (scale_up && !o.algorithm.empty() && forced != collective_algorithm::ring)
            throw usage_error("--algorithm " + o.algorithm + ": across nodes the hierarchy is priced as a ring (NCCL's ring or "
                              "tree of rings inside each node)");
        const collective_cost lb = price(ds_lp);
        link_params lp = ds_lp;
        std::string predicted_by = "datasheet link";
        std::optional<measured_link_profile> prof;
        std::optional<host_topology_summary> topo;
        if (!o.topology.empty()) {
            if (p.datasheet.link == link_kind::nvlink || p.datasheet.link == link_kind::network)
                throw usage_error("--topology prices PCIe collectives; the link here is " + std::string(to_string(p.datasheet.link)) +
                                  " (--link pcie)");
            topo = summarize_topology(read_nvidia_smi_topo(o.topology));
            if (topo->gpus < o.ranks)
                throw usage_error("--topology: " + o.topology + " shows " + std::to_string(topo->gpus) + " GPUs, fewer than --ranks " +
                                  std::to_string(o.ranks));
        } else if (!o.p2p.empty() || o.p2p_sys) {
            throw usage_error("--p2p and --nccl-p2p-level-sys need --topology");
        }
        if (!o.p2p.empty() && o.p2p != "on" && o.p2p != "off") throw usage_error("--p2p: on or off, got \"" + o.p2p + "\"");
        if (p.cal)
            for (const auto& x : p.cal->links)
                if (x.link != p.datasheet.link)
                    notes.push_back(fmt::format("the calibration's {} link ({} over {} ranks) was not used: this collective is "
                                                "priced over {}{}",
                                                to_string(x.link), x.op, x.ranks, to_string(p.datasheet.link),
                                                x.link == link_kind::network ? fmt::format(
                                                    " ({} ranks{}); --link network to price it across nodes", o.ranks,
                                                    domain > 0 && !beyond ? fmt::format(" fit in one {}-GPU scale-up domain", domain) : "")
                                                                             : std::string(" (--link to choose)")));
        if (const auto* fitted = p.cal ? p.cal->link_for(p.datasheet.link) : nullptr) {
            lp = p.link;
            predicted_by = "calibration";
            // The fit measured one collective at one rank count; say so when this is another.
            if (fitted->op != std::string(to_string(op)) || fitted->ranks != o.ranks)
                notes.push_back(fmt::format("the calibrated {} link was fitted to {} over {} ranks; applied to {} over {} "
                                            "ranks as measured (its base latency {:.1f} us included): measure this "
                                            "collective at this size for a fitted answer",
                                            to_string(fitted->link), fitted->op, fitted->ranks, to_string(op), o.ranks,
                                            fitted->params.base_latency_s * 1e6));
        } else if (topo) {
            const bool p2p = o.p2p.empty() ? p.gpu.p2p.value_or(0.0) > 0.0 : o.p2p == "on";
            lp = pcie_ring_params(*topo, p.gpu, p2p, o.p2p_sys);
            predicted_by = "host topology";
        } else if (p.cal && p.cal->link_bytes_per_s && !scale_up) {
            lp.beta_bytes_per_s = *p.cal->link_bytes_per_s, lp.source += "; beta from calibration";
            predicted_by = "calibration (beta)";
        } else if (!scale_up && (prof = find_link_profile(p.gpu, p.datasheet.link))) {
            lp = link_params_from_profile(*prof);
            predicted_by = "measured profile";
        }
        const collective_cost c = price(lp);
        notes.insert(notes.begin(), lp.source);
        ceilings used = p.datasheet;
        used.launch_latency_s = 0;  // the collective's base latency covers its launch
        used.link_bytes_per_s = lp.beta_bytes_per_s;
        if (predicted_by.rfind("calibration", 0) == 0 && p.cal) used.origin += " + calibrated link: " + p.cal->source;
        p.used = used;
        auto j = report(fmt::format("{} {} over {} ranks ({})", to_string(op), human_bytes(o.bytes), o.ranks,
                                    to_string(c.algorithm)),
                        c.work(), p, notes);
        ceilings ds = p.datasheet;
        ds.launch_latency_s = 0;
        ds.link_bytes_per_s = ds_lp.beta_bytes_per_s;
        j["lower_bound_s"] = time_lower_bound(lb.work(), ds).lower_bound_s;
        j["predicted_by"] = predicted_by;
        j["bytes"] = o.bytes;
        j["collective"] = {{"op", std::string(to_string(op))},
                           {"algorithm", std::string(to_string(c.algorithm))},
                           {"ranks", o.ranks},
                           {"link", std::string(to_string(p.datasheet.link))},
                           {"steps", c.steps},
                           {"alpha_s", lp.alpha_s},
                           {"base_latency_s", lp.base_latency_s},
                           {"beta_bytes_per_s", lp.beta_bytes_per_s},
                           {"algbw_bytes_per_s", c.algbw_bytes_per_s},
                           {"busbw_bytes_per_s", c.busbw_bytes_per_s},
                           {"busbw_factor", busbw_factor(op, o.ranks)},
                           {"datasheet",
                            {{"algorithm", std::string(to_string(lb.algorithm))},
                             {"alpha_s", ds_lp.alpha_s},
                             {"base_latency_s", ds_lp.base_latency_s},
                             {"beta_bytes_per_s", ds_lp.beta_bytes_per_s},
                             {"time_s", lb.time_s}}},
                           {"layout",
                            {{"nodes", layout.nodes},
                             {"gpus_per_node", layout.gpus_per_node},
                             {"scale_up_domain", domain},
                             {"scale_up_domain_source", domain_source}}}};
        if (levels) {
            j["collective"]["levels"] = {{"intra_node_bytes_per_gpu", levels->intra_bytes},
                                         {"intra_node_bytes_per_s", levels->intra_bytes_per_s},
                                         {"intra_node_s", levels->intra_s},
                                         {"inter_node_bytes_per_node", levels->inter_bytes},
                                         {"inter_node_bytes_per_s", levels->inter_bytes_per_s},
                                         {"inter_node_s", levels->inter_s},
                                         {"bound_by", levels->network_bound() ? "inter_node" : "intra_node"},
                                         {"effective_busbw_bytes_per_s", levels->effective_bytes_per_s}};
        }
        if (c.time_s < lb.time_s * (1 - 1e-9))
            j["notes"].push_back(fmt::format("the prediction ({}) is below the datasheet lower bound ({}): the {} beats "
                                             "the datasheet, check the fit or the GPU's link",
                                             human_time_3dp(c.time_s), human_time_3dp(lb.time_s), predicted_by));
        std::vector<std::string> lines{
            fmt::format("predicted by the {}: {} steps x {:.2f} us + {:.1f} us base; algbw {:.1f} GB/s, busbw {:.1f} GB/s "
                        "(nccl-tests)",
                        predicted_by, c.steps, lp.alpha_s * 1e6, lp.base_latency_s * 1e6, c.algbw_bytes_per_s / 1e9,
                        c.busbw_bytes_per_s / 1e9)};
        if (levels)
            lines.push_back(fmt::format("levels (the lower bound): {} nodes x {} GPUs; inside a node {} per GPU at {:.1f} GB/s "
                                        "= {}, between nodes {} per node at {} x {:.1f} GB/s = {}: the {} level bounds it",
                                        layout.nodes, layout.gpus_per_node, human_bytes(levels->intra_bytes),
                                        levels->intra_bytes_per_s / 1e9, human_time_3dp(levels->intra_s),
                                        human_bytes(levels->inter_bytes), layout.gpus_per_node,
                                        levels->inter_bytes_per_s / layout.gpus_per_node / 1e9, human_time_3dp(levels->inter_s),
                                        levels->network_bound() ? "network" : "intra-node"));
        if (predicted_by != "datasheet link")
            lines.push_back(fmt::format("datasheet link (the lower bound): {}, busbw {:.1f} GB/s", human_time_3dp(lb.time_s),
                                        lb.busbw_bytes_per_s / 1e9));
        if (topo) {
            j["topology"] = {{"file", o.topology},
                             {"gpus", topo->gpus},
                             {"sockets", topo->sockets},
                             {"max_gpus_per_socket", topo->max_gpus_per_socket},
                             {"pcie_switches", topo->switches},
                             {"max_gpus_per_switch", topo->max_gpus_per_switch},
                             {"ring_socket_crossings", topo->ring_socket_crossings},
                             {"staged", lp.p2p == false}};
            lines.push_back(fmt::format("host topology ({}): {} GPUs on {} socket(s) (up to {} each), {} PCIe switch(es); {}",
                                        o.topology, topo->gpus, topo->sockets, topo->max_gpus_per_socket, topo->switches,
                                        lp.source));
        }
        if (prof) {
            j["measured_profile"] = {{"time_s", c.time_s},
                                     {"busbw_bytes_per_s", c.busbw_bytes_per_s},
                                     {"algorithm", std::string(to_string(c.algorithm))},
                                     {"profile_ranks", prof->ranks},
                                     {"source", lp.source}};
            lines.push_back(fmt::format("measured profile: {} ranks, {}", prof->ranks, lp.source));
        }
        print(j, o.c, lines);
    });
}

}  // namespace

void add_kernel_command(CLI::App& app, common_options& common) {
    (void)common;
    auto* kernel = app.add_subcommand("kernel", "Price one kernel on one GPU: gemm, moe, attention, copy, collective");
    kernel->require_subcommand(1);
    add_gemm(kernel);
    add_moe(kernel);
    add_attention(kernel);
    add_copy(kernel);
    add_collective(kernel);
}

}  // namespace roofline::cli
