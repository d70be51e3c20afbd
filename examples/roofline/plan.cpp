// `roofline plan`: capacity planning. Sweeps GPUs, GPU counts, parallel layouts (TP, EP, attention
// DP, PP) and concurrencies for a model and a traffic shape, and prints the Pareto front of
// tokens/s per GPU against tokens/s per user, with the bound of each phase.
//
//   roofline plan --model CONFIG [--quant Q] --gpus ID,ID|all --counts 1,2,4,8 --isl N --osl N
//                 [--concurrency list] [--ttft-slo-ms X] [--tpot-slo-ms Y] [--kv-dtype bf16|fp8]
//                 [--json | --csv] [--svg FILE] [--sol] [--max-pp N] [--gpu-file F.json]
//                 [--rate R] [--mtp K --acceptance A] [--disagg [--kv-link-gbps X]]
//
// Lists are comma-separated; counts and concurrencies also take ranges ("1-64"). `--json` keys
// (stable): points_evaluated, layouts_evaluated, fitting, meeting_slo, rejected{...}, points[],
// pareto[] (points: gpu, count, tp, ep, dp, pp, instances, concurrency, fits, reason,
// tokens_per_s_per_gpu, tokens_per_s_per_user, output_tokens_per_s, ttft_s, tpot_s, bound,
// decode_bound, prefill_bound, decode_phase, prefill_phase, decode_step_s, prefill_step_s,
// decode_share, max_concurrency, weight_bytes, kv_bytes, activation_bytes, usable_bytes,
// power_limit_w, power_w, power_capped, clock_fraction, energy_per_token_j,
// energy_per_output_token_j, energy_per_token_at_limit_j, meets_slo), notes[]; with --disagg,
// disaggregated{points_evaluated, fitting, meeting_slo, prefill_batch, pareto[] (gpu, count,
// prefill{tp, ep, dp, pp, workers, batch}, decode{tp, ep, dp, pp, workers}, concurrency, ttft_s, tpot_s, tokens_per_s_per_gpu,
// tokens_per_s_per_user, output_tokens_per_s, kv_transfer_s, balanced_prefill_per_decode,
// decode_bound, prefill_bound, meets_slo), notes[]}.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/analysis/plan.hpp"
#include "roofline/analysis/plan_disaggregated.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/models/parameters.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/json_writer.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/svg_pareto.hpp"
#include "roofline/report/table.hpp"

namespace roofline::cli {
namespace {

struct plan_options {
    std::string model, quant, gpus, counts, concurrency, kv_dtype, svg, calibration;
    double isl = 0, osl = 0;
    std::optional<double> ttft_slo_ms, tpot_slo_ms, rate, kv_link_gbps;
    int max_pp = 0, mtp = 0;
    std::optional<double> acceptance;
    bool json = false, csv = false, sol = false, disagg = false;
};

/// "a,b,c" -> items; an empty item is a usage error naming the option.
std::vector<std::string> split_list(const std::string& list, const std::string& option) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = list.find(',', start);
        std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty()) throw usage_error(option + " \"" + list + "\": empty item");
        out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

/// A positive number, whole when `integer`; a usage error naming the option otherwise.
double parse_number(const std::string& s, const std::string& option, bool integer) {
    if (hex_number(s)) throw usage_error(option + ": " + hex_refusal(s));
    std::size_t used = 0;
    double v = 0;
    try {
        if (s.find_first_of("xX") == std::string::npos) v = std::stod(s, &used);  // decimal only, not 0x10
    } catch (...) {
        used = 0;
    }
    if (used != s.size() || !std::isfinite(v) || !(v > 0) || (integer && v != std::floor(v)))
        throw usage_error(option + ": \"" + s + "\" is not a positive " + (integer ? "whole number" : "number"));
    return v;
}

/// "1,2,4" or "1-64" or a mix -> numbers (ranges of whole numbers, step 1).
std::vector<double> parse_numbers(const std::string& list, const std::string& option, bool integer) {
    std::vector<double> out;
    for (const auto& item : split_list(list, option)) {
        // A range's dash, not an exponent's sign ("1e-3").
        auto dash = item.find('-', 1);
        while (dash != std::string::npos && (item[dash - 1] == 'e' || item[dash - 1] == 'E')) dash = item.find('-', dash + 1);
        if (dash == std::string::npos) {
            out.push_back(parse_number(item, option, integer));
            continue;
        }
        const double a = parse_number(item.substr(0, dash), option, true);
        const double b = parse_number(item.substr(dash + 1), option, true);
        if (b < a || b - a > 100000) throw usage_error(option + ": bad range \"" + item + "\"");
        for (double v = a; v <= b; v += 1) out.push_back(v);
    }
    // A value listed twice would be swept, counted and rejected twice.
    std::vector<double> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    if (const auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end())
        throw usage_error(option + " \"" + list + "\": " + fmt::format("{}", *d) + " is listed twice");
    return out;
}

/// "TP8 x2" (dense), "attention TP1 DP8, MoE TP4 x EP2" (MoE): attention and MoE named apart.
std::string layout_text(const plan_point& p, bool moe) {
    std::string s = describe_layout(p.layout, moe);
    if (p.instances > 1) s += fmt::format(" x{}", p.instances);
    return s;
}

/// A layout, compact: "TP1 DP4 / MoE TP2xEP2" for `describe_layout`'s "attention TP1 DP4, MoE
/// TP2 x EP2" (chart labels, where the long form does not fit).
std::string compact_layout(const parallel_layout& l, bool moe) {
    std::string s = describe_layout(l, moe);
    auto replace = [&s](const std::string& from, const std::string& to) {
        for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    };
    replace("attention ", "");
    replace(", MoE ", " / MoE ");
    replace(" x EP", "xEP");
    return s;
}

/// A pool's worker layout and its worker count, compact: "TP1 DP4 / MoE TP2xEP2 x1".
std::string pool_text(const parallel_layout& l, int workers, bool moe) {
    return compact_layout(l, moe) + fmt::format(" x{}", workers);
}

std::string short_bound(bound b) {
    switch (b) {
        case bound::compute: return "comp";
        case bound::memory: return "mem";
        case bound::power: return "pwr";
        case bound::communication: return "comm";
        case bound::latency: return "lat";
    }
    return "?";
}

std::string plan_time_text(double s) {
    if (!std::isfinite(s)) return "n/a";
    if (s >= 1.0) return fmt::format("{:.2f} s", s);
    if (s >= 1e-3) return fmt::format("{:.1f} ms", s * 1e3);
    if (s >= 1e-6 || s == 0) return fmt::format("{:.0f} us", s * 1e6);
    return fmt::format("{:.3g} us", s * 1e6);  // a limit below 1 us ("0 us" had hidden it)
}

/// One point of `plan --json` (the `--json` contract keys of a point), appended to `out` as an
/// element of a top-level array (depth 2) by report::json_text_writer: keys in nlohmann's sorted
/// order, so the streamed points[] read exactly as nlohmann's dump of the same object (the
/// plan_json_points_match_pareto CLI test compares them with pareto[], which nlohmann writes).
void append_point_json(std::string& out, const plan_point& p, const plan_result& r) {
    report::json_text_writer w(out, 1, 2);
    const bool f = p.fits();
    const auto text_or_null = [&](const char* k, bool known, std::string_view v) {
        w.key(k);
        if (known) w.string(v);
        else w.null();
    };
    w.begin_object();
    w.key("activation_bytes"), w.number(p.activation_bytes);
    text_or_null("bound", f, to_string(p.overall_bound));
    w.key("clock_fraction"), w.number(p.clock_fraction);
    w.key("concurrency"), w.number(p.concurrency);
    w.key("count"), w.integer(p.count);
    text_or_null("decode_bound", f, to_string(p.decode_bound));
    text_or_null("decode_phase", f, to_string(p.decode_phase));
    w.key("decode_share"), w.number(p.decode_share);
    w.key("decode_step_s"), w.number(p.decode_step_s);
    w.key("dp"), w.integer(p.layout.dp);
    w.key("energy_per_output_token_j"), w.number(p.energy_per_output_token_j);
    w.key("energy_per_token_at_limit_j"), w.number(p.energy_per_token_at_limit_j);
    w.key("energy_per_token_j"), w.number(p.energy_per_token_j);
    w.key("ep"), w.integer(p.layout.ep);
    w.key("fits"), w.boolean(f);
    w.key("gpu"), w.string(r.gpu_ids[p.gpu]);
    w.key("instances"), w.integer(p.instances);
    w.key("kv_bytes"), w.number(p.kv_bytes);
    w.key("max_concurrency"), w.number(p.max_concurrency);
    w.key("meets_slo"), w.boolean(p.meets_slo);
    w.key("output_tokens_per_s"), w.number(p.output_tokens_per_s);
    w.key("power_capped"), w.boolean(p.power_capped);
    w.key("power_limit_w"), w.number(p.power_limit_w);
    w.key("power_w"), w.number(p.power_w);
    w.key("pp"), w.integer(p.layout.pp);
    text_or_null("prefill_bound", f, to_string(p.prefill_bound));
    text_or_null("prefill_phase", f, to_string(p.prefill_phase));
    w.key("prefill_step_s"), w.number(p.prefill_step_s);
    w.key("prefill_tokens"), w.number(f ? p.prefill_tokens : NAN);
    const bool rejected = !f || !p.meets_slo;
    text_or_null("reason", rejected, rejection_reason(p, r));
    text_or_null("rejection", rejected, rejection_name(p));
    w.key("tokens_per_s_per_gpu"), w.number(p.tokens_per_s_per_gpu);
    w.key("tokens_per_s_per_user"), w.number(p.tokens_per_s_per_user);
    w.key("tp"), w.integer(p.layout.tp);
    w.key("tpot_s"), w.number(p.tpot_s);
    w.key("ttft_prefill_s"), w.number(p.ttft_prefill_s);
    w.key("ttft_queue_s"), w.number(p.ttft_queue_s);
    w.key("ttft_s"), w.number(p.ttft_s);
    w.key("usable_bytes"), w.number(p.usable_bytes);
    w.key("weight_bytes"), w.number(p.weight_bytes);
    w.end_object();
}

/// One point as an nlohmann object (pareto[] and sizing.point): `append_point_json`'s text
/// parsed, so the keys of a point are written down once.
nlohmann::json point_json(const plan_point& p, const plan_result& r) {
    std::string text;
    append_point_json(text, p, r);
    return nlohmann::json::parse(text);
}

const std::vector<std::string>& csv_header() {
    static const std::vector<std::string> h = {
        "gpu", "count", "tp", "ep", "dp", "pp", "instances", "concurrency", "fits", "rejection", "reason", "meets_slo",
        "tokens_per_s_per_gpu", "tokens_per_s_per_user", "output_tokens_per_s", "ttft_s", "tpot_s", "bound",
        "decode_bound", "prefill_bound", "decode_phase", "prefill_phase", "decode_step_s", "prefill_step_s",
        "decode_share", "max_concurrency", "weight_bytes", "kv_bytes", "activation_bytes", "usable_bytes",
        "power_limit_w", "power_w", "power_capped", "energy_per_token_j", "energy_per_token_at_limit_j"};
    return h;
}

std::vector<std::string> csv_row(const plan_point& p, const plan_result& r) {
    using report::csv_number;
    const bool f = p.fits();
    return {r.gpu_ids[p.gpu], std::to_string(p.count), std::to_string(p.layout.tp), std::to_string(p.layout.ep),
            std::to_string(p.layout.dp), std::to_string(p.layout.pp), std::to_string(p.instances),
            csv_number(p.concurrency), f ? "1" : "0", std::string(rejection_name(p)),
            rejection_reason(p, r), p.meets_slo ? "1" : "0", csv_number(p.tokens_per_s_per_gpu),
            csv_number(p.tokens_per_s_per_user), csv_number(p.output_tokens_per_s), csv_number(p.ttft_s),
            csv_number(p.tpot_s), f ? std::string(to_string(p.overall_bound)) : "", f ? std::string(to_string(p.decode_bound)) : "",
            f ? std::string(to_string(p.prefill_bound)) : "", f ? std::string(to_string(p.decode_phase)) : "",
            f ? std::string(to_string(p.prefill_phase)) : "", csv_number(p.decode_step_s), csv_number(p.prefill_step_s),
            csv_number(p.decode_share), csv_number(p.max_concurrency), csv_number(p.weight_bytes),
            csv_number(p.kv_bytes), csv_number(p.activation_bytes), csv_number(p.usable_bytes),
            csv_number(p.power_limit_w), csv_number(p.power_w), p.power_capped ? "1" : "0",
            csv_number(p.energy_per_token_j), csv_number(p.energy_per_token_at_limit_j)};
}

/// `text` broken at spaces into lines of at most `width` columns; continuation lines indented.
std::string wrap(const std::string& text, std::size_t width = 100, const std::string& indent = "  ") {
    std::string out;
    std::size_t start = text.find_first_not_of(' ');
    if (start == std::string::npos) return text + "\n";
    std::string line = text.substr(0, start);  // the leading spaces stay
    const std::size_t lead = line.size();
    while (start <= text.size()) {
        auto end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        if (line.size() > lead && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line = indent + word;
        } else {
            line += (line.size() > lead ? " " : "") + word;
        }
        start = end + 1;
    }
    return out + line + "\n";
}

/// A display name for the model: the config's stem, or its folder when the file is "config.json".
std::string model_name(const model_config& m, const std::string& path) {
    const std::filesystem::path p(path);
    if (p.stem() == "config" && p.has_parent_path() && !p.parent_path().filename().empty())
        return p.parent_path().filename().string();
    return m.name.empty() ? p.stem().string() : m.name;
}

std::string model_line(const model_config& m, const plan_options& o, const plan_result& r) {
    const auto pc = count_parameters(m);
    return fmt::format("{} ({}, {}): {:.1f} B parameters, {:.1f} B active; ISL {} / OSL {}; KV cache {} ({} per token)",
                       model_name(m, o.model), m.family.empty() ? "model" : m.family,
                       m.quant.quantized() ? m.quant.method : "unquantised",
                       pc.total_params / 1e9, pc.active_params / 1e9, report::format_count(o.isl),
                       report::format_count(o.osl), to_string(r.kv_cache), report::format_bytes(r.kv_bytes_per_token));
}

void print_text(const plan_result& r, const model_config& m, const plan_options& o, const plan_request& rq) {
    fmt::print("{}", wrap("roofline plan: " + model_line(m, o, r)));
    // Counts with runs of consecutive numbers collapsed: 1,2,4,8 or 1-64.
    std::string counts;
    for (std::size_t i = 0; i < rq.counts.size();) {
        std::size_t j = i;
        while (j + 1 < rq.counts.size() && rq.counts[j + 1] == rq.counts[j] + 1) ++j;
        counts += (counts.empty() ? "" : ",") + std::to_string(rq.counts[i]);
        if (j >= i + 2) counts += "-" + std::to_string(rq.counts[j]);
        else if (j == i + 1) counts += "," + std::to_string(rq.counts[j]);
        i = j + 1;
    }
    std::string gpus;
    for (const auto& id : r.gpu_ids) gpus += (gpus.empty() ? "" : ", ") + id;
    const std::size_t swept = r.layouts_evaluated * rq.concurrencies.size();
    const std::string kv_extra = r.points_evaluated > swept
                                     ? fmt::format(" + {} at the KV-limited maximum",
                                                   report::format_count(static_cast<double>(r.points_evaluated - swept)))
                                     : std::string();
    std::string summary = fmt::format("GPUs {} x {{{}}}; {} layouts x {} concurrencies{}: {} configurations, {} fit in "
                                      "memory", gpus, counts, report::format_count(static_cast<double>(r.layouts_evaluated)),
                                      rq.concurrencies.size(), kv_extra,
                                      report::format_count(static_cast<double>(r.points_evaluated)),
                                      report::format_count(static_cast<double>(r.fitting)));
    if (rq.ttft_slo_s || rq.tpot_slo_s) {
        std::string slo;
        if (rq.ttft_slo_s) slo += "TTFT <= " + plan_time_text(*rq.ttft_slo_s);
        if (rq.tpot_slo_s) slo += std::string(slo.empty() ? "" : ", ") + "TPOT <= " + plan_time_text(*rq.tpot_slo_s);
        summary += fmt::format(", {} meet the SLOs ({})", report::format_count(static_cast<double>(r.meeting_slo)), slo);
    }
    fmt::print("{}", wrap(summary));
    std::string rej;
    const std::pair<plan_rejection, const char*> why[] = {{plan_rejection::weights, "weights do not fit"},
                                                          {plan_rejection::activations, "activations do not fit"},
                                                          {plan_rejection::kv_cache, "KV cache does not fit"},
                                                          {plan_rejection::idle_instances, "fewer requests than instances"},
                                                          {plan_rejection::unpriced, "not priceable"}};
    for (const auto& [k, text] : why) {
        const auto n = r.rejected[static_cast<std::size_t>(k)];
        if (n) rej += fmt::format("{}{} {}", rej.empty() ? "" : "; ", report::format_count(static_cast<double>(n)), text);
    }
    if (!rej.empty()) fmt::print("{}", wrap("Rejected: " + rej));
    fmt::print("\nPareto front: tokens/s per GPU (input + output) against output tokens/s per user;\n{}\n\n",
               rq.speed_of_light ? "speed of light: datasheet ceilings and links"
                                 : "roofs with modeled efficiency: achievable ceilings, measured links, never above "
                                   "the datasheet roof");
    if (r.pareto.empty()) {
        fmt::print("No configuration fits{}.\n", (rq.ttft_slo_s || rq.tpot_slo_s) ? " and meets the SLOs" : "");
    } else {
        auto t = report::text_table({{"gpu", report::align::left},
                                     {"GPUs", report::align::right},
                                     {"layout", report::align::left},
                                     {"conc", report::align::right},
                                     {"tok/s/GPU", report::align::right},
                                     {"tok/s/user", report::align::right},
                                     {"TTFT", report::align::right},
                                     {"TPOT", report::align::right},
                                     {"dec/pre", report::align::left}});
        for (const auto& p : r.pareto)
            t.add_row({r.gpu_ids[p.gpu], std::to_string(p.count), layout_text(p, m.is_moe()), report::format_requests(p.concurrency),
                       report::format_count(p.tokens_per_s_per_gpu), report::format_significant(p.tokens_per_s_per_user),
                       plan_time_text(p.ttft_s), plan_time_text(p.tpot_s),
                       short_bound(p.decode_bound) + "/" + short_bound(p.prefill_bound)});
        fmt::print("{}", t.render(120));
        fmt::print("\n{}", wrap("layout: attention TP tensor and DP data parallel, MoE TP x EP expert parallel, "
                                 "PP pipeline parallel; xN instances. dec/pre: bound of the decode step / prefill chunk (comp, mem, comm, lat; "
                                 "pwr: compute held down by the power limit).", 100, ""));
    }
    if (!r.unpriced.empty()) {
        fmt::print("\nNot priced:\n");
        for (const auto& u : r.unpriced) fmt::print("{}", wrap("  ! " + u, 100, "    "));
    }
    if (!r.notes.empty()) {
        fmt::print("\nNotes:\n");
        for (const auto& n : r.notes) fmt::print("{}", wrap("  - " + n, 100, "    "));
    }
}

void write_svg(const plan_result& r, const model_config& m, const plan_options& o, const plan_request& rq,
               const disaggregated_plan* disagg) {
    report::pareto_chart ch;
    ch.title = fmt::format("roofline plan: {}{}", model_name(m, o.model),
                           m.quant.quantized() ? " (" + m.quant.method + ")" : std::string());
    ch.subtitle = fmt::format("ISL {} / OSL {}, {}; each GPU count's front, the overall front in black",
                              report::format_count(o.isl), report::format_count(o.osl),
                              rq.speed_of_light ? "speed of light" : "roofs with modeled efficiency");
    double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
    bool first = true;
    // A point on the chart, and the axis ranges it widens.
    auto add = [&](const report::pareto_point& q) {
        ch.points.push_back(q);
        x_lo = first ? q.tokens_per_s_per_user : std::min(x_lo, q.tokens_per_s_per_user);
        x_hi = first ? q.tokens_per_s_per_user : std::max(x_hi, q.tokens_per_s_per_user);
        y_lo = first ? q.tokens_per_s_per_gpu : std::min(y_lo, q.tokens_per_s_per_gpu);
        y_hi = first ? q.tokens_per_s_per_gpu : std::max(y_hi, q.tokens_per_s_per_gpu);
        first = false;
    };
    for (const auto& p : r.series_fronts) {
        report::pareto_point q;
        q.gpu = fmt::format("{}x {}", p.count, r.gpu_ids[p.gpu]);
        // The chart's label is the compact layout (the long form, in the tooltip, was cut in the
        // middle of its name: "attention TP1 …x EP4").
        q.label = fmt::format("{}{} c={}", compact_layout(p.layout, m.is_moe()),
                              p.instances > 1 ? fmt::format(" x{}", p.instances) : std::string(),
                              report::format_requests(p.concurrency));
        q.tokens_per_s_per_user = p.tokens_per_s_per_user;
        q.tokens_per_s_per_gpu = p.tokens_per_s_per_gpu;
        q.detail = fmt::format("{}\nTTFT {}, TPOT {}\nbound: decode {}, prefill {}\nKV holds {} requests",
                               layout_text(p, m.is_moe()), plan_time_text(p.ttft_s), plan_time_text(p.tpot_s), to_string(p.decode_bound),
                               to_string(p.prefill_bound), report::format_count(p.max_concurrency));
        add(q);
    }
    if (disagg) {
        for (const auto& p : disagg->series_fronts) {
            report::pareto_point q;
            q.gpu = fmt::format("disaggregated {}x {}", p.count, r.gpu_ids[p.gpu]);
            const std::string pre = pool_text(p.pools.prefill, p.pools.prefill_workers, m.is_moe()),
                              dec = pool_text(p.pools.decode, p.pools.decode_workers, m.is_moe());
            q.label = fmt::format("P {} | D {} c={}", pre, dec, report::format_requests(p.concurrency));
            q.tokens_per_s_per_user = p.tokens_per_s_per_user;
            q.tokens_per_s_per_gpu = p.tokens_per_s_per_gpu;
            q.detail = fmt::format("prefill workers {}, decode workers {}\nTTFT {}, TPOT {}\nbound: decode {}, prefill {}",
                                   pre, dec, plan_time_text(p.ttft_s),
                                   plan_time_text(p.tpot_s), to_string(p.decode_bound), to_string(p.prefill_bound));
            add(q);
        }
    }
    // Sweeps over concurrency span decades: logarithmic axes when a range exceeds 30x.
    ch.log_x = !first && x_hi > 30 * x_lo;
    ch.log_y = !first && y_hi > 30 * y_lo;
    ch.notes.push_back(fmt::format("{} configurations evaluated, {} fit in memory; points: each (GPU, count)'s own "
                                   "Pareto front", report::format_count(static_cast<double>(r.points_evaluated)),
                                   report::format_count(static_cast<double>(r.fitting))));
    if (r.series_fronts.empty()) ch.notes.push_back("no configuration fits (and meets the SLOs)");
    if (disagg)
        ch.notes.push_back(fmt::format("disaggregated (--disagg): {} configurations of a prefill and a decode pool, {} fit "
                                       "in memory; points: their front per count",
                                       report::format_count(static_cast<double>(disagg->points_evaluated)),
                                       report::format_count(static_cast<double>(disagg->fitting))));
    report::write_text_file(o.svg, report::render_pareto_svg(ch));
}

nlohmann::json disagg_point_json(const disaggregated_plan_point& p, const plan_result& r) {
    using report::json_number;
    auto pool = [](const parallel_layout& l, int workers) {
        return nlohmann::json{{"tp", l.tp}, {"ep", l.ep}, {"dp", l.dp}, {"pp", l.pp}, {"workers", workers}};
    };
    return {{"gpu", r.gpu_ids[p.gpu]},
            {"count", p.count},
            {"prefill", [&] {
                 auto j = pool(p.pools.prefill, p.pools.prefill_workers);
                 j["batch"] = p.pools.prefill_batch;
                 return j;
             }()},
            {"decode", pool(p.pools.decode, p.pools.decode_workers)},
            {"concurrency", p.concurrency},
            {"ttft_s", json_number(p.ttft_s)},
            {"tpot_s", json_number(p.tpot_s)},
            {"tokens_per_s_per_gpu", json_number(p.tokens_per_s_per_gpu)},
            {"tokens_per_s_per_user", json_number(p.tokens_per_s_per_user)},
            {"output_tokens_per_s", json_number(p.output_tokens_per_s)},
            {"kv_transfer_s", json_number(p.kv_transfer_s)},
            {"balanced_prefill_per_decode", json_number(p.balanced_prefill_per_decode)},
            {"decode_bound", std::string(to_string(p.decode_bound))},
            {"prefill_bound", std::string(to_string(p.prefill_bound))},
            {"meets_slo", p.meets_slo}};
}

nlohmann::json disagg_json(const disaggregated_plan& d, const plan_result& r) {
    nlohmann::json front = nlohmann::json::array();
    for (const auto& p : d.pareto) front.push_back(disagg_point_json(p, r));
    return {{"points_evaluated", d.points_evaluated}, {"fitting", d.fitting}, {"meeting_slo", d.meeting_slo},
            {"prefill_batch", d.prefill_batch}, {"pareto", front}, {"notes", d.notes}};
}

/// `--disagg`: the disaggregated front, after the aggregated one.
void print_disagg(const disaggregated_plan& d, const plan_result& r, const model_config& m, const plan_request& rq) {
    fmt::print("\n{}", wrap(fmt::format("Disaggregated (a prefill pool and a decode pool of workers, the KV cache sent "
                                        "between them): {} configurations, {} fit in memory{}",
                                        report::format_count(static_cast<double>(d.points_evaluated)),
                                        report::format_count(static_cast<double>(d.fitting)),
                                        (rq.ttft_slo_s || rq.tpot_slo_s)
                                            ? fmt::format(", {} meet the SLOs",
                                                          report::format_count(static_cast<double>(d.meeting_slo)))
                                            : std::string())));
    if (d.pareto.empty()) {
        fmt::print("No disaggregated configuration fits{}.\n", (rq.ttft_slo_s || rq.tpot_slo_s) ? " and meets the SLOs" : "");
    } else {
        auto t = report::text_table({{"gpu", report::align::left},
                                     {"GPUs", report::align::right},
                                     {"prefill pool", report::align::left},
                                     {"decode pool", report::align::left},
                                     {"conc", report::align::right},
                                     {"tok/s/GPU", report::align::right},
                                     {"tok/s/user", report::align::right},
                                     {"TTFT", report::align::right},
                                     {"TPOT", report::align::right},
                                     {"dec/pre", report::align::left}});
        for (const auto& p : d.pareto)
            t.add_row({r.gpu_ids[p.gpu], std::to_string(p.count),
                       pool_text(p.pools.prefill, p.pools.prefill_workers, m.is_moe()),
                       pool_text(p.pools.decode, p.pools.decode_workers, m.is_moe()), report::format_requests(p.concurrency),
                       report::format_count(p.tokens_per_s_per_gpu), report::format_significant(p.tokens_per_s_per_user),
                       plan_time_text(p.ttft_s), plan_time_text(p.tpot_s),
                       short_bound(p.decode_bound) + "/" + short_bound(p.prefill_bound)});
        fmt::print("{}", t.render(200));
        fmt::print("\n{}", wrap("pool: a worker's layout (attention, then MoE TP x EP, PP) x workers; conc: requests in flight over the deployment. "
                                 "dec/pre: bound of a decode worker's step / a prefill worker's chunk.", 100, ""));
    }
    for (const auto& n : d.notes) fmt::print("{}", wrap("  - " + n, 100, "    "));
}

/// The load-sizing answer (`--rate`): replicas of the cheapest deployment that serve the load.
void print_sizing(const load_sizing& s, const plan_result& r, const model_config& m, const plan_request& rq) {
    if (!s.found) {
        fmt::print("\nSizing for {} requests/s: no configuration fits and meets the SLOs.\n",
                   report::format_significant(s.requests_per_s));
        return;
    }
    const auto& p = s.point;
    fmt::print("\n{}", wrap(fmt::format("Sizing for {} requests/s: {} GPU{}: {} x ({} {} GPU{}, {}, {} in flight), "
                                        "{} requests/s each; TTFT {}, TPOT {}, {} tok/s per GPU",
                                        report::format_significant(s.requests_per_s), report::format_count(s.gpus),
                                        s.gpus == 1 ? "" : "s", report::format_count(s.replicas), p.count, r.gpu_ids[p.gpu],
                                        p.count == 1 ? "" : "s",
                                        layout_text(p, m.is_moe()), report::format_requests(p.concurrency),
                                        report::format_significant(s.requests_per_s_per_replica), plan_time_text(p.ttft_s),
                                        plan_time_text(p.tpot_s), report::format_count(p.tokens_per_s_per_gpu))));
    // Without a TTFT limit the fewest GPUs come from the fullest batches, whose queue sets TTFT.
    if (!rq.ttft_slo_s)
        fmt::print("{}", wrap(fmt::format("  no --ttft-slo-ms: any TTFT is accepted (this deployment's: {}); pass one to "
                                          "size under a TTFT limit",
                                          plan_time_text(p.ttft_s)),
                              100, "    "));
}

/// `--json`, streamed: the same text as one `nlohmann::json::dump(1)` of the whole result (keys
/// sorted, one-space indent), but each point is written as the plan visits it, so memory stays
/// flat however many points a sweep has.
void write_json_stream(const model_config& m, const plan_options& o, const plan_request& rq, const plan_result& r,
                       const load_sizing* sizing, const disaggregated_plan* disagg) {
    nlohmann::json j;
    const auto pc = count_parameters(m);
    j["model"] = {{"config", o.model}, {"family", m.family}, {"quantization", m.quant.method},
                  {"total_params", pc.total_params}, {"active_params", pc.active_params},
                  {"kv_dtype", std::string(to_string(r.kv_cache))}, {"kv_bytes_per_token", r.kv_bytes_per_token}};
    j["isl"] = o.isl;
    j["osl"] = o.osl;
    j["ceilings"] = rq.speed_of_light ? "datasheet" : "achievable";
    j["memory_utilization"] = rq.memory_utilization;
    j["ttft_slo_s"] = rq.ttft_slo_s ? nlohmann::json(*rq.ttft_slo_s) : nlohmann::json(nullptr);
    j["tpot_slo_s"] = rq.tpot_slo_s ? nlohmann::json(*rq.tpot_slo_s) : nlohmann::json(nullptr);
    j["points_evaluated"] = r.points_evaluated;
    j["layouts_evaluated"] = r.layouts_evaluated;
    j["fitting"] = r.fitting;
    j["meeting_slo"] = r.meeting_slo;
    nlohmann::json rej = nlohmann::json::object();
    for (std::size_t i = 1; i < r.rejected.size(); ++i)
        rej[std::string(to_string(static_cast<plan_rejection>(i)))] = r.rejected[i];
    j["rejected"] = rej;
    j["pareto"] = nlohmann::json::array();
    for (const auto& p : r.pareto) j["pareto"].push_back(point_json(p, r));
    j["points"] = nlohmann::json::array({0});  // a placeholder element, replaced by the stream
    j["unpriced"] = r.unpriced;
    j["notes"] = r.notes;
    if (sizing)
        j["sizing"] = {{"requests_per_s", sizing->requests_per_s}, {"found", sizing->found},
                       {"replicas", sizing->replicas}, {"gpus", sizing->gpus},
                       {"requests_per_s_per_replica", sizing->requests_per_s_per_replica},
                       {"point", sizing->found ? point_json(sizing->point, r) : nlohmann::json(nullptr)}};
    if (disagg) j["disaggregated"] = disagg_json(*disagg, r);
    const std::string text = j.dump(1);
    const std::string mark = "\"points\": [\n  0\n ]";
    const auto at = text.find(mark);
    if (at == std::string::npos) throw std::logic_error("plan --json: points placeholder not found");
    std::string buf = text.substr(0, at) + "\"points\": [";
    bool first = true;
    run_plan(m, rq, [&](const plan_point& p) {
        buf += first ? "\n  " : ",\n  ";
        first = false;
        append_point_json(buf, p, r);
        if (buf.size() > (1u << 16)) {
            std::cout.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    });
    buf += first ? "]" : "\n ]";
    buf += text.substr(at + mark.size());
    std::cout << buf << "\n";
}

}  // namespace

void add_plan_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("plan", "Capacity planning: GPUs, counts, layouts and concurrency on the Pareto "
                                           "front of tokens/s per GPU against tokens/s per user");
    static plan_options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    cmd->add_option("--model", o.model, "Hugging Face config.json of the model")->required();
    cmd->add_option("--quant", o.quant, "ModelOpt hf_quant_config.json, or a preset: nvfp4, fp8, mxfp4, int4, bf16");
    cmd->add_option("--gpus", o.gpus, "GPU ids, comma-separated, or \"all\" (see `roofline gpus`)")->required();
    cmd->add_option("--counts", o.counts, "GPUs per deployment, e.g. 1,2,4,8 or 1-64")->required();
    cmd->add_option("--isl", o.isl, "input tokens per request")->required()->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--osl", o.osl, "output tokens per request")->required()->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--concurrency", o.concurrency, "requests in flight per deployment (default 1,2,4,...,4096)");
    cmd->add_option("--ttft-slo-ms", o.ttft_slo_ms, "keep configurations with TTFT at most this")->check(finite_positive);
    cmd->add_option("--tpot-slo-ms", o.tpot_slo_ms, "keep configurations with TPOT at most this")->check(finite_positive);
    cmd->add_option("--kv-dtype", o.kv_dtype, "KV-cache dtype: bf16, fp8 (E4M3), fp8_e5m2, or another dtype to price "
                                              "(default: from --quant or the model)");
    cmd->add_option("--rate", o.rate, "size to a load: requests/s to serve (fewest GPUs meeting the SLOs)")
        ->check(finite_positive_at_most(max_plausible_count));
    cmd->add_option("--max-pp", o.max_pp, "largest pipeline-parallel degree (default: any)")->check(finite_positive);
    cmd->add_flag("--sol", o.sol, "price at datasheet ceilings (speed of light) instead of achievable ones");
    cmd->add_option("--svg", o.svg, "write the Pareto chart as SVG");
    cmd->add_option("--gpu-file", common.gpu_file, "JSON that adds or overrides GPU entries");
    cmd->add_option("--calibration", o.calibration,
                    "calibration overlay (`roofline calibrate`): measured ceilings, link and power for the GPU it was made on");
    cmd->add_option("--mtp", o.mtp, "speculative decoding: draft tokens per step (MTP heads or a draft model)")
        ->check(CLI::Range(1, 16));
    cmd->add_option("--acceptance", o.acceptance, "speculative decoding: acceptance rate per drafted token, [0, 1)")
        ->check(CLI::Range(0.0, 0.999));
    cmd->add_flag("--disagg", o.disagg,
                  "also plan disaggregated serving: a prefill pool and a decode pool of workers, each its own layout");
    cmd->add_option("--kv-link-gbps", o.kv_link_gbps,
                    "--disagg: KV transfer rate per GPU between the pools, Gbit/s (default: the scale-up link)")
        ->check(finite_positive_at_most(max_plausible_count));
    auto* json = cmd->add_flag("--json", o.json, "print JSON (every point, the front, counts)");
    auto* csv = cmd->add_flag("--csv", o.csv, "print CSV (one row per point)");
    json->excludes(csv);
    cmd->callback([&common] {
        const gpu_catalog catalog = load_gpu_catalog(common.gpu_file);
        model_config m = read_hf_config(o.model);
        apply_quant_option(m, o.quant);

        plan_request rq;
        if (o.gpus == "all") {
            rq.gpus = catalog.all();
        } else {
            for (const auto& id : split_list(o.gpus, "--gpus")) {
                rq.gpus.push_back(pick_gpu(catalog, id));
                for (std::size_t k = 0; k + 1 < rq.gpus.size(); ++k)
                    if (rq.gpus[k].id == rq.gpus.back().id)
                        throw usage_error("--gpus \"" + o.gpus + "\": " + rq.gpus.back().id + " is listed twice" +
                                          (id == rq.gpus.back().id ? "" : " (\"" + id + "\" names it too)"));
            }
        }
        for (double n : parse_numbers(o.counts, "--counts", true)) {
            if (n > 4096) throw usage_error("--counts: " + fmt::format("{}", n) + " GPUs is more than this planner sweeps (4096)");
            rq.counts.push_back(static_cast<int>(n));
        }
        rq.isl = o.isl;
        rq.osl = o.osl;
        if (!o.concurrency.empty()) rq.concurrencies = parse_numbers(o.concurrency, "--concurrency", false);
        for (double c : rq.concurrencies)
            if (c < 1) throw usage_error("--concurrency: " + fmt::format("{}", c) + " is below one request");
        if (o.ttft_slo_ms) rq.ttft_slo_s = *o.ttft_slo_ms * 1e-3;
        if (o.tpot_slo_ms) rq.tpot_slo_s = *o.tpot_slo_ms * 1e-3;
        if (!o.kv_dtype.empty()) rq.kv_cache = parse_dtype_or_throw(o.kv_dtype);
        rq.layouts.max_pp = o.max_pp;
        rq.speed_of_light = o.sol;
        if (!o.calibration.empty()) {
            rq.calibrated = read_calibration(o.calibration);
            // The overlay holds for the GPU it measured: one of --gpus must be it (exit 2
            // naming both otherwise), and its values are checked against that GPU's datasheet.
            const gpu_spec* measured = nullptr;
            for (const auto& g : rq.gpus)
                if (g.id == rq.calibrated->gpu) measured = &g;
            require_calibration_gpu(*rq.calibrated, measured ? *measured : rq.gpus.front());
        }
        if ((o.mtp > 0) != o.acceptance.has_value()) throw usage_error("--mtp and --acceptance go together");
        if (o.mtp > 0) rq.speculative = speculative_decoding{o.mtp, *o.acceptance};
        if (o.kv_link_gbps && !o.disagg) throw usage_error("--kv-link-gbps prices the KV transfer of --disagg: add --disagg");
        if (o.disagg && o.csv)
            throw usage_error("--disagg: the CSV view lists the aggregated points only; use --json for the "
                              "disaggregated front");
        if (o.disagg && o.rate) throw usage_error("--rate sizes aggregated deployments only: leave out --disagg");

        // Text and the chart need only the fronts and counts. --json and --csv stream their
        // points (bounded memory on any sweep): the first pass gives the fronts and counts,
        // the second visits every point again and writes it as it comes (same numbers: the
        // plan is deterministic).
        std::optional<load_sizer> sizer;
        if (o.rate) sizer.emplace(*o.rate, rq.osl);
        rq.keep_series_fronts = !o.svg.empty();  // only the chart draws them
        const plan_result r = run_plan(m, rq, [&](const plan_point& p) {
            if (sizer) sizer->add(p);
        });
        std::optional<disaggregated_plan> disagg;
        if (o.disagg)
            disagg = plan_disaggregated(m, rq, o.kv_link_gbps ? std::optional<double>(*o.kv_link_gbps * 1e9 / 8)
                                                              : std::nullopt);
        if (!o.svg.empty()) write_svg(r, m, o, rq, disagg ? &*disagg : nullptr);
        if (o.json) {
            write_json_stream(m, o, rq, r, sizer ? &sizer->best : nullptr, disagg ? &*disagg : nullptr);
        } else if (o.csv) {
            report::csv_writer w(std::cout, false);
            w.row(csv_header());
            run_plan(m, rq, [&](const plan_point& p) { w.row(csv_row(p, r)); });
        } else {
            print_text(r, m, o, rq);
            if (sizer) print_sizing(sizer->best, r, m, rq);
            if (disagg) print_disagg(*disagg, r, m, rq);
            if (!o.svg.empty()) fmt::print("\nwrote {}\n", o.svg);
        }
    });
}

}  // namespace roofline::cli
