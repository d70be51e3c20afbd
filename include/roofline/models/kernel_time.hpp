#pragma once
// Predicted kernel time: the honest lower bound plus what production kernels are known to
// lose to it.
//
//   lower_bound = time_lower_bound(w, datasheet ceilings)
//   predicted   = time_lower_bound(w, achievable ceilings) ,  achievable = datasheet x fractions,
//                 with launch_latency = the per-kernel launch floor (so predicted adds launches x floor)
//
// The fractions are published measurements, not fits to any one GPU (sources below); a
// calibration file replaces any ceiling it names. Validated against this project's H200
// measurements (data/validation/h200_kernels.json): see tests/models/kernel_time_test.cpp.

#include "roofline/core/ceilings.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"

namespace roofline {

/// Fractions of datasheet ceilings that production kernels reach, and the launch floor.
///  * tensor 0.75: the middle of the 0.72-0.80 of dense BF16/FP8 peak that torch/cuBLAS reach on
///    H100, H200, B200, GB200 and B300 (stas00/ml-engineering MAMF table; HARDWARE.md section 6);
///  * vector 1.0: B300 FFMA measured at 99% of peak (HARDWARE.md section 6);
///  * dram 0.90: H200 device-to-device copy 4.3 of 4.8 TB/s (device/KINDS.md, and 4.28 TB/s in
///    our sweep), B300 HBM read 0.95 of post-ECC peak (HARDWARE.md section 6);
///  * launch floor 5 us: one back-to-back eager launch of a small kernel (our H200 sweep: a 1 MiB
///    copy takes 6.3 us of which 0.5 us moves bytes); CUDA graphs shrink it;
///  * graph launch floor 0.52 us: one empty kernel replayed from a 1,000-kernel CUDA graph on our
///    H200 (data/measurements/h200/ceilings.json, graph_empty_kernel; a tiny PyTorch add_ takes
///    0.86 us), what graph-replayed serving steps pay per kernel.
struct kernel_efficiency {
    double tensor = 0.75;
    double vector = 1.0;
    double dram = 0.90;
    double launch_floor_s = 5e-6;
    double graph_launch_floor_s = 0.52e-6;
    const char* source =
        "tensor 0.75 (torch/cuBLAS reach 0.72-0.80 of dense peak, HARDWARE.md 6); dram 0.90 (H200 copy 4.3 of "
        "4.8 TB/s); launch floor 5 us (H200 eager small-kernel launch)";
};

/// Datasheet ceilings derated by `e`: tensor and vector peaks and DRAM bandwidth scaled, launch
/// latency set to the floor; links, L2 and latency terms unchanged.
inline ceilings achievable(ceilings c, const kernel_efficiency& e = {}) {
    for (auto k : all_peak_keys) c.flops_at(k) *= is_tensor(k) ? e.tensor : e.vector;
    c.bytes_at(memory_level::dram) *= e.dram;
    c.launch_latency_s = e.launch_floor_s;
    c.origin += " x efficiency";
    return c;
}

/// Lower bound at `datasheet` and prediction at `used` (usually `achievable(datasheet)`).
struct kernel_time {
    roof_times lower_bound;
    roof_times predicted;
    double lower_bound_s() const { return lower_bound.lower_bound_s; }
    double predicted_s() const { return predicted.lower_bound_s; }
};

/// Prices `w`: lower bound at `datasheet`, prediction at `used`.
inline kernel_time price_kernel(const workload& w, const ceilings& datasheet, const ceilings& used) {
    return {time_lower_bound(w, datasheet), time_lower_bound(w, used)};
}

}  // namespace roofline
