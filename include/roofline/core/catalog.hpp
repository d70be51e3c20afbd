#pragma once
// The built-in GPU catalog: one entry per SKU, keyed by a stable id, every value sourced.
//
// Ids: h100-sxm, h200-sxm (SM90); b200, gb200 (SM100); b300, gb300 (SM103);
// rtx-pro-6000, rtx-pro-6000-maxq, rtx-pro-6000-server, rtx-5090 (SM120); gb10 (SM121).
// The C++ tables under `core/gpus/` are the single source of truth for built-in GPUs; a JSON
// overlay (`io/gpu_json.hpp`, `--gpu-file`) adds or overrides entries at run time.

#include <algorithm>    // std::find_if
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/gpus/sm100.hpp"
#include "roofline/core/gpus/sm103.hpp"
#include "roofline/core/gpus/sm120.hpp"
#include "roofline/core/gpus/sm121.hpp"
#include "roofline/core/gpus/sm90.hpp"
#include "roofline/core/gpus/sources.hpp"

namespace roofline {

/// Every built-in GPU, in catalog order (by architecture, then SKU).
inline std::vector<gpu_spec> builtin_gpus() {
    return {gpus::h100_sxm(),          gpus::h200_sxm(),          gpus::b200(),
            gpus::gb200(),             gpus::b300(),              gpus::gb300(),
            gpus::rtx_pro_6000(),      gpus::rtx_pro_6000_maxq(), gpus::rtx_pro_6000_server(),
            gpus::rtx_5090(),          gpus::gb10()};
}

/// A set of GPU specs that can be searched by id and extended by overlays.
class gpu_catalog {
public:
    /// The built-in catalog.
    static gpu_catalog builtin() {
        gpu_catalog c;
        c.gpus_ = builtin_gpus();
        return c;
    }

    /// The entry with this id, or nullptr.
    const gpu_spec* find(std::string_view id) const {
        auto it = std::find_if(gpus_.begin(), gpus_.end(), [&](const gpu_spec& g) { return g.id == id; });
        return it == gpus_.end() ? nullptr : &*it;
    }

    /// The entry with this id; throws `usage_error` naming the id and listing the known ones.
    const gpu_spec& at(std::string_view id) const& {
        if (const gpu_spec* g = find(id)) return *g;
        std::string known;
        for (const auto& g : gpus_) known += (known.empty() ? "" : ", ") + g.id;
        throw usage_error("unknown GPU id \"" + std::string(id) + "\" (known: " + known + ")");
    }

    /// Adds `g`, or replaces the entry with the same id. Returns true when it replaced one.
    bool add_or_replace(gpu_spec g) {
        for (auto& e : gpus_)
            if (e.id == g.id) {
                e = std::move(g);
                return true;
            }
        gpus_.push_back(std::move(g));
        return false;
    }

    /// On a temporary catalog (`gpu_catalog::builtin().at("b200")`) a copy, so that the result
    /// does not dangle.
    gpu_spec at(std::string_view id) && { return static_cast<const gpu_catalog&>(*this).at(id); }

    const std::vector<gpu_spec>& all() const& { return gpus_; }
    /// On a temporary catalog (`for (auto& g : gpu_catalog::builtin().all())`) the entries
    /// themselves, moved out, so that the loop does not iterate a destroyed vector.
    std::vector<gpu_spec> all() && { return std::move(gpus_); }

private:
    std::vector<gpu_spec> gpus_;
};

}  // namespace roofline
