#pragma once
// The built-in GPU catalog: one entry per SKU, keyed by a stable id, every value sourced.
//
// Ids by architecture (`roofline gpus` lists them with names):
//   SM70  v100-sxm2-16gb, v100-sxm2-32gb, v100-pcie-16gb, v100-pcie-32gb
//   SM80  a100-sxm4-40gb, a100-sxm4-80gb, a100-pcie-40gb, a100-pcie-80gb, a800-sxm4-80gb,
//         a800-pcie-80gb, a30
//   SM89  l4, l40s, rtx-4090
//   SM90  h100-sxm, h100-pcie, h100-nvl, h800, h20, h200-sxm, h200-nvl, gh200, gh200-144gb
//   SM100 b200, gb200;  SM103 b300, gb300;  SM110 jetson-thor
//   SM120 rtx-pro-6000, rtx-pro-6000-maxq, rtx-pro-6000-server, rtx-pro-5000, rtx-pro-5000-72gb,
//         rtx-pro-4500, rtx-5090, rtx-5080;  SM121 gb10
// The C++ tables under `core/gpus/` are the single source of truth for built-in GPUs; a JSON
// overlay (`io/gpu_json.hpp`, `--gpu-file`) adds or overrides entries at run time.
// `gpu_catalog::lookup` takes the names people type ("H200", "b200", "rtx6000", "5090") and
// says which entry it took and why.

#include <algorithm>    // std::find_if
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/gpus/sm100.hpp"
#include "roofline/core/gpus/sm103.hpp"
#include "roofline/core/gpus/sm110.hpp"
#include "roofline/core/gpus/sm120.hpp"
#include "roofline/core/gpus/sm121.hpp"
#include "roofline/core/gpus/sm70.hpp"
#include "roofline/core/gpus/sm80.hpp"
#include "roofline/core/gpus/sm89.hpp"
#include "roofline/core/gpus/sm90.hpp"
#include "roofline/core/gpus/sources.hpp"

namespace roofline {

/// Every built-in GPU, in catalog order (by architecture, then SKU).
inline std::vector<gpu_spec> builtin_gpus() {
    return {gpus::v100_sxm2(16),       gpus::v100_sxm2(32),       gpus::v100_pcie(16),
            gpus::v100_pcie(32),       gpus::a100_sxm4(40),       gpus::a100_sxm4(80),
            gpus::a100_pcie(40),       gpus::a100_pcie(80),       gpus::a800_sxm4(),
            gpus::a800_pcie(),         gpus::a30(),               gpus::l4(),
            gpus::l40s(),              gpus::rtx_4090(),          gpus::h100_sxm(),
            gpus::h100_pcie(),         gpus::h100_nvl(),          gpus::h800(),
            gpus::h20(),               gpus::h200_sxm(),          gpus::h200_nvl(),
            gpus::gh200(96),           gpus::gh200(144),          gpus::b200(),
            gpus::gb200(),             gpus::b300(),              gpus::gb300(),
            gpus::jetson_thor(),       gpus::rtx_pro_6000(),      gpus::rtx_pro_6000_maxq(),
            gpus::rtx_pro_6000_server(), gpus::rtx_pro_5000(48),  gpus::rtx_pro_5000(72),
            gpus::rtx_pro_4500(),      gpus::rtx_5090(),          gpus::rtx_5080(),
            gpus::gb10()};
}

namespace detail::catalog {
/// Lower case, letters and digits only: "RTX PRO 6000" -> "rtxpro6000".
inline std::string squash(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
    }
    return out;
}

/// Short names people type for a family, the entry each one takes, and what that assumes.
/// Ours: the SXM or flagship part of the family, since that is what most traces come from.
struct gpu_alias {
    std::string_view name;  ///< squashed
    std::string_view id;
    std::string_view assumes;
};
inline constexpr gpu_alias gpu_aliases[] = {
    {"v100", "v100-sxm2-32gb", "the SXM2 32 GB part; v100-sxm2-16gb, v100-pcie-16gb, v100-pcie-32gb exist"},
    {"a100", "a100-sxm4-80gb", "the SXM4 80 GB part; a100-sxm4-40gb, a100-pcie-40gb, a100-pcie-80gb exist"},
    {"a800", "a800-sxm4-80gb", "the SXM4 part; a800-pcie-80gb exists"},
    {"h100", "h100-sxm", "the SXM5 part; h100-pcie, h100-nvl exist"},
    {"h200", "h200-sxm", "the SXM part; h200-nvl exists"},
    {"gh200", "gh200", "the 96 GB HBM3 part; gh200-144gb exists"},
    {"b300", "b300", "the HGX part; gb300 is the Grace Blackwell Ultra superchip"},
    {"rtx6000", "rtx-pro-6000", "the 600 W Workstation Edition; rtx-pro-6000-maxq, rtx-pro-6000-server exist"},
    {"pro6000", "rtx-pro-6000", "the 600 W Workstation Edition; rtx-pro-6000-maxq, rtx-pro-6000-server exist"},
    {"rtxpro6000", "rtx-pro-6000", "the 600 W Workstation Edition; rtx-pro-6000-maxq, rtx-pro-6000-server exist"},
    {"rtxpro5000", "rtx-pro-5000", "the 48 GB part; rtx-pro-5000-72gb exists"},
    {"pro5000", "rtx-pro-5000", "the 48 GB part; rtx-pro-5000-72gb exists"},
    {"dgxspark", "gb10", "DGX Spark is the GB10 superchip"},
    {"spark", "gb10", "DGX Spark is the GB10 superchip"},
    {"thor", "jetson-thor", "Jetson AGX Thor T5000"},
};
}  // namespace detail::catalog

/// What `gpu_catalog::lookup` found for a name.
struct gpu_lookup {
    const gpu_spec* gpu = nullptr;  ///< the entry taken; nullptr when none (or several) fit
    /// Empty when the name is an id as written; else one line saying which entry was taken and
    /// what that assumes ("H200" taken as h200-sxm (...): the SXM part; h200-nvl exists).
    std::string how;
    std::vector<std::string> candidates;  ///< ids that fit when the name is ambiguous
};

/// A set of GPU specs that can be searched by id and extended by overlays.
class gpu_catalog {
public:
    /// The built-in catalog.
    static gpu_catalog builtin() {
        gpu_catalog c;
        c.gpus_ = builtin_gpus();
        return c;
    }

    /// The entry with this id, or nullptr. Exact match first, then ignoring case.
    const gpu_spec* find(std::string_view id) const {
        auto it = std::find_if(gpus_.begin(), gpus_.end(), [&](const gpu_spec& g) { return g.id == id; });
        if (it != gpus_.end()) return &*it;
        const std::string want = lower(id);
        it = std::find_if(gpus_.begin(), gpus_.end(), [&](const gpu_spec& g) { return lower(g.id) == want; });
        return it == gpus_.end() ? nullptr : &*it;
    }

    /// The entry a typed name means, tried in order: the id as written; the id ignoring case and
    /// punctuation ("H200-SXM", "rtx_pro_6000"); a family short name (`detail::catalog::gpu_aliases`:
    /// "H200" -> h200-sxm, "rtx6000" -> rtx-pro-6000, "spark" -> gb10); a device or marketing name
    /// ("NVIDIA H800", "Tesla V100-SXM2-32GB"); the one id that contains the name ("5090" ->
    /// rtx-5090). Several ids containing it is ambiguous: `gpu` is nullptr, `candidates` lists them.
    gpu_lookup lookup(std::string_view text) const {
        using namespace detail::catalog;
        gpu_lookup r;
        for (const auto& g : gpus_)
            if (g.id == text) {
                r.gpu = &g;
                return r;
            }
        const std::string want = squash(text);
        if (want.empty()) return r;
        const auto taken = [&](const gpu_spec& g, std::string_view why) {
            r.gpu = &g;
            // Appended piece by piece: a chain of operator+ here trips g++ 12's -Wrestrict false positive.
            r.how.assign(1, '"');
            r.how.append(text).append("\" taken as ").append(g.id).append(" (").append(g.name).append(")");
            if (!why.empty()) r.how.append(": ").append(why);
            return r;
        };
        for (const auto& g : gpus_)
            if (squash(g.id) == want) return taken(g, "");
        for (const auto& a : gpu_aliases)
            if (a.name == want)
                if (const gpu_spec* g = find(a.id)) return taken(*g, a.assumes);
        for (const auto& g : gpus_) {
            if (squash(g.name) == want) return taken(g, "marketing name");
            for (const auto& n : g.device_names)  // nvidia-smi's names, also without "NVIDIA "
                if (squash(n) == want || squash(n) == "nvidia" + want) return taken(g, "device name");
        }
        std::vector<const gpu_spec*> containing;
        for (const auto& g : gpus_) {
            const std::string id = squash(g.id);
            const auto at = id.find(want);
            if (at == std::string::npos) continue;
            // "l40" is not "l40s": an id that only adds one letter right after the text is another
            // SKU (L40 vs L40S, half the tensor rate), not a spelling of this one.
            const std::size_t end = at + want.size();
            if (end + 1 == id.size() && id[end] >= 'a' && id[end] <= 'z' && want.back() >= '0' && want.back() <= '9')
                continue;
            containing.push_back(&g);
        }
        if (containing.size() == 1) return taken(*containing.front(), "the only id containing it");
        for (const auto* g : containing) r.candidates.push_back(g->id);
        return r;
    }

    /// The entry `lookup` takes for this name; throws `usage_error` naming the name and listing
    /// the candidates (ambiguous) or the known ids (no match).
    const gpu_spec& at(std::string_view id) const& {
        const gpu_lookup l = lookup(id);
        if (l.gpu) return *l.gpu;
        std::string known;
        for (const auto& s : l.candidates) known += (known.empty() ? "" : ", ") + s;
        if (!known.empty())
            throw usage_error("GPU \"" + std::string(id) + "\" is ambiguous: " + known + " (pass one of them)");
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
    static std::string lower(std::string_view s) {
        std::string out(s);
        for (char& c : out)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        return out;
    }
    std::vector<gpu_spec> gpus_;
};

}  // namespace roofline
