// Tests of core/roofline.hpp: the lower bound, utilisation and ridge points, checked by hand.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"

using namespace roofline;

TEST_CASE("a large bf16 GEMM on an H200 is compute-bound with the time worked by hand") {
    const auto g = gpus::h200_sxm();
    const auto c = datasheet_ceilings(g);
    workload w;
    // 8192^3 GEMM: F = 2 M N K = 1.0995e12 FLOP; bytes = (MK + KN + MN) x 2 B = 402,653,184 B.
    const double n = 8192.0;
    w.flops_at(peak_key::bf16) = 2 * n * n * n;
    w.bytes_at(memory_level::dram) = 3 * n * n * 2;
    const auto t = time_lower_bound(w, c);
    // compute: 1.0995e12 / 989e12 = 1.1117 ms; memory: 4.027e8 / 4.8e12 = 83.9 us.
    CHECK(t.compute_s == approx(1.099511627776e12 / 989e12).epsilon(1e-12));
    CHECK(t.memory_s == approx(402653184.0 / 4.8e12).epsilon(1e-12));
    CHECK(t.predicted == bound::compute);
    CHECK(t.lower_bound_s == approx(t.compute_s));
    CHECK(t.margin == approx(t.compute_s / t.memory_s));
}

TEST_CASE("the ridge point is peak over bandwidth") {
    const auto c = datasheet_ceilings(gpus::h200_sxm());
    // 989e12 / 4.8e12 = 206.04 FLOP/byte (H200.md: "about 206 FLOP per byte in dense bf16").
    CHECK(ridge_point(c, peak_key::bf16) == approx(206.0417).epsilon(1e-5));
    CHECK(attainable_flops_per_s(c, peak_key::bf16, 10.0) == approx(48e12));
    CHECK(attainable_flops_per_s(c, peak_key::bf16, 1000.0) == approx(989e12));
}

TEST_CASE("utilisation is the roof time over the measured time") {
    const auto c = datasheet_ceilings(gpus::h200_sxm());
    workload w;
    w.bytes_at(memory_level::dram) = 4.8e9;  // 1 ms at 4.8 TB/s
    const auto u = utilization(w, c, 2e-3);
    CHECK(u.memory == approx(0.5));
    CHECK(u.compute == 0.0);
    CHECK_THROWS_AS(utilization(w, c, 0.0), usage_error);
    CHECK_THROWS_AS(utilization(w, c, std::nan("")), usage_error);
}

TEST_CASE("tensor classes add, the vector pipe overlaps, latency adds on top") {
    auto c = datasheet_ceilings(gpus::h200_sxm());
    c.launch_latency_s = 3e-6;
    workload w;
    w.flops_at(peak_key::bf16) = 989e9;   // 1 ms
    w.flops_at(peak_key::fp8) = 1979e9;   // 1 ms
    w.flops_at(peak_key::fp32) = 67e9;    // 1 ms on the vector pipe, overlapped
    w.launches = 10;
    const auto t = time_lower_bound(w, c);
    CHECK(t.tensor_s == approx(2e-3));
    CHECK(t.vector_s == approx(1e-3));
    CHECK(t.compute_s == approx(2e-3));
    CHECK(t.lower_bound_s == approx(2e-3 + 30e-6));
}

TEST_CASE("work on a rate class the GPU lacks or does not know is left unpriced and said, never an abort") {
    auto c = datasheet_ceilings(gpus::h200_sxm());
    workload w;
    w.flops_at(peak_key::fp4) = 1e12;
    w.flops_at(peak_key::bf16) = 989e9;  // 1 ms
    w.bytes_at(memory_level::dram) = 4.8e9;  // 1 ms
    w.link_bytes = 2e6;
    c.link_bytes_per_s = std::nan("");
    const auto t = time_lower_bound(w, c);
    CHECK(t.compute_s == approx(1e-3));  // the bf16 part only
    CHECK(t.lower_bound_s == approx(1e-3));
    CHECK_FALSE(t.fully_priced());
    CHECK(t.unpriced_flops[static_cast<std::size_t>(peak_key::fp4)] == 1e12);
    CHECK(t.unpriced_flops[static_cast<std::size_t>(peak_key::bf16)] == 0.0);
    CHECK(t.unpriced_link_bytes == 2e6);
    CHECK(unpriced_summary(t, c) ==
          "this GPU has no fp4 units (1.0 TFLOP left out); interconnect bandwidth unknown (2.0 MB left out)");
    workload priced;
    priced.flops_at(peak_key::bf16) = 1e9;
    CHECK(time_lower_bound(priced, c).fully_priced());
    CHECK(unpriced_summary(time_lower_bound(priced, c), c).empty());
}

TEST_CASE("a power cap derates compute ceilings with the SM clock, not memory") {
    const auto c = datasheet_ceilings(gpus::h200_sxm());
    const auto d = at_sm_clock(c, 1.4e9, 1.83e9);
    CHECK(d.flops_at(peak_key::bf16) == approx(989e12 * 1.4 / 1.83));
    CHECK(d.bytes_at(memory_level::dram) == c.bytes_at(memory_level::dram));
}

TEST_CASE("latency-only workloads are latency-bound") {
    auto c = datasheet_ceilings(gpus::h200_sxm());
    c.launch_latency_s = 4e-6;
    workload w;
    w.launches = 1;
    w.bytes_at(memory_level::dram) = 4.8e6;  // 1 us
    const auto t = time_lower_bound(w, c);
    CHECK(t.predicted == bound::latency);
    CHECK(t.lower_bound_s == approx(5e-6));
}
