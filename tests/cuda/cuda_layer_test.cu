// The CUDA layer compiled by nvcc (with the umbrella header, so every non-CUDA header is also
// checked under nvcc), and its host-side logic tested without a GPU: device facts -> gpu_spec,
// catalog matching, quantiles, power summaries, error paths. GPU-only checks skip with a message.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cuda_runtime_api.h>

// simdjson's x86 intrinsics do not compile under nvcc: the readers use their nlohmann path here.
#undef ROOFLINE_HAVE_SIMDJSON
// Every public header below report/ (fmt 9's consteval format strings do not compile under nvcc).
#include "roofline/core/bound.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/units.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/capacity.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/parameters.hpp"
#include "roofline/models/power.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/trace/bench.hpp"
#include "roofline/trace/collective_sweep.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_profile.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/power.hpp"
#include "roofline/trace/read_stats.hpp"
#include "roofline/trace/summary.hpp"
#include "roofline/io/bench_json.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/measurements.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/io/trace_file.hpp"
#include "roofline/analysis/achievable.hpp"
#include "roofline/analysis/calibration.hpp"
#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/op_workload.hpp"
#include "roofline/analysis/pareto.hpp"
#include "roofline/analysis/plan.hpp"
#include "roofline/analysis/power_alignment.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/serving.hpp"
#include "roofline/analysis/steady_state.hpp"
#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/cuda/check.hpp"
#include "roofline/cuda/device_query.hpp"
#include "roofline/cuda/event_timer.hpp"
#include "roofline/cuda/nvml_sampler.hpp"

namespace {

/// What cudaGetDeviceProperties/cudaDeviceGetAttribute reported on the H200 SXM we measured
/// (data/measurements/h200/ceilings.json, "device"): 132 SMs, 1980 MHz, HBM3e at 3201 MHz on a
/// 6016-bit bus, 60 MiB of L2.
roofline::cuda_device_info h200_info() {
    roofline::cuda_device_info d;
    d.name = "NVIDIA H200";
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.sm_clock_hz = 1980e6;
    d.memory_clock_hz = 3201e6;
    d.memory_bus_width_bits = 6016;
    d.memory_bytes = 150109880320.0;
    d.l2_bytes = 62914560;
    d.smem_per_sm_bytes = 233472;
    d.smem_per_block_optin_bytes = 232448;
    return d;
}

bool have_gpu() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();  // clear the sticky "no device" error
        return false;
    }
    return true;
}

}  // namespace

TEST_CASE("peak DRAM bandwidth from the device query is 2 x memory clock x bus width / 8") {
    // 6016 bit / 8 = 752 B per transfer; 752 B x 3.201e9 /s x 2 (double data rate) = 4.814304e12 B/s,
    // the value ceilings.json recorded (datasheet: 4.8 TB/s).
    CHECK(h200_info().memory_bandwidth_bytes_per_s() == approx(4.814304e12).epsilon(1e-12));
    CHECK(h200_info().compute_capability() == "9.0");
}

TEST_CASE("an H200 matches the catalog by its device name, and the query overrides what it reports") {
    const auto catalog = roofline::gpu_catalog::builtin();
    const auto m = roofline::match_catalog(h200_info(), catalog);
    REQUIRE(m.spec != nullptr);
    CHECK(m.spec->id == "h200-sxm");
    CHECK(m.reason == "device name \"NVIDIA H200\"");
    const auto g = roofline::to_gpu_spec(h200_info(), m.spec);
    CHECK(g.id == "h200-sxm");
    CHECK(*g.sm_count.value == 132);
    CHECK(g.sm_count.source == roofline::device_query_source);
    CHECK(*g.memory_bandwidth_bytes_per_s.value == approx(4.814304e12));
    CHECK(g.memory_bandwidth_bytes_per_s.derived);
    CHECK(*g.l2_bytes.value == 62914560);  // the catalog entry says 50 MiB; the device 60 MiB
    CHECK(*g.smem_per_block_bytes.value == 232448);
    // Not reported by the device: kept from the catalog entry.
    CHECK(g.power_limit_w.value == m.spec->power_limit_w.value);
    CHECK(g.dense_flops_per_s(roofline::peak_key::bf16) == m.spec->dense_flops_per_s(roofline::peak_key::bf16));
}

TEST_CASE("an unknown name falls back to compute capability and SM count, and says when that is ambiguous") {
    auto d = h200_info();
    d.name = "NVIDIA H200 NVL-like test part";
    const auto catalog = roofline::gpu_catalog::builtin();
    const auto m = roofline::match_catalog(d, catalog);
    // CC 9.0 with 132 SMs fits several Hopper entries (H100 SXM, H200 SXM, H800, ...).
    CHECK(m.spec == nullptr);
    CHECK(m.candidates.size() >= 2);
    CHECK(m.reason.find("ambiguous") == 0);

    d.cc_major = 7;
    d.cc_minor = 5;
    d.sm_count = 40;
    const auto none = roofline::match_catalog(d, catalog);
    CHECK(none.spec == nullptr);
    CHECK(none.candidates.empty());
    CHECK(none.reason == "no catalog entry has compute capability 7.5 and 40 SMs");

    // Without a catalog entry the spec holds only what the device reported; the rest is unknown.
    const auto g = roofline::to_gpu_spec(d);
    CHECK(g.id == "device-0");
    CHECK(g.cc_major == 7);
    CHECK_FALSE(g.power_limit_w.known());
    CHECK_FALSE(g.dense_flops_per_s(roofline::peak_key::bf16).has_value());
}

TEST_CASE("quantiles interpolate linearly between order statistics") {
    // {1,2,3,4}: median at position 1.5 -> 2.5; p10 at 0.3 -> 1.3; p90 at 2.7 -> 3.7.
    const std::vector<double> xs = {4, 1, 3, 2};
    CHECK(roofline::quantile(xs, 0.5) == approx(2.5));
    CHECK(roofline::quantile(xs, 0.1) == approx(1.3));
    CHECK(roofline::quantile(xs, 0.9) == approx(3.7));
    CHECK(roofline::quantile({}, 0.5) != roofline::quantile({}, 0.5));  // NaN
}

TEST_CASE("a power summary counts cap reasons and energy only inside its window") {
    using roofline::nvml_sample;
    std::vector<nvml_sample> s(6);
    const double power[] = {100, 690, 700, 701, 650, 120};
    const double clock[] = {1980e6, 1500e6, 1410e6, 1400e6, 1600e6, 1980e6};
    const std::uint64_t reasons[] = {0x1, 0x4, 0x4, 0x4 | 0x8, 0x0, 0x1};
    for (int i = 0; i < 6; ++i) {
        s[i].time_s = i;
        s[i].power_w = power[i];
        s[i].sm_clock_hz = clock[i];
        s[i].energy_j = 1000.0 + 600.0 * i;
        s[i].clocks_event_reasons = reasons[i];
        s[i].temperature_c = 50 + i;
    }
    // Window [1, 4]: powers 690, 700, 701, 650 -> median (690 + 700) / 2 = 695; cap in 3 of 4;
    // HW slowdown in 1 of 4; energy 3400 - 1600 = 1800 J; clocks median (1410+1500)/2 = 1455 MHz.
    const auto p = roofline::summarize(s, 1.0, 4.0);
    CHECK(p.samples == 4);
    CHECK(p.median_power_w == approx(695));
    CHECK(p.max_power_w == approx(701));
    CHECK(p.sw_power_cap_fraction == approx(0.75));
    CHECK(p.hw_slowdown_fraction == approx(0.25));
    CHECK(p.energy_j == approx(1800));
    CHECK(p.median_sm_clock_hz == approx(1455e6));
    CHECK(p.min_sm_clock_hz == approx(1400e6));
    CHECK(p.max_temperature_c == approx(54));
    CHECK(roofline::summarize(s, 10, 20).samples == 0);
}

TEST_CASE("CUDA failures become cuda_error naming the call") {
    // Device 9999 exists nowhere: invalid device, or no driver at all on a machine without a GPU.
    CHECK_THROWS_AS(roofline::query_device(9999), roofline::cuda_error);
    try {
        roofline::query_device(9999);
    } catch (const roofline::cuda_error& e) {
        CHECK(std::string(e.what()).find("cudaGetDeviceProperties") != std::string::npos);
    }
    cudaGetLastError();
}

TEST_CASE("NVML loads at run time or says why not") {
    std::string why;
    auto lib = roofline::nvml_library::load(&why);
    if (!lib) {
        CHECK_FALSE(why.empty());
        MESSAGE("no NVML here: " << why);
        return;
    }
    auto dev = roofline::nvml_device::open(lib, "", 0, &why);
    if (!dev) {
        MESSAGE("NVML without a device: " << why);
        return;
    }
    const auto s = dev->read();
    CHECK(s.power_w >= 0);
}

__global__ void add_one(float* x) { x[threadIdx.x] += 1.0f; }

TEST_CASE("the event timer times a kernel (GPU only)") {
    if (!have_gpu()) {
        MESSAGE("skipped: no CUDA device");
        return;
    }
    const auto d = roofline::query_device(0);
    CHECK(d.sm_count > 0);
    CHECK(d.memory_bandwidth_bytes_per_s() > 0);
    float* x = nullptr;
    ROOFLINE_CUDA_CHECK(cudaMalloc(&x, 32 * sizeof(float)));
    ROOFLINE_CUDA_CHECK(cudaMemset(x, 0, 32 * sizeof(float)));
    const auto t = roofline::time_kernel([&](long) { add_one<<<1, 32>>>(x); }, {2, 10, 1});
    CHECK(t.samples_s.size() == 10);
    CHECK(t.median_s > 0);
    CHECK(t.p10_s <= t.median_s);
    CHECK(t.median_s <= t.p90_s);
    float h = 0;
    ROOFLINE_CUDA_CHECK(cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h == 12.0f);  // 2 warm-up + 10 timed launches
    cudaFree(x);
}
