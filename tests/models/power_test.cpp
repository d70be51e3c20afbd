// Tests of models/power.hpp: the power model against this project's H200 measurement and the
// shared nvidia-smi sample, clock under a cap, and laws over power limits.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "roofline/core/catalog.hpp"
#include "roofline/models/power.hpp"

using namespace roofline;

namespace {
workload gemm16k() {
    const double n = 16384;
    workload w;
    w.flops_at(peak_key::bf16) = 2 * n * n * n;            // 8.796e12 FLOP
    w.bytes_at(memory_level::dram) = 3 * n * n * 2;        // 1.61e9 B minimum
    return w;
}
/// H200 datasheet ceilings with the bf16 peak scaled to the GEMM efficiency we measured:
/// 665 TFLOP/s at 1410 MHz is 665 / (989 x 1410 / 1830) = 0.8728 of the clock-scaled peak.
ceilings h200_achievable() {
    auto c = datasheet_ceilings(gpus::h200_sxm());
    c.flops_at(peak_key::bf16) *= 665e12 / (989e12 * 1410.0 / 1830.0);
    c.bytes_at(memory_level::dram) = 4.28e12;  // measured copy
    return c;
}
}  // namespace

TEST_CASE("the H200 coefficients reproduce the measured GEMM and copy power") {
    const auto p = h200_power_coefficients();
    // GEMM at 1410 MHz: 8.796e12 FLOP in 13.22 ms (665 TFLOP/s): 124 + 16 + 550.6 = 690.6 W.
    const auto w = gemm16k();
    const double t = w.flops_at(peak_key::bf16) / 665e12;
    CHECK(board_power_w(p, w, t, 1410e6) == approx(690.6 + (w.dram_bytes() / t * p.joules_per_dram_byte - 16.0)).epsilon(1e-9));
    CHECK(board_power_w(p, w, t, 1410e6) == approx(690.6).epsilon(0.002));
    // Copy of 4 GiB both ways at 4.28 TB/s: 124 + 130.1 pJ/B x 4.28e12 B/s = 681 W.
    workload copy;
    copy.bytes_at(memory_level::dram) = 2.0 * 4 * 1024.0 * 1024 * 1024;
    CHECK(board_power_w(p, copy, copy.dram_bytes() / 4.28e12, 1980e6) == approx(681.0));
    // Energy per FLOP grows as f^2: at 1980 MHz, 0.828 x (1980/1410)^2 = 1.633 pJ.
    workload one;
    one.flops_at(peak_key::bf16) = 1e12;
    CHECK(board_power_w(p, one, 1.0, 1980e6) - p.static_w == approx(0.8277 * 1.9718).epsilon(1e-3));
}

TEST_CASE("a sustained bf16 GEMM on H200 is power-capped near 1,410-1,450 MHz, a copy is not") {
    const auto g = gpus::h200_sxm();
    const auto p = h200_power_coefficients();
    const auto c = h200_achievable();
    const auto r = under_power_limit(gemm16k(), c, p, 700.0, 1830e6, 1980e6);
    // 124 + 566.6 (f / 1410)^3 = 700  ->  f = 1410 x (576 / 566.6)^(1/3) = 1417.8 MHz. The shared
    // sample (h200_sweep_nvidia_smi.csv, a separate run) held 1,380-1,490 MHz at 700 W.
    CHECK(r.capped);
    CHECK(r.clock_hz == approx(1417.8e6).epsilon(0.002));
    CHECK(r.power_w == approx(700.0).epsilon(1e-6));
    CHECK(r.clock_fraction == approx(1417.8 / 1980.0).epsilon(0.002));
    CHECK(r.in_force.flops_at(peak_key::bf16) < c.flops_at(peak_key::bf16));
    CHECK(r.in_force.bytes_at(memory_level::dram) == c.bytes_at(memory_level::dram));
    workload copy;
    copy.bytes_at(memory_level::dram) = 8.0 * 1024 * 1024 * 1024;
    const auto rc = under_power_limit(copy, c, p, 700.0, 1830e6, 1980e6);
    CHECK_FALSE(rc.capped);
    CHECK(rc.clock_hz == 1980e6);
    CHECK(rc.power_w == approx(681.0).epsilon(0.001));
    CHECK(default_power_coefficients(g).has_value());
    CHECK_FALSE(default_power_coefficients(gpus::h100_sxm()).has_value());
}

TEST_CASE("laws: a lower cap never raises the clock, never exceeds the cap, and lengthens compute") {
    const auto p = h200_power_coefficients();
    const auto c = h200_achievable();
    double prev_clock = 0, prev_time = 1e9;
    for (double limit : {300.0, 400.0, 500.0, 600.0, 700.0, 1000.0}) {
        const auto r = under_power_limit(gemm16k(), c, p, limit, 1830e6, 1980e6);
        CHECK(r.power_w <= limit * (1 + 1e-9));
        CHECK(r.clock_hz >= prev_clock);
        CHECK(r.time_s <= prev_time);
        CHECK(r.energy_j == approx(r.power_w * r.time_s));
        prev_clock = r.clock_hz;
        prev_time = r.time_s;
    }
    // Energy per token: 700 W for a 20 ms step of 64 tokens = 0.21875 J/token.
    CHECK(energy_per_token_j(700, 0.02, 64) == approx(0.21875));
    workload fp4;
    fp4.flops_at(peak_key::fp4) = 1;
    CHECK_THROWS_AS(board_power_w(p, fp4, 1.0, 1e9), usage_error);
}

TEST_CASE("RTX PRO 6000 boards: the published power-limit sweep's clocks, and a 300 W Max-Q slower than a 600 W card") {
    // voipmonitor/rtx6kpro hardware/blackwell-power-limit-sweep.md (gpu_burn -tc, mean of two
    // cards): Workstation 300/400/500/600 W -> 1019/1365/1667/1910 MHz; Server 300/400/500 W ->
    // 1417/1724/1895 MHz; Max-Q 250/300/325 W -> 1252/1417/1500 MHz.
    const double flops_per_clock = rtx_pro_6000_burn_flops_per_clock;
    const auto check = [&](const gpu_spec& g, double limit, double published_mhz) {
        const auto p = *default_power_coefficients(g);
        // The burn: TF32 at 86.5e3 FLOP per clock, in proportion to the clock; a large GEMM.
        auto c = datasheet_ceilings(g);
        const double top = 2617e6;
        c.flops_at(peak_key::tf32) = flops_per_clock * top;
        workload w;
        w.flops_at(peak_key::tf32) = 1e13;
        const auto r = under_power_limit(w, c, p, limit, top, top);
        CAPTURE(g.id);
        CAPTURE(limit);
        CHECK(r.capped);
        CHECK(r.clock_hz / 1e6 == approx(published_mhz).epsilon(0.05));
        return r;
    };
    const auto ws = gpus::rtx_pro_6000(), sv = gpus::rtx_pro_6000_server(), mq = gpus::rtx_pro_6000_maxq();
    check(ws, 300, 1019);
    check(ws, 400, 1365);
    check(ws, 500, 1667);
    const auto ws600 = check(ws, 600, 1910);
    check(sv, 300, 1417);
    check(sv, 400, 1724);
    check(sv, 500, 1895);
    check(mq, 250, 1252);
    const auto mq300 = check(mq, 300, 1417);
    check(mq, 325, 1500);
    // Same work, the Max-Q at its 300 W: 1910 / 1417 = 1.35x longer than the Workstation at 600 W.
    CHECK(mq300.time_s / ws600.time_s == approx(1910.0 / 1417.0).epsilon(0.03));
    CHECK_FALSE(default_power_coefficients(gpus::rtx_5090()).has_value());  // no sweep used for it

    // Decode-heavy serving streams DRAM at ~1.4 TB/s: 171.2 + 25 pJ/B x 1.4e12 = 206 W, under a
    // 300 W cap, so the cap costs it nothing; the published sweep of a 600 W card serving
    // GLM-4.5-Air FP8 kept 95.4% of its throughput at 300 W (themarkymark,
    // direct.ecency.com/technology/@themarkymark/nvidia-rtx-6000-pro-power-efficiency-testing-gxe).
    const auto p = rtx_pro_6000_workstation_power_coefficients();
    CHECK(p.joules_per_dram_byte == approx(24.95e-12).epsilon(1e-3));
    workload stream;
    stream.bytes_at(memory_level::dram) = 1.4e12;
    auto at_1400 = datasheet_ceilings(ws);
    at_1400.bytes_at(memory_level::dram) = 1.4e12;
    const auto r_dec = under_power_limit(stream, at_1400, p, 300.0, 2617e6, 2617e6);
    CHECK_FALSE(r_dec.capped);
    CHECK(r_dec.power_w == approx(171.2 + 24.95e-12 * 1.4e12).epsilon(0.01));
}
