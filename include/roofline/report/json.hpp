#pragma once
// JSON output helpers (nlohmann/json): numbers in SI base units under keys that name the unit,
// null for what is unknown. JSON has no NaN or infinity; nlohmann would write `null` for them
// silently, so the helpers make that choice explicit and visible in one place.

#include <cmath>  // std::isfinite
#include <string>  // std::string

#include "roofline/core/compilation.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/workload.hpp"

#include <nlohmann/json_fwd.hpp>

namespace roofline::report {

/// `v` as a JSON number, or null when it is NaN or infinite (unknown).
nlohmann::json json_number(double v);

/// A rate as a JSON number, or null when unknown or zero (unsupported), as `roofline gpus
/// --json` reports `dense_flops_per_s`.
nlohmann::json json_rate(double v);

/// "nvlink", "pcie", "pcie_no_p2p".
std::string link_kind_name(link_kind k);

/// Ceilings as JSON:
///   {"origin": "datasheet",
///    "flops_per_s": {"fp4": null, ..., "bf16": 9.89e14, ...},   // null: unknown or unsupported
///    "bytes_per_s": {"dram": 4.8e12, "l2": null, "smem": null},
///    "link": "nvlink", "link_bytes_per_s": 4.5e11,               // per direction
///    "launch_latency_s": 0}
nlohmann::json to_json(const ceilings& c);

}  // namespace roofline::report

#if ROOFLINE_BODIES_REPORT
#include <nlohmann/json.hpp>

namespace roofline::report {
ROOFLINE_INLINE nlohmann::json json_number(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

ROOFLINE_INLINE nlohmann::json json_rate(double v) {
    return std::isfinite(v) && v > 0.0 ? nlohmann::json(v) : nlohmann::json(nullptr);
}

ROOFLINE_INLINE std::string link_kind_name(link_kind k) {
    switch (k) {
        case link_kind::nvlink:
            return "nvlink";
        case link_kind::pcie:
            return "pcie";
        case link_kind::pcie_no_p2p:
            return "pcie_no_p2p";
        case link_kind::network:
            return "network";
    }
    return "pcie";
}

ROOFLINE_INLINE nlohmann::json to_json(const ceilings& c) {
    nlohmann::json flops = nlohmann::json::object();
    for (auto k : all_peak_keys) flops[std::string(to_string(k))] = json_rate(c.flops_at(k));
    nlohmann::json bytes = nlohmann::json::object();
    for (std::size_t i = 0; i < memory_level_count; ++i)
        bytes[std::string(to_string(static_cast<memory_level>(i)))] = json_rate(c.bytes_per_s[i]);
    return {{"origin", c.origin},
            {"flops_per_s", std::move(flops)},
            {"bytes_per_s", std::move(bytes)},
            {"link", link_kind_name(c.link)},
            {"link_bytes_per_s", json_rate(c.link_bytes_per_s)},
            {"launch_latency_s", json_number(c.launch_latency_s)}};
}

}  // namespace roofline::report
#endif  // ROOFLINE_BODIES_REPORT
