#pragma once
// The serving efficiency table (data/serving/aiconfigurator_fit.json): per group ("agg/trtllm",
// "decode/agg", ...) the coefficients of the estimate's TPOT and TTFT terms
// (analysis/estimate.hpp), fitted to measured runs by `roofline estimate --from-csv FILE
// --fit-out TABLE` (analysis/serving_fit.hpp).
//
//   {"made_by": "...", "tpot_terms": [...], "ttft_terms": [...],
//    "groups": {"agg/trtllm": {"tpot": [11 numbers], "ttft": [11 numbers], "runs": N,
//                              "heldout": {"ttft": {"p10": x, "p50": x, "p90": x, "runs": N}}}, ...}}
//
// "heldout" (optional; tables since 2026-12-06) holds the group's `heldout_ratio_band`s: the
// percentiles of measured / predicted over its runs, each predicted with its model held out.

#include <algorithm>  // std::all_of, std::find
#include <array>     // std::array
#include <fstream>   // std::ofstream
#include <initializer_list>  // std::initializer_list
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/serving_terms.hpp"

namespace roofline {

/// The largest coefficient a table may hold: the physical terms' are efficiencies near 1 and the
/// counts' seconds per layer, sequence or token; a value beyond this is a corrupt table, and
/// would make TTFT or TPOT overflow to infinity.
inline constexpr double max_efficiency_coefficient = 1e6;

/// The largest measured / predicted ratio a held-out band may hold: 8 in 10 runs measuring
/// within 1,000x of a prediction says nothing; such a band is a corrupt table.
inline constexpr double max_heldout_ratio = 1e3;

/// Reads a table. A group's "tpot" list holds `serving_features::tpot_terms` coefficients, the
/// first `before_expert_tpot_terms` of them (a table of before the per-expert term joined, the
/// last 0: the same predictions), or the `legacy_tpot_terms` of a table written before the
/// decode step was split by phase (read as `tpot_from_legacy`: the same predictions); its "ttft" list the `serving_features::ttft_terms`
/// coefficients, or the first 8 or 10 of them (`legacy_ttft_terms`: a table of before, the
/// others 0: the same predictions). A group's optional "heldout" object gives its bands (`heldout_ratio_band`; absent
/// in older tables: no band). Throws `parse_error` naming the file and the group for a missing or
/// wrong-length coefficient list, a coefficient outside [0, `max_efficiency_coefficient`], a list
/// of zeros only, a group's "runs" that is not a count, a key a group or band does not have, a
/// malformed band (percentiles not in (0, `max_heldout_ratio`] and in order, runs not a count
/// >= 1), "tpot_terms" or "ttft_terms" (optional) other than the terms the lists are
/// read as (`tpot_term_names`, `ttft_term_names`, or a legacy table's), and for a file that is
/// not such a table.
std::map<std::string, serving_efficiency> read_serving_efficiency(const std::string& path);

/// Writes `table` with `made_by` (the command that made it) and the runs per group.
void write_serving_efficiency(const std::string& path, const std::map<std::string, serving_efficiency>& table,
                              const std::map<std::string, std::size_t>& runs, const std::string& made_by);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>

namespace roofline {
ROOFLINE_INLINE std::map<std::string, serving_efficiency> read_serving_efficiency(const std::string& path) {
    const auto j = detail::hf::read_json_file(path);
    if (!j.is_object() || !j.contains("groups") || !j["groups"].is_object())
        throw parse_error(path, "", "groups", "not a serving efficiency table (no \"groups\" object)");
    // The term names, where the table gives them, must be the terms its lists are read as: a
    // table of other terms (renamed, reordered, another length) would be read silently wrong.
    // `now`'s first `size` names (all of them: size 0) or `legacy`'s; returns how many the table
    // names (0: it names none), which every group's list must then hold.
    const auto check_names = [&](const char* field, const auto& now, const auto& legacy,
                                 std::initializer_list<std::size_t> sizes) -> std::size_t {
        if (!j.contains(field)) return 0;
        const auto& n = j[field];
        const auto same = [&](const auto& names, std::size_t size) {
            if (size == 0) size = names.size();
            if (!n.is_array() || n.size() != size) return false;
            for (std::size_t i = 0; i < size; ++i)
                if (!n[i].is_string() || n[i].template get<std::string>() != names[i]) return false;
            return true;
        };
        bool known = same(now, 0) || same(legacy, 0);
        for (std::size_t size : sizes) known = known || same(now, size);
        if (!known) {
            std::string want;
            for (const char* name : now) want += (want.empty() ? "" : ", ") + std::string(name);
            throw parse_error(path, "", field, "not the terms this version reads (expected " + want + ")");
        }
        return n.size();
    };
    static constexpr std::array<const char*, legacy_tpot_terms> legacy_tpot_names = {
        "decode_step_per_token_s", "prefill_interleaved_per_token_s", "per_layer_s", "per_moe_layer_s", "per_sequence_s",
        "constant_s"};
    const std::size_t tpot_named = check_names("tpot_terms", tpot_term_names, legacy_tpot_names, {before_expert_tpot_terms});
    const std::size_t ttft_named = check_names("ttft_terms", ttft_term_names, ttft_term_names, {legacy_ttft_terms[0], legacy_ttft_terms[1]});
    std::map<std::string, serving_efficiency> out;
    for (const auto& item : j["groups"].items()) {
        // Plain references, not a structured binding: clang before 16 cannot capture those.
        const std::string& key = item.key();
        const auto& g = item.value();
        serving_efficiency e;
        e.source = path + " " + key;
        // A misspelt key would drop what it holds in silence (a band, a list read as absent).
        if (!g.is_object()) throw parse_error(path, "groups." + key, "", "expected an object");
        for (const auto& field : g.items())
            if (field.key() != "tpot" && field.key() != "ttft" && field.key() != "runs" && field.key() != "heldout")
                throw parse_error(path, "groups." + key, field.key(), "not a key of a group (tpot, ttft, runs, heldout)");
        // `arr`'s first `count` coefficients (all of them: 0) from the list `name` of that length.
        const auto read = [&](const char* name, auto& arr, std::size_t count = 0) {
            if (count == 0) count = arr.size();
            if (!g.contains(name) || !g[name].is_array() || g[name].size() != count)
                throw parse_error(path, "groups." + key, name, "expected " + std::to_string(count) + " numbers");
            for (std::size_t i = 0; i < count; ++i) {
                if (!g[name][i].is_number() || !(g[name][i].template get<double>() >= 0) ||
                    !(g[name][i].template get<double>() <= max_efficiency_coefficient))
                    throw parse_error(path, "groups." + key, name + ("[" + std::to_string(i) + "]"),
                                      "coefficients must be numbers in [0, 1e6]");
                arr[i] = g[name][i].template get<double>();
            }
        };
        // A list of another length than the terms the table names would be read as other terms.
        for (const auto& [name, named] : {std::pair{"tpot", tpot_named}, std::pair{"ttft", ttft_named}})
            if (named > 0 && g.contains(name) && g[name].is_array() && g[name].size() != named)
                throw parse_error(path, "groups." + key, name,
                                  "holds " + std::to_string(g[name].size()) + " coefficients where the table names " +
                                      std::to_string(named) + " terms (\"" + name + "_terms\")");
        // A table of before the decode step was split by phase: its TPOT coefficients as today's;
        // one of before the per-expert term joined (10 coefficients): today's first 10, [10] 0.
        const std::size_t tpot_listed = g.contains("tpot") && g["tpot"].is_array() ? g["tpot"].size() : 0;
        if (tpot_listed == legacy_tpot_terms) {
            std::array<double, legacy_tpot_terms> legacy{};
            read("tpot", legacy);
            e.tpot = tpot_from_legacy(legacy);
        } else {
            if (tpot_listed != e.tpot.size() && tpot_listed != before_expert_tpot_terms)
                throw parse_error(path, "groups." + key, "tpot",
                                  "expected " + std::to_string(e.tpot.size()) + " numbers (or " +
                                      std::to_string(before_expert_tpot_terms) + " or " + std::to_string(legacy_tpot_terms) +
                                      ", a table of before)");
            e.tpot = {};
            read("tpot", e.tpot, tpot_listed);
        }
        // A table of before the balanced queue and the queue's chunk steps joined (8 TTFT
        // coefficients), or before the prefill pool's queue joined (10): today's first 8 or 10,
        // the others 0.
        const std::size_t ttft_listed = g.contains("ttft") && g["ttft"].is_array() ? g["ttft"].size() : 0;
        const bool of_before =
            std::find(legacy_ttft_terms.begin(), legacy_ttft_terms.end(), ttft_listed) != legacy_ttft_terms.end();
        if (!of_before && ttft_listed != e.ttft.size())
            throw parse_error(path, "groups." + key, "ttft",
                              "expected " + std::to_string(e.ttft.size()) + " numbers (or " +
                                  std::to_string(legacy_ttft_terms[0]) + " or " + std::to_string(legacy_ttft_terms[1]) +
                                  ", a table of before)");
        e.ttft = {};
        read("ttft", e.ttft, ttft_listed);
        // All coefficients 0 would predict a TTFT or TPOT of 0 s (and an infinite rate).
        const auto not_all_zero = [&](const char* name, const auto& arr) {
            if (std::all_of(arr.begin(), arr.end(), [](double v) { return v == 0; }))
                throw parse_error(path, "groups." + key, name, "every coefficient is 0: it would predict 0 s");
        };
        not_all_zero("tpot", e.tpot);
        not_all_zero("ttft", e.ttft);
        if (g.contains("runs") && !g["runs"].is_number_unsigned())
            throw parse_error(path, "groups." + key, "runs", "expected a count of runs (an integer >= 0)");
        if (g.contains("heldout")) {
            const auto& h = g["heldout"];
            if (!h.is_object()) throw parse_error(path, "groups." + key, "heldout", "expected an object of bands");
            for (const auto& field : h.items())
                if (field.key() != "ttft" && field.key() != "tpot")
                    throw parse_error(path, "groups." + key + ".heldout", field.key(), "not a band (ttft, tpot)");
            const auto band = [&](const char* name) -> std::optional<heldout_ratio_band> {
                if (!h.contains(name)) return std::nullopt;
                const auto& b = h[name];
                const std::string where = "groups." + key + ".heldout";
                const auto num = [&](const char* field) {
                    if (!b.is_object() || !b.contains(field) || !b[field].is_number() || !(b[field].template get<double>() > 0) ||
                        !(b[field].template get<double>() <= max_heldout_ratio))
                        throw parse_error(path, where, std::string(name) + "." + field, "expected a ratio in (0, 1000]");
                    return b[field].template get<double>();
                };
                if (b.is_object())
                    for (const auto& field : b.items())
                        if (field.key() != "p10" && field.key() != "p50" && field.key() != "p90" && field.key() != "runs")
                            throw parse_error(path, where, std::string(name) + "." + field.key(),
                                              "not a key of a band (p10, p50, p90, runs)");
                heldout_ratio_band r;
                r.p10 = num("p10");
                r.p50 = num("p50");
                r.p90 = num("p90");
                if (!(r.p10 <= r.p50 && r.p50 <= r.p90))
                    throw parse_error(path, where, name, "percentiles out of order (p10 <= p50 <= p90)");
                if (!b.contains("runs") || !b["runs"].is_number_unsigned() || b["runs"].template get<std::size_t>() == 0)
                    throw parse_error(path, where, std::string(name) + ".runs", "expected a count of runs >= 1");
                r.runs = b["runs"].template get<std::size_t>();
                return r;
            };
            e.ttft_band = band("ttft");
            e.tpot_band = band("tpot");
        }
        out[key] = e;
    }
    return out;
}

ROOFLINE_INLINE void write_serving_efficiency(const std::string& path, const std::map<std::string, serving_efficiency>& table,
                                              const std::map<std::string, std::size_t>& runs, const std::string& made_by) {
    nlohmann::json j;
    j["made_by"] = made_by;
    j["tpot_terms"] = tpot_term_names;
    j["ttft_terms"] = ttft_term_names;
    j["groups"] = nlohmann::json::object();
    for (const auto& [key, e] : table) {
        auto it = runs.find(key);
        auto& g = j["groups"][key];
        g = {{"tpot", e.tpot}, {"ttft", e.ttft}, {"runs", it == runs.end() ? 0 : it->second}};
        const auto band = [](const heldout_ratio_band& b) {
            return nlohmann::json{{"p10", b.p10}, {"p50", b.p50}, {"p90", b.p90}, {"runs", b.runs}};
        };
        if (e.ttft_band) g["heldout"]["ttft"] = band(*e.ttft_band);
        if (e.tpot_band) g["heldout"]["tpot"] = band(*e.tpot_band);
    }
    std::ofstream f(path);
    if (!f) throw usage_error("cannot write " + path);
    f << j.dump(1) << "\n";
    f.flush();
    if (!f) throw usage_error("cannot write " + path + " (the write failed: disk full?)");
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
