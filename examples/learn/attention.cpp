// Attention: prefill vs decode, GQA vs MLA, and SM120's shared memory.
//
// Decode attention reads the whole KV cache of a sequence to score ONE new query: per cached
// token it does 4 d FLOP per query head and reads the token's K and V once. With GQA (Llama:
// 64 query heads share 8 KV heads) that is I ~ 64 x 4 x 128 / (2 x 8 x 128 x 2 B) = 8 FLOP/B:
// far left of every ridge. MLA (DeepSeek-V3, GLM-5) caches one 576-value latent per token that
// all heads share, so every byte serves 128 (or 64) heads: I ~ 240 (or 120). Prefill scores
// n queries against n keys, I grows with n: compute-bound. GLM-5's sparse attention (DSA)
// attends only index_topk tokens but scores every cached token with a small FP8 indexer.
//
// A FlashAttention kernel holds a BLOCK_M x d query tile, BLOCK_N keys and values and the
// BLOCK_M x BLOCK_N probabilities in shared memory: SM120 offers 99 KB per block, SM100 227 KB.
// A smaller BLOCK_M means more query tiles, and each tile re-reads the keys it attends from L2.
#include "roofline/models/attention.hpp"

#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/transformer.hpp"  // attention_shape_per_gpu
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_significant;

// The question's parameters: the context of the tables, the sweep of the chart, TP degree.
constexpr double context_tokens = 8192, min_context = 512, max_context = 131072;
constexpr int tp_degree = 8;

namespace {
struct model {
    const char* folder;
    model_config c;
};
// The attention of one sequence on one GPU (no TP): decode = 1 new token on `ctx` cached ones
// (MLA in its absorbed form), prefill = `ctx` new tokens (MLA expanded per head).
workload attention_of(const model_config& c, double ctx, bool decode) {
    attention_shape s = attention_shape_per_gpu(
        c, 1, kv_per_gpu(c, dtype::bf16, 1).kv_heads_per_gpu, layer_attention::full);
    s.absorbed = decode;
    const sequence_group g = decode ? sequence_group{1, 1, ctx} : sequence_group{1, ctx, 0};
    return attention_workload(s, {g}, dtype::bf16);
}
std::string kind(const model_config& c) {
    return c.attention == attention_kind::gqa ? "GQA" : (c.has_indexer() ? "MLA+DSA" : "MLA");
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_attention", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        std::vector<model> models;
        for (const char* f : {"llama-3.1-70b", "deepseek-v3", "glm-5"})
            models.push_back({f, read_hf_config(o.data_dir + "/models/" + f + "/config.json")});
        std::string out =
            "Attention: KV bytes per token, arithmetic intensity, and shared-memory tiles\n\n";

        // 1. KV cache per token (all layers), and what TP does to it.
        auto t1 = report::text_table::with_headers({"model", "kind", "values/token/layer", "layers",
                                                    "BF16 KV/token", "FP8", "per GPU at TP8"});
        for (const auto& m : models) {
            const kv_sharding s = kv_per_gpu(m.c, dtype::bf16, tp_degree);
            t1.add_row({m.folder, kind(m.c), format_significant(kv_values_per_token_layer(m.c)),
                        std::to_string(m.c.num_layers),
                        report::format_bytes(kv_bytes_per_token(m.c, dtype::bf16)),
                        report::format_bytes(kv_bytes_per_token(m.c, dtype::fp8_e4m3)),
                        report::format_bytes(s.bytes_per_token_per_gpu) +
                            (s.replication > 1 ? " (replicated)" : "")});
        }
        out += t1.render() +
               "(GLM-5 adds its DSA indexer key, FP8 with one FP32 scale per 128 values, to every "
               "token.)\n\n";

        // 2. Arithmetic intensity of one sequence's attention, and the bound on two GPUs.
        const gpu_spec& h200 = catalog.at("h200-sxm");
        const gpu_spec& pro = catalog.at("rtx-pro-6000");
        const ceilings hc = datasheet_ceilings(h200), pc = datasheet_ceilings(pro);
        out += fmt::format(
            "One sequence, context {:.0f} tokens, BF16 KV (BF16 ridge: h200-sxm {}, rtx-pro-6000 "
            "{} FLOP/B)\n\n",
            context_tokens, format_significant(ridge_point(hc, peak_key::bf16)),
            format_significant(ridge_point(pc, peak_key::bf16)));
        auto t2 = report::text_table::with_headers(
            {"model", "phase", "FLOP", "DRAM bytes", "I (FLOP/B)", "h200-sxm", "rtx-pro-6000"});
        learn::chart ch{
            .title = "Attention: arithmetic intensity vs context",
            .subtitle =
                "one sequence, BF16 KV; solid decode (1 new token), dashed prefill (whole prompt)",
            .x_label = "context (tokens)",
            .y_label = "arithmetic intensity (FLOP per DRAM byte)"};
        for (std::size_t i = 0; i < models.size(); ++i) {
            for (bool decode : {true, false}) {
                const workload w = attention_of(models[i].c, context_tokens, decode);
                t2.add_row({models[i].folder, decode ? "decode" : "prefill",
                            report::format_si(w.total_flops(), "FLOP"),
                            report::format_bytes(w.dram_bytes()),
                            format_significant(w.arithmetic_intensity()),
                            std::string(to_string(time_lower_bound(w, hc).predicted)),
                            std::string(to_string(time_lower_bound(w, pc).predicted))});
                learn::series s{std::string(models[i].folder) + (decode ? " decode" : " prefill"),
                                {},
                                i,
                                !decode};
                for (double ctx = min_context; ctx <= max_context; ctx *= 2)
                    s.xy.push_back(
                        {ctx, attention_of(models[i].c, ctx, decode).arithmetic_intensity()});
                ch.lines.push_back(s);
            }
        }
        out += t2.render() + "\n";
        ch.guides.push_back({true, ridge_point(hc, peak_key::bf16), "h200-sxm BF16 ridge"});
        ch.guides.push_back({true, ridge_point(pc, peak_key::bf16), "rtx-pro-6000 BF16 ridge"});

        // 3. Which prefill tile fits in shared memory, and the L2 re-reads a smaller tile costs.
        const gpu_spec& b200 = catalog.at("b200");
        const double smem120 = pro.smem_per_block_bytes.require(pro.id, "smem_per_block_bytes");
        const double smem100 = b200.smem_per_block_bytes.require(b200.id, "smem_per_block_bytes");
        out += fmt::format(
            "Prefill tiles (BF16, 1 stage): SM120 {} vs SM100 {} of shared memory per block\n\n",
            report::format_bytes_binary(smem120), report::format_bytes_binary(smem100));
        auto t3 =
            report::text_table::with_headers({"model", "d_qk+d_pe, d_v", "SM120 tile", "smem",
                                              "SM100 tile", "smem", "L2 re-reads SM120/SM100"});
        for (const auto& m : models) {
            const bool mla = m.c.attention == attention_kind::mla;
            const double d = mla ? m.c.qk_nope_head_dim : m.c.head_dim,
                         d_pe = mla ? m.c.qk_rope_head_dim : 0, d_v = m.c.v_dim();
            std::vector<attention_tile_feasibility> rejected;
            const auto small = choose_attention_tile(d, d_pe, d_v, smem120, &rejected);
            const auto big = choose_attention_tile(d, d_pe, d_v, smem100);
            attention_shape s = attention_shape_per_gpu(
                m.c, 1, kv_per_gpu(m.c, dtype::bf16, 1).kv_heads_per_gpu, layer_attention::full);
            s.absorbed = false;
            const sequence_group g{1, context_tokens, 0};
            const double ratio = attention_tile_kv_reads(s, g, small.tile.block_m) /
                                 attention_tile_kv_reads(s, g, big.tile.block_m);
            const auto tile = [](const attention_tile& t) {
                return std::to_string(t.block_m) + "x" + std::to_string(t.block_n);
            };
            t3.add_row({m.folder, fmt::format("{:.0f}+{:.0f}, {:.0f}", d, d_pe, d_v),
                        tile(small.tile), report::format_bytes_binary(small.smem_bytes),
                        tile(big.tile), report::format_bytes_binary(big.smem_bytes),
                        format_significant(ratio) + "x"});
            for (const auto& r : rejected)
                out += std::string(m.folder) + " on SM120: " + r.reason + "\n";
        }
        out += "\n" + t3.render();
        out +=
            "Halving BLOCK_M doubles the query tiles, and each tile re-reads its keys from L2 "
            "(case C07).\n";
        ch.notes.push_back(
            "Decode: GQA reads 8 KV heads for 64 query heads; MLA's latent serves every head "
            "(absorbed form).");
        ch.notes.push_back(
            "GLM-5 (DSA) attends index_topk tokens; its FP8 indexer still scores every cached "
            "token.");
        learn::finish(out, ch, o.svg_path);
    });
}
