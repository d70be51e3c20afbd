// roofline._roofline.models: the library's analytic models for Python, as the teaching scripts
// (examples/learn/python/) use them: the catalog's datasheet ceilings, GEMM, attention, KV-cache,
// MoE, collective, decode-step and power models, and the report's number formats and text table,
// so that a script prints exactly what its C++ twin (examples/learn/*.cpp) prints.
//
// Kept in its own translation unit (no CLI11, no command sources) so that it compiles beside
// module.cpp. Three opaque types: `model_config` (read from a Hugging Face config.json),
// `workload` (FLOP per rate class and bytes per memory level) and `ceilings`; everything else
// takes and returns numbers, strings and dicts. Unknown catalog values are NaN, as in C++.
// Errors: bad input raises roofline.Error (roofline::error), as the rest of the module does.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "roofline/analysis/power_summary.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/power.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/table.hpp"

namespace py = pybind11;
using namespace roofline;

namespace {

const gpu_spec& gpu_of(const std::string& id) {
    static const gpu_catalog catalog = gpu_catalog::builtin();
    return catalog.at(id);
}

peak_key peak_of(const std::string& s) {
    if (auto k = parse_peak_key(s)) return *k;
    throw usage_error("unknown rate class \"" + s + "\" (bf16, fp16, fp8, fp4, tf32, fp32, ...)");
}

ceilings ceilings_of(const std::string& gpu, const std::optional<std::string>& link) {
    const gpu_spec& g = gpu_of(gpu);
    return link ? datasheet_ceilings(g, parse_link_kind(*link)) : datasheet_ceilings(g);
}

py::dict times_of(const roof_times& t) {
    py::dict d;
    d["compute_s"] = t.compute_s;
    d["memory_s"] = t.memory_s;
    d["lower_bound_s"] = t.lower_bound_s;
    d["bound"] = std::string(to_string(t.predicted));
    return d;
}

moe_problem moe_of(const model_config& c, double tokens, int ep, std::optional<double> zipf_s) {
    moe_problem p;
    p.tokens = tokens;
    p.experts = c.num_experts;
    p.topk = c.experts_per_token;
    p.hidden = c.hidden_size;
    p.inter = c.moe_intermediate_size;
    p.shared_experts = c.num_shared_experts;
    p.shared_inter = c.shared_expert_width();
    p.weights = c.quant.weights;
    p.activations = c.quant.activations;
    p.ep = ep;
    if (zipf_s) {
        p.routing.type = moe_routing::kind::zipf;
        p.routing.zipf_s = *zipf_s;
    }
    return p;
}

attention_shape attention_of(const model_config& c, bool absorbed) {
    attention_shape s = attention_shape_per_gpu(c, 1, kv_per_gpu(c, dtype::bf16, 1).kv_heads_per_gpu,
                                                layer_attention::full);
    s.absorbed = absorbed;
    return s;
}

void add_formats(py::module_& m) {
    m.def("bytes_per_element", [](const std::string& d) { return bytes_per_element(parse_dtype_or_throw(d)); },
          py::arg("dtype"), "Storage bytes per element of a dtype, block scales included (bf16: 2, nvfp4: 0.5625).");
    m.def("format_significant", [](double v) { return report::format_significant(v); }, py::arg("v"),
          "v to 3 significant digits, as the CLI's tables print it (246.11 -> '246').");
    m.def("format_count", &report::format_count, py::arg("n"), "n with thousands separators.");
    m.def("format_seconds", &report::format_seconds, py::arg("s"), "seconds with an SI prefix.");
    m.def("format_bytes", &report::format_bytes, py::arg("bytes"), "bytes, decimal prefixes (kB, MB).");
    m.def("format_bytes_binary", &report::format_bytes_binary, py::arg("bytes"),
          "bytes, binary prefixes (KiB, MiB).");
    m.def("format_bytes_per_s", &report::format_bytes_per_s, py::arg("bytes_per_s"), "B/s, SI prefixes.");
    m.def("format_flops_per_s", &report::format_flops_per_s, py::arg("flops_per_s"), "FLOP/s, SI prefixes.");
    m.def("format_watts", &report::format_watts, py::arg("w"), "watts.");
    m.def("format_mhz", &report::format_mhz, py::arg("hz"), "a clock in Hz printed in MHz.");
    m.def("format_percent", &report::format_percent, py::arg("fraction"), py::arg("decimals") = 1,
          "a fraction (0.5) as a percentage ('50.0%').");
    m.def("format_si", [](double v, const std::string& unit) { return report::format_si(v, unit); },
          py::arg("v"), py::arg("unit"), "v with an SI prefix and `unit` (3 significant digits).");
    m.def("table",
          [](const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
              auto t = report::text_table::with_headers(headers);
              for (const auto& r : rows) t.add_row(r);
              return t.render();
          },
          py::arg("headers"), py::arg("rows"),
          "The CLI's text table (report/table.hpp) of string cells: missing trailing cells are empty, more cells than headers raise Error.");
}

void add_roofs(py::module_& m) {
    py::class_<model_config>(m, "model_config", "A model read from a Hugging Face config.json (models/model_config.hpp).")
        .def_readonly("hidden_size", &model_config::hidden_size)
        .def_readonly("intermediate_size", &model_config::intermediate_size)
        .def_readonly("moe_intermediate_size", &model_config::moe_intermediate_size)
        .def_readonly("num_layers", &model_config::num_layers)
        .def_readonly("num_experts", &model_config::num_experts)
        .def_readonly("experts_per_token", &model_config::experts_per_token)
        .def_readonly("num_shared_experts", &model_config::num_shared_experts)
        .def_readonly("head_dim", &model_config::head_dim)
        .def_readonly("qk_nope_head_dim", &model_config::qk_nope_head_dim)
        .def_readonly("qk_rope_head_dim", &model_config::qk_rope_head_dim)
        .def_property_readonly("v_dim", &model_config::v_dim, "value head dimension")
        .def_property_readonly("attention", [](const model_config& c) { return c.attention == attention_kind::mla ? "mla" : "gqa"; })
        .def_property_readonly("has_indexer", &model_config::has_indexer, "DSA indexer (GLM-5)")
        .def_property_readonly("weights_dtype", [](const model_config& c) { return std::string(to_string(c.quant.weights)); })
        .def_property_readonly("activations_dtype", [](const model_config& c) { return std::string(to_string(c.quant.activations)); });
    m.def("read_model",
          [](const std::string& config, const std::optional<std::string>& quant) {
              model_config c = read_hf_config(config);
              if (quant) apply_hf_quant_config(c, *quant);
              return c;
          },
          py::arg("config"), py::arg("quant_config") = py::none(),
          "A model from a config.json (and an optional hf_quant_config.json); raises Error naming the file.");

    py::class_<workload>(m, "workload", "FLOP per rate class and bytes per memory level (core/workload.hpp).")
        .def("total_flops", &workload::total_flops, "FLOP over every rate class")
        .def("dram_bytes", &workload::dram_bytes, "DRAM bytes")
        .def("arithmetic_intensity", [](const workload& w) { return w.arithmetic_intensity(); }, "FLOP per DRAM byte");
    py::class_<ceilings>(m, "ceilings", "Peak rates and bandwidths of one GPU (core/ceilings.hpp).")
        .def("flops_at", [](const ceilings& c, const std::string& k) { return c.flops_at(peak_of(k)); },
             py::arg("peak"), "FLOP/s of a rate class: 0 where the GPU lacks it, NaN where unpublished")
        .def_property_readonly("dram_bytes_per_s", [](const ceilings& c) { return c.bytes_at(memory_level::dram); });
    m.def("datasheet_ceilings", &ceilings_of, py::arg("gpu"), py::arg("link") = py::none(),
          "The catalog's datasheet ceilings of GPU `gpu` (dense, FP32 accumulate), over `link` "
          "(nvlink, pcie, pcie-no-p2p; default: the GPU's own).");
    m.def("ridge_point", [](const ceilings& c, const std::string& k) { return ridge_point(c, peak_of(k)); },
          py::arg("ceilings"), py::arg("peak"), "I* = P / W in FLOP per DRAM byte (NaN: unknown, 0: no such units).");
    m.def("time_lower_bound", [](const workload& w, const ceilings& c) { return times_of(time_lower_bound(w, c)); },
          py::arg("work"), py::arg("ceilings"),
          "t = max(F / P, B / W) per roof: dict compute_s, memory_s, lower_bound_s, bound.");
}

void add_kernels(py::module_& m) {
    m.def("gemm",
          [](double mm, double n, double k, const std::string& a, const std::string& b, const std::string& c,
             const std::string& gpu) {
              return gemm_workload({mm, n, k}, parse_dtype_or_throw(a), parse_dtype_or_throw(b),
                                   parse_dtype_or_throw(c), gpu_of(gpu));
          },
          py::arg("m"), py::arg("n"), py::arg("k"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("gpu"),
          "The workload of C[m x n] = A[m x k] B[k x n] (dtypes a, b, c), FLOP at the rate GPU `gpu` runs them.");
    m.def("gemm_compute_path",
          [](const std::string& weights, const std::string& activations, const std::string& gpu) {
              const compute_path p = gemm_compute_path(parse_dtype_or_throw(weights), parse_dtype_or_throw(activations), gpu_of(gpu));
              py::dict d;
              d["peak"] = std::string(to_string(p.peak));
              d["native"] = p.native;
              d["note"] = p.note;
              return d;
          },
          py::arg("weights"), py::arg("activations"), py::arg("gpu"),
          "The rate class a GEMM of these dtypes runs at on `gpu`: dict peak, native, note.");
    m.def("kv_values_per_token_layer", &kv_values_per_token_layer, py::arg("model"), "cached values per token and layer");
    m.def("kv_bytes_per_token", [](const model_config& c, const std::string& kv) { return kv_bytes_per_token(c, parse_dtype_or_throw(kv)); },
          py::arg("model"), py::arg("kv_dtype"), "KV-cache bytes per token over all layers (with a DSA indexer key)");
    m.def("kv_per_gpu",
          [](const model_config& c, const std::string& kv, int tp) {
              const kv_sharding s = kv_per_gpu(c, parse_dtype_or_throw(kv), tp);
              py::dict d;
              d["bytes_per_token_per_gpu"] = s.bytes_per_token_per_gpu;
              d["kv_heads_per_gpu"] = s.kv_heads_per_gpu;
              d["replication"] = s.replication;
              return d;
          },
          py::arg("model"), py::arg("kv_dtype"), py::arg("tp"), "The KV cache under TP: dict bytes_per_token_per_gpu, kv_heads_per_gpu, replication.");
    m.def("attention",
          [](const model_config& c, double new_tokens, double cached_tokens, bool absorbed) {
              return attention_workload(attention_of(c, absorbed), {sequence_group{1, new_tokens, cached_tokens}}, dtype::bf16);
          },
          py::arg("model"), py::arg("new_tokens"), py::arg("cached_tokens"), py::arg("absorbed"),
          "One sequence's attention on one GPU, BF16 (MLA absorbed or expanded): a workload.");
    m.def("choose_attention_tile",
          [](double d, double d_pe, double d_v, double smem) {
              std::vector<attention_tile_feasibility> rejected;
              const auto t = choose_attention_tile(d, d_pe, d_v, smem, &rejected);
              py::dict r;
              r["block_m"] = t.tile.block_m;
              r["block_n"] = t.tile.block_n;
              r["smem_bytes"] = t.smem_bytes;
              std::vector<std::string> why;
              for (const auto& x : rejected) why.push_back(x.reason);
              r["rejected"] = why;
              return r;
          },
          py::arg("d"), py::arg("d_pe"), py::arg("d_v"), py::arg("smem_bytes"),
          "The largest BF16 FlashAttention tile that fits `smem_bytes` per block: dict block_m, block_n, smem_bytes, rejected (reasons).");
    m.def("attention_tile_kv_reads",
          [](const model_config& c, double prompt_tokens, int block_m) {
              return attention_tile_kv_reads(attention_of(c, false), sequence_group{1, prompt_tokens, 0}, block_m);
          },
          py::arg("model"), py::arg("prompt_tokens"), py::arg("block_m"), "KV bytes the query tiles of one prefill read from L2.");
    m.def("moe_layer",
          [](const model_config& c, double tokens, const std::string& gpu, int ep, std::optional<double> zipf_s) {
              const moe_result r = moe_layer(moe_of(c, tokens, ep, zipf_s), gpu_of(gpu));
              py::dict d;
              d["work"] = r.work;
              d["active_experts"] = r.active_experts;
              d["mean_tokens_per_expert"] = r.mean_tokens_per_expert;
              d["max_tokens_per_expert"] = r.max_tokens_per_expert;
              d["rank_imbalance"] = r.rank_imbalance;
              d["weight_bytes"] = r.weight_bytes;
              d["expert_intensity"] = r.expert_intensity;
              d["peak"] = std::string(to_string(r.path.peak));
              return d;
          },
          py::arg("model"), py::arg("tokens"), py::arg("gpu"), py::arg("ep"), py::arg("zipf_s") = py::none(),
          "One MoE layer of `model` on the busiest of `ep` GPUs (uniform routing, or Zipf with exponent zipf_s).");
}

void add_links(py::module_& m) {
    m.def("link_params",
          [](const std::string& gpu, const std::string& link) {
              const link_params p = default_link_params(gpu_of(gpu), parse_link_kind(link));
              py::dict d;
              d["alpha_s"] = p.alpha_s;
              d["base_latency_s"] = p.base_latency_s;
              d["beta_bytes_per_s"] = p.beta_bytes_per_s;
              d["p2p"] = p.p2p;
              return d;
          },
          py::arg("gpu"), py::arg("link"), "Alpha-beta parameters of a link (NCCL tuning.cc constants, datasheet beta).");
    m.def("all_reduce",
          [](double bytes, int ranks, const std::string& gpu, const std::string& link, bool best) {
              const link_params p = default_link_params(gpu_of(gpu), parse_link_kind(link));
              const collective_cost c = best ? best_collective(collective_op::all_reduce, bytes, ranks, p)
                                             : collective_time(collective_op::all_reduce, bytes, ranks, p);
              py::dict d;
              d["time_s"] = c.time_s;
              d["algorithm"] = std::string(to_string(c.algorithm));
              d["latency_s"] = c.latency_s;
              d["link_bytes"] = c.link_bytes;
              d["busbw_bytes_per_s"] = c.busbw_bytes_per_s;
              return d;
          },
          py::arg("bytes"), py::arg("ranks"), py::arg("gpu"), py::arg("link"), py::arg("best") = true,
          "An all-reduce of `bytes` over `ranks` GPUs: the fastest algorithm (best) or the NCCL ring.");
    m.def("decode_step",
          [](const model_config& c, double batch, double context, int tp, const std::string& gpu, const std::string& link) {
              const gpu_spec& g = gpu_of(gpu);
              step_options opt;
              opt.link = parse_link_kind(link);
              const parallel_layout layout{tp, 1, 1, 1};
              const step_time t = price_step(model_step(c, step_batch::decode(batch, context), layout, g, opt),
                                             datasheet_ceilings(g, *opt.link));
              py::dict d;
              d["lower_bound_s"] = t.lower_bound_s;
              d["communication_s"] = t.at(step_phase::communication).lower_bound_s;
              d["communication_share"] = t.share(step_phase::communication);
              d["dominant"] = std::string(to_string(t.dominant()));
              d["weight_bytes_per_gpu"] = weight_bytes_per_gpu(c, layout);
              return d;
          },
          py::arg("model"), py::arg("batch"), py::arg("context"), py::arg("tp"), py::arg("gpu"), py::arg("link"),
          "One decode step (batch sequences, `context` cached tokens each) at TP `tp`, datasheet ceilings.");
}

void add_power(py::module_& m) {
    m.def("under_power_limit",
          [](const workload& w, const std::string& gpu, double limit_w, const std::optional<std::string>& calibration) {
              const gpu_spec& g = gpu_of(gpu);
              ceilings c = datasheet_ceilings(g);
              std::optional<power_coefficients> coeff = default_power_coefficients(g);
              double peak_clock = g.tensor_clock_hz.value_or(NAN), max_clock = g.max_clock_hz.value_or(NAN);
              if (calibration) {
                  const roofline::calibration cal = read_calibration(*calibration);
                  c = apply_calibration(c, cal);
                  if (auto p = calibrated_power_coefficients(cal)) coeff = p;
                  if (auto it = cal.ceiling_sources.find("bf16"); it != cal.ceiling_sources.end()) peak_clock = it->second.clock_hz;
              }
              if (std::isnan(max_clock)) max_clock = peak_clock;
              const roof_times t = time_lower_bound(w, c);
              py::dict d = times_of(t);
              d["known"] = coeff.has_value();
              const power_limited p = coeff ? under_power_limit(w, c, *coeff, limit_w, peak_clock, max_clock)
                                            : power_limited{NAN, NAN, NAN, t.lower_bound_s, NAN, false, c};
              d["clock_hz"] = p.clock_hz;
              d["power_w"] = p.power_w;
              d["time_s"] = p.time_s;
              d["energy_j"] = p.energy_j;
              return d;
          },
          py::arg("work"), py::arg("gpu"), py::arg("limit_w"), py::arg("calibration") = py::none(),
          "`work` on `gpu` under a board power limit (models/power.hpp): dict bound, clock_hz, power_w, "
          "time_s, energy_j (NaN without power coefficients); `calibration` a calibration JSON "
          "(measured ceilings and power fit).");
    m.def("power_evidence",
          [](const std::string& csv, const std::string& gpu) {
              const power_evidence e = summarize_power(read_nvidia_smi_csv(csv).samples, &gpu_of(gpu));
              py::dict d;
              d["median_draw_w"] = e.median_draw_w.value_or(NAN);
              d["median_utilization_gpu"] = e.median_utilization_gpu.value_or(NAN);
              d["fraction_of_limit"] = e.fraction_of_limit.value_or(NAN);
              return d;
          },
          py::arg("nvidia_smi_csv"), py::arg("gpu"),
          "What an nvidia-smi CSV log says about power (analysis/power_summary.hpp), against `gpu`'s "
          "catalog limit when the log has none: dict median_draw_w, median_utilization_gpu, fraction_of_limit (NaN: unknown).");
}

}  // namespace

/// Adds the submodule `models` to the extension (called from module.cpp).
void add_models_submodule(py::module_& parent) {
    py::module_ m = parent.def_submodule("models", "The library's analytic models and number formats (examples/learn/python).");
    add_formats(m);
    add_roofs(m);
    add_kernels(m);
    add_links(m);
    add_power(m);
}
