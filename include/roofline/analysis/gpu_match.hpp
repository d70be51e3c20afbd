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
// Steps 3 and 4 set `assumed`: the device name is in no entry, and the reason says what was
// assumed. A trace without device properties can still name its architecture through its kernel
// names (`resolve_by_kernel_names`: "sm90_xmma_...", "ampere_bf16_...": the architecture's
// reference SKU is assumed, and said). Without either, `unknown_gpu_spec` stands in: every
// ceiling unknown, so the timeline, phases, steps and overlap are analysed and no roof is priced.
// The CUDA layer has the same first steps for a live device (cuda/device_query.hpp,
// `match_catalog`); this one works from a trace and a power log, without the CUDA runtime.

#include <algorithm>    // std::find_if, std::max_element
#include <cmath>        // std::fabs
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
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
    /// True when the entry was not named by the device (`--gpu` or an exact device name): it was
    /// assumed from a name stem, the compute capability and SM count, or kernel names; `reason`
    /// says from what.
    bool assumed = false;
    std::vector<std::string> candidates;  ///< entries that fit the evidence (one when resolved)
};

/// Resolves the GPU of a trace.
///  * `device`: the trace's device properties (nullptr when the trace has none, e.g. nsys CSV);
///  * `enforced_limit_w`: the power limit in force from a power log, if one was given;
///  * `requested_id`: `--gpu`, empty when not given (then `catalog.at` is not called).
/// Throws `usage_error` when `requested_id` is not in the catalog, or is another chip than the
/// trace's device (its compute capability against the entry's `sm_arch`).
gpu_resolution resolve_trace_gpu(const device_properties* device, const gpu_catalog& catalog,
                                 std::optional<double> enforced_limit_w = std::nullopt,
                                 std::string_view requested_id = {});

/// The catalog entry a device name ("NVIDIA H200", as a trace or an nvidia-smi log records it)
/// resolves to, by the rules `resolve_trace_gpu` applies to a trace's device; nullptr when none
/// (or several) fit.
const gpu_spec* gpu_of_device_name(std::string_view name, const gpu_catalog& catalog);

/// The catalog entry a trace without device properties is assumed to have run on, told from the
/// architecture its kernel names carry (the most common marker wins). Each architecture maps to
/// its reference SKU: sm70 v100-sxm2-32gb, sm80 a100-sxm4-80gb, sm89 l40s, sm90 h100-sxm,
/// sm100 b200, sm103 b300, sm120 rtx-pro-6000, sm121 gb10 (ours: the SKU most traces of that
/// architecture come from). `id` is empty when no kernel name carries an architecture or the
/// catalog lacks the entry; `reason` then says to pass --gpu.
gpu_resolution resolve_by_kernel_names(const kernel_trace& t, const gpu_catalog& catalog);

/// The same from kernel names in order of first appearance with their counts (a trace read as
/// a stream keeps these instead of its events).
gpu_resolution resolve_by_kernel_names(const std::vector<std::pair<std::string_view, std::size_t>>& names,
                                       const gpu_catalog& catalog);

/// A stand-in for a GPU nobody could name: every value unknown with `reason` as its note, no
/// rate class supported as known, so every roof priced with it is unpriced and said.
gpu_spec unknown_gpu_spec(const std::string& reason);

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS

namespace roofline {
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

ROOFLINE_INLINE gpu_resolution resolve_trace_gpu(const device_properties* device, const gpu_catalog& catalog,
                                                 std::optional<double> enforced_limit_w,
                                                 std::string_view requested_id) {
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
        // Another chip than the one that ran the trace: its roofs say nothing about the run.
        if (device && device->compute_major > 0 && device->compute_minor >= 0 && !g.sm_arch.empty()) {
            const std::string recorded = "sm" + std::to_string(device->compute_major) + std::to_string(device->compute_minor);
            if (recorded != g.sm_arch)
                throw usage_error("--gpu " + g.id + " is " + g.sm_arch + ", but the trace was recorded on " +
                                  (device->name.empty() ? std::string("a GPU") : "\"" + device->name + "\"") +
                                  " of compute capability " + std::to_string(device->compute_major) + "." +
                                  std::to_string(device->compute_minor) + " (" + recorded +
                                  "): the roofs of another chip say nothing about this run");
        }
        // No compute capability (nsys CSV): the device name, where it names a catalog GPU.
        if (device && !device->name.empty() && !(device->compute_major > 0) && !g.sm_arch.empty()) {
            const gpu_spec* recorded = gpu_of_device_name(device->name, catalog);
            if (recorded && !recorded->sm_arch.empty() && recorded->sm_arch != g.sm_arch)
                throw usage_error("--gpu " + g.id + " is " + g.sm_arch + ", but the trace was recorded on \"" + device->name +
                                  "\" (" + recorded->id + ", " + recorded->sm_arch +
                                  "): the roofs of another chip say nothing about this run");
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
    if (r.candidates.empty() && name.rfind("amd", 0) == 0) {
        r.reason = "\"" + device->name + "\" is an AMD GPU: AMD GPUs are not in the catalog (it holds NVIDIA "
                   "GPUs only); a --gpu-file entry with its ceilings, passed with --gpu, prices it";
        return r;
    }
    if (r.candidates.empty()) {
        // What the device record holds, said as such (an Nsight Compute report may give no name
        // and no SM count), and the entries of its compute capability to choose --gpu from.
        const bool cc_known = device->compute_major >= 0 && device->compute_minor >= 0;
        std::string facts;
        if (cc_known)
            facts = "CC " + std::to_string(device->compute_major) + "." + std::to_string(device->compute_minor);
        facts += std::string(facts.empty() ? "" : ", ") +
                 (device->num_sms > 0 ? std::to_string(device->num_sms) + " SMs" : "SM count not recorded");
        std::string same_cc;
        if (cc_known)
            for (const auto& g : all)
                if (g.cc_major == device->compute_major && g.cc_minor == device->compute_minor)
                    same_cc += (same_cc.empty() ? "" : ", ") + g.id;
        r.reason = (device->name.empty() ? std::string("the trace names no device")
                                         : "no catalog entry matches \"" + device->name + "\"") +
                   " (" + facts + ")" +
                   (same_cc.empty() ? std::string() : "; the catalog's CC " + std::to_string(device->compute_major) +
                                                          "." + std::to_string(device->compute_minor) +
                                                          " entries: " + same_cc) +
                   ": pass --gpu";
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
    r.assumed = true;
    if (r.candidates.size() == 1) {
        r.method =
            basis.rfind("compute", 0) == 0 ? "compute capability and SM count" : "device name stem";
        if (basis.find("power limit") != std::string::npos) r.method += " + power limit";
        r.reason = "assumed from " + basis + ": " + r.id + " (\"" + device->name +
                   "\" is no catalog entry's device name; --gpu overrides)";
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

namespace detail::gpu_match {
/// The architecture a kernel name was compiled for, from the markers cuBLAS, CUTLASS, cuDNN and
/// nvjet put in their names ("sm90_xmma_gemm", "nvjet_sm90_tst", "ampere_bf16_s16816gemm",
/// "volta_sgemm"): "sm70", "sm80", ... or "" when the name carries none.
inline std::string kernel_name_arch(std::string_view name) {
    const auto word_at = [&](std::size_t i) {  // a marker starts the name or follows a non-letter
        return i == 0 || !((name[i - 1] >= 'a' && name[i - 1] <= 'z') || (name[i - 1] >= 'A' && name[i - 1] <= 'Z'));
    };
    for (std::size_t i = name.find("sm"); i != std::string_view::npos; i = name.find("sm", i + 1)) {
        if (!word_at(i) || i + 4 > name.size()) continue;
        std::size_t j = i + 2;
        while (j < name.size() && j < i + 5 && name[j] >= '0' && name[j] <= '9') ++j;
        const std::size_t digits = j - i - 2;
        if (digits < 2 || digits > 3) continue;
        if (j < name.size() && name[j] != '_' && name[j] != 'a' && name[j] != 'f') continue;
        return "sm" + std::string(name.substr(i + 2, digits));
    }
    // CUTLASS 2.x instance names: "cutlass_70_wmma_tensorop_...", "cutlass_80_tensorop_...".
    for (std::size_t i = name.find("cutlass_"); i != std::string_view::npos; i = name.find("cutlass_", i + 1))
        if (i + 11 <= name.size() && name[i + 8] >= '0' && name[i + 8] <= '9' && name[i + 9] >= '0' &&
            name[i + 9] <= '9' && name[i + 10] == '_')
            return "sm" + std::string(name.substr(i + 8, 2));
    for (const auto& [marker, arch] : {std::pair<std::string_view, std::string_view>{"volta_", "sm70"},
                                       {"turing_", "sm75"},
                                       {"ampere_", "sm80"},
                                       {"hopper_", "sm90"}})
        for (std::size_t i = name.find(marker); i != std::string_view::npos; i = name.find(marker, i + 1))
            if (word_at(i)) return std::string(arch);
    return {};
}
}  // namespace detail::gpu_match

ROOFLINE_INLINE gpu_resolution resolve_by_kernel_names(const kernel_trace& t, const gpu_catalog& catalog) {
    std::vector<std::pair<std::string_view, std::size_t>> names;  // first appearance order
    std::unordered_map<std::string_view, std::size_t> slot;
    for (const auto& e : t.events) {
        if (e.activity != gpu_activity::kernel) continue;
        const auto [it, fresh] = slot.emplace(e.name, names.size());
        if (fresh) names.emplace_back(e.name, 0);
        ++names[it->second].second;
    }
    return resolve_by_kernel_names(names, catalog);
}

ROOFLINE_INLINE gpu_resolution resolve_by_kernel_names(const std::vector<std::pair<std::string_view, std::size_t>>& names,
                                                       const gpu_catalog& catalog) {
    using namespace detail::gpu_match;
    std::vector<std::pair<std::string, std::size_t>> counts;
    std::size_t kernels = 0;
    for (const auto& [name, n] : names) {
        kernels += n;
        const std::string arch = kernel_name_arch(name);
        if (arch.empty()) continue;
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == arch; });
        if (it == counts.end()) counts.push_back({arch, n});
        else it->second += n;
    }
    gpu_resolution r;
    if (counts.empty()) {
        r.reason = "the trace has no device properties and no kernel name carries an architecture "
                   "(sm80_, sm90_, ampere_, ...): roofs unpriced; pass --gpu ID to price them";
        return r;
    }
    const auto best = *std::max_element(counts.begin(), counts.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    static const std::pair<std::string_view, std::string_view> reference[] = {
        {"sm70", "v100-sxm2-32gb"}, {"sm80", "a100-sxm4-80gb"}, {"sm89", "l40s"},      {"sm90", "h100-sxm"},
        {"sm100", "b200"},          {"sm103", "b300"},          {"sm120", "rtx-pro-6000"}, {"sm121", "gb10"}};
    std::string id;
    for (const auto& [arch, ref] : reference)
        if (arch == best.first && catalog.find(ref)) id = std::string(ref);
    const std::string seen = std::to_string(best.second) + " of " + std::to_string(kernels) +
                             " kernel names carry " + best.first;
    if (id.empty()) {
        r.reason = "the trace has no device properties; " + seen +
                   ", an architecture the catalog has no reference entry for: roofs unpriced; pass --gpu ID";
        return r;
    }
    r.id = id;
    r.method = "kernel names";
    r.assumed = true;
    r.candidates = {id};
    r.reason = "the trace has no device properties; " + seen + ": assumed " + id + " (" +
               catalog.find(id)->name + "), the reference " + best.first +
               " entry; pass --gpu ID for the exact SKU";
    return r;
}

ROOFLINE_INLINE gpu_spec unknown_gpu_spec(const std::string& reason) {
    gpu_spec g;
    g.id = "unknown";
    g.name = "unknown GPU";
    g.arch = "unknown";
    g.sm_arch = "unknown";
    g.memory_type = "unknown";
    for_each_spec_value(g, [&](const std::string&, spec_value& v, bool) { v = unknown(reason); });
    return g;
}

ROOFLINE_INLINE const gpu_spec* gpu_of_device_name(std::string_view name, const gpu_catalog& catalog) {
    device_properties d;
    d.name = std::string(name);
    const auto r = resolve_trace_gpu(&d, catalog, std::nullopt, {});
    return r.id.empty() ? nullptr : catalog.find(r.id);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
