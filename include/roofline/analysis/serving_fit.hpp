#pragma once
// Fitting serving efficiencies to measured runs, and judging predictions against them.
//
// A prediction is a linear combination of the estimate's terms (models/serving_terms.hpp) with
// non-negative coefficients. `fit_efficiency` chooses the coefficients that minimise the summed
// absolute relative error sum_i |x_i . a / y_i - 1| over runs i by iteratively reweighted least
// squares; each round is a weighted linear least-squares problem in a, made non-negative by
// trying every subset of the terms a fit may use (2^8 for TPOT, 2^10 with a GEMM column per
// backend, 2^10 for TTFT) and keeping the best subset whose solution is >= 0 (exact NNLS at
// this size).
//
// Held-out evaluation (`leave_one_model_out`): for each model, the coefficients are fitted on
// the runs of every other model and applied to its runs, so no published error uses a run's
// own model in its fit. Groups have levels ("agg/trtllm": mode, then backend): a run takes the
// fit of its longest level with at least `min_group_runs` runs left after holding out (else
// the mode's fit over every backend). TPOT may be grouped apart from TTFT (`tpot_group`): a
// decode step is the same work in an aggregated instance and in a disaggregated decode worker,
// so `roofline estimate --from-csv` fits TPOT per "decode/mode" under "decode" across backends
// (held out, that generalises better than per backend: README), where a disaggregated run whose
// decode batch is known borrows the fit of every decode step when its own mode has too few runs.
//
// Runs that speculate at no stated acceptance rate carry their features at every rate of
// `acceptance_grid`; the rate is chosen like a coefficient (`choose_acceptance`: the one whose
// TPOT fit misses those runs least), held out by model as the coefficients are.

#include <algorithm>  // std::sort, std::nth_element
#include <array>      // std::array
#include <cmath>      // std::abs, std::isfinite
#include <cstddef>    // std::size_t
#include <limits>     // std::numeric_limits
#include <map>        // std::map
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include "roofline/analysis/estimate.hpp"

namespace roofline {

/// One run with its estimate's terms and what was measured.
struct fit_sample {
    serving_features features;
    double tpot_s = 0, ttft_s = 0;  ///< measured
    std::string group;              ///< fit group (TTFT; TPOT too unless `tpot_group`), levels by '/': "agg/trtllm"
    /// TPOT's fit group when it differs from `group` ("decode/agg": a decode step is the
    /// same work in an aggregated instance and in a disaggregated decode worker); "" = `group`.
    std::string tpot_group;
    /// What the run's TPOT group splits by (the backend: "trtllm"), or "": within its TPOT group
    /// a split value with enough runs fits its own coefficient of `tpot_split_term` (the
    /// GEMMs), every other coefficient shared (`fit_groups`), under the key "GROUP/VALUE".
    std::string tpot_split;
    std::string model;              ///< the held-out unit
    /// A run that speculates at an assumed acceptance rate: its features at each rate of
    /// `acceptance_grid` (same order), for the fit to choose the rate (`choose_acceptance`);
    /// empty for a run whose rate is known or that does not speculate.
    std::vector<serving_features> features_at;
    /// The group TPOT is fitted in, before the split.
    const std::string& tpot_base_key() const { return tpot_group.empty() ? group : tpot_group; }
    /// The group TPOT is predicted by: the split's key ("decode/agg/trtllm") when split, a table
    /// without it falling back to the group (`group_levels`).
    std::string tpot_key() const { return tpot_split.empty() ? tpot_base_key() : tpot_base_key() + "/" + tpot_split; }
};

/// The TPOT term whose coefficient each split value (`fit_sample::tpot_split`: the backend) of
/// a TPOT group fits apart: the GEMMs (decode_gemm_per_token_s). An engine's GEMM kernels are its
/// own (TensorRT-LLM's, SGLang's and vLLM's for one weight format differ), where the decode
/// step's fixed costs, attention and collectives generalise across engines. Held out model by
/// model on NVIDIA's 5,221 runs (README "The fit"), one GEMM coefficient per backend took
/// aggregated TPOT from 12.9% / 35.5% (median / p90) to 12.5% / 32.4% (disaggregated 15.5% /
/// 53.8% to 15.7% / 53.8%); every TPOT coefficient per backend had generalised worse than none
/// (each backend holds few models), as had attention's, the collectives' or the rest's apart.
inline constexpr std::size_t tpot_split_term = 1;

/// Split values of one TPOT group that get their own column, at most (the most runs first, ties
/// by name; the others share the joint fit's column and get no key: a prediction for them takes
/// the group's pooled fit). Each held-out fold chooses anew, so with more than this many
/// backends the folds may choose different ones (`roofline estimate --from-csv` says which
/// backends the full fit leaves out).
inline constexpr std::size_t max_tpot_split_columns = 3;

/// Acceptance rates of the first drafted token a fit may choose for runs that speculate at an
/// assumed rate (`fit_sample::features_at`): 0.40 to 0.90 in steps of 0.05 (each later draft at
/// the assumed decay per position, steady_state.hpp).
inline constexpr std::array<double, 11> acceptance_grid = {0.40, 0.45, 0.50, 0.55, 0.60, 0.65,
                                                           0.70, 0.75, 0.80, 0.85, 0.90};

namespace detail::fit {

/// Solves the n x n system `a x = b` in place by Gaussian elimination with partial pivoting;
/// false when singular.
template <std::size_t N>
bool solve(std::array<std::array<double, N>, N>& a, std::array<double, N>& b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t piv = i;
        for (std::size_t r = i + 1; r < n; ++r)
            if (std::abs(a[r][i]) > std::abs(a[piv][i])) piv = r;
        if (!(std::abs(a[piv][i]) > 1e-300)) return false;
        std::swap(a[i], a[piv]);
        std::swap(b[i], b[piv]);
        for (std::size_t r = i + 1; r < n; ++r) {
            const double f = a[r][i] / a[i][i];
            for (std::size_t c = i; c < n; ++c) a[r][c] -= f * a[i][c];
            b[r] -= f * b[i];
        }
    }
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t c = i + 1; c < n; ++c) b[i] -= a[i][c] * b[c];
        b[i] /= a[i][i];
    }
    return true;
}

}  // namespace detail::fit

/// Non-negative coefficients minimising sum_i w_i (x_i . a / y_i - 1)^2 (exact, by subsets; w
/// empty: all 1), using only the terms whose bits are set in `allowed` (the others stay 0). Rows
/// with a non-finite term or y <= 0 are skipped. All zeros when nothing fits.
template <std::size_t N>
std::array<double, N> fit_nonnegative_relative(const std::vector<std::array<double, N>>& x, const std::vector<double>& y,
                                               const std::vector<double>& w = {}, unsigned allowed = ~0u) {
    // Normal equations of z_i = x_i / y_i against 1: G = sum z z^T, h = sum z, residual
    // sum (z.a - 1)^2 = a^T G a - 2 h.a + n.
    std::array<std::array<double, N>, N> G{};
    std::array<double, N> h{};
    double n = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!(y[i] > 0)) continue;
        bool ok = true;
        for (double v : x[i]) ok = ok && std::isfinite(v);
        if (!ok) continue;
        const double wi = w.empty() ? 1.0 : w[i];
        std::array<double, N> z;
        for (std::size_t j = 0; j < N; ++j) z[j] = x[i][j] / y[i];
        for (std::size_t j = 0; j < N; ++j) {
            h[j] += wi * z[j];
            for (std::size_t k = 0; k < N; ++k) G[j][k] += wi * z[j] * z[k];
        }
        n += wi;
    }
    std::array<double, N> best{};
    double best_res = n;  // a = 0
    for (unsigned mask = 1; mask < (1u << N); ++mask) {
        if (mask & ~allowed) continue;  // a term the fit may not use
        std::array<std::size_t, N> idx{};
        std::size_t m = 0;
        for (std::size_t j = 0; j < N; ++j)
            if (mask & (1u << j)) idx[m++] = j;
        std::array<std::array<double, N>, N> A{};
        std::array<double, N> b{};
        for (std::size_t r = 0; r < m; ++r) {
            b[r] = h[idx[r]];
            for (std::size_t c = 0; c < m; ++c) A[r][c] = G[idx[r]][idx[c]];
            A[r][r] *= 1.0 + 1e-12;  // a whisker of ridge for terms that are nearly collinear
        }
        if (!detail::fit::solve(A, b, m)) continue;
        bool nonneg = true;
        for (std::size_t r = 0; r < m; ++r) nonneg = nonneg && b[r] >= 0 && std::isfinite(b[r]);
        if (!nonneg) continue;
        std::array<double, N> a{};
        for (std::size_t r = 0; r < m; ++r) a[idx[r]] = b[r];
        double res = n;
        for (std::size_t j = 0; j < N; ++j) {
            res -= 2 * h[j] * a[j];
            for (std::size_t k = 0; k < N; ++k) res += a[j] * G[j][k] * a[k];
        }
        if (res < best_res) {
            best_res = res;
            best = a;
        }
    }
    return best;
}

/// Non-negative coefficients minimising sum_i |x_i . a / y_i - 1| (the median relative error's
/// objective, less swayed by a few runs the terms cannot explain than squares are): iteratively
/// reweighted least squares, 8 rounds of weights 1 / max(|relative error|, 2%).
template <std::size_t N>
std::array<double, N> fit_nonnegative_relative_l1(const std::vector<std::array<double, N>>& x, const std::vector<double>& y,
                                                  unsigned allowed = ~0u) {
    std::vector<double> w(y.size(), 1.0);
    std::array<double, N> a = fit_nonnegative_relative(x, y, {}, allowed);
    for (int round = 0; round < 8; ++round) {
        for (std::size_t i = 0; i < y.size(); ++i) {
            double p = 0;
            for (std::size_t j = 0; j < N; ++j) p += a[j] * x[i][j];
            const double e = y[i] > 0 ? std::abs(p / y[i] - 1.0) : 1.0;
            w[i] = 1.0 / std::max(std::isfinite(e) ? e : 1.0, 0.02);
        }
        a = fit_nonnegative_relative(x, y, w, allowed);
    }
    return a;
}

/// TPOT coefficients fitted to `samples` (L1 on relative error), over the terms of
/// `tpot_fitted_terms` (models/serving_terms.hpp; the others stay 0).
inline std::array<double, serving_features::tpot_terms> fit_tpot(const std::vector<const fit_sample*>& samples) {
    std::vector<std::array<double, serving_features::tpot_terms>> x;
    std::vector<double> y;
    for (const auto* s : samples) {
        x.push_back(s->features.tpot);
        y.push_back(s->tpot_s);
    }
    return fit_nonnegative_relative_l1(x, y, tpot_fitted_terms);
}

/// TPOT coefficients of one TPOT group's `samples` fitted at once (L1 on relative error, over
/// `tpot_fitted_terms`) with the `tpot_split_term` of each split value in `values` (at most
/// `max_tpot_split_columns`) on a column of its own and the other samples' on the shared one:
/// for each value, the coefficients with its own in place of the shared (the others shared).
inline std::map<std::string, std::array<double, serving_features::tpot_terms>> fit_tpot_split(
    const std::vector<const fit_sample*>& samples, const std::vector<std::string>& values) {
    constexpr std::size_t T = serving_features::tpot_terms, N = T + max_tpot_split_columns;
    const std::size_t k = std::min(values.size(), max_tpot_split_columns);
    std::vector<std::array<double, N>> x;
    std::vector<double> y;
    bool shared_used = false;
    for (const auto* s : samples) {
        std::array<double, N> row{};
        std::copy(s->features.tpot.begin(), s->features.tpot.end(), row.begin());
        const auto it = std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), s->tpot_split);
        if (it != values.begin() + static_cast<std::ptrdiff_t>(k)) {
            row[T + static_cast<std::size_t>(it - values.begin())] = row[tpot_split_term];
            row[tpot_split_term] = 0;
        } else {
            shared_used = true;
        }
        x.push_back(row);
        y.push_back(s->tpot_s);
    }
    unsigned allowed = tpot_fitted_terms;
    if (!shared_used) allowed &= ~(1u << tpot_split_term);  // an empty column: no subset with it solves
    for (std::size_t i = 0; i < k; ++i) allowed |= 1u << (T + i);
    const auto a = fit_nonnegative_relative_l1(x, y, allowed);
    std::map<std::string, std::array<double, T>> out;
    for (std::size_t i = 0; i < k; ++i) {
        auto& c = out[values[i]];
        std::copy(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(T), c.begin());
        c[tpot_split_term] = a[T + i];
    }
    return out;
}

/// TTFT coefficients fitted to `samples` (L1 on relative error).
inline std::array<double, serving_features::ttft_terms> fit_ttft(const std::vector<const fit_sample*>& samples) {
    std::vector<std::array<double, serving_features::ttft_terms>> x;
    std::vector<double> y;
    for (const auto* s : samples) {
        x.push_back(s->features.ttft);
        y.push_back(s->ttft_s);
    }
    return fit_nonnegative_relative_l1(x, y);
}

/// Coefficients for TPOT and TTFT fitted to `samples` (all of them, L1 on relative error),
/// `source` naming the fit.
inline serving_efficiency fit_efficiency(const std::vector<const fit_sample*>& samples, const std::string& source) {
    serving_efficiency e;
    e.tpot = fit_tpot(samples);
    e.ttft = fit_ttft(samples);
    e.source = source;
    return e;
}

/// Runs a group needs, after holding a model out, for its own fit (else its parent's).
inline constexpr std::size_t min_group_runs = 30;

/// The split values (backends) of one TPOT group that get a GEMM column of their own: those
/// with at least `min_group_runs` of the group's runs (`runs`: value -> runs), the most runs
/// first (ties by name), at most `max_tpot_split_columns`; none where one value holds all
/// `group_runs` (its fit would be the group's). `left_out` (may be null) gets the values with
/// enough runs past that cap, and their runs.
inline std::vector<std::string> tpot_split_values(const std::map<std::string, std::size_t>& runs, std::size_t group_runs,
                                                  std::vector<std::pair<std::string, std::size_t>>* left_out = nullptr) {
    std::vector<std::pair<std::size_t, std::string>> big;
    for (const auto& [value, n] : runs)
        if (n >= min_group_runs) big.emplace_back(n, value);
    if (big.empty() || (big.size() == 1 && big.front().first == group_runs)) return {};
    std::sort(big.begin(), big.end(),
              [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < big.size(); ++i) {
        if (i < max_tpot_split_columns) out.push_back(big[i].second);
        else if (left_out) left_out->emplace_back(big[i].second, big[i].first);
    }
    return out;
}

/// The group and its parents, longest first: "agg/trtllm/h200_sxm", "agg/trtllm", "agg".
inline std::vector<std::string> group_levels(const std::string& group) {
    std::vector<std::string> out;
    for (std::string g = group; !g.empty();) {
        out.push_back(g);
        const auto slash = g.find_last_of('/');
        if (slash == std::string::npos) break;
        g.resize(slash);
    }
    return out;
}

/// Fits one efficiency per group of `samples` and per parent group (the top level always; the
/// others with at least `min_group_runs` runs), skipping samples of model `held_out` ("" holds
/// out nothing). TPOT is fitted per `tpot_base_key()` group and TTFT per `group`: a key that is
/// only a TPOT group keeps the roof's TTFT coefficients and the other way round. Where samples
/// split their TPOT group (`fit_sample::tpot_split`), each split value with `min_group_runs` runs
/// (up to `max_tpot_split_columns`) also gets "GROUP/VALUE": the group fitted at once with that
/// value's own GEMM coefficient (`fit_tpot_split`), unless it holds all of the group's runs
/// (then the group's fit is its). `with_ttft` false:
/// TPOT only (every TTFT the roof's), for a fit judged on TPOT alone (`choose_acceptance`).
inline std::map<std::string, serving_efficiency> fit_groups(const std::vector<fit_sample>& samples,
                                                            const std::string& held_out = {}, bool with_ttft = true) {
    std::map<std::string, std::vector<const fit_sample*>> tpot_by, ttft_by;
    std::map<std::string, std::map<std::string, std::size_t>> split_runs;  // TPOT group -> split value -> runs
    for (const auto& s : samples) {
        if (!held_out.empty() && s.model == held_out) continue;
        for (const auto& g : group_levels(s.tpot_base_key())) tpot_by[g].push_back(&s);
        for (const auto& g : group_levels(s.group)) ttft_by[g].push_back(&s);
        if (!s.tpot_split.empty()) ++split_runs[s.tpot_base_key()][s.tpot_split];
    }
    const auto kept = [](const std::string& key, std::size_t n) {
        return n >= min_group_runs || key.find('/') == std::string::npos;
    };
    std::map<std::string, serving_efficiency> out;
    for (const auto& [key, list] : tpot_by)
        if (kept(key, list.size())) {
            out[key].tpot = fit_tpot(list);
            out[key].source = key;
        }
    // Each split value with enough runs: the group's coefficients fitted with its own GEMM
    // coefficient (the most runs first, ties by name); one value holding all of the group's
    // runs would repeat the group's fit, so it gets none.
    for (const auto& [key, runs] : split_runs) {
        const auto& list = tpot_by[key];
        if (!kept(key, list.size())) continue;
        const auto values = tpot_split_values(runs, list.size());
        if (values.empty()) continue;
        for (const auto& [value, c] : fit_tpot_split(list, values)) {
            auto& e = out[key + "/" + value];
            e.tpot = c;
            e.source = key + "/" + value;
        }
    }
    for (const auto& [key, list] : ttft_by)
        if (with_ttft && kept(key, list.size())) {
            out[key].ttft = fit_ttft(list);
            out[key].source = key;
        }
    return out;
}

/// The efficiency of the longest level of `group` in `table`, else the roof.
inline const serving_efficiency& efficiency_for(const std::map<std::string, serving_efficiency>& table,
                                                const std::string& group) {
    static const serving_efficiency roof = roof_efficiency();
    for (const auto& g : group_levels(group))
        if (auto it = table.find(g); it != table.end()) return it->second;
    return roof;
}

/// TTFT coefficients of the longest level of `ttft_group` and TPOT coefficients of the longest
/// level of `tpot_group` in `table` (each the roof's when no level is there); `source` names
/// both ("TABLE TTFT agg/trtllm, TPOT decode/trtllm/agg" for entries read from one table).
inline serving_efficiency efficiency_for(const std::map<std::string, serving_efficiency>& table,
                                         const std::string& ttft_group, const std::string& tpot_group) {
    const auto& f = efficiency_for(table, ttft_group);
    const auto& t = efficiency_for(table, tpot_group);
    serving_efficiency e;
    e.ttft = f.ttft;
    e.tpot = t.tpot;
    e.ttft_band = f.ttft_band;
    e.tpot_band = t.tpot_band;
    // "table key" sources of one table read as "table TTFT key1, TPOT key2".
    const auto f_at = f.source.rfind(' '), t_at = t.source.rfind(' ');
    if (f.source == t.source) e.source = f.source;
    else if (f_at != std::string::npos && t_at != std::string::npos && f.source.compare(0, f_at, t.source, 0, t_at) == 0)
        e.source = f.source.substr(0, f_at) + " TTFT " + f.source.substr(f_at + 1) + ", TPOT " + t.source.substr(t_at + 1);
    else e.source = "TTFT " + f.source + ", TPOT " + t.source;
    return e;
}

/// `samples` with each one that has `features_at` at `acceptance_grid[g]` (the others as
/// they are).
inline std::vector<fit_sample> at_acceptance(const std::vector<fit_sample>& samples, std::size_t g) {
    std::vector<fit_sample> out = samples;
    for (auto& s : out)
        if (g < s.features_at.size()) s.features = s.features_at[g];
    return out;
}

/// The acceptance a fit assumes for runs that speculate at no stated rate, chosen like a
/// coefficient: the index into `acceptance_grid` whose TPOT fit (per `tpot_key()` group, as
/// `fit_groups`, over every sample but model `held_out`'s, each at that rate) misses those
/// samples' speculating runs (`features_at`) by the least median |predicted / measured - 1|
/// (of an even count, the upper middle one; a tie goes to the lower rate). nullopt when no such
/// run is left to judge by.
inline std::optional<std::size_t> choose_acceptance(const std::vector<fit_sample>& samples, const std::string& held_out = {}) {
    std::optional<std::size_t> best;
    double best_err = std::numeric_limits<double>::infinity();
    for (std::size_t g = 0; g < acceptance_grid.size(); ++g) {
        const auto at = at_acceptance(samples, g);
        const auto table = fit_groups(at, held_out, false);
        std::vector<double> errors;
        for (const auto& s : at)
            if (g < s.features_at.size() && (held_out.empty() || s.model != held_out))
                errors.push_back(std::abs(apply_efficiency(s.features, efficiency_for(table, s.tpot_key())).first / s.tpot_s - 1.0));
        if (errors.empty()) return std::nullopt;
        std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(errors.size() / 2), errors.end());
        const double med = errors[errors.size() / 2];
        if (med < best_err) best_err = med, best = g;
    }
    return best;
}

/// Measured / held-out predicted ratios by table key: each sample predicted, with its model
/// held out, by the coefficients of every level of its group that the held-out table has (TTFT
/// by `group`'s levels, TPOT by `tpot_key()`'s), so each key is judged with its own coefficients.
struct heldout_ratios {
    std::map<std::string, std::vector<double>> ttft, tpot;
};

/// Predicted (TPOT, TTFT) of every sample with each model held out of the fit; with `ratios`,
/// also each sample's measured / predicted at every level of its groups (`heldout_ratios`).
/// Samples with `features_at` are fitted and predicted at the acceptance the other models'
/// runs choose (`choose_acceptance` with the model held out; the rate, by held-out model, in
/// `acceptance`, absent where none was chosen).
inline std::vector<std::pair<double, double>> leave_one_model_out(const std::vector<fit_sample>& samples,
                                                                  heldout_ratios* ratios = nullptr,
                                                                  std::map<std::string, double>* acceptance = nullptr) {
    std::vector<std::pair<double, double>> pred(samples.size());
    std::map<std::string, std::vector<std::size_t>> by_model;
    for (std::size_t i = 0; i < samples.size(); ++i) by_model[samples[i].model].push_back(i);
    const bool any_assumed = std::any_of(samples.begin(), samples.end(), [](const fit_sample& s) { return !s.features_at.empty(); });
    for (const auto& [model, rows] : by_model) {
        const auto g = any_assumed ? choose_acceptance(samples, model) : std::nullopt;
        if (g && acceptance) (*acceptance)[model] = acceptance_grid[*g];
        const auto at = g ? at_acceptance(samples, *g) : std::vector<fit_sample>{};
        const auto& use = g ? at : samples;
        const auto table = fit_groups(use, model);
        for (std::size_t i : rows) {
            const auto& s = use[i];
            pred[i] = apply_efficiency(s.features, efficiency_for(table, s.group, s.tpot_key()));
            if (!ratios) continue;
            for (const auto& g : group_levels(s.group))
                if (auto it = table.find(g); it != table.end())
                    ratios->ttft[g].push_back(s.ttft_s / apply_efficiency(s.features, it->second).second);
            for (const auto& g : group_levels(s.tpot_key()))
                if (auto it = table.find(g); it != table.end())
                    ratios->tpot[g].push_back(s.tpot_s / apply_efficiency(s.features, it->second).first);
        }
    }
    return pred;
}

/// The band of `ratios` (finite, > 0; nearest-rank percentiles); nullopt when none is.
inline std::optional<heldout_ratio_band> summarize_ratios(std::vector<double> ratios) {
    ratios.erase(std::remove_if(ratios.begin(), ratios.end(), [](double v) { return !(std::isfinite(v) && v > 0); }),
                 ratios.end());
    if (ratios.empty()) return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    const auto rank = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ratios.size())));
        return ratios[std::min(ratios.size() - 1, k > 0 ? k - 1 : 0)];
    };
    return heldout_ratio_band{rank(0.1), rank(0.5), rank(0.9), ratios.size()};
}

/// Sets the TTFT and TPOT bands of every key of `table` that `ratios` has runs for.
inline void attach_heldout_bands(std::map<std::string, serving_efficiency>& table, const heldout_ratios& ratios) {
    for (auto& [key, e] : table) {
        if (auto it = ratios.ttft.find(key); it != ratios.ttft.end()) e.ttft_band = summarize_ratios(it->second);
        if (auto it = ratios.tpot.find(key); it != ratios.tpot.end()) e.tpot_band = summarize_ratios(it->second);
    }
}

/// Median and 90th percentile of |error| (fractions), over finite values.
struct relative_error_summary {
    std::size_t runs = 0;
    double median = std::numeric_limits<double>::quiet_NaN();
    double p90 = std::numeric_limits<double>::quiet_NaN();
};

/// Summary of |predicted / measured - 1| (nearest-rank percentiles).
inline relative_error_summary summarize_relative_errors(std::vector<double> abs_errors) {
    relative_error_summary s;
    abs_errors.erase(std::remove_if(abs_errors.begin(), abs_errors.end(), [](double v) { return !std::isfinite(v); }),
                     abs_errors.end());
    s.runs = abs_errors.size();
    if (abs_errors.empty()) return s;
    std::sort(abs_errors.begin(), abs_errors.end());
    const auto rank = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(abs_errors.size())));
        return abs_errors[std::min(abs_errors.size() - 1, k > 0 ? k - 1 : 0)];
    };
    s.median = abs_errors.size() % 2 ? abs_errors[abs_errors.size() / 2]
                                     : 0.5 * (abs_errors[abs_errors.size() / 2 - 1] + abs_errors[abs_errors.size() / 2]);
    s.p90 = rank(0.9);
    return s;
}

}  // namespace roofline
