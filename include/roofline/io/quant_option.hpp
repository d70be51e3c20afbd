#pragma once
// The `--quant` option of the CLI: a ModelOpt `hf_quant_config.json` path, or a preset name that
// quantises a Hugging Face config the way the common checkpoints do.
//
// Presets quantise every linear layer except lm_head (routers, embeddings and norms never are),
// the ModelOpt default; MXFP4 also keeps attention in the unquantised dtype (gpt-oss); int4 is
// W4A16 integer groups of 32 over every linear layer but lm_head (AWQ, GPTQ); "bf16" (or "none")
// removes any quantisation. A preset replaces the checkpoint's own quantisation, exclusions too.

#include <filesystem>  // std::filesystem::exists
#include <string>      // std::string

#include "roofline/core/compilation.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/model_config.hpp"

namespace roofline {

/// Applies `q` to `c`: an existing file is read as `hf_quant_config.json`; otherwise `q` must be
/// one of the presets nvfp4, fp8, mxfp4, int4, bf16 (none). An empty `q` changes nothing.
/// Throws `usage_error` for anything else and `parse_error` for a malformed file.
void apply_quant_option(model_config& c, const std::string& q);

}  // namespace roofline

#if ROOFLINE_BODIES_IO

namespace roofline {
ROOFLINE_INLINE void apply_quant_option(model_config& c, const std::string& q) {
    if (q.empty()) return;
    if (std::filesystem::exists(q)) {
        apply_hf_quant_config(c, q);
        return;
    }
    weight_quantization w;
    w.unquantized = c.quant.unquantized;
    w.kv_cache = c.quant.kv_cache;
    w.source = "--quant " + q;
    w.producer = "preset";
    if (q == "bf16" || q == "none") {
        w.weights = w.activations = c.quant.unquantized;
    } else if (q == "nvfp4") {
        w.method = "nvfp4";
        w.weights = w.activations = dtype::nvfp4;
        w.group_size = 16;
        w.exclude_patterns = {"lm_head"};
    } else if (q == "mxfp4") {
        w.method = "mxfp4";
        w.weights = dtype::mxfp4;
        w.activations = dtype::bf16;
        w.group_size = 32;
        w.exclude_patterns = {"lm_head", "model.layers.*.self_attn"};
    } else if (q == "int4") {
        // W4A16 integer groups of 32, every linear layer but lm_head (as AWQ and GPTQ quantise
        // by default); a checkpoint that keeps more in 16 bits (Kimi-K2.5's attention and shared
        // experts) says so in its own config.json, read without --quant.
        w.method = "int4";
        w.weights = dtype::int4;
        w.activations = dtype::bf16;
        w.group_size = 32;
        w.exclude_patterns = {"lm_head"};
    } else if (q == "fp8") {
        w.method = "fp8";
        w.weights = w.activations = dtype::fp8_e4m3;
        w.exclude_patterns = {"lm_head"};
    } else {
        throw usage_error("--quant \"" + q +
                          "\": neither a file nor a preset (accepted: a hf_quant_config.json path, nvfp4, fp8, "
                          "mxfp4, int4, bf16)");
    }
    c.quant = w;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
