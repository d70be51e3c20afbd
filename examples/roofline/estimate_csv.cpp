// `roofline estimate --from-csv FILE --model-dir DIR`: every measured run of an aiconfigurator
// silicon CSV (io/serving_runs_csv.hpp) estimated, the efficiencies fitted per (backend, mode)
// and held out model by model (analysis/serving_fit.hpp), errors summarised as Markdown tables.
//
// Stages: resolve models and GPUs -> estimate each run at the roof (its terms; a speculating
// run at no stated rate at every rate the fit may choose; the speed of light of what it states)
// -> fit with each model held out -> predictions (--out CSV) -> summaries (text: Markdown
// tables; --json).

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "roofline/analysis/estimate.hpp"
#include "roofline/analysis/serving_fit.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/io/serving_efficiency_json.hpp"
#include "roofline/io/serving_runs_csv.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/json.hpp"

namespace roofline::cli {
namespace {

/// Lower-case model name without org, "meta-" and quantisation/instruct suffixes, so that
/// "meta-llama/Llama-3.1-8B-Instruct" and "meta-llama--Meta-Llama-3.1-8B_config.json" meet.
std::string model_key(std::string name) {
    if (auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
    if (auto dd = name.find("--"); dd != std::string::npos) name = name.substr(dd + 2);
    if (auto cfg = name.rfind("_config.json"); cfg != std::string::npos) name = name.substr(0, cfg);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (name.rfind("meta-", 0) == 0) name = name.substr(5);
    for (bool again = true; again;) {
        again = false;
        for (const char* suffix : {"-instruct", "-fp8", "-nvfp4", "-fp4"}) {
            const std::string s = suffix;
            if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
                name.resize(name.size() - s.size());
                again = true;
            }
        }
    }
    return name;
}

/// model key -> config path, over every `*_config.json` of the folders (first folder wins).
std::map<std::string, std::string> index_model_dirs(const std::vector<std::string>& dirs) {
    std::map<std::string, std::string> out;
    for (const auto& d : dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(d, ec)) throw usage_error("--model-dir " + d + ": not a folder");
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(d)) {
            const auto name = e.path().filename().string();
            if (name.size() > 12 && name.compare(name.size() - 12, 12, "_config.json") == 0 &&
                name.find("hf_quant_config") == std::string::npos)
                files.push_back(e.path().string());
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) out.emplace(model_key(f), f);
    }
    return out;
}

/// The catalog GPU of a `system` ("h200_sxm" -> h200-sxm, "b200_sxm" -> b200), or null.
const gpu_spec* system_gpu(const gpu_catalog& catalog, std::string system) {
    std::replace(system.begin(), system.end(), '_', '-');
    if (const auto* g = catalog.find(system)) return g;
    if (system.size() > 4 && system.compare(system.size() - 4, 4, "-sxm") == 0) return catalog.find(system.substr(0, system.size() - 4));
    return nullptr;
}

/// The quantisation preset of a run's precision, and whether it is an approximation.
std::pair<std::string, std::string> precision_preset(const measured_serving_run& r) {
    if (r.precision == "fp4" || r.gemm_quant == "nvfp4") return {"nvfp4", ""};
    if (r.precision == "fp8") return {"fp8", ""};
    if (r.precision == "int4") return {"int4", ""};
    if (r.precision == "bf16") return {"bf16", ""};
    return {"", ""};
}

/// One run: its request for the estimator.
estimate_request run_request(const measured_serving_run& r, const gpu_spec& g, const model_config& m) {
    estimate_request rq;
    rq.gpu = g;
    rq.isl = r.isl;
    rq.osl = r.osl;
    rq.concurrency = r.concurrency;
    if (r.precision == "fp8" || r.precision == "fp4") rq.kv_cache = dtype::fp8_e4m3;
    if (!r.spec_decoding.empty())
        // A stated rate is per drafted token; the assumed one decays by position (steady_state.hpp).
        rq.speculative = r.acceptance_rate
                             ? speculative_decoding{std::max(1, r.draft_tokens), *r.acceptance_rate}
                             : speculative_decoding{std::max(1, r.draft_tokens), default_mtp_acceptance_rate,
                                                    default_mtp_position_decay};
    const auto fix = [&](parallel_layout l) {
        if (!m.is_moe()) {  // dense: the MoE columns mean nothing
            l.tp *= l.dp;
            l.dp = 1;
            l.ep = 1;
        }
        if ((l.tp * l.dp) % l.ep) l.ep = 1;
        return l;
    };
    if (!r.disaggregated) {
        rq.layout = fix(r.agg.parallel());
    } else {
        disaggregated_pools d;
        d.prefill = fix(r.prefill.parallel());
        d.decode = fix(r.decode.parallel());
        d.prefill_workers = std::max(1, r.prefill.workers);
        d.prefill_workers_known = r.prefill.workers >= 1;  // else one assumed: no prefill-pool queue priced
        d.decode_workers = std::max(1, r.decode.workers);
        d.prefill_batch = std::max(1.0, r.prefill.batch);
        rq.disaggregated = d;
    }
    return rq;
}

/// The TPOT fit group of a run: a decode step is the same work in an aggregated instance and in
/// a disaggregated decode worker, so TPOT fits per mode across backends ("decode/agg" under
/// "decode"): held out, per-backend TPOT fits generalised worse (aggregated TPOT median 17.4%
/// against 15.4% with the same features, README), each backend holding few models; only the
/// GEMM coefficient is the backend's own (`fit_sample::tpot_split`, analysis/serving_fit.hpp). A
/// disaggregated run without decode worker counts has an unknown batch per worker (one worker is
/// assumed), so it fits apart ("decode-batch-unknown"), its coefficients absorbing the mean
/// worker count of such runs.
std::string tpot_fit_group(const measured_serving_run& r) {
    if (r.disaggregated && r.decode.workers < 1) return "decode-batch-unknown";
    return "decode/" + r.mode;
}

/// A disaggregated run without decode worker counts whose concurrency one decode worker's KV
/// cache cannot hold: the file allows no fewer workers than ceil(C / what one holds), so it is
/// re-estimated with that many (noted); a run whose weights alone do not fit stays as it was.
estimate_result with_fewest_decode_workers(const model_config& m, estimate_request rq, estimate_result first) {
    const double holds = first.decode_point.max_concurrency;
    if (!std::isfinite(holds) || !(holds >= 1)) return first;
    auto& d = *rq.disaggregated;
    d.decode_workers = static_cast<int>(std::ceil(rq.concurrency / holds));
    auto again = estimate_serving(m, rq);
    if (!again.fits) return first;
    again.notes.push_back("decode workers not in the file: " + std::to_string(d.decode_workers) +
                          " assumed, the fewest whose KV caches hold the " + fmt::format("{:g}", rq.concurrency) +
                          " requests in flight");
    return again;
}

struct evaluated_run {
    const measured_serving_run* run = nullptr;
    std::string model;     ///< the config's key ("" when the model was not read)
    std::string skipped;   ///< why no estimate
    estimate_result est;
    std::size_t sample = static_cast<std::size_t>(-1);  ///< index into the fit samples
    bool moe_layout_mismatch = false;  ///< a MoE pool's moe_tp x moe_ep differs from its tp x dp
    /// At each `acceptance_grid` rate (assumed rate only); moved into its fit sample.
    std::vector<serving_features> features_at;
    std::vector<std::string> speculation_note_at;  ///< the estimate's speculation note at each of those rates
    /// Lower bounds of the configuration as the file states it (`serving_speed_of_light`), s;
    /// NaN when not estimated.
    double sol_tpot_s = std::numeric_limits<double>::quiet_NaN(), sol_ttft_s = std::numeric_limits<double>::quiet_NaN();
};

double rel(double pred, double meas) { return std::abs(pred / meas - 1.0); }

struct row_errors {
    std::vector<double> tpot_roof, ttft_roof, tpot_held, ttft_held;
};

std::string pct_or_na(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", 100 * v) : "n/a"; }

/// A Markdown table of held-out (and roof) errors per key.
void print_table(const std::string& title, const std::map<std::string, row_errors>& by, bool with_roof) {
    fmt::print("\n### {}\n\n", title);
    fmt::print("| {} | runs | TPOT median | TPOT p90 | TTFT median | TTFT p90 |{}\n", "group",
               with_roof ? " roof TPOT median | roof TTFT median |" : "");
    fmt::print("|---|---:|---:|---:|---:|---:|{}\n", with_roof ? "---:|---:|" : "");
    for (const auto& [key, e] : by) {
        const auto t = summarize_relative_errors(e.tpot_held), f = summarize_relative_errors(e.ttft_held);
        fmt::print("| {} | {} | {} | {} | {} | {} |", key, t.runs, pct_or_na(t.median), pct_or_na(t.p90), pct_or_na(f.median), pct_or_na(f.p90));
        if (with_roof)
            fmt::print(" {} | {} |", pct_or_na(summarize_relative_errors(e.tpot_roof).median), pct_or_na(summarize_relative_errors(e.ttft_roof).median));
        fmt::print("\n");
    }
}

}  // namespace

void run_estimate_csv(const std::string& csv, const std::vector<std::string>& model_dirs, const std::string& out,
                      const std::string& fit_out, std::size_t limit, bool json, const gpu_catalog& catalog,
                      const std::string& facts_path) {
    std::optional<serving_run_facts> facts;
    if (!facts_path.empty()) facts = read_serving_run_facts(facts_path);
    std::vector<std::string> assumed;  // layout columns the file lacks, read as 1
    auto runs = read_serving_runs(csv, facts ? &*facts : nullptr, &assumed);
    if (limit > 0 && runs.size() > limit) runs.resize(limit);
    // What the facts gave: runs that took cells, and the facts' ids no run of the file has.
    std::size_t with_facts = 0, facts_unused = 0;
    if (facts) {
        std::unordered_set<std::string> ids;
        for (const auto& r : runs) {
            with_facts += r.facts_applied > 0;
            ids.insert(r.id);
        }
        for (const auto& [id, cells] : facts->cells) facts_unused += !ids.count(id);
        if (with_facts == 0)
            std::cerr << "roofline: warning: " << facts->file << ": none of its " << facts->cells.size()
                      << " ids names a run of " << csv << " with a cell to give: the facts change nothing\n";
    }
    const auto index = index_model_dirs(model_dirs);
    std::map<std::string, std::optional<model_config>> models;  // by run model_path + preset
    std::map<std::string, std::string> model_problems;      // by model_path as written (--json)
    std::map<std::string, std::string> problems_by_key;     // by model key: paths that differ only in spelling
    std::vector<evaluated_run> ev(runs.size());
    std::vector<fit_sample> samples;
    std::map<std::string, std::size_t> skipped_why;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        auto& e = ev[i];
        e.run = &r;
        const auto [preset, approx] = precision_preset(r);
        const std::string key = model_key(r.model_path);
        const std::string mkey = key + "|" + preset;
        if (!models.count(mkey)) {
            models[mkey] = std::nullopt;
            auto it = index.find(key);
            if (it == index.end()) {
                problems_by_key[mkey] = "no config for \"" + r.model_path + "\" in --model-dir";
            } else {
                try {
                    model_config m = read_hf_config(it->second);
                    // A checkpoint already in the run's int4 scheme keeps its own (its exclusions).
                    if (!(preset == "int4" && m.quant.weights == dtype::int4)) apply_quant_option(m, preset);
                    models[mkey] = m;
                } catch (const error& ex) {
                    problems_by_key[mkey] = ex.what();
                }
            }
        }
        const gpu_spec* g = system_gpu(catalog, r.system);
        if (preset.empty() && !r.precision.empty()) {
            e.skipped = "precision \"" + r.precision + "\" is not one the estimator knows (fp4, fp8, int4, bf16)";
            ++skipped_why[e.skipped];
            continue;
        }
        if (!models[mkey]) {
            model_problems[r.model_path] = problems_by_key[mkey];
            e.skipped = "model: " + problems_by_key[mkey];
        }
        else if (!g) e.skipped = "system \"" + r.system + "\" is not in the catalog";
        if (!e.skipped.empty()) {
            ++skipped_why[e.skipped];
            continue;
        }
        e.model = key;
        try {
            const model_config& m = *models[mkey];
            const auto rq = run_request(r, *g, m);
            e.est = estimate_serving(m, rq);
            if (!e.est.fits && r.disaggregated && r.decode.workers < 1) e.est = with_fewest_decode_workers(m, rq, e.est);
            // Speculating at an assumed rate: its features at every rate the fit may choose.
            if (e.est.fits && rq.speculative && !r.acceptance_rate) {
                for (double a : acceptance_grid) {
                    auto at = rq;
                    at.speculative->acceptance_rate = a;
                    auto est = estimate_serving(m, at);
                    if (!est.fits && r.disaggregated && r.decode.workers < 1) est = with_fewest_decode_workers(m, at, est);
                    if (!est.fits) {
                        e.features_at.clear();
                        e.speculation_note_at.clear();
                        break;
                    }
                    e.features_at.push_back(est.features);
                    std::string said;  // the planner's note on speculation, at this rate
                    for (const auto& n : est.notes)
                        if (n.rfind("speculative decoding:", 0) == 0) said = n;
                    e.speculation_note_at.push_back(said);
                }
            }
            if (e.est.fits) {
                // The sequences in decode: by Little's law, the requests in flight times the share
                // of a request's time its measured TPOT spends decoding (an engine that admits
                // fewer than the requests in flight decodes a smaller batch; those waiting count
                // in TTFT), at least the instances' count.
                auto bound_rq = rq;
                const double decoding = r.osl * r.tpot_s, in_decode = r.concurrency * decoding / (r.ttft_s + decoding);
                if (std::isfinite(in_decode))
                    bound_rq.concurrency = std::clamp(in_decode, std::min<double>(r.concurrency, std::max(1, rq.instances)), r.concurrency);
                // No TPOT bound where the decode batch or the draft count is not stated.
                const bool batch_unknown = r.disaggregated && r.decode.workers < 1;
                const bool drafts_unknown = !r.spec_decoding.empty() && r.draft_tokens < 1;
                const auto b = serving_speed_of_light(m, bound_rq, !batch_unknown && !drafts_unknown);
                e.sol_tpot_s = b.tpot_s;
                e.sol_ttft_s = b.ttft_s;
                if (r.tpot_s < b.tpot_s)
                    e.est.notes.push_back(fmt::format(
                        "measured TPOT {:.3g}x the speed of light of this configuration as stated ({:.3g} ms at the {:.3g} of "
                        "{:g} requests its TTFT and TPOT leave in decode): it did not run as stated",
                        r.tpot_s / b.tpot_s, b.tpot_s * 1e3, bound_rq.concurrency, r.concurrency));
                if (r.ttft_s < b.ttft_s)
                    e.est.notes.push_back(fmt::format("measured TTFT {:.3g}x the prompt's own prefill at the speed of light "
                                                      "({:.3g} ms): it did not run as stated",
                                                      r.ttft_s / b.ttft_s, b.ttft_s * 1e3));
            }
            if (!approx.empty()) e.est.notes.push_back(approx);
            for (const auto* l : {&r.agg, &r.prefill, &r.decode})
                if (l->dp_inferred)
                    detail::step::note_once(e.est.notes, "attention_dp_size empty: dp " + std::to_string(l->dp) +
                                                             " inferred as moe_tp_size x moe_ep_size / tp_size");
            for (const auto* l : {&r.agg, &r.prefill, &r.decode})
                if (m.is_moe() && l->moe_tp * l->moe_ep != l->tp * l->dp && (l == &r.agg) != r.disaggregated) {
                    e.moe_layout_mismatch = true;
                    detail::step::note_once(e.est.notes, "moe_tp_size x moe_ep_size = " + std::to_string(l->moe_tp * l->moe_ep) +
                                                             " differs from tp_size x attention_dp_size = " +
                                                             std::to_string(l->tp * l->dp) + ": priced as MoE TP " +
                                                             std::to_string(l->tp * l->dp / std::max(1, l->moe_ep)) + " x EP " +
                                                             std::to_string(l->moe_ep) + " over tp x dp GPUs");
                }
            for (const auto* l : {&r.agg, &r.prefill, &r.decode})
                if (l->moe_ep > 1 && (l->tp * l->dp) % l->moe_ep != 0 && m.is_moe())
                    detail::step::note_once(e.est.notes, "moe_ep_size " + std::to_string(l->moe_ep) + " does not divide tp x dp = " +
                                               std::to_string(l->tp * l->dp) + ": priced as EP1");
        } catch (const error& ex) {
            const std::string what = ex.what();
            e.skipped = what.rfind("estimate: ", 0) == 0 ? what : "estimate: " + what;
        }
        if (e.skipped.empty() && !e.est.fits) e.skipped = "does not fit: " + e.est.reason;
        if (!e.skipped.empty()) {
            // "does not fit: <numbers>" groups by its label; other reasons count whole.
            ++skipped_why[e.skipped.rfind("does not fit", 0) == 0 ? std::string("does not fit") : e.skipped];
            continue;
        }
        fit_sample s;
        s.features = e.est.features;
        s.tpot_s = r.tpot_s;
        s.ttft_s = r.ttft_s;
        s.group = r.mode + "/" + r.backend;
        s.tpot_group = tpot_fit_group(r);
        s.tpot_split = r.backend;  // each engine's own GEMM efficiency (serving_fit.hpp tpot_split_term)
        s.model = key;
        s.features_at = std::move(e.features_at);
        e.sample = samples.size();
        samples.push_back(std::move(s));
    }
    if (samples.empty()) {
        std::map<std::string, std::size_t> by_reason;
        for (const auto& e : ev)
            if (!e.skipped.empty()) ++by_reason[e.skipped];
        std::string why;
        std::size_t most = 0;
        for (const auto& [reason, n] : by_reason)
            if (n > most) most = n, why = reason;
        throw usage_error(csv + ": none of its " + std::to_string(runs.size()) + " runs could be estimated" +
                          (why.empty() ? std::string() : " (" + std::to_string(most) + " of them: " + why + ")"));
    }
    // Runs whose attention DP was inferred from their MoE layout (serving_runs_csv.hpp), and
    // estimated runs whose MoE columns disagree with the GPUs their attention layout spans.
    std::size_t inferred_dp = 0, moe_mismatch = 0;
    for (const auto& r : runs) inferred_dp += r.agg.dp_inferred || r.prefill.dp_inferred || r.decode.dp_inferred;
    for (const auto& e : ev) moe_mismatch += e.sample < samples.size() && e.moe_layout_mismatch;
    // Estimated runs measured under their configuration's speed of light (serving_speed_of_light).
    std::vector<std::string> below_sol_tpot, below_sol_ttft;
    std::size_t sol_tpot_known = 0, sol_ttft_known = 0;
    for (const auto& e : ev) {
        if (e.sample >= samples.size()) continue;
        sol_tpot_known += std::isfinite(e.sol_tpot_s);
        sol_ttft_known += std::isfinite(e.sol_ttft_s);
        if (e.run->tpot_s < e.sol_tpot_s) below_sol_tpot.push_back(e.run->id);
        if (e.run->ttft_s < e.sol_ttft_s) below_sol_ttft.push_back(e.run->id);
    }
    // Runs that speculate, how many were estimated, and how many of those assume the rate or depth.
    std::size_t speculating = 0, speculating_estimated = 0, assumed_acceptance = 0, assumed_draft = 0;
    for (const auto& e : ev) {
        if (e.run->spec_decoding.empty()) continue;
        ++speculating;
        if (e.sample >= samples.size()) continue;
        ++speculating_estimated;
        assumed_acceptance += !e.run->acceptance_rate.has_value();
        assumed_draft += e.run->draft_tokens < 1;
    }
    // One model only: holding it out leaves nothing to fit, so its held-out columns are the roof.
    {
        std::set<std::string> models;
        for (const auto& smp : samples) models.insert(smp.model);
        if (models.size() == 1)
            assumed.push_back("held out: the runs are of one model (" + *models.begin() +
                              "), so no other model's runs fit its held-out efficiency: the heldout_ columns are the "
                              "roof's, and the fitted_ columns (and --fit-out) rest on its runs alone");
    }
    {
        // Backends past the fit's columns share their TPOT group's GEMM coefficient: said.
        std::map<std::string, std::map<std::string, std::size_t>> per_group;
        std::map<std::string, std::size_t> group_runs;
        for (const auto& smp : samples) {
            ++group_runs[smp.tpot_base_key()];
            if (!smp.tpot_split.empty()) ++per_group[smp.tpot_base_key()][smp.tpot_split];
        }
        for (const auto& [group, runs] : per_group) {
            std::vector<std::pair<std::string, std::size_t>> left_out;
            tpot_split_values(runs, group_runs[group], &left_out);
            if (left_out.empty()) continue;
            std::string left;
            for (const auto& [backend, n] : left_out)
                left += (left.empty() ? "" : ", ") + backend + " (" + std::to_string(n) + " runs)";
            assumed.push_back(fmt::format("TPOT: {} of group {} get no GEMM coefficient of their own (only the {} backends "
                                          "with the most runs do: max_tpot_split_columns); with --backend they take {}'s",
                                          left, group, max_tpot_split_columns, group));
        }
    }
    heldout_ratios ratios;
    std::map<std::string, double> acceptance_by_model;  // the rate chosen with each model held out
    const auto held = leave_one_model_out(samples, &ratios, &acceptance_by_model);
    // The fit of every run (--fit-out, fitted_ columns) at the rate every run chooses.
    const auto all_acceptance = choose_acceptance(samples);
    const auto at_all = all_acceptance ? at_acceptance(samples, *all_acceptance) : samples;
    auto all_fit = fit_groups(at_all);
    // Each estimated run's terms as its held-out prediction priced them (a run at no stated
    // acceptance: at the rate chosen with its model held out; else its estimate's), with the
    // roof of those terms and, where a rate was chosen, the rate's index in the grid.
    std::vector<const serving_features*> heldout_terms(ev.size(), nullptr);
    std::vector<std::pair<double, double>> roof_of(ev.size());  // {TTFT, TPOT}, s
    std::vector<std::optional<std::size_t>> heldout_rate(ev.size());
    std::set<std::string> speculating_models, unchosen_models;  // with runs at no stated rate; those without a chosen one
    for (std::size_t i = 0; i < ev.size(); ++i) {
        const auto& e = ev[i];
        if (e.sample >= samples.size()) continue;
        heldout_terms[i] = &e.est.features;
        roof_of[i] = {e.est.roof_ttft_s, e.est.roof_tpot_s};
        const auto& features_at = samples[e.sample].features_at;
        if (features_at.empty()) continue;
        speculating_models.insert(e.model);
        const auto it = acceptance_by_model.find(e.model);
        if (it == acceptance_by_model.end()) {
            unchosen_models.insert(e.model);
            continue;
        }
        for (std::size_t g = 0; g < acceptance_grid.size(); ++g)
            if (acceptance_grid[g] == it->second) heldout_rate[i] = g;
        if (!heldout_rate[i]) continue;
        heldout_terms[i] = &features_at[*heldout_rate[i]];
        roof_of[i] = {roof_ttft_s(*heldout_terms[i]), apply_efficiency(*heldout_terms[i], roof_efficiency()).first};
    }
    double heldout_low = 1, heldout_high = 0;
    for (const auto& m : speculating_models)
        if (auto it = acceptance_by_model.find(m); it != acceptance_by_model.end())
            heldout_low = std::min(heldout_low, it->second), heldout_high = std::max(heldout_high, it->second);
    std::string heldout_said;
    if (heldout_low <= heldout_high)
        heldout_said = heldout_low == heldout_high ? fmt::format("held out, {:g}", heldout_low)
                                                   : fmt::format("held out, {:g}-{:g} by the model left out", heldout_low, heldout_high);
    if (!unchosen_models.empty())
        heldout_said += fmt::format("{}{} of the {} speculating models with no other model's such runs to choose by: held "
                                    "out at the assumed {:g}",
                                    heldout_said.empty() ? "" : "; ", unchosen_models.size(), speculating_models.size(),
                                    default_mtp_acceptance_rate);
    const std::string acceptance_said =
        all_acceptance ? fmt::format("fitted like a coefficient (the rate on a grid of 0.40-0.90 whose TPOT fit misses these "
                                     "runs least: {:g} over every run, the fitted_ columns and --fit-out; {})",
                                     acceptance_grid[*all_acceptance], heldout_said)
                       : fmt::format("assumed {:g} (DeepSeek-V3 report, 85-90% for the second token)", default_mtp_acceptance_rate);
    const std::string speculation_line =
        speculating == 0
            ? std::string()
            : fmt::format("{} runs speculate (spec_decoding), {} of them estimated, each priced as the planner prices "
                          "MTP heads; {}{}",
                          speculating, speculating_estimated,
                          assumed_acceptance == 0
                              ? std::string("each at its stated acceptance")
                              : fmt::format("{} at no stated acceptance: the rate of the first drafted token {}, each later "
                                            "one at {:g} x the one before (Nebius: DeepSeek-V3's MTP module accepts 3.20 "
                                            "tokens a step of 7 drafts)",
                                            assumed_acceptance, acceptance_said, default_mtp_position_decay),
                          assumed_draft ? fmt::format(", {} at 1 draft token (none given)", assumed_draft) : "");
    attach_heldout_bands(all_fit, ratios);  // what `estimate --efficiency` prints as the held-out range

    // Predictions beside the measurements.
    if (!out.empty()) {
        std::ofstream f(out);
        if (!f) throw usage_error("cannot write " + out);
        report::csv_writer w(f, false);
        w.row({"id", "system", "backend", "model_path", "mode", "isl", "osl", "concurrency", "measured_ttft_ms",
               "measured_tpot_ms", "roof_ttft_ms", "roof_tpot_ms", "heldout_ttft_ms", "heldout_tpot_ms", "fitted_ttft_ms",
               "fitted_tpot_ms", "skipped", "tpot_terms", "ttft_terms", "notes", "sol_tpot_ms", "sol_ttft_ms"});
        for (std::size_t i = 0; i < ev.size(); ++i) {
            const auto& e = ev[i];
            const auto& r = *e.run;
            std::string held_out_note;  // the speculation note at the rate the held-out fit chose
            std::vector<std::string> row = {r.id, r.system, r.backend, r.model_path, r.mode, report::csv_number(r.isl),
                                            report::csv_number(r.osl), report::csv_number(r.concurrency),
                                            report::csv_number(measured_ms(r.ttft_s, r.ttft_ms_as_read)),
                                            report::csv_number(measured_ms(r.tpot_s, r.tpot_ms_as_read))};
            if (e.sample < samples.size()) {
                const auto& smp = at_all[e.sample];
                const auto fitted = apply_efficiency(smp.features, efficiency_for(all_fit, smp.group, smp.tpot_key()));
                // The terms (and their roof) the held-out prediction priced.
                const serving_features* terms = heldout_terms[i];
                if (heldout_rate[i])
                    held_out_note = e.speculation_note_at[*heldout_rate[i]] +
                                    " (the rate the fit chose with this run's model held out: the terms, roof_ and heldout_ "
                                    "columns" +
                                    (all_acceptance ? fmt::format("; fitted_ at {:g}, every run's)", acceptance_grid[*all_acceptance])
                                                    : std::string(")"));
                for (double v : {roof_of[i].first, roof_of[i].second, held[e.sample].second, held[e.sample].first,
                                 fitted.second, fitted.first})
                    row.push_back(report::csv_number(v * 1e3));
                row.push_back("");
                std::string tp, tf;
                for (double v : terms->tpot) tp += (tp.empty() ? "" : ";") + report::csv_number(v);
                for (double v : terms->ttft) tf += (tf.empty() ? "" : ";") + report::csv_number(v);
                row.push_back(tp);
                row.push_back(tf);
            } else {
                for (int k = 0; k < 6; ++k) row.push_back("");
                row.push_back(e.skipped);
                row.push_back("");
                row.push_back("");
            }
            std::string notes;  // what the estimate assumed or inferred for this run
            for (const auto& n : e.est.notes)
                notes += (notes.empty() ? "" : "; ") +
                         (!held_out_note.empty() && n.rfind("speculative decoding:", 0) == 0 ? held_out_note : n);
            row.push_back(notes);
            row.push_back(std::isfinite(e.sol_tpot_s) ? report::csv_number(e.sol_tpot_s * 1e3) : "");
            row.push_back(std::isfinite(e.sol_ttft_s) ? report::csv_number(e.sol_ttft_s * 1e3) : "");
            w.row(row);
        }
        f.flush();
        if (!f) throw usage_error("cannot write " + out + " (the write failed: disk full?)");
    }
    if (!fit_out.empty()) {
        std::map<std::string, std::size_t> counts;
        for (const auto& s : samples) {
            for (const auto& g : group_levels(s.group)) ++counts[g];
            for (const auto& g : group_levels(s.tpot_key())) ++counts[g];
        }
        write_serving_efficiency(fit_out, all_fit, counts,
                                 "roofline estimate --from-csv " + std::filesystem::path(csv).filename().string() +
                                     " --model-dir ... --fit-out: L1 on relative error, non-negative; TTFT per "
                                     "mode/backend, TPOT per decode/mode (decode-batch-unknown: "
                                     "disaggregated runs without worker counts), each backend's GEMM coefficient its own "
                                     "(decode/mode/backend) (analysis/serving_fit.hpp)" +
                                     (all_acceptance ? fmt::format("; runs speculating at no stated acceptance fitted at {:g} "
                                                                   "for the first drafted token (choose_acceptance)",
                                                                   acceptance_grid[*all_acceptance])
                                                     : std::string()));
    }

    // Summaries.
    std::map<std::string, row_errors> by_mode, by_gpu_model, by_gpu, by_backend, by_model;
    for (std::size_t i = 0; i < ev.size(); ++i) {
        const auto& e = ev[i];
        if (e.sample >= samples.size()) continue;
        const auto& r = *e.run;
        const auto add = [&](row_errors& x) {
            x.tpot_roof.push_back(rel(roof_of[i].second, r.tpot_s));
            x.ttft_roof.push_back(rel(roof_of[i].first, r.ttft_s));
            x.tpot_held.push_back(rel(held[e.sample].first, r.tpot_s));
            x.ttft_held.push_back(rel(held[e.sample].second, r.ttft_s));
        };
        add(by_mode["all"]);
        add(by_mode[r.mode]);
        add(by_gpu_model[r.system + " " + r.model_path]);
        add(by_gpu[r.system + " " + r.mode]);
        add(by_backend[r.backend + " " + r.mode]);
        add(by_model[r.model_path + " " + r.mode]);
    }
    if (json) {
        nlohmann::json j;
        j["runs"] = runs.size();
        j["estimated"] = samples.size();
        j["skipped"] = skipped_why;
        j["assumed"] = assumed;
        j["inferred_dp_runs"] = inferred_dp;
        j["moe_layout_mismatch_runs"] = moe_mismatch;
        j["model_problems"] = model_problems;
        if (facts)
            j["facts"] = {{"file", facts->file}, {"ids", facts->cells.size()}, {"runs_with_facts", with_facts},
                          {"ids_not_in_runs", facts_unused}};
        j["speculating_runs"] = speculating;
        j["speculating_runs_estimated"] = speculating_estimated;
        j["assumed_acceptance_runs"] = assumed_acceptance;
        j["fitted_acceptance"] = all_acceptance ? nlohmann::json(acceptance_grid[*all_acceptance]) : nlohmann::json(nullptr);
        j["heldout_acceptance"] = acceptance_by_model;
        j["assumed_draft_tokens_runs"] = assumed_draft;
        j["below_speed_of_light"] = {{"tpot_bound_runs", sol_tpot_known}, {"ttft_bound_runs", sol_ttft_known},
                                     {"tpot", below_sol_tpot}, {"ttft", below_sol_ttft}};
        const auto summary = [](const std::map<std::string, row_errors>& by) {
            nlohmann::json o = nlohmann::json::object();
            for (const auto& [k, e] : by) {
                const auto t = summarize_relative_errors(e.tpot_held), f = summarize_relative_errors(e.ttft_held);
                const auto rt = summarize_relative_errors(e.tpot_roof), rf = summarize_relative_errors(e.ttft_roof);
                o[k] = {{"runs", t.runs}, {"tpot_median", t.median}, {"tpot_p90", t.p90}, {"ttft_median", f.median},
                        {"ttft_p90", f.p90}, {"roof_tpot_median", rt.median}, {"roof_ttft_median", rf.median}};
            }
            return o;
        };
        j["by_mode"] = summary(by_mode);
        j["by_gpu_model"] = summary(by_gpu_model);
        j["by_gpu"] = summary(by_gpu);
        j["by_backend"] = summary(by_backend);
        j["by_model"] = summary(by_model);
        std::cout << j.dump(1) << "\n";
        return;
    }
    fmt::print("roofline estimate --from-csv: {} runs, {} estimated; errors |predicted / measured - 1| with each model "
               "held out of the fitted efficiencies (leave-one-model-out); roof: the planner's model alone\n",
               runs.size(), samples.size());
    if (facts)
        fmt::print("  facts: {} runs took cells from {} ({} of its {} ids are not in the runs file)\n", with_facts, facts->file,
                   facts_unused, facts->cells.size());
    if (!speculation_line.empty()) fmt::print("  {}\n", speculation_line);
    for (const auto& a : assumed) fmt::print("  assumed: {}\n", a);
    if (inferred_dp)
        fmt::print("  inferred: {} runs' attention DP as moe_tp_size x moe_ep_size / tp_size (their attention_dp_size is "
                   "empty and their MoE spans more GPUs than the attention TP)\n",
                   inferred_dp);
    if (moe_mismatch)
        fmt::print("  layouts: {} estimated MoE runs give moe_tp_size x moe_ep_size other than tp_size x attention_dp_size: "
                   "priced over the tp x dp GPUs, MoE TP = tp x dp / EP (each run's notes in --out)\n",
                   moe_mismatch);
    fmt::print("  speed of light: {} of {} runs with a stated decode batch (and draft count) measure TPOT under the decode step of their "
               "configuration at datasheet ceilings (at the requests their TTFT and TPOT leave in decode), {} of {} runs "
               "TTFT under their prompt's own prefill so: they did not run as stated (each in --out's notes and sol_ "
               "columns), kept in the tables and the fit\n",
               below_sol_tpot.size(), sol_tpot_known, below_sol_ttft.size(), sol_ttft_known);
    for (const auto& [why, n] : skipped_why) fmt::print("  skipped {}: {}\n", n, why);
    print_table("Overall (held out)", by_mode, true);
    print_table("Per GPU and mode", by_gpu, true);
    print_table("Per backend and mode", by_backend, true);
    print_table("Per model and mode", by_model, true);
    print_table("Per (GPU, model)", by_gpu_model, false);
}

}  // namespace roofline::cli
