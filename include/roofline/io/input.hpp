#pragma once
// Reading input files, plain or gzip-compressed, in bounded memory.
//
// Traces reach hundreds of MB and are usually gzip files (`*.trace.json.gz`), so every reader
// pulls bytes through `input_file`, which inflates gzip on the fly (zlib, detected by the
// magic bytes 1f 8b, concatenated members allowed) and never holds more than one chunk.
// `line_reader` splits the stream into lines for the text formats (CSV, nvidia-smi, nccl-tests).
// Errors (missing file, corrupt or truncated gzip) are `parse_error`s naming the file and the
// byte offset in the decompressed stream. A pipe or device (`<(zcat f)`) is read to its end
// once, at most 1 GiB, and kept for the process: readers open an input more than once.

#include <algorithm>    // std::min
#include <cerrno>       // errno
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <cstdio>       // std::FILE, std::fopen, std::fread
#include <cstring>      // std::strerror, std::memchr
#include <memory>       // std::unique_ptr
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <map>          // std::map
#include <mutex>        // std::mutex

#include <sys/stat.h>  // fstat, S_ISREG: a pipe is read once and kept
#include <zlib.h>

#include "roofline/core/error.hpp"

namespace roofline::io {

namespace detail {
/// Most bytes a pipe or device (`<(zcat f)`, /dev/stdin) is read to: 1 GiB, the limit of a file
/// read whole (`read_all`).
inline constexpr std::uint64_t max_spooled_bytes = std::uint64_t(1) << 30;

/// The content of the pipe or device `path` (open as `f`), read to its end once per process and
/// kept: readers open an input more than once (format detection, then parsing), and a pipe
/// cannot be read twice. Throws `parse_error` past `max_spooled_bytes` (/dev/zero never ends).
struct spool_registry {
    std::mutex m;
    std::map<std::string, std::shared_ptr<const std::vector<unsigned char>>> kept;
    /// Pipes that could not be kept (past the limit, a read error): the error again, not a
    /// second open that would wait for a writer that is gone.
    std::map<std::string, std::pair<std::string, std::string>> failed;  ///< path -> (place, message)
    static spool_registry& get() {
        static spool_registry r;
        return r;
    }
};

/// The kept content of the pipe or device `path` when it was read before, else null. Checked
/// before opening: a named pipe (mkfifo) opened again would wait for a writer that is gone.
inline std::shared_ptr<const std::vector<unsigned char>> kept_input(const std::string& path) {
    auto& r = spool_registry::get();
    const std::lock_guard<std::mutex> lock(r.m);
    if (const auto f = r.failed.find(path); f != r.failed.end())
        throw parse_error(path, f->second.first, "", f->second.second);
    const auto it = r.kept.find(path);
    return it == r.kept.end() ? nullptr : it->second;
}

inline std::shared_ptr<const std::vector<unsigned char>> spooled_input(const std::string& path, std::FILE* f) {
    auto& r = spool_registry::get();
    const std::lock_guard<std::mutex> lock(r.m);
    auto& kept = r.kept;
    if (const auto it = kept.find(path); it != kept.end()) return it->second;
    auto bytes = std::make_shared<std::vector<unsigned char>>();
    std::vector<unsigned char> buf(1 << 16);
    for (;;) {
        const std::size_t n = std::fread(buf.data(), 1, buf.size(), f);
        const auto fail = [&](std::string place, std::string message) {
            r.failed[path] = {place, message};
            return parse_error(path, std::move(place), "", std::move(message));
        };
        if (n == 0) {
            if (std::ferror(f)) throw fail("", std::string("read error: ") + std::strerror(errno));
            break;
        }
        if (bytes->size() + n > max_spooled_bytes)
            throw fail("byte " + std::to_string(max_spooled_bytes),
                       "a pipe or device is read into memory, at most " + std::to_string(max_spooled_bytes >> 30) +
                           " GiB, and this one goes on: write it to a file");
        bytes->insert(bytes->end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    }
    kept.emplace(path, bytes);
    return bytes;
}

/// The first `n` raw bytes of `path` (gzip not inflated): of the kept content for a pipe or
/// device (`spooled_input`), so that looking does not consume it. Empty when it cannot be opened.
inline std::string raw_head(const std::string& path, std::size_t n) {
    if (const auto bytes = kept_input(path))
        return std::string(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(std::min(n, bytes->size())));
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return {};
    std::string out;
    struct stat st {};
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        try {
            const auto bytes = spooled_input(path, f);
            out.assign(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(std::min(n, bytes->size())));
        } catch (...) {
            std::fclose(f);
            throw;
        }
    } else {
        out.resize(n);
        out.resize(std::fread(out.data(), 1, n, f));
    }
    std::fclose(f);
    return out;
}
}  // namespace detail

/// A byte stream over a file, inflating gzip transparently. Not copyable.
class input_file {
public:
    /// Opens `path`. Throws `parse_error` when the file cannot be opened.
    explicit input_file(std::string path, std::size_t chunk_bytes = 1 << 16)
        : path_(std::move(path)), in_(chunk_bytes) {
        spool_ = detail::kept_input(path_);  // a pipe read before: not opened again
        if (!spool_) open_file();
        fill();
        gzip_ = avail_ >= 2 && in_[0] == 0x1f && in_[1] == 0x8b;
        if (gzip_) {
            z_ = std::make_unique<z_stream>();
            if (inflateInit2(z_.get(), 16 + MAX_WBITS) != Z_OK) {
                z_.reset();
                throw parse_error(path_, "", "", "cannot start gzip decompression");
            }
            z_->next_in = in_.data();
            z_->avail_in = static_cast<uInt>(avail_);
        }
    }
    ~input_file() {
        if (z_) inflateEnd(z_.get());
        if (file_) std::fclose(file_);
    }
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;

private:
    /// Opens the file; a pipe or device is read whole into the registry and closed again.
    void open_file() {
        file_ = std::fopen(path_.c_str(), "rb");
        if (!file_) throw parse_error(path_, "", "", std::string("cannot open: ") + std::strerror(errno));
        std::setvbuf(file_, nullptr, _IONBF, 0);  // we buffer ourselves
        struct stat st {};
        if (fstat(fileno(file_), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
            try {
                spool_ = detail::spooled_input(path_, file_);
            } catch (...) {
                std::fclose(file_);
                file_ = nullptr;
                throw;
            }
            std::fclose(file_);
            file_ = nullptr;
        }
    }

public:

    /// Copies up to `n` bytes of (decompressed) content into `out`; returns 0 only at the end.
    /// Throws `parse_error` on a read error or on corrupt or truncated gzip data.
    std::size_t read(char* out, std::size_t n) {
        if (n == 0) return 0;
        if (!gzip_) {
            std::size_t got = 0;
            while (got < n) {
                if (pos_ == avail_) {
                    if (!fill()) break;
                }
                const std::size_t k = std::min(n - got, avail_ - pos_);
                std::memcpy(out + got, in_.data() + pos_, k);
                pos_ += k;
                got += k;
            }
            offset_ += got;
            return got;
        }
        z_->next_out = reinterpret_cast<Bytef*>(out);
        z_->avail_out = static_cast<uInt>(n);
        while (z_->avail_out == n) {  // until at least one byte comes out, or the end
            if (z_->avail_in == 0 && !member_done_) {
                if (!fill()) throw parse_error(path_, place(), "", "truncated gzip stream");
                z_->next_in = in_.data();
                z_->avail_in = static_cast<uInt>(avail_);
            }
            if (member_done_) {
                // After a member: another gzip member may follow (concatenated .gz files).
                if (z_->avail_in == 0 && !fill_next_member()) break;
                if (inflateReset(z_.get()) != Z_OK)
                    throw parse_error(path_, place(), "", "cannot restart gzip decompression");
                member_done_ = false;
            }
            const int rc = inflate(z_.get(), Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                member_done_ = true;
            } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR) {
                throw parse_error(path_, place(), "",
                                  std::string("corrupt gzip data") + (z_->msg ? std::string(" (") + z_->msg + ")" : ""));
            } else if (rc == Z_BUF_ERROR && z_->avail_in != 0) {
                throw parse_error(path_, place(), "", "gzip decompression made no progress");
            }
        }
        const std::size_t got = n - z_->avail_out;
        offset_ += got;
        return got;
    }

    /// Moves to content offset `offset` (>= `offset()`): a seek in a plain file or a kept pipe,
    /// inflating and dropping the bytes before it in a gzip file (zlib cannot seek). Throws
    /// `parse_error` when the content ends first, or as `read`.
    void skip_to(std::uint64_t offset) {
        if (offset < offset_) throw parse_error(path_, place(), "", "cannot move back to byte " + std::to_string(offset));
        if (!gzip_) {
            const std::uint64_t ahead = offset - offset_;
            if (ahead <= avail_ - pos_) {  // within the chunk already read
                pos_ += static_cast<std::size_t>(ahead);
                offset_ = offset;
                return;
            }
            bool ok = false;
            if (spool_) {
                ok = offset <= spool_->size();
                spool_pos_ = static_cast<std::size_t>(offset);
            } else {
                struct stat st {};
                ok = fstat(fileno(file_), &st) == 0 && offset <= std::uint64_t(st.st_size) &&
                     fseeko(file_, static_cast<off_t>(offset), SEEK_SET) == 0;
            }
            if (!ok) throw parse_error(path_, place_at(offset), "", "cannot move to this byte");
            pos_ = avail_ = 0;
            offset_ = offset;
            return;
        }
        std::vector<char> scratch(std::size_t(1) << 16);
        while (offset_ < offset) {
            const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(scratch.size(), offset - offset_));
            if (read(scratch.data(), want) == 0) throw parse_error(path_, place_at(offset), "", "the content ends before this byte");
        }
    }

    const std::string& path() const { return path_; }
    /// True when the file is gzip-compressed.
    bool compressed() const { return gzip_; }
    /// Bytes of content delivered so far (decompressed for gzip files).
    std::uint64_t offset() const { return offset_; }
    /// "byte N" (plus "of the decompressed stream" for gzip files), for error messages.
    std::string place() const { return place_at(offset_); }
    /// The same wording for an arbitrary content offset.
    std::string place_at(std::uint64_t off) const {
        return "byte " + std::to_string(off) + (gzip_ ? " (decompressed)" : "");
    }

private:
    bool fill() {
        pos_ = 0;
        if (spool_) {
            avail_ = std::min(in_.size(), spool_->size() - spool_pos_);
            std::memcpy(in_.data(), spool_->data() + spool_pos_, avail_);
            spool_pos_ += avail_;
            return avail_ != 0;
        }
        avail_ = std::fread(in_.data(), 1, in_.size(), file_);
        if (avail_ == 0 && std::ferror(file_))
            throw parse_error(path_, place(), "", std::string("read error: ") + std::strerror(errno));
        return avail_ != 0;
    }
    bool fill_next_member() {
        if (!fill()) return false;
        z_->next_in = in_.data();
        z_->avail_in = static_cast<uInt>(avail_);
        return true;
    }

    std::string path_;
    std::FILE* file_ = nullptr;
    std::shared_ptr<const std::vector<unsigned char>> spool_;  ///< a pipe's content (spooled_input)
    std::size_t spool_pos_ = 0;
    std::vector<unsigned char> in_;
    std::size_t avail_ = 0, pos_ = 0;
    bool gzip_ = false, member_done_ = false;
    std::unique_ptr<z_stream> z_;
    std::uint64_t offset_ = 0;
};

/// Splits an `input_file` into lines (without the trailing "\n" or "\r\n"), counting them.
class line_reader {
public:
    /// The longest line a text format needs: 64 MiB (a file without line breaks, /dev/zero,
    /// is refused there rather than read whole into one line).
    static constexpr std::size_t max_line_bytes = std::size_t(64) << 20;

    explicit line_reader(input_file& in) : in_(in), buf_(1 << 16) {}

    /// Next line into `line`; false at the end. The last line may lack a newline. Throws
    /// `parse_error` for a line longer than `max_line_bytes`.
    bool next(std::string& line) {
        line.clear();
        for (;;) {
            if (pos_ == end_) {
                end_ = in_.read(buf_.data(), buf_.size());
                pos_ = 0;
                if (end_ == 0) {
                    if (line.empty() && !partial_) return false;
                    partial_ = false;
                    ++line_no_;
                    last_had_newline_ = false;
                    return true;
                }
            }
            const char* start = buf_.data() + pos_;
            const void* nl = std::memchr(start, '\n', end_ - pos_);
            if (!nl) {
                line.append(start, end_ - pos_);
                partial_ = true;
                pos_ = end_;
                if (line.size() > max_line_bytes)
                    throw parse_error(in_.path(), "line " + std::to_string(line_no_ + 1), "",
                                      "longer than " + std::to_string(max_line_bytes >> 20) +
                                          " MiB without a line break: not a text file of lines");
                continue;
            }
            const std::size_t k = static_cast<const char*>(nl) - start;
            line.append(start, k);
            pos_ += k + 1;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            partial_ = false;
            ++line_no_;
            last_had_newline_ = true;
            return true;
        }
    }
    /// 1-based number of the line last returned by `next` (0 before the first).
    std::size_t line_number() const { return line_no_; }
    /// False when the line last returned ended the file without a newline (a truncated file).
    bool last_had_newline() const { return last_had_newline_; }
    /// "line N", for error messages.
    std::string place() const { return "line " + std::to_string(line_no_); }
    /// Path of the file being read.
    const std::string& path() const { return in_.path(); }

private:
    input_file& in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, end_ = 0, line_no_ = 0;
    bool partial_ = false, last_had_newline_ = true;
};

/// The whole (decompressed) content of a small file such as a benchmark result. Throws
/// `parse_error` past `max_bytes` of content (default 1 GiB): a few kB of gzip can inflate to
/// gigabytes, and files read whole are never that large.
inline std::string read_all(const std::string& path, std::uint64_t max_bytes = std::uint64_t(1) << 30) {
    input_file in(path);
    std::string out;
    std::vector<char> buf(1 << 16);
    while (const std::size_t n = in.read(buf.data(), buf.size())) {
        if (out.size() + n > max_bytes)
            throw parse_error(path, in.place_at(max_bytes), "",
                              "larger than " + std::to_string(max_bytes) + " bytes: not a file that is read whole");
        out.append(buf.data(), n);
    }
    return out;
}

namespace detail {
/// The (gzip-inflated) text of a JSON document read whole: a calibration, a GPU file, a model
/// config. Throws `parse_error` naming `what` past `max_bytes` (64 MiB) of content, checked
/// before reading for a regular file and while reading for a pipe or device (/dev/zero).
inline std::string read_json_text(const std::string& path, const char* what,
                                  std::uint64_t max_bytes = std::uint64_t(64) << 20) {
    const auto too_large = [&](const std::string& n) {
        return parse_error(path, "", "", n + ": larger than the " + std::to_string(max_bytes >> 20) + " MiB any " +
                                             what + " needs");
    };
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && std::uint64_t(st.st_size) > max_bytes)
        throw too_large(std::to_string(st.st_size) + " bytes");
    input_file in(path);
    std::string text;
    std::vector<char> buf(1 << 16);
    for (std::size_t n; (n = in.read(buf.data(), buf.size())) > 0;) {
        if (text.size() + n > max_bytes) throw too_large("over " + std::to_string(max_bytes) + " bytes of content");
        text.append(buf.data(), n);
    }
    return text;
}
}  // namespace detail

}  // namespace roofline::io
