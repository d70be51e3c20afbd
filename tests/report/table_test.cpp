// Tests of report/table.hpp: alignment, fitting a width, ellipsis in the middle.
#include "roofline/report/table.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace roofline::report;

TEST_CASE("the middle of a long name gives way to an ellipsis, head and tail survive") {
    CHECK(ellipsize_middle("abcdefghij", 7) == "abc\u2026hij");  // 6 kept: 3 + 3
    CHECK(ellipsize_middle("abcdefghij", 6) == "abc\u2026ij");   // 5 kept: 3 + 2
    CHECK(ellipsize_middle("abcdefghij", 10) == "abcdefghij");
    CHECK(ellipsize_middle("abcdefghij", 1) == "\u2026");
    CHECK(ellipsize_middle("abcdefghij", 0).empty());
    // UTF-8: "µ" is two bytes, one column; it is never split.
    CHECK(display_width("12 \u00b5s") == 5);
    CHECK(ellipsize_middle("\u00b5\u00b5\u00b5\u00b5\u00b5\u00b5", 4) ==
          "\u00b5\u00b5\u2026\u00b5");
}

TEST_CASE("numbers align right, names left, columns two spaces apart") {
    auto t = text_table::with_headers({"kernel", "calls", "time"});
    t.add_row({"gemm", "412", "4.56 ms"});
    t.add_row({"norm", "12", "850 ns"});
    // widths: kernel 6, calls 5, time 7.
    CHECK(t.render() ==
          "kernel  calls     time\n"
          "------  -----  -------\n"
          "gemm      412  4.56 ms\n"
          "norm       12   850 ns\n");
    CHECK_FALSE(t.right_aligned(0));
    CHECK(t.right_aligned(1));
}

TEST_CASE("a table wider than the limit shortens its text column in the middle, not its numbers") {
    auto t = text_table::with_headers({"kernel", "calls", "time"});
    const std::string name =
        "flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>";  // 54 columns
    t.add_row({"gemm", "412", "4.56 ms"});
    t.add_row({name, "12", "850 ns"});
    // Natural: 54 + 2 + 5 + 2 + 7 = 70 > 40, so "kernel" shrinks by 30 to 24 columns: 23 kept
    // characters, 12 of the head ("flash_fwd_sp") and 11 of the tail ("raits<128>>").
    CHECK(t.widths(40) == std::vector<std::size_t>{24, 5, 7});
    CHECK(t.render(40) ==
          "kernel                    calls     time\n"
          "------------------------  -----  -------\n"
          "gemm                        412  4.56 ms\n"
          "flash_fwd_sp\u2026raits<128>>     12   850 ns\n");
    // No limit: the full name.
    CHECK(t.render(0).find(name) != std::string::npos);
}

TEST_CASE(
    "text columns shrink no further than their floor and placeholders do not flip a numeric "
    "column") {
    auto t = text_table::with_headers({"name", "value"});
    t.add_row({std::string(30, 'x'), "n/a"});
    t.add_row({"y", "1.5"});
    CHECK(t.right_aligned(1));
    CHECK(t.widths(10) == std::vector<std::size_t>{12, 5});  // floor 12; the table stays 19 wide
    CHECK_THROWS_AS(t.add_row({"a", "b", "c"}), roofline::usage_error);
}

TEST_CASE("explicit alignment overrides the automatic choice") {
    text_table t({{"id", align::right}, {"n", align::left}});
    t.add_row({"a", "1"});
    CHECK(t.render() == "id  n\n--  -\n a  1\n");
}

TEST_CASE("a table laid out one row at a time renders as the held table: widths from every row, then lines") {
    const std::vector<std::vector<std::string>> rows = {
        {"flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>", "12", "850 ns"},
        {"gemm", "412", "4.56 ms"},
        {"copy", "n/a", ""}};
    auto t = text_table::with_headers({"kernel", "calls", "time"});
    table_layout l({{"kernel", align::automatic}, {"calls", align::automatic}, {"time", align::automatic}});
    for (const auto& r : rows) {
        t.add_row(r);
        l.add(r);
    }
    l.fit(40);
    std::string streamed = l.head();
    for (const auto& r : rows) streamed += l.line(r);
    CHECK(streamed == t.render(40));
    CHECK(streamed ==
          "kernel                    calls     time\n"
          "------------------------  -----  -------\n"
          "flash_fwd_sp\u2026raits<128>>     12   850 ns\n"
          "gemm                        412  4.56 ms\n"
          "copy                        n/a\n");
    CHECK(l.widths(40) == std::vector<std::size_t>{24, 5, 7});
    CHECK(l.right_aligned(1));
    CHECK_FALSE(l.right_aligned(0));
}
