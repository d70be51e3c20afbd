#pragma once
// A synthetic Kineto trace of any size, for ingest benchmarks. The event mix follows the B200
// vLLM sample trace (../shared/samples/kineto, 24,656 events): per kernel launch about three
// python_function events, one cpu_op with shapes, one cudaLaunchKernel, the kernel with its
// launch arguments and demangled name, and the ac2g flow pair; new-style time stamps
// (fractional microseconds relative to baseTimeNanoseconds).

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace roofline::bench {

/// Writes a trace of at least `target_bytes` to `path`; returns the number of kernels written.
inline std::uint64_t write_synthetic_kineto_trace(const std::string& path, std::uint64_t target_bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + path);
    std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
    std::uint64_t bytes = 0;
    auto put = [&](const std::string& s) {
        std::fwrite(s.data(), 1, s.size(), f);
        bytes += s.size();
    };
    put("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", "
        "\"totalGlobalMem\": 150754820096, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
        "  \"baseTimeNanoseconds\": 1790857026000000000,\n  \"traceEvents\": [\n");
    static const char* kernels[] = {
        "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT",
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor"
        "<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::"
        "TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::"
        "binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<"
        "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
        "MulFunctor<float> > >(at::TensorIteratorBase&)::{lambda(int)#1})",
        "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
        "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, long, long, long, "
        "long, long, c10::BFloat16 const*, float, int, int)",
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    };
    static const char* ops[] = {"aten::mm", "aten::mul", "vllm::unified_attention", "vllm::rms_norm", "c10d::allreduce_"};
    double ts = 1000.0;
    std::uint64_t n = 0;
    char buf[4096];
    bool first = true;
    while (bytes < target_bytes) {
        const std::uint64_t id = n + 1;
        const int k = static_cast<int>(n % 5);
        std::string group;
        for (int p = 0; p < 3; ++p) {
            std::snprintf(buf, sizeof buf,
                          "%s    {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"vllm/model_executor/layers/"
                          "linear.py(%d): forward\", \"pid\": 6583, \"tid\": 6583, \"ts\": %.3f, \"dur\": %.3f, "
                          "\"args\": {\"Python parent id\": %llu, \"Python id\": %llu, \"Python module id\": 0, \"Ev Idx\": %llu}}",
                          first ? "" : ",\n", 500 + p, ts + p * 0.5, 30.0 - p,
                          static_cast<unsigned long long>(3 * id + p), static_cast<unsigned long long>(3 * id + p + 1),
                          static_cast<unsigned long long>(6 * id + p));
            first = false;
            group += buf;
        }
        std::snprintf(buf, sizeof buf,
                      ",\n    {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 6583, \"tid\": 6583, "
                      "\"ts\": %.3f, \"dur\": 12.345, \"args\": {\"External id\": %llu, \"Record function id\": 0, "
                      "\"Concrete Inputs\": [\"\", \"\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], "
                      "\"Input Strides\": [[4096, 1], [1, 4096]], \"Input Dims\": [[%d, 4096], [4096, 4096]], \"Ev Idx\": %llu}}",
                      ops[k], ts + 2.0, static_cast<unsigned long long>(id), 64 + static_cast<int>(n % 7) * 64,
                      static_cast<unsigned long long>(6 * id + 4));
        group += buf;
        std::snprintf(buf, sizeof buf,
                      ",\n    {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 6583, "
                      "\"tid\": 6583, \"ts\": %.3f, \"dur\": 4.210, \"args\": {\"External id\": %llu, \"cbid\": 211, "
                      "\"correlation\": %llu}}",
                      ts + 5.0, static_cast<unsigned long long>(id), static_cast<unsigned long long>(id));
        group += buf;
        std::snprintf(buf, sizeof buf,
                      ",\n    {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                      "\"dur\": %.3f, \"args\": {\"External id\": %llu, \"queued\": 0, \"device\": 0, \"context\": 1, "
                      "\"stream\": 7, \"correlation\": %llu, \"registers per thread\": 168, \"shared memory\": 206848, "
                      "\"blocks per SM\": 1.0, \"warps per SM\": 12.0, \"grid\": [132, 1, 1], \"block\": [384, 1, 1], "
                      "\"est. achieved occupancy %%\": 19}}",
                      kernels[k], ts + 20.0, 10.0 + static_cast<double>(n % 13),
                      static_cast<unsigned long long>(id), static_cast<unsigned long long>(id));
        group += buf;
        std::snprintf(buf, sizeof buf,
                      ",\n    {\"ph\": \"s\", \"id\": %llu, \"pid\": 6583, \"tid\": 6583, \"ts\": %.3f, \"cat\": \"ac2g\", "
                      "\"name\": \"ac2g\"},\n    {\"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                      "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
                      static_cast<unsigned long long>(id), ts + 5.0, static_cast<unsigned long long>(id), ts + 20.0);
        group += buf;
        put(group);
        ts += 40.0;
        ++n;
    }
    put("\n  ],\n  \"traceName\": \"synthetic\"\n}\n");
    std::fclose(f);
    return n;
}

}  // namespace roofline::bench
