#pragma once
// Board power, clocks and clock-event reasons while GPU work runs, read through NVML.
//
// NVML (libnvidia-ml.so.1) ships with the driver, not the toolkit, so it is loaded at run time
// with dlopen: programs build without it and, where it is missing, say so and go on without a
// power log. Only the few entry points below are declared here (their C ABI is stable across
// driver releases: nvml.h, NVML API Reference). Units as NVML reports them, converted to SI:
// power mW -> W, clocks MHz -> Hz, energy mJ -> J.
//
// Clock-event reason bits (NVML nvmlClocksEventReason*, as nvidia-smi's
// clocks_event_reasons.active): GpuIdle 0x1, ApplicationsClocksSetting 0x2, SwPowerCap 0x4,
// HwSlowdown 0x8, SyncBoost 0x10, SwThermalSlowdown 0x20, HwThermalSlowdown 0x40,
// HwPowerBrakeSlowdown 0x80, DisplayClockSetting 0x100.
//
// POSIX only (dlopen); the CUDA layer is not built on Windows.

#include <dlfcn.h>  // dlopen, dlsym, dlerror

#include <algorithm>  // std::max
#include <atomic>     // std::atomic
#include <limits>     // std::numeric_limits
#include <chrono>     // std::chrono::steady_clock
#include <cstdint>    // std::uint64_t
#include <memory>     // std::shared_ptr
#include <mutex>      // std::mutex, std::lock_guard
#include <optional>   // std::optional
#include <string>     // std::string
#include <thread>     // std::thread
#include <utility>    // std::move
#include <vector>     // std::vector

#include "roofline/cuda/event_timer.hpp"  // quantile
#include "roofline/trace/power.hpp"        // clocks_event_reason bits

namespace roofline {


/// One reading of one GPU. NaN marks a value NVML did not give.
struct nvml_sample {
    double time_s = 0;          ///< `nvml_sampler::now_s()` when read
    double power_w = 0;         ///< board power draw (nvmlDeviceGetPowerUsage)
    double sm_clock_hz = 0;     ///< current SM clock
    double mem_clock_hz = 0;    ///< current memory clock
    double temperature_c = 0;   ///< GPU die temperature
    double gpu_utilization = 0; ///< fraction of the last sample period with a kernel resident (not SM busy)
    double energy_j = 0;        ///< total energy since the driver loaded (Volta and later)
    std::uint64_t clocks_event_reasons = 0;  ///< bitmask, see `clocks_event_reason`
};

namespace detail {

// The NVML C ABI subset we call (nvml.h). nvmlDevice_t is an opaque pointer; nvmlReturn_t an int.
using nvml_device_t = struct nvml_device_st*;
struct nvml_utilization_t {
    unsigned int gpu;
    unsigned int memory;
};
using nvml_init_fn = int (*)();
using nvml_shutdown_fn = int (*)();
using nvml_error_string_fn = const char* (*)(int);
using nvml_handle_by_index_fn = int (*)(unsigned int, nvml_device_t*);
using nvml_handle_by_pci_fn = int (*)(const char*, nvml_device_t*);
using nvml_uint_fn = int (*)(nvml_device_t, unsigned int*);
using nvml_clock_fn = int (*)(nvml_device_t, int, unsigned int*);
using nvml_ull_fn = int (*)(nvml_device_t, unsigned long long*);
using nvml_util_fn = int (*)(nvml_device_t, nvml_utilization_t*);

inline constexpr int nvml_success = 0;
inline constexpr int nvml_clock_sm = 1;   // NVML_CLOCK_SM
inline constexpr int nvml_clock_mem = 2;  // NVML_CLOCK_MEM
inline constexpr int nvml_temperature_gpu = 0;  // NVML_TEMPERATURE_GPU

}  // namespace detail

/// The loaded NVML library. `load()` returns null (and says why) when it is absent.
class nvml_library {
public:
    /// dlopen("libnvidia-ml.so.1") and nvmlInit_v2. On failure returns null and fills `why`.
    static std::shared_ptr<nvml_library> load(std::string* why = nullptr) {
        void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            if (why) *why = std::string("dlopen libnvidia-ml.so.1: ") + dlerror();
            return nullptr;
        }
        auto lib = std::shared_ptr<nvml_library>(new nvml_library(h));
        if (!lib->init || !lib->by_index || !lib->power_usage || !lib->clock_info) {
            if (why) *why = "libnvidia-ml.so.1 lacks nvmlInit_v2 or a device query";
            return nullptr;
        }
        const int rc = lib->init();
        if (rc != detail::nvml_success) {
            if (why) *why = "nvmlInit_v2: " + lib->error_string(rc);
            return nullptr;
        }
        lib->initialised_ = true;
        return lib;
    }

    nvml_library(const nvml_library&) = delete;
    nvml_library& operator=(const nvml_library&) = delete;
    ~nvml_library() {
        if (initialised_ && shutdown) shutdown();
        if (handle_) dlclose(handle_);
    }

    /// NVML's text for a return code.
    std::string error_string(int rc) const {
        return error_str ? error_str(rc) : ("NVML error " + std::to_string(rc));
    }

    detail::nvml_init_fn init = nullptr;
    detail::nvml_shutdown_fn shutdown = nullptr;
    detail::nvml_error_string_fn error_str = nullptr;
    detail::nvml_handle_by_index_fn by_index = nullptr;
    detail::nvml_handle_by_pci_fn by_pci = nullptr;
    detail::nvml_uint_fn power_usage = nullptr;       // mW
    detail::nvml_uint_fn enforced_limit = nullptr;    // mW
    detail::nvml_clock_fn clock_info = nullptr;       // MHz
    detail::nvml_clock_fn max_clock_info = nullptr;   // MHz
    detail::nvml_clock_fn temperature = nullptr;      // C
    detail::nvml_ull_fn event_reasons = nullptr;      // bitmask
    detail::nvml_ull_fn total_energy = nullptr;       // mJ
    detail::nvml_util_fn utilization = nullptr;       // %

private:
    explicit nvml_library(void* h) : handle_(h) {
        auto sym = [h](const char* n) { return dlsym(h, n); };
        init = reinterpret_cast<detail::nvml_init_fn>(sym("nvmlInit_v2"));
        shutdown = reinterpret_cast<detail::nvml_shutdown_fn>(sym("nvmlShutdown"));
        error_str = reinterpret_cast<detail::nvml_error_string_fn>(sym("nvmlErrorString"));
        by_index = reinterpret_cast<detail::nvml_handle_by_index_fn>(sym("nvmlDeviceGetHandleByIndex_v2"));
        by_pci = reinterpret_cast<detail::nvml_handle_by_pci_fn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
        power_usage = reinterpret_cast<detail::nvml_uint_fn>(sym("nvmlDeviceGetPowerUsage"));
        enforced_limit = reinterpret_cast<detail::nvml_uint_fn>(sym("nvmlDeviceGetEnforcedPowerLimit"));
        clock_info = reinterpret_cast<detail::nvml_clock_fn>(sym("nvmlDeviceGetClockInfo"));
        max_clock_info = reinterpret_cast<detail::nvml_clock_fn>(sym("nvmlDeviceGetMaxClockInfo"));
        temperature = reinterpret_cast<detail::nvml_clock_fn>(sym("nvmlDeviceGetTemperature"));
        // R535 renamed "throttle" reasons to "clocks event" reasons; older drivers have only the old name.
        event_reasons = reinterpret_cast<detail::nvml_ull_fn>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
        if (!event_reasons)
            event_reasons = reinterpret_cast<detail::nvml_ull_fn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
        total_energy = reinterpret_cast<detail::nvml_ull_fn>(sym("nvmlDeviceGetTotalEnergyConsumption"));
        utilization = reinterpret_cast<detail::nvml_util_fn>(sym("nvmlDeviceGetUtilizationRates"));
    }

    void* handle_ = nullptr;
    bool initialised_ = false;
};

/// One GPU as NVML sees it.
class nvml_device {
public:
    /// The device with this PCI bus id (as cudaDeviceGetPCIBusId writes it), else NVML index
    /// `fallback_index` (NVML and CUDA may number devices differently). Null when neither works.
    static std::optional<nvml_device> open(std::shared_ptr<nvml_library> lib, const std::string& pci_bus_id,
                                           unsigned fallback_index, std::string* why = nullptr) {
        if (!lib) return std::nullopt;
        detail::nvml_device_t h = nullptr;
        if (!(lib->by_pci && !pci_bus_id.empty() && lib->by_pci(pci_bus_id.c_str(), &h) == detail::nvml_success)) {
            const int rc = lib->by_index(fallback_index, &h);
            if (rc != detail::nvml_success) {
                if (why) *why = "nvmlDeviceGetHandleByIndex_v2: " + lib->error_string(rc);
                return std::nullopt;
            }
        }
        return nvml_device(std::move(lib), h);
    }

    /// Reads everything in `nvml_sample` (NaN where a query fails). `time_s` is left 0.
    nvml_sample read() const {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        nvml_sample s;
        unsigned v = 0;
        s.power_w = lib_->power_usage(h_, &v) == detail::nvml_success ? v * 1e-3 : nan;
        s.sm_clock_hz = lib_->clock_info(h_, detail::nvml_clock_sm, &v) == detail::nvml_success ? v * 1e6 : nan;
        s.mem_clock_hz = lib_->clock_info(h_, detail::nvml_clock_mem, &v) == detail::nvml_success ? v * 1e6 : nan;
        s.temperature_c = lib_->temperature && lib_->temperature(h_, detail::nvml_temperature_gpu, &v) == detail::nvml_success ? v : nan;
        unsigned long long u = 0;
        s.clocks_event_reasons = lib_->event_reasons && lib_->event_reasons(h_, &u) == detail::nvml_success ? u : 0;
        s.energy_j = lib_->total_energy && lib_->total_energy(h_, &u) == detail::nvml_success ? u * 1e-3 : nan;
        detail::nvml_utilization_t ut{};
        s.gpu_utilization = lib_->utilization && lib_->utilization(h_, &ut) == detail::nvml_success ? ut.gpu / 100.0 : nan;
        return s;
    }

    /// Enforced power limit in W (the cap in force now), nullopt when unknown.
    std::optional<double> enforced_power_limit_w() const {
        unsigned v = 0;
        if (lib_->enforced_limit && lib_->enforced_limit(h_, &v) == detail::nvml_success) return v * 1e-3;
        return std::nullopt;
    }
    /// Maximum SM clock in Hz (nvidia-smi clocks.max.sm), nullopt when unknown.
    std::optional<double> max_sm_clock_hz() const {
        unsigned v = 0;
        if (lib_->max_clock_info && lib_->max_clock_info(h_, detail::nvml_clock_sm, &v) == detail::nvml_success)
            return v * 1e6;
        return std::nullopt;
    }

private:
    nvml_device(std::shared_ptr<nvml_library> lib, detail::nvml_device_t h) : lib_(std::move(lib)), h_(h) {}
    std::shared_ptr<nvml_library> lib_;
    detail::nvml_device_t h_ = nullptr;
};

/// Power, clock and cap statistics over a time window of samples.
struct power_summary {
    int samples = 0;
    double median_power_w = 0;
    double max_power_w = 0;
    double median_sm_clock_hz = 0;
    double min_sm_clock_hz = 0;
    double median_mem_clock_hz = 0;
    double sw_power_cap_fraction = 0;  ///< share of samples with SwPowerCap set
    double hw_slowdown_fraction = 0;   ///< share with HwSlowdown, HwThermal or HwPowerBrake set
    double thermal_fraction = 0;       ///< share with SwThermal or HwThermal set
    double energy_j = 0;               ///< difference of the energy counter over the window (0 if unknown)
    double max_temperature_c = 0;
};

/// Statistics of the samples with t0_s <= time_s <= t1_s (all zeros when there are none).
inline power_summary summarize(const std::vector<nvml_sample>& all, double t0_s, double t1_s) {
    power_summary p;
    std::vector<double> pw, clk, mclk;
    double e0 = -1, e1 = -1;
    int cap = 0, hw = 0, th = 0;
    for (const auto& s : all) {
        if (s.time_s < t0_s || s.time_s > t1_s) continue;
        ++p.samples;
        if (s.power_w == s.power_w) pw.push_back(s.power_w);
        if (s.sm_clock_hz == s.sm_clock_hz) clk.push_back(s.sm_clock_hz);
        if (s.mem_clock_hz == s.mem_clock_hz) mclk.push_back(s.mem_clock_hz);
        if (s.energy_j == s.energy_j) {
            if (e0 < 0) e0 = s.energy_j;
            e1 = s.energy_j;
        }
        if (s.temperature_c == s.temperature_c) p.max_temperature_c = std::max(p.max_temperature_c, s.temperature_c);
        namespace r = clocks_event_reason;
        cap += (s.clocks_event_reasons & r::sw_power_cap) != 0;
        hw += (s.clocks_event_reasons & (r::hw_slowdown | r::hw_thermal_slowdown | r::hw_power_brake_slowdown)) != 0;
        th += (s.clocks_event_reasons & (r::sw_thermal_slowdown | r::hw_thermal_slowdown)) != 0;
    }
    if (p.samples == 0) return p;
    p.median_power_w = quantile(pw, 0.5);
    p.max_power_w = quantile(pw, 1.0);
    p.median_sm_clock_hz = quantile(clk, 0.5);
    p.min_sm_clock_hz = quantile(clk, 0.0);
    p.median_mem_clock_hz = quantile(mclk, 0.5);
    p.sw_power_cap_fraction = static_cast<double>(cap) / p.samples;
    p.hw_slowdown_fraction = static_cast<double>(hw) / p.samples;
    p.thermal_fraction = static_cast<double>(th) / p.samples;
    p.energy_j = e1 >= e0 && e0 >= 0 ? e1 - e0 : 0;
    return p;
}

/// Samples one device every `period` on a background thread between `start()` and `stop()`.
class nvml_sampler {
public:
    explicit nvml_sampler(nvml_device dev, std::chrono::milliseconds period = std::chrono::milliseconds(20))
        : dev_(std::move(dev)), period_(period) {}
    nvml_sampler(const nvml_sampler&) = delete;
    nvml_sampler& operator=(const nvml_sampler&) = delete;
    ~nvml_sampler() { stop(); }

    /// Seconds on the steady clock; the time base of `nvml_sample::time_s`.
    static double now_s() {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }

    void start() {
        if (running_.exchange(true)) return;
        thread_ = std::thread([this] {
            auto next = std::chrono::steady_clock::now();
            while (running_.load()) {
                nvml_sample s = dev_.read();
                s.time_s = now_s();
                {
                    std::lock_guard<std::mutex> lock(mu_);
                    samples_.push_back(s);
                }
                next += period_;
                std::this_thread::sleep_until(next);
            }
        });
    }

    void stop() {
        if (!running_.exchange(false)) return;
        if (thread_.joinable()) thread_.join();
    }

    /// A copy of the samples so far.
    std::vector<nvml_sample> samples() const {
        std::lock_guard<std::mutex> lock(mu_);
        return samples_;
    }

    const nvml_device& device() const { return dev_; }

private:
    nvml_device dev_;
    std::chrono::milliseconds period_;
    std::atomic<bool> running_{false};
    std::thread thread_;
    mutable std::mutex mu_;
    std::vector<nvml_sample> samples_;
};

}  // namespace roofline
