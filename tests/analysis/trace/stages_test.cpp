// Tests of the trace-analysis stages, one TEST_CASE group per header of analysis/trace/ (one
// translation unit for all of them: the suite builds on 2 cores): steps.hpp (every step source),
// recover_work.hpp (sibling and ncu sources, --model x steps), classify.hpp (a host-link-bound
// row), power.hpp (per-GPU evidence naming a capped GPU), analysis/power_window.hpp (a
// run's own window of a log spanning several runs), accumulate.hpp (medians, unions, exposure
// and power overlaps one activity at a time, against the whole-trace functions) and
// stream_steps.hpp (step sources found one activity at a time, against detect_steps).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <random>

#include "roofline/analysis/power_window.hpp"
#include "roofline/analysis/trace/accumulate.hpp"
#include "roofline/analysis/trace/stream_steps.hpp"
#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
/// A synthetic H200 trace; `add` appends a kernel and returns its index.
struct synthetic {
    kernel_trace t;
    synthetic() {
        t.file = "synthetic";
        t.format = "kineto";
        device_properties d;
        d.id = 0;
        d.name = "NVIDIA H200";
        d.num_sms = 132;
        t.devices.push_back(d);
    }
    std::size_t add(std::string_view name, double start_s, double dur_s, std::int64_t corr = -1,
                    std::string_view api = "", kernel_phase p = kernel_phase::elementwise) {
        kernel_event e;
        e.name = t.strings->intern(name);
        e.phase = p;
        e.device = 0;
        e.stream = 7;
        e.start_s = start_s;
        e.duration_s = dur_s;
        e.correlation = corr;
        e.launch_api = t.strings->intern(api);
        e.grid = {264, 1, 1};
        t.events.push_back(e);
        return t.events.size() - 1;
    }
    std::vector<std::size_t> all() const {
        std::vector<std::size_t> v(t.events.size());
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
        return v;
    }
};
}  // namespace

// ---- analysis/trace/steps.hpp ----

TEST_CASE("steps: five cudaGraphLaunch replays are five steps") {
    synthetic s;
    double at = 0;
    for (int g = 0; g < 5; ++g)
        for (const char* k : {"gemm_a", "attn_b", "norm_c"}) s.add(k, at, 1e-4, 100 + g, "cudaGraphLaunch"), at += 1e-4;
    const auto st = detect_steps(s.t, 0, s.all());
    CHECK(st.detection.source == "CUDA graph launches");
    CHECK(st.detection.count == 5);
    REQUIRE(st.windows.size() == 5);
    for (const auto& w : st.windows) CHECK(w.idx.size() == 3);
    CHECK(st.detection.note.find("5 CUDA graph launches, one per step") != std::string::npos);
}

TEST_CASE("steps: piecewise graphs (two graphs per step, eager attention between) are found by their period") {
    // nsys style: no API name, the kernels of one replay share the launch's correlation id.
    synthetic s;
    double at = 0;
    std::int64_t corr = 1;
    for (int step = 0; step < 4; ++step) {
        s.add("qkv_gemm", at, 1e-4, corr), at += 1e-4;
        s.add("rope", at, 1e-4, corr++), at += 1e-4;
        s.add("flash_attn_eager", at, 1e-4, corr++), at += 1e-4;  // one kernel per launch: eager
        for (const char* k : {"o_proj", "mlp_up", "mlp_down"}) s.add(k, at, 1e-4, corr), at += 1e-4;
        ++corr;
    }
    const auto st = detect_steps(s.t, 0, s.all());
    CHECK(st.detection.source == "CUDA graph launches");
    CHECK(st.detection.count == 4);
    REQUIRE(st.windows.size() == 4);
    CHECK(st.windows[1].idx.size() == 6);  // both pieces and the eager attention between them
    CHECK(st.detection.note.find("8 CUDA graph launches, 2 per step") != std::string::npos);
}

TEST_CASE("steps: ProfilerStep wins, then GPU annotations, then a repeating sequence, else one step") {
    SUBCASE("ProfilerStep") {
        synthetic s;
        for (int i = 0; i < 6; ++i) s.t.events[s.add("k", i * 1e-3, 1e-4)].step = 10 + i / 2;
        for (int n = 10; n < 13; ++n) s.t.steps.push_back({n, 0, 0});
        const auto st = detect_steps(s.t, 0, s.all());
        CHECK(st.detection.source == "ProfilerStep");
        CHECK(st.detection.count == 3);
        CHECK(st.windows[0].name == "ProfilerStep#10");
    }
    SUBCASE("GPU annotations, nested ones and NCCL's own left out") {
        synthetic s;
        for (int i = 0; i < 4; ++i) s.add("k", i * 1e-3, 1e-4);
        const auto pool = s.t.strings;
        s.t.annotations.push_back({pool->intern("decode"), 0, 1.9e-3, true, 0});
        s.t.annotations.push_back({pool->intern("inner"), 0.5e-3, 0.2e-3, true, 0});
        s.t.annotations.push_back({pool->intern("decode"), 2e-3, 1.9e-3, true, 0});
        s.t.annotations.push_back({pool->intern("nccl:all_reduce"), 3e-3, 0.5e-3, true, 0});
        const auto st = detect_steps(s.t, 0, s.all());
        CHECK(st.detection.source == "GPU annotations");
        CHECK(st.detection.count == 2);
    }
    SUBCASE("a repeating kernel sequence") {
        synthetic s;
        double at = 0;
        for (int r = 0; r < 4; ++r)
            for (const char* k : {"embed", "qkv", "attn", "o", "up", "down"}) s.add(k, at, 1e-4), at += 2e-4;
        const auto st = detect_steps(s.t, 0, s.all());
        CHECK(st.detection.source == "repeating kernel sequence");
        CHECK(st.detection.count == 4);
        CHECK(st.detection.note.find("every 6 kernels, 4 times") != std::string::npos);
    }
    SUBCASE("nothing: one step, and it says so") {
        synthetic s;
        for (int i = 0; i < 12; ++i) s.add("same_kernel", i * 1e-3, 1e-4);
        const auto st = detect_steps(s.t, 0, s.all());
        CHECK(st.detection.source == "one step");
        CHECK(st.detection.count == 1);
        CHECK(st.windows.empty());
        CHECK(st.detection.note.find("the window is taken as one step") != std::string::npos);
    }
    SUBCASE("--steps sets the count and keeps the windows") {
        synthetic s;
        for (int g = 0; g < 3; ++g) s.add("k", g * 1e-3, 1e-4, g, "cudaGraphLaunch");
        const auto st = detect_steps(s.t, 0, s.all(), 7);
        CHECK(st.detection.count == 7);
        CHECK(st.windows.size() == 3);
        CHECK(st.detection.note.find("--steps 7 given; the trace shows 3") != std::string::npos);
    }
}

// ---- analysis/trace/recover_work.hpp ----

TEST_CASE("recover_work: --model work is multiplied by the detected graph replays") {
    const auto cfg = test::repo_data("samples/h200-serving/config.json");
    if (!test::have_sample(cfg)) return;
    const model_config m = read_hf_config(cfg.string());
    const auto one_step = [&](int replays) {
        synthetic s;
        double at = 0;
        for (int g = 0; g < replays; ++g)
            for (auto p : {kernel_phase::moe_gemm, kernel_phase::attention, kernel_phase::gemm})
                s.add(std::string(to_string(p)) + "_k", at, 1e-3, g, "cudaGraphLaunch", p), at += 1e-3;
        trace_analysis_options o;
        o.model = &m;
        o.batch = step_batch::decode(64, 1024);
        return analyze_trace(s.t, gpu_catalog::builtin(), o);
    };
    const auto one = one_step(1), five = one_step(5);
    CHECK(five.step_info.source == "CUDA graph launches");
    CHECK(five.step_info.count == 5);
    CHECK(five.tokens == 5 * 64);
    const auto dram = [](const trace_analysis& a) { return a.window.work.dram_bytes(); };
    CHECK(dram(five) == approx(5 * dram(one)));
    // Same work per step, five times the time: the same utilisation, not a fifth of it.
    CHECK(five.window.utilization.memory == approx(one.window.utilization.memory));
    CHECK(five.steps.size() == 5);
}

TEST_CASE("recover_work: a kernel without a launching op takes a same-name, same-grid sibling's work") {
    synthetic s;
    cpu_op op;
    op.name = s.t.strings->intern("aten::mm");
    op.input_dims = s.t.strings->intern("[[4096,4096],[4096,4096]]");
    op.input_types = s.t.strings->intern("[\"c10::BFloat16\",\"c10::BFloat16\"]");
    s.t.ops.push_back(op);
    const auto a0 = s.add("nvjet_gemm", 0, 1e-3, 1, "cudaLaunchKernel", kernel_phase::gemm);
    s.t.events[a0].op = 0;
    s.add("nvjet_gemm", 2e-3, 1e-3, 2, "cudaGraphLaunch", kernel_phase::gemm);  // replayed, no op
    const auto other = s.add("nvjet_gemm", 4e-3, 1e-3, 3, "", kernel_phase::gemm);
    s.t.events[other].grid = {8, 1, 1};  // another grid: another problem size
    const auto a = analyze_trace(s.t, gpu_catalog::builtin());
    CHECK(a.sibling_priced == 1);
    REQUIRE(a.kernels.size() == 1);
    const auto& k = a.kernels.front();
    CHECK(k.pricing == "shapes+sibling");
    CHECK(k.work.total_flops() == approx(2 * 2.0 * 4096.0 * 4096 * 4096));  // 2 x 2MNK
    CHECK(k.priced_s == approx(2e-3));
    bool said = false;
    for (const auto& n : a.notes) said = said || n.find("1 kernel(s) without a launching op") != std::string::npos;
    CHECK(said);
    // The op launch group row carries the shapes and both kernels' work.
    REQUIRE(!a.ops.empty());
    CHECK(a.ops.front().name == "aten::mm");
    CHECK(a.ops.front().input_dims == "[[4096,4096],[4096,4096]]");
    CHECK(a.ops.front().count == 2);
}

TEST_CASE("recover_work: an fp32 GEMM run by a TF32 tensor-op kernel is priced at the TF32 rate") {
    for (const char* kernel : {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
                               "volta_sgemm_128x64_nn"}) {
        INFO(kernel);
        synthetic s;
        cpu_op mm;
        mm.name = s.t.strings->intern("aten::mm");
        mm.input_dims = s.t.strings->intern("[[1024,1024],[1024,1024]]");
        mm.input_types = s.t.strings->intern("[\"float\",\"float\"]");
        s.t.ops.push_back(mm);
        s.t.events[s.add(kernel, 0, 1e-4, 1, "cudaLaunchKernel", kernel_phase::gemm)].op = 0;
        const auto a = analyze_trace(s.t, gpu_catalog::builtin());
        REQUIRE(a.kernels.size() == 1);
        const auto& w = a.kernels.front().work;
        const double f = 2.0 * 1024 * 1024 * 1024;
        const bool tf32 = std::string_view(kernel).find("s1688") != std::string_view::npos;
        CHECK(w.flops_at(peak_key::tf32) == approx(tf32 ? f : 0.0));
        CHECK(w.flops_at(peak_key::fp32) == approx(tf32 ? 0.0 : f));
    }
}

TEST_CASE("recover_work: what no source priced is listed by op, longest first, after every source") {
    synthetic s;
    cpu_op mm, custom;
    mm.name = s.t.strings->intern("aten::mm");
    mm.input_dims = s.t.strings->intern("[[4096,4096],[4096,4096]]");
    mm.input_types = s.t.strings->intern("[\"c10::BFloat16\",\"c10::BFloat16\"]");
    custom.name = s.t.strings->intern("mylib::fused_thing");  // no shape model
    s.t.ops.push_back(mm);
    s.t.ops.push_back(custom);
    s.t.events[s.add("nvjet_gemm", 0, 1e-3, 1, "cudaLaunchKernel", kernel_phase::gemm)].op = 0;
    s.add("nvjet_gemm", 2e-3, 1e-3, 2, "cudaGraphLaunch", kernel_phase::gemm);  // sibling-priced: not listed
    s.t.events[s.add("fused_thing_kernel", 4e-3, 0.5e-3, 3)].op = 1;
    s.add("mystery_kernel", 5e-3, 1.5e-3, 4);  // no op, no sibling
    const auto a = analyze_trace(s.t, gpu_catalog::builtin());
    REQUIRE(a.unpriced.size() == 2);
    CHECK(a.unpriced[0].name == "kernel mystery_kernel");
    CHECK(a.unpriced[0].time_s == approx(1.5e-3));
    CHECK(a.unpriced[0].share == approx(1.5 / 4.0));
    CHECK(a.unpriced[1].name == "mylib::fused_thing");
    CHECK(a.unpriced[1].share == approx(0.5 / 4.0));
    // Priced (2 ms of 4) and unpriced (2 ms) make up all of the GPU time here.
    CHECK(a.priced_share + a.unpriced[0].share + a.unpriced[1].share == approx(1.0));
    bool said = false;
    for (const auto& n : a.notes) said = said || n.find("by op: kernel mystery_kernel 1.50 ms, mylib::fused_thing 500 us") != std::string::npos;
    CHECK(said);
}

TEST_CASE("recover_work: an ncu report's measured work replaces the model, matched by name and order") {
    synthetic s;
    s.add("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int)", 0, 40e-6);
    s.add("nvjet_sm90_tst_320x128", 50e-6, 1.4e-3, -1, "", kernel_phase::gemm);
    s.add("nvjet_sm90_tst_320x128", 2e-3, 1.4e-3, -1, "", kernel_phase::gemm);
    ncu_report r;
    r.file = "report.csv";
    kernel_profile ln;
    ln.id = 0;
    ln.name = "void at::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float, 1>(int, T2)";
    ln.dram_bytes = 100e6;
    kernel_profile g;
    g.id = 1;
    g.name = "nvjet_sm90_tst_320x128";
    g.tensor_flops_by_precision["bf16"] = 1.1e12;
    g.dram_bytes = 0.2e9;
    r.kernels = {ln, g};
    trace_analysis_options o;
    o.ncu = &r;
    const auto a = analyze_trace(s.t, gpu_catalog::builtin(), o);
    CHECK(a.ncu_matched == 2);
    for (const auto& k : a.kernels) {
        CAPTURE(k.name);
        if (k.phase == kernel_phase::gemm) {
            CHECK(k.pricing == "ncu");  // the first launch only: ncu profiled one
            CHECK(k.priced_s == approx(1.4e-3));
            CHECK(k.work.total_flops() == approx(1.1e12));
            // 1.1 TFLOP in 1.4 ms = 786 TFLOP/s = 79% of 989.
            CHECK(k.utilization.compute == approx(1.1e12 / 1.4e-3 / 989.4e12).epsilon(0.01));
        } else {
            CHECK(k.work.dram_bytes() == approx(100e6));
        }
    }
}

TEST_CASE("recover_work: a profile without tensor FLOP metrics takes its tensor FLOP from the pipe's activity") {
    const auto g = gpus::h200_sxm();  // 989 TFLOP/s dense bf16 at the 1830 MHz tensor clock
    kernel_profile k;
    k.duration_s = 100e-6;
    k.tensor_pipe_active_pct = 50;
    k.sm_clock_hz = 1830e6;
    workload w;
    REQUIRE(add_uncounted_tensor_flops(k, g, w));
    CHECK(w.flops_at(peak_key::bf16) == approx(0.5 * 100e-6 * 989e12));  // 4.945e10
    // At a measured 1464 MHz (0.8 of the tensor clock) the active cycles deliver 0.8 of that.
    k.sm_clock_hz = 1464e6;
    workload slow;
    REQUIRE(add_uncounted_tensor_flops(k, g, slow));
    CHECK(slow.flops_at(peak_key::bf16) == approx(0.8 * 0.5 * 100e-6 * 989e12));
    // An elementwise kernel's 2.8% is not MMA work; a profile that counts tensor FLOP keeps them.
    k.tensor_pipe_active_pct = 2.8;
    workload none;
    CHECK_FALSE(add_uncounted_tensor_flops(k, g, none));
    CHECK(none.total_flops() == 0);
    k.tensor_pipe_active_pct = 50;
    k.tensor_flops_by_precision["hmma"] = 1e9;
    CHECK_FALSE(add_uncounted_tensor_flops(k, g, none));
    CHECK(none.total_flops() == 0);
}

TEST_CASE("recover_work: every kernel of a real ncu report, read alone, gets a verdict") {
    const auto path = test::shared_sample("h200/h200_ncu_raw_5_kernels.csv.gz");
    if (!test::have_sample(path)) return;
    const auto rep = read_ncu_csv(path.string());
    const auto t = ncu_report_trace(rep, load_kernel_rules());
    CHECK(t.events.size() == 5);
    trace_analysis_options o;
    o.ncu = &rep;
    o.gpu_id = t.devices.empty() || t.devices.front().name.empty() ? "h200-sxm" : "";
    const auto a = analyze_trace(t, gpu_catalog::builtin(), o);
    CHECK(a.gpu.id == "h200-sxm");
    CHECK(a.ncu_matched == 5);
    CHECK(a.priced_share == approx(1.0));
    REQUIRE(a.kernels.size() == 5);
    for (const auto& k : a.kernels) {
        CAPTURE(k.name);
        CHECK(k.result.has_value());
        CHECK(k.pricing == "ncu");
    }
    // The big cuBLAS GEMM: 1,116,691,496,960 bf16 tensor FLOP in 1,385,728 ns = 806 TFLOP/s,
    // 81% of the 989 TFLOP/s dense peak: compute-bound.
    for (const auto& k : a.kernels)
        if (k.name == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT") {
            CHECK(k.work.total_flops() == approx(1116691496960.0));
            CHECK(k.utilization.compute == approx(1116691496960.0 / 1385728e-9 / 989.4e12).epsilon(0.01));
            CHECK(k.bound_name() == "compute");
        }
}

// ---- analysis/trace/classify.hpp ----

TEST_CASE("classify: 1 GiB pinned host copies at 55 GB/s are communication-bound on the PCIe host link") {
    synthetic s;
    const double bytes = 1024.0 * 1024 * 1024, dur = bytes / 55e9;
    for (int i = 0; i < 4; ++i) {
        const auto k = s.add("Memcpy HtoD (Pinned -> Device)", i * dur, dur);
        s.t.events[k].activity = gpu_activity::memcpy;
        s.t.events[k].phase = kernel_phase::memcpy;
        s.t.events[k].bytes = bytes;
    }
    const auto a = analyze_trace(s.t, gpu_catalog::builtin());
    REQUIRE(a.window.result);
    CHECK(a.window.result->what == bound::communication);
    CHECK(a.window.roof == "PCIe host link");
    REQUIRE(a.phases.size() == 1);
    const auto& p = a.phases.front();
    // 55 GB/s of the 64 GB/s per direction of PCIe Gen5 x16: 86%.
    CHECK(p.link_utilization[static_cast<std::size_t>(link_roof::host)] == approx(55.0 / 64.0));
    CHECK(p.bound_with_roof() == "communication (PCIe host link)");
    CHECK(p.result->reason.find("PCIe host link at 86% of its ceiling") != std::string::npos);
}

TEST_CASE("classify: top_roof picks the most utilised of every roof") {
    analysis_row r;
    r.utilization.memory_level = {0.3, 0.7, 0.0};
    r.link_utilization = {0.2, 0.0, 0.0};
    CHECK(top_roof(r, 0.5).first == "L2");
    r.link_utilization = {0.9, 0.0, 0.0};
    CHECK(top_roof(r, 0.5) == std::pair<std::string, double>{"NVLink/peer", 0.9});
}

// ---- analysis/trace/power.hpp ----

namespace {
power_log eight_gpus(bool gpu7_capped) {
    power_log log;
    log.file = "smi.csv";
    for (int k = 0; k < 50; ++k)
        for (int g = 0; g < 8; ++g) {
            power_sample s;
            s.wall_time_s = 1000.0 + 0.1 * k;
            s.gpu_index = g;
            s.power_limit_w = 700;
            s.max_sm_clock_hz = 1980e6;
            const bool cap = gpu7_capped && g == 7;
            s.power_draw_w = cap ? 695 : 450;
            s.sm_clock_hz = cap ? 1500e6 : 1980e6;
            s.clocks_event_reasons = cap ? clocks_event_reason::sw_power_cap : 0;
            s.utilization_gpu = 1.0;
            log.samples.push_back(s);
        }
    return log;
}
}  // namespace

TEST_CASE("power: per-GPU evidence names the capped GPU the median hides") {
    const auto log = eight_gpus(true);
    const gpu_spec h200 = gpus::h200_sxm();
    const auto per = power_per_gpu(log, 1000.0, 1004.9, 0.1, &h200, verdict_thresholds{});
    REQUIRE(per.size() == 8);
    for (int g = 0; g < 7; ++g) CHECK_FALSE(per[static_cast<std::size_t>(g)].capped);
    CHECK(per[7].capped);
    CHECK(*per[7].evidence.fraction_of_limit == approx(695.0 / 700));
    CHECK(*per[7].compute_slowdown == approx(1980.0 / 1500 - 1));
    // Over all GPUs the median draw is 450 W = 64% of the limit: not power-bound.
    CHECK(*summarize_power(log.samples, nullptr).fraction_of_limit == approx(450.0 / 700));
}

// ---- analysis/power_window.hpp ----

TEST_CASE("power window: a run takes only the samples inside its own window") {
    power_log log;
    for (int k = 0; k < 400; ++k) {  // four runs of 100 s, drawing 100, 200, 600, 300 W
        power_sample s;
        s.wall_time_s = 1.7e9 + k;
        s.power_draw_w = std::array<double, 4>{100, 200, 600, 300}[static_cast<std::size_t>(k / 100)];
        s.power_limit_w = 700;
        s.utilization_gpu = 1.0;
        log.samples.push_back(s);
    }
    bench_run run;
    run.benchmark_start_time_unix_s = 1.7e9 + 200;
    run.benchmark_end_time_unix_s = 1.7e9 + 299;
    const auto w = run_window_samples(log, run);
    CHECK(w.from_bench);
    CHECK(w.samples.size() == 100);
    CHECK(*summarize_power(w.samples, nullptr).median_draw_w == 600);
    CHECK(w.note.find("100 of 400 samples inside the run's window") != std::string::npos);
    // The same window one hour later in a log written in UTC+01:00 local time.
    for (auto& s : log.samples) s.wall_time_s += 3600;
    const auto z = run_window_samples(log, run);
    CHECK(z.samples.size() == 100);
    CHECK(z.note.find("UTC+1.00 h") != std::string::npos);
    // vLLM: `date` (local, when the run ended) and `duration`.
    bench_run v;
    v.date = "20231114-231819";  // 1,700,003,899 s = 2023-11-14 23:18:19, the third run's end
    v.duration_s = 99;
    const auto vw = run_window_samples(log, v);
    CHECK(vw.from_bench);
    CHECK(vw.samples.size() == 100);
    CHECK(*summarize_power(vw.samples, nullptr).median_draw_w == 600);
    bench_run none;
    const auto all = run_window_samples(log, none);
    CHECK_FALSE(all.from_bench);
    CHECK(all.samples.size() == 400);
}

// ---- analysis/trace/accumulate.hpp ----

TEST_CASE("accumulate: a median is weighted_median's while a row has at most 256 distinct values, "
          "within 0.55% beyond") {
    std::mt19937 rng(11);
    SUBCASE("exact") {
        std::vector<std::pair<double, double>> vw;
        median_accumulator m;
        std::uniform_int_distribution<int> value(1, 200), weight(1, 5);
        for (int i = 0; i < 5000; ++i) {  // 200 distinct kernel times, count weights as latency_of
            const double v = value(rng) * 1e-6;
            vw.push_back({v, 1.0});
            m.add(v, 1.0);
        }
        CHECK(m.exact());
        CHECK(*m.weighted_median() == *detail::trace_pw::weighted_median(vw));
        std::vector<double> sorted;
        for (const auto& p : vw) sorted.push_back(p.first);
        std::sort(sorted.begin(), sorted.end());
        CHECK(*m.at_position(double(sorted.size() / 2)) == sorted[sorted.size() / 2]);  // the gap median's rule
    }
    SUBCASE("histogram") {
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<std::pair<double, double>> vw;
            std::vector<double> sorted;
            median_accumulator m, unit;  // weighted (grid blocks by time), and counted (the gaps)
            std::uniform_real_distribution<double> decades(-6.0, -2.0), w(0.1, 3.0);
            for (int i = 0; i < 20000; ++i) {  // 20,000 distinct values over 4 decades
                const double v = std::pow(10.0, decades(rng)), wt = w(rng);
                vw.push_back({v, wt});
                sorted.push_back(v);
                m.add(v, wt);
                unit.add(v, 1.0);
            }
            CHECK_FALSE(m.exact());
            const double exact = *detail::trace_pw::weighted_median(vw);
            CHECK(std::fabs(*m.weighted_median() / exact - 1) < 0.0055);
            std::sort(sorted.begin(), sorted.end());
            const double mid = sorted[sorted.size() / 2];
            CHECK(std::fabs(*unit.at_position(double(sorted.size() / 2)) / mid - 1) < 0.0055);
        }
    }
    SUBCASE("ignored and zero values") {
        median_accumulator m;
        m.add(std::numeric_limits<double>::quiet_NaN(), 1.0);
        m.add(3.0, 0.0);
        CHECK_FALSE(m.weighted_median());
        m.add(0.0, 1.0);  // a zero-length kernel
        m.add(2.0, 2.0);
        CHECK(*m.weighted_median() == 2.0);
    }
}

TEST_CASE("accumulate: unions, exposure and power overlaps built interval by interval equal merge_intervals, "
          "subtract and length_within_s") {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> start(0.0, 1.0), len(0.0, 0.004);
    std::bernoulli_distribution collective(0.2);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<time_interval> all, comm, comp;
        std::vector<std::pair<time_interval, bool>> stream;  // each activity, collective or not
        for (int i = 0; i < 2000; ++i) {
            const double s = start(rng);
            const time_interval iv{s, s + (i % 50 == 0 ? 0.0 : len(rng))};  // some empty
            const bool c = collective(rng);
            all.push_back(iv);
            (c ? comm : comp).push_back(iv);
            stream.push_back({iv, c});
        }
        std::stable_sort(stream.begin(), stream.end(), [](auto& a, auto& b) { return a.first.start_s < b.first.start_s; });
        // The whole-trace sets.
        const auto busy = merge_intervals(all), cu = merge_intervals(comm), ku = merge_intervals(comp);
        const double exposed = total_length_s(subtract(cu, ku));
        // Streamed: one activity at a time, in start order, advancing every 100 of them.
        interval_merger m_busy, m_comm, m_comp;
        interval_buffer closed_comp;
        exposure ex;
        double busy_s = 0, comm_s = 0;
        std::size_t n_busy = 0, k = 0;
        for (const auto& [iv, c] : stream) {
            m_busy.add(iv.start_s, iv.end_s, [&](const time_interval& x) { busy_s += x.length_s(), ++n_busy; });
            if (c)
                m_comm.add(iv.start_s, iv.end_s, [&](const time_interval& x) { comm_s += x.length_s(), ex.add(x); });
            else
                m_comp.add(iv.start_s, iv.end_s, [&](const time_interval& x) { closed_comp.push(x); });
            if (++k % 100 == 0) {
                ex.advance(closed_comp, m_comp, iv.start_s, false, m_comm.open() ? m_comm.current().start_s : iv.start_s);
                closed_comp.drop_before(ex.needs_from());
            }
        }
        m_busy.flush([&](const time_interval& x) { busy_s += x.length_s(), ++n_busy; });
        m_comm.flush([&](const time_interval& x) { comm_s += x.length_s(), ex.add(x); });
        m_comp.flush([&](const time_interval& x) { closed_comp.push(x); });
        ex.advance(closed_comp, m_comp, 2.0, true, 2.0);
        CHECK(n_busy == busy.size());
        CHECK(busy_s == total_length_s(busy));  // the same pieces summed in the same order: equal to the bit
        CHECK(comm_s == total_length_s(cu));
        CHECK(ex.exposed_s() == exposed);
        // Power overlaps: samples every 50 ms over the span.
        trace_power_context pc;
        pc.window_mode = true;
        pc.period_s = 0.05;
        pc.origin_log_s = 100.0;
        for (int i = 0; i <= 22; ++i) {
            power_sample p;
            p.wall_time_s = 100.0 + 0.05 * i;
            pc.samples.push_back(p);
        }
        power_overlaps po;
        for (const auto& iv : busy) po.add(pc, iv);
        const auto got = po.values(pc);
        for (std::size_t i = 0; i < pc.samples.size(); ++i) {
            const double b = pc.samples[i].wall_time_s - pc.origin_log_s;
            CHECK(got[i] == length_within_s(busy, b - pc.period_s, b));
        }
    }
}

TEST_CASE("accumulate: a window built activity by activity is analyze_window's, two streams and collectives") {
    // Compute on stream 7, all-reduces on stream 9 that half overlap it, idle gaps between.
    synthetic s;
    double at = 0;
    for (int i = 0; i < 300; ++i) {
        s.add(i % 3 ? "gemm" : "norm", at, 20e-6 + 1e-6 * (i % 7), -1, "", i % 3 ? kernel_phase::gemm : kernel_phase::elementwise);
        if (i % 10 == 0) {
            const auto c = s.add("ncclDevKernel_AllReduce", at + 10e-6, 60e-6, -1, "", kernel_phase::communication);
            s.t.events[c].stream = 9;
        }
        at += 30e-6 + (i % 13 == 0 ? 200e-6 : 0);
    }
    std::sort(s.t.events.begin(), s.t.events.end(), [](auto& a, auto& b) { return a.start_s < b.start_s; });
    trace_analysis_options o;
    trace_analysis a;
    const auto c = select_trace_gpu(s.t, gpu_catalog::builtin(), o, a);
    const auto w = recover_work(c, 1);
    const trace_power_context pc;
    analysis_row whole;
    whole.name = "window";
    const auto wr = analyze_window(c, w, pc, c.mine, whole, std::nullopt, nullptr);
    window_accumulator acc(true, &pc);
    for (auto i : c.mine) acc.add(c, w, i);
    acc.advance(s.t.events.back().start_s, true);
    analysis_row streamed;
    streamed.name = "window";
    const auto sr = acc.finish(c, pc, streamed, std::nullopt, nullptr);
    CHECK(streamed.total_s == whole.total_s);
    CHECK(streamed.busy_s == whole.busy_s);
    CHECK(streamed.span_s == whole.span_s);
    CHECK(streamed.bound_name() == whole.bound_name());
    CHECK(streamed.latency.median_kernel_s == whole.latency.median_kernel_s);
    REQUIRE(sr.phases.size() == wr.phases.size());
    for (std::size_t i = 0; i < wr.phases.size(); ++i) {
        CAPTURE(wr.phases[i].name);
        CHECK(sr.phases[i].name == wr.phases[i].name);
        CHECK(sr.phases[i].total_s == wr.phases[i].total_s);
        CHECK(sr.phases[i].wall_s == wr.phases[i].wall_s);
        CHECK(sr.phases[i].bound_name() == wr.phases[i].bound_name());
        if (wr.phases[i].phase == kernel_phase::communication) {
            CHECK(sr.phases[i].exposed_s == wr.phases[i].exposed_s);
            CHECK(sr.phases[i].overlapped_s == wr.phases[i].overlapped_s);
            CHECK(wr.phases[i].overlapped_s > 0);
            CHECK(wr.phases[i].exposed_s > 0);
        }
    }
    CHECK(sr.by_bound == wr.by_bound);
    CHECK(acc.idle_gaps() > 0);
}

// ---- analysis/trace/stream_steps.hpp ----

TEST_CASE("stream steps: found one activity at a time, the sources and windows detect_steps finds") {
    const auto check_same = [](const synthetic& s) {
        const auto st = detect_steps(s.t, 0, s.all());
        step_finder f;
        for (const auto& e : s.t.events) f.add(e);
        const step_plan plan = plan_steps(s.t, 0, f);
        std::string source = plan.source;
        step_assigner::kind k = step_assigner::kind::repetition;
        if (source == "ProfilerStep") k = step_assigner::kind::profiler;
        else if (source == "CUDA graph launches") k = step_assigner::kind::graph;
        else if (source.empty()) k = plan.ranges.empty() ? step_assigner::kind::repetition : step_assigner::kind::annotations;
        step_assigner a(plan, k);
        std::map<long, std::vector<std::size_t>> windows;
        for (std::size_t i = 0; i < s.t.events.size(); ++i) {
            const long w = a.window_of(s.t.events[i], i);
            if (w >= 0) windows[w].push_back(i);
        }
        CHECK(std::string(step_source_name(k)) == st.detection.source);
        REQUIRE(windows.size() == st.windows.size());
        std::size_t j = 0;
        for (const auto& [w, idx] : windows) {
            CHECK(a.name(std::size_t(w)) == st.windows[j].name);
            CHECK(idx == st.windows[j].idx);
            ++j;
        }
    };
    SUBCASE("graph replays, and piecewise graphs by their period") {
        synthetic s;
        double at = 0;
        std::int64_t corr = 1;
        for (int step = 0; step < 4; ++step) {
            s.add("qkv_gemm", at, 1e-4, corr, "cudaGraphLaunch"), at += 1e-4;
            s.add("rope", at, 1e-4, corr++, "cudaGraphLaunch"), at += 1e-4;
            s.add("flash_attn_eager", at, 1e-4, corr++, "cudaLaunchKernel"), at += 1e-4;
            for (const char* k : {"o_proj", "mlp_up", "mlp_down"}) s.add(k, at, 1e-4, corr, "cudaGraphLaunch"), at += 1e-4;
            ++corr;
        }
        check_same(s);
    }
    SUBCASE("a repeating sequence") {
        synthetic s;
        double at = 0;
        for (int r = 0; r < 5; ++r)
            for (const char* k : {"embed", "qkv", "attn", "o", "up", "down", "norm"}) s.add(k, at, 1e-4), at += 2e-4;
        check_same(s);
    }
    SUBCASE("GPU annotations") {
        synthetic s;
        for (int i = 0; i < 8; ++i) s.add("k", i * 1e-3, 1e-4);
        const auto pool = s.t.strings;
        s.t.annotations.push_back({pool->intern("decode"), 0, 2.9e-3, true, 0});
        s.t.annotations.push_back({pool->intern("inner"), 0.5e-3, 0.2e-3, true, 0});
        s.t.annotations.push_back({pool->intern("prefill"), 2.5e-3, 3.0e-3, true, 0});  // overlaps the first
        s.t.annotations.push_back({pool->intern("decode"), 7e-3, 0.5e-3, true, 0});
        check_same(s);
    }
}
