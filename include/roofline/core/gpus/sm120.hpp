#pragma once
// PLACEHOLDER: entries are being filled in with sourced values (see HARDWARE.md).
#include "roofline/core/gpu_spec.hpp"
namespace roofline::gpus {
inline gpu_spec rtx_pro_6000() { gpu_spec g; g.id = "rtx-pro-6000"; g.memory_bandwidth_bytes_per_s = unknown("placeholder"); return g; }
inline gpu_spec rtx_pro_6000_maxq() { gpu_spec g; g.id = "rtx-pro-6000-maxq"; g.memory_bandwidth_bytes_per_s = unknown("placeholder"); return g; }
inline gpu_spec rtx_pro_6000_server() { gpu_spec g; g.id = "rtx-pro-6000-server"; g.memory_bandwidth_bytes_per_s = unknown("placeholder"); return g; }
inline gpu_spec rtx_5090() { gpu_spec g; g.id = "rtx-5090"; g.memory_bandwidth_bytes_per_s = unknown("placeholder"); return g; }
}  // namespace roofline::gpus
