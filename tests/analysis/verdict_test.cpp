// Tests of analysis/verdict.hpp: each rule fires on its evidence and only on it.
#include <doctest/doctest.h>

#include "roofline/analysis/verdict.hpp"

using namespace roofline;

namespace {
power_evidence capped_power() {
    // The H200 sample's capped GEMM window: ~700 W of 700 W, SwPowerCap on, ~1450 of 1980 MHz.
    power_evidence p;
    p.limit_w = 700.0;
    p.limit_from_log = true;
    p.median_draw_w = 698.0;
    p.fraction_of_limit = 698.0 / 700.0;
    p.clock_fraction_of_max = 1450.0 / 1980.0;
    p.power_cap_active_fraction = 0.95;
    p.samples = 200;
    return p;
}
}  // namespace

TEST_CASE("a compute-heavy phase at the power limit with the clock held down is power-bound") {
    phase_evidence e;
    e.utilization.compute = 0.55;  // against the datasheet clock
    e.utilization.memory = 0.05;
    e.power = capped_power();
    const auto v = classify(e);
    CHECK(v.what == bound::power);
    CHECK(v.reason.find("700 W") != std::string::npos);
    CHECK(v.reason.find("73%") != std::string::npos);  // 1450 / 1980 = 73%
}

TEST_CASE("a memory-bound phase touching the cap at full clock stays memory-bound, with a note") {
    phase_evidence e;
    e.utilization.compute = 0.02;
    e.utilization.memory = 0.85;
    auto p = capped_power();
    p.clock_fraction_of_max = 1.0;  // 1980 of 1980 MHz
    e.power = p;
    const auto v = classify(e);
    CHECK(v.what == bound::memory);
    REQUIRE(v.notes.size() == 1);
    CHECK(v.notes[0].find("power cap was touched") != std::string::npos);
}

TEST_CASE("draw far below the limit at full clock is never power-bound") {
    phase_evidence e;
    e.utilization.compute = 0.3;
    e.utilization.memory = 0.2;
    power_evidence p;
    p.limit_w = 600.0;
    p.fraction_of_limit = 290.0 / 600.0;
    p.clock_fraction_of_max = 0.98;
    p.power_cap_active_fraction = 0.0;
    p.median_utilization_gpu = 1.0;  // "100% utilisation" is not saturation
    e.power = p;
    CHECK(classify(e).what == bound::latency);
}

TEST_CASE("collectives over half the critical path make a phase communication-bound") {
    phase_evidence e;
    e.utilization.communication = 0.4;
    e.communication_share = 0.7;
    const auto v = classify(e);
    CHECK(v.what == bound::communication);
    CHECK(v.reason == "collectives take 70% of the critical path");
}

TEST_CASE("the most utilised roof wins when it is at or above 60% of its ceiling") {
    phase_evidence e;
    e.utilization.compute = 0.61;
    e.utilization.memory = 0.40;
    CHECK(classify(e).what == bound::compute);
    e.utilization.compute = 0.59;
    e.utilization.memory = 0.40;
    const auto v = classify(e);
    CHECK(v.what == bound::latency);
    CHECK(v.reason.find("compute 59%") != std::string::npos);
}

TEST_CASE("a derated compute ceiling is what 'near' is judged against") {
    phase_evidence e;
    e.utilization.compute = 0.45;         // of the datasheet peak at 1830 MHz
    e.compute_at_measured_clock = 0.65;   // of the peak at the clock in force
    e.utilization.memory = 0.1;
    CHECK(classify(e).what == bound::compute);
}
