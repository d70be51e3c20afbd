#pragma once
// Which catalog GPU a trace ran on, and why we think so.
//
// A Kineto trace records `deviceProperties` (cudaGetDeviceProperties: name, SM count, compute
// capability, memory) but no clock, bandwidth or power limit: those come from the catalog. The
// match is tried in this order, and the answer says which step decided:
//   1. `--gpu ID` given by the user: used as is (a differing device name is noted);
//   2. the device name equals one of an entry's `device_names` (case and spacing ignored);
//   3. the device name is the start of entries' names ("NVIDIA RTX PRO 6000 Blackwell" starts
//      all three RTX PRO 6000 editions), or entries share its compute capability and SM count;
//      several candidates are told apart by memory size, then by the enforced power limit of
//      the power log (RTX PRO 6000 editions share chip, name stem, SMs and memory, and differ in
//      their limit: 600 W Workstation and Server, 300 W Max-Q);
//   4. otherwise the match is ambiguous (the first candidate is used, and the answer says so) or
//      absent (the caller must ask for `--gpu`).
// The CUDA layer has the same first steps for a live device (cuda/device_query.hpp,
// `match_catalog`); this one works from a trace and a power log, without the CUDA runtime.

#include <cmath>        // std::fabs
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/catalog.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/trace/kernel_event.hpp"

namespace roofline {

/// The catalog entry a trace's GPU resolved to.
struct gpu_resolution {
    std::string id;          ///< catalog id; empty when nothing matched
    std::string method;      ///< "--gpu", "device name", "device name stem + power limit", ...
    std::string reason;      ///< one line for people
    bool ambiguous = false;  ///< several entries fit; `id` is the first of `candidates`
    std::vector<std::string> candidates;  ///< entries that fit the evidence (one when resolved)
};

namespace detail::gpu_match {
/// Lower case, letters and digits only: "NVIDIA H100 80GB HBM3" -> "nvidiah10080gbhbm3".
inline std::string squash(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c >= 'A' && c <= 'Z')
            out += static_cast<char>(c - 'A' + 'a');
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out += c;
    }
    return out;
}
inline std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}
inline std::string watts(double w) {
    return std::to_string(static_cast<long long>(w + 0.5)) + " W";
}
}  // namespace detail::gpu_match

/// Resolves the GPU of a trace.
///  * `device`: the trace's device properties (nullptr when the trace has none, e.g. nsys CSV);
///  * `enforced_limit_w`: the power limit in force from a power log, if one was given;
///  * `requested_id`: `--gpu`, empty when not given (then `catalog.at` is not called).
/// Throws `usage_error` when `requested_id` is not in the catalog.
inline gpu_resolution resolve_trace_gpu(const device_properties* device, const gpu_catalog& catalog,
                                        std::optional<double> enforced_limit_w = std::nullopt,
                                        std::string_view requested_id = {}) {
    using namespace detail::gpu_match;
    gpu_resolution r;
    if (!requested_id.empty()) {
        const gpu_spec& g = catalog.at(requested_id);
        r.id = g.id;
        r.method = "--gpu";
        r.candidates = {g.id};
        r.reason = "given with --gpu";
        if (device && !device->name.empty()) {
            bool named = false;
            for (const auto& n : g.device_names) named = named || squash(n) == squash(device->name);
            if (!named) r.reason += " (the trace's device reports \"" + device->name + "\")";
        }
        return r;
    }
    if (!device) {
        r.reason = "the trace has no device properties: pass --gpu";
        return r;
    }
    const std::string name = squash(device->name);
    const auto& all = catalog.all();
    // 2. exact name.
    for (const auto& g : all)
        for (const auto& n : g.device_names)
            if (!name.empty() && squash(n) == name) {
                r.candidates.push_back(g.id);
                break;
            }
    if (r.candidates.size() == 1) {
        r.id = r.candidates.front();
        r.method = "device name";
        r.reason = "device name \"" + device->name + "\"";
        return r;
    }
    // 3. name stem, then compute capability + SM count.
    std::string basis;
    if (r.candidates.empty() && !name.empty()) {
        for (const auto& g : all)
            for (const auto& n : g.device_names)
                if (squash(n).rfind(name, 0) == 0) {
                    r.candidates.push_back(g.id);
                    break;
                }
        if (!r.candidates.empty()) basis = "device name stem \"" + device->name + "\"";
    }
    if (r.candidates.empty() && device->compute_major >= 0 && device->num_sms > 0) {
        for (const auto& g : all)
            if (g.cc_major == device->compute_major && g.cc_minor == device->compute_minor &&
                g.sm_count.known() && static_cast<int>(*g.sm_count.value) == device->num_sms)
                r.candidates.push_back(g.id);
        if (!r.candidates.empty())
            basis = "compute capability " + std::to_string(device->compute_major) + "." +
                    std::to_string(device->compute_minor) + " and " +
                    std::to_string(device->num_sms) + " SMs";
    }
    if (basis.empty()) basis = "device name \"" + device->name + "\"";
    if (r.candidates.empty()) {
        r.reason = "no catalog entry matches \"" + device->name + "\" (CC " +
                   std::to_string(device->compute_major) + "." +
                   std::to_string(device->compute_minor) + ", " + std::to_string(device->num_sms) +
                   " SMs): pass --gpu";
        return r;
    }
    // Memory size within 10% (cudaDeviceProp reports usable bytes, a little under the label).
    if (r.candidates.size() > 1 && device->total_global_mem_bytes > 0) {
        std::vector<std::string> kept;
        for (const auto& id : r.candidates) {
            const auto* g = catalog.find(id);
            if (g->memory_bytes.known() &&
                std::fabs(device->total_global_mem_bytes - *g->memory_bytes.value) <=
                    0.10 * *g->memory_bytes.value)
                kept.push_back(id);
        }
        if (!kept.empty() && kept.size() < r.candidates.size()) {
            r.candidates = kept;
            basis +=
                " and " +
                std::to_string(static_cast<long long>(device->total_global_mem_bytes / 1e9 + 0.5)) +
                " GB of memory";
        }
    }
    if (r.candidates.size() > 1 && enforced_limit_w && *enforced_limit_w > 0) {
        std::vector<std::string> kept;
        for (const auto& id : r.candidates) {
            const auto* g = catalog.find(id);
            if (g->power_limit_w.known() &&
                std::fabs(*g->power_limit_w.value - *enforced_limit_w) <= 0.05 * *enforced_limit_w)
                kept.push_back(id);
        }
        if (!kept.empty() && kept.size() < r.candidates.size()) {
            r.candidates = kept;
            basis += " and the log's enforced power limit " + watts(*enforced_limit_w);
        }
    }
    r.id = r.candidates.front();
    if (r.candidates.size() == 1) {
        r.method =
            basis.rfind("compute", 0) == 0 ? "compute capability and SM count" : "device name stem";
        if (basis.find("power limit") != std::string::npos) r.method += " + power limit";
        r.reason = basis + ": " + r.id;
        return r;
    }
    r.ambiguous = true;
    r.method = "ambiguous";
    r.reason = "ambiguous: " + basis + " fits " + join(r.candidates) + "; using " + r.id +
               (enforced_limit_w
                    ? ""
                    : " (the enforced power limit in a power log would tell editions apart)") +
               ": pass --gpu";
    return r;
}

}  // namespace roofline
