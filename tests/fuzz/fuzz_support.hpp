#pragma once
// What every fuzz target shares: the fuzzer's bytes as a file the readers can open, and the
// rule that only `roofline::error` may leave a reader.
//
// The readers take paths (they stream files, inflating gzip on the fly), so the bytes go into
// an anonymous in-memory file (Linux memfd_create) opened through /proc/self/fd/N: no disk
// traffic, no temporary files left behind by a crash, and exactly the code path users run
// (input_file, gzip detection, line splitting). Any other exception escaping a reader, and any
// crash, leak or undefined behaviour the sanitizers see, is a finding.

#include <sys/mman.h>  // memfd_create
#include <unistd.h>    // ftruncate, pwrite, close

#include <cerrno>            // errno
#include <cstddef>           // std::size_t
#include <cstdint>           // std::uint8_t
#include <cstdio>            // std::fprintf
#include <cstdlib>           // std::abort
#include <cstring>           // std::strerror
#include <string>   // std::string

#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kernel_rules_json.hpp"

namespace roofline::fuzz {

/// An in-memory file holding the current input, reachable by `path()`.
class memory_file {
public:
    explicit memory_file(const char* name = "fuzz-input") {
        fd_ = memfd_create(name, 0);
        if (fd_ < 0) fail("memfd_create");
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~memory_file() { ::close(fd_); }
    memory_file(const memory_file&) = delete;
    memory_file& operator=(const memory_file&) = delete;

    /// Replaces the content with `size` bytes at `data`.
    void assign(const std::uint8_t* data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0) fail("ftruncate");
        std::size_t done = 0;
        while (done < size) {
            const auto n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) fail("pwrite");
            done += static_cast<std::size_t>(n);
        }
    }
    const std::string& path() const { return path_; }

private:
    /// The harness itself failed (not the code under test): say which call and why, then stop.
    [[noreturn]] static void fail(const char* call) {
        std::fprintf(stderr, "fuzz harness: %s failed: %s\n", call, std::strerror(errno));
        std::abort();
    }

    int fd_ = -1;
    std::string path_;
};

/// The one file every target writes its input to (one per process: libFuzzer runs inputs one
/// after another).
inline memory_file& input_file_for(const std::uint8_t* data, std::size_t size) {
    static memory_file f;
    f.assign(data, size);
    return f;
}

/// Decompressed bytes past which an input is not run (1 MiB: 16 times the largest input).
inline constexpr std::uint64_t max_inflated_bytes = std::uint64_t(1) << 20;

/// True when the input (`data`, written at `path`) is gzip whose content inflates past `limit` bytes. Such inputs are
/// gzip bombs (64 KiB of deflate inflates to ~64 MiB), and the targets read them through
/// deliberately tiny buffers under the sanitizers: tens of seconds for bytes that test nothing
/// new, which libFuzzer then reports as a timeout (CI stop 10, `fuzz_input`). The readers'
/// handling of large inflated files is covered by the tests (read_all's 1 GiB limit, the
/// 1 GB streaming benchmark). Corrupt gzip returns false: the target must see that.
inline bool inflates_beyond(const std::uint8_t* data, std::size_t size, const std::string& path,
                            std::uint64_t limit = max_inflated_bytes) {
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return false;
    try {
        roofline::io::input_file in(path);
        static char buf[1 << 16];
        std::uint64_t total = 0;
        while (const std::size_t n = in.read(buf, sizeof buf)) {
            total += n;
            if (total > limit) return true;
        }
    } catch (const roofline::error&) {
    }
    return false;
}

/// The current input as a file, or nullptr when it is a gzip bomb (`inflates_beyond`); the
/// target then returns -1 so that libFuzzer keeps it out of the corpus.
inline const std::string* input_path_for(const std::uint8_t* data, std::size_t size) {
    memory_file& f = input_file_for(data, size);
    return inflates_beyond(data, size, f.path()) ? nullptr : &f.path();
}

/// The built-in kernel rules for targets that classify names. Their per-name cache is kept
/// across inputs (regex classification dominates the run time) and emptied every 1000 calls so
/// that it does not grow without bound.
inline roofline::kernel_rules& kernel_rules_for_next_input() {
    static const roofline::kernel_rules builtin = roofline::load_kernel_rules();
    static roofline::kernel_rules rules = builtin;
    static unsigned n = 0;
    if (++n % 1000 == 0) rules = builtin;
    return rules;
}

/// Stops the run (a finding) unless `ok`: for properties the readers promise beyond "no crash".
/// Names the failed check's place on stderr first ("fuzz check failed at FILE:LINE"), so that a
/// CI log says which property broke, not only libFuzzer's "deadly signal".
/// (`__builtin_FILE` / `__builtin_LINE`: the clang this builds with has no std::source_location.)
inline void require(bool ok, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (ok) return;
    std::fprintf(stderr, "fuzz check failed at %s:%d\n", file, line);
    __builtin_trap();
}

/// Runs `read` and swallows the documented input errors, after checking that their message is
/// one line (the CLI prints it as such) and that a `parse_error` names the file read
/// (`path`, unless empty). Everything else propagates: libFuzzer reports an uncaught exception
/// as a crash. Returns true when `read` finished without an error.
template <class F>
bool expect_only_roofline_errors(F&& read, const std::string& path = {}) {
    try {
        read();
        return true;
    } catch (const roofline::parse_error& e) {
        const std::string what = e.what();
        require(what.find('\n') == std::string::npos && what.find('\r') == std::string::npos);
        require(path.empty() || e.file() == path);
    } catch (const roofline::error& e) {
        const std::string what = e.what();
        require(what.find('\n') == std::string::npos && what.find('\r') == std::string::npos);
    }
    return false;
}

}  // namespace roofline::fuzz
