// Collectives: when tensor parallelism over PCIe is the wall.
//
// An all-reduce of S bytes over n GPUs costs, in the alpha-beta model (Hockney; Thakur,
// Rabenseifner, Gropp 2005),
//
//   t = base + steps x alpha + link_bytes / beta       (ring: 2(n-1) steps, 2(n-1)/n S bytes)
//
// Small messages pay only latency (alpha: a hop's cost), big ones only bandwidth (beta). The
// size where the two terms are equal splits the two regimes. Over NVLink beta is ~450 GB/s per
// direction; over PCIe Gen5 64 GB/s with peer-to-peer, and half that without P2P (NCCL stages
// through host memory), where alpha also triples. Tensor parallelism all-reduces the hidden
// state twice per layer: at decode batch sizes those are a few KB to a MB, i.e. latency-bound,
// and their count (2 x layers) does not shrink with TP while the weight bytes per GPU do.
#include <string>
#include <vector>

#include "learn.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/report/table.hpp"

using namespace roofline;
using report::format_seconds;

// The question's parameters: ranks, message sizes swept, the decode batch of the GLM-5 step.
constexpr int ranks = 8;
constexpr double min_bytes = 1 << 10, max_bytes = 1 << 30;
constexpr double context_tokens = 4096;
constexpr double decode_batches[] = {1, 64};

namespace {
struct gpu_link {
    const char* gpu;
    link_kind kind;
};
std::string timed(const collective_cost& c) {
    return format_seconds(c.time_s) + " " + std::string(to_string(c.algorithm));
}
}  // namespace

int main(int argc, char** argv) {
    return learn::run(argc, argv, "learn_collectives", [](const learn::options& o) {
        const auto catalog = gpu_catalog::builtin();
        const std::vector<gpu_link> links = {{"h200-sxm", link_kind::nvlink},
                                             {"rtx-pro-6000", link_kind::pcie},
                                             {"rtx-pro-6000", link_kind::pcie_no_p2p}};
        std::string out = fmt::format(
            "All-reduce over {} GPUs, alpha-beta model (fastest of ring / one-shot / two-shot "
            "where P2P allows)\n\n",
            ranks);
        auto t0 = report::text_table::with_headers(
            {"link", "GPU", "alpha/hop", "base", "beta", "P2P", "latency = bandwidth at"});
        learn::chart ch{
            .title = "All-reduce time vs message size",
            .subtitle = fmt::format("{} GPUs, alpha-beta; nvlink: h200-sxm, pcie: rtx-pro-6000; "
                                    "solid: fastest algorithm, dashed: NCCL ring",
                                    ranks),
            .x_label = "message size S",
            .y_label = "all-reduce time (us)",
            .x_tick_unit = "B"};
        std::vector<link_params> params;
        for (std::size_t i = 0; i < links.size(); ++i) {
            const gpu_spec& g = catalog.at(links[i].gpu);
            const link_params p = default_link_params(g, links[i].kind);
            params.push_back(p);
            const collective_cost one =
                collective_time(collective_op::all_reduce, 1.0, ranks, p);  // ring, per byte
            t0.add_row({std::string(to_string(links[i].kind)), g.id, format_seconds(p.alpha_s),
                        format_seconds(p.base_latency_s),
                        report::format_bytes_per_s(p.beta_bytes_per_s), p.p2p ? "yes" : "no",
                        report::format_bytes(one.latency_s * p.beta_bytes_per_s / one.link_bytes)});
            const std::string name(to_string(links[i].kind));
            learn::series best{name, {}, i, false}, ring{name + " ring", {}, i, true};
            for (double s = min_bytes; s <= max_bytes; s *= 2) {
                best.xy.push_back(
                    {s, best_collective(collective_op::all_reduce, s, ranks, p).time_s * 1e6});
                ring.xy.push_back(
                    {s, collective_time(collective_op::all_reduce, s, ranks, p).time_s * 1e6});
            }
            ch.lines.push_back(best);
            if (p.p2p) ch.lines.push_back(ring);  // without P2P the ring is the only algorithm
        }
        out += t0.render() + "\n";
        auto t1 =
            report::text_table::with_headers({"S", "nvlink", "pcie", "pcie-no-p2p", "pcie busbw"});
        for (double s = min_bytes; s <= max_bytes; s *= 16) {
            std::vector<std::string> row = {report::format_bytes_binary(s)};
            for (const auto& p : params)
                row.push_back(timed(best_collective(collective_op::all_reduce, s, ranks, p)));
            row.push_back(report::format_bytes_per_s(
                best_collective(collective_op::all_reduce, s, ranks, params[1]).busbw_bytes_per_s));
            t1.add_row(row);
        }
        out += t1.render() + "\n";

        // A GLM-5 NVFP4 decode step on RTX PRO 6000 at TP 1..8: which phase takes the time?
        model_config glm = read_hf_config(o.data_dir + "/models/glm-5/config.json");
        apply_hf_quant_config(glm, o.data_dir + "/models/glm-5/hf_quant_config.json");
        const gpu_spec& pro = catalog.at("rtx-pro-6000");
        const double capacity = pro.memory_bytes.require(pro.id, "memory_bytes");
        out += fmt::format(
            "GLM-5 NVFP4 decode step on rtx-pro-6000 ({:.0f} tokens of context per sequence), per "
            "GPU\n\n",
            context_tokens);
        auto t2 = report::text_table::with_headers({"batch", "TP", "weights/GPU", "link", "step",
                                                    "communication", "share", "largest phase"});
        std::string verdict;
        for (double batch : decode_batches) {
            const double msg = batch * glm.hidden_size * bytes_per_element(dtype::bf16);
            ch.guides.push_back({false, msg, fmt::format("GLM-5 all-reduce, batch {:.0f}", batch)});
            for (link_kind lk : {link_kind::pcie, link_kind::pcie_no_p2p}) {
                int first_comm_bound = 0;
                for (int tp = 1; tp <= ranks; tp *= 2) {
                    const parallel_layout layout{tp, 1, 1, 1};
                    step_options opt;
                    opt.link = lk;
                    const step_model s = model_step(glm, step_batch::decode(batch, context_tokens),
                                                    layout, pro, opt);
                    const step_time t = price_step(s, datasheet_ceilings(pro, lk));
                    const double weights = weight_bytes_per_gpu(glm, layout);
                    if (!first_comm_bound && t.dominant() == step_phase::communication)
                        first_comm_bound = tp;
                    t2.add_row(
                        {fmt::format("{:.0f}", batch), std::to_string(tp),
                         report::format_bytes(weights) + (weights > capacity ? " (>96 GB)" : ""),
                         std::string(to_string(lk)), format_seconds(t.lower_bound_s),
                         format_seconds(t.at(step_phase::communication).lower_bound_s),
                         report::format_percent(t.share(step_phase::communication)),
                         std::string(to_string(t.dominant()))});
                }
                verdict += fmt::format(
                    "batch {:.0f}, {}: {}\n", batch, to_string(lk),
                    first_comm_bound
                        ? fmt::format("communication is the largest phase from TP{}",
                                      first_comm_bound)
                        : fmt::format("communication is never the largest phase up to TP{}",
                                      ranks));
            }
        }
        out += t2.render() + "\n" + verdict;
        out += fmt::format(
            "Each layer all-reduces twice ({} all-reduces per step); at decode sizes each costs "
            "alpha, not S / beta.\n",
            2 * glm.num_layers);
        ch.notes.push_back(
            "alpha, base: NCCL tuning.cc (NVLink, PCI); without P2P alpha fitted to case C03. "
            "beta: datasheet links.");
        ch.notes.push_back(
            "Measured PCIe busbw is often lower than the datasheet beta (case C04): calibrate from "
            "nccl-tests.");
        learn::finish(out, ch, o.svg_path);
    });
}
