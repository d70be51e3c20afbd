#pragma once
// What a reader did with its input: every reader in io/ fills one of these so that a user can
// see how much of a file was understood, and why the rest was left out.
//
// Counting convention (the same in every reader):
//   events_read    = every record the reader looked at (a CSV data row, a JSON event, a run);
//   events_kept    = records turned into output (a power sample, a kernel event, a bench run);
//   events_skipped = records that were malformed or unusable, counted by reason;
//   events_read - events_kept - events_skipped = records of no interest to this reader or used
//   only as context (a Kineto `python_function` event, a `cpu_op` used to link a kernel).

#include <cstddef>  // std::size_t
#include <map>      // std::map
#include <string>   // std::string

namespace roofline {

/// Counts of records read, kept and skipped (by reason) by one reader over one file.
struct read_stats {
    std::size_t events_read = 0;
    std::size_t events_kept = 0;
    std::size_t events_skipped = 0;
    /// reason (a short snake_case phrase such as "negative_dur") -> number of records skipped.
    std::map<std::string, std::size_t> skipped_by_reason;

    /// Counts one skipped record under `reason`.
    void skip(const std::string& reason) {
        ++events_skipped;
        ++skipped_by_reason[reason];
    }
    /// reason ("not_available(flop_count_hp.sum)") -> records read that are neither kept nor
    /// skipped but worth naming (a metric the profiler reported as n/a); a subset of `events_other`.
    std::map<std::string, std::size_t> other_by_reason;

    /// Counts one record that is neither kept nor skipped under `reason`.
    void other(const std::string& reason) { ++other_by_reason[reason]; }
    /// Records read but neither kept nor skipped (context or out of scope).
    std::size_t events_other() const { return events_read - events_kept - events_skipped; }
};

}  // namespace roofline
