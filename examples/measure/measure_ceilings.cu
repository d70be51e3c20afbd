// measure_ceilings: the achievable ceilings of one GPU, measured, with power and clocks logged.
//
// Runs, on one device: DRAM stream copy (kernel and cudaMemcpy), DRAM read, L2-resident read,
// FP32 FMA, tensor-core GEMM through cuBLASLt (bf16, and fp8 e4m3 where the GPU has it), and
// empty-kernel launch costs; an NVML sampler (20 ms) runs throughout. Writes one JSON file, the
// input `roofline calibrate` reads.
//
//   measure_ceilings [--device N] [--out ceilings.json] [--seconds S]   (S: target time per test)
//
// Build: nvcc -O3 -std=c++20 -arch=sm_90 -I include measure_ceilings.cu -lcublasLt -o measure_ceilings
// (or the CMake target `measure_ceilings` with ROOFLINE_WITH_CUDA). Also builds for sm_100, sm_120.
//
// Output schema "roofline.ceilings/1" (SI units throughout):
// {
//   "schema": "roofline.ceilings/1", "tool": "measure_ceilings", "created_utc": "2026-...Z",
//   "device": { "index", "name", "pci_bus_id", "compute_capability": "9.0", "sm_count",
//               "sm_clock_hz" (peak, device query), "memory_clock_hz", "memory_bus_width_bits",
//               "memory_bandwidth_bytes_per_s" (2 x memory clock x bus width / 8), "memory_bytes",
//               "l2_bytes", "smem_per_sm_bytes", "smem_per_block_optin_bytes", "driver_version",
//               "runtime_version", "cublaslt_version", "catalog_id" (null if unmatched),
//               "catalog_match" (why), "enforced_power_limit_w", "max_sm_clock_hz" (NVML) },
//   "nvml": "ok" | reason it is absent,
//   "measurements": [ {
//       "name": "dram_copy" | "dram_memcpy" | "dram_read" | "l2_read" | "fp32_fma" |
//               "gemm_bf16" | "gemm_fp8_e4m3" | "launch_empty_kernel" | "launch_host_enqueue" |
//               "launch_sync_roundtrip" | "graph_empty_kernel",
//       "kind": "memory" | "compute" | "launch",
//       "level": "dram" | "l2" | null,           (memory kind)
//       "pipe": "fp32" | "tensor" | null, "dtype": "bf16" | "fp8_e4m3" | "fp32" | null,
//       "params": { ...sizes: m, n, k, buffer_bytes, passes, launches... },
//       "flops": FLOP per execution, "bytes": minimum bytes per execution (documented per test),
//       "median_s", "p10_s", "p90_s", "min_s", "reps": timing per execution (CUDA events),
//       "achieved_flops_per_s", "achieved_bytes_per_s": flops or bytes / median_s (null if 0),
//       "check_rel_error": GEMM spot check against a host dot product (null elsewhere),
//       "power": { "samples", "median_power_w", "max_power_w", "median_sm_clock_hz",
//                  "min_sm_clock_hz", "median_mem_clock_hz", "sw_power_cap_fraction",
//                  "hw_slowdown_fraction", "thermal_fraction", "energy_j", "max_temperature_c" }
//   } ... ],
//   "ceilings": { "dram_bytes_per_s", "l2_bytes_per_s", "fp32_flops_per_s",
//                 "bf16_tensor_flops_per_s", "fp8_tensor_flops_per_s", "launch_overhead_s" }
//                 (best measured value per resource; null when not measured)
// }
// Bytes are counted as the fewest a perfect kernel must move: copy = read + write of the
// buffer; read = the buffer once; L2 read = buffer x passes; GEMM = A + B + D once each.

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "roofline/core/catalog.hpp"
#include "roofline/cuda/check.hpp"
#include "roofline/cuda/device_query.hpp"
#include "roofline/cuda/event_timer.hpp"
#include "roofline/cuda/nvml_sampler.hpp"

namespace {

using roofline::kernel_timing;
using roofline::timing_options;

// ---------------------------------------------------------------------------------------------
// Kernels

/// Uniform value in [-1, 1) from an integer hash (SplitMix64 finaliser): random, never zeros.
__host__ __device__ inline float hash_uniform(std::uint64_t i, std::uint64_t seed) {
    std::uint64_t z = i + seed * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <class T>
__global__ void fill_random(T* p, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = T(hash_uniform(i, seed));
}

/// dst = src, 16-byte accesses, four independent loads in flight per thread.
__global__ void copy_kernel(int4* __restrict__ dst, const int4* __restrict__ src, std::size_t n) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        int4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}

/// Reads `n` int4 `passes` times; `cache_global` loads bypass L1 (ld.global.cg) so that repeated
/// passes over an L2-sized buffer are served by L2, not by each SM's L1.
template <bool cache_global>
__global__ void read_kernel(const int4* __restrict__ src, std::size_t n, int passes, int* __restrict__ sink) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    int acc = 0;
    for (int p = 0; p < passes; ++p) {
        std::size_t i = t;
        for (; i + 3 * stride < n; i += 4 * stride) {
            int4 a, b, c, d;
            if constexpr (cache_global) {
                a = __ldcg(src + i), b = __ldcg(src + i + stride), c = __ldcg(src + i + 2 * stride),
                d = __ldcg(src + i + 3 * stride);
            } else {
                a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
            }
            acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
        }
        for (; i < n; i += stride) {
            int4 a = cache_global ? __ldcg(src + i) : src[i];
            acc ^= a.x ^ a.y ^ a.z ^ a.w;
        }
    }
    if (acc == 0x7fffffff) sink[0] = acc;  // keeps the loads; practically never true
}

/// FP32 FMA throughput: `chains` independent dependency chains per thread.
constexpr int fma_chains = 8;
__global__ void fma_kernel(float* __restrict__ sink, int iters, float b, float c) {
    float a[fma_chains];
#pragma unroll
    for (int j = 0; j < fma_chains; ++j) a[j] = threadIdx.x * 1e-3f + j;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < fma_chains; ++j) a[j] = fmaf(a[j], b, c);
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < fma_chains; ++j) s += a[j];
    if (s == 1234.5f) sink[0] = s;
}

__global__ void empty_kernel() {}

// ---------------------------------------------------------------------------------------------
// JSON output (hand-written: this program needs no JSON library)

std::string jnum(double v) {
    if (!std::isfinite(v)) return "null";
    char b[40];
    if (v == std::floor(v) && std::fabs(v) < 9.0e15) std::snprintf(b, sizeof b, "%.0f", v);  // exact integers
    else std::snprintf(b, sizeof b, "%.9g", v);
    return b;
}
std::string jstr(const std::string& s) {
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') {
            o += '\\';
            o += ch;
        } else if (static_cast<unsigned char>(ch) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", ch);
            o += b;
        } else {
            o += ch;
        }
    }
    return o + "\"";
}

/// A flat JSON object built in insertion order.
struct jobj {
    std::vector<std::pair<std::string, std::string>> kv;
    jobj& num(const std::string& k, double v) { kv.emplace_back(k, jnum(v)); return *this; }
    jobj& str(const std::string& k, const std::string& v) { kv.emplace_back(k, jstr(v)); return *this; }
    jobj& null(const std::string& k) { kv.emplace_back(k, "null"); return *this; }
    jobj& raw(const std::string& k, const std::string& v) { kv.emplace_back(k, v); return *this; }
    std::string dump(int indent = 0) const {
        std::string pad(indent + 2, ' '), o = "{";
        for (std::size_t i = 0; i < kv.size(); ++i)
            o += (i ? ",\n" : "\n") + pad + jstr(kv[i].first) + ": " + kv[i].second;
        return o + "\n" + std::string(indent, ' ') + "}";
    }
};

// ---------------------------------------------------------------------------------------------
// The run

struct measurement {
    std::string name, kind, level, pipe, dtype;
    jobj params;
    double flops = 0, bytes = 0;
    kernel_timing t;
    std::optional<double> check_rel_error;
    roofline::power_summary power;
};

std::string now_utc() {
    std::time_t t = std::time(nullptr);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}

#define CUBLAS_CHECK(call)                                                                     \
    do {                                                                                       \
        cublasStatus_t st_ = (call);                                                           \
        if (st_ != CUBLAS_STATUS_SUCCESS)                                                      \
            throw roofline::error(std::string(#call) + ": cuBLAS status " + std::to_string(int(st_))); \
    } while (0)

class runner {
public:
    runner(int device, double seconds) : dev_(device), seconds_(seconds) {
        ROOFLINE_CUDA_CHECK(cudaSetDevice(device));
        info_ = roofline::query_device(device);
        std::string why;
        auto lib = roofline::nvml_library::load(&why);
        if (lib) {
            auto d = roofline::nvml_device::open(lib, info_.pci_bus_id, static_cast<unsigned>(device), &why);
            if (d) sampler_ = std::make_unique<roofline::nvml_sampler>(*d);
        }
        nvml_status_ = sampler_ ? "ok" : why;
        if (sampler_) sampler_->start();
        ROOFLINE_CUDA_CHECK(cudaMalloc(&sink_, 64));
    }
    ~runner() {
        if (sampler_) sampler_->stop();
        cudaFree(sink_);
    }

    const roofline::cuda_device_info& info() const { return info_; }

    /// Repetitions so that the timed part lasts about `seconds_` (for the power log), given one
    /// execution's estimated time; between 10 and 2000.
    int reps_for(double est_s) const {
        double r = seconds_ / std::max(est_s, 1e-7);
        return static_cast<int>(std::min(2000.0, std::max(10.0, r)));
    }

    /// Times `launch` (first a short probe for its duration), records power over the timed part.
    template <class Launch>
    measurement& run(measurement m, Launch&& launch, int inner = 1) {
        kernel_timing probe = roofline::time_kernel(launch, {2, 3, inner});
        int reps = reps_for(probe.median_s * inner);
        const double t0 = roofline::nvml_sampler::now_s();
        m.t = roofline::time_kernel(launch, {1, reps, inner});
        const double t1 = roofline::nvml_sampler::now_s();
        if (sampler_) m.power = roofline::summarize(sampler_->samples(), t0, t1);
        results_.push_back(std::move(m));
        const auto& r = results_.back();
        std::string label;
        for (const auto& [k, v] : r.params.kv)
            if (k == "m" || k == "buffer_bytes" || k == "iters") label += k + "=" + v + " ";
        std::printf("  %-20s %-24s median %10.3f us  %8.2f TFLOP/s  %8.1f GB/s  %6.0f W  %5.0f MHz\n",
                    r.name.c_str(), label.c_str(), r.t.median_s * 1e6, r.flops / r.t.median_s / 1e12, r.bytes / r.t.median_s / 1e9,
                    r.power.median_power_w, r.power.median_sm_clock_hz / 1e6);
        std::fflush(stdout);
        return results_.back();
    }

    void memory_tests() {
        const std::size_t buf = std::size_t(2) << 30;  // 2 GiB: 40x the L2
        const std::size_t n16 = buf / 16;
        int4 *a = nullptr, *b = nullptr;
        ROOFLINE_CUDA_CHECK(cudaMalloc(&a, buf));
        ROOFLINE_CUDA_CHECK(cudaMalloc(&b, buf));
        fill_random<float><<<1024, 256>>>(reinterpret_cast<float*>(a), buf / 4, 1);
        fill_random<float><<<1024, 256>>>(reinterpret_cast<float*>(b), buf / 4, 2);
        roofline::cuda_check_launch("fill_random");
        const int blocks = info_.sm_count * 8, threads = 256;  // 2048 threads per SM

        measurement m{"dram_copy", "memory", "dram", "", "", {}, 0, 2.0 * buf, {}, {}, {}};
        m.params.num("buffer_bytes", buf).num("blocks", blocks).num("threads", threads);
        run(m, [&](long i) {
            // alternate direction so that no pass finds its source in L2
            if (i % 2) copy_kernel<<<blocks, threads>>>(a, b, n16);
            else copy_kernel<<<blocks, threads>>>(b, a, n16);
        });
        measurement mc{"dram_memcpy", "memory", "dram", "", "", {}, 0, 2.0 * buf, {}, {}, {}};
        mc.params.num("buffer_bytes", buf);
        run(mc, [&](long i) {
            if (i % 2) ROOFLINE_CUDA_CHECK(cudaMemcpyAsync(a, b, buf, cudaMemcpyDeviceToDevice));
            else ROOFLINE_CUDA_CHECK(cudaMemcpyAsync(b, a, buf, cudaMemcpyDeviceToDevice));
        });
        measurement mr{"dram_read", "memory", "dram", "", "", {}, 0, double(buf), {}, {}, {}};
        mr.params.num("buffer_bytes", buf).num("blocks", blocks).num("threads", threads);
        run(mr, [&](long i) {
            read_kernel<false><<<blocks, threads>>>(i % 2 ? a : b, n16, 1, sink_);
        });
        // L2: a buffer well inside L2 (40 %; Hopper's L2 is two partitions), read many times.
        const std::size_t l2buf = static_cast<std::size_t>(info_.l2_bytes * 0.4) / 4096 * 4096;
        const int passes = 64;
        measurement ml{"l2_read", "memory", "l2", "", "", {}, 0, double(l2buf) * passes, {}, {}, {}};
        ml.params.num("buffer_bytes", l2buf).num("passes", passes).num("blocks", blocks).num("threads", threads);
        run(ml, [&](long) { read_kernel<true><<<blocks, threads>>>(a, l2buf / 16, passes, sink_); });
        roofline::cuda_check_launch("memory kernels");
        ROOFLINE_CUDA_CHECK(cudaDeviceSynchronize());
        ROOFLINE_CUDA_CHECK(cudaFree(a));
        ROOFLINE_CUDA_CHECK(cudaFree(b));
    }

    void fma_test() {
        const int blocks = info_.sm_count * 8, threads = 256, iters = 16384;
        measurement m{"fp32_fma", "compute", "", "fp32", "fp32", {}, 2.0 * fma_chains * iters * double(blocks) * threads,
                      0, {}, {}, {}};
        m.params.num("blocks", blocks).num("threads", threads).num("iters", iters).num("chains", fma_chains);
        run(m, [&](long) { fma_kernel<<<blocks, threads>>>(reinterpret_cast<float*>(sink_), iters, 0.999f, 1e-3f); });
        roofline::cuda_check_launch("fma_kernel");
    }

    void launch_tests() {
        // GPU time per empty kernel, back to back (1000 launches between two events).
        measurement m{"launch_empty_kernel", "launch", "", "", "", {}, 0, 0, {}, {}, {}};
        m.params.num("launches_per_rep", 1000);
        run(m, [&](long) { empty_kernel<<<1, 32>>>(); }, 1000);
        roofline::cuda_check_launch("empty_kernel");
        // Host cost of one launch: wall time to enqueue many (the launch-bound rate).
        {
            std::vector<double> xs;
            for (int r = 0; r < 20; ++r) {
                ROOFLINE_CUDA_CHECK(cudaDeviceSynchronize());
                auto t0 = std::chrono::steady_clock::now();
                for (int j = 0; j < 1000; ++j) empty_kernel<<<1, 32>>>();
                auto t1 = std::chrono::steady_clock::now();
                xs.push_back(std::chrono::duration<double>(t1 - t0).count() / 1000);
            }
            ROOFLINE_CUDA_CHECK(cudaDeviceSynchronize());
            results_.push_back(host_timing("launch_host_enqueue", xs, 1000));
        }
        // Launch + wait round trip for one empty kernel (what a synchronous step pays).
        {
            std::vector<double> xs;
            for (int r = 0; r < 200; ++r) {
                auto t0 = std::chrono::steady_clock::now();
                empty_kernel<<<1, 32>>>();
                ROOFLINE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
                auto t1 = std::chrono::steady_clock::now();
                xs.push_back(std::chrono::duration<double>(t1 - t0).count());
            }
            results_.push_back(host_timing("launch_sync_roundtrip", xs, 1));
        }
        // CUDA graph of 1000 empty kernels: the per-kernel cost once launch overhead is amortised.
        {
            cudaStream_t s;
            ROOFLINE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            cudaGraph_t g;
            cudaGraphExec_t ge;
            ROOFLINE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
            for (int j = 0; j < 1000; ++j) empty_kernel<<<1, 32, 0, s>>>();
            ROOFLINE_CUDA_CHECK(cudaStreamEndCapture(s, &g));
            ROOFLINE_CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
            measurement mg{"graph_empty_kernel", "launch", "", "", "", {}, 0, 0, {}, {}, {}};
            mg.params.num("kernels_per_graph", 1000);
            kernel_timing t = roofline::time_kernel([&](long) { ROOFLINE_CUDA_CHECK(cudaGraphLaunch(ge, s)); },
                                                    {3, 20, 1}, s);
            for (auto& x : t.samples_s) x /= 1000;
            t.median_s /= 1000, t.p10_s /= 1000, t.p90_s /= 1000, t.min_s /= 1000;
            mg.t = t;
            results_.push_back(mg);
            cudaGraphExecDestroy(ge);
            cudaGraphDestroy(g);
            cudaStreamDestroy(s);
        }
        for (const char* n : {"launch_host_enqueue", "launch_sync_roundtrip", "graph_empty_kernel"})
            for (const auto& r : results_)
                if (r.name == n) std::printf("  %-22s median %8.3f us\n", n, r.t.median_s * 1e6);
    }

    static measurement host_timing(const char* name, const std::vector<double>& xs, int per_rep) {
        measurement m{name, "launch", "", "", "", {}, 0, 0, {}, {}, {}};
        m.params.num("launches_per_rep", per_rep).str("clock", "host steady_clock");
        m.t.samples_s = xs;
        m.t.median_s = roofline::quantile(xs, 0.5);
        m.t.p10_s = roofline::quantile(xs, 0.1);
        m.t.p90_s = roofline::quantile(xs, 0.9);
        m.t.min_s = roofline::quantile(xs, 0.0);
        return m;
    }

    /// D[m,n] = A[m,k] B[k,n] through cuBLASLt, "TN" (A given as k x m column-major and
    /// transposed, B as k x n column-major): the layout fp8 needs on Hopper. bf16 output, fp32
    /// accumulate; fp8 with per-tensor scales of 1 (CUBLASLT_MATMUL_DESC_{A,B}_SCALE_POINTER).
    void gemm_test(cublasLtHandle_t lt, bool fp8, int m, int n, int k) {
        const cudaDataType_t ab = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
        const std::size_t es = fp8 ? 1 : 2;
        // Rotate input sets when one set fits in L2 (so every run reads A and B from DRAM).
        const double set_bytes = double(m) * k * es + double(k) * n * es + double(m) * n * 2;
        const int sets = set_bytes > 2 * info_.l2_bytes ? 1 : static_cast<int>(std::ceil(3 * info_.l2_bytes / set_bytes));
        std::vector<void*> A(sets), B(sets), D(sets);
        for (int s = 0; s < sets; ++s) {
            ROOFLINE_CUDA_CHECK(cudaMalloc(&A[s], std::size_t(m) * k * es));
            ROOFLINE_CUDA_CHECK(cudaMalloc(&B[s], std::size_t(k) * n * es));
            ROOFLINE_CUDA_CHECK(cudaMalloc(&D[s], std::size_t(m) * n * 2));
            if (fp8) {
                fill_random<__nv_fp8_e4m3><<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(A[s]), std::size_t(m) * k, 10 + s);
                fill_random<__nv_fp8_e4m3><<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(B[s]), std::size_t(k) * n, 20 + s);
            } else {
                fill_random<__nv_bfloat16><<<1024, 256>>>(static_cast<__nv_bfloat16*>(A[s]), std::size_t(m) * k, 10 + s);
                fill_random<__nv_bfloat16><<<1024, 256>>>(static_cast<__nv_bfloat16*>(B[s]), std::size_t(k) * n, 20 + s);
            }
            roofline::cuda_check_launch("fill_random");
        }
        float* scales = nullptr;
        ROOFLINE_CUDA_CHECK(cudaMalloc(&scales, 2 * sizeof(float)));
        const float one[2] = {1.0f, 1.0f};
        ROOFLINE_CUDA_CHECK(cudaMemcpy(scales, one, sizeof one, cudaMemcpyHostToDevice));
        const std::size_t ws_bytes = std::size_t(64) << 20;
        void* ws = nullptr;
        ROOFLINE_CUDA_CHECK(cudaMalloc(&ws, ws_bytes));

        // cuBLASLt set-ups, tried in order until one runs: cuBLASLt may offer an algorithm in its
        // heuristic and still refuse it (CUBLAS_STATUS_NOT_SUPPORTED) for some C/D/scale choices.
        //   0 "c_is_d":      C = D (in place), per-tensor scale pointers for fp8
        //   1 "c_null":      no C (beta = 0), as PyTorch's _scaled_mm passes it
        //   2 "c_separate":  a separate C buffer
        //   3 "no_scales":   no scale pointers (cuBLASLt then scales by 1), no C
        const char* variant_names[] = {"c_is_d", "c_null", "c_separate", "no_scales"};
        void* Csep = nullptr;
        ROOFLINE_CUDA_CHECK(cudaMalloc(&Csep, std::size_t(m) * n * 2));
        cublasLtMatmulDesc_t desc = nullptr;
        cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
        cublasLtMatmulPreference_t pref = nullptr;
        cublasLtMatmulHeuristicResult_t heur{};
        const float alpha = 1.0f, beta = 0.0f;
        int variant = -1;
        std::string tried;
        auto c_ptr = [&](int v, int s) -> void* { return v == 0 ? D[s] : v == 2 ? Csep : nullptr; };
        for (int v = 0; v < 4 && variant < 0; ++v) {
            if (v == 3 && !fp8) break;
            if (desc) cublasLtMatmulDescDestroy(desc);
            if (la) cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
            if (pref) cublasLtMatmulPreferenceDestroy(pref);
            CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
            const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN));
            if (fp8 && v != 3) {
                const float* sa = scales;
                const float* sb = scales + 1;
                CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
                CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
            }
            CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, ab, k, m, k));
            CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, ab, k, n, k));
            CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, m, n, m));
            CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
            const std::uint64_t wsz = ws_bytes;
            CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof wsz));
            cublasLtMatmulHeuristicResult_t cand[8] = {};
            int found = 0;
            cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, cand, &found);
            tried += std::string(variant_names[v]) + ": heuristic " + std::to_string(int(hs)) + " found " + std::to_string(found);
            for (int a = 0; a < found && variant < 0; ++a) {
                if (cand[a].state != CUBLAS_STATUS_SUCCESS) continue;
                cublasStatus_t st = cublasLtMatmul(lt, desc, &alpha, A[0], la, B[0], lb, &beta, c_ptr(v, 0), lc, D[0], lc,
                                                   &cand[a].algo, ws, ws_bytes, nullptr);
                cudaError_t ce = cudaDeviceSynchronize();
                tried += " algo" + std::to_string(a) + "=" + std::to_string(int(st));
                if (st == CUBLAS_STATUS_SUCCESS && ce == cudaSuccess) {
                    variant = v;
                    heur = cand[a];
                }
            }
            tried += "; ";
        }
        std::printf("  cuBLASLt %s %d^3: %s-> %s\n", fp8 ? "fp8" : "bf16", m, tried.c_str(),
                    variant >= 0 ? variant_names[variant] : "none ran");
        if (variant < 0) throw roofline::error(std::string("cuBLASLt ran no algorithm: ") + tried);
        auto launch = [&](long i) {
            const int s = static_cast<int>(i % sets);
            CUBLAS_CHECK(cublasLtMatmul(lt, desc, &alpha, A[s], la, B[s], lb, &beta, c_ptr(variant, s), lc, D[s], lc,
                                        &heur.algo, ws, ws_bytes, nullptr));
        };
        launch(0);
        ROOFLINE_CUDA_CHECK(cudaDeviceSynchronize());
        // Spot check: D[i, j] = sum_k A^T[i, k] B[k, j] for a few (i, j), against a host dot product.
        double err2 = 0, ref2 = 0;
        {
            std::vector<unsigned char> arow(std::size_t(k) * es), bcol(std::size_t(k) * es);
            for (int c = 0; c < 4; ++c) {
                const int i = (c * 977) % m, j = (c * 1931) % n;
                ROOFLINE_CUDA_CHECK(cudaMemcpy(arow.data(), static_cast<char*>(A[0]) + std::size_t(i) * k * es, k * es, cudaMemcpyDeviceToHost));
                ROOFLINE_CUDA_CHECK(cudaMemcpy(bcol.data(), static_cast<char*>(B[0]) + std::size_t(j) * k * es, k * es, cudaMemcpyDeviceToHost));
                __nv_bfloat16 d;
                ROOFLINE_CUDA_CHECK(cudaMemcpy(&d, static_cast<char*>(D[0]) + (std::size_t(j) * m + i) * 2, 2, cudaMemcpyDeviceToHost));
                double ref = 0;
                for (int kk = 0; kk < k; ++kk) {
                    double x, y;
                    if (fp8) {
                        x = float(reinterpret_cast<const __nv_fp8_e4m3*>(arow.data())[kk]);
                        y = float(reinterpret_cast<const __nv_fp8_e4m3*>(bcol.data())[kk]);
                    } else {
                        x = __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(arow.data())[kk]);
                        y = __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(bcol.data())[kk]);
                    }
                    ref += x * y;
                }
                const double got = __bfloat162float(d);
                err2 += (got - ref) * (got - ref);
                ref2 += ref * ref;
            }
        }
        measurement me{fp8 ? "gemm_fp8_e4m3" : "gemm_bf16", "compute", "", "tensor", fp8 ? "fp8_e4m3" : "bf16", {},
                       2.0 * m * n * k, set_bytes, {}, std::sqrt(err2 / std::max(ref2, 1e-30)), {}};
        me.params.num("m", m).num("n", n).num("k", k).str("layout", "TN column-major (A^T B), D bf16")
            .str("cublaslt_setup", variant_names[variant])
            .num("rotating_sets", sets).num("workspace_bytes", double(ws_bytes));
        run(me, launch);
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(desc);
        for (int s = 0; s < sets; ++s) cudaFree(A[s]), cudaFree(B[s]), cudaFree(D[s]);
        cudaFree(Csep);
        cudaFree(ws);
        cudaFree(scales);
    }

    std::string json(const std::string& catalog_id, const std::string& match_reason, const char* lt_version) {
        jobj dev;
        dev.num("index", info_.index).str("name", info_.name).str("pci_bus_id", info_.pci_bus_id)
            .str("compute_capability", info_.compute_capability()).num("sm_count", info_.sm_count)
            .num("sm_clock_hz", info_.sm_clock_hz).num("memory_clock_hz", info_.memory_clock_hz)
            .num("memory_bus_width_bits", info_.memory_bus_width_bits)
            .num("memory_bandwidth_bytes_per_s", info_.memory_bandwidth_bytes_per_s())
            .num("memory_bytes", info_.memory_bytes).num("l2_bytes", info_.l2_bytes)
            .num("smem_per_sm_bytes", info_.smem_per_sm_bytes)
            .num("smem_per_block_optin_bytes", info_.smem_per_block_optin_bytes)
            .num("driver_version", info_.driver_version).num("runtime_version", info_.runtime_version)
            .str("cublaslt_version", lt_version);
        if (catalog_id.empty()) dev.null("catalog_id"); else dev.str("catalog_id", catalog_id);
        dev.str("catalog_match", match_reason);
        std::optional<double> lim, maxclk;
        if (sampler_) lim = sampler_->device().enforced_power_limit_w(), maxclk = sampler_->device().max_sm_clock_hz();
        if (lim) dev.num("enforced_power_limit_w", *lim); else dev.null("enforced_power_limit_w");
        if (maxclk) dev.num("max_sm_clock_hz", *maxclk); else dev.null("max_sm_clock_hz");

        std::string ms = "[";
        std::map<std::string, double> best;
        auto keep_max = [&](const std::string& k, double v) {
            if (std::isfinite(v) && v > 0 && (!best.count(k) || v > best[k])) best[k] = v;
        };
        auto keep_min = [&](const std::string& k, double v) {
            if (std::isfinite(v) && v > 0 && (!best.count(k) || v < best[k])) best[k] = v;
        };
        for (std::size_t i = 0; i < results_.size(); ++i) {
            const auto& r = results_[i];
            jobj o;
            o.str("name", r.name).str("kind", r.kind);
            if (r.level.empty()) o.null("level"); else o.str("level", r.level);
            if (r.pipe.empty()) o.null("pipe"); else o.str("pipe", r.pipe);
            if (r.dtype.empty()) o.null("dtype"); else o.str("dtype", r.dtype);
            o.raw("params", r.params.dump(6)).num("flops", r.flops).num("bytes", r.bytes)
                .num("median_s", r.t.median_s).num("p10_s", r.t.p10_s).num("p90_s", r.t.p90_s)
                .num("min_s", r.t.min_s).num("reps", double(r.t.samples_s.size()));
            const double fr = r.flops > 0 ? r.flops / r.t.median_s : NAN;
            const double br = r.bytes > 0 ? r.bytes / r.t.median_s : NAN;
            o.num("achieved_flops_per_s", fr).num("achieved_bytes_per_s", br);
            if (r.check_rel_error) o.num("check_rel_error", *r.check_rel_error); else o.null("check_rel_error");
            const auto& p = r.power;
            jobj pj;
            pj.num("samples", p.samples).num("median_power_w", p.samples ? p.median_power_w : NAN)
                .num("max_power_w", p.samples ? p.max_power_w : NAN)
                .num("median_sm_clock_hz", p.samples ? p.median_sm_clock_hz : NAN)
                .num("min_sm_clock_hz", p.samples ? p.min_sm_clock_hz : NAN)
                .num("median_mem_clock_hz", p.samples ? p.median_mem_clock_hz : NAN)
                .num("sw_power_cap_fraction", p.samples ? p.sw_power_cap_fraction : NAN)
                .num("hw_slowdown_fraction", p.samples ? p.hw_slowdown_fraction : NAN)
                .num("thermal_fraction", p.samples ? p.thermal_fraction : NAN)
                .num("energy_j", p.samples ? p.energy_j : NAN)
                .num("max_temperature_c", p.samples ? p.max_temperature_c : NAN);
            o.raw("power", pj.dump(6));
            ms += (i ? ",\n    " : "\n    ") + o.dump(4);
            if (r.level == "dram") keep_max("dram_bytes_per_s", br);
            if (r.level == "l2") keep_max("l2_bytes_per_s", br);
            if (r.name == "fp32_fma") keep_max("fp32_flops_per_s", fr);
            if (r.name == "gemm_bf16") keep_max("bf16_tensor_flops_per_s", fr);
            if (r.name == "gemm_fp8_e4m3") keep_max("fp8_tensor_flops_per_s", fr);
            if (r.name == "launch_empty_kernel") keep_min("launch_overhead_s", r.t.median_s);
        }
        ms += "\n  ]";
        jobj ceil;
        for (const char* k : {"dram_bytes_per_s", "l2_bytes_per_s", "fp32_flops_per_s", "bf16_tensor_flops_per_s",
                              "fp8_tensor_flops_per_s", "launch_overhead_s"})
            if (best.count(k)) ceil.num(k, best[k]); else ceil.null(k);
        jobj top;
        top.str("schema", "roofline.ceilings/1").str("tool", "measure_ceilings").str("created_utc", now_utc())
            .raw("device", dev.dump(2)).str("nvml", nvml_status_).raw("measurements", ms).raw("ceilings", ceil.dump(2));
        return top.dump(0) + "\n";
    }

private:
    int dev_;
    double seconds_;
    roofline::cuda_device_info info_;
    std::unique_ptr<roofline::nvml_sampler> sampler_;
    std::string nvml_status_;
    int* sink_ = nullptr;
    std::vector<measurement> results_;
};

}  // namespace

int main(int argc, char** argv) {
    int device = 0;
    double seconds = 0.5;
    std::string out = "ceilings.json";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "measure_ceilings: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--device") device = std::stoi(next());
        else if (a == "--out") out = next();
        else if (a == "--seconds") seconds = std::stod(next());
        else if (a == "--help" || a == "-h") {
            std::puts("usage: measure_ceilings [--device N] [--out ceilings.json] [--seconds S]");
            return 0;
        } else {
            std::fprintf(stderr, "measure_ceilings: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    try {
        runner r(device, seconds);
        const auto& d = r.info();
        auto catalog = roofline::gpu_catalog::builtin();
        auto match = roofline::match_catalog(d, catalog);
        std::printf("device %d: %s, CC %s, %d SMs, L2 %.0f MiB, %.0f GB, DRAM peak (query) %.2f TB/s; catalog: %s (%s)\n",
                    device, d.name.c_str(), d.compute_capability().c_str(), d.sm_count, d.l2_bytes / 1048576.0,
                    d.memory_bytes / 1e9, d.memory_bandwidth_bytes_per_s() / 1e12,
                    match.spec ? match.spec->id.c_str() : "none", match.reason.c_str());
        std::fflush(stdout);
        auto guarded = [](const char* what, const std::function<void()>& f) {
            try {
                f();
            } catch (const std::exception& e) {
                std::fprintf(stderr, "measure_ceilings: %s failed: %s\n", what, e.what());
            }
        };
        guarded("memory tests", [&] { r.memory_tests(); });
        guarded("fp32 test", [&] { r.fma_test(); });
        guarded("launch tests", [&] { r.launch_tests(); });
        cublasLtHandle_t lt = nullptr;
        char ltv[32] = "unknown";
        guarded("cuBLASLt", [&] {
            CUBLAS_CHECK(cublasLtCreate(&lt));
            std::snprintf(ltv, sizeof ltv, "%zu", cublasLtGetVersion());
            for (int s : {4096, 8192, 16384}) r.gemm_test(lt, false, s, s, s);
            const bool has_fp8 = d.cc_major > 8 || (d.cc_major == 8 && d.cc_minor >= 9);
            if (has_fp8)
                for (int s : {4096, 8192, 16384}) r.gemm_test(lt, true, s, s, s);
        });
        if (lt) cublasLtDestroy(lt);
        std::ofstream f(out);
        f << r.json(match.spec ? match.spec->id : "", match.reason, ltv);
        if (!f) {
            std::fprintf(stderr, "measure_ceilings: cannot write %s\n", out.c_str());
            return 1;
        }
        std::printf("wrote %s\n", out.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "measure_ceilings: %s\n", e.what());
        return 1;
    }
    return 0;
}
