// Tests of analysis/trace_analysis.hpp: the verdicts on this project's five H200 recordings
// (data/samples/h200/*, each README states the expected verdict), exposed versus overlapped
// communication on a synthetic two-stream timeline, and --model pricing of a trace without shapes.
// And of analysis/trace_stream.hpp: the streamed analysis against the whole-trace one.
#include "roofline/analysis/trace_analysis.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "io/io_test_support.hpp"
#include "roofline/analysis/trace_stream.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
struct recording {
    kernel_trace trace;
    power_log power;
};
std::optional<recording> load(const std::string& name) {
    const auto dir = test::repo_data("samples/h200/" + name);
    if (!test::have_sample(dir / "trace.json.gz") || !test::have_sample(dir / "nvidia_smi.csv.gz"))
        return std::nullopt;
    return recording{read_kineto((dir / "trace.json.gz").string()),
                     read_nvidia_smi_csv((dir / "nvidia_smi.csv.gz").string())};
}
trace_analysis analyze(const recording& r) {
    trace_analysis_options o;
    o.power = &r.power;
    return analyze_trace(r.trace, gpu_catalog::builtin(), o);
}
const analysis_row& phase(const trace_analysis& a, kernel_phase p) {
    for (const auto& r : a.phases)
        if (r.phase == p) return r;
    FAIL("phase not found: " << to_string(p));
    return a.phases.front();
}
}  // namespace

TEST_CASE("gemm_power: a 16384^3 bf16 GEMM held at the 700 W cap is power-bound") {
    const auto r = load("gemm_power");
    if (!r) return;
    const auto a = analyze(*r);
    CHECK(a.gpu.id == "h200-sxm");
    REQUIRE(a.window.result);
    CHECK(a.window.result->what == bound::power);
    const auto& g = phase(a, kernel_phase::gemm);
    REQUIRE(g.result);
    CHECK(g.result->what == bound::power);
    // 12 linked GEMMs of 8.796 TFLOP in ~12.5 ms each: ~700 TFLOP/s = ~71% of 989 TFLOP/s.
    CHECK(g.utilization.compute == approx(0.71).epsilon(0.05));
    // At the held clock (median 1425 of 1830 MHz the peak assumes) the same work is ~91% of the
    // derated ceiling.
    REQUIRE(g.compute_at_clock);
    CHECK(*g.compute_at_clock == approx(0.71 * 1830.0 / 1425.0).epsilon(0.05));
    REQUIRE(a.power);
    CHECK(a.power->source == "busy period");
    CHECK(a.power->assumed);  // 3.3 s before the window, its state seen next to the window
    CHECK(*a.power->evidence.fraction_of_limit >= 0.9);
    CHECK(*a.power->evidence.power_cap_active_fraction >= 0.9);
    CHECK(*a.power->evidence.clock_fraction_of_max <= 0.9);
    CHECK(a.power->alignment.offset_s == 0.0);
    CHECK(a.power->gpu_index == 0);
}

TEST_CASE("elementwise: a 2^30-element bf16 add streams at ~91% of DRAM bandwidth: memory-bound") {
    const auto r = load("elementwise");
    if (!r) return;
    const auto a = analyze(*r);
    REQUIRE(a.window.result);
    CHECK(a.window.result->what == bound::memory);
    const auto& e = phase(a, kernel_phase::elementwise);
    // 6.44 GB per 1.47 ms = 4.38 TB/s = 91% of 4.8 TB/s (the README's measured throughput).
    CHECK(e.utilization.memory == approx(0.91).epsilon(0.03));
    CHECK(e.utilization.compute < 0.02);
    // The window's own samples (the far busy period, at 94% of the limit without a cap reason, is
    // refused): no cap reason, not power-bound.
    CHECK(*a.power->evidence.power_cap_active_fraction == 0.0);
}

TEST_CASE("decode_attention: memory-bound, the far busy period where the cap was touched is not borrowed") {
    const auto r = load("decode_attention");
    if (!r) return;
    const auto a = analyze(*r);
    REQUIRE(a.window.result);
    CHECK(a.window.result->what == bound::memory);
    const auto& at = phase(a, kernel_phase::attention);
    // 2.1485 GB per ~0.48 ms: ~93% of 4.8 TB/s; 8.6 GFLOP: ~2% of 989 TFLOP/s.
    CHECK(at.utilization.memory == approx(0.93).epsilon(0.03));
    CHECK(at.utilization.compute < 0.05);
    // The log does not see the 28-ms window (its samples: idle, full clock, no cap); the 8.4-s
    // run 3.5 s earlier, where the cap was touched, is farther than the window + 3 sample periods
    // and the log next to the window shows no activity: refused, so no "cap touched" note.
    REQUIRE(a.power);
    CHECK(a.power->source == "trace window");
    CHECK(a.power->refused);
    CHECK(a.power->busy_gap_s == approx(3.47).epsilon(0.02));
    CHECK(*a.power->evidence.power_cap_active_fraction == 0.0);
    CHECK(*a.power->evidence.clock_fraction_of_max == 1.0);
    bool noted = false;
    for (const auto& n : a.window.result->notes)
        noted = noted || n.find("power cap was touched") != std::string::npos;
    CHECK_FALSE(noted);
}

TEST_CASE("tiny_kernels: a Python loop of 1024-element kernels is latency-bound (the GPU idles)") {
    const auto r = load("tiny_kernels");
    if (!r) return;
    const auto a = analyze(*r);
    REQUIRE(a.window.result);
    CHECK(a.window.result->what == bound::latency);
    // 1000 kernels of ~0.86 us in a 13.2 ms window: busy 6.5%.
    CHECK(a.busy_fraction == approx(0.065).epsilon(0.1));
    CHECK(a.window.result->reason.find("idle 93%") != std::string::npos);
    CHECK(a.idle_gaps == 999);
    const auto& e = phase(a, kernel_phase::elementwise);
    REQUIRE(e.result);
    CHECK(e.result->what == bound::latency);
    CHECK(e.result->reason.find("block on 132 SMs") != std::string::npos);
    CHECK(a.steps.size() == 5);
}

TEST_CASE("allreduce_2gpu: exposed 256 MiB all-reduces make the step communication-bound") {
    const auto r = load("allreduce_2gpu");
    if (!r) return;
    const auto a = analyze(*r);
    REQUIRE(a.window.result);
    CHECK(a.window.result->what == bound::communication);
    // The collective runs on the GEMM's stream: nothing overlaps it; 4.42 of 4.66 ms.
    CHECK(a.overlapped_communication_s == 0.0);
    CHECK(a.exposed_communication_s / (a.window_end_s - a.window_start_s) ==
          approx(0.95).epsilon(0.02));
    const auto& c = phase(a, kernel_phase::communication);
    REQUIRE(c.busbw_bytes_per_s);
    // busbw = 268,435,456 B / ~884 us x 2 (n-1)/n = ~304 GB/s (the README's sweep: 302 GB/s).
    CHECK(*c.busbw_bytes_per_s == approx(304e9).epsilon(0.02));
    // Ring over 2 ranks moves 268 MB per direction at 450 GB/s: ~0.6 ms of ~0.884 ms = ~67%.
    CHECK(c.utilization.communication == approx(0.67).epsilon(0.03));
    CHECK(a.window.result->reason.find("exposed collectives take 95%") != std::string::npos);
    bool polling = false;
    for (const auto& n : a.window.result->notes)
        polling = polling || n.find("polling") != std::string::npos;
    CHECK(polling);  // ~94% utilization.gpu at ~310 W
}

namespace {
// An empty synthetic Kineto trace of one H200 (device 0).
kernel_trace h200_trace() {
    kernel_trace t;
    t.file = "synthetic";
    t.format = "kineto";
    device_properties d;
    d.id = 0;
    d.name = "NVIDIA H200";
    t.devices.push_back(d);
    return t;
}

// A synthetic trace on an H200: compute kernels on stream 7, collectives on stream 8.
kernel_trace two_streams(double comm_start_s) {
    kernel_trace t = h200_trace();
    auto add = [&](std::string_view name, kernel_phase p, std::int64_t stream, double start,
                   double dur) {
        kernel_event e;
        e.name = t.strings->intern(name);
        e.phase = p;
        e.device = 0;
        e.stream = stream;
        e.start_s = start;
        e.duration_s = dur;
        t.events.push_back(e);
    };
    add("nvjet_sm90_gemm", kernel_phase::gemm, 7, 0.0, 10e-3);  // [0, 10) ms
    add("ncclDevKernel_AllReduce", kernel_phase::communication, 8, comm_start_s, 4e-3);
    return t;
}
}  // namespace

TEST_CASE("collectives overlapped by compute on another stream are not exposed") {
    // Collective [8, 12) ms against compute [0, 10) ms: 2 ms overlapped, 2 ms exposed.
    const auto a = analyze_trace(two_streams(8e-3), gpu_catalog::builtin());
    CHECK(a.communication_s == approx(4e-3));
    CHECK(a.exposed_communication_s == approx(2e-3));
    CHECK(a.overlapped_communication_s == approx(2e-3));
    CHECK(a.streams == 2);
    CHECK(a.concurrency == approx(14.0 / 12.0));  // 14 ms of kernels in 12 ms busy
    // Fully hidden inside the GEMM: nothing exposed.
    const auto hidden = analyze_trace(two_streams(2e-3), gpu_catalog::builtin());
    CHECK(hidden.exposed_communication_s == approx(0.0));
}

TEST_CASE("host copies are priced over PCIe and device copies in DRAM, whichever tool named them") {
    // 64 MiB each way. Host-to-device moves the bytes once over the link; device-to-device reads
    // and writes them in DRAM (2 x 64 MiB). Kineto says "Memcpy HtoD", nsys "[CUDA memcpy
    // Host-to-Device]": the same pricing either way.
    const double bytes = 64.0 * (1 << 20);
    for (const char* format : {"kineto", "nsys-cuda-gpu-trace"}) {
        const bool nsys = std::string(format) != "kineto";
        kernel_trace t = h200_trace();
        t.format = format;
        auto add = [&](std::string_view name, double start) {
            kernel_event e;
            e.name = t.strings->intern(name);
            e.activity = gpu_activity::memcpy;
            e.phase = kernel_phase::memcpy;
            e.device = 0;
            e.stream = 7;
            e.start_s = start;
            e.duration_s = 1e-3;
            e.bytes = bytes;
            t.events.push_back(e);
        };
        add(nsys ? "[CUDA memcpy Host-to-Device]" : "Memcpy HtoD (Pinned -> Device)", 0.0);
        add(nsys ? "[CUDA memcpy Device-to-Device]" : "Memcpy DtoD (Device -> Device)", 2e-3);
        const auto a = analyze_trace(t, gpu_catalog::builtin());
        const gpu_spec& h200 = gpu_catalog::builtin().at("h200-sxm");
        REQUIRE(a.kernels.size() == 2);
        for (const auto& k : a.kernels) {
            CAPTURE(k.name);
            const bool host = k.name.find("Host-to-Device") != std::string::npos || k.name.find("HtoD") != std::string::npos;
            if (host) {
                CHECK(k.example == "host copy of 67.1 MB over PCIe");
                CHECK(k.sol.link_s == approx(bytes / link_bandwidth_bytes_per_s(h200, link_kind::pcie)));
            } else {
                CHECK(k.example == "device copy of 67.1 MB");
                CHECK(k.sol.memory_s == approx(2 * bytes / *h200.memory_bandwidth_bytes_per_s.value));
            }
        }
        // Without shapes, the note names what each tool can give instead.
        CHECK((a.notes.empty() || a.notes.front().find(nsys ? "nsys records no shapes" : "record_shapes") != std::string::npos));
    }
}

TEST_CASE("--model prices kernels without shapes by phase, times the steps") {
    const auto cfg = test::repo_data("samples/h200-serving/config.json");
    if (!test::have_sample(cfg)) return;
    const model_config m = read_hf_config(cfg.string());
    // One decode step of 256 sequences at context 1281 on one H200, as CUDA-graph kernels
    // without ops: one kernel per phase.
    kernel_trace t;
    t.file = "graph";
    device_properties d;
    d.id = 0;
    d.name = "NVIDIA H200";
    t.devices.push_back(d);
    const std::pair<kernel_phase, double> kernels[] = {{kernel_phase::moe_gemm, 16e-3},
                                                       {kernel_phase::attention, 13e-3},
                                                       {kernel_phase::gemm, 3e-3},
                                                       {kernel_phase::elementwise, 4e-3}};
    double at = 0;
    for (const auto& [p, dur] : kernels) {
        kernel_event e;
        e.name = t.strings->intern(std::string(to_string(p)) + "_kernel");
        e.phase = p;
        e.device = 0;
        e.stream = 7;
        e.start_s = at;
        e.duration_s = dur;
        e.launch_api = "cudaGraphLaunch";
        t.events.push_back(e);
        at += dur;
    }
    trace_analysis_options o;
    o.model = &m;
    o.batch = step_batch::decode(256, 1281);
    o.steps = 1;
    const auto a = analyze_trace(t, gpu_catalog::builtin(), o);
    CHECK(a.priced_share == approx(1.0));
    CHECK(a.tokens == 256);
    const auto sm = model_step(m, *o.batch, o.layout, gpus::h200_sxm());
    const auto& moe = phase(a, kernel_phase::moe_gemm);
    CHECK(moe.work.dram_bytes() == approx(sm.total(step_phase::moe_gemm).dram_bytes()));
    CHECK(moe.pricing == "model");
    const auto& att = phase(a, kernel_phase::attention);
    CHECK(att.work.total_flops() == approx(sm.total(step_phase::attention).total_flops()));
    // Every expert's weights are read (256 x 4 routed tokens over 64 experts): tens of GB in 16 ms.
    CHECK(moe.utilization.memory > 0.3);
}

TEST_CASE("a trace without GPU activity is a usage error, one without device properties is analysed") {
    kernel_trace t;
    t.file = "empty";
    CHECK_THROWS_AS(analyze_trace(t, gpu_catalog::builtin()), usage_error);
    auto s = two_streams(0);
    s.devices.clear();
    // "nvjet_sm90_gemm" names Hopper: h100-sxm is assumed, and said.
    const auto by_kernels = analyze_trace(s, gpu_catalog::builtin());
    CHECK(by_kernels.gpu.id == "h100-sxm");
    CHECK(by_kernels.gpu.assumed);
    CHECK(by_kernels.gpu.reason.find("1 of 2 kernel names carry sm90") != std::string::npos);
    // Without an architecture in any name: the timeline is analysed, no roof is priced, and a
    // warning names the flag that fills them.
    kernel_trace plain = two_streams(8e-3);
    plain.devices.clear();
    for (auto& e : plain.events) e.name = plain.strings->intern("my_kernel");
    const auto u = analyze_trace(plain, gpu_catalog::builtin());
    CHECK(u.gpu.id.empty());
    CHECK(u.summary.kernel_count == 2);
    bool warned = false;
    for (const auto& w : u.warnings) warned = warned || w.find("pass --gpu ID") != std::string::npos;
    CHECK(warned);
    // ... and no verdict: with no ceiling known, no roof can be called near or far.
    CHECK(!u.window.result);
    CHECK(u.window.unknown_reason.find("the GPU is not known") != std::string::npos);
    trace_analysis_options o;
    o.gpu_id = "b200";
    CHECK(analyze_trace(s, gpu_catalog::builtin(), o).gpu.id == "b200");
}

TEST_CASE("a kernel measured above a roof its tensors cannot explain gets no bound, and says why") {
    // A device copy of 1 GiB "in" 100 us: 2 GiB of DRAM traffic at 21.5 TB/s, 4.5x the H200's
    // 4.8 TB/s, and 1 GiB is far above its 50 MB L2. The kernel row is unknown ("inconsistent"),
    // not memory-bound; a 64 MiB copy in 30 us (4.47 TB/s, 93% of DRAM) stays memory-bound.
    kernel_trace t = h200_trace();
    auto add = [&](std::string_view name, double start, double dur, double bytes) {
        kernel_event e;
        e.name = t.strings->intern(name);
        e.activity = gpu_activity::memcpy;
        e.phase = kernel_phase::memcpy;
        e.device = 0;
        e.stream = 7;
        e.start_s = start;
        e.duration_s = dur;
        e.bytes = bytes;
        t.events.push_back(e);
    };
    add("Memcpy DtoD (Device -> Device) big", 0.0, 100e-6, 1024.0 * (1 << 20));
    add("Memcpy DtoD (Device -> Device) ok", 1e-3, 30e-6, 64.0 * (1 << 20));
    const auto a = analyze_trace(t, gpu_catalog::builtin());
    REQUIRE(a.kernels.size() == 2);
    for (const auto& k : a.kernels) {
        CAPTURE(k.name);
        if (k.name.find("big") != std::string::npos) {
            CHECK_FALSE(k.result.has_value());
            CHECK(k.utilization.memory == approx(2.0 * 1024 * (1 << 20) / 100e-6 / 4.8e12).epsilon(0.01));
            CHECK(k.unknown_reason.find("inconsistent: DRAM at 447% of its bandwidth: above the roof") == 0);
        } else {
            REQUIRE(k.result.has_value());
            CHECK(k.result->what == bound::memory);
        }
    }
}

// ---- analysis/trace_stream.hpp ----

namespace {
/// Medians of a row: equal while the row has at most 256 distinct values, else within 0.55%.
void check_median(double whole, double streamed) {
    if (std::isnan(whole)) {
        CHECK(std::isnan(streamed));
        return;
    }
    CHECK(streamed == approx(whole).epsilon(0.0055));
}
void check_same_row(const analysis_row& w, const analysis_row& s) {
    CAPTURE(w.name);
    CHECK(s.name == w.name);
    CHECK(s.count == w.count);
    CHECK(s.total_s == approx(w.total_s).epsilon(1e-12));
    CHECK(s.priced_s == approx(w.priced_s).epsilon(1e-12));
    CHECK(s.work.total_flops() == approx(w.work.total_flops()).epsilon(1e-12));
    CHECK(s.work.dram_bytes() == approx(w.work.dram_bytes()).epsilon(1e-12));
    CHECK(s.sol.lower_bound_s == approx(w.sol.lower_bound_s).epsilon(1e-12));
    CHECK(s.busy_s == approx(w.busy_s).epsilon(1e-12));
    CHECK(s.span_s == approx(w.span_s).epsilon(1e-12));
    CHECK(s.pricing == w.pricing);
    CHECK(s.bound_with_roof() == w.bound_with_roof());
    CHECK((s.result ? s.result->reason : s.unknown_reason) == (w.result ? w.result->reason : w.unknown_reason));
    CHECK(s.notes == w.notes);
    CHECK(s.example == w.example);
    if (std::isnan(w.exposed_s)) CHECK(std::isnan(s.exposed_s));
    else CHECK(s.exposed_s == approx(w.exposed_s).epsilon(1e-12));
    CHECK(s.power.has_value() == w.power.has_value());
    if (w.energy_j) CHECK(*s.energy_j == approx(*w.energy_j).epsilon(1e-12));
    check_median(w.latency.median_kernel_s, s.latency.median_kernel_s);
    check_median(w.latency.median_grid_blocks, s.latency.median_grid_blocks);
}
/// The streamed analysis equals the whole one (sums to rounding, medians as stated).
void check_same_analysis(const trace_analysis& w, const trace_analysis& s) {
    check_same_row(w.window, s.window);
    for (std::size_t k = 0; k < w.time_by_bound.size(); ++k)
        CHECK(s.time_by_bound[k] == approx(w.time_by_bound[k]).epsilon(1e-12));
    CHECK(s.priced_share == approx(w.priced_share).epsilon(1e-12));
    CHECK(s.busy_fraction == approx(w.busy_fraction).epsilon(1e-12));
    CHECK(s.idle_gaps == w.idle_gaps);
    check_median(w.median_gap_s, s.median_gap_s);
    CHECK(s.exposed_communication_s == approx(w.exposed_communication_s).epsilon(1e-12));
    CHECK(s.streams == w.streams);
    CHECK(s.step_info.source == w.step_info.source);
    CHECK(s.step_info.count == w.step_info.count);
    CHECK(s.step_info.note == w.step_info.note);
    CHECK(s.tokens == w.tokens);
    CHECK(s.sibling_priced == w.sibling_priced);
    CHECK(s.ncu_matched == w.ncu_matched);
    CHECK(s.warnings == w.warnings);
    auto notes = s.notes;  // the streamed analysis says so last
    REQUIRE_FALSE(notes.empty());
    CHECK(notes.back().rfind("read as a stream", 0) == 0);
    notes.pop_back();
    CHECK(notes == w.notes);
    CHECK(s.power.has_value() == w.power.has_value());
    if (w.power) {
        CHECK(s.power->source == w.power->source);
        CHECK(s.power->evidence.samples == w.power->evidence.samples);
    }
    using rows = std::vector<analysis_row> trace_analysis::*;
    for (const rows r : {&trace_analysis::phases, &trace_analysis::kernels, &trace_analysis::ops}) {
        REQUIRE((s.*r).size() == (w.*r).size());
        for (std::size_t i = 0; i < (w.*r).size(); ++i) check_same_row((w.*r)[i], (s.*r)[i]);
    }
    REQUIRE(s.steps.size() == w.steps.size());
    auto step = s.steps.begin();
    for (const auto& row : w.steps) {
        check_same_row(row, *step);
        CHECK(step->share == approx(row.share).epsilon(1e-12));
        ++step;
    }
}

/// Small segments, and step rows past the second written to a temporary file.
trace_stream_options small_segments(std::size_t events = 64) {
    trace_stream_options o;
    o.segment_events = events;
    o.step_rows_in_memory = 2;
    return o;
}
}  // namespace

TEST_CASE("a trace analysed as a stream gives the whole-trace analysis: every step source, power, --model, ncu") {
    const auto catalog = gpu_catalog::builtin();
    struct run {
        std::string trace, power, model, ncu;
        double batch = 0, context = 0;
        run(std::string t, std::string p = "", std::string m = "", std::string n = "", double b = 0, double c = 0)
            : trace(std::move(t)), power(std::move(p)), model(std::move(m)), ncu(std::move(n)), batch(b), context(c) {}
    };
    const std::string h200 = test::repo_data("samples/h200/").string(), stacks = test::repo_data("samples/h200-stacks/").string();
    const std::vector<run> runs = {
        {h200 + "gemm_power/trace.json.gz", h200 + "gemm_power/nvidia_smi.csv.gz"},  // ProfilerStep, busy-period power
        {h200 + "tiny_kernels/trace.json.gz", h200 + "tiny_kernels/nvidia_smi.csv.gz"},  // 1,000 kernels, window power
        {h200 + "allreduce_2gpu/trace.json.gz", h200 + "allreduce_2gpu/nvidia_smi.csv.gz"},  // exposed collectives
        {stacks + "graph_decode_b8/trace.json.gz", "", stacks + "graph_decode_b8/config.json", "", 8, 2048},  // graphs, --model
        {stacks + "piecewise_decode/trace.json.gz"},                       // piecewise graphs
        {stacks + "overlap_streams/trace.json.gz", stacks + "overlap_streams/nvidia_smi.csv.gz"},  // one step, two streams
        {stacks + "graph_decode_b8/trace.json.gz", "", "", stacks + "ncu-graph_decode_b128/ncu_raw.csv.gz"},  // ncu of another run
        {test::repo_data("samples/h200-serving/trace.json.gz").string()},  // GPU annotations
        {test::shared_sample("kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz").string()},  // External ids, NCCL
        {test::shared_sample("h200/h200x2_tp_mlp_allreduce_rank0.trace.json.gz").string()},  // a repeating sequence
        {test::shared_sample("kineto/deepseek_v3_train_ep64_h800.trace.json").string()},  // old style, siblings
    };
    for (const auto& r : runs) {
        if (!test::have_sample(r.trace)) continue;
        CAPTURE(r.trace);
        trace_analysis_options o;
        std::optional<power_log> power;
        std::optional<model_config> model;
        std::optional<ncu_report> ncu;
        if (!r.power.empty()) power = read_nvidia_smi_csv(r.power), o.power = &*power;
        if (!r.model.empty()) {
            model = read_hf_config(r.model);
            o.model = &*model;
            o.batch = step_batch::decode(r.batch, r.context);
        }
        if (!r.ncu.empty()) ncu = read_ncu_csv(r.ncu), o.ncu = &*ncu;
        const auto whole = analyze_trace(read_kineto(r.trace), catalog, o);
        const auto streamed = analyze_kineto_stream(r.trace, catalog, o, {}, small_segments());
        check_same_analysis(whole, streamed);
    }
}

TEST_CASE("a mid-size trace in the profiler's layout, streamed through small windows and segments, "
          "gives the whole-trace analysis") {
    // The B200 sample three times over, each copy later in time with fresh ids, written as a long
    // profile is: every copy's CPU events, then every GPU section, then the flows (what
    // examples/bench/replicate_trace.py --layout real writes); its python_function events, which
    // no reader parses past their category, left out to keep the test fast.
    const auto src = test::shared_sample("kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz");
    if (!test::have_sample(src)) return;
    auto d = nlohmann::json::parse(io::read_all(src.string()));
    const auto events = std::move(d["traceEvents"]);
    d.erase("traceEvents");
    double lo = 1e300, hi = -1e300;
    for (const auto& e : events)
        if (e.contains("ts") && e["ts"].is_number()) lo = std::min(lo, e["ts"].get<double>()), hi = std::max(hi, e["ts"].get<double>());
    const auto section = [](const nlohmann::json& e) {
        const std::string ph = e.value("ph", ""), cat = e.value("cat", "");
        if (ph == "s" || ph == "f") return 2;
        for (const char* g : {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "gpu_user_annotation", "overhead"})
            if (cat == g) return 1;
        return 0;
    };
    nlohmann::json out = d;
    out["traceEvents"] = nlohmann::json::array();
    std::array<std::vector<const nlohmann::json*>, 3> parts;
    for (const auto& e : events)
        if (e.value("cat", "") != "python_function") parts[static_cast<std::size_t>(section(e))].push_back(&e);
    for (int part = 0; part < 3; ++part)
        for (int copy = 0; copy < 3; ++copy)
            for (const auto* ep : parts[static_cast<std::size_t>(part)]) {
                auto e = *ep;
                if (e.contains("ts") && e["ts"].is_number()) e["ts"] = e["ts"].get<double>() + copy * (hi - lo + 1000.0);
                if (e.contains("args") && e["args"].is_object())
                    for (const char* k : {"correlation", "External id"})
                        if (e["args"].contains(k) && e["args"][k].is_number_integer())
                            e["args"][k] = e["args"][k].get<std::int64_t>() + copy * 10000000;
                out["traceEvents"].push_back(e);
            }
    const test::temp_file f(out.dump(), ".json");
    const auto catalog = gpu_catalog::builtin();
    const auto whole = analyze_trace(read_kineto(f.path()), catalog, {});
    trace_stream_options so = small_segments(512);
    so.windows = {256, 256, 256};
    so.retries = 0;  // windows of 256 events hold this layout
    const auto streamed = analyze_kineto_stream(f.path(), catalog, {}, {}, so);
    check_same_analysis(whole, streamed);
    CHECK(whole.summary.kernel_count == 3 * 768);  // the window holds every copy
    CHECK(whole.steps.size() == 3);                // each copy's GPU annotation range
}

TEST_CASE("analyze_kineto_file reads whole within the budget, as a stream past it, and whole again, saying "
          "so, when the layout defeats the streaming reader") {
    const auto p = test::shared_sample("kineto/deepseek_v3_train_ep64_h800.trace.json");
    if (!test::have_sample(p)) return;
    const auto catalog = gpu_catalog::builtin();
    trace_reading how{};
    const auto whole = analyze_kineto_file(p.string(), catalog, {}, {}, default_whole_trace_table_bytes, {}, &how);
    CHECK(how == trace_reading::whole);
    const auto streamed = analyze_kineto_file(p.string(), catalog, {}, {}, 64 << 10, small_segments(), &how);
    CHECK(how == trace_reading::stream);
    check_same_analysis(whole, streamed);
    // Its GPU section is out of start order by up to 106 events: windows of 8, never widened,
    // cannot follow it.
    trace_stream_options narrow = small_segments();
    narrow.windows = {8, 8, 8};
    narrow.retries = 0;
    CHECK_THROWS_AS(analyze_kineto_stream(p.string(), catalog, {}, {}, narrow), kineto_layout_error);
    const auto fallback = analyze_kineto_file(p.string(), catalog, {}, {}, 64 << 10, narrow, &how);
    CHECK(how == trace_reading::whole_after_stream);
    CHECK(fallback.notes.back().find("read whole, in memory that grows with the trace: the streaming reader cannot "
                                     "follow this file's layout") == 0);
    CHECK(fallback.window.bound_name() == whole.window.bound_name());
}
