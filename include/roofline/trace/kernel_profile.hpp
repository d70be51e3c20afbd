#pragma once
// One kernel as Nsight Compute measured it: an empirical roofline point.
//
// ncu replays a kernel and counts what it did: time, bytes at each memory level, operations per
// pipe and precision, and how close each unit came to its peak ("speed of light", SOL %). From
// those counts a `workload` (FLOP per rate class, bytes per memory level) and the measured time
// place the kernel on the roofline: utilisation of each roof = (work / time) / ceiling
// (`roofline::utilization` in core/roofline.hpp).
//
// Counting rules (NVIDIA Nsight Compute "Roofline" sections; ../shared/FORMATS.md section 5):
//   tensor FLOP = sm__ops_path_tensor_src_<precision>[_dst_<acc>][_sparsity_on|off].sum
//                 (operations, an FMA counting 2; includes work on tile padding: a 320x128-tile
//                 GEMM with N = 8192 counts N as 8320);
//   vector FLOP = add + mul + 2 x fma thread instructions (sass_thread_inst_executed_op_*);
//                 half-precision instructions may be packed (HFMA2), so the fp16 vector count is
//                 a lower bound;
//   DRAM bytes  = dram__bytes_read.sum + dram__bytes_write.sum (or dram__bytes.sum, or its rate
//                 x duration); L2 bytes = lts__t_bytes.sum (or lts__t_sectors.sum x 32 B).

#include <algorithm>    // std::min
#include <array>        // std::array
#include <cmath>        // std::isnan
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <vector>       // std::vector

#include "roofline/core/workload.hpp"
#include "roofline/trace/read_stats.hpp"

namespace roofline {

/// "(4096, 1, 1)" -> {4096, 1, 1}; zeros where the text is not three integers.
inline std::array<std::uint32_t, 3> parse_dim3(std::string_view s) {
    std::array<std::uint32_t, 3> d{0, 0, 0};
    std::size_t k = 0;
    std::uint64_t v = 0;
    bool in = false;
    for (char ch : s) {
        if (ch >= '0' && ch <= '9') {
            v = v * 10 + static_cast<std::uint64_t>(ch - '0');
            in = true;
        } else if (in) {
            if (k < 3) d[k++] = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 0xFFFFFFFFu));
            v = 0;
            in = false;
        }
    }
    if (in && k < 3) d[k++] = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 0xFFFFFFFFu));
    return k == 3 ? d : std::array<std::uint32_t, 3>{0, 0, 0};
}

/// One profiled kernel launch. Numbers are SI (s, bytes, FLOP, Hz); percentages 0..100; NaN
/// when the report lacks the metric.
struct kernel_profile {
    static constexpr double unknown = std::numeric_limits<double>::quiet_NaN();

    int id = -1;                  ///< ncu's launch ID
    std::string name;             ///< kernel name as ncu prints it (templates may be collapsed)
    std::string device;           ///< `Device` column (an index)
    std::string device_name;      ///< device__attribute_display_name when reported ("NVIDIA H200")
    std::string compute_capability;  ///< "9.0", "12.0"
    std::string block_size, grid_size;  ///< "(32, 4, 1)"

    double duration_s = unknown;  ///< gpu__time_duration.sum
    double sm_clock_hz = unknown;    ///< sm__cycles_elapsed.avg.per_second (actual, under load)
    double dram_clock_hz = unknown;  ///< dram__cycles_elapsed.avg.per_second

    double dram_read_bytes = unknown, dram_write_bytes = unknown;
    double dram_bytes = unknown;  ///< read + write
    double l2_bytes = unknown;    ///< bytes through L2 (lts__t_bytes)
    double l1_bytes = unknown;    ///< bytes through L1/TEX (l1tex__t_bytes)

    /// Tensor-pipe operations by source precision as ncu names it ("bf16", "fp16", "tf32",
    /// "fp8", "int8", "fp4", "fp4_fp6_fp8", "fp64", "int1", ...), FLOP.
    std::map<std::string, double> tensor_flops_by_precision;
    double fp32_flops = unknown;  ///< vector FP32 FLOP (add + mul + 2 fma)
    double fp64_flops = unknown;  ///< vector FP64 FLOP
    double fp16_flops = unknown;  ///< vector FP16 FLOP (lower bound, see the file comment)

    // Speed of light, % of peak sustained over the elapsed time.
    double sm_throughput_pct = unknown;      ///< sm__throughput
    double memory_throughput_pct = unknown;  ///< gpu__compute_memory_throughput
    double dram_throughput_pct = unknown;    ///< dram__throughput
    double l2_throughput_pct = unknown;      ///< lts__throughput
    double l1_throughput_pct = unknown;      ///< l1tex__throughput (of active cycles)
    double tensor_pipe_active_pct = unknown; ///< sm__pipe_tensor_cycles_active
    double achieved_occupancy_pct = unknown; ///< sm__warps_active (of active cycles)

    /// Every metric of the report for this launch, by name (raw metric names such as
    /// "dram__bytes_read.sum", or "Section / Display Name" for named rows), in SI units
    /// (percentages stay 0..100).
    std::map<std::string, double> metrics;
    /// Metrics whose value is text (device names, cache configurations, ...).
    std::map<std::string, std::string> text_metrics;

    /// The measured work as a `workload`: tensor FLOP under their rate class (bf16, fp16, tf32,
    /// fp8, int8, fp4, fp6; the Blackwell "fp4_fp6_fp8" path under fp8), vector FP32/FP64 under
    /// fp32/fp64, DRAM and L2 bytes. Unknown counts contribute 0.
    workload work() const {
        workload w;
        for (const auto& [prec, f] : tensor_flops_by_precision) {
            const std::optional<peak_key> k =
                prec == "bf16" ? peak_key::bf16 : prec == "fp16" ? peak_key::fp16 : prec == "tf32" ? peak_key::tf32
                : prec == "fp8" || prec == "fp4_fp6_fp8" ? peak_key::fp8 : prec == "int8" ? peak_key::int8
                : prec == "fp4" ? peak_key::fp4 : prec == "fp4_fp6" || prec == "fp6" ? peak_key::fp6
                : prec == "fp64" ? peak_key::fp64 : std::optional<peak_key>{};
            if (k && !std::isnan(f)) w.flops_at(*k) += f;
        }
        if (!std::isnan(fp32_flops)) w.flops_at(peak_key::fp32) += fp32_flops;
        if (!std::isnan(fp64_flops)) w.flops_at(peak_key::fp64) += fp64_flops;
        if (!std::isnan(dram_bytes)) w.bytes_at(memory_level::dram) = dram_bytes;
        if (!std::isnan(l2_bytes)) w.bytes_at(memory_level::l2) = l2_bytes;
        w.launches = 1;
        return w;
    }
    /// Sum of tensor and vector FLOP (unknown counts as 0).
    double total_flops() const { return work().total_flops(); }
    /// FLOP per DRAM byte (the classic roofline's x axis); NaN without DRAM bytes.
    double arithmetic_intensity_dram() const {
        return dram_bytes > 0 ? total_flops() / dram_bytes : unknown;
    }
    /// Achieved FLOP/s; NaN without a duration.
    double flops_per_s() const { return duration_s > 0 ? total_flops() / duration_s : unknown; }
    /// Achieved DRAM bandwidth, B/s.
    double dram_bytes_per_s() const { return duration_s > 0 ? dram_bytes / duration_s : unknown; }
};

/// An Nsight Compute CSV report.
struct ncu_report {
    std::string file;
    std::string page;  ///< "raw" (one row per launch) or "details" (one row per metric)
    std::vector<kernel_profile> kernels;  ///< in ID order
    read_stats stats;  ///< events = metric values (details) or launch rows (raw)
};

}  // namespace roofline
