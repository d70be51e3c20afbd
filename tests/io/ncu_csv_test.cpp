// Tests of io/ncu_csv.hpp on the real Nsight Compute reports (H200 raw page recorded for this
// project, RTX 5090 details pages) and on small broken ones. Expected values: python3 csv on
// the same files (rates x duration worked out in the comments).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "io/io_test_support.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("ncu raw page (H200, five kernels): time, DRAM bytes, tensor FLOP by precision, SOL") {
    const auto p = test::shared_sample("h200/h200_ncu_raw_5_kernels.csv.gz");
    if (!test::have_sample(p)) return;
    const auto r = read_ncu_csv(p.string());
    CHECK(r.page == "raw");
    REQUIRE(r.kernels.size() == 5);
    // 5 rows x (1309 - 11) metric columns = 6490 values; 5 empty or n/a; 40 are text.
    CHECK(r.stats.events_read == 6490);
    CHECK(r.stats.events_kept == 6485);
    CHECK(r.stats.events_skipped == 0);
    const auto& gemm = r.kernels[2];
    CHECK(gemm.name == "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
    CHECK(gemm.device_name == "NVIDIA H200");
    CHECK(gemm.compute_capability == "9.0");
    CHECK(gemm.duration_s == approx(1385728e-9));  // "1,385,728" ns
    CHECK(gemm.sm_clock_hz == approx(1597139247.93));
    // 2 x 8192 x 8192 x 8320 = 1,116,691,496,960 (N padded to 26 tiles of 320).
    REQUIRE(gemm.tensor_flops_by_precision.count("bf16_dst_fp32") == 0);
    CHECK(gemm.tensor_flops_by_precision.at("bf16") == 1116691496960.0);
    CHECK(gemm.work().flops_at(peak_key::bf16) == 1116691496960.0);
    // DRAM bytes = dram__bytes.sum.per_second x duration = 996,262,331,424.35 x 1.385728e-3.
    CHECK(gemm.dram_bytes == approx(1380548608.0).epsilon(1e-9));
    CHECK(gemm.sm_throughput_pct == approx(93.32));
    CHECK(gemm.tensor_pipe_active_pct == approx(93.32));
    CHECK(gemm.l2_throughput_pct == approx(48.78));
    CHECK(std::isnan(gemm.l2_bytes));  // the report has no lts__t_bytes/sectors totals
    // 1.1167e12 FLOP / 1.3857 ms = 805.9 TFLOP/s.
    CHECK(gemm.flops_per_s() == approx(1116691496960.0 / 1385728e-9));
    // Layer norm: no tensor work; FP32 = (fadd + fmul + 2 ffma) per cycle x clock x time
    // = (38.63 + 718.32 + 2 x 359.41) x 1.95006e9 x 41.92e-6 = 1.20639e8 FLOP.
    const auto& ln = r.kernels[0];
    CHECK(ln.tensor_flops_by_precision.at("bf16") == 0.0);
    CHECK(ln.fp32_flops == approx(120638831.06).epsilon(1e-6));
    CHECK(ln.dram_bytes == approx(110725376.0).epsilon(1e-9));
    // SDPA (hmma path) also counts as bf16.
    CHECK(r.kernels[4].tensor_flops_by_precision.at("bf16") == 17179869184.0);
}

TEST_CASE("ncu details page (RTX 5090 GEMV): raw metrics and section display names") {
    const auto p = test::shared_sample("ncu/rtx5090_gemv_kernel0001.details.csv");
    if (!test::have_sample(p)) return;
    const auto r = read_ncu_csv(p.string());
    CHECK(r.page == "details");
    REQUIRE(r.kernels.size() == 1);
    const auto& k = r.kernels[0];
    CHECK(k.compute_capability == "12.0");
    CHECK(k.block_size == "(32, 4, 1)");
    CHECK(k.duration_s == approx(6.75e-6));
    CHECK(k.dram_read_bytes == approx(2.33e6));  // "2.33" Mbyte
    CHECK(k.dram_write_bytes == 0.0);
    CHECK(k.dram_bytes == approx(2.33e6));
    CHECK(k.dram_throughput_pct == approx(19.66));
    CHECK(k.sm_throughput_pct == approx(9.15));
    CHECK(k.memory_throughput_pct == approx(19.66));
    CHECK(k.sm_clock_hz == approx(1.99e9));
    CHECK(k.dram_clock_hz == approx(13.72e9));
    CHECK(k.achieved_occupancy_pct == approx(11.32));
    CHECK(k.tensor_flops_by_precision.at("bf16") == 0.0);  // a GEMV runs on the CUDA cores
    CHECK(std::isnan(k.fp16_flops));                        // flop_count_hp = n/a on sm_120
    CHECK(k.metrics.at("GPU Speed Of Light Throughput / Elapsed Cycles") == 13485.0);  // "13,485"
    CHECK(k.metrics.at("Memory Workload Analysis / Memory Throughput") == approx(345.14e9));
    CHECK(r.stats.events_skipped == 0);
    // 345.14 GB/s x 6.75 us = 2.33 MB: decimal prefixes.
    CHECK(k.metrics.at("dram__bytes.sum.per_second") * k.duration_s == approx(k.dram_bytes).epsilon(0.01));
}

TEST_CASE("ncu section export with a Body Item Label column") {
    const auto p = test::shared_sample("ncu/rtx5090_gemv_kernel0001.roofline_section.csv");
    if (!test::have_sample(p)) return;
    const auto r = read_ncu_csv(p.string());
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels[0].metrics.at(
              "GPU Speed Of Light Roofline Chart / Theoretical Predicated-On FFMA Thread Instructions Executed") ==
          21760.0);  // 170 SMs x 128
}

TEST_CASE("ncu CSV bad input and variants") {
    const std::string head =
        "==PROF== Connected to process 1 (/usr/bin/python3)\n"
        "==WARNING== Note: Running with unmodified GPU clocks.\n"
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
        "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
        "\"dram__bytes_write.sum\",\"sm__ops_path_tensor_src_fp8_sparsity_off.sum\",\"sm__ops_path_tensor_src_fp8_sparsity_on.sum\"\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"Gbyte\",\"Mbyte\",\"\",\"\"\n";
    SUBCASE("European separators, sparsity split summed, bad numbers counted") {
        const temp_file f(head +
                              "\"0\",\"1\",\"p\",\"h\",\"k, with comma\",\"1\",\"7\",\"(128, 1, 1)\",\"(132, 1, 1)\",\"0\",\"10.0\","
                              "\"1.234,5\",\"27.595.520\",\"n/a\",\"1,000\",\"500\"\n"
                              "\"1\",\"1\",\"p\",\"h\",\"k2\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"10.0\","
                              "\"12,34\",\"1\",\"1\",\"0\",\"0\"\n",
                          ".csv");
        const auto r = read_ncu_csv(f.path());
        REQUIRE(r.kernels.size() == 2);
        const auto& k = r.kernels[0];
        CHECK(k.name == "k, with comma");
        CHECK(k.duration_s == approx(1234.5e-6));
        CHECK(k.dram_read_bytes == approx(27595520e9));
        CHECK(std::isnan(k.dram_write_bytes));
        CHECK(k.tensor_flops_by_precision.at("fp8") == 1500.0);
        CHECK(k.work().flops_at(peak_key::fp8) == 1500.0);
        CHECK(r.stats.skipped_by_reason.at("bad_value(gpu__time_duration.sum)") == 1);
        CHECK(std::isnan(r.kernels[1].duration_s));
    }
    SUBCASE("no header") {
        const temp_file f("==PROF== nothing profiled\n", ".csv");
        CHECK_THROWS_WITH_AS(read_ncu_csv(f.path()), doctest::Contains("not an Nsight Compute CSV"), parse_error);
    }
    SUBCASE("empty, missing, corrupt gzip") {
        const temp_file e("", ".csv");
        CHECK_THROWS_WITH_AS(read_ncu_csv(e.path()), doctest::Contains("empty file"), parse_error);
        CHECK_THROWS_AS(read_ncu_csv("/nonexistent/x.csv"), parse_error);
        auto gz = test::gzip_bytes(head);
        gz.resize(gz.size() / 2);
        const temp_file t(gz, ".csv.gz", temp_file::mode::raw_bytes);
        CHECK_THROWS_WITH_AS(read_ncu_csv(t.path()), doctest::Contains("gzip"), parse_error);
    }
    SUBCASE("a truncated row is counted") {
        const temp_file f(head + "\"0\",\"1\",\"p\"\n", ".csv");
        const auto r = read_ncu_csv(f.path());
        CHECK(r.kernels.empty());
        CHECK(r.stats.skipped_by_reason.at("wrong_column_count") == 1);
    }
}

TEST_CASE("ncu unit scaling") {
    using io::detail::ncu_unit_scale;
    CHECK(ncu_unit_scale("Mbyte") == 1e6);
    CHECK(ncu_unit_scale("Gbyte/s") == 1e9);
    CHECK(ncu_unit_scale("byte/second") == 1.0);
    CHECK(ncu_unit_scale("usecond") == 1e-6);
    CHECK(ncu_unit_scale("nsecond") == 1e-9);
    CHECK(ncu_unit_scale("Ghz") == 1e9);
    CHECK(ncu_unit_scale("inst/cycle") == 1.0);
    CHECK(ncu_unit_scale("Kinst") == 1e3);
    CHECK(ncu_unit_scale("%") == 1.0);
    CHECK(ncu_unit_scale("byte/usecond") == approx(1e6));
}
