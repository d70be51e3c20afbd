#pragma once
// Streaming scan of a Chrome trace (the JSON that the PyTorch profiler / Kineto writes) in
// bounded memory.
//
// A trace is one JSON object whose `traceEvents` array holds every event; files reach hundreds
// of MB. Loading it whole (a DOM) costs several times its size in memory, so the scan works in
// two levels:
// 1. `chrome_trace_splitter` reads the byte stream (gzip inflated on the fly) through a buffer
//    of a few MB and cuts it at the top level: each top-level value other than `traceEvents`
//    (deviceProperties, distributedInfo, baseTimeNanoseconds, ...) is handed over whole, and each
//    element of `traceEvents` is handed over as its own slice. Only a bracket/string state machine
//    runs here. Memory: the buffer, grown only if a single event exceeds it.
// 2. An event parser turns one slice into a `chrome_event` (the fields the readers use, views
//    valid until the next event): simdjson On-Demand when ROOFLINE_HAVE_SIMDJSON is defined (the
//    fast path), nlohmann/json otherwise. Both fill the same struct; tests run both.
// The Chrome "JSON Array Format" (a bare array of events) is accepted too.

#include <cmath>        // NAN
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <algorithm>    // std::min, std::max
#include <condition_variable>  // std::condition_variable
#include <cstring>      // std::memmove, std::memcpy
#include <deque>        // std::deque
#include <exception>    // std::exception
#include <memory>       // std::unique_ptr
#include <mutex>        // std::mutex
#include <system_error> // std::system_error
#include <thread>       // std::thread
#include <type_traits>  // std::is_trivially_copyable_v
#include <limits>       // std::numeric_limits
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#if defined(__SSE2__)
#include <emmintrin.h>  // _mm_cmpeq_epi8, _mm_movemask_epi8
#endif

#include <nlohmann/json.hpp>
#ifdef ROOFLINE_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include "roofline/core/error.hpp"
#include "roofline/io/detail/input_kind.hpp"
#include "roofline/io/detail/text.hpp"
#include "roofline/io/input.hpp"

namespace roofline::io::detail {

/// The fields of one trace event that the readers use. String views point into the parser's
/// buffers and stay valid only until the next event is parsed.
/// The fixed-size fields of a `chrome_event` (trivially copyable, so that `reset` is one copy of
/// a default instance: the per-event reset was 7% of a parse worker's time when it built and
/// destroyed a whole event with its three strings).
struct chrome_event_fields {
    static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

    bool is_object = false;
    std::string_view ph, cat, name;
    // pid/tid: integers in GPU and CPU events, strings in a few ("Spans", "Traces").
    std::int64_t pid = 0, tid = 0;
    std::string_view pid_text, tid_text;  ///< set when pid/tid are strings
    bool has_pid = false, has_tid = false;
    double ts = nan, dur = nan;           ///< microseconds
    bool ts_wrong_type = false, dur_wrong_type = false;
    bool has_args = false;
    // args
    std::int64_t correlation = -1, external_id = -1, device = -1, stream = -1;
    std::int64_t registers_per_thread = -1;
    double shared_memory = nan, blocks_per_sm = nan, warps_per_sm = nan, occupancy_pct = nan;
    double bytes = nan;
    std::int64_t grid[3] = {-1, -1, -1}, block[3] = {-1, -1, -1};
    std::string_view collective_name, dtype, pg_name, pg_desc;
    double in_msg_nelems = nan, out_msg_nelems = nan;
    std::int64_t group_size = -1;
    std::int64_t seq = -1;                ///< NCCL `Seq` (newer PyTorch), -1 when absent
    std::string_view meta_name;           ///< args.name of metadata events (process/thread name)
};
static_assert(std::is_trivially_copyable_v<chrome_event_fields>);

/// One trace event as the parsers fill it: the fields above, and the op shapes as text.
struct chrome_event : chrome_event_fields {
    std::string input_dims, input_types;  ///< compact JSON text ("" when absent)
    std::string input_strides;            ///< `Input Strides` (PyTorch >= 2.1), compact JSON text
    std::string concrete_inputs;          ///< `Concrete Inputs`, compact JSON text ("" when absent)

    /// Back to a default event; the strings keep their capacity.
    void reset() {
        static constexpr chrome_event_fields defaults{};
        static_cast<chrome_event_fields&>(*this) = defaults;
        input_dims.clear();
        input_types.clear();
        input_strides.clear();
        concrete_inputs.clear();
    }
};

/// `k == lit`, as an inlined compare of a known length (a chain of `string_view ==` against
/// the keys of every event compiled to out-of-line calls, a tenth of the scan).
template <std::size_t N>
inline bool key_is(std::string_view k, const char (&lit)[N]) {
    return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

/// First `"` or `\` in [p, e) (e if none).
inline const char* find_quote_or_backslash(const char* p, const char* e);

/// JSON text without blanks outside strings (so both parsers give the same text). Copies runs
/// and whole strings at once (Kineto writes `[[1, 2], [3]]`: one blank per comma).
inline void append_compact_json(std::string_view raw, std::string& out) {
    out.reserve(out.size() + raw.size());
    const char* p = raw.data();
    const char* const e = p + raw.size();
    while (p < e) {
        const char* run = p;
        while (p < e && *p != '"' && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') ++p;
        out.append(run, static_cast<std::size_t>(p - run));
        if (p == e) break;
        if (*p != '"') {  // a blank outside strings: dropped
            ++p;
            continue;
        }
        const char* s = p++;
        for (;;) {  // to past the closing quote; an escape copies the byte after it
            p = find_quote_or_backslash(p, e);
            if (p >= e) break;
            if (*p == '\\') {
                p += 2;
                continue;
            }
            ++p;
            break;
        }
        if (p > e) p = e;
        out.append(s, static_cast<std::size_t>(p - s));
    }
}

/// First byte in [p, e) that is one of `"` `{` `}` `[` `]` (e if none). SSE2 where available
/// (every x86-64 CPU), a plain loop elsewhere; the scan's speed rests on this and the next one.
inline const char* find_structural(const char* p, const char* e) {
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"'), ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}'),
                  os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
    while (e - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, ob)),
                                       _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, cb), _mm_cmpeq_epi8(x, os)),
                                                    _mm_cmpeq_epi8(x, cs)));
        const int bits = _mm_movemask_epi8(m);
        if (bits) return p + __builtin_ctz(static_cast<unsigned>(bits));
        p += 16;
    }
#endif
    while (p < e && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
    return p;
}

/// First `"` or `\` in [p, e) (e if none).
inline const char* find_quote_or_backslash(const char* p, const char* e) {
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
    while (e - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int bits = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)));
        if (bits) return p + __builtin_ctz(static_cast<unsigned>(bits));
        p += 16;
    }
#endif
    while (p < e && *p != '"' && *p != '\\') ++p;
    return p;
}

/// Cuts a Chrome trace into top-level values and events (see the file comment).
class chrome_trace_splitter {
public:
    /// Bytes readable after the end of every slice (simdjson reads up to 64 past the end).
    static constexpr std::size_t padding = 64;
    /// Largest single top-level value or event accepted.
    static constexpr std::size_t max_value_bytes = std::size_t(1) << 30;
    /// Deepest nesting of brackets accepted inside one value or event: the event parsers
    /// recurse (simdjson stops at 1024 levels; nlohmann's dump() would overflow the stack), and
    /// no trace nests deeper than a few levels.
    static constexpr int max_depth = 1000;

    /// `simd`: use the 64-byte block scan of the events array where SSE2 exists (tests turn it
    /// off to compare with the byte-by-byte scan).
    explicit chrome_trace_splitter(input_file& in, std::size_t chunk_bytes = std::size_t(4) << 20, bool simd = true)
        : in_(in), cap_(chunk_bytes), buf_(chunk_bytes + padding, '\0'), simd_(simd) {}

    /// Runs the scan. `on_top(std::string_view key, std::string_view json, std::uint64_t offset)`
    /// gets each top-level value but `traceEvents`; `on_event(std::string_view json,
    /// std::uint64_t offset, std::size_t index)` gets each event (its text is followed by at
    /// least `padding` readable bytes). Throws `parse_error` (file, byte offset) for an empty,
    /// truncated or structurally malformed file.
    template <class OnTop, class OnEvent>
    void run(OnTop&& on_top, OnEvent&& on_event) {
        if (!skip_ws()) throw parse_error(in_.path(), "byte 0", "", "empty file");
        const char c = buf_[pos_];
        if (c == '[') {
            events(on_event);
            saw_events_ = true;
        } else if (c == '{') {
            ++pos_;
            for (;;) {
                if (!skip_ws()) throw error_here("truncated: the top-level object is not closed");
                const char k = buf_[pos_];
                if (k == '}') {
                    ++pos_;
                    break;
                }
                if (k == ',') {
                    ++pos_;
                    continue;
                }
                if (k != '"') throw error_here("malformed JSON: expected a key in the top-level object");
                std::size_t start = pos_;
                const std::size_t len = scan_value(start);
                const std::string key(buf_.data() + start + 1, len >= 2 ? len - 2 : 0);
                if (!skip_ws() || buf_[pos_] != ':')
                    throw error_here("malformed JSON: expected ':' after key \"" + key + "\"");
                ++pos_;
                if (!skip_ws()) throw error_here("truncated: no value for key \"" + key + "\"");
                if (buf_[pos_] == '}' || buf_[pos_] == ']' || buf_[pos_] == ',')
                    throw error_here("malformed JSON: no value for key \"" + key + "\"");
                if (key == "traceEvents") {
                    if (buf_[pos_] != '[') throw error_here("\"traceEvents\" is not an array");
                    events(on_event);
                    saw_events_ = true;
                } else {
                    std::size_t vstart = pos_;
                    const std::size_t vlen = scan_value(vstart);
                    on_top(std::string_view(key), std::string_view(buf_.data() + vstart, vlen), base_ + vstart);
                }
            }
        } else {
            throw error_here("not a Chrome trace: expected a JSON object or array");
        }
        if (skip_ws()) throw error_here("malformed JSON: unexpected data after the trace");
        if (!saw_events_) {
            const std::string kind = describe_input_file(in_.path());
            throw parse_error(in_.path(), "", "traceEvents",
                              kind.empty() ? "missing: not a Chrome/Kineto trace"
                                           : "missing: " + kind + ", not a Chrome/Kineto trace");
        }
    }

    /// Scans the events of the `traceEvents` array from content offset `offset`, which must be
    /// where an event (or the blanks and comma before one) starts, up to the array's end: a
    /// second reader of a file the first scan validated (io/kineto_stream.hpp). `on_event` as in
    /// `run`; offsets are of the whole content. Throws as `run`, and `parse_error` when `offset`
    /// lies past the content.
    template <class OnEvent>
    void run_events_at(std::uint64_t offset, OnEvent&& on_event) {
        in_.skip_to(offset);
        base_ = offset;
        pos_ = end_ = 0;
        events(on_event, true);
    }

    /// Bytes of the (decompressed) stream consumed so far.
    std::uint64_t offset() const { return base_ + pos_; }
    std::size_t events_seen() const { return index_; }

private:
    parse_error error_here(const std::string& detail) const {
        return parse_error(in_.path(), in_.place_at(base_ + pos_), "", detail);
    }

    // Makes more bytes available, keeping [keep, end_); `keep` and `i` are re-based.
    bool refill(std::size_t& keep, std::size_t& i) {
        if (keep > 0) {
            std::memmove(buf_.data(), buf_.data() + keep, end_ - keep);
            base_ += keep;
            end_ -= keep;
            i -= keep;
            pos_ = pos_ >= keep ? pos_ - keep : 0;
            keep = 0;
        }
        if (end_ == cap_) {  // one value fills the buffer: grow it
            if (cap_ >= max_value_bytes)
                throw parse_error(in_.path(), in_.place_at(base_), "",
                                  "a single event or value exceeds " + std::to_string(max_value_bytes) + " bytes");
            cap_ *= 2;
            buf_.resize(cap_ + padding, '\0');
        }
        const std::size_t n = in_.read(buf_.data() + end_, cap_ - end_);
        end_ += n;
        return n != 0;
    }

    // Skips blanks; false at the end of the input.
    bool skip_ws() {
        for (;;) {
            while (pos_ < end_) {
                const char c = buf_[pos_];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return true;
                ++pos_;
            }
            std::size_t keep = pos_, i = pos_;
            if (!refill(keep, i)) return false;
        }
    }

    // Past the closing quote of a string whose body starts at i.
    std::size_t skip_string(std::size_t& start, std::size_t i) {
        for (;;) {
            if (i >= end_) {
                if (!refill(start, i)) throw truncated(start);
                continue;
            }
            const char* p = find_quote_or_backslash(buf_.data() + i, buf_.data() + end_);
            i = static_cast<std::size_t>(p - buf_.data());
            if (i >= end_) continue;
            if (*p == '\\') {
                i += 2;
                continue;
            }
            return i + 1;
        }
    }

    parse_error too_deep(std::size_t start) const {
        return parse_error(in_.path(), in_.place_at(base_ + start), "",
                           "malformed JSON: the value starting here nests deeper than " + std::to_string(max_depth) +
                               " levels (event " + std::to_string(index_) + ")");
    }

    parse_error truncated(std::size_t start) const {
        return parse_error(in_.path(), in_.place_at(base_ + start), "",
                           "truncated file: the value starting here is not closed (event " +
                               std::to_string(index_) + ")");
    }

    // Length of the JSON value starting at pos_ (kept from `start`); leaves pos_ after it.
    std::size_t scan_value(std::size_t& start) {
        start = pos_;
        std::size_t i = pos_;
        const char c = buf_[i];
        if (c == '{' || c == '[') {
            int depth = 0;
            for (;;) {
                if (i < end_) i = static_cast<std::size_t>(find_structural(buf_.data() + i, buf_.data() + end_) - buf_.data());
                if (i >= end_) {
                    if (!refill(start, i)) throw truncated(start);
                    continue;
                }
                const char ch = buf_[i];
                if (ch == '"') {
                    i = skip_string(start, i + 1);
                    continue;
                }
                if (ch == '{' || ch == '[') {
                    if (++depth > max_depth) throw too_deep(start);
                } else if (ch == '}' || ch == ']') {
                    if (--depth == 0) {
                        ++i;
                        break;
                    }
                }
                ++i;
            }
        } else if (c == '"') {
            i = skip_string(start, i + 1);
        } else {
            for (;;) {
                if (i >= end_) {
                    if (!refill(start, i)) break;
                    continue;
                }
                const char ch = buf_[i];
                if (ch == ',' || ch == '}' || ch == ']' || ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') break;
                ++i;
            }
        }
        pos_ = i;
        return i - start;
    }

    // `inside`: the stream starts inside the array (run_events_at), not at its '['.
    template <class OnEvent>
    void events(OnEvent& on_event, bool inside = false) {
#if defined(__SSE2__)
        if (simd_) return events_simd(on_event, inside);
#endif
        if (!inside) ++pos_;  // '['
        for (;;) {
            if (!skip_ws()) throw error_here("truncated file: the traceEvents array is not closed after event " + std::to_string(index_));
            const char c = buf_[pos_];
            if (c == ']') {
                ++pos_;
                return;
            }
            if (c == ',') {
                ++pos_;
                continue;
            }
            // A '}' here would scan as an empty value forever (the block scan rejects it too).
            if (c == '}') throw error_here("malformed JSON: '}' closes the traceEvents array");
            std::size_t start = pos_;
            const std::size_t len = scan_value(start);
            on_event(std::string_view(buf_.data() + start, len), base_ + start, index_);
            ++index_;
        }
    }

#if defined(__SSE2__)
    // The events array, 64 bytes at a time (the technique of simdjson's stage 1, Langdale and
    // Lemire 2019): bit masks of quotes and brackets, the bytes inside strings as the prefix XOR
    // of the quote mask, and only the brackets outside strings visited one by one to track depth.
    // A block with a backslash is walked byte by byte (escapes are rare in traces).
    struct block_masks {
        std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
    };
    static block_masks masks64(const char* p) {
        block_masks m;
        const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), o = _mm_set1_epi8('{'), c = _mm_set1_epi8('}'),
                      lower = _mm_set1_epi8(0x20);
        for (int k = 0; k < 4; ++k) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
            const __m128i xl = _mm_or_si128(x, lower);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
            const int sh = 16 * k;
            m.quote |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, q)))) << sh;
            m.backslash |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, b)))) << sh;
            m.open |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(xl, o)))) << sh;
            m.close |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(xl, c)))) << sh;
        }
        return m;
    }
    static std::uint64_t prefix_xor(std::uint64_t x) {
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        return x;
    }

    template <class OnEvent>
    void events_simd(OnEvent& on_event, bool inside) {
        if (!inside) ++pos_;  // '['
        int depth = 0;
        bool in_string = false, escaped = false, done = false;
        std::size_t start = pos_;  // start of the current element, or of the gap before it
        std::size_t i = pos_;
        // Bytes between two elements must be blanks and commas; anything else (a number, a
        // string) is handed over as elements of their own, split at commas outside strings
        // (the parser then counts them as not objects).
        auto gap = [&](std::size_t from, std::size_t to) {
            auto blank = [&](std::size_t k) {
                const char c = buf_[k];
                return c == ' ' || c == '\n' || c == '\r' || c == '\t';
            };
            std::size_t k = from;
            while (k < to) {
                while (k < to && (blank(k) || buf_[k] == ',')) ++k;
                if (k >= to) break;
                const std::size_t a = k;
                bool quoted = false;
                for (; k < to; ++k) {
                    const char c = buf_[k];
                    if (quoted) {
                        if (c == '\\') ++k;
                        else if (c == '"') quoted = false;
                    } else if (c == '"') {
                        quoted = true;
                    } else if (c == ',') {
                        break;
                    }
                }
                std::size_t b = k < to ? k : to;
                while (b > a && blank(b - 1)) --b;
                on_event(std::string_view(buf_.data() + a, b - a), base_ + a, index_);
                ++index_;
            }
        };
        // One bracket outside strings at buffer index `at`.
        auto bracket = [&](std::size_t at, bool open) {
            if (open) {
                if (depth == 0) {
                    gap(start, at);
                    start = at;
                }
                if (++depth > max_depth) throw too_deep(start);
                return;
            }
            if (depth == 0) {  // closes the traceEvents array
                gap(start, at);
                if (buf_[at] != ']') {
                    pos_ = at;
                    throw error_here("malformed JSON: '}' closes the traceEvents array");
                }
                pos_ = at + 1;
                done = true;
                return;
            }
            if (--depth == 0) {
                on_event(std::string_view(buf_.data() + start, at + 1 - start), base_ + start, index_);
                ++index_;
                start = at + 1;
            }
        };
        auto scalar_block = [&](const char* p, std::size_t base_index, std::size_t len) {
            for (std::size_t k = 0; k < len && !done; ++k) {
                const char c = p[k];
                if (in_string) {
                    if (escaped) escaped = false;
                    else if (c == '\\') escaped = true;
                    else if (c == '"') in_string = false;
                    continue;
                }
                if (c == '"') in_string = true;
                else if (c == '{' || c == '[') bracket(base_index + k, true);
                else if (c == '}' || c == ']') bracket(base_index + k, false);
            }
        };
        auto simd_block = [&](const char* p, std::size_t base_index) {
            const block_masks m = masks64(p);
            if (m.backslash || escaped) return scalar_block(p, base_index, 64);
            const std::uint64_t inside = prefix_xor(m.quote) ^ (in_string ? ~std::uint64_t(0) : 0);
            in_string = (inside >> 63) != 0;
            std::uint64_t brackets = (m.open | m.close) & ~inside;
            while (brackets && !done) {
                const int bit = __builtin_ctzll(brackets);
                brackets &= brackets - 1;
                bracket(base_index + static_cast<std::size_t>(bit), (m.open >> bit) & 1);
            }
        };
        for (;;) {
            if (end_ - i < 64) {
                if (refill(start, i)) continue;
                // End of the input: the tail, padded with zeros (which match nothing).
                char tail[64] = {};
                const std::size_t len = end_ - i;
                std::memcpy(tail, buf_.data() + i, len);
                scalar_block(tail, i, len);  // bracket() indexes buf_, which holds the same bytes
                if (done) return;
                if (depth > 0) throw truncated(start);
                pos_ = end_;
                throw error_here("truncated file: the traceEvents array is not closed after event " + std::to_string(index_));
            }
            simd_block(buf_.data() + i, i);
            if (done) return;
            i += 64;
        }
    }
#endif

    input_file& in_;
    std::size_t cap_;
    std::vector<char> buf_;
    bool simd_ = true;
    std::size_t pos_ = 0, end_ = 0;
    std::uint64_t base_ = 0;
    std::size_t index_ = 0;
    bool saw_events_ = false;
};

/// Event parser on nlohmann/json (the portable path). Keeps the last event's DOM alive.
class nlohmann_event_parser {
public:
    /// Parses one event; false with `error` set when the text is not valid JSON.
    bool parse(std::string_view text, chrome_event& ev, std::string& error) {
        ev.reset();
        doc_ = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
        if (doc_.is_discarded()) {
            // The error path only: parse again with exceptions for nlohmann's reason (e.g. an
            // ill-formed UTF-8 byte), as the simdjson path names simdjson's.
            error = "malformed JSON";
            try {
                const auto again = nlohmann::json::parse(text.begin(), text.end());  // throws here
                (void)again;
            } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
                std::string_view why = e.what();
                if (const auto at = why.find(": "); at != std::string_view::npos) why.remove_prefix(at + 2);
                else if (const auto id = why.find("] "); id != std::string_view::npos) why.remove_prefix(id + 2);
                why = why.substr(0, why.find("; last read"));  // that echo may hold the bad bytes
                error += " (" + std::string(why) + ")";
            }
            return false;
        }
        if (!doc_.is_object()) return true;
        ev.is_object = true;
        for (auto it = doc_.begin(); it != doc_.end(); ++it) {
            const std::string& k = it.key();
            const auto& v = it.value();
            if (k == "ph") str(v, ev.ph);
            else if (k == "cat") str(v, ev.cat);
            else if (k == "name") str(v, ev.name);
            else if (k == "pid") id(v, ev.pid, ev.pid_text, ev.has_pid);
            else if (k == "tid") id(v, ev.tid, ev.tid_text, ev.has_tid);
            else if (k == "ts") number(v, ev.ts, ev.ts_wrong_type);
            else if (k == "dur") number(v, ev.dur, ev.dur_wrong_type);
            else if (k == "args" && v.is_object()) {
                ev.has_args = true;
                for (auto a = v.begin(); a != v.end(); ++a) arg(a.key(), a.value(), ev);
            }
        }
        return true;
    }

private:
    static void str(const nlohmann::json& v, std::string_view& out) {
        if (v.is_string()) out = v.get_ref<const std::string&>();
    }
    static void id(const nlohmann::json& v, std::int64_t& n, std::string_view& text, bool& has) {
        if (v.is_number()) {
            n = v.is_number_float() ? to_int_or<std::int64_t>(v.get<double>(), -1) : v.get<std::int64_t>();
            has = true;
        } else if (v.is_string()) {
            text = v.get_ref<const std::string&>();
            has = true;
        }
    }
    static void number(const nlohmann::json& v, double& out, bool& wrong) {
        if (v.is_number()) out = v.get<double>();
        else if (!v.is_null()) wrong = true;
    }
    static void integer(const nlohmann::json& v, std::int64_t& out) {
        if (v.is_number_integer()) out = v.get<std::int64_t>();
        else if (v.is_number_float()) out = to_int_or<std::int64_t>(v.get<double>(), -1);
    }
    static void real(const nlohmann::json& v, double& out) {
        if (v.is_number()) out = v.get<double>();
    }
    static void triple(const nlohmann::json& v, std::int64_t (&out)[3]) {
        if (!v.is_array()) return;
        for (std::size_t i = 0; i < 3 && i < v.size(); ++i) integer(v[i], out[i]);
    }
    static void arg(const std::string& k, const nlohmann::json& v, chrome_event& ev) {
        switch (k.empty() ? '\0' : k[0]) {
            case 'c': if (k == "correlation") integer(v, ev.correlation); break;
            case 'E': if (k == "External id") integer(v, ev.external_id); break;
            case 'd':
                if (k == "device") integer(v, ev.device);
                else if (k == "dtype") str(v, ev.dtype);
                break;
            case 's':
                if (k == "stream") integer(v, ev.stream);
                else if (k == "shared memory") real(v, ev.shared_memory);
                break;
            case 'r': if (k == "registers per thread") integer(v, ev.registers_per_thread); break;
            case 'b':
                if (k == "blocks per SM") real(v, ev.blocks_per_sm);
                else if (k == "block") triple(v, ev.block);
                else if (k == "bytes") real(v, ev.bytes);
                break;
            case 'w': if (k == "warps per SM") real(v, ev.warps_per_sm); break;
            case 'e': if (k == "est. achieved occupancy %") real(v, ev.occupancy_pct); break;
            case 'g': if (k == "grid") triple(v, ev.grid); break;
            case 'C':
                if (k == "Collective name") str(v, ev.collective_name);
                else if (k == "Concrete Inputs") ev.concrete_inputs = v.dump();
                break;
            case 'I':
                if (k == "In msg nelems") real(v, ev.in_msg_nelems);
                else if (k == "Input Dims") ev.input_dims = v.dump();
                else if (k == "Input type") ev.input_types = v.dump();
                else if (k == "Input Strides") ev.input_strides = v.dump();
                break;
            case 'O': if (k == "Out msg nelems") real(v, ev.out_msg_nelems); break;
            case 'G': if (k == "Group size") integer(v, ev.group_size); break;
            case 'P':
                if (k == "Process Group Name") str(v, ev.pg_name);
                else if (k == "Process Group Description") str(v, ev.pg_desc);
                break;
            case 'n': if (k == "name") str(v, ev.meta_name); break;
            case 'S': if (k == "Seq") integer(v, ev.seq); break;
            default: break;
        }
    }

    nlohmann::json doc_;
};

#ifdef ROOFLINE_HAVE_SIMDJSON
/// Event parser on simdjson On-Demand (the fast path).
class simdjson_event_parser {
public:
    /// Categories for which `interesting(cat)` is false are parsed only up to their `cat`.
    void set_category_filter(bool (*interesting)(std::string_view)) { filter_ = interesting; }

    /// Parses one event; `text` must be followed by `chrome_trace_splitter::padding` readable
    /// bytes. False with `error` set when the text is not valid JSON.
    bool parse(std::string_view text, chrome_event& ev, std::string& error) {
        using namespace simdjson;
        if (std::string_view ph, cat; skip_by_prefix(text, ph, cat)) {
            ev.reset();
            ev.is_object = true;
            ev.ph = ph;
            ev.cat = cat;
            return true;
        }
        return parse_whole(text, ev, error);
    }

    /// `parse` without the prefix shortcut (for a caller that tried `skip_by_prefix` already).
    bool parse_whole(std::string_view text, chrome_event& ev, std::string& error) {
        using namespace simdjson;
        ev.reset();
        ondemand::document doc;
        auto err = parser_.iterate(text.data(), text.size(), text.size() + SIMDJSON_PADDING).get(doc);
        if (err) return fail(err, error);
        ondemand::object obj;
        if (doc.get_object().get(obj)) return true;  // not an object: counted by the caller
        ev.is_object = true;
        for (auto result : obj) {
            ondemand::field field;
            if ((err = std::move(result).get(field))) return fail(err, error);
            std::string_view k;
            if ((err = field.unescaped_key().get(k))) return fail(err, error);
            ondemand::value& v = field.value();
            if (key_is(k, "ph")) err = str(v, ev.ph);
            else if (key_is(k, "cat")) {
                err = str(v, ev.cat);
                // Events of no interest stop here (python_function, flows, ...): their other
                // fields are never decoded.
                if (!err && filter_ && !filter_(ev.cat)) return true;
            } else if (key_is(k, "name")) err = str(v, ev.name);
            else if (key_is(k, "pid")) err = id(v, ev.pid, ev.pid_text, ev.has_pid);
            else if (key_is(k, "tid")) err = id(v, ev.tid, ev.tid_text, ev.has_tid);
            else if (key_is(k, "ts")) err = number(v, ev.ts, ev.ts_wrong_type);
            else if (key_is(k, "dur")) err = number(v, ev.dur, ev.dur_wrong_type);
            else if (key_is(k, "args")) err = args(v, ev);
            if (err) return fail(err, error);
        }
        return true;
    }

    /// The shortcut for events of no interest, which are most of a trace (python_function
    /// alone is 62% of the events and 56% of the bytes of the B200 sample's profile): true when the
    /// event opens with plain string members "ph" and "cat" only (Kineto writes `{"ph": "X",
    /// "cat": "python_function", ...`) and the category filter rejects that category; `ph` and
    /// `cat` (views into `text`) are then what the full parse would set, with `is_object`, and
    /// simdjson never reads the rest. Anything else (no filter, other keys first, escapes, bytes
    /// outside printable ASCII, a non-string value) is false: the full parse runs. The rest of
    /// such an event is checked only for balanced brackets and strings (the splitter's scan),
    /// not for UTF-8 or number syntax: it is never read.
    bool skip_by_prefix(std::string_view text, std::string_view& ph, std::string_view& cat) const {
        if (!filter_) return false;
        const char* p = text.data();
        const char* const e = p + text.size();
        auto ws = [&] {
            while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
        };
        auto plain_string = [&](std::string_view& out) {  // p at the opening quote
            if (p >= e || *p != '"') return false;
            const char* b = ++p;
            while (p < e && *p != '"') {
                const auto c = static_cast<unsigned char>(*p);
                if (c < 0x20 || c >= 0x7f || c == '\\') return false;
                ++p;
            }
            if (p >= e) return false;
            out = std::string_view(b, static_cast<std::size_t>(p - b));
            ++p;
            return true;
        };
        ws();
        if (p >= e || *p != '{') return false;
        ++p;
        ph = {};
        for (int member = 0; member < 2; ++member) {
            ws();
            std::string_view key, value;
            if (!plain_string(key)) return false;
            ws();
            if (p >= e || *p != ':') return false;
            ++p;
            ws();
            if (!plain_string(value)) return false;
            ws();
            if (p >= e || *p != ',') return false;  // "}" would end the event: the full parse reads it
            ++p;
            if (key_is(key, "ph") && member == 0) {
                ph = value;
            } else if (key_is(key, "cat")) {
                if (filter_(value)) return false;
                cat = value;
                return true;
            } else {
                return false;
            }
        }
        return false;
    }

private:
    static bool fail(simdjson::error_code err, std::string& error) {
        error = std::string("malformed JSON (") + simdjson::error_message(err) + ")";
        return false;
    }
    static simdjson::error_code type_of(simdjson::ondemand::value& v, simdjson::ondemand::json_type& t) {
        return v.type().get(t);
    }
    static simdjson::error_code str(simdjson::ondemand::value& v, std::string_view& out) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t != simdjson::ondemand::json_type::string) return simdjson::SUCCESS;
        return v.get_string().get(out);
    }
    static simdjson::error_code id(simdjson::ondemand::value& v, std::int64_t& n, std::string_view& text, bool& has) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t == simdjson::ondemand::json_type::number) {
            has = true;
            if (v.get_int64().get(n) == simdjson::SUCCESS) return simdjson::SUCCESS;
            double d = 0;
            if (auto e = v.get_double().get(d)) return e;
            n = to_int_or<std::int64_t>(d, -1);
        } else if (t == simdjson::ondemand::json_type::string) {
            has = true;
            return v.get_string().get(text);
        }
        return simdjson::SUCCESS;
    }
    static simdjson::error_code number(simdjson::ondemand::value& v, double& out, bool& wrong) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t == simdjson::ondemand::json_type::number) return v.get_double().get(out);
        if (t != simdjson::ondemand::json_type::null) wrong = true;
        return simdjson::SUCCESS;
    }
    static simdjson::error_code integer(simdjson::ondemand::value& v, std::int64_t& out) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t != simdjson::ondemand::json_type::number) return simdjson::SUCCESS;
        if (v.get_int64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;
        double d = 0;
        if (auto e = v.get_double().get(d)) return e;
        out = to_int_or<std::int64_t>(d, -1);
        return simdjson::SUCCESS;
    }
    static simdjson::error_code real(simdjson::ondemand::value& v, double& out) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t != simdjson::ondemand::json_type::number) return simdjson::SUCCESS;
        return v.get_double().get(out);
    }
    static simdjson::error_code triple(simdjson::ondemand::value& v, std::int64_t (&out)[3]) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t != simdjson::ondemand::json_type::array) return simdjson::SUCCESS;
        simdjson::ondemand::array arr;
        if (auto e = v.get_array().get(arr)) return e;
        std::size_t i = 0;
        for (auto x : arr) {
            // Elements as `integer` reads them (a float such as 1e20 or 1.0 is no syntax error:
            // found by fuzzing, it failed the whole trace); non-numbers stay unknown.
            simdjson::ondemand::value item;
            if (auto e = x.get(item)) return e;
            std::int64_t n = -1;
            if (auto e = integer(item, n)) return e;
            if (i < 3) out[i] = n;
            ++i;
        }
        return simdjson::SUCCESS;
    }
    static simdjson::error_code raw(simdjson::ondemand::value& v, std::string& out) {
        std::string_view r;
        if (auto e = simdjson::to_json_string(v).get(r)) return e;
        append_compact_json(r, out);
        return simdjson::SUCCESS;
    }
    static simdjson::error_code args(simdjson::ondemand::value& v, chrome_event& ev) {
        simdjson::ondemand::json_type t;
        if (auto e = type_of(v, t)) return e;
        if (t != simdjson::ondemand::json_type::object) return simdjson::SUCCESS;
        ev.has_args = true;
        simdjson::ondemand::object o;
        if (auto e = v.get_object().get(o)) return e;
        for (auto result : o) {
            simdjson::ondemand::field field;
            if (auto e = std::move(result).get(field)) return e;
            std::string_view k;
            if (auto e = field.unescaped_key().get(k)) return e;
            simdjson::ondemand::value& a = field.value();
            simdjson::error_code e = simdjson::SUCCESS;
            switch (k.empty() ? '\0' : k[0]) {
                case 'c': if (key_is(k, "correlation")) e = integer(a, ev.correlation); break;
                case 'E': if (key_is(k, "External id")) e = integer(a, ev.external_id); break;
                case 'd':
                    if (key_is(k, "device")) e = integer(a, ev.device);
                    else if (key_is(k, "dtype")) e = str(a, ev.dtype);
                    break;
                case 's':
                    if (key_is(k, "stream")) e = integer(a, ev.stream);
                    else if (key_is(k, "shared memory")) e = real(a, ev.shared_memory);
                    break;
                case 'r': if (key_is(k, "registers per thread")) e = integer(a, ev.registers_per_thread); break;
                case 'b':
                    if (key_is(k, "blocks per SM")) e = real(a, ev.blocks_per_sm);
                    else if (key_is(k, "block")) e = triple(a, ev.block);
                    else if (key_is(k, "bytes")) e = real(a, ev.bytes);
                    break;
                case 'w': if (key_is(k, "warps per SM")) e = real(a, ev.warps_per_sm); break;
                case 'e': if (key_is(k, "est. achieved occupancy %")) e = real(a, ev.occupancy_pct); break;
                case 'g': if (key_is(k, "grid")) e = triple(a, ev.grid); break;
                case 'C':
                    if (key_is(k, "Collective name")) e = str(a, ev.collective_name);
                    else if (key_is(k, "Concrete Inputs")) e = raw(a, ev.concrete_inputs);
                    break;
                case 'I':
                    if (key_is(k, "In msg nelems")) e = real(a, ev.in_msg_nelems);
                    else if (key_is(k, "Input Dims")) e = raw(a, ev.input_dims);
                    else if (key_is(k, "Input type")) e = raw(a, ev.input_types);
                    else if (key_is(k, "Input Strides")) e = raw(a, ev.input_strides);
                    break;
                case 'O': if (key_is(k, "Out msg nelems")) e = real(a, ev.out_msg_nelems); break;
                case 'G': if (key_is(k, "Group size")) e = integer(a, ev.group_size); break;
                case 'P':
                    if (key_is(k, "Process Group Name")) e = str(a, ev.pg_name);
                    else if (key_is(k, "Process Group Description")) e = str(a, ev.pg_desc);
                    break;
                case 'n': if (key_is(k, "name")) e = str(a, ev.meta_name); break;
                case 'S': if (key_is(k, "Seq")) e = integer(a, ev.seq); break;
                default: break;
            }
            if (e) return e;
        }
        return simdjson::SUCCESS;
    }

    simdjson::ondemand::parser parser_;
    bool (*filter_)(std::string_view) = nullptr;
};
using default_event_parser = simdjson_event_parser;
#else
using default_event_parser = nlohmann_event_parser;
#endif

/// Threads that parse events beside the reading thread by default: one less than the hardware
/// threads, at most 3 (0 where that count is unknown: a single thread then reads and parses).
inline unsigned default_event_parse_workers() {
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 1 ? std::min(hw - 1, 3u) : 0u;
}

/// Bump allocator for the strings of parsed events: what it hands out stays put until `clear`.
class string_arena {
public:
    /// `block_bytes`: the size of each block it allocates (larger strings get a block of their own).
    explicit string_arena(std::size_t block_bytes = std::size_t(256) << 10) : block_bytes_(block_bytes) {}
    /// A copy of `v` that lives until `clear()` (empty views stay as they are).
    std::string_view keep(std::string_view v) {
        if (v.empty()) return v;
        if (v.size() > left_) grow(v.size());
        char* at = next_;
        std::memcpy(at, v.data(), v.size());
        next_ += v.size();
        left_ -= v.size();
        return {at, v.size()};
    }
    /// Forgets every string; keeps the first block for reuse.
    void clear() {
        if (blocks_.size() > 1) blocks_.resize(1);
        next_ = blocks_.empty() ? nullptr : blocks_.front().data.get();
        left_ = blocks_.empty() ? 0 : blocks_.front().size;
    }

private:
    struct block {
        std::unique_ptr<char[]> data;
        std::size_t size = 0;
    };
    void grow(std::size_t need) {
        const std::size_t size = std::max<std::size_t>(need, block_bytes_);
        blocks_.push_back({std::make_unique<char[]>(size), size});
        next_ = blocks_.back().data.get();
        left_ = size;
    }
    std::size_t block_bytes_;
    std::vector<block> blocks_;
    char* next_ = nullptr;
    std::size_t left_ = 0;
};

/// Points every string view of `ev` into `arena` (the parser's own buffers are reused by its
/// next event).
inline void keep_event_strings(chrome_event& ev, string_arena& arena) {
    for (std::string_view* v : {&ev.ph, &ev.cat, &ev.name, &ev.pid_text, &ev.tid_text, &ev.collective_name,
                                &ev.dtype, &ev.pg_name, &ev.pg_desc, &ev.meta_name})
        *v = arena.keep(*v);
}

/// The events of a trace parsed by worker threads while the reading thread splits the file and
/// delivers them (Amdahl: splitting and the caller's work stay on one thread, parsing spreads).
/// The reading thread copies event texts into batches of about 256 KB; a worker parses a whole
/// batch into `chrome_event`s whose strings live in the batch's arena; the reading thread
/// delivers batches strictly in file order, and parses the oldest batch itself when no worker
/// has taken it yet (so it never idles while work is queued, and with no worker it is the
/// sequential scan). Workers start with the first full batch: a small file never starts one.
/// Memory: at most `2 x (workers + 1)` batches in flight.
template <class Parser>
class batched_event_scan {
public:
    static constexpr std::size_t batch_bytes = std::size_t(256) << 10;
    static constexpr std::size_t batch_events = 4096;

    batched_event_scan(const input_file& in, unsigned workers, bool (*interesting)(std::string_view))
        : in_(in), workers_(workers), interesting_(interesting), max_in_flight_(2 * (workers + 1)) {
        set_filter(main_parser_);
    }
    batched_event_scan(const batched_event_scan&) = delete;
    batched_event_scan& operator=(const batched_event_scan&) = delete;
    ~batched_event_scan() { stop(); }

    /// Queues one event (its text is copied); may deliver earlier events to `on_event`.
    template <class OnEvent>
    void add(std::string_view text, std::uint64_t offset, std::size_t index, OnEvent& on_event) {
        if (!filling_) filling_ = take_free(on_event);
        batch& b = *filling_;
        slice& s = b.slices.emplace_back();
        s.begin = b.text.size();
        s.size = text.size();
        s.offset = offset;
        s.index = index;
        b.text.insert(b.text.end(), text.begin(), text.end());
        b.text.insert(b.text.end(), chrome_trace_splitter::padding, '\0');
        if (b.text.size() >= batch_bytes || b.slices.size() >= batch_events) {
            if (threads_.empty() && workers_ > 0) start();
            submit();
            deliver_ready(on_event);
        }
    }

    /// True once a delivery threw (a malformed event, or `on_event` itself): nothing after it
    /// may be delivered.
    bool failed() const { return failed_; }

    /// Delivers every queued event, in order (before a top-level value, and at the end).
    template <class OnEvent>
    void drain(OnEvent& on_event) {
        if (filling_) submit();
        while (!in_flight_.empty()) deliver_head(on_event);
    }

private:
    struct slice {
        std::size_t begin = 0, size = 0;
        std::uint64_t offset = 0;
        std::size_t index = 0;
        // After parsing: the event's slot in `batch::events`, or `lite` for an event of no
        // interest skipped by the parser's prefix shortcut, whose ph and cat are these views.
        static constexpr std::size_t lite = ~std::size_t(0);
        std::size_t event = lite;
        std::string_view ph, cat;
    };
    struct batch {
        std::vector<char> text;  // event texts, each followed by `padding` zero bytes
        std::vector<slice> slices;
        std::vector<chrome_event> events;  // parsed; slots reused from batch to batch
        string_arena strings;
        std::size_t parsed = 0;  // events parsed; < slices.size() when `error` is set
        std::string error;       // why event `parsed` is malformed ("" when none is)
        enum class state { queued, parsing, done } st = state::queued;
        void clear() {
            text.clear();
            slices.clear();
            strings.clear();
            parsed = 0;
            error.clear();
            st = state::queued;
        }
    };

    void set_filter(Parser& p) const {
        if constexpr (requires { p.set_category_filter(interesting_); }) p.set_category_filter(interesting_);
    }

    static void parse_batch(Parser& p, batch& b) noexcept {
        try {
            std::string error;
            std::size_t used = 0;  // slots of `events` filled
            for (std::size_t j = 0; j < b.slices.size(); ++j) {
                slice& s = b.slices[j];
                const std::string_view text(b.text.data() + s.begin, s.size);
                if constexpr (requires { p.skip_by_prefix(text, s.ph, s.cat); }) {
                    if (p.skip_by_prefix(text, s.ph, s.cat)) {  // no slot to reset: most events
                        s.event = slice::lite;
                        continue;
                    }
                }
                if (used == b.events.size()) b.events.emplace_back();
                s.event = used++;
                chrome_event& ev = b.events[s.event];
                bool ok = false;
                if constexpr (requires { p.parse_whole(text, ev, error); }) ok = p.parse_whole(text, ev, error);
                else ok = p.parse(text, ev, error);
                if (!ok) {
                    b.parsed = j;
                    b.error = error.empty() ? "malformed JSON" : error;
                    return;
                }
                keep_event_strings(ev, b.strings);
            }
            b.parsed = b.slices.size();
        } catch (const std::exception& e) {  // std::bad_alloc: reported where the batch is delivered
            b.error = std::string("could not be parsed: ") + e.what();
        }
    }

    // Starts the workers; where the system refuses a thread (std::system_error: a process or
    // container thread limit), the ones started so far do the work, and with none the reading
    // thread parses every batch itself (deliver_head): fewer threads, the same events.
    void start() {
        for (unsigned k = 0; k < workers_; ++k) {
            try {
                threads_.emplace_back([this] { work(); });
            } catch (const std::system_error&) {
                workers_ = k;
                break;
            }
        }
    }
    void stop() noexcept {
        {
            std::lock_guard<std::mutex> lk(mu_);
            stopping_ = true;
        }
        queued_cv_.notify_all();
        for (auto& t : threads_) t.join();
        threads_.clear();
    }

    void work() {
        Parser p;
        set_filter(p);
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            queued_cv_.wait(lk, [&] { return stopping_ || claimed_ < submitted_; });
            if (stopping_) return;
            batch& b = *in_flight_[claimed_++ - delivered_];
            b.st = batch::state::parsing;
            lk.unlock();
            parse_batch(p, b);
            lk.lock();
            b.st = batch::state::done;
            done_cv_.notify_all();
        }
    }

    void submit() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            in_flight_.push_back(filling_);
            ++submitted_;
        }
        filling_ = nullptr;
        queued_cv_.notify_one();
    }

    // The oldest batch, parsed here when no worker has it, delivered, then free again.
    template <class OnEvent>
    void deliver_head(OnEvent& on_event) {
        batch* b = nullptr;
        {
            std::unique_lock<std::mutex> lk(mu_);
            b = in_flight_.front();
            if (b->st == batch::state::queued) {  // unclaimed: claims go in order, so it is next
                ++claimed_;
                b->st = batch::state::parsing;
                lk.unlock();
                parse_batch(main_parser_, *b);
                lk.lock();
                b->st = batch::state::done;
            }
            done_cv_.wait(lk, [&] { return b->st == batch::state::done; });
            in_flight_.pop_front();
            ++delivered_;
        }
        free_.push_back(b);
        failed_ = true;  // until every event of the batch is delivered
        for (std::size_t j = 0; j < b->parsed; ++j) {
            const slice& s = b->slices[j];
            if (s.event == slice::lite) {
                lite_.is_object = true;  // its other fields stay as reset() leaves them
                lite_.ph = s.ph;
                lite_.cat = s.cat;
                on_event(static_cast<const chrome_event&>(lite_), s.offset, s.index);
            } else {
                on_event(static_cast<const chrome_event&>(b->events[s.event]), s.offset, s.index);
            }
        }
        if (!b->error.empty()) {
            const slice& s = b->slices[b->parsed];
            throw parse_error(in_.path(), in_.place_at(s.offset), "", "event " + std::to_string(s.index) + ": " + b->error);
        }
        failed_ = false;
    }

    // Delivers the batches at the head that workers have finished, without waiting.
    template <class OnEvent>
    void deliver_ready(OnEvent& on_event) {
        for (;;) {
            {
                std::lock_guard<std::mutex> lk(mu_);
                if (in_flight_.empty() || in_flight_.front()->st != batch::state::done) return;
            }
            deliver_head(on_event);
        }
    }

    // A batch to fill: a free one, a new one while under the in-flight limit, else the oldest
    // once delivered.
    template <class OnEvent>
    batch* take_free(OnEvent& on_event) {
        while (free_.empty() && pool_.size() >= max_in_flight_) deliver_head(on_event);
        if (free_.empty()) {
            pool_.push_back(std::make_unique<batch>());
            free_.push_back(pool_.back().get());
        }
        batch* b = free_.back();
        free_.pop_back();
        b->clear();
        // A batch is submitted once it passes batch_bytes, so it holds that plus one event and
        // its padding: room for events up to 64 KiB before the vector reallocates (larger ones
        // only cost that reallocation).
        b->text.reserve(batch_bytes + (std::size_t(64) << 10));
        return b;
    }

    const input_file& in_;
    unsigned workers_;
    bool (*interesting_)(std::string_view);
    std::size_t max_in_flight_;
    Parser main_parser_;
    chrome_event lite_;  // delivers the events of no interest (ph, cat and is_object set)
    std::vector<std::unique_ptr<batch>> pool_;
    std::vector<batch*> free_;
    batch* filling_ = nullptr;
    std::mutex mu_;
    std::condition_variable queued_cv_, done_cv_;
    std::deque<batch*> in_flight_;  // submitted, in file order
    std::size_t submitted_ = 0, claimed_ = 0, delivered_ = 0;
    bool stopping_ = false;
    bool failed_ = false;
    std::vector<std::thread> threads_;
};

/// Scans a Chrome trace file: `on_top(key, json_text, offset)` for top-level values other than
/// `traceEvents`, `on_event(const chrome_event&, offset, index)` for each event, in file order
/// and on the calling thread. `Parser` picks the event parser (default: simdjson when
/// available). `interesting`, when given, lets a parser that can (simdjson) stop decoding an
/// event after its `cat` when the category is of no interest; such events still reach
/// `on_event` with `cat` (and whatever came before it) set. `workers`: threads that parse
/// events beside the reading one (`batched_event_scan`); negative: `default_event_parse_workers()`;
/// 0: one thread splits, parses and delivers each event in turn. The calls and the errors are
/// the same either way. Throws `parse_error` for a missing, empty, truncated or malformed file
/// (naming the byte offset and the event index).
template <class Parser = default_event_parser, class OnTop, class OnEvent>
void scan_chrome_trace(const std::string& path, OnTop&& on_top, OnEvent&& on_event,
                       bool (*interesting)(std::string_view) = nullptr, int workers = -1) {
    input_file in(path);
    chrome_trace_splitter splitter(in);
    const unsigned n = workers < 0 ? default_event_parse_workers() : static_cast<unsigned>(workers);
    if (n == 0) {
        Parser parser;
        if constexpr (requires { parser.set_category_filter(interesting); }) parser.set_category_filter(interesting);
        chrome_event ev;
        std::string error;
        splitter.run(on_top, [&](std::string_view text, std::uint64_t offset, std::size_t index) {
            if (!parser.parse(text, ev, error))
                throw parse_error(path, in.place_at(offset), "", "event " + std::to_string(index) + ": " + error);
            on_event(static_cast<const chrome_event&>(ev), offset, index);
        });
        return;
    }
    batched_event_scan<Parser> scan(in, n, interesting);
    try {
        splitter.run(
            [&](std::string_view key, std::string_view json, std::uint64_t offset) {
                scan.drain(on_event);  // the events before this value first, as read
                on_top(key, json, offset);
            },
            [&](std::string_view text, std::uint64_t offset, std::size_t index) { scan.add(text, offset, index, on_event); });
    } catch (const parse_error&) {
        // The splitter found the file truncated or malformed here: an event before this place
        // that is malformed is the first error, as in the sequential scan.
        if (!scan.failed()) scan.drain(on_event);
        throw;
    }
    scan.drain(on_event);
}

}  // namespace roofline::io::detail
