#pragma once
// Measured serving runs in aiconfigurator's silicon CSV columns (the file NVIDIA publishes with
// aiconfigurator, ../shared/samples/aiconfigurator/silicon_sample.csv): one row per run of a
// model on a system with a backend, aggregated or disaggregated, with its layout, lengths and
// the measured TTFT and TPOT in milliseconds. Users can write their own runs in these columns.
//
// Columns read (by name; others are ignored): id, backend, model_path, system, precision, mode
// (agg | disagg), isl, osl, gemm_quant_mode, moe_quant_mode, batch_size, tp_size, pp_size,
// attention_dp_size, moe_tp_size, moe_ep_size, prefill_/decode_ {batch_size, num_workers,
// tp_size, pp_size, attention_dp_size, moe_tp_size, moe_ep_size}, silicon_ttft_ms,
// silicon_tpot_ms; concurrency from a `concurrency` column, else `silicon_concurrency=N` in
// silicon_data_source, else `_cN_` in the id, else batch size x attention DP (x decode workers).
// Layout semantics (aiconfigurator): tp_size is the attention TP of one attention-DP rank, the
// instance spans tp x dp x pp GPUs and the MoE runs moe_tp x moe_ep = tp x dp.

#include <algorithm>  // std::find
#include <cctype>    // std::isdigit, std::tolower
#include <cstddef>   // std::ptrdiff_t
#include <cmath>     // std::isfinite, std::floor, std::fabs
#include <cstdio>    // std::snprintf
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <tuple>     // std::tuple
#include <utility>   // std::pair
#include <string>    // std::string
#include <unordered_map>  // std::unordered_map
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/input.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

/// The layout columns of one pool (aggregated: the instance).
struct measured_layout {
    int tp = 1, pp = 1, dp = 1, moe_tp = 1, moe_ep = 1;
    double batch = 0;  ///< batch_size column (0: absent); per attention-DP rank (aggregated)
    int workers = 0;   ///< num_workers column (0: absent)
    /// True when attention_dp_size was empty and dp was inferred as moe_tp x moe_ep / tp: the
    /// MoE spans more GPUs than the attention TP, so the rest are attention-DP ranks (NVIDIA's
    /// vLLM rows of Qwen3-235B write tp 1, moe_tp 2 with no attention DP; read as TP1 on one
    /// GPU they did not fit, and their TPOT falls with moe_tp as a 2- or 4-GPU instance's does).
    bool dp_inferred = false;
    /// As the planner names it: {tp, ep, dp, pp}, the MoE TP implied (tp dp / ep).
    parallel_layout parallel() const { return {tp, moe_ep, dp, pp}; }
};

/// One measured run.
struct measured_serving_run {
    std::size_t line = 0;  ///< 1-based line in the file
    std::string id, backend, model_path, system, precision, mode, gemm_quant, moe_quant;
    double isl = 0, osl = 0, concurrency = 0;
    bool disaggregated = false;
    measured_layout agg, prefill, decode;
    double ttft_s = 0, tpot_s = 0;  ///< measured
    /// The measured values as the file wrote them (ms): `ttft_s` x 1e3 can differ in the last
    /// digit, and a file's own numbers are repeated as written (`measured_ms`).
    double ttft_ms_as_read = 0, tpot_ms_as_read = 0;
    /// Speculative decoding (`spec_decoding` column): "" when off or not recorded ("none" reads
    /// as ""), else the method as written ("mtp", "eagle", "draft", ...).
    std::string spec_decoding;
    int draft_tokens = 0;  ///< `draft_tokens`: tokens proposed per step (k); 0 when not given
    std::optional<double> acceptance_rate;  ///< `acceptance_rate` per drafted token, in [0, 1)
    std::size_t facts_applied = 0;  ///< cells a `serving_run_facts` file gave this run
};

/// A measured time in ms for output: the file's value as written where it still is the run's
/// (`as_read_ms` x 1e-3 == `seconds`), else `seconds` x 1e3 (a run built or changed in code).
inline double measured_ms(double seconds, double as_read_ms) { return as_read_ms * 1e-3 == seconds ? as_read_ms : seconds * 1e3; }

/// Facts about runs that their own file lacks (worker counts, the real layout, speculative
/// decoding), keyed by run id: a CSV with an `id` column, any of the run columns read by
/// `read_serving_runs` (same names) and optionally `source` (free text: where the facts come
/// from). A non-empty cell replaces the run's cell of that column; an empty cell changes
/// nothing. The measured columns (silicon_ttft_ms, silicon_tpot_ms) cannot be given.
struct serving_run_facts {
    std::string file;
    /// id -> column -> text.
    std::unordered_map<std::string, std::unordered_map<std::string, std::string>> cells;
    std::unordered_map<std::string, std::string> sources;  ///< id -> `source` cell
};

/// Reads a facts file. Throws `parse_error` naming the file, line and column for a missing `id`
/// column, an empty or repeated id, a column that is not a run column, or a measured column.
serving_run_facts read_serving_run_facts(const std::string& path);

/// The longest TTFT and TPOT a measured run may hold (seconds): 27.8 h and 16.7 min. Beyond
/// them a cell is corrupt or in the wrong unit, not a serving run (NVIDIA's 5,221 runs reach
/// 462 s and 0.56 s), and it would pull a fit.
inline constexpr double max_measured_ttft_s = 1e5, max_measured_tpot_s = 1e3;

/// Reads every run of `path`. Throws `parse_error` naming the file, line and column for a
/// missing column, an unreadable number, a mode other than agg/disagg, a row with more or fewer
/// cells than the header names, an id given twice or empty (where the file has an id column), a
/// TP or PP size of 0, a measured TTFT or TPOT beyond `max_measured_ttft_s` or
/// `max_measured_tpot_s`, and a concurrency in silicon_data_source that is not 1 to 1e9
/// requests. An attention-DP, MoE TP or MoE EP size of
/// 0, and an empty degree cell, read as 1 (aiconfigurator writes 0 and leaves cells empty for
/// "not used"), except an empty attention_dp_size where moe_tp x moe_ep exceeds tp x 1 and is a
/// multiple of tp: that DP is moe_tp x moe_ep / tp (`measured_layout::dp_inferred`). A layout column the file (and the facts) lack altogether reads as 1 for every
/// run of the mode that uses it, and `assumed` (when given) gets a line saying so. With `facts`,
/// a run whose id it lists reads those cells from it instead (their errors name the facts
/// file's cell).
std::vector<measured_serving_run> read_serving_runs(const std::string& path, const serving_run_facts* facts = nullptr,
                                                    std::vector<std::string>* assumed = nullptr);

}  // namespace roofline

#if ROOFLINE_BODIES_IO

namespace roofline {
namespace detail::serving_csv {

inline std::optional<double> number(const std::string& s) {
    // Decimal only: std::stod would read "0x10" as 16.
    if (s.empty() || s.find_first_of("xX") != std::string::npos) return std::nullopt;
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (...) {
        return std::nullopt;
    }
    if (used != s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

/// A count read from a cell, as text: whole numbers in full up to 1e15, others in %g (a cell
/// may hold 1e66, which no integer type holds).
inline std::string count_text(double v) {
    char buf[32];
    if (std::fabs(v) < 1e15 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// Concurrency written in the source text ("silicon_concurrency=128") or in the id ("_c128_").
inline std::optional<double> concurrency_in_text(const std::string& source, const std::string& id) {
    const std::string key = "silicon_concurrency=";
    if (auto at = source.find(key); at != std::string::npos) {
        // The value runs to the next ';' or space: "1.5", "-8" or "abc" are not a count, and
        // read as NaN (an error for the caller) rather than as a prefix or the id's _cN_.
        std::size_t end = at + key.size();
        while (end < source.size() && source[end] != ';' && !std::isspace(static_cast<unsigned char>(source[end]))) ++end;
        const auto v = number(source.substr(at + key.size(), end - at - key.size()));
        return v && *v == std::floor(*v) ? *v : std::numeric_limits<double>::quiet_NaN();
    }
    for (std::size_t at = id.find("_c"); at != std::string::npos; at = id.find("_c", at + 1)) {
        std::size_t end = at + 2;
        while (end < id.size() && std::isdigit(static_cast<unsigned char>(id[end]))) ++end;
        if (end > at + 2 && (end == id.size() || id[end] == '_')) return number(id.substr(at + 2, end - at - 2));
    }
    return std::nullopt;
}

/// The columns `read_serving_runs` reads (a facts file may give any of them but the measured).
inline bool is_run_column(const std::string& c) {
    static const char* const plain[] = {"id", "backend", "model_path", "system", "precision", "mode", "isl", "osl",
                                        "gemm_quant_mode", "moe_quant_mode", "concurrency", "silicon_data_source",
                                        "spec_decoding", "draft_tokens", "acceptance_rate"};
    static const char* const pooled[] = {"batch_size", "num_workers", "tp_size", "pp_size", "attention_dp_size",
                                         "moe_tp_size", "moe_ep_size"};
    for (const char* p : plain)
        if (c == p) return true;
    for (const char* prefix : {"", "prefill_", "decode_"})
        for (const char* p : pooled)
            if (c == std::string(prefix) + p && (*prefix || std::string(p) != "num_workers")) return true;
    return false;
}

}  // namespace detail::serving_csv

ROOFLINE_INLINE serving_run_facts read_serving_run_facts(const std::string& path) {
    io::input_file in(path);
    io::csv_reader reader(in);
    std::vector<std::string> fields, header;
    std::string raw;
    if (!reader.next(header, raw)) throw parse_error(path, "line 1", "", "empty file: no header");
    serving_run_facts f;
    f.file = path;
    for (const char* measured : {"silicon_ttft_ms", "silicon_tpot_ms"})
        if (std::find(header.begin(), header.end(), measured) != header.end())
            throw parse_error(path, "line 1", measured,
                              "a facts file cannot change what was measured (a runs file given as --run-facts?)");
    std::size_t id_col = header.size(), source_col = header.size();
    for (std::size_t i = 0; i < header.size(); ++i) {
        const auto& c = header[i];
        if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(i), c) != header.begin() + static_cast<std::ptrdiff_t>(i))
            throw parse_error(path, "line 1", c, "column named twice");
        if (c == "id") id_col = i;
        else if (c == "source") source_col = i;
        else if (!detail::serving_csv::is_run_column(c))
            throw parse_error(path, "line 1", c, "not a column of the runs file (facts replace run cells by name)");
    }
    if (id_col == header.size()) throw parse_error(path, "line 1", "id", "missing column (facts are keyed by run id)");
    while (reader.next(fields, raw)) {
        if (fields.size() == 1 && fields[0].empty()) continue;
        const std::string place = reader.place();
        if (fields.size() != header.size())
            throw parse_error(path, place, "", std::to_string(fields.size()) + " cells, the header names " +
                                                   std::to_string(header.size()));
        const std::string id = id_col < fields.size() ? fields[id_col] : std::string();
        if (id.empty()) throw parse_error(path, place, "id", "empty id");
        if (f.cells.count(id)) throw parse_error(path, place, "id", "\"" + id + "\" is listed twice");
        auto& row = f.cells[id];
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i)
            if (i != id_col && i != source_col && !fields[i].empty()) row[header[i]] = fields[i];
        if (source_col < fields.size()) f.sources[id] = fields[source_col];
    }
    return f;
}

ROOFLINE_INLINE std::vector<measured_serving_run> read_serving_runs(const std::string& path, const serving_run_facts* facts,
                                                                    std::vector<std::string>* assumed) {
    using detail::serving_csv::number;
    io::input_file in(path);
    io::csv_reader reader(in);
    std::vector<std::string> fields, header;
    std::string raw;
    if (!reader.next(header, raw)) throw parse_error(path, "line 1", "", "empty file: no header");
    std::unordered_map<std::string, std::size_t> col;
    for (std::size_t i = 0; i < header.size(); ++i) {
        // A column this reader uses, named twice: which cell counts would be a guess.
        const auto& c = header[i];
        if (!col.emplace(c, i).second &&
            (detail::serving_csv::is_run_column(c) || c == "silicon_ttft_ms" || c == "silicon_tpot_ms"))
            throw parse_error(path, "line 1", c, "column named twice");
    }
    for (const char* need : {"model_path", "system", "backend", "mode", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms"})
        if (!col.count(need))
            throw parse_error(path, "line 1", need, "missing column (not an aiconfigurator silicon CSV?)");
    std::vector<measured_serving_run> out;
    std::unordered_map<std::string, std::size_t> id_line;  // id -> line it was first given on
    while (reader.next(fields, raw)) {
        if (fields.size() == 1 && fields[0].empty()) continue;
        const std::string place = reader.place();
        if (fields.size() != header.size())
            throw parse_error(path, place, "", std::to_string(fields.size()) + " cells, the header names " +
                                                   std::to_string(header.size()));
        const auto own = [&](const std::string& name) -> std::string {
            auto it = col.find(name);
            return it == col.end() || it->second >= fields.size() ? std::string() : fields[it->second];
        };
        // The run's facts, if the facts file lists its id: their cells replace the file's.
        const std::unordered_map<std::string, std::string>* fact = nullptr;
        if (facts)
            if (auto it = facts->cells.find(own("id")); it != facts->cells.end()) fact = &it->second;
        const auto from_facts = [&](const std::string& name) -> const std::string* {
            if (!fact) return nullptr;
            auto it = fact->find(name);
            return it == fact->end() ? nullptr : &it->second;
        };
        const auto text = [&](const std::string& name) -> std::string {
            if (const auto* v = from_facts(name)) return *v;
            return own(name);
        };
        // Where a cell's value came from, for errors: this file's line, or the facts file's id.
        const auto where = [&](const std::string& name) -> std::pair<std::string, std::string> {
            if (from_facts(name)) return {facts->file, "id " + own("id")};
            return {path, place};
        };
        const auto need_number = [&](const std::string& name) {
            auto v = number(text(name));
            if (!v || !(*v > 0)) {
                const auto [file, at] = where(name);
                throw parse_error(file, at, name, "\"" + text(name) + "\" is not a positive number");
            }
            return *v;
        };
        // A degree: TP and PP are used by every run of their pool (0 is no size); attention DP,
        // MoE TP and MoE EP at 0 are aiconfigurator's "not used" (1).
        const auto degree = [&](const std::string& name, bool zero_is_unused) {
            const std::string t = text(name);
            auto v = number(t);
            if (!t.empty() && (!v || *v < 0 || *v != std::floor(*v) || *v > 100000)) {
                const auto [file, at] = where(name);
                throw parse_error(file, at, name, "\"" + t + "\" is not a whole number of GPUs");
            }
            if (v && *v == 0 && !zero_is_unused) {
                const auto [file, at] = where(name);
                throw parse_error(file, at, name, "0 GPUs: a TP or PP size is at least 1 (leave the cell empty where not used)");
            }
            return v && *v >= 1 ? static_cast<int>(*v) : 1;
        };
        const auto layout = [&](const std::string& prefix, const std::string& batch_col) {
            measured_layout l;
            l.tp = degree(prefix + "tp_size", false);
            l.pp = degree(prefix + "pp_size", false);
            l.dp = degree(prefix + "attention_dp_size", true);
            l.moe_tp = degree(prefix + "moe_tp_size", true);
            l.moe_ep = degree(prefix + "moe_ep_size", true);
            if (const int moe = l.moe_tp * l.moe_ep;
                text(prefix + "attention_dp_size").empty() && moe > l.tp * l.dp && moe % l.tp == 0) {
                l.dp = moe / l.tp;
                l.dp_inferred = true;
            }
            if (const std::string t = text(batch_col); !t.empty()) {
                const auto v = number(t);
                if (!v || *v < 0 || *v > 1e9) {
                    const auto [file, at] = where(batch_col);
                    throw parse_error(file, at, batch_col, "\"" + t + "\" is not a batch size (a number from 0 to 1e9)");
                }
                l.batch = *v;
            }
            if (!prefix.empty())
                if (const std::string t = text(prefix + "num_workers"); !t.empty()) {
                    const auto v = number(t);
                    if (!v || *v < 0 || *v != std::floor(*v) || *v > 100000) {
                        const auto [file, at] = where(prefix + "num_workers");
                        throw parse_error(file, at, prefix + "num_workers", "\"" + t + "\" is not a whole number of workers");
                    }
                    l.workers = static_cast<int>(*v);
                }
            return l;
        };
        measured_serving_run r;
        r.line = reader.line_number();
        r.id = text("id");
        if (r.id.empty() && col.count("id")) throw parse_error(path, place, "id", "empty id (runs are keyed by it)");
        if (!r.id.empty()) {
            if (auto [it, fresh] = id_line.emplace(r.id, r.line); !fresh)
                throw parse_error(path, place, "id", "\"" + r.id + "\" is given twice (first on line " + std::to_string(it->second) +
                                                     "): facts and predictions are keyed by run id");
        }
        r.backend = text("backend");
        // A backend names fit groups ("agg/BACKEND", "decode/agg/BACKEND"), whose levels are
        // split at '/': "trt/llm" would make a level "agg/trt" of its own.
        if (r.backend.find('/') != std::string::npos) {
            const auto [file, at] = where("backend");
            throw parse_error(file, at, "backend",
                              "\"" + r.backend + "\" holds a '/', which separates the levels of fit groups");
        }
        r.model_path = text("model_path");
        r.system = text("system");
        r.precision = text("precision");
        r.mode = text("mode");
        r.gemm_quant = text("gemm_quant_mode");
        r.moe_quant = text("moe_quant_mode");
        if (r.mode != "agg" && r.mode != "disagg") {
            const auto [file, at] = where("mode");
            throw parse_error(file, at, "mode", "\"" + r.mode + "\" is neither agg nor disagg");
        }
        r.disaggregated = r.mode == "disagg";
        r.isl = need_number("isl");
        r.osl = need_number("osl");
        r.ttft_ms_as_read = need_number("silicon_ttft_ms");
        r.tpot_ms_as_read = need_number("silicon_tpot_ms");
        r.ttft_s = r.ttft_ms_as_read * 1e-3;
        r.tpot_s = r.tpot_ms_as_read * 1e-3;
        // A measurement beyond these is a unit slip or a corrupt cell, and would pull the fit.
        for (const auto& [name, seconds, limit] :
             {std::tuple<const char*, double, double>{"silicon_ttft_ms", r.ttft_s, max_measured_ttft_s},
              {"silicon_tpot_ms", r.tpot_s, max_measured_tpot_s}})
            if (seconds > limit) {
                const auto [file, at] = where(name);
                throw parse_error(file, at, name, "\"" + text(name) + "\" ms is beyond " +
                                                      std::to_string(static_cast<long long>(limit * 1e3)) +
                                                      " ms: not a serving measurement (seconds written as ms?)");
            }
        r.agg = layout("", "batch_size");
        r.prefill = layout("prefill_", "prefill_batch_size");
        r.decode = layout("decode_", "decode_batch_size");
        if (const std::string t = text("concurrency"); !t.empty()) {
            const auto c = number(t);
            if (!c || *c < 1 || *c > 1e9) {
                const auto [file, at] = where("concurrency");
                throw parse_error(file, at, "concurrency", "\"" + t + "\" is not a number of requests (1 to 1e9)");
            }
            r.concurrency = *c;
        } else if (auto t = detail::serving_csv::concurrency_in_text(text("silicon_data_source"), r.id)) {
            if (!(*t >= 1 && *t <= 1e9)) {
                const auto [file, at] = where("silicon_data_source");
                throw parse_error(file, at, "silicon_data_source",
                                  (std::isnan(*t) ? std::string("silicon_concurrency= is not a whole number")
                                                  : "concurrency " + detail::serving_csv::count_text(*t)) +
                                      " (silicon_concurrency= or _cN_ in the id): expected a number of requests (1 to 1e9)");
            }
            r.concurrency = *t;
        }
        // batch_size is per attention-DP rank where the file gives the DP; where the DP was
        // inferred, NVIDIA's rows give the whole instance's (19 of 19 such rows: batch_size equals
        // the silicon_concurrency).
        else if (!r.disaggregated && r.agg.batch >= 1) r.concurrency = r.agg.batch * (r.agg.dp_inferred ? 1 : r.agg.dp);
        else if (r.disaggregated && r.decode.batch >= 1)
            r.concurrency = r.decode.batch * r.decode.dp * std::max(1, r.decode.workers);
        if (!(r.concurrency >= 1))
            throw parse_error(path, place, "concurrency", "no concurrency: no concurrency column, silicon_concurrency= "
                              "in silicon_data_source, _cN_ in the id, or batch size");
        r.spec_decoding = text("spec_decoding");
        {
            std::string lower;
            for (char ch : r.spec_decoding) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            // "none" as Python writes it ("None") and the other ways of saying off.
            for (const char* off : {"none", "off", "false", "no", "0", "disabled", "null"})
                if (lower == off) r.spec_decoding.clear();
        }
        if (const std::string t = text("draft_tokens"); !t.empty()) {
            auto v = number(t);
            if (!v || *v < 1 || *v != std::floor(*v) || *v > 64) {
                const auto [file, at] = where("draft_tokens");
                throw parse_error(file, at, "draft_tokens", "\"" + t + "\" is not a whole number of tokens from 1 to 64");
            }
            r.draft_tokens = static_cast<int>(*v);
        }
        if (const std::string t = text("acceptance_rate"); !t.empty()) {
            auto v = number(t);
            if (!v || *v < 0 || *v >= 1) {
                const auto [file, at] = where("acceptance_rate");
                throw parse_error(file, at, "acceptance_rate", "\"" + t + "\" is not a rate in [0, 1)");
            }
            r.acceptance_rate = *v;
        }
        if ((r.draft_tokens > 0 || r.acceptance_rate) && r.spec_decoding.empty()) {
            const auto [file, at] = where(r.draft_tokens > 0 ? "draft_tokens" : "acceptance_rate");
            throw parse_error(file, at, "spec_decoding", "draft tokens or an acceptance rate without a spec_decoding method");
        }
        if (fact) r.facts_applied = fact->size();
        out.push_back(std::move(r));
    }
    // Layout columns absent from the file and the facts: every run of the mode read as 1.
    if (assumed) {
        const auto given = [&](const std::string& name) {
            if (col.count(name)) return true;
            if (facts)
                for (const auto& [id, cells] : facts->cells)
                    if (cells.count(name)) return true;
            return false;
        };
        const bool any_agg = std::any_of(out.begin(), out.end(), [](const measured_serving_run& r) { return !r.disaggregated; });
        const bool any_disagg = std::any_of(out.begin(), out.end(), [](const measured_serving_run& r) { return r.disaggregated; });
        for (const char* prefix : {"", "prefill_", "decode_"}) {
            if (*prefix ? !any_disagg : !any_agg) continue;
            std::string missing;
            for (const char* c : {"tp_size", "pp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size"})
                if (!given(prefix + std::string(c))) missing += (missing.empty() ? "" : ", ") + (prefix + std::string(c));
            if (!missing.empty())
                assumed->push_back(path + ": no column " + missing + ": read as 1 for every " +
                                   (*prefix ? "disaggregated" : "aggregated") + " run" +
                                   (missing.find(prefix + std::string("attention_dp_size")) != std::string::npos
                                        ? std::string(" (attention DP: inferred instead where the MoE columns span more "
                                                      "GPUs than the TP; the inferred: line counts those)")
                                        : std::string()));
        }
    }
    return out;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
