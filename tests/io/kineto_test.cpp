// Tests of io/kineto.hpp (and io/detail/chrome_trace_scan.hpp) on the real Kineto traces in
// ../shared/samples and on small broken traces written here. Expected counts come from an
// independent python3 json script (brute-force containment), run on the same files.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "io/io_test_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/kineto_stream.hpp"
#include "roofline/trace/summary.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

namespace {

const kernel_rules& builtin_rules() {
    static const kernel_rules rules = load_kernel_rules();
    return rules;
}

kernel_trace read(const std::string& rel) {
    kineto_options o;
    o.rules = &builtin_rules();
    return read_kineto(test::shared_sample(rel).string(), o);
}

/// Share of kernel time (kernels only) that got a phase other than "other".
double classified_share(const kernel_trace& t) {
    double all = 0, known = 0;
    for (const auto& e : t.events) {
        if (e.activity != gpu_activity::kernel) continue;
        all += e.duration_s;
        if (e.phase != kernel_phase::other) known += e.duration_s;
    }
    return known / all;
}

std::size_t count(const kernel_trace& t, gpu_activity a) {
    std::size_t n = 0;
    for (const auto& e : t.events) n += e.activity == a;
    return n;
}

const kernel_event* first_kernel_containing(const kernel_trace& t, std::string_view part) {
    for (const auto& e : t.events)
        if (e.name.find(part) != std::string_view::npos) return &e;
    return nullptr;
}

}  // namespace

TEST_CASE("B200 vLLM trace: counts, External-id links, shapes, devices, NCCL metadata") {
    const std::string rel = "kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz";
    if (!test::have_sample(test::shared_sample(rel))) return;
    const auto t = read(rel);
    // python: 24656 events; 768 kernels + 161 memcpy; 4809 cpu_op, 15230 python_function.
    CHECK(t.stats.events_read == 24656);
    CHECK(t.stats.events_kept == 929);
    CHECK(t.stats.events_skipped == 0);
    CHECK(count(t, gpu_activity::kernel) == 768);
    CHECK(count(t, gpu_activity::memcpy) == 161);
    CHECK(t.category_count("cpu_op") == 4809);
    CHECK(t.category_count("python_function") == 15230);
    CHECK(t.busy_s(gpu_activity::kernel) == approx(0.010862916).epsilon(1e-9));
    // Links: every GPU event has its launch; 927 link through External id (the op agrees with
    // the innermost containing op in all 927), 2 kernels launch outside any op.
    CHECK(t.links.with_runtime == 929);
    CHECK(t.links.by_external_id == 927);
    CHECK(t.links.by_containment == 0);
    CHECK(t.links.unlinked == 2);
    std::size_t kernel_ext = 0;
    for (const auto& e : t.events) kernel_ext += e.activity == gpu_activity::kernel && e.link == launch_link::external_id;
    CHECK(kernel_ext == 766);  // FORMATS.md: 766/768
    // The MXFP4 MoE GEMM: launched by cuLaunchKernelEx inside vllm::moe_forward on 888 tokens.
    const auto* k = first_kernel_containing(t, "bmm_MxE4m3_MxE2m1");
    REQUIRE(k != nullptr);
    CHECK(k->phase == kernel_phase::moe_gemm);
    CHECK(k->launch_api == "cuLaunchKernelEx");
    REQUIRE(t.op_of(*k) != nullptr);
    CHECK(t.op_of(*k)->name == "vllm::moe_forward");
    CHECK(t.op_of(*k)->input_dims == "[[888,3072],[888,128],[]]");
    CHECK(t.op_of(*k)->input_types == R"(["c10::BFloat16","c10::BFloat16",""])");
    const auto dims = parse_input_dims(t.op_of(*k)->input_dims);
    REQUIRE(dims.has_value());
    CHECK((*dims)[0] == std::vector<std::int64_t>{888, 3072});
    CHECK(k->grid == std::array<std::uint32_t, 3>{8, 342, 1});
    CHECK(k->block == std::array<std::uint32_t, 3>{576, 1, 1});
    CHECK(k->registers_per_thread == 96);
    CHECK(k->shared_memory_bytes == 121312.0);
    CHECK(k->duration_s == approx(102.304e-6));
    // New-style time: relative to baseTimeNanoseconds; origin = earliest kept event.
    CHECK(t.relative_timestamps);
    CHECK(t.base_time_ns == std::optional<std::int64_t>(1767189312000000000));
    CHECK(t.time_origin_us == approx(1365627862757.064));
    // deviceProperties and distributedInfo.
    REQUIRE(t.devices.size() == 8);
    CHECK(t.devices[0].name == "NVIDIA B200");
    CHECK(t.devices[0].num_sms == 148);
    CHECK(t.devices[0].compute_major == 10);
    CHECK(t.devices[0].total_global_mem_bytes == 191503138816.0);
    CHECK(t.devices[0].shared_mem_per_block_optin_bytes == 232448.0);
    REQUIRE(t.distributed.has_value());
    CHECK(t.distributed->world_size == 8);
    CHECK(t.distributed->groups.size() == 15);
    // The one NCCL all-gather with its collective metadata.
    const auto* ag = first_kernel_containing(t, "ncclDevKernel_AllGather");
    REQUIRE(ag != nullptr);
    CHECK(ag->phase == kernel_phase::communication);
    REQUIRE(ag->collective >= 0);
    const auto& ci = t.collectives[static_cast<std::size_t>(ag->collective)];
    CHECK(ci.name == "_allgather_base");
    CHECK(ci.in_msg_nelems == 25136.0);
    CHECK(ci.out_msg_nelems == 201088.0);
    CHECK(ci.group_size == 8);
    CHECK(ci.in_msg_bytes() == 50272.0);  // 25136 x 2 B (BFloat16)
    CHECK(classified_share(t) >= 0.95);
}

TEST_CASE("DeepSeek-V3 trace (old style): integer epoch us, External id useless, containment links") {
    const std::string rel = "kineto/deepseek_v3_train_ep64_h800.trace.json";
    if (!test::have_sample(test::shared_sample(rel))) return;
    const auto t = read(rel);
    CHECK(t.stats.events_read == 14240);
    CHECK(count(t, gpu_activity::kernel) == 963);
    CHECK(count(t, gpu_activity::memcpy) == 8);
    CHECK(count(t, gpu_activity::memset) == 12);
    CHECK(t.busy_s(gpu_activity::kernel) == approx(0.244041).epsilon(1e-9));
    CHECK(t.category_count("cpu_op") == 4387);
    // Kernel External id == its own correlation and matches no cpu_op (FORMATS.md: 0/963).
    CHECK(t.links.external_id_matches == 0);
    CHECK(t.links.by_external_id == 0);
    // python brute force: 688 GPU events launched inside a cpu_op, 295 from the main thread
    // outside any op.
    CHECK(t.links.with_runtime == 983);
    CHECK(t.links.by_containment == 688);
    CHECK(t.links.unlinked == 295);
    const auto* fa = first_kernel_containing(t, "FlashAttnBwd<");
    REQUIRE(fa != nullptr);
    CHECK(fa->phase == kernel_phase::attention);
    REQUIRE(fa->op >= 0);
    CHECK(t.ops[static_cast<std::size_t>(fa->op)].name == "RopeLoraFlashAttnVarlenFuncBackward");
    CHECK(t.ops[static_cast<std::size_t>(fa->top_op)].name ==
          "autograd::engine::evaluate_function: RopeLoraFlashAttnVarlenFuncBackward");
    CHECK_FALSE(t.relative_timestamps);
    CHECK(t.time_origin_us == 1740461679470813.0);  // earliest kept event
    REQUIRE(t.devices.size() == 8);
    CHECK(t.devices[0].name == "NVIDIA H800");
    CHECK(t.devices[0].num_sms == 132);
    REQUIRE(t.distributed.has_value());
    CHECK(t.distributed->world_size == 64);
    CHECK(t.steps.size() == 1);
    CHECK(t.steps[0].number == 1);
    double last_end = 0;
    for (const auto& e : t.events) {
        CHECK(e.start_s >= 0);
        if (e.activity == gpu_activity::kernel) last_end = std::max(last_end, e.end_s());
    }
    CHECK(last_end == approx(0.129545).epsilon(1e-9));
    CHECK(classified_share(t) >= 0.95);
}

TEST_CASE("H100 Qwen trace: CUDA-graph-free kernels without launches, steps, memsets") {
    const std::string rel = "kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz";
    if (!test::have_sample(test::shared_sample(rel))) return;
    const auto t = read(rel);
    CHECK(t.stats.events_read == 18221);
    CHECK(count(t, gpu_activity::kernel) == 1465);
    CHECK(count(t, gpu_activity::memset) == 241);
    CHECK(count(t, gpu_activity::memcpy) == 1);
    CHECK(t.busy_s(gpu_activity::kernel) == approx(0.045432698).epsilon(1e-9));
    CHECK(t.links.with_runtime == 1198);
    CHECK(t.links.by_external_id == 1198);
    CHECK(t.links.unlinked == 509);  // launched before the CPU side of the window
    REQUIRE(t.steps.size() == 1);
    CHECK(t.steps[0].number == 6);
    std::size_t in_step = 0;
    for (const auto& e : t.events) in_step += e.step == 6;
    CHECK(in_step > 0);
    CHECK(classified_share(t) >= 0.95);
}

TEST_CASE("H200 traces recorded for this project: grouped GEMM shapes and the TP all-reduce") {
    const std::string moe = "h200/h200_moe_decode_step.trace.json.gz";
    const std::string tp = "h200/h200x2_tp_mlp_allreduce_rank0.trace.json.gz";
    if (!test::have_sample(test::shared_sample(moe)) || !test::have_sample(test::shared_sample(tp))) return;
    const auto m = read(moe);
    CHECK(m.stats.events_read == 1506);
    CHECK(count(m, gpu_activity::kernel) == 140);
    CHECK(count(m, gpu_activity::memcpy) == 20);
    CHECK(m.links.by_external_id == 160);
    CHECK(m.busy_s(gpu_activity::kernel) == approx(0.0032103).epsilon(1e-9));
    // The CUTLASS grouped-GEMM name stays mangled (neither __cxa_demangle nor c++filt 2.40
    // demangles it) and is still classified as MoE GEMM by its GroupProblemShape.
    const auto* g = first_kernel_containing(m, "GroupProblemShape");
    REQUIRE(g != nullptr);
    CHECK(g->name.substr(0, 12) == "_ZN7cutlass1");
    CHECK(g->phase == kernel_phase::moe_gemm);
    REQUIRE(m.op_of(*g) != nullptr);
    CHECK(m.op_of(*g)->name == "aten::_grouped_mm");
    CHECK(m.op_of(*g)->input_dims == "[[256,4096],[32,4096,3072],[32],[],[]]");
    CHECK(classified_share(m) >= 0.95);

    const auto r = read(tp);
    CHECK(count(r, gpu_activity::kernel) == 15);
    CHECK(count(r, gpu_activity::memset) == 6);
    CHECK(r.busy_s(gpu_activity::kernel) == approx(0.012878785).epsilon(1e-9));
    const auto* mm = first_kernel_containing(r, "nvjet_sm90_tst_320x128");
    REQUIRE(mm != nullptr);
    CHECK(r.op_of(*mm)->name == "aten::mm");
    CHECK(r.op_of(*mm)->input_dims == "[[4096,8192],[8192,28672]]");
    CHECK(r.ops[static_cast<std::size_t>(mm->top_op)].name == "aten::matmul");
    std::size_t allreduce = 0;
    for (const auto& e : r.events) {
        if (e.collective < 0) continue;
        ++allreduce;
        const auto& c = r.collectives[static_cast<std::size_t>(e.collective)];
        CHECK(c.name == "allreduce");
        CHECK(c.group_size == 2);
        CHECK(c.in_msg_bytes() == 67108864.0);  // 33,554,432 bf16 elements = 64 MiB
        CHECK(e.phase == kernel_phase::communication);
    }
    CHECK(allreduce == 3);
    REQUIRE(r.distributed.has_value());
    CHECK(r.distributed->nccl_version == "2.28.9");
    CHECK(classified_share(r) >= 0.95);
}

#ifdef ROOFLINE_HAVE_SIMDJSON
TEST_CASE("the simdjson and nlohmann event parsers read every sample identically") {
    for (const char* rel : {"kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz",
                            "kineto/deepseek_v3_train_ep64_h800.trace.json",
                            "kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz"}) {
        const auto p = test::shared_sample(rel);
        if (!test::have_sample(p)) continue;
        auto digest = [&](auto parser_tag) {
            using parser = decltype(parser_tag);
            std::string d;
            double sum = 0;
            io::detail::scan_chrome_trace<parser>(
                p.string(), [](std::string_view, std::string_view, std::uint64_t) {},
                [&](const io::detail::chrome_event& e, std::uint64_t, std::size_t) {
                    d += std::string(e.ph) + std::string(e.cat) + std::string(e.name) + e.input_dims +
                         e.input_types + std::string(e.collective_name) + ';';
                    sum += (std::isnan(e.ts) ? 0 : e.ts) + (std::isnan(e.dur) ? 0 : e.dur) +
                           static_cast<double>(e.correlation + e.external_id + e.pid + e.tid + e.grid[0] + e.block[0]);
                });
            return std::make_pair(d, sum);
        };
        const auto a = digest(io::detail::nlohmann_event_parser{});
        const auto b = digest(io::detail::simdjson_event_parser{});
        CHECK(a.first == b.first);
        CHECK(a.second == b.second);
    }
}
#endif

TEST_CASE("events parsed beside the reading thread arrive as the single-threaded scan delivers them") {
    // Digest of what a scan delivers, in order: every event's ph/cat and, for the categories
    // read_kineto uses, the fields it reads; indices must run 0, 1, 2, ...
    auto digest = [](const std::string& path, auto parser_tag, bool filter, int workers) {
        using parser = decltype(parser_tag);
        std::string d;
        double sum = 0;
        std::size_t next = 0;
        bool in_order = true;
        io::detail::scan_chrome_trace<parser>(
            path, [&](std::string_view key, std::string_view, std::uint64_t) { d += "top:" + std::string(key) + ';'; },
            [&](const io::detail::chrome_event& e, std::uint64_t, std::size_t index) {
                in_order = in_order && index == next++;
                d += std::string(e.is_object ? "o" : "-") + std::string(e.ph) + '/' + std::string(e.cat);
                if (io::detail::kineto_used_category(e.cat)) {
                    d += std::string(e.name) + e.input_dims + e.input_types + e.concrete_inputs + std::string(e.collective_name) +
                         std::string(e.pid_text) + std::string(e.meta_name);
                    sum += (std::isnan(e.ts) ? 0 : e.ts) + (std::isnan(e.dur) ? 0 : e.dur) +
                           static_cast<double>(e.correlation + e.external_id + e.pid + e.tid + e.grid[0] + e.block[2]);
                }
                d += ';';
            },
            filter ? &io::detail::kineto_used_category : nullptr, workers);
        CHECK(in_order);
        return std::make_pair(d, sum);
    };
    int samples = 0;
    for (const char* rel : {"kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz",
                            "kineto/deepseek_v3_train_ep64_h800.trace.json"}) {
        const auto p = test::shared_sample(rel);
        if (!test::have_sample(p)) continue;
        ++samples;
        CAPTURE(rel);
        // The portable parser, one thread, no category filter: the reference.
        const auto ref = digest(p.string(), io::detail::nlohmann_event_parser{}, false, 0);
        // Several batches (of at most 4,096 events) at least.
        CHECK(std::count(ref.first.begin(), ref.first.end(), ';') >
              3 * static_cast<std::ptrdiff_t>(io::detail::batched_event_scan<io::detail::nlohmann_event_parser>::batch_events));
        for (int workers : {1, 3}) {
            const auto n = digest(p.string(), io::detail::nlohmann_event_parser{}, false, workers);
            CHECK(n.first == ref.first);
            CHECK(n.second == ref.second);
        }
#ifdef ROOFLINE_HAVE_SIMDJSON
        // simdjson with the filter (events of no interest stop at their category, most by the
        // prefix shortcut) gives the same ph/cat for every event and the same fields for the rest.
        for (int workers : {0, 1, 3}) {
            const auto s = digest(p.string(), io::detail::simdjson_event_parser{}, true, workers);
            CHECK(s.first == ref.first);
            CHECK(s.second == ref.second);
        }
#endif
    }
    // A value after traceEvents reaches on_top after every event, as in the file.
    std::string events;
    for (int i = 0; i < 3000; ++i)
        events += std::string(i ? "," : "") + R"({"ph": "X", "cat": "python_function", "name": "f)" + std::to_string(i) +
                  R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(i) + R"(, "dur": 1, "args": {"Python id": 7}})";
    const temp_file f(R"({"traceEvents": [)" + events + R"(], "deviceProperties": [{"id": 0}]})", ".json");
    const auto one = digest(f.path(), io::detail::nlohmann_event_parser{}, false, 0);
    CHECK(one.first.ends_with(";top:deviceProperties;"));
    CHECK(digest(f.path(), io::detail::nlohmann_event_parser{}, true, 2).first == one.first);
#ifdef ROOFLINE_HAVE_SIMDJSON
    CHECK(digest(f.path(), io::detail::simdjson_event_parser{}, true, 2).first == one.first);
#endif
    MESSAGE("samples compared: " << samples);
}

TEST_CASE("parsing beside the reading thread reports the first bad event, as one thread does") {
    std::string events;
    for (int i = 0; i < 6000; ++i)
        events += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "nvjet_)" + std::to_string(i) +
                  R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(10 * i) + R"(, "dur": 2, "args": {"correlation": 5}})";
    const std::string bad = R"(,{"ph": "X", "cat": "kernel", "name": "x", "ts": 1.2.3, "dur": 1})";
    const std::string head = R"({"traceEvents": [)";
    auto message = [](const std::string& path, int workers) {
        kineto_options o;
        o.rules = &builtin_rules();
        o.parse_workers = workers;
        try {
            (void)read_kineto(path, o);
        } catch (const parse_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    SUBCASE("a malformed event after several batches") {
        const temp_file f(head + events + bad + "," + events.substr(0, 200000) + "]}", ".json");
        const std::string one = message(f.path(), 0);
        CHECK(one.find("event 6000: malformed JSON") != std::string::npos);
        CHECK(message(f.path(), 1) == one);
        CHECK(message(f.path(), 3) == one);
    }
    SUBCASE("a malformed event before a truncation is the error reported") {
        const temp_file f(head + events + bad + "," + events.substr(0, 100000), ".json");
        const std::string one = message(f.path(), 0);
        CHECK(one.find("event 6000: malformed JSON") != std::string::npos);
        CHECK(message(f.path(), 2) == one);
    }
    SUBCASE("a truncation alone") {
        const temp_file f(head + events + "," + events.substr(0, 100000), ".json");
        const std::string one = message(f.path(), 0);
        CHECK(one.find("truncated") != std::string::npos);
        CHECK(message(f.path(), 2) == one);
    }
}

TEST_CASE("the nlohmann event parser names why an event is malformed, a number beyond a double's range included") {
    // fuzz_kineto (CI of stop 21): re-parsing for the reason threw out_of_range, not parse_error,
    // and it escaped the reader (std::terminate).
    io::detail::nlohmann_event_parser p;
    io::detail::chrome_event ev;
    std::string error;
    CHECK_FALSE(p.parse(R"({"ph":"X","ts":1e400})", ev, error));
    CHECK(error == "malformed JSON (number overflow parsing '1e400')");
    CHECK_FALSE(p.parse(R"({"ph":"X",)", ev, error));
    CHECK(error.rfind("malformed JSON (syntax error while parsing", 0) == 0);
    CHECK(p.parse(R"({"ph":"X","ts":1e300})", ev, error));
    CHECK(ev.ts == approx(1e300));
}

TEST_CASE("bad Kineto input: bad events are counted, broken files are errors with a byte offset") {
    const std::string good_head = R"({"schemaVersion": 1, "traceEvents": [)";
    const std::string k1 =
        R"({"ph": "X", "cat": "kernel", "name": "nvjet_a", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2.0, "args": {"correlation": 5}})";
    SUBCASE("negative durations, missing/mistyped ts, non-objects and missing names are skipped") {
        const temp_file f(good_head + k1 + "," +
                              R"({"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 11, "dur": -1},)"
                              R"({"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "dur": 1},)"
                              R"({"ph": "X", "cat": "kernel", "name": "d", "pid": 0, "tid": 7, "ts": "12", "dur": 1},)"
                              R"({"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 12, "dur": 1},)"
                              R"(42, {"ph": "X", "cat": "python_function", "name": "x", "ts": 1, "dur": -5}]})",
                          ".json");
        const auto t = read_kineto(f.path(), {&builtin_rules(), true});
        CHECK(t.stats.events_read == 7);
        CHECK(t.stats.events_kept == 1);
        CHECK(t.stats.events_skipped == 5);
        CHECK(t.stats.skipped_by_reason.at("negative_dur") == 1);
        CHECK(t.stats.skipped_by_reason.at("missing_ts") == 1);
        CHECK(t.stats.skipped_by_reason.at("wrong_type(ts)") == 1);
        CHECK(t.stats.skipped_by_reason.at("missing_name") == 1);
        CHECK(t.stats.skipped_by_reason.at("not_an_object") == 1);
        REQUIRE(t.events.size() == 1);
        CHECK(t.events[0].phase == kernel_phase::gemm);
        CHECK(t.events[0].start_s == 0.0);
        CHECK(t.events[0].duration_s == approx(2e-6));
    }
    SUBCASE("truncated plain file") {
        const temp_file f(good_head + k1 + R"(, {"ph": "X", "cat": "ker)", ".json");
        CHECK_THROWS_WITH_AS(read_kineto(f.path(), {&builtin_rules(), true}),
                             doctest::Contains("truncated"), parse_error);
    }
    SUBCASE("truncated after the last event") {
        const temp_file f(good_head + k1 + ",\n", ".json");
        CHECK_THROWS_WITH_AS(read_kineto(f.path(), {&builtin_rules(), true}),
                             doctest::Contains("traceEvents array is not closed"), parse_error);
    }
    SUBCASE("truncated gzip") {
        std::string body = good_head;
        for (int i = 0; i < 2000; ++i) body += k1 + ",";
        body += k1 + "]}";
        const auto gz = test::gzip_bytes(body);
        const temp_file f(gz.substr(0, gz.size() * 2 / 3), ".json.gz", temp_file::mode::raw_bytes);
        CHECK_THROWS_AS(read_kineto(f.path(), {&builtin_rules(), true}), parse_error);
    }
    SUBCASE("corrupt gzip") {
        auto gz = test::gzip_bytes(good_head + k1 + "]}");
        for (std::size_t i = 12; i < gz.size() - 8; i += 3) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
        const temp_file f(gz, ".json.gz", temp_file::mode::raw_bytes);
        CHECK_THROWS_WITH_AS(read_kineto(f.path(), {&builtin_rules(), true}), doctest::Contains("gzip"),
                             parse_error);
    }
    SUBCASE("malformed event JSON names the byte and the event") {
        const temp_file f(good_head + k1 + R"(, {"ph": "X", "cat": kernel}]})", ".json");
        // The second event starts at byte 36 + 112 + 2 = 150 (0-based).
        CHECK_THROWS_WITH_AS(read_kineto(f.path(), {&builtin_rules(), true}),
                             doctest::Contains("event 1: malformed JSON"), parse_error);
        try {
            read_kineto(f.path(), {&builtin_rules(), true});
        } catch (const parse_error& e) {
            CHECK(e.place() == "byte " + std::to_string(good_head.size() + k1.size() + 2));
        }
    }
    SUBCASE("empty file, no traceEvents, not an object, missing file") {
        const temp_file empty("", ".json");
        CHECK_THROWS_WITH_AS(read_kineto(empty.path(), {&builtin_rules(), true}),
                             doctest::Contains("empty file"), parse_error);
        const temp_file none(R"({"schemaVersion": 1})", ".json");
        CHECK_THROWS_WITH_AS(read_kineto(none.path(), {&builtin_rules(), true}),
                             doctest::Contains("traceEvents"), parse_error);
        const temp_file num("12", ".json");
        CHECK_THROWS_AS(read_kineto(num.path(), {&builtin_rules(), true}), parse_error);
        CHECK_THROWS_WITH_AS(read_kineto("/nonexistent/t.json", {&builtin_rules(), true}),
                             doctest::Contains("cannot open"), parse_error);
    }
    SUBCASE("the Chrome JSON Array Format (a bare event array) is read too") {
        const temp_file f("[" + k1 + "]", ".json");
        const auto t = read_kineto(f.path(), {&builtin_rules(), true});
        CHECK(t.events.size() == 1);
    }
    SUBCASE("strings with brackets and escaped quotes do not confuse the splitter") {
        const temp_file f(
            good_head +
                R"x({"ph": "X", "cat": "kernel", "name": "void k<{[\"]}>(int)", "pid": 0, "tid": 1, "ts": 1, "dur": 1}, )x" +
                k1 + "]}",
            ".json");
        const auto t = read_kineto(f.path(), {&builtin_rules(), true});
        REQUIRE(t.events.size() == 2);
        CHECK(t.events[0].name == "void k<{[\"]}>(int)");
    }
}

TEST_CASE("mangled kernel names are demangled where the ABI demangler can") {
#ifdef ROOFLINE_HAVE_CXXABI
    CHECK(io::detail::demangle("_Z3fooi") == "foo(int)");
#endif
    CHECK(io::detail::demangle("_Zbad") == "_Zbad");
    CHECK(io::detail::demangle("nvjet_tst") == "nvjet_tst");
}

TEST_CASE("Input Dims text parses into shapes") {
    const auto d = parse_input_dims("[[64, 4096], [], [4096, 4096]]");
    REQUIRE(d.has_value());
    CHECK(d->size() == 3);
    CHECK((*d)[1].empty());
    CHECK((*d)[2] == std::vector<std::int64_t>{4096, 4096});
    CHECK(parse_input_dims("[]")->empty());
    CHECK_FALSE(parse_input_dims("[[1,2]").has_value());
    CHECK_FALSE(parse_input_dims("[[\"a\"]]").has_value());
}

TEST_CASE("the streaming summary equals the summary of the full read, on every sample trace") {
    for (const char* rel : {"kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz",
                            "kineto/deepseek_v3_train_ep64_h800.trace.json",
                            "kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz",
                            "h200/h200_moe_decode_step.trace.json.gz",
                            "h200/h200x2_tp_mlp_allreduce_rank0.trace.json.gz"}) {
        const auto p = test::shared_sample(rel);
        if (!test::have_sample(p)) continue;
        CAPTURE(rel);
        const auto full = summarize(read(rel));
        const auto streamed = summarize_kineto(p.string(), builtin_rules());
        CHECK(streamed.kernel_count == full.kernel_count);
        CHECK(streamed.kernel_time_s == approx(full.kernel_time_s).epsilon(1e-12));
        CHECK(streamed.stats.events_read == full.stats.events_read);
        CHECK(streamed.stats.events_kept == full.stats.events_kept);
        CHECK(streamed.stats.events_skipped == full.stats.events_skipped);
        REQUIRE(streamed.kernels.size() == full.kernels.size());
        for (std::size_t i = 0; i < full.kernels.size(); ++i) {
            CHECK(streamed.kernels[i].name == full.kernels[i].name);
            CHECK(streamed.kernels[i].phase == full.kernels[i].phase);
            CHECK(streamed.kernels[i].count == full.kernels[i].count);
        }
        // At least 95 % of kernel time has a phase other than "other" (issue 4).
        const double other = streamed.phase_s(kernel_phase::other);
        CHECK(other / streamed.kernel_time_s < 0.05);
    }
}

TEST_CASE("the 64-byte block scan cuts events exactly like the byte-by-byte scan") {
    // Random traces with strings holding brackets, escaped quotes and backslashes, numbers and
    // non-object elements, read through tiny buffers so that events straddle refills.
    std::uint64_t seed = 12345;
    auto rnd = [&](std::uint64_t n) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return (seed >> 33) % n;
    };
    const char* pieces[] = {"{", "}", "[", "]", "\\\"", "\\\\", "x", " ", ",", "\\n", "é"};
    for (int trial = 0; trial < 60; ++trial) {
        std::string text = "{\"a\": [1, {\"b\": \"]\"}], \"traceEvents\": [";
        const int n = 1 + static_cast<int>(rnd(40));
        for (int e = 0; e < n; ++e) {
            if (e) text += rnd(3) ? ",\n  " : ",";
            if (rnd(15) == 0) {
                text += std::to_string(rnd(1000));  // a non-object element
                continue;
            }
            text += "{\"name\": \"";
            const int len = static_cast<int>(rnd(150));
            for (int k = 0; k < len; ++k) text += pieces[rnd(11)];
            text += "\", \"args\": {\"grid\": [1, 2, 3], \"s\": \"}}\"}, \"ts\": " + std::to_string(e) + "}";
        }
        text += "], \"traceName\": \"[x]\"}";
        const temp_file f(text, ".json");
        auto slices = [&](bool simd, std::size_t chunk) {
            std::vector<std::string> out;
            io::input_file in(f.path());
            io::detail::chrome_trace_splitter s(in, chunk, simd);
            s.run([](std::string_view, std::string_view, std::uint64_t) {},
                  [&](std::string_view t, std::uint64_t off, std::size_t i) {
                      out.push_back(std::to_string(i) + "@" + std::to_string(off) + ":" + std::string(t));
                  });
            return out;
        };
        const auto reference = slices(false, 1 << 16);
        CHECK(reference.size() == static_cast<std::size_t>(n));
        for (std::size_t chunk : {std::size_t(64), std::size_t(100), std::size_t(1000), std::size_t(1) << 16}) {
            CAPTURE(trial);
            CAPTURE(chunk);
            CHECK(slices(true, chunk) == reference);
        }
    }
}

TEST_CASE("every NVIDIA HolisticTraceAnalysis trace with GPU work reads, counts matching the file's own events") {
    // The files of ../shared/samples/hta/ (A100, V100, old-style "cat": "Kernel" events), each
    // counted here independently of the reader: nlohmann/json over the whole file, events with
    // "ph": "X", a kernel category (today's "kernel" or the old "Kernel") and a numeric dur >= 0.
    const auto root = test::shared_sample("hta");
    if (!test::have_sample(root)) return;
    std::size_t files_with_gpu_work = 0, kernels_total = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const std::string path = entry.path().string();
        if (!entry.is_regular_file() || path.find(".json") == std::string::npos || path.find("amd_trace") != std::string::npos)
            continue;
        INFO(path);
        const nlohmann::json doc = nlohmann::json::parse(io::read_all(path));
        const nlohmann::json& events = doc.is_object() ? doc["traceEvents"] : doc;
        double expected_kernels = 0, expected_kernel_us = 0;
        for (const auto& e : events) {
            if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("dur") || !e["dur"].is_number()) continue;
            const std::string cat = e.value("cat", "");
            if ((cat == "kernel" || cat == "Kernel") && e["dur"].get<double>() >= 0) {
                ++expected_kernels;
                expected_kernel_us += e["dur"].get<double>();
            }
        }
        const kernel_trace t = read_kineto(path, [] {
            kineto_options o;
            o.rules = &builtin_rules();
            return o;
        }());
        const trace_summary s = summarize(t);
        CHECK(s.kernel_count == expected_kernels);
        CHECK(s.kernel_time_s == approx(expected_kernel_us * 1e-6).epsilon(1e-9));
        if (expected_kernels > 0) ++files_with_gpu_work;
        kernels_total += static_cast<std::size_t>(expected_kernels);
    }
    // 18 files with kernels (call_stack, critical_path 6, df_index_resolver, nccl_parser_config,
    // negative_queue_length_values_check, ns_resolution_trace, timeline_analysis, trace_diff 2,
    // trace_file_list, trace_filter 2, triton_example) holding 54,685 kernels, as a python3
    // json count over the same files gives.
    CHECK(files_with_gpu_work == 18);
    CHECK(kernels_total == 54685);
}

TEST_CASE("old-style Kineto categories read as today's: 4 'Kernel' events are 4 kernels") {
    const auto path = test::shared_sample("hta/trace_file_list/inference_rank_1.json.gz");
    if (!test::have_sample(path)) return;
    const auto t = read("hta/trace_file_list/inference_rank_1.json.gz");
    std::size_t kernels = 0;
    for (const auto& e : t.events) kernels += e.activity == gpu_activity::kernel;
    CHECK(kernels == 4);
    // 4 + 6 + 15 + 5 us of kernels.
    CHECK(summarize(t).kernel_time_s == approx(30e-6));
}

TEST_CASE("launch and op links: runtime call preferred over its driver call, the last op of an External id, "
          "allocations of direct aten::empty children, past a table chunk") {
    // 5,000 launches (more than one 4,096-record chunk of the reader's tables) of one kernel
    // each; launch i is a cuda_driver call then a cuda_runtime call with the same correlation
    // (the runtime one, at ts + 2, must win). Each kernel names External id 100000 + i; two ops
    // carry that id, the second one (the one that contains the launch) must win.
    const int n = 5000;
    std::string s = R"({"traceEvents":[)";
    for (int i = 0; i < n; ++i) {
        const double t0 = 100.0 * i;
        const std::string ext = std::to_string(100000 + i), corr = std::to_string(i + 1);
        if (i) s += ",";
        // A decoy op with the same External id on another thread, then the real op.
        s += R"({"ph":"X","cat":"cpu_op","name":"aten::decoy","pid":1,"tid":2,"ts":)" + std::to_string(t0) +
             R"(,"dur":50,"args":{"External id":)" + ext + "}},";
        s += R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + std::to_string(t0) +
             R"(,"dur":50,"args":{"External id":)" + ext + R"(,"Input Dims":[[2,3],[3,4]]}},)";
        s += R"({"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 1) +
             R"(,"dur":1,"args":{"Concrete Inputs":["[2, 4]","15"]}},)";
        s += R"({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 3) +
             R"(,"dur":1,"args":{"correlation":)" + corr + "}},";
        s += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 2) +
             R"(,"dur":4,"args":{"correlation":)" + corr + "}},";
        s += R"({"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":)" + std::to_string(t0 + 20) +
             R"(,"dur":10,"args":{"device":0,"stream":7,"correlation":)" + corr + R"(,"External id":)" + ext + "}}";
    }
    s += "]}";
    const temp_file f(s, ".json");
    kineto_options o;
    o.rules = &builtin_rules();
    const auto t = read_kineto(f.path(), o);
    REQUIRE(t.events.size() == std::size_t(n));
    CHECK(t.links.with_runtime == std::size_t(n));
    CHECK(t.links.by_external_id == std::size_t(n));
    CHECK(t.links.unlinked == 0);
    CHECK(t.ops.size() == std::size_t(n));  // one linked op per kernel: the mm, never the decoy
    for (int i : {0, 4095, 4096, n - 1}) {
        const auto& e = t.events[std::size_t(i)];
        CHECK(e.launch_api == "cudaLaunchKernel");
        CHECK(e.launch_duration_s == approx(4e-6));
        REQUIRE(t.op_of(e) != nullptr);
        CHECK(t.op_of(e)->name == "aten::mm");
        CHECK(t.op_of(e)->external_id == 100000 + i);
        CHECK(t.op_of(e)->allocations == R"([["[2, 4]","15"]])");
        CHECK(e.top_op == e.op);
    }
}

// ---- io/kineto_stream.hpp: the streaming reader ----

namespace {
/// One GPU event as both readers give it, for comparing them.
struct linked {
    double start_s, launch_s;
    std::int64_t correlation;
    std::string name, api, op, dims, types, allocations;
    int step, link;
    bool operator<(const linked& o) const {
        return std::tie(start_s, correlation, name) < std::tie(o.start_s, o.correlation, o.name);
    }
};
std::vector<linked> whole_links(const kernel_trace& t) {
    std::vector<linked> v;
    for (const auto& e : t.events) {
        const cpu_op* o = t.op_of(e);
        v.push_back({e.start_s, e.launch_s, e.correlation, std::string(e.name), std::string(e.launch_api),
                     o ? std::string(o->name) : "", o ? std::string(o->input_dims) : "",
                     o ? std::string(o->input_types) : "", o ? std::string(o->allocations) : "", e.step, int(e.link)});
    }
    std::stable_sort(v.begin(), v.end());
    return v;
}
/// The second pass's events of every device, as `whole_links` gives read_kineto's.
std::vector<linked> streamed_links(const std::string& path, const kineto_stream_windows& w = {},
                                   std::size_t* longest = nullptr) {
    const auto h = scan_kineto_stream(path, {}, w, [](streamed_event&&) {});
    std::vector<linked> v;
    string_pool pool;
    double last = -1e300;
    link_kineto_stream(path, h, {}, -1, w, pool,
                       [](const streamed_event& e) { return e.event.activity == gpu_activity::kernel && !e.collective; },
                       [&](streamed_event&& e) {
                           CHECK(e.event.start_s >= last);  // start order
                           last = e.event.start_s;
                           const cpu_op* o = e.op ? &e.op->op : nullptr;
                           if (longest) *longest += e.op_longest;
                           v.push_back({e.event.start_s, e.event.launch_s, e.event.correlation, std::string(e.event.name),
                                        std::string(e.event.launch_api), o ? std::string(o->name) : "",
                                        o ? std::string(o->input_dims) : "", o ? std::string(o->input_types) : "",
                                        o ? std::string(o->allocations) : "", e.event.step, int(e.link)});
                       });
    std::stable_sort(v.begin(), v.end());
    return v;
}
void check_same_links(const std::vector<linked>& a, const std::vector<linked>& b) {
    REQUIRE(a.size() == b.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto& x = a[i];
        const auto& y = b[i];
        const bool same = x.start_s == y.start_s && x.name == y.name && x.api == y.api && x.step == y.step &&
                          x.op == y.op && x.dims == y.dims && x.types == y.types && x.allocations == y.allocations &&
                          x.link == y.link && (x.launch_s == y.launch_s || (std::isnan(x.launch_s) && std::isnan(y.launch_s)));
        if (!same && differ++ == 0) FAIL_CHECK("event " << i << " " << x.name << ": op " << x.op << " / " << y.op);
    }
    CHECK(differ == 0);
}
}  // namespace

TEST_CASE("the streaming reader's first pass counts, times and summarises as read_kineto does, on every sample trace") {
    for (const char* rel : {"kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz",
                            "kineto/deepseek_v3_train_ep64_h800.trace.json",
                            "kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz",
                            "hta/negative_queue_length_values_check/rank0.json.gz",
                            "h200/h200x2_tp_mlp_allreduce_rank0.trace.json.gz"}) {
        const auto p = test::shared_sample(rel);
        if (!test::have_sample(p)) continue;
        CAPTURE(rel);
        const auto t = read(rel);
        std::size_t n = 0;
        double last = -1e300;
        bool ordered = true;
        // rank0's GPU section runs up to 5,381 events out of start order: windows of 65,536.
        const auto h = scan_kineto_stream(p.string(), {}, kineto_stream_windows{}.scaled(16), [&](streamed_event&& e) {
            ++n;
            ordered = ordered && e.event.start_s >= last;
            last = e.event.start_s;
        });
        CHECK(n == t.events.size());
        CHECK(ordered);
        CHECK(h.trace.stats.events_read == t.stats.events_read);
        CHECK(h.trace.stats.events_kept == t.stats.events_kept);
        CHECK(h.trace.stats.skipped_by_reason == t.stats.skipped_by_reason);
        CHECK(h.trace.events_by_category == t.events_by_category);
        CHECK(h.trace.time_origin_us == t.time_origin_us);  // after the shift to the earliest event
        CHECK(h.trace.devices.size() == t.devices.size());
        REQUIRE(h.trace.annotations.size() == t.annotations.size());
        for (std::size_t i = 0; i < t.annotations.size(); ++i) CHECK(h.trace.annotations[i].start_s == t.annotations[i].start_s);
        REQUIRE(h.trace.steps.size() == t.steps.size());
        const auto s = summarize(t);
        CHECK(h.summary.kernel_count == s.kernel_count);
        CHECK(h.summary.gpu_time_s == s.gpu_time_s);  // summed in file order both ways: equal to the bit
        CHECK(h.summary.kernels.size() == s.kernels.size());
        CHECK(h.needs_whole_reader.empty());
        REQUIRE(h.gpu_section_offset);
        CHECK_FALSE(h.op_offsets.empty());
    }
}

TEST_CASE("the streaming reader links each GPU event to the launch and op read_kineto links it to") {
    // B200: External-id links; DeepSeek (old style): containment, two threads of ops; H100:
    // kernels without launch calls; the H200 MoE step: allocations of aten::empty children.
    for (const char* rel : {"kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz",
                            "kineto/deepseek_v3_train_ep64_h800.trace.json",
                            "kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz",
                            "h200/h200_moe_decode_step.trace.json.gz"}) {
        const auto p = test::shared_sample(rel);
        if (!test::have_sample(p)) continue;
        CAPTURE(rel);
        std::size_t longest = 0;
        check_same_links(whole_links(read(rel)), streamed_links(p.string(), {}, &longest));
        CHECK(longest > 0);
    }
}

TEST_CASE("the streaming reader on a synthetic trace: runtime call over driver call, the External id's op, "
          "allocations; windows too narrow are a layout error, never a wrong link") {
    // 3,000 launches as in the read_kineto test above, written as a profiler writes a long
    // profile: every op first, then the GPU section, where each kernel's calls come after the
    // next kernel.
    const int n = 3000;
    std::string ops, gpu, calls;
    for (int i = 0; i < n; ++i) {
        const double t0 = 100.0 * i;
        const std::string ext = std::to_string(100000 + i), corr = std::to_string(i + 1);
        ops += R"({"ph":"X","cat":"cpu_op","name":"aten::decoy","pid":1,"tid":2,"ts":)" + std::to_string(t0) +
               R"(,"dur":50,"args":{"External id":)" + ext + "}},";
        ops += R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + std::to_string(t0) +
               R"(,"dur":50,"args":{"External id":)" + ext + R"(,"Input Dims":[[2,3],[3,4]]}},)";
        ops += R"({"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 1) +
               R"(,"dur":1,"args":{"Concrete Inputs":["[2, 4]","15"]}},)";
        // The kernel runs 5 launches late on the GPU: its stream is behind.
        gpu += R"({"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":)" + std::to_string(t0 + 520) +
               R"(,"dur":10,"args":{"device":0,"stream":7,"correlation":)" + corr + R"(,"External id":)" + ext + "}},";
        gpu += calls;
        calls = R"({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 3) +
                R"(,"dur":1,"args":{"correlation":)" + corr + "}},";
        calls += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t0 + 2) +
                 R"(,"dur":4,"args":{"correlation":)" + corr + "}},";
    }
    gpu += calls;
    gpu.pop_back();
    const temp_file f(R"({"traceEvents":[)" + ops + gpu + "]}", ".json.gz");
    const auto whole = whole_links(read_kineto(f.path()));
    const auto streamed = streamed_links(f.path());
    check_same_links(whole, streamed);
    CHECK(streamed[1234].op == "aten::mm");
    CHECK(streamed[17].allocations == R"([["[2, 4]","15"]])");
    CHECK(streamed[17].api == "cudaLaunchKernel");
    // With a join window of one event, a kernel's runtime call comes after the join gave up on
    // it: the reader says so rather than leave the kernel with its driver call.
    CHECK_THROWS_AS(streamed_links(f.path(), {1, 1, 1}), kineto_layout_error);
}

TEST_CASE("the streaming reader says when a file needs the whole reader") {
    // A GPU event without a launch call names an op by External id: only a reader holding every
    // op can link it.
    const std::string s =
        R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":50,"args":{"External id":7}},)"
        R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":60,"dur":10,"args":{"device":0,"stream":7,"correlation":3,"External id":7}}]})";
    const temp_file f(s, ".json");
    const auto h = scan_kineto_stream(f.path(), {}, {}, [](streamed_event&&) {});
    CHECK(h.needs_whole_reader.find("External id (7)") != std::string::npos);
    CHECK(read_kineto(f.path()).links.by_external_id == 1);
}
