#pragma once
// Text tables for the terminal: every CLI report prints through this.
//
//   kernel                                     calls      time   share  bound
//   -----------------------------------------  -----  --------  ------  -------
//   sm90_xmma_gemm_bf16bf16_…_tilesize128x256    412  4.56 ms   61.2%   compute
//
// Columns are separated by two spaces. Text columns are left-aligned, numbers right-aligned
// (decided per column: a column whose cells all read as numbers is numeric). A table wider than
// the limit (100 columns by default) shrinks its widest text columns and shortens their cells
// with an ellipsis in the middle, where kernel names keep their distinguishing head and tail.
// Numeric cells are never shortened: a truncated number would be a wrong number.

#include <algorithm>    // std::max
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "roofline/core/error.hpp"

namespace roofline::report {

/// Width of `s` in terminal columns: its count of UTF-8 code points (no East Asian wide
/// characters are expected in kernel names and units).
inline std::size_t display_width(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0u) != 0x80u) ++n;
    return n;
}

/// `s` shortened to at most `width` columns by replacing its middle with "…" (U+2026, one
/// column), keeping the head one character longer than the tail when they cannot be equal:
/// ellipsize_middle("abcdefghij", 7) == "abc…hij", ellipsize_middle("abcdefghij", 6) == "abc…ij".
/// Returns `s` unchanged when it fits. Never splits a UTF-8 sequence.
inline std::string ellipsize_middle(std::string_view s, std::size_t width) {
    const std::size_t n = display_width(s);
    if (n <= width) return std::string(s);
    if (width == 0) return {};
    const std::size_t keep = width - 1;
    const std::size_t head = (keep + 1) / 2, tail = keep / 2;
    // Byte offsets of code point boundaries.
    auto byte_of = [&s](std::size_t cp) {
        std::size_t seen = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if ((static_cast<unsigned char>(s[i]) & 0xC0u) != 0x80u) {
                if (seen == cp) return i;
                ++seen;
            }
        }
        return s.size();
    };
    std::string out(s.substr(0, byte_of(head)));
    out += "\u2026";
    out += s.substr(byte_of(n - tail));
    return out;
}

/// How a column aligns its cells.
enum class align : std::uint8_t {
    automatic,  ///< right when every non-empty cell reads as a number, else left
    left,
    right,
};

/// A column: its header and alignment.
struct table_column {
    std::string header;
    align alignment = align::automatic;
};

namespace detail {
/// True when a cell reads as a number ("989 TFLOP/s", "-3.2%", "12,345", ".5"); placeholder
/// cells ("n/a", "-", "unknown", "") count as numbers too, so they do not flip a column left.
inline bool looks_numeric(std::string_view cell) {
    if (cell.empty() || cell == "n/a" || cell == "-" || cell == "unknown" || cell == "\u2014")
        return true;
    std::size_t i = 0;
    if (cell[i] == '-' || cell[i] == '+') ++i;
    if (i < cell.size() && cell[i] == '.') ++i;
    return i < cell.size() && cell[i] >= '0' && cell[i] <= '9';
}
}  // namespace detail

/// A text table: columns, rows of cells (already formatted, see report/format.hpp), and a
/// renderer that fits a width.
class text_table {
  public:
    text_table() = default;
    explicit text_table(std::vector<table_column> columns) : columns_(std::move(columns)) {}

    /// A table whose columns all align automatically.
    static text_table with_headers(const std::vector<std::string>& headers) {
        std::vector<table_column> cols;
        cols.reserve(headers.size());
        for (const auto& h : headers) cols.push_back({h, align::automatic});
        return text_table(std::move(cols));
    }

    /// Appends a row. Missing trailing cells are empty; more cells than columns is a usage error.
    text_table& add_row(std::vector<std::string> cells) {
        if (cells.size() > columns_.size())
            throw usage_error("text_table: a row has " + std::to_string(cells.size()) +
                              " cells for " + std::to_string(columns_.size()) + " columns");
        cells.resize(columns_.size());
        rows_.push_back(std::move(cells));
        return *this;
    }

    const std::vector<table_column>& columns() const { return columns_; }
    const std::vector<std::vector<std::string>>& rows() const { return rows_; }

    /// The alignment column `c` resolves to (automatic -> left or right from its cells).
    bool right_aligned(std::size_t c) const {
        switch (columns_[c].alignment) {
            case align::left:
                return false;
            case align::right:
                return true;
            case align::automatic:
                break;
        }
        bool any = false;
        for (const auto& r : rows_) {
            if (!detail::looks_numeric(r[c])) return false;
            any = any || !r[c].empty();
        }
        return any;
    }

    /// Column widths after fitting `max_width` (0 = no limit): natural widths, then the widest
    /// left-aligned column loses one column at a time until the table fits or every text column
    /// is down to `min_text_width` (or its natural width, if smaller).
    std::vector<std::size_t> widths(std::size_t max_width = 100,
                                    std::size_t min_text_width = 12) const {
        const std::size_t n = columns_.size();
        std::vector<std::size_t> w(n, 0);
        for (std::size_t c = 0; c < n; ++c) {
            w[c] = display_width(columns_[c].header);
            for (const auto& r : rows_) w[c] = std::max(w[c], display_width(r[c]));
        }
        if (max_width == 0 || n == 0) return w;
        std::size_t total = gap * (n - 1);
        for (auto x : w) total += x;
        std::vector<std::size_t> floor(n);
        std::vector<bool> right(n);
        for (std::size_t c = 0; c < n; ++c) {
            right[c] = right_aligned(c);
            floor[c] = std::min(w[c], min_text_width);
        }
        while (total > max_width) {
            std::size_t widest = n;
            for (std::size_t c = 0; c < n; ++c)
                if (!right[c] && w[c] > floor[c] && (widest == n || w[c] > w[widest])) widest = c;
            if (widest == n) break;  // nothing left to shrink: the table stays wide
            --w[widest];
            --total;
        }
        return w;
    }

    /// The table as text: header, a rule of dashes, the rows; lines end with '\n' and carry no
    /// trailing spaces.
    std::string render(std::size_t max_width = 100) const {
        const auto w = widths(max_width);
        const std::size_t n = columns_.size();
        std::vector<bool> right(n);
        for (std::size_t c = 0; c < n; ++c) right[c] = right_aligned(c);
        std::string out;
        auto line = [&](auto cell_of) {
            std::string l;
            for (std::size_t c = 0; c < n; ++c) {
                if (c) l.append(gap, ' ');
                const std::string cell = ellipsize_middle(cell_of(c), w[c]);
                const std::size_t pad = w[c] - display_width(cell);
                if (right[c]) l.append(pad, ' ');
                l += cell;
                if (!right[c]) l.append(pad, ' ');
            }
            while (!l.empty() && l.back() == ' ') l.pop_back();
            out += l;
            out += '\n';
        };
        line([&](std::size_t c) -> std::string_view { return columns_[c].header; });
        line([&](std::size_t c) { return std::string(w[c], '-'); });
        for (const auto& r : rows_) line([&](std::size_t c) -> std::string_view { return r[c]; });
        return out;
    }

    /// Spaces between columns.
    static constexpr std::size_t gap = 2;

  private:
    std::vector<table_column> columns_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace roofline::report
