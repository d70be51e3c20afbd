#pragma once
// What bounds a serving run: a benchmark result (SGLang / vLLM) paired with a model of the
// served model's decode and prefill steps at the run's concurrency and lengths.
//
// Steady state (analysis/steady_state.hpp, shared with `roofline plan`). With C requests in
// flight, each of ISL prompt and OSL output tokens, the engine alternates decode steps (b = C / pp
// sequences at mean context L = ISL + OSL/2) and prefill chunks. If a decode step takes t_dec and
// prefill costs t_pre per prompt token, a fully busy engine produces output tokens at
//     r_out = 1 / ( t_dec / b + (ISL / OSL) x t_pre )         per model instance,
// and total (input + output) tokens at r_out x (1 + ISL / OSL). The time shares of decode and
// prefill follow from the two terms, and each splits further into its phases (attention, MoE
// GEMM, dense GEMM, communication, ...). Two prices are computed for every phase:
//   * speed of light (SOL): the lower bound at datasheet ceilings and datasheet link bandwidth;
//   * modeled: the same work at achievable ceilings and a measured link profile where one is
//     known (analysis/achievable.hpp).
// The achieved throughput is compared with both. A run is classified by the verdict rules
// (analysis/verdict.hpp), with modeled time shares standing in for the critical path.

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cmath>      // std::isfinite
#include <cstdio>     // std::snprintf
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/achievable.hpp"
#include "roofline/analysis/power_cap_cost.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/power_window.hpp"
#include "roofline/analysis/steady_state.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/network.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/parameters.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/trace/bench.hpp"
#include "roofline/trace/power.hpp"

namespace roofline {

/// Everything `analyze_serving` needs besides the benchmark run.
struct serving_setup {
    const gpu_spec* gpu = nullptr;        ///< required
    int gpu_count = 1;                    ///< GPUs serving the run (all instances)
    parallel_layout layout;               ///< per model instance
    std::optional<double> isl, osl;       ///< override the run's input/output lengths (tokens)
    std::optional<double> concurrency;    ///< override the run's concurrency (requests in flight)
    std::optional<dtype> kv_cache;        ///< override the model's KV-cache dtype
    std::optional<link_kind> link;        ///< default: the GPU's default link
    std::optional<link_params> link_override;  ///< e.g. from calibration; replaces the profile
    std::optional<ceilings> ceilings_override; ///< e.g. from calibration; replaces datasheet ceilings
    /// Replaces the modeled (achievable) ceilings, e.g. calibrated ones (`apply_calibration`).
    std::optional<ceilings> modeled_ceilings_override;
    /// The largest prefill batch one step takes (SGLang's default `--chunked-prefill-size`).
    double prefill_chunk_tokens = default_prefill_chunk_tokens;
    kernel_efficiency fractions;
    verdict_thresholds thresholds;
};

/// One phase of the run with its modeled share of the engine's busy time.
struct serving_phase {
    std::string name;        ///< "decode/attention", "prefill/moe_gemm", ...
    std::string stage;       ///< "decode" or "prefill"
    step_phase phase = step_phase::attention;
    double sol_step_s = 0;       ///< lower bound per step of its stage, datasheet ceilings
    double modeled_step_s = 0;   ///< modeled time per step of its stage
    double share = 0;            ///< share of the modeled busy time of the whole run, [0, 1]
    bound predicted = bound::latency;
    double compute_s = 0, memory_s = 0, link_s = 0, latency_s = 0;  ///< modeled roof times per step
};

/// The analysis of one run.
struct serving_analysis {
    // What was assumed, and from where.
    double concurrency = 0;
    std::string concurrency_source;
    std::optional<double> isl, osl;
    std::string lengths_source;
    double decode_context_tokens = 0;  ///< mean context during decode: ISL + OSL/2
    int instances = 1;                  ///< model instances: gpu_count / layout.gpus()
    /// Requests decoding at once per instance: the concurrency, or fewer when the KV cache cannot
    /// hold them all (the rest queue).
    double decode_batch = 0;
    double decode_sequences = 0;        ///< per decode step: decode_batch / pp (pipeline micro-batches)
    bool fits = true;                   ///< false when the weights alone exceed GPU memory

    // The model.
    double decode_sol_step_s = 0, decode_modeled_step_s = 0;
    std::optional<double> prefill_sol_s_per_token, prefill_modeled_s_per_token;
    double decode_share = 1.0;            ///< modeled share of busy time in decode
    std::vector<serving_phase> phases;
    link_kind link = link_kind::pcie;   ///< the link collectives were priced on
    link_params sol_link, modeled_link;
    std::string ceilings_origin;

    // Roofs (all instances together), tokens/s.
    double sol_output_tokens_per_s = 0, modeled_output_tokens_per_s = 0;
    std::optional<double> sol_total_tokens_per_s, modeled_total_tokens_per_s;

    // What was achieved, and against which roof.
    std::string achieved_metric;          ///< "output_throughput", "max_output_tokens_per_s", "total_throughput", "output_tput_per_gpu", "tput_per_gpu"
    std::optional<double> achieved_tokens_per_s;
    std::optional<double> fraction_of_modeled, fraction_of_sol;
    bool consistent = true;               ///< false when achieved exceeds the modeled roof
    /// The setup cannot be what ran (its weights do not fit, or the run beat the roof): the
    /// verdict's bound is then the modeled wall, not a finding.
    bool inconsistent_input() const { return !fits || !consistent; }
    /// Measured time per output token (median TPOT, else mean) against the modeled decode step:
    /// a per-step view of the same gap, independent of how prefill was scheduled.
    std::optional<double> measured_tpot_s;

    // Memory and concurrency checks.
    double weight_bytes_per_gpu = 0;
    double kv_bytes_per_token_per_gpu = 0;
    std::optional<double> kv_capacity_tokens_per_gpu;
    std::optional<double> kv_tokens_needed_per_gpu;
    std::optional<double> implied_concurrency;  ///< Little's law: request rate x mean latency

    std::optional<power_evidence> power;
    /// Per GPU of the log, over the run's window (analysis/power_window.hpp).
    std::vector<run_gpu_power> power_per_gpu;
    std::string power_window;  ///< which samples were used, for people
    int power_gpu = -1;  ///< the capped GPU whose evidence `power` is (-1: all GPUs' median)
    /// The modeled throughput at the card's power limit against a reference limit
    /// (analysis/power_cap_cost.hpp); nullopt where the GPU has no power coefficients.
    std::optional<power_cap_cost> power_cap;
    verdict result;
    std::vector<std::string> notes;      ///< assumptions and model notes
    std::vector<std::string> warnings;   ///< inconsistencies worth acting on
    /// Work the roofs could not price, one line per step ("decode step: bf16 ceiling unknown
    /// (3.1 GFLOP left out)"): a ceiling the GPU lacks or whose value is unknown. Empty when
    /// every FLOP and link byte was priced. The roofs then exclude that work (optimistic).
    std::vector<std::string> unpriced;
};

/// Analyses one benchmark run of model `m` served as `setup` says, with an optional power log
/// (only its samples inside the run's own window when the bench file gives one, see
/// analysis/power_window.hpp; evidence per GPU, a capped GPU gating the run).
/// Throws `usage_error` when the concurrency cannot be found or given, or the layout does not
/// match the GPU count.
serving_analysis analyze_serving(const bench_run& run, const model_config& m, const serving_setup& setup,
                                 const power_log* power = nullptr);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
namespace detail::serving {
inline std::string fmt_num(double v, int digits = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}
inline std::string fmt_pct(double f) { return fmt_num(100.0 * f, 0) + "%"; }

/// Prices a step under SOL and modeled ceilings.
struct priced_step {
    step_model sol_model, modeled_model;
    step_time sol, modeled;
};

inline priced_step price(const model_config& m, const step_batch& b, const serving_setup& s,
                         const ceilings& sol_c, const ceilings& mod_c, const link_params& sol_link,
                         const link_params& mod_link) {
    step_options o;
    o.kv_cache = s.kv_cache;
    o.link = s.link;
    o.link_override = sol_link;
    priced_step p;
    p.sol_model = model_step(m, b, s.layout, *s.gpu, o);
    o.link_override = mod_link;
    p.modeled_model = model_step(m, b, s.layout, *s.gpu, o);
    p.sol = price_step(p.sol_model, sol_c);
    p.modeled = price_step(p.modeled_model, mod_c);
    return p;
}

/// The power limit's cost (analysis/power_cap_cost.hpp) of the priced decode step `dec` and
/// prefill chunk `pre` (of `pre_tokens`): at the enforced limit of the power log when it gives
/// one, else the GPU's default, against `power_cap_reference`. nullopt when either board's
/// power cannot be priced.
inline std::optional<power_cap_cost> cap_cost(const serving_analysis& a, const gpu_spec& g, const serving_setup& setup,
                                              const ceilings& modeled, const priced_step& dec, const priced_step* pre,
                                              double pre_tokens, double ratio) {
    const auto own = default_power_coefficients(g);
    if (!own) return std::nullopt;
    const bool from_log = a.power && a.power->limit_from_log && a.power->limit_w;
    const double limit = from_log ? *a.power->limit_w : g.power_limit_w.value_or(std::numeric_limits<double>::quiet_NaN());
    if (!(limit > 0)) return std::nullopt;
    const auto ref = power_cap_reference(g, limit);
    ceilings ref_c = modeled;
    if (ref.gpu.id != g.id) {
        ref_c = achievable_ceilings(datasheet_ceilings(ref.gpu, a.link), setup.fractions);
        ref_c.link_bytes_per_s = modeled.link_bytes_per_s;
    }
    const step_model* pre_model = pre ? &pre->modeled_model : nullptr;
    // The run's own pace: it reached `fraction_of_modeled` of the modeled roof, so its steps
    // draw the power of that activity, not the roof's (power_cap_cost.hpp).
    const double pace = a.fraction_of_modeled && *a.fraction_of_modeled > 0 && *a.fraction_of_modeled < 1
                            ? 1.0 / *a.fraction_of_modeled
                            : 1.0;
    const auto at = throughput_under_limit(g, modeled, limit, dec.modeled_model, pre_model, pre_tokens,
                                           a.decode_sequences, a.decode_batch, ratio, a.instances, pace);
    const auto rt = throughput_under_limit(ref.gpu, ref_c, ref.limit_w, dec.modeled_model, pre_model, pre_tokens,
                                           a.decode_sequences, a.decode_batch, ratio, a.instances, pace);
    if (!at || !rt || !(rt->output_tokens_per_s > 0)) return std::nullopt;
    power_cap_cost c;
    c.at_limit = *at;
    c.reference = *rt;
    c.limit_source = from_log ? "enforced, from the power log" : "the catalog default";
    c.reference_why = ref.why;
    c.cost_fraction = 1.0 - at->output_tokens_per_s / rt->output_tokens_per_s;
    c.pace = pace;
    c.coefficients_source = own->source;
    if (ref.gpu.id != g.id)
        if (const auto rc = default_power_coefficients(ref.gpu)) c.coefficients_source += "; " + rc->source;
    return c;
}
}  // namespace detail::serving

ROOFLINE_INLINE serving_analysis analyze_serving(const bench_run& run, const model_config& m, const serving_setup& setup,
                                                 const power_log* power) {
    using namespace detail::serving;
    if (!setup.gpu) throw usage_error("analyze: no GPU given");
    const gpu_spec& g = *setup.gpu;
    setup.layout.validate();
    serving_analysis a;

    // --- the run's shape ---
    if (setup.concurrency) {
        a.concurrency = *setup.concurrency;
        a.concurrency_source = "--concurrency";
    } else if (run.max_concurrency) {
        a.concurrency = *run.max_concurrency;
        a.concurrency_source = "max_concurrency";
    } else if (run.concurrency) {
        a.concurrency = *run.concurrency;
        a.concurrency_source = "bench key 'concurrency': mean requests in flight, queued ones included";
    } else if (run.max_concurrent_requests) {
        a.concurrency = *run.max_concurrent_requests;
        a.concurrency_source = "max_concurrent_requests";
    } else {
        throw usage_error(run.file + ": the run gives no concurrency (max_concurrency, concurrency): pass --concurrency");
    }
    if (!(a.concurrency >= 1) || !std::isfinite(a.concurrency))
        throw usage_error(run.file + ": " + a.concurrency_source + " = " + fmt_num(a.concurrency, 2) +
                          ": the concurrency must be a finite number >= 1");

    const auto per_request = [&](const std::optional<double>& total) -> std::optional<double> {
        if (total && run.completed && *run.completed > 0) return *total / *run.completed;
        return std::nullopt;
    };
    if (setup.isl || setup.osl) {
        a.isl = setup.isl;
        a.osl = setup.osl;
        a.lengths_source = "--isl/--osl";
    }
    if (!a.isl || !a.osl) {
        // Measured means first (what the requests really were); the generator's nominal lengths
        // only for random datasets with fixed lengths.
        const auto mean_of = [](const std::vector<double>& v) -> std::optional<double> {
            if (v.empty()) return std::nullopt;
            double t = 0;
            for (double x : v) t += x;
            return t / static_cast<double>(v.size());
        };
        const bool nominal_ok = (run.dataset.empty() || run.dataset == "random") &&
                                (!run.random_range_ratio || *run.random_range_ratio == 1.0);
        if (auto i = per_request(run.total_input_tokens), o = per_request(run.total_output_tokens); i && o) {
            if (!a.isl) a.isl = i;
            if (!a.osl) a.osl = o;
            a.lengths_source = "total tokens / completed requests";
        } else if (auto mi = mean_of(run.input_lens), mo = mean_of(run.output_lens); mi && mo) {
            if (!a.isl) a.isl = mi;
            if (!a.osl) a.osl = mo;
            a.lengths_source = "mean of input_lens/output_lens";
        } else if (run.random_input_len && run.random_output_len && nominal_ok) {
            if (!a.isl) a.isl = run.random_input_len;
            if (!a.osl) a.osl = run.random_output_len;
            a.lengths_source = "random_input_len/random_output_len";
        }
    }
    if (!a.isl || !a.osl) {
        a.isl.reset();
        a.osl.reset();
        a.lengths_source = "unknown";
        a.notes.push_back("input/output lengths are not in the bench file: decode attention is priced at its "
                          "floor (one cached token) and prefill is not modeled; pass --isl and --osl for a tighter roof");
    }
    a.decode_context_tokens = a.isl ? mean_decode_context_tokens(*a.isl, *a.osl) : 1.0;

    const int per_instance = setup.layout.gpus();
    if (setup.gpu_count % per_instance != 0)
        throw usage_error("analyze: --count " + std::to_string(setup.gpu_count) + " is not a multiple of tp x dp x pp = " +
                          std::to_string(per_instance));
    a.instances = setup.gpu_count / per_instance;
    const double c_instance = a.concurrency / a.instances;
    // Tensor parallelism splits the attention heads: say what does not divide (engines refuse
    // such a layout, or pad / replicate heads); the model splits evenly regardless.
    if (std::string w = tp_head_split_problem(m, setup.layout.tp); !w.empty()) a.warnings.push_back(std::move(w));
    // Pipeline stages each hold one of pp micro-batches (analysis/steady_state.hpp).

    // --- ceilings and links ---
    const link_kind lk = setup.link.value_or(g.default_link());
    a.link = lk;
    const ceilings sol_c = setup.ceilings_override ? *setup.ceilings_override : datasheet_ceilings(g, lk);
    const ceilings mod_c =
        setup.modeled_ceilings_override ? *setup.modeled_ceilings_override : achievable_ceilings(sol_c, setup.fractions);
    a.ceilings_origin = sol_c.origin;
    if (setup.modeled_ceilings_override) a.ceilings_origin += "; modeled: " + mod_c.origin;
    a.sol_link = link_params_or_unpriced(g, lk);
    if (!a.sol_link.known()) {
        if (per_instance > 1) {
            a.warnings.push_back(a.sol_link.source + ": the " + std::to_string(per_instance) +
                                 " GPUs of an instance exchange bytes no roof prices (pass --link, or a "
                                 "--gpu-file entry with the link bandwidth)");
        } else {
            a.sol_link.beta_bytes_per_s = 1.0;
            a.sol_link.source = "unused: one GPU per instance";
        }
    }
    if (setup.link_override) {
        a.modeled_link = *setup.link_override;
    } else if (auto prof = find_link_profile(g, lk)) {
        a.modeled_link = link_params_from_profile(*prof);
    } else if (auto p2p_prof = find_link_profile(g, link_kind::pcie); p2p_prof && lk == link_kind::pcie_no_p2p) {
        // Without P2P every byte is staged through host memory and crosses PCIe twice (ours): half
        // the measured P2P bus bandwidth, with the no-P2P step latency fitted to C03.
        a.modeled_link = link_params_from_profile(*p2p_prof);
        a.modeled_link.beta_bytes_per_s /= 2.0;
        a.modeled_link.alpha_s = std::max(a.modeled_link.alpha_s, a.sol_link.alpha_s);
        a.modeled_link.p2p = false;
        a.modeled_link.source = "half the measured P2P busbw (staged through the host): " + a.modeled_link.source;
    } else {
        a.modeled_link = a.sol_link;
        if (per_instance > 1)
            a.notes.push_back("no measured collective profile for " + g.id + " over " + std::string(to_string(lk)) +
                              ": collectives modeled at datasheet link bandwidth (calibrate from nccl-tests)");
    }

    // A tensor-parallel group wider than one scale-up domain (models/collective.hpp
    // `scale_up_domain`: 8 GPUs on an HGX baseboard) crosses the network between domains: with no
    // --link its collectives are priced as the hierarchy of nodes x domain GPUs, NVLink inside a
    // node and the GPU's default fabric between (`hierarchical_link_params`, the all-reduce
    // levels), as `kernel collective` prices them and `estimate` warns of.
    if (const auto dom = scale_up_domain(g); !setup.link && dom.first > 0 && setup.layout.tp > dom.first) {
        const auto fabric = default_network_fabric(g);
        if (fabric && a.sol_link.known() && a.modeled_link.known()) {
            const auto l = layout_of(setup.layout.tp, dom.first);
            const auto net = network_link_params(*fabric);
            a.sol_link = hierarchical_link_params(collective_op::all_reduce, l, a.sol_link, net);
            a.modeled_link = hierarchical_link_params(collective_op::all_reduce, l, a.modeled_link, net);
            a.notes.push_back("TP" + std::to_string(setup.layout.tp) + " spans " + std::to_string(l.nodes) + " " +
                              std::to_string(dom.first) + "-GPU scale-up domains (" + dom.second +
                              "): its collectives priced as nodes of " + std::to_string(dom.first) +
                              " GPUs, NVLink inside a node and " + fabric->name + " between (" +
                              fmt_num(a.modeled_link.beta_bytes_per_s / 1e9, 1) + " GB/s busbw for the all-reduce)");
        } else {
            a.notes.push_back("TP" + std::to_string(setup.layout.tp) + " spans more than one " +
                              std::to_string(dom.first) + "-GPU scale-up domain (" + dom.second +
                              "): collectives priced at the scale-up link (between domains they are slower)");
        }
    }

    // Collective work is link bytes plus latency: its bandwidth term is priced by the ceilings'
    // link roof, so each price uses its own link's beta.
    ceilings sol_link_c = sol_c, mod_link_c = mod_c;
    sol_link_c.link_bytes_per_s = a.sol_link.beta_bytes_per_s;
    mod_link_c.link_bytes_per_s = a.modeled_link.beta_bytes_per_s;

    // --- memory: weights and how many sequences the KV cache holds ---
    a.weight_bytes_per_gpu = weight_bytes_per_gpu(m, setup.layout);
    const dtype kv = setup.kv_cache.value_or(m.quant.kv_cache);
    a.kv_bytes_per_token_per_gpu = kv_per_gpu(m, kv, setup.layout.tp).bytes_per_token_per_gpu / setup.layout.pp;
    a.decode_batch = c_instance;
    if (g.memory_bytes.known() && a.weight_bytes_per_gpu > *g.memory_bytes.value) {
        a.fits = false;
        a.warnings.push_back("the weights need " + fmt_num(a.weight_bytes_per_gpu / 1e9, 1) + " GB per GPU but " + g.id +
                             " has " + fmt_num(*g.memory_bytes.value / 1e9) +
                             " GB: this setup cannot run as given (quantise with --quant, or use more GPUs)");
    }
    if (g.memory_bytes.known() && a.kv_bytes_per_token_per_gpu > 0) {
        // The engine's memory budget (vLLM gpu_memory_utilization, SGLang --mem-fraction-static:
        // ~0.9); the rest holds activations and CUDA graphs.
        const double usable = default_memory_utilization * *g.memory_bytes.value - a.weight_bytes_per_gpu;
        a.kv_capacity_tokens_per_gpu = std::max(0.0, usable) / a.kv_bytes_per_token_per_gpu;
        if (a.isl) {
            // A sequence holds ISL + OSL/2 tokens on average while it decodes, ISL + OSL at its end.
            const double per_seq_tokens = *a.isl + *a.osl;
            a.kv_tokens_needed_per_gpu = c_instance / setup.layout.dp * per_seq_tokens;
            const double fit = *a.kv_capacity_tokens_per_gpu * setup.layout.dp / a.decode_context_tokens;
            if (fit < c_instance) {
                a.decode_batch = std::max(1.0, std::floor(fit));
                a.warnings.push_back(
                    "the KV cache holds about " + fmt_num(*a.kv_capacity_tokens_per_gpu) + " tokens per GPU: only ~" +
                    fmt_num(a.decode_batch) + " of the " + fmt_num(c_instance) + " requests of ~" +
                    fmt_num(a.decode_context_tokens) + " tokens fit at once, so the decode batch is modeled at " +
                    fmt_num(a.decode_batch) + " (the rest queue)");
            }
        }
    }

    // Pipeline stages each hold one of pp micro-batches (analysis/steady_state.hpp).
    a.decode_sequences = a.decode_batch / setup.layout.pp;

    // --- decode step ---
    const auto dec = price(m, step_batch::decode(a.decode_sequences, a.decode_context_tokens), setup, sol_link_c,
                           mod_link_c, a.sol_link, a.modeled_link);
    a.decode_sol_step_s = dec.sol.lower_bound_s;
    a.decode_modeled_step_s = dec.modeled.lower_bound_s;
    for (const auto& n : dec.modeled_model.notes) a.notes.push_back(n);
    const auto report_unpriced = [&](const priced_step& p, const char* what) {
        const std::string u = unpriced_summary(step_unpriced(p.sol), sol_link_c);
        if (u.empty()) return;
        a.unpriced.push_back(std::string(what) + ": " + u);
        a.warnings.push_back(std::string(what) + ": " + u +
                             ": the roofs leave this work out and are optimistic (a --gpu-file entry with the "
                             "missing ceiling prices it)");
    };
    report_unpriced(dec, "decode step");

    // --- prefill, per prompt token ---
    std::optional<priced_step> pre;
    double pre_tokens = 0;
    if (a.isl) {
        const auto chunk = steady_prefill_chunk(*a.isl, c_instance, setup.prefill_chunk_tokens);
        pre_tokens = chunk.tokens;
        pre = price(m, chunk.batch(), setup, sol_link_c, mod_link_c, a.sol_link, a.modeled_link);
        a.prefill_sol_s_per_token = pre->sol.lower_bound_s / pre_tokens;
        a.prefill_modeled_s_per_token = pre->modeled.lower_bound_s / pre_tokens;
        report_unpriced(*pre, "prefill chunk");
    }

    // --- steady-state roofs ---
    const double ratio = (a.isl && a.osl && *a.osl > 0) ? *a.isl / *a.osl : 0.0;
    const auto sol_rates = steady_state(a.decode_sol_step_s, a.decode_sequences, a.decode_batch,
                                        a.prefill_sol_s_per_token, ratio);
    const auto mod_rates = steady_state(a.decode_modeled_step_s, a.decode_sequences, a.decode_batch,
                                        a.prefill_modeled_s_per_token, ratio);
    a.sol_output_tokens_per_s = a.instances * sol_rates.output_tokens_per_s;
    a.modeled_output_tokens_per_s = a.instances * mod_rates.output_tokens_per_s;
    if (a.isl) {
        a.sol_total_tokens_per_s = a.instances * sol_rates.total_tokens_per_s;
        a.modeled_total_tokens_per_s = a.instances * mod_rates.total_tokens_per_s;
    }
    a.decode_share = mod_rates.decode_share;

    const auto add_phases = [&](const priced_step& p, const std::string& stage, double stage_share) {
        for (auto ph : all_step_phases) {
            const auto& mt = p.modeled.at(ph);
            serving_phase sp;
            sp.stage = stage;
            sp.phase = ph;
            sp.name = stage + "/" + std::string(to_string(ph));
            sp.sol_step_s = p.sol.at(ph).lower_bound_s;
            sp.modeled_step_s = mt.lower_bound_s;
            sp.share = stage_share * p.modeled.share(ph);
            sp.predicted = mt.predicted;
            sp.compute_s = mt.compute_s;
            sp.memory_s = mt.memory_s;
            sp.link_s = mt.link_s;
            sp.latency_s = mt.latency_s;
            if (sp.modeled_step_s > 0) a.phases.push_back(sp);
        }
    };
    add_phases(dec, "decode", a.decode_share);
    if (pre) add_phases(*pre, "prefill", 1.0 - a.decode_share);

    // --- what was achieved ---
    if (run.output_throughput_tok_per_s) {
        a.achieved_metric = "output_throughput";
        a.achieved_tokens_per_s = run.output_throughput_tok_per_s;
        a.fraction_of_modeled = *a.achieved_tokens_per_s / a.modeled_output_tokens_per_s;
        a.fraction_of_sol = *a.achieved_tokens_per_s / a.sol_output_tokens_per_s;
    } else if (run.total_throughput_tok_per_s && a.modeled_total_tokens_per_s) {
        a.achieved_metric = "total_throughput";
        a.achieved_tokens_per_s = run.total_throughput_tok_per_s;
        a.fraction_of_modeled = *a.achieved_tokens_per_s / *a.modeled_total_tokens_per_s;
        a.fraction_of_sol = *a.achieved_tokens_per_s / *a.sol_total_tokens_per_s;
    } else if (run.output_tput_per_gpu_tok_per_s) {
        // InferenceX aggregated results give throughput per GPU: times the GPUs serving the run.
        a.achieved_metric = "output_tput_per_gpu";
        a.achieved_tokens_per_s = *run.output_tput_per_gpu_tok_per_s * setup.gpu_count;
        a.fraction_of_modeled = *a.achieved_tokens_per_s / a.modeled_output_tokens_per_s;
        a.fraction_of_sol = *a.achieved_tokens_per_s / a.sol_output_tokens_per_s;
        a.notes.push_back("compared: output_tput_per_gpu " + fmt_num(*run.output_tput_per_gpu_tok_per_s, 1) +
                          " tok/s x " + std::to_string(setup.gpu_count) + " GPUs (InferenceX per-GPU throughput)");
    } else if (run.tput_per_gpu_tok_per_s && a.modeled_total_tokens_per_s) {
        a.achieved_metric = "tput_per_gpu";
        a.achieved_tokens_per_s = *run.tput_per_gpu_tok_per_s * setup.gpu_count;
        a.fraction_of_modeled = *a.achieved_tokens_per_s / *a.modeled_total_tokens_per_s;
        a.fraction_of_sol = *a.achieved_tokens_per_s / *a.sol_total_tokens_per_s;
        a.notes.push_back("compared: tput_per_gpu " + fmt_num(*run.tput_per_gpu_tok_per_s, 1) + " tok/s x " +
                          std::to_string(setup.gpu_count) + " GPUs (InferenceX per-GPU total throughput)");
    } else if (run.max_output_tokens_per_s) {
        // Without lengths only the decode roof is known; the peak 1-s output rate is the best
        // measure of decode speed the file has (prefill is cheapest per token, so peaks are decode).
        a.achieved_metric = "max_output_tokens_per_s";
        a.achieved_tokens_per_s = run.max_output_tokens_per_s;
        a.fraction_of_modeled = *a.achieved_tokens_per_s / a.modeled_output_tokens_per_s;
        a.fraction_of_sol = *a.achieved_tokens_per_s / a.sol_output_tokens_per_s;
        a.notes.push_back("compared: the peak 1-s output rate (max_output_tokens_per_s) against the decode roof");
    } else {
        a.notes.push_back("the bench file has no throughput the model can be compared with");
    }
    a.measured_tpot_s = run.median_tpot_s ? run.median_tpot_s : run.mean_tpot_s;
    if (a.fraction_of_modeled && *a.fraction_of_modeled > setup.thresholds.above_roof) {
        a.consistent = false;
        a.warnings.push_back("achieved " + fmt_num(*a.achieved_tokens_per_s) + " tok/s is " + fmt_pct(*a.fraction_of_modeled) +
                             " of the modeled roof: an input is wrong (GPU or SKU, --count, dtype/--quant, lengths) "
                             "or the engine does less work than modeled (speculative decoding, prefix caching)");
    }

    // --- concurrency check ---
    if (run.request_throughput_per_s && run.mean_e2el_s) {
        a.implied_concurrency = *run.request_throughput_per_s * *run.mean_e2el_s;
        if (*a.implied_concurrency < 0.5 * a.concurrency)
            a.warnings.push_back("Little's law: request rate x mean latency = " + fmt_num(*a.implied_concurrency, 1) +
                                 " requests in flight, well below the " + fmt_num(a.concurrency) +
                                 " assumed (case C13): the live batch was smaller");
    }

    // --- power ---
    if (power && power->stats.events_skipped > 0) {
        std::string why;
        for (const auto& [reason, n] : power->stats.skipped_by_reason)
            why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
        a.warnings.push_back(power->file + ": " + std::to_string(power->stats.events_skipped) + " of " +
                             std::to_string(power->stats.events_read) + " power samples skipped (" + why + ")");
    }
    if (power && power->samples.empty())
        a.warnings.push_back(power->file + ": no usable power samples: the power picture is missing");
    if (power && !power->gpu_names.empty()) {
        bool known = false;
        for (const auto& n : power->gpu_names)
            for (const auto& d : g.device_names)
                if (n == d) known = true;
        if (!known && !g.device_names.empty())
            a.warnings.push_back(power->file + " was logged on \"" + power->gpu_names.front() + "\", not on " + g.id +
                                 " (\"" + g.device_names.front() + "\"): check --gpu or the log");
    }
    // The run's window: samples with a kernel resident at least half the sample period. Logs
    // usually start before and end after the benchmark; idle samples would dilute the draw.
    const std::optional<run_power_window> win_opt =
        power && !power->samples.empty() ? std::optional<run_power_window>(run_window_samples(*power, run)) : std::nullopt;
    if (win_opt && win_opt->outside) {  // another time's log: no evidence about this run
        a.power_window = win_opt->note;
        a.warnings.push_back(power->file + ": " + win_opt->note);
    }
    if (win_opt && !win_opt->outside) {
        const auto& win = *win_opt;
        a.power_window = win.note;
        a.notes.push_back(win.note);
        // A log that cannot cover the run is probably another run's: said, as the evidence is
        // used as it is.
        if (!win.from_bench && run.duration_s && *run.duration_s > 0) {
            double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
            for (const auto& smp : power->samples)
                if (std::isfinite(smp.wall_time_s)) t0 = std::min(t0, smp.wall_time_s), t1 = std::max(t1, smp.wall_time_s);
            if (t1 >= t0 && t1 - t0 < 0.9 * *run.duration_s)
                a.warnings.push_back(power->file + " spans " + fmt_num(t1 - t0, 1) + " s but the run lasted " +
                                     fmt_num(*run.duration_s, 1) + " s (duration): it covers at most " +
                                     fmt_pct((t1 - t0) / *run.duration_s) +
                                     " of the run; a log of another run, or one started late? Its samples are used "
                                     "as the run's power evidence");
        }
        std::vector<power_sample> busy;
        std::size_t with_util = 0;
        for (const auto& smp : win.samples) {
            if (std::isfinite(smp.utilization_gpu)) ++with_util;
            if (!std::isfinite(smp.utilization_gpu) || smp.utilization_gpu >= 0.5) busy.push_back(smp);
        }
        if (busy.empty()) busy = win.samples;
        if (with_util > 0 && busy.size() < win.samples.size())
            a.notes.push_back("power: " + std::to_string(win.samples.size() - busy.size()) + " of " +
                              std::to_string(win.samples.size()) +
                              " samples had utilization.gpu below 50% (outside the run) and were left out");
        a.power = summarize_power(busy, &g);
        a.power_per_gpu = power_by_gpu(busy, &g, setup.thresholds);
        // In TP/EP the slowest rank gates every step: a capped GPU's evidence is the run's.
        const run_gpu_power* capped = nullptr;
        for (const auto& p : a.power_per_gpu)
            if (p.capped && (!capped || *p.evidence.clock_fraction_of_max < *capped->evidence.clock_fraction_of_max))
                capped = &p;
        if (capped && a.power_per_gpu.size() > 1) {
            const auto& e = capped->evidence;
            a.notes.push_back("GPU " + std::to_string(capped->gpu_index) + " of " + std::to_string(a.power_per_gpu.size()) +
                              " is power-capped (" + fmt_pct(*e.fraction_of_limit) + " of its limit, cap active " +
                              fmt_pct(*e.power_cap_active_fraction) + ", SM clock " + fmt_pct(*e.clock_fraction_of_max) +
                              " of max) while the median over all GPUs is " +
                              (a.power->fraction_of_limit ? fmt_pct(*a.power->fraction_of_limit) : std::string("unknown")) +
                              " of the limit: every TP/EP step waits for it, so its evidence is the run's (compute "
                              "phases up to " + fmt_pct(1.0 / *e.clock_fraction_of_max - 1.0) + " longer)");
            a.power = e;
            a.power_gpu = capped->gpu_index;
        }
        const auto& p = *a.power;
        if (!p.limit_from_log && p.limit_w)
            a.notes.push_back("the power log has no power limit: " + g.id + "'s default " + fmt_num(*p.limit_w) +
                              " W is assumed");
        if (!p.limit_from_log && p.median_draw_w && g.id.rfind("rtx-pro-6000", 0) == 0)
            a.notes.push_back("RTX PRO 6000 editions differ in power limit: at " + fmt_num(*p.median_draw_w) +
                              " W the draw would be " + fmt_pct(*p.median_draw_w / 600.0) +
                              " of a Workstation/Server card's 600 W but " + fmt_pct(*p.median_draw_w / 300.0) +
                              " of a Max-Q's 300 W; check `nvidia-smi -q -d POWER` for the enforced limit");
        if (p.median_utilization_gpu && *p.median_utilization_gpu >= 0.95 && p.fraction_of_limit &&
            *p.fraction_of_limit < 0.7)
            a.notes.push_back("nvidia-smi 'utilization.gpu' " + fmt_pct(*p.median_utilization_gpu) +
                              " means a kernel was resident, not that the SMs were busy: at " + fmt_pct(*p.fraction_of_limit) +
                              " of the power limit the SMs mostly wait (collectives polling, memory stalls)");
    }

    // --- what the power limit costs, in tokens/s ---
    a.power_cap = detail::serving::cap_cost(a, g, setup, mod_link_c, dec, pre ? &*pre : nullptr, pre_tokens, ratio);

    // --- verdict ---
    phase_evidence e;
    double comm_share = 0, total_share = 0;
    std::array<double, 5> share_by_bound{};
    for (const auto& p : a.phases) {
        total_share += p.share;
        if (p.phase == step_phase::communication) comm_share += p.share;
        share_by_bound[static_cast<std::size_t>(p.predicted)] += p.share;
    }
    // Utilisation of each roof at the achieved rate: the datasheet roof times of the work done
    // per second. Phases run one after another, so each roof's share is below 1 even at SOL.
    if (a.fraction_of_sol) {
        double comp = 0, mem = 0, link = 0;
        const double steps_per_s = *a.fraction_of_sol * (a.sol_output_tokens_per_s / a.instances) / a.decode_sequences;
        for (auto ph : all_step_phases) {
            comp += steps_per_s * dec.sol.at(ph).compute_s;
            mem += steps_per_s * dec.sol.at(ph).memory_s;
            link += steps_per_s * dec.sol.at(ph).link_s;
            if (pre) {
                const double pre_steps_per_s = steps_per_s * a.decode_sequences * ratio / pre_tokens;
                comp += pre_steps_per_s * pre->sol.at(ph).compute_s;
                mem += pre_steps_per_s * pre->sol.at(ph).memory_s;
                link += pre_steps_per_s * pre->sol.at(ph).link_s;
            }
        }
        e.utilization.compute = comp;
        e.utilization.memory = mem;
        e.utilization.memory_level[0] = mem;
        e.utilization.communication = link;
    }
    std::size_t wall = 0;
    for (std::size_t b = 1; b < share_by_bound.size(); ++b)
        if (share_by_bound[b] > share_by_bound[wall]) wall = b;
    const bound modeled_wall = static_cast<bound>(wall);
    // The largest phase within the wall's bound class (so "the wall is X, Y-bound" names a Y-bound phase).
    std::string wall_phase;
    double wall_phase_share = 0;
    for (const auto& p : a.phases)
        if (p.predicted == modeled_wall && p.share > wall_phase_share) {
            wall_phase_share = p.share;
            wall_phase = p.name;
        }

    // A client that offers requests slower than the server can take them caps throughput at
    // request rate x output length, whatever the hardware.
    std::optional<double> offered_output_tokens_per_s;
    if (run.request_rate_per_s && std::isfinite(*run.request_rate_per_s) && *run.request_rate_per_s > 0 && a.osl)
        offered_output_tokens_per_s = *run.request_rate_per_s * *a.osl;

    a.result.utilization = e.utilization;
    const auto& th = setup.thresholds;
    const bool near = a.fraction_of_modeled && *a.fraction_of_modeled >= th.near_ceiling;
    const std::string achieved_txt = a.achieved_tokens_per_s
        ? fmt_num(*a.achieved_tokens_per_s) + " tok/s (" + a.achieved_metric + ") is " + fmt_pct(*a.fraction_of_modeled) +
              " of the modeled " + fmt_num((a.achieved_metric == "total_throughput" || a.achieved_metric == "tput_per_gpu") ? *a.modeled_total_tokens_per_s
                                                                                   : a.modeled_output_tokens_per_s) +
              " tok/s"
        : std::string("no achieved throughput to compare");

    const bool power_held = a.power && a.power->at_limit(th) && a.power->cap_active(th) && a.power->clock_held(th);
    if (!a.fits) {
        a.result.what = modeled_wall;
        a.result.reason = "this setup does not fit in GPU memory (see the warnings): the roof below is "
                          "what it would reach if it did; the modeled wall is " + wall_phase;
    } else if (offered_output_tokens_per_s && a.achieved_tokens_per_s && a.achieved_metric == "output_throughput" &&
               *a.achieved_tokens_per_s >= 0.9 * *offered_output_tokens_per_s &&
               *offered_output_tokens_per_s < th.near_ceiling * a.modeled_output_tokens_per_s) {
        a.result.what = bound::latency;
        a.result.reason = "the client offered " + fmt_num(*run.request_rate_per_s, 2) + " requests/s x " +
                          fmt_num(*a.osl) + " output tokens = " + fmt_num(*offered_output_tokens_per_s) +
                          " tok/s and the server delivered " + fmt_num(*a.achieved_tokens_per_s) +
                          ": the load, not the hardware, set the throughput (" +
                          fmt_pct(*a.fraction_of_modeled) + " of the modeled roof)";
    } else if (power_held && modeled_wall == bound::compute) {
        a.result.what = bound::power;
        a.result.reason = (a.power_gpu >= 0 ? "GPU " + std::to_string(a.power_gpu) + " (the slowest rank gates the step): " : std::string()) +
                          (a.power->fraction_of_limit ? "board at " + fmt_pct(*a.power->fraction_of_limit) + " of its power limit"
                                                      : std::string("board draw not logged (no power.draw)")) +
                          " with the cap active and "
                          "the SM clock held at " + fmt_pct(*a.power->clock_fraction_of_max) +
                          " of max, in a compute-bound run; " + achieved_txt;
    } else if (!a.achieved_tokens_per_s) {
        a.result.what = modeled_wall;
        a.result.reason = "modeled: " + wall_phase + " takes " + fmt_pct(wall_phase_share) +
                          " of the step (no measured throughput to check against)";
    } else if (!a.consistent) {
        a.result.what = modeled_wall;
        a.result.reason = achieved_txt + ": above the roof, so an input is wrong; the modeled wall is " + wall_phase;
    } else if (near && comm_share / std::max(total_share, 1e-300) >= th.communication_share) {
        a.result.what = bound::communication;
        a.result.reason = "collectives take " + fmt_pct(comm_share) + " of the modeled time (at " +
                          fmt_num(a.modeled_link.beta_bytes_per_s / 1e9, 1) + " GB/s bus bandwidth, " +
                          a.modeled_link.source.substr(0, a.modeled_link.source.find(" (")) + "); " + achieved_txt;
    } else if (near) {
        a.result.what = modeled_wall == bound::communication ? bound::communication : modeled_wall;
        a.result.reason = std::string(to_string(modeled_wall)) + "-bound phases take " +
                          fmt_pct(share_by_bound[wall]) + " of the modeled time (largest: " + wall_phase + " " +
                          fmt_pct(wall_phase_share) + "); " + achieved_txt;
    } else {
        a.result.what = bound::latency;
        // Where the gap goes, from what the power log says about residency.
        std::string gap = "the gap is launch/scheduling overhead, slow kernels or a smaller live batch";
        if (a.power && a.power->median_utilization_gpu) {
            const double u = *a.power->median_utilization_gpu;
            if (u >= 0.9)
                gap = "kernels were resident " + fmt_pct(u) + " of the time, so the gap is inside the kernels "
                      "(efficiency, polling), not idle time";
            else
                gap = "the GPU had no kernel resident " + fmt_pct(1.0 - u) + " of the time: host, launch or "
                      "scheduler overhead";
        }
        a.result.reason = achieved_txt + ": no roof is near (below " + fmt_pct(th.near_ceiling) +
                          " of it). The modeled wall would be " + wall_phase + " (" + fmt_pct(wall_phase_share) + ", " +
                          std::string(to_string(modeled_wall)) + "-bound); " + gap;
    }
    if (power_held && a.result.what != bound::power)
        a.result.notes.push_back("the board sat at its power limit with the cap active and the SM clock at " +
                                 fmt_pct(*a.power->clock_fraction_of_max) +
                                 " of max: compute phases ran derated, but the modeled wall is " +
                                 std::string(to_string(modeled_wall)) + "-bound, which the SM clock does not set");
    // Said when the card sits below its reference board or limit, or the run was held at its limit
    // (against no limit at all, at the modeled roof's rate, it would be a what-if).
    if (a.power_cap && a.power_cap->cost_fraction >= 0.005 &&
        (std::isfinite(a.power_cap->reference.limit_w) || power_held)) {
        const auto& c = *a.power_cap;
        const auto clocks = [](const capped_throughput& t) {
            return "decode at " + fmt_num(t.decode_clock_hz / 1e6) + " MHz" +
                   (t.prefill_clock_hz ? ", prefill at " + fmt_num(*t.prefill_clock_hz / 1e6) + " MHz" : std::string());
        };
        const std::string paced =
            c.pace > 1.0 ? " at the run's pace (" + fmt_num(c.pace) + "x the roof's step time)" : std::string();
        a.result.notes.push_back("power limit: at this card's " + fmt_num(c.at_limit.limit_w) + " W (" + c.limit_source +
                                 ") the modeled output" + paced + " is " + fmt_num(c.at_limit.output_tokens_per_s) + " tok/s (" +
                                 clocks(c.at_limit) + (c.at_limit.capped ? ", held down by the limit" : "") + "), " +
                                 fmt_pct(c.cost_fraction) + " below the " + fmt_num(c.reference.output_tokens_per_s) +
                                 " tok/s of " + c.reference_why + " (" + clocks(c.reference) +
                                 "; power model: models/power.hpp, +-5% on a capped clock)");
    }
    if (a.power) {
        const auto& p = *a.power;
        if (p.at_limit(th) && p.cap_active(th) && !p.clock_held(th))
            a.result.notes.push_back(p.cap_without_held_clock_note());
        if (p.fraction_of_limit && !p.at_limit(th))
            a.result.notes.push_back("not power-bound: median draw " + fmt_num(p.median_draw_w.value_or(0)) + " W is " +
                                     fmt_pct(*p.fraction_of_limit) + " of the " + fmt_num(p.limit_w.value_or(0)) +
                                     " W limit");
    }
    return a;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
