// Tests of analysis/power_alignment.hpp: a synthetic log in a known zone and with a known delay
// is put back on the trace's clock; a bad alignment is flagged; short windows borrow the nearest
// busy period.
#include "roofline/analysis/power_alignment.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <vector>

#include "roofline/io/nvidia_smi.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {
// A log sampled every 0.1 s from `log_start` for `seconds`, busy (util 90%, 500 W, 1500 of
// 1980 MHz, cap active) during [busy_from, busy_to), idle (0%, 80 W) otherwise. Busy bounds sit
// between samples, so that rounding of the Unix-time clock cannot move a sample across them.
std::vector<power_sample> synthetic_log(double log_start, double seconds, double busy_from,
                                        double busy_to) {
    std::vector<power_sample> v;
    for (int k = 0; k * 0.1 < seconds; ++k) {
        power_sample s;
        s.wall_time_s = log_start + 0.1 * k;
        const bool busy = s.wall_time_s >= busy_from && s.wall_time_s < busy_to;
        s.utilization_gpu = busy ? 0.9 : 0.0;
        s.power_draw_w = busy ? 500.0 : 80.0;
        s.power_limit_w = 700.0;
        s.sm_clock_hz = busy ? 1500e6 : 1980e6;
        s.max_sm_clock_hz = 1980e6;
        s.clocks_event_reasons = busy ? 0x4u : 0x0u;
        v.push_back(s);
    }
    return v;
}
constexpr double epoch = 1'790'000'000.0;  // the trace's origin, Unix seconds (UTC)
constexpr double zone = 7200.0;            // the log's local time is UTC+02:00
}  // namespace

TEST_CASE("a log in UTC+02:00 is aligned by the zone, and the activity onset checks it") {
    // Kernels from trace time 0.5 s to 3.5 s; the log shows the GPU busy from 0.6 s (one
    // sample period late, as nvidia-smi's trailing averages are) to 3.6 s, in local time.
    const auto log =
        synthetic_log(epoch + zone - 10.0, 20.0, epoch + zone + 0.55, epoch + zone + 3.55);
    const auto a = align_power(log, epoch, 0.5, 3.5);
    CHECK(a.ok);
    CHECK(a.offset_s == approx(zone));
    CHECK(a.method == "timestamps (log in UTC+02:00)");
    REQUIRE(a.onset_skew_s);
    CHECK(*a.onset_skew_s == approx(0.1).epsilon(0.5));  // within a sample period
    CHECK(a.warnings.empty());
    // The window (3 s) is long enough for its own samples: ~30 busy ones.
    const auto sel = select_power_samples(log, a, 0.5, 3.5);
    CHECK(sel.source == "trace window");
    CHECK(sel.samples.size() >= 29);
    CHECK(sel.samples.size() <= 31);
}

TEST_CASE("a trace without a Unix clock is aligned by activity onset") {
    // Same log; the trace's clock is arbitrary. The onset (first of three busy samples) at
    // log time L0 + 10.6 s is the first kernel at trace time 0.5 s: origin = L0 + 10.1 s.
    const double L0 = epoch + zone - 10.0;
    const auto log = synthetic_log(L0, 20.0, L0 + 10.55, L0 + 13.55);
    const auto a = align_power(log, std::numeric_limits<double>::quiet_NaN(), 0.5, 3.5);
    CHECK(a.ok);
    CHECK(a.method == "activity onset");
    CHECK(a.basis == "log start");
    CHECK(a.offset_s == approx(10.1).epsilon(1e-6));
    CHECK(a.origin_log_s == approx(L0 + 10.1));
    CHECK_FALSE(a.warnings.empty());  // says the onset was assumed
}

TEST_CASE("--power-offset is used as given, and a window on an idle log is a bad alignment") {
    const auto log =
        synthetic_log(epoch + zone - 10.0, 20.0, epoch + zone + 0.55, epoch + zone + 3.55);
    const auto good = align_power(log, epoch, 0.5, 3.5, zone);
    CHECK(good.method == "--power-offset");
    CHECK(good.warnings.empty());
    // Five seconds off: the 3-s window falls on idle samples while the trace says busy.
    const auto bad = align_power(log, epoch, 0.5, 3.5, zone + 5.0, 1.0);
    REQUIRE(bad.warnings.size() == 1);
    CHECK(bad.warnings[0].find("bad alignment") != std::string::npos);
    // A trace a day away from the log fits no zone.
    const auto outside = align_power(log, epoch + 86400.0 * 3, 0.5, 3.5);
    CHECK_FALSE(outside.ok);
    CHECK(outside.warnings[0].find("outside the power log") != std::string::npos);
}

TEST_CASE("a window shorter than the 1-s power average takes a busy period within 3 sample periods") {
    // Busy 20 s, then a 0.2-s traced window 0.25 s after the period's last sample: near (the
    // window + 3 periods = 0.5 s), the period is taken to run the traced work.
    const double L0 = epoch - 30.0;
    const auto log = synthetic_log(L0, 40.0, L0 + 4.95, L0 + 24.95);
    const double x0 = (L0 + 24.9 + 0.25) - epoch, x1 = x0 + 0.2;
    const auto a = align_power(log, epoch, x0, x1);
    REQUIRE(a.ok);
    const auto sel = select_power_samples(log, a, x0, x1);
    CHECK(sel.source == "busy period");
    CHECK(sel.busy_gap_s == approx(0.25).epsilon(0.01));
    CHECK(sel.near_s == approx(0.5).epsilon(0.01));
    CHECK_FALSE(sel.assumed);
    CHECK_FALSE(sel.refused);
    // 200 busy samples minus the first second (10): 190 (one either way for the float clock).
    CHECK(sel.samples.size() >= 189);
    CHECK(sel.samples.size() <= 191);
    CHECK(sel.note.find("before the window") != std::string::npos);
}

TEST_CASE("a far busy period is refused when the log shows the GPU idle next to the window") {
    // The reviewer's case in small: a capped busy period (500 W, 1500 of 1980 MHz, cap active)
    // ends 3 s before a 6-ms window; the log shows the GPU idle (80 W, full clock, no cap) around
    // the window. The window's own sample is the evidence, not the other workload's period.
    const double L0 = epoch - 30.0;
    const auto log = synthetic_log(L0, 40.0, L0 + 4.95, L0 + 24.95);
    const double x0 = (L0 + 28.02) - epoch, x1 = x0 + 0.006;
    const auto a = align_power(log, epoch, x0, x1);
    REQUIRE(a.ok);
    const auto sel = select_power_samples(log, a, x0, x1);
    CHECK(sel.refused);
    CHECK_FALSE(sel.assumed);
    CHECK(sel.aligned);
    CHECK(sel.source == "trace window");
    CHECK(sel.busy_gap_s == approx(3.12).epsilon(0.01));
    CHECK(sel.near_s == approx(0.306).epsilon(0.01));
    REQUIRE(sel.samples.size() == 1);  // the sample whose trailing 0.1 s covers the window
    CHECK(sel.samples[0].power_draw_w == 80.0);
    CHECK(sel.samples[0].sm_clock_hz == 1980e6);
    CHECK(*sel.samples[0].clocks_event_reasons == 0u);
    CHECK(sel.note.find("is not used") != std::string::npos);
    CHECK(sel.note.find("3.1 s before the window") != std::string::npos);
}

TEST_CASE("a far busy period is used, as an assumption, when the log next to the window shows its state") {
    // Same period; after the window the log shows the GPU busy again, capped at 1500 MHz, for
    // three samples (too few to be a busy period of its own): the traced steps, reported late.
    const double L0 = epoch - 30.0;
    auto log = synthetic_log(L0, 40.0, L0 + 4.95, L0 + 24.95);
    for (auto& s : log)
        if (s.wall_time_s > L0 + 28.05 && s.wall_time_s < L0 + 28.35) {
            s.utilization_gpu = 0.9, s.power_draw_w = 200.0, s.sm_clock_hz = 1520e6;
            s.clocks_event_reasons = 0x4u;
        }
    const double x0 = (L0 + 28.02) - epoch, x1 = x0 + 0.006;
    const auto a = align_power(log, epoch, x0, x1);
    REQUIRE(a.ok);
    const auto sel = select_power_samples(log, a, x0, x1);
    CHECK(sel.source == "busy period");
    CHECK(sel.assumed);
    CHECK_FALSE(sel.refused);
    CHECK(sel.samples.size() >= 189);
    CHECK(sel.note.find("assumed to run the traced work") != std::string::npos);
    // The same log next to the window at full clock without the cap: another state, refused.
    for (auto& s : log)
        if (s.wall_time_s > L0 + 28.05 && s.wall_time_s < L0 + 28.35) s.sm_clock_hz = 1980e6, s.clocks_event_reasons = 0x0u;
    const auto other = select_power_samples(log, a, x0, x1);
    CHECK(other.refused);
    CHECK(other.source == "trace window");
    CHECK(other.note.find("another state") != std::string::npos);
}

TEST_CASE("a far busy period refused with no sample near the window leaves nothing aligned") {
    // A 2-s gap in the log around the window (nvidia-smi stalled): no sample within a period.
    const double L0 = epoch - 30.0;
    auto log = synthetic_log(L0, 40.0, L0 + 4.95, L0 + 24.95);
    std::erase_if(log, [&](const power_sample& s) { return s.wall_time_s > L0 + 27.0 && s.wall_time_s < L0 + 29.0; });
    const double x0 = (L0 + 28.02) - epoch, x1 = x0 + 0.006;
    const auto a = align_power(log, epoch, x0, x1);
    REQUIRE(a.ok);
    const auto sel = select_power_samples(log, a, x0, x1);
    CHECK(sel.refused);
    CHECK_FALSE(sel.aligned);
    CHECK(sel.samples.empty());
    CHECK(sel.source.empty());
    CHECK(sel.note.find("not aligned") != std::string::npos);
}

TEST_CASE(
    "the gemm_power recording aligns at UTC with its activity onset 0.2 s after the first kernel") {
    const auto path = test::repo_data("samples/h200/gemm_power/nvidia_smi.csv.gz");
    if (!test::have_sample(path)) return;
    const auto log = read_nvidia_smi_csv(path.string());
    const auto s = log.samples_of(0);
    // The trace's first kernel: baseTimeNanoseconds 1790857026 s + ts 5154889.271201 s.
    const double first = 1790857026.0 + 5154889.271201;
    const auto a = align_power(s, first, 0.0, 0.185);
    CHECK(a.ok);
    CHECK(a.offset_s == 0.0);  // the machine's local time is UTC
    REQUIRE(a.onset_skew_s);
    CHECK(*a.onset_skew_s == approx(0.207).epsilon(0.05));  // 04:11:55.478 - 55.271
    const auto sel = select_power_samples(s, a, 0.0, 0.185);
    // Its busy period ends 3.3 s before the window (the profiler starting): far, but the log shows
    // the traced GEMMs 0.2-0.4 s after the first kernel, capped at ~75% clock as in the period.
    CHECK(sel.source == "busy period");
    CHECK(sel.assumed);
    CHECK(sel.busy_gap_s == approx(3.29).epsilon(0.01));
    CHECK(sel.samples.size() == 199);
}
