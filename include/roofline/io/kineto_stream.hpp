#pragma once
// PyTorch profiler (Kineto) traces read as a stream: the GPU activity in start-time order, each
// event with its launch call and launching CPU op, in memory bounded by windows of events rather
// than by the trace. The reader of the streaming trace analysis (analysis/trace_stream.hpp), for
// traces whose tables `read_kineto` would keep too large.
//
// A Kineto file lists every CPU op of a thread (in time order) before the GPU section, where each
// GPU activity sits beside its launch call (`cuda_runtime`, `cuda_driver`, usually right after
// it; a CUDA graph's kernels before its `cudaGraphLaunch`); flows come last. `read_kineto` must
// hold every op until the kernels arrive. Here the file is read twice:
//   1. `scan_kineto_stream`: one scan of everything (the same scan as `read_kineto`, the same
//      read counts, skips and errors) that keeps what is small (device properties, annotations,
//      ProfilerSteps, the per-name summary, the time origin) and where each part of the file
//      lies: the first event of the GPU section, the first and last op of each thread. Its GPU
//      events come to a callback joined to their launch calls, in start order, not linked to ops.
//   2. `link_kineto_stream`: a cursor over the GPU section and one cursor per CPU thread over
//      that thread's ops, each a thread of its own reading ahead into a queue of a few batches
//      (a second and third scan of the file; a gzip file is inflated again up to each cursor's
//      first byte). Each launch call is answered by the innermost op containing it on its thread
//      (or the op its `External id` names, when that op contains it): the sweep of `read_kineto`,
//      run incrementally, so a thread's ops are held only while open (the stack of nesting ops,
//      and a few read ahead). Once an op closes, the kernels it launched form a complete group,
//      and the longest one is marked (the kernel that carries the op's work).
// Between the stages, windows of events absorb the file's departures from order:
//   launch join    a GPU event waits up to `launch_join` GPU-section events for its launch call;
//   launch order   a thread's launches are answered in time order, up to `launch_order` held;
//   start order    events are released by start time, up to `start_order` held (more while an
//                  earlier event is still held upstream; past four times that, the oldest
//                  upstream event is forced on).
// Whatever a window cannot absorb (a launch call arriving after its kernel left the join; a
// launch earlier than one already answered on its thread; an event earlier than one already
// released; a kernel joining an op group that was forced on, longer than the kernel marked for
// it) throws `kineto_layout_error`: never a wrong link. The caller retries with wider windows
// or reads the trace whole (`read_kineto`) and says so.
//
// Memory: the windows (a few hundred bytes per held event), the cursors' queues (a few MB), the
// per-name summary, the annotations and steps, and the op nesting of each thread. Time: three
// scans of the file where `read_kineto` makes one, the second and third of the GPU section and
// of the CPU ops only (python_function events, most of a file, end at their prefix).

#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <functional>   // std::function
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <memory>       // std::shared_ptr
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "roofline/core/compilation.hpp"
#include "roofline/core/error.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/summary.hpp"

namespace roofline {

/// How far a Kineto file may stray from time order for the streaming reader, in events (see the
/// file comment). Memory grows with them (a few hundred bytes per held event).
struct kineto_stream_windows {
    std::size_t launch_join = 2048;   ///< GPU-section events a GPU event waits for its launch call
    std::size_t launch_order = 1024;  ///< launches of one thread held to answer them in time order
    std::size_t start_order = 2048;   ///< GPU events held to release them in start order

    /// Every window times `k`.
    kineto_stream_windows scaled(std::size_t k) const {
        return {launch_join * k, launch_order * k, start_order * k};
    }
};

/// The layout of a Kineto file defeats the streaming reader's windows (an event out of order
/// beyond them): read it whole (`read_kineto`), or again with wider windows.
class kineto_layout_error : public error {
public:
    using error::error;
};

/// A launching CPU op as the streaming reader keeps it: the op, its strings in `text`.
struct streamed_op {
    cpu_op op;         ///< views into `text`; start_s after the origin shift
    std::string text;  ///< storage of the op's strings
};

/// A thread of a Kineto trace: numeric pid and tid, or the hashes of their texts.
using kineto_thread = std::pair<std::int64_t, std::int64_t>;

/// One GPU activity as the streaming reader delivers it.
struct streamed_event {
    static constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    /// The event; its name and launch API are views into the reader's string pool. `op`, `top_op`
    /// and `collective` stay -1 (the fields below carry them); `step` is the ProfilerStep its launch
    /// falls in.
    kernel_event event;
    std::uint64_t offset = 0;  ///< content byte offset of the event in the file: its identity
    std::unique_ptr<const collective_info> collective;  ///< NCCL metadata, if any
    /// The launching op (second pass only): innermost op containing the launch on its thread, or
    /// the op its External id names when that op contains the launch; null when none.
    std::shared_ptr<const streamed_op> op;
    launch_link link = launch_link::none;
    /// The longest of its op's kernels that the caller's group filter admits (ties: the earliest):
    /// the one that carries the op's work. Second pass only.
    bool op_longest = false;
    std::string_view op_longest_name;  ///< that kernel's name, for every admitted kernel of the op
    double launch_us = unknown;        ///< launch call start, content microseconds before the origin shift
    kineto_thread launch_thread{0, 0};  ///< the launching thread (when `launch_us` is known)
};

/// What the first pass learns: a `kernel_trace` without events and ops, the per-name summary, and
/// where the second pass finds the parts of the file.
struct kineto_stream_header {
    /// file, format, devices, distributed info, time origin (after the shift), base time, read
    /// stats, annotations and ProfilerSteps (after the shift), events by category, exactly as
    /// `read_kineto` gives them; `events` and `ops` empty. `strings` holds the kernel names, launch
    /// APIs and collective names of the first pass's events.
    kernel_trace trace;
    trace_summary summary;  ///< as `summarize(read_kineto(path))`
    /// Kernel names (kernels, not copies or sets) in order of first appearance, with their counts.
    std::vector<std::pair<std::string_view, std::size_t>> kernel_names;
    /// Summed GPU activity time per device, in file order (as `read_kineto`'s events sum).
    std::map<int, double> gpu_time_by_device;
    /// The first event's `ts` (content microseconds) and the earliest kept start relative to it
    /// (<= 0): every time is (ts - origin) x 1e-6, minus `min_start_us` x 1e-6 when negative.
    double origin_us = 0, min_start_us = 0;
    /// ProfilerStep ranges before the origin shift, sorted by start: launches are assigned to
    /// steps in these coordinates (as `read_kineto` does).
    std::vector<profiler_step> steps_unshifted;
    std::optional<std::uint64_t> gpu_section_offset;  ///< first GPU activity or launch call
    /// Per thread with CPU ops: content offsets of its first and last op.
    std::map<kineto_thread, std::pair<std::uint64_t, std::uint64_t>> op_offsets;
    /// Non-empty when the streaming reader cannot give `read_kineto`'s links for this file (a
    /// GPU event without a launch call names by External id an op that may exist; a ProfilerStep
    /// written after launches it covers): why.
    std::string needs_whole_reader;

    /// The origin shift, seconds (0 or negative).
    double shift_s() const { return min_start_us < 0 ? min_start_us * 1e-6 : 0.0; }
};

/// First pass over Kineto trace `path` (see the file comment): returns the header and gives
/// `on_event` every kept GPU event, joined to its launch call, in start order (ties by offset).
/// Times of those events are before the origin shift (`kineto_stream_header::shift_s`). `options`
/// as for `read_kineto` (rules, parse_workers). Throws as `read_kineto`, and `kineto_layout_error`.
kineto_stream_header scan_kineto_stream(const std::string& path, const kineto_options& options,
                                        const kineto_stream_windows& windows,
                                        const std::function<void(streamed_event&&)>& on_event);

/// Second pass over `path` with its first pass's `header`: gives `on_event` the kept GPU events
/// of `device` (all when < 0), in start order (ties by offset), each joined to its launch call and
/// linked to its launching op; times after the origin shift. Names are interned in `strings`.
/// `group_member(e)`: whether kernel `e` competes to be its op's longest (the caller's rule).
/// Throws `kineto_layout_error` where the windows do not hold, else as `read_kineto` (I/O).
void link_kineto_stream(const std::string& path, const kineto_stream_header& header, const kineto_options& options,
                        int device, const kineto_stream_windows& windows, string_pool& strings,
                        const std::function<bool(const streamed_event&)>& group_member,
                        const std::function<void(streamed_event&&)>& on_event);

}  // namespace roofline

#if ROOFLINE_BODIES_IO
#include <algorithm>           // std::push_heap, std::pop_heap, std::upper_bound, std::nth_element
#include <atomic>              // std::atomic
#include <cmath>               // std::isnan
#include <condition_variable>  // std::condition_variable
#include <deque>               // std::deque
#include <exception>           // std::exception_ptr
#include <mutex>               // std::mutex
#include <system_error>        // std::system_error
#include <thread>              // std::thread
#include <unordered_map>       // std::unordered_map
#include <unordered_set>       // std::unordered_set

#include "roofline/io/detail/chrome_trace_scan.hpp"

namespace roofline {
namespace io::detail {

/// A set of integers bounded in memory: exact up to `cap` members, then the smaller half is
/// dropped below a floor and every value at or under the floor counts as a member (a superset,
/// so that a check against it can only be too careful).
class floor_set {
public:
    explicit floor_set(std::size_t cap = std::size_t(1) << 20) : cap_(cap) {}
    void insert(std::int64_t v) {
        if (v <= floor_) return;
        set_.insert(v);
        if (set_.size() <= cap_) return;
        std::vector<std::int64_t> all(set_.begin(), set_.end());
        std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(all.size() / 2), all.end());
        floor_ = all[all.size() / 2];
        std::erase_if(set_, [&](std::int64_t x) { return x <= floor_; });
    }
    bool contains(std::int64_t v) const { return v <= floor_ || set_.count(v) > 0; }

private:
    std::size_t cap_;
    std::int64_t floor_ = std::numeric_limits<std::int64_t>::min();
    std::unordered_set<std::int64_t> set_;
};

/// Integers as at most `cap` closed ranges; past the cap, ranges merge across their smallest gaps
/// (a superset: a check against it can only be too careful).
class range_set {
public:
    explicit range_set(std::size_t cap = std::size_t(1) << 16) : cap_(cap) {}
    void insert(std::int64_t v) {
        if (last_ != ranges_.end() && v >= last_->first && v <= last_->second + 1) {  // the common case: next id
            if (v == last_->second + 1) {
                last_->second = v;
                const auto next = std::next(last_);
                if (next != ranges_.end() && next->first == v + 1) {
                    last_->second = next->second;
                    ranges_.erase(next);
                }
            }
            return;
        }
        auto it = ranges_.upper_bound(v);  // first range starting after v
        if (it != ranges_.begin()) {
            auto prev = std::prev(it);
            if (v <= prev->second) return (void)(last_ = prev);
            if (v == prev->second + 1) {
                prev->second = v;
                if (it != ranges_.end() && it->first == v + 1) prev->second = it->second, ranges_.erase(it);
                last_ = prev;
                return;
            }
        }
        if (it != ranges_.end() && it->first == v + 1) {
            const std::int64_t end = it->second;
            ranges_.erase(it);
            last_ = ranges_.emplace(v, end).first;
            return;
        }
        last_ = ranges_.emplace(v, v).first;
        if (ranges_.size() > cap_) coarsen();
    }
    bool contains(std::int64_t v) const {
        auto it = ranges_.upper_bound(v);
        if (it == ranges_.begin()) return false;
        return v <= std::prev(it)->second;
    }
    bool empty() const { return ranges_.empty(); }

private:
    // Merges every gap below the median gap: about halves the ranges.
    void coarsen() {
        std::vector<std::int64_t> gaps;
        for (auto it = ranges_.begin(), next = std::next(it); next != ranges_.end(); ++it, ++next)
            gaps.push_back(next->first - it->second);
        std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
        const std::int64_t limit = gaps[gaps.size() / 2];
        std::map<std::int64_t, std::int64_t> out;
        for (const auto& [a, b] : ranges_) {
            if (!out.empty() && a - out.rbegin()->second <= limit) out.rbegin()->second = b;
            else out.emplace(a, b);
        }
        ranges_ = std::move(out);
        last_ = ranges_.end();
    }
    std::size_t cap_;
    std::map<std::int64_t, std::int64_t> ranges_;  // start -> end (inclusive)
    std::map<std::int64_t, std::int64_t>::iterator last_ = ranges_.end();
};

/// Stops a cursor's scan from inside its event callback.
struct cursor_stop {};

/// A GPU-section event of the second pass: the parsed fields (strings kept in its batch's
/// arena) and its content offset.
struct raw_event {
    chrome_event_fields f;
    std::uint64_t offset = 0;
};

/// A CPU op of the second pass: what the op sweep needs (strings kept in its batch's arena).
struct raw_op {
    double ts = 0, dur = 0;  ///< content microseconds
    std::int64_t external_id = -1;
    std::string_view name, dims, types, strides, concrete;
    std::uint64_t offset = 0;
};

/// A reader of one part of a file on a thread of its own (see the file comment): scans events
/// from content offset `from` to the event at `last` (inclusive), parses those of the categories
/// `interesting` admits, turns those `make` accepts into `Record`s in batches, and queues a few
/// batches ahead of the consumer. `next` is called on the consumer's thread only.
template <class Record>
class event_cursor {
public:
    struct batch {
        std::vector<Record> events;
        string_arena strings{std::size_t(64) << 10};
    };
    /// Fills `out` from `e` (strings kept in `arena`); false to skip the event.
    using make_fn = bool (*)(const chrome_event& e, std::uint64_t offset, const void* context, string_arena& arena,
                             Record& out);

    event_cursor(std::string path, std::uint64_t from, std::uint64_t last, bool (*interesting)(std::string_view),
                 make_fn make, const void* context, std::size_t batch_events = 512, std::size_t max_batches = 3)
        : path_(std::move(path)), from_(from), last_(last), interesting_(interesting), make_(make), context_(context),
          batch_events_(batch_events), max_batches_(max_batches) {
        try {
            thread_ = std::thread([this] { run(); });
        } catch (const std::system_error& e) {  // a process or container thread limit
            throw error(path_ + ": could not start the thread that reads it: " + e.what());
        }
    }
    event_cursor(const event_cursor&) = delete;
    event_cursor& operator=(const event_cursor&) = delete;
    ~event_cursor() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            stopping_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    /// The next batch (null at the end). Rethrows the scanning thread's error.
    std::shared_ptr<batch> next() {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return !queue_.empty() || done_; });
        if (!queue_.empty()) {
            auto b = std::move(queue_.front());
            queue_.pop_front();
            cv_.notify_all();
            return b;
        }
        if (error_) std::rethrow_exception(error_);
        return nullptr;
    }

private:
    // The nlohmann fallback parser has no category filter (a template, so that the check is
    // made where the parser type is known: `if constexpr` outside one checks both branches).
    template <class Parser>
    static void set_filter(Parser& p, bool (*interesting)(std::string_view)) {
        if constexpr (requires { p.set_category_filter(interesting); }) p.set_category_filter(interesting);
    }

    void run() {
        try {
            input_file in(path_);
            chrome_trace_splitter splitter(in, std::size_t(256) << 10);
            default_event_parser parser;
            set_filter(parser, interesting_);
            chrome_event ev;
            std::string error;
            auto b = std::make_shared<batch>();
            b->events.reserve(batch_events_);
            const auto push = [&] {
                std::unique_lock<std::mutex> lk(mu_);
                cv_.wait(lk, [&] { return queue_.size() < max_batches_ || stopping_; });
                if (stopping_) throw cursor_stop{};
                queue_.push_back(std::move(b));
                cv_.notify_all();
                lk.unlock();
                b = std::make_shared<batch>();
                b->events.reserve(batch_events_);
            };
            try {
                splitter.run_events_at(from_, [&](std::string_view text, std::uint64_t offset, std::size_t index) {
                    if (offset > last_) throw cursor_stop{};
                    if (!parser.parse(text, ev, error))
                        throw parse_error(path_, in.place_at(offset), "", "event " + std::to_string(index) + ": " + error);
                    Record r;
                    if (!make_(ev, offset, context_, b->strings, r)) return;
                    b->events.push_back(r);
                    if (b->events.size() >= batch_events_) push();
                });
            } catch (const cursor_stop&) {
                if (stopping_) throw;
            }
            if (!b->events.empty()) push();
        } catch (const cursor_stop&) {
        } catch (...) {
            std::lock_guard<std::mutex> lk(mu_);
            error_ = std::current_exception();
        }
        std::lock_guard<std::mutex> lk(mu_);
        done_ = true;
        cv_.notify_all();
    }

    std::string path_;
    std::uint64_t from_, last_;
    bool (*interesting_)(std::string_view);
    make_fn make_;
    const void* context_;
    std::size_t batch_events_, max_batches_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<batch>> queue_;
    std::atomic<bool> stopping_{false};
    bool done_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

/// The events not yet released downstream, by (start, offset), with the stage holding each: what
/// the start-order buffer may not pass, and what it forces on when it holds too much.
class inflight_set {
public:
    enum class stage : std::uint8_t { join, launch_order, op_group };
    struct holder {
        stage where = stage::join;
        const void* what = nullptr;  ///< the thread state or op group holding it
    };
    using key = std::pair<double, std::uint64_t>;

    void insert(const key& k, holder h) { items_.emplace(k, h); }
    void erase(const key& k) { items_.erase(k); }
    bool empty() const { return items_.empty(); }
    const key& min() const { return items_.begin()->first; }
    const holder& min_holder() const { return items_.begin()->second; }

private:
    std::map<key, holder> items_;
};

inline inflight_set::key start_key(const streamed_event& e) { return {e.event.start_s, e.offset}; }

/// A launch call (cuda_runtime or cuda_driver event) as the join keeps it.
struct launch_call {
    std::int64_t correlation = -1;
    double ts_us = 0, dur_us = 0;  ///< content microseconds before the origin shift
    kineto_thread thread{0, 0};
    std::string_view api;          ///< interned
    bool runtime_api = false;      ///< cuda_runtime (preferred over the cuda_driver call it makes)
};

/// Joins GPU events to their launch calls by correlation id, as `read_kineto` does (the runtime
/// call over the driver call; of two of a kind, the first), within `window` GPU-section events
/// (see the file comment). Events come out once their match is final.
class launch_join {
public:
    launch_join(std::size_t window, double shift_s, inflight_set* inflight)
        : window_(window), shift_s_(shift_s), inflight_(inflight) {}

    template <class Out>
    void gpu(streamed_event&& e, Out&& out) {
        ++ticks_;
        const std::int64_t c = e.event.correlation;
        int rank = -1;
        if (c >= 0) {
            if (const auto it = recent_.find(c); it != recent_.end()) {
                apply(e, it->second);
                rank = it->second.runtime_api ? 1 : 0;
            } else if (evicted_.contains(c)) {
                throw kineto_layout_error("a GPU event (byte " + std::to_string(e.offset) + ", correlation " +
                                          std::to_string(c) + ") comes more than " + std::to_string(window_) +
                                          " launch calls after its own");
            }
        }
        if (c < 0 || rank == 1) {
            out(std::move(e));
        } else {
            const std::uint64_t seq = base_ + q_.size();
            if (inflight_) inflight_->insert(start_key(e), {inflight_set::stage::join, this});
            waiting_[c].push_back(seq);
            q_.push_back({std::move(e), rank, false, ticks_});
        }
        expire(out);
    }

    template <class Out>
    void call(const launch_call& l, Out&& out) {
        ++ticks_;
        const std::int64_t c = l.correlation;
        if (improvable_.contains(c))
            throw kineto_layout_error("the launch call of correlation id " + std::to_string(c) + " comes more than " +
                                      std::to_string(window_) + " GPU-section events after its GPU activity");
        const int rank = l.runtime_api ? 1 : 0;
        if (const auto w = waiting_.find(c); w != waiting_.end()) {
            for (const auto seq : w->second) {
                if (seq < base_) continue;  // released and gone
                auto& en = q_[static_cast<std::size_t>(seq - base_)];
                if (en.released || en.rank >= rank) continue;
                apply(en.ev, l);
                en.rank = rank;
                if (rank == 1) release(en, out);
            }
            if (rank == 1) waiting_.erase(w);
        }
        if (recent_.empty()) recent_.reserve(2 * window_);
        if (const auto it = recent_.find(c); it == recent_.end()) {
            recent_.emplace(c, l);
            recent_order_.push_back(c);
        } else if (!it->second.runtime_api && l.runtime_api) {
            it->second = l;
        }
        while (recent_order_.size() > window_) {
            const std::int64_t old = recent_order_.front();
            recent_order_.pop_front();
            recent_.erase(old);
            evicted_.insert(old);
        }
        expire(out);
    }

    /// Releases the held event at `offset` now, with the call it has (forced by the start order).
    template <class Out>
    void force(std::uint64_t offset, Out&& out) {
        for (auto& en : q_)
            if (!en.released && en.ev.offset == offset) {
                release(en, out);
                break;
            }
        pop_released();
    }

    template <class Out>
    void finish(Out&& out) {
        for (auto& en : q_)
            if (!en.released) release(en, out);
        q_.clear();
        waiting_.clear();
    }

private:
    struct entry {
        streamed_event ev;
        int rank = -1;  // -1 none, 0 a driver call, 1 a runtime call (final)
        bool released = false;
        std::uint64_t arrived = 0;  // `ticks_` when it came
    };

    void apply(streamed_event& e, const launch_call& l) const {
        e.event.launch_api = l.api;
        e.event.launch_s = l.ts_us * 1e-6;
        if (shift_s_ < 0) e.event.launch_s -= shift_s_;
        e.event.launch_duration_s = l.dur_us * 1e-6;
        e.launch_us = l.ts_us;
        e.launch_thread = l.thread;
    }

    template <class Out>
    void release(entry& en, Out&& out) {
        en.released = true;
        if (inflight_) inflight_->erase(start_key(en.ev));
        if (en.rank < 1 && en.ev.event.correlation >= 0) improvable_.insert(en.ev.event.correlation);
        out(std::move(en.ev));
    }

    void pop_released() {
        while (!q_.empty() && q_.front().released) {
            q_.pop_front();
            ++base_;
        }
    }

    template <class Out>
    void expire(Out&& out) {
        pop_released();
        while (!q_.empty() && q_.front().arrived + window_ < ticks_) {
            auto& en = q_.front();
            if (!en.released) {
                const std::int64_t c = en.ev.event.correlation;
                if (const auto w = waiting_.find(c); w != waiting_.end()) {
                    std::erase(w->second, base_);
                    if (w->second.empty()) waiting_.erase(w);
                }
                release(en, out);
            }
            q_.pop_front();
            ++base_;
            pop_released();
        }
    }

    std::size_t window_;
    double shift_s_;
    inflight_set* inflight_;
    std::deque<entry> q_;          // GPU events waiting, in arrival order
    std::uint64_t base_ = 0;       // sequence number of q_.front()
    std::uint64_t ticks_ = 0;      // GPU-section events seen (GPU events and calls)
    std::unordered_map<std::int64_t, std::vector<std::uint64_t>> waiting_;  // correlation -> sequence numbers
    std::unordered_map<std::int64_t, launch_call> recent_;  // the last `window_` calls, for later GPU events
    std::deque<std::int64_t> recent_order_;
    range_set evicted_;  // correlations of calls dropped from `recent_` (nearly contiguous ids: few ranges)
    floor_set improvable_{std::size_t(1) << 16};  // correlations of events released without a runtime call
};

/// Releases GPU events in start order (ties by offset), holding up to `window` and never passing
/// an event still held upstream (`inflight`).
class start_order_buffer {
public:
    explicit start_order_buffer(std::size_t window) : window_(window) {}

    void push(streamed_event&& e) {
        const auto k = start_key(e);
        if (released_any_ && k < last_)
            throw kineto_layout_error("a GPU event (byte " + std::to_string(e.offset) +
                                      ") starts before events already released, more than " +
                                      std::to_string(window_) + " events out of start order");
        heap_.push_back(std::move(e));
        std::push_heap(heap_.begin(), heap_.end(), later);
    }
    std::size_t size() const { return heap_.size(); }
    std::size_t window() const { return window_; }
    inflight_set::key min() const { return start_key(heap_.front()); }

    /// Releases while more than `window` are held and the earliest is not after `upstream`'s
    /// earliest (everything when `all`).
    template <class Out>
    void release(Out&& out, const inflight_set* upstream, bool all) {
        while (!heap_.empty() && (all || (heap_.size() > window_ && (!upstream || upstream->empty() ||
                                                                       !(upstream->min() < min()))))) {
            std::pop_heap(heap_.begin(), heap_.end(), later);
            last_ = start_key(heap_.back());
            released_any_ = true;
            out(std::move(heap_.back()));
            heap_.pop_back();
        }
    }

private:
    static bool later(const streamed_event& a, const streamed_event& b) { return start_key(b) < start_key(a); }
    std::size_t window_;
    std::vector<streamed_event> heap_;
    inflight_set::key last_{0, 0};
    bool released_any_ = false;
};

/// The step (ProfilerStep number) a launch at `launch_us` falls in, or -1: `read_kineto`'s rule,
/// on steps sorted by start, before the origin shift.
inline std::int32_t step_of_launch(const std::vector<profiler_step>& steps, double launch_us) {
    if (steps.empty() || std::isnan(launch_us)) return -1;
    const double ts = launch_us * 1e-6;
    auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](double x, const profiler_step& s) { return x < s.start_s; });
    if (it == steps.begin()) return -1;
    --it;
    return ts < it->start_s + it->duration_s ? static_cast<std::int32_t>(it->number) : -1;
}

/// Fields of a raw GPU-section event that pass `read_kineto`'s checks, made a `streamed_event`.
struct gpu_event_maker {
    kernel_name_table& names;
    string_pool& strings;
    double origin_us, shift_s;

    streamed_event make(const chrome_event_fields& f, gpu_activity activity, std::uint64_t offset) {
        streamed_event se;
        auto& ev = se.event;
        ev.name = names.name(f.name);
        chrome_event e;
        static_cast<chrome_event_fields&>(e) = f;
        fill_gpu_event(e, activity, ev);
        ev.phase = names.phase(ev.name, activity);
        ev.start_s = (f.ts - origin_us) * 1e-6;
        if (shift_s < 0) ev.start_s -= shift_s;
        if (!f.collective_name.empty()) se.collective = std::make_unique<const collective_info>(collective_of_event(e, strings));
        se.offset = offset;
        return se;
    }
};

}  // namespace io::detail

ROOFLINE_INLINE kineto_stream_header scan_kineto_stream(const std::string& path, const kineto_options& options,
                                                        const kineto_stream_windows& windows,
                                                        const std::function<void(streamed_event&&)>& on_event) {
    using namespace io::detail;
    kineto_stream_header h;
    auto& t = h.trace;
    t.file = path;
    t.format = "kineto";
    kernel_rules builtin;
    if (!options.rules) builtin = load_kernel_rules();
    const kernel_rules& rules = options.rules ? *options.rules : builtin;
    kineto_builder top(t, rules, false);  // device properties, distributedInfo, baseTimeNanoseconds
    kernel_name_table names(*t.strings, rules);
    summary_builder summary;
    std::unordered_map<const char*, std::size_t> name_slot;  // interned kernel name -> kernel_names index
    inflight_set inflight;
    launch_join join(windows.launch_join, 0.0, &inflight);
    start_order_buffer order(windows.start_order);
    bool origin_set = false;
    double max_launch_s = -std::numeric_limits<double>::infinity();  // of events released from the join
    range_set op_external_ids;
    std::unordered_set<std::int64_t> launchless_external_ids;
    bool too_many_launchless = false;
    std::size_t last_cat = 0;
    const auto deliver = [&](streamed_event&& e) {
        e.event.step = step_of_launch(h.steps_unshifted, e.launch_us);
        if (!std::isnan(e.launch_us)) {
            max_launch_s = std::max(max_launch_s, e.launch_us * 1e-6);
        } else if (e.event.external_id >= 0 && e.event.external_id != e.event.correlation) {
            if (launchless_external_ids.size() < (std::size_t(1) << 16)) launchless_external_ids.insert(e.event.external_id);
            else too_many_launchless = true;
        }
        order.push(std::move(e));
        order.release(on_event, &inflight, false);
    };
    const auto on_top = [&](std::string_view key, std::string_view json, std::uint64_t off) { top.top_level(key, json, off); };
    const auto handle = [&](const chrome_event& e, std::uint64_t offset, std::size_t) {
        auto& st = t.stats;
        ++st.events_read;
        if (!e.is_object) return st.skip("not_an_object");
        {  // events per category, as read_kineto counts them
            auto& v = t.events_by_category;
            if (!(last_cat < v.size() && v[last_cat].first == e.cat)) {
                last_cat = v.size();
                for (std::size_t i = 0; i < v.size(); ++i)
                    if (v[i].first == e.cat) last_cat = i;
                if (last_cat == v.size()) v.emplace_back(std::string(e.cat), 0);
            }
            ++v[last_cat].second;
        }
        gpu_activity activity = gpu_activity::kernel;
        const kineto_kind k = kineto_kind_of(e, activity);
        if (k == kineto_kind::ignore) return;
        if (const char* problem = kineto_time_problem(e)) return st.skip(problem);
        if (!origin_set) {
            origin_set = true;
            h.origin_us = e.ts;
        }
        const double start_us = e.ts - h.origin_us;
        if (start_us < h.min_start_us) h.min_start_us = start_us;
        switch (k) {
            case kineto_kind::gpu: {
                if (e.name.empty()) return st.skip("missing_name");
                ++st.events_kept;
                if (!h.gpu_section_offset) h.gpu_section_offset = offset;
                gpu_event_maker maker{names, *t.strings, h.origin_us, 0.0};
                streamed_event se = maker.make(e, activity, offset);
                summary.add(se.event.name, se.event.phase, activity, se.event.duration_s);
                h.gpu_time_by_device[se.event.device] += se.event.duration_s;
                if (activity == gpu_activity::kernel) {
                    const auto [it, fresh] = name_slot.emplace(se.event.name.data(), h.kernel_names.size());
                    if (fresh) h.kernel_names.emplace_back(se.event.name, 0);
                    ++h.kernel_names[it->second].second;
                }
                join.gpu(std::move(se), deliver);
                return;
            }
            case kineto_kind::runtime: {
                if (!h.gpu_section_offset) h.gpu_section_offset = offset;
                if (e.correlation < 0) return;
                launch_call l;
                l.correlation = e.correlation;
                l.ts_us = start_us;
                l.dur_us = e.dur;
                l.thread = kineto_thread_key(e);
                l.api = t.strings->intern(e.name);
                l.runtime_api = kineto_category(e.cat) == "cuda_runtime";
                join.call(l, deliver);
                return;
            }
            case kineto_kind::op: {
                const auto th = kineto_thread_key(e);
                auto [it, fresh] = h.op_offsets.emplace(th, std::make_pair(offset, offset));
                if (!fresh) it->second.second = offset;
                if (e.external_id >= 0) op_external_ids.insert(e.external_id);
                return;
            }
            case kineto_kind::annotation:
            case kineto_kind::gpu_annotation: {
                annotation a;
                a.name = t.strings->intern(e.name);
                a.start_s = start_us * 1e-6;
                a.duration_s = e.dur * 1e-6;
                a.gpu = k == kineto_kind::gpu_annotation;
                a.device = a.gpu && e.has_pid && e.pid_text.empty() ? static_cast<int>(e.pid) : -1;
                t.annotations.push_back(a);
                if (!a.gpu) {
                    if (const auto n = profiler_step_number(e.name); n >= 0) {
                        t.steps.push_back({n, a.start_s, a.duration_s});
                        // Launches are assigned to steps as they leave the join: one already
                        // past this step's start may have been assigned without it.
                        if (a.start_s <= max_launch_s && h.needs_whole_reader.empty())
                            h.needs_whole_reader = "a ProfilerStep range is written after launches it covers";
                        const profiler_step s{n, a.start_s, a.duration_s};
                        auto& v = h.steps_unshifted;
                        v.insert(std::upper_bound(v.begin(), v.end(), s,
                                                  [](const profiler_step& x, const profiler_step& y) {
                                                      return x.start_s < y.start_s;
                                                  }),
                                 s);
                    }
                }
                return;
            }
            case kineto_kind::ignore: return;
        }
    };
    scan_chrome_trace(path, on_top, handle, &kineto_used_category, options.parse_workers);
    join.finish(deliver);
    order.release(on_event, nullptr, true);

    // As read_kineto's `finish`: steps sorted by start, times moved to the earliest kept event.
    t.relative_timestamps = t.base_time_ns.has_value();
    std::sort(t.steps.begin(), t.steps.end(), [](const profiler_step& a, const profiler_step& b) { return a.start_s < b.start_s; });
    if (origin_set) t.time_origin_us = h.origin_us;
    if (origin_set && h.min_start_us < 0) {
        const double shift_s = h.min_start_us * 1e-6;
        t.time_origin_us += h.min_start_us;
        for (auto& a : t.annotations) a.start_s -= shift_s;
        for (auto& s : t.steps) s.start_s -= shift_s;
    }
    t.links.gpu_events = t.stats.events_kept;
    h.summary = summary.finish(t.file, t.format, t.stats);
    if (h.needs_whole_reader.empty()) {
        if (too_many_launchless && !op_external_ids.empty()) {
            h.needs_whole_reader = "more than 65,536 GPU events without a launch call name ops by External id";
        } else {
            for (const auto id : launchless_external_ids)
                if (op_external_ids.contains(id)) {
                    h.needs_whole_reader = "a GPU event without a launch call names an op by External id (" +
                                           std::to_string(id) + ")";
                    break;
                }
        }
    }
    return h;
}

namespace io::detail {

/// The categories each cursor of the second pass parses whole.
inline bool gpu_section_category(std::string_view c) {
    c = kineto_category(c);
    return key_is(c, "kernel") || key_is(c, "gpu_memcpy") || key_is(c, "gpu_memset") || key_is(c, "cuda_runtime") ||
           key_is(c, "cuda_driver");
}
inline bool op_category(std::string_view c) { return key_is(kineto_category(c), "cpu_op"); }

/// Keeps GPU activity and launch calls that pass `read_kineto`'s checks.
inline bool make_gpu_section_event(const chrome_event& e, std::uint64_t offset, const void*, string_arena& arena,
                                   raw_event& out) {
    if (!e.is_object) return false;
    gpu_activity a = gpu_activity::kernel;
    const kineto_kind k = kineto_kind_of(e, a);
    if (k != kineto_kind::gpu && k != kineto_kind::runtime) return false;
    if (kineto_time_problem(e)) return false;
    if (k == kineto_kind::gpu ? e.name.empty() : e.correlation < 0) return false;
    out.f = e;
    for (std::string_view* v : {&out.f.ph, &out.f.cat, &out.f.name, &out.f.pid_text, &out.f.tid_text,
                                &out.f.collective_name, &out.f.dtype, &out.f.pg_name, &out.f.pg_desc})
        *v = arena.keep(*v);
    out.f.meta_name = {};
    out.offset = offset;
    return true;
}

/// Keeps the ops of one thread (`context`: its `kineto_thread`) that pass the time checks.
inline bool make_thread_op(const chrome_event& e, std::uint64_t offset, const void* context, string_arena& arena,
                           raw_op& out) {
    if (!e.is_object) return false;
    gpu_activity a = gpu_activity::kernel;
    if (kineto_kind_of(e, a) != kineto_kind::op || kineto_time_problem(e)) return false;
    if (kineto_thread_key(e) != *static_cast<const kineto_thread*>(context)) return false;
    out.ts = e.ts;
    out.dur = e.dur;
    out.external_id = e.external_id;
    out.name = arena.keep(e.name);
    out.dims = arena.keep(e.input_dims);
    out.types = arena.keep(e.input_types);
    out.strides = arena.keep(e.input_strides);
    out.concrete = arena.keep(e.concrete_inputs);
    out.offset = offset;
    return true;
}

/// Links GPU events to their launching ops, thread by thread, and groups each op's kernels (see
/// the file comment). Events come out once their op's group is complete (or forced on).
class op_linker {
public:
    op_linker(const std::string& path, const kineto_stream_header& h, const kineto_stream_windows& w,
              const std::function<bool(const streamed_event&)>& member, inflight_set* inflight)
        : path_(path), h_(h), window_(w.launch_order), member_(member), inflight_(inflight),
          shift_s_(h.shift_s()) {}

    /// A GPU event released by the join.
    template <class Out>
    void add(streamed_event&& e, Out&& out) {
        if (std::isnan(e.launch_us)) return out(std::move(e));  // no launch call: no op
        thread_state& ts = thread(e.launch_thread);
        if (!ts.cursor && ts.ahead.empty() && ts.stack.empty() && ts.done) return out(std::move(e));  // a thread without ops
        const query q{e.launch_us, e.offset};
        if (ts.answered && q < ts.last)
            throw kineto_layout_error("a launch call (byte " + std::to_string(e.offset) + ") is earlier than " +
                                      std::to_string(window_) + " launches of its thread already answered");
        if (inflight_) inflight_->insert(start_key(e), {inflight_set::stage::launch_order, &ts});
        ts.heap.push_back({q, std::move(e)});
        std::push_heap(ts.heap.begin(), ts.heap.end(), later_query);
        while (ts.heap.size() > window_) answer_next(ts, out);
    }

    /// Answers the held launches of the thread `what` up to the event `k` (forced by the start order).
    template <class Out>
    void force_launches(const void* what, const inflight_set::key& k, Out&& out) {
        auto& ts = *static_cast<thread_state*>(const_cast<void*>(what));
        while (!ts.heap.empty()) {
            const bool target = start_key(ts.heap.front().e) == k;
            answer_next(ts, out);
            if (target) return;
        }
    }

    /// Gives out op group `what` now, its longest kernel marked among those it has.
    template <class Out>
    void force_group(const void* what, Out&& out) {
        auto* g = static_cast<op_group*>(const_cast<void*>(what));
        emit(*g, out);
    }

    template <class Out>
    void finish(Out&& out) {
        for (auto& [key, ts] : threads_) {
            while (!ts.heap.empty()) answer_next(ts, out);
            // The open ops' remaining children (their allocations), then the ops themselves.
            while (!ts.stack.empty()) {
                if (!ts.ahead.empty() || read_op(ts)) push_next_op(ts, out);
                else close_top(ts, out);
            }
        }
    }

private:
    struct query {
        double launch_us;
        std::uint64_t offset;
        bool operator<(const query& o) const { return launch_us != o.launch_us ? launch_us < o.launch_us : offset < o.offset; }
    };
    struct held {
        query q;
        streamed_event e;
    };
    static bool later_query(const held& a, const held& b) { return b.q < a.q; }

    struct op_group {
        std::shared_ptr<streamed_op> op;  // made when the group is given out
        std::vector<streamed_event> members;
        bool emitted = false;
        // the longest admitted kernel given out so far
        bool has_longest = false;
        double longest_dur = 0;
        inflight_set::key longest_key{0, 0};
        std::string_view longest_name;
    };
    struct op_entry {
        double start_us = 0, end_us = 0;
        std::int64_t external_id = -1;
        std::string_view name, dims, types, strides, concrete;  // into `pin`
        std::shared_ptr<event_cursor<raw_op>::batch> pin;
        std::string allocations;  // "[a,b" while open (the `aten::empty` children's sizes)
        std::unique_ptr<op_group> group;
    };
    struct thread_state {
        kineto_thread key{0, 0};
        std::unique_ptr<event_cursor<raw_op>> cursor;
        std::shared_ptr<event_cursor<raw_op>::batch> batch;
        std::size_t next = 0;  // in `batch`
        bool done = false;
        std::deque<op_entry> ahead;  // read, not yet pushed; sorted by (start, end descending)
        std::vector<op_entry> stack;
        double last_pushed_start = -std::numeric_limits<double>::infinity();
        std::vector<held> heap;
        query last{0, 0};
        bool answered = false;
    };

    thread_state& thread(const kineto_thread& key) {
        auto [it, fresh] = threads_.try_emplace(key);
        thread_state& ts = it->second;
        if (fresh) {
            ts.key = key;
            const auto r = h_.op_offsets.find(key);
            if (r == h_.op_offsets.end()) {
                ts.done = true;
            } else {
                ts.cursor = std::make_unique<event_cursor<raw_op>>(path_, r->second.first, r->second.second,
                                                                   &op_category, &make_thread_op, &ts.key);
            }
        }
        return ts;
    }

    // Reads the thread's next op into `ahead` (sorted); false at the end.
    bool read_op(thread_state& ts) {
        while (!ts.batch || ts.next >= ts.batch->events.size()) {
            if (ts.done) return false;
            ts.batch = ts.cursor->next();
            ts.next = 0;
            if (!ts.batch) {
                ts.done = true;
                ts.cursor.reset();
                return false;
            }
        }
        const raw_op& r = ts.batch->events[ts.next++];
        op_entry o;
        o.start_us = r.ts - h_.origin_us;
        o.end_us = o.start_us + r.dur;
        o.external_id = r.external_id;
        o.name = r.name;
        o.dims = r.dims;
        o.types = r.types;
        o.strides = r.strides;
        o.concrete = r.concrete;
        o.pin = ts.batch;
        if (o.start_us < ts.last_pushed_start)
            throw kineto_layout_error("the CPU ops of a thread are out of time order (byte " + std::to_string(r.offset) + ")");
        const auto at = std::upper_bound(ts.ahead.begin(), ts.ahead.end(), o, [](const op_entry& x, const op_entry& y) {
            return x.start_us != y.start_us ? x.start_us < y.start_us : x.end_us > y.end_us;
        });
        ts.ahead.insert(at, std::move(o));
        return true;
    }

    template <class Out>
    void answer_next(thread_state& ts, Out&& out) {
        std::pop_heap(ts.heap.begin(), ts.heap.end(), later_query);
        held h = std::move(ts.heap.back());
        ts.heap.pop_back();
        if (inflight_) inflight_->erase(start_key(h.e));
        ts.last = h.q;
        ts.answered = true;
        const double L = h.q.launch_us;
        // The sweep of read_kineto's `containment`, one launch at a time in time order.
        while (ts.ahead.empty() || ts.ahead.back().start_us <= L)
            if (!read_op(ts)) break;
        while (!ts.ahead.empty() && ts.ahead.front().start_us <= L) push_next_op(ts, out);
        while (!ts.stack.empty() && ts.stack.back().end_us <= L) close_top(ts, out);
        streamed_event& e = h.e;
        op_entry* op = nullptr;
        if (e.event.external_id >= 0 && e.event.external_id != e.event.correlation)
            for (auto it = ts.stack.rbegin(); it != ts.stack.rend(); ++it)
                if (it->external_id == e.event.external_id && it->start_us <= L && L < it->end_us) {
                    op = &*it;
                    e.link = launch_link::external_id;
                    break;
                }
        if (!op && !ts.stack.empty()) {
            op = &ts.stack.back();
            e.link = launch_link::containment;
        }
        if (!op) return out(std::move(e));
        if (!op->group) op->group = std::make_unique<op_group>();
        op_group& g = *op->group;
        if (!g.emitted) {
            if (inflight_) inflight_->insert(start_key(e), {inflight_set::stage::op_group, &g});
            g.members.push_back(std::move(e));
            return;
        }
        // A kernel joining a group already given out (forced on): it must not be the longest.
        if (member_(e)) {
            const bool longer = e.event.duration_s > g.longest_dur ||
                                (e.event.duration_s == g.longest_dur && start_key(e) < g.longest_key);
            if (g.has_longest && longer)
                throw kineto_layout_error("a kernel longer than the one marked for its op arrived after the op was "
                                          "forced on (byte " + std::to_string(e.offset) + ")");
            if (!g.has_longest) {
                throw kineto_layout_error("a kernel arrived for an op forced on without one (byte " +
                                          std::to_string(e.offset) + ")");
            }
            e.op_longest_name = g.longest_name;
        }
        e.op = g.op;
        out(std::move(e));
    }

    // Pushes the first op of `ahead`, closing the ops it follows and giving its sizes to its
    // parent when it is an `aten::empty` that recorded them (read_kineto's allocations sweep).
    template <class Out>
    void push_next_op(thread_state& ts, Out&& out) {
        op_entry o = std::move(ts.ahead.front());
        ts.ahead.pop_front();
        while (!ts.stack.empty() && ts.stack.back().end_us <= o.start_us) close_top(ts, out);
        if (o.name == "aten::empty" && !o.concrete.empty() && !ts.stack.empty()) {
            auto& parent = ts.stack.back();
            if (parent.group && parent.group->emitted)
                throw kineto_layout_error("an op forced on before its end allocated more afterwards");
            parent.allocations += parent.allocations.empty() ? '[' : ',';
            parent.allocations += o.concrete;
        }
        ts.last_pushed_start = o.start_us;
        ts.stack.push_back(std::move(o));
    }

    template <class Out>
    void close_top(thread_state& ts, Out&& out) {
        op_entry& o = ts.stack.back();
        if (o.group && !o.group->emitted) {
            make_op(o);
            emit(*o.group, out);
        }
        ts.stack.pop_back();
    }

    void make_op(op_entry& o) {
        auto op = std::make_shared<streamed_op>();
        std::string& s = op->text;
        const std::string alloc = o.allocations.empty() ? std::string() : o.allocations + ']';  // as closed
        s.reserve(o.name.size() + o.dims.size() + o.types.size() + o.strides.size() + o.concrete.size() + alloc.size());
        std::size_t at[6];
        std::size_t k = 0;
        for (std::string_view part : {o.name, o.dims, o.types, o.strides, o.concrete, std::string_view(alloc)}) {
            at[k++] = s.size();
            s += part;
        }
        const auto view = [&](int i, std::size_t n) { return std::string_view(s.data() + at[i], n); };
        op->op.name = view(0, o.name.size());
        op->op.input_dims = view(1, o.dims.size());
        op->op.input_types = view(2, o.types.size());
        op->op.input_strides = view(3, o.strides.size());
        op->op.concrete_inputs = view(4, o.concrete.size());
        op->op.allocations = view(5, alloc.size());
        op->op.external_id = o.external_id;
        op->op.start_s = o.start_us * 1e-6;
        if (shift_s_ < 0) op->op.start_s -= shift_s_;
        op->op.duration_s = (o.end_us - o.start_us) * 1e-6;
        o.group->op = std::move(op);
    }

    // Marks the longest admitted kernel (ties: the earliest) and gives the group's kernels out.
    template <class Out>
    void emit(op_group& g, Out&& out) {
        if (!g.op) {  // forced on while open: find its entry to make the op from what it has
            for (auto& [key, ts] : threads_)
                for (auto& o : ts.stack)
                    if (o.group.get() == &g) make_op(o);
        }
        g.emitted = true;
        streamed_event* longest = nullptr;
        for (auto& m : g.members) {
            if (inflight_) inflight_->erase(start_key(m));
            if (!member_(m)) continue;
            if (!longest || m.event.duration_s > longest->event.duration_s ||
                (m.event.duration_s == longest->event.duration_s && start_key(m) < start_key(*longest)))
                longest = &m;
        }
        if (longest) {
            longest->op_longest = true;
            g.has_longest = true;
            g.longest_dur = longest->event.duration_s;
            g.longest_key = start_key(*longest);
            g.longest_name = longest->event.name;
            for (auto& m : g.members)
                if (member_(m)) m.op_longest_name = g.longest_name;
        }
        for (auto& m : g.members) {
            m.op = g.op;
            out(std::move(m));
        }
        g.members.clear();
    }

    const std::string& path_;
    const kineto_stream_header& h_;
    std::size_t window_;
    const std::function<bool(const streamed_event&)>& member_;
    inflight_set* inflight_;
    double shift_s_;
    std::map<kineto_thread, thread_state> threads_;
};

}  // namespace io::detail

ROOFLINE_INLINE void link_kineto_stream(const std::string& path, const kineto_stream_header& h,
                                        const kineto_options& options, int device,
                                        const kineto_stream_windows& windows, string_pool& strings,
                                        const std::function<bool(const streamed_event&)>& group_member,
                                        const std::function<void(streamed_event&&)>& on_event) {
    using namespace io::detail;
    if (!h.gpu_section_offset) return;
    kernel_rules builtin;
    if (!options.rules) builtin = load_kernel_rules();
    const kernel_rules& rules = options.rules ? *options.rules : builtin;
    kernel_name_table names(strings, rules);
    gpu_event_maker maker{names, strings, h.origin_us, h.shift_s()};
    inflight_set inflight;
    launch_join join(windows.launch_join, h.shift_s(), &inflight);
    op_linker linker(path, h, windows, group_member, &inflight);
    start_order_buffer order(windows.start_order);
    const std::size_t cap = 4 * windows.start_order;
    std::function<void(streamed_event&&)> to_order;  // the linker's output
    const auto release = [&](bool all) {
        order.release(on_event, &inflight, all);
        // Too many held for an event still upstream: force the earliest one on.
        while (!all && order.size() > cap && !inflight.empty() && inflight.min() < order.min()) {
            const auto k = inflight.min();
            const auto hd = inflight.min_holder();
            switch (hd.where) {
                case inflight_set::stage::join: join.force(k.second, [&](streamed_event&& e) { linker.add(std::move(e), to_order); }); break;
                case inflight_set::stage::launch_order: linker.force_launches(hd.what, k, to_order); break;
                case inflight_set::stage::op_group: linker.force_group(hd.what, to_order); break;
            }
            order.release(on_event, &inflight, false);
        }
    };
    to_order = [&](streamed_event&& e) {
        e.event.step = step_of_launch(h.steps_unshifted, e.launch_us);
        order.push(std::move(e));
    };
    const auto to_linker = [&](streamed_event&& e) { linker.add(std::move(e), to_order); };
    event_cursor<raw_event> gpu(path, *h.gpu_section_offset, std::numeric_limits<std::uint64_t>::max(),
                                &gpu_section_category, &make_gpu_section_event, nullptr);
    while (auto b = gpu.next()) {
        for (const raw_event& r : b->events) {
            gpu_activity activity = gpu_activity::kernel;
            chrome_event e;
            static_cast<chrome_event_fields&>(e) = r.f;
            const kineto_kind k = kineto_kind_of(e, activity);
            if (k == kineto_kind::gpu) {
                const int d = e.device >= 0 ? static_cast<int>(e.device)
                              : e.has_pid && e.pid_text.empty() ? static_cast<int>(e.pid)
                                                                : -1;
                if (device >= 0 && d != device) continue;
                join.gpu(maker.make(r.f, activity, r.offset), to_linker);
            } else {
                launch_call l;
                l.correlation = e.correlation;
                l.ts_us = e.ts - h.origin_us;
                l.dur_us = e.dur;
                l.thread = kineto_thread_key(e);
                l.api = strings.intern(e.name);
                l.runtime_api = kineto_category(e.cat) == "cuda_runtime";
                join.call(l, to_linker);
            }
            release(false);
        }
    }
    join.finish(to_linker);
    linker.finish(to_order);
    release(true);
}

}  // namespace roofline
#endif  // ROOFLINE_BODIES_IO
