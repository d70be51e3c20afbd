// Tests of analysis/pareto.hpp: the front of a hand-made set, the filter, and the streamed
// accumulator against the batch algorithm.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "roofline/analysis/pareto.hpp"

using namespace roofline;

namespace {
struct pt {
    double x, y;
    bool keep = true;
};
std::vector<std::size_t> front(const std::vector<pt>& v) {
    return pareto_front(
        v, [](const pt& p) { return p.x; }, [](const pt& p) { return p.y; }, [](const pt& p) { return p.keep; });
}
}  // namespace

TEST_CASE("the front of a hand-made set: non-dominated points by x ascending") {
    // (x, y): A (10, 100) front; B (20, 80) front; C (15, 70) dominated by B; D (30, 10) front;
    // E (30, 5) dominated by D; F NaN ignored; G = A, a later duplicate, dropped; H (25, 80)
    // dominates B (same y, more x); I (40, 200) filtered out by keep.
    const std::vector<pt> v = {{10, 100}, {20, 80}, {15, 70}, {30, 10}, {30, 5}, {NAN, 500}, {10, 100}, {25, 80},
                               {40, 200, false}};
    CHECK(front(v) == std::vector<std::size_t>{0, 7, 3});
    CHECK(front({}).empty());
    CHECK(front({{0, 5}, {-1, 9}}).empty());  // non-positive coordinates are no candidates
}

TEST_CASE("the accumulator streams the same front as the batch algorithm, ties included") {
    // A fixed linear congruential sequence on a coarse grid, so that ties and duplicates occur.
    std::uint64_t s = 12345;
    const auto next = [&s] {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>((s >> 33) % 40 + 1);
    };
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<pt> v;
        pareto_accumulator<std::size_t> acc;
        for (std::size_t i = 0; i < 300; ++i) {
            v.push_back({next(), next()});
            acc.add(v.back().x, v.back().y, i);
        }
        CHECK(acc.front() == front(v));
    }
}
