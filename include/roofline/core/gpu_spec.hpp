#pragma once
// What a GPU can do, per SKU, with a source for every number.
//
// A roofline is only as good as its ceilings, and the public numbers are a minefield: NVIDIA
// headlines quote sparse (2:4) tensor rates, GeForce cards run FP32-accumulate at half the
// FP16-accumulate rate, clocks float with power, and SKUs that share a chip (RTX PRO 6000
// Workstation 600 W, Max-Q 300 W, Server) differ in power and clocks. So every value here is a
// `spec_value`: a number or "unknown", the source it came from, and a note where sources
// disagree (which one is used, and why). Unknown stays unknown: code that needs a value calls
// `require()` and gets an error naming the GPU and the field instead of a guess.

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"

namespace roofline {

/// One sourced number. `value` is in SI base units (bytes, B/s, Hz, W, FLOP/s) unless the
/// field name says otherwise; nullopt means unknown ("UNCONF" in HARDWARE.md terms).
struct spec_value {
    std::optional<double> value;
    std::string source;  ///< citation ids, e.g. "[S10][S21]" (see `catalog_sources()`)
    std::string note;    ///< derivation ("d: 2048 FLOP/clk/SM x 188 x 2.617 GHz") or disagreement
    bool derived = false;  ///< true when computed from vendor numbers, not printed by a vendor

    bool known() const { return value.has_value(); }
    double value_or(double fallback) const { return value.value_or(fallback); }

    /// The value, or a `usage_error` "<gpu>: <field> is unknown (<note>)".
    double require(std::string_view gpu_id, std::string_view field) const {
        if (value) return *value;
        std::string msg = std::string(gpu_id) + ": " + std::string(field) + " is unknown";
        if (!note.empty()) msg += " (" + note + ")";
        throw usage_error(msg);
    }
};

/// A value printed by a source.
inline spec_value cited(double v, std::string source, std::string note = {}) {
    return {v, std::move(source), std::move(note), false};
}
/// A value derived from vendor numbers; `note` must give the formula.
inline spec_value derived_value(double v, std::string source, std::string note) {
    return {v, std::move(source), std::move(note), true};
}
/// An unknown value; `note` says why (not published, sources disagree too much, ...).
inline spec_value unknown(std::string note, std::string source = {}) {
    return {std::nullopt, std::move(source), std::move(note), false};
}

/// Matrix/vector rate for one `peak_key`.
struct compute_peak {
    /// Dense rate (no 2:4 sparsity) with the accumulator LLM kernels use (FP32 for float
    /// inputs, INT32 for int8). FLOP/s (int8: OP/s). Unknown or unsupported -> nullopt.
    spec_value dense_flops_per_s;
    /// NVIDIA's 2:4 sparse figure where published (usually 2x dense; B300/GB300 FP4: 1.33x).
    spec_value sparse_flops_per_s;
    /// Accumulator type `dense_flops_per_s` assumes: "fp32", "fp16", "int32", or "" for vector.
    std::string accumulate;
    /// Dense rate with FP16 accumulate where it differs (GeForce: 2x the FP32-acc rate).
    spec_value dense_fp16_acc_flops_per_s;
    /// Per-SM rate in FLOP per clock where a source gives it (for the SMs x rate x clock check).
    spec_value flops_per_clock_per_sm;
    /// False when the architecture lacks this rate (FP4 on Hopper): then the peak is 0, not unknown.
    bool supported = true;
};

/// Interconnect kinds the collective model distinguishes.
/// The link a collective crosses: NVLink, PCIe (with or without peer-to-peer), or the scale-out
/// network between hosts (core/network.hpp).
enum class link_kind { nvlink, pcie, pcie_no_p2p, network };

/// Everything the models need about one GPU SKU.
struct gpu_spec {
    std::string id;     ///< stable catalog id, e.g. "rtx-pro-6000-maxq"
    std::string name;   ///< marketing name, e.g. "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
    std::string arch;   ///< "hopper", "blackwell", "blackwell-ultra", "blackwell-rtx"
    std::string sm_arch;  ///< "sm90", "sm100", "sm103", "sm120", "sm121"
    int cc_major = 0;   ///< compute capability, e.g. 12
    int cc_minor = 0;   ///< e.g. 0
    /// Names the device reports (cudaGetDeviceProperties / nvidia-smi), for trace matching.
    std::vector<std::string> device_names;

    spec_value sm_count;
    spec_value base_clock_hz;
    spec_value boost_clock_hz;
    spec_value tensor_clock_hz;  ///< the SM clock the datasheet tensor peaks assume
    spec_value max_clock_hz;     ///< device-reported maximum SM clock (nvidia-smi clocks.max.sm)

    /// Memory an application can allocate, bytes: the device-visible capacity
    /// (cudaDeviceProp.totalGlobalMem, what a serving engine's memory fraction applies to) where
    /// a recording of the device gives it (H200 SXM, B200, H800, A100 SXM4, V100 SXM2), else
    /// the datasheet's figure (which for HBM parts is GiB-sized physical memory written as GB: an
    /// "80 GB" A100 or H800 shows 85.0 / 84.9 GB [O2][O3], a "141 GB" H200 150.1 GB [M1], a "180 GB"
    /// B200 191.5 GB [O1]); the note says which.
    spec_value memory_bytes;
    spec_value memory_bandwidth_bytes_per_s;
    std::string memory_type;  ///< "HBM3e", "GDDR7", "LPDDR5x"
    spec_value l2_bytes;
    spec_value l2_bandwidth_bytes_per_s;

    spec_value smem_per_sm_bytes;     ///< maximum shared memory per SM
    spec_value smem_per_block_bytes;  ///< maximum per block with opt-in (per-SM minus 1 KiB reserved)
    spec_value registers_per_sm;      ///< 32-bit registers
    spec_value max_threads_per_sm;
    spec_value tmem_per_sm_bytes;     ///< Blackwell datacenter tensor memory; 0 where absent

    spec_value power_limit_w;      ///< default board power limit (TGP)
    spec_value power_limit_min_w;  ///< lowest configurable limit
    spec_value power_limit_max_w;  ///< highest configurable limit

    spec_value nvlink_bandwidth_bytes_per_s;  ///< bidirectional total per GPU, as NVIDIA quotes it; 0 = none
    spec_value pcie_gen;
    spec_value pcie_bandwidth_bytes_per_s;    ///< per direction, x16
    spec_value p2p;                           ///< 1 when PCIe peer-to-peer works with the stock driver

    std::array<compute_peak, peak_key_count> peaks;  ///< indexed by `peak_key`

    compute_peak& peak(peak_key k) { return peaks[static_cast<std::size_t>(k)]; }
    const compute_peak& peak(peak_key k) const { return peaks[static_cast<std::size_t>(k)]; }

    /// Dense peak for a key in FLOP/s: 0 when the architecture lacks it, nullopt when unknown.
    std::optional<double> dense_flops_per_s(peak_key k) const {
        const auto& p = peak(k);
        if (!p.supported) return 0.0;
        return p.dense_flops_per_s.value;
    }

    /// "12.0" style compute capability.
    std::string compute_capability() const {
        return std::to_string(cc_major) + "." + std::to_string(cc_minor);
    }

    /// Per-direction NVLink bandwidth (half the bidirectional figure), 0 when none.
    double nvlink_per_direction_bytes_per_s() const {
        return nvlink_bandwidth_bytes_per_s.value_or(0.0) / 2.0;
    }

    /// The link collectives use by default: NVLink when present, else PCIe with or without P2P.
    link_kind default_link() const {
        if (nvlink_bandwidth_bytes_per_s.value_or(0.0) > 0.0) return link_kind::nvlink;
        return p2p.value_or(0.0) > 0.0 ? link_kind::pcie : link_kind::pcie_no_p2p;
    }
};

/// Visits every sourced value of a GPU spec under its stable name, the key `io/gpu_json.hpp`
/// uses: scalar fields by member name ("memory_bandwidth_bytes_per_s"), peak fields as
/// "<member>.<peak_key>" ("dense_flops_per_s.bf16", "sparse_flops_per_s.fp4").
/// Calls `f(const std::string& name, V& value, bool optional)` where V is `spec_value` or
/// `const spec_value` following `Spec`. Optional fields are the ones filled only where a source
/// publishes them (sparse, FP16-accumulate and per-SM rates); every other field is either known
/// with a source or unknown with a note saying why.
template <class Spec, class F>
void for_each_spec_value(Spec& g, F&& f) {
    f(std::string("sm_count"), g.sm_count, false);
    f(std::string("base_clock_hz"), g.base_clock_hz, false);
    f(std::string("boost_clock_hz"), g.boost_clock_hz, false);
    f(std::string("tensor_clock_hz"), g.tensor_clock_hz, false);
    f(std::string("max_clock_hz"), g.max_clock_hz, false);
    f(std::string("memory_bytes"), g.memory_bytes, false);
    f(std::string("memory_bandwidth_bytes_per_s"), g.memory_bandwidth_bytes_per_s, false);
    f(std::string("l2_bytes"), g.l2_bytes, false);
    f(std::string("l2_bandwidth_bytes_per_s"), g.l2_bandwidth_bytes_per_s, false);
    f(std::string("smem_per_sm_bytes"), g.smem_per_sm_bytes, false);
    f(std::string("smem_per_block_bytes"), g.smem_per_block_bytes, false);
    f(std::string("registers_per_sm"), g.registers_per_sm, false);
    f(std::string("max_threads_per_sm"), g.max_threads_per_sm, false);
    f(std::string("tmem_per_sm_bytes"), g.tmem_per_sm_bytes, false);
    f(std::string("power_limit_w"), g.power_limit_w, false);
    f(std::string("power_limit_min_w"), g.power_limit_min_w, false);
    f(std::string("power_limit_max_w"), g.power_limit_max_w, false);
    f(std::string("nvlink_bandwidth_bytes_per_s"), g.nvlink_bandwidth_bytes_per_s, false);
    f(std::string("pcie_gen"), g.pcie_gen, false);
    f(std::string("pcie_bandwidth_bytes_per_s"), g.pcie_bandwidth_bytes_per_s, false);
    f(std::string("p2p"), g.p2p, false);
    for (auto k : all_peak_keys) {
        const std::string key(to_string(k));
        auto& p = g.peaks[static_cast<std::size_t>(k)];
        f("dense_flops_per_s." + key, p.dense_flops_per_s, false);
        f("sparse_flops_per_s." + key, p.sparse_flops_per_s, true);
        f("dense_fp16_acc_flops_per_s." + key, p.dense_fp16_acc_flops_per_s, true);
        f("flops_per_clock_per_sm." + key, p.flops_per_clock_per_sm, true);
    }
}

}  // namespace roofline
