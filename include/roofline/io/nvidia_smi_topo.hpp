#pragma once
// Reader of `nvidia-smi topo -m` output (the `--topology FILE` input):
//
//         GPU0    GPU1    ...  NIC0   CPU Affinity    NUMA Affinity   GPU NUMA ID
//   GPU0   X      PHB     ...  NODE   0-63            0               N/A
//   ...
//   Legend: ...
//
// The header names the GPU (and NIC) columns; each `GPUi` row gives the path to every GPU
// (X, NV#, PIX, PXB, PHB, NODE, SYS), then NIC columns, then the CPU and NUMA affinities. ANSI
// underline escapes (nvidia-smi on a terminal) are dropped. Rows of NICs and the legend are
// skipped.
// Errors: an unreadable file (or one over 16 MiB), no header with GPU0, a GPU row with a missing or unknown path
// code throw `parse_error` naming the file, the line and the column.

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/input.hpp"
#include "roofline/models/host_topology.hpp"

namespace roofline {

/// Reads `nvidia-smi topo -m` text from `path` (format above).
pcie_host_topology read_nvidia_smi_topo(const std::string& path);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include "roofline/io/detail/text.hpp"

namespace roofline {
namespace io::detail {
/// A path code of `nvidia-smi topo -m`; false when unknown.
inline bool parse_gpu_path(std::string_view s, gpu_path& out) {
    if (s == "X") out = gpu_path::self;
    else if (s.size() > 2 && s.substr(0, 2) == "NV") out = gpu_path::nvlink;
    else if (s == "PIX") out = gpu_path::pix;
    else if (s == "PXB") out = gpu_path::pxb;
    else if (s == "PHB") out = gpu_path::phb;
    else if (s == "NODE") out = gpu_path::node;
    else if (s == "SYS") out = gpu_path::sys;
    else return false;
    return true;
}
/// Whitespace-separated tokens of `s` (views into it).
inline std::vector<std::string_view> topo_tokens(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        std::size_t j = i;
        while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}
/// `s` without ANSI escape sequences (ESC [ ... letter).
inline std::string strip_ansi(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            i += 2;
            while (i < s.size() && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))) ++i;
            continue;
        }
        out.push_back(s[i]);
    }
    return out;
}
}  // namespace io::detail

ROOFLINE_INLINE pcie_host_topology read_nvidia_smi_topo(const std::string& path) {
    using namespace io::detail;
    const std::string text = io::read_all(path, std::uint64_t(16) << 20);
    pcie_host_topology t;
    t.file = path;
    std::size_t gpu_cols = 0, nic_cols = 0, line_no = 0;
    bool header = false;
    for (std::string_view rest = text; !rest.empty();) {
        const auto nl = rest.find('\n');
        const std::string line = strip_ansi(rest.substr(0, nl));
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        ++line_no;
        const auto tk = topo_tokens(line);
        if (tk.empty()) continue;
        if (!header) {
            if (tk[0] != "GPU0") continue;
            for (const auto& x : tk) {
                if (x.substr(0, 3) == "GPU" && x.size() > 3 && x[3] >= '0' && x[3] <= '9') ++gpu_cols;
                else if (x.substr(0, 3) == "NIC") ++nic_cols;
            }
            header = true;
            continue;
        }
        if (tk[0].substr(0, 3) != "GPU" || tk[0].size() < 4 || tk[0][3] < '0' || tk[0][3] > '9') {
            if (tk[0] == "Legend:") break;
            continue;  // NIC rows, blank separators
        }
        const std::string place = "line " + std::to_string(line_no);
        if (tk.size() < 1 + gpu_cols) throw parse_error(path, place, std::string(tk[0]), "fewer path columns than GPUs in the header");
        std::vector<gpu_path> row;
        for (std::size_t j = 0; j < gpu_cols; ++j) {
            gpu_path p{};
            if (!parse_gpu_path(tk[1 + j], p))
                throw parse_error(path, place, "GPU" + std::to_string(j),
                                  "unknown path \"" + std::string(tk[1 + j]) + "\" (accepted: X, NV#, PIX, PXB, PHB, NODE, SYS)");
            row.push_back(p);
        }
        t.path.push_back(std::move(row));
        // After the NIC columns: CPU affinity, NUMA affinity, GPU NUMA ID.
        const std::size_t numa_at = 1 + gpu_cols + nic_cols + 1;
        int numa = -1;
        if (numa_at < tk.size())
            if (const auto v = parse_double(tk[numa_at]); v && *v >= 0 && *v < 1024) numa = static_cast<int>(*v);
        t.numa.push_back(numa);
    }
    if (!header) throw parse_error(path, "", "GPU0", "no `nvidia-smi topo -m` header (a line starting with GPU0)");
    if (t.path.size() != gpu_cols)
        throw parse_error(path, "", "GPU rows", std::to_string(t.path.size()) + " rows for " + std::to_string(gpu_cols) + " GPU columns");
    return t;
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
