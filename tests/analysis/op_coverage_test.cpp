// Tests of analysis/op_coverage.hpp: how much of a real trace's kernel time the op tables price.
// Kernel times per launching op are the sums of the files' own `kernel` events grouped by their
// `External id` (a python3 json count of each file).
#include "roofline/analysis/op_coverage.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include "roofline/core/catalog.hpp"
#include "roofline/io/kineto.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
double share_of(const std::vector<op_price_coverage::bounded_op>& v, std::string_view name) {
    for (const auto& b : v)
        if (b.name == name) return b.kernel_s;
    return 0;
}
}  // namespace

TEST_CASE("the B200 vLLM gpt-oss trace is priced over all but 0.08% of its kernel time") {
    const auto path =
        test::shared_sample("kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz");
    if (!test::have_sample(path)) return;
    const auto t = read_kineto(path.string());
    const auto c = price_coverage(t, gpu_catalog::builtin().at("b200"));
    // 768 kernels, 10,862.916 us.
    CHECK(c.kernel_s == approx(10862.916e-6));
    // Unpriced: aten::index (3.904 us; its index tensors' sizes are not recorded) and the 2
    // kernels without a launching op.
    REQUIRE(c.unpriced_by_op.size() == 2);
    CHECK(c.unpriced_by_op[0].first == "(no launching op)");
    CHECK(c.unpriced_by_op[1].first == "aten::index");
    CHECK(c.unpriced_by_op[1].second == approx(3.904e-6));
    CHECK(c.unpriced_share() < 0.001);
    CHECK(c.priced_share() + c.unpriced_share() == approx(1.0));
    // Priced by bound: the MoE (252 kernels, 6,078.426 us), the symm_mem all-reduce (2,119.548)
    // and the attention (485.821).
    REQUIRE(c.bounded_by_op.size() == 3);
    CHECK(c.bounded_by_op[0].name == "vllm::moe_forward");
    CHECK(share_of(c.bounded_by_op, "vllm::moe_forward") == approx(6078.426e-6));
    CHECK(share_of(c.bounded_by_op, "symm_mem::multimem_all_reduce_") ==
          approx(2119.548e-6));
    CHECK(share_of(c.bounded_by_op, "vllm::unified_attention_with_output") ==
          approx(485.821e-6));
    CHECK(c.bounded_s == approx((6078.426 + 2119.548 + 485.821) * 1e-6));
}

TEST_CASE("the reader gives vllm::moe_forward the tensors it allocated, which price it") {
    const auto path =
        test::shared_sample("kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz");
    if (!test::have_sample(path)) return;
    const auto t = read_kineto(path.string());
    const cpu_op* moe = nullptr;
    int moe_ops = 0;
    for (const auto& o : t.ops)
        if (o.name == "vllm::moe_forward") moe = &o, ++moe_ops;
    REQUIRE(moe);
    CHECK(moe_ops == 36);  // one per layer of the 36-layer model
    // 18 direct aten::empty children: the fp8 hidden states first ([888, 3072], code 24).
    const auto alloc = op_allocations(*moe);
    REQUIRE(alloc.size() == 18);
    CHECK(alloc[0].shape == std::vector<std::int64_t>{888, 3072});
    CHECK(alloc[0].scalar_type == 24);
    const auto w = price_op(*moe, gpu_catalog::builtin().at("b200"));
    REQUIRE(w);
    CHECK(w->work.dram_bytes() == approx(332003328.0));  // op_workload_test's hand count
}

TEST_CASE("the H200 MoE decode and H100 Qwen traces: what stays unpriced and why") {
    const auto h200 = test::shared_sample("h200/h200_moe_decode_step.trace.json.gz");
    if (test::have_sample(h200)) {
        const auto c =
            price_coverage(read_kineto(h200.string()), gpu_catalog::builtin().at("h200-sxm"));
        CHECK(c.kernel_s == approx(3210.3e-6));
        // aten::index (8.129 us) only: 0.25%.
        REQUIRE(c.unpriced_by_op.size() == 1);
        CHECK(c.unpriced_by_op[0].first == "aten::index");
        CHECK(c.unpriced_s == approx(8.129e-6));
    }
    const auto h100 = test::shared_sample("kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz");
    if (test::have_sample(h100)) {
        const auto c =
            price_coverage(read_kineto(h100.string()), gpu_catalog::builtin().at("h100-sxm"));
        CHECK(c.kernel_s == approx(45432.698e-6));
        // 436 kernels (13,672.64 us) have neither a launch event nor an External id: no op to
        // price them from. Every kernel with a launching op is priced.
        REQUIRE(c.unpriced_by_op.size() == 1);
        CHECK(c.unpriced_by_op[0].first == "(no launching op)");
        CHECK(c.unpriced_by_op[0].second == approx(13672.64e-6));
        // The cat kernels (2,017.782 us) are priced by bound.
        REQUIRE(c.bounded_by_op.size() == 1);
        CHECK(c.bounded_by_op[0].kernel_s == approx(2017.782e-6));
    }
}

TEST_CASE("this project's H200 serving-stack recordings: every kernel with a launching op priced") {
    // data/samples/h200-stacks (in the repo). Before the Inductor and memory families,
    // compile_autotune was 3.5% priced, flex_prefill 0%, compile_block 94.0%, eager_decode_b8
    // 93.3%, moe_grouped 87.7%.
    const gpu_spec g = gpu_catalog::builtin().at("h200-sxm");
    struct expect {
        const char* name;
        double bounded_share;  // of kernel time
    };
    for (const expect e : {expect{"compile_autotune", 0.0}, expect{"compile_block", 0.0},
                           expect{"flex_prefill", 1.0}, expect{"eager_decode_b8", 0.0213}}) {
        CAPTURE(e.name);
        const auto t = read_kineto(
            (test::repo_data("samples/h200-stacks") / e.name / "trace.json.gz").string());
        const auto c = price_coverage(t, g);
        CHECK(c.kernel_s > 0);
        CHECK(c.unpriced_s == 0);
        CHECK(c.bounded_s / c.kernel_s == approx(e.bounded_share).epsilon(0.01));
    }
    // moe_grouped: only aten::index (its index tensors are not recorded) stays unpriced.
    const auto c = price_coverage(
        read_kineto(test::repo_data("samples/h200-stacks/moe_grouped/trace.json.gz").string()), g);
    REQUIRE(c.unpriced_by_op.size() == 1);
    CHECK(c.unpriced_by_op[0].first == "aten::index");
    CHECK(c.unpriced_share() < 0.005);
}
