// Tests of analysis/calibration.hpp: every fit recovers known parameters from synthetic data,
// refuses degenerate input with a clear error, and the committed H200 calibration keeps its
// accuracy on the recorded measurements (a regression in the models or the fit fails here).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "roofline/analysis/calibration.hpp"
#include "roofline/core/catalog.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {

/// A deterministic +-`amp` relative perturbation (no random generator: the same everywhere).
double wobble(std::size_t i, double amp) { return 1.0 + amp * std::sin(1.7 * static_cast<double>(i) + 0.3); }

/// Synthetic dense bf16 GEMMs timed by a known curve at clocks between 1.4 and 1.98 GHz.
std::vector<curve_point> synthetic_gemms(const kernel_curve& truth, const ceilings& fallback, double noise) {
    std::vector<curve_point> pts;
    std::size_t i = 0;
    for (double m : {1.0, 4.0, 16.0, 64.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0})
        for (double nk : {4096.0, 8192.0}) {
            const auto w = gemm_workload({m, nk, nk}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
            curve_point p;
            p.features = gemm_features(w, peak_key::bf16);
            p.clock_hz = 1.4e9 + 0.58e9 * static_cast<double>((i * 7) % 11) / 10.0;
            p.measured_s = truth.time_s(p.features, p.clock_hz, fallback) * wobble(i, noise);
            p.label = "m=" + std::to_string(static_cast<int>(m));
            pts.push_back(p);
            ++i;
        }
    return pts;
}

kernel_curve known_gemm_curve() {
    kernel_curve c;
    c.family = kernel_family::gemm;
    c.peak = peak_key::bf16;
    c.fixed_latency_s = 8e-6;
    c.flops_per_clock = 450e3;  // 3409 FLOP per SM per clock on 132 SMs
    c.bytes_per_s = 3.6e12;
    c.floor_s = 20e-6;
    return c;
}

}  // namespace

TEST_CASE("measurements that name another GPU than --gpu are refused, naming both") {
    // note_device is what every input with a device name goes through (traces and ncu reports too).
    const auto cat = gpu_catalog::builtin();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto note = [&](const char* name, const char* id) {
        calibration_device d;
        detail::calib::note_device(d, cat.at(id), "t.json", name, nan, nan, nan, nan, "");
        return d;
    };
    CHECK(note("NVIDIA H200", "h200-sxm").name == "NVIDIA H200");
    CHECK_NOTHROW(note("nvidia h200", "h200-sxm"));  // case and blanks
    CHECK(note("", "b200").name.empty());              // unknown device: silent
    CHECK_THROWS_WITH_AS(note("NVIDIA H200 NVL", "h200-sxm"),
                         "calibrate --gpu h200-sxm: t.json was measured on \"NVIDIA H200 NVL\", not on h200-sxm "
                         "(NVIDIA H200 SXM 141GB); give the --gpu it was measured on",
                         usage_error);
    CHECK_THROWS_AS(note("NVIDIA H200", "h200-nvl"), usage_error);
    CHECK_THROWS_AS(note("NVIDIA H200", "b200"), usage_error);
}

TEST_CASE("quantiles are nearest-rank: the ceil(q n)-th smallest value") {
    // 10 values 1..10: median = 5th = 5, p90 = 9th = 9; 5 values: p90 = ceil(4.5) = 5th.
    CHECK(quantile_nearest_rank({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.5) == 5);
    CHECK(quantile_nearest_rank({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.9) == 9);
    CHECK(quantile_nearest_rank({1, 2, 3, 4, 5}, 0.9) == 5);
    CHECK(std::isnan(quantile_nearest_rank({}, 0.5)));
}

TEST_CASE("a GEMM curve fit recovers fixed latency, FLOP per clock, bandwidth and floor") {
    const ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    const auto truth = known_gemm_curve();
    SUBCASE("exact data: every parameter within 0.1%") {
        const auto c = fit_kernel_curve(synthetic_gemms(truth, fb, 0.0), fb);
        CHECK(c.fixed_latency_s == approx(8e-6).epsilon(1e-3));
        CHECK(c.flops_per_clock == approx(450e3).epsilon(1e-3));
        CHECK(c.bytes_per_s == approx(3.6e12).epsilon(1e-3));
        CHECK(c.floor_s == approx(20e-6).epsilon(1e-3));
        CHECK(c.fit.median_abs_error < 1e-6);
        CHECK(c.fit.points == 22);
        CHECK(c.fit.floor_points + c.fit.compute_points + c.fit.memory_points == 22);
    }
    SUBCASE("+-3% deterministic noise: within 10%, residuals near the noise") {
        const auto c = fit_kernel_curve(synthetic_gemms(truth, fb, 0.03), fb);
        CHECK(c.flops_per_clock == approx(450e3).epsilon(0.05));
        CHECK(c.bytes_per_s == approx(3.6e12).epsilon(0.10));
        CHECK(c.floor_s == approx(20e-6).epsilon(0.10));
        CHECK(c.fit.p90_abs_error < 0.04);
        // Held out, the error stays near the noise too.
        const auto pts = synthetic_gemms(truth, fb, 0.03);
        const auto s = summarize_errors(abs_errors(pts, cross_validate_curve(pts, fb, {}, 5)));
        CHECK(s.n == pts.size());
        CHECK(s.median < 0.04);
    }
}

TEST_CASE("a dense GEMM fit finds whole waves of the kernels' tiles and a split-K kernel's extra time") {
    const ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    kernel_curve truth = known_gemm_curve();
    truth.floor_s = 0;
    truth.whole_waves = true;
    truth.split_extra_s = 4e-6;
    // 128x128 tiles on 132 SMs; the smallest M split K (as cuBLAS does for K-heavy GEMV).
    std::vector<curve_point> pts;
    std::size_t i = 0;
    for (double m : {1.0, 4.0, 16.0, 64.0, 256.0, 640.0, 1000.0, 2100.0, 4096.0, 8192.0})
        for (double nk : {4096.0, 5120.0}) {
            const auto w = gemm_workload({m, nk, nk}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
            curve_point p;
            p.features = gemm_features(w, peak_key::bf16);
            p.features.gemm_m = m, p.features.gemm_n = nk, p.features.gemm_k = nk;
            p.features.tile_rows = 128, p.features.tile_cols = 128, p.features.sm_count = 132;
            p.features.split_k = m <= 4;
            p.clock_hz = 1.98e9;
            p.measured_s = truth.time_s(p.features, p.clock_hz, fb);
            pts.push_back(p);
            ++i;
        }
    // 2100 x 5120 in 128x128 tiles: 17 x 40 = 680 CTAs, 6 waves of 132 = 792 tiles, 1.16x.
    CHECK(truth.effective_flops(pts[15].features) ==
          approx(6 * 132 * 2.0 * 128 * 128 * 5120).epsilon(1e-12));
    const auto c = fit_kernel_curve(pts, fb);
    CHECK(c.clocks_recorded);  // every point carried its clock
    CHECK(c.whole_waves);
    CHECK(c.split_extra_s == approx(4e-6).epsilon(1e-3));
    CHECK(c.fixed_latency_s == approx(8e-6).epsilon(1e-3));
    CHECK(c.flops_per_clock == approx(450e3).epsilon(1e-3));
    CHECK(c.fit.median_abs_error < 1e-6);
    // The split kernel pays the extra time; the others do not.
    CHECK(c.fixed_time_s(pts[0].features) - c.fixed_time_s(pts[4].features) == approx(4e-6).epsilon(1e-3));
    // M = 16 in one wave of 128x128 tiles computes 132 tiles: compute-bound at 8x its FLOP.
    CHECK(c.effective_flops(pts[4].features) == approx(132 * 2.0 * 128 * 128 * 4096).epsilon(1e-9));
    // One point without its clock (taken at the maximum): the curve says so.
    pts[3].clock_recorded = false;
    CHECK_FALSE(fit_kernel_curve(pts, fb).clocks_recorded);
}

TEST_CASE("a fitted rate above the calibration's ceiling is held at the ceiling, and the file says so") {
    ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    fb.bytes_at(memory_level::dram) = 4.0e12;  // the saturating copy's rate
    // Copies that look faster than DRAM (the small ones partly served from L2): 4.4 TB/s + 1.5 us.
    std::vector<curve_point> pts;
    for (double b : {1e6, 4e6, 1.6e7, 6.4e7, 2.6e8}) {
        curve_point p;
        p.features = copy_features(b);
        p.clock_hz = 1.98e9;
        p.measured_s = 1.5e-6 + p.features.dram_bytes / 4.4e12;
        pts.push_back(p);
    }
    curve_fit_options o;
    o.rate_caps = fb;
    const auto c = fit_kernel_curve(pts, fb, o);
    CHECK(c.bytes_per_s == approx(4.0e12));
    CHECK(c.fit.capped == "bandwidth held at the DRAM ceiling");
    CHECK(c.fixed_latency_s > 0);
    // Uncapped data leaves the field empty.
    for (auto& p : pts) p.measured_s = 1.5e-6 + p.features.dram_bytes / 3.5e12;
    const auto u = fit_kernel_curve(pts, fb, o);
    CHECK(u.bytes_per_s == approx(3.5e12).epsilon(1e-3));
    CHECK(u.fit.capped.empty());
    // Without caps (a fit outside `calibrate`), the data's rate stands.
    for (auto& p : pts) p.measured_s = 1.5e-6 + p.features.dram_bytes / 4.4e12;
    CHECK(fit_kernel_curve(pts, fb).bytes_per_s == approx(4.4e12).epsilon(1e-3));
}

TEST_CASE("a flash decode fit finds FA2's 128-row tiles and the split-KV combine kernel") {
    const ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    kernel_curve truth;
    truth.family = kernel_family::attention_decode;
    truth.backend = "flash";
    truth.fixed_latency_s = 1.5e-6;
    truth.flops_per_clock = 150e3;
    truth.bytes_per_s = 4.2e12;
    truth.decode_tile_rows = 128;
    truth.split_extra_s = 9e-6;
    attention_shape s;
    s.heads = 32;
    s.kv_heads = 8;
    s.head_dim = 128;
    std::vector<curve_point> pts;
    for (double batch : {1.0, 8.0, 16.0, 64.0, 128.0, 256.0})
        for (double kv : {1024.0, 4096.0, 16384.0}) {
            const auto w = attention_workload(s, {{batch, 1, kv - 1}}, dtype::bf16);
            curve_point p;
            p.features = attention_features(w, peak_key::bf16, batch, 1, 32, 128, false, 8, 132);
            p.features.backend = "flash";
            p.clock_hz = 1.98e9;
            p.measured_s = truth.time_s(p.features, p.clock_hz, fb);
            pts.push_back(p);
        }
    // Batch 8: 64 CTAs, split-KV (two kernels); batch 64: 512 CTAs, whole tiles (32x the FLOP).
    CHECK(is_split_kernel(pts[3].features));
    CHECK(flash_decode_whole_tiles(pts[9].features));
    CHECK(truth.effective_flops(pts[9].features) == approx(32 * pts[9].features.flops));
    const auto c = fit_kernel_curve(pts, fb);
    CHECK(c.decode_tile_rows == 128);
    CHECK(c.split_extra_s == approx(9e-6).epsilon(1e-3));
    CHECK(c.flops_per_clock == approx(150e3).epsilon(1e-3));
    CHECK(c.bytes_per_s == approx(4.2e12).epsilon(1e-3));
}

TEST_CASE("a grouped GEMM fit finds the M tile its groups are padded to") {
    const ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    kernel_curve truth;
    truth.family = kernel_family::grouped_gemm;
    truth.fixed_latency_s = 20e-6;
    truth.flops_per_clock = 400e3;
    truth.bytes_per_s = 3.0e12;
    truth.tile_rows = 128;
    // 64 experts; rows per expert from 1 to 1100 in uneven steps (padding matters where rows
    // sit just above a multiple of 128).
    std::vector<curve_point> pts;
    for (int t = 1; t <= 24; ++t) {
        std::vector<double> rows;
        for (int e = 0; e < 64; ++e) rows.push_back(std::floor(1 + 46.0 * t * (1 + 0.3 * std::sin(e + t))));
        const auto w = grouped_gemm_workload(rows, 3072, 4096, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
        curve_point p;
        p.features = grouped_gemm_features(rows, 3072, 4096, w, peak_key::bf16);
        p.clock_hz = 1.6e9;
        p.measured_s = truth.time_s(p.features, p.clock_hz, fb);
        pts.push_back(p);
    }
    const auto c = fit_kernel_curve(pts, fb);
    CHECK(c.tile_rows == 128);
    CHECK(c.flops_per_clock == approx(400e3).epsilon(1e-3));
    CHECK(c.fixed_latency_s == approx(20e-6).epsilon(1e-3));
}

TEST_CASE("terms the data cannot identify fall back to the ceilings instead of becoming NaN") {
    const ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    // Copies: bytes only. No point is compute-bound: phi stays unidentified (NaN in the file),
    // and predictions are finite.
    std::vector<curve_point> pts;
    for (double b : {1e6, 1e7, 1e8, 1e9, 4e9}) {
        curve_point p;
        p.features = copy_features(b);
        p.clock_hz = 1.98e9;
        p.measured_s = 5e-6 + 2 * b / 4.3e12;
        pts.push_back(p);
    }
    const auto c = fit_kernel_curve(pts, fb);
    CHECK(std::isnan(c.flops_per_clock));
    CHECK(c.bytes_per_s == approx(4.3e12).epsilon(1e-6));
    CHECK(c.fixed_latency_s == approx(5e-6).epsilon(1e-6));
    CHECK(std::isfinite(c.time_s(copy_features(3e8), 1.98e9, fb)));
}

TEST_CASE("degenerate curve input is refused with a clear error") {
    const ceilings fb = achievable(datasheet_ceilings(gpus::h200_sxm()));
    std::vector<curve_point> two(2);
    for (auto& p : two) {
        p.features = copy_features(1e9);
        p.clock_hz = 1.98e9;
        p.measured_s = 5e-4;
    }
    CHECK_THROWS_WITH_AS(fit_kernel_curve(two, fb), doctest::Contains("at least 3 measured kernels, got 2"), usage_error);
    auto bad = two;
    bad.push_back(two.front());
    bad.back().measured_s = std::nan("");
    bad.back().label = "copy nan";
    CHECK_THROWS_WITH_AS(fit_kernel_curve(bad, fb), doctest::Contains("\"copy nan\""), usage_error);
    bad.back().measured_s = 1e-3;
    bad.back().clock_hz = 0;
    CHECK_THROWS_WITH_AS(fit_kernel_curve(bad, fb), doctest::Contains("SM clock"), usage_error);
    bad.back().clock_hz = 1.98e9;
    bad.back().features = gemm_features(gemm_workload({1, 2, 3}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16),
                                        peak_key::bf16);
    CHECK_THROWS_WITH_AS(fit_kernel_curve(bad, fb), doctest::Contains("one family"), usage_error);
    // Three identical points: solvable, finite, no NaN.
    auto same = two;
    same.push_back(two.front());
    const auto c = fit_kernel_curve(same, fb);
    CHECK(std::isfinite(c.time_s(same.front().features, 1.98e9, fb)));
    CHECK_THROWS_AS(cross_validate_curve(same, fb, {}, 1), usage_error);
}

TEST_CASE("a link fit recovers alpha-beta from a synthetic all-reduce sweep") {
    // Ring all-reduce on n ranks: t = base + 2(n-1) alpha + 2(n-1)/n S / beta.
    const auto sweep = [](int n, double base, double alpha, double beta) {
        collective_sweep s;
        s.file = "synthetic_" + std::to_string(n);
        s.collective = "all_reduce";
        s.ranks = n;
        for (double S = 1024; S <= 1 << 30; S *= 4) {
            collective_point p;
            p.size_bytes = S;
            const double t = base + 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * S / beta;
            p.out_of_place = collective_timing{t, S / t, 0, std::nullopt};
            s.points.push_back(p);
        }
        return s;
    };
    SUBCASE("two rank counts separate base and alpha") {
        const auto l = fit_link({sweep(2, 10e-6, 2e-6, 300e9), sweep(8, 10e-6, 2e-6, 300e9)}, link_kind::nvlink);
        CHECK(l.params.beta_bytes_per_s == approx(300e9).epsilon(1e-6));
        CHECK(l.params.alpha_s == approx(2e-6).epsilon(1e-6));
        CHECK(l.params.base_latency_s == approx(10e-6).epsilon(1e-6));
        CHECK(l.ranks == 8);
        CHECK(l.points == 22);  // 1 KiB x 4^k up to 1 GiB: 11 sizes per sweep
        CHECK(l.median_abs_error < 1e-9);
    }
    SUBCASE("one rank count: L = base + 2 alpha split with NCCL's 0.47 us NVLink hop") {
        // n = 2: L = 10 + 2 x 2 = 14 us -> alpha 0.47 us, base 14 - 0.94 = 13.06 us.
        const auto l = fit_link({sweep(2, 10e-6, 2e-6, 300e9)}, link_kind::nvlink);
        CHECK(l.params.beta_bytes_per_s == approx(300e9).epsilon(1e-6));
        CHECK(l.params.alpha_s == approx(0.47e-6));
        CHECK(l.params.base_latency_s == approx(13.06e-6).epsilon(1e-6));
        CHECK(l.params.p2p);
        // 14 us is 3.1x NCCL's modeled 4.54 us (3.6 + 2 x 0.47): a slow link, not a host floor.
        CHECK_FALSE(l.host_floor_s);
    }
    SUBCASE("flat small sizes far above NCCL's latency: a host floor, the latency NCCL's") {
        // L = 30 us (6.6x 4.54 us). Sizes whose bandwidth term is under a tenth of their time:
        // 1, 4, 16, 64 and 256 KiB (1 MiB: 3.50 us of 33.5 us); their median, 16 KiB, takes
        // 30 us + 16384 / 300e9 = 30.0546 us.
        const auto l = fit_link({sweep(2, 30e-6, 0, 300e9)}, link_kind::nvlink);
        REQUIRE(l.host_floor_s);
        CHECK(*l.host_floor_s == approx(30e-6 + 16384 / 300e9).epsilon(1e-9));
        CHECK(l.params.alpha_s == approx(0.47e-6));
        CHECK(l.params.base_latency_s == approx(3.6e-6));
        CHECK(l.params.beta_bytes_per_s == approx(300e9).epsilon(1e-6));
        CHECK(l.from.method.find("host floor") != std::string::npos);
        // Over the network or PCIe without P2P a flat 100 us keeps its fitted latency: a socket or
        // host-staged link can be that slow itself (11x NCCL's 9.0 us over the network, 10.5x
        // its 9.5 us without P2P: both far past the ratio).
        const auto net = fit_link({sweep(2, 100e-6, 0, 300e9)}, link_kind::network);
        CHECK_FALSE(net.host_floor_s);
        CHECK(net.params.base_latency_s + 2 * net.params.alpha_s == approx(100e-6).epsilon(1e-6));
        CHECK_FALSE(fit_link({sweep(2, 100e-6, 0, 300e9)}, link_kind::pcie_no_p2p).host_floor_s);
    }
    SUBCASE("too few sizes") {
        auto s = sweep(2, 10e-6, 2e-6, 300e9);
        s.points.resize(2);
        CHECK_THROWS_WITH_AS(fit_link({s}, link_kind::pcie), doctest::Contains("at least 3 measured sizes, got 2"),
                             usage_error);
    }
}

TEST_CASE("the link fit on nccl-tests stdout (16 H100s over two nodes) reaches the measured busbw") {
    const auto path = roofline::test::shared_sample("nccl/all_reduce_perf_2x8xH100.txt");
    if (!roofline::test::have_sample(path)) return;
    const auto l = fit_link({read_nccl_tests(path.string())}, link_kind::network);  // two hosts: the network
    // busbw reaches 318 GB/s at 2 GiB; relative residuals weigh every size alike, and the 4-64 MB
    // points (busbw 22-100 GB/s, where NCCL changes protocol across the two nodes) pull beta
    // below that plateau. It stays within 250-350 GB/s.
    CHECK(l.params.beta_bytes_per_s > 250e9);
    CHECK(l.params.beta_bytes_per_s < 350e9);
    CHECK(l.ranks == 16);
    // Small messages take 122-136 us: the latency term carries them (143 us fitted: the LS also
    // spreads the mid-size protocol change over it).
    CHECK(l.params.base_latency_s + 30 * l.params.alpha_s > 115e-6);
    CHECK(l.params.base_latency_s + 30 * l.params.alpha_s < 150e-6);
    // 123-203 us at 8 B-1 MiB against NCCL's 84.6 us (3.6 + 30 x 2.7): the network's own
    // latency, not a host floor (1.5x, and not flat: 1.65x from the smallest to the largest).
    CHECK_FALSE(l.host_floor_s);
}

TEST_CASE("the link fit on this project's eager torch.distributed sweep (2 H200s) keeps its host floor apart") {
    const auto path = roofline::test::repo_data("measurements/h200/allreduce_2gpu.json");
    if (!roofline::test::have_sample(path)) return;
    const auto l = fit_link({read_allreduce_sweep(path.string())}, link_kind::nvlink);
    // 1 KiB-1 MiB take 35.1-44.1 us (1 MiB: 3.1 us of bandwidth at 333.9 GB/s, under a tenth of
    // its 36.8 us); 8x NCCL's 4.54 us. Their median is the 1 MiB point, 36.84 us.
    REQUIRE(l.host_floor_s);
    CHECK(*l.host_floor_s == approx(3.683583974838257e-05));
    CHECK(l.params.base_latency_s == approx(3.6e-6));
    CHECK(l.params.alpha_s == approx(0.47e-6));
    CHECK(l.params.beta_bytes_per_s == approx(333.9e9).epsilon(1e-3));
    CHECK(l.points == 21);
}

TEST_CASE("a power fit recovers static, per-FLOP and per-byte energy from samples") {
    // Truth: 120 W static, bf16 0.8 pJ/FLOP and fp8 0.45 pJ/FLOP at 1.5 GHz with f^2 scaling
    // (x = 3), 110 pJ/B of DRAM. Samples at clocks 1.2-1.98 GHz (a 65% span: x is fitted).
    std::vector<power_point> pts;
    const auto add = [&](double f, double bf16, double fp8, double dram) {
        power_point p;
        p.sm_clock_hz = f;
        p.flops_per_s[static_cast<std::size_t>(peak_key::bf16)] = bf16;
        p.flops_per_s[static_cast<std::size_t>(peak_key::fp8)] = fp8;
        p.dram_bytes_per_s = dram;
        const double s = (f / 1.5e9) * (f / 1.5e9);
        p.power_w = 120 + 0.8e-12 * s * bf16 + 0.45e-12 * s * fp8 + 110e-12 * dram;
        pts.push_back(p);
    };
    add(1.98e9, 0, 0, 0);
    add(1.98e9, 0, 0, 4.2e12);
    add(1.98e9, 0, 0, 2.0e12);
    add(1.2e9, 500e12, 0, 0.1e12);
    add(1.5e9, 650e12, 0, 0.2e12);
    add(1.8e9, 700e12, 0, 0.5e12);
    add(1.3e9, 0, 1100e12, 0.1e12);
    add(1.6e9, 0, 1250e12, 0.3e12);
    const auto p = fit_power(pts);
    const auto& c = p.coefficients;
    CHECK(c.clock_exponent == 3.0);
    CHECK(c.static_w == approx(120).epsilon(1e-6));
    CHECK(c.joules_per_dram_byte == approx(110e-12).epsilon(1e-6));
    // e_k is reported at the median compute clock (1.5 GHz here), where the truth was set.
    CHECK(c.reference_clock_hz == 1.5e9);
    CHECK(c.flop_energy_at(peak_key::bf16) == approx(0.8e-12).epsilon(1e-6));
    CHECK(c.flop_energy_at(peak_key::fp8) == approx(0.45e-12).epsilon(1e-6));
    CHECK(std::isnan(c.flop_energy_at(peak_key::fp16)));
    CHECK(p.rms_residual_w < 1e-6);
    CHECK(predicted_power_w(c, pts[4]) == approx(pts[4].power_w));
    // Too few samples for the four coefficients (static, bf16, fp8, DRAM): 3 of the 5 needed.
    const std::vector<power_point> few = {pts[0], pts[3], pts[6]};
    CHECK_THROWS_WITH_AS(fit_power(few), doctest::Contains("at least 5 steady samples"), usage_error);
}

TEST_CASE("a power fit whose largest residual passes 10% of its power range is flagged unreliable") {
    // Static 100 W, 1 pJ/FLOP bf16 at one clock: 100, 400, 700 W at 0, 300, 600 TFLOP/s, fitted
    // exactly; then the 300 TFLOP/s sample read 100 W high (a 600 W range): the refit is
    // 133.3 W + 1 W per TFLOP/s, residuals 100 x (1/3, 2/3, 1/3) W, the largest 11.1% of the range.
    std::vector<power_point> pts;
    for (double tf : {0.0, 300.0, 600.0}) {
        power_point p;
        p.sm_clock_hz = 1.5e9;
        p.flops_per_s[static_cast<std::size_t>(peak_key::bf16)] = tf * 1e12;
        p.power_w = 100 + tf;
        pts.push_back(p);
    }
    const auto exact = fit_power(pts);
    CHECK(exact.power_range_w == approx(600));
    CHECK_FALSE(exact.unreliable);
    pts[1].power_w += 100;
    const auto off = fit_power(pts);
    CHECK(off.power_range_w == approx(600));
    CHECK(off.max_abs_residual_w == approx(200.0 / 3).epsilon(1e-6));
    CHECK(off.rms_residual_w == approx(100 * std::sqrt((1.0 / 9 + 4.0 / 9 + 1.0 / 9) / 3)).epsilon(1e-6));
    CHECK(off.unreliable);
    // 50 W high instead: the largest residual 33.3 W, 5.6% of 600 W: not flagged.
    pts[1].power_w -= 50;
    CHECK_FALSE(fit_power(pts).unreliable);
}

TEST_CASE("an input given twice, under another path or as a copy, is used once and said so") {
    const auto ceil = roofline::test::repo_data("measurements/h200/ceilings.json");
    if (!roofline::test::have_sample(ceil)) return;
    const auto copy = std::filesystem::temp_directory_path() / "roofline_calibrate_ceilings_copy.json";
    std::filesystem::copy_file(ceil, copy, std::filesystem::copy_options::overwrite_existing);
    calibrate_options o;
    o.curves.folds = 0;
    const auto once = calibrate({ceil.string()}, gpus::h200_sxm(), o);
    const auto thrice = calibrate({ceil.string(), ceil.string(), copy.string()}, gpus::h200_sxm(), o);
    REQUIRE(thrice.overlay.inputs.size() == 3);
    CHECK(thrice.overlay.inputs[0].records_used == 13);
    CHECK(thrice.overlay.inputs[1].note == "given again: used once");
    CHECK(thrice.overlay.inputs[1].records_used == 0);
    CHECK(thrice.overlay.inputs[2].note == "the same content as " + ceil.string() + ": used once");
    CHECK(thrice.overlay.inputs[2].records_used == 0);
    // The fits count each measurement once: the bf16 ceiling rests on the 3 saturating GEMMs of
    // one file (given twice, it read "max over 6 measurement(s)"), the power fit on its samples.
    CHECK(thrice.overlay.ceiling_sources.at("bf16").records == once.overlay.ceiling_sources.at("bf16").records);
    CHECK(thrice.overlay.ceiling_sources.at("bf16").records == 3);
    CHECK(thrice.power_points.size() == once.power_points.size());
    std::filesystem::remove(copy);
}

TEST_CASE("an nvidia-smi log calibrate cannot use says why: the phases it lacks, the fields, the clocks") {
    const auto smi = roofline::test::repo_data("measurements/h200/kernels_nvidia_smi.csv.gz");
    const auto sweep = roofline::test::repo_data("measurements/h200/kernels.json");
    if (!roofline::test::have_sample(smi) || !roofline::test::have_sample(sweep)) return;
    calibrate_options o;
    o.curves.folds = 0;
    // Every column logged, but no power-phase file to say what ran, and the idle samples at the
    // maximum clock follow busy ones within NVML's one-second average: 0 of 221 used.
    const auto r = calibrate({sweep.string(), smi.string()}, gpus::h200_sxm(), o);
    REQUIRE(r.overlay.inputs.size() == 2);
    const auto& in = r.overlay.inputs[1];
    CHECK(in.records_used == 0);
    CHECK(in.note.find("an nvidia-smi log of 221 samples with values for timestamp, power.draw, enforced.power.limit, "
                       "clocks.sm, clocks.max.sm, utilization.gpu") == 0);
    CHECK(in.note.find("no power-phase file among the inputs") != std::string::npos);
    CHECK(in.note.find("57 idle samples, 13 at the maximum SM clock, 1 of those 1 s or more after a busy sample (3 needed") !=
          std::string::npos);
    // A log of power draw alone: the fields it lacks are named, and with nothing else to fit the
    // error carries the reason, file by file.
    const auto bare = std::filesystem::temp_directory_path() / "roofline_calibrate_smi_power_only.csv";
    std::ofstream(bare) << "timestamp, index, power.draw [W]\n2026/11/30 04:09:53.357, 0, 78.25 W\n"
                           "2026/11/30 04:09:54.357, 0, 79.00 W\n";
    const std::string why = bare.string() +
                            " [nvidia-smi CSV]: 2 records read, 0 used: an nvidia-smi log of 2 samples with values for "
                            "timestamp, power.draw; no power-phase file among the inputs to align its samples with (the "
                            "loads they ran are unknown without one); no static power without clocks.sm, clocks.max.sm, "
                            "utilization.gpu";
    CHECK_THROWS_WITH_AS(calibrate({bare.string()}, gpus::h200_sxm(), o), doctest::Contains(why.c_str()), usage_error);
    std::filesystem::remove(bare);
}

TEST_CASE("ceilings are the envelope: the largest rate, the smallest latency, the best rate per clock") {
    const auto e = fit_ceilings({{"bf16", 700e12, 1.44e9, "a", "capped"},
                                 {"bf16", 800e12, 1.98e9, "b", "short"},
                                 {"bf16", std::nan(""), 1.9e9, "c", "bad"},
                                 {"launch_latency_s", 5e-6, std::nan(""), "a", "eager"},
                                 {"launch_latency_s", 4.4e-6, std::nan(""), "b", "eager2"}});
    const auto& bf16 = e.at("bf16");
    CHECK(bf16.first == 800e12);
    // per clock: 700e12 / 1.44e9 = 486,111 > 800e12 / 1.98e9 = 404,040
    CHECK(bf16.second.flops_per_clock == approx(700e12 / 1.44e9));
    CHECK(bf16.second.records == 2);  // the NaN point is not counted
    CHECK(bf16.second.files == std::vector<std::string>{"a", "b"});
    CHECK(bf16.second.method.find("best: short; best per clock: capped") != std::string::npos);
    CHECK(e.at("launch_latency_s").first == 4.4e-6);
}

// --- the committed H200 calibration --------------------------------------------------------------

TEST_CASE("the committed H200 calibration is what `roofline calibrate` fits from the recorded data") {
    const auto cal_path = roofline::test::repo_data("calibration/h200-sxm.json");
    const auto m = roofline::test::repo_data("measurements/h200/");
    const auto v = roofline::test::repo_data("validation/");
    const auto fit_sweep = v / "h200-graph/kernels_fit_device_time.json";
    // The same fitted cases re-recorded on 2026-12-03 (data/samples/h200-stacks/sweep_order/).
    const auto s = roofline::test::repo_data("samples/h200-stacks/sweep_order/");
    if (!roofline::test::have_sample(cal_path) || !roofline::test::have_sample(fit_sweep) ||
        !roofline::test::have_sample(s / "reversed_fit.json.gz") || !roofline::test::have_sample(s / "interleaved_fit.json.gz"))
        return;
    const auto committed = read_calibration(cal_path.string());
    calibrate_options o;
    o.created_utc = committed.created_utc;
    o.link = link_kind::nvlink;
    o.link_given = true;
    o.smi_query_fields = "timestamp,power.draw,enforced.power.limit,clocks.sm,clocks.max.sm,clocks_event_reasons.sw_power_cap";
    // data/calibration/make.sh: curves from device time only (the graph-replayed fit sweep,
    // recorded three times).
    const auto fresh = calibrate({fit_sweep.string(), (s / "reversed_fit.json.gz").string(),
                                  (s / "interleaved_fit.json.gz").string(), (m / "ceilings.json").string(), (m / "allreduce_2gpu.json").string(),
                                  (m / "ceilings_nvidia_smi.csv.gz").string(), (v / "h200_power_phases.json").string(),
                                  (v / "h200_power_smi.csv.gz").string()},
                                 gpus::h200_sxm(), o)
                           .overlay;
    // The overlay names the GPU it measured, from the files.
    CHECK(fresh.device.name == "NVIDIA H200");
    CHECK(*fresh.device.sm_count == 132);
    CHECK(fresh.device.driver == "580.159.04");
    CHECK(committed.device.name == fresh.device.name);
    REQUIRE(fresh.curves.size() == committed.curves.size());
    for (std::size_t i = 0; i < fresh.curves.size(); ++i) {
        const auto& a = fresh.curves[i];
        const auto& b = committed.curves[i];
        CAPTURE(std::string(to_string(a.family)));
        CHECK(a.family == b.family);
        CHECK(a.backend == b.backend);
        CHECK(a.fixed_latency_s == approx(b.fixed_latency_s).epsilon(1e-9));
        CHECK(a.floor_s == approx(b.floor_s).epsilon(1e-9));
        CHECK(std::isnan(a.flops_per_clock) == std::isnan(b.flops_per_clock));
        if (!std::isnan(a.flops_per_clock)) CHECK(a.flops_per_clock == approx(b.flops_per_clock).epsilon(1e-9));
        if (!std::isnan(a.bytes_per_s)) CHECK(a.bytes_per_s == approx(b.bytes_per_s).epsilon(1e-9));
        CHECK(a.tile_rows == b.tile_rows);
        CHECK(a.causal_block_keys == b.causal_block_keys);
    }
    REQUIRE(fresh.power.has_value());
    CHECK(fresh.power->coefficients.static_w == approx(committed.power->coefficients.static_w).epsilon(1e-9));
    // Its largest residual, 74.5 W, is 12.3% of the 607.7 W its samples span (83.7 W idle to
    // 691.4 W): flagged unreliable (rms 45.6 W, 7.5%), and the committed file says so.
    CHECK(fresh.power->max_abs_residual_w == approx(74.51).epsilon(1e-3));
    CHECK(fresh.power->power_range_w == approx(607.67).epsilon(1e-4));
    CHECK(fresh.power->unreliable);
    CHECK(committed.power->unreliable);
    REQUIRE(fresh.links.size() == 1);
    CHECK(fresh.links[0].params.beta_bytes_per_s == approx(committed.links[0].params.beta_bytes_per_s).epsilon(1e-9));
    // The eager sweep's 36.8 us a call is a host floor: the committed overlay prices the link's
    // latency at NCCL's 3.6 us base (it had carried 35.1 us until 2026-12-07).
    REQUIRE(committed.links[0].host_floor_s);
    CHECK(*committed.links[0].host_floor_s == approx(*fresh.links[0].host_floor_s).epsilon(1e-9));
    CHECK(committed.links[0].params.base_latency_s == approx(3.6e-6));
    CHECK(*fresh.dram_bytes_per_s == *committed.dram_bytes_per_s);
}

TEST_CASE("on the independent H200 sweep (other shapes and backends, never fitted) the calibration holds") {
    const auto cal_path = roofline::test::repo_data("calibration/h200-sxm.json");
    const auto v = roofline::test::repo_data("validation/h200-graph/");
    if (!roofline::test::have_sample(cal_path) || !roofline::test::have_sample(v / "kernels_independent.json")) return;
    const auto cal = read_calibration(cal_path.string());
    const auto fitted = validate_calibration(read_kernel_sweep((v / "kernels_fit_device_time.json").string()), gpus::h200_sxm(), cal, 0);
    const auto indep = validate_calibration(read_kernel_sweep((v / "kernels_independent.json").string()), gpus::h200_sxm(), cal, 0);
    REQUIRE(indep.rows.size() == 7);  // six families and "all"
    for (std::size_t i = 0; i < indep.rows.size(); ++i) {
        const auto& r = indep.rows[i];
        CAPTURE(r.family);
        MESSAGE(r.family << " n=" << r.n << ": uncalibrated " << 100 * r.datasheet.median << "% / " << 100 * r.datasheet.p90
                         << "%, calibrated " << 100 * r.calibrated.median << "% / " << 100 * r.calibrated.p90 << "%");
        // Calibrated beats uncalibrated in every family (median) since the fit takes the fitted
        // cases recorded three times: fp8 GEMMs 3.4% against 4.3% (4.9% when fitted to the
        // 2026-12-01 recording alone, whose large fp8 GEMMs ran 2-5% slower than in either
        // re-recording), SDPA prefill 0.6% against 2.0% (was a 2.0% tie).
        CHECK(r.calibrated.median < r.datasheet.median);
        // The sweeps recorded no clocks: the curves hold the rates measured under the 700 W
        // limit, and `kernel`'s power-model clock leaves them so (it lowered them a second time
        // before: GEMM bf16 19.7% / 26.9%, fp8 20.7% / 31.5%, all 10.0% / 29.7%).
        CHECK(r.calibrated_power_clock.median == approx(r.calibrated.median));
        CHECK(r.calibrated_power_clock.p90 == approx(r.calibrated.p90));
    }
    // Better in p90 too, except bf16 GEMM (9.2% against 7.5%): fp8 10.3% vs 15.4%, grouped GEMM
    // 17.5% vs 29.8%, SDPA decode 24.1% vs 36.7% (the curve computes FA2's 128-row tiles and
    // pays the split-KV combine kernel; was 40.8%), copy 29.7% vs 35.8%.
    for (std::size_t i : {1, 2, 3, 4, 5}) {
        CAPTURE(indep.rows[i].family);
        CHECK(indep.rows[i].calibrated.p90 < indep.rows[i].datasheet.p90);
    }
    CHECK(indep.rows[4].calibrated.median == approx(0.052).epsilon(0.03));
    const auto& all = indep.rows.back();
    CHECK(all.n == 102);  // 109 cases less the 7 memory-efficient SDPA cases that found no kernel
    CHECK(all.calibrated.median <= 0.05);  // 4.1% (goal 5%; 4.7% before the curves shared the model's kernel facts)
    CHECK(all.calibrated.p90 <= 0.15);     // 12.0% (goal 15%; was 14.2%)
    CHECK(all.calibrated.p90 == approx(0.120).epsilon(0.03));
    // The uncalibrated model meets its goal (median <= 8%, p90 <= 25%) on this sweep; today's
    // values are guarded so that a change shows (it was 18.7% / 43.0% before tile padding, the
    // published attention rates and FA2's decode tiles; 16.3% / 35.0% before the dense GEMM's
    // waves and Hopper's FP8 rate; 8.3% / 35.0% before the grouped GEMM's loads and math in
    // series; 8.1% / 29.3% before a cuBLAS kernel's measured fixed time). Relative tolerances.
    CHECK(all.datasheet.median <= 0.08);
    CHECK(all.datasheet.p90 <= 0.25);
    CHECK(all.datasheet.median == approx(0.051).epsilon(0.02));
    CHECK(all.datasheet.p90 == approx(0.178).epsilon(0.02));
    // Dense GEMMs in the nvjet tiles their names give, in whole waves, with a cuBLAS kernel's
    // measured 3.2 us (7.7 us a split-K pair); FP8 at Hopper's published FP8 / BF16 ratio:
    // bf16 4.4% (was 9.3%, then 7.4%), fp8 4.3% (was 19.4%, then 7.1%).
    CHECK(indep.rows[0].family == "gemm bf16");
    CHECK(indep.rows[0].datasheet.median == approx(0.044).epsilon(0.03));
    CHECK(indep.rows[1].family == "gemm fp8");
    CHECK(indep.rows[1].datasheet.median == approx(0.043).epsilon(0.03));
    // FA2 decode computes 128-row tiles for a GQA group's rows: 8.7% (was 15.5%, DRAM streaming).
    CHECK(indep.rows[4].family == "sdpa decode");
    CHECK(indep.rows[4].datasheet.median == approx(0.087).epsilon(0.03));
    // SDPA prefill at the FlashAttention-3 paper's FA2 / cuDNN rates: 2.0% / 6.6% (was 39% / 63%).
    CHECK(indep.rows[3].family == "sdpa prefill");
    CHECK(indep.rows[3].datasheet.p90 <= 0.07);
    // Grouped GEMM with whole-cluster M tiles, its loads and tile math in series (Nsight Compute:
    // both roofs half used at once): 16.8% / 29.8% (31.1% / 46.2% with the larger roof only,
    // 37.3% before the padding).
    CHECK(indep.rows[2].datasheet.median == approx(0.168).epsilon(0.02));
    CHECK(indep.rows[2].datasheet.p90 == approx(0.298).epsilon(0.02));
    // In sample, on the device-timed fit sweep.
    CHECK(fitted.rows.back().calibrated.median <= 0.05);  // 3.3% (was 4.5%)
    CHECK(fitted.rows[4].calibrated.median == approx(0.032).epsilon(0.03));  // decode, was 10.6%
    CHECK(fitted.rows.back().datasheet.median == approx(0.062).epsilon(0.02));  // was 23.6%, 18.9%, 14.3%, 12.4%
    CHECK(fitted.rows[2].family == "grouped gemm");
    CHECK(fitted.rows[2].datasheet.median == approx(0.112).epsilon(0.02));  // was 37.1%
}

TEST_CASE("on the independent set re-recorded in another order, the calibration holds within the GPU's repeatability") {
    // data/samples/h200-stacks/sweep_order/: the independent cases recorded again on 2026-12-03,
    // once after the fitted set (reversed) and once case by case alternating with it
    // (interleaved). Neither recording is an input of the fit. The same case recorded twice
    // differs by a median 1.0-2.3% per GEMM family (p90 6-9%): the README's repeatability table.
    const auto cal_path = roofline::test::repo_data("calibration/h200-sxm.json");
    const auto s = roofline::test::repo_data("samples/h200-stacks/sweep_order/");
    if (!roofline::test::have_sample(cal_path) || !roofline::test::have_sample(s / "reversed_independent.json.gz") ||
        !roofline::test::have_sample(s / "interleaved_independent.json.gz"))
        return;
    const auto cal = read_calibration(cal_path.string());
    for (const char* name : {"reversed_independent.json.gz", "interleaved_independent.json.gz"}) {
        CAPTURE(name);
        const auto r = validate_calibration(read_kernel_sweep((s / name).string()), gpus::h200_sxm(), cal, 0);
        REQUIRE(r.rows.size() == 7);
        for (const auto& row : r.rows) {
            CAPTURE(row.family);
            MESSAGE(std::string(name) << " " << row.family << " n=" << row.n << ": uncalibrated " << 100 * row.datasheet.median << "% / "
                         << 100 * row.datasheet.p90 << "%, calibrated " << 100 * row.calibrated.median << "% / "
                         << 100 * row.calibrated.p90 << "%");
            // Never worse than uncalibrated by more than a point, under the repeatability of one
            // case: fp8 GEMM 4.1% vs 3.4% (reversed) and 4.4% vs 3.6% (interleaved), SDPA prefill
            // 2.7% vs 1.8% (reversed) are the families where it loses; the rest it wins.
            CHECK(row.calibrated.median <= row.datasheet.median + 0.01);
        }
        const auto& all = r.rows.back();
        CHECK(all.n == 102);
        CHECK(all.calibrated.median <= 0.05);
        CHECK(all.calibrated.p90 <= 0.15);
        CHECK(all.calibrated.median < all.datasheet.median);
        CHECK(all.calibrated.p90 < all.datasheet.p90);
    }
}

TEST_CASE("a profiler trace recorded with shapes gives GEMM rate points (the H200 power-capped GEMM)") {
    const auto path = roofline::test::repo_data("samples/h200/gemm_power/trace.json.gz");
    if (!roofline::test::have_sample(path)) return;
    CHECK(detect_measurement_format(path.string()) == measurement_format::kineto_trace);
    const auto pts = trace_gemm_points(read_kineto(path.string()));
    // 3 steps x 4 aten::mm of 16384^3 bf16 (data/samples/h200/gemm_power/README.md); the trace
    // has 15 GEMM kernels, 12 of them linked to a recorded aten::mm, of 12.30-12.77 ms:
    // 2 x 16384^3 / 12.77 ms = 689 TFLOP/s up to 2 x 16384^3 / 12.30 ms = 715 TFLOP/s.
    REQUIRE(pts.size() == 12);
    for (const auto& p : pts) {
        CHECK(p.key == "bf16");
        CHECK(p.value >= 688e12);
        CHECK(p.value <= 716e12);
        CHECK(std::isnan(p.clock_hz));
    }
}
