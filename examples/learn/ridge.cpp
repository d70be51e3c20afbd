// Where is the ridge?
//
// A kernel that does F FLOP and moves B bytes of DRAM needs at least max(F / P, B / W) seconds
// on a GPU with peak P (FLOP/s) and bandwidth W (B/s). The two terms are equal at the ridge
// point I* = P / W FLOP/byte: a kernel whose arithmetic intensity F / B is below I* waits for
// memory, above it for the tensor cores (Williams, Waterman, Patterson, CACM 2009).
//
// P depends on the dtype (each halving of the bits doubles the tensor rate on Blackwell) and,
// on GeForce SM120 parts, on the accumulator: FP32 accumulate runs at half the FP16-accumulate
// rate. W does not. So every dtype has its own ridge, and the same kernel can sit left of the
// ridge on one GPU and right of it on another. Every number below comes from the catalog
// (core/gpus/*.hpp, each with its source) or from a model config in data/models/.
#include <array>
#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_flops_per_s;
using report::format_significant;

// The question's parameter: tokens in the example GEMM (a prefill chunk or a big decode batch).
constexpr double example_tokens = 256;

namespace {
struct rate {
    peak_key key;
    const char* name;
};
constexpr std::array<rate, 3> rates = {
    {{peak_key::bf16, "BF16"}, {peak_key::fp8, "FP8"}, {peak_key::fp4, "NVFP4"}}};

// A peak or a ridge: "none" where the GPU lacks the units (FP4 on Hopper), "unknown" where
// nobody published it (GB10 BF16 today).
std::string peak_text(double p) {
    return p == 0 ? "none" : learn::or_unknown(p, format_flops_per_s);
}
std::string ridge_text(double r) {
    return r == 0 ? "none" : learn::or_unknown(r, [](double v) { return format_significant(v); });
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_ridge", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        const std::vector<std::string> ids = {"h200-sxm", "b200", "rtx-pro-6000", "gb10"};
        std::string out =
            "Where is the ridge? Dense tensor peaks and ridge points I* = P / W (FLOP per DRAM "
            "byte)\n\n";

        // 1. The ridge per GPU and dtype.
        auto t1 = report::text_table::with_headers(
            {"GPU", "DRAM", "BF16", "I*", "FP8", "I*", "NVFP4", "I*"});
        learn::chart ch{
            .title = "Where is the ridge?",
            .subtitle = "attainable = min(P, I x W); solid BF16, dashed NVFP4; dots: ridge points",
            .x_label = "arithmetic intensity I (FLOP per DRAM byte)",
            .y_label = "attainable TFLOP/s"};
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const gpu_spec& g = catalog.at(ids[i]);
            const ceilings c = datasheet_ceilings(g);
            const double w = c.bytes_at(memory_level::dram);
            std::vector<std::string> row = {g.id, report::format_bytes_per_s(w)};
            for (const auto& r : rates) {
                const double p = c.flops_at(r.key), ridge = ridge_point(c, r.key);
                row.push_back(peak_text(p));
                row.push_back(ridge_text(ridge));
                if (r.key == peak_key::fp8 || !(p > 0))
                    continue;  // FP8 sits between; unknown is not drawn
                // The roof is two straight lines on log-log axes: slope W up to the ridge, then
                // flat.
                ch.lines.push_back({g.id + " " + r.name,
                                    {{1, w / 1e12}, {ridge, p / 1e12}, {1e4, p / 1e12}},
                                    i,
                                    r.key == peak_key::fp4});
                ch.markers.push_back({ridge, p / 1e12, format_significant(ridge), i});
            }
            t1.add_row(row);
        }
        out += t1.render() + "\n";

        // 2. SM120: the accumulator sets the rate on GeForce, not on RTX PRO.
        out +=
            "SM120 accumulate: FP32-accumulate vs FP16-accumulate dense peaks (DRAM bandwidth is "
            "the same)\n\n";
        auto t2 = report::text_table::with_headers(
            {"GPU", "dtype", "FP32 acc", "I*", "FP16 acc", "I*", "FP16/FP32"});
        for (const char* id : {"rtx-pro-6000", "rtx-5090"}) {
            const gpu_spec& g = catalog.at(id);
            const double w = g.memory_bandwidth_bytes_per_s.value_or(NAN);
            for (peak_key k : {peak_key::fp16, peak_key::fp8}) {
                const double f32 = g.dense_flops_per_s(k).value_or(NAN);
                const double f16 = g.peak(k).dense_fp16_acc_flops_per_s.value.value_or(NAN);
                t2.add_row({g.id, std::string(to_string(k)), peak_text(f32), ridge_text(f32 / w),
                            peak_text(f16), ridge_text(f16 / w),
                            learn::or_unknown(
                                f16 / f32, [](double v) { return format_significant(v) + "x"; })});
            }
        }
        out += t2.render() + "\n";

        // 3. One kernel, four GPUs: Llama-3.1-70B's MLP down projection [M x 28672] . [28672 x
        // 8192].
        const model_config llama = read_hf_config(o.data_dir + "/models/llama-3.1-70b/config.json");
        const gemm_shape down{example_tokens, double(llama.hidden_size),
                              double(llama.intermediate_size)};
        const workload w =
            gemm_workload(down, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
        const double ai = w.arithmetic_intensity();
        out += fmt::format(
            "One kernel: Llama-3.1-70B down_proj in BF16, M = {:.0f}, N = {}, K = {}: I = {} "
            "FLOP/B\n\n",
            down.m, llama.hidden_size, llama.intermediate_size, format_significant(ai));
        auto t3 = report::text_table::with_headers(
            {"GPU", "BF16 I*", "bound", "time", "compute", "memory"});
        std::vector<std::string> mem, comp;
        for (const auto& id : ids) {
            const gpu_spec& g = catalog.at(id);
            const ceilings c = datasheet_ceilings(g);
            if (std::isnan(
                    c.flops_at(peak_key::bf16))) {  // the model cannot price what nobody published
                t3.add_row(
                    {g.id, "unknown", "unknown", "unknown", "unknown",
                     report::format_seconds(w.dram_bytes() / c.bytes_at(memory_level::dram))});
                continue;
            }
            const roof_times t = time_lower_bound(w, c);
            (t.predicted == bound::memory ? mem : comp).push_back(g.id);
            t3.add_row({g.id, ridge_text(ridge_point(c, peak_key::bf16)),
                        std::string(to_string(t.predicted)),
                        report::format_seconds(t.lower_bound_s),
                        report::format_seconds(t.compute_s), report::format_seconds(t.memory_s)});
        }
        out += t3.render();
        const auto join = [](const std::vector<std::string>& v) {
            std::string s;
            for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
            return s.empty() ? std::string("none") : s;
        };
        out += fmt::format(
            "\nThe same kernel (I = {}) is compute-bound on {} and memory-bound on {}:\n"
            "its intensity sits right of the first ridge and left of the others.\n"
            "RTX PRO 6000 runs FP32 accumulate at full rate (catalog: \"{}\"); GeForce halves "
            "it.\n",
            format_significant(ai), join(comp), join(mem),
            catalog.at("rtx-pro-6000").peak(peak_key::bf16).flops_per_clock_per_sm.note);
        ch.guides.push_back(
            {false, ai,
             fmt::format("Llama-70B down_proj, M={:.0f}: I={}", down.m, format_significant(ai))});
        ch.notes.push_back(
            "Peaks: dense, FP32 accumulate, datasheet (core/gpus/*.hpp). GB10 BF16 is not "
            "published: not drawn.");
        ch.notes.push_back("H200 (SM90) has no FP4 tensor cores: no NVFP4 roof.");
        learn::finish(out, ch, o.svg_path);
    });
}
