#pragma once
// How much of a trace's kernel time the op tables can price: the share of kernel time whose
// launching op `price_op` prices (counted or bounded), or whose NCCL collective carries its
// message size, against the share that stays unpriced, with the unpriced time per op name.
// The report states it beside every shape-priced result, so a reader sees how much of the GPU
// time the verdict rests on.

#include <algorithm>      // std::sort
#include <cmath>          // std::isfinite
#include <map>            // std::map
#include <string>         // std::string
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair
#include <vector>         // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/op_workload.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/trace/kernel_event.hpp"

namespace roofline {

/// Kernel time split by whether the op tables price it. Times in seconds.
struct op_price_coverage {
    double kernel_s = 0;      ///< all kernel time (memcpy/memset excluded)
    double counted_s = 0;     ///< kernels of ops priced by count
    double bounded_s = 0;     ///< kernels of ops priced by a lower bound (`op_estimate::bounded`)
    double collective_s = 0;  ///< NCCL kernels priced from their collective metadata
    double unpriced_s = 0;    ///< everything else
    /// Op name ("(no launching op)" for unlinked kernels) -> unpriced kernel time, largest first.
    std::vector<std::pair<std::string, double>> unpriced_by_op;
    /// Op name -> kernel time priced by bound, largest first (with the bound's reason).
    struct bounded_op {
        std::string name, reason;
        double kernel_s = 0;
    };
    std::vector<bounded_op> bounded_by_op;

    double priced_s() const { return counted_s + bounded_s + collective_s; }
    /// Priced share of kernel time, 0..1 (0 for a trace without kernels).
    double priced_share() const { return kernel_s > 0 ? priced_s() / kernel_s : 0.0; }
    /// Unpriced share of kernel time, 0..1.
    double unpriced_share() const { return kernel_s > 0 ? unpriced_s / kernel_s : 0.0; }
};

/// The coverage of `t`'s kernels on `g`; `device` >= 0 keeps that GPU's kernels only.
/// Each op is priced once (`price_op`) however many kernels it launched.
op_price_coverage price_coverage(const kernel_trace& t, const gpu_spec& g, int device = -1);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
ROOFLINE_INLINE op_price_coverage price_coverage(const kernel_trace& t, const gpu_spec& g, int device) {
    op_price_coverage c;
    std::unordered_map<std::int32_t, std::optional<op_work>> priced;  // op index -> work
    std::map<std::string, double> unpriced;
    std::map<std::string, op_price_coverage::bounded_op> bounded;
    for (const auto& e : t.events) {
        if (e.activity != gpu_activity::kernel || (device >= 0 && e.device != device)) continue;
        const double s = e.duration_s;
        c.kernel_s += s;
        if (e.collective >= 0) {
            const auto& ci = t.collectives[static_cast<std::size_t>(e.collective)];
            if (std::isfinite(ci.in_msg_bytes()) || std::isfinite(ci.out_msg_bytes())) {
                c.collective_s += s;
                continue;
            }
        }
        const cpu_op* op = t.op_of(e);
        if (!op) {
            c.unpriced_s += s;
            unpriced["(no launching op)"] += s;
            continue;
        }
        auto it = priced.find(e.op);
        if (it == priced.end()) it = priced.emplace(e.op, price_op(*op, g)).first;
        const auto& w = it->second;
        if (!w) {
            c.unpriced_s += s;
            unpriced[std::string(op->name)] += s;
        } else if (w->estimate == op_estimate::bounded) {
            c.bounded_s += s;
            auto& b = bounded[std::string(op->name)];
            b.name = op->name;
            b.reason = w->bound_reason;
            b.kernel_s += s;
        } else {
            c.counted_s += s;
        }
    }
    for (const auto& [n, s] : unpriced) c.unpriced_by_op.emplace_back(n, s);
    std::sort(c.unpriced_by_op.begin(), c.unpriced_by_op.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (auto& [n, b] : bounded) c.bounded_by_op.push_back(std::move(b));
    std::sort(c.bounded_by_op.begin(), c.bounded_by_op.end(),
              [](const auto& a, const auto& b) { return a.kernel_s > b.kernel_s; });
    return c;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
