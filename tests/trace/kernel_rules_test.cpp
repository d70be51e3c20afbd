// Tests of trace/kernel_rules.hpp and io/kernel_rules_json.hpp: the built-in rules on real kernel
// names taken from the sample traces, rule order, user rules first, and bad rule files.
#include <doctest/doctest.h>

#include <cctype>
#include <regex>
#include <string>
#include <vector>

#include "io/io_test_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "test_support.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("built-in rules put real kernel names in the right phase") {
    const auto rules = read_kernel_rules(test::repo_data("kernel_rules.json").string());
    CHECK(rules.rules().size() >= 15);
    const std::pair<const char*, kernel_phase> cases[] = {
        {"nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT", kernel_phase::gemm},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", kernel_phase::gemm},
        {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>(...)", kernel_phase::gemm},
        {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f", kernel_phase::moe_gemm},
        {"fused_moe_kernel", kernel_phase::moe_gemm},
        {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>(...)", kernel_phase::moe_gemm},
        {"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext", kernel_phase::attention},
        {"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0", kernel_phase::attention},
        {"_fwd_kernel_stage1", kernel_phase::attention},
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", kernel_phase::communication},
        {"void cross_device_reduce_1stage<__nv_bfloat16, 8>(...)", kernel_phase::communication},
        {"void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(...)", kernel_phase::communication},
        {"Memcpy HtoD (Pinned -> Device)", kernel_phase::memcpy},
        {"[CUDA memset]", kernel_phase::memset},
        {"void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(...)", kernel_phase::norm},
        // apex/TE layer norm: "ln_fwd_kernel" must not be taken for a Triton "_fwd_kernel".
        {"void layer_norm::ln_fwd_kernel<layer_norm::Kernel_traits<__nv_bfloat16>>(...)", kernel_phase::norm},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(...)", kernel_phase::activation},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>>>(...)", kernel_phase::sampling},
        // KV-cache writes mention "flash" but only move bytes.
        {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char>(...)", kernel_phase::elementwise},
        {"void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t>>(...)", kernel_phase::elementwise},
        {"triton_poi_fused_add_mul_0", kernel_phase::elementwise},
        {"cuda::aux_fi_impl(long const*, float*, int, int, int, int)", kernel_phase::other},
    };
    for (const auto& c : cases) {
        const char* name = c.first;  // (clang 14 cannot capture structured bindings)
        const kernel_phase phase = c.second;
        CAPTURE(name);
        CHECK(to_string(rules.classify(name)) == to_string(phase));
        CHECK(rules.classify(name) == phase);  // second call: from the cache
    }
}

TEST_CASE("the compiled-in rules are data/kernel_rules.json, byte for byte, and need no data directory") {
    const std::string file = io::read_all(test::repo_data("kernel_rules.json").string());
    // On failure: run `cmake -P tests/io/embed_kernel_rules.cmake` after editing the rule file.
    CHECK(std::string(io::detail::builtin_kernel_rules_json) == file);
    const auto builtin = builtin_kernel_rules();
    CHECK(builtin.rules().size() == read_kernel_rules(test::repo_data("kernel_rules.json").string()).rules().size());
    CHECK(builtin.classify("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT") == kernel_phase::gemm);
    CHECK(builtin.rules().front().origin == builtin_kernel_rules_source);
}

TEST_CASE("user rules come first and may reclassify") {
    auto rules = read_kernel_rules(test::repo_data("kernel_rules.json").string());
    const temp_file user(R"({"rules": [{"phase": "attention", "pattern": "^my_mla_decode", "note": "ours"},
                                      {"phase": "other", "pattern": "nvjet_tst_192x8"}]})",
                         ".json");
    CHECK(rules.classify("nvjet_tst_192x8_64x8_4x1_v_bz_TNT") == kernel_phase::gemm);
    rules.prepend(read_kernel_rules(user.path()));
    CHECK(rules.classify("nvjet_tst_192x8_64x8_4x1_v_bz_TNT") == kernel_phase::other);
    CHECK(rules.classify("my_mla_decode_kernel") == kernel_phase::attention);
    CHECK(rules.classify("nvjet_tst_64x64") == kernel_phase::gemm);
    CHECK(rules.rules()[0].origin == user.path());
}

TEST_CASE("phase names round-trip") {
    for (auto p : all_kernel_phases) CHECK(parse_kernel_phase(to_string(p)) == p);
    CHECK_FALSE(parse_kernel_phase("GEMM").has_value());
}

TEST_CASE("repetition counts and back-references too large for std::regex are refused before compiling") {
    // libstdc++ reads `{n}` and `\n` into a long without an overflow check: the fuzzers'
    // `x{77777777777777777777` was undefined behaviour inside std::regex (tests/fuzz/README.md).
    CHECK(oversized_regex_count("quant777{77777777777777777777") == "{77777777777777777777");
    CHECK(oversized_regex_count("a{1001}") == "{1001");
    CHECK(oversized_regex_count("a{2,5000}") == "{2,5000");
    CHECK(oversized_regex_count("(a)\\1000") == "\\1000");
    // Accepted: counts up to 1000, back-references up to 999, digits that are not counts.
    CHECK(oversized_regex_count("a{1000}b{0,1000}c{3,}").empty());
    CHECK(oversized_regex_count("(x)\\999").empty());
    CHECK(oversized_regex_count("sm90_xmma_gemm_128x256x64_123456789").empty());
    CHECK(oversized_regex_count("[{]123456|\\{99999").empty());  // a literal brace
    CHECK_THROWS_WITH_AS(kernel_rule("x{77777777777777777777", kernel_phase::gemm, "", "rules.json"),
                         doctest::Contains("rules.json: pattern \"x{77777777777777777777\" has a count too large"),
                         usage_error);
    const kernel_rule ok("gemm_\\d{1,1000}", kernel_phase::gemm);
    CHECK(std::regex_search("gemm_42", ok.regex));
}

TEST_CASE("patterns whose compile or match would recurse too deep are refused with the reason") {
    // libstdc++ compiles by recursion per term and matches by recursion per state: a 60 KB
    // pattern overflowed the fuzzer's stack (CI, fuzz_kernel_rules).
    CHECK(oversized_regex(std::string(2000, 'a')) == "2000 bytes long (up to 1024 are accepted)");
    CHECK(oversized_regex(std::string(40, '(') + "a" + std::string(40, ')')) == "nested more than 32 groups deep");
    // (ab){3,5}: the group (2 atoms + 2) copied 6 times = 24 states; nested counts multiply.
    CHECK(oversized_regex("(ab){3,5}").empty());
    CHECK(oversized_regex("(a{100}){100}") ==
          "an automaton of about 10403 states (up to 4096 are accepted; a count inside a count multiplies)");
    CHECK(oversized_regex("((a{1000}){1000}){1000}") == "an automaton of about 1005009005 states (up to 4096 are accepted; a count inside a count multiplies)");
    CHECK(oversized_regex("[(((((]{3}|\\(x)").empty());  // parentheses in a class or escaped are literal
    CHECK(oversized_regex("ncclDevKernel_AllReduce|ncclKernel|cross_device_reduce").empty());
    CHECK_THROWS_WITH_AS(kernel_rule(std::string(3000, 'x'), kernel_phase::gemm, "", "rules.json"),
                         doctest::Contains("rules.json: pattern \"xxxxxxxx"), usage_error);
    CHECK_THROWS_WITH_AS(kernel_rule(std::string(3000, 'x'), kernel_phase::gemm, "", "rules.json"),
                         doctest::Contains("...\" is too large: 3000 bytes long"), usage_error);
}

TEST_CASE("rules match case-insensitively, where lower-casing is the same, the lower-cased name is searched") {
    CHECK(lowered_pattern("NVJet|\\W\\B[A-Z]x\\.") == std::optional<std::string>("nvjet|\\W\\B[a-z]x\\."));
    CHECK_FALSE(lowered_pattern("[[:upper:]]gemm").has_value());
    CHECK_FALSE(lowered_pattern("gemm\\x4A").has_value());  // \x4A is "J": searched with icase
    CHECK_FALSE(lowered_pattern("\\u004Agemm").has_value());
    const kernel_rules r({kernel_rule("GEMM\\d", kernel_phase::gemm), kernel_rule("\\Wflash", kernel_phase::attention),
                          kernel_rule("[[:upper:]]norm", kernel_phase::norm), kernel_rule("\\x4Aet", kernel_phase::sampling)});
    CHECK(r.rules()[0].lowered);
    CHECK_FALSE(r.rules()[2].lowered);
    CHECK(r.classify("sm90_Gemm4_tn") == kernel_phase::gemm);
    CHECK(r.classify("sm90_gemm_tn") == kernel_phase::other);  // \d still needs a digit
    CHECK(r.classify("void FLASH_fwd") == kernel_phase::attention);
    CHECK(r.classify("xflash_fwd") == kernel_phase::other);  // \W is not lowered into \w
    CHECK(r.classify("RMSNorm") == kernel_phase::norm);
    CHECK(r.classify("nvjet_tst") == kernel_phase::sampling);  // \x4A ("J") matched without case
    // A range that lower-casing would invert ('A'-'_' is 65-95, 'a'-'_' 97-95) keeps icase.
    const kernel_rule range("gemm[A-_]", kernel_phase::gemm);
    CHECK_FALSE(range.lowered);
    CHECK(std::regex_search("GEMMQ", range.regex));
    // Every built-in rule finds the same in the lower-cased name as the case-insensitive
    // search of the name, on real names and their upper-cased spellings.
    const auto rules = read_kernel_rules(test::repo_data("kernel_rules.json").string());
    std::vector<std::string> names = {
        "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT", "void cublasLt::splitKreduce_kernel<32, 16, int, float>(...)",
        "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "Memcpy HtoD (Pinned -> Device)",
        "[CUDA memset]", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >",
        "triton_poi_fused_add_mul_0", "bmm_E2m1E4m3_Fp32_t128x16x256"};
    for (std::size_t i = 0, n = names.size(); i < n; ++i) {
        std::string up = names[i];
        for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        names.push_back(up);
    }
    for (const kernel_rule& rule : rules.rules()) {
        CHECK(rule.lowered);
        const std::regex icase(rule.pattern, std::regex::ECMAScript | std::regex::icase);
        for (const std::string& name : names) {
            std::string low = name;
            for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            CAPTURE(rule.pattern);
            CAPTURE(name);
            CHECK(std::regex_search(low, rule.regex) == std::regex_search(name, icase));
        }
    }
}

TEST_CASE("bad rule files are errors naming the rule and the field") {
    const temp_file bad_phase(R"({"rules": [{"phase": "matmul", "pattern": "x"}]})", ".json");
    CHECK_THROWS_WITH_AS(read_kernel_rules(bad_phase.path()), doctest::Contains("rule 0: \"phase\": unknown phase"),
                         parse_error);
    const temp_file bad_regex(R"([{"phase": "gemm", "pattern": "a"}, {"phase": "gemm", "pattern": "(unclosed"}])", ".json");
    CHECK_THROWS_WITH_AS(read_kernel_rules(bad_regex.path()), doctest::Contains("rule 1: \"pattern\""), parse_error);
    const temp_file no_pattern(R"({"rules": [{"phase": "gemm"}]})", ".json");
    CHECK_THROWS_AS(read_kernel_rules(no_pattern.path()), parse_error);
    const temp_file no_rules(R"({"rulez": []})", ".json");
    CHECK_THROWS_WITH_AS(read_kernel_rules(no_rules.path()), doctest::Contains("\"rules\""), parse_error);
    const temp_file broken(R"({"rules": [)", ".json");
    CHECK_THROWS_WITH_AS(read_kernel_rules(broken.path()), doctest::Contains("malformed JSON"), parse_error);
}
