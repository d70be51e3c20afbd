#pragma once
// Capacity planning: which GPUs, how many, which parallel layout, at which concurrency, for a
// model and a traffic shape (ISL, OSL), with the bound of every phase.
//
// For every GPU x count x layout (TP, EP, attention DP, PP) x concurrency the planner
//  1. checks memory (models/memory.hpp): weights + activations + the KV cache of the requests in
//     flight at ISL + OSL tokens within 0.9 of capacity; what does not fit is rejected with the
//     numbers as data (`plan_rejection`, `describe_rejection`);
//  2. prices a decode step and a prefill chunk of the steady state (analysis/steady_state.hpp,
//     the formulas `roofline analyze` uses) at achievable ceilings (analysis/achievable.hpp:
//     datasheet x published efficiencies, CUDA-graph launches, measured PCIe collective profiles),
//     so every number is a roof with modeled efficiency, never above the datasheet roof;
//  3. where the GPU's power coefficients are known (models/power.hpp: H200 SXM), lowers the SM
//     clock until the step fits the default power limit, and reports power and energy per token;
//  4. derives TTFT, TPOT, total tokens/s per GPU (input + output, InferenceX `tput_per_gpu`) and
//     output tokens/s per user (interactivity, 1 / TPOT), flags SLO misses, and keeps the Pareto
//     front of tokens/s per GPU against tokens/s per user (analysis/pareto.hpp).
//
// Speed. `model_step` builds per-layer vectors, tensor inventories and notes: far too slow for
// sweeps of 10^5-10^6 configurations. The planner digests the model once (`plan_model`: layers
// grouped into classes of identical tensor recipes), resolves each GPU's compute paths and
// ceilings once (`plan_gpu`), folds a layout into per-class coefficients once (`step_coefficients`:
// work and bytes are affine in tokens, sequences and sampled rows for a fixed layout, except the
// MoE active-expert count E (1 - (1 - k/E)^T) and the collective algorithm choice, both evaluated
// per step in closed form), and then prices each step with plain arithmetic (`evaluate_step`).
// tests/analysis/plan_test.cpp checks it against `price_step(model_step(...))` to 1e-9.
//
// Layouts enumerated (`enumerate_layouts`): tp divides the GPU count and the attention heads (as
// vLLM and SGLang require); pp divides what is left and is at most the layer count; on MoE models
// attention DP (dp) divides what is left and ep divides tp x dp and the expert count; dense models
// get dp = ep = 1 (attention DP there is the same as more instances). The rest of the GPUs serve
// as identical instances: instances = count / (tp dp pp). An instance spans at most one scale-up
// domain (`scale_up_domain`: an HGX baseboard of 8, an NVL72 rack, one PCIe host): links between
// domains are not modeled, so larger instances are rejected as unpriced, not guessed.
//
// TTFT counts the closed-loop queue (steady_state.hpp `closed_loop_queue_s`). Not modeled:
// pipeline bubbles, routing
// skew, CUDA-graph batch limits and host overheads between steps, each of which keeps real runs
// under the roof; speculative decoding and prefix caching, which do less work per token than
// modeled, so the roof does not bound runs that use them.

#include <algorithm>  // std::max, std::min, std::find
#include <array>      // std::array
#include <cmath>      // std::pow, std::isfinite, std::ceil, std::round
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint8_t, std::uint16_t
#include <cstdio>     // std::snprintf
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <string>     // std::string
#include <string_view>  // std::string_view
#include <tuple>      // std::tie
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "roofline/analysis/achievable.hpp"
#include "roofline/analysis/pareto.hpp"
#include "roofline/analysis/steady_state.hpp"
#include "roofline/core/bound.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/models/capacity.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/linear_attention.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/parameters.hpp"
#include "roofline/models/power.hpp"
#include "roofline/models/transformer.hpp"

namespace roofline {

// =============================================================================================
// Layouts
// =============================================================================================

/// "TP8", "TP4 DP2" (dense: dp replicas of the model, each serving its share of the requests),
/// "attention TP1 DP8, MoE TP4 x EP2" (MoE): attention and MoE layouts named apart, since the
/// MoE runs TP (tp dp / ep) x EP whatever attention does. PP appended as " PP2".
inline std::string describe_layout(const parallel_layout& l, bool moe) {
    std::string s;
    if (!moe) {
        s = "TP" + std::to_string(l.tp) + (l.dp > 1 ? " DP" + std::to_string(l.dp) : std::string());
    } else {
        s = "attention TP" + std::to_string(l.tp) + (l.dp > 1 ? " DP" + std::to_string(l.dp) : std::string()) +
            ", MoE TP" + std::to_string(l.moe_tp()) + " x EP" + std::to_string(l.ep);
    }
    if (l.pp > 1) s += " PP" + std::to_string(l.pp);
    return s;
}

/// Limits on the layouts the planner enumerates (0 = no limit).
struct plan_layout_space {
    int max_tp = 0;
    int max_pp = 0;
    bool attention_dp = true;     ///< DP attention on MoE models (SGLang --enable-dp-attention)
    bool expert_parallel = true;  ///< EP on MoE models
    /// Evaluate this one layout instead of enumerating (`roofline estimate`): it must be valid
    /// (`parallel_layout::validate`) and its GPUs must divide the count; the enumeration rules
    /// (heads divisible by tp, ...) are not applied, since engines that ran it accepted it.
    std::optional<parallel_layout> only;
};

/// One parallel layout of a deployment: the layout of a model instance and how many instances.
struct plan_layout {
    parallel_layout layout;
    int instances = 1;  ///< count / (tp dp pp)
};

/// Every layout of `count` GPUs for `c` (rules in the header comment), ordered by tp, pp, dp, ep.
/// Throws `usage_error` for count < 1 or a model without attention heads or layers.
inline std::vector<plan_layout> enumerate_layouts(const model_config& c, int count, const plan_layout_space& s = {}) {
    if (count < 1) throw usage_error("plan: GPU count must be >= 1");
    if (c.num_attention_heads <= 0 || c.num_layers <= 0)
        throw usage_error("plan: the model has no attention heads or layers");
    std::vector<plan_layout> out;
    if (s.only) {
        s.only->validate();
        if (count % s.only->gpus())
            throw usage_error("plan: the layout's " + std::to_string(s.only->gpus()) + " GPUs do not divide " +
                              std::to_string(count));
        out.push_back({*s.only, count / s.only->gpus()});
        return out;
    }
    const bool moe = c.is_moe();
    for (int tp = 1; tp <= count; ++tp) {
        if (count % tp || c.num_attention_heads % tp || (s.max_tp > 0 && tp > s.max_tp)) continue;
        const int rest_tp = count / tp;
        for (int pp = 1; pp <= rest_tp; ++pp) {
            if (rest_tp % pp || pp > c.num_layers || (s.max_pp > 0 && pp > s.max_pp)) continue;
            const int rest_pp = rest_tp / pp;
            for (int dp = 1; dp <= rest_pp; ++dp) {
                if (rest_pp % dp || (dp > 1 && !(moe && s.attention_dp))) continue;
                for (int ep = 1; ep <= tp * dp; ++ep) {
                    if ((tp * dp) % ep || (ep > 1 && !(moe && s.expert_parallel && c.num_experts % ep == 0)))
                        continue;
                    plan_layout l;
                    l.layout = {tp, ep, dp, pp};
                    l.instances = count / (tp * dp * pp);
                    out.push_back(l);
                }
            }
        }
    }
    return out;
}

// =============================================================================================
// The fast step model
// =============================================================================================

namespace detail::plan {

enum class share : std::uint8_t { tp_split, replicated, kv_proj };

/// One linear layer of a recipe: what `detail::step::linear_work` needs, without the strings.
struct linear_term {
    double in = 0, out = 0;
    double weight_bytes = 0;  ///< one copy, incl. bias and scales
    share how = share::tp_split;
    bool row_parallel = false;  ///< o_proj / down_proj: input sharded, output whole
    bool kv_b = false;          ///< MLA kv_b_proj: runs over the kv_b tokens
    dtype weights = dtype::bf16, activations = dtype::bf16;
    bool operator==(const linear_term&) const = default;
};

/// The tensors of a class of identical decoder layers.
struct layer_recipe {
    mlp_kind mlp = mlp_kind::dense;
    layer_attention span = layer_attention::full;
    std::vector<linear_term> dense;   ///< attention, indexer and dense-MLP projections
    // MoE layers
    double router_weight_bytes = 0;   ///< h E x unquantised bytes + biases
    std::vector<linear_term> shared;  ///< shared experts (split over tp)
    double expert_macs = 0;           ///< multiply-adds per token through one routed expert
    double expert_bytes = 0;          ///< one routed expert's weights
    dtype expert_weights = dtype::bf16, expert_activations = dtype::bf16;
    bool operator==(const layer_recipe&) const = default;
};

inline bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// The activation dtype a GEMM over weights `wd` reads (as `linear_work` chooses it).
inline dtype gemm_activations(const model_config& c, dtype wd, dtype act) {
    return (wd == c.quant.weights && c.quant.quantized()) ? c.quant.activations : act;
}

inline linear_term make_term(const model_config& c, const weight_tensor& t, dtype act) {
    linear_term l;
    l.in = t.in_features;
    l.out = t.out_features;
    l.weight_bytes = weight_bytes_per_copy(c.quant, t);
    l.weights = weight_dtype(c.quant, t);
    l.activations = gemm_activations(c, l.weights, act);
    const bool gqa_kv = c.attention == attention_kind::gqa && (ends_with(t.name, "k_proj") || ends_with(t.name, "v_proj"));
    l.how = gqa_kv ? share::kv_proj : (t.tp_split ? share::tp_split : share::replicated);
    l.row_parallel = ends_with(t.name, "o_proj") || ends_with(t.name, "out_proj") || ends_with(t.name, "down_proj");
    l.kv_b = ends_with(t.name, "kv_b_proj");
    return l;
}

inline layer_recipe make_recipe(const model_config& c, int layer, dtype act) {
    layer_recipe r;
    r.mlp = c.mlp_at(layer);
    r.span = c.attention_at(layer);
    const auto tensors = layer_weights(c, layer);
    for (const auto& t : tensors) {
        if (!t.linear) continue;
        if (t.cls == module_class::attention || t.cls == module_class::indexer || t.cls == module_class::dense_mlp)
            r.dense.push_back(make_term(c, t, act));
    }
    if (r.mlp == mlp_kind::moe) {
        dtype wd = c.quant.unquantized;
        for (const auto& t : tensors) {
            if (t.cls == module_class::router) {
                r.router_weight_bytes = t.in_features * t.out_features * bytes_per_element(weight_dtype(c.quant, t)) +
                                        t.bias_params * bytes_per_element(c.quant.unquantized);
            } else if (t.cls == module_class::shared_experts) {
                r.shared.push_back(make_term(c, t, act));
            } else if (t.cls == module_class::routed_experts) {
                wd = weight_dtype(c.quant, t);
                r.expert_macs += t.in_features * t.out_features;
                r.expert_bytes += weight_bytes_per_copy(c.quant, t);
            }
        }
        r.expert_weights = wd;
        r.expert_activations = gemm_activations(c, wd, act);
    }
    return r;
}

/// Priced time of one (layer class or extra, phase) of a step, before multiplicity.
struct term {
    double layers = 1;  ///< multiplicity (layers of the class in the stage; 1 for extras)
    double compute_s = 0, memory_s = 0, link_s = 0, latency_s = 0;
    double flop_joules = 0;  ///< FLOP energy at the power coefficients' reference clock (0 if unknown)
    double dram_bytes = 0;
    std::uint8_t phase = 0;
};

}  // namespace detail::plan

/// A model digested for fast step pricing: layer classes of identical tensor recipes, the weight
/// inventory and the KV-cache shape. Build once per model and activation dtype.
struct plan_model {
    const model_config* config = nullptr;  ///< must outlive the digest
    dtype activations = dtype::bf16;
    std::vector<detail::plan::layer_recipe> classes;
    std::vector<int> layer_class;  ///< per main layer: its class
    detail::plan::linear_term head;  ///< lm_head (or the tied embedding as head)
    weight_inventory weights;
};

/// Digests `c` (kept by pointer: it must outlive the result). Throws `usage_error` for a model
/// without layers or hidden size.
inline plan_model digest_model(const model_config& c, dtype activations = dtype::bf16) {
    if (c.num_layers <= 0 || c.hidden_size <= 0) throw usage_error("plan: the model has no layers");
    plan_model m;
    m.config = &c;
    m.activations = activations;
    for (int i = 0; i < c.num_layers; ++i) {
        auto r = detail::plan::make_recipe(c, i, activations);
        const auto it = std::find(m.classes.begin(), m.classes.end(), r);
        m.layer_class.push_back(static_cast<int>(it - m.classes.begin()));
        if (it == m.classes.end()) m.classes.push_back(std::move(r));
    }
    for (const auto& t : model_edge_weights(c)) {
        if (t.cls == module_class::lm_head || (c.tie_word_embeddings && t.cls == module_class::embedding)) {
            weight_tensor head = t;
            head.linear = t.cls == module_class::lm_head;
            head.in_features = c.hidden_size;
            head.out_features = c.vocab_size;
            m.head = detail::plan::make_term(c, head, activations);
        }
    }
    m.weights = weight_inventory_of(c);
    return m;
}

/// One GPU as the planner prices it: achievable ceilings, the modeled collective link, power.
struct plan_gpu {
    const gpu_spec* spec = nullptr;
    ceilings modeled;          ///< achievable ceilings; link roof = the modeled link's beta
    std::optional<link_params> link;  ///< nullopt: no link bandwidth known (one GPU per instance only)
    std::string link_source;
    std::optional<power_coefficients> power;  ///< models/power.hpp defaults (H200 SXM)
    double power_limit_w = std::numeric_limits<double>::quiet_NaN();
    double top_clock_hz = 0;   ///< highest SM clock priced: min(max clock, clock of the peaks)
    double peak_clock_hz = 0;  ///< the clock the tensor peaks assume
    double memory_bytes = std::numeric_limits<double>::quiet_NaN();
    /// GPUs of one scale-up domain (`scale_up_domain`), whatever `scale_up_gpus` allows, and the
    /// scale-out network between domains (core/network.hpp `default_network_fabric`; nullopt:
    /// unknown): an instance allowed to span domains (`plan_request::max_gpus_per_instance`, as
    /// `estimate` does) prices its collectives over more ranks than a domain holds as NCCL's
    /// hierarchy (`hierarchical_link_params`).
    int domain_gpus = 0;
    std::optional<link_params> network;
    /// The scale-up link as a hierarchy's inside-a-node level prices it: `link`'s bandwidth, but
    /// NCCL's per-hop latency (`default_link_params`): a measured profile's alpha is the per-call
    /// overhead of a 2-GPU all-reduce (16 us on the H200), which the hierarchy would charge on
    /// every one of its 2 (G - 1) ring hops.
    std::optional<link_params> domain_link;
    /// GPUs one model instance may span: the scale-up (NVLink or one host's PCIe) domain; 0 = no
    /// limit known. Collectives between domains (InfiniBand, Ethernet) are not modeled.
    int scale_up_gpus = 0;
    std::string scale_up_source;
    std::string unpriced;      ///< non-empty: why this GPU cannot price the model
    /// `gemm_compute_path(weights, activations, *spec).peak` for every pair of dtypes, resolved
    /// once (the notes it builds are not needed per layout).
    std::array<peak_key, dtype_count * dtype_count> gemm_peak{};

    peak_key gemm_peak_of(dtype weights, dtype activations) const {
        return gemm_peak[static_cast<std::size_t>(weights) * dtype_count + static_cast<std::size_t>(activations)];
    }
};

// `scale_up_domain(g)`: models/collective.hpp (collectives beyond the domain cross the network).

/// Prepares `g` for planning: achievable ceilings (`e`), the GPU's default link with its measured
/// collective profile where one is known (analysis/achievable.hpp), power coefficients and limit.
/// `speed_of_light`: datasheet ceilings and link instead (no efficiency, no launch cost): the
/// roof the modeled numbers must stay under.
/// `link_override` replaces the link of every layout (e.g. fitted to the user's nccl-tests).
inline plan_gpu prepare_gpu(const gpu_spec& g, const kernel_efficiency& e = {}, bool speed_of_light = false,
                            const std::optional<link_params>& link_override = std::nullopt) {
    plan_gpu p;
    p.spec = &g;
    for (std::size_t w = 0; w < dtype_count; ++w)
        for (std::size_t a = 0; a < dtype_count; ++a)
            p.gemm_peak[w * dtype_count + a] =
                gemm_compute_path(static_cast<dtype>(w), static_cast<dtype>(a), g).peak;
    const link_kind lk = g.default_link();
    try {
        p.modeled = speed_of_light ? datasheet_ceilings(g, lk) : achievable_ceilings(datasheet_ceilings(g, lk), e);
    } catch (const usage_error& err) {
        p.unpriced = err.what();
        return p;
    }
    try {
        p.link = default_link_params(g, lk);
        if (auto prof = find_link_profile(g, lk); prof && !speed_of_light) p.link = link_params_from_profile(*prof);
    } catch (const usage_error&) {
        p.link.reset();  // no bandwidth known for this GPU's link
    }
    if (link_override) p.link = *link_override;
    if (p.link) {
        p.link_source = p.link->source;
        p.modeled.link_bytes_per_s = p.link->beta_bytes_per_s;
    } else {
        p.link_source = "no link bandwidth known: one GPU per instance only";
    }
    p.memory_bytes = g.memory_bytes.value_or(std::numeric_limits<double>::quiet_NaN());
    if (!(p.memory_bytes > 0)) p.unpriced = g.id + ": memory capacity is unknown";
    std::tie(p.scale_up_gpus, p.scale_up_source) = scale_up_domain(g);
    p.domain_gpus = p.scale_up_gpus;
    if (const auto f = default_network_fabric(g)) p.network = network_link_params(*f);
    if (p.link) {
        p.domain_link = *p.link;
        if (!link_override) {
            try {
                const link_params nccl = default_link_params(g, lk);
                p.domain_link->alpha_s = nccl.alpha_s;
                p.domain_link->base_latency_s = nccl.base_latency_s;
            } catch (const usage_error&) {
                // no datasheet link: keep the profile's latencies
            }
        }
    }
    p.power = default_power_coefficients(g);
    p.power_limit_w = g.power_limit_w.value_or(std::numeric_limits<double>::quiet_NaN());
    p.peak_clock_hz = g.tensor_clock_hz.value_or(g.boost_clock_hz.value_or(0.0));
    const double max_clock = g.max_clock_hz.value_or(p.peak_clock_hz);
    p.top_clock_hz = std::min(max_clock, p.peak_clock_hz);
    if (!(p.power_limit_w > 0) || !(p.top_clock_hz > 0)) p.power.reset();
    return p;
}

namespace detail::plan {

/// Cost of the fastest algorithm for a collective (as `best_collective`), without allocation:
/// link bytes and latency (base + steps x alpha). Zero for one rank or no bytes.
struct collective_terms {
    double link_bytes = 0, latency_s = 0, launches = 0;
};

inline collective_terms fast_collective(collective_op op, double bytes, int ranks, const link_params& p) {
    collective_terms r;
    if (ranks <= 1 || bytes <= 0) return r;
    const double n = ranks;
    const bool ar = op == collective_op::all_reduce;
    const auto cand = [&](double steps, double link) {
        const double lat = p.base_latency_s + steps * p.alpha_s;
        return std::array<double, 3>{lat + link / p.beta_bytes_per_s, link, lat};
    };
    auto best = ar ? cand(2 * (n - 1), 2.0 * (n - 1) / n * bytes) : cand(n - 1, (n - 1) / n * bytes);
    if (p.p2p) {
        const auto one = cand(1, ar ? (n - 1) * bytes : (n - 1) / n * bytes);
        if (one[0] < best[0]) best = one;
        if (ar) {
            const auto two = cand(2, 2.0 * (n - 1) / n * bytes);
            if (two[0] < best[0]) best = two;
        }
    }
    r.link_bytes = best[1];
    r.latency_s = best[2];
    r.launches = 1;
    return r;
}

inline double peak_of_gpu(const plan_gpu& g, peak_key k) { return g.modeled.flops_at(k); }

inline double energy_of(const plan_gpu& g, peak_key k) {
    return g.power ? g.power->flop_energy_at(k) : 0.0;
}

}  // namespace detail::plan

/// Per-class coefficients of one (model, GPU, layout): everything `evaluate_step` needs that
/// does not depend on the batch. Build with `step_coefficients::build`.
struct step_coefficients {
    struct layer_class {
        double layers_first = 0, layers_last = 0;  ///< layers of this class in stage 0 / stage pp-1
        bool moe = false, second_all_reduce = true;
        // dense_gemm per token on this GPU (T_dp) and per kv_b token: seconds, bytes, joules
        double dg_s_tok = 0, dg_s_kvb = 0, dg_b0 = 0, dg_b_tok = 0, dg_b_kvb = 0, dg_j_tok = 0, dg_j_kvb = 0;
        double dg_launches = 0;
        // attention
        attention_shape shape;
        bool linear = false;           ///< Gated DeltaNet layers: `la` prices the attention phase
        linear_attention_shape la;
        double la_b_tok = 0;           ///< linear attention: activation bytes per new token
        double kv_tok_bytes = 0, fpp_absorbed = 0, fpp_expanded = 0, qo_absorbed = 0, qo_expanded = 0;
        double s_per_math_flop = 0, s_per_index_flop = 0, j_per_math_flop = 0, j_per_index_flop = 0;
        // norm_elementwise bytes per T_dp token and launches
        double ne_b_tdp = 0, ne_launches = 0;
        // moe_gemm: router + shared experts per T_dp token; routed experts per pair / active expert
        double mo_s_tdp = 0, mo_b0 = 0, mo_b_tdp = 0, mo_j_tdp = 0, mo_launches = 0;
        double ex_s_pair = 0, ex_b_active = 0, ex_b_pair = 0, ex_j_pair = 0;
    };
    std::vector<layer_class> classes;
    parallel_layout layout;
    const plan_model* model = nullptr;
    const plan_gpu* gpu = nullptr;
    double act_b = 2;
    double launch_s = 0, dram_bytes_per_s = 0, link_bytes_per_s = 0;
    double s_per_dram_byte = 0, s_per_link_byte = 0;  ///< reciprocals: a multiply per term, not a divide
    link_params link;
    /// Collectives whose ranks span more than one scale-up domain: {op, ranks} and the link
    /// NCCL's hierarchy folds into (`hierarchical_link_params`); empty when the layout fits one
    /// domain. `collective` prices them.
    struct spanning_link {
        collective_op op;
        int ranks;
        link_params params;
    };
    std::vector<spanning_link> spanning;
    double e_dram = 0;

    /// `op` on `bytes` over `ranks` (`fast_collective`): at `link`, or at the hierarchy's folded
    /// link where the ranks span domains, its link bytes restated at `link`'s bandwidth (the
    /// step prices every link byte at one rate).
    detail::plan::collective_terms collective(collective_op op, double bytes, int ranks) const {
        for (const auto& s : spanning)
            if (s.op == op && s.ranks == ranks) {
                auto r = detail::plan::fast_collective(op, bytes, ranks, s.params);
                r.link_bytes *= link.beta_bytes_per_s / s.params.beta_bytes_per_s;
                return r;
            }
        return detail::plan::fast_collective(op, bytes, ranks, link);
    }
    // lm_head on the last stage, per sampled row on this GPU
    double head_s_row = 0, head_b0 = 0, head_b_row = 0, head_j_row = 0;
    /// ln(1 - k/E): E[active experts] = E (1 - (1 - k/E)^T) = E (1 - exp(T ln(1 - k/E))).
    double log_idle = 0;
    bool power_known = false;
    std::string unpriced;  ///< non-empty: this layout cannot be priced on this GPU (and why)

    /// Folds `l` into coefficients for `g`. Layouts that need a collective on a GPU without a
    /// known link, or a rate class the GPU lacks, come back with `unpriced` set.
    static step_coefficients build(const plan_model& m, const plan_gpu& g, const parallel_layout& l) {
        using namespace detail::plan;
        step_coefficients k;
        k.layout = l;
        k.model = &m;
        k.gpu = &g;
        const model_config& c = *m.config;
        if (!g.unpriced.empty()) {
            k.unpriced = g.unpriced;
            return k;
        }
        if (l.tp * l.dp * l.pp > 1 && !g.link) {
            k.unpriced = g.spec->id + ": " + g.link_source;
            return k;
        }
        if (g.scale_up_gpus > 0 && l.gpus() > g.scale_up_gpus) {
            k.unpriced = g.spec->id + ": an instance spans at most " + std::to_string(g.scale_up_gpus) + " GPUs (" +
                         g.scale_up_source + "): links between domains are not modeled";
            return k;
        }
        if (g.link) k.link = *g.link;
        if (g.link && g.domain_gpus > 0 && l.gpus() > g.domain_gpus) {
            if (!g.network || !g.network->known()) {
                k.unpriced = g.spec->id + ": an instance of " + std::to_string(l.gpus()) + " GPUs spans more than one " +
                             std::to_string(g.domain_gpus) + "-GPU scale-up domain and no network between domains is "
                             "known";
                return k;
            }
            const int tp = l.tp, td = l.tp * l.dp, ep = l.ep;
            for (const auto& [op, ranks] : {std::pair{collective_op::all_reduce, tp}, std::pair{collective_op::all_gather, tp},
                                            std::pair{collective_op::all_to_all, ep}, std::pair{collective_op::all_gather, td},
                                            std::pair{collective_op::reduce_scatter, td}})
                if (ranks > g.domain_gpus)
                    k.spanning.push_back({op, ranks, hierarchical_link_params(op, layout_of(ranks, g.domain_gpus), *g.domain_link,
                                                                              *g.network)});
        }
        k.act_b = bytes_per_element(m.activations);
        k.launch_s = g.modeled.launch_latency_s;
        k.dram_bytes_per_s = g.modeled.bytes_at(memory_level::dram);
        k.link_bytes_per_s = g.modeled.link_bytes_per_s;
        k.s_per_dram_byte = 1.0 / k.dram_bytes_per_s;
        k.s_per_link_byte = k.link_bytes_per_s > 0 ? 1.0 / k.link_bytes_per_s : 0.0;
        k.power_known = g.power.has_value();
        if (g.power) k.e_dram = g.power->joules_per_dram_byte;
        const double tp = l.tp, dp = l.dp, ep = l.ep, moe_tp = l.moe_tp();
        const double h = c.hidden_size, b = k.act_b;
        const double kv_share = m.weights.kv_proj_share(l.tp);
        // KV heads a GPU holds (as `kv_per_gpu`): MLA one latent, GQA max(1, ceil(kv / tp)).
        const double kv_heads_per_gpu = c.attention == attention_kind::mla
                                            ? 1.0 : std::max(1.0, std::ceil(static_cast<double>(c.num_kv_heads) / l.tp));
        bool missing = false;
        std::string missing_what;
        const auto rate = [&](peak_key p, double& s_per_flop, double& j_per_flop) {
            // A GPU without BF16 units (V100, T4) serves 16-bit models in FP16 (plan notes it).
            if (p == peak_key::bf16 && !(peak_of_gpu(g, p) > 0) && peak_of_gpu(g, peak_key::fp16) > 0) p = peak_key::fp16;
            const double peak = peak_of_gpu(g, p);
            if (!(peak > 0)) {
                missing = true;
                missing_what = std::string(to_string(p));
                s_per_flop = 0;
            } else {
                s_per_flop = 1.0 / peak;
            }
            j_per_flop = energy_of(g, p);
            if (k.power_known && !std::isfinite(j_per_flop)) k.power_known = false;
        };
        const auto path_rate = [&](dtype wd, dtype ad, double& s, double& j) {
            rate(g.gemm_peak_of(wd, ad), s, j);
        };
        // A linear layer: seconds, joules per token and activation bytes per token; weight bytes.
        struct lin {
            double s = 0, j = 0, b_tok = 0, b0 = 0;
        };
        const auto linear = [&](const linear_term& t, double shard_split) {
            lin r;
            double shard = 1.0;
            if (t.how == share::tp_split) shard = shard_split;
            else if (t.how == share::kv_proj) shard = kv_share;
            double s_flop = 0, j_flop = 0;
            path_rate(t.weights, t.activations, s_flop, j_flop);
            const double flops_tok = 2.0 * t.in * t.out * shard;
            r.s = flops_tok * s_flop;
            r.j = flops_tok * j_flop;
            r.b0 = t.weight_bytes * shard;
            r.b_tok = b * (t.in * (t.row_parallel ? shard : 1.0) + t.out * (t.row_parallel ? 1.0 : shard));
            return r;
        };

        const int per = (c.num_layers + l.pp - 1) / l.pp;
        const int first_end = std::min(c.num_layers, per);
        const int last_begin = std::min(c.num_layers, (l.pp - 1) * per);
        k.classes.resize(m.classes.size());
        for (int i = 0; i < c.num_layers; ++i) {
            auto& kc = k.classes[static_cast<std::size_t>(m.layer_class[static_cast<std::size_t>(i)])];
            if (i < first_end) kc.layers_first += 1;
            if (i >= last_begin) kc.layers_last += 1;
        }
        const peak_key index_math = g.spec->peak(peak_key::fp8).supported ? peak_key::fp8 : peak_key::bf16;
        for (std::size_t ci = 0; ci < m.classes.size(); ++ci) {
            const auto& r = m.classes[ci];
            auto& kc = k.classes[ci];
            kc.moe = r.mlp == mlp_kind::moe;
            kc.second_all_reduce = r.mlp == mlp_kind::dense || l.dp == 1;
            for (const auto& t : r.dense) {
                const auto x = linear(t, 1.0 / tp);
                (t.kv_b ? kc.dg_s_kvb : kc.dg_s_tok) += x.s;
                (t.kv_b ? kc.dg_j_kvb : kc.dg_j_tok) += x.j;
                (t.kv_b ? kc.dg_b_kvb : kc.dg_b_tok) += x.b_tok;
                kc.dg_b0 += x.b0;
                kc.dg_launches += 1;
            }
            // attention
            kc.shape = attention_shape_per_gpu(c, tp, kv_heads_per_gpu, r.span);
            attention_shape& a = kc.shape;
            const bool mla = c.attention == attention_kind::mla;
            a.absorbed = true;
            kc.fpp_absorbed = attention_flops_per_pair(a);
            kc.qo_absorbed = mla ? (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank : 2.0 * a.head_dim;
            a.absorbed = false;
            kc.fpp_expanded = attention_flops_per_pair(a);
            kc.qo_expanded = mla ? (a.qk_nope_head_dim + a.qk_rope_head_dim) + a.v_head_dim : 2.0 * a.head_dim;
            kc.kv_tok_bytes = attention_kv_bytes_per_token(a, c.quant.kv_cache);
            rate(peak_of(m.activations), kc.s_per_math_flop, kc.j_per_math_flop);
            if (c.index_topk > 0) rate(index_math, kc.s_per_index_flop, kc.j_per_index_flop);
            // norms and elementwise, all per T_dp token (pairs = T k / ep = T_dp dp k / ep)
            kc.ne_b_tdp = 2 * 4 * h * b;
            kc.ne_launches = 2;
            if (r.span == layer_attention::linear) {
                // Gated DeltaNet: its state instead of a KV cache, the gated RMSNorm of its output
                // (read o and z, write), no rope (models/transformer.hpp `model_step`).
                kc.linear = true;
                kc.la = linear_attention_shape_per_gpu(c, tp);
                kc.la_b_tok = linear_attention_bytes_per_token(kc.la, m.activations);
                kc.ne_b_tdp += 3.0 * kc.la.value_dim() * b;
                kc.ne_launches += 1;
            } else if (mla) {
                kc.ne_b_tdp += 2.0 * (c.q_lora_rank + c.kv_lora_rank) * b + 2.0 * (a.heads + 1) * c.qk_rope_head_dim * b;
                kc.ne_launches += 2;
            } else {
                kc.ne_b_tdp += 2.0 * (a.heads + a.kv_heads) * c.head_dim * b;
                kc.ne_launches += 1;
                if (c.attn_output_gate) {  // sigmoid(gate) x output: read both, write
                    kc.ne_b_tdp += 3.0 * a.heads * c.head_dim * b;
                    kc.ne_launches += 1;
                }
            }
            if (!kc.moe) {
                kc.ne_b_tdp += 3.0 * (static_cast<double>(c.intermediate_size) / tp) * b;
                kc.ne_launches += 1;
            } else {
                const double E = c.num_experts, kk = c.experts_per_token, mi = c.moe_intermediate_size;
                kc.ne_b_tdp += E * 4.0 * 2 + dp * kk / ep * 3 * mi / moe_tp * b;
                if (c.num_shared_experts > 0)
                    kc.ne_b_tdp += 3.0 * (static_cast<double>(c.num_shared_experts) * c.shared_expert_width() / tp) * b;
                kc.ne_launches += 2;
                // router: 2 T_dp E h FLOP at the unquantised rate; bytes T_dp (h a + 4 E) + h E w + bias
                double s_r = 0, j_r = 0;
                rate(peak_of(c.quant.unquantized), s_r, j_r);
                kc.mo_s_tdp += 2.0 * E * h * s_r;
                kc.mo_j_tdp += 2.0 * E * h * j_r;
                kc.mo_b0 += r.router_weight_bytes;
                kc.mo_b_tdp += h * b + E * 4.0;
                kc.mo_launches += 1;
                for (const auto& t : r.shared) {
                    const auto x = linear(t, 1.0 / tp);
                    kc.mo_s_tdp += x.s;
                    kc.mo_j_tdp += x.j;
                    kc.mo_b_tdp += x.b_tok;
                    kc.mo_b0 += x.b0;
                    kc.mo_launches += 1;
                }
                double s_e = 0, j_e = 0;
                path_rate(r.expert_weights, r.expert_activations, s_e, j_e);
                kc.ex_s_pair = 2.0 * r.expert_macs / moe_tp * s_e;
                kc.ex_j_pair = 2.0 * r.expert_macs / moe_tp * j_e;
                kc.ex_b_active = r.expert_bytes / moe_tp;
                kc.ex_b_pair = (2 * h + 3 * mi / moe_tp) * b;
                kc.mo_launches += 2;
            }
        }
        // lm_head on the last stage
        {
            const auto x = linear(m.head, 1.0 / tp);
            k.head_s_row = x.s;
            k.head_j_row = x.j;
            k.head_b0 = x.b0;
            k.head_b_row = x.b_tok;
        }
        if (c.is_moe()) {
            if (!(c.experts_per_token > 0 && c.experts_per_token <= c.num_experts))
                throw usage_error("plan: need 0 < experts per token <= experts");
            k.log_idle = std::log1p(-static_cast<double>(c.experts_per_token) / c.num_experts);
        }
        if (missing) k.unpriced = g.spec->id + ": the " + missing_what + " peak is unknown or absent";
        return k;
    }
};

/// Per-phase prices of a step from the fast path (the fields of `step_time` it fills).
struct fast_step {
    std::array<phase_time, step_phase_count> phases{};
    double lower_bound_s = 0;
    std::array<double, 5> by_bound{};  ///< seconds of the step per predicted bound
    double flop_joules = 0;            ///< at the power reference clock (0 if unknown)
    double dram_bytes = 0;

    const phase_time& at(step_phase p) const { return phases[static_cast<std::size_t>(p)]; }
    /// The bound with the most time in the step.
    bound dominant_bound() const {
        std::size_t best = static_cast<std::size_t>(bound::latency);
        for (std::size_t i = 0; i < by_bound.size(); ++i)
            if (by_bound[i] > by_bound[best]) best = i;
        return static_cast<bound>(best);
    }
    /// The phase with the most time.
    step_phase dominant_phase() const {
        std::size_t best = 0;
        for (std::size_t i = 1; i < step_phase_count; ++i)
            if (phases[i].lower_bound_s > phases[best].lower_bound_s) best = i;
        return static_cast<step_phase>(best);
    }
};

namespace detail::plan {

/// The priced terms of one step (reused between calls to avoid allocation).
struct step_terms {
    std::vector<term> terms;
    void clear() { terms.clear(); }
    void add(std::uint8_t phase, double layers, double compute_s, double memory_bytes, double link_bytes,
             double latency_s, double joules, const step_coefficients& k) {
        term t;
        t.phase = phase;
        t.layers = layers;
        t.compute_s = compute_s;
        t.memory_s = memory_bytes * k.s_per_dram_byte;
        t.link_s = link_bytes * k.s_per_link_byte;
        t.latency_s = latency_s;
        t.flop_joules = joules;
        t.dram_bytes = memory_bytes;
        terms.push_back(t);
    }
};

/// Fills `out` with the terms of a step of one sequence group on stage `stage` (0 or pp - 1).
inline void build_terms(const step_coefficients& k, const sequence_group& group, int stage, step_terms& out) {
    const model_config& c = *k.model->config;
    const parallel_layout& l = k.layout;
    const double dp = l.dp, b = k.act_b, h = c.hidden_size;
    const double T = group.count * group.new_tokens, T_dp = T / dp;
    const bool decode = group.new_tokens <= max_decode_step_tokens;  // or speculative verification
    const sequence_group g_dp{group.count / dp, group.new_tokens, group.context_tokens};
    const double kvb_tokens = (g_dp.count > 0 && g_dp.new_tokens > 0)
                                  ? g_dp.count * (decode ? g_dp.new_tokens : g_dp.new_tokens + g_dp.context_tokens)
                                  : 0.0;
    const bool first = stage == 0, last = stage == l.pp - 1;
    const double launch = k.launch_s;
    const auto ph = [](step_phase p) { return static_cast<std::uint8_t>(p); };

    // Collectives of one layer, by class kind.
    const double msg = T_dp * h * b;
    const auto ar = k.collective(collective_op::all_reduce, msg, l.tp);
    collective_terms moe_comm;
    {
        const auto add = [&](const collective_terms& x) {
            moe_comm.link_bytes += x.link_bytes;
            moe_comm.latency_s += x.latency_s;
            moe_comm.launches += x.launches;
        };
        if (l.ep > 1) {
            const double disp = T_dp * c.experts_per_token * h;
            const dtype dd = detail::is_fp4(c.quant.activations) || detail::is_fp8(c.quant.activations)
                                 ? c.quant.activations : k.model->activations;
            add(k.collective(collective_op::all_to_all, disp * bytes_per_element(dd), l.ep));
            add(k.collective(collective_op::all_to_all, disp * b, l.ep));
        } else {
            add(k.collective(collective_op::all_gather, T * h * b, l.tp * l.dp));
            add(k.collective(collective_op::reduce_scatter, T * h * b, l.tp * l.dp));
        }
    }
    const double E = c.num_experts, topk = c.experts_per_token;
    const double active_local = c.is_moe() ? E * -std::expm1(T * k.log_idle) / l.ep : 0.0;
    const double pairs = T * topk / l.ep;

    for (const auto& kc : k.classes) {
        const double n = first ? kc.layers_first : kc.layers_last;
        if (n <= 0) continue;
        // dense_gemm
        out.add(ph(step_phase::dense_gemm), n, kc.dg_s_tok * T_dp + kc.dg_s_kvb * kvb_tokens,
                kc.dg_b0 + kc.dg_b_tok * T_dp + kc.dg_b_kvb * kvb_tokens, 0, kc.dg_launches * launch,
                kc.dg_j_tok * T_dp + kc.dg_j_kvb * kvb_tokens, k);
        // attention (one group)
        if (kc.linear && g_dp.count > 0 && g_dp.new_tokens > 0) {
            const double nn = g_dp.new_tokens;
            const double flops = g_dp.count * nn * linear_attention_flops_per_token(kc.la, nn);
            out.add(ph(step_phase::attention), n, flops * kc.s_per_math_flop,
                    g_dp.count * (2.0 * kc.la.state_bytes() + nn * kc.la_b_tok), 0, 2 * launch,
                    flops * kc.j_per_math_flop, k);
        } else if (g_dp.count > 0 && g_dp.new_tokens > 0) {
            const auto& a = kc.shape;
            const double cap = a.index_topk > 0 ? a.index_topk : a.window;
            const double nn = g_dp.new_tokens, total = g_dp.context_tokens + g_dp.new_tokens;
            const double pairs_seq = attention_pairs(g_dp, cap, true);
            // MLA decode runs absorbed, prefill expanded (GQA: both forms are the same).
            const double fpp = decode ? kc.fpp_absorbed : kc.fpp_expanded;
            const double qo = decode ? kc.qo_absorbed : kc.qo_expanded;
            double keys_read = total;
            if (a.window > 0) keys_read = std::min(total, a.window + nn - 1);
            if (a.index_topk > 0) keys_read = std::min(total, a.index_topk * nn);
            const double flops = g_dp.count * pairs_seq * fpp;
            double bytes_seq = keys_read * kc.kv_tok_bytes + nn * kc.kv_tok_bytes + nn * a.heads * qo * b;
            double s = flops * kc.s_per_math_flop, j = flops * kc.j_per_math_flop;
            if (a.index_topk > 0) {
                const double ipairs = attention_pairs(g_dp, 0.0, true);
                const double iflops = g_dp.count * ipairs * 2.0 * a.index_n_heads * a.index_head_dim;
                s += iflops * kc.s_per_index_flop;
                j += iflops * kc.j_per_index_flop;
                bytes_seq += total * a.index_key_bytes + nn * a.index_key_bytes + nn * a.index_n_heads * a.index_head_dim +
                             nn * a.index_topk * 4.0;
            }
            out.add(ph(step_phase::attention), n, s, g_dp.count * bytes_seq, 0,
                    (a.index_topk > 0 ? 3 : 1) * launch, j, k);
        }
        // norm_elementwise
        out.add(ph(step_phase::norm_elementwise), n, 0, kc.ne_b_tdp * T_dp, 0, kc.ne_launches * launch, 0, k);
        // moe_gemm
        if (kc.moe)
            out.add(ph(step_phase::moe_gemm), n, kc.mo_s_tdp * T_dp + kc.ex_s_pair * pairs,
                    kc.mo_b0 + kc.mo_b_tdp * T_dp + active_local * kc.ex_b_active + pairs * kc.ex_b_pair, 0,
                    kc.mo_launches * launch, kc.mo_j_tdp * T_dp + kc.ex_j_pair * pairs, k);
        // communication
        {
            double link = ar.link_bytes, lat = ar.latency_s, launches = ar.launches;
            if (kc.second_all_reduce) {
                link += ar.link_bytes;
                lat += ar.latency_s;
                launches += ar.launches;
            } else {
                link += moe_comm.link_bytes;
                lat += moe_comm.latency_s;
                launches += moe_comm.launches;
            }
            out.add(ph(step_phase::communication), n, 0, 0, link, launches * launch + lat, 0, k);
        }
    }
    // Extras: embedding (first stage), final norm, lm_head, logits gather, sampling (last stage),
    // pipeline hand-off.
    double ne_bytes = 0, ne_launch = 0;
    if (first) {
        ne_bytes += 2 * T_dp * h * b;
        ne_launch += 1;
    }
    double comm_link = 0, comm_lat = 0, comm_launch = 0;
    if (last) {
        const double rows = group.count / dp;
        ne_bytes += 2 * T_dp * h * b;
        ne_launch += 1;
        out.add(ph(step_phase::dense_gemm), 1, k.head_s_row * rows, k.head_b0 + k.head_b_row * rows, 0, launch,
                k.head_j_row * rows, k);
        const auto ag = k.collective(collective_op::all_gather, rows * c.vocab_size * b, l.tp);
        comm_link += ag.link_bytes;
        comm_lat += ag.latency_s;
        comm_launch += ag.launches;
        out.add(ph(step_phase::sampling), 1, 0, 3.0 * rows * c.vocab_size * 4.0, 0, 3 * launch, 0, k);
    }
    if (ne_launch > 0) out.add(ph(step_phase::norm_elementwise), 1, 0, ne_bytes, 0, ne_launch * launch, 0, k);
    if (l.pp > 1) {
        comm_link += T_dp * h * b;
        comm_lat += k.link.base_latency_s + k.link.alpha_s;
        comm_launch += 1;
    }
    if (comm_launch > 0) out.add(ph(step_phase::communication), 1, 0, 0, comm_link, comm_launch * launch + comm_lat, 0, k);
}

/// Prices terms with compute times scaled by `compute_scale` (peak clock / clock in force):
/// per term max(compute, memory, link) + latency, as `time_lower_bound`, times its multiplicity.
inline fast_step price_terms(const step_terms& st, double compute_scale = 1.0) {
    fast_step f;
    std::array<std::array<double, 5>, step_phase_count> phase_bound{};
    for (const auto& t : st.terms) {
        const double cs = t.compute_s * compute_scale;
        const double roof = std::max({cs, t.memory_s, t.link_s});
        const double lb = roof + t.latency_s;
        bound pred = bound::latency;
        if (t.latency_s > roof) pred = bound::latency;
        else if (roof == cs && roof > 0.0) pred = bound::compute;
        else if (roof == t.memory_s && roof > 0.0) pred = bound::memory;
        else if (roof == t.link_s && roof > 0.0) pred = bound::communication;
        auto& p = f.phases[t.phase];
        p.lower_bound_s += t.layers * lb;
        p.compute_s += t.layers * cs;
        p.memory_s += t.layers * t.memory_s;
        p.link_s += t.layers * t.link_s;
        p.latency_s += t.layers * t.latency_s;
        f.by_bound[static_cast<std::size_t>(pred)] += t.layers * lb;
        phase_bound[t.phase][static_cast<std::size_t>(pred)] += t.layers * lb;
        f.flop_joules += t.layers * t.flop_joules;
        f.dram_bytes += t.layers * t.dram_bytes;
    }
    for (std::size_t i = 0; i < step_phase_count; ++i) {
        if (!(f.phases[i].lower_bound_s > 0)) continue;  // an empty phase stays `latency`
        // As `price_step`: the bound with the most time, latency unless another has more.
        std::size_t best = static_cast<std::size_t>(bound::latency);
        for (std::size_t b = 0; b < 5; ++b)
            if (phase_bound[i][b] > phase_bound[i][best]) best = b;
        f.phases[i].predicted = static_cast<bound>(best);
        f.lower_bound_s += f.phases[i].lower_bound_s;
    }
    return f;
}

/// Step time only, at a compute scale (for the power-limit search).
inline double step_seconds(const step_terms& st, double compute_scale) {
    double s = 0;
    for (const auto& t : st.terms) s += t.layers * (std::max({t.compute_s * compute_scale, t.memory_s, t.link_s}) + t.latency_s);
    return s;
}

}  // namespace detail::plan

/// The step of one sequence group (decode: new_tokens <= max_decode_step_tokens) on stage
/// `stage` (-1: the last, as `model_step`), priced by the fast path. Equal to
/// `price_step(model_step(...), gpu.modeled)` for the same layout, link and KV dtype of `model`
/// (to rounding).
inline fast_step evaluate_step(const step_coefficients& k, const sequence_group& group, int stage = -1) {
    detail::plan::step_terms st;
    st.terms.reserve(k.classes.size() * 5 + 4);
    detail::plan::build_terms(k, group, stage < 0 ? k.layout.pp - 1 : stage, st);
    return detail::plan::price_terms(st);
}

/// A step under the GPU's power limit: the clock at which modeled board power fits.
struct powered_step {
    fast_step step;               ///< priced at the clock in force
    double clock_hz = 0;          ///< SM clock in force
    double power_w = std::numeric_limits<double>::quiet_NaN();  ///< board power over the step
    bool capped = false;          ///< the limit held the clock below its top
};

namespace detail::plan {

/// Board power of a step at clock f (P = static + (E_flop (f/f_ref)^(x-1) + e_dram B) / t).
inline double step_power(const step_coefficients& k, double flop_j, double dram_bytes, double t, double f) {
    const auto& p = *k.gpu->power;
    const double r = f / p.reference_clock_hz;
    const double scale = p.clock_exponent == 3.0 ? r * r : std::pow(r, p.clock_exponent - 1.0);
    return p.static_w + (flop_j * scale + k.e_dram * dram_bytes) / t;
}

/// Prices `st` at the highest clock whose board power fits the limit; at the top clock when power
/// is unknown. P(f) grows with f; the root of P(f) = limit in [0.05, 1] x top clock is found by
/// the Illinois variant of regula falsi (bisection where it stalls) to 1e-10 of the limit.
inline powered_step price_powered(const step_coefficients& k, const step_terms& st) {
    powered_step r;
    const plan_gpu& g = *k.gpu;
    const double top = g.top_clock_hz > 0 ? g.top_clock_hz : 1.0;
    const double peak = g.peak_clock_hz > 0 ? g.peak_clock_hz : top;
    r.clock_hz = top;
    r.step = price_terms(st, peak / top);
    if (!k.power_known || !(r.step.lower_bound_s > 0)) return r;
    const double fj = r.step.flop_joules, bytes = r.step.dram_bytes;
    r.power_w = step_power(k, fj, bytes, r.step.lower_bound_s, top);
    if (r.power_w <= g.power_limit_w) return r;
    const double limit = g.power_limit_w;
    const auto excess = [&](double f) { return step_power(k, fj, bytes, step_seconds(st, peak / f), f) - limit; };
    double a = 0.05 * top, b = top;
    double ga = excess(a), gb = r.power_w - limit;
    double clock = a;  // when even the floor clock draws more than the limit (static power above it)
    if (ga <= 0) {
        int side = 0;
        double x = a, gx = ga;
        for (int i = 0; i < 200; ++i) {
            x = (a * gb - b * ga) / (gb - ga);
            if (!(x > a && x < b)) x = 0.5 * (a + b);
            gx = excess(x);
            if (std::abs(gx) <= 1e-10 * limit || b - a <= 1e-12 * top) break;
            if (gx > 0) {
                b = x;
                gb = gx;
                if (side < 0) ga *= 0.5;
                side = -1;
            } else {
                a = x;
                ga = gx;
                if (side > 0) gb *= 0.5;
                side = 1;
            }
        }
        clock = gx <= 1e-10 * limit ? x : a;
    }
    const double hi = clock;
    r.clock_hz = hi;
    r.capped = true;
    r.step = price_terms(st, peak / hi);
    r.power_w = step_power(k, fj, bytes, r.step.lower_bound_s, hi);
    return r;
}

}  // namespace detail::plan

/// `evaluate_step` at the GPU's power limit (where its power coefficients are known), with the
/// compute ceilings scaled to the clock in force (never above the clock the peaks assume).
inline powered_step evaluate_step_powered(const step_coefficients& k, const sequence_group& group, int stage = -1) {
    detail::plan::step_terms st;
    st.terms.reserve(k.classes.size() * 5 + 4);
    detail::plan::build_terms(k, group, stage < 0 ? k.layout.pp - 1 : stage, st);
    return detail::plan::price_powered(k, st);
}

// =============================================================================================
// The plan
// =============================================================================================

/// The 13 concurrencies of a default sweep: 1, 2, 4, ..., 4096 requests in flight.
inline std::vector<double> default_plan_concurrencies() {
    std::vector<double> c;
    for (int i = 0; i <= 12; ++i) c.push_back(static_cast<double>(1 << i));
    return c;
}

/// What to plan.
struct plan_request {
    std::vector<gpu_spec> gpus;                ///< candidate GPUs
    std::vector<int> counts;                   ///< GPUs per deployment
    double isl = 0, osl = 0;                   ///< tokens per request (input, output)
    std::vector<double> concurrencies = default_plan_concurrencies();  ///< requests in flight per deployment
    /// Also evaluate each layout at the KV-limited maximum concurrency its points report, when
    /// that lies between the smallest and largest concurrency and is not one of them.
    bool evaluate_kv_limit = true;
    /// Build each (GPU, count)'s own front (`plan_result::series_fronts`, what the chart
    /// draws). false: it stays empty, and a long sweep no longer keeps those fronts (with 130
    /// concurrencies they held 210 MB on GLM-5 x every GPU x counts 1-64).
    bool keep_series_fronts = true;
    std::optional<double> ttft_slo_s, tpot_slo_s;
    std::optional<dtype> kv_cache;             ///< default: the model's quantisation `kv_cache`
    dtype activations = dtype::bf16;
    double prefill_chunk_tokens = default_prefill_chunk_tokens;
    double memory_utilization = default_memory_utilization;
    kernel_efficiency efficiency;
    plan_layout_space layouts;
    bool power_limit = true;  ///< price at the default power limit where power coefficients are known
    /// Price at datasheet ceilings and links (speed of light) instead of achievable ones.
    bool speed_of_light = false;
    /// Collective link parameters for every GPU instead of the default or measured profile.
    std::optional<link_params> link_override;
    /// GPUs one instance may span, for every GPU instead of `scale_up_domain` (0: no limit).
    std::optional<int> max_gpus_per_instance;
    /// A calibration overlay (`roofline calibrate`), applied to the GPU it was made on (every GPU
    /// when it names none): its measured ceilings, CUDA-graph launch floor, link and power
    /// coefficients replace the modeled ones. Not applied at speed of light.
    std::optional<calibration> calibrated;
    /// Speculative decoding (MTP heads or a draft model): each decode step becomes a
    /// verification step of k + 1 tokens per sequence plus k drafting passes priced as one layer
    /// each (an MTP head is one transformer layer; a separate draft model's cost is not priced),
    /// emitting `tokens_per_step()` tokens per sequence. nullopt: plain decode.
    std::optional<speculative_decoding> speculative;
};

/// Why a configuration was rejected.
enum class plan_rejection : std::uint8_t {
    none,
    idle_instances,  ///< fewer requests in flight than model instances
    weights,         ///< the weights alone exceed usable memory
    activations,     ///< weights + activations exceed usable memory
    kv_cache,        ///< the KV cache of the requests in flight does not fit beside them
    unpriced,        ///< the GPU cannot price this layout (unknown peak, memory or link)
};

/// "", "idle_instances", "weights", "activations", "kv_cache", "unpriced".
constexpr std::string_view to_string(plan_rejection r) {
    constexpr std::array<std::string_view, 6> names = {"", "idle_instances", "weights", "activations", "kv_cache",
                                                       "unpriced"};
    return names[static_cast<std::size_t>(r)];
}

/// One evaluated configuration. Rates are per deployment unless the name says per GPU or user;
/// times of rejected points are NaN.
struct plan_point {
    std::uint16_t gpu = 0;  ///< index into `plan_request::gpus`
    int count = 1;
    parallel_layout layout;
    int instances = 1;
    double concurrency = 0;  ///< requests in flight over the deployment
    plan_rejection rejection = plan_rejection::none;
    std::uint16_t unpriced_reason = 0;  ///< index into `plan_result::unpriced` when rejection == unpriced
    bool meets_slo = false;

    // Memory per GPU (bytes) and what the KV cache holds; NaN when not checked (idle, unpriced).
    double usable_bytes = std::numeric_limits<double>::quiet_NaN();
    double weight_bytes = std::numeric_limits<double>::quiet_NaN();
    double activation_bytes = std::numeric_limits<double>::quiet_NaN();
    double kv_bytes = std::numeric_limits<double>::quiet_NaN();
    double kv_bytes_per_sequence = std::numeric_limits<double>::quiet_NaN();
    /// Requests the KV caches of the deployment hold at ISL + OSL tokens each.
    double max_concurrency = std::numeric_limits<double>::quiet_NaN();

    // Steps (the bottleneck pipeline stage) and the steady state.
    double decode_step_s = std::numeric_limits<double>::quiet_NaN();   ///< one decode step of C / (instances pp)
    double prefill_step_s = std::numeric_limits<double>::quiet_NaN();  ///< one prefill chunk step
    double prefill_tokens = 0;   ///< prompt tokens in the chunk
    /// TTFT: the prompt's own prefill chunks through the pipeline plus the closed-loop queue
    /// ahead of it (`closed_loop_queue_s`: half the wave's other prompts and half a decode step).
    double ttft_s = std::numeric_limits<double>::quiet_NaN();
    double ttft_prefill_s = std::numeric_limits<double>::quiet_NaN();  ///< the prompt's own chunks
    double ttft_queue_s = std::numeric_limits<double>::quiet_NaN();    ///< waiting before them
    /// Time between one request's tokens: its decode steps and the other requests' prefill
    /// between them (`inter_token_s`).
    double tpot_s = std::numeric_limits<double>::quiet_NaN();
    /// The deployment's capacity at this concurrency (`steady_state`: every instance busy, every
    /// request decoding, its prefill in the busy time): an upper bound. A closed loop at this
    /// TTFT and TPOT serves C x OSL / (TTFT + (OSL - 1) TPOT) (Little's law; `estimate` prints
    /// that), less where the TTFT's wave queue, which overstates a steady closed loop's, is long.
    double output_tokens_per_s = std::numeric_limits<double>::quiet_NaN();
    double tokens_per_s_per_gpu = std::numeric_limits<double>::quiet_NaN(); ///< (input + output) / count
    double tokens_per_s_per_user = std::numeric_limits<double>::quiet_NaN();///< output, 1 / TPOT
    double decode_share = std::numeric_limits<double>::quiet_NaN();
    /// The bound with the most time in the decode step / the prefill chunk; `power` when the power
    /// limit holds the clock down in a compute-bound step.
    bound decode_bound = bound::latency, prefill_bound = bound::latency;
    /// The bound with the most time over the busy cycle (decode and prefill by their shares).
    bound overall_bound = bound::latency;
    step_phase decode_phase = step_phase::attention, prefill_phase = step_phase::attention;  ///< dominant phases
    /// Share of the decode step / the prefill chunk step spent in each `step_phase` (indexed by
    /// the enum; sums to 1, all 0 when the step takes no time): splits the step into attention,
    /// dense GEMM, MoE GEMM, communication, norm/elementwise and sampling time.
    std::array<double, step_phase_count> decode_phase_share{}, prefill_phase_share{};

    // Power per GPU at the enforced (default) limit; NaN where the coefficients are unknown.
    double power_limit_w = std::numeric_limits<double>::quiet_NaN();
    double power_w = std::numeric_limits<double>::quiet_NaN();          ///< mean board power while busy
    double clock_fraction = std::numeric_limits<double>::quiet_NaN();   ///< decode clock / top clock
    bool power_capped = false;
    double energy_per_token_j = std::numeric_limits<double>::quiet_NaN();         ///< per input+output token
    double energy_per_output_token_j = std::numeric_limits<double>::quiet_NaN();
    double energy_per_token_at_limit_j = std::numeric_limits<double>::quiet_NaN(); ///< limit / (tok/s per GPU): the most

    bool fits() const { return rejection == plan_rejection::none; }
};

/// The result of a plan. Fronts hold copies of their points.
struct plan_result {
    std::vector<plan_point> points;   ///< every point, in evaluation order (when kept)
    std::vector<plan_point> pareto;   ///< the front over fitting, SLO-meeting points, by interactivity
    /// Each (GPU, count)'s own front over fitting, SLO-meeting points, for charts.
    std::vector<plan_point> series_fronts;
    std::size_t points_evaluated = 0;
    std::size_t layouts_evaluated = 0;  ///< (GPU, count, layout) combinations
    std::size_t fitting = 0;            ///< points that fit in memory
    std::size_t meeting_slo = 0;        ///< points that fit and meet the SLOs
    std::array<std::size_t, 6> rejected{};  ///< points per `plan_rejection`
    std::vector<std::string> gpu_ids;
    std::vector<std::string> unpriced;  ///< why GPUs or layouts could not be priced (each reason once)
    std::vector<std::string> notes;
    double kv_bytes_per_token = 0;      ///< whole model, at the KV dtype
    dtype kv_cache = dtype::bf16;
    std::optional<double> ttft_slo_s, tpot_slo_s;  ///< the request's limits (s), for `describe_slo_miss`
};

namespace detail::plan {

inline std::string fmt(double v, int digits = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}
/// Requests in flight: a whole number as such, a fractional one (a mean) to two decimals,
/// "1.50", not rounded to a count.
inline std::string fmt_requests(double v) { return fmt(v, v == std::round(v) ? 0 : 2); }
/// `fmt_requests` with its noun: "1 request", "1.50 requests", "8 requests".
inline std::string requests_text(double v) { return fmt_requests(v) + (v == 1 ? " request" : " requests"); }
/// Bytes with a decimal prefix and one decimal: "86.4 GB", "515.2 kB".
inline std::string gb(double bytes) {
    if (bytes >= 1e9) return fmt(bytes / 1e9, 1) + " GB";
    if (bytes >= 1e6) return fmt(bytes / 1e6, 1) + " MB";
    if (bytes >= 1e3) return fmt(bytes / 1e3, 1) + " kB";
    return fmt(bytes) + " B";
}

/// The last prefill step priced for a layout: the chunk is the same for every concurrency
/// above ISL x requests >= chunk, so most points reuse it.
struct prefill_cache {
    bool valid = false;
    sequence_group group;
    powered_step step;
};

/// Evaluates one configuration into `p` (memory, steps, steady state, power).
inline void evaluate_point(const plan_request& rq, const plan_model& m, const step_coefficients& k,
                           const plan_layout& pl, double kv_seq_bytes, double weight_bytes, double concurrency,
                           step_terms& scratch, prefill_cache& cache, plan_point& p) {
    const model_config& c = *m.config;
    const plan_gpu& g = *k.gpu;
    const parallel_layout& l = pl.layout;
    p.concurrency = concurrency;
    p.power_limit_w = g.power_limit_w;
    if (!k.unpriced.empty()) {
        p.rejection = plan_rejection::unpriced;
        return;
    }
    if (concurrency < pl.instances) {
        p.rejection = plan_rejection::idle_instances;
        return;
    }
    const double c_inst = concurrency / pl.instances;
    const double b_dec = c_inst / l.pp;
    const double draft = rq.speculative ? rq.speculative->draft_tokens : 0;  // tokens drafted per step
    const auto chunk = dp_prefill_chunk(rq.isl, c_inst, rq.prefill_chunk_tokens, l.dp);
    const double act = std::max(activation_bytes_per_gpu(c, l, chunk.tokens, chunk.group.count, m.activations),
                                activation_bytes_per_gpu(c, l, b_dec * (1 + draft), b_dec, m.activations));
    const auto mem = check_memory(g.memory_bytes, weight_bytes, act, kv_seq_bytes, c_inst / l.dp, rq.memory_utilization);
    p.usable_bytes = mem.usable_bytes;
    p.weight_bytes = mem.weight_bytes;
    p.activation_bytes = mem.activation_bytes;
    p.kv_bytes = mem.kv_bytes;
    p.kv_bytes_per_sequence = kv_seq_bytes;
    p.max_concurrency = std::floor(mem.max_sequences) * l.dp * pl.instances;
    switch (mem.verdict) {
        case memory_verdict::fits: break;
        case memory_verdict::weights: p.rejection = plan_rejection::weights; return;
        case memory_verdict::activations: p.rejection = plan_rejection::activations; return;
        case memory_verdict::kv_cache: p.rejection = plan_rejection::kv_cache; return;
    }

    // Steps: the slower of the first and the last pipeline stage (middle stages hold the same
    // layers as the first without the embedding). A speed of light has no power cap.
    const bool powered = rq.power_limit && !rq.speed_of_light;
    const auto priced = [&](const sequence_group& grp) {
        powered_step best;
        for (int stage : {l.pp - 1, 0}) {
            scratch.clear();
            build_terms(k, grp, stage, scratch);
            auto s = powered ? price_powered(k, scratch) : powered_step{price_terms(scratch), 0, 0, false};
            if (!powered) s.power_w = std::numeric_limits<double>::quiet_NaN();
            if (stage == l.pp - 1 || s.step.lower_bound_s > best.step.lower_bound_s) best = s;
            if (l.pp == 1) break;
        }
        return best;
    };
    const auto dec = priced({b_dec, 1.0 + draft, mean_decode_context_tokens(rq.isl, rq.osl)});
    const auto& g_pre = chunk.group;
    if (!(cache.valid && cache.group.count == g_pre.count && cache.group.new_tokens == g_pre.new_tokens &&
          cache.group.context_tokens == g_pre.context_tokens)) {
        cache.step = priced(g_pre);
        cache.group = g_pre;
        cache.valid = true;
    }
    const powered_step& pre = cache.step;
    // Speculation: the verification step plus `draft` one-layer drafting passes, emitting
    // tokens_per_step tokens per sequence (the steady state sees the step per emitted token).
    p.decode_step_s = dec.step.lower_bound_s * (1.0 + draft / std::max(1, c.num_layers));
    const double emitted = rq.speculative ? rq.speculative->tokens_per_step() : 1.0;
    p.prefill_step_s = pre.step.lower_bound_s;
    p.prefill_tokens = chunk.tokens;
    const double ratio = rq.isl / rq.osl;
    const auto rates = steady_state(p.decode_step_s / emitted, b_dec, c_inst, p.prefill_step_s / chunk.tokens, ratio);
    // Prompts of the chunk per attention-DP rank: the queue counts those ahead of this one.
    const double per_rank = chunk.group.count / std::max(1, l.dp);
    p.ttft_prefill_s = steady_ttft_s(p.prefill_step_s, chunk.chunks_per_prompt, l.pp, per_rank);
    p.ttft_queue_s = closed_loop_queue_s(c_inst, rq.isl, p.prefill_step_s / chunk.tokens, p.decode_step_s);
    p.ttft_s = p.ttft_prefill_s + p.ttft_queue_s;
    // TPOT between a request's tokens: its decode steps and the others' prefill between them
    // (rates.tpot_s, C / r_out, would spread its own prompt over its tokens as well).
    p.tpot_s = inter_token_s(l.pp * p.decode_step_s / emitted, c_inst, rq.isl, rq.osl, p.prefill_step_s / chunk.tokens);
    p.output_tokens_per_s = pl.instances * rates.output_tokens_per_s;
    p.tokens_per_s_per_gpu = pl.instances * rates.total_tokens_per_s / p.count;
    p.tokens_per_s_per_user = 1.0 / p.tpot_s;
    p.decode_share = rates.decode_share;
    for (std::size_t i = 0; i < step_phase_count; ++i) {
        if (dec.step.lower_bound_s > 0) p.decode_phase_share[i] = dec.step.phases[i].lower_bound_s / dec.step.lower_bound_s;
        if (pre.step.lower_bound_s > 0) p.prefill_phase_share[i] = pre.step.phases[i].lower_bound_s / pre.step.lower_bound_s;
    }
    p.decode_phase = dec.step.dominant_phase();
    p.prefill_phase = pre.step.dominant_phase();
    p.decode_bound = dec.step.dominant_bound();
    p.prefill_bound = pre.step.dominant_bound();
    if (dec.capped && p.decode_bound == bound::compute) p.decode_bound = bound::power;
    if (pre.capped && p.prefill_bound == bound::compute) p.prefill_bound = bound::power;
    // The bound over the busy cycle: time per bound, weighted by each stage's share.
    std::array<double, 5> cycle{};
    const double wd = rates.decode_share / std::max(p.decode_step_s, 1e-300);
    const double wp = (1.0 - rates.decode_share) / std::max(p.prefill_step_s, 1e-300);
    for (std::size_t i = 0; i < cycle.size(); ++i) cycle[i] = wd * dec.step.by_bound[i] + wp * pre.step.by_bound[i];
    std::size_t best = static_cast<std::size_t>(bound::latency);
    for (std::size_t i = 0; i < cycle.size(); ++i)
        if (cycle[i] > cycle[best]) best = i;
    p.overall_bound = static_cast<bound>(best);
    if (p.overall_bound == bound::compute && ((dec.capped && rates.decode_share >= 0.5) || (pre.capped && rates.decode_share < 0.5)))
        p.overall_bound = bound::power;
    p.power_capped = dec.capped || pre.capped;
    if (std::isfinite(dec.power_w) && std::isfinite(pre.power_w)) {
        p.power_w = rates.decode_share * dec.power_w + (1.0 - rates.decode_share) * pre.power_w;
        p.clock_fraction = dec.clock_hz / g.top_clock_hz;
        p.energy_per_token_j = p.power_w / p.tokens_per_s_per_gpu;
        p.energy_per_output_token_j = p.power_w * p.count / p.output_tokens_per_s;
    }
    if (std::isfinite(g.power_limit_w)) p.energy_per_token_at_limit_j = g.power_limit_w / p.tokens_per_s_per_gpu;
    p.meets_slo = (!rq.ttft_slo_s || p.ttft_s <= *rq.ttft_slo_s) && (!rq.tpot_slo_s || p.tpot_s <= *rq.tpot_slo_s);
}

}  // namespace detail::plan

/// Evaluates every configuration of `rq` for model `c` (its quantisation applied) and calls
/// `visit(const plan_point&)` for each, in order: GPU, count, layout, concurrency. Points are not
/// kept (`result.points` stays empty); fronts and counts are. Throws `usage_error` for a request
/// without GPUs, counts or concurrencies, or with lengths below one token.
template <class Visit>
plan_result run_plan(const model_config& c, const plan_request& rq, Visit&& visit) {
    if (rq.gpus.empty()) throw usage_error("plan: no GPUs given");
    if (rq.counts.empty()) throw usage_error("plan: no GPU counts given");
    if (rq.concurrencies.empty()) throw usage_error("plan: no concurrencies given");
    if (!(rq.isl >= 1) || !(rq.osl >= 1)) throw usage_error("plan: ISL and OSL must be >= 1 token");
    if (rq.speculative && (rq.speculative->draft_tokens < 1 || !(rq.speculative->acceptance_rate >= 0) ||
                           !(rq.speculative->acceptance_rate < 1)))
        throw usage_error("plan: speculative decoding needs >= 1 draft token and an acceptance rate in [0, 1)");
    for (int n : rq.counts)
        if (n < 1) throw usage_error("plan: GPU counts must be >= 1");
    for (double x : rq.concurrencies)
        if (!(x >= 1) || !std::isfinite(x)) throw usage_error("plan: concurrencies must be >= 1");
    if (rq.gpus.size() > 65535) throw usage_error("plan: too many GPUs");

    model_config model = c;
    if (rq.kv_cache) model.quant.kv_cache = *rq.kv_cache;
    plan_result out;
    out.ttft_slo_s = rq.ttft_slo_s;
    out.tpot_slo_s = rq.tpot_slo_s;
    out.kv_cache = model.quant.kv_cache;
    out.kv_bytes_per_token = kv_bytes_per_token(model, model.quant.kv_cache);
    const plan_model pm = digest_model(model, rq.activations);
    std::vector<plan_gpu> gpus;
    gpus.reserve(rq.gpus.size());
    std::string no_power;
    for (const auto& g : rq.gpus) {
        gpus.push_back(prepare_gpu(g, rq.efficiency, rq.speed_of_light, rq.link_override));
        if (rq.max_gpus_per_instance) {
            gpus.back().scale_up_gpus = *rq.max_gpus_per_instance;
            gpus.back().scale_up_source = "as requested";
        }
        out.gpu_ids.push_back(g.id);
        if (!g.peak(peak_key::bf16).supported && g.peak(peak_key::fp16).supported)
            out.notes.push_back(g.id + " has no bf16 units: bf16 work is priced at its fp16 rate (engines serve "
                                       "16-bit models in fp16 there)");
        if (rq.calibrated && !rq.speed_of_light && gpus.back().unpriced.empty() &&
            (rq.calibrated->gpu.empty() || rq.calibrated->gpu == g.id)) {
            // As `analyze --calibration`: measured ceilings in, each kernel at the graph launch floor.
            const auto& cal = *rq.calibrated;
            auto& pg = gpus.back();
            const double launch = pg.modeled.launch_latency_s;
            pg.modeled = apply_calibration(pg.modeled, cal);
            pg.modeled.launch_latency_s = cal.graph_launch_latency_s.value_or(launch);
            if (const auto* l = cal.link_for(pg.modeled.link); l && !rq.link_override) {
                pg.link = l->params;
                pg.modeled.link_bytes_per_s = l->params.beta_bytes_per_s;
                if (pg.domain_link) pg.domain_link->beta_bytes_per_s = l->params.beta_bytes_per_s;
            }
            if (auto pc = calibrated_power_coefficients(cal)) pg.power = *pc;
            out.notes.push_back(g.id + ": calibrated by " + (cal.source.empty() ? std::string("an overlay") : cal.source));
            if (const std::string n = unreliable_power_note(
                    cal, "clocks and throughput under a power limit priced from it may be off");
                !n.empty())
                out.notes.push_back(g.id + ": " + n);
        }
        if (gpus.back().unpriced.empty() && !gpus.back().power && rq.power_limit && !rq.speed_of_light)
            no_power += (no_power.empty() ? "" : ", ") + g.id;
    }
    if (!no_power.empty())
        out.notes.push_back("no power coefficients for " + no_power + " (models/power.hpp has the H200 SXM's, "
                            "measured, and the RTX PRO 6000 editions', from a published power-limit sweep): power "
                            "not modeled; energy per token at the power limit is an upper bound");
    // KV bytes of one full-length sequence (ISL + OSL tokens), and each TP degree's share of it.
    const double kv_full = kv_token_bytes_for_context(model, rq.isl + rq.osl, model.quant.kv_cache);
    const double state_full = linear_state_bytes_per_sequence(model);  // linear-attention layers
    int max_count = 1;
    for (int n : rq.counts) max_count = std::max(max_count, n);
    std::vector<double> kv_share(static_cast<std::size_t>(max_count) + 1, -1.0);
    std::vector<std::vector<plan_layout>> layouts;
    for (int n : rq.counts) layouts.push_back(enumerate_layouts(model, n, rq.layouts));

    pareto_accumulator<plan_point> front;
    std::vector<pareto_accumulator<plan_point>> series(gpus.size() * rq.counts.size());
    detail::plan::step_terms scratch;
    scratch.terms.reserve(pm.classes.size() * 5 + 8);
    for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
        for (std::size_t ni = 0; ni < rq.counts.size(); ++ni) {
            auto& series_front = series[gi * rq.counts.size() + ni];
            for (const auto& pl : layouts[ni]) {
                const auto k = step_coefficients::build(pm, gpus[gi], pl.layout);
                ++out.layouts_evaluated;
                std::uint16_t reason = 0;
                if (!k.unpriced.empty()) {
                    auto it = std::find(out.unpriced.begin(), out.unpriced.end(), k.unpriced);
                    if (it == out.unpriced.end()) it = out.unpriced.insert(it, k.unpriced);
                    reason = static_cast<std::uint16_t>(std::min<std::ptrdiff_t>(it - out.unpriced.begin(), 65535));
                }
                const double weight_bytes = pm.weights.bytes_per_gpu(pl.layout);
                double& share = kv_share[static_cast<std::size_t>(pl.layout.tp)];
                if (share < 0) share = kv_share_per_gpu(model, model.quant.kv_cache, pl.layout.tp);
                const double kv_seq =
                    (kv_full * share + state_full * linear_state_share_per_gpu(model, pl.layout.tp)) / pl.layout.pp;
                detail::plan::prefill_cache cache;
                // The sweep's concurrencies, then the KV-limited maximum the points report when
                // it lies inside the sweep and is not one of its values (`evaluate_kv_limit`).
                double kv_limit = std::numeric_limits<double>::quiet_NaN();
                const auto [lo, hi] = std::minmax_element(rq.concurrencies.begin(), rq.concurrencies.end());
                const std::size_t n_conc = rq.concurrencies.size();
                for (std::size_t ci = 0; ci <= n_conc; ++ci) {
                    if (ci == n_conc && !(rq.evaluate_kv_limit && kv_limit >= std::max(*lo, 1.0) && kv_limit < *hi &&
                                          std::find(rq.concurrencies.begin(), rq.concurrencies.end(), kv_limit) ==
                                              rq.concurrencies.end()))
                        break;
                    const double conc = ci < n_conc ? rq.concurrencies[ci] : kv_limit;
                    plan_point p;
                    p.gpu = static_cast<std::uint16_t>(gi);
                    p.count = rq.counts[ni];
                    p.layout = pl.layout;
                    p.instances = pl.instances;
                    p.unpriced_reason = reason;
                    detail::plan::evaluate_point(rq, pm, k, pl, kv_seq, weight_bytes, conc, scratch, cache, p);
                    if (ci < n_conc && std::isfinite(p.max_concurrency) && p.max_concurrency >= pl.instances)
                        kv_limit = p.max_concurrency;
                    ++out.points_evaluated;
                    ++out.rejected[static_cast<std::size_t>(p.rejection)];
                    if (p.fits()) {
                        ++out.fitting;
                        if (p.meets_slo) {
                            ++out.meeting_slo;
                            front.add(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu, p);
                            if (rq.keep_series_fronts)
                                series_front.add(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu, p);
                        }
                    }
                    visit(static_cast<const plan_point&>(p));
                }
            }
        }
    }
    out.pareto = front.front();
    for (const auto& sf : series)
        for (auto& p : sf.front()) out.series_fronts.push_back(std::move(p));
    if (model.attention == attention_kind::mla)
        out.notes.push_back("MLA latent KV cache is replicated on every TP rank: attention DP (dp > 1) divides it");
    if (model.max_position_embeddings > 0 && rq.isl + rq.osl > model.max_position_embeddings)
        out.notes.push_back("context: ISL + OSL = " + detail::plan::fmt(rq.isl + rq.osl) +
                            " tokens, beyond the model's max_position_embeddings (" +
                            std::to_string(model.max_position_embeddings) +
                            "): an engine refuses such requests; priced as asked");
    out.notes.push_back("TTFT = the prompt's prefill chunks + the closed-loop queue: half the other requests' prompts "
                        "of a wave ahead of it and half a decode step (README: TTFT as queueing)");
    if (rq.speculative)
        out.notes.push_back("speculative decoding: " + std::to_string(rq.speculative->draft_tokens) +
                            (rq.speculative->draft_tokens == 1 ? " drafted token" : " drafted tokens") + " per step at " +
                            [&] {  // 0.999 is not 100%
                                const double pct = 100 * rq.speculative->acceptance_rate;
                                return detail::plan::fmt(pct, std::abs(pct - std::round(pct)) < 1e-9 ? 0 : 1);
                            }() +
                            "% acceptance emit " + detail::plan::fmt(rq.speculative->tokens_per_step(), 2) +
                            " tokens per verification step; each step verifies k + 1 tokens per sequence and "
                            "drafts k one-layer passes (MTP heads; a draft model's own cost is not priced)");
    out.notes.push_back("memory headroom assumed: " + detail::plan::fmt(100 * (1 - rq.memory_utilization)) +
                        "% of GPU memory left unused (the engine budgets " +
                        detail::plan::fmt(100 * rq.memory_utilization) + "%, vLLM's gpu_memory_utilization)");
    return out;
}

/// `run_plan` keeping every point in `result.points` (`keep_points`), or none.
inline plan_result run_plan(const model_config& c, const plan_request& rq, bool keep_points = true) {
    std::vector<plan_point> points;
    if (keep_points) {
        std::size_t n = 0;
        for (int count : rq.counts) n += enumerate_layouts(c, count, rq.layouts).size();
        points.reserve(n * rq.gpus.size() * (rq.concurrencies.size() + (rq.evaluate_kv_limit ? 1 : 0)));
    }
    auto r = run_plan(c, rq, [&](const plan_point& p) {
        if (keep_points) points.push_back(p);
    });
    r.points = std::move(points);
    return r;
}

/// Sizing to a load: the deployment that serves `requests_per_s` with the fewest GPUs.
struct load_sizing {
    double requests_per_s = 0;
    bool found = false;
    plan_point point;       ///< the deployment replicated (fits, meets the SLOs)
    double replicas = 0;    ///< ceil(load / the point's request rate)
    double gpus = 0;        ///< replicas x point.count
    double requests_per_s_per_replica = 0;  ///< output tok/s / OSL (closed loop at its concurrency)
};

/// Keeps, over visited points, the one that serves `requests_per_s` with the fewest GPUs in
/// replicas of itself; among those, first the ones whose closed loop at their own TTFT and
/// TPOT (Little's law: C / (TTFT + (OSL - 1) TPOT) requests/s) carries the load too, not only
/// their capacity, then the one fastest per user (more output tokens/s per user, then more
/// tokens/s per GPU): a replica need not run at more requests in flight than the load gives
/// it, so at 1 request/s the answer is not its largest batch. A point serves
/// output_tokens_per_s / OSL requests per second at its concurrency (its capacity); only
/// fitting, SLO-meeting points count.
struct load_sizer {
    load_sizing best;
    double osl = 1;
    bool best_carries = false;  ///< the kept point's closed loop carries the load too
    load_sizer(double requests_per_s, double osl_tokens) : osl(osl_tokens) { best.requests_per_s = requests_per_s; }
    void add(const plan_point& p) {
        if (!p.fits() || !p.meets_slo || !(p.output_tokens_per_s > 0)) return;
        const double rate = p.output_tokens_per_s / osl;
        const double replicas = std::ceil(best.requests_per_s / rate - 1e-12);
        const double gpus = replicas * p.count;
        const double closed_loop = closed_loop_output_tokens_per_s(p.concurrency, osl, p.ttft_s, p.tpot_s) / osl;
        const bool carries = replicas * closed_loop >= best.requests_per_s * (1 - 1e-12);  // requests/s
        const auto& b = best.point;
        if (!best.found || gpus < best.gpus ||
            (gpus == best.gpus &&
             (carries > best_carries ||
              (carries == best_carries &&
               (p.tokens_per_s_per_user > b.tokens_per_s_per_user ||
                (p.tokens_per_s_per_user == b.tokens_per_s_per_user && p.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu)))))) {
            best_carries = carries;
            best.found = true;
            best.point = p;
            best.replicas = replicas;
            best.gpus = gpus;
            best.requests_per_s_per_replica = rate;
        }
    }
};

/// One line saying why `p` was rejected, with the numbers ("" when it fits).
inline std::string describe_rejection(const plan_point& p, const plan_result& r) {
    using detail::plan::fmt;
    using detail::plan::gb;
    const std::string gpu = p.gpu < r.gpu_ids.size() ? r.gpu_ids[p.gpu] : std::string("?");
    switch (p.rejection) {
        case plan_rejection::none: return {};
        case plan_rejection::idle_instances:
            return detail::plan::requests_text(p.concurrency) + " in flight for " + std::to_string(p.instances) +
                   " model instances: some would sit idle";
        case plan_rejection::weights:
            return "weights need " + gb(p.weight_bytes) + " per GPU, more than the " + gb(p.usable_bytes) +
                   " usable of a " + gpu;
        case plan_rejection::activations:
            return "weights " + gb(p.weight_bytes) + " + activations " + gb(p.activation_bytes) + " per GPU exceed the " +
                   gb(p.usable_bytes) + " usable";
        case plan_rejection::kv_cache:
            return "the KV cache of " + fmt(p.concurrency) + " requests needs " + gb(p.kv_bytes) + " per GPU; " +
                   gb(std::max(0.0, p.usable_bytes - p.weight_bytes - p.activation_bytes)) +
                   " remain beside weights and activations (holds " + fmt(p.max_concurrency) + " requests)";
        case plan_rejection::unpriced:
            return p.unpriced_reason < r.unpriced.size() ? r.unpriced[p.unpriced_reason] : gpu + ": cannot be priced";
    }
    return {};
}

/// Why a point that fits misses the SLO: "TPOT 179.2 ms above the 100 ms limit" (and/or TTFT),
/// from `r`'s limits; empty when it fits none or meets them.
inline std::string describe_slo_miss(const plan_point& p, const plan_result& r) {
    if (!p.fits() || p.meets_slo) return {};
    using detail::plan::fmt;
    const auto ms = [](double s) { return fmt(s * 1e3, s < 0.1 ? 1 : 0) + " ms"; };
    std::string out;
    if (r.ttft_slo_s && p.ttft_s > *r.ttft_slo_s) out = "TTFT " + ms(p.ttft_s) + " above the " + ms(*r.ttft_slo_s) + " limit";
    if (r.tpot_slo_s && p.tpot_s > *r.tpot_slo_s)
        out += (out.empty() ? "" : "; ") + std::string("TPOT ") + ms(p.tpot_s) + " above the " + ms(*r.tpot_slo_s) + " limit";
    return out;
}

/// The point's rejection as the `--json`/`--csv` views name it: its `plan_rejection` when it does
/// not fit, "slo" when it fits but misses a limit, "none" otherwise.
inline std::string_view rejection_name(const plan_point& p) {
    if (!p.fits()) return to_string(p.rejection);
    return p.meets_slo ? std::string_view("none") : std::string_view("slo");
}

/// What the views print as the reason: `describe_rejection`, else `describe_slo_miss`.
inline std::string rejection_reason(const plan_point& p, const plan_result& r) {
    return p.fits() ? describe_slo_miss(p, r) : describe_rejection(p, r);
}

/// A measured (or claimed) operating point set against a plan point of the same deployment.
struct measurement_check {
    double implied_concurrency = 0;  ///< Little's law: output tok/s / tok/s per user
    double max_concurrency = 0;      ///< what the KV caches hold (the plan point's)
    double fraction_of_roof = 0;     ///< measured output tok/s / the point's roof
    bool consistent = true;
    std::string reason;              ///< why not, with the numbers
};

/// Checks `output_tokens_per_s` (deployment) at `tokens_per_s_per_user` against `roof` (case
/// C13): by Little's law the pair implies output / per-user streams decoding at once, which the
/// KV cache must hold; and the output rate must stay under the roof. Pass a NaN per-user rate
/// when only throughput is known. Throws `usage_error` for a non-positive throughput.
inline measurement_check check_measurement(const plan_point& roof, double output_tokens_per_s,
                                           double tokens_per_s_per_user = std::numeric_limits<double>::quiet_NaN()) {
    using detail::plan::fmt;
    if (!(output_tokens_per_s > 0)) throw usage_error("plan: measured throughput must be positive");
    measurement_check m;
    m.max_concurrency = roof.max_concurrency;
    if (tokens_per_s_per_user > 0) m.implied_concurrency = implied_concurrent_streams(output_tokens_per_s, tokens_per_s_per_user);
    if (roof.fits() && roof.output_tokens_per_s > 0) m.fraction_of_roof = output_tokens_per_s / roof.output_tokens_per_s;
    if (m.implied_concurrency > 0 && std::isfinite(roof.max_concurrency) && m.implied_concurrency > roof.max_concurrency) {
        m.consistent = false;
        m.reason = "Little's law: " + fmt(output_tokens_per_s) + " tok/s at " + fmt(tokens_per_s_per_user, 1) +
                   " tok/s per user means " + fmt(m.implied_concurrency) + " streams decoding at once, but the KV cache "
                   "holds " + fmt(roof.max_concurrency) + " (case C13)";
    } else if (m.fraction_of_roof > 1.0) {
        m.consistent = false;
        m.reason = fmt(output_tokens_per_s) + " output tok/s is " + fmt(100 * m.fraction_of_roof) + "% of the roof (" +
                   fmt(roof.output_tokens_per_s) + "): an input is wrong (lengths, layout, dtype, link) or the engine "
                   "does less work than modeled";
    }
    return m;
}

}  // namespace roofline
