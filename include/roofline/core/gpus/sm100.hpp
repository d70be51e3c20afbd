#pragma once
// PLACEHOLDER: entries are being filled in with sourced values (see HARDWARE.md).
#include "roofline/core/gpu_spec.hpp"
namespace roofline::gpus {
inline gpu_spec b200() { gpu_spec g; g.id = "b200"; g.memory_bandwidth_bytes_per_s = unknown("placeholder"); return g; }
inline gpu_spec gb200() { gpu_spec g; g.id = "gb200"; g.memory_bandwidth_bytes_per_s = unknown("placeholder"); return g; }
}  // namespace roofline::gpus
