#pragma once
// Serving-benchmark results -> `bench_run`s.
//
// Formats (../shared/FORMATS.md sections 2 and 3), told apart per JSON object:
// - "inferencex-agg": InferenceX aggregated results (`utils/process_result.py`): has
//   `tput_per_gpu` or `hw` + `conc`; latencies in seconds with `_ms` dropped; `*_intvty`
//   (= 1000 / tpot_ms, tokens/s per user) is redundant with TPOT and not kept.
// - "inferencex-seconds": vLLM-style keys but latencies in seconds without `_ms`
//   (`median_ttft`, `p99_tpot`), plus `good_completed`, `input_throughput`.
// - "vllm": `vllm bench serve --save-result` / `benchmark_serving.py` (has `model_id`,
//   `burstiness`, `total_token_throughput` or `request_goodput[:]`); latencies `_ms`.
// - "sglang": `sglang.bench_serving --output-file` JSONL, old (2024, 18 keys) and new key sets.
// Unit by suffix: `_ms` is milliseconds, a latency key without it is seconds. `Infinity`, `NaN`
// and `-Infinity` literals (Python's json.dumps) are accepted; a JSONL file or appended objects
// give one run each; a top-level array gives one run per element.

#include <algorithm>    // std::max
#include <cmath>        // std::isnan, std::isfinite, std::abs
#include <cstdio>       // std::snprintf
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/bench.hpp"

namespace roofline {

/// Reads every run of a benchmark result file (.json, .jsonl, or either gzip-compressed),
/// leniently: a run whose object is of no known format, or has a NaN, negative or mistyped
/// count/duration/throughput, is skipped and counted in `stats` by reason.
/// Throws `parse_error` for a missing, empty or corrupt file, malformed JSON (naming line and
/// column), or a file in which no run is usable (naming the first bad run's line and field).
bench_results read_bench_results(const std::string& path);

/// Every run of a benchmark result file, strictly: like `read_bench_results` but any run that
/// would be skipped is an error (`parse_error` naming the line and the field).
std::vector<bench_run> read_bench(const std::string& path);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/input_kind.hpp"
#include "roofline/io/detail/json_text.hpp"
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {

/// A latency statistic key: `<stat>_<metric>[_ms]`, stat in mean|median|std|p<number>,
/// metric in ttft|tpot|itl|e2el|e2e_latency.
struct latency_key {
    std::string stat;    ///< "mean", "median", "std", "p99.9"
    std::string metric;  ///< "ttft", "tpot", "itl", "e2el"
    bool ms = false;     ///< written in milliseconds
};

inline std::optional<latency_key> parse_latency_key(std::string_view k) {
    latency_key out;
    if (k.size() > 3 && k.substr(k.size() - 3) == "_ms") {
        out.ms = true;
        k.remove_suffix(3);
    }
    const auto us = k.find('_');
    if (us == std::string_view::npos) return std::nullopt;
    const std::string_view stat = k.substr(0, us), metric = k.substr(us + 1);
    if (stat != "mean" && stat != "median" && stat != "std") {
        if (stat.size() < 2 || stat[0] != 'p') return std::nullopt;
        bool digit = false;
        for (char c : stat.substr(1)) {
            if (c >= '0' && c <= '9') digit = true;
            else if (c != '.') return std::nullopt;
        }
        if (!digit) return std::nullopt;
    }
    if (metric == "e2e_latency") out.metric = "e2el";
    else if (metric == "ttft" || metric == "tpot" || metric == "itl" || metric == "e2el") out.metric = std::string(metric);
    else return std::nullopt;
    out.stat = std::string(stat);
    return out;
}

/// Which of the formats an object is in; empty when none fits.
inline std::string detect_bench_format(const nlohmann::json& o) {
    if (o.contains("tput_per_gpu") || (o.contains("hw") && o.contains("conc"))) return "inferencex-agg";
    bool ms_keys = false, s_keys = false;
    for (const auto& [k, v] : o.items()) {
        if (const auto lk = parse_latency_key(k)) (lk->ms ? ms_keys : s_keys) = true;
    }
    if (s_keys && !ms_keys) return "inferencex-seconds";
    if (o.contains("model_id") || o.contains("burstiness") || o.contains("total_token_throughput") ||
        o.contains("request_goodput:"))
        return "vllm";
    if (o.contains("backend") && (ms_keys || o.contains("dataset_name") || o.contains("output_throughput") ||
                                   o.contains("total_throughput")))  // SGLang's name; vLLM says total_token_throughput
        return "sglang";
    if (ms_keys && o.contains("duration")) return "vllm";
    return {};
}

/// Fills one run from one object; returns an empty string, or the reason to skip the run
/// ("nan(duration)", "negative(completed)", "wrong_type(output_throughput)", "implausible(...)"
/// above 1e15); `field` gets the key.
inline std::string fill_bench_run(const nlohmann::json& o, bench_run& r, std::string& field) {
    auto text = [&](const char* key, std::string& out) {
        if (const auto it = o.find(key); it != o.end() && it->is_string() && !json_is_nonfinite_sentinel(*it))
            out = it->get<std::string>();
    };
    // A quantity that must be finite and >= 0 (counts, durations, throughputs); null = absent.
    std::string bad;
    auto quantity = [&](const char* key, std::optional<double>& out, double scale = 1.0) {
        const auto it = o.find(key);
        if (it == o.end() || it->is_null() || !bad.empty()) return;
        auto v = json_number(*it);
        if (!v && it->is_string()) v = parse_double(it->get_ref<const std::string&>());
        if (!v) {
            bad = "wrong_type";
        } else if (std::isnan(*v)) {
            bad = "nan";
        } else if (*v < 0) {
            bad = "negative";
        } else if (!std::isfinite(*v)) {
            bad = "infinite";
        } else if (*v > 1e15) {
            // No count, duration, rate or Unix time of a real run comes near 1e15 (tokens, s, tok/s).
            bad = "implausible (above 1e15)";
        } else {
            out = *v * scale;
            return;
        }
        field = key;
    };
    auto flag = [&](const char* key, std::optional<bool>& out) {
        const auto it = o.find(key);
        if (it == o.end()) return;
        if (it->is_boolean()) out = it->get<bool>();
        else if (it->is_string() && (*it == "true" || *it == "True")) out = true;
        else if (it->is_string() && (*it == "false" || *it == "False")) out = false;
    };
    auto number_list = [&](const char* key, std::vector<double>& out) {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_array() || !bad.empty()) return;
        out.reserve(it->size());
        for (const auto& x : *it) {
            const auto v = json_number(x);
            if (!v || !(*v >= 0)) {
                bad = v ? "negative" : "wrong_type";
                field = key;
                out.clear();
                return;
            }
            out.push_back(*v);
        }
    };

    text("backend", r.backend);
    if (r.backend.empty()) text("framework", r.backend);
    text("model_id", r.model);
    if (r.model.empty()) text("model", r.model);
    text("tag", r.tag);
    if (r.tag.empty()) text("label", r.tag);
    text("dataset_name", r.dataset);
    text("date", r.date);
    text("hw", r.hw);
    text("precision", r.precision);
    text("spec_decoding", r.spec_decoding);

    // request_rate: a number, Infinity, "inf" or SGLang's "trace" (replayed timestamps: no rate).
    if (const auto it = o.find("request_rate"); it != o.end() && !it->is_null()) {
        auto v = json_number(*it);
        if (!v && it->is_string()) v = parse_double(it->get_ref<const std::string&>());
        if (v && !std::isnan(*v) && *v >= 0) r.request_rate_per_s = *v;
        else if (!(it->is_string() && *it == "trace")) {
            field = "request_rate";
            return v ? "negative_or_nan" : "wrong_type";
        }
    }
    quantity("num_prompts", r.num_prompts);
    quantity("max_concurrency", r.max_concurrency);
    if (!r.max_concurrency) quantity("conc", r.max_concurrency);
    quantity("random_input_len", r.random_input_len);
    if (!r.random_input_len) quantity("isl", r.random_input_len);
    quantity("random_output_len", r.random_output_len);
    if (!r.random_output_len) quantity("osl", r.random_output_len);
    quantity("random_range_ratio", r.random_range_ratio);
    quantity("benchmark_start_time_unix", r.benchmark_start_time_unix_s);
    quantity("benchmark_end_time_unix", r.benchmark_end_time_unix_s);
    quantity("duration", r.duration_s);
    quantity("completed", r.completed);
    quantity("failed", r.failed);
    quantity("total_input_tokens", r.total_input_tokens);
    quantity("total_output_tokens", r.total_output_tokens);
    quantity("request_throughput", r.request_throughput_per_s);
    quantity("request_goodput", r.request_goodput_per_s);
    if (!r.request_goodput_per_s) quantity("request_goodput:", r.request_goodput_per_s);
    quantity("input_throughput", r.input_throughput_tok_per_s);
    quantity("output_throughput", r.output_throughput_tok_per_s);
    quantity("total_throughput", r.total_throughput_tok_per_s);
    if (!r.total_throughput_tok_per_s) quantity("total_token_throughput", r.total_throughput_tok_per_s);
    quantity("max_output_tokens_per_s", r.max_output_tokens_per_s);
    quantity("max_concurrent_requests", r.max_concurrent_requests);
    quantity("concurrency", r.concurrency);
    quantity("accept_length", r.accept_length);
    quantity("tp", r.tp);
    quantity("ep", r.ep);
    quantity("tput_per_gpu", r.tput_per_gpu_tok_per_s);
    quantity("output_tput_per_gpu", r.output_tput_per_gpu_tok_per_s);
    quantity("input_tput_per_gpu", r.input_tput_per_gpu_tok_per_s);
    flag("dp_attention", r.dp_attention);
    flag("disagg", r.disagg);
    flag("is_multinode", r.is_multinode);
    number_list("input_lens", r.input_lens);
    number_list("output_lens", r.output_lens);
    number_list("ttfts", r.ttfts_s);  // seconds in both SGLang and vLLM
    if (const auto it = o.find("itls"); it != o.end() && it->is_array() && bad.empty()) {
        for (const auto& req : *it) {
            r.itls_s.emplace_back();
            if (!req.is_array()) continue;
            for (const auto& x : req)
                if (const auto v = json_number(x); v && *v >= 0) r.itls_s.back().push_back(*v);
        }
    }
    if (!bad.empty()) return bad;
    // A run that took no time measured nothing (and every rate derived from it would divide by 0).
    if (r.duration_s && *r.duration_s == 0) {
        field = "duration";
        return "zero";
    }
    // Unix times are seconds: above 1e11 (the year 5138) they are milliseconds or microseconds
    // (the power log would be aligned 1,000 years away); an end before the start is no window.
    for (const auto& [key, t] : {std::pair{"benchmark_start_time_unix", r.benchmark_start_time_unix_s},
                                 std::pair{"benchmark_end_time_unix", r.benchmark_end_time_unix_s}})
        if (t && *t > 1e11) {
            field = key;
            return "not Unix seconds (above 1e11: milliseconds?)";
        }
    if (r.benchmark_start_time_unix_s && r.benchmark_end_time_unix_s) {
        const double span = *r.benchmark_end_time_unix_s - *r.benchmark_start_time_unix_s;
        if (span < 0) {
            field = "benchmark_end_time_unix";
            return "before benchmark_start_time_unix (start and end swapped?)";
        }
        // The window and the duration must tell the same time (the runner writes both; 10% and
        // a second of slack for warm-up and rounding).
        if (r.duration_s && std::abs(span - *r.duration_s) > std::max(1.0, 0.1 * *r.duration_s)) {
            field = "duration";
            char buf[160];
            std::snprintf(buf, sizeof buf, "%.4g s, but benchmark_start/end_time_unix span %.4g s (a unit off?)",
                          *r.duration_s, span);
            return buf;
        }
    }

    // Latency statistics: unit by suffix. NaN means "no request produced this metric" (SGLang
    // writes NaN e.g. for TPOT when every output has one token): left unknown, not an error.
    for (const auto& [k, v] : o.items()) {
        const auto lk = parse_latency_key(k);
        if (!lk || v.is_null()) continue;
        auto x = json_number(v);
        if (!x) {
            field = k;
            return "wrong_type";
        }
        if (std::isnan(*x)) continue;
        if (*x < 0 || !std::isfinite(*x)) {
            field = k;
            return *x < 0 ? "negative" : "infinite";
        }
        const double s = lk->ms ? *x * 1e-3 : *x;
        const std::string key = lk->stat + "_" + lk->metric;
        if (lk->stat[0] == 'p') r.percentiles_s[key] = s;
        std::optional<double>* slot = nullptr;
        if (key == "mean_ttft") slot = &r.mean_ttft_s;
        else if (key == "median_ttft") slot = &r.median_ttft_s;
        else if (key == "std_ttft") slot = &r.std_ttft_s;
        else if (key == "p99_ttft") slot = &r.p99_ttft_s;
        else if (key == "mean_tpot") slot = &r.mean_tpot_s;
        else if (key == "median_tpot") slot = &r.median_tpot_s;
        else if (key == "std_tpot") slot = &r.std_tpot_s;
        else if (key == "p99_tpot") slot = &r.p99_tpot_s;
        else if (key == "mean_itl") slot = &r.mean_itl_s;
        else if (key == "median_itl") slot = &r.median_itl_s;
        else if (key == "std_itl") slot = &r.std_itl_s;
        else if (key == "p99_itl") slot = &r.p99_itl_s;
        else if (key == "mean_e2el") slot = &r.mean_e2el_s;
        else if (key == "median_e2el") slot = &r.median_e2el_s;
        else if (key == "std_e2el") slot = &r.std_e2el_s;
        else if (key == "p99_e2el") slot = &r.p99_e2el_s;
        if (slot) *slot = s;
    }

    // Derived fields (the file lacks them, the others imply them).
    auto derive = [&r](std::optional<double>& slot, std::optional<double> value, const char* name) {
        if (slot || !value || !std::isfinite(*value) || *value < 0) return;
        slot = value;
        r.derived.emplace_back(name);
    };
    auto ratio = [](std::optional<double> a, std::optional<double> b) -> std::optional<double> {
        if (a && b && *b > 0) return *a / *b;
        return std::nullopt;
    };
    if (r.benchmark_start_time_unix_s && r.benchmark_end_time_unix_s)
        derive(r.duration_s, *r.benchmark_end_time_unix_s - *r.benchmark_start_time_unix_s, "duration_s");
    derive(r.request_throughput_per_s, ratio(r.completed, r.duration_s), "request_throughput_per_s");
    derive(r.output_throughput_tok_per_s, ratio(r.total_output_tokens, r.duration_s), "output_throughput_tok_per_s");
    // vLLM: input = total - output (its own definition of total_token_throughput).
    if (r.total_throughput_tok_per_s && r.output_throughput_tok_per_s)
        derive(r.input_throughput_tok_per_s, *r.total_throughput_tok_per_s - *r.output_throughput_tok_per_s,
               "input_throughput_tok_per_s");
    derive(r.input_throughput_tok_per_s, ratio(r.total_input_tokens, r.duration_s), "input_throughput_tok_per_s");
    if (r.input_throughput_tok_per_s && r.output_throughput_tok_per_s)
        derive(r.total_throughput_tok_per_s, *r.input_throughput_tok_per_s + *r.output_throughput_tok_per_s,
               "total_throughput_tok_per_s");
    // Little's law: sum of E2EL over the duration = mean E2EL x completed / duration.
    if (r.mean_e2el_s && r.completed)
        derive(r.concurrency, ratio(*r.mean_e2el_s * *r.completed, r.duration_s), "concurrency");
    return {};
}

}  // namespace io::detail

ROOFLINE_INLINE bench_results read_bench_results(const std::string& path) {
    using namespace io::detail;
    bench_results out;
    out.file = path;
    const std::string text = io::read_all(path);
    // A file of another kind (an nvidia-smi log, a trace) is named as such, not as bad JSON.
    const auto other_kind = [&]() -> std::string {
        const std::string kind = describe_input_kind(text.substr(0, 4096));
        return kind.find("benchmark result") == std::string::npos ? kind : std::string();
    };
    if (const std::string kind = other_kind(); !kind.empty())
        throw parse_error(path, "line 1", "",
                          kind + ", not a benchmark result (expected SGLang or vLLM bench_serving JSON/JSONL, or "
                                 "an InferenceX result)");
    const auto spans = split_json_values(text);
    if (spans.empty()) throw parse_error(path, "line 1", "", "empty file");
    // The first bad run, for the error when no run is usable.
    std::string first_place, first_field, first_detail;
    auto line_of = [&](std::size_t offset) {
        std::size_t line = 1;
        for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
        return line;
    };
    auto note = [&](std::size_t line, const std::string& fld, const std::string& detail) {
        if (!first_place.empty()) return;
        first_place = "line " + std::to_string(line);
        first_field = fld;
        first_detail = detail;
    };
    auto take = [&](const nlohmann::json& o, std::size_t line) {
        ++out.stats.events_read;
        if (!o.is_object()) {
            out.stats.skip("not_an_object");
            note(line, "", "not a JSON object");
            return;
        }
        bench_run r;
        r.file = path;
        r.line = line;
        r.format = detect_bench_format(o);
        if (r.format.empty()) {
            out.stats.skip("unknown_format");
            note(line, "", "not a SGLang, vLLM or InferenceX benchmark result (no known keys)");
            return;
        }
        std::string field;
        const std::string reason = fill_bench_run(o, r, field);
        if (!reason.empty()) {
            out.stats.skip(reason + "(" + field + ")");
            note(line, field, reason == "wrong_type" ? "not a number" : "is " + reason);
            return;
        }
        out.runs.push_back(std::move(r));
        ++out.stats.events_kept;
    };
    for (const auto& span : spans) {
        const auto value = parse_json_span(path, text, span);
        const std::size_t line = line_of(span.begin);
        if (value.is_array()) {
            for (const auto& o : value) take(o, line);
        } else {
            take(value, line);
        }
    }
    if (out.runs.empty()) {
        if (first_place.empty()) throw parse_error(path, "", "", "no benchmark run");
        throw parse_error(path, first_place, first_field, first_detail);
    }
    return out;
}

ROOFLINE_INLINE std::vector<bench_run> read_bench(const std::string& path) {
    auto results = read_bench_results(path);
    if (results.stats.events_skipped != 0) {
        // Re-find the first bad run for the message (rare path).
        using namespace io::detail;
        const std::string text = io::read_all(path);
        for (const auto& span : split_json_values(text)) {
            const auto value = parse_json_span(path, text, span);
            const auto check = [&](const nlohmann::json& o) {
                const std::string place = line_column(text, span.begin);
                if (!o.is_object()) throw parse_error(path, place, "", "not a JSON object");
                if (detect_bench_format(o).empty())
                    throw parse_error(path, place, "", "not a SGLang, vLLM or InferenceX benchmark result");
                bench_run r;
                std::string field;
                const std::string reason = fill_bench_run(o, r, field);
                if (!reason.empty())
                    throw parse_error(path, place, field, reason == "wrong_type" ? "not a number" : "is " + reason);
            };
            if (value.is_array()) for (const auto& o : value) check(o);
            else check(value);
        }
    }
    return std::move(results.runs);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
