// Tests of io/measurements.hpp: the project's measurement files, read with their known counts,
// format detection by content, and bad input.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "roofline/io/measurements.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
std::string temp_file(const std::string& name, const std::string& text) {
    const auto p = std::filesystem::temp_directory_path() / ("roofline_meas_" + name);
    std::ofstream(p) << text;
    return p.string();
}
}  // namespace

TEST_CASE("the H200 kernel sweep: 233 records by op, clocks and per-expert counts") {
    const auto path = roofline::test::repo_data("measurements/h200/kernels.json");
    if (!roofline::test::have_sample(path)) return;
    const auto s = read_kernel_sweep(path.string());
    CHECK(s.format == "roofline.kernels/1");
    CHECK(s.gpu_name == "NVIDIA H200");
    CHECK(s.stats.events_read == 233);
    CHECK(s.stats.events_kept == 233);
    std::map<std::string, int> ops;
    for (const auto& r : s.records) ++ops[r.op];
    // data/measurements/h200/README.md: gemm 120, grouped_mm 60, sdpa_prefill 12,
    // sdpa_decode 24, copy 13, launch 4.
    CHECK(ops["gemm"] == 120);
    CHECK(ops["grouped_mm"] == 60);
    CHECK(ops["sdpa_prefill"] == 12);
    CHECK(ops["sdpa_decode"] == 24);
    CHECK(ops["copy"] == 13);
    CHECK(ops["launch"] == 4);
    const auto& first = s.records.front();  // gemm bf16 M=1 N=K=4096
    CHECK(first.op == "gemm");
    CHECK(first.dtype == "bf16");
    CHECK(first.param("m") == 1);
    CHECK(first.param("n") == 4096);
    CHECK(first.time_s == approx(3.363199904561043e-05));
    CHECK(first.sm_clock_hz == 1.98e9);
    CHECK(first.power_w == approx(111.44));
    CHECK(first.clocks_event_reasons == 0u);
    const auto& g = s.records[120];  // the first grouped GEMM: T=1 gate_up, 4 experts with 1 row
    CHECK(g.op == "grouped_mm");
    CHECK(g.label("gemm") == "gate_up");
    CHECK(g.label("routing") == "uniform");
    CHECK(g.expert_tokens.size() == 64);
    double rows = 0;
    for (double v : g.expert_tokens) rows += v;
    CHECK(rows == g.param("rows"));
    CHECK(g.clocks_event_reasons == 4u);  // SW power cap
    CHECK_THROWS_WITH_AS(first.param("tokens", "k.json"), doctest::Contains("record 0"), parse_error);
}

TEST_CASE("the validation sweep maps its kinds onto the kernel ops") {
    const auto path = roofline::test::repo_data("validation/h200_kernels.json");
    if (!roofline::test::have_sample(path)) return;
    const auto s = read_kernel_sweep(path.string());
    CHECK(s.format == "validation");
    CHECK(s.records.size() == 57);
    std::map<std::string, int> ops;
    for (const auto& r : s.records) ++ops[r.op];
    // 32 GEMMs, 8 MoE layers, 3 causal prefills and 9 decodes, 5 copies.
    CHECK(ops["gemm"] == 32);
    CHECK(ops["moe_layer"] == 8);
    CHECK(ops["sdpa_prefill"] == 3);
    CHECK(ops["sdpa_decode"] == 9);
    CHECK(ops["copy"] == 5);
    CHECK(std::isnan(s.records.front().sm_clock_hz));  // no clocks in this format
}

TEST_CASE("the H200 ceilings file, the all-reduce sweep and the power phases") {
    const auto dir = roofline::test::repo_data("measurements/h200/");
    if (!roofline::test::have_sample(dir / "ceilings.json")) return;
    const auto c = read_ceilings_report((dir / "ceilings.json").string());
    CHECK(c.measurements.size() == 15);
    CHECK(c.catalog_id == "h200-sxm");
    CHECK(c.power_limit_w == 700);
    CHECK(c.max_sm_clock_hz == 1.98e9);
    const auto& read = c.measurements[2];
    CHECK(read.name == "dram_read");
    CHECK(read.achieved_bytes_per_s == approx(4296067100000.0));
    CHECK(read.power_samples == 50);
    CHECK(read.median_power_w == approx(646.069));
    CHECK(std::isnan(c.measurements[5].achieved_bytes_per_s));  // launch: null

    const auto a = read_allreduce_sweep((dir / "allreduce_2gpu.json").string());
    CHECK(a.ranks == 2);
    CHECK(a.collective == "all_reduce");
    CHECK(a.points.size() == 21);
    CHECK(a.points.back().size_bytes == 1073741824.0);
    CHECK(a.points.back().in_place->time_s == approx(0.0032170623779296872));

    const auto ph = read_power_phases(roofline::test::repo_data("validation/h200_power_phases.json").string());
    REQUIRE(ph.phases.size() == 3);
    CHECK(ph.phases[0].name == "gemm");
    CHECK(ph.phases[0].flops_per_s == approx(665239045641289.2));
    CHECK(ph.phases[1].bytes_per_s == approx(4281173098534.693));
    CHECK(ph.phases[2].name == "idle");
    CHECK(ph.phases[2].start_s == approx(ph.phases[1].end_s + 1.0));
}

TEST_CASE("measurement formats are told apart by content") {
    const auto m = roofline::test::repo_data("measurements/h200/");
    if (!roofline::test::have_sample(m / "kernels.json")) return;
    CHECK(detect_measurement_format((m / "kernels.json").string()) == measurement_format::kernel_sweep_json);
    CHECK(detect_measurement_format((m / "ceilings.json").string()) == measurement_format::ceilings_json);
    CHECK(detect_measurement_format((m / "allreduce_2gpu.json").string()) == measurement_format::allreduce_json);
    CHECK(detect_measurement_format((m / "kernels_nvidia_smi.csv.gz").string()) == measurement_format::nvidia_smi_csv);
    const auto v = roofline::test::repo_data("validation/");
    CHECK(detect_measurement_format((v / "h200_kernels.json").string()) == measurement_format::validation_json);
    CHECK(detect_measurement_format((v / "h200_power_phases.json").string()) == measurement_format::power_phases_json);
    CHECK(detect_measurement_format((v / "h200_power_smi.csv.gz").string()) == measurement_format::nvidia_smi_csv);
    const auto ncu = roofline::test::shared_sample("h200/h200_ncu_raw_5_kernels.csv.gz");
    if (roofline::test::have_sample(ncu)) CHECK(detect_measurement_format(ncu.string()) == measurement_format::ncu_csv);
    const auto nccl = roofline::test::shared_sample("nccl/all_reduce_perf_2x8xH100.txt");
    if (roofline::test::have_sample(nccl))
        CHECK(detect_measurement_format(nccl.string()) == measurement_format::nccl_tests_text);
    CHECK(detect_measurement_format(temp_file("x.txt", "hello\n")) == measurement_format::unknown);
    // A JSON file cut short is its parse error, with the place (it was once "unknown": "not a
    // recognised measurement file" for a truncated sweep).
    CHECK_THROWS_WITH_AS(detect_measurement_format(temp_file("bad.json", "{\"schema\": ")),
                         doctest::Contains("line 1, column 12: malformed JSON"), parse_error);
    CHECK(to_string(measurement_format::kernel_sweep_json) == "roofline.kernels/1");
}

TEST_CASE("bad measurement files name the file and the place") {
    CHECK_THROWS_WITH_AS(read_kernel_sweep(temp_file("trunc.json", "{\"results\": [ {\"op\": ")),
                         doctest::Contains("line 1"), parse_error);
    CHECK_THROWS_WITH_AS(read_kernel_sweep(temp_file("nolist.json", "{\"schema\": \"roofline.kernels/1\"}")),
                         doctest::Contains("\"results\""), parse_error);
    CHECK_THROWS_AS(read_kernel_sweep("/nonexistent/kernels.json"), parse_error);
    // A failed configuration and a record with a negative time are skipped and counted.
    const auto s = read_kernel_sweep(temp_file(
        "skip.json", R"({"results": [{"op": "gemm", "error": "OOM"}, {"op": "copy", "median_s": -1},
                                      {"op": "copy", "size_bytes": 1048576, "median_s": 5.6e-6}]})"));
    CHECK(s.records.size() == 1);
    CHECK(s.stats.skipped_by_reason.at("failed_config") == 1);
    CHECK(s.stats.skipped_by_reason.at("bad_time") == 1);
    CHECK_THROWS_WITH_AS(read_allreduce_sweep(temp_file("ar.json", R"({"results": []})")),
                         doctest::Contains("world_size"), parse_error);
    CHECK_THROWS_WITH_AS(read_power_phases(temp_file("ph.json", R"({"gemm": {"start": 5, "end": 2}})")),
                         doctest::Contains("not increasing"), parse_error);
    CHECK_THROWS_WITH_AS(read_ceilings_report(temp_file("c.json", R"({"schema": "roofline.ceilings/1"})")),
                         doctest::Contains("\"measurements\""), parse_error);
}
