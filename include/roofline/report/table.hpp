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

/// The layout of a text table gathered one row at a time: the column widths and alignments
/// `text_table` renders with. A table too long to hold renders in two passes over its rows:
/// `add` each, then print `head` and the `line` of each.
class table_layout {
  public:
    explicit table_layout(std::vector<table_column> columns) : columns_(std::move(columns)) {
        const std::size_t n = columns_.size();
        natural_.assign(n, 0);
        numeric_.assign(n, true);
        filled_.assign(n, false);
        for (std::size_t c = 0; c < n; ++c) natural_[c] = display_width(columns_[c].header);
    }

    /// Takes one row's cells into the layout (as many as columns; `text_table::add_row` pads).
    void add(const std::vector<std::string>& cells) {
        for (std::size_t c = 0; c < columns_.size() && c < cells.size(); ++c) {
            natural_[c] = std::max(natural_[c], display_width(cells[c]));
            if (!detail::looks_numeric(cells[c])) numeric_[c] = false;
            if (!cells[c].empty()) filled_[c] = true;
        }
    }

    const std::vector<table_column>& columns() const { return columns_; }

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
        return numeric_[c] && filled_[c];
    }

    /// Column widths after fitting `max_width` (0 = no limit): natural widths, then the widest
    /// left-aligned column loses one column at a time until the table fits or every text column
    /// is down to `min_text_width` (or its natural width, if smaller).
    std::vector<std::size_t> widths(std::size_t max_width = 100,
                                    std::size_t min_text_width = 12) const {
        const std::size_t n = columns_.size();
        std::vector<std::size_t> w = natural_;
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

    /// Fixes the widths and alignments for `line` and `head` (after every row was added).
    void fit(std::size_t max_width = 100) {
        fitted_ = widths(max_width);
        right_.assign(columns_.size(), false);
        for (std::size_t c = 0; c < columns_.size(); ++c) right_[c] = right_aligned(c);
    }

    /// One row as text, ending with '\n', without trailing spaces (after `fit`).
    template <class CellOf>
    std::string line_of(CellOf cell_of) const {
        std::string l;
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            if (c) l.append(gap, ' ');
            const std::string cell = ellipsize_middle(cell_of(c), fitted_[c]);
            const std::size_t pad = fitted_[c] - display_width(cell);
            if (right_[c]) l.append(pad, ' ');
            l += cell;
            if (!right_[c]) l.append(pad, ' ');
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        l += '\n';
        return l;
    }
    std::string line(const std::vector<std::string>& cells) const {
        return line_of([&](std::size_t c) -> std::string_view {
            return c < cells.size() ? std::string_view(cells[c]) : std::string_view();
        });
    }
    /// The header line and the rule of dashes under it (after `fit`).
    std::string head() const {
        return line_of([&](std::size_t c) -> std::string_view { return columns_[c].header; }) +
               line_of([&](std::size_t c) { return std::string(fitted_[c], '-'); });
    }

    /// Spaces between columns.
    static constexpr std::size_t gap = 2;

  private:
    std::vector<table_column> columns_;
    std::vector<std::size_t> natural_;    // widest cell or header
    std::vector<bool> numeric_, filled_;  // every cell reads as a number; some cell is not empty
    std::vector<std::size_t> fitted_;
    std::vector<bool> right_;
};

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

    /// The layout of these rows (table_layout).
    table_layout layout() const {
        table_layout l(columns_);
        for (const auto& r : rows_) l.add(r);
        return l;
    }

    /// The alignment column `c` resolves to (automatic -> left or right from its cells).
    bool right_aligned(std::size_t c) const { return layout().right_aligned(c); }

    /// Column widths after fitting `max_width` (table_layout::widths).
    std::vector<std::size_t> widths(std::size_t max_width = 100,
                                    std::size_t min_text_width = 12) const {
        return layout().widths(max_width, min_text_width);
    }

    /// The table as text: header, a rule of dashes, the rows; lines end with '\n' and carry no
    /// trailing spaces.
    std::string render(std::size_t max_width = 100) const {
        auto l = layout();
        l.fit(max_width);
        std::string out = l.head();
        for (const auto& r : rows_) out += l.line(r);
        return out;
    }

    /// Spaces between columns.
    static constexpr std::size_t gap = table_layout::gap;

  private:
    std::vector<table_column> columns_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace roofline::report
