#pragma once
// Which phase of an inference step a GPU kernel belongs to, from its name.
//
// Kernel names are the only thing every trace format shares, and they say a lot: cuBLAS GEMMs
// are `nvjet_*` or `sm90_xmma_gemm_*`, NCCL kernels `ncclDevKernel_*`, FlashAttention
// `flash_fwd_*`. An ordered list of regular expressions maps names to phases; the first match
// decides, and a name nothing matches is `other`. The built-in list lives in
// data/kernel_rules.json, compiled in by io/kernel_rules_json.hpp; users put their own rules in front
// of it with `--rules FILE`. Classification is by unique name, cached.

#include <algorithm>      // std::min, std::max
#include <array>          // std::array
#include <cstddef>        // std::size_t
#include <optional>       // std::optional
#include <regex>          // std::regex
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move
#include <vector>         // std::vector

#include "roofline/core/error.hpp"

namespace roofline {

/// Phase of an inference step a kernel belongs to.
enum class kernel_phase {
    gemm,           ///< dense GEMM/GEMV (cuBLAS nvjet/xmma, CUTLASS, DeepGEMM dense)
    moe_gemm,       ///< grouped/batched expert GEMMs (fused_moe, grouped_mm, DeepGEMM m_grouped)
    attention,      ///< attention kernels (FlashAttention, FlashInfer, FlashMLA, cuDNN SDPA, ...)
    communication,  ///< collectives and all-to-all (NCCL, custom all-reduce, DeepEP)
    memcpy,         ///< copies issued by cudaMemcpy* (not copy kernels)
    memset,         ///< cudaMemset*
    norm,           ///< RMSNorm, LayerNorm
    activation,     ///< SiLU, GELU, SwiGLU, ...
    elementwise,    ///< point-wise, reductions, copies, casts, rotary, routing, sort/top-k
    sampling,       ///< token sampling (top-k/top-p, argmax)
    other,          ///< nothing matched
};

inline constexpr std::size_t kernel_phase_count = 11;
inline constexpr std::array<kernel_phase, kernel_phase_count> all_kernel_phases = {
    kernel_phase::gemm,       kernel_phase::moe_gemm,   kernel_phase::attention,
    kernel_phase::communication, kernel_phase::memcpy, kernel_phase::memset,
    kernel_phase::norm,       kernel_phase::activation, kernel_phase::elementwise,
    kernel_phase::sampling,   kernel_phase::other};

/// The phase's name as used in rule files and JSON output ("moe_gemm").
constexpr std::string_view to_string(kernel_phase p) {
    constexpr std::array<std::string_view, kernel_phase_count> names = {
        "gemm", "moe_gemm", "attention", "communication", "memcpy", "memset",
        "norm", "activation", "elementwise", "sampling", "other"};
    return names[static_cast<std::size_t>(p)];
}

/// The phase named `s` (exact, lower case), or nullopt.
constexpr std::optional<kernel_phase> parse_kernel_phase(std::string_view s) {
    for (auto p : all_kernel_phases)
        if (to_string(p) == s) return p;
    return std::nullopt;
}

/// The first repetition count (`{n}`, `{n,m}`) above 1000 or back-reference above 999 in the
/// ECMAScript `pattern`, as text, or "" when there is none. libstdc++'s regex compiler reads such
/// numbers into a `long` without an overflow check (undefined behaviour, found by fuzzing:
/// `x{77777777777777777777`), and large counts copy the repeated automaton that many times, so
/// rules refuse them before compiling.
inline std::string oversized_regex_count(std::string_view pattern) {
    auto digits_at = [&](std::size_t j) {
        std::size_t k = j;
        while (k < pattern.size() && pattern[k] >= '0' && pattern[k] <= '9') ++k;
        return pattern.substr(j, k - j);
    };
    auto too_big = [](std::string_view d, std::size_t limit) {
        if (d.size() > 6) return true;
        std::size_t v = 0;
        for (char ch : d) v = v * 10 + static_cast<std::size_t>(ch - '0');
        return v > limit;
    };
    bool in_class = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char ch = pattern[i];
        if (ch == '\\') {
            const auto d = digits_at(i + 1);
            if (!in_class && too_big(d, 999)) return std::string("\\").append(d);
            i += d.empty() ? 1 : d.size();
            continue;
        }
        if (in_class) {
            if (ch == ']') in_class = false;
            continue;
        }
        if (ch == '[') {
            in_class = true;
            if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;  // "[]...]": ']' first is literal
            continue;
        }
        if (ch == '{') {
            const auto lo = digits_at(i + 1);
            if (too_big(lo, 1000)) return std::string("{").append(lo);
            const std::size_t after = i + 1 + lo.size();
            if (after < pattern.size() && pattern[after] == ',') {
                const auto hi = digits_at(after + 1);
                if (too_big(hi, 1000)) return std::string("{").append(lo).append(",").append(hi);
            }
        }
    }
    return "";
}

/// Limits on a rule's regular expression beyond `oversized_regex_count`. libstdc++ compiles a
/// pattern by recursive descent, one stack frame per term (under ASan a pattern of 60,000 letters
/// overflows the stack, one of 10,000 compiles), and matches by depth-first search, one frame per
/// automaton state it walks, so both the text and the automaton it expands to are bounded. The
/// built-in rules are at most 307 bytes and about 307 states.
inline constexpr std::size_t max_rule_pattern_bytes = 1024;
inline constexpr std::size_t max_rule_automaton_states = 4096;
inline constexpr std::size_t max_rule_group_depth = 32;

/// Why the ECMAScript `pattern` is too large to compile safely (see `max_rule_pattern_bytes`), or
/// "" when it is not. The automaton size is an estimate: one state per atom, a group's states
/// copied once per repetition its count allows (`(ab){3,5}` is 5 copies), `*`/`+`/`?` doubling.
inline std::string oversized_regex(std::string_view pattern) {
    if (pattern.size() > max_rule_pattern_bytes)
        return std::to_string(pattern.size()) + " bytes long (up to " + std::to_string(max_rule_pattern_bytes) +
               " are accepted)";
    constexpr std::size_t cap = std::size_t{1} << 40;
    const auto sat = [](std::size_t a, std::size_t b) { return (b != 0 && a > cap / b) ? cap : a * b; };
    struct group { std::size_t total = 0, last = 0; };
    std::vector<group> stack(1);
    bool in_class = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char ch = pattern[i];
        group& g = stack.back();
        const auto atom = [&](std::size_t n) { g.total = std::min(cap, g.total + n); g.last = n; };
        const auto repeat = [&](std::size_t copies) {
            g.total = std::min(cap, g.total - g.last + sat(g.last, copies));
            g.last = sat(g.last, copies);
        };
        if (in_class) {
            if (ch == '\\') ++i;
            else if (ch == ']') in_class = false;
            continue;
        }
        if (ch == '\\') { ++i; atom(1); continue; }
        if (ch == '[') {
            in_class = true;
            if (i + 1 < pattern.size() && pattern[i + 1] == '^') ++i;
            if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;
            atom(1);
            continue;
        }
        if (ch == '(') {
            if (stack.size() > max_rule_group_depth)
                return "nested more than " + std::to_string(max_rule_group_depth) + " groups deep";
            stack.emplace_back();
            continue;
        }
        if (ch == ')' && stack.size() > 1) {
            const std::size_t inner = stack.back().total + 2;
            stack.pop_back();
            group& outer = stack.back();
            outer.total = std::min(cap, outer.total + inner);
            outer.last = inner;
            continue;
        }
        if (ch == '*' || ch == '+' || ch == '?') { repeat(2); continue; }
        if (ch == '{') {
            std::size_t k = i + 1, lo = 0, hi = 0;
            while (k < pattern.size() && pattern[k] >= '0' && pattern[k] <= '9') lo = std::min(cap, lo * 10 + (pattern[k++] - '0'));
            hi = lo;
            if (k < pattern.size() && pattern[k] == ',') {
                ++k;
                hi = lo + 1;
                if (k < pattern.size() && pattern[k] >= '0' && pattern[k] <= '9') hi = 0;
                while (k < pattern.size() && pattern[k] >= '0' && pattern[k] <= '9') hi = std::min(cap, hi * 10 + (pattern[k++] - '0'));
            }
            if (k < pattern.size() && pattern[k] == '}') {
                repeat(std::max<std::size_t>({lo, hi, 1}) + 1);
                i = k;
                continue;
            }
        }
        if (ch == '|') { g.total = std::min(cap, g.total + 1); g.last = 0; continue; }
        atom(1);
    }
    std::size_t states = 0;
    for (const group& g : stack) states = std::min(cap, states + g.total);
    if (states > max_rule_automaton_states)
        return "an automaton of about " + (states >= cap ? std::string("2^40") : std::to_string(states)) +
               " states (up to " + std::to_string(max_rule_automaton_states) + " are accepted; a count inside a "
               "count multiplies)";
    return "";
}

/// `pattern` with its ASCII letters lower-cased, except the one after a backslash (`\W`,
/// `\B` keep their meaning), so that searching it case-sensitively in a lower-cased
/// name finds what searching `pattern` case-insensitively in the name finds: libstdc++'s
/// case-insensitive matcher looks up the locale's ctype facet for every character it compares,
/// several times slower on the 1-4 KB demangled names of CUTLASS kernels. nullopt where the
/// two are not the same: a POSIX class (`[[:upper:]]`), or an escape that spells a character by
/// its code (`\x4A`, `\u004A`, `\cJ`: it may be an upper-case letter).
inline std::optional<std::string> lowered_pattern(std::string_view pattern) {
    if (pattern.find("[:") != std::string_view::npos) return std::nullopt;
    std::string out(pattern);
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '\\') {
            if (i + 1 < out.size() && (out[i + 1] == 'x' || out[i + 1] == 'u' || out[i + 1] == 'c')) return std::nullopt;
            ++i;
            continue;
        }
        if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] - 'A' + 'a');
    }
    return out;
}

/// One rule: kernels whose name matches `pattern` belong to `phase`.
struct kernel_rule {
    std::string pattern;  ///< ECMAScript regular expression, searched case-insensitively
    kernel_phase phase = kernel_phase::other;
    std::string note;     ///< what it is for (examples of names)
    std::string origin;   ///< file the rule came from, for messages
    std::regex regex;     ///< compiled `pattern`: `lowered_pattern(pattern)` when there is one, else icase
    bool lowered = false;  ///< `regex` is searched in the lower-cased name

    /// Compiles `pattern`. Throws `usage_error` naming `origin` for a bad expression, or for a
    /// repetition count above 1000 or back-reference above 999 (`oversized_regex_count`).
    kernel_rule(std::string pattern_, kernel_phase phase_, std::string note_ = {},
                std::string origin_ = {})
        : pattern(std::move(pattern_)), phase(phase_), note(std::move(note_)), origin(std::move(origin_)) {
        if (const auto big = oversized_regex_count(pattern); !big.empty())
            throw usage_error((origin.empty() ? std::string("kernel rule") : origin) + ": pattern \"" + pattern +
                              "\" has a count too large (" + big +
                              "; repetitions up to 1000 and back-references up to 999 are accepted)");
        if (const auto why = oversized_regex(pattern); !why.empty())
            throw usage_error((origin.empty() ? std::string("kernel rule") : origin) + ": pattern \"" +
                              pattern.substr(0, 80) + (pattern.size() > 80 ? "..." : "") + "\" is too large: " + why);
        if (const auto low = lowered_pattern(pattern)) {
            try {
                regex = std::regex(*low, std::regex::ECMAScript | std::regex::optimize);
                lowered = true;
                return;
            } catch (const std::regex_error&) {
                // Lower-casing can break a range ("[A-_]" becomes "[a-_]"): the pattern as written.
            }
        }
        try {
            regex = std::regex(pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
        } catch (const std::regex_error& e) {
            throw usage_error((origin.empty() ? std::string("kernel rule") : origin) + ": pattern \"" +
                              pattern + "\" is not a valid regular expression (" + e.what() + ")");
        }
    }
};

/// An ordered rule list with a per-name cache. Not thread-safe (the cache is mutable).
class kernel_rules {
public:
    kernel_rules() = default;
    explicit kernel_rules(std::vector<kernel_rule> rules) : rules_(std::move(rules)) {}

    /// Puts `first` in front of these rules (user rules override built-in ones).
    void prepend(const kernel_rules& first) {
        std::vector<kernel_rule> merged = first.rules_;
        merged.insert(merged.end(), rules_.begin(), rules_.end());
        rules_ = std::move(merged);
        cache_.clear();
    }
    /// Appends one rule at the end (lowest priority).
    void add(kernel_rule rule) {
        rules_.push_back(std::move(rule));
        cache_.clear();
    }

    /// Phase of the kernel called `name` (first matching rule; `other` if none).
    kernel_phase classify(std::string_view name) const {
        const auto it = cache_.find(std::string(name));
        if (it != cache_.end()) return it->second;
        const kernel_phase p = match(name);
        cache_.emplace(std::string(name), p);
        return p;
    }
    /// Bytes of a name the rules look at: the first 4 KiB. Demangled template names reach a few
    /// KiB and say what they are up front ("void cutlass::device_kernel<...GroupProblemShape");
    /// std::regex matches by recursion, one stack frame per character a `\w*` consumes, so a
    /// 100 KB name overflowed the stack (found by the bad-input corpus), and its time grows
    /// with the length.
    static constexpr std::size_t max_name_bytes = 4096;

    /// Index of the first rule matching `name` (its first `max_name_bytes`), or nullopt (no
    /// cache; for explaining).
    std::optional<std::size_t> matching_rule(std::string_view name) const {
        name = name.substr(0, max_name_bytes);
        std::string low(name);
        for (char& c : low)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        for (std::size_t i = 0; i < rules_.size(); ++i) {
            const std::string_view subject = rules_[i].lowered ? std::string_view(low) : name;
            if (std::regex_search(subject.begin(), subject.end(), rules_[i].regex)) return i;
        }
        return std::nullopt;
    }

    const std::vector<kernel_rule>& rules() const { return rules_; }
    bool empty() const { return rules_.empty(); }

private:
    kernel_phase match(std::string_view name) const {
        const auto i = matching_rule(name);
        return i ? rules_[*i].phase : kernel_phase::other;
    }
    std::vector<kernel_rule> rules_;
    mutable std::unordered_map<std::string, kernel_phase> cache_;
};

}  // namespace roofline
