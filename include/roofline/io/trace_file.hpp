#pragma once
// Any trace file a user has -> its kind and its time summary.
//
// `roofline trace` accepts a Kineto/PyTorch profiler trace (.json, .json.gz), an nsys stats CSV
// report (cuda_gpu_kern_sum or cuda_gpu_trace) or an nsys SQLite export; the kind is told by the
// content, not the name: an SQLite file starts with "SQLite format 3\0", JSON with '{' or '[',
// an nsys report has a header with "Name" and a time column.

#include <cstdio>  // std::fopen, std::fread
#include <string>  // std::string

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/detail/input_kind.hpp"
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
trace_format detect_trace_format(const std::string& path);

/// The per-phase and per-kernel time summary of a trace file of any supported kind (Kineto
/// traces in one streaming pass, constant memory).
trace_summary summarize_trace_file(const std::string& path, const kernel_rules& rules);

}  // namespace roofline

#if ROOFLINE_BODIES_IO

namespace roofline {
namespace detail::trace_file {
/// What a file that is no trace holds, told from its first 4 KiB (gzip inflated), for the error
/// message: "an ncu --csv report", "an nvidia-smi log (pass it with --power)", "nccl-tests output",
/// "binary data (...)"; empty when it may be an nsys report (the nsys reader then decides).
inline std::string other_kind(const std::string& path) {
    bool gzip = false;
    const std::string head = io::detail::input_head(path, gzip);
    std::size_t binary = 0;
    for (unsigned char c : head)
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) ++binary;
    const std::string wrapped = gzip ? " (inside gzip)" : "";
    // SQLite's file header (sqlite.org/fileformat.html, 1.3): the nsys reader opens the file
    // itself, so a compressed export must be inflated first.
    if (gzip && head.rfind(std::string("SQLite format 3\0", 16), 0) == 0)
        return "an SQLite database inside gzip: the nsys SQLite reader opens the file itself, so gunzip "
               "it first";
    if (!head.empty() && binary * 20 > head.size())
        return "binary data" + wrapped + ": " + std::to_string(binary) + " of the first " +
               std::to_string(head.size()) + " bytes are control characters";
    return io::detail::describe_input_kind(head, wrapped);
}
}  // namespace detail::trace_file

ROOFLINE_INLINE trace_format detect_trace_format(const std::string& path) {
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
    if (const std::string other = detail::trace_file::other_kind(path); !other.empty())
        throw parse_error(path, "byte 0", "",
                          other + ", not a trace (expected a Kineto/PyTorch profiler trace, an nsys stats CSV "
                                  "report (cuda_gpu_trace, cuda_gpu_kern_sum) or an nsys SQLite export)");
    return detect_nsys_report(path) == nsys_report::cuda_gpu_trace ? trace_format::nsys_cuda_gpu_trace
                                                                    : trace_format::nsys_cuda_gpu_kern_sum;
}

ROOFLINE_INLINE trace_summary summarize_trace_file(const std::string& path, const kernel_rules& rules) {
    switch (detect_trace_format(path)) {
        case trace_format::kineto: return summarize_kineto(path, rules);
        case trace_format::nsys_cuda_gpu_kern_sum: return read_nsys_kern_sum(path, rules);
        case trace_format::nsys_cuda_gpu_trace: return summarize(read_nsys_gpu_trace(path, rules));
        case trace_format::nsys_sqlite: return summarize(read_nsys_sqlite(path, rules));
    }
    return {};
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
