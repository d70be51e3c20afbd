// Tests of io/nsys_sqlite.hpp. There is no recorded nsys SQLite export among the samples (nsys
// cannot record on our machines), so the databases are built here from SQL text that follows
// the 2024-2026 schema written down in ../shared/FORMATS.md section 4 (tests/io/data/
// nsys_sqlite_basic.sql, whose comment works out every count and time checked below), not from
// a recorded export. Without SQLite support in the build the tests skip with a message.
#include "roofline/io/nsys_sqlite.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#ifdef __linux__
#include <sys/mman.h>  // memfd_create
#include <unistd.h>    // write, close
#endif

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/io_test_support.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/trace_file.hpp"

using namespace roofline;
using roofline::test::temp_file;

TEST_CASE("nsys SQLite: told by its header, even without SQLite support") {
    const temp_file f(std::string("SQLite format 3\0rest of page 1", 31), ".sqlite", temp_file::mode::raw_bytes);
    CHECK(is_sqlite_file(f.path()));
    CHECK(detect_trace_format(f.path()) == trace_format::nsys_sqlite);
    const temp_file short_file("SQLite format 3", ".sqlite");  // 15 bytes, no NUL
    CHECK_FALSE(is_sqlite_file(short_file.path()));
    CHECK_FALSE(is_sqlite_file("/nonexistent/run.sqlite"));
    // A .sqlite name without the header: the error says what was expected.
    CHECK_THROWS_WITH_AS(detect_trace_format(short_file.path()), doctest::Contains("byte 0: not an SQLite database"),
                         parse_error);
    CHECK_THROWS_WITH_AS(detect_trace_format("/nonexistent/run.sqlite"), doctest::Contains("cannot open"), parse_error);
    if (!have_sqlite)
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(f.path(), kernel_rules{}),
                             doctest::Contains("no SQLite support: install libsqlite3-dev"), usage_error);
}

#ifndef ROOFLINE_HAVE_SQLITE

TEST_CASE("nsys SQLite reader") {
    MESSAGE("skipped: this build has no SQLite support (libsqlite3-dev not found by CMake)");
}

#else

namespace {

const kernel_rules& rules() {
    static const kernel_rules r = load_kernel_rules();
    return r;
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A database file built from SQL text, removed at the end of the test.
class sqlite_fixture {
public:
    explicit sqlite_fixture(const std::string& sql) : file_("", ".sqlite") {
        std::filesystem::remove(file_.path());
        sqlite3* db = nullptr;
        REQUIRE(sqlite3_open_v2(file_.path().c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) ==
                SQLITE_OK);
        char* err = nullptr;
        const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
        const std::string msg = err ? err : "";
        sqlite3_free(err);
        sqlite3_close(db);
        REQUIRE_MESSAGE(rc == SQLITE_OK, msg);
    }
    std::string path() const { return file_.path(); }

private:
    temp_file file_;
};

std::string basic_sql() {
    return read_text(std::filesystem::path(ROOFLINE_TESTS_DIR) / "io/data/nsys_sqlite_basic.sql");
}

}  // namespace

TEST_CASE("nsys SQLite: the hand-made export (tests/io/data/nsys_sqlite_basic.sql)") {
    const sqlite_fixture db(basic_sql());
    CHECK(detect_trace_format(db.path()) == trace_format::nsys_sqlite);
    const auto t = read_nsys_sqlite(db.path(), rules());
    CHECK(t.format == "nsys-sqlite");
    // 7 kernel + 1 memcpy + 1 memset + 5 NVTX rows; 5 + 1 + 1 GPU activities and 3 ranges kept.
    CHECK(t.stats.events_read == 14);
    CHECK(t.stats.events_kept == 10);
    CHECK(t.stats.events_skipped == 2);
    CHECK(t.stats.skipped_by_reason.at("negative_dur") == 1);
    CHECK(t.stats.skipped_by_reason.at("null_start") == 1);
    REQUIRE(t.events.size() == 7);

    // Origin: the memcpy at 900000 ns.
    CHECK(t.time_origin_us == approx(900.0));
    REQUIRE(t.base_time_ns.has_value());
    CHECK(*t.base_time_ns == 1780000000000000000);

    const auto& gemm = t.events[0];
    CHECK(gemm.name == "nvjet_sm90_tst_256x128_64x4_2x1_v_bz_coopA_NTN");
    CHECK(gemm.activity == gpu_activity::kernel);
    CHECK(gemm.phase == kernel_phase::gemm);
    CHECK(gemm.start_s == approx(100e-6));  // 1000000 - 900000 ns
    CHECK(gemm.duration_s == approx(50e-6));
    CHECK(gemm.grid == std::array<std::uint32_t, 3>{132, 1, 1});
    CHECK(gemm.block == std::array<std::uint32_t, 3>{384, 1, 1});
    CHECK(gemm.registers_per_thread == 168);
    CHECK(gemm.shared_memory_bytes == approx(207000.0));  // 0 static + 207000 dynamic
    CHECK(gemm.device == 0);
    CHECK(gemm.stream == 7);
    CHECK(gemm.correlation == 101);

    const auto& attn = t.events[1];  // demangledName preferred over shortName "flash_fwd_kernel"
    CHECK(attn.name ==
          "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, true>(flash::Flash_fwd_params)");
    CHECK(attn.phase == kernel_phase::attention);
    CHECK(attn.duration_s == approx(20e-6));
    CHECK(attn.grid == std::array<std::uint32_t, 3>{64, 8, 1});
    CHECK(attn.shared_memory_bytes == approx(16384.0));

    const auto& nccl = t.events[2];  // no demangledName: shortName
    CHECK(nccl.name == "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
    CHECK(nccl.phase == kernel_phase::communication);
    CHECK(nccl.duration_s == approx(30e-6));

    CHECK(t.events[3].start_s == approx(300e-6));
    CHECK(t.events[4].phase == kernel_phase::elementwise);
    CHECK(t.events[4].duration_s == approx(5e-6));

    const auto& copy = t.events[5];
    CHECK(copy.activity == gpu_activity::memcpy);
    CHECK(copy.phase == kernel_phase::memcpy);
    CHECK(copy.name == "[CUDA memcpy Host-to-Device]");
    CHECK(copy.start_s == 0.0);
    CHECK(copy.duration_s == approx(10e-6));
    CHECK(copy.bytes == approx(262144.0));
    const auto& set = t.events[6];
    CHECK(set.activity == gpu_activity::memset);
    CHECK(set.name == "[CUDA memset]");
    CHECK(set.bytes == approx(1024.0));
    CHECK(set.duration_s == approx(1e-6));

    // 50 + 20 + 30 + 50 + 5 us of kernels.
    CHECK(t.busy_s(gpu_activity::kernel) == approx(155e-6));

    REQUIRE(t.devices.size() == 1);
    CHECK(t.devices[0].id == 0);
    CHECK(t.devices[0].name == "NVIDIA H200");
    CHECK(t.devices[0].num_sms == 132);
    CHECK(t.devices[0].compute_major == 9);
    CHECK(t.devices[0].compute_minor == 0);
    CHECK(t.devices[0].total_global_mem_bytes == approx(150754820096.0));

    // NVTX: 3 CPU ranges (the mark and the domain record are not ranges), and the GPU windows
    // of the two outside the NCCL domain.
    REQUIRE(t.annotations.size() == 5);
    const auto& cpu0 = t.annotations[0];
    CHECK(cpu0.name == "decode_step_0");
    CHECK_FALSE(cpu0.gpu);
    CHECK(cpu0.start_s == approx(50e-6));      // 950000 - 900000 ns
    CHECK(cpu0.duration_s == approx(190e-6));  // 1140000 - 950000 ns
    CHECK(t.annotations[1].name == "ncclAllReduce");
    CHECK_FALSE(t.annotations[1].gpu);
    CHECK(t.annotations[2].name == "decode_step_1");    // named through textId
    const auto& gpu0 = t.annotations[3];
    CHECK(gpu0.gpu);
    CHECK(gpu0.device == 0);
    CHECK(gpu0.name == "decode_step_0");
    CHECK(gpu0.start_s == approx(100e-6));
    CHECK(gpu0.duration_s == approx(130e-6));
    const auto& gpu1 = t.annotations[4];
    CHECK(gpu1.name == "decode_step_1");
    CHECK(gpu1.start_s == approx(300e-6));
    CHECK(gpu1.duration_s == approx(71e-6));  // to the memset's end at 1271000 ns

    // The same file through the format-agnostic summary.
    const auto s = summarize_trace_file(db.path(), rules());
    CHECK(s.format == "nsys-sqlite");
    CHECK(s.kernel_count == 5.0);
    CHECK(s.kernel_time_s == approx(155e-6));
    CHECK(s.phase_s(kernel_phase::gemm) == approx(100e-6));
}

TEST_CASE("nsys SQLite: columns found by name, whatever their order and extras") {
    // Another column order, an unknown column, no optional tables, shortName only, a REAL time.
    const sqlite_fixture db(
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (10, 'nvjet_sm90_tst_128x256'), (11, 'rmsnorm_kernel');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (qmdLastCtaDone INTEGER, shortName INTEGER, end INTEGER,"
        " futureColumn TEXT, blockX INTEGER, start INTEGER, gridX INTEGER, streamId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 10, 5000, 'x', 256, 2000, 66, 3),"
        " (0, 11, 9000.0, NULL, 128, 6000, 8, 3), (0, 99, 9500, NULL, 1, 9100, 1, 3);");
    const auto t = read_nsys_sqlite(db.path(), rules());
    CHECK(t.stats.events_read == 3);
    CHECK(t.stats.events_kept == 2);
    CHECK(t.stats.skipped_by_reason.at("unresolved_name") == 1);  // id 99 is not in StringIds
    REQUIRE(t.events.size() == 2);
    CHECK(t.events[0].name == "nvjet_sm90_tst_128x256");
    CHECK(t.events[0].start_s == 0.0);
    CHECK(t.events[0].duration_s == approx(3e-6));
    CHECK(t.events[0].grid == std::array<std::uint32_t, 3>{66, 0, 0});  // gridY/Z absent: unknown
    CHECK(t.events[0].block[0] == 256);
    CHECK(t.events[0].stream == 3);
    CHECK(t.events[0].device == -1);
    CHECK(t.events[0].registers_per_thread == -1);
    CHECK(std::isnan(t.events[0].shared_memory_bytes));
    CHECK(t.events[1].name == "rmsnorm_kernel");
    CHECK(t.events[1].start_s == approx(4e-6));
    CHECK(t.events[1].duration_s == approx(3e-6));
    CHECK(t.devices.empty());
    CHECK(t.annotations.empty());
    CHECK_FALSE(t.base_time_ns.has_value());
}

TEST_CASE("nsys SQLite: errors name the file, the table and the column") {
    SUBCASE("a missing required column") {
        const sqlite_fixture db(
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, shortName INTEGER);");
        try {
            (void)read_nsys_sqlite(db.path(), rules());
            FAIL("no error");
        } catch (const parse_error& e) {
            CHECK(e.file() == db.path());
            CHECK(e.place() == "table CUPTI_ACTIVITY_KIND_KERNEL");
            CHECK(e.field() == "end");
            CHECK(std::string(e.what()).find("column missing") != std::string::npos);
        }
    }
    SUBCASE("no name column") {
        const sqlite_fixture db(
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);");
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(db.path(), rules()), doctest::Contains("\"demangledName\": column missing"),
                             parse_error);
    }
    SUBCASE("an SQLite file without the kernel table (or without StringIds)") {
        const sqlite_fixture db("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);");
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(db.path(), rules()),
                             doctest::Contains("table CUPTI_ACTIVITY_KIND_KERNEL: table missing"), parse_error);
        const sqlite_fixture no_strings("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);");
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(no_strings.path(), rules()), doctest::Contains("table StringIds"),
                             parse_error);
    }
    SUBCASE("not a database, missing, empty") {
        const temp_file text("Start (ns),Duration (ns),Name\n", ".sqlite");
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(text.path(), rules()), doctest::Contains("not an SQLite database"),
                             parse_error);
        CHECK_THROWS_WITH_AS(read_nsys_sqlite("/nonexistent/run.sqlite", rules()),
                             doctest::Contains("/nonexistent/run.sqlite: cannot open"), parse_error);
        const temp_file empty("", ".sqlite");
        CHECK_THROWS_AS(read_nsys_sqlite(empty.path(), rules()), parse_error);
    }
#ifdef __linux__
    SUBCASE("a database libsqlite3 cannot open is an error, and its handle is released") {
        // libsqlite3 resolves symbolic links, and /proc/self/fd/N of an in-memory file points
        // at "/memfd:... (deleted)": sqlite3_open_v2 fails but still allocates a handle, which
        // leaked when the constructor threw (found by fuzz_nsys_sqlite; LeakSanitizer watches
        // this test in CI).
        const sqlite_fixture db(basic_sql());
        const std::string bytes = read_text(db.path());
        const int fd = memfd_create("roofline-test", 0);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        const std::string path = "/proc/self/fd/" + std::to_string(fd);
        CHECK_THROWS_WITH_AS(read_nsys_sqlite(path, rules()), doctest::Contains("cannot open as SQLite"), parse_error);
        ::close(fd);
    }
#endif
    SUBCASE("corrupt and truncated databases: an error, never a crash") {
        const sqlite_fixture db(basic_sql());
        const std::string bytes = read_text(db.path());
        REQUIRE(bytes.size() > 8 * 4096);  // one page per table at least
        // The header alone; the first two pages (the schema and StringIds); the first five (the
        // kernel and memcpy tables, not the rest); page 2 (StringIds) overwritten with garbage.
        std::string garbled = bytes;
        for (std::size_t i = 4096; i < 8192; ++i) garbled[i] = static_cast<char>(0xA5 ^ (i & 0xFF));
        for (const std::string& cut : {bytes.substr(0, 100), bytes.substr(0, 8192),
                                       bytes.substr(0, 5 * 4096), garbled}) {
            const temp_file f(cut, ".sqlite", temp_file::mode::raw_bytes);
            try {
                (void)read_nsys_sqlite(f.path(), rules());
                FAIL("no error for " << cut.size() << " bytes");
            } catch (const parse_error& e) {
                CHECK(e.file() == f.path());
                const std::string what = e.what();
                CHECK(what.find('\n') == std::string::npos);
                MESSAGE(what);
            }
        }
    }
}

#endif  // ROOFLINE_HAVE_SQLITE
