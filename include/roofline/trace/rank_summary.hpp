#pragma once
// What one rank of a distributed job contributes to the cluster report: a small record, kept
// after the rank's trace is dropped, that `roofline merge` can read back from JSON
// (io/rank_summary.hpp) and join with the other ranks' (analysis/cluster.hpp).
//
// It holds the rank's headline numbers (window, busy, idle, exposed communication, verdict,
// power), the idle time split per stream (analysis/idle_time.hpp), the kernel launch delays, and
// one record per collective kernel with what the rank ran on the GPU before it
// (analysis/collective_match.hpp), so that ranks can be matched collective by collective.
// Size: about 200 B per collective plus a few hundred bytes; independent of the trace's size.
// Times are seconds; `start_s` values are relative to the rank's own first GPU activity.

#include <array>     // std::array
#include <cstdint>   // std::int64_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/trace/kernel_rules.hpp"

namespace roofline {

/// Version of the rank-summary schema: bumped when a field changes meaning or goes away
/// (fields are only ever added within a version).
inline constexpr int rank_summary_schema_version = 1;

/// Idle time of one CUDA stream, split as HolisticTraceAnalysis does
/// (hta/analyzers/breakdown_analysis.py `_analyze_idle_time_for_stream`): the gap before each
/// GPU activity on the stream is
///   host wait    when the launching runtime call started after the previous activity ended
///                (the CPU had not enqueued it yet);
///   kernel wait  otherwise, when the gap is shorter than the launch floor (HTA's
///                `consecutive_kernel_delay`, 30 us by default): back-to-back launch overhead;
///   other        otherwise (events, syncs, dependencies on other streams).
struct stream_idle {
    std::int64_t stream = -1;
    std::size_t activities = 0;  ///< kernels, copies and sets on the stream
    double span_s = 0;           ///< first start to last end
    double busy_s = 0;           ///< summed activity time
    double host_wait_s = 0, kernel_wait_s = 0, other_s = 0;
    double idle_s() const { return host_wait_s + kernel_wait_s + other_s; }
};

/// Kernel launch delay (HTA `get_cuda_kernel_launch_stats`): GPU start minus the end of the
/// launching runtime call, clipped at 0, over every activity with a matched launch.
struct launch_delay_stats {
    std::size_t count = 0;
    double mean_s = std::numeric_limits<double>::quiet_NaN();
    double median_s = std::numeric_limits<double>::quiet_NaN();
    double p90_s = std::numeric_limits<double>::quiet_NaN();
    double max_s = std::numeric_limits<double>::quiet_NaN();
};

/// One collective kernel on one rank.
struct rank_collective {
    std::string process_group;  ///< `Process Group Name` ("" when the trace has no NCCL metadata)
    std::int64_t seq = -1;      ///< sequence number in the process group (see `seq_source`)
    std::string name;           ///< `Collective name` ("allreduce"), else from the kernel name
    double start_s = 0, duration_s = 0;
    double bytes = std::numeric_limits<double>::quiet_NaN();  ///< S as nccl-tests counts it
    int group_size = -1;
    std::string algorithm;  ///< "ring", "tree" (from the kernel name)
    /// The transfer alone at the GPU's link bandwidth with this algorithm's bus factor
    /// (models/collective.hpp `collective_time`); NaN when op, bytes or link are unknown.
    double model_transfer_s = std::numeric_limits<double>::quiet_NaN();
    /// GPU time by phase of the rank's non-collective activity between the end of its previous
    /// collective (or the window start) and this one's start: what the rank was doing before.
    std::array<double, kernel_phase_count> before_by_phase_s{};
};

/// One rank's contribution to the cluster report.
struct rank_summary {
    int schema_version = rank_summary_schema_version;
    std::string file, format;
    /// The summary file it was read from (`read_rank_summary`, `roofline merge`); empty for a
    /// summary built in memory. Not written: errors name the file the user passed.
    std::string summary_file;
    int rank = -1;
    std::string rank_source;  ///< "distributedInfo.rank", "file name", "order"
    int world_size = -1;
    std::string gpu_id, gpu_name;
    int device = -1;
    double window_s = 0, busy_s = 0, idle_s = 0;
    double communication_s = 0, exposed_communication_s = 0;
    std::string bound;           ///< the rank's verdict: "compute", ..., "latency", "unknown"
    std::string verdict_reason;  ///< its one-line reason
    /// Power: mean draw over the window from the rank's GPU in a multi-GPU log.
    std::optional<double> mean_power_w;
    int power_gpu_index = -1;
    std::string power_note;  ///< how the log's GPU index was chosen (what was assumed)
    double launch_floor_s = 30e-6;  ///< kernel-wait threshold used for `streams`
    std::vector<stream_idle> streams;
    launch_delay_stats launch_delay;
    std::string seq_source;  ///< "Seq" (recorded) or "order" (position in the process group)
    std::vector<rank_collective> collectives;
    std::vector<std::string> notes;

    /// True when the rank's device ran any GPU activity (a CPU-only rank, or a trace whose GPU
    /// events were not recorded, has none).
    bool has_gpu_activity() const { return busy_s > 0; }
    /// What names this rank in messages: the summary file when read from one, else the trace.
    const std::string& source() const { return summary_file.empty() ? file : summary_file; }
};

}  // namespace roofline
