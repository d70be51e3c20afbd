// Speed of `roofline plan` (analysis/plan.hpp): configurations evaluated per second on one core,
// a whole sweep, and the fast step path against the full step model it replaces.
//
//   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release -DROOFLINE_BUILD_BENCHMARKS=ON
//   cmake --build build-rel --target bench && ./build-rel/examples/bench/bench --benchmark_filter=plan
//
// Targets (issue 7): >= 1,000,000 evaluated configurations per second on one core; every catalog
// GPU x counts 1-64 x 13 concurrencies well under a second. The model is GLM-5 in NVFP4
// (data/models/glm-5): MLA + DSA attention, 256-expert MoE, the costliest shape the planner sees.
#include <benchmark/benchmark.h>

#include <string>

#include "roofline/analysis/plan.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/io/hf_config.hpp"

namespace {

using namespace roofline;

model_config glm5() {
    const std::string dir = std::string(ROOFLINE_DATA_DIR) + "/models/glm-5/";
    auto c = read_hf_config(dir + "config.json");
    apply_hf_quant_config(c, dir + "hf_quant_config.json");
    return c;
}

/// Every catalog GPU, counts 1-64, the 13 default concurrencies (1 ... 4096), ISL = OSL = 1024.
plan_request full_sweep() {
    plan_request rq;
    rq.gpus = gpu_catalog::builtin().all();
    for (int n = 1; n <= 64; ++n) rq.counts.push_back(n);
    rq.isl = 1024;
    rq.osl = 1024;
    return rq;
}

/// Configurations per second: the full sweep streamed through a visitor that keeps nothing
/// (fronts and counts are still built).
void plan_configurations(benchmark::State& state) {
    const auto c = glm5();
    const auto rq = full_sweep();
    std::size_t points = 0, priced = 0;
    for (auto _ : state) {
        std::size_t fits = 0;
        const auto r = run_plan(c, rq, [&](const plan_point& p) { fits += p.fits(); });
        benchmark::DoNotOptimize(fits);
        points += r.points_evaluated;
        priced += r.fitting;
        state.counters["points"] = static_cast<double>(r.points_evaluated);
        state.counters["fitting"] = static_cast<double>(r.fitting);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(points));
    // Rejected points cost a memory check; fitting ones are priced (decode, prefill, power).
    // All the time counted against the fitting points alone:
    state.counters["fitting_per_second"] = benchmark::Counter(static_cast<double>(priced), benchmark::Counter::kIsRate);
}
BENCHMARK(plan_configurations)->Unit(benchmark::kMillisecond);

/// The whole sweep as the CLI runs it in text mode: read the model files, plan, keep the front.
void plan_whole_sweep(benchmark::State& state) {
    for (auto _ : state) {
        const auto c = glm5();
        const auto r = run_plan(c, full_sweep(), false);
        benchmark::DoNotOptimize(r.pareto.data());
    }
}
BENCHMARK(plan_whole_sweep)->Unit(benchmark::kMillisecond);

/// One decode step (TP8 EP8, 256 sequences at context 1,536) by the fast path ...
void plan_fast_step(benchmark::State& state) {
    const auto c = glm5();
    const auto g = gpus::rtx_pro_6000();
    const auto pm = digest_model(c);
    const auto pg = prepare_gpu(g);
    const auto k = step_coefficients::build(pm, pg, {8, 8, 1, 1});
    for (auto _ : state) benchmark::DoNotOptimize(evaluate_step(k, {256, 1, 1536}).lower_bound_s);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(plan_fast_step);

/// ... and by the full model it replaces (per-layer vectors, tensor inventories, notes).
void plan_full_step(benchmark::State& state) {
    const auto c = glm5();
    const auto g = gpus::rtx_pro_6000();
    const auto pg = prepare_gpu(g);
    step_options o;
    o.link_override = *pg.link;
    const auto batch = step_batch::decode(256, 1536);
    for (auto _ : state)
        benchmark::DoNotOptimize(price_step(model_step(c, batch, {8, 8, 1, 1}, g, o), pg.modeled).lower_bound_s);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(plan_full_step)->Unit(benchmark::kMicrosecond);

}  // namespace
