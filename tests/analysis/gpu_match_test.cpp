// Tests of analysis/gpu_match.hpp: which catalog entry a trace's device is, and why.
#include "roofline/analysis/gpu_match.hpp"

#include <doctest/doctest.h>

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

TEST_CASE("an unknown name falls back to compute capability, SM count and memory") {
    const auto catalog = gpu_catalog::builtin();
    device_properties d;
    d.name = "NVIDIA H800";  // not in the catalog; CC 9.0 and 132 SMs fit H100 and H200
    d.compute_major = 9;
    d.compute_minor = 0;
    d.num_sms = 132;
    d.total_global_mem_bytes = 85'031'714'816;  // 80 GiB as cudaDeviceProp reports it
    const auto r = resolve_trace_gpu(&d, catalog);
    CHECK(r.id == "h100-sxm");  // 85 GB is within 10% of 80 GB, not of 141 GB
    CHECK(r.method == "compute capability and SM count");
    CHECK_FALSE(r.ambiguous);
    d.total_global_mem_bytes = kernel_event::unknown;
    CHECK(resolve_trace_gpu(&d, catalog).ambiguous);
}

TEST_CASE("--gpu wins, and nothing matched means asking for it") {
    const auto catalog = gpu_catalog::builtin();
    device_properties d;
    d.name = "NVIDIA H200";
    const auto r = resolve_trace_gpu(&d, catalog, std::nullopt, "b200");
    CHECK(r.id == "b200");
    CHECK(r.method == "--gpu");
    CHECK(r.reason.find("NVIDIA H200") != std::string::npos);  // the mismatch is noted
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
