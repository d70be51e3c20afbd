// Tests of analysis/intervals.hpp: union, intersection, difference and gaps on a GPU timeline.
#include "roofline/analysis/intervals.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

using namespace roofline;

TEST_CASE("merging overlapping, touching, nested and empty intervals gives the union") {
    // [0,2) u [1,3) = [0,3); [3,4) touches it; [10,20) holds [12,13); [5,5) is empty.
    const auto s = merge_intervals({{10, 20}, {1, 3}, {0, 2}, {12, 13}, {3, 4}, {5, 5}});
    REQUIRE(s.size() == 2);
    CHECK(s[0].start_s == 0);
    CHECK(s[0].end_s == 4);
    CHECK(s[1].start_s == 10);
    CHECK(s[1].end_s == 20);
    CHECK(total_length_s(s) == approx(14.0));  // 4 + 10
    const auto g = gaps_s(s);
    REQUIRE(g.size() == 1);
    CHECK(g[0] == approx(6.0));  // 10 - 4
}

TEST_CASE("exposed communication is the collectives minus the compute, overlap the rest") {
    // Collectives [0,10) and [20,30) on one stream; compute [5,25) on another.
    // exposed = [0,5) + [25,30) = 10; overlapped = [5,10) + [20,25) = 10.
    const auto comm = merge_intervals({{0, 10}, {20, 30}});
    const auto compute = merge_intervals({{5, 25}});
    const auto exposed = subtract(comm, compute);
    REQUIRE(exposed.size() == 2);
    CHECK(exposed[0].start_s == 0);
    CHECK(exposed[0].end_s == 5);
    CHECK(exposed[1].start_s == 25);
    CHECK(exposed[1].end_s == 30);
    CHECK(total_length_s(exposed) == approx(10.0));
    CHECK(total_length_s(intersect(comm, compute)) == approx(10.0));
    CHECK(total_length_s(exposed) + total_length_s(intersect(comm, compute)) ==
          approx(total_length_s(comm)));
}

TEST_CASE("a difference with several holes in one interval keeps every piece") {
    // [0,10) minus {[1,2), [4,6), [9,12)} = [0,1) [2,4) [6,9): 1 + 2 + 3 = 6.
    const auto d = subtract(merge_intervals({{0, 10}}), merge_intervals({{1, 2}, {4, 6}, {9, 12}}));
    REQUIRE(d.size() == 3);
    CHECK(total_length_s(d) == approx(6.0));
    CHECK(d[2].start_s == 6);
    CHECK(d[2].end_s == 9);
    // Nothing to subtract, or everything.
    CHECK(total_length_s(subtract(merge_intervals({{0, 10}}), {})) == approx(10.0));
    CHECK(subtract(merge_intervals({{2, 3}}), merge_intervals({{0, 10}})).empty());
}

TEST_CASE("length within a window clips intervals at both ends") {
    // {[0,4), [10,20)} inside [2,12): [2,4) + [10,12) = 4.
    const auto s = merge_intervals({{0, 4}, {10, 20}});
    CHECK(length_within_s(s, 2, 12) == approx(4.0));
    CHECK(length_within_s(s, 4, 10) == approx(0.0));
    CHECK(length_within_s(s, -100, 100) == approx(14.0));
}
