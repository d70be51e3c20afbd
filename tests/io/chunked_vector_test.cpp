// Tests of io/detail/chunked_vector.hpp: indexing across chunks and the exact-size hand-over.
#include <doctest/doctest.h>

#include <vector>

#include "roofline/io/detail/chunked_vector.hpp"

using roofline::io::detail::chunked_vector;

TEST_CASE("chunked_vector keeps records in order across chunks and hands them over at the exact size") {
    chunked_vector<int> v;
    CHECK(v.empty());
    const int n = 3 * int(chunked_vector<int>::chunk_size) + 5;  // three full chunks and a partial one
    for (int i = 0; i < n; ++i) v.push_back(i * 7);
    CHECK(v.size() == std::size_t(n));
    CHECK(v[0] == 0);
    CHECK(v[4095] == 4095 * 7);
    CHECK(v[4096] == 4096 * 7);
    CHECK(v[std::size_t(n - 1)] == (n - 1) * 7);
    v[4096] = -1;
    CHECK(v[4096] == -1);
    std::vector<int> out{42};
    v.move_into(out);
    CHECK(v.empty());
    REQUIRE(out.size() == std::size_t(n) + 1);
    CHECK(out.capacity() == out.size());  // reserved once, no growth slack
    CHECK(out[0] == 42);
    CHECK(out[1] == 0);
    CHECK(out[4097] == -1);
    CHECK(out.back() == (n - 1) * 7);
    v.push_back(9);  // usable after the hand-over
    CHECK(v.size() == 1);
    CHECK(v[0] == 9);
}
