// `roofline analyze`: what bounds a serving run (the main job).
//
//   roofline analyze BENCH --gpu ID --count N --model CONFIG.json [--quant hf_quant_config.json|nvfp4|fp8|mxfp4|bf16]
//                    [--tp N --ep N --dp N --pp N] [--power nvidia-smi.csv] [--isl N --osl N]
//                    [--concurrency N] [--kv-dtype bf16|fp8] [--link nvlink|pcie|pcie-no-p2p]
//                    [--run K] [--calibration FILE] [--json]
//
// --calibration: the modeled (achievable) ceilings, launch floor and link parameters come from a
// `roofline calibrate` overlay; speed of light stays at the datasheet.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/serving.hpp"
#include "roofline/io/bench_json.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/models/parameters.hpp"

namespace roofline::cli {
namespace {

struct analyze_options {
    std::string bench, gpu, model, quant, power, smi_fields, kv_dtype, link, calibration;
    int count = 1, tp = 0, ep = 1, dp = 1, pp = 1, run = 0;
    std::optional<double> isl, osl, concurrency;
    bool json = false;
};

nlohmann::json opt_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string human_tokens(double v) { return fmt::format("{:.0f}", v); }

std::string human_time(double s) {
    if (s >= 1.0) return fmt::format("{:.2f} s", s);
    if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
    return fmt::format("{:.1f} us", s * 1e6);
}

std::string pct(const std::optional<double>& f) { return f ? fmt::format("{:.0f}%", 100.0 * *f) : "n/a"; }

nlohmann::json to_json(const serving_analysis& a, const bench_run& run, std::size_t index, std::size_t runs,
                       const analyze_options& o, const gpu_spec& g, const parallel_layout& layout) {
    nlohmann::json j;
    j["input"] = {{"bench", o.bench}, {"run_index", index}, {"runs_in_file", runs}, {"format", run.format},
                  {"tag", run.tag}, {"gpu", g.id}, {"gpu_name", g.name}, {"count", o.count},
                  {"layout", {{"tp", layout.tp}, {"ep", layout.ep}, {"dp", layout.dp}, {"pp", layout.pp}}},
                  {"model", o.model}, {"quant", o.quant.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.quant)},
                  {"power", o.power.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.power)}};
    // Without an achieved rate the utilisations are unknown: null, not zero.
    const auto known = [&](double u) { return a.fraction_of_sol ? nlohmann::json(u) : nlohmann::json(nullptr); };
    nlohmann::json v = {{"bound", std::string(to_string(a.result.what))},
                        {"inconsistent_input", a.inconsistent_input()},
                        {"reason", a.result.reason},
                        {"notes", a.result.notes},
                        {"roof_utilization",
                         {{"compute", known(a.result.utilization.compute)},
                          {"memory", known(a.result.utilization.memory)},
                          {"communication", known(a.result.utilization.communication)}}},
                        {"roof_utilization_basis", a.fraction_of_sol ? "achieved_rate" : "unknown"}};
    j["verdict"] = v;
    j["phases"] = nlohmann::json::array();
    for (const auto& p : a.phases)
        j["phases"].push_back({{"name", p.name},
                               {"stage", p.stage},
                               {"bound", std::string(to_string(p.predicted))},
                               {"predicted_time_share", p.share},
                               {"sol_step_s", p.sol_step_s},
                               {"modeled_step_s", p.modeled_step_s},
                               {"compute_s", p.compute_s},
                               {"memory_s", p.memory_s},
                               {"link_s", p.link_s},
                               {"latency_s", p.latency_s}});
    j["throughput"] = {{"achieved_metric", a.achieved_metric},
                       {"achieved_tokens_per_s", opt_json(a.achieved_tokens_per_s)},
                       {"modeled_output_tokens_per_s", a.modeled_output_tokens_per_s},
                       {"sol_output_tokens_per_s", a.sol_output_tokens_per_s},
                       {"modeled_total_tokens_per_s", opt_json(a.modeled_total_tokens_per_s)},
                       {"sol_total_tokens_per_s", opt_json(a.sol_total_tokens_per_s)},
                       {"fraction_of_modeled", opt_json(a.fraction_of_modeled)},
                       {"fraction_of_sol", opt_json(a.fraction_of_sol)},
                       {"consistent", a.consistent}};
    j["assumptions"] = {{"concurrency", a.concurrency},
                        {"concurrency_source", a.concurrency_source},
                        {"isl", opt_json(a.isl)},
                        {"osl", opt_json(a.osl)},
                        {"lengths_source", a.lengths_source},
                        {"decode_context_tokens", a.decode_context_tokens},
                        {"decode_batch", a.decode_batch},
                        {"decode_sequences_per_step", a.decode_sequences},
                        {"fits", a.fits},
                        {"link", std::string(to_string(a.link))},
                        {"instances", a.instances},
                        {"ceilings", a.ceilings_origin}};
    j["steps"] = {{"decode_sol_step_s", a.decode_sol_step_s},
                  {"decode_modeled_step_s", a.decode_modeled_step_s},
                  {"prefill_sol_s_per_token", opt_json(a.prefill_sol_s_per_token)},
                  {"prefill_modeled_s_per_token", opt_json(a.prefill_modeled_s_per_token)},
                  {"decode_share", a.decode_share},
                  {"measured_tpot_s", opt_json(a.measured_tpot_s)}};
    j["memory"] = {{"weight_bytes_per_gpu", a.weight_bytes_per_gpu},
                   {"kv_bytes_per_token_per_gpu", a.kv_bytes_per_token_per_gpu},
                   {"kv_capacity_tokens_per_gpu", opt_json(a.kv_capacity_tokens_per_gpu)},
                   {"kv_tokens_needed_per_gpu", opt_json(a.kv_tokens_needed_per_gpu)},
                   {"implied_concurrency", opt_json(a.implied_concurrency)}};
    const auto link_json = [](const link_params& p) {
        return nlohmann::json{{"alpha_s", p.alpha_s},
                              {"beta_bytes_per_s", p.beta_bytes_per_s},
                              {"base_latency_s", p.base_latency_s},
                              {"source", p.source}};
    };
    j["links"] = {{"sol", link_json(a.sol_link)}, {"modeled", link_json(a.modeled_link)}};
    if (a.power) {
        const auto& p = *a.power;
        j["power"] = {{"limit_w", opt_json(p.limit_w)},
                      {"limit_from_log", p.limit_from_log},
                      {"median_draw_w", opt_json(p.median_draw_w)},
                      {"fraction_of_limit", opt_json(p.fraction_of_limit)},
                      {"clock_fraction_of_max", opt_json(p.clock_fraction_of_max)},
                      {"power_cap_active_fraction", opt_json(p.power_cap_active_fraction)},
                      {"median_utilization_gpu", opt_json(p.median_utilization_gpu)},
                      {"samples", p.samples},
                      {"window", a.power_window},
                      {"gpu_index", a.power_gpu >= 0 ? nlohmann::json(a.power_gpu) : nlohmann::json(nullptr)}};
        auto per = nlohmann::json::array();
        for (const auto& g : a.power_per_gpu)
            per.push_back({{"gpu_index", g.gpu_index},
                           {"capped", g.capped},
                           {"median_draw_w", opt_json(g.evidence.median_draw_w)},
                           {"fraction_of_limit", opt_json(g.evidence.fraction_of_limit)},
                           {"clock_fraction_of_max", opt_json(g.evidence.clock_fraction_of_max)},
                           {"power_cap_active_fraction", opt_json(g.evidence.power_cap_active_fraction)},
                           {"samples", g.evidence.samples}});
        j["power"]["per_gpu"] = per;
    }
    j["power_cap"] = nullptr;
    if (a.power_cap) {
        const auto& c = *a.power_cap;
        const auto side = [&](const capped_throughput& t) {
            return nlohmann::json{{"gpu", t.gpu},
                                  {"limit_w", std::isfinite(t.limit_w) ? nlohmann::json(t.limit_w) : nlohmann::json(nullptr)},
                                  {"modeled_output_tokens_per_s", t.output_tokens_per_s},
                                  {"modeled_total_tokens_per_s", opt_json(t.total_tokens_per_s)},
                                  {"decode_clock_hz", t.decode_clock_hz},
                                  {"prefill_clock_hz", opt_json(t.prefill_clock_hz)},
                                  {"capped", t.capped}};
        };
        j["power_cap"] = {{"at_limit", side(c.at_limit)},
                          {"limit_source", c.limit_source},
                          {"reference", side(c.reference)},
                          {"reference_why", c.reference_why},
                          {"cost_fraction", c.cost_fraction},
                          {"pace", c.pace},
                          {"coefficients_source", c.coefficients_source}};
    }
    j["notes"] = a.notes;
    j["warnings"] = a.warnings;
    j["unpriced"] = a.unpriced;
    return j;
}

void print_text(const serving_analysis& a, const bench_run& run, std::size_t index, std::size_t runs,
                const analyze_options& o, const gpu_spec& g, const parallel_layout& layout, const model_config& m,
                const power_log* power) {
    fmt::print("roofline analyze: {}", o.bench);
    if (runs > 1) fmt::print(" (run {} of {})", index + 1, runs);
    fmt::print("\n");
    if (!run.tag.empty()) fmt::print("  {}\n", run.tag);
    const auto params = count_parameters(m);
    const link_kind lk = a.link;
    fmt::print("\nGPU     {} x {} ({}), {}\n", o.count, g.id, g.name,
               lk == link_kind::nvlink ? "NVLink" : lk == link_kind::pcie ? "PCIe with P2P, no NVLink"
                                                                             : "PCIe without P2P (through the host)");
    fmt::print("Layout  TP{} EP{} DP{} PP{} ({} instance{})\n", layout.tp, layout.ep, layout.dp, layout.pp,
               a.instances, a.instances == 1 ? "" : "s");
    fmt::print("Model   {} ({}): {:.1f} B parameters, {:.1f} B active; weights {:.1f} GB per GPU\n", o.model,
               m.family, params.total_params / 1e9, params.active_params / 1e9, a.weight_bytes_per_gpu / 1e9);
    fmt::print("Run     {} request{} in flight [{}]", human_tokens(a.concurrency), a.concurrency == 1 ? "" : "s",
               a.concurrency_source);
    if (a.isl) fmt::print(", ISL {} / OSL {} ({})", human_tokens(*a.isl), human_tokens(*a.osl), a.lengths_source);
    else fmt::print(", lengths unknown");
    fmt::print("\n");
    if (a.kv_capacity_tokens_per_gpu) {
        fmt::print("Memory  KV cache {:.1f} KB per token per GPU; about {:.0f} k tokens fit per GPU beside the weights",
                   a.kv_bytes_per_token_per_gpu / 1e3, *a.kv_capacity_tokens_per_gpu / 1e3);
        fmt::print(" ({:.0f} per request at {:.0f} in flight)\n",
                   *a.kv_capacity_tokens_per_gpu * layout.dp / (a.concurrency / a.instances), a.concurrency);
    }
    fmt::print("\n");

    const bool total = a.achieved_metric == "total_throughput" || a.achieved_metric == "tput_per_gpu";
    const double modeled = total ? *a.modeled_total_tokens_per_s : a.modeled_output_tokens_per_s;
    const double sol = total ? *a.sol_total_tokens_per_s : a.sol_output_tokens_per_s;
    const std::string kind = total ? "total" : "output";
    fmt::print("{:<46} {:>9}  {}\n", "Throughput", "tok/s", "achieved / roof");
    if (a.achieved_tokens_per_s)
        fmt::print("  {:<44} {:>9}\n", "achieved: " + a.achieved_metric, human_tokens(*a.achieved_tokens_per_s));
    fmt::print("  {:<44} {:>9}  {}\n", "modeled roof (" + kind + ", achievable ceilings)", human_tokens(modeled),
               pct(a.fraction_of_modeled));
    fmt::print("  {:<44} {:>9}  {}\n", "speed of light (" + kind + ", datasheet)", human_tokens(sol),
               pct(a.fraction_of_sol));
    if (a.fraction_of_sol)  // the same numbers as --json's verdict.roof_utilization
        fmt::print("  datasheet roofs busy at the achieved rate: compute {}, memory {}, communication {}\n",
                   pct(a.result.utilization.compute), pct(a.result.utilization.memory),
                   pct(a.result.utilization.communication));
    if (a.measured_tpot_s)
        fmt::print("  measured TPOT {} per token against a modeled decode step of {} ({:.1f}x)\n",
                   human_time(*a.measured_tpot_s), human_time(a.decode_modeled_step_s),
                   *a.measured_tpot_s / a.decode_modeled_step_s);
    fmt::print("\nModeled step: decode {} at batch {:.0f}, context {:.0f} (SOL {})", human_time(a.decode_modeled_step_s),
               a.decode_sequences, a.decode_context_tokens, human_time(a.decode_sol_step_s));
    if (a.prefill_modeled_s_per_token)
        fmt::print("; prefill {} per token", human_time(*a.prefill_modeled_s_per_token));
    fmt::print("\n  {:<28} {:>6}  {:<14} {:>11} {:>11}\n", "phase", "share", "bound", "SOL/step", "model/step");
    std::vector<const serving_phase*> sorted;
    for (const auto& p : a.phases) sorted.push_back(&p);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto* x, auto* y) { return x->share > y->share; });
    for (const auto* p : sorted)
        fmt::print("  {:<28} {:>5.1f}%  {:<14} {:>11} {:>11}\n", p->name, 100.0 * p->share, to_string(p->predicted),
                   human_time(p->sol_step_s), human_time(p->modeled_step_s));
    if (layout.gpus() > 1) {
        fmt::print("  collectives modeled at {:.1f} GB/s bus bandwidth, {:.1f} us per ring step ({})\n",
                   a.modeled_link.beta_bytes_per_s / 1e9, a.modeled_link.alpha_s * 1e6, a.modeled_link.source);
        fmt::print("  speed of light at {:.1f} GB/s per direction ({})\n", a.sol_link.beta_bytes_per_s / 1e9,
                   a.sol_link.source);
    }

    if (a.power) {
        const auto& p = *a.power;
        fmt::print("\nPower ({}: {} samples", o.power, p.samples);
        if (power && !power->gpu_names.empty()) fmt::print(", {}", power->gpu_names.front());
        fmt::print(")\n");
        fmt::print("  limit {} ({}), median draw {} = {} of the limit\n",
                   p.limit_w ? fmt::format("{:.0f} W", *p.limit_w) : "unknown",
                   p.limit_from_log ? "enforced, from the log" : "catalog default: not in the log",
                   p.median_draw_w ? fmt::format("{:.0f} W", *p.median_draw_w) : "unknown", pct(p.fraction_of_limit));
        fmt::print("  SM clock {} of max; power cap active {} of samples; utilization.gpu {} (a kernel was resident, "
                   "not SM busy)\n",
                   pct(p.clock_fraction_of_max), pct(p.power_cap_active_fraction), pct(p.median_utilization_gpu));
    }

    if (a.inconsistent_input())  // no bound is a verdict for a setup that cannot be what ran
        fmt::print("\nVerdict: inconsistent input (the modeled wall would be {}-bound)\n  {}\n", to_string(a.result.what),
                   a.result.reason);
    else
        fmt::print("\nVerdict: {}-bound\n  {}\n", to_string(a.result.what), a.result.reason);
    for (const auto& n : a.result.notes) fmt::print("  - {}\n", n);
    if (!a.warnings.empty()) {
        fmt::print("\nWarnings:\n");
        for (const auto& w : a.warnings) fmt::print("  ! {}\n", w);
    }
    if (!a.notes.empty()) {
        fmt::print("\nNotes:\n");
        for (const auto& n : a.notes) fmt::print("  - {}\n", n);
    }
}

/// What the bench file records about its deployment set against the command line: a run whose
/// InferenceX `hw` is another GPU than --gpu (another chip in the catalog, or an AMD Instinct
/// part) is a `usage_error` naming the file, line and field; speculative decoding and a
/// precision the model's quantisation does not show, and a --count left at its default, come
/// back as warnings.
std::vector<std::string> bench_deployment_warnings(const bench_run& run, const std::string& file, const gpu_catalog& catalog,
                                                   const gpu_spec& g, const model_config& m, bool count_given) {
    std::vector<std::string> out;
    const std::string place = file + " line " + std::to_string(run.line);
    if (!run.hw.empty()) {
        std::string hw = run.hw;
        for (auto& ch : hw) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        const gpu_lookup l = catalog.lookup(hw);
        const bool amd = hw.size() > 2 && hw.compare(0, 2, "mi") == 0 && std::isdigit(static_cast<unsigned char>(hw[2]));
        if (amd || (l.gpu && l.gpu->sm_arch != g.sm_arch))
            throw usage_error(place + ": hw: the run was recorded on \"" + run.hw + "\"" +
                              (l.gpu ? " (" + l.gpu->id + ", " + l.gpu->sm_arch + ")" : std::string(" (an AMD GPU)")) +
                              ", not on --gpu " + g.id + " (" + g.sm_arch + "): a roof of another GPU says nothing about it");
        if (!l.gpu)
            out.push_back(place + ": hw \"" + run.hw + "\" is not in the GPU catalog: not checked against --gpu " + g.id);
    }
    if (!run.spec_decoding.empty() && run.spec_decoding != "none" && run.spec_decoding != "false")
        out.push_back(place + ": spec_decoding \"" + run.spec_decoding +
                      "\": the run used speculative decoding, which the roof does not model (it prices one token per "
                      "sequence per decode step): measured decode can exceed it");
    if (!run.precision.empty()) {
        const std::string want = run.precision;
        const std::string have = std::string(to_string(m.quant.weights));
        const bool int_run = want.rfind("int", 0) == 0;
        if (int_run || (want == "fp4" && m.quant.weights != dtype::nvfp4 && m.quant.weights != dtype::mxfp4) ||
            (want == "fp8" && m.quant.weights != dtype::fp8_e4m3 && m.quant.weights != dtype::fp8_e5m2 && m.quant.weights != dtype::mxfp8))
            out.push_back(place + ": precision \"" + want + "\" but the model is priced with " + have +
                          " weights (--quant or the config's quantization): the roof may not be the run's");
    }
    if (!count_given) out.push_back("--count not given: 1 GPU assumed");
    return out;
}

}  // namespace

void add_analyze_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("analyze", "What bounds a serving run: a benchmark result against the model's roofline");
    static analyze_options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    cmd->add_option("bench", o.bench, "SGLang bench_serving JSON/JSONL or vLLM --save-result JSON")->required();
    cmd->add_option("--gpu", o.gpu, "GPU id (see `roofline gpus`)")->required();
    cmd->add_option("--count", o.count, "GPUs serving the run")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--model", o.model, "Hugging Face config.json of the served model (or its folder)")->required();
    cmd->add_option("--quant", o.quant, "ModelOpt hf_quant_config.json, or a preset: nvfp4, fp8, mxfp4, int4, bf16");
    cmd->add_option("--tp", o.tp, "tensor parallel degree (default: --count / (dp x pp))")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--ep", o.ep, "expert parallel degree")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--dp", o.dp, "data parallel attention degree")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--pp", o.pp, "pipeline parallel degree")->check(finite_positive_at_most(max_plausible_count));
    auto* power_opt = cmd->add_option("--power", o.power, "nvidia-smi --query-gpu CSV or nvidia-smi dmon log taken during the run");
    cmd->add_option("--smi-fields", o.smi_fields, "--query-gpu field list of a header-less --power log")->needs(power_opt);
    cmd->add_option("--isl", o.isl, "input tokens per request (overrides the bench file)")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--osl", o.osl, "output tokens per request (overrides the bench file)")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--concurrency", o.concurrency, "requests in flight (overrides the bench file)")
        ->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--kv-dtype", o.kv_dtype, "KV-cache dtype (default: from --quant or the model)");
    cmd->add_option("--link", o.link, "interconnect: nvlink, pcie, pcie-no-p2p (default: from the GPU)");
    cmd->add_option("--run", o.run, "analyse only run K (1-based) of a multi-run file; default: every run")
        ->check(finite_positive);
    cmd->add_option("--gpu-file", common.gpu_file, "JSON that adds or overrides GPU entries");
    cmd->add_option("--calibration", o.calibration, "calibration overlay (`roofline calibrate`) for the modeled ceilings");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->callback([&common, cmd] {
        if (o.isl.has_value() != o.osl.has_value())
            throw usage_error("--isl and --osl go together: give both (input and output tokens per request)");
        if (o.concurrency && *o.concurrency > 1e7)
            throw usage_error("--concurrency " + std::to_string(*o.concurrency) + ": more than 10 million requests in flight");
        if (o.count > 100000) throw usage_error("--count " + std::to_string(o.count) + ": more than 100,000 GPUs");
        const gpu_catalog catalog = load_gpu_catalog(common.gpu_file);
        const gpu_spec& g = pick_gpu(catalog, o.gpu);
        model_config m = read_hf_config(o.model);
        apply_quant_option(m, o.quant);
        const bench_results bench = read_bench_results(o.bench);
        const bool count_given = cmd->count("--count") > 0;
        if (bench.runs.empty()) throw usage_error(o.bench + ": no benchmark runs in the file");
        std::optional<power_log> power;
        if (!o.power.empty()) power = read_power_log(o.power, nvidia_smi_options{o.smi_fields});
        if (power) require_power_evidence(*power);
        if (power)  // a log of another chip than --gpu is not this run's power evidence
            for (const auto& name : power->gpu_names) {
                const gpu_spec* logged = gpu_of_device_name(name, catalog);
                if (logged && !logged->sm_arch.empty() && !g.sm_arch.empty() && logged->sm_arch != g.sm_arch)
                    throw usage_error(o.power + ": name: the log is of \"" + name + "\" (" + logged->id + ", " +
                                      logged->sm_arch + "), not of --gpu " + g.id + " (" + g.sm_arch +
                                      "): another chip's power says nothing about this run");
            }

        serving_setup s;
        s.gpu = &g;
        s.gpu_count = o.count;
        s.layout.ep = o.ep;
        s.layout.dp = o.dp;
        s.layout.pp = o.pp;
        s.layout.tp = o.tp > 0 ? o.tp : std::max(1, o.count / (o.dp * o.pp));
        s.layout.validate_for(m, "--tp/--ep/--dp/--pp");
        s.isl = o.isl;
        s.osl = o.osl;
        s.concurrency = o.concurrency;
        if (!o.kv_dtype.empty()) s.kv_cache = parse_dtype_or_throw(o.kv_dtype);
        if (!o.link.empty()) {
            if (o.link == "nvlink") s.link = link_kind::nvlink;
            else if (o.link == "pcie") s.link = link_kind::pcie;
            else if (o.link == "pcie-no-p2p") s.link = link_kind::pcie_no_p2p;
            else if (o.link == "network") s.link = link_kind::network;
            else throw usage_error("--link: unknown link \"" + o.link + "\" (accepted: nvlink, pcie, pcie-no-p2p, network)");
        }
        std::string calibration_note;  // the overlay's unreliable power fit, said on every run
        if (!o.calibration.empty()) {
            // Modeled ceilings: achievable ones with the overlay's measurements in; the serving
            // engine replays CUDA graphs, so each kernel pays the calibrated graph launch floor.
            const auto cal = read_calibration(o.calibration);
            require_calibration_gpu(cal, g);
            const link_kind lk = s.link.value_or(g.default_link());
            ceilings used = achievable_ceilings(datasheet_ceilings(g, lk), s.fractions);
            link_params lp;
            try {
                lp = default_link_params(g, lk);
            } catch (const usage_error&) {
                lp.beta_bytes_per_s = used.link_bytes_per_s;
            }
            apply_calibration(used, lp, s.fractions, cal);
            used.launch_latency_s = s.fractions.graph_launch_floor_s;
            used.origin = "calibrated: " + o.calibration + " (CUDA-graph launches)";
            s.modeled_ceilings_override = used;
            if (cal.link_for(lk)) s.link_override = lp;
            calibration_note = unreliable_power_note(
                cal, "analyze does not use it (its power verdict comes from the --power log and the built-in "
                     "power coefficients)");
        }
        std::size_t first = 0, last = bench.runs.size();
        if (o.run > 0) {
            if (static_cast<std::size_t>(o.run) > bench.runs.size())
                throw usage_error("--run " + std::to_string(o.run) + ": " + o.bench + " has " +
                                  std::to_string(bench.runs.size()) + " run(s)");
            first = static_cast<std::size_t>(o.run - 1);
            last = first + 1;
        }
        nlohmann::json all = nlohmann::json::array();
        // A run that completed no request measured nothing to set against the roof (a failed
        // benchmark: every request errored): it is skipped and named on stderr; if every
        // selected run is such, exit 2.
        const auto measured_nothing = [](const bench_run& run) {
            return (run.completed && *run.completed == 0) ||
                   (run.output_throughput_tok_per_s && *run.output_throughput_tok_per_s == 0);
        };
        if (std::all_of(bench.runs.begin() + static_cast<std::ptrdiff_t>(first),
                        bench.runs.begin() + static_cast<std::ptrdiff_t>(last), measured_nothing))
            throw usage_error(o.bench + ": no selected run completed a request (completed 0 or output_throughput 0): "
                              "nothing measured to compare with the roof");
        std::size_t analysed = 0;
        for (std::size_t i = first; i < last; ++i) {
            const auto& run = bench.runs[i];
            if (measured_nothing(run)) {
                fmt::print(stderr, "roofline analyze: {} line {}: run {} completed no requests ({}): skipped, nothing "
                                   "was measured\n",
                           o.bench, run.line, i + 1,
                           run.completed && *run.completed == 0 ? "completed 0" : "output_throughput 0 tok/s");
                continue;
            }
            auto a = analyze_serving(run, m, s, power ? &*power : nullptr);
            if (!calibration_note.empty()) a.notes.push_back(calibration_note);
            for (auto& w : bench_deployment_warnings(run, o.bench, catalog, g, m, count_given)) a.warnings.push_back(std::move(w));
            if (o.json) all.push_back(to_json(a, bench.runs[i], i, bench.runs.size(), o, g, s.layout));
            else {
                if (analysed > 0) fmt::print("\n{}\n\n", std::string(100, '-'));
                print_text(a, bench.runs[i], i, bench.runs.size(), o, g, s.layout, m, power ? &*power : nullptr);
            }
            ++analysed;
        }
        if (o.json) {
            // The first analysed run's keys at the top level (the documented contract), every run in runs[].
            nlohmann::json out = all.front();
            out["runs"] = all;
            out["summary"] = {{"events_read", bench.stats.events_read},
                              {"events_skipped", bench.stats.events_skipped}};
            if (power) {
                out["summary"]["power_rows_read"] = power->stats.events_read;
                out["summary"]["power_rows_skipped"] = power->stats.events_skipped;
            }
            fmt::print("{}\n", out.dump(2));
        }
        if (bench.stats.events_skipped > 0 && !o.json)
            fmt::print("\n{} of {} runs in {} were skipped (malformed)\n", bench.stats.events_skipped,
                       bench.stats.events_read, o.bench);
        if (power && power->stats.events_skipped > 0 && !o.json) {
            std::string reasons;
            for (const auto& [reason, n] : power->stats.skipped_by_reason)
                reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, reason);
            fmt::print("{}{} of {} rows in {} were skipped ({})\n", bench.stats.events_skipped > 0 ? "" : "\n",
                       power->stats.events_skipped, power->stats.events_read, o.power, reasons);
        }
    });
}

}  // namespace roofline::cli
