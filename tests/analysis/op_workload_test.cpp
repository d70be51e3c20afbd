// Tests of analysis/op_workload.hpp: the work of profiled ops from their recorded shapes,
// against hand calculations.
#include "roofline/analysis/op_workload.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>  // std::abs

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
    CHECK(w->work.flops_at(peak_key::bf16) == approx(8796093022208.0));
    CHECK(w->work.dram_bytes() == approx(1610612736.0));
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
    CHECK(w->work.flops_at(peak_key::bf16) == approx(536870912.0));
    CHECK(w->work.dram_bytes() == approx(9052160.0));
}

TEST_CASE("fp32 GEMMs run on the fp32 vector pipe, linear folds leading dims into m") {
    // linear: input [2, 8, 64] fp32, weight [32, 64]: m = 16, n = 32, k = 64; F = 2 x 16 x 32 x 64
    // = 65,536.
    const auto w =
        price_op(op("aten::linear", "[[2,8,64],[32,64],[]]", R"(["float","float",""])"), h200());
    REQUIRE(w);
    CHECK(w->work.flops_at(peak_key::fp32) == approx(65536.0));
    CHECK(w->work.flops_at(peak_key::tf32) == 0);
    // B = (16x64 + 64x32 + 16x32) x 4 = (1024 + 2048 + 512) x 4 = 14,336.
    CHECK(w->work.dram_bytes() == approx(14336.0));
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
        CHECK(w->work.flops_at(peak_key::bf16) == approx(103079215104.0));
        CHECK(w->work.dram_bytes() == approx(1669332992.0));
    }
    SUBCASE("8 rows over 32 experts touch about 7.18 of them") {
        // active = 32 (1 - (31/32)^8) = 32 x (1 - 0.775701) = 7.17757.
        // B = 7.17757 x 64 x 16 x 2 + 8 x 64 x 2 + 8 x 16 x 2 = 14,699.7 + 1,024 + 256 = 15,979.7.
        const auto w = price_op(op("aten::_grouped_mm", "[[8,64],[32,64,16],[32],[],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","int","",""])"),
                                h200());
        REQUIRE(w);
        CHECK(w->work.flops_at(peak_key::bf16) == approx(2.0 * 8 * 64 * 16));
        CHECK(w->work.dram_bytes() == approx(15979.7).epsilon(1e-4));
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
    CHECK(w->work.flops_at(peak_key::bf16) == approx(8589934592.0));
    CHECK(w->work.dram_bytes() == approx(2148532224.0));
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
    CHECK(causal->work.flops_at(peak_key::bf16) == approx(8598323200.0));
    CHECK(causal->work.dram_bytes() == approx(20971520.0));
    const auto full = price_op(op("aten::scaled_dot_product_attention", dims, types,
                                  R"(["","","","","0.","False","","True"])"),
                               h200());
    REQUIRE(full);
    CHECK(full->work.flops_at(peak_key::bf16) == approx(17179869184.0));
    // Not recorded: the smaller (causal) work, and the assumption said.
    const auto unknown = price_op(op("aten::scaled_dot_product_attention", dims, types), h200());
    REQUIRE(unknown);
    CHECK(unknown->work.flops_at(peak_key::bf16) == approx(8598323200.0));
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
    CHECK(w->work.flops_at(peak_key::bf16) == approx(8598323200.0));
}

TEST_CASE("elementwise and copies are priced by bytes read plus bytes written") {
    SUBCASE("add with out=: two reads and one write of 2^30 bf16") {
        // B = 3 x 2^30 x 2 = 6,442,450,944 (the elementwise recording); F = 2^30 on the fp32 pipe.
        const auto w = price_op(op("aten::add", "[[1073741824],[1073741824],[],[1073741824]]",
                                   R"(["c10::BFloat16","c10::BFloat16","Scalar","c10::BFloat16"])"),
                                h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(6442450944.0));
        CHECK(w->work.flops_at(peak_key::fp32) == approx(1073741824.0));
    }
    SUBCASE("an in-place cast copy_ reads the source and writes the destination") {
        // dst [64, 32] fp32 written (8,192 B), src bf16 read (4,096 B): 12,288.
        const auto w = price_op(
            op("aten::copy_", "[[64,32],[64,32],[]]", R"(["float","c10::BFloat16","Scalar"])"),
            h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(12288.0));
        CHECK(w->work.total_flops() == 0);
    }
    SUBCASE("a scalar operand is a 0-dimensional tensor of its type") {
        // mul [1024] fp32 by a double scalar: 4,096 + 8 read, 4,096 written = 8,200; 1,024 FLOP.
        const auto w = price_op(op("aten::mul", "[[1024],[]]", R"(["float","double"])"), h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(8200.0));
        CHECK(w->work.flops_at(peak_key::fp32) == approx(1024.0));
    }
}

TEST_CASE("ops without a model or without shapes are not priced") {
    CHECK_FALSE(price_op(op("aten::argsort", "[[256],[],[]]", R"(["long int","Scalar","Scalar"])"),
                         h200()));
    CHECK_FALSE(price_op(op("aten::mm", "", ""), h200()));
    CHECK_FALSE(
        price_op(op("aten::mm", "[[4,5],[6,7]]", R"(["float","float"])"), h200()));  // k mismatch
    CHECK_FALSE(
        price_op(op("aten::mm", "[[4,5],[5", R"(["float","float"])"), h200()));  // truncated
    // A TensorList parses (cat); its element type is not recorded (see the cat test).
    const auto args =
        op_arguments(op("aten::cat", "[[[1,2],[1,2]],[]]", R"(["TensorList","Scalar"])"));
    REQUIRE(args);
    CHECK((*args)[0].is_list);
    CHECK((*args)[0].shapes.size() == 2);
    // Engine ops without the inputs their model needs stay unpriced.
    CHECK_FALSE(price_op(op("vllm::moe_forward", "[[888,3072],[888,128],[]]",
                            R"(["c10::BFloat16","c10::BFloat16",""])"),
                         h200()));  // no allocations: top-k and the expert width unknown
    CHECK_FALSE(price_op(op("vllm::some_future_op", "[[4,4]]", R"(["float"])"), h200()));
    CHECK_FALSE(price_op(op("triton_poi_fused_0", "[[],[]]", R"(["Scalar","Scalar"])"), h200()));
}

// ---- Real ops of real traces (../shared/samples), their recorded args copied verbatim ----

namespace {
const gpu_spec& b200() {
    static const gpu_spec g = gpus::b200();
    return g;
}
const gpu_spec& h100() {
    static const gpu_spec g = gpus::h100_sxm();
    return g;
}
double rel(double ours, double theirs) { return std::abs(ours - theirs) / theirs; }
}  // namespace

TEST_CASE("TraceLens's GEMM and SDPA formulas agree with ours within 0.2% on real ops") {
    // TraceLens (AMD-AGI/TraceLens perf models): GEMM F = 2 M N K, B = (M K + K N + M N) x elem;
    // SDPA flash F = 4 B H Lq Lk D (causal: half), B = q, k, v, o once.
    SUBCASE("aten::addmm, kineto/tracelens_b200_vllm_gptoss_tp8_eager (the 640-wide GEMM)") {
        const auto w = price_op(op("aten::addmm", "[[640],[888,2880],[2880,640],[],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
                                   R"(["","","","1","1"])"),
                                b200());
        REQUIRE(w);
        const double M = 888, K = 2880, N = 640;
        CHECK(rel(w->work.flops_at(peak_key::bf16), 2 * M * N * K) < 1e-12);  // 3,273,523,200
        CHECK(rel(w->work.dram_bytes(), (M * K + K * N + M * N) * 2) < 0.002);  // + 1,280 B bias
    }
    SUBCASE("aten::mm, kineto/tracelens_h100_qwen1.5-0.5b ([8944, 1024] x [1024, 1024])") {
        const auto w = price_op(
            op("aten::mm", "[[8944,1024],[1024,1024]]", R"(["c10::BFloat16","c10::BFloat16"])"),
            h100());
        REQUIRE(w);
        CHECK(w->work.flops_at(peak_key::bf16) == approx(18756927488.0));
        CHECK(w->work.dram_bytes() == approx(38731776.0));
    }
    SUBCASE("aten::_flash_attention_forward, tracelens_h100_qwen1.5-0.5b (causal prefill)") {
        // q, k, v [16, 559, 16, 64] bf16 ([B, L, H, D]); is_causal = "True".
        const auto w = price_op(
            op("aten::_flash_attention_forward",
               "[[16,559,16,64],[16,559,16,64],[16,559,16,64],[],[],[],[],[],[],[],[],[],[],[],[]]",
               R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","","","",""])",
               R"(["","","","","","559","559","0.","True","False","","","","",""])"),
            h100());
        REQUIRE(w);
        const double tracelens_flops = 4.0 * 16 * 16 * 559 * 559 * 64 / 2;  // 10,239,377,408
        // Ours counts the diagonal (559 x 560 / 2 pairs, not 559^2 / 2): +0.18%.
        CHECK(rel(w->work.flops_at(peak_key::bf16), tracelens_flops) < 0.002);
        CHECK(w->work.dram_bytes() == approx(4.0 * 16 * 559 * 16 * 64 * 2));
    }
    SUBCASE("aten::_cudnn_attention_forward, h200/h200_moe_decode_step (GQA decode, 4096 keys)") {
        const auto w = price_op(
            op("aten::_cudnn_attention_forward",
               "[[64,32,1,128],[64,8,4096,128],[64,8,4096,128],[],[],[],[],[],[],[],[],[],[]]",
               R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar",""])",
               R"(["","","","","","","1","4096","False","0.","False","False",""])"),
            h200());
        REQUIRE(w);
        CHECK(rel(w->work.flops_at(peak_key::bf16), 4.0 * 64 * 32 * 1 * 4096 * 128) < 1e-12);
        // q and o 64 x 32 x 128 x 2 B each, k and v 64 x 8 x 4096 x 128 x 2 B each.
        CHECK(w->work.dram_bytes() == approx(2 * 524288.0 + 2 * 536870912.0));
    }
}

TEST_CASE("vllm::moe_forward from hidden states, router logits and the op's own allocations") {
    // kineto/tracelens_b200_vllm_gptoss_tp8_eager, External id 335 (gpt-oss, TP8): hidden
    // [888, 3072] bf16, router logits [888, 128]; its aten::empty children (Concrete Inputs)
    // include the fp8 hidden states [888, 3072] (code 24) with [85248] = 888 x 3072 / 32 scale
    // bytes, top-k ids [888, 4] int32 (code 3) and intermediate activations [5472, 512].
    cpu_op o = op("vllm::moe_forward", "[[888,3072],[888,128],[]]",
                  R"(["c10::BFloat16","c10::BFloat16",""])", R"(["","",""])");
    o.allocations =
        R"([["[888, 3072]","24","","","False",""],["[85248]","0","","","False",""],)"
        R"(["[888, 4]","3","","","False",""],["[888, 4]","15","","","False",""],)"
        R"(["[888, 3072]","15","","","False",""],["[3552]","3","","","",""],)"
        R"(["[5472, 512]","0","","","",""],["[88064]","0","","","",""],)"
        R"(["[5472, 3072]","15","","","",""]])";
    const auto w = price_op(o, b200());
    REQUIRE(w);
    CHECK(w->kind == "moe");
    CHECK(w->estimate == op_estimate::bounded);
    CHECK(w->bound_reason.find("MXFP4") != std::string::npos);
    // F = 6 T k H I = 6 x 888 x 4 x 3072 x 512, at the fp8 rate (MXFP8 x MXFP4 on SM100).
    CHECK(w->work.flops_at(peak_key::fp8) == approx(33520877568.0));
    // B = 128 experts (all receive tokens: 128 (1 - (1 - 4/128)^888) = 128.0) x 3 x 3072 x 512
    //     x 0.53125 B (4 bits + 8 bits per 32) = 320,864,256, + hidden and output 2 x 5,455,872
    //     + router logits 227,328 = 332,003,328.
    CHECK(w->work.dram_bytes() == approx(332003328.0));
    CHECK(w->description.find("top-4") != std::string::npos);
}

TEST_CASE("vLLM attention, norms, rotary, fp8 quantisation, KV-cache writes (B200 gpt-oss)") {
    // All from kineto/tracelens_b200_vllm_gptoss_tp8_eager, one decoder layer's ops.
    SUBCASE("vllm::unified_attention_with_output: bounded by q, k, v, out and T query-key pairs") {
        const auto w = price_op(op("vllm::unified_attention_with_output",
                                   "[[888,8,64],[888,1,64],[888,1,64],[888,8,64],[],[],[]]",
                                   R"(["c10::Float8_e4m3fn","c10::BFloat16","c10::BFloat16","c10::BFloat16","","",""])"),
                                b200());
        REQUIRE(w);
        CHECK(w->estimate == op_estimate::bounded);
        // q 454,656 (fp8) + k, v 113,664 each + out 909,312 = 1,591,296 B.
        CHECK(w->work.dram_bytes() == approx(1591296.0));
        CHECK(w->work.flops_at(peak_key::fp8) == approx(888.0 * 8 * 2 * 128));
    }
    SUBCASE("_C::fused_add_rms_norm: input and residual read and written, weight read") {
        const auto w = price_op(op("_C::fused_add_rms_norm", "[[888,2880],[888,2880],[2880],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"])"),
                                b200());
        REQUIRE(w);
        CHECK(w->estimate == op_estimate::counted);
        CHECK(w->work.dram_bytes() == approx(4.0 * 888 * 2880 * 2 + 2880 * 2));
    }
    SUBCASE("_C::rms_norm(out, input, weight): out written, input and weight read") {
        const auto w = price_op(op("_C::rms_norm", "[[888,2880],[888,2880],[2880],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"])"),
                                b200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(2.0 * 888 * 2880 * 2 + 2880 * 2));
    }
    SUBCASE("_C::rotary_embedding: q and k in place, 888 rows of the cos/sin cache") {
        const auto w = price_op(op("_C::rotary_embedding", "[[888],[888,512],[888,64],[],[131072,64],[]]",
                                   R"(["long int","c10::BFloat16","c10::BFloat16","Scalar","c10::BFloat16","Scalar"])",
                                   R"(["","","","64","","True"])"),
                                b200());
        REQUIRE(w);
        // 2 x (909,312 + 113,664) + positions 7,104 + cache rows 888 x 64 x 2 = 2,166,720.
        CHECK(w->work.dram_bytes() == approx(2166720.0));
    }
    SUBCASE("_C::static_scaled_fp8_quant: bf16 in, fp8 out, the scale") {
        const auto w = price_op(op("_C::static_scaled_fp8_quant", "[[888,512],[888,512],[]]",
                                   R"(["c10::Float8_e4m3fn","c10::BFloat16","float"])"),
                                b200());
        REQUIRE(w);
        CHECK(w->kind == "quantize");
        CHECK(w->work.dram_bytes() == approx(454656.0 + 909312.0 + 4.0));
    }
    SUBCASE("_C_cache_ops::reshape_and_cache_flash: new K/V into an fp8 (uint8) cache") {
        const auto w = price_op(
            op("_C_cache_ops::reshape_and_cache_flash",
               "[[888,1,64],[888,1,64],[4213816,16,1,64],[4213816,16,1,64],[888],[],[],[]]",
               R"(["c10::BFloat16","c10::BFloat16","unsigned char","unsigned char","long int","","float","float"])"),
            b200());
        REQUIRE(w);
        // k, v 113,664 each + slots 7,104 + 2 x 56,832 one-byte cache elements = 348,096.
        CHECK(w->work.dram_bytes() == approx(348096.0));
    }
    SUBCASE("symm_mem::multimem_all_reduce_: 2 S through DRAM, S over the link (bounded)") {
        const auto w = price_op(op("symm_mem::multimem_all_reduce_", "[[2557440],[],[]]",
                                   R"(["c10::BFloat16","",""])"),
                                b200());
        REQUIRE(w);
        CHECK(w->kind == "collective");
        CHECK(w->estimate == op_estimate::bounded);
        CHECK(w->work.link_bytes == approx(5114880.0));
        CHECK(w->work.dram_bytes() == approx(10229760.0));
    }
}

TEST_CASE("Inductor kernels: buffers once, FLOP from the iteration counts") {
    SUBCASE("triton_poi_ of kineto/tracelens_b200_vllm_gptoss_tp8_eager (xnumel 888)") {
        const auto w = price_op(
            op("triton_poi_fused_add_bitwise_and_bitwise_not_bitwise_or_ge_lt_mul_sub_0",
               "[[888],[888],[888],[],[],[],[],[],[]]",
               R"(["int","long int","bool","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"])",
               R"(["","","","0","25136","201088","201088","0","888"])"),
            b200());
        REQUIRE(w);
        CHECK(w->kind == "triton_pointwise");
        CHECK(w->estimate == op_estimate::counted);
        CHECK(w->work.dram_bytes() == approx(888.0 * (4 + 8 + 1)));
        CHECK(w->work.flops_at(peak_key::fp32) == approx(888.0));
    }
    SUBCASE("triton_poi_fused_add_cos_sin_0 of hta/triton_example (two inputs, one output)") {
        const auto w = price_op(op("triton_poi_fused_add_cos_sin_0", "[[10,10],[10,10],[10,10],[]]",
                                   R"(["float","float","float","Scalar"])", R"(["","","","100"])"),
                                h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(1200.0));
        CHECK(w->work.flops_at(peak_key::fp32) == approx(100.0));
    }
    SUBCASE("a reduction: xnumel x r0_numel; without counts, bounded") {
        // No shared trace holds a triton_red_ op: this one follows the poi ops' argument layout
        // (in_ptr0 [64, 4096] bf16, out_ptr0 [64, 1] fp32, xnumel 64, r0_numel 4096).
        const auto w = price_op(op("triton_red_fused_mean_pow_0", "[[64,4096],[64,1],[],[]]",
                                   R"(["c10::BFloat16","float","Scalar","Scalar"])",
                                   R"(["","","64","4096"])"),
                                h200());
        REQUIRE(w);
        CHECK(w->kind == "triton_reduction");
        CHECK(w->work.dram_bytes() == approx(64.0 * 4096 * 2 + 64 * 4));
        CHECK(w->work.flops_at(peak_key::fp32) == approx(64.0 * 4096));
        const auto b = price_op(op("triton_per_fused_0", "[[64,4096],[64,1]]",
                                   R"(["c10::BFloat16","float"])"),
                                h200());
        REQUIRE(b);
        CHECK(b->estimate == op_estimate::bounded);
        CHECK(b->work.flops_at(peak_key::fp32) == approx(64.0 * 4096));
    }
    SUBCASE("triton_tem_ GEMMs of data/samples/h200-stacks/compile_autotune: 2 M N K") {
        // The four GEMM templates of one Llama-shaped block (4 x 1024 tokens, hidden 4096),
        // args as recorded: A in its own view (fused RMSNorm prologue, transposed attention
        // output), the weight [N, K], the output [M, N]. Their FLOP sum to the recording's
        // hand count, meta.json work.gemm_flops = 1,786,706,395,136.
        struct tem {
            const char *name, *dims, *concrete;
            double m, n, k;
        };
        const tem kernels[] = {
            {"triton_tem_fused__fused_rms_norm_mm_t_view_1", "[[4,1024,4096],[6144,4096],[4096,6144],[],[],[]]",
             R"(["","","","1536","1","1"])", 4096, 6144, 4096},
            {"triton_tem_fused_mm_t_transpose_view_2", "[[4,32,1024,128],[4096,4096],[4096,4096],[],[],[]]",
             R"(["","","","1024","1","1"])", 4096, 4096, 4096},
            {"triton_tem_fused__fused_rms_norm__unsafe_view_add_mm_t_view_4",
             "[[4,1024,4096],[28672,4096],[4096,28672],[],[],[]]", R"(["","","","7168","1","1"])",
             4096, 28672, 4096},
            {"triton_tem_fused__unsafe_view_mm_mul_silu_slice_t_view_6",
             "[[4,1024,14336],[4096,14336],[4096,4096],[],[],[]]", R"(["","","","1024","1","1"])",
             4096, 4096, 14336},
        };
        double total = 0;
        for (const auto& k : kernels) {
            const auto w = price_op(
                op(k.name, k.dims,
                   R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar"])",
                   k.concrete),
                h200());
            REQUIRE(w);
            CHECK(w->kind == "triton_gemm");
            CHECK(w->work.flops_at(peak_key::bf16) == approx(2.0 * k.m * k.n * k.k));
            CHECK(w->work.dram_bytes() ==
                  approx((k.m * k.k + k.k * k.n + k.m * k.n) * 2));  // TraceLens's GEMM
            total += w->work.flops_at(peak_key::bf16);
        }
        CHECK(total == approx(1786706395136.0));
    }
    SUBCASE("triton_tem_fused_flex_attention_0 of data/samples/h200-stacks/flex_prefill") {
        // q, k, v [4, 32, 4096, 128] bf16, lse and max [4, 32, 4096] fp32, four block-mask
        // tensors, the output; FLOP = meta.json work.flops_per_step = 549,890,031,616 (causal).
        const auto w = price_op(
            op("triton_tem_fused_flex_attention_0",
               "[[4,32,4096,128],[4,32,4096,128],[4,32,4096,128],[4,32,4096],[4,32,4096],[1,1,32],"
               "[1,1,32,32],[1,1,32],[1,1,32,32],[4,32,4096,128],[],[],[]]",
               R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","float","float","int","int","int","int","c10::BFloat16","Scalar","Scalar","Scalar"])",
               R"(["","","","","","","","","","","32","4","32"])"),
            h200());
        REQUIRE(w);
        CHECK(w->kind == "attention");
        CHECK(w->estimate == op_estimate::bounded);
        CHECK(w->work.flops_at(peak_key::bf16) == approx(549890031616.0));
        // q, k, v, out 4 x 134,217,728 B (meta.json bytes_per_step 536,870,912) + lse, max
        // 2 x 2,097,152 + mask 2 x (32 + 1,024) x 4.
        CHECK(w->work.dram_bytes() ==
              approx(536870912.0 + 2 * 2097152.0 + 2 * (32 + 1024) * 4.0));
    }
    SUBCASE("triton_red_ and triton_poi_ of data/samples/h200-stacks/compile_block") {
        // RMSNorm: x [4, 1024, 4096], w [4096], out; xnumel 4096 rows, r0_numel 4096.
        const auto r = price_op(op("triton_red_fused__fused_rms_norm_0",
                                   "[[4,1024,4096],[4096],[4,1024,4096],[],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
                                   R"(["","","","4096","4096"])"),
                                h200());
        REQUIRE(r);
        CHECK(r->work.dram_bytes() == approx((2.0 * 16777216 + 4096) * 2));
        CHECK(r->work.flops_at(peak_key::fp32) == approx(16777216.0));
        // SiLU x mul: gate-up [4096, 28672] in, [4, 1024, 14336] out, xnumel 58,720,256.
        const auto p = price_op(op("triton_poi_fused__unsafe_view_mul_silu_slice_2",
                                   "[[4096,28672],[4,1024,14336],[]]",
                                   R"(["c10::BFloat16","c10::BFloat16","Scalar"])",
                                   R"(["","","58720256"])"),
                                h200());
        REQUIRE(p);
        CHECK(p->work.dram_bytes() == approx((4096.0 * 28672 + 4096 * 14336) * 2));
        CHECK(p->work.flops_at(peak_key::fp32) == approx(58720256.0));
    }
    SUBCASE("a template whose buffers form no GEMM stays unpriced") {
        CHECK_FALSE(price_op(op("triton_tem_fused_mm_0", "[[64,4096],[4096,6144],[64,6000]]",
                                R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])"),
                             h200()));
    }
}

TEST_CASE("gathers, cat and reductions of real traces") {
    SUBCASE("aten::index_select, tracelens_h100_qwen1.5-0.5b (embedding rows)") {
        const auto w = price_op(op("aten::index_select", "[[151936,1024],[],[8944]]",
                                   R"(["c10::BFloat16","Scalar","long int"])", R"(["","0",""])"),
                                h100());
        REQUIRE(w);
        // index 8944 x 8 + 2 x 8944 x 1024 x 2 = 36,706,176.
        CHECK(w->work.dram_bytes() == approx(36706176.0));
    }
    SUBCASE("aten::gather, tracelens_b200_vllm_gptoss_tp8_eager") {
        const auto w = price_op(op("aten::gather", "[[25136,2880],[],[888,2880],[],[888,2880]]",
                                   R"(["c10::BFloat16","Scalar","long int","Scalar","c10::BFloat16"])",
                                   R"(["","0","","False",""])"),
                                b200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(888.0 * 2880 * (8 + 2 * 2)));
    }
    SUBCASE("aten::gather of an expanded index, data/samples/h200-stacks/moe_grouped") {
        // x [256,4096] bf16 gathered by idx.unsqueeze(1).expand(-1, 4096): the index's strides
        // [1,0] address 2,048 longs, not 2048 x 4096; each of x's 1 Mi elements is read once
        // from DRAM (the 2,048 rows re-read 256 rows), the [2048,4096] output written.
        cpu_op o = op("aten::gather", "[[256,4096],[],[2048,4096],[],[2048,4096]]",
                      R"(["c10::BFloat16","Scalar","long int","Scalar","c10::BFloat16"])", R"(["","0","","False",""])");
        o.input_strides = "[[4096,1],[],[1,0],[],[4096,1]]";
        const auto w = price_op(o, h200());
        REQUIRE(w);
        CHECK(w->work.dram_bytes() == approx(2048.0 * 8 + 256.0 * 4096 * 2 + 2048.0 * 4096 * 2));
        // Strides that do not match the shapes are ignored: dense, as before.
        o.input_strides = "[[1],[]]";
        const auto dense = price_op(o, h200());
        REQUIRE(dense);
        CHECK(dense->work.dram_bytes() == approx(2048.0 * 4096 * 8 + 256.0 * 4096 * 2 + 2048.0 * 4096 * 2));
    }
    SUBCASE("aten::_index_put_impl_, h200/h200_moe_decode_step (bounded: indices unrecorded)") {
        const auto w = price_op(op("aten::_index_put_impl_", "[[256,4096],[],[256,4096],[],[]]",
                                   R"(["c10::BFloat16","","c10::BFloat16","Scalar","Scalar"])",
                                   R"(["","","","False","False"])"),
                                h200());
        REQUIRE(w);
        CHECK(w->estimate == op_estimate::bounded);
        CHECK(w->work.dram_bytes() == approx(2.0 * 256 * 4096 * 2));
    }
    SUBCASE("aten::cat, tracelens_h100_qwen1.5-0.5b: 1 byte per element, bounded") {
        const auto w = price_op(op("aten::cat", "[[[1,559,32],[1,559,32]],[]]",
                                   R"(["TensorList","Scalar"])", R"(["","-1"])"),
                                h100());
        REQUIRE(w);
        CHECK(w->estimate == op_estimate::bounded);
        CHECK(w->work.dram_bytes() == approx(2.0 * 2 * 559 * 32));
    }
    SUBCASE("aten::mean over the last dim, tracelens_h100_qwen1.5-0.5b (RMSNorm's variance)") {
        const auto w = price_op(op("aten::mean", "[[16,559,1024],[],[],[]]",
                                   R"(["float","ScalarList","Scalar",""])", R"(["","[-1]","True",""])"),
                                h100());
        REQUIRE(w);
        CHECK(w->estimate == op_estimate::counted);
        CHECK(w->work.dram_bytes() == approx(16.0 * 559 * 1024 * 4 + 16 * 559 * 4));
        CHECK(w->work.flops_at(peak_key::fp32) == approx(16.0 * 559 * 1024));
    }
    SUBCASE("aten::linalg_vector_norm, hta/trace_filter/sampled_rank-0 (dim None: one value)") {
        // linalg_vector_norm(self, ord, dim, keepdim, dtype): dim's type "" is None, a full
        // reduction, so the output is one element even without Concrete Inputs.
        const auto w = price_op(op("aten::linalg_vector_norm", "[[512,8192],[],[],[],[]]",
                                   R"(["float","Scalar","","Scalar",""])"),
                                h200());
        REQUIRE(w);
        CHECK(w->estimate == op_estimate::counted);
        CHECK(w->work.dram_bytes() == approx(512.0 * 8192 * 4 + 4));
        // The same op with a dim list whose values were not recorded: bounded by one element.
        const auto b = price_op(op("aten::linalg_vector_norm", "[[512,8192],[],[],[],[]]",
                                   R"(["float","Scalar","ScalarList","Scalar",""])"),
                                h200());
        REQUIRE(b);
        CHECK(b->estimate == op_estimate::bounded);
        CHECK(b->work.dram_bytes() == approx(512.0 * 8192 * 4 + 4));
    }
    SUBCASE("aten::index_select with the old 'long' spelling, hta/trace_filter/sampled_rank-0") {
        const auto w = price_op(op("aten::index_select", "[[2048],[],[6825]]",
                                   R"(["long","Scalar","long"])"),
                                h200());
        CHECK_FALSE(w);  // dim not recorded (no Concrete Inputs): the output's size is unknown
    }
}

TEST_CASE("sort, topk, cumsum, bincount of h200/h200_moe_decode_step (the MoE router)") {
    const auto sort = price_op(op("aten::sort", "[[256],[],[],[]]",
                                  R"(["long int","Scalar","Scalar","Scalar"])",
                                  R"(["","False","-1","False"])"),
                               h200());
    REQUIRE(sort);
    CHECK(sort->work.dram_bytes() == approx(256.0 * 8 * 3));  // keys in, values + indices
    const auto topk = price_op(op("aten::topk", "[[64,32],[],[],[],[]]",
                                  R"(["float","Scalar","Scalar","Scalar","Scalar"])",
                                  R"(["","4","-1","True","True"])"),
                               h200());
    REQUIRE(topk);
    CHECK(topk->work.dram_bytes() == approx(64.0 * 32 * 4 + 64 * 4 * (4 + 8)));
    const auto cumsum = price_op(op("aten::cumsum", "[[32],[],[]]", R"(["long int","Scalar",""])",
                                    R"(["","0",""])"),
                                 h200());
    REQUIRE(cumsum);
    CHECK(cumsum->work.dram_bytes() == approx(2.0 * 32 * 8));
    const auto bincount = price_op(op("aten::bincount", "[[256],[],[]]",
                                      R"(["long int","","Scalar"])", R"(["","","32"])"),
                                   h200());
    REQUIRE(bincount);
    CHECK(bincount->estimate == op_estimate::bounded);
    CHECK(bincount->work.dram_bytes() == approx(256.0 * 8 + 32 * 8));
}

TEST_CASE("cuDNN convolution: 2 N O out (C / groups) kernel FLOP, TF32 when allowed") {
    // No shared trace records a convolution's shapes (hta/critical_path/alexnet has
    // aten::cudnn_convolution without Input Dims); this is torchvision AlexNet's first layer,
    // Conv2d(3, 64, kernel_size=11, stride=4, padding=2), batch 32, in fp32 with cuDNN's default
    // allow_tf32 = True. Output 55 x 55 = (224 + 4 - 10 - 1) / 4 + 1.
    const auto w = price_op(
        op("aten::cudnn_convolution", "[[32,3,224,224],[64,3,11,11],[],[],[],[],[],[],[]]",
           R"(["float","float","ScalarList","ScalarList","ScalarList","Scalar","Scalar","Scalar","Scalar"])",
           R"(["","","[2, 2]","[4, 4]","[1, 1]","1","False","False","True"])"),
        h200());
    REQUIRE(w);
    CHECK(w->kind == "conv");
    CHECK(w->work.flops_at(peak_key::tf32) == approx(2.0 * 32 * 64 * 55 * 55 * 3 * 121));
    // input 19,267,584 + weight 92,928 + output 32 x 64 x 55 x 55 x 4 = 24,780,800.
    CHECK(w->work.dram_bytes() == approx(44141312.0));
    CHECK(w->description.find("[32x64x55x55]") != std::string::npos);
    // Without the padding/stride lists the output size is unknown: unpriced.
    CHECK_FALSE(price_op(op("aten::cudnn_convolution", "[[32,3,224,224],[64,3,11,11]]",
                            R"(["float","float"])"),
                         h200()));
}

TEST_CASE("aten::arange writes its elements (h200/h200_moe_decode_step: 0..256)") {
    // out is recorded as [0] (before its resize); 256 int64 values are written.
    const auto w = price_op(op("aten::arange", "[[],[],[],[0]]",
                               R"(["Scalar","Scalar","Scalar","long int"])", R"(["0","256","1",""])"),
                            h200());
    REQUIRE(w);
    CHECK(w->work.dram_bytes() == approx(256.0 * 8));
    // aten::index's index tensors are not recorded (a list of optional tensors has no type):
    // the output's size is unknown, so it stays unpriced (same trace).
    CHECK_FALSE(price_op(op("aten::index", "[[256,4096],[]]", R"(["c10::BFloat16",""])",
                            R"(["",""])"),
                         h200()));
}

TEST_CASE("aten::index_add_ of data/samples/h200-serving (the MoE combine: 4096 rows into 1024)") {
    // self [1024, 4096] bf16, dim 0, index [4096] int64, source [4096, 4096] bf16 (top-4 of 1024
    // tokens): index 32,768 + source 33,554,432 + the 1024 rows of self read and written
    // 2 x 8,388,608 = 50,364,416 B.
    const auto w = price_op(op("aten::index_add_", "[[1024,4096],[],[4096],[4096,4096],[]]",
                               R"(["c10::BFloat16","Scalar","long int","c10::BFloat16","Scalar"])",
                               R"(["","0","","","1"])"),
                            h200());
    REQUIRE(w);
    CHECK(w->estimate == op_estimate::bounded);
    CHECK(w->work.dram_bytes() == approx(50364416.0));
}

TEST_CASE("vLLM's fused-experts and act-and-mul ops (schemas of vllm/csrc/torch_bindings.cpp)") {
    // No shared trace calls them (the B200 run takes the TRT-LLM path): the shapes are the H200
    // MoE decode layer's (64 tokens, hidden 4096, 32 experts of FFN 1536, top-4) in bf16.
    const auto w = price_op(
        op("vllm::outplace_fused_experts", "[[64,4096],[32,3072,4096],[32,4096,1536],[64,4],[64,4]]",
           R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","float","int"])"),
        h200());
    REQUIRE(w);
    CHECK(w->estimate == op_estimate::counted);
    // F = 2 x 64 x 4 x (3072 x 4096 + 4096 x 1536) = 9,663,676,416.
    CHECK(w->work.flops_at(peak_key::bf16) == approx(9663676416.0));
    // Active experts 32 (1 - (1 - 4/32)^64) = 31.9960...; per expert 3 x 4096 x 1536 x 2 B.
    const double active = 32.0 * (1.0 - std::pow(1.0 - 4.0 / 32.0, 64.0));
    CHECK(w->work.dram_bytes() ==
          approx(active * 37748736.0 + 2 * 524288.0 + 64 * 4 * (4 + 4)));
    const auto s = price_op(op("_C::silu_and_mul", "[[64,1536],[64,3072]]",
                               R"(["c10::BFloat16","c10::BFloat16"])"),
                            h200());
    REQUIRE(s);
    CHECK(s->work.dram_bytes() == approx(64.0 * 1536 * 2 * 3));
    // A packed (MXFP4, [E, N, H / 2] uint8) w1 does not match the hidden size: unpriced.
    CHECK_FALSE(price_op(
        op("vllm::outplace_fused_experts", "[[64,4096],[32,3072,2048],[32,4096,768],[64,4],[64,4]]",
           R"(["c10::BFloat16","unsigned char","unsigned char","float","int"])"),
        h200()));
}

TEST_CASE("index_copy_, argmax and floor_divide of data/samples/h200-stacks (eager decode, MoE)") {
    // eager_decode_b8: the KV-cache append, k [8, 8, 1, 128] into [8, 8, 2048, 128] at dim 2.
    const auto c = price_op(op("aten::index_copy_", "[[8,8,2048,128],[],[1],[8,8,1,128]]",
                               R"(["c10::BFloat16","Scalar","long int","c10::BFloat16"])",
                               R"(["","2","",""])"),
                            h200());
    REQUIRE(c);
    CHECK(c->work.dram_bytes() == approx(8.0 + 2 * 8192 * 2));
    // eager_decode_b8: greedy sampling over the 32768-token vocabulary, int64 indices out.
    const auto a = price_op(op("aten::argmax", "[[8,32768],[],[]]",
                               R"(["c10::BFloat16","Scalar","Scalar"])", R"(["","-1","False"])"),
                            h200());
    REQUIRE(a);
    CHECK(a->work.dram_bytes() == approx(8.0 * 32768 * 2 + 8 * 8));
    // moe_grouped: expert ids from flat top-k slots, [2048] int64 // a 0-d int64 tensor.
    const auto f = price_op(op("aten::floor_divide", "[[2048],[]]", R"(["long int","long int"])",
                               R"(["",""])"),
                            h200());
    REQUIRE(f);
    CHECK(f->work.dram_bytes() == approx(2048.0 * 8 * 2 + 8));
}
