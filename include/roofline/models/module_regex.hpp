#pragma once
// The regular expressions of quantisation configs: compressed-tensors writes module patterns as
// "re:<Python regex>" (`ignore`, `targets`: `re:.*mlp\.(gate|up|gate_up|down)_proj.*`), matched
// against Hugging Face module names. `module_regex` compiles the part of Python's `re` syntax
// such patterns use into a Pike VM (Thompson NFA, every thread advanced in lock step): linear in
// the name's length, no backtracking, and no <regex> in every translation unit that includes
// models/ (one translation unit including every core/ and models/ header, g++ 12 -O2, both in the
// same minutes on 2026-12-06: 2.18-2.65 s with std::regex here, 1.60-1.73 s with this; README
// "Compile time").
//
// Supported: literals; `.` (any character but a newline); `\d \w \s \D \W \S`; escaped
// punctuation (`\.`); `\n \t \r \f \v`; `\b \B`; `\A \Z`; classes `[a-z_]`, `[^...]` with ranges
// and the escapes above; groups `( )`, `(?: )`, `(?P<name> )`; `|`; `* + ?` and `{m} {m,} {,n}
// {m,n}` (m, n <= 1000), each optionally lazy (`*?`: the same yes/no answer); `^ $`. A `{` that
// starts no valid count is a literal, as in Python. Anything else (back-references, lookaround,
// inline flags, possessive quantifiers, Unicode classes) is refused with an error naming the
// pattern, the offset and the construct: never a silent mismatch.

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/error.hpp"

namespace roofline {

namespace detail {

/// A compiled "re:" module pattern (without the prefix). `search(name)` is Python's
/// `re.search(pattern, name) is not None` (std::regex_search with ECMAScript on this subset).
/// Errors: `roofline::error` naming the pattern, the byte offset and the unsupported construct,
/// or an unbalanced parenthesis or bracket, or a count above 1,000 or a program above 100,000
/// instructions.
class module_regex {
public:
    explicit module_regex(std::string_view pattern) : pattern_(pattern) {
        std::size_t at = 0;
        const std::uint32_t root = parse_alternation(at);
        if (at != pattern_.size()) fail(at, "unbalanced ')'");
        emit(root);
        prog_.push_back({op::match, 0, 0, 0});
    }

    /// True when the pattern matches some substring of `text` (anchors apply to `text`'s ends).
    bool search(std::string_view text) const {
        std::vector<std::uint32_t> now, next, stack;
        std::vector<std::size_t> seen(prog_.size(), static_cast<std::size_t>(-1));
        for (std::size_t pos = 0;; ++pos) {
            // A new thread starts at every position (unanchored search).
            if (add(now, stack, seen, 0, pos, text)) return true;
            if (pos == text.size()) return false;
            next.clear();
            const auto c = static_cast<unsigned char>(text[pos]);
            for (const std::uint32_t pc : now) {
                const inst& in = prog_[pc];
                const bool step = (in.o == op::byte && in.c == c) || (in.o == op::any && c != '\n') ||
                                  (in.o == op::cls && in_class(classes_[in.x], c));
                if (step && add(next, stack, seen, pc + 1, pos + 1, text)) return true;
            }
            now.swap(next);
        }
    }

private:
    enum class op : std::uint8_t { byte, any, cls, split, jump, bol, eol, word_boundary, not_word_boundary, match };
    struct inst {
        op o;
        unsigned char c;  // byte
        std::uint32_t x;  // cls: class index; split, jump: target
        std::uint32_t y;  // split: second target
    };
    using byte_set = std::array<std::uint64_t, 4>;
    enum class node_kind : std::uint8_t { empty, byte, any, cls, bol, eol, wb, nwb, concat, alt, repeat };
    struct node {
        node_kind kind = node_kind::empty;
        unsigned char c = 0;
        std::uint32_t cls = 0;
        int min = 0, max = 0;  // repeat; max -1: unbounded
        std::vector<std::uint32_t> kids;
    };

    static constexpr int max_count = 1000;
    static constexpr std::size_t max_program = 100000;

    std::string pattern_;
    std::vector<node> nodes_;
    std::vector<byte_set> classes_;
    std::vector<inst> prog_;

    [[noreturn]] void fail(std::size_t at, const std::string& what) const {
        throw error("regular expression \"" + pattern_ + "\": " + what + " at offset " + std::to_string(at) +
                    " (module patterns support literals, . [] () (?:) | * + ? {m,n} ^ $ \\d \\w \\s \\b)");
    }

    static bool in_class(const byte_set& s, unsigned char c) { return (s[c >> 6] >> (c & 63)) & 1U; }
    static void set(byte_set& s, unsigned char c) { s[c >> 6] |= std::uint64_t{1} << (c & 63); }
    static bool is_word(unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
    static bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

    std::uint32_t make(node n) {
        nodes_.push_back(std::move(n));
        return static_cast<std::uint32_t>(nodes_.size() - 1);
    }
    std::uint32_t make_class(const byte_set& s) {
        classes_.push_back(s);
        node n;
        n.kind = node_kind::cls;
        n.cls = static_cast<std::uint32_t>(classes_.size() - 1);
        return make(std::move(n));
    }
    std::uint32_t make_byte(unsigned char c) {
        node n;
        n.kind = node_kind::byte;
        n.c = c;
        return make(std::move(n));
    }

    /// `\d \w \s` and their negations into `s`; false for any other letter.
    static bool shorthand(char e, byte_set& s) {
        const char lower = static_cast<char>(e | 0x20);
        if (lower != 'd' && lower != 'w' && lower != 's') return false;
        byte_set t{};
        for (int c = 0; c < 256; ++c) {
            const auto u = static_cast<unsigned char>(c);
            const bool in = lower == 'd' ? (u >= '0' && u <= '9') : lower == 'w' ? is_word(u) : is_space(u);
            if (in != (e >= 'A' && e <= 'Z')) set(t, u);
        }
        for (std::size_t i = 0; i < 4; ++i) s[i] |= t[i];
        return true;
    }

    /// The byte an escape `\e` stands for inside or outside a class; -1 when it is no literal.
    static int escaped_literal(char e) {
        switch (e) {
            case 'n': return '\n';
            case 't': return '\t';
            case 'r': return '\r';
            case 'f': return '\f';
            case 'v': return '\v';
            default: break;
        }
        const auto u = static_cast<unsigned char>(e);
        if (is_word(u) || u >= 0x80) return -1;  // letters and digits are escapes with meanings
        return u;
    }

    std::uint32_t parse_alternation(std::size_t& at) {
        node alt;
        alt.kind = node_kind::alt;
        alt.kids.push_back(parse_concat(at));
        while (at < pattern_.size() && pattern_[at] == '|') {
            ++at;
            alt.kids.push_back(parse_concat(at));
        }
        return alt.kids.size() == 1 ? alt.kids[0] : make(std::move(alt));
    }

    std::uint32_t parse_concat(std::size_t& at) {
        node cat;
        cat.kind = node_kind::concat;
        while (at < pattern_.size() && pattern_[at] != '|' && pattern_[at] != ')') {
            std::uint32_t atom = parse_atom(at);
            int lo = 0, hi = 0;
            const std::size_t q = at;
            if (quantifier(at, lo, hi)) {
                if (at < pattern_.size() && pattern_[at] == '+') fail(at, "possessive quantifier");
                if (at < pattern_.size() && pattern_[at] == '?') ++at;  // lazy: the same yes/no answer
                std::size_t again = at;
                int ignored_lo = 0, ignored_hi = 0;
                if (quantifier(again, ignored_lo, ignored_hi)) fail(at, "multiple repeat");
                const node_kind k = nodes_[atom].kind;
                if (k == node_kind::bol || k == node_kind::eol || k == node_kind::wb || k == node_kind::nwb)
                    fail(q, "quantifier after an anchor");
                node r;
                r.kind = node_kind::repeat;
                r.min = lo;
                r.max = hi;
                r.kids.push_back(atom);
                atom = make(std::move(r));
            }
            cat.kids.push_back(atom);
        }
        if (cat.kids.size() == 1) return cat.kids[0];
        if (cat.kids.empty()) return make(node{});
        return make(std::move(cat));
    }

    /// A quantifier at `at` (`*`, `+`, `?` or a count) into [lo, hi] (hi -1: unbounded), `at`
    /// moved past it; false, `at` unmoved, when there is none.
    bool quantifier(std::size_t& at, int& lo, int& hi) {
        if (at >= pattern_.size()) return false;
        const char ch = pattern_[at];
        if (ch == '*') lo = 0, hi = -1;
        else if (ch == '+') lo = 1, hi = -1;
        else if (ch == '?') lo = 0, hi = 1;
        else return ch == '{' && parse_count(at, lo, hi);
        ++at;
        return true;
    }

    /// `{m}`, `{m,}`, `{,n}`, `{m,n}` at `at` (which holds '{'); false, `at` unmoved, when the
    /// brace starts no count (then it is a literal, as in Python).
    bool parse_count(std::size_t& at, int& lo, int& hi) {
        std::size_t p = at + 1;
        auto number = [&](int& v) {
            const std::size_t start = p;
            long long x = 0;
            while (p < pattern_.size() && pattern_[p] >= '0' && pattern_[p] <= '9') {
                x = x * 10 + (pattern_[p] - '0');
                if (x > max_count) fail(start, "repetition count above " + std::to_string(max_count));
                ++p;
            }
            v = static_cast<int>(x);
            return p > start;
        };
        const bool has_lo = number(lo);
        if (!has_lo) lo = 0;
        if (p < pattern_.size() && pattern_[p] == '}') {
            if (!has_lo) return false;
            hi = lo;
        } else if (p < pattern_.size() && pattern_[p] == ',') {
            ++p;
            if (!number(hi)) hi = -1;
            if (p >= pattern_.size() || pattern_[p] != '}') return false;
            if (hi >= 0 && hi < lo) fail(at, "repetition {m,n} with n < m");
        } else {
            return false;
        }
        at = p + 1;
        return true;
    }

    std::uint32_t parse_atom(std::size_t& at) {
        const std::size_t start = at;
        const char ch = pattern_[at++];
        node n;
        switch (ch) {
            case '.': n.kind = node_kind::any; return make(std::move(n));
            case '^': n.kind = node_kind::bol; return make(std::move(n));
            case '$': n.kind = node_kind::eol; return make(std::move(n));
            case '*':
            case '+':
            case '?': fail(start, "nothing to repeat");
            case '{': {
                std::size_t p = start;
                int lo = 0, hi = 0;
                if (parse_count(p, lo, hi)) fail(start, "nothing to repeat");
                return make_byte('{');
            }
            case '[': return parse_class(at);
            case '(': {
                if (at < pattern_.size() && pattern_[at] == '?') {
                    if (pattern_.compare(at, 2, "?:") == 0) {
                        at += 2;
                    } else if (pattern_.compare(at, 3, "?P<") == 0) {
                        const auto close = pattern_.find('>', at);
                        if (close == std::string::npos) fail(start, "unterminated group name");
                        at = close + 1;
                    } else {
                        fail(start, "lookaround, inline flag or named reference \"(" +
                                        pattern_.substr(at, 2) + "\"");
                    }
                }
                const std::uint32_t inner = parse_alternation(at);
                if (at >= pattern_.size() || pattern_[at] != ')') fail(start, "unbalanced '('");
                ++at;
                return inner;
            }
            case '\\': {
                if (at >= pattern_.size()) fail(start, "trailing backslash");
                const char e = pattern_[at++];
                byte_set s{};
                if (shorthand(e, s)) return make_class(s);
                if (e == 'b' || e == 'B') {
                    n.kind = e == 'b' ? node_kind::wb : node_kind::nwb;
                    return make(std::move(n));
                }
                if (e == 'A' || e == 'Z') {
                    n.kind = e == 'A' ? node_kind::bol : node_kind::eol;
                    return make(std::move(n));
                }
                const int lit = escaped_literal(e);
                if (lit < 0) fail(start, std::string("escape \"\\") + e + "\"");
                return make_byte(static_cast<unsigned char>(lit));
            }
            default: return make_byte(static_cast<unsigned char>(ch));
        }
    }

    /// A class after its '['.
    std::uint32_t parse_class(std::size_t& at) {
        const std::size_t start = at - 1;
        byte_set s{};
        bool negate = false;
        if (at < pattern_.size() && pattern_[at] == '^') negate = true, ++at;
        bool first = true;
        // One member: a byte (>= 0) or a shorthand class merged into `s` (-1).
        auto member = [&](std::size_t& p) -> int {
            const char c = pattern_[p++];
            if (c != '\\') return static_cast<unsigned char>(c);
            if (p >= pattern_.size()) fail(start, "unterminated class");
            const char e = pattern_[p++];
            if (shorthand(e, s)) return -1;
            if (e == 'b') return '\b';
            const int lit = escaped_literal(e);
            if (lit < 0) fail(p - 2, std::string("escape \"\\") + e + "\" in a class");
            return lit;
        };
        while (true) {
            if (at >= pattern_.size()) fail(start, "unterminated class '['");
            if (pattern_[at] == ']' && !first) {
                ++at;
                break;
            }
            first = false;
            const int lo = member(at);
            if (lo >= 0 && at + 1 < pattern_.size() && pattern_[at] == '-' && pattern_[at + 1] != ']') {
                ++at;
                const int hi = member(at);
                if (hi < 0) fail(at, "range ending in a class shorthand");
                if (hi < lo) fail(at, "range out of order");
                for (int c = lo; c <= hi; ++c) set(s, static_cast<unsigned char>(c));
            } else if (lo >= 0) {
                set(s, static_cast<unsigned char>(lo));
            }
        }
        if (negate)
            for (auto& w : s) w = ~w;
        return make_class(s);
    }

    std::uint32_t here() const { return static_cast<std::uint32_t>(prog_.size()); }
    void push(inst i) {
        if (prog_.size() >= max_program)
            fail(0, "compiled program above " + std::to_string(max_program) + " instructions");
        prog_.push_back(i);
    }

    void emit(std::uint32_t id) {
        switch (nodes_[id].kind) {
            case node_kind::empty: return;
            case node_kind::byte: push({op::byte, nodes_[id].c, 0, 0}); return;
            case node_kind::any: push({op::any, 0, 0, 0}); return;
            case node_kind::cls: push({op::cls, 0, nodes_[id].cls, 0}); return;
            case node_kind::bol: push({op::bol, 0, 0, 0}); return;
            case node_kind::eol: push({op::eol, 0, 0, 0}); return;
            case node_kind::wb: push({op::word_boundary, 0, 0, 0}); return;
            case node_kind::nwb: push({op::not_word_boundary, 0, 0, 0}); return;
            case node_kind::concat:
                for (std::size_t i = 0; i < nodes_[id].kids.size(); ++i) emit(nodes_[id].kids[i]);
                return;
            case node_kind::alt: {
                std::vector<std::uint32_t> jumps;
                const std::size_t k = nodes_[id].kids.size();
                for (std::size_t i = 0; i < k; ++i) {
                    if (i + 1 < k) {
                        const std::uint32_t split = here();
                        push({op::split, 0, split + 1, 0});
                        emit(nodes_[id].kids[i]);
                        jumps.push_back(here());
                        push({op::jump, 0, 0, 0});
                        prog_[split].y = here();
                    } else {
                        emit(nodes_[id].kids[i]);
                    }
                }
                for (const auto j : jumps) prog_[j].x = here();
                return;
            }
            case node_kind::repeat: {
                const std::uint32_t kid = nodes_[id].kids[0];
                const int lo = nodes_[id].min, hi = nodes_[id].max;
                for (int i = 0; i < lo; ++i) emit(kid);
                if (hi < 0) {
                    const std::uint32_t split = here();
                    push({op::split, 0, split + 1, 0});
                    emit(kid);
                    push({op::jump, 0, split, 0});
                    prog_[split].y = here();
                } else {
                    std::vector<std::uint32_t> splits;
                    for (int i = lo; i < hi; ++i) {
                        splits.push_back(here());
                        push({op::split, 0, here() + 1, 0});
                        emit(kid);
                    }
                    for (const auto s : splits) prog_[s].y = here();
                }
                return;
            }
        }
    }

    /// Adds `pc` and everything reachable from it without consuming a byte at `pos` to `list`;
    /// true when that reaches `match`.
    bool add(std::vector<std::uint32_t>& list, std::vector<std::uint32_t>& stack, std::vector<std::size_t>& seen,
             std::uint32_t pc, std::size_t pos, std::string_view text) const {
        // `seen[p]` is the position `p` was last added at: each pc joins a position's list once.
        stack.clear();
        stack.push_back(pc);
        while (!stack.empty()) {
            const std::uint32_t p = stack.back();
            stack.pop_back();
            if (seen[p] == pos) continue;
            seen[p] = pos;
            const inst& in = prog_[p];
            switch (in.o) {
                case op::match: return true;
                case op::jump: stack.push_back(in.x); break;
                case op::split:
                    stack.push_back(in.y);
                    stack.push_back(in.x);
                    break;
                case op::bol:
                    if (pos == 0) stack.push_back(p + 1);
                    break;
                case op::eol:
                    if (pos == text.size()) stack.push_back(p + 1);
                    break;
                case op::word_boundary:
                case op::not_word_boundary: {
                    const bool before = pos > 0 && is_word(static_cast<unsigned char>(text[pos - 1]));
                    const bool after = pos < text.size() && is_word(static_cast<unsigned char>(text[pos]));
                    if ((before != after) == (in.o == op::word_boundary)) stack.push_back(p + 1);
                    break;
                }
                default: list.push_back(p); break;
            }
        }
        return false;
    }
};

}  // namespace detail

}  // namespace roofline
