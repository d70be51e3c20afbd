#pragma once
// Reading input files, plain or gzip-compressed, in bounded memory.
//
// Traces reach hundreds of MB and are usually gzip files (`*.trace.json.gz`), so every reader
// pulls bytes through `input_file`, which inflates gzip on the fly (zlib, detected by the
// magic bytes 1f 8b, concatenated members allowed) and never holds more than one chunk.
// `line_reader` splits the stream into lines for the text formats (CSV, nvidia-smi, nccl-tests).
// Errors (missing file, corrupt or truncated gzip) are `parse_error`s naming the file and the
// byte offset in the decompressed stream.

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

#include <zlib.h>

#include "roofline/core/error.hpp"

namespace roofline::io {

/// A byte stream over a file, inflating gzip transparently. Not copyable.
class input_file {
public:
    /// Opens `path`. Throws `parse_error` when the file cannot be opened.
    explicit input_file(std::string path, std::size_t chunk_bytes = 1 << 16)
        : path_(std::move(path)), in_(chunk_bytes) {
        file_ = std::fopen(path_.c_str(), "rb");
        if (!file_) throw parse_error(path_, "", "", std::string("cannot open: ") + std::strerror(errno));
        std::setvbuf(file_, nullptr, _IONBF, 0);  // we buffer ourselves
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
    std::vector<unsigned char> in_;
    std::size_t avail_ = 0, pos_ = 0;
    bool gzip_ = false, member_done_ = false;
    std::unique_ptr<z_stream> z_;
    std::uint64_t offset_ = 0;
};

/// Splits an `input_file` into lines (without the trailing "\n" or "\r\n"), counting them.
class line_reader {
public:
    explicit line_reader(input_file& in) : in_(in), buf_(1 << 16) {}

    /// Next line into `line`; false at the end. The last line may lack a newline.
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

}  // namespace roofline::io
