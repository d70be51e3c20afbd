#pragma once
// What the CUDA runtime says about a device, turned into a `gpu_spec` and matched against the
// catalog.
//
// `cudaGetDeviceProperties` and `cudaDeviceGetAttribute` give the SM count, the peak SM and
// memory clocks, the memory bus width, L2 and shared-memory sizes. They do not give tensor
// peaks, power limits or link bandwidths: those come from the catalog entry the device matches.
// Peak DRAM bandwidth is derived the way CUDA's deviceQuery/bandwidthTest samples do:
//     B = 2 (double data rate) x memory clock x bus width / 8
// e.g. H200 (measured): 2 x 3.201 GHz x 6016 bit / 8 = 4.81 TB/s (datasheet: 4.8 TB/s).
// CUDA 13 removed `clockRate` and `memoryClockRate` from cudaDeviceProp; the attributes
// (cudaDevAttrClockRate, cudaDevAttrMemoryClockRate) remain, so they are read that way.

#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include <cuda_runtime_api.h>  // cudaGetDeviceProperties, cudaDeviceGetAttribute

#include "roofline/core/catalog.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/cuda/check.hpp"

namespace roofline {

/// Source tag of every value `to_gpu_spec` fills from the device.
inline constexpr const char* device_query_source = "measured: device query";

/// Raw facts of one CUDA device, SI units. Filled by `query_device`, or by hand in tests.
struct cuda_device_info {
    int index = 0;
    std::string name;        ///< cudaDeviceProp::name, e.g. "NVIDIA H200"
    std::string pci_bus_id;  ///< "0000:18:00.0"
    int cc_major = 0;
    int cc_minor = 0;
    int sm_count = 0;
    double sm_clock_hz = 0;      ///< peak SM clock (cudaDevAttrClockRate, kHz x 1e3)
    double memory_clock_hz = 0;  ///< peak memory clock (cudaDevAttrMemoryClockRate, kHz x 1e3)
    int memory_bus_width_bits = 0;
    double memory_bytes = 0;              ///< totalGlobalMem
    double l2_bytes = 0;                  ///< l2CacheSize
    double smem_per_sm_bytes = 0;         ///< sharedMemPerMultiprocessor
    double smem_per_block_optin_bytes = 0;  ///< sharedMemPerBlockOptin
    double registers_per_sm = 0;          ///< regsPerMultiprocessor (32-bit registers)
    double max_threads_per_sm = 0;        ///< maxThreadsPerMultiProcessor
    int driver_version = 0;               ///< cudaDriverGetVersion, e.g. 13000
    int runtime_version = 0;              ///< cudaRuntimeGetVersion

    /// Peak DRAM bandwidth in B/s: 2 x memory clock x bus width / 8 (0 when a part is unknown).
    double memory_bandwidth_bytes_per_s() const {
        return 2.0 * memory_clock_hz * memory_bus_width_bits / 8.0;
    }
    /// "9.0" style compute capability.
    std::string compute_capability() const {
        return std::to_string(cc_major) + "." + std::to_string(cc_minor);
    }
};

/// Reads device `index`. Throws `cuda_error` when there is no such device or no driver.
inline cuda_device_info query_device(int index) {
    cudaDeviceProp p{};
    ROOFLINE_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
    cuda_device_info d;
    d.index = index;
    d.name = p.name;
    char bus[32] = {};
    ROOFLINE_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, index));
    d.pci_bus_id = bus;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    int khz = 0;
    ROOFLINE_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index));
    d.sm_clock_hz = khz * 1e3;
    ROOFLINE_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index));
    d.memory_clock_hz = khz * 1e3;
    d.memory_bus_width_bits = p.memoryBusWidth;
    d.memory_bytes = static_cast<double>(p.totalGlobalMem);
    d.l2_bytes = p.l2CacheSize;
    d.smem_per_sm_bytes = static_cast<double>(p.sharedMemPerMultiprocessor);
    d.smem_per_block_optin_bytes = static_cast<double>(p.sharedMemPerBlockOptin);
    d.registers_per_sm = p.regsPerMultiprocessor;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    ROOFLINE_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
    ROOFLINE_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
    return d;
}

/// Which catalog entry a device is, and why.
struct catalog_match {
    const gpu_spec* spec = nullptr;       ///< nullptr when nothing matched or the match is ambiguous
    std::string reason;                   ///< e.g. "device name \"NVIDIA H200\""
    std::vector<std::string> candidates;  ///< ids that fit equally well (more than one: ambiguous)
};

/// Matches by reported device name first (exact, against each entry's `device_names`), then by
/// compute capability and SM count. Several entries fitting equally (RTX PRO 6000 editions
/// share name, CC and SM count) leave `spec` null and list them in `candidates`: the enforced
/// power limit tells them apart, which the caller may know from NVML.
inline catalog_match match_catalog(const cuda_device_info& d, const gpu_catalog& catalog) {
    catalog_match m;
    for (const auto& g : catalog.all())
        for (const auto& n : g.device_names)
            if (n == d.name) {
                m.candidates.push_back(g.id);
                break;
            }
    if (!m.candidates.empty()) {
        m.reason = "device name \"" + d.name + "\"";
    } else {
        for (const auto& g : catalog.all())
            if (g.cc_major == d.cc_major && g.cc_minor == d.cc_minor && g.sm_count.known() &&
                static_cast<int>(*g.sm_count.value) == d.sm_count)
                m.candidates.push_back(g.id);
        m.reason = "compute capability " + d.compute_capability() + " and " +
                   std::to_string(d.sm_count) + " SMs";
    }
    if (m.candidates.size() == 1) {
        m.spec = catalog.find(m.candidates.front());
    } else if (m.candidates.empty()) {
        m.reason = "no catalog entry has " + m.reason;
    } else {
        m.reason = "ambiguous: " + m.reason + " fits " + std::to_string(m.candidates.size()) + " entries";
    }
    return m;
}

/// A `gpu_spec` from the device: the matched catalog entry (`base`, may be null) with every
/// value the device reports replaced by it, tagged `device_query_source`. Values the device does
/// not report (tensor peaks, power limits, links) stay as in `base`, or unknown without one.
inline gpu_spec to_gpu_spec(const cuda_device_info& d, const gpu_spec* base = nullptr) {
    gpu_spec g = base ? *base : gpu_spec{};
    if (!base) {
        g.id = "device-" + std::to_string(d.index);
        g.cc_major = d.cc_major;
        g.cc_minor = d.cc_minor;
    }
    g.name = d.name;
    bool listed = false;
    for (const auto& n : g.device_names) listed = listed || n == d.name;
    if (!listed) g.device_names.push_back(d.name);
    auto measured = [](double v, std::string note = {}) {
        spec_value s = v > 0 ? cited(v, device_query_source, std::move(note))
                             : unknown("device reported 0", device_query_source);
        return s;
    };
    g.sm_count = measured(d.sm_count);
    g.max_clock_hz = measured(d.sm_clock_hz, "cudaDevAttrClockRate (peak SM clock)");
    g.memory_bytes = measured(d.memory_bytes, "totalGlobalMem (usable, below the marketed size)");
    spec_value bw = measured(d.memory_bandwidth_bytes_per_s(),
                             "2 x memory clock x bus width / 8 = 2 x " +
                                 std::to_string(d.memory_clock_hz / 1e6) + " MHz x " +
                                 std::to_string(d.memory_bus_width_bits) + " bit / 8");
    bw.derived = true;
    g.memory_bandwidth_bytes_per_s = bw;
    g.l2_bytes = measured(d.l2_bytes);
    g.smem_per_sm_bytes = measured(d.smem_per_sm_bytes);
    g.smem_per_block_bytes = measured(d.smem_per_block_optin_bytes, "sharedMemPerBlockOptin");
    g.registers_per_sm = measured(d.registers_per_sm);
    g.max_threads_per_sm = measured(d.max_threads_per_sm);
    return g;
}

}  // namespace roofline
