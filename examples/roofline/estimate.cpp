// `roofline estimate`: one serving configuration (a layout at a concurrency), or every measured
// run of an aiconfigurator silicon CSV set beside its estimate.
//
//   roofline estimate --model CONFIG [--quant Q] --gpu ID --isl N --osl N --tp N [--ep N] [--dp N]
//                     [--pp N] --concurrency C [--kv-dtype D] [--sol] [--efficiency FILE --backend B]
//                     [--disagg --prefill-layout tp,ep,dp,pp --prefill-workers N --decode-workers N
//                      [--kv-link-gbps X]] [--mtp K --acceptance A] [--emit sglang|vllm|trtllm] [--json]
//   roofline estimate --from-csv FILE --model-dir DIR [--model-dir DIR] [--out PRED.csv]
//                     [--fit-out TABLE.json] [--limit N] [--run-facts FACTS.csv] [--json]
//
// `--json` keys (stable) of one estimate: gpu, layout, gpus, concurrency, fits, reason, ttft_s,
// ttft_parts_s {own_prefill, queue, first_token_step, fixed_costs}, ttft_range_s and tpot_range_s
// {p10, p90, runs} (held out; null without a fitted table's band), tpot_s, tokens_per_s_per_gpu,
// tokens_per_s_per_user, output_tokens_per_s, roof_ttft_s, roof_tpot_s, kv_transfer_s, balanced_prefill_per_decode,
// prefill_pool_prompts_per_s (disaggregated: what the prefill pool hands over at most, which caps
// output_tokens_per_s at it x OSL; null aggregated), memory_headroom, efficiency, notes[].

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/analysis/estimate.hpp"
#include "roofline/analysis/serving_fit.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/io/serving_efficiency_json.hpp"
#include "roofline/io/serving_runs_csv.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/json.hpp"

namespace roofline::cli {
namespace {

struct estimate_options {
    std::string model, quant, gpu, kv_dtype, efficiency, backend, emit, prefill_layout;
    std::string from_csv, out, fit_out, run_facts;
    std::vector<std::string> model_dirs;
    double isl = 0, osl = 0, concurrency = 0, acceptance = 0, prefill_batch = 1;
    std::optional<double> kv_link_gbps;
    int tp = 1, ep = 1, dp = 1, pp = 1, mtp = 0, prefill_workers = 1, decode_workers = 1;
    std::size_t limit = 0;
    bool json = false, sol = false, disagg = false;
};

/// A display name: the config's folder when the file is "config.json", else its stem without
/// "_config" ("deepseek-ai--DeepSeek-V3_config.json" -> "deepseek-ai--DeepSeek-V3").
std::string display_name(const std::string& path) {
    const std::filesystem::path p(path);
    std::string stem = p.stem().string();
    if (stem == "config" && p.has_parent_path() && !p.parent_path().filename().empty())
        return p.parent_path().filename().string();
    if (stem.size() > 7 && stem.compare(stem.size() - 7, 7, "_config") == 0) stem.resize(stem.size() - 7);
    return stem;
}

std::string human_ms(double s) { return std::isfinite(s) ? fmt::format("{:.1f} ms", s * 1e3) : "n/a"; }

/// "tp,ep,dp,pp" -> a layout; a usage error naming the option otherwise.
parallel_layout parse_layout(const std::string& text, const std::string& option) {
    parallel_layout l;
    int* parts[] = {&l.tp, &l.ep, &l.dp, &l.pp};
    if (std::count(text.begin(), text.end(), ',') != 3)  // "4" or "4,1,1,1,9": not four degrees
        throw usage_error(option + " \"" + text + "\": expected tp,ep,dp,pp (four whole numbers >= 1)");
    std::size_t start = 0, i = 0;
    for (; i < 4 && start <= text.size(); ++i) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        try {
            std::size_t used = 0;
            *parts[i] = std::stoi(item, &used);
            if (used != item.size() || *parts[i] < 1) throw usage_error("");
        } catch (...) {
            throw usage_error(option + " \"" + text + "\": expected tp,ep,dp,pp (whole numbers >= 1)");
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    try {
        l.validate();
    } catch (const usage_error& e) {
        throw usage_error(option + " \"" + text + "\": " + e.what());
    }
    return l;
}

// ---------------------------------------------------------------------------------------------
// One configuration
// ---------------------------------------------------------------------------------------------

/// What an engine loads for the model at `config_path` (engines take a checkpoint folder or a
/// Hugging Face id, not a config file): the folder of a "config.json"; the id "org/name" of an
/// aiconfigurator-style "org--name_config.json"; else the placeholder "<MODEL>".
std::string engine_model_argument(const std::string& config_path) {
    const std::filesystem::path p(config_path);
    const std::string file = p.filename().string();
    if (file == "config.json") return p.has_parent_path() ? p.parent_path().string() : std::string(".");
    const std::string suffix = "_config.json";
    if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
        if (const auto dash = file.find("--"); dash != std::string::npos && dash > 0 &&
                                               dash + 2 < file.size() - suffix.size())
            return file.substr(0, dash) + "/" + file.substr(dash + 2, file.size() - suffix.size() - dash - 2);
    return "<MODEL>";
}

/// The engine's KV-cache dtype value for `kv` ("auto": the model's activation dtype), or ""
/// where the engine takes no such value: SGLang `--kv-cache-dtype` auto|fp8_e4m3|fp8_e5m2,
/// vLLM `--kv-cache-dtype` auto|fp8 (E4M3)|fp8_e5m2, TensorRT-LLM `kv_cache_config.dtype`
/// auto|fp8 (their server-argument references).
std::string engine_kv_dtype(const std::string& engine, dtype kv) {
    if (kv == dtype::bf16 || kv == dtype::fp16) return "auto";
    if (kv == dtype::fp8_e4m3) return engine == "sglang" ? "fp8_e4m3" : "fp8";
    if (kv == dtype::fp8_e5m2 && engine != "trtllm") return "fp8_e5m2";
    return "";
}

/// Whether `r` failed because a GPU fact it needs is unknown (a peak, memory, a link), not
/// because the configuration does not fit.
bool unpriced(const estimate_result& r) {
    return !r.fits && (r.decode_point.rejection == plan_rejection::unpriced ||
                       r.prefill_point.rejection == plan_rejection::unpriced);
}

/// Which pool of a disaggregated deployment a launch line starts ("" when aggregated).
enum class engine_role { aggregated, prefill, decode };

/// The launch line of one engine instance of layout `l` holding up to `requests` in flight
/// (`--emit`), in `role`; the model as `model_path`.
std::string engine_line(const std::string& engine, const model_config& m, const estimate_request& rq,
                        const estimate_result& r, const std::string& model_path, const parallel_layout& l,
                        double requests, engine_role role) {
    const double per_rank = std::ceil(requests);
    // A KV dtype the engine does not take: its default (the model's dtype), said by engine_flags.
    std::string kv = engine_kv_dtype(engine, rq.kv_cache.value_or(m.quant.kv_cache));
    if (kv.empty()) kv = "auto";
    const bool moe = m.is_moe();
    const bool replicas = !moe && role == engine_role::aggregated && rq.instances > 1;
    // An instance wider than one scale-up domain runs on several nodes: the engines' multi-node
    // flags (SGLang --nnodes/--node-rank, vLLM over a Ray cluster, TensorRT-LLM under mpirun).
    const int domain = scale_up_domain(rq.gpu).first;
    const int nodes = domain > 0 && l.gpus() > domain ? (l.gpus() + domain - 1) / domain : 1;
    if (engine == "sglang") {
        std::string s = fmt::format("python -m sglang.launch_server --model-path {} --tp-size {}", model_path, l.gpus() / l.pp);
        if (l.pp > 1) s += fmt::format(" --pp-size {}", l.pp);
        if (l.dp > 1) s += fmt::format(" --dp-size {} --enable-dp-attention", l.dp);
        if (replicas) s += fmt::format(" --dp-size {}", rq.instances);
        if (moe && l.ep > 1) s += fmt::format(" --ep-size {}", l.ep);
        s += fmt::format(" --max-running-requests {:.0f} --chunked-prefill-size {:.0f} --kv-cache-dtype {}", per_rank,
                         rq.prefill_chunk_tokens, kv);
        if (role != engine_role::aggregated)
            s += fmt::format(" --disaggregation-mode {}", role == engine_role::prefill ? "prefill" : "decode");
        if (rq.speculative && role != engine_role::prefill)
            s += fmt::format(" --speculative-algorithm EAGLE --speculative-num-steps {} --speculative-eagle-topk 1 "
                             "--speculative-num-draft-tokens {}", rq.speculative->draft_tokens, rq.speculative->draft_tokens + 1);
        if (nodes > 1)
            s += fmt::format(" --nnodes {} --node-rank <0..{}> --dist-init-addr <HEAD_IP>:<PORT>  # on each of the {} nodes",
                             nodes, nodes - 1, nodes);
        return s;
    }
    if (engine == "vllm") {
        std::string s = fmt::format("vllm serve {} --tensor-parallel-size {}", model_path, l.tp);
        if (l.dp > 1) s += fmt::format(" --data-parallel-size {}", l.dp);
        if (replicas) s += fmt::format(" --data-parallel-size {}", rq.instances);
        if (l.pp > 1) s += fmt::format(" --pipeline-parallel-size {}", l.pp);
        if (moe && l.ep > 1) {
            s += " --enable-expert-parallel";
            // vLLM's expert parallelism spans every GPU of the TP x DP group: no MoE TP beside it.
            if (l.ep != l.tp * l.dp)
                s += fmt::format("  # vLLM runs the experts EP{} (tp x dp), not the MoE TP{} x EP{} priced", l.tp * l.dp,
                                 l.tp * l.dp / l.ep, l.ep);
        }
        s += fmt::format(" --max-num-seqs {:.0f} --max-num-batched-tokens {:.0f} --kv-cache-dtype {} "
                         "--gpu-memory-utilization {:.2f}", std::ceil(per_rank / l.dp), rq.prefill_chunk_tokens, kv,
                         1.0 - r.memory_headroom);
        if (role != engine_role::aggregated)
            s += " --kv-transfer-config '{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}'";
        if (rq.speculative && role != engine_role::prefill)
            s += fmt::format(" --speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": {}}}'",
                             rq.speculative->draft_tokens);
        if (nodes > 1)
            s += fmt::format(" --distributed-executor-backend ray  # on the head of a Ray cluster of {} nodes", nodes);
        return s;
    }
    if (engine == "trtllm") {
        std::string s = fmt::format("trtllm-serve {} --tp_size {} --pp_size {}", model_path, l.tp * l.dp, l.pp);
        if (moe) s += fmt::format(" --ep_size {}", l.ep);
        s += fmt::format(" --max_batch_size {:.0f} --max_num_tokens {:.0f} --kv_cache_free_gpu_memory_fraction {:.2f}",
                         std::ceil(per_rank / l.dp), rq.prefill_chunk_tokens, 1.0 - r.memory_headroom);
        s += fmt::format("  # extra-llm-api-config: enable_attention_dp: {}{}", l.dp > 1 ? "true" : "false",
                         kv != "auto" ? ", kv_cache_config.dtype: " + kv : std::string());
        if (role != engine_role::aggregated) s += ", cache_transceiver_config.backend: DEFAULT";
        if (rq.speculative && role != engine_role::prefill)
            s += fmt::format(", speculative_config: {{decoding_type: MTP, num_nextn_predict_layers: {}}}",
                             rq.speculative->draft_tokens);
        if (replicas) s += fmt::format("; run {} instances of this behind a router (data parallel replicas)", rq.instances);
        if (nodes > 1)
            s += fmt::format("; {} GPUs on {} nodes: start it under mpirun -n {} across them (trtllm-llmapi-launch)",
                             l.gpus(), nodes, l.gpus());
        return s;
    }
    throw usage_error("--emit \"" + engine + "\": expected sglang, vllm or trtllm");
}

/// Engine flags for the configuration (`--emit`): the launch line of an aggregated instance, or
/// of a disaggregated deployment's prefill worker and decode worker (each with its engine's
/// disaggregation flag: SGLang `--disaggregation-mode`, vLLM's NixlConnector, TensorRT-LLM's
/// cache transceiver) and the router in front of them; a configuration that does not fit
/// starts with a comment saying so. The model as `engine_model_argument` of `config_path`.
std::string engine_flags(const std::string& engine, const model_config& m, const estimate_request& rq,
                         const estimate_result& r, const std::string& config_path) {
    const std::string model_path = engine_model_argument(config_path);
    std::string s = r.fits        ? std::string()
                    : unpriced(r) ? "# not priced (" + r.reason + "): whether it fits is unknown\n"
                                  : "# does not fit (" + r.reason + "): an engine would not start with these flags\n";
    for (const auto* l : {&rq.layout, rq.disaggregated ? &rq.disaggregated->prefill : nullptr})
        if (l)
            if (const std::string w = tp_head_split_problem(m, l->tp); !w.empty())
                s += "# " + w + "\n";
    if (const dtype kv = rq.kv_cache.value_or(m.quant.kv_cache); engine_kv_dtype(engine, kv).empty())
        s += "# KV cache " + std::string(to_string(kv)) + ": " + engine +
             " takes no such KV-cache dtype, so these flags leave its default (the model's dtype), whose cache "
             "holds another number of requests than priced\n";
    // Speculation on a model without MTP layers needs a draft model the flags cannot name.
    if (rq.speculative && m.mtp_layers == 0)
        s += "# the model's config has no MTP layers (num_nextn_predict_layers): speculation needs a draft model "
             "(its path, and the engine's draft method) that these flags do not name\n";
    if (!rq.disaggregated)
        return s + engine_line(engine, m, rq, r, model_path, rq.layout, rq.concurrency / std::max(1, rq.instances),
                               engine_role::aggregated);
    const auto& d = *rq.disaggregated;
    s += fmt::format("# prefill pool: {} worker{}, each:\n", d.prefill_workers, d.prefill_workers == 1 ? "" : "s");
    s += engine_line(engine, m, rq, r, model_path, d.prefill, rq.concurrency / d.prefill_workers, engine_role::prefill);
    s += fmt::format("\n# decode pool: {} worker{}, each:\n", d.decode_workers, d.decode_workers == 1 ? "" : "s");
    s += engine_line(engine, m, rq, r, model_path, d.decode, rq.concurrency / d.decode_workers, engine_role::decode);
    if (engine == "sglang")
        s += "\n# in front: python -m sglang_router.launch_router --pd-disaggregation --prefill http://<PREFILL_HOST>:<PORT> "
             "(one per prefill worker) --decode http://<DECODE_HOST>:<PORT> (one per decode worker)";
    else if (engine == "vllm")
        s += "\n# in front: a proxy that sends each request to a prefill worker, then to a decode worker "
             "(vLLM's disaggregated-serving examples; llm-d; NVIDIA Dynamo)";
    else
        s += "\n# in front: trtllm-serve disaggregated -c <YAML: context_servers (the prefill workers' URLs), "
             "generation_servers (the decode workers')>";
    return s;
}

/// The note under `--emit`'s line when the model could not be named from the config's path.
std::string engine_model_note(const std::string& config_path) {
    return engine_model_argument(config_path) == "<MODEL>"
               ? "# <MODEL>: the checkpoint folder or Hugging Face id of " + config_path +
                     " (engines load a model, not its config file)"
               : std::string();
}

/// What `--emit` prints (and `--json` gives as `emit`): the engine flags, then the note on the
/// model argument where it could not be named.
std::string emitted(const std::string& engine, const model_config& m, const estimate_request& rq, const estimate_result& r,
                    const std::string& config_path) {
    std::string s = engine_flags(engine, m, rq, r, config_path);
    if (const auto note = engine_model_note(config_path); !note.empty()) s += "\n" + note;
    return s;
}

/// The layout as `describe_layout` names it, with a dense model's replicas as DP ("TP4 DP2").
std::string shown_layout(const parallel_layout& l, const model_config& m, int replicas) {
    return describe_layout(l, m.is_moe()) + (!m.is_moe() && replicas > 1 ? " DP" + std::to_string(replicas) : "");
}

/// A held-out range as `--json` gives it: {p10, p90, runs} in seconds, or null.
nlohmann::json range_json(const std::optional<std::pair<double, double>>& range, const std::optional<heldout_ratio_band>& band) {
    if (!range || !band) return nullptr;
    return {{"p10", report::json_number(range->first)}, {"p90", report::json_number(range->second)}, {"runs", band->runs}};
}

nlohmann::json estimate_json(const estimate_result& r, const estimate_request& rq, const model_config& m,
                             const serving_efficiency& e) {
    using report::json_number;
    const auto& l = rq.disaggregated ? rq.disaggregated->decode : rq.layout;
    return {{"gpu", rq.gpu.id},
            {"layout", shown_layout(l, m, rq.disaggregated ? 1 : rq.instances)},
            {"prefill_layout", rq.disaggregated ? nlohmann::json(describe_layout(rq.disaggregated->prefill, m.is_moe()))
                                                : nlohmann::json(nullptr)},
            {"mode", rq.disaggregated ? "disagg" : "agg"},
            {"gpus", r.gpus},
            {"concurrency", rq.concurrency},
            {"fits", r.fits},
            {"reason", r.fits ? nlohmann::json(nullptr) : nlohmann::json(r.reason)},
            {"ttft_s", json_number(r.ttft_s)},
            {"tpot_s", json_number(r.tpot_s)},
            {"tokens_per_s_per_gpu", json_number(r.tokens_per_s_per_gpu)},
            {"tokens_per_s_per_user", json_number(r.tokens_per_s_per_user)},
            {"output_tokens_per_s", json_number(r.output_tokens_per_s)},
            {"ttft_parts_s", r.fits ? nlohmann::json{{"own_prefill", json_number(r.ttft_split.own_prefill_s)},
                                                     {"queue", json_number(r.ttft_split.queue_s)},
                                                     {"first_token_step", json_number(r.ttft_split.first_token_step_s)},
                                                     {"fixed_costs", json_number(r.ttft_split.fixed_costs_s)}}
                                    : nlohmann::json(nullptr)},
            {"ttft_range_s", range_json(r.ttft_range_s, e.ttft_band)},
            {"tpot_range_s", range_json(r.tpot_range_s, e.tpot_band)},
            {"roof_ttft_s", json_number(r.roof_ttft_s)},
            {"roof_tpot_s", json_number(r.roof_tpot_s)},
            {"kv_transfer_s", json_number(r.kv_transfer_s)},
            {"balanced_prefill_per_decode", json_number(r.balanced_prefill_per_decode)},
            {"prefill_pool_prompts_per_s", json_number(r.prefill_pool_prompts_per_s)},
            {"max_concurrency", json_number(r.max_concurrency)},
            {"memory_headroom", r.memory_headroom},
            {"efficiency", e.source},
            {"speculative", rq.speculative ? nlohmann::json{{"draft_tokens", rq.speculative->draft_tokens},
                                                            {"acceptance_rate", rq.speculative->acceptance_rate},
                                                            {"tokens_per_step", rq.speculative->tokens_per_step()}}
                                           : nlohmann::json(nullptr)},
            {"notes", r.notes}};
}

void run_single(const estimate_options& o, const gpu_catalog& catalog) {
    model_config m = read_hf_config(o.model);
    apply_quant_option(m, o.quant);
    estimate_request rq;
    rq.gpu = catalog.at(o.gpu);
    rq.isl = o.isl;
    rq.osl = o.osl;
    rq.concurrency = o.concurrency;
    rq.layout = {o.tp, o.ep, o.dp, o.pp};
    rq.layout.validate_for(m, "--tp/--ep/--dp/--pp");
    // A dense model has no attention DP: --dp is that many independent replicas (vLLM
    // --data-parallel-size, SGLang --dp-size without --enable-dp-attention), priced as instances
    // that share the requests.
    if (!m.is_moe() && rq.layout.dp > 1 && !o.disagg) {
        rq.instances = rq.layout.dp;
        rq.layout.dp = 1;
    }
    rq.speed_of_light = o.sol;
    if (!o.kv_dtype.empty()) rq.kv_cache = parse_dtype_or_throw(o.kv_dtype);
    if (o.disagg) {
        disaggregated_pools d;
        d.decode = rq.layout;
        d.prefill = o.prefill_layout.empty() ? rq.layout : parse_layout(o.prefill_layout, "--prefill-layout");
        d.prefill.validate_for(m, "--prefill-layout");
        d.prefill_workers = o.prefill_workers;
        d.decode_workers = o.decode_workers;
        d.prefill_batch = o.prefill_batch;
        if (o.kv_link_gbps) d.kv_transfer_bytes_per_s = *o.kv_link_gbps * 1e9 / 8;
        rq.disaggregated = d;
    }
    if (o.mtp > 0) rq.speculative = speculative_decoding{o.mtp, o.acceptance};
    serving_efficiency e = roof_efficiency();
    // --sol is the roof at datasheet ceilings without the power cap; its TTFT keeps the wave queue
    // at full weight (a fitted table weighs it less), so it bounds TPOT, not TTFT.
    if (o.sol) e.source = "speed of light (datasheet ceilings, no power cap; TTFT with the whole closed-loop wave queue)";
    std::vector<std::string> table_notes;
    if (!o.backend.empty() && o.efficiency.empty())
        throw usage_error("--backend " + o.backend + " picks a row of an efficiency table: pass --efficiency FILE too");
    if (!o.efficiency.empty() && o.sol)
        throw usage_error("--sol prices the speed of light (no efficiency): it and --efficiency exclude each other");
    if (!o.efficiency.empty()) {
        const auto table = read_serving_efficiency(o.efficiency);
        if (!o.backend.empty()) {  // a backend the table has no group for would fall back silently
            bool known = false;
            std::set<std::string> have;  // the backends the table has groups for, sorted
            for (const auto& [key, unused] : table) {
                (void)unused;
                const auto slash = key.find('/');
                if (slash == std::string::npos) continue;
                std::string b = key.substr(slash + 1, key.find('/', slash + 1) - slash - 1);
                // decode/mode/backend (TPOT's own GEMM coefficient per backend, since 2026-12-07);
                // older tables: decode/backend/mode
                const bool decode_backend = key.rfind("decode/", 0) == 0 && std::count(key.begin(), key.end(), '/') == 2;
                if (decode_backend && (b == "agg" || b == "disagg")) b = key.substr(key.rfind('/') + 1);
                if (key.rfind("agg/", 0) == 0 || key.rfind("disagg/", 0) == 0 || decode_backend) {
                    known = known || b == o.backend;
                    have.insert(b);
                }
            }
            std::string listed;
            for (const auto& b : have) listed += (listed.empty() ? "" : ", ") + b;
            if (!known)
                throw usage_error("--backend " + o.backend + ": " + o.efficiency + " has no group for it (" +
                                  (have.empty() ? std::string("it has no backend groups") : "it has: " + listed) + ")");
        }
        // Longest level the table has (analysis/serving_fit.hpp): TTFT of mode/backend, TPOT of
        // decode/mode/backend (a decode step is the same work aggregated or disaggregated, the
        // backend's own GEMM coefficient: tables before 2026-12-07 have decode/mode only, which
        // a backend then falls back to; tables before 2026-12-05 fitted TPOT per
        // decode/backend/mode, still read).
        const std::string mode = o.disagg ? "disagg" : "agg";
        // An older table (per-backend TPOT groups) walks decode/backend/mode -> decode/backend.
        // (decode/agg and decode/disagg are today's mode groups, not a backend "agg" of before.)
        const bool old_per_backend = !o.backend.empty() && (table.count("decode/" + o.backend + "/" + mode) ||
                                                            (o.backend != "agg" && o.backend != "disagg" &&
                                                             table.count("decode/" + o.backend)));
        const std::string tpot_key = old_per_backend    ? "decode/" + o.backend + "/" + mode
                                     : o.backend.empty() ? "decode/" + mode
                                                         : "decode/" + mode + "/" + o.backend;
        const std::string ttft_key = o.backend.empty() ? mode : mode + "/" + o.backend;
        // A table with no level of either group would price that part at the roof, silently.
        std::string groups;
        for (const auto& [key, unused] : table) {
            (void)unused;
            groups += (groups.empty() ? "" : ", ") + key;
        }
        for (const auto& [what, key] : {std::pair<const char*, std::string>{"TTFT", ttft_key}, {"TPOT", tpot_key}}) {
            const auto levels = group_levels(key);
            if (std::none_of(levels.begin(), levels.end(), [&](const std::string& g) { return table.count(g) > 0; }))
                throw usage_error("--efficiency " + o.efficiency + " has no " + what + " group for " + key +
                                  " nor a shorter level of it (" +
                                  (groups.empty() ? std::string("it has no groups") : "it has: " + groups) + ")");
        }
        e = efficiency_for(table, ttft_key, tpot_key);
        // A backend with no group of this mode (too few runs of it to fit, or none) takes its
        // TTFT from a shorter level, pooled over backends: said, not silent.
        if (!o.backend.empty() && !table.count(ttft_key))
            for (const auto& g : group_levels(ttft_key))
                if (table.count(g)) {
                    table_notes.push_back(o.efficiency + " has no " + ttft_key + " group (too few such runs to fit): TTFT "
                                          "from " + g + ", fitted on every backend's runs of the mode");
                    break;
                }
        // Likewise TPOT's GEMM coefficient, where the table has other backends' (since 2026-12-07).
        const bool split_table = std::any_of(table.begin(), table.end(), [&](const auto& kv) {
            return kv.first.rfind("decode/" + mode + "/", 0) == 0;
        });
        if (!o.backend.empty() && !old_per_backend && split_table && !table.count(tpot_key))
            for (const auto& g : group_levels(tpot_key))
                if (table.count(g)) {
                    table_notes.push_back(o.efficiency + " has no " + tpot_key + " group (fewer than 30 such runs, or "
                                          "not among the 3 backends with the most runs, which alone get their own GEMM "
                                          "coefficient): TPOT from " + g +
                                          ", every coefficient fitted on every backend's runs");
                    break;
                }
    }
    // A dense model's DP in a pool as workers, for the headline and --emit too (estimate_serving
    // prices it so and notes it).
    if (auto q = dense_dp_as_workers(m, rq)) rq = q->first, table_notes.insert(table_notes.begin(), q->second);
    auto r = estimate_serving(m, rq, e);
    for (auto& n : table_notes) r.notes.push_back(std::move(n));
    if (rq.speculative && m.mtp_layers == 0)
        r.notes.push_back("the model's config has no MTP layers (num_nextn_predict_layers): speculation priced as " +
                          std::to_string(rq.speculative->draft_tokens) +
                          " one-layer drafting passes a step; a draft model's own cost is not priced");
    if (rq.osl == 1)
        r.notes.push_back("OSL 1: a request emits one token, in its first-token step; TPOT and tokens/s per user describe "
                          "a decode step no request of this workload runs past its first token");
    if (rq.concurrency != std::floor(rq.concurrency))
        r.notes.push_back("concurrency " + fmt::format("{}", rq.concurrency) +
                          ": read as a mean number of requests in flight (a closed loop's clients are whole)");
    if (o.json) {
        auto j = estimate_json(r, rq, m, e);
        if (!o.emit.empty()) j["emit"] = emitted(o.emit, m, rq, r, o.model);
        std::cout << j.dump(1) << "\n";
        return;
    }
    const auto& l = rq.disaggregated ? rq.disaggregated->decode : rq.layout;
    fmt::print("roofline estimate: {} on {} GPU{} of {}: {}{} at {} request{} in flight, ISL {} / OSL {}\n",
               display_name(o.model), r.gpus, r.gpus == 1 ? "" : "s", rq.gpu.id, rq.disaggregated ? "decode " : "",
               shown_layout(l, m, rq.disaggregated ? 1 : rq.instances), rq.concurrency, rq.concurrency == 1 ? "" : "s",
               rq.isl, rq.osl);
    if (rq.disaggregated)
        fmt::print("  prefill pool: {} x {} worker{}; decode pool: {} worker{}\n",
                   describe_layout(rq.disaggregated->prefill, m.is_moe()), rq.disaggregated->prefill_workers,
                   rq.disaggregated->prefill_workers == 1 ? "" : "s", rq.disaggregated->decode_workers,
                   rq.disaggregated->decode_workers == 1 ? "" : "s");
    fmt::print("  efficiency: {}; memory headroom assumed {:.0f}% (engine uses {:.0f}% of GPU memory)\n", e.source,
               100 * r.memory_headroom, 100 * (1 - r.memory_headroom));
    if (!r.fits) {
        fmt::print("  {}: {}\n", unpriced(r) ? "not priced" : "does not fit", r.reason);
    } else {
        // Whole tokens/s where there are ten or more; three significant digits below (a TP4096
        // instance had printed "0 tok/s per GPU").
        const auto rate = [](double v, int decimals) {
            return std::round(v) >= 10 ? fmt::format("{:.{}f}", v, decimals) : report::format_significant(v);
        };
        fmt::print("  TTFT {}   TPOT {}   {} tok/s per GPU   {} tok/s per user\n", human_ms(r.ttft_s),
                   human_ms(r.tpot_s), rate(r.tokens_per_s_per_gpu, 0), rate(r.tokens_per_s_per_user, 1));
        const auto& t = r.ttft_split;
        fmt::print("  TTFT = own prefill {} + queue {} + first-token step {} + fixed costs {}\n",
                   human_ms(t.own_prefill_s), human_ms(t.queue_s),
                   human_ms(t.first_token_step_s), human_ms(t.fixed_costs_s));
        // What the fitted groups' runs measured against such predictions, held out model by model.
        if (r.ttft_range_s || r.tpot_range_s) {
            const auto part = [](const char* what, const std::optional<std::pair<double, double>>& range,
                                 const std::optional<heldout_ratio_band>& band) {
                return range && band ? fmt::format("   {} {:.1f}-{:.1f} ms ({:.2f}-{:.2f}x the estimate, {} run{})", what,
                                                   range->first * 1e3, range->second * 1e3, band->p10, band->p90, band->runs,
                                                   band->runs == 1 ? "" : "s")
                                     : std::string();
            };
            fmt::print("  held out, 8 in 10 runs of the fitted groups measured:{}{}\n",
                       part("TTFT", r.ttft_range_s, e.ttft_band), part("TPOT", r.tpot_range_s, e.tpot_band));
        }
        // The step model before fitted efficiencies: a fitted term may price under it (a queue
        // coefficient below 1), so it is named as what it is, not as a bound.
        fmt::print("  roof (the step model, no fitted efficiency; not a lower bound): TTFT {}   TPOT {}; KV holds {:.0f} requests\n",
                   human_ms(r.roof_ttft_s), human_ms(r.roof_tpot_s),
                   r.max_concurrency);
        if (rq.disaggregated)
            fmt::print("  KV transfer {} per prompt; balanced pools: {} prefill workers per decode worker\n",
                       human_ms(r.kv_transfer_s),
                       r.balanced_prefill_per_decode >= 0.1 ? fmt::format("{:.2f}", r.balanced_prefill_per_decode)
                                                            : report::format_significant(r.balanced_prefill_per_decode, 2));
    }
    for (const auto& n : r.notes) fmt::print("  - {}\n", n);
    if (!o.emit.empty()) {
        fmt::print("\n{}\n", emitted(o.emit, m, rq, r, o.model));
    }
}

}  // namespace

void run_estimate_csv(const std::string& csv, const std::vector<std::string>& model_dirs, const std::string& out,
                      const std::string& fit_out, std::size_t limit, bool json, const gpu_catalog& catalog,
                      const std::string& facts_path);

void add_estimate_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("estimate", "One serving configuration (layout, concurrency) estimated, or every "
                                               "measured run of a CSV set beside its estimate (--from-csv)");
    static estimate_options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    cmd->add_option("--model", o.model, "Hugging Face config.json of the model");
    cmd->add_option("--quant", o.quant, "ModelOpt hf_quant_config.json, or a preset: nvfp4, fp8, mxfp4, int4, bf16");
    cmd->add_option("--gpu", o.gpu, "GPU id (see `roofline gpus`)");
    cmd->add_option("--isl", o.isl, "input tokens per request")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--osl", o.osl, "output tokens per request")->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--tp", o.tp, "attention tensor parallel size (per attention-DP rank)")->check(CLI::Range(1, 4096));
    cmd->add_option("--ep", o.ep, "expert parallel size (MoE TP = tp x dp / ep)")->check(CLI::Range(1, 4096));
    cmd->add_option("--dp", o.dp, "attention data parallel size")->check(CLI::Range(1, 4096));
    cmd->add_option("--pp", o.pp, "pipeline parallel size")->check(CLI::Range(1, 4096));
    cmd->add_option("--concurrency", o.concurrency, "requests in flight over the deployment")
        ->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--kv-dtype", o.kv_dtype, "KV-cache dtype: bf16, fp8 (E4M3), fp8_e5m2, or another dtype to price "
                                              "(--emit says where an engine takes none such; default: from --quant or the model)");
    cmd->add_flag("--sol", o.sol, "price at datasheet ceilings (speed of light): no efficiency, no power cap");
    cmd->add_option("--efficiency", o.efficiency, "fitted efficiency table (data/serving/aiconfigurator_fit.json)");
    cmd->add_option("--backend", o.backend, "row of the efficiency table: trtllm, sglang, vllm (default: any)");
    cmd->add_flag("--disagg", o.disagg, "disaggregated: --tp/--ep/--dp/--pp are the decode workers' layout");
    cmd->add_option("--prefill-layout", o.prefill_layout, "disaggregated prefill workers' layout tp,ep,dp,pp");
    cmd->add_option("--prefill-workers", o.prefill_workers, "disaggregated prefill workers")->check(CLI::Range(1, 4096));
    cmd->add_option("--decode-workers", o.decode_workers, "disaggregated decode workers")->check(CLI::Range(1, 4096));
    cmd->add_option("--prefill-batch", o.prefill_batch,
                    "prompts per prefill step of a prefill worker, >= 1 (default 1; at most its share of the "
                    "requests in flight is priced; plan --disagg's points give theirs as the prefill pool's batch)")
        ->check(finite_positive_at_most(max_plausible_count))
        ->check(CLI::Range(1.0, max_plausible_count));
    cmd->add_option("--kv-link-gbps", o.kv_link_gbps, "KV transfer rate per GPU between pools, Gbit/s (default: NVLink)")
        ->check(finite_positive_at_most(1e6));
    cmd->add_option("--mtp", o.mtp, "speculative decoding: draft tokens per step (MTP or a draft model)")->check(CLI::Range(1, 16));
    cmd->add_option("--acceptance", o.acceptance, "speculative decoding: acceptance rate per drafted token, [0, 1)")
        ->check(CLI::Range(0.0, 0.999));
    cmd->add_option("--emit", o.emit, "print the engine's launch flags for the layout: sglang, vllm, trtllm")
        ->check(CLI::IsMember({"sglang", "vllm", "trtllm"}));
    cmd->add_option("--from-csv", o.from_csv, "measured runs in aiconfigurator silicon CSV columns");
    cmd->add_option("--model-dir", o.model_dirs, "folder of <org>--<name>_config.json files (repeatable)");
    cmd->add_option("--out", o.out, "--from-csv: write every run's predicted TTFT/TPOT beside the measured ones");
    cmd->add_option("--fit-out", o.fit_out, "--from-csv: write the efficiency table fitted on every run");
    cmd->add_option("--limit", o.limit, "--from-csv: estimate the first N >= 1 runs only (the whole file is still read and checked)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{100000000}));
    cmd->add_option("--run-facts", o.run_facts,
                    "--from-csv: a CSV of facts the runs file lacks, by run id (same column names; a non-empty cell "
                    "replaces the run's)");
    cmd->add_option("--gpu-file", common.gpu_file, "JSON that adds or overrides GPU entries");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->callback([&common, cmd] {
        const gpu_catalog catalog = load_gpu_catalog(common.gpu_file);
        if (!o.from_csv.empty()) {
            if (o.model_dirs.empty()) throw usage_error("--from-csv needs --model-dir");
            // Each run of the CSV brings its own configuration: a flag of one configuration would be ignored.
            for (const char* f : {"--model", "--quant", "--gpu", "--isl", "--osl", "--tp", "--ep", "--dp", "--pp",
                                  "--concurrency", "--kv-dtype", "--sol", "--efficiency", "--backend", "--disagg",
                                  "--prefill-layout", "--prefill-workers", "--decode-workers", "--prefill-batch",
                                  "--kv-link-gbps", "--mtp", "--acceptance", "--emit"})
                if (cmd->count(f) > 0)
                    throw usage_error(std::string(f) + " sets one configuration; --from-csv takes each run's from its "
                                                       "CSV columns (and fits its own efficiencies)");
            run_estimate_csv(o.from_csv, o.model_dirs, o.out, o.fit_out, o.limit, o.json, catalog, o.run_facts);
            return;
        }
        for (const char* f : {"--model-dir", "--out", "--fit-out", "--limit", "--run-facts"})
            if (cmd->count(f) > 0) throw usage_error(std::string(f) + " needs --from-csv");
        if (o.model.empty() || o.gpu.empty() || !(o.isl > 0) || !(o.osl > 0) || !(o.concurrency > 0))
            throw usage_error("estimate needs --model, --gpu, --isl, --osl and --concurrency (or --from-csv)");
        if (cmd->count("--acceptance") > 0 && o.mtp == 0) throw usage_error("--acceptance needs --mtp");
        if (o.mtp > 0 && cmd->count("--acceptance") == 0)
            throw usage_error("--mtp needs --acceptance (the rate each drafted token is accepted at: it sets the tokens a step "
                              "emits, so no default is assumed)");
        if (o.concurrency < 1)
            throw usage_error("--concurrency " + fmt::format("{}", o.concurrency) + ": at least 1 request in flight");
        if (!o.disagg)
            for (const char* f : {"--prefill-layout", "--prefill-workers", "--decode-workers", "--prefill-batch",
                                  "--kv-link-gbps"})
                if (cmd->count(f) > 0)
                    throw usage_error(std::string(f) + " needs --disagg (it sizes the disaggregated prefill and "
                                                       "decode pools)");
        run_single(o, catalog);
    });
}

}  // namespace roofline::cli
