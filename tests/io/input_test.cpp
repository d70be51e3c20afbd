// Tests of io/input.hpp and io/csv.hpp: gzip on the fly, lines, RFC 4180 records.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // getpid

#include "io/io_test_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/nsys_sqlite.hpp"
#include "roofline/io/trace_file.hpp"
#include "test_support.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/input.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("plain and gzip files read back the same bytes, concatenated members included") {
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
    const temp_file plain(text, ".txt");
    const temp_file gz(text, ".txt.gz");
    CHECK(io::read_all(plain.path()) == text);
    CHECK(io::read_all(gz.path()) == text);
    const temp_file two(test::gzip_bytes("abc\n") + test::gzip_bytes("def"), ".gz",
                        temp_file::mode::raw_bytes);
    CHECK(io::read_all(two.path()) == "abc\ndef");

    io::input_file in(gz.path());
    io::line_reader lines(in);
    std::string line;
    std::size_t n = 0;
    while (lines.next(line)) ++n;
    CHECK(n == 20000);
    CHECK(lines.line_number() == 20000);
    CHECK(in.compressed());
}

TEST_CASE("broken gzip is an error naming the file and the byte") {
    std::string text(100000, 'x');
    const auto gz = test::gzip_bytes(text);
    SUBCASE("truncated") {
        const temp_file f(gz.substr(0, gz.size() / 2), ".gz", temp_file::mode::raw_bytes);
        CHECK_THROWS_WITH_AS(io::read_all(f.path()), doctest::Contains("truncated gzip"),
                             parse_error);
    }
    SUBCASE("corrupt") {
        auto bad = gz;
        for (std::size_t i = 10; i < 30 && i < bad.size(); ++i) bad[i] = static_cast<char>(~bad[i]);
        const temp_file f(bad, ".gz", temp_file::mode::raw_bytes);
        CHECK_THROWS_WITH_AS(io::read_all(f.path()), doctest::Contains("byte"), parse_error);
    }
    SUBCASE("missing") {
        CHECK_THROWS_WITH_AS(io::read_all("/nonexistent/x.gz"),
                             doctest::Contains("/nonexistent/x.gz: cannot open"), parse_error);
    }
}

TEST_CASE("line reader handles CRLF and a last line without newline") {
    const temp_file f("a\r\nb\nc", ".txt");
    io::input_file in(f.path());
    io::line_reader lines(in);
    std::string s;
    REQUIRE(lines.next(s));
    CHECK(s == "a");
    REQUIRE(lines.next(s));
    CHECK(s == "b");
    CHECK(lines.last_had_newline());
    REQUIRE(lines.next(s));
    CHECK(s == "c");
    CHECK_FALSE(lines.last_had_newline());
    CHECK_FALSE(lines.next(s));
}

TEST_CASE("CSV records follow RFC 4180") {
    std::vector<std::string> f;
    CHECK(io::split_csv(R"("a","b,c","d ""q"" e",,x)", f));
    CHECK(f == std::vector<std::string>{"a", "b,c", "d \"q\" e", "", "x"});
    CHECK(io::split_csv("0, NVIDIA H200, 80.46 W", f));
    CHECK(f == std::vector<std::string>{"0", "NVIDIA H200", "80.46 W"});
    CHECK(io::split_csv("a,", f));
    CHECK(f == std::vector<std::string>{"a", ""});
    CHECK_FALSE(io::split_csv(R"(a,"open)", f));

    const temp_file t("h1,h2\n\"multi\nline\",2\n\"never closed\n", ".csv");
    io::input_file in(t.path());
    io::csv_reader csv(in);
    std::string raw;
    REQUIRE(csv.next(f, raw));
    REQUIRE(csv.next(f, raw));
    CHECK(f == std::vector<std::string>{"multi\nline", "2"});
    CHECK(csv.line_number() == 2);
    CHECK_THROWS_WITH_AS(csv.next(f, raw), doctest::Contains("line 4"), parse_error);
}

TEST_CASE("a record whose quoted fields close and reopen across lines reads as split_csv reads it whole") {
    // Five lines, one record: field 1 opens on line 1 and closes on line 2, where field 2 opens;
    // it closes on line 3 (" x" after the quote is kept without its blank), where field 3 opens
    // with an escaped quote pair; it closes on line 5. csv_reader resumes from the open field
    // (linear time); the fields must equal one split_csv over the joined text.
    const std::string record = "\"a\n1\",\"b\n2\" x,\"c \"\"q\"\"\n3\n4\",tail";
    std::vector<std::string> whole;
    REQUIRE(io::split_csv(record, whole));
    CHECK(whole == std::vector<std::string>{"a\n1", "b\n2x", "c \"q\"\n3\n4", "tail"});

    const temp_file t(record + "\nnext,row\n", ".csv");
    io::input_file in(t.path(), 3);
    io::csv_reader csv(in);
    std::vector<std::string> f;
    std::string raw;
    REQUIRE(csv.next(f, raw));
    CHECK(f == whole);
    CHECK(raw == record);
    REQUIRE(csv.next(f, raw));
    CHECK(f == std::vector<std::string>{"next", "row"});
    CHECK(csv.line_number() == 6);
    CHECK_FALSE(csv.next(f, raw));
}

TEST_CASE("an unbalanced quote swallows the rest of the file into one field, then errors on its line") {
    // 20,000 lines after a stray quote: the reader appends them (linear) and names line 2.
    std::string text = "h1,h2\n\"stray,1\n";
    for (int i = 0; i < 20000; ++i) text += "x,\"\"y\"\"\n";
    const temp_file t(text, ".csv");
    io::input_file in(t.path());
    io::csv_reader csv(in);
    std::vector<std::string> f;
    std::string raw;
    REQUIRE(csv.next(f, raw));
    CHECK_THROWS_WITH_AS(csv.next(f, raw), doctest::Contains("line 2"), parse_error);
}

TEST_CASE("numbers with thousands separators in both conventions") {
    using io::detail::parse_grouped_number;
    CHECK(parse_grouped_number("13,485") == 13485.0);
    CHECK(parse_grouped_number("1,234.5") == 1234.5);
    CHECK(parse_grouped_number("27.595.520") == 27595520.0);
    CHECK(parse_grouped_number("1.234,5") == 1234.5);
    CHECK(parse_grouped_number("0.5") == 0.5);
    CHECK(parse_grouped_number("1,5", false) == 1.5);
    CHECK_FALSE(parse_grouped_number("12,34").has_value());
    CHECK_FALSE(parse_grouped_number("n/a").has_value());
}

TEST_CASE("read_all stops at its size limit (a small gzip file can inflate to gigabytes)") {
    // 100 kB of blanks, gzip-compressed to a few hundred bytes; a 64 kB limit is crossed on the
    // second 64 kB chunk.
    const temp_file t(std::string(100000, ' '), ".json.gz");
    CHECK(io::read_all(t.path()).size() == 100000);
    CHECK_THROWS_WITH_AS(io::read_all(t.path(), 65536), doctest::Contains("byte 65536 (decompressed): larger than 65536 bytes"),
                         parse_error);
}

namespace {
/// A named pipe in a fresh folder and a thread that writes `bytes` into it once, then closes it.
struct fifo_with_writer {
    std::filesystem::path dir;
    std::string path;
    std::thread writer;
    fifo_with_writer(const std::string& name, std::string bytes)
        : dir(std::filesystem::temp_directory_path() / ("roofline_fifo_" + std::to_string(::getpid()) + "_" + name)) {
        std::filesystem::create_directories(dir);
        path = (dir / name).string();
        REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
        writer = std::thread([p = path, b = std::move(bytes)] {
            if (std::FILE* f = std::fopen(p.c_str(), "wb")) {
                std::fwrite(b.data(), 1, b.size(), f);
                std::fclose(f);
            }
        });
    }
    ~fifo_with_writer() {
        writer.join();
        std::filesystem::remove_all(dir);
    }
};
}  // namespace

TEST_CASE("a pipe is read once and kept: format detection, then the reader, see the same bytes") {
    // `roofline trace <(zcat f)`: the readers open an input more than once (is_sqlite_file,
    // the format's first bytes, then parsing); a pipe gives its bytes once, and the second open
    // had read an empty file.
    const auto sample = test::repo_data("samples/h200/gemm_power/trace.json.gz");
    const std::string bytes = io::detail::raw_head(sample.string(), std::size_t(1) << 24);
    REQUIRE(bytes.size() > 1000);
    const fifo_with_writer pipe("trace.json.gz", bytes);
    const std::string& fifo = pipe.path;
    CHECK(io::detail::raw_head(fifo, 2) == bytes.substr(0, 2));  // looking does not consume
    CHECK(!is_sqlite_file(fifo));
    CHECK(detect_trace_format(fifo) == trace_format::kineto);
    const auto t = read_kineto(fifo);
    CHECK(t.stats.events_kept == read_kineto(sample.string()).stats.events_kept);
    CHECK(t.events.size() == 30);  // 15 GEMMs and 15 memsets (the sample's README)
}

TEST_CASE("an SQLite database through a pipe is refused, not waited on") {
    const fifo_with_writer pipe("run.sqlite", std::string("SQLite format 3\0 and then not much", 34));
    const std::string& fifo = pipe.path;
    CHECK(is_sqlite_file(fifo));  // the kept bytes say SQLite
    if (have_sqlite) {
        // libsqlite3 opens the path again: a named pipe would wait for a writer that is gone.
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(fifo, load_kernel_rules()), doctest::Contains("must be a regular file"),
                             parse_error);
    }
}

TEST_CASE("skip_to moves to a content offset: a seek in a plain file, inflating in a gzip one") {
    std::string content;
    for (int i = 0; i < 40000; ++i) content += "line " + std::to_string(i) + "\n";  // ~400 kB: several chunks
    for (const char* suffix : {".txt", ".txt.gz"}) {
        CAPTURE(suffix);
        const temp_file f(content, suffix);
        io::input_file in(f.path());
        char head[5];
        REQUIRE(in.read(head, 5) == 5);
        for (std::uint64_t at : {std::uint64_t(7), std::uint64_t(70000), std::uint64_t(300001)}) {
            in.skip_to(at);
            CHECK(in.offset() == at);
            char buf[16];
            REQUIRE(in.read(buf, sizeof buf) == sizeof buf);
            CHECK(std::string(buf, sizeof buf) == content.substr(at, sizeof buf));
        }
        CHECK_THROWS_AS(in.skip_to(10), parse_error);                // backwards
        CHECK_THROWS_AS(in.skip_to(content.size() + 100), parse_error);  // past the end
    }
}
