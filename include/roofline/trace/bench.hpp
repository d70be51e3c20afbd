#pragma once
// One serving-benchmark run (SGLang bench_serving, vLLM bench serve, InferenceX), in SI units.
//
// Every benchmark tool writes its own key set and units: SGLang and vLLM write latencies in
// milliseconds (`median_ttft_ms`), InferenceX's aggregated files in seconds with `_ms` dropped
// (`median_ttft`), vLLM lacks `input_throughput` and `concurrency`, old SGLang lacks most
// percentiles. `bench_run` holds the union with every field optional; inside, times are seconds,
// throughputs tokens/s or requests/s, and counts doubles. A field the file lacks but that follows
// from others (vLLM input throughput = total - output) is filled and listed in `derived`.
//
// Terms (SGLang `bench_serving.py` and vLLM `benchmarks/serve.py` definitions):
//   TTFT  time to first token of a request;
//   TPOT  time per output token after the first: (e2e latency - TTFT) / (output tokens - 1);
//   ITL   inter-token latency: gaps between streamed chunks;
//   E2EL  end-to-end latency of a request;
//   concurrency = sum of E2EL / duration (mean requests in flight; Little's law).

#include <cstddef>      // std::size_t
#include <functional>   // std::less
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/trace/read_stats.hpp"

namespace roofline {

/// One benchmark run. Every numeric field is nullopt when the file neither has it nor lets it
/// be derived. Times in seconds, throughputs in tokens/s or requests/s.
struct bench_run {
    // --- where it came from ---
    std::string file;    ///< path as given
    std::size_t line = 0;  ///< 1-based line where the run's JSON object starts
    /// "sglang", "vllm", "inferencex-agg" (InferenceX aggregated results) or
    /// "inferencex-seconds" (the vLLM-style variant that writes seconds without `_ms`).
    std::string format;

    // --- what was run ---
    std::string backend;   ///< "sglang", "vllm", "openai", ... (InferenceX agg: `framework`)
    std::string model;     ///< `model_id` (vLLM) or `model` (InferenceX)
    std::string tag;       ///< SGLang `tag` or vLLM `label`
    std::string dataset;   ///< `dataset_name` ("random", "sharegpt", ...)
    std::string date;      ///< vLLM `date` ("YYYYMMDD-HHMMSS")
    std::optional<double> num_prompts;
    /// Requests per second offered; +infinity for "all at once" (`Infinity`, "inf").
    std::optional<double> request_rate_per_s;
    std::optional<double> max_concurrency;  ///< client cap on requests in flight (InferenceX `conc`)
    /// Nominal input/output lengths of the random dataset (InferenceX: `isl`/`osl`), tokens.
    std::optional<double> random_input_len, random_output_len;
    /// SGLang/vLLM random dataset: lengths are drawn from [ratio x len, len]; 1 = fixed lengths.
    std::optional<double> random_range_ratio;
    std::optional<double> benchmark_start_time_unix_s, benchmark_end_time_unix_s;

    // --- totals ---
    std::optional<double> duration_s;
    std::optional<double> completed;  ///< requests that succeeded
    std::optional<double> failed;
    std::optional<double> total_input_tokens, total_output_tokens;

    // --- throughputs ---
    std::optional<double> request_throughput_per_s;  ///< completed requests per second
    std::optional<double> request_goodput_per_s;     ///< requests meeting the SLOs per second
    std::optional<double> input_throughput_tok_per_s;
    std::optional<double> output_throughput_tok_per_s;
    std::optional<double> total_throughput_tok_per_s;  ///< input + output
    std::optional<double> max_output_tokens_per_s;     ///< peak over 1 s buckets
    std::optional<double> max_concurrent_requests;     ///< peak over 1 s buckets
    /// Mean requests in flight (SGLang `concurrency`; else mean E2EL x completed / duration).
    std::optional<double> concurrency;
    std::optional<double> accept_length;  ///< speculative decoding: mean accepted tokens per step

    // --- latency statistics, seconds ---
    std::optional<double> mean_ttft_s, median_ttft_s, std_ttft_s, p99_ttft_s;
    std::optional<double> mean_tpot_s, median_tpot_s, std_tpot_s, p99_tpot_s;
    std::optional<double> mean_itl_s, median_itl_s, std_itl_s, p99_itl_s;
    std::optional<double> mean_e2el_s, median_e2el_s, std_e2el_s, p99_e2el_s;
    /// Every percentile in the file: "p99.9_ttft", "p90_itl", "p99_e2el" -> seconds (metric names
    /// normalised: SGLang's `e2e_latency` is "e2el").
    std::map<std::string, double, std::less<>> percentiles_s;

    // --- InferenceX deployment ---
    std::string hw;         ///< InferenceX `hw` ("b200", "mi355x", ...)
    std::string precision;  ///< InferenceX `precision` ("fp8", "fp4", "int4")
    std::string spec_decoding;
    std::optional<double> tp, ep;       ///< tensor / expert parallel degree
    std::optional<bool> dp_attention;   ///< data-parallel attention
    std::optional<bool> disagg;         ///< prefill/decode disaggregated
    std::optional<bool> is_multinode;
    std::optional<double> tput_per_gpu_tok_per_s;         ///< total tokens/s per GPU
    std::optional<double> output_tput_per_gpu_tok_per_s;  ///< output tokens/s per GPU
    std::optional<double> input_tput_per_gpu_tok_per_s;   ///< input tokens/s per GPU

    // --- per-request arrays (`--output-details` / `--save-detailed`) ---
    std::vector<double> input_lens, output_lens;  ///< tokens, one per request
    std::vector<double> ttfts_s;                  ///< one per request
    std::vector<std::vector<double>> itls_s;      ///< per request, the gaps between chunks

    /// Names of the fields above that were derived, not read ("input_throughput_tok_per_s", ...).
    std::vector<std::string> derived;

    /// True when `field` (a member name above) was derived rather than read from the file.
    bool is_derived(std::string_view field) const {
        for (const auto& d : derived)
            if (d == field) return true;
        return false;
    }
    /// A latency statistic by its key without unit ("p99.9_ttft", "median_itl"), seconds.
    std::optional<double> latency_s(std::string_view key) const {
        const auto it = percentiles_s.find(key);
        if (it != percentiles_s.end()) return it->second;
        const std::pair<std::string_view, const std::optional<double>*> named[] = {
            {"mean_ttft", &mean_ttft_s}, {"median_ttft", &median_ttft_s}, {"std_ttft", &std_ttft_s},
            {"mean_tpot", &mean_tpot_s}, {"median_tpot", &median_tpot_s}, {"std_tpot", &std_tpot_s},
            {"mean_itl", &mean_itl_s},   {"median_itl", &median_itl_s},   {"std_itl", &std_itl_s},
            {"mean_e2el", &mean_e2el_s}, {"median_e2el", &median_e2el_s}, {"std_e2el", &std_e2el_s},
        };
        for (const auto& [k, v] : named)
            if (k == key) return *v;
        return std::nullopt;
    }
};

/// The runs of one benchmark file and what the reader did with it.
struct bench_results {
    std::string file;
    std::vector<bench_run> runs;  ///< in file order
    read_stats stats;             ///< one event per JSON object (run) in the file
};

}  // namespace roofline
