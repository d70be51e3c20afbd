// Tests of analysis/serving.hpp: the steady-state serving model and the run verdicts.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>

#include "roofline/analysis/serving.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/io/hf_config.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {

model_config glm5_nvfp4() {
    auto m = read_hf_config(test::repo_data("models/glm-5/config.json").string());
    apply_hf_quant_config(m, test::repo_data("models/glm-5/hf_quant_config.json").string());
    return m;
}

model_config h200_serving_model() { return read_hf_config(test::repo_data("samples/h200-serving/config.json").string()); }

bool contains(const std::vector<std::string>& v, const std::string& needle) {
    for (const auto& s : v)
        if (s.find(needle) != std::string::npos) return true;
    return false;
}

power_sample sample(double draw_w, double limit_w, double clock_mhz, double max_mhz, std::uint64_t reasons, double util) {
    power_sample s;
    s.power_draw_w = draw_w;
    s.power_limit_w = limit_w;
    s.sm_clock_hz = clock_mhz * 1e6;
    s.max_sm_clock_hz = max_mhz * 1e6;
    s.clocks_event_reasons = reasons;
    s.utilization_gpu = util;
    return s;
}

/// A serving setup on `count` GPUs of catalog entry `id`, TP over all of them.
serving_setup setup_on(const std::string& id, int count = 1) {
    static const auto catalog = gpu_catalog::builtin();
    serving_setup s;
    s.gpu = &catalog.at(id);
    s.gpu_count = count;
    s.layout.tp = count;
    return s;
}

}  // namespace

TEST_CASE("the GLM-5 field report is communication-bound, near its modeled roof, and not power-bound") {
    bench_run run;
    run.max_concurrency = 1024;
    run.max_output_tokens_per_s = 3945;
    auto s = setup_on("rtx-pro-6000", 8);
    power_log log;
    log.file = "log.csv";
    for (int i = 0; i < 8; ++i) {
        auto a = sample(250, std::nan(""), std::nan(""), std::nan(""), 0, 1.0);
        auto b = sample(330, std::nan(""), std::nan(""), std::nan(""), 0, 1.0);
        a.clocks_event_reasons.reset();
        b.clocks_event_reasons.reset();
        log.samples.push_back(a);
        log.samples.push_back(b);
    }
    const auto a = analyze_serving(run, glm5_nvfp4(), s, &log);
    CHECK(a.result.what == bound::communication);
    REQUIRE(a.fraction_of_modeled.has_value());
    // Modeled decode step ~240 ms at batch 1024: ~4.2k tok/s, so 3945 is ~93% of it.
    CHECK(*a.fraction_of_modeled > 0.85);
    CHECK(*a.fraction_of_modeled < 1.0);
    CHECK(a.decode_modeled_step_s == approx(1024.0 / a.modeled_output_tokens_per_s));
    // 290 W median of 600 W (catalog default: the log has no limit).
    REQUIRE(a.power.has_value());
    CHECK(*a.power->median_draw_w == approx(290.0));
    CHECK_FALSE(a.power->limit_from_log);
    CHECK(*a.power->fraction_of_limit == approx(290.0 / 600.0));
    CHECK(contains(a.result.notes, "not power-bound"));
    CHECK(contains(a.notes, "97% of a Max-Q's 300 W"));
}

TEST_CASE("measured mean lengths win over the generator's nominal ones") {
    bench_run run;
    run.max_concurrency = 16;
    run.dataset = "sharegpt";
    run.random_input_len = 1024;
    run.random_output_len = 1024;
    run.completed = 100;
    run.total_input_tokens = 22400;   // 224 per request
    run.total_output_tokens = 18900;  // 189 per request
    run.output_throughput_tok_per_s = 500;
    auto s = setup_on("h200-sxm");
    const auto a = analyze_serving(run, h200_serving_model(), s);
    CHECK(*a.isl == approx(224));
    CHECK(*a.osl == approx(189));
    CHECK(a.decode_context_tokens == approx(224 + 189 / 2.0));
    CHECK(a.lengths_source == "total tokens / completed requests");
}

TEST_CASE("a run held back by the client's request rate says so") {
    bench_run run;
    run.max_concurrency = 64;
    run.request_rate_per_s = 2.0;
    run.completed = 100;
    run.total_input_tokens = 100 * 512.0;
    run.total_output_tokens = 100 * 500.0;
    run.output_throughput_tok_per_s = 990;  // 2 req/s x 500 tokens = 1000 offered
    auto s = setup_on("h200-sxm");
    const auto a = analyze_serving(run, h200_serving_model(), s);
    CHECK(a.result.what == bound::latency);
    CHECK(a.result.reason.find("the load, not the hardware") != std::string::npos);
    CHECK(a.result.reason.find("= 1000 tok/s") != std::string::npos);
}

TEST_CASE("requests the KV cache cannot hold queue: the decode batch shrinks to what fits") {
    bench_run run;
    run.max_concurrency = 1024;
    run.output_throughput_tok_per_s = 2000;
    auto s = setup_on("rtx-pro-6000", 8);
    s.isl = 1000;
    s.osl = 1000;
    const auto a = analyze_serving(run, glm5_nvfp4(), s);
    REQUIRE(a.kv_capacity_tokens_per_gpu.has_value());
    // Each request holds ISL + OSL/2 = 1500 tokens on average while decoding.
    CHECK(a.decode_batch == approx(std::floor(*a.kv_capacity_tokens_per_gpu / 1500.0)));
    CHECK(a.decode_batch < 1024);
    CHECK(contains(a.warnings, "the rest queue"));
}

TEST_CASE("a power-capped, clock-held board in a memory-bound run is noted, not called power-bound") {
    bench_run run;
    run.max_concurrency = 256;
    run.random_input_len = 1024;
    run.random_output_len = 512;
    run.dataset = "random";
    run.output_throughput_tok_per_s = 9000;
    auto s = setup_on("h200-sxm");
    power_log log;
    log.file = "capped.csv";
    for (int i = 0; i < 20; ++i) log.samples.push_back(sample(695, 700, 1400, 1980, clocks_event_reason::sw_power_cap, 1.0));
    const auto a = analyze_serving(run, h200_serving_model(), s, &log);
    CHECK(a.result.what != bound::power);
    CHECK(contains(a.result.notes, "compute phases ran derated"));
}

TEST_CASE("a power log from another GPU model is flagged") {
    bench_run run;
    run.max_concurrency = 8;
    run.output_throughput_tok_per_s = 100;
    auto s = setup_on("h200-sxm");
    power_log log;
    log.file = "b200.csv";
    log.gpu_names = {"NVIDIA B200"};
    log.samples.push_back(sample(500, 1000, 1900, 1965, 0, 1.0));
    const auto a = analyze_serving(run, h200_serving_model(), s, &log);
    CHECK(contains(a.warnings, "was logged on \"NVIDIA B200\", not on h200-sxm"));
}

TEST_CASE("achieved above the modeled roof is an input error, said so") {
    bench_run run;
    run.max_concurrency = 8;
    run.output_throughput_tok_per_s = 1e6;
    auto s = setup_on("h200-sxm");
    const auto a = analyze_serving(run, h200_serving_model(), s);
    CHECK_FALSE(a.consistent);
    CHECK(a.result.reason.find("above the roof") != std::string::npos);
}

TEST_CASE("a Max-Q's 300 W limit costs a prefill-heavy run tokens/s against a 600 W Workstation card") {
    // Qwen3-30B-A3B (bf16) on one Max-Q card, 8,000-token prompts and 100-token answers at 32 in
    // flight: prefill is most of the work, and compute-bound.
    bench_run run;
    run.max_concurrency = 32;
    run.random_input_len = 8000;
    run.random_output_len = 100;
    run.output_throughput_tok_per_s = 100;
    // The cap is priced at the run's own pace (modeled / achieved): the same work at a slower
    // pace draws less, so the limit holds prefill down less and costs less.
    const auto slow = analyze_serving(run, h200_serving_model(), setup_on("rtx-pro-6000-maxq"));
    REQUIRE(slow.power_cap.has_value());
    REQUIRE(slow.fraction_of_modeled.has_value());
    CHECK(*slow.fraction_of_modeled < 0.5);
    CHECK(slow.power_cap->pace == approx(1.0 / *slow.fraction_of_modeled));
    // A run at 90% of its roof draws nearly the roof's power: the 300 W limit holds prefill down.
    run.output_throughput_tok_per_s = 0.9 * slow.modeled_output_tokens_per_s;
    const auto a = analyze_serving(run, h200_serving_model(), setup_on("rtx-pro-6000-maxq"));
    REQUIRE(a.power_cap.has_value());
    const auto& c = *a.power_cap;
    REQUIRE(slow.power_cap->at_limit.prefill_clock_hz.has_value());
    REQUIRE(c.at_limit.prefill_clock_hz.has_value());
    CHECK(*slow.power_cap->at_limit.prefill_clock_hz > *c.at_limit.prefill_clock_hz);
    CHECK(slow.power_cap->cost_fraction < c.cost_fraction);
    CHECK(c.pace == approx(1.0 / 0.9));
    CHECK(c.at_limit.gpu == "rtx-pro-6000-maxq");
    CHECK(c.at_limit.limit_w == 300);
    CHECK(c.limit_source == "the catalog default");
    CHECK(c.reference.gpu == "rtx-pro-6000");
    CHECK(c.reference.limit_w == 600);
    CHECK(c.cost_fraction == approx(1.0 - c.at_limit.output_tokens_per_s / c.reference.output_tokens_per_s));
    // Prefill is compute-bound, so the cap lowers its clock: below the Workstation's, and the run
    // loses throughput; MESSAGE shows the numbers.
    REQUIRE(c.at_limit.prefill_clock_hz.has_value());
    REQUIRE(c.reference.prefill_clock_hz.has_value());
    MESSAGE("Max-Q " << c.at_limit.output_tokens_per_s << " tok/s, prefill at " << *c.at_limit.prefill_clock_hz / 1e6
                     << " MHz; Workstation " << c.reference.output_tokens_per_s << " tok/s, prefill at "
                     << *c.reference.prefill_clock_hz / 1e6 << " MHz; cost " << 100 * c.cost_fraction << "%");
    CHECK(c.at_limit.capped);
    CHECK(*c.at_limit.prefill_clock_hz < *c.reference.prefill_clock_hz);
    CHECK(c.cost_fraction > 0.05);
    CHECK(contains(a.result.notes, "power limit: at this card's 300 W (the catalog default) the modeled output at the "
                                   "run's pace ("));
    CHECK(contains(a.result.notes, "x the roof's step time) is"));
    // The capped prefill draws the limit: the Max-Q coefficients at the clock found give 300 W.
    const auto coef = *default_power_coefficients(gpus::rtx_pro_6000_maxq());
    const auto g = gpus::rtx_pro_6000_maxq();
    const auto chunk = steady_prefill_chunk(8000, 32);
    const auto pre = model_step(h200_serving_model(), chunk.batch(), parallel_layout{}, g);
    const auto ceil = achievable_ceilings(datasheet_ceilings(g));
    const double peak = g.tensor_clock_hz.value_or(0), top = std::min(g.max_clock_hz.value_or(peak), peak);
    const auto st = price_step_under_limit(pre, ceil, coef, 300, peak, top);
    CHECK(st.capped);
    CHECK(st.power_w == approx(300).epsilon(1e-3));
    CHECK(board_power_w(coef, pre.total(), st.time_s, st.clock_hz) == approx(st.power_w));
    // At twice the step time the same work draws less, so the clock the limit allows is higher.
    const auto paced = price_step_under_limit(pre, ceil, coef, 300, peak, top, 2.0);
    CHECK(paced.clock_hz > st.clock_hz);
    CHECK(board_power_w(coef, pre.total(), paced.time_s, paced.clock_hz) == approx(paced.power_w));
    CHECK_THROWS_AS(price_step_under_limit(pre, ceil, coef, 300, peak, top, 0.5), usage_error);
}
