// Tests of analysis/op_workload.hpp: the work of profiled ops from their recorded shapes,
// against hand calculations.
#include "roofline/analysis/op_workload.hpp"

#include <doctest/doctest.h>

#include "roofline/core/catalog.hpp"

using namespace roofline;

namespace {
cpu_op op(std::string_view name, std::string_view dims, std::string_view types,
          std::string_view concrete = {}) {
    cpu_op o;
    o.name = name;
    o.input_dims = dims;
    o.input_types = types;
    o.concrete_inputs = concrete;
    return o;
}
const gpu_spec& h200() {
    static const gpu_spec g = gpus::h200_sxm();
    return g;
}
}  // namespace

TEST_CASE("aten::mm prices 2 m n k FLOP and each operand once") {
    // The gemm_power recording: [16384 x 16384] x [16384 x 16384] bf16.
    // F = 2 x 16384^3 = 8,796,093,022,208; B = 3 x 16384^2 x 2 = 1,610,612,736.
    const auto w = price_op(
        op("aten::mm", "[[16384,16384],[16384,16384]]", R"(["c10::BFloat16","c10::BFloat16"])"),
        h200());
    REQUIRE(w);
    CHECK(w->kind == "gemm");
    CHECK(w->work.flops_at(peak_key::bf16) == doctest::Approx(8796093022208.0));
    CHECK(w->work.dram_bytes() == doctest::Approx(1610612736.0));
    CHECK(w->work.launches == 1);
    CHECK(w->description.find("bf16") != std::string::npos);
}

TEST_CASE("aten::addmm adds the bias read to the GEMM") {
    // bias [4096], A [64, 1024], B [1024, 4096] bf16:
    // F = 2 x 64 x 4096 x 1024 = 536,870,912;
    // B = (64x1024 + 1024x4096 + 64x4096) x 2 + 4096 x 2 = 9,043,968 + 8,192 = 9,052,160.
    const auto w =
        price_op(op("aten::addmm", "[[4096],[64,1024],[1024,4096],[],[]]",
                    R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])"),
                 h200());
    REQUIRE(w);
    CHECK(w->work.flops_at(peak_key::bf16) == doctest::Approx(536870912.0));
    CHECK(w->work.dram_bytes() == doctest::Approx(9052160.0));
}

TEST_CASE("fp32 GEMMs run on the fp32 vector pipe, linear folds leading dims into m") {
    // linear: input [2, 8, 64] fp32, weight [32, 64]: m = 16, n = 32, k = 64; F = 2 x 16 x 32 x 64
    // = 65,536.
    const auto w =
        price_op(op("aten::linear", "[[2,8,64],[32,64],[]]", R"(["float","float",""])"), h200());
    REQUIRE(w);
    CHECK(w->work.flops_at(peak_key::fp32) == doctest::Approx(65536.0));
    CHECK(w->work.flops_at(peak_key::tf32) == 0);
    // B = (16x64 + 64x32 + 16x32) x 4 = (1024 + 2048 + 512) x 4 = 14,336.
    CHECK(w->work.dram_bytes() == doctest::Approx(14336.0));
}

TEST_CASE("aten::_grouped_mm: 2 M K N FLOP, the weights of the groups that get rows") {
    SUBCASE("prefill: 4096 rows over 64 experts touch all of them") {
        // A [4096, 4096], B [64, 4096, 3072] bf16 (the serving sample's gate/up GEMM).
        // F = 2 x 4096 x 4096 x 3072 = 103,079,215,104.
        // active = 64 (1 - (63/64)^4096) = 64 (the power is e^-64.5).
        // B = 64 x 4096 x 3072 x 2 + 4096 x 4096 x 2 + 4096 x 3072 x 2
        //   = 1,610,612,736 + 33,554,432 + 25,165,824 = 1,669,332,992.
        const auto w = price_op(op("aten::_grouped_mm", "[[4096,4096],[64,4096,3072],[64],[],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","int","",""])"),
                                h200());
        REQUIRE(w);
        CHECK(w->kind == "grouped_gemm");
        CHECK(w->work.flops_at(peak_key::bf16) == doctest::Approx(103079215104.0));
        CHECK(w->work.dram_bytes() == doctest::Approx(1669332992.0));
    }
    SUBCASE("8 rows over 32 experts touch about 7.18 of them") {
        // active = 32 (1 - (31/32)^8) = 32 x (1 - 0.775701) = 7.17757.
        // B = 7.17757 x 64 x 16 x 2 + 8 x 64 x 2 + 8 x 16 x 2 = 14,699.7 + 1,024 + 256 = 15,979.7.
        const auto w = price_op(op("aten::_grouped_mm", "[[8,64],[32,64,16],[32],[],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","int","",""])"),
                                h200());
        REQUIRE(w);
        CHECK(w->work.flops_at(peak_key::bf16) == doctest::Approx(2.0 * 8 * 64 * 16));
        CHECK(w->work.dram_bytes() == doctest::Approx(15979.7).epsilon(1e-4));
    }
}

TEST_CASE("SDPA decode: KV read once, F = B Hq Lk 2 (D + Dv)") {
    // The decode_attention recording (cuDNN backend, [B, H, L, D]): q [64, 32, 1, 128],
    // k and v [64, 8, 8192, 128] bf16.
    // F = 64 x 32 x 8192 x 2 x 256 = 8,589,934,592.
    // B = k + v + q + o = 2 x 64x8x8192x128x2 + 2 x 64x32x128x2 = 2,147,483,648 + 1,048,576 =
    // 2,148,532,224.
    const auto w = price_op(
        op("aten::_cudnn_attention_forward",
           "[[64,32,1,128],[64,8,8192,128],[64,8,8192,128],[],[],[],[],[],[],[],[],[],[]]",
           R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar",""])",
           R"(["","","","","","","1","8192","False","0.","False","False",""])"),
        h200());
    REQUIRE(w);
    CHECK(w->kind == "attention");
    CHECK(w->work.flops_at(peak_key::bf16) == doctest::Approx(8589934592.0));
    CHECK(w->work.dram_bytes() == doctest::Approx(2148532224.0));
    CHECK(w->assumptions.empty());
}

TEST_CASE("SDPA prefill: is_causal from Concrete Inputs halves the pairs") {
    // q [1, 32, 1024, 128], k and v [1, 8, 1024, 128] bf16 (GQA).
    // causal pairs = 1024 x 1025 / 2 = 524,800: F = 32 x 524,800 x 2 x 256 = 8,598,323,200;
    // full pairs = 1024^2 = 1,048,576: F = 32 x 1,048,576 x 512 = 17,179,869,184.
    // B = q 8,388,608 + k 2,097,152 + v 2,097,152 + o 8,388,608 = 20,971,520.
    const std::string dims = "[[1,32,1024,128],[1,8,1024,128],[1,8,1024,128],[],[],[],[],[]]";
    const std::string types =
        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","","Scalar"])";
    const auto causal = price_op(op("aten::scaled_dot_product_attention", dims, types,
                                    R"(["","","","","0.","True","","True"])"),
                                 h200());
    REQUIRE(causal);
    CHECK(causal->work.flops_at(peak_key::bf16) == doctest::Approx(8598323200.0));
    CHECK(causal->work.dram_bytes() == doctest::Approx(20971520.0));
    const auto full = price_op(op("aten::scaled_dot_product_attention", dims, types,
                                  R"(["","","","","0.","False","","True"])"),
                               h200());
    REQUIRE(full);
    CHECK(full->work.flops_at(peak_key::bf16) == doctest::Approx(17179869184.0));
    // Not recorded: the smaller (causal) work, and the assumption said.
    const auto unknown = price_op(op("aten::scaled_dot_product_attention", dims, types), h200());
    REQUIRE(unknown);
    CHECK(unknown->work.flops_at(peak_key::bf16) == doctest::Approx(8598323200.0));
    REQUIRE(unknown->assumptions.size() == 1);
    CHECK(unknown->assumptions[0].find("is_causal") != std::string::npos);
}

TEST_CASE("the flash backend's [B, L, H, D] layout is read as such") {
    // _flash_attention_forward q [1, 1024, 32, 128], k/v [1, 1024, 8, 128], is_causal (index 8)
    // True.
    const auto w = price_op(
        op("aten::_flash_attention_forward",
           "[[1,1024,32,128],[1,1024,8,128],[1,1024,8,128],[],[],[],[],[],[],[],[]]",
           R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"])",
           R"(["","","","","","1024","1024","0.","True","False","0.088"])"),
        h200());
    REQUIRE(w);
    CHECK(w->work.flops_at(peak_key::bf16) == doctest::Approx(8598323200.0));
}

TEST_CASE("elementwise and copies are priced by bytes read plus bytes written") {
    SUBCASE("add with out=: two reads and one write of 2^30 bf16") {
        // B = 3 x 2^30 x 2 = 6,442,450,944 (the elementwise recording); F = 2^30 on the fp32 pipe.
        const auto w = price_op(op("aten::add", "[[1073741824],[1073741824],[],[1073741824]]",
                                   R"(["c10::BFloat16","c10::BFloat16","Scalar","c10::BFloat16"])"),
                                h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == doctest::Approx(6442450944.0));
        CHECK(w->work.flops_at(peak_key::fp32) == doctest::Approx(1073741824.0));
    }
    SUBCASE("an in-place cast copy_ reads the source and writes the destination") {
        // dst [64, 32] fp32 written (8,192 B), src bf16 read (4,096 B): 12,288.
        const auto w = price_op(
            op("aten::copy_", "[[64,32],[64,32],[]]", R"(["float","c10::BFloat16","Scalar"])"),
            h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == doctest::Approx(12288.0));
        CHECK(w->work.total_flops() == 0);
    }
    SUBCASE("a scalar operand is a 0-dimensional tensor of its type") {
        // mul [1024] fp32 by a double scalar: 4,096 + 8 read, 4,096 written = 8,200; 1,024 FLOP.
        const auto w = price_op(op("aten::mul", "[[1024],[]]", R"(["float","double"])"), h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == doctest::Approx(8200.0));
        CHECK(w->work.flops_at(peak_key::fp32) == doctest::Approx(1024.0));
    }
}

TEST_CASE("ops without a model or without shapes are not priced") {
    CHECK_FALSE(
        price_op(op("aten::sort", "[[256],[],[]]", R"(["long int","Scalar","Scalar"])"), h200()));
    CHECK_FALSE(price_op(op("aten::mm", "", ""), h200()));
    CHECK_FALSE(
        price_op(op("aten::mm", "[[4,5],[6,7]]", R"(["float","float"])"), h200()));  // k mismatch
    CHECK_FALSE(
        price_op(op("aten::mm", "[[4,5],[5", R"(["float","float"])"), h200()));  // truncated
    // A TensorList parses (cat), but its element type is not recorded: unpriced.
    const auto args =
        op_arguments(op("aten::cat", "[[[1,2],[1,2]],[]]", R"(["TensorList","Scalar"])"));
    REQUIRE(args);
    CHECK((*args)[0].is_list);
    CHECK((*args)[0].shapes.size() == 2);
    CHECK_FALSE(
        price_op(op("aten::cat", "[[[1,2],[1,2]],[]]", R"(["TensorList","Scalar"])"), h200()));
}
