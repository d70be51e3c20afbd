#pragma once
// Nsight Systems SQLite export (`nsys export --type sqlite -o run.sqlite run.nsys-rep`) ->
// `kernel_trace`, the same structure the Kineto and `nsys stats` CSV readers produce.
//
// Tables read (schema of nsys 2024-2026 as written down in ../shared/FORMATS.md section 4; the
// tests build small databases with that schema, not from a recorded export). nsys adds columns
// from version to version, so every column is looked up by name (`PRAGMA table_info`):
//   CUPTI_ACTIVITY_KIND_KERNEL  required: `start`, `end` (ns, session-relative) and a name id,
//                               `demangledName` preferred, else `shortName`, else `mangledName`
//                               (ids into `StringIds(id, value)`, also required); optional:
//                               `deviceId`, `streamId`, `correlationId`, `globalPid`,
//                               `gridX..Z`, `blockX..Z`, `registersPerThread`,
//                               `staticSharedMemory` + `dynamicSharedMemory` (bytes per block).
//   CUPTI_ACTIVITY_KIND_MEMCPY  optional table: `start`, `end`, `bytes`, `copyKind`, ... named
//   CUPTI_ACTIVITY_KIND_MEMSET  "[CUDA memcpy Host-to-Device]", "[CUDA memset]" as `nsys stats` does.
//   TARGET_INFO_GPU             optional: `id`, `name`, `smCount`, `totalMemory`, `computeMajor`,
//                               `computeMinor` -> `kernel_trace::devices`, which `roofline trace`
//                               matches against the GPU catalog as it does Kineto's
//                               deviceProperties. `id` is taken to be the kernels' `deviceId`;
//                               `computeMajor`/`computeMinor` are names other tools use, not
//                               checked against a recorded export.
//   TARGET_INFO_SESSION_START_TIME  optional `utcEpochNs` -> `base_time_ns` (Unix clock, so that
//                               an nvidia-smi log can be aligned).
//   NVTX_EVENTS                 optional: push/pop (eventType 59) and start/end (60) ranges,
//                               name from `text` or `textId` -> CPU `annotation`s; projected onto
//                               the GPU (see below) -> GPU `annotation`s, which `roofline trace`
//                               uses as step windows, as it does Kineto's gpu_user_annotation.
//   CUPTI_ACTIVITY_KIND_RUNTIME optional, only for that projection: `start`, `globalTid`,
//                               `correlationId`.
// NVTX projection: the GPU window of a range is the span of the GPU work (first start to last
// end, per device) launched by the runtime calls its thread made inside the range; the call and
// the GPU work are tied by `correlationId` within one process (pid = (globalTid >> 24) & 0xFFFFFF,
// the same bits of `globalPid`). A range that launched nothing has no GPU window, nor has one of
// the NCCL domain (the domain created with text "NCCL": NCCL's own range around each collective,
// which would otherwise stand for a step).
//
// Times: `start_s` = 0 at the earliest GPU activity (kernel, memcpy or memset, as in the CSV
// reader); `time_origin_us` is that instant in the session's microseconds. NVTX ranges that open
// before it have a negative `start_s`.
// Counts (`read_stats`): rows of the KERNEL, MEMCPY, MEMSET and NVTX_EVENTS tables are read;
// GPU rows and NVTX ranges are kept; NVTX marks and domain records are neither kept nor skipped;
// rows with a NULL or non-numeric `start`/`end` ("null_start", "bad_value(end)"), `end` < `start`
// ("negative_dur") or a name id missing from StringIds ("unresolved_name") are skipped.
// Errors: a missing file, a file that is not SQLite, a corrupt database or one without the
// kernel table or one of its required columns -> one-line `parse_error` naming the file (and
// table, column). The database is opened read-only.
//
// Needs libsqlite3 (Debian `libsqlite3-dev`) and `ROOFLINE_HAVE_SQLITE` defined (the CMake build
// defines it when `find_package(SQLite3)` succeeds). Without it `is_sqlite_file` still works and
// `read_nsys_sqlite` throws a `usage_error` saying how to get SQLite support.

#include <cstddef>  // std::size_t
#include <cstdio>   // std::FILE, std::fopen, std::fread
#include <cstring>  // std::memcmp
#include <string>   // std::string

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_rules.hpp"

namespace roofline {

/// True when this build can read SQLite files (`ROOFLINE_HAVE_SQLITE`).
#ifdef ROOFLINE_HAVE_SQLITE
inline constexpr bool have_sqlite = true;
#else
inline constexpr bool have_sqlite = false;
#endif

/// True when `path` starts with the 16-byte SQLite 3 header "SQLite format 3\0" (sqlite.org,
/// "Database File Format", section 1.3). False for a missing or shorter file. Needs no libsqlite3.
inline bool is_sqlite_file(const std::string& path) {
    static constexpr char magic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                       'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
    const std::string head = io::detail::raw_head(path, sizeof magic);  // a pipe: its kept content
    return head.size() == sizeof magic && std::memcmp(head.data(), magic, sizeof magic) == 0;
}

/// Reads an `nsys export --type sqlite` database into a `kernel_trace` (format "nsys-sqlite"):
/// kernels, memcpys and memsets with their launch geometry, the GPUs' names and SM counts, and
/// NVTX ranges as annotations (see the top of this header for tables, columns and counts).
/// Throws `parse_error` naming the file for a missing, non-SQLite or corrupt file, or one without
/// CUPTI_ACTIVITY_KIND_KERNEL, its `start`/`end`/name columns, or StringIds. Without SQLite
/// support (`have_sqlite` false): always throws `usage_error` (install libsqlite3-dev and rebuild).
kernel_trace read_nsys_sqlite(const std::string& path, const kernel_rules& rules);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#ifdef ROOFLINE_HAVE_SQLITE
#include <sqlite3.h>

#include <algorithm>      // std::min, std::max, std::sort, std::lower_bound
#include <cmath>          // std::isfinite, std::llround
#include <cstdint>        // std::int64_t, std::uint32_t
#include <functional>     // std::less
#include <map>            // std::map
#include <optional>       // std::optional
#include <set>            // std::set
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair
#include <vector>         // std::vector

#include "roofline/io/detail/text.hpp"
#endif

namespace roofline {

#ifndef ROOFLINE_HAVE_SQLITE

ROOFLINE_INLINE kernel_trace read_nsys_sqlite(const std::string& path, const kernel_rules&) {
    throw usage_error(path + ": this build has no SQLite support: install libsqlite3-dev and rebuild");
}

#else

namespace io::detail {

/// A read-only SQLite connection; every failure is a `parse_error` naming the file.
class sqlite_db {
public:
    explicit sqlite_db(std::string path) : path_(std::move(path)) {
        if (!is_sqlite_file(path_)) {
            std::FILE* f = std::fopen(path_.c_str(), "rb");
            if (!f) throw parse_error(path_, "", "", "cannot open");
            std::fclose(f);
            throw parse_error(path_, "byte 0", "", "not an SQLite database (no \"SQLite format 3\" header)");
        }
        const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr);
        if (rc != SQLITE_OK) {
            // A failed open still allocates a handle (sqlite3_open_v2 docs), and the destructor
            // does not run when the constructor throws: close it here (a leak the fuzzer found).
            const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close_v2(db_);
            db_ = nullptr;
            throw parse_error(path_, "", "", "cannot open as SQLite: " + msg + " (a corrupt or truncated database?)");
        }
    }
    ~sqlite_db() { sqlite3_close_v2(db_); }
    sqlite_db(const sqlite_db&) = delete;
    sqlite_db& operator=(const sqlite_db&) = delete;

    sqlite3* get() const { return db_; }
    const std::string& path() const { return path_; }
    /// Throws a `parse_error` at `place` with SQLite's message for the last failure.
    [[noreturn]] void fail(const std::string& place, const std::string& what) const {
        throw parse_error(path_, place, "",
                          what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory") +
                              " (a corrupt or truncated database?)");
    }

private:
    std::string path_;
    sqlite3* db_ = nullptr;
};

/// A prepared statement over `sqlite_db`, stepped row by row.
class sqlite_stmt {
public:
    sqlite_stmt(const sqlite_db& db, const std::string& sql, std::string place)
        : db_(db), place_(std::move(place)) {
        if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) db.fail(place_, "cannot query");
    }
    ~sqlite_stmt() { sqlite3_finalize(s_); }
    sqlite_stmt(const sqlite_stmt&) = delete;
    sqlite_stmt& operator=(const sqlite_stmt&) = delete;

    /// Next row; false at the end. Throws `parse_error` (corrupt page, I/O error).
    bool step() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) {
            ++row_;
            return true;
        }
        if (rc == SQLITE_DONE) return false;
        db_.fail(place_ + ", row " + std::to_string(row_ + 1), "cannot read");
    }
    bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    bool numeric(int c) const {
        const int t = sqlite3_column_type(s_, c);
        return t == SQLITE_INTEGER || (t == SQLITE_FLOAT && std::isfinite(sqlite3_column_double(s_, c)));
    }
    /// Integer value of column `c` (floats rounded), or nullopt when NULL, text, blob or not finite.
    std::optional<std::int64_t> int64(int c) const {
        const int t = sqlite3_column_type(s_, c);
        if (t == SQLITE_INTEGER) return sqlite3_column_int64(s_, c);
        if (t == SQLITE_FLOAT) {
            const double v = sqlite3_column_double(s_, c);
            if (std::isfinite(v) && std::abs(v) < 9e18) return static_cast<std::int64_t>(std::llround(v));
        }
        return std::nullopt;
    }
    /// Text of column `c` ("" when NULL).
    std::string_view text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
        return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c))) : std::string_view();
    }

private:
    const sqlite_db& db_;
    std::string place_;
    sqlite3_stmt* s_ = nullptr;
    std::size_t row_ = 0;
};

/// Names of the tables (and views) of `db`.
inline std::set<std::string, std::less<>> sqlite_tables(const sqlite_db& db) {
    std::set<std::string, std::less<>> out;
    sqlite_stmt s(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", "sqlite_master");
    while (s.step()) out.emplace(s.text(0));
    return out;
}

/// Column names of `table` (which must exist).
inline std::set<std::string, std::less<>> sqlite_columns(const sqlite_db& db, const std::string& table) {
    std::set<std::string, std::less<>> out;
    sqlite_stmt s(db, "PRAGMA table_info(\"" + table + "\")", "table " + table);
    while (s.step()) out.emplace(s.text(1));
    return out;
}

/// `alias."col"` when `cols` has `col`, else `NULL`: lets one query fit every schema version.
inline std::string sqlite_col(const std::set<std::string, std::less<>>& cols, std::string_view alias,
                              std::string_view col) {
    if (!cols.count(col)) return "NULL";
    return std::string(alias) + ".\"" + std::string(col) + "\"";
}

/// `nsys stats` name of a memcpy by CUPTI `copyKind` (CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH,
/// 8 DtoD, 9 HtoH, 10 PtoP; the array kinds 3-7 and unknown ones get the plain name).
inline std::string_view nsys_memcpy_name(std::optional<std::int64_t> kind) {
    switch (kind.value_or(0)) {
        case 1: return "[CUDA memcpy Host-to-Device]";
        case 2: return "[CUDA memcpy Device-to-Host]";
        case 8: return "[CUDA memcpy Device-to-Device]";
        case 9: return "[CUDA memcpy Host-to-Host]";
        case 10: return "[CUDA memcpy Peer-to-Peer]";
        default: return "[CUDA memcpy]";
    }
}

/// Process id packed in an nsys `globalTid`/`globalPid` (FORMATS.md section 4).
inline std::int64_t nsys_pid(std::int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }

}  // namespace io::detail

ROOFLINE_INLINE kernel_trace read_nsys_sqlite(const std::string& path, const kernel_rules& rules) {
    using namespace io::detail;
    static constexpr std::string_view kernel_table = "CUPTI_ACTIVITY_KIND_KERNEL";
    kernel_trace t;
    t.file = path;
    t.format = "nsys-sqlite";
    {  // libsqlite3 opens the file by path and seeks: a pipe (already read, or waited on) cannot serve
        struct stat st {};
        if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            throw parse_error(path, "", "", "an SQLite database is opened by path and read at random, so it must be "
                                            "a regular file, not a pipe or device: write it to a file first");
    }
    const sqlite_db db(path);
    const auto tables = sqlite_tables(db);
    if (!tables.count(kernel_table))
        throw parse_error(path, "table CUPTI_ACTIVITY_KIND_KERNEL", "",
                          "table missing: not an nsys SQLite export, or no CUDA kernels were traced");
    if (!tables.count("StringIds"))
        throw parse_error(path, "table StringIds", "", "table missing (kernel names are ids into it)");
    auto& st = t.stats;

    // GPU activity; start times kept in ns until the origin is known.
    std::vector<std::int64_t> start_ns;
    std::vector<std::int64_t> global_pid;  // per event, -1 when unknown
    std::unordered_map<const char*, kernel_phase> phases;
    auto read_gpu_table = [&](const std::string& table, gpu_activity activity) {
        const auto cols = sqlite_columns(db, table);
        const std::string place = "table " + table;
        for (const char* required : {"start", "end"})
            if (!cols.count(required)) throw parse_error(path, place, required, "column missing");
        const bool kernel = activity == gpu_activity::kernel;
        std::string name = "NULL", joins;
        if (kernel) {
            std::vector<std::string> names;
            for (const char* c : {"demangledName", "shortName", "mangledName"}) {
                if (!cols.count(c)) continue;
                const std::string a = std::string("n_") + c;
                joins += " LEFT JOIN StringIds AS " + a + " ON " + a + ".id = g.\"" + c + "\"";
                names.push_back("NULLIF(" + a + ".value, '')");
            }
            if (names.empty())
                throw parse_error(path, place, "demangledName", "column missing (nor shortName, mangledName)");
            name = names.front();
            if (names.size() > 1) {  // COALESCE takes two arguments or more
                name = "COALESCE(" + name;
                for (std::size_t i = 1; i < names.size(); ++i) name += ", " + names[i];
                name += ")";
            }
        }
        auto c = [&](std::string_view col) { return sqlite_col(cols, "g", col); };
        const std::string sql =
            "SELECT g.\"start\", g.\"end\", " + name + ", " + c("deviceId") + ", " + c("streamId") + ", " +
            c("correlationId") + ", " + c("globalPid") + ", " + c("gridX") + ", " + c("gridY") + ", " + c("gridZ") +
            ", " + c("blockX") + ", " + c("blockY") + ", " + c("blockZ") + ", " + c("registersPerThread") + ", " +
            c("staticSharedMemory") + ", " + c("dynamicSharedMemory") + ", " + c("bytes") + ", " + c("copyKind") +
            " FROM \"" + table + "\" AS g" + joins;
        sqlite_stmt s(db, sql, place);
        while (s.step()) {
            ++st.events_read;
            if (s.null(0)) { st.skip("null_start"); continue; }
            if (s.null(1)) { st.skip("null_end"); continue; }
            const auto start = s.int64(0), end = s.int64(1);
            if (!start) { st.skip("bad_value(start)"); continue; }
            if (!end) { st.skip("bad_value(end)"); continue; }
            if (*end < *start) { st.skip("negative_dur"); continue; }
            kernel_event e;
            e.activity = activity;
            if (kernel) {
                if (s.null(2)) { st.skip("unresolved_name"); continue; }
                e.name = t.strings->intern(valid_utf8(s.text(2)));
                auto it = phases.find(e.name.data());
                if (it == phases.end()) it = phases.emplace(e.name.data(), rules.classify(e.name)).first;
                e.phase = it->second;
            } else if (activity == gpu_activity::memcpy) {
                e.name = t.strings->intern(nsys_memcpy_name(s.int64(17)));
                e.phase = kernel_phase::memcpy;
            } else {
                e.name = t.strings->intern("[CUDA memset]");
                e.phase = kernel_phase::memset;
            }
            e.duration_s = static_cast<double>(*end - *start) * 1e-9;
            if (const auto v = s.int64(3)) e.device = to_int_or<int>(static_cast<double>(*v), -1);
            if (const auto v = s.int64(4)) e.stream = *v;
            if (const auto v = s.int64(5)) e.correlation = *v;
            for (int i = 0; i < 3; ++i) {
                const auto idx = static_cast<std::size_t>(i);
                if (const auto g = s.int64(7 + i)) e.grid[idx] = to_int_or<std::uint32_t>(static_cast<double>(*g), 0);
                if (const auto b = s.int64(10 + i)) e.block[idx] = to_int_or<std::uint32_t>(static_cast<double>(*b), 0);
            }
            if (const auto v = s.int64(13)) e.registers_per_thread = to_int_or<int>(static_cast<double>(*v), -1);
            const auto ssm = s.int64(14), dsm = s.int64(15);
            if (ssm || dsm) e.shared_memory_bytes = static_cast<double>(ssm.value_or(0) + dsm.value_or(0));
            if (!kernel)
                if (const auto v = s.int64(16)) e.bytes = static_cast<double>(*v);
            start_ns.push_back(*start);
            global_pid.push_back(s.int64(6).value_or(-1));
            t.events.push_back(e);
            ++st.events_kept;
        }
    };
    read_gpu_table(std::string(kernel_table), gpu_activity::kernel);
    if (tables.count("CUPTI_ACTIVITY_KIND_MEMCPY")) read_gpu_table("CUPTI_ACTIVITY_KIND_MEMCPY", gpu_activity::memcpy);
    if (tables.count("CUPTI_ACTIVITY_KIND_MEMSET")) read_gpu_table("CUPTI_ACTIVITY_KIND_MEMSET", gpu_activity::memset);

    // Time origin: the earliest GPU activity.
    std::int64_t origin_ns = 0;
    if (!start_ns.empty()) origin_ns = *std::min_element(start_ns.begin(), start_ns.end());
    t.time_origin_us = static_cast<double>(origin_ns) * 1e-3;
    for (std::size_t i = 0; i < t.events.size(); ++i)
        t.events[i].start_s = static_cast<double>(start_ns[i] - origin_ns) * 1e-9;
    auto rel_s = [&](std::int64_t ns) { return static_cast<double>(ns - origin_ns) * 1e-9; };

    if (tables.count("TARGET_INFO_SESSION_START_TIME")) {
        const auto cols = sqlite_columns(db, "TARGET_INFO_SESSION_START_TIME");
        if (cols.count("utcEpochNs")) {
            sqlite_stmt s(db, "SELECT \"utcEpochNs\" FROM TARGET_INFO_SESSION_START_TIME", "table TARGET_INFO_SESSION_START_TIME");
            if (s.step())
                if (const auto v = s.int64(0); v && *v > 0) t.base_time_ns = *v;
        }
    }

    if (tables.count("TARGET_INFO_GPU")) {
        const auto cols = sqlite_columns(db, "TARGET_INFO_GPU");
        auto c = [&](std::string_view col) { return sqlite_col(cols, "g", col); };
        sqlite_stmt s(db,
                      "SELECT " + c("id") + ", " + c("name") + ", " + c("smCount") + ", " + c("totalMemory") + ", " +
                          c("computeMajor") + ", " + c("computeMinor") + " FROM TARGET_INFO_GPU AS g",
                      "table TARGET_INFO_GPU");
        while (s.step()) {
            device_properties d;
            d.id = to_int_or<int>(static_cast<double>(s.int64(0).value_or(-1)), -1);
            d.name = valid_utf8(s.text(1));
            if (const auto v = s.int64(2); v && *v > 0) d.num_sms = to_int_or<int>(static_cast<double>(*v), -1);
            if (const auto v = s.int64(3); v && *v > 0) d.total_global_mem_bytes = static_cast<double>(*v);
            if (const auto v = s.int64(4)) d.compute_major = to_int_or<int>(static_cast<double>(*v), -1);
            if (const auto v = s.int64(5)) d.compute_minor = to_int_or<int>(static_cast<double>(*v), -1);
            t.devices.push_back(std::move(d));
        }
    }

    if (tables.count("NVTX_EVENTS")) {
        const auto cols = sqlite_columns(db, "NVTX_EVENTS");
        const std::string place = "table NVTX_EVENTS";
        if (!cols.count("start") || !cols.count("end")) throw parse_error(path, place, cols.count("start") ? "end" : "start", "column missing");
        std::string name = cols.count("text") ? "NULLIF(v.\"text\", '')" : "NULL";
        std::string joins;
        if (cols.count("textId")) {
            joins = " LEFT JOIN StringIds AS n ON n.id = v.\"textId\"";
            name = "COALESCE(" + name + ", n.value)";
        }
        auto c = [&](std::string_view col) { return sqlite_col(cols, "v", col); };
        struct range {
            std::int64_t start, end, tid;
            std::string_view name;
        };
        std::vector<range> ranges;
        std::set<std::int64_t> nccl_domains;  // NvtxDomainCreate (75) rows with text "NCCL"
        if (cols.count("eventType") && cols.count("domainId") && cols.count("text")) {
            sqlite_stmt d(db, "SELECT \"domainId\" FROM NVTX_EVENTS WHERE \"eventType\" = 75 AND \"text\" = 'NCCL'", place);
            while (d.step())
                if (const auto id = d.int64(0)) nccl_domains.insert(*id);
        }
        sqlite_stmt s(db,
                      "SELECT v.\"start\", v.\"end\", " + name + ", " + c("eventType") + ", " + c("globalTid") +
                          ", " + c("domainId") + " FROM NVTX_EVENTS AS v" + joins,
                      place);
        while (s.step()) {
            ++st.events_read;
            // Ranges: eventType 59 (NvtxPushPopRange) and 60 (NvtxStartEndRange); marks (34),
            // domain and category records have no end. Without eventType: every row with an end.
            if (const auto type = s.int64(3)) {
                if (*type != 59 && *type != 60) continue;
            } else if (s.null(1)) {
                continue;
            }
            if (s.null(0)) { st.skip("null_start"); continue; }
            if (s.null(1)) { st.skip("null_end"); continue; }  // a range never closed
            const auto start = s.int64(0), end = s.int64(1);
            if (!start) { st.skip("bad_value(start)"); continue; }
            if (!end) { st.skip("bad_value(end)"); continue; }
            if (*end < *start) { st.skip("negative_dur"); continue; }
            range r{*start, *end, s.int64(4).value_or(-1), t.strings->intern(valid_utf8(s.text(2)))};
            if (const auto domain = s.int64(5); !domain || !nccl_domains.count(*domain)) ranges.push_back(r);
            annotation a;
            a.name = r.name;
            a.start_s = rel_s(r.start);
            a.duration_s = static_cast<double>(r.end - r.start) * 1e-9;
            t.annotations.push_back(a);
            ++st.events_kept;
        }

        // Projection onto the GPU through the runtime calls each range's thread made.
        if (!ranges.empty() && tables.count("CUPTI_ACTIVITY_KIND_RUNTIME")) {
            const auto rcols = sqlite_columns(db, "CUPTI_ACTIVITY_KIND_RUNTIME");
            if (rcols.count("start") && rcols.count("globalTid") && rcols.count("correlationId")) {
                // (pid, correlation) -> GPU events; pid -1 when the GPU tables lack globalPid.
                std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> by_corr;
                bool pids = false;
                for (std::size_t i = 0; i < t.events.size(); ++i) {
                    if (t.events[i].correlation < 0) continue;
                    const std::int64_t pid = global_pid[i] >= 0 ? nsys_pid(global_pid[i]) : -1;
                    pids = pids || pid >= 0;
                    by_corr[{pid, t.events[i].correlation}].push_back(i);
                }
                struct call {
                    std::int64_t start;
                    std::size_t first, count;  // into `launched`
                };
                std::map<std::int64_t, std::vector<call>> calls;  // by globalTid
                std::vector<std::size_t> launched;
                sqlite_stmt r(db,
                              "SELECT \"start\", \"globalTid\", \"correlationId\" FROM CUPTI_ACTIVITY_KIND_RUNTIME",
                              "table CUPTI_ACTIVITY_KIND_RUNTIME");
                while (r.step()) {
                    const auto start = r.int64(0), tid = r.int64(1), corr = r.int64(2);
                    if (!start || !tid || !corr) continue;
                    const auto it = by_corr.find({pids ? nsys_pid(*tid) : -1, *corr});
                    if (it == by_corr.end()) continue;
                    calls[*tid].push_back({*start, launched.size(), it->second.size()});
                    launched.insert(launched.end(), it->second.begin(), it->second.end());
                }
                for (auto& [tid, v] : calls)
                    std::sort(v.begin(), v.end(), [](const call& x, const call& y) { return x.start < y.start; });
                for (const auto& rg : ranges) {
                    const auto it = calls.find(rg.tid);
                    if (it == calls.end()) continue;
                    const auto& v = it->second;
                    auto k = std::lower_bound(v.begin(), v.end(), rg.start,
                                              [](const call& x, std::int64_t s) { return x.start < s; });
                    std::map<int, std::pair<double, double>> span;  // device -> first start, last end
                    for (; k != v.end() && k->start <= rg.end; ++k)
                        for (std::size_t j = k->first; j < k->first + k->count; ++j) {
                            const auto& e = t.events[launched[j]];
                            auto [sp, fresh] = span.try_emplace(e.device, e.start_s, e.end_s());
                            if (!fresh) {
                                sp->second.first = std::min(sp->second.first, e.start_s);
                                sp->second.second = std::max(sp->second.second, e.end_s());
                            }
                        }
                    for (const auto& [device, se] : span) {
                        annotation a;
                        a.name = rg.name;
                        a.start_s = se.first;
                        a.duration_s = se.second - se.first;
                        a.gpu = true;
                        a.device = device;
                        t.annotations.push_back(a);
                    }
                }
            }
        }
    }

    t.links.gpu_events = t.events.size();
    t.links.unlinked = t.events.size();
    return t;
}

#endif  // ROOFLINE_HAVE_SQLITE

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
