#pragma once
// A small CSV splitter (RFC 4180): fields separated by a delimiter, optionally enclosed in
// double quotes, a doubled quote ("") inside a quoted field standing for one quote, and quoted
// fields that may hold the delimiter or a line break. Kernel names hold commas
// ("void gemm<float, 128>(...)"), so every tool that writes them quotes them.
//
// Unquoted fields are trimmed of blanks, which also reads nvidia-smi's ", " separator.

#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/io/detail/text.hpp"
#include "roofline/io/input.hpp"

namespace roofline::io {

namespace detail {

/// Splits the fields of `text` from offset `pos` (the start of a field) onto the end of `out`.
/// Returns `std::string_view::npos` when the record is complete, else the offset where the
/// quoted field left open at the end of `text` starts (that partial field is the last one
/// pushed). Resuming from a field start, not from the record start, keeps a record that spans
/// many lines linear in its length: csv_reader re-splits only the field that was open.
inline std::size_t split_csv_from(std::string_view text, std::size_t pos, std::vector<std::string>& out,
                                  char delimiter) {
    std::string field;
    std::size_t i = pos;
    const std::size_t n = text.size();
    for (;;) {
        field.clear();
        const std::size_t field_start = i;
        // Leading blanks before a quote are not part of the field.
        std::size_t j = i;
        while (j < n && (text[j] == ' ' || text[j] == '\t') && text[j] != delimiter) ++j;
        if (j < n && text[j] == '"') {
            i = j + 1;
            bool closed = false;
            while (i < n) {
                if (text[i] == '"') {
                    if (i + 1 < n && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    closed = true;
                    ++i;
                    break;
                }
                field += text[i++];
            }
            if (!closed) {
                out.push_back(field);
                return field_start;
            }
            // Anything between the closing quote and the delimiter is kept (lenient).
            while (i < n && text[i] != delimiter) {
                if (!detail::is_space(text[i])) field += text[i];
                ++i;
            }
            out.push_back(field);
        } else {
            std::size_t k = i;
            while (k < n && text[k] != delimiter) ++k;
            out.emplace_back(detail::trim(text.substr(i, k - i)));
            i = k;
        }
        if (i >= n) return std::string_view::npos;
        ++i;  // past the delimiter
        if (i == n) {
            out.emplace_back();  // a trailing delimiter ends with an empty field
            return std::string_view::npos;
        }
    }
}

/// True when `text`, read from offset `from` inside an open quoted field, holds the quote that
/// closes it (a lone `"`; a doubled `""` is an escaped quote).
inline bool closes_quoted_field(std::string_view text, std::size_t from) {
    for (std::size_t i = from; i < text.size(); ++i) {
        if (text[i] != '"') continue;
        if (i + 1 < text.size() && text[i + 1] == '"') {
            ++i;
            continue;
        }
        return true;
    }
    return false;
}

}  // namespace detail

/// Splits one record into `out` (cleared first). Returns false when a quoted field is still
/// open at the end of `text` (the record continues on the next line).
inline bool split_csv(std::string_view text, std::vector<std::string>& out, char delimiter = ',') {
    out.clear();
    return detail::split_csv_from(text, 0, out, delimiter) == std::string_view::npos;
}

/// Reads CSV records from a file, joining quoted fields that span lines.
class csv_reader {
public:
    explicit csv_reader(input_file& in, char delimiter = ',') : lines_(in), delimiter_(delimiter) {}

    /// Next record into `fields`; `raw` gets the record's text. False at the end of the file.
    /// A quoted field left open at the end of the file is an error (truncated file).
    bool next(std::vector<std::string>& fields, std::string& raw) {
        if (!lines_.next(raw)) return false;
        first_line_ = lines_.line_number();
        // A UTF-8 byte order mark before the first record (Excel's "CSV UTF-8") is not part of
        // the first column's name.
        if (first_line_ == 1 && raw.rfind("\xEF\xBB\xBF", 0) == 0) raw.erase(0, 3);
        fields.clear();
        std::size_t open = detail::split_csv_from(raw, 0, fields, delimiter_);
        // A quoted field spans lines: append lines, scanning only the new text for its closing
        // quote, and re-split from that field's start once it closes (linear, not quadratic:
        // an unbalanced quote in a 100 MB file must not take hours).
        std::size_t scanned = raw.size();
        std::string more;
        while (open != std::string_view::npos) {
            if (!lines_.next(more))
                throw parse_error(lines_.path(), "line " + std::to_string(first_line_), "",
                                  "quoted field not closed before the end of the file");
            raw += '\n';
            raw += more;
            if (detail::closes_quoted_field(raw, scanned)) {
                fields.pop_back();
                open = detail::split_csv_from(raw, open, fields, delimiter_);
            }
            scanned = raw.size();
        }
        return true;
    }
    /// 1-based line where the record last returned starts.
    std::size_t line_number() const { return first_line_; }
    std::string place() const { return "line " + std::to_string(first_line_); }
    /// True when the record last returned ended with a newline (false: truncated last line).
    bool complete() const { return lines_.last_had_newline(); }

private:
    line_reader lines_;
    char delimiter_;
    std::size_t first_line_ = 0;
};

}  // namespace roofline::io
