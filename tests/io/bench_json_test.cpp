// Tests of io/bench_json.hpp on every benchmark file in ../shared/samples/bench and on bad input.
// Expected numbers were read from the files with python3 json (printed values, copied here).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <limits>

#include "io/io_test_support.hpp"
#include "roofline/io/bench_json.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("SGLang JSONL, old key set: every appended run, ms converted to s, fields derived") {
    const auto p = test::shared_sample("bench/datacrunch_sglang_llama3.3-70b_h200_online.jsonl");
    if (!test::have_sample(p)) return;
    const auto res = read_bench_results(p.string());
    CHECK(res.stats.events_read == 7);
    CHECK(res.stats.events_kept == 7);
    CHECK(res.stats.events_skipped == 0);
    REQUIRE(res.runs.size() == 7);
    const auto& r = res.runs[0];
    CHECK(r.format == "sglang");
    CHECK(r.line == 1);
    CHECK(r.backend == "sglang");
    CHECK(r.dataset == "random");
    CHECK(r.request_rate_per_s == 1.0);
    CHECK_FALSE(r.max_concurrency.has_value());  // null in the file
    CHECK(r.completed == 300.0);
    CHECK(*r.duration_s == approx(298.3675805060193));
    CHECK(r.total_input_tokens == 152612.0);
    CHECK(r.random_input_len == 1024.0);
    CHECK(*r.median_ttft_s == approx(0.08574514742940664));
    CHECK(*r.mean_e2el_s == approx(7.840616212638561));
    CHECK_FALSE(r.p99_ttft_s.has_value());  // the 2024 key set has no p99
    // Derived: input throughput = 152612 / 298.3676 = 511.49 tok/s; request throughput =
    // 300 / 298.3676 = 1.00547 req/s; concurrency = 7.8406 s x 300 / 298.3676 = 7.8835.
    CHECK(r.is_derived("input_throughput_tok_per_s"));
    CHECK(*r.input_throughput_tok_per_s == approx(152612 / 298.3675805060193));
    CHECK(*r.request_throughput_per_s == approx(300 / 298.3675805060193));
    CHECK(*r.concurrency == approx(7.840616212638561 * 300 / 298.3675805060193));
    CHECK_FALSE(r.is_derived("output_throughput_tok_per_s"));  // in the file
    CHECK(*r.output_throughput_tok_per_s == approx(537.4142851849319));
    // Runs keep file order and lines: the 5th line is rate 16, 3200 requests.
    CHECK(res.runs[4].request_rate_per_s == 16.0);
    CHECK(res.runs[4].completed == 3200.0);
    CHECK(res.runs[4].line == 5);
}

TEST_CASE("SGLang JSONL with bare Infinity request rates") {
    const auto p = test::shared_sample("bench/datacrunch_sglang_llama3.3-70b_h200_offline.jsonl");
    if (!test::have_sample(p)) return;
    const auto runs = read_bench(p.string());
    REQUIRE(runs.size() == 7);
    for (const auto& r : runs) {
        REQUIRE(r.request_rate_per_s.has_value());
        CHECK(std::isinf(*r.request_rate_per_s));
    }
    CHECK(runs[0].completed == 3000.0);
    CHECK(*runs[0].output_throughput_tok_per_s == approx(4520.698730654741));
    CHECK(runs[5].completed == 6000.0);
    CHECK(runs[5].random_output_len == 512.0);
}

TEST_CASE("vLLM --save-result JSON: goodput key with colon, p99.9, request_rate \"inf\"") {
    const auto p = test::shared_sample("bench/inferencex_vllm_bench_gptoss120b_conc128.json");
    if (!test::have_sample(p)) return;
    const auto runs = read_bench(p.string());
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.format == "vllm");
    CHECK(r.backend == "openai");
    CHECK(r.max_concurrency == 128.0);
    CHECK(std::isinf(*r.request_rate_per_s));
    CHECK_FALSE(r.request_goodput_per_s.has_value());  // "request_goodput:": null
    CHECK(*r.total_throughput_tok_per_s == approx(16736.560504280373));
    // input = total - output = 16736.5605 - 8368.2803 = 8368.2803 tok/s (1k in, 1k out).
    CHECK(r.is_derived("input_throughput_tok_per_s"));
    CHECK(*r.input_throughput_tok_per_s == approx(8368.280252140186));
    CHECK(*r.median_ttft_s == approx(0.1684953118674457));
    CHECK(*r.mean_tpot_s == approx(0.014871257350024614));
    CHECK(*r.p99_itl_s == approx(0.018650689502246678));
    CHECK(*r.latency_s("p99.9_ttft") == approx(1.516856569517171));
    CHECK(*r.latency_s("p90_e2el") == approx(16.52248927145265));
    CHECK(*r.latency_s("median_itl") == approx(0.014909795951098204));
    CHECK_FALSE(r.latency_s("p50_ttft").has_value());
    // concurrency = 15.5353 s x 1280 / 156.6296 s = 126.957 (Little's law).
    CHECK(*r.concurrency == approx(126.95716060945789));
}

TEST_CASE("vLLM JSON with per-request arrays and unix start/end times") {
    const auto p = test::shared_sample("bench/inferencex_vllm_bench_detailed_qwen3.5_conc64.json");
    if (!test::have_sample(p)) return;
    const auto runs = read_bench(p.string());
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.format == "vllm");
    CHECK(r.model == "Qwen/Qwen3.5-397B-A17B-FP8");
    REQUIRE(r.input_lens.size() == 640);
    REQUIRE(r.output_lens.size() == 640);
    CHECK(r.input_lens[0] == 7239.0);
    double in = 0, outt = 0;
    for (double x : r.input_lens) in += x;
    for (double x : r.output_lens) outt += x;
    CHECK(in == *r.total_input_tokens);    // 4,729,077
    CHECK(outt == *r.total_output_tokens);  // 588,102
    CHECK(*r.benchmark_start_time_unix_s == approx(1786022594.990249));
    CHECK(*r.input_throughput_tok_per_s == approx(15001.122585021802));
}

TEST_CASE("InferenceX aggregated result: seconds, per-GPU throughputs, deployment") {
    const auto p = test::shared_sample("bench/inferencex_agg_kimik2.5_1k1k_conc4.json");
    if (!test::have_sample(p)) return;
    const auto runs = read_bench(p.string());
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.format == "inferencex-agg");
    CHECK(r.hw == "mi355x");
    CHECK(r.backend == "vllm");
    CHECK(r.model == "moonshotai/Kimi-K2.5");
    CHECK(r.precision == "int4");
    CHECK(r.tp == 8.0);
    CHECK(r.ep == 1.0);
    CHECK(r.dp_attention == std::optional<bool>(false));  // the string "false"
    CHECK(r.disagg == std::optional<bool>(false));
    CHECK(r.max_concurrency == 4.0);
    CHECK(r.random_input_len == 1024.0);
    CHECK(*r.tput_per_gpu_tok_per_s == approx(55.62670336516291));
    CHECK(*r.median_ttft_s == approx(0.2969768075272441));  // already seconds
    CHECK(*r.latency_s("p99.9_itl") == approx(0.2516422391461674));
    CHECK(*r.mean_e2el_s == approx(16.17588243483915));
}

TEST_CASE("InferenceX seconds variant") {
    const auto p = test::shared_sample(
        "bench/inferencex_glm5_fp8_vllm_tp8_isl1024_osl128_conc16_seconds_variant.json");
    if (!test::have_sample(p)) return;
    const auto runs = read_bench(p.string());
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.format == "inferencex-seconds");
    CHECK(*r.median_ttft_s == approx(0.29139942955225706));
    CHECK(*r.p99_tpot_s == approx(0.0717096967959967));
    CHECK(*r.input_throughput_tok_per_s == approx(3228.647450737003));
    CHECK_FALSE(r.is_derived("input_throughput_tok_per_s"));
    // total = 3228.6475 + 403.5809 = 3632.2284 tok/s, derived.
    CHECK(*r.total_throughput_tok_per_s == approx(3228.647450737003 + 403.5809313421254));
    CHECK(r.is_derived("total_throughput_tok_per_s"));
}

TEST_CASE("non-finite literals are replaced outside strings only") {
    const temp_file f(
        R"({"backend": "sglang", "tag": "Infinity and NaN \"NaN\" stay", "request_rate": Infinity,)"
        R"( "duration": 10.0, "completed": 5, "median_tpot_ms": NaN, "mean_ttft_ms": 20,)"
        R"( "output_throughput": 100.0, "dataset_name": "-Infinity"})"
        "\n",
        ".jsonl");
    const auto runs = read_bench(f.path());
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].tag == "Infinity and NaN \"NaN\" stay");
    CHECK(runs[0].dataset == "-Infinity");
    CHECK(std::isinf(*runs[0].request_rate_per_s));
    CHECK_FALSE(runs[0].median_tpot_s.has_value());  // NaN statistic: unknown
    CHECK(*runs[0].mean_ttft_s == approx(0.020));
}

TEST_CASE("bad benchmark files") {
    SUBCASE("malformed JSON names line and column") {
        const temp_file f("{\"backend\": \"sglang\",\n  \"duration\": 12.5,\n  \"completed\": ,\n}\n",
                          ".json");
        CHECK_THROWS_WITH_AS(read_bench(f.path()), doctest::Contains("line 3, column 16"),
                             parse_error);
    }
    SUBCASE("malformed JSON after a non-finite literal still points at the right column") {
        const temp_file f("{\"request_rate\": Infinity, \"duration\": x}\n", ".json");
        // 'x' is byte 39 (0-based) on line 1 -> column 40.
        CHECK_THROWS_WITH_AS(read_bench(f.path()), doctest::Contains("line 1, column 40"),
                             parse_error);
    }
    SUBCASE("truncated file") {
        const temp_file f("{\"backend\": \"sglang\", \"duration\": 12", ".json");
        CHECK_THROWS_WITH_AS(read_bench(f.path()), doctest::Contains("malformed JSON"), parse_error);
    }
    SUBCASE("a NaN duration: an error when strict, a counted skip when lenient") {
        const temp_file f(
            "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"duration\": 10, \"completed\": 1}\n"
            "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"duration\": NaN, \"completed\": 1}\n",
            ".jsonl");
        CHECK_THROWS_WITH_AS(read_bench(f.path()), doctest::Contains("line 2"), parse_error);
        CHECK_THROWS_WITH_AS(read_bench(f.path()), doctest::Contains("\"duration\": is nan"),
                             parse_error);
        const auto res = read_bench_results(f.path());
        CHECK(res.runs.size() == 1);
        CHECK(res.stats.skipped_by_reason.at("nan(duration)") == 1);
    }
    SUBCASE("negative and mistyped counts") {
        const temp_file neg("{\"model_id\": \"m\", \"duration\": 10, \"completed\": -3}", ".json");
        CHECK_THROWS_WITH_AS(read_bench(neg.path()), doctest::Contains("\"completed\": is negative"),
                             parse_error);
        const temp_file typ("{\"model_id\": \"m\", \"duration\": {\"s\": 1}}", ".json");
        CHECK_THROWS_WITH_AS(read_bench(typ.path()), doctest::Contains("\"duration\": not a number"),
                             parse_error);
    }
    SUBCASE("not a benchmark result") {
        const temp_file f("{\"traceEvents\": []}", ".json");
        CHECK_THROWS_WITH_AS(read_bench(f.path()),
                             doctest::Contains("line 1: a Kineto/Chrome trace (`roofline trace` reads it), not a "
                                               "benchmark result"),
                             parse_error);
        // An nvidia-smi log handed to analyze is named as one, not as malformed JSON.
        const temp_file smi("timestamp, index, power.draw [W]\n2026/01/01 00:00:00.000, 0, 300.00 W\n", ".csv");
        CHECK_THROWS_WITH_AS(read_bench(smi.path()),
                             doctest::Contains("line 1: an nvidia-smi --query-gpu log (pass it with --power), not a "
                                               "benchmark result"),
                             parse_error);
        // A JSON object of no known kind keeps the reader's own message.
        const temp_file other("{\"a\": 1}", ".json");
        CHECK_THROWS_WITH_AS(read_bench(other.path()), doctest::Contains("not a SGLang, vLLM"), parse_error);
    }
    SUBCASE("empty and missing files") {
        const temp_file f("  \n", ".json");
        CHECK_THROWS_WITH_AS(read_bench(f.path()), doctest::Contains("empty file"), parse_error);
        CHECK_THROWS_WITH_AS(read_bench("/nonexistent/bench.json"), doctest::Contains("cannot open"),
                             parse_error);
    }
    SUBCASE("gzip-compressed JSONL reads like the plain file") {
        const temp_file f(
            "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"duration\": 10, \"completed\": 1}\n",
            ".jsonl.gz");
        CHECK(read_bench(f.path()).size() == 1);
    }
}
