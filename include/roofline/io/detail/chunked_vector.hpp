#pragma once
// A growable array in fixed-size chunks, for the readers' tables that grow with the trace (one
// record per CPU op, per launch call, per GPU event) and are only known in size at the end.
//
// A `std::vector` doubles: while it grows it holds up to twice what it needs, and each growth
// copies everything into a new block while the old one is still allocated, so a table of n
// records peaks at up to 3 n records. Chunks of 2^12 records never move and never hold more
// than one chunk of slack; indexing is a shift and a mask. `move_into` hands the records to a
// vector of the exact size, freeing each chunk as soon as it is copied, so the hand-over costs
// one chunk beyond the records themselves.

#include <algorithm>  // std::min
#include <cstddef>  // std::size_t
#include <memory>   // std::unique_ptr
#include <utility>  // std::move
#include <vector>   // std::vector

namespace roofline::io::detail {

/// Records of default-constructible `T` in chunks of 4,096 (see the file comment).
template <class T>
class chunked_vector {
public:
    static constexpr std::size_t chunk_bits = 12, chunk_size = std::size_t(1) << chunk_bits;

    void push_back(const T& v) {
        if ((size_ & (chunk_size - 1)) == 0 && (size_ >> chunk_bits) == chunks_.size())
            chunks_.emplace_back(new T[chunk_size]);
        chunks_[size_ >> chunk_bits][size_ & (chunk_size - 1)] = v;
        ++size_;
    }
    T& operator[](std::size_t i) { return chunks_[i >> chunk_bits][i & (chunk_size - 1)]; }
    const T& operator[](std::size_t i) const { return chunks_[i >> chunk_bits][i & (chunk_size - 1)]; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    /// Frees every chunk.
    void clear() {
        std::vector<std::unique_ptr<T[]>>().swap(chunks_);
        size_ = 0;
    }
    /// Appends the records to `out` (reserved to its exact new size) and empties this one,
    /// freeing each chunk once copied.
    void move_into(std::vector<T>& out) {
        out.reserve(out.size() + size_);
        for (std::size_t c = 0; c < chunks_.size(); ++c) {
            const std::size_t n = std::min(chunk_size, size_ - c * chunk_size);
            for (std::size_t i = 0; i < n; ++i) out.push_back(std::move(chunks_[c][i]));
            chunks_[c].reset();
        }
        clear();
    }

private:
    std::vector<std::unique_ptr<T[]>> chunks_;
    std::size_t size_ = 0;
};

}  // namespace roofline::io::detail
