// Model evaluation speed (Google Benchmark): nanoseconds per evaluation of what `roofline
// kernel gemm|moe|attention` and `roofline analyze` compute, so that sweeps (the planner
// evaluates thousands of configurations) know their cost. Not a test: numbers for the README.
//   gemm_workload       FLOP and bytes of one dense GEMM + its price at achievable ceilings
//   gemm_best_tile      the tile search (shared memory fit, waves) for one GEMM shape
//   moe_layer           grouped MoE GEMM: routing (uniform), per-expert tokens, work, price
//   attention_workload  decode GQA attention over a batch + its price
//   model_step          one decode step of GLM-5 (data/models/glm-5/config.json) on 8 GPUs, TP8,
//                       every layer's phases, priced
// (The planner's configurations-per-second benchmark belongs with `roofline plan`.)
#include <benchmark/benchmark.h>

#include <string>

#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/transformer.hpp"

namespace {

using namespace roofline;

const gpu_spec& h200() {
    static const gpu_spec g = gpu_catalog::builtin().at("h200-sxm");
    return g;
}
const ceilings& datasheet() {
    static const ceilings c = datasheet_ceilings(h200());
    return c;
}
const ceilings& used() {
    static const ceilings c = achievable(datasheet());
    return c;
}

void gemm_workload_price(benchmark::State& state) {
    // A decode-size projection: 64 tokens x 4096 -> 4096, bf16.
    const gemm_shape s{64, 4096, 4096, 1};
    for (auto _ : state) {
        const auto path = gemm_compute_path(dtype::bf16, dtype::bf16, h200());
        const auto w = gemm_workload(s, dtype::bf16, dtype::bf16, dtype::bf16, path.peak);
        const auto t = price_kernel(w, datasheet(), used());
        benchmark::DoNotOptimize(t.predicted.lower_bound_s);
    }
}
BENCHMARK(gemm_workload_price)->Name("gemm_workload");

void gemm_best_tile(benchmark::State& state) {
    const gemm_shape s{4096, 4096, 4096, 1};
    for (auto _ : state) {
        const auto t = best_tile(s, dtype::bf16, dtype::bf16, dtype::bf16, h200(), datasheet());
        benchmark::DoNotOptimize(t.waves);
    }
}
BENCHMARK(gemm_best_tile);

void moe(benchmark::State& state) {
    // DeepSeek-V3-like layer: 256 experts, top-8, hidden 7168, expert FFN 2048, FP8, 1024 tokens.
    moe_problem m;
    m.tokens = 1024;
    m.experts = 256;
    m.topk = 8;
    m.hidden = 7168;
    m.inter = 2048;
    m.shared_experts = 1;
    m.weights = m.activations = dtype::fp8_e4m3;
    m.routing = parse_routing("uniform");
    for (auto _ : state) {
        const auto r = moe_layer(m, h200());
        const auto t = price_kernel(r.work, datasheet(), used());
        benchmark::DoNotOptimize(t.predicted.lower_bound_s);
    }
}
BENCHMARK(moe)->Name("moe_layer");

void attention(benchmark::State& state) {
    // GQA decode: 64 sequences, 32 query heads, 8 KV heads, head dim 128, context 4096, bf16.
    attention_shape s;
    s.heads = 32;
    s.kv_heads = 8;
    s.head_dim = 128;
    const sequence_group g{64, 1, 4095};
    for (auto _ : state) {
        const auto w = attention_workload(s, {g}, dtype::bf16, dtype::bf16, peak_key::bf16, peak_key::fp8);
        const auto t = price_kernel(w, datasheet(), used());
        benchmark::DoNotOptimize(t.predicted.lower_bound_s);
    }
}
BENCHMARK(attention)->Name("attention_workload");

void step(benchmark::State& state) {
    static const model_config glm5 = read_hf_config(std::string(ROOFLINE_DATA_DIR) + "/models/glm-5/config.json");
    parallel_layout layout;
    layout.tp = 8;
    const auto batch = step_batch::decode(1024, 2048);
    for (auto _ : state) {
        const auto m = model_step(glm5, batch, layout, h200());
        const auto t = price_step(m, used());
        benchmark::DoNotOptimize(t);
    }
}
BENCHMARK(step)->Name("model_step")->Unit(benchmark::kMicrosecond);

}  // namespace
