// `roofline model`: a Hugging Face model's parameters, weight bytes and KV cache.
//
//   roofline model --model CONFIG.json [--quant hf_quant_config.json | nvfp4 | fp8 | mxfp4 | bf16]
//                  [--kv-dtype bf16|fp8] [--tp N] [--json]
//
// JSON keys (stable): total_params, active_params, active_params_with_embedding, mtp_params,
// embedding_params, lm_head_params, total_weight_bytes, active_weight_bytes, kv_bytes_per_token,
// kv_bytes_per_token_full_layers, linear_attention_layers, linear_state_bytes_per_sequence, kv_dtype, quantization {...}, params_by_class, bytes_by_class,
// layers[] (per layer: layer, mlp, attention, mtp, params, active_params, weight_bytes,
// params_by_class, weight_dtypes), and kv_per_gpu under --tp.

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/parameters.hpp"

namespace roofline::cli {
namespace {

std::string gb(double b) {
    if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
    if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
    return fmt::format("{:.1f} kB", b / 1e3);
}
std::string billions(double n) {
    if (n >= 1e9) return fmt::format("{:.2f}B", n / 1e9);
    if (n >= 1e6) return fmt::format("{:.2f}M", n / 1e6);
    return fmt::format("{:.1f}K", n / 1e3);
}

nlohmann::json class_map(const std::array<double, module_class_count>& a) {
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t i = 0; i < module_class_count; ++i)
        if (a[i] > 0) j[std::string(to_string(static_cast<module_class>(i)))] = a[i];
    return j;
}

}  // namespace

void add_model_command(CLI::App& app, common_options& common) {
    (void)common;
    struct options {
        std::string model, quant, kv_dtype;
        int tp = 1;
        bool json = false;
    };
    static options o;
    o = {};  // fresh values each registration (the Python module registers once per call)
    auto* cmd = app.add_subcommand("model", "Parameters, weight bytes and KV cache of a Hugging Face model");
    cmd->add_option("--model", o.model, "Hugging Face config.json")->required();
    cmd->add_option("--quant", o.quant, "hf_quant_config.json, or a preset: nvfp4, fp8, mxfp4, int4, bf16");
    cmd->add_option("--kv-dtype", o.kv_dtype, "KV-cache dtype (default: the checkpoint's)");
    cmd->add_option("--tp", o.tp, "tensor-parallel degree for the per-GPU KV cache");
    cmd->add_flag("--json", o.json, "Print JSON");
    cmd->callback([] {
        if (o.tp < 1) throw usage_error("--tp must be >= 1, got " + std::to_string(o.tp));
        auto c = read_hf_config(o.model);
        apply_quant_option(c, o.quant);
        if (!o.kv_dtype.empty()) c.quant.kv_cache = parse_dtype_or_throw(o.kv_dtype);
        const dtype kv = c.quant.kv_cache;
        const auto pc = count_parameters(c);
        const auto shard = kv_per_gpu(c, kv, o.tp);

        nlohmann::json j;
        j["model"] = o.model;
        j["family"] = c.family;
        j["total_params"] = pc.total_params;
        j["active_params"] = pc.active_params;
        j["active_params_with_embedding"] = pc.active_params_with_embedding;
        j["mtp_params"] = pc.mtp_params;
        j["embedding_params"] = pc.embedding_params;
        j["lm_head_params"] = pc.lm_head_params;
        j["total_weight_bytes"] = pc.total_weight_bytes;
        j["active_weight_bytes"] = pc.active_weight_bytes;
        j["mtp_weight_bytes"] = pc.mtp_weight_bytes;
        j["kv_dtype"] = std::string(to_string(kv));
        j["kv_bytes_per_token"] = kv_bytes_per_token(c, kv);
        j["kv_bytes_per_token_full_layers"] = kv_bytes_per_token_full_layers(c, kv);
        j["linear_attention_layers"] = c.linear_layers();
        j["linear_state_bytes_per_sequence"] = linear_state_bytes_per_sequence(c);
        j["kv_per_gpu"] = {{"tp", o.tp}, {"bytes_per_token", shard.bytes_per_token_per_gpu},
                           {"replication", shard.replication}, {"note", shard.note}};
        j["quantization"] = {{"method", c.quant.method},
                             {"weights", std::string(to_string(c.quant.weights))},
                             {"activations", std::string(to_string(c.quant.activations))},
                             {"unquantized", std::string(to_string(c.quant.unquantized))},
                             {"exclude_patterns", c.quant.exclude_patterns.size()},
                             {"source", c.quant.source},
                             {"producer", c.quant.producer}};
        j["params_by_class"] = class_map(pc.params_by_class);
        j["bytes_by_class"] = class_map(pc.bytes_by_class);
        j["conventions"] = "total excludes MTP layers; active excludes the input embedding table and includes "
                           "lm_head; active_params_with_embedding adds it back";
        j["layers"] = nlohmann::json::array();
        for (const auto& l : pc.layers) {
            nlohmann::json dt = nlohmann::json::object();
            for (std::size_t i = 0; i < module_class_count; ++i) {
                const auto m = static_cast<module_class>(i);
                if (l.params[i] > 0 && m != module_class::norm)
                    dt[std::string(to_string(m))] = std::string(to_string(dominant_weight_dtype(c, m, l.layer)));
            }
            j["layers"].push_back({{"layer", l.layer},
                                   {"mtp", l.mtp},
                                   {"mlp", l.mlp == mlp_kind::moe ? "moe" : "dense"},
                                   {"attention", to_string(l.span)},
                                   {"params", l.total_params()},
                                   {"active_params", l.total_active_params()},
                                   {"weight_bytes", l.total_weight_bytes()},
                                   {"active_weight_bytes", l.total_active_weight_bytes()},
                                   {"params_by_class", class_map(l.params)},
                                   {"weight_dtypes", dt}});
        }
        if (o.json) {
            fmt::print("{}\n", j.dump(2));
            return;
        }
        fmt::print("{} ({}): {} total, {} active per token ({} with the embedding), MTP {}\n", o.model, c.family,
                   billions(pc.total_params), billions(pc.active_params), billions(pc.active_params_with_embedding),
                   pc.mtp_params > 0 ? billions(pc.mtp_params) : std::string("none"));
        fmt::print("  weights {} ({}; {} read per token at batch 1)\n", gb(pc.total_weight_bytes),
                   c.quant.quantized() ? c.quant.method + " from " + c.quant.source : "unquantised",
                   gb(pc.active_weight_bytes));
        fmt::print("  KV cache {:.0f} B per token ({}, {} layers; {:.0f} B per token on full-attention layers)\n",
                   kv_bytes_per_token(c, kv), to_string(kv), kv_layers(c), kv_bytes_per_token_full_layers(c, kv));
        if (c.linear_layers() > 0)
            fmt::print("  linear attention: {} Gated DeltaNet layers cache no tokens; they hold {} of state per sequence "
                       "({} heads of {}x{} at {}, and conv inputs)\n",
                       c.linear_layers(), gb(linear_state_bytes_per_sequence(c)), c.linear_num_value_heads,
                       c.linear_key_head_dim, c.linear_value_head_dim, to_string(c.linear_state));
        if (o.tp > 1)
            fmt::print("  per GPU at TP{}: {:.0f} B per token{}\n", o.tp, shard.bytes_per_token_per_gpu,
                       shard.note.empty() ? "" : " (" + shard.note + ")");
        // Per-layer breakdown, runs of identical layers folded.
        fmt::print("  {:<12} {:<6} {:<8} {:>10} {:>10} {:>11}  dtypes\n", "layers", "mlp", "attn", "params", "active",
                   "weights");
        std::size_t i = 0;
        while (i < pc.layers.size()) {
            std::size_t k = i;
            const auto& a = pc.layers[i];
            while (k + 1 < pc.layers.size() && pc.layers[k + 1].total_params() == a.total_params() &&
                   pc.layers[k + 1].total_weight_bytes() == a.total_weight_bytes() &&
                   pc.layers[k + 1].span == a.span && pc.layers[k + 1].mtp == a.mtp)
                ++k;
            const auto& row = j["layers"][i];
            std::string dts;
            for (auto it = row["weight_dtypes"].begin(); it != row["weight_dtypes"].end(); ++it)
                dts += (dts.empty() ? "" : " ") + it.key() + "=" + it.value().get<std::string>();
            const std::string range = k == i ? std::to_string(a.layer)
                                             : fmt::format("{}-{} (x{})", a.layer, pc.layers[k].layer, k - i + 1);
            fmt::print("  {:<12} {:<6} {:<8} {:>10} {:>10} {:>11}  {}\n", range + (a.mtp ? " mtp" : ""),
                       a.mlp == mlp_kind::moe ? "moe" : "dense", to_string(a.span),
                       billions(a.total_params()), billions(a.total_active_params()), gb(a.total_weight_bytes()), dts);
            i = k + 1;
        }
        fmt::print("  embedding {}, lm_head {}\n", billions(pc.embedding_params), billions(pc.lm_head_params));
    });
}

}  // namespace roofline::cli
