#pragma once
// Any trace file a user has -> its kind and its time summary.
//
// `roofline trace` accepts a Kineto/PyTorch profiler trace (.json, .json.gz), an nsys stats CSV
// report (cuda_gpu_kern_sum or cuda_gpu_trace) or an nsys SQLite export; the kind is told by the
// content, not the name: an SQLite file starts with "SQLite format 3\0", JSON with '{' or '[',
// an nsys report has a header with "Name" and a time column.

#include <string>  // std::string

#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/nsys_sqlite.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// Kinds of trace file `summarize_trace_file` reads.
enum class trace_format { kineto, nsys_cuda_gpu_kern_sum, nsys_cuda_gpu_trace, nsys_sqlite };

/// The kind of `path` by its first bytes (gzip inflated). Throws `parse_error` for a missing or
/// empty file, or one that is neither SQLite, JSON nor an nsys report (or a `.sqlite` file
/// without the SQLite header). An SQLite file is told by its header even in a build without
/// SQLite support (reading it then says so).
inline trace_format detect_trace_format(const std::string& path) {
    if (is_sqlite_file(path)) return trace_format::nsys_sqlite;
    if (path.size() >= 7 && path.compare(path.size() - 7, 7, ".sqlite") == 0) {  // say what was expected
        io::input_file in(path);                                                 // "cannot open" if missing
        throw parse_error(path, "byte 0", "", "not an SQLite database (no \"SQLite format 3\" header)");
    }
    {
        io::input_file in(path);
        char buf[256];
        std::size_t n = 0;
        while (true) {
            n = in.read(buf, sizeof buf);
            if (n == 0) throw parse_error(path, "byte 0", "", "empty file");
            std::size_t i = 0;
            while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t')) ++i;
            if (i == n) continue;
            if (buf[i] == '{' || buf[i] == '[') return trace_format::kineto;
            break;
        }
    }
    return detect_nsys_report(path) == nsys_report::cuda_gpu_trace ? trace_format::nsys_cuda_gpu_trace
                                                                    : trace_format::nsys_cuda_gpu_kern_sum;
}

/// The per-phase and per-kernel time summary of a trace file of any supported kind (Kineto
/// traces in one streaming pass, constant memory).
inline trace_summary summarize_trace_file(const std::string& path, const kernel_rules& rules) {
    switch (detect_trace_format(path)) {
        case trace_format::kineto: return summarize_kineto(path, rules);
        case trace_format::nsys_cuda_gpu_kern_sum: return read_nsys_kern_sum(path, rules);
        case trace_format::nsys_cuda_gpu_trace: return summarize(read_nsys_gpu_trace(path, rules));
        case trace_format::nsys_sqlite: return summarize(read_nsys_sqlite(path, rules));
    }
    return {};
}

}  // namespace roofline
