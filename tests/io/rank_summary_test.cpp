// Tests of io/rank_summary.hpp: the versioned schema (keys, version, refusals naming the field)
// and an exact round trip, unknown numbers included.
#include "roofline/io/rank_summary.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace roofline;

namespace {
rank_summary sample() {
    rank_summary s;
    s.file = "traces/rank3.json.gz";
    s.format = "kineto";
    s.rank = 3;
    s.rank_source = "file name";
    s.world_size = 8;
    s.gpu_id = "h200-sxm";
    s.gpu_name = "NVIDIA H200";
    s.device = 3;
    s.window_s = 0.1 + 0.2;  // 0.30000000000000004: must survive the trip
    s.busy_s = 0.25;
    s.idle_s = s.window_s - s.busy_s;
    s.communication_s = 0.05;
    s.exposed_communication_s = 0.03;
    s.bound = "communication";
    s.verdict_reason = "exposed collectives take 10% of the window";
    s.mean_power_w = 512.5;
    s.power_gpu_index = 3;
    s.power_note = "local rank 3";
    s.streams.push_back({7, 100, 0.3, 0.2, 1e-3, 2e-5, 3e-3});
    s.launch_delay = {100, 5e-6, 4e-6, 9e-6, 1e-4};
    s.seq_source = "order";
    rank_collective c;
    c.process_group = "0";
    c.seq = 41;
    c.name = "allreduce";
    c.start_s = 0.125;
    c.duration_s = 1.5e-4;
    c.group_size = 8;
    c.algorithm = "ring";
    c.before_by_phase_s[static_cast<std::size_t>(kernel_phase::moe_gemm)] = 2.5e-3;
    s.collectives.push_back(c);  // bytes and model_transfer_s unknown (NaN)
    s.notes.push_back("a note");
    return s;
}
}  // namespace

TEST_CASE("rank summary JSON: schema keys and version") {
    const auto j = rank_summary_json(sample());
    CHECK(j["schema"] == "roofline.rank_summary");
    CHECK(j["version"] == 1);
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"schema", "version", "file", "format", "rank", "rank_source", "world_size",
                                           "gpu_id", "gpu_name", "device", "window_s", "busy_s", "idle_s",
                                           "communication_s", "exposed_communication_s", "bound", "verdict_reason",
                                           "mean_power_w", "power_gpu_index", "power_note", "launch_floor_s",
                                           "streams", "launch_delay", "seq_source", "collectives", "notes"});
    CHECK(j["collectives"][0]["bytes"].is_null());
    CHECK(j["collectives"][0]["before_by_phase_s"].size() == 1);
    CHECK(j["collectives"][0]["before_by_phase_s"]["moe_gemm"] == 2.5e-3);
}

TEST_CASE("rank summary JSON: the round trip is exact") {
    const auto s = sample();
    const std::string text = rank_summary_json(s).dump(1);
    const auto back = parse_rank_summary(text, "r3.json");
    CHECK(back.window_s == s.window_s);  // bit for bit
    CHECK(back.idle_s == s.idle_s);
    CHECK(back.mean_power_w == s.mean_power_w);
    REQUIRE(back.collectives.size() == 1);
    CHECK(std::isnan(back.collectives[0].bytes));
    CHECK(back.collectives[0].before_by_phase_s == s.collectives[0].before_by_phase_s);
    CHECK(rank_summary_json(back).dump(1) == text);
}

TEST_CASE("rank summary JSON: refusals name the file and the field") {
    auto j = rank_summary_json(sample());
    CHECK_THROWS_WITH_AS(parse_rank_summary("{\"traceEvents\": []}", "t.json"), doctest::Contains("not a rank summary"),
                         parse_error);
    CHECK_THROWS_WITH_AS(parse_rank_summary("{", "t.json"), doctest::Contains("t.json"), parse_error);
    // The place of a syntax error, an empty file, and a trace where its summary belongs.
    CHECK_THROWS_WITH_AS(parse_rank_summary("{\n \"schema\": 1,\n \"rank\": }", "s.json"),
                         doctest::Contains("s.json: line 3"), parse_error);
    CHECK_THROWS_WITH_AS(parse_rank_summary(" \n", "e.json"), doctest::Contains("e.json: byte 0: empty file"), parse_error);
    CHECK_THROWS_WITH_AS(parse_rank_summary("{\"schemaVersion\": 1, \"traceEvents\": [", "k.json"),
                         doctest::Contains("a Kineto/Chrome trace, not a rank summary: write its summary with `roofline "
                                           "trace k.json --summary-out"),
                         parse_error);
    auto newer = j;
    newer["version"] = 2;
    CHECK_THROWS_WITH_AS(parse_rank_summary(newer.dump(), "n.json"), doctest::Contains("version 2 is not supported"),
                         parse_error);
    auto missing = j;
    missing.erase("rank");
    CHECK_THROWS_WITH_AS(parse_rank_summary(missing.dump(), "m.json"), doctest::Contains("rank"), parse_error);
    auto wrong = j;
    wrong["collectives"][0]["seq"] = "41";
    CHECK_THROWS_WITH_AS(parse_rank_summary(wrong.dump(), "w.json"), doctest::Contains("collectives[0]"), parse_error);
    auto phase = j;
    phase["collectives"][0]["before_by_phase_s"]["warp_drive"] = 1.0;
    CHECK_THROWS_WITH_AS(parse_rank_summary(phase.dump(), "p.json"), doctest::Contains("not a kernel phase"),
                         parse_error);
}
