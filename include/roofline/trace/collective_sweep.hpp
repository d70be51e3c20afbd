#pragma once
// A measured collective-bandwidth sweep, as nccl-tests (`all_reduce_perf`, `all_gather_perf`,
// ...) reports it: for each message size, the time of one collective and two bandwidths.
//
//   algbw = size / time                      (bytes the user's buffer holds, per second)
//   busbw = algbw x factor, the factor making busbw comparable to the link's peak:
//           all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
//           broadcast, reduce, send/recv 1                  (n = ranks)
// Source: nccl-tests doc/PERFORMANCE.md. Out-of-place writes to a separate output buffer;
// in-place reuses the input.

#include <cstddef>   // std::size_t
#include <algorithm>  // std::find
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/trace/read_stats.hpp"

namespace roofline {

/// One measurement (out-of-place or in-place) at one size.
struct collective_timing {
    double time_s = 0;                ///< time of one collective
    double algbw_bytes_per_s = 0;     ///< size / time
    double busbw_bytes_per_s = 0;     ///< algbw x the collective's bus factor
    std::optional<double> wrong;      ///< `#wrong` elements; nullopt for "N/A" (no check)
};

/// One line of the table.
struct collective_point {
    double size_bytes = 0;
    double count = 0;          ///< elements
    std::string type;          ///< "float", "bfloat16", ...
    std::string redop;         ///< "sum", "none", ...
    int root = -1;
    std::optional<collective_timing> out_of_place, in_place;
};

/// A whole sweep.
struct collective_sweep {
    std::string file;
    std::string collective;  ///< "all_reduce", "all_gather", ... ("" when the log does not say)
    int ranks = 0;           ///< "# Rank" lines (GPUs taking part)
    std::vector<std::string> devices;  ///< GPU name per rank line
    std::vector<std::string> hosts;    ///< host name per rank line ("" when not given)

    /// Distinct non-empty host names: the nodes the ranks ran on (0 when no line names one).
    int host_count() const {
        std::vector<std::string> seen;
        for (const auto& h : hosts)
            if (!h.empty() && std::find(seen.begin(), seen.end(), h) == seen.end()) seen.push_back(h);
        return static_cast<int>(seen.size());
    }
    std::vector<collective_point> points;
    std::optional<double> avg_busbw_bytes_per_s;  ///< footer "Avg bus bandwidth"
    std::optional<double> out_of_bounds;          ///< footer "Out of bounds values"
    read_stats stats;

    /// The largest busbw over sizes and both placements (B/s), 0 when empty.
    double peak_busbw_bytes_per_s() const {
        double m = 0;
        for (const auto& p : points) {
            if (p.out_of_place && p.out_of_place->busbw_bytes_per_s > m) m = p.out_of_place->busbw_bytes_per_s;
            if (p.in_place && p.in_place->busbw_bytes_per_s > m) m = p.in_place->busbw_bytes_per_s;
        }
        return m;
    }
};

}  // namespace roofline
