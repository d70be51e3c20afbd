#pragma once
// Timing GPU work with CUDA events: warm up, then time each repetition between two events on
// the stream and report the median and spread (METHOD: median of many, after warm-up).
//
// An event pair measures device time from the first event to the second, including any idle gap
// when the host launches slower than the device runs. For kernels shorter than the launch cost
// (a few microseconds), time `inner` launches between one pair and divide.

#include <algorithm>  // std::sort, std::min
#include <cmath>      // std::floor
#include <cstddef>    // std::size_t
#include <limits>     // std::numeric_limits
#include <vector>     // std::vector

#include <cuda_runtime_api.h>  // cudaEvent_t, cudaStream_t

#include "roofline/cuda/check.hpp"

namespace roofline {

/// Linear-interpolated quantile of `xs` (q in [0, 1]; numpy's default method). NaN when empty.
inline double quantile(std::vector<double> xs, double q) {
    if (xs.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(xs.begin(), xs.end());
    const double pos = q * static_cast<double>(xs.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, xs.size() - 1);
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - static_cast<double>(lo));
}

/// Result of timing one piece of GPU work; seconds per execution.
struct kernel_timing {
    std::vector<double> samples_s;  ///< one per repetition (already divided by `inner`)
    double median_s = 0;
    double p10_s = 0;
    double p90_s = 0;
    double min_s = 0;
};

/// How many times to run, and how.
struct timing_options {
    int warmup = 3;  ///< untimed runs first (module load, caches, clocks)
    int reps = 20;   ///< timed repetitions (each its own event pair)
    int inner = 1;   ///< launches per repetition; the sample is their mean
};

/// Times `launch(i)` (which enqueues work on `stream`; i counts every call from 0, so callers
/// can rotate inputs) with CUDA events. Throws `cuda_error` on any CUDA failure.
template <class Launch>
kernel_timing time_kernel(Launch&& launch, timing_options opt = {}, cudaStream_t stream = nullptr) {
    long call = 0;
    for (int w = 0; w < opt.warmup; ++w) launch(call++);
    ROOFLINE_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(opt.reps));
    for (auto& e : ev) ROOFLINE_CUDA_CHECK(cudaEventCreate(&e));
    for (int r = 0; r < opt.reps; ++r) {
        ROOFLINE_CUDA_CHECK(cudaEventRecord(ev[2 * r], stream));
        for (int j = 0; j < opt.inner; ++j) launch(call++);
        ROOFLINE_CUDA_CHECK(cudaEventRecord(ev[2 * r + 1], stream));
    }
    ROOFLINE_CUDA_CHECK(cudaStreamSynchronize(stream));
    kernel_timing t;
    for (int r = 0; r < opt.reps; ++r) {
        float ms = 0;
        ROOFLINE_CUDA_CHECK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
        t.samples_s.push_back(ms * 1e-3 / opt.inner);
    }
    for (auto& e : ev) cudaEventDestroy(e);
    t.median_s = quantile(t.samples_s, 0.5);
    t.p10_s = quantile(t.samples_s, 0.1);
    t.p90_s = quantile(t.samples_s, 0.9);
    t.min_s = quantile(t.samples_s, 0.0);
    return t;
}

}  // namespace roofline
