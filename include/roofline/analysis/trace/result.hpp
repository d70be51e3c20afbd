#pragma once
// The data the trace-analysis stages pass along and return (analysis/trace_analysis.hpp runs
// them): the options, one priced activity, one report row, the step detection, the power picture
// and the whole analysis. Stages fill these; the report layer only reads them.

#include <array>     // std::array
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint8_t, std::uint64_t
#include <cstdio>    // std::snprintf, std::FILE, std::tmpfile
#include <iterator>  // std::input_iterator_tag
#include <memory>    // std::shared_ptr
#include <string_view>  // std::string_view
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/power_alignment.hpp"
#include "roofline/analysis/verdict.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/workload.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/transformer.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_profile.hpp"
#include "roofline/trace/power.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// What `analyze_trace` needs besides the trace.
struct trace_analysis_options {
    std::string gpu_id;                    ///< `--gpu`; empty: resolved from the trace
    const power_log* power = nullptr;      ///< `--power`
    std::optional<double> power_offset_s;  ///< `--power-offset`
    int device = -1;  ///< GPU of the trace to analyse; -1: the one with the most GPU time
    /// `--model`: prices kernels without shapes (CUDA-graph traces) with `batch` per step.
    const model_config* model = nullptr;
    parallel_layout layout;
    std::optional<step_batch> batch;
    /// Steps the trace holds, for `--model`; 0: detected (analysis/trace/steps.hpp).
    double steps = 0;
    verdict_thresholds thresholds;
    kernel_efficiency efficiency;
    /// `--calibration`: an overlay whose measured ceilings replace the achievable ones; one made
    /// on another GPU than the trace's is a `usage_error` naming both (`require_calibration_gpu`).
    const calibration* calibrated = nullptr;
    /// `--ncu`: an Nsight Compute report whose measured FLOP and DRAM bytes replace the modeled
    /// work of the kernels it profiled (matched by name and launch order, where the grids agree).
    const ncu_report* ncu = nullptr;
};

/// The link a priced activity's link bytes cross: each is its own roof.
enum class link_roof : std::uint8_t {
    peer,     ///< GPU to GPU: NVLink, or PCIe peer-to-peer (collectives, peer copies)
    host,     ///< the PCIe host link (host <-> device copies)
    network,  ///< off the node (collectives whose group spans nodes)
};
inline constexpr std::size_t link_roof_count = 3;
/// "NVLink/peer", "PCIe host link", "network".
constexpr std::string_view to_string(link_roof r) {
    switch (r) {
        case link_roof::peer: return "NVLink/peer";
        case link_roof::host: return "PCIe host link";
        case link_roof::network: return "network";
    }
    return "NVLink/peer";
}

/// The modeled work and price of one activity (the recovery stage's output per event). A trace
/// holds one per activity, so it keeps the work and what it needs to price it, not the priced
/// roof times (`event_sol` computes those on demand) nor any string of its own.
struct event_price {
    bool priced = false;
    bool helper = false;  ///< launched by an op whose work another kernel carries
    link_roof link = link_roof::peer;  ///< the roof of the link bytes (`event_sol(...).link_s`)
    int op_work = -1;                  ///< index into the op-work table (shapes, sibling)
    /// Evidence: "shapes", "collective", "bytes", "model", "sibling" (a same-name, same-grid
    /// kernel's shapes), "ncu" (measured by Nsight Compute); a string literal, empty when unpriced.
    std::string_view source;
    workload work;
    double achievable_s = 0;  ///< lower bound at the achievable ceilings, s
    std::optional<double> busbw;
    /// One op or transfer this activity ran, with shapes ("mm [64x4096] x [4096x4096] bf16");
    /// a view into `recovered_work::strings`.
    std::string_view example;
};

/// Latency evidence of a group of kernels.
struct latency_evidence {
    double kernels = 0;
    double median_kernel_s = std::numeric_limits<double>::quiet_NaN();
    /// Share of the group's kernel time in kernels whose grid has fewer blocks than the GPU has
    /// SMs.
    double small_grid_share = std::numeric_limits<double>::quiet_NaN();
    double median_grid_blocks = std::numeric_limits<double>::quiet_NaN();
    /// Share of the kernels launched by a CUDA graph replay (`is_graph_launch_api`).
    double graph_launched_share = std::numeric_limits<double>::quiet_NaN();
    /// Time-weighted Kineto `est. achieved occupancy %` over kernels that report one (> 0).
    double occupancy_pct = std::numeric_limits<double>::quiet_NaN();
};

/// One row of a report: a kernel name, a phase, a step, an op launch group or the window.
struct analysis_row {
    std::string name;
    kernel_phase phase = kernel_phase::other;
    gpu_activity activity = gpu_activity::kernel;
    double count = 0;    ///< activities
    double total_s = 0;  ///< summed durations
    double share = 0;    ///< of the analysed GPU's summed activity time
    double min_s = std::numeric_limits<double>::quiet_NaN(),
           max_s = std::numeric_limits<double>::quiet_NaN();
    double span_s = 0;    ///< steps and windows: first start to last end
    double busy_s = 0;    ///< steps and windows: union of activity
    double priced_s = 0;  ///< time of the activities with modeled work
    /// Phase rows of a window: the wall time the window's split gives them (exposed time for
    /// collectives, a share of the busy time for the others); NaN for other rows.
    double wall_s = std::numeric_limits<double>::quiet_NaN();
    /// Evidence used: "shapes", "collective", "bytes", "model", "sibling", "ncu" (joined by '+').
    std::string pricing;
    workload work;   ///< summed modeled work
    roof_times sol;  ///< summed per-activity roof times at datasheet ceilings
    /// `sol.link_s` split by the link each activity crossed (index by `link_roof`).
    std::array<double, link_roof_count> link_roof_s{};
    double achievable_s = 0;  ///< summed lower bounds at achievable ceilings
    /// Roof time / priced time per roof; `communication` is the most utilised link.
    roof_utilization utilization;
    std::array<double, link_roof_count> link_utilization{};  ///< per link roof
    /// Windows and steps: roof time over the wall-clock span (idle time included).
    std::optional<roof_utilization> span_utilization;
    std::optional<double> compute_at_clock;  ///< compute utilisation at the measured SM clock
    /// The roof the verdict names: "compute", "DRAM", "L2", ..., "NVLink/peer", "PCIe host link",
    /// "network"; empty for power, latency and unknown verdicts.
    std::string roof;
    std::optional<power_evidence> power;
    std::optional<double> energy_j;
    std::optional<verdict> result;  ///< nullopt: no modeled work ("unknown")
    std::string unknown_reason;
    std::vector<std::string> notes;
    latency_evidence latency;
    // communication
    double exposed_s =
        std::numeric_limits<double>::quiet_NaN();  ///< collectives not overlapped by compute
    double overlapped_s = std::numeric_limits<double>::quiet_NaN();
    std::optional<double> busbw_bytes_per_s;  ///< measured, nccl-tests definition
    std::string example;                      ///< one op or collective this row ran, with shapes
    // op launch groups
    std::string input_dims;   ///< `Input Dims` of the launching op (op rows)
    std::string input_types;  ///< `Input type` of the launching op (op rows)

    double mean_s() const {
        return count > 0 ? total_s / count : std::numeric_limits<double>::quiet_NaN();
    }
    /// True when the GPU is unknown (`unknown_gpu_spec`): no ceiling priced, so no utilisation.
    bool no_gpu = false;
    /// True when the row's utilisation of each roof is known: it has modeled work and the GPU
    /// (its ceilings) is known.
    bool roofs_known() const { return priced_s > 0 && !no_gpu; }
    /// "compute", ..., "latency", or "unknown".
    std::string bound_name() const {
        return result ? std::string(to_string(result->what)) : "unknown";
    }
    /// "memory (DRAM)", "communication (PCIe host link)", "latency", "unknown".
    std::string bound_with_roof() const {
        return roof.empty() || roof == bound_name() ? bound_name() : bound_name() + " (" + roof + ")";
    }
};

/// Rows in order, the first `memory_rows` held and the rest written to an unnamed temporary file
/// (`std::tmpfile`) and read back one at a time: a table that grows with the trace (a row per
/// step: a 10 GB trace may have 100,000 steps, 1.2 KB each held) costs disk, not memory. Every
/// field of `analysis_row` goes through the file (a new field must be added to the encoding,
/// `detail::trace_an::encode_row`). Copies share the file; where no temporary file can be made
/// the rows stay in memory. Iteration reads the file; a row it yields stays valid until the
/// iterator moves.
class row_spool {
public:
    static constexpr std::size_t default_memory_rows = 1024;
    explicit row_spool(std::size_t memory_rows = default_memory_rows) : memory_rows_(memory_rows) {}

    void push_back(analysis_row r);
    std::size_t size() const { return held_.size() + spilled_; }
    bool empty() const { return size() == 0; }
    /// Rows in the file.
    std::size_t spilled() const { return spilled_; }
    /// Each row's `share` becomes its `total_s` over `gpu_time_s` (0 when that is not positive),
    /// the written rows' as they are read: the streaming analysis learns the GPU time only after
    /// its step rows are written.
    void set_share_basis(double gpu_time_s);

    class const_iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = analysis_row;
        using difference_type = std::ptrdiff_t;
        using pointer = const analysis_row*;
        using reference = const analysis_row&;
        const_iterator() = default;
        reference operator*() const { return index_ < s_->held_.size() ? s_->held_[index_] : row_; }
        pointer operator->() const { return &**this; }
        const_iterator& operator++();
        bool operator==(const const_iterator& o) const { return index_ == o.index_; }
        bool operator!=(const const_iterator& o) const { return index_ != o.index_; }

    private:
        friend class row_spool;
        const_iterator(const row_spool* s, std::size_t index) : s_(s), index_(index) {}
        void load();  // reads row `index_` (a written one) into `row_`
        const row_spool* s_ = nullptr;
        std::size_t index_ = 0;
        std::uint64_t offset_ = 0;  // file offset of the next row
        std::vector<char> buffer_;
        std::size_t at_ = 0;  // next unread byte of `buffer_`
        analysis_row row_;
    };
    const_iterator begin() const;
    const_iterator end() const { return const_iterator(this, size()); }

private:
    struct file_closer {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::size_t memory_rows_;
    std::vector<analysis_row> held_;
    std::shared_ptr<std::FILE> file_;
    std::size_t spilled_ = 0;
    std::uint64_t bytes_ = 0;  // written to the file
    bool no_file_ = false;     // std::tmpfile failed: hold every row
    std::optional<double> share_basis_s_;
    std::string encoded_;  // the row being written
};

/// How the steps of a trace were found (analysis/trace/steps.hpp).
struct step_detection {
    /// "ProfilerStep", "CUDA graph launches", "GPU annotations", "repeating kernel sequence",
    /// or "one step" (nothing marked steps: the window is one step).
    std::string source;
    std::size_t count = 1;  ///< steps the window holds (>= 1; `--steps` when given)
    std::string note;       ///< how the source was read, for people
};

/// Power evidence of one GPU of the log over the analysed window.
struct gpu_power {
    int gpu_index = 0;
    std::string gpu_name;
    power_evidence evidence;
    /// At its limit, the cap active and the clock held: this GPU's compute ceiling is derated.
    bool capped = false;
    /// 1 / clock fraction - 1: how much longer compute-bound work takes at its held clock.
    std::optional<double> compute_slowdown;
};

/// The power picture of the analysed GPU (and, from a multi-GPU log, of every GPU).
struct trace_power {
    int gpu_index = 0;
    std::string gpu_name;  ///< as the log names it
    power_alignment alignment;
    std::string source;  ///< "trace window" or "busy period"
    std::string note;    ///< why those samples
    /// A short window's nearest busy period: its distance from the window and the distance
    /// beyond which it is far (analysis/power_alignment.hpp), NaN when none was weighed.
    double busy_gap_s = std::numeric_limits<double>::quiet_NaN(),
           near_s = std::numeric_limits<double>::quiet_NaN();
    bool assumed = false;  ///< a far busy period used: the log next to the window shows its state
    bool refused = false;  ///< a far busy period not used: the window's own samples are
    /// The state compared for a far busy period (power_selection's next_* and period_*).
    std::optional<double> next_clock_fraction, next_cap_fraction, period_clock_fraction, period_cap_fraction;
    double start_log_s = std::numeric_limits<double>::quiet_NaN(),
           end_log_s = std::numeric_limits<double>::quiet_NaN();
    power_evidence evidence;
    std::optional<double> median_sm_clock_hz, max_sm_clock_hz, mean_draw_w;
    std::optional<double> energy_j;            ///< over the trace window
    std::optional<double> energy_per_token_j;  ///< when the tokens are known (`--model` batch)
    std::vector<gpu_power> per_gpu;  ///< every GPU of the log over the same samples' window
    std::vector<std::string> notes;
};

/// The analysis of one trace.
struct trace_analysis {
    std::string file, format;
    trace_summary summary;  ///< every device, as `roofline trace` always printed it
    gpu_resolution gpu;
    std::string gpu_name;
    int device = -1;
    std::vector<int> devices;  ///< devices with activity in the trace
    ceilings datasheet;
    /// The calibration overlay the achievable ceilings came from ("" when none; `--calibration`).
    std::string calibration_source;
    double reference_clock_hz =
        std::numeric_limits<double>::quiet_NaN();  ///< clock the peaks assume
    double window_start_s = 0, window_end_s = 0;
    analysis_row window;                ///< the whole window of the analysed GPU
    std::vector<analysis_row> phases;   ///< longest first
    std::vector<analysis_row> kernels;  ///< by name, longest first
    /// By launching op, its input shapes and types: what a user joins against model code.
    std::vector<analysis_row> ops;
    row_spool steps;  ///< step windows, in time order (past 1,024 in a temporary file)
    std::string step_source;          ///< `step_detection.source` where step rows exist, else ""
    step_detection step_info;         ///< how many steps, from what
    std::size_t sibling_priced = 0;   ///< kernels without a launching op priced by a sibling
    std::size_t ncu_matched = 0;      ///< kernels whose work came from the ncu report
    double unlinked_share = 0;  ///< share of GPU time in kernels without op, sibling or model
    /// Kernel time that no source priced, by launching op ("kernel NAME" without one), longest
    /// first: what `priced_share` leaves out. `share`: of the analysed GPU's activity time.
    struct unpriced_kernels {
        std::string name;
        double time_s = 0, share = 0;
    };
    std::vector<unpriced_kernels> unpriced;
    // timeline
    double busy_fraction = 0;
    std::size_t idle_gaps = 0;
    double median_gap_s = std::numeric_limits<double>::quiet_NaN(),
           max_gap_s = std::numeric_limits<double>::quiet_NaN();
    double concurrency = 1;  ///< summed activity time / busy time (1: strictly serial)
    std::size_t streams = 0;
    double communication_s = 0, exposed_communication_s = 0, overlapped_communication_s = 0;
    /// Wall time of the window by what bounds it: index by `bound`, [5] = unknown (no model).
    std::array<double, 6> time_by_bound{};
    double priced_share = 0;  ///< share of GPU activity time with modeled work
    std::optional<trace_power> power;
    double tokens = 0;  ///< tokens processed (from `--model` batch x steps), 0 when unknown
    std::vector<std::string> notes;
    std::vector<std::string> warnings;
};

}  // namespace roofline

#if ROOFLINE_BODIES_ANALYSIS
#include <algorithm>    // std::max
#include <cstring>      // std::memcpy
#include <stdexcept>    // std::runtime_error
#include <type_traits>  // std::is_trivially_copyable_v

namespace roofline {
namespace detail::trace_an {

inline std::string pct(double f) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * f);
    return b;
}
inline std::string num(double v, int digits = 0) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}
/// "12.3 us", "4.56 ms", "1.20 s" (the report layer has fmt; this layer keeps to snprintf).
inline std::string dur(double s) {
    if (!std::isfinite(s)) return "n/a";
    if (s >= 1.0) return num(s, 2) + " s";
    if (s >= 1e-3) return num(s * 1e3, s >= 0.1 ? 0 : 2) + " ms";
    return num(s * 1e6, s >= 1e-5 ? 0 : 1) + " us";
}
/// "4 B", "12.3 kB", "268.4 MB", "2.15 GB".
inline std::string mb(double bytes) {
    if (bytes >= 1e9) return num(bytes / 1e9, 2) + " GB";
    if (bytes >= 1e6) return num(bytes / 1e6, 1) + " MB";
    if (bytes >= 1e3) return num(bytes / 1e3, 1) + " kB";
    return num(bytes) + " B";
}
inline void note_once(std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
        if (x == s) return;
    v.push_back(s);
}


// row_spool: each written row is its encoded length (8 bytes) and the encoding below.
template <class T>
inline void put_raw(std::string& out, const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "written as bytes");
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
inline void put_string(std::string& out, const std::string& v) {
    put_raw(out, static_cast<std::uint64_t>(v.size()));
    out += v;
}
inline void put_strings(std::string& out, const std::vector<std::string>& v) {
    put_raw(out, static_cast<std::uint64_t>(v.size()));
    for (const auto& x : v) put_string(out, x);
}
/// Reads what `put_*` wrote, from `p` on; throws past `end`.
struct row_reader {
    const char* p;
    const char* end;
    void need(std::size_t n) {
        if (static_cast<std::size_t>(end - p) < n) throw std::runtime_error("row_spool: a written row is cut short");
    }
    template <class T>
    void raw(T& v) {
        need(sizeof v);
        std::memcpy(&v, p, sizeof v);
        p += sizeof v;
    }
    void string(std::string& v) {
        std::uint64_t n = 0;
        raw(n);
        need(n);
        v.assign(p, n);
        p += n;
    }
    void strings(std::vector<std::string>& v) {
        std::uint64_t n = 0;
        raw(n);
        v.resize(n);
        for (auto& x : v) string(x);
    }
};

// Every field of analysis_row, in declaration order (the doubles and the trivially copyable
// aggregates as bytes: the file is read back by the same program).
inline void encode_row(const analysis_row& r, std::string& out) {
    put_string(out, r.name);
    put_raw(out, r.phase);
    put_raw(out, r.activity);
    for (double v : {r.count, r.total_s, r.share, r.min_s, r.max_s, r.span_s, r.busy_s, r.priced_s, r.wall_s})
        put_raw(out, v);
    put_string(out, r.pricing);
    put_raw(out, r.work);
    put_raw(out, r.sol);
    put_raw(out, r.link_roof_s);
    put_raw(out, r.achievable_s);
    put_raw(out, r.utilization);
    put_raw(out, r.link_utilization);
    put_raw(out, r.span_utilization);
    put_raw(out, r.compute_at_clock);
    put_string(out, r.roof);
    put_raw(out, r.power);
    put_raw(out, r.energy_j);
    put_raw(out, r.result.has_value());
    if (r.result) {
        put_raw(out, r.result->what);
        put_string(out, r.result->reason);
        put_raw(out, r.result->utilization);
        put_strings(out, r.result->notes);
    }
    put_string(out, r.unknown_reason);
    put_strings(out, r.notes);
    put_raw(out, r.latency);
    put_raw(out, r.exposed_s);
    put_raw(out, r.overlapped_s);
    put_raw(out, r.busbw_bytes_per_s);
    put_string(out, r.example);
    put_string(out, r.input_dims);
    put_string(out, r.input_types);
    put_raw(out, r.no_gpu);
}

inline void decode_row(row_reader& in, analysis_row& r) {
    in.string(r.name);
    in.raw(r.phase);
    in.raw(r.activity);
    for (double* v : {&r.count, &r.total_s, &r.share, &r.min_s, &r.max_s, &r.span_s, &r.busy_s, &r.priced_s, &r.wall_s})
        in.raw(*v);
    in.string(r.pricing);
    in.raw(r.work);
    in.raw(r.sol);
    in.raw(r.link_roof_s);
    in.raw(r.achievable_s);
    in.raw(r.utilization);
    in.raw(r.link_utilization);
    in.raw(r.span_utilization);
    in.raw(r.compute_at_clock);
    in.string(r.roof);
    in.raw(r.power);
    in.raw(r.energy_j);
    bool has_result = false;
    in.raw(has_result);
    if (has_result) {
        verdict v;
        in.raw(v.what);
        in.string(v.reason);
        in.raw(v.utilization);
        in.strings(v.notes);
        r.result = std::move(v);
    } else {
        r.result.reset();
    }
    in.string(r.unknown_reason);
    in.strings(r.notes);
    in.raw(r.latency);
    in.raw(r.exposed_s);
    in.raw(r.overlapped_s);
    in.raw(r.busbw_bytes_per_s);
    in.string(r.example);
    in.string(r.input_dims);
    in.string(r.input_types);
    in.raw(r.no_gpu);
}

inline double share_of(const analysis_row& r, double basis_s) { return basis_s > 0 ? r.total_s / basis_s : 0; }

}  // namespace detail::trace_an

ROOFLINE_INLINE void row_spool::push_back(analysis_row r) {
    if (share_basis_s_) r.share = detail::trace_an::share_of(r, *share_basis_s_);
    if (held_.size() < memory_rows_ || no_file_) {
        held_.push_back(std::move(r));
        return;
    }
    if (!file_) {
        std::FILE* f = std::tmpfile();
        if (!f) {
            no_file_ = true;
            held_.push_back(std::move(r));
            return;
        }
        file_.reset(f, file_closer{});
    }
    encoded_.clear();
    detail::trace_an::put_raw(encoded_, std::uint64_t(0));
    detail::trace_an::encode_row(r, encoded_);
    const std::uint64_t n = encoded_.size() - sizeof(std::uint64_t);
    std::memcpy(encoded_.data(), &n, sizeof n);
    // Reads may have moved the position (C requires a seek between a read and a write).
    if (std::fseek(file_.get(), 0, SEEK_END) != 0 ||
        std::fwrite(encoded_.data(), 1, encoded_.size(), file_.get()) != encoded_.size())
        throw std::runtime_error("cannot write a table's rows to a temporary file (" + std::to_string(size()) +
                                 " rows, " + std::to_string(bytes_ >> 20) + " MiB written): is the temporary folder full?");
    bytes_ += encoded_.size();
    ++spilled_;
}

ROOFLINE_INLINE void row_spool::set_share_basis(double gpu_time_s) {
    share_basis_s_ = gpu_time_s;
    for (auto& r : held_) r.share = detail::trace_an::share_of(r, gpu_time_s);
}

ROOFLINE_INLINE row_spool::const_iterator row_spool::begin() const {
    const_iterator it(this, 0);
    if (held_.empty() && spilled_ > 0) it.load();
    return it;
}

ROOFLINE_INLINE row_spool::const_iterator& row_spool::const_iterator::operator++() {
    ++index_;
    if (index_ >= s_->held_.size() && index_ < s_->size()) load();
    return *this;
}

ROOFLINE_INLINE void row_spool::const_iterator::load() {
    std::FILE* f = s_->file_.get();
    // Makes sure `n` unread bytes are in the buffer, reading on from `offset_`.
    const auto fill = [&](std::size_t n) {
        if (buffer_.size() - at_ >= n) return;
        buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(at_));
        at_ = 0;
        const std::size_t want = std::max<std::size_t>(n - buffer_.size(), std::size_t(1) << 18);
        const std::size_t old = buffer_.size();
        buffer_.resize(old + want);
        std::size_t got = 0;
        if (std::fflush(f) == 0 && std::fseek(f, static_cast<long>(offset_), SEEK_SET) == 0)
            got = std::fread(buffer_.data() + old, 1, want, f);
        buffer_.resize(old + got);
        offset_ += got;
        if (buffer_.size() < n) throw std::runtime_error("row_spool: cannot read a table's rows back from its temporary file");
    };
    std::uint64_t n = 0;
    fill(sizeof n);
    std::memcpy(&n, buffer_.data() + at_, sizeof n);
    at_ += sizeof n;
    fill(static_cast<std::size_t>(n));
    detail::trace_an::row_reader in{buffer_.data() + at_, buffer_.data() + at_ + n};
    detail::trace_an::decode_row(in, row_);
    at_ += static_cast<std::size_t>(n);
    if (s_->share_basis_s_) row_.share = detail::trace_an::share_of(row_, *s_->share_basis_s_);
}


}  // namespace roofline
#endif  // ROOFLINE_BODIES_ANALYSIS
