// MoE: the grouped GEMM at real batch sizes.
//
// Each token picks k of E experts. Under uniform routing an expert gets T k / E tokens of a
// batch of T, and is idle for the whole batch with probability (1 - k/E)^T, so
//
//   active experts = E (1 - (1 - k/E)^T)
//
// and every active expert's weights stream once per step however few tokens it got. DeepSeek-V3
// (E = 256, k = 8) touches 8 experts per layer for one token but ~222 of 256 at 64 tokens: MoE
// decode streams far more bytes than its "active parameters", and an expert stays memory-bound
// until it has hundreds of tokens. Under expert parallelism (EP) the experts are split over the
// GPUs; a skewed router (Zipf: expert i picked with weight 1 / i^s) piles tokens on the GPUs
// holding the hot experts, and the busiest GPU sets the step: imbalance is a bound of its own.
#include "roofline/models/moe.hpp"

#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_significant;

// The question's parameters: batch range, expert-parallel degree, Zipf exponent of the skew.
constexpr double min_batch = 1, max_batch = 4096;
constexpr int ep_degree = 8;
constexpr double zipf_exponent = 1.0;

namespace {
moe_problem layer_of(const model_config& c, double tokens, const moe_routing& r) {
    moe_problem p;
    p.tokens = tokens;
    p.experts = c.num_experts;
    p.topk = c.experts_per_token;
    p.hidden = c.hidden_size;
    p.inter = c.moe_intermediate_size;
    p.shared_experts = c.num_shared_experts;
    p.shared_inter = c.shared_expert_width();
    p.weights = c.quant.weights;          // DeepSeek-V3 ships FP8 (E4M3, 128x128 block scales) ...
    p.activations = c.quant.activations;  // ... and quantises activations to FP8 on the fly
    p.ep = ep_degree;
    p.routing = r;
    return p;
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_moe", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        const model_config ds = read_hf_config(o.data_dir + "/models/deepseek-v3/config.json");
        moe_routing zipf;
        zipf.type = moe_routing::kind::zipf;
        zipf.zipf_s = zipf_exponent;
        std::string out = fmt::format(
            "MoE grouped GEMM: DeepSeek-V3 ({} routed experts, top-{}, {} shared; {} weights), one "
            "MoE layer, EP{}\n\n",
            ds.num_experts, ds.experts_per_token, ds.num_shared_experts,
            to_string(ds.quant.weights), ep_degree);
        const std::vector<std::string> gpus = {"b200", "rtx-pro-6000"};
        learn::chart ch{
            .title = "MoE: one DeepSeek-V3 layer per step, EP8",
            .subtitle = fmt::format("busiest GPU's lower bound; solid uniform routing, dashed Zipf "
                                    "s={:g} (experts in contiguous EP blocks)",
                                    zipf_exponent),
            .x_label = "batch (tokens per step)",
            .y_label = "MoE layer time (us)"};
        for (std::size_t i = 0; i < gpus.size(); ++i)
            for (bool skew : {false, true})
                ch.lines.push_back({gpus[i] + (skew ? " Zipf" : " uniform"), {}, i, skew});

        auto t1 = report::text_table::with_headers({"batch", "active", "tok/expert", "weights/GPU",
                                                    "I/expert", "b200", "bound", "Zipf max tok",
                                                    "rank imb.", "b200 Zipf", "bound"});
        for (double T = min_batch; T <= max_batch; T *= 2) {
            const moe_problem pu = layer_of(ds, T, moe_routing{}), pz = layer_of(ds, T, zipf);
            for (std::size_t i = 0; i < gpus.size(); ++i) {
                const gpu_spec& g = catalog.at(gpus[i]);
                const ceilings c = datasheet_ceilings(g);
                const moe_result ru = moe_layer(pu, g), rz = moe_layer(pz, g);
                const roof_times tu = time_lower_bound(ru.work, c),
                                 tz = time_lower_bound(rz.work, c);
                ch.lines[2 * i].xy.push_back({T, tu.lower_bound_s * 1e6});
                ch.lines[2 * i + 1].xy.push_back({T, tz.lower_bound_s * 1e6});
                if (i != 0 || static_cast<long long>(std::log2(T)) % 2 != 0)
                    continue;  // table: b200, every 4x
                t1.add_row({report::format_count(T), format_significant(ru.active_experts),
                            format_significant(ru.mean_tokens_per_expert),
                            report::format_bytes(ru.weight_bytes),
                            format_significant(ru.work.arithmetic_intensity()),
                            report::format_seconds(tu.lower_bound_s),
                            std::string(to_string(tu.predicted)),
                            format_significant(rz.max_tokens_per_expert),
                            format_significant(rz.rank_imbalance) + "x",
                            report::format_seconds(tz.lower_bound_s),
                            std::string(to_string(tz.predicted))});
            }
        }
        out += t1.render();

        // What the table means, from the same models.
        const double all_expert_bytes =
            moe_layer(layer_of(ds, max_batch, moe_routing{}), catalog.at("b200")).weight_bytes;
        const double one =
            moe_layer(layer_of(ds, min_batch, moe_routing{}), catalog.at("b200")).weight_bytes;
        const double half_active_batch =
            std::log(0.5) / std::log(1.0 - double(ds.experts_per_token) / ds.num_experts);
        const ceilings bc = datasheet_ceilings(catalog.at("b200"));
        const compute_path path =
            gemm_compute_path(ds.quant.weights, ds.quant.activations, catalog.at("b200"));
        // Tokens one expert needs for its GEMM to reach the ridge (bisection on the model's
        // intensity).
        const auto expert_ai = [&](double T) {
            return moe_layer(layer_of(ds, T, moe_routing{}), catalog.at("b200"))
                .expert_intensity[0];
        };
        double lo = min_batch, hi = 1e7;
        for (int k = 0; k < 60; ++k)
            (expert_ai(std::sqrt(lo * hi)) >= ridge_point(bc, path.peak) ? hi : lo) =
                std::sqrt(lo * hi);
        const double tokens_at_ridge = hi * ds.experts_per_token / ds.num_experts;
        const moe_result rz_max = moe_layer(layer_of(ds, max_batch, zipf), catalog.at("b200"));
        const auto ratio = [&](double T) {
            const auto t = [&](const moe_routing& r) {
                return time_lower_bound(moe_layer(layer_of(ds, T, r), catalog.at("b200")).work, bc)
                    .lower_bound_s;
            };
            return t(zipf) / t(moe_routing{});
        };
        const double mid_batch = std::sqrt(min_batch * max_batch);
        out += fmt::format(
            "\nPer GPU and layer, the weights streamed grow from {} (batch 1) to {} (batch "
            "{:.0f}): from the\n"
            "active experts to nearly all of them; half of the experts are busy from a batch of "
            "{:.0f} tokens.\n"
            "An expert's GEMM crosses the b200 {} ridge ({} FLOP/B) only with about {:.0f} tokens "
            "of its own.\n"
            "Under Zipf s={} routing the GPU holding the hottest experts gets {}x its share of "
            "tokens at batch {:.0f}.\n"
            "While every GPU streams all its experts anyway, that costs little ({}x at batch "
            "{:.0f}); once the hot GPU\n"
            "turns compute-bound the step waits for it: {}x at batch {:.0f} on b200, while the "
            "other {} GPUs wait.\n"
            "Expert-parallel load balancing (replicating hot experts) exists to remove exactly "
            "this bound.\n",
            report::format_bytes(one), report::format_bytes(all_expert_bytes), max_batch,
            std::ceil(half_active_batch), to_string(path.peak),
            format_significant(ridge_point(bc, path.peak)), tokens_at_ridge,
            fmt::format("{:g}", zipf_exponent), format_significant(rz_max.rank_imbalance),
            max_batch, format_significant(ratio(mid_batch)), mid_batch,
            format_significant(ratio(max_batch)), max_batch, ep_degree - 1);
        ch.notes.push_back(
            "Each GPU streams the weights of its active experts plus the shared expert once per "
            "step (datasheet ceilings).");
        ch.notes.push_back("rtx-pro-6000: the EP all-to-all crosses PCIe; b200: NVLink.");
        learn::finish(out, ch, o.svg_path);
    });
}
