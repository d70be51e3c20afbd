// Tests of analysis/cluster.hpp, analysis/collective_match.hpp and analysis/idle_time.hpp:
// the HTA idle split and launch delays on a hand-made stream, collective matching and the
// straggler on hand-made summaries, the two real HTA ranks, and a straggler injected into a
// real NCCL trace (rank 1 derived from rank 0 by stretching one GEMM and shifting what follows).
#include "roofline/analysis/cluster.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>

#include "roofline/io/rank_summary.hpp"
#include "roofline/report/cluster_report.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
kernel_event kernel(double start_us, double dur_us, double launch_us, std::int64_t stream = 7) {
    kernel_event e;
    e.device = 0;
    e.stream = stream;
    e.start_s = start_us * 1e-6;
    e.duration_s = dur_us * 1e-6;
    e.launch_s = launch_us * 1e-6;
    e.launch_duration_s = 2e-6;
    return e;
}
}  // namespace

TEST_CASE("idle time per stream: host wait, kernel wait and other, as HTA splits them") {
    kernel_trace t;
    t.events = {kernel(0, 10, 0),      // first: no gap
                kernel(15, 10, 5),     // 5 us gap, launched before the previous end: kernel wait
                kernel(100, 10, 90),   // 75 us gap, launched after the previous end (25): host wait
                kernel(200, 10, 50),   // 90 us gap, launched early, >= 30 us: other
                kernel(0, 1, 0, 9)};   // another stream, alone
    const auto s = idle_time_by_stream(t, 0);
    REQUIRE(s.size() == 2);
    CHECK(s[0].stream == 7);
    CHECK(s[0].activities == 4);
    CHECK(s[0].kernel_wait_s == approx(5e-6));
    CHECK(s[0].host_wait_s == approx(75e-6));
    CHECK(s[0].other_s == approx(90e-6));
    CHECK(s[0].busy_s == approx(40e-6));
    CHECK(s[0].span_s == approx(210e-6));
    CHECK(s[1].idle_s() == 0.0);
    // Launch delays: start - (launch + 2 us), clipped: 0, 8, 8, 148 us on stream 7; 0 on stream 9.
    const auto d = launch_delays(t, 0);
    CHECK(d.count == 5);
    CHECK(d.median_s == approx(8e-6));
    CHECK(d.max_s == approx(148e-6));
    CHECK(d.mean_s == approx(164e-6 / 5));
    CHECK(d.p90_s == approx(148e-6));
}

namespace {
rank_summary hand_rank(int rank, double d0_us, double d1_us, double gemm_before_us) {
    rank_summary s;
    s.file = "rank" + std::to_string(rank) + ".json";
    s.rank = rank;
    s.rank_source = "file name";
    s.window_s = 1e-3;
    s.busy_s = 0.8e-3;
    s.idle_s = 0.2e-3;
    s.bound = "communication";
    for (int i = 0; i < 2; ++i) {
        rank_collective c;
        c.process_group = "0";
        c.seq = i;
        c.name = "allreduce";
        c.duration_s = (i == 0 ? d0_us : d1_us) * 1e-6;
        c.bytes = 1e6;
        c.group_size = 3;
        c.before_by_phase_s[static_cast<std::size_t>(kernel_phase::gemm)] = i == 0 ? gemm_before_us * 1e-6 : 0.0;
        s.collectives.push_back(c);
    }
    s.seq_source = "order";
    return s;
}
}  // namespace

TEST_CASE("collectives matched across three hand-made ranks: wait, transfer, straggler, verdict") {
    // seq 0: 300, 100, 250 us -> transfer 100 us, rank 1 last, waits 200 + 0 + 150 = 350 us.
    //        rank 1 ran 500 us of GEMM before it, the others 300 and 320 (median 320).
    // seq 1: 100, 180, 120 us -> rank 0 last, waits 0 + 80 + 20 = 100 us.
    auto r = build_cluster_report({hand_rank(2, 250, 120, 300), hand_rank(0, 300, 100, 320), hand_rank(1, 100, 180, 500)});
    REQUIRE(r.ranks.size() == 3);
    CHECK(r.ranks[0].rank == 0);  // sorted by rank
    REQUIRE(r.collectives.size() == 2);
    const auto& c0 = r.collectives[0];
    CHECK(c0.last_rank == 1);
    CHECK(c0.transfer_s == approx(100e-6));
    CHECK(c0.total_wait_s() == approx(350e-6));
    REQUIRE(c0.cause);
    CHECK(*c0.cause == kernel_phase::gemm);
    CHECK(c0.cause_s == approx(500e-6));
    CHECK(c0.cause_others_median_s == approx(320e-6));
    CHECK(r.collectives[1].last_rank == 0);
    CHECK(r.collectives[1].total_wait_s() == approx(100e-6));
    REQUIRE(r.groups.size() == 1);
    const auto& g = r.groups[0];
    CHECK(g.calls == 2);
    CHECK(g.time_s == approx(1050e-6 / 3));  // per rank
    CHECK(g.wait_s == approx(450e-6 / 3));
    CHECK(g.transfer_s == approx(200e-6));
    CHECK(g.share_of_step == approx(0.35));
    CHECK(g.top_straggler == 1);
    CHECK(g.top_straggler_wait_s == approx(350e-6 / 3));
    REQUIRE(r.stragglers.size() == 2);
    CHECK(r.stragglers[0].rank == 1);
    CHECK(r.stragglers[0].wait_caused_s == approx(350e-6));
    CHECK(r.stragglers[1].rank == 0);
    CHECK(r.verdict ==
          "communication-bound (3 of 3 ranks): 35% of the step is allreduce (process group 0), 33% of that "
          "waiting for rank 1, whose gemm kernels run 1.6x longer before it than the other ranks' median");
    // Two summaries claiming one rank: an error naming both files.
    CHECK_THROWS_WITH_AS(build_cluster_report({hand_rank(0, 1, 1, 0), hand_rank(0, 1, 1, 0)}),
                         doctest::Contains("rank0.json and rank0.json are both rank 0"), usage_error);
}

TEST_CASE("ranks of another job are refused, and ranks without GPU activity are left out of the means and named") {
    // World sizes 2 and 128: an H200 two-GPU job's summary merged with a rank of a 128-rank job.
    auto a = hand_rank(0, 300, 100, 320), b = hand_rank(1, 100, 180, 500);
    a.world_size = 2;
    b.world_size = 128;
    b.summary_file = "r1.json";
    CHECK_THROWS_WITH_AS(build_cluster_report({a, b}),
                         doctest::Contains("rank0.json records world size 2 but r1.json records 128"), usage_error);
    b.world_size = 2;
    a.gpu_id = "h200-sxm";
    b.gpu_id = "a100-sxm4-80gb";
    CHECK_THROWS_WITH_AS(build_cluster_report({a, b}), doctest::Contains("rank0.json ran on h200-sxm but r1.json on a100"),
                         usage_error);
    b.gpu_id = "h200-sxm";
    // Rank 2 has no GPU activity: the mean window is rank 0's and 1's (1 ms each), not 2/3 ms,
    // and the per-rank collective means are over the two.
    auto idle = hand_rank(2, 0, 0, 0);
    idle.window_s = idle.busy_s = idle.idle_s = 0;
    idle.collectives.clear();
    idle.bound = "unknown";
    const auto r = build_cluster_report({a, b, idle});
    CHECK(r.ranks.size() == 3);
    CHECK(r.active_ranks == 2);
    CHECK(r.mean_window_s == approx(1e-3));
    CHECK(r.ranks_with_bound == 2);
    REQUIRE(r.groups.size() == 1);
    CHECK(r.groups[0].time_s == approx((400e-6 + 280e-6) / 2));
    CHECK(r.verdict.rfind("communication-bound (2 of 2 ranks with GPU activity)", 0) == 0);
    REQUIRE(!r.notes.empty());
    CHECK(r.notes[0] == "1 of 3 ranks have no GPU activity and are left out of the means and the verdict: rank 2 (rank2.json)");
    // No rank with GPU activity: an error, as for one trace without any.
    CHECK_THROWS_WITH_AS(build_cluster_report({idle}), doctest::Contains("no rank has GPU activity to analyse: 2 (rank2.json)"),
                         usage_error);
}

TEST_CASE("collective names from kernel names") {
    CHECK(collective_name_of_kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") == "AllGather");
    CHECK(collective_name_of_kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)") == "SendRecv");
    CHECK(collective_name_of_kernel("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(x)") ==
          "multimem_all_reduce_kernel");
    CHECK(collective_name_of_kernel("void dpsk::ep::internode::combine<false, 8>(int4*)") ==
          "dpsk::ep::internode::combine");
}

TEST_CASE("rank from a file name") {
    CHECK(rank_from_file_name("/x/sampled_rank-1.json.gz") == 1);
    CHECK(rank_from_file_name("trace_RANK12.json") == 12);
    CHECK(rank_from_file_name("rank_3.pt.trace.json") == 3);
    CHECK_FALSE(rank_from_file_name("/rank7/trace.json").has_value());  // folders do not count
    CHECK_FALSE(rank_from_file_name("ranked.json").has_value());
}

TEST_CASE("two real HTA ranks: ranks from distributedInfo, SendRecv matched by stream and order") {
    const auto dir = test::shared_sample("hta/trace_filter");
    if (!test::have_sample(dir / "sampled_rank-0.json.gz")) return;
    cluster_options o;  // A100 traces (A100-PG509-200 is in the catalog): a verdict and a timeline
    o.jobs = 2;
    auto s = summarize_rank_files({(dir / "sampled_rank-1.json.gz").string(), (dir / "sampled_rank-0.json.gz").string()},
                                  gpu_catalog::builtin(), o);
    REQUIRE(s.size() == 2);
    CHECK(s[0].rank == 1);
    CHECK(s[0].rank_source == "distributedInfo.rank");
    CHECK(s[0].world_size == 128);
    CHECK(s[0].bound != "unknown");
    CHECK(s[0].verdict_reason.find("no verdict: ") == std::string::npos);
    // Counted with Python over the file: 1204 GPU activities on rank 0 over 1,222,847 us, busy
    // (their union) 547,656 us; 10 SendRecv kernels, 8 on stream 84 and 2 on stream 203.
    const auto& r0 = s[1];
    CHECK(r0.window_s == approx(1.222847).epsilon(1e-9));
    CHECK(r0.busy_s == approx(0.547656).epsilon(1e-9));
    CHECK(r0.collectives.size() == 10);
    CHECK(r0.seq_source == "order");
    CHECK(r0.collectives.front().process_group == "stream 84");
    CHECK(r0.collectives.front().name == "SendRecv");
    // HTA's idle split of stream 7 on rank 0 (integer-microsecond trace, so no rounding):
    // host wait 397,917 us, kernel wait 3,765 us, other 598,335 us.
    const stream_idle* s7 = nullptr;
    for (const auto& x : r0.streams)
        if (x.stream == 7) s7 = &x;
    REQUIRE(s7);
    CHECK(s7->activities == 1052);
    CHECK(s7->host_wait_s == approx(0.397917).epsilon(1e-9));
    CHECK(s7->kernel_wait_s == approx(0.003765).epsilon(1e-9));
    CHECK(s7->other_s == approx(0.598335).epsilon(1e-9));
    const auto r = build_cluster_report(s);
    CHECK(r.collectives.size() == 10);
    // First SendRecv on stream 84: 30,669 us on rank 0, 57,924 us on rank 1 -> rank 0 arrived last.
    CHECK(r.collectives[0].process_group == "stream 203");  // map order: "stream 203" < "stream 84"
    const matched_collective* first84 = nullptr;
    for (const auto& c : r.collectives)
        if (c.process_group == "stream 84" && c.seq == 0) first84 = &c;
    REQUIRE(first84);
    CHECK(first84->last_rank == 0);
    CHECK(first84->transfer_s == approx(30669e-6));
    CHECK(first84->wait_s[1] == approx((57924.0 - 30669.0) * 1e-6));
}

namespace {
// Rank 1 derived from rank 0: the longest kernel between collectives k-1 and k lasts `d_s`
// longer on rank 1, so that everything after it starts `d_s` later there; rank 0 reaches
// collective k on time and its kernel lasts `d_s` longer (it waits for rank 1); both ranks
// leave the collective together, so everything after it starts `d_s` later on rank 0 too.
// Returns the phase of the stretched kernel.
kernel_phase inject_straggler(kernel_trace& r0, kernel_trace& r1, std::size_t k, double d_s) {
    std::vector<std::size_t> order(r0.events.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r0.events[a].start_s < r0.events[b].start_s; });
    std::vector<std::size_t> colls;
    for (auto i : order)
        if (r0.events[i].collective >= 0) colls.push_back(i);
    REQUIRE(colls.size() > k);
    REQUIRE(k >= 1);
    const std::size_t coll = colls[k];
    const double at = r0.events[coll].start_s, prev = r0.events[colls[k - 1]].start_s;
    std::size_t victim = coll;
    for (auto i : order)
        if (r0.events[i].start_s > prev && r0.events[i].start_s < at && r0.events[i].collective < 0 &&
            (victim == coll || r0.events[i].duration_s > r0.events[victim].duration_s))
            victim = i;
    REQUIRE(victim != coll);
    const double from = r0.events[victim].start_s;
    for (std::size_t i = 0; i < r0.events.size(); ++i) {
        const double s = r0.events[i].start_s;
        if (s > from) r1.events[i].start_s += d_s;
        if (s > at) r0.events[i].start_s += d_s;
    }
    r1.events[victim].duration_s += d_s;
    r0.events[coll].duration_s += d_s;
    return r1.events[victim].phase;
}
}  // namespace

TEST_CASE("a straggler injected into a real NCCL trace: found, with its wait and its cause") {
    const auto path = test::shared_sample("hta/nccl_parser_config/nccl_data.json.gz");
    if (!test::have_sample(path)) return;
    kernel_trace t0 = read_kineto(path.string());
    REQUIRE(t0.collectives.size() == 21);  // 15 allreduce + 6 broadcast, process group "0"
    kernel_trace t1 = t0;                  // shares the string pool
    t1.distributed->rank = 1;
    const double d = 2e-3;
    const auto phase = inject_straggler(t0, t1, 4, d);
    // An A100 trace (PG509-200: the A100 SXM4 40 GB board) on its own catalog entry; only the
    // verdict and the modeled transfer depend on it, not the waits.
    trace_analysis_options ao;
    ao.gpu_id = "a100-sxm4-40gb";
    std::vector<rank_summary> s;
    for (auto* t : {&t0, &t1}) {
        const auto a = analyze_trace(*t, gpu_catalog::builtin(), ao);
        s.push_back(summarize_rank(*t, &a, a.device, gpu_catalog::builtin().find(a.gpu.id)));
        s.back().rank = t->distributed->rank;
    }
    CHECK(s[0].seq_source == "order");
    const auto r = build_cluster_report(s);
    REQUIRE(r.collectives.size() == 21);
    // Every other collective is the same on both ranks: no wait. Collective 4: rank 1 last,
    // rank 0 waited exactly d.
    std::size_t with_wait = 0;
    for (const auto& c : r.collectives)
        if (c.total_wait_s() > 0) {
            ++with_wait;
            CHECK(c.seq == 4);
            CHECK(c.last_rank == 1);
            CHECK(c.wait_s[0] == approx(d));
            REQUIRE(c.cause);
            CHECK(*c.cause == phase);
            CHECK(c.cause_s - c.cause_others_median_s == approx(d));
        }
    CHECK(with_wait == 1);
    REQUIRE(r.stragglers.size() == 1);
    CHECK(r.stragglers[0].rank == 1);
    CHECK(r.stragglers[0].times_last == 1);
    CHECK(r.stragglers[0].wait_caused_s == approx(d));
    CHECK(r.verdict.find("waiting for rank 1, whose " + std::string(to_string(phase)) + " kernels run") !=
          std::string::npos);
    // Merged summaries (written as JSON, read back) give the same report, byte for byte.
    std::vector<rank_summary> back;
    for (const auto& x : s) back.push_back(parse_rank_summary(rank_summary_json(x).dump(1), x.file));
    const auto m = build_cluster_report(back);
    CHECK(report::render_cluster_text(m) == report::render_cluster_text(r));
    CHECK(report::cluster_report_json(m).dump(2) == report::cluster_report_json(r).dump(2));
}

namespace {
const stream_idle& stream_of(const rank_summary& s, std::int64_t id) {
    for (const auto& x : s.streams)
        if (x.stream == id) return x;
    FAIL("no stream " << id);
    return s.streams.front();
}
}  // namespace

TEST_CASE("HolisticTraceAnalysis's busy, idle and idle split on its own two-rank traces, reproduced") {
    // HTA (facebookresearch/HolisticTraceAnalysis @ f4d0062, run on these files):
    // get_temporal_breakdown: rank 0 kernel_time 600,058 us, idle 321,378 us; rank 1 600,674 and
    // 328,671. get_idle_time_breakdown, rank 0: stream 7 host wait 213,825, kernel wait 1,985,
    // other 261,740; stream 23 596,037 / 70 / 34; stream 25 0 / 9 / 47,865. HTA first drops the
    // activity launched in the last ProfilerStep (keep_hta_iterations). These traces have integer
    // microsecond stamps, so HTA's rounding changes nothing and the numbers agree exactly.
    const auto dir = test::shared_sample("hta/trace_filter");
    if (!test::have_sample(dir / "sampled_rank-0.json.gz")) return;
    const double us = 1e-6;
    for (int r : {0, 1}) {
        kernel_trace t = read_kineto((dir / ("sampled_rank-" + std::to_string(r) + ".json.gz")).string());
        CHECK(keep_hta_iterations(t) > 0);
        const auto s = summarize_rank(t, nullptr, r, nullptr);
        CHECK(s.window_s == approx((r == 0 ? 600058 : 600674) * us).epsilon(1e-9));
        CHECK(s.idle_s == approx((r == 0 ? 321378 : 328671) * us).epsilon(1e-9));
        if (r != 0) continue;
        CHECK(stream_of(s, 7).host_wait_s == approx(213825 * us).epsilon(1e-9));
        CHECK(stream_of(s, 7).kernel_wait_s == approx(1985 * us).epsilon(1e-9));
        CHECK(stream_of(s, 7).other_s == approx(261740 * us).epsilon(1e-9));
        CHECK(stream_of(s, 23).host_wait_s == approx(596037 * us).epsilon(1e-9));
        CHECK(stream_of(s, 23).kernel_wait_s == approx(70 * us).epsilon(1e-9));
        CHECK(stream_of(s, 23).other_s == approx(34 * us).epsilon(1e-9));
        CHECK(stream_of(s, 25).kernel_wait_s == approx(9 * us).epsilon(1e-9));
        CHECK(stream_of(s, 25).other_s == approx(47865 * us).epsilon(1e-9));
    }
}

TEST_CASE("HTA on a fractional-microsecond trace: the same activities, idle overstated by its rounding") {
    // HTA on hta/nccl_parser_config: 2,516 activities kept, kernel time 435,586 us, idle
    // 338,781 us; it holds ts as integer microseconds and rounds dur, which shortens kernels and
    // opens gaps. Exact (counted in Python over the same 2,516): 435,587.56 us and 336,419.67 us.
    const auto path = test::shared_sample("hta/nccl_parser_config/nccl_data.json.gz");
    if (!test::have_sample(path)) return;
    kernel_trace t = read_kineto(path.string());
    CHECK(keep_hta_iterations(t) == 3774 - 2516);
    CHECK(t.events.size() == 2516);
    const auto s = summarize_rank(t, nullptr, 0, nullptr);
    CHECK(s.window_s == approx(435587.5615e-6).epsilon(1e-8));
    CHECK(s.idle_s == approx(336419.6748e-6).epsilon(1e-6));  // 0.3 us: float seconds
}

TEST_CASE("power: rank -> local rank -> log GPU index, saying what was assumed") {
    power_log log;
    for (int i = 0; i < 8; ++i) {
        power_sample s;
        s.gpu_index = i;
        log.samples.push_back(s);
    }
    cluster_options o;
    o.power = &log;
    // Rank 13 on nodes of 8 GPUs (the log's count) is local rank 5; no CUDA_VISIBLE_DEVICES: GPU 5.
    auto [i1, how1] = power_index_of_rank(13, 5, o);
    CHECK(i1 == 5);
    CHECK(how1 == "local rank 5 = rank 13 mod 8 GPUs per node, taken as log GPU 5 (no CUDA_VISIBLE_DEVICES given)");
    // CUDA_VISIBLE_DEVICES=4,5,6,7,0,1,2,3: local rank 5 is log GPU 1; the trace says device 0.
    o.visible_devices = {4, 5, 6, 7, 0, 1, 2, 3};
    auto [i2, how2] = power_index_of_rank(13, 0, o);
    CHECK(i2 == 1);
    CHECK(how2.find("CUDA_VISIBLE_DEVICES[5] = log GPU 1; the trace's CUDA device is 0") != std::string::npos);
    // Four ranks per node on an 8-GPU log: rank 6 is local rank 2.
    o.visible_devices.clear();
    o.gpus_per_node = 4;
    CHECK(power_index_of_rank(6, -1, o).first == 2);
    // A visible-device list shorter than the local rank: an error.
    o.visible_devices = {0, 1};
    CHECK_THROWS_AS(power_index_of_rank(3, -1, o), usage_error);
}
