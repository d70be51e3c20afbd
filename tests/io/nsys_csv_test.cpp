// Tests of io/nsys_csv.hpp on the real cuda_gpu_kern_sum report and on small reports written
// here for the other variants (cuda_gpu_trace, old headers, preamble, --timeunit, separators).
#include <doctest/doctest.h>

#include "approx.hpp"

#include "io/io_test_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

namespace {
const kernel_rules& rules() {
    static const kernel_rules r = load_kernel_rules();
    return r;
}
}  // namespace

TEST_CASE("nsys cuda_gpu_kern_sum (RTX 5090 DeepSeek-OCR decode)") {
    const auto p = test::shared_sample("nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv");
    if (!test::have_sample(p)) return;
    CHECK(detect_nsys_report(p.string()) == nsys_report::cuda_gpu_kern_sum);
    const auto s = read_nsys_kern_sum(p.string(), rules());
    // python csv: 46 rows, 78,016 instances, 179,072,697 ns in total.
    CHECK(s.stats.events_read == 46);
    CHECK(s.stats.events_kept == 46);
    CHECK(s.kernel_count == 78016.0);
    CHECK(s.kernel_time_s == approx(0.179072697).epsilon(1e-12));
    REQUIRE(s.kernels.size() == 46);
    const auto& top = s.kernels[0];  // the cuBLAS GEMV, 34.4 %
    CHECK(top.name.rfind("std::enable_if<!T7, void>::type internal::gemvx::kernel", 0) == 0);
    CHECK(top.phase == kernel_phase::gemm);
    CHECK(top.count == 16448.0);
    CHECK(top.total_s == approx(0.061602133));
    CHECK(top.min_s == approx(2080e-9));
    CHECK(top.max_s == approx(5728e-9));
    CHECK(top.share == approx(61602133.0 / 179072697.0));
    CHECK(s.phase_s(kernel_phase::other) / s.gpu_time_s < 0.05);
}

TEST_CASE("nsys report variants") {
    SUBCASE("preamble, banner, old gpukernsum headers, microseconds, separators") {
        const temp_file f(
            "Generating SQLite file report.sqlite from report.nsys-rep\n"
            "Processing [report.sqlite] with [/opt/nvidia/nsys/reports/gpukernsum.py]...\n"
            "\n ** CUDA GPU Kernel Summary (gpukernsum):\n\n"
            "Time(%),Total Time (us),Instances,Average,Minimum,Maximum,Name\n"
            "60.0,\"1,200.5\",3,400.2,300,500,\"void gemm<float, 128>(float*)\"\n"
            "40.0,800,2,400,400,400,ncclDevKernel_AllReduce_Sum_bf16_RING_LL\n"
            "bad,row\n",
            ".csv");
        const auto s = read_nsys_kern_sum(f.path(), rules());
        CHECK(s.stats.events_read == 3);
        CHECK(s.stats.events_kept == 2);
        CHECK(s.stats.skipped_by_reason.at("wrong_column_count") == 1);
        CHECK(s.kernel_time_s == approx(2000.5e-6));
        CHECK(s.kernels[0].name == "void gemm<float, 128>(float*)");
        CHECK(s.kernels[0].min_s == approx(300e-6));
        CHECK(s.phase_s(kernel_phase::communication) == approx(800e-6));
    }
    SUBCASE("cuda_gpu_trace: kernels and memory operations") {
        const temp_file f(
            "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
            "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
            "1000,500,11,132,1,1,384,1,1,168,0.000,0.207,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,nvjet_sm90_tst_256x128\n"
            "\"1,600\",250,12,,,,,,,,,,4.194,16777.216,Pageable,Device,NVIDIA H100 80GB HBM3 (0),1,,7,[CUDA memcpy Host-to-Device]\n"
            "900,-5,13,,,,,,,,,,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,[CUDA memset]\n",
            ".csv");
        CHECK(detect_nsys_report(f.path()) == nsys_report::cuda_gpu_trace);
        const auto t = read_nsys_gpu_trace(f.path(), rules());
        CHECK(t.stats.events_read == 3);
        CHECK(t.stats.skipped_by_reason.at("negative_dur") == 1);
        REQUIRE(t.events.size() == 2);
        const auto& k = t.events[0];
        CHECK(k.phase == kernel_phase::gemm);
        CHECK(k.start_s == 0.0);
        CHECK(k.duration_s == approx(500e-9));
        CHECK(k.grid == std::array<std::uint32_t, 3>{132, 1, 1});
        CHECK(k.registers_per_thread == 168);
        CHECK(k.shared_memory_bytes == approx(207000.0));
        CHECK(k.device == 0);
        CHECK(k.stream == 7);
        CHECK(k.correlation == 11);
        const auto& m = t.events[1];
        CHECK(m.activity == gpu_activity::memcpy);
        CHECK(m.start_s == approx(600e-9));
        CHECK(m.bytes == approx(4.194e6));
        // The Device column names the GPU: the one device property an nsys CSV carries.
        REQUIRE(t.devices.size() == 1);
        CHECK(t.devices[0].id == 0);
        CHECK(t.devices[0].name == "NVIDIA H100 80GB HBM3");
    }
    SUBCASE("not an nsys report, empty, missing") {
        const temp_file f("a,b,c\n1,2,3\n", ".csv");
        CHECK_THROWS_WITH_AS(read_nsys_kern_sum(f.path(), rules()), doctest::Contains("not an nsys"), parse_error);
        CHECK_THROWS_AS(detect_nsys_report(f.path()), parse_error);
        const temp_file e("", ".csv");
        CHECK_THROWS_AS(read_nsys_gpu_trace(e.path(), rules()), parse_error);
        CHECK_THROWS_AS(read_nsys_kern_sum("/nonexistent/k.csv", rules()), parse_error);
    }
    SUBCASE("a header without Total Time") {
        const temp_file f("Time (%),Instances,Name\n1,2,k\n", ".csv");
        CHECK_THROWS_AS(read_nsys_kern_sum(f.path(), rules()), parse_error);
    }
}
