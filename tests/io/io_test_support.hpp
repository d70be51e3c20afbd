#pragma once
// Helpers for the reader tests: small inputs written to temporary files (plain or gzip).

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <zlib.h>

namespace roofline::test {

/// `content` gzip-compressed, as bytes (to corrupt or truncate in tests).
inline std::string gzip_bytes(const std::string& content) {
    z_stream z{};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(content.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data()));
    z.avail_in = static_cast<uInt>(content.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

/// A temporary file, removed when the object goes out of scope.
class temp_file {
public:
    enum class mode { as_suffix, raw_bytes };
    /// Writes `content` to a fresh file whose name ends in `suffix` (".csv", ".json.gz", ...).
    /// With `mode::as_suffix` a suffix ending in ".gz" gzip-compresses the content; with
    /// `mode::raw_bytes` the bytes are written as given (for corrupt inputs).
    temp_file(const std::string& content, const std::string& suffix, mode m = mode::as_suffix) {
        static std::atomic<unsigned> counter{0};
        static const unsigned session = std::random_device{}();
        path_ = std::filesystem::temp_directory_path() /
                ("roofline_io_test_" + std::to_string(session) + "_" + std::to_string(counter++) +
                 suffix);
        const bool gz = m == mode::as_suffix && suffix.size() >= 3 &&
                        suffix.compare(suffix.size() - 3, 3, ".gz") == 0;
        std::ofstream(path_, std::ios::binary) << (gz ? gzip_bytes(content) : content);
    }
    ~temp_file() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    std::string path() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

}  // namespace roofline::test
