#pragma once
// A minimal well-formedness check for the SVG and HTML the report layer writes: every tag is
// closed in order, attribute quotes are balanced, and every '&' starts an entity. Enough to
// catch unescaped kernel names and broken string building; not a validating XML parser.

#include <string>
#include <string_view>
#include <vector>

namespace roofline::test {

/// Empty when `doc` is well-formed; otherwise what is wrong and the byte where. `html`: treat
/// HTML void elements (meta, br, img, ...) as closed, and skip <!DOCTYPE>.
inline std::string markup_problem(std::string_view doc, bool html = false) {
    std::vector<std::string> open;
    auto is_void = [html](std::string_view n) {
        return html &&
               (n == "meta" || n == "br" || n == "img" || n == "hr" || n == "link" || n == "input");
    };
    auto check_entity = [&](std::size_t i) -> bool {
        std::size_t j = i + 1;
        if (j < doc.size() && doc[j] == '#') ++j;
        const std::size_t start = j;
        while (j < doc.size() &&
               ((doc[j] >= 'a' && doc[j] <= 'z') || (doc[j] >= '0' && doc[j] <= '9')))
            ++j;
        return j > start && j < doc.size() && doc[j] == ';';
    };
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const char c = doc[i];
        if (c == '&') {
            if (!check_entity(i)) return "bare '&' at byte " + std::to_string(i);
            continue;
        }
        if (c == '>') return "bare '>' in text at byte " + std::to_string(i);
        if (c != '<') continue;
        if (doc.substr(i, 4) == "<!--") {
            const auto e = doc.find("-->", i);
            if (e == std::string_view::npos) return "unterminated comment";
            i = e + 2;
            continue;
        }
        if (doc.substr(i, 2) == "<?" || doc.substr(i, 2) == "<!") {
            const auto e = doc.find('>', i);
            if (e == std::string_view::npos) return "unterminated declaration";
            i = e;
            continue;
        }
        const bool closing = i + 1 < doc.size() && doc[i + 1] == '/';
        std::size_t j = i + (closing ? 2 : 1);
        const std::size_t name_start = j;
        while (j < doc.size() && doc[j] != ' ' && doc[j] != '>' && doc[j] != '/' && doc[j] != '\n')
            ++j;
        const std::string name(doc.substr(name_start, j - name_start));
        if (name.empty()) return "empty tag name at byte " + std::to_string(i);
        char quote = 0;
        for (; j < doc.size(); ++j) {
            if (quote) {
                if (doc[j] == quote)
                    quote = 0;
                else if (doc[j] == '<')
                    return "'<' inside an attribute at byte " + std::to_string(j);
                else if (doc[j] == '&' && !check_entity(j))
                    return "bare '&' in an attribute at byte " + std::to_string(j);
            } else if (doc[j] == '"' || doc[j] == '\'') {
                quote = doc[j];
            } else if (doc[j] == '>') {
                break;
            }
        }
        if (j >= doc.size()) return "unterminated tag <" + name + "> at byte " + std::to_string(i);
        const bool self_closing = doc[j - 1] == '/';
        if (closing) {
            if (open.empty() || open.back() != name)
                return "</" + name + "> at byte " + std::to_string(i) + " closes " +
                       (open.empty() ? std::string("nothing") : "<" + open.back() + ">");
            open.pop_back();
        } else if (!self_closing && !is_void(name)) {
            open.push_back(name);
        }
        i = j;
    }
    if (!open.empty()) return "<" + open.back() + "> never closed";
    return {};
}

/// True when `doc` contains "nan" or "inf" as a word (case-insensitive): a number that was not
/// a number leaked into the output.
inline bool has_non_finite_text(std::string_view doc) {
    auto word_char = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    for (std::string_view w : {"nan", "inf"}) {
        for (std::size_t i = 0; i + w.size() <= doc.size(); ++i) {
            bool match = true;
            for (std::size_t k = 0; k < w.size(); ++k)
                if ((doc[i + k] | 0x20) != w[k]) match = false;
            if (!match) continue;
            const bool left = i == 0 || !word_char(doc[i - 1]);
            const bool right = i + w.size() == doc.size() || !word_char(doc[i + w.size()]);
            if (left && right) return true;
        }
    }
    return false;
}

}  // namespace roofline::test
