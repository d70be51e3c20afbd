#pragma once
// Escaping text for XML-based output (SVG, HTML) and writing reports to files.
//
// Kernel names carry the characters markup reserves (`void gemm<float, 128>(Params&)`), so every
// piece of text that enters an SVG or HTML document goes through `escape_xml`.

#include <fstream>      // std::ofstream
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "roofline/core/error.hpp"

namespace roofline::report {

/// `s` with the five XML special characters replaced by entities (& < > " '), so it can stand
/// in element content and in quoted attribute values of XML, SVG and HTML. Control characters
/// that XML 1.0 forbids (below U+0020 other than tab, LF, CR) become U+FFFD, so the document
/// stays well-formed whatever a trace file contained.
inline std::string escape_xml(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            case '\t':
            case '\n':
            case '\r':
                out += c;
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20u)
                    out += "\uFFFD";
                else
                    out += c;
        }
    }
    return out;
}

/// Writes `text` to `path` (replacing the file). Throws `roofline::error` naming the path
/// when the file cannot be opened or written.
inline void write_text_file(const std::string& path, std::string_view text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw error(path + ": cannot open for writing");
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.close();
    if (!f) throw error(path + ": write failed");
}

}  // namespace roofline::report
