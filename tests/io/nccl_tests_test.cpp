// Tests of io/nccl_tests.hpp on the real 2x8 H100 all_reduce_perf log and on small logs and
// JSON reports written here (MPI prefixes, N/A, in-place only rows, old `error` header).
#include <doctest/doctest.h>

#include "approx.hpp"

#include "io/io_test_support.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("nccl-tests all_reduce_perf on 16 H100s (markdown preamble, footer)") {
    const auto p = test::shared_sample("nccl/all_reduce_perf_2x8xH100.txt");
    if (!test::have_sample(p)) return;
    const auto s = read_nccl_tests(p.string());
    CHECK(s.collective == "all_reduce");
    CHECK(s.ranks == 16);
    CHECK(s.devices[15] == "NVIDIA H100 80GB HBM3");
    // 31 data rows (the 2 GiB row appears twice in the saved log).
    CHECK(s.stats.events_read == 31);
    CHECK(s.stats.events_kept == 31);
    REQUIRE(s.points.size() == 31);
    const auto& last = s.points.back();
    CHECK(last.size_bytes == 8589934592.0);
    CHECK(last.count == 2147483648.0);
    CHECK(last.type == "float");
    CHECK(last.redop == "sum");
    REQUIRE(last.out_of_place.has_value());
    CHECK(last.out_of_place->time_s == approx(47535e-6));
    CHECK(last.out_of_place->algbw_bytes_per_s == approx(180.71e9));
    CHECK(last.out_of_place->busbw_bytes_per_s == approx(338.82e9));
    CHECK(last.out_of_place->wrong == std::optional<double>(0.0));
    CHECK(last.in_place->busbw_bytes_per_s == approx(337.35e9));
    // busbw = algbw x 2(n-1)/n with n = 16: 180.71 x 1.875 = 338.83 (nccl-tests PERFORMANCE.md).
    CHECK(last.out_of_place->busbw_bytes_per_s ==
          approx(last.out_of_place->algbw_bytes_per_s * 2 * 15 / 16).epsilon(1e-4));
    CHECK(s.peak_busbw_bytes_per_s() == approx(338.82e9));
    CHECK(s.avg_busbw_bytes_per_s == std::optional<double>(70.742e9));
    CHECK(s.out_of_bounds == std::optional<double>(0.0));
}

TEST_CASE("nccl-tests stdout variants") {
    SUBCASE("MPI prefixes, NCCL INFO lines, N/A, old error header, a bad row") {
        const temp_file f(
            "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20\n"
            "[1,0]<stdout>:#  Rank  0 Group  0 Pid   1 on h device  0 [0x1b] NVIDIA H200\n"
            "[1,1]<stdout>:#  Rank  1 Group  0 Pid   2 on h device  1 [0x1c] NVIDIA H200\n"
            "h:1:1 [0] NCCL INFO Channel 00/24 : 0 1\n"
            "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw  error     time   algbw   busbw  error\n"
            "[1,0]<stdout>:#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
            "[1,0]<stdout>:           8             2  bfloat16     sum      -1    10.00    0.00    0.00    N/A    11.00    0.00    0.00    N/A\n"
            "[1,0]<stdout>:         128            64  bfloat16     sum      -1    abc    0.01    0.01    N/A    11.00    0.01    0.01    N/A\n"
            "[1,0]<stdout>:# Avg bus bandwidth    : 0.005\n",
            ".log");
        const auto s = read_nccl_tests(f.path());
        CHECK(s.ranks == 2);
        CHECK(s.stats.events_read == 2);
        CHECK(s.stats.events_kept == 1);
        CHECK(s.stats.events_skipped == 1);
        REQUIRE(s.points.size() == 1);
        CHECK_FALSE(s.points[0].out_of_place->wrong.has_value());
        CHECK(s.points[0].in_place->time_s == approx(11e-6));
        CHECK(s.points[0].type == "bfloat16");
    }
    SUBCASE("no table is an error") {
        const temp_file f("# nThread 1\nsomething else\n", ".log");
        CHECK_THROWS_WITH_AS(read_nccl_tests(f.path()), doctest::Contains("no nccl-tests result table"), parse_error);
        const temp_file e("", ".log");
        CHECK_THROWS_WITH_AS(read_nccl_tests(e.path()), doctest::Contains("empty file"), parse_error);
    }
}

TEST_CASE("nccl-tests JSON report (file version 2)") {
    const temp_file f(
        R"({"version":2,"start_time":"2026-01-01 00:00:00","args":["./build/all_gather_perf","-b","8"],)"
        R"("env":[],"nccl_version":22809,"config":{"nthreads":1,"ngpus":1,"devices":[)"
        R"({"rank":0,"group":0,"pid":1,"hostname":"h","device":0,"device_hex":"0000:1b:00","device_info":"NVIDIA H200"},)"
        R"({"rank":1,"group":0,"pid":2,"hostname":"h","device":1,"device_hex":"0000:1c:00","device_info":"NVIDIA H200"}]},)"
        R"("results":[{"size":1048576,"count":262144,"type":"float","redop":"none","root":"    -1",)"
        R"("out_of_place":{"time":20.5,"alg_bw":51.15,"bus_bw":25.575,"nwrong":0.0},)"
        R"("in_place":{"time":19.5,"alg_bw":53.77,"bus_bw":26.885,"nwrong":null},"actual_iterations":20,"experiment_name":"x"},)"
        R"({"size":"bad"}],)"
        R"("out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":"nan","okay":"unchecked"}})",
        ".json");
    const auto s = read_nccl_tests_json(f.path());
    CHECK(s.collective == "all_gather");
    CHECK(s.ranks == 2);
    CHECK(s.stats.events_read == 2);
    CHECK(s.stats.events_kept == 1);
    REQUIRE(s.points.size() == 1);
    CHECK(s.points[0].root == -1);
    CHECK(s.points[0].out_of_place->busbw_bytes_per_s == approx(25.575e9));
    CHECK_FALSE(s.points[0].in_place->wrong.has_value());
    REQUIRE(s.avg_busbw_bytes_per_s.has_value());
    CHECK(std::isnan(*s.avg_busbw_bytes_per_s));
    const temp_file bad(R"({"results": [)", ".json");
    CHECK_THROWS_WITH_AS(read_nccl_tests_json(bad.path()), doctest::Contains("malformed JSON"), parse_error);
    const temp_file none(R"({"version": 2})", ".json");
    CHECK_THROWS_AS(read_nccl_tests_json(none.path()), parse_error);
}
