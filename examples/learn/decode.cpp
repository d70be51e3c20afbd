// When does decode stop being memory-bound?
//
// A decode step multiplies M token vectors (one per sequence in the batch) by every weight
// matrix. For a [M x K] . [K x N] GEMM with b bytes per weight and a per activation,
//
//   F = 2 M N K          B = K N b + M (K + N) a          I(M) = F / B ~ 2 M / b  (M << K, N)
//
// The weights are read once per step whatever M is, so the intensity grows with the batch until
// it reaches the ridge I* = P / W: the critical batch M* ~ I* b / 2. Below M* more sequences are
// free (the step time does not move); above it every token costs tensor-core time.
// NVFP4 weights (b = 0.5625 B with their scales) cut B by ~3.6x, which lowers M* when the math
// stays BF16 (W4A16), while FP4 math (W4A4) also raises P by 4x, so M* moves back up and every
// step below it is ~3.6x faster. The GEMM is Llama-3.1-70B's fused gate+up projection.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_significant;

// The question's parameters: the batch range swept.
constexpr double min_batch = 1, max_batch = 16384;

namespace {
struct config {
    const char* name;
    dtype weights, activations;
};
constexpr std::array<config, 3> configs = {{{"BF16", dtype::bf16, dtype::bf16},
                                            {"NVFP4 W4A16", dtype::nvfp4, dtype::bf16},
                                            {"NVFP4 W4A4", dtype::nvfp4, dtype::nvfp4}}};

// The GEMM at batch m: FLOP at the rate the GPU runs these dtypes at, output in BF16.
workload gemm_at(double m, const model_config& c, const config& k, const gpu_spec& g) {
    const gemm_shape s{m, 2.0 * c.intermediate_size, double(c.hidden_size)};
    return gemm_workload(s, k.activations, k.weights, dtype::bf16, g);
}

// The smallest batch at which compute time reaches memory time (bisection on the model), or
// NaN when the GPU's peak for this path is unknown, or infinity when it never does.
double critical_batch(const model_config& c, const config& k, const gpu_spec& g,
                      const ceilings& ceil) {
    const auto compute_wins = [&](double m) {
        const roof_times t = time_lower_bound(gemm_at(m, c, k, g), ceil);
        return t.compute_s >= t.memory_s;
    };
    if (std::isnan(ceil.flops_at(gemm_compute_path(k.weights, k.activations, g).peak))) return NAN;
    double lo = min_batch, hi = 1e7;
    if (compute_wins(lo)) return lo;
    if (!compute_wins(hi)) return INFINITY;
    for (int i = 0; i < 60; ++i) (compute_wins(std::sqrt(lo * hi)) ? hi : lo) = std::sqrt(lo * hi);
    return std::ceil(hi);
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_decode", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        const std::vector<std::string> ids = {"h200-sxm", "b200", "rtx-pro-6000", "gb10"};
        const model_config llama = read_hf_config(o.data_dir + "/models/llama-3.1-70b/config.json");
        std::string out = fmt::format(
            "When does decode stop being memory-bound? Llama-3.1-70B gate+up GEMM [M x {}] . [{} x "
            "{}]\n\n",
            llama.hidden_size, llama.hidden_size, 2 * llama.intermediate_size);
        learn::chart ch{.title = "When does decode stop being memory-bound?",
                        .subtitle =
                            "Llama-3.1-70B gate+up GEMM: solid BF16, dashed NVFP4 (W4A4); dots: "
                            "critical batch M*",
                        .x_label = "batch M (tokens per step)",
                        .y_label = "attainable TFLOP/s"};
        auto t1 = report::text_table::with_headers(
            {"GPU", "weights", "runs at", "I*", "M*", "step at M=1", "at M=16384"});
        std::vector<std::string> notes;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const gpu_spec& g = catalog.at(ids[i]);
            const ceilings ceil = datasheet_ceilings(g);
            for (const auto& k : configs) {
                const compute_path path = gemm_compute_path(k.weights, k.activations, g);
                if (!path.native && k.activations == dtype::nvfp4) notes.push_back(path.note);
                const double ridge = ridge_point(ceil, path.peak),
                             m_star = critical_batch(llama, k, g, ceil);
                const bool known = !std::isnan(m_star);
                const auto step = [&](double m) {
                    return known
                               ? report::format_seconds(
                                     time_lower_bound(gemm_at(m, llama, k, g), ceil).lower_bound_s)
                               : std::string("unknown");
                };
                t1.add_row(
                    {g.id, k.name, std::string(to_string(path.peak)),
                     learn::or_unknown(ridge, [](double v) { return format_significant(v); }),
                     known ? (std::isinf(m_star) ? "never" : report::format_count(m_star))
                           : "unknown",
                     step(min_batch), step(max_batch)});
                if (!known || &k == &configs[1]) continue;  // drawn: BF16 and W4A4
                learn::series s{g.id + " " + k.name, {}, i, k.weights == dtype::nvfp4};
                for (double j = 0; j <= 4 * std::log2(max_batch / min_batch);
                     ++j) {  // 4 points per doubling
                    const double m = min_batch * std::exp2(j / 4);
                    const workload w = gemm_at(m, llama, k, g);
                    s.xy.push_back(
                        {m, w.total_flops() / time_lower_bound(w, ceil).lower_bound_s / 1e12});
                }
                ch.lines.push_back(s);
                if (m_star <= max_batch) {
                    const workload w = gemm_at(m_star, llama, k, g);
                    ch.markers.push_back(
                        {m_star, w.total_flops() / time_lower_bound(w, ceil).lower_bound_s / 1e12,
                         "M*=" + report::format_count(m_star), i});
                }
            }
        }
        out += t1.render();
        for (const auto& n : notes) out += "note: " + n + "\n";

        // The sweep on every GPU in BF16: where each one crosses its ridge.
        out += "\nBF16 sweep: intensity and predicted bound per GPU\n\n";
        std::vector<std::string> head = {"M", "I (FLOP/B)"};
        for (const auto& id : ids) head.push_back(id);
        auto t2 = report::text_table::with_headers(head);
        for (double m = min_batch; m <= max_batch; m *= 4) {
            const workload w = gemm_at(m, llama, configs[0], catalog.at(ids[0]));
            std::vector<std::string> row = {report::format_count(m),
                                            format_significant(w.arithmetic_intensity())};
            for (const auto& id : ids) {
                const ceilings ceil = datasheet_ceilings(catalog.at(id));
                row.push_back(std::isnan(ceil.flops_at(peak_key::bf16))
                                  ? "unknown"
                                  : std::string(to_string(time_lower_bound(w, ceil).predicted)));
            }
            t2.add_row(row);
        }
        out += t2.render();
        const gpu_spec& pro = catalog.at("rtx-pro-6000");
        const ceilings pc = datasheet_ceilings(pro);
        const auto t_at = [&](const config& k, double m) {
            return time_lower_bound(gemm_at(m, llama, k, pro), pc).lower_bound_s;
        };
        out += fmt::format(
            "\nOn rtx-pro-6000, M* is {} in BF16, {} with NVFP4 weights and BF16 math, {} in NVFP4 "
            "W4A4;\n"
            "below M*, a W4A4 step takes {:.2f}x less time than a BF16 one (the weight bytes it "
            "streams).\n",
            report::format_count(critical_batch(llama, configs[0], pro, pc)),
            report::format_count(critical_batch(llama, configs[1], pro, pc)),
            report::format_count(critical_batch(llama, configs[2], pro, pc)),
            t_at(configs[0], min_batch) / t_at(configs[2], min_batch));
        ch.notes.push_back(
            "Datasheet ceilings (dense, FP32 accumulate). GB10 BF16 is unknown: its BF16 curve is "
            "not drawn.");
        ch.notes.push_back(
            "H200 has no FP4 tensor cores: NVFP4 there is dequantised to BF16 math (same roof, "
            "fewer bytes).");
        learn::finish(out, ch, o.svg_path);
    });
}
