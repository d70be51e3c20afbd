// Tests of analysis/gpu_match.hpp: which catalog entry a trace's device is, and why.
#include "roofline/analysis/gpu_match.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include <filesystem>

#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "test_support.hpp"

using namespace roofline;

TEST_CASE("the B200 and H100 sample traces resolve by their device names") {
    const auto catalog = gpu_catalog::builtin();
    const auto b200 =
        test::shared_sample("kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz");
    if (test::have_sample(b200)) {
        const auto t = read_kineto(b200.string());
        REQUIRE(!t.devices.empty());
        const auto r = resolve_trace_gpu(&t.devices.front(), catalog);
        CHECK(r.id == "b200");
        CHECK(r.method == "device name");
        CHECK_FALSE(r.ambiguous);
    }
    const auto h100 = test::shared_sample("kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz");
    if (test::have_sample(h100)) {
        const auto t = read_kineto(h100.string());
        REQUIRE(!t.devices.empty());
        const auto r = resolve_trace_gpu(&t.devices.front(), catalog);
        CHECK(r.id == "h100-sxm");  // "NVIDIA H100 80GB HBM3"
        CHECK(r.reason.find("NVIDIA H100 80GB HBM3") != std::string::npos);
    }
}

TEST_CASE("RTX PRO 6000 editions are told apart by the enforced power limit") {
    const auto catalog = gpu_catalog::builtin();
    device_properties d;
    d.name = "NVIDIA RTX PRO 6000 Blackwell";  // the stem all three editions' names start with
    d.compute_major = 12;
    d.compute_minor = 0;
    d.num_sms = 188;
    SUBCASE("300 W is the Max-Q") {
        const auto r = resolve_trace_gpu(&d, catalog, 300.0);
        CHECK(r.id == "rtx-pro-6000-maxq");
        CHECK_FALSE(r.ambiguous);
        CHECK(r.method == "device name stem + power limit");
        CHECK(r.reason.find("300 W") != std::string::npos);
    }
    SUBCASE("600 W fits the Workstation and the Server editions: ambiguous, and said so") {
        const auto r = resolve_trace_gpu(&d, catalog, 600.0);
        CHECK(r.ambiguous);
        CHECK(r.candidates == std::vector<std::string>{"rtx-pro-6000", "rtx-pro-6000-server"});
        CHECK(r.id == "rtx-pro-6000");
        CHECK(r.reason.find("--gpu") != std::string::npos);
    }
    SUBCASE("without a power log all three are candidates") {
        const auto r = resolve_trace_gpu(&d, catalog);
        CHECK(r.ambiguous);
        CHECK(r.candidates.size() == 3);
        CHECK(r.reason.find("would tell editions apart") != std::string::npos);
    }
}

TEST_CASE("an unknown name falls back to compute capability, SM count and memory, and says it assumed") {
    const auto catalog = gpu_catalog::builtin();
    device_properties d;
    d.name = "NVIDIA Hopper Engineering Sample";  // in no entry; CC 9.0 and 132 SMs fit 7 entries
    d.compute_major = 9;
    d.compute_minor = 0;
    d.num_sms = 132;
    d.total_global_mem_bytes = 85'031'714'816;  // 80 GiB as cudaDeviceProp reports it
    const auto r = resolve_trace_gpu(&d, catalog);
    // 85 GB is within 10% of H100 SXM's and H800's 80 GB and H100 NVL's 94 GB, not of 96-141 GB:
    // H100 and H800 cannot be told apart without the name (400 vs 900 GB/s NVLink), so it says so.
    CHECK(r.ambiguous);
    CHECK(r.assumed);
    CHECK(r.candidates == std::vector<std::string>{"h100-sxm", "h100-nvl", "h800"});
    CHECK(r.reason.find("pass --gpu") != std::string::npos);
    d.num_sms = 114;  // only H100 PCIe has 114 SMs
    const auto pcie = resolve_trace_gpu(&d, catalog);
    CHECK(pcie.id == "h100-pcie");
    CHECK_FALSE(pcie.ambiguous);
    CHECK(pcie.assumed);
    CHECK(pcie.method == "compute capability and SM count");
    CHECK(pcie.reason.find("assumed from compute capability 9.0 and 114 SMs") != std::string::npos);
}

TEST_CASE("H800 matches h800 by its device name (400 GB/s NVLink), not h100-sxm") {
    const auto catalog = gpu_catalog::builtin();
    device_properties d;
    d.name = "NVIDIA H800";
    d.compute_major = 9;
    d.compute_minor = 0;
    d.num_sms = 132;
    d.total_global_mem_bytes = 85'031'714'816;
    const auto r = resolve_trace_gpu(&d, catalog);
    CHECK(r.id == "h800");
    CHECK(r.method == "device name");
    CHECK_FALSE(r.ambiguous);
    CHECK_FALSE(r.assumed);
    CHECK(*catalog.at(r.id).nvlink_bandwidth_bytes_per_s.value == 400e9);
}

TEST_CASE("the HolisticTraceAnalysis devices resolve by name, AMD is refused with the reason") {
    const auto catalog = gpu_catalog::builtin();
    struct named {
        const char* name;
        double memory;
        int major, sms;
        const char* id;
    };
    for (const named n : {named{"NVIDIA A100-PG509-200", 42297524224.0, 8, 108, "a100-sxm4-40gb"},
                          named{"NVIDIA A100-SXM4-80GB", 84990623744.0, 8, 108, "a100-sxm4-80gb"},
                          named{"Tesla V100-SXM2-32GB", 34089730048.0, 7, 80, "v100-sxm2-32gb"},
                          named{"Tesla V100-SXM2-16GB", 16945512448.0, 7, 80, "v100-sxm2-16gb"}}) {
        INFO(n.name);
        device_properties d;
        d.name = n.name;
        d.total_global_mem_bytes = n.memory;
        d.compute_major = n.major;
        d.compute_minor = 0;
        d.num_sms = n.sms;
        const auto r = resolve_trace_gpu(&d, catalog);
        CHECK(r.id == n.id);
        CHECK(r.method == "device name");
        CHECK_FALSE(r.assumed);
    }
    device_properties amd;
    amd.name = "AMD Radeon Graphics";  // the MI250 trace's device
    amd.compute_major = 9;
    amd.compute_minor = 0;
    amd.num_sms = 104;
    const auto r = resolve_trace_gpu(&amd, catalog);
    CHECK(r.id.empty());
    CHECK(r.reason.find("AMD GPUs are not in the catalog") != std::string::npos);
}

TEST_CASE("kernel names give the architecture of a trace without device properties") {
    using detail::gpu_match::kernel_name_arch;
    CHECK(kernel_name_arch("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64") == "sm90");
    CHECK(kernel_name_arch("nvjet_sm90_tst_128x256_64x4_1x2_h_bz_coopA_NTT") == "sm90");
    CHECK(kernel_name_arch("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32") == "sm80");
    CHECK(kernel_name_arch("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn") == "sm80");
    CHECK(kernel_name_arch("volta_sgemm_128x64_nn") == "sm70");
    CHECK(kernel_name_arch("void cutlass::Kernel<cutlass_70_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_tn_align8>") == "sm70");
    CHECK(kernel_name_arch("cutlass3x_sm100_tensorop_gemm") == "sm100");
    CHECK(kernel_name_arch("void at::native::vectorized_elementwise_kernel<4>") == "");
    CHECK(kernel_name_arch("smem_copy_kernel") == "");
    CHECK(kernel_name_arch("gemsm90_x") == "");  // "sm" inside a word is no marker

    kernel_trace t;
    const auto add = [&](const char* name) {
        kernel_event e;
        e.name = t.strings->intern(name);
        t.events.push_back(e);
    };
    add("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32");
    add("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn");
    add("void at::native::vectorized_elementwise_kernel<4>");
    const auto catalog = gpu_catalog::builtin();
    const auto r = resolve_by_kernel_names(t, catalog);
    CHECK(r.id == "a100-sxm4-80gb");
    CHECK(r.assumed);
    CHECK(r.method == "kernel names");
    CHECK(r.reason.find("2 of 3 kernel names carry sm80") != std::string::npos);
    CHECK(r.reason.find("--gpu") != std::string::npos);
    kernel_trace plain;
    plain.events.push_back(kernel_event{});
    const auto none = resolve_by_kernel_names(plain, catalog);
    CHECK(none.id.empty());
    CHECK(none.reason.find("pass --gpu ID") != std::string::npos);
    const auto g = unknown_gpu_spec(none.reason);
    CHECK(std::isnan(datasheet_ceilings(g).flops_at(peak_key::bf16)));
    CHECK(std::isnan(datasheet_ceilings(g).bytes_at(memory_level::dram)));
}

TEST_CASE("--gpu picks among the chip's entries, another chip is refused, and nothing matched means asking for it") {
    const auto catalog = gpu_catalog::builtin();
    device_properties d;
    d.name = "NVIDIA H200";
    const auto r = resolve_trace_gpu(&d, catalog, std::nullopt, "h200-nvl");
    CHECK(r.id == "h200-nvl");
    CHECK(r.method == "--gpu");
    CHECK(r.reason.find("NVIDIA H200") != std::string::npos);  // the other board is noted
    // Another chip: by the device name (no compute capability, as nsys CSV), and by compute
    // capability (Kineto deviceProperties), whatever the name.
    CHECK_THROWS_WITH_AS(resolve_trace_gpu(&d, catalog, std::nullopt, "b200"),
                         doctest::Contains("--gpu b200 is sm100, but the trace was recorded on \"NVIDIA H200\" (h200-sxm, sm90)"),
                         usage_error);
    device_properties cc;
    cc.name = "NVIDIA H200";
    cc.compute_major = 9;
    cc.compute_minor = 0;
    CHECK(resolve_trace_gpu(&cc, catalog, std::nullopt, "h100-sxm").id == "h100-sxm");
    CHECK_THROWS_WITH_AS(resolve_trace_gpu(&cc, catalog, std::nullopt, "rtx-5090"),
                         doctest::Contains("compute capability 9.0 (sm90)"), usage_error);
    CHECK_THROWS_AS(resolve_trace_gpu(&d, catalog, std::nullopt, "no-such-gpu"), usage_error);
    CHECK(resolve_trace_gpu(nullptr, catalog).id.empty());
    device_properties odd;
    odd.name = "Some Other GPU";
    odd.compute_major = 7;
    odd.compute_minor = 5;
    odd.num_sms = 40;
    const auto none = resolve_trace_gpu(&odd, catalog);
    CHECK(none.id.empty());
    CHECK(none.reason.find("pass --gpu") != std::string::npos);
}

TEST_CASE("every NVIDIA HolisticTraceAnalysis trace with GPU work is analysed without --gpu") {
    // A100 and V100 traces resolve by their device names; traces without device properties by
    // their kernel names or, failing that, as an unknown GPU (timeline and phases, no roofs).
    const auto root = test::shared_sample("hta");
    if (!test::have_sample(root)) return;
    const auto catalog = gpu_catalog::builtin();
    const kernel_rules rules = load_kernel_rules();
    kineto_options ko;
    ko.rules = &rules;
    std::size_t analysed = 0, by_name = 0, by_kernels = 0, unknown = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const std::string path = entry.path().string();
        if (!entry.is_regular_file() || path.find(".json") == std::string::npos) continue;
        INFO(path);
        const auto t = read_kineto(path, ko);
        if (t.events.empty()) continue;  // no GPU work (rank_non_gpu, ...)
        if (path.find("amd_trace") != std::string::npos) {
            CHECK_THROWS_WITH_AS(analyze_trace(t, catalog), doctest::Contains("AMD GPUs are not in the catalog"),
                                 usage_error);
            continue;
        }
        trace_analysis a;
        CHECK_NOTHROW(a = analyze_trace(t, catalog));
        ++analysed;
        if (a.gpu.method == "device name") ++by_name;
        else if (a.gpu.method == "kernel names") ++by_kernels;
        else if (a.gpu.id.empty()) ++unknown;
        CHECK(a.summary.kernel_count > 0);
    }
    // 18 files with kernels (counted by a python3 json script): 13 with device properties
    // (A100 x10, of them 9 "A100-PG509-200"; V100 x3) and 5 without (call_stack,
    // timeline_analysis, trace_filter x2: cutlass_80_ kernels; trace_file_list: cutlass_70_).
    CHECK(analysed == 18);
    CHECK(by_name == 13);
    CHECK(by_kernels == 5);
    CHECK(unknown == 0);
}
