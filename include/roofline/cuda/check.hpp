#pragma once
// Checking CUDA runtime calls: every call's status is checked, and a failure becomes a
// `roofline::cuda_error` naming the call and the runtime's message.
//
// CUDA layer (`cuda/`): compiled only where the CUDA Toolkit is found (ROOFLINE_WITH_CUDA).

#include <string>  // std::string

#include <cuda_runtime_api.h>  // cudaError_t, cudaGetErrorString, cudaGetLastError

#include "roofline/core/error.hpp"

namespace roofline {

/// A CUDA runtime call failed (no device, out of memory, a kernel fault...). `code` is the
/// `cudaError_t` value.
class cuda_error : public error {
public:
    cuda_error(const std::string& what_call, cudaError_t code)
        : error(what_call + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
          code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

/// Throws `cuda_error` naming `what_call` unless `status` is cudaSuccess.
inline void cuda_check(cudaError_t status, const char* what_call) {
    if (status != cudaSuccess) throw cuda_error(what_call, status);
}

/// Checks the last launch (launch configuration errors) without synchronising.
inline void cuda_check_launch(const char* kernel_name) {
    cuda_check(cudaGetLastError(), kernel_name);
}

}  // namespace roofline

/// Checks a CUDA runtime call; the message names the call as written.
#define ROOFLINE_CUDA_CHECK(call) ::roofline::cuda_check((call), #call)
