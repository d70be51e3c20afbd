// Tests of core/catalog.hpp and the tables under core/gpus/: completeness, laws that hold for
// every entry, and golden values from the field cases (CASES.md C08, C09, C10).
#include "roofline/core/catalog.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <regex>
#include <set>
#include <string>

#include "roofline/core/roofline.hpp"
#include "roofline/core/units.hpp"

using namespace roofline;

namespace {

double dense(const gpu_spec& g, peak_key k) {
    return g.peak(k).dense_flops_per_s.value.value();
}

}  // namespace

TEST_CASE("the catalog holds every documented id exactly once") {
    const auto c = gpu_catalog::builtin();
    const std::set<std::string> expected = {
        "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb", "v100-pcie-32gb", "a100-sxm4-40gb",
        "a100-sxm4-80gb", "a100-pcie-40gb", "a100-pcie-80gb", "a800-sxm4-80gb", "a800-pcie-80gb",
        "a30", "l4", "l40s", "rtx-4090", "h100-sxm", "h100-pcie", "h100-nvl", "h800", "h20",
        "h200-sxm", "h200-nvl", "gh200", "gh200-144gb", "b200", "gb200", "b300", "gb300",
        "jetson-thor", "rtx-pro-6000", "rtx-pro-6000-maxq", "rtx-pro-6000-server", "rtx-pro-5000",
        "rtx-pro-5000-72gb", "rtx-pro-4500", "rtx-5090", "rtx-5080", "gb10"};
    std::set<std::string> seen;
    for (const auto& g : c.all()) {
        CHECK_MESSAGE(seen.insert(g.id).second, "duplicate id " << g.id);
        CHECK_MESSAGE(!g.name.empty(), g.id);
        CHECK_MESSAGE(!g.arch.empty(), g.id);
        CHECK_MESSAGE(!g.sm_arch.empty(), g.id);
        CHECK_MESSAGE(!g.memory_type.empty(), g.id);
        CHECK_MESSAGE(!g.device_names.empty(), g.id);
    }
    CHECK(seen == expected);
    CHECK(c.all().size() == expected.size());
}

TEST_CASE("every value has a source, every unknown says why, every derivation gives its formula") {
    const std::regex citation_list(R"((\[(S[0-9]+|O[0-9]+|C[0-9]+|M[0-9]+)\])+)");
    const std::regex one_citation(R"(\[[^\]]+\])");
    for (const auto& g : gpu_catalog::builtin().all()) {
        for_each_spec_value(g, [&](const std::string& field, const spec_value& v, bool optional) {
            INFO(g.id << " " << field);
            if (v.known()) {
                CHECK(std::regex_match(v.source, citation_list));
                // Every cited id exists in the citation list.
                for (std::sregex_iterator it(v.source.begin(), v.source.end(), one_citation), end;
                     it != end; ++it)
                    CHECK_MESSAGE(!gpus::citation_text(it->str()).empty(), it->str());
                CHECK(std::isfinite(*v.value));
                CHECK(*v.value >= 0.0);
                if (v.derived) CHECK(v.note.rfind("d: ", 0) == 0);
                // Ids a note refers to ("measured 143 TOPS [S9]") are in the list too.
                const std::regex id_in_note(R"(\[[SOC][0-9]+\])");
                for (std::sregex_iterator it(v.note.begin(), v.note.end(), id_in_note), end;
                     it != end; ++it)
                    CHECK_MESSAGE(!gpus::citation_text(it->str()).empty(), it->str());
            } else if (!optional || !v.note.empty() || !v.source.empty()) {
                // A required field that is unknown, or an optional one that was touched.
                CHECK(!v.note.empty());
            }
        });
    }
}

TEST_CASE("every citation id is listed once with a text") {
    std::set<std::string> ids;
    for (const auto& c : gpus::catalog_sources()) {
        CHECK(ids.insert(std::string(c.id)).second);
        CHECK(c.text.size() > 20);
    }
    for (int i = 1; i <= 47; ++i) CHECK(ids.count("[S" + std::to_string(i) + "]") == 1);
}

TEST_CASE("values sit in plausible SI ranges, so a unit slip (GB/s for B/s, MHz for Hz) fails") {
    for (const auto& g : gpu_catalog::builtin().all()) {
        INFO(g.id);
        // Memory bandwidth: 273 GB/s (GB10, Thor) .. 8 TB/s (GB200) -> within [1e11, 1e13] B/s.
        const double bw = g.memory_bandwidth_bytes_per_s.value.value();
        CHECK(bw >= 1e11);
        CHECK(bw <= 1e13);
        // NVLink, when present: 300 GB/s (V100) .. 1.8 TB/s bidirectional.
        const double nvl = g.nvlink_bandwidth_bytes_per_s.value.value();
        if (nvl > 0) CHECK((nvl >= 1e11 && nvl <= 1e13));
        // PCIe per direction, when present: 16 GB/s (Gen3 x16) .. 128 GB/s (Gen6 x16).
        if (g.pcie_bandwidth_bytes_per_s.value_or(0) > 0)
            CHECK((*g.pcie_bandwidth_bytes_per_s.value >= 1e10 &&
                   *g.pcie_bandwidth_bytes_per_s.value <= 1e12));
        // Clocks: between 100 MHz and 4 GHz.
        for (const spec_value* c :
             {&g.base_clock_hz, &g.boost_clock_hz, &g.tensor_clock_hz, &g.max_clock_hz})
            if (c->known()) CHECK((*c->value >= 1e8 && *c->value <= 4e9));
        // Memory capacity: 16 GB (V100, RTX 5080) .. 288 GB.
        CHECK(g.memory_bytes.value.value() >= 1.6e10);
        CHECK(g.memory_bytes.value.value() <= 1e12);
        // Power: 72 W (L4) .. 1400 W (GB300).
        CHECK(g.power_limit_w.value.value() >= 70);
        CHECK(g.power_limit_w.value.value() <= 1500);
        // Peaks between 0.5 TFLOP/s (RTX PRO 4500 FP64, 1:64 of FP32) and 20 PFLOP/s when known
        // and supported.
        for (auto k : all_peak_keys) {
            const auto& p = g.peak(k);
            if (!p.supported || !p.dense_flops_per_s.known()) continue;
            CHECK((*p.dense_flops_per_s.value >= 5e11 && *p.dense_flops_per_s.value <= 2e16));
        }
    }
}

TEST_CASE("per-block shared memory is the per-SM maximum minus the 1 KiB reserved per block") {
    for (const auto& g : gpu_catalog::builtin().all()) {
        INFO(g.id);
        REQUIRE(g.smem_per_sm_bytes.known());
        REQUIRE(g.smem_per_block_bytes.known());
        // CC 7.x reserves nothing per block; CC 8.0 and later reserve 1 KiB.
        const double reserved = g.cc_major >= 8 ? 1024 : 0;
        CHECK(*g.smem_per_block_bytes.value == *g.smem_per_sm_bytes.value - reserved);
    }
}

TEST_CASE("clocks are ordered: base <= boost <= device maximum, tensor clock <= maximum") {
    for (const auto& g : gpu_catalog::builtin().all()) {
        INFO(g.id);
        if (g.base_clock_hz.known() && g.boost_clock_hz.known())
            CHECK(*g.base_clock_hz.value <= *g.boost_clock_hz.value);
        if (g.boost_clock_hz.known() && g.max_clock_hz.known())
            CHECK(*g.boost_clock_hz.value <= *g.max_clock_hz.value);
        if (g.tensor_clock_hz.known() && g.max_clock_hz.known())
            CHECK(*g.tensor_clock_hz.value <= *g.max_clock_hz.value);
    }
}

TEST_CASE("dense peaks never exceed the sparse figure NVIDIA prints") {
    for (const auto& g : gpu_catalog::builtin().all())
        for (auto k : all_peak_keys) {
            const auto& p = g.peak(k);
            if (p.dense_flops_per_s.known() && p.sparse_flops_per_s.known()) {
                INFO(g.id << " " << to_string(k));
                CHECK(*p.dense_flops_per_s.value <= *p.sparse_flops_per_s.value);
                // Sparsity about doubles the rate (B300/GB300 FP4: only 1.33x); 15% slack for the
                // Server Edition, whose sparse headlines assume ~2.6 GHz and dense peaks 2.43 GHz.
                CHECK(*p.sparse_flops_per_s.value <= 2.0 * *p.dense_flops_per_s.value * 1.15);
            }
        }
}

TEST_CASE("each dense tensor peak is SMs x FLOP/clk/SM x the tensor clock, within 1%") {
    // 1% covers NVIDIA's rounding of the published figures (RTX PRO 6000 FP4: 4000 AI TOPS / 2
    // = 2000 against 4096 x 188 x 2.617 GHz = 2015, 0.75% apart). One clock must reproduce every
    // tensor rate of a SKU, which catches a per-SM rate or a peak entered for the wrong SKU.
    int checked = 0;
    for (const auto& g : gpu_catalog::builtin().all()) {
        if (!g.sm_count.known() || !g.tensor_clock_hz.known()) continue;
        for (auto k : all_peak_keys) {
            const auto& p = g.peak(k);
            if (!p.flops_per_clock_per_sm.known() || !p.dense_flops_per_s.known()) continue;
            INFO(g.id << " " << to_string(k));
            const double model =
                *g.sm_count.value * *p.flops_per_clock_per_sm.value * *g.tensor_clock_hz.value;
            CHECK(*p.dense_flops_per_s.value == approx(model).epsilon(0.01));
            ++checked;
        }
    }
    // V100 x4: fp16 (4); A100/A800 x6: fp16 bf16 tf32 int8 (24); A30: fp16 bf16 (2);
    // L4: fp8 fp16 bf16 (3); RTX 4090: fp8 fp16 bf16 (3); H100, H200, H800, GH200 x2 and the
    // tensor-clock-derived H100 PCIe, H100 NVL, H200 NVL: fp8 fp16 bf16 (8 x 3 = 24; H20's rate
    // is cut per SM and carries none); B200, GB200: 6 each (12); B300: 6 (GB300 has no SM
    // count); RTX PRO 6000 x3: 5 each (15); RTX PRO 5000 x2, 4500: fp4 fp8 fp16 bf16 tf32 (15);
    // RTX 5090, 5080: fp4 fp8 fp16 bf16 (8).
    // 4 + 24 + 2 + 3 + 3 + 24 + 12 + 6 + 15 + 15 + 8 = 116.
    CHECK(checked == 116);
}

TEST_CASE("H100 golden value: 132 x 4096 x 1.83 GHz = 989 TFLOP/s BF16") {
    const auto g = gpus::h100_sxm();
    CHECK(dense(g, peak_key::bf16) == approx(132 * 4096 * 1.83e9).epsilon(0.001));
}

TEST_CASE("C09: RTX 5090 peaks are dense and accumulate-aware") {
    const auto g = gpus::rtx_5090();
    // Whitepaper appendix A (dense): BF16/FP16 with FP32 accumulate 209.5, FP16 accumulate 419;
    // FP8 419 / 838; FP4 1676 (not halved).
    CHECK(dense(g, peak_key::bf16) == 209.5e12);
    CHECK(dense(g, peak_key::fp16) == 209.5e12);
    CHECK(*g.peak(peak_key::fp16).dense_fp16_acc_flops_per_s.value == 419e12);
    CHECK(dense(g, peak_key::fp8) == 419e12);
    CHECK(*g.peak(peak_key::fp8).dense_fp16_acc_flops_per_s.value == 838e12);
    CHECK(dense(g, peak_key::fp4) == 1676e12);
    CHECK(!g.peak(peak_key::bf16).dense_fp16_acc_flops_per_s.known());
    CHECK(g.peak(peak_key::bf16).accumulate == "fp32");
    // The microbenchmark in C09 measured, at ~2.85 GHz: FP16 (FP32 acc) 253, FP8 (FP32 acc) 496,
    // FP4 2019 TFLOP/s. Dense peaks scaled by 2.85 / 2.407 = 1.184 give 248.1, 496.1, 1984.5:
    // within 3%. The headline figures the audit used (sparse, FP16-acc) are 2-4x off.
    const double f = 2.85e9 / *g.tensor_clock_hz.value;
    CHECK(dense(g, peak_key::fp16) * f == approx(253e12).epsilon(0.03));
    CHECK(dense(g, peak_key::fp8) * f == approx(496e12).epsilon(0.03));
    CHECK(dense(g, peak_key::fp4) * f == approx(2019e12).epsilon(0.03));
    CHECK(*g.peak(peak_key::fp4).sparse_flops_per_s.value * f / 2019e12 > 1.9);
    // Stock driver: no PCIe P2P on GeForce, so collectives go through the host.
    CHECK(g.p2p.value == 0.0);
    CHECK(g.default_link() == link_kind::pcie_no_p2p);
}

TEST_CASE("C09: RTX PRO 6000 runs FP32 accumulate at full rate, 2.4x the RTX 5090 in BF16") {
    const auto ws = gpus::rtx_pro_6000();
    const auto maxq = gpus::rtx_pro_6000_maxq();
    // nanochat guide: dense BF16 503.8 (1024 x 188 x 2.617 GHz = 503.77) and Max-Q 438.9 (our
    // 2.286 GHz gives 440.0: 0.25% apart, the guide assumes 2280 MHz).
    CHECK(dense(ws, peak_key::bf16) == approx(503.8e12).epsilon(0.0002));
    CHECK(dense(maxq, peak_key::bf16) == approx(438.9e12).epsilon(0.005));
    CHECK(dense(ws, peak_key::bf16) / dense(gpus::rtx_5090(), peak_key::bf16) ==
          approx(2.405).epsilon(0.001));
    // INT8 and FP6 are unpublished for RTX PRO: unknown, never "= FP8".
    CHECK(!ws.peak(peak_key::int8).dense_flops_per_s.known());
    CHECK(!ws.peak(peak_key::fp6).dense_flops_per_s.known());
    CHECK(!ws.dense_flops_per_s(peak_key::int8).has_value());
}

TEST_CASE("RTX PRO 6000 Workstation is 600 W, Max-Q 300 W, on the same chip and memory") {
    const auto ws = gpus::rtx_pro_6000();
    const auto maxq = gpus::rtx_pro_6000_maxq();
    const auto server = gpus::rtx_pro_6000_server();
    CHECK(*ws.power_limit_w.value == 600);
    CHECK(*maxq.power_limit_w.value == 300);
    CHECK(*server.power_limit_w.value == 600);
    CHECK(*ws.sm_count.value == *maxq.sm_count.value);
    CHECK(*ws.memory_bandwidth_bytes_per_s.value == *maxq.memory_bandwidth_bytes_per_s.value);
    // The Server Edition's own datasheet gives 1597 GB/s; 1792 is the Workstation figure.
    CHECK(*server.memory_bandwidth_bytes_per_s.value == 1597e9);
    CHECK(server.memory_bandwidth_bytes_per_s.note.find("1792") != std::string::npos);
    // Server peaks at its 2430 MHz boost: TF32 256 x 188 x 2.43 GHz = 116.95 TF (NVIDIA: 117).
    CHECK(dense(server, peak_key::tf32) == approx(117e12).epsilon(0.001));
    CHECK(server.p2p.value == 1.0);
    CHECK(ws.default_link() == link_kind::pcie);
}

TEST_CASE("SM120 allows 101376 B of shared memory per block, SM100 232448 B (C06, C07)") {
    CHECK(*gpus::rtx_pro_6000_server().smem_per_block_bytes.value == 101376);
    CHECK(*gpus::rtx_5090().smem_per_block_bytes.value == 101376);
    CHECK(*gpus::gb10().smem_per_block_bytes.value == 101376);
    CHECK(*gpus::b200().smem_per_block_bytes.value == 232448);
    CHECK(*gpus::b300().smem_per_block_bytes.value == 232448);
    // C07: Hopper-sized attention blocks need 106,496 B: fits SM100, not SM120.
    CHECK(106496 <= *gpus::b200().smem_per_block_bytes.value);
    CHECK(106496 > *gpus::rtx_pro_6000().smem_per_block_bytes.value);
    CHECK(*gpus::rtx_5090().max_threads_per_sm.value == 1536);
    CHECK(*gpus::b200().max_threads_per_sm.value == 2048);
    CHECK(*gpus::b200().tmem_per_sm_bytes.value == 256 * 1024);
    CHECK(*gpus::rtx_pro_6000().tmem_per_sm_bytes.value == 0);
}

TEST_CASE("C10: B200 and GB200 are separate SKUs with their own peaks and power") {
    const auto b200 = gpus::b200();
    const auto gb200 = gpus::gb200();
    CHECK(dense(b200, peak_key::bf16) == 2.25e15);
    CHECK(dense(gb200, peak_key::bf16) == 2.5e15);
    // Using GB200 peaks for a B200 run overstates the denominator by 2.5 / 2.25 = 1.111: MFU
    // shifts by ~11%.
    CHECK(dense(gb200, peak_key::bf16) / dense(b200, peak_key::bf16) ==
          approx(1.1111).epsilon(1e-4));
    CHECK(*b200.power_limit_w.value == 1000);
    CHECK(*gb200.power_limit_w.value == 1200);
    // The driver reports a 7680-bit bus at 3996 MHz: 960 B x 3.996e9 x 2 = 7.67232e12 B/s,
    // not the 8 TB/s headline.
    CHECK(*b200.memory_bandwidth_bytes_per_s.value == approx(7.67232e12).epsilon(1e-9));
    CHECK(b200.memory_bandwidth_bytes_per_s.derived);
    CHECK(*b200.sm_count.value == 148);
    // Device-visible (totalGlobalMem of a real B200 trace), not the datasheet's 180 GB: at
    // 180e9 x 0.9 = 162 GB, DeepSeek-R1 FP8 on 4 B200s (169 GB of weights each) did not fit.
    CHECK(*b200.memory_bytes.value == 191503138816.0);
    CHECK(b200.memory_bytes.note.find("180 GB") != std::string::npos);
    CHECK(b200.memory_bytes.note.find("192") != std::string::npos);
    // FP32 and FP64 come from the same SKU column as the tensor peaks (C10's second error).
    CHECK(dense(b200, peak_key::fp32) == 75e12);
    CHECK(dense(gb200, peak_key::fp32) == 80e12);
}

TEST_CASE("C08: a B200 NVFP4 grouped GEMM at AI 57 FLOP/B sits far left of the FP4 ridge") {
    const auto c = datasheet_ceilings(gpus::b200());
    // Ridge = 9e15 / 7.67232e12 = 1173 FLOP/B ("~1,200"); ~264 MB of weights at 7.67 TB/s take
    // 264e6 / 7.67232e12 = 34.4 us ("~34 us").
    CHECK(ridge_point(c, peak_key::fp4) == approx(1173.05).epsilon(1e-4));
    CHECK(264e6 / c.bytes_at(memory_level::dram) == approx(34.41e-6).epsilon(1e-3));
}

TEST_CASE("B300 is Blackwell Ultra at HGX power: 13.5 PF FP4, cut INT8 and FP64, 1100 W") {
    const auto b300 = gpus::b300();
    const auto gb300 = gpus::gb300();
    CHECK(b300.compute_capability() == "10.3");
    CHECK(dense(b300, peak_key::fp4) == 13.5e15);
    CHECK(dense(gb300, peak_key::fp4) == 15e15);
    // Sparse FP4 is only 1.33x dense on Blackwell Ultra.
    CHECK(*b300.peak(peak_key::fp4).sparse_flops_per_s.value / dense(b300, peak_key::fp4) ==
          approx(4.0 / 3.0));
    CHECK(dense(b300, peak_key::int8) == 125e12);
    CHECK(dense(b300, peak_key::fp64) == 1.25e12);
    CHECK(*b300.power_limit_w.value == 1100);
    CHECK(b300.power_limit_w.note.find("1000") != std::string::npos);
    CHECK(*b300.power_limit_min_w.value == 200);
    CHECK(*gb300.power_limit_w.value == 1400);
    CHECK(!gb300.sm_count.known());
    CHECK(!gb300.peak(peak_key::int8).dense_flops_per_s.known());
}

TEST_CASE("GB10 keeps its unknowns unknown") {
    const auto g = gpus::gb10();
    CHECK(g.compute_capability() == "12.1");
    CHECK(!g.l2_bytes.known());
    CHECK(!g.boost_clock_hz.known());
    CHECK(!g.peak(peak_key::bf16).dense_flops_per_s.known());
    CHECK(dense(g, peak_key::fp4) == 0.5e15);
    CHECK(*g.memory_bandwidth_bytes_per_s.value == 273e9);
    CHECK_THROWS_AS(g.l2_bytes.require(g.id, "l2_bytes"), usage_error);
}

TEST_CASE("Hopper lacks FP4: the peak is zero and unsupported, not unknown") {
    const auto g = gpus::h200_sxm();
    CHECK(!g.peak(peak_key::fp4).supported);
    CHECK(g.dense_flops_per_s(peak_key::fp4) == 0.0);
    for (const auto& bw : gpu_catalog::builtin().all())
        if (bw.cc_major >= 10) CHECK(bw.peak(peak_key::fp4).supported);
}

TEST_CASE("consistency over the whole table: ridge points, sparse = 2x dense, SXM vs PCIe") {
    for (const auto& g : gpu_catalog::builtin().all()) {
        INFO(g.id);
        const auto c = datasheet_ceilings(g);
        for (auto k : all_peak_keys) {
            const auto& p = g.peak(k);
            // Ridge point P / W: finite and positive where the peak is known and supported,
            // between 1 FLOP/B (FP64 vector) and 10^4 FLOP/B (FP4 over LPDDR5X).
            const double ridge = ridge_point(c, k);
            if (p.supported && p.dense_flops_per_s.known() && *p.dense_flops_per_s.value > 0) {
                CHECK(std::isfinite(ridge));
                CHECK((ridge > 1e-1 && ridge < 1e4));
            } else if (!p.dense_flops_per_s.known()) {
                CHECK(std::isnan(ridge));
            }
            // NVIDIA's sparse figure is exactly twice the dense one (rounding aside), except
            // Blackwell Ultra FP4 (1.33x) and the Server Edition, whose headlines assume ~2.6 GHz;
            // 2.5% covers NVIDIA rounding (L40S BF16: 362.05 dense, 733 sparse; B200 TF32: 1.125
            // dense, 2.2 sparse).
            if (p.dense_flops_per_s.known() && p.sparse_flops_per_s.known() && g.sm_arch != "sm103" &&
                g.id != "rtx-pro-6000-server")
                CHECK(*p.sparse_flops_per_s.value == approx(2 * *p.dense_flops_per_s.value).epsilon(0.025));
            // FP16-accumulate rates, where separate, are exactly twice the FP32-accumulate rate.
            if (p.dense_flops_per_s.known() && p.dense_fp16_acc_flops_per_s.known())
                CHECK(*p.dense_fp16_acc_flops_per_s.value ==
                      approx(2 * *p.dense_flops_per_s.value).epsilon(0.01));
        }
    }
    // Same chip, same compute: SXM and PCIe A100 differ only in memory, power and links.
    const auto cat = gpu_catalog::builtin();
    CHECK(dense(cat.at("a100-sxm4-80gb"), peak_key::bf16) == dense(cat.at("a100-pcie-40gb"), peak_key::bf16));
    CHECK(*cat.at("a100-sxm4-80gb").memory_bandwidth_bytes_per_s.value == approx(2.039e12));
    CHECK(*cat.at("a100-pcie-80gb").memory_bandwidth_bytes_per_s.value == approx(1.935e12));
    CHECK(*cat.at("a100-sxm4-40gb").memory_bandwidth_bytes_per_s.value == approx(1.555e12));
    // H800 is H100 compute with NVLink 400 GB/s, not 900.
    CHECK(dense(cat.at("h800"), peak_key::bf16) == dense(cat.at("h100-sxm"), peak_key::bf16));
    CHECK(*cat.at("h800").nvlink_bandwidth_bytes_per_s.value == approx(400e9));
    CHECK(*cat.at("h100-sxm").nvlink_bandwidth_bytes_per_s.value == approx(900e9));
    // V100 has FP16 tensor cores only: BF16 is absent (0), not unknown.
    CHECK(!cat.at("v100-sxm2-32gb").peak(peak_key::bf16).supported);
    CHECK(*cat.at("v100-sxm2-32gb").dense_flops_per_s(peak_key::bf16) == 0.0);
    // RTX 4090 halves FP32 accumulate like the 5090; L4 and L40S do not (1024 FLOP/clk/SM).
    CHECK(dense(cat.at("rtx-4090"), peak_key::bf16) == approx(165.2e12));
    CHECK(*cat.at("l4").peak(peak_key::bf16).flops_per_clock_per_sm.value == 1024);
}

TEST_CASE("GB10 has its memory system and FP4 figure, and says which rates are unknown") {
    const auto g = gpu_catalog::builtin().at("gb10");
    CHECK(*g.memory_bandwidth_bytes_per_s.value == approx(273e9));
    CHECK(*g.memory_bytes.value == approx(128e9));
    CHECK(*g.dense_flops_per_s(peak_key::fp4) == approx(0.5e15));
    CHECK(g.peak(peak_key::fp4).accumulate == "fp32");
    for (auto k : {peak_key::bf16, peak_key::fp8}) {
        CHECK_FALSE(g.peak(k).dense_flops_per_s.known());
        CHECK(g.peak(k).dense_flops_per_s.note.find("UNCONF") != std::string::npos);
    }
}

TEST_CASE("GPU names people type resolve case-insensitively and say which entry was taken") {
    const auto c = gpu_catalog::builtin();
    struct typed {
        const char* text;
        const char* id;
        bool exact;
    };
    for (const typed t : {typed{"b200", "b200", true}, typed{"B200", "b200", false},
                          typed{"H200", "h200-sxm", false}, typed{"h200-NVL", "h200-nvl", false},
                          typed{"rtx6000", "rtx-pro-6000", false}, typed{"5090", "rtx-5090", false},
                          typed{"RTX_PRO_6000_MAXQ", "rtx-pro-6000-maxq", false},
                          typed{"NVIDIA H800", "h800", false}, typed{"Tesla V100-SXM2-16GB", "v100-sxm2-16gb", false},
                          typed{"spark", "gb10", false}, typed{"a100", "a100-sxm4-80gb", false}}) {
        INFO(t.text);
        const auto l = c.lookup(t.text);
        REQUIRE(l.gpu != nullptr);
        CHECK(l.gpu->id == t.id);
        CHECK(l.how.empty() == t.exact);
        if (!t.exact) CHECK(l.how.find(std::string("taken as ") + t.id) != std::string::npos);
        CHECK(c.at(t.text).id == t.id);
    }
    // "H200" says what it assumed: the SXM part, and that the NVL card exists.
    CHECK(c.lookup("H200").how.find("h200-nvl") != std::string::npos);
    // Ambiguous: several ids contain "h1" -> no entry, candidates listed, `at` says so.
    const auto amb = c.lookup("h1");
    CHECK(amb.gpu == nullptr);
    CHECK(amb.candidates.size() == 3);
    CHECK_THROWS_WITH_AS(c.at("h1"), doctest::Contains("ambiguous"), usage_error);
    CHECK_THROWS_WITH_AS(c.at("mi250"), doctest::Contains("unknown GPU id"), usage_error);
    // "L40" is another GPU than the L40S (about half its tensor rate), not a short spelling of it.
    CHECK(c.lookup("L40").gpu == nullptr);
    CHECK_THROWS_WITH_AS(c.at("L40"), doctest::Contains("unknown GPU id"), usage_error);
    // nvidia-smi's names without the "NVIDIA " prefix, as people paste them.
    CHECK(c.at("H100 80GB HBM3").id == "h100-sxm");
    CHECK(c.at("GeForce RTX 5090").id == "rtx-5090");
}
