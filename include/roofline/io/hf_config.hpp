#pragma once
// Readers of Hugging Face model configs: `config.json` -> `model_config`, and ModelOpt's
// `hf_quant_config.json` applied on top.
//
// Key names differ per family (FORMATS.md section 8); this is where they are mapped:
//
//   field                    | DeepSeek-V3/V3.2, Kimi-K2, GLM-5 | Qwen3 MoE              | gpt-oss               | Llama
//   num_experts              | n_routed_experts                 | num_experts            | num_local_experts     | -
//   experts_per_token        | num_experts_per_tok              | num_experts_per_tok    | num_experts_per_tok / experts_per_token | -
//   moe_intermediate_size    | moe_intermediate_size            | moe_intermediate_size  | intermediate_size     | -
//   dense MoE-free layers    | first_k_dense_replace, moe_layer_freq | mlp_only_layers, decoder_sparse_step | - | all
//   shared experts           | n_shared_experts                 | (shared_expert_intermediate_size, Qwen2-MoE; shared_intermediate_size, MiniMax) | - | -
//   MLA                      | q_lora_rank, kv_lora_rank, qk_nope/rope_head_dim, v_head_dim | - | - | -
//   DSA indexer              | index_topk, index_n_heads, index_head_dim (V3.2, GLM-5) | - | - | -
//   sliding window           | -                                | sliding_window if use_sliding_window | layer_types + sliding_window | -
//   linear attention         | -                                | layer_types linear_attention + linear_* (Qwen3-Next, Qwen3.5) | - | -
//   MTP                      | num_nextn_predict_layers         | mtp_num_hidden_layers  | -                     | -
//
// Multimodal configs nest the language model under `text_config` (Qwen3.5/VL): the reader
// descends into it. Quantisation comes from `quantization_config` inside config.json (FP8
// block, MXFP4, ModelOpt, compressed-tensors) and/or a separate `hf_quant_config.json`.
//
// Errors: an unreadable file, malformed JSON, a missing required key, a key of the wrong type
// or a non-positive size throw `parse_error` naming the file, the place and the key.

#include <algorithm>    // std::max
#include <cmath>        // std::floor, std::isfinite
#include <filesystem>   // std::filesystem::path, is_directory
#include <system_error>  // std::error_code
#include <fstream>      // std::ifstream
#include <initializer_list>  // std::initializer_list
#include <optional>     // std::optional
#include <string>       // std::string
#include <utility>      // std::move
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/models/model_config.hpp"

namespace roofline {

/// Reads a Hugging Face `config.json` (or a checkpoint folder holding one) into a `model_config`.
///
/// Required keys: hidden_size, num_hidden_layers, num_attention_heads, vocab_size; for MoE
/// models (any experts key present) also the top-k and, unless every layer is MoE, the dense
/// intermediate_size. `name` is the file's stem (e.g. "zai-org--GLM-5_config").
/// Throws `parse_error` naming file, place ("" or "text_config") and key.
model_config read_hf_config(const std::string& path_or_folder);

/// Applies a ModelOpt `hf_quant_config.json`
/// (`{producer:{name,version}, quantization:{quant_algo, kv_cache_quant_algo, group_size,
/// exclude_modules}}`) to `cfg`, replacing any quantisation read from config.json.
/// Throws `parse_error` naming the file and the key.
void apply_hf_quant_config(model_config& cfg, const std::string& path);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <nlohmann/json.hpp>
#include "roofline/io/detail/json_text.hpp"
#include "roofline/models/module_regex.hpp"
#include "roofline/io/input.hpp"

namespace roofline {
namespace detail::hf {

using json = nlohmann::json;

/// Reads and parses a JSON file; errors name the file and the byte.
inline json read_json_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw parse_error(path, "", "", "is a folder, not a JSON file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw parse_error(path, "", "", "cannot open file");
    const std::string text = io::detail::read_json_text(path, "model config");
    if (text.empty()) throw parse_error(path, "", "", "file is empty");
    io::detail::check_json_nesting(path, text);
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        throw parse_error(path, "byte " + std::to_string(e.byte), "", "malformed JSON");
    } catch (const json::exception& e) {  // a number beyond the range of a double
        throw io::detail::json_exception_error(path, text, e);
    }
}

/// Reads one JSON object's keys with typed accessors; every error names file, place and key.
class object_reader {
public:
    object_reader(const json& j, std::string file, std::string place)
        : j_(j), file_(std::move(file)), place_(std::move(place)) {
        if (!j_.is_object()) throw parse_error(file_, place_, "", "expected a JSON object");
    }

    bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
    const json& at(const char* key) const { return j_.at(key); }

    /// An integer key; nullopt when absent or null. Non-integers and non-numbers are errors.
    std::optional<long long> opt_int(const char* key) const {
        if (!has(key)) return std::nullopt;
        const json& v = j_.at(key);
        if (v.is_number_integer() || v.is_number_unsigned()) return v.get<long long>();
        if (v.is_number_float()) {
            const double d = v.get<double>();
            // 1e300 is integral but not a long long (converting it would be undefined).
            if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<long long>(d);
        }
        throw parse_error(file_, place_, key, "expected an integer, got " + std::string(v.type_name()));
    }

    /// A non-negative integer key (sizes, counts); `fallback` when absent or null.
    int count(const char* key, int fallback) const {
        const auto v = opt_int(key);
        if (!v) return fallback;
        if (*v < 0 || *v > 1'000'000'000)
            throw parse_error(file_, place_, key, "expected a non-negative size, got " + std::to_string(*v));
        return static_cast<int>(*v);
    }

    /// A required positive integer key.
    int required_positive(const char* key) const {
        const auto v = opt_int(key);
        if (!v) throw parse_error(file_, place_, key, "required key is missing");
        if (*v <= 0 || *v > 1'000'000'000)
            throw parse_error(file_, place_, key, "expected a positive size, got " + std::to_string(*v));
        return static_cast<int>(*v);
    }

    /// A positive integer from the first of `keys` present; throws naming all when none is.
    int required_positive_any(std::initializer_list<const char*> keys) const {
        for (const char* k : keys)
            if (has(k)) return required_positive(k);
        std::string names;
        for (const char* k : keys) names += (names.empty() ? "" : " or ") + std::string(k);
        throw parse_error(file_, place_, *keys.begin(), "required key is missing (looked for " + names + ")");
    }

    bool boolean(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_boolean())
            throw parse_error(file_, place_, key, "expected true or false, got " + std::string(v.type_name()));
        return v.get<bool>();
    }

    std::optional<std::string> opt_string(const char* key) const {
        if (!has(key)) return std::nullopt;
        const json& v = j_.at(key);
        if (!v.is_string()) throw parse_error(file_, place_, key, "expected a string, got " + std::string(v.type_name()));
        return v.get<std::string>();
    }

    /// An array of strings (empty when absent).
    std::vector<std::string> strings(const char* key) const {
        std::vector<std::string> out;
        if (!has(key)) return out;
        const json& v = j_.at(key);
        if (!v.is_array()) throw parse_error(file_, place_, key, "expected an array of strings");
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (!v[i].is_string())
                throw parse_error(file_, place_, std::string(key) + "[" + std::to_string(i) + "]", "expected a string");
            out.push_back(v[i].get<std::string>());
        }
        return out;
    }

    /// An array of module patterns (`strings`), each "re:" pattern checked here by compiling it
    /// (pricing compiles it again, once per thread: models/parameters.hpp), so that one the
    /// library cannot match is an error naming the file, the place and the entry
    /// (models/module_regex.hpp says which syntax it matches).
    std::vector<std::string> module_patterns(const char* key) const {
        std::vector<std::string> out = strings(key);
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i].rfind("re:", 0) != 0) continue;
            try {
                roofline::detail::module_regex check(std::string_view(out[i]).substr(3));
            } catch (const roofline::error& e) {
                throw parse_error(file_, place_, std::string(key) + "[" + std::to_string(i) + "]", e.what());
            }
        }
        return out;
    }

    /// An array of integers (empty when absent).
    std::vector<int> ints(const char* key) const {
        std::vector<int> out;
        if (!has(key)) return out;
        const json& v = j_.at(key);
        if (!v.is_array()) throw parse_error(file_, place_, key, "expected an array of integers");
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (!v[i].is_number_integer())
                throw parse_error(file_, place_, std::string(key) + "[" + std::to_string(i) + "]", "expected an integer");
            out.push_back(v[i].get<int>());
        }
        return out;
    }

    const std::string& file() const { return file_; }
    const std::string& place() const { return place_; }

private:
    const json& j_;
    std::string file_;
    std::string place_;
};

/// Model dtype from `torch_dtype` / `dtype` ("bfloat16", "float16", "float32").
inline dtype model_dtype(const object_reader& r) {
    for (const char* key : {"torch_dtype", "dtype"}) {
        if (auto s = r.opt_string(key)) {
            if (auto d = parse_dtype(*s)) return *d;
            throw parse_error(r.file(), r.place(), key, "unknown dtype \"" + *s + "\"");
        }
    }
    return dtype::bf16;
}

/// A KV-cache dtype name as ModelOpt writes it ("FP8", "NVFP4"); nullopt for null/absent.
inline std::optional<dtype> kv_algo_dtype(const object_reader& r, const char* key) {
    const auto s = r.opt_string(key);
    if (!s) return std::nullopt;
    if (auto d = parse_dtype(*s)) return *d;
    throw parse_error(r.file(), r.place(), key, "unknown KV-cache quantisation \"" + *s + "\" (accepted: FP8, NVFP4)");
}

/// Applies a ModelOpt `quant_algo` ("NVFP4", "FP8") to `q`.
inline void apply_quant_algo(weight_quantization& q, const object_reader& r, const char* key) {
    const auto algo = r.opt_string(key);
    if (!algo) throw parse_error(r.file(), r.place(), key, "required key is missing");
    if (*algo == "NVFP4") {
        q.method = "nvfp4";
        q.weights = dtype::nvfp4;
        q.activations = dtype::nvfp4;  // ModelOpt NVFP4 is W4A4: input_activations also 4-bit
    } else if (*algo == "FP8") {
        q.method = "fp8";
        q.weights = dtype::fp8_e4m3;
        q.activations = dtype::fp8_e4m3;
    } else {
        throw parse_error(r.file(), r.place(), key,
                          "unsupported quant_algo \"" + *algo + "\" (accepted: NVFP4, FP8)");
    }
}

/// Reads `quantization_config` from config.json into `cfg.quant`.
inline void read_quantization_config(model_config& cfg, const json& jq, const std::string& file,
                                     const std::string& place) {
    const object_reader r(jq, file, place);
    auto& q = cfg.quant;
    q.producer = "config.json quantization_config";
    q.source = file;
    const auto method = r.opt_string("quant_method");
    if (!method) throw parse_error(file, place, "quant_method", "required key is missing");
    if (*method == "fp8") {
        // DeepSeek-V3 / Kimi-K2 / GLM-5-FP8: E4M3 weights, one FP32 scale per block (usually
        // 128 x 128), activations quantised dynamically per 1 x 128 group.
        q.method = "fp8";
        q.weights = dtype::fp8_e4m3;
        q.activations = dtype::fp8_e4m3;
        const auto block = r.ints("weight_block_size");
        if (block.size() == 2 && block[0] > 0 && block[1] > 0)
            q.extra_scale_bits_per_weight = 32.0 / (static_cast<double>(block[0]) * block[1]);
        q.exclude_patterns = r.module_patterns("modules_to_not_convert");
        for (auto& s : r.module_patterns("ignored_layers")) q.exclude_patterns.push_back(s);
    } else if (*method == "mxfp4") {
        // gpt-oss: MXFP4 expert weights (E2M1 + E8M0 per 32), BF16 activations (W4A16).
        q.method = "mxfp4";
        q.weights = dtype::mxfp4;
        q.activations = dtype::bf16;
        q.group_size = 32;
        q.exclude_patterns = r.module_patterns("modules_to_not_convert");
    } else if (*method == "modelopt") {
        apply_quant_algo(q, r, "quant_algo");
        q.group_size = 16;
        q.exclude_patterns = r.module_patterns("ignore");
        for (auto& s : r.module_patterns("exclude_modules")) q.exclude_patterns.push_back(s);
        if (r.has("kv_cache_scheme")) {
            const object_reader kv(r.at("kv_cache_scheme"), file, place + ".kv_cache_scheme");
            const int bits = kv.count("num_bits", 16);
            if (bits == 8) q.kv_cache = dtype::fp8_e4m3;
        }
        if (auto kv = kv_algo_dtype(r, "kv_cache_quant_algo")) q.kv_cache = *kv;
    } else if (*method == "compressed-tensors") {
        // One config group's weights describe the scheme: 4-bit float group 16 = NVFP4,
        // 8-bit float = FP8, 4-bit int = W4A16 int4 (activations stay 16-bit).
        if (!r.has("config_groups")) throw parse_error(file, place, "config_groups", "required key is missing");
        const json& groups = r.at("config_groups");
        if (!groups.is_object() || groups.empty())
            throw parse_error(file, place, "config_groups", "expected a non-empty object");
        const std::string gplace = place + ".config_groups." + groups.begin().key();
        const object_reader g(groups.begin().value(), file, gplace);
        if (!g.has("weights")) throw parse_error(file, gplace, "weights", "required key is missing");
        const object_reader w(g.at("weights"), file, gplace + ".weights");
        const int bits = w.required_positive("num_bits");
        const std::string type = w.opt_string("type").value_or("int");
        if (type == "float" && bits == 4) {
            q.method = "nvfp4";
            q.weights = dtype::nvfp4;
            q.group_size = w.count("group_size", 16);
        } else if (type == "float" && bits == 8) {
            q.method = "fp8";
            q.weights = dtype::fp8_e4m3;
        } else if (type == "int" && bits == 4) {
            // W4A16 integer groups (Kimi-K2.5: group 32, symmetric): dtype int4, BF16 scales.
            q.method = "int4";
            q.weights = dtype::int4;
            q.group_size = w.count("group_size", 32);
        } else {
            throw parse_error(file, gplace + ".weights", "num_bits",
                              "unsupported scheme: " + std::to_string(bits) + "-bit " + type +
                                  " (accepted: 4-bit float NVFP4, 8-bit float FP8, 4-bit int W4A16)");
        }
        q.activations = q.weights;
        if (g.has("input_activations")) {
            const object_reader a(g.at("input_activations"), file, gplace + ".input_activations");
            const int abits = a.count("num_bits", 16);
            if (abits >= 16) q.activations = dtype::bf16;
        } else {
            q.activations = dtype::bf16;
        }
        q.exclude_patterns = r.module_patterns("ignore");
        if (r.has("kv_cache_scheme")) {
            const object_reader kv(r.at("kv_cache_scheme"), file, place + ".kv_cache_scheme");
            if (kv.count("num_bits", 16) == 8) q.kv_cache = dtype::fp8_e4m3;
        }
    } else {
        throw parse_error(file, place, "quant_method",
                          "unsupported quantisation method \"" + *method +
                              "\" (accepted: fp8, mxfp4, modelopt, compressed-tensors)");
    }
}

}  // namespace detail::hf

ROOFLINE_INLINE model_config read_hf_config(const std::string& path_or_folder) {
    using namespace detail::hf;
    // A checkpoint folder stands for its config.json (as `from_pretrained` reads it).
    std::string path = path_or_folder;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        path = (std::filesystem::path(path) / "config.json").string();
        if (!std::filesystem::exists(path, ec))
            throw parse_error(path_or_folder, "", "", "is a folder without a config.json");
    }
    const json root = read_json_file(path);
    if (!root.is_object()) throw parse_error(path, "", "", "expected a JSON object at the top level");
    // A ModelOpt hf_quant_config.json given as the model: said as that, with the flag it goes to.
    if (!root.contains("hidden_size") && !root.contains("text_config") && root.contains("quantization") &&
        root.at("quantization").is_object())
        throw parse_error(path, "", "", "a ModelOpt hf_quant_config.json (\"quantization\"), not a model config: "
                                        "pass it with --quant and the model's config.json with --model");
    const bool nested = root.contains("text_config") && root.at("text_config").is_object();
    const json& j = nested ? root.at("text_config") : root;
    const std::string place = nested ? "text_config" : "";
    const object_reader r(j, path, place);
    const object_reader top(root, path, "");

    model_config c;
    c.source = path;
    c.name = std::filesystem::path(path).stem().string();
    c.family = r.opt_string("model_type").value_or(top.opt_string("model_type").value_or(""));

    c.hidden_size = r.required_positive("hidden_size");
    c.num_layers = r.required_positive("num_hidden_layers");
    // Per-layer work (parameter counts, KV cache, the step model) loops over layers: a
    // mistyped count must not make it run for hours. The deepest models have a few hundred.
    constexpr int max_layers = 10000;
    if (c.num_layers > max_layers)
        throw parse_error(path, place, "num_hidden_layers",
                          "expected at most " + std::to_string(max_layers) + " layers, got " + std::to_string(c.num_layers));
    c.num_attention_heads = r.required_positive("num_attention_heads");
    c.vocab_size = r.required_positive("vocab_size");
    c.num_kv_heads = r.count("num_key_value_heads", c.num_attention_heads);
    if (c.num_kv_heads == 0) throw parse_error(path, place, "num_key_value_heads", "must be positive");
    c.tie_word_embeddings = r.boolean("tie_word_embeddings", top.boolean("tie_word_embeddings", false));
    c.attention_bias = r.boolean("attention_bias", false);
    c.max_position_embeddings = r.count("max_position_embeddings", 0);
    c.head_dim = r.count("head_dim", 0);
    if (c.head_dim == 0) c.head_dim = c.hidden_size / c.num_attention_heads;

    // Family-specific extras that carry parameters.
    c.qk_norm = c.family.rfind("qwen3", 0) == 0;  // Qwen3 dense and MoE: q_norm, k_norm per head
    c.attn_output_gate = r.boolean("attn_output_gate", false);  // Qwen3.5: q_proj emits q and a gate
    c.attention_sinks = c.family == "gpt_oss";
    c.expert_bias = c.family == "gpt_oss";

    // --- MLA ---
    // MLA's head dimensions without its latent rank: read as MHA, the KV cache and attention
    // would be another model's, so the config is an error rather than a quiet reinterpretation.
    if (!r.has("kv_lora_rank"))
        for (const char* k : {"qk_nope_head_dim", "qk_rope_head_dim", "q_lora_rank"})
            if (r.has(k))
                throw parse_error(path, place, "kv_lora_rank",
                                  std::string("required key is missing (the config gives MLA's ") + k +
                                      "; without the latent rank it would be read as multi-head attention)");
    if (r.has("kv_lora_rank")) {
        c.attention = attention_kind::mla;
        c.kv_lora_rank = r.required_positive("kv_lora_rank");
        c.q_lora_rank = r.count("q_lora_rank", 0);
        c.qk_nope_head_dim = r.required_positive("qk_nope_head_dim");
        c.qk_rope_head_dim = r.required_positive("qk_rope_head_dim");
        c.v_head_dim = r.required_positive("v_head_dim");
    }

    // --- DSA indexer ---
    if (r.has("index_topk")) {
        c.index_topk = r.required_positive("index_topk");
        c.index_n_heads = r.required_positive("index_n_heads");
        c.index_head_dim = r.required_positive("index_head_dim");
    }

    // --- sliding window ---
    const auto types = r.strings("layer_types");
    const int window = r.count("sliding_window", 0);
    if (!types.empty()) {
        if (static_cast<int>(types.size()) != c.num_layers)
            throw parse_error(path, place, "layer_types",
                              "has " + std::to_string(types.size()) + " entries for " +
                                  std::to_string(c.num_layers) + " layers");
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] == "sliding_attention") c.layer_types.push_back(layer_attention::sliding);
            else if (types[i] == "full_attention") c.layer_types.push_back(layer_attention::full);
            else if (types[i] == "linear_attention") c.layer_types.push_back(layer_attention::linear);
            else
                throw parse_error(path, place, "layer_types[" + std::to_string(i) + "]",
                                  "unknown layer type \"" + types[i] +
                                      "\" (accepted: sliding_attention, full_attention, linear_attention)");
        }
        if (c.linear_layers() > 0) {
            // Gated DeltaNet (Qwen3-Next, Qwen3.5: transformers' Qwen3NextGatedDeltaNet).
            c.linear_num_key_heads = r.required_positive("linear_num_key_heads");
            c.linear_num_value_heads = r.required_positive("linear_num_value_heads");
            c.linear_key_head_dim = r.required_positive("linear_key_head_dim");
            c.linear_value_head_dim = r.required_positive("linear_value_head_dim");
            c.linear_conv_kernel_dim = r.required_positive("linear_conv_kernel_dim");
            if (c.linear_num_value_heads % c.linear_num_key_heads != 0)
                throw parse_error(path, place, "linear_num_value_heads",
                                  "must be a multiple of linear_num_key_heads (" + std::to_string(c.linear_num_key_heads) + ")");
            if (const auto sd = r.opt_string("mamba_ssm_dtype")) {
                const auto d = parse_dtype(*sd);
                if (!d) throw parse_error(path, place, "mamba_ssm_dtype", "unknown dtype \"" + *sd + "\"");
                c.linear_state = *d;
            }
        }
        bool any_sliding = false;
        for (auto t : c.layer_types) any_sliding |= t == layer_attention::sliding;
        if (any_sliding) {
            if (window == 0) throw parse_error(path, place, "sliding_window", "required by sliding_attention layers");
            c.sliding_window = window;
        }
    } else if (window > 0 && r.boolean("use_sliding_window", true)) {
        // Mistral-style: every layer slides. Qwen2/3 set use_sliding_window false.
        c.sliding_window = window;
        c.layer_types.assign(static_cast<std::size_t>(c.num_layers), layer_attention::sliding);
    }

    // --- MoE ---
    const bool moe = r.has("n_routed_experts") || r.has("num_experts") || r.has("num_local_experts");
    // Routing fields without an expert count: read as dense, the model would be another one.
    if (!moe)
        for (const char* k : {"num_experts_per_tok", "experts_per_token", "moe_intermediate_size", "n_shared_experts"})
            if (r.has(k) && !(j.at(k).is_number() && j.at(k).get<double>() == 0))
                throw parse_error(path, place, "n_routed_experts",
                                  std::string("required key is missing (the config gives the MoE field ") + k +
                                      " but no n_routed_experts, num_experts or num_local_experts; it would be read as dense)");
    if (moe) {
        c.num_experts = r.required_positive_any({"n_routed_experts", "num_experts", "num_local_experts"});
        c.experts_per_token = r.required_positive_any({"num_experts_per_tok", "experts_per_token"});
        if (c.experts_per_token > c.num_experts)
            throw parse_error(path, place, "num_experts_per_tok", "exceeds the number of experts");
        c.moe_intermediate_size = r.has("moe_intermediate_size") ? r.required_positive("moe_intermediate_size")
                                                                  : r.required_positive("intermediate_size");
        c.intermediate_size = r.count("intermediate_size", 0);
        c.num_shared_experts = r.count("n_shared_experts", 0);
        // One shared expert of its own width: Qwen2-MoE's `shared_expert_intermediate_size`,
        // MiniMax-M1/M2's `shared_intermediate_size` (0 in MiniMax-M2.5: none).
        for (const char* k : {"shared_expert_intermediate_size", "shared_intermediate_size"})
            if (r.has(k) && c.shared_expert_intermediate_size == 0) {
                c.shared_expert_intermediate_size = r.count(k, 0);
                if (c.shared_expert_intermediate_size > 0 && c.num_shared_experts == 0) c.num_shared_experts = 1;
            }
        c.router_score_bias = r.opt_string("topk_method").value_or("") == "noaux_tc";
        c.first_dense_layers = r.count("first_k_dense_replace", 0);
        c.moe_layer_freq = r.count("moe_layer_freq", 1);
        if (c.moe_layer_freq == 0) c.moe_layer_freq = 1;
        // Qwen-style layout: mlp_only_layers are dense; MoE where (i + 1) % decoder_sparse_step == 0.
        if (r.has("decoder_sparse_step") || r.has("mlp_only_layers")) {
            const int step = std::max(1, r.count("decoder_sparse_step", 1));
            const auto only = r.ints("mlp_only_layers");
            c.mlp_types.assign(static_cast<std::size_t>(c.num_layers), mlp_kind::moe);
            for (int i = 0; i < c.num_layers; ++i) {
                bool dense = (i + 1) % step != 0;
                for (int d : only) dense |= d == i;
                c.mlp_types[static_cast<std::size_t>(i)] = dense ? mlp_kind::dense : mlp_kind::moe;
            }
        }
        if (c.moe_layer_count() < c.num_layers && c.intermediate_size == 0)
            throw parse_error(path, place, "intermediate_size", "required key is missing (the model has dense MLP layers)");
        // Dense layers and experts sized by one intermediate_size: one of them would be wrong
        // (DeepSeek's 18,432-wide dense MLP as every expert's width: trillions of parameters).
        if (!r.has("moe_intermediate_size") && c.moe_layer_count() < c.num_layers)
            throw parse_error(path, place, "moe_intermediate_size",
                              "required key is missing (the model has dense MLP layers, so intermediate_size is "
                              "theirs and cannot size the experts)");
    } else {
        c.intermediate_size = r.required_positive("intermediate_size");
    }

    c.mtp_layers = r.count("num_nextn_predict_layers", r.count("mtp_num_hidden_layers", 0));
    if (c.mtp_layers > max_layers)
        throw parse_error(path, place, "num_nextn_predict_layers",
                          "expected at most " + std::to_string(max_layers) + " layers, got " + std::to_string(c.mtp_layers));

    // --- quantisation ---
    c.quant.unquantized = model_dtype(r.has("torch_dtype") || r.has("dtype") ? r : top);
    c.quant.weights = c.quant.activations = c.quant.kv_cache = c.quant.unquantized;
    if (top.has("quantization_config"))
        read_quantization_config(c, root.at("quantization_config"), path, "quantization_config");
    else if (r.has("quantization_config"))
        read_quantization_config(c, j.at("quantization_config"), path, place + ".quantization_config");
    return c;
}

ROOFLINE_INLINE void apply_hf_quant_config(model_config& cfg, const std::string& path) {
    using namespace detail::hf;
    const json root = read_json_file(path);
    const object_reader top(root, path, "");
    if (!top.has("quantization")) throw parse_error(path, "", "quantization", "required key is missing");
    const object_reader r(root.at("quantization"), path, "quantization");

    weight_quantization q;
    q.unquantized = cfg.quant.unquantized;
    q.kv_cache = cfg.quant.unquantized;
    apply_quant_algo(q, r, "quant_algo");
    q.group_size = r.count("group_size", q.weights == dtype::nvfp4 ? 16 : 0);
    q.exclude_patterns = r.module_patterns("exclude_modules");
    if (auto kv = kv_algo_dtype(r, "kv_cache_quant_algo")) q.kv_cache = *kv;
    q.source = path;
    q.producer = "hf_quant_config.json";
    if (top.has("producer")) {
        const object_reader p(root.at("producer"), path, "producer");
        q.producer = p.opt_string("name").value_or("") + " " + p.opt_string("version").value_or("");
    }
    cfg.quant = std::move(q);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
