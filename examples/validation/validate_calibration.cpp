// Validation of `roofline kernel` against measured kernel times, before and after calibration.
//
//   validate_calibration SWEEP.json --calibration FILE.json [--gpu h200-sxm] [--folds 5] [--misses N]
//                        [--no-floor]
//
// SWEEP: a `roofline.kernels/1` sweep (examples/measure/kernel_sweep.py) or the validation sweep
// (examples/validation/h200_kernel_sweep.py). For every modeled record (GEMM bf16/fp8, grouped
// GEMM, SDPA prefill and decode, copy) it prints the median and p90 absolute relative error per
// op family of:
//   datasheet      `roofline kernel` without calibration: datasheet ceilings x the published
//                  efficiencies of models/kernel_time.hpp, plus the launch floor;
//   calibrated     the overlay's curves at each record's measured SM clock (in sample when the
//                  overlay was fitted on this sweep);
//   power clock    the same curves at the clock the calibrated power model predicts under the
//                  power limit (what `roofline kernel --calibration` does without --sm-clock-mhz);
//   held out       curves refitted on this sweep by k-fold cross-validation (folds interleaved in
//                  order of measured time), each record predicted by a fit that never saw it.
// Then the N largest held-out misses. A markdown table, for the README. --no-floor drops the
// curves' per-call floors (the host issue time of the sweep that was fitted) to compare device
// times with a sweep run by another harness.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/analysis/calibration.hpp"

namespace {

std::string pct(double v) {
    if (!std::isfinite(v)) return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * v);
    return b;
}

int usage() {
    std::fprintf(stderr,
                 "usage: validate_calibration SWEEP.json --calibration FILE.json [--gpu ID] [--folds N] [--misses N] "
                 "[--no-floor]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace roofline;
    std::string sweep_path, cal_path, gpu = "h200-sxm";
    int folds = 5, misses = 10;
    bool no_floor = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--calibration") cal_path = next();
        else if (a == "--gpu") gpu = next();
        else if (a == "--folds") folds = std::atoi(next().c_str());
        else if (a == "--misses") misses = std::atoi(next().c_str());
        else if (a == "--no-floor") no_floor = true;
        else if (!a.empty() && a[0] != '-' && sweep_path.empty()) sweep_path = a;
        else return usage();
    }
    if (sweep_path.empty() || cal_path.empty()) return usage();
    try {
        const auto g = gpu_catalog::builtin().at(gpu);
        const auto sweep = read_kernel_sweep(sweep_path);
        auto cal = read_calibration(cal_path);
        if (no_floor)
            for (auto& c : cal.curves) c.floor_s = 0;  // device time only: the per-call floor belongs to the harness
        const auto rep = validate_calibration(sweep, g, cal, folds);
        std::printf("%s (%s, %zu records, %s-timed) against %s on %s\n\n", sweep_path.c_str(), sweep.format.c_str(),
                    sweep.records.size(), sweep.timing_basis.c_str(), cal_path.c_str(), g.id.c_str());
        std::printf("| op family | n | datasheet median | datasheet p90 | calibrated median | calibrated p90 | "
                    "power-clock median | power-clock p90 | held-out median | held-out p90 |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const auto& r : rep.rows)
            std::printf("| %s | %zu | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.family.c_str(), r.n,
                        pct(r.datasheet.median).c_str(), pct(r.datasheet.p90).c_str(), pct(r.calibrated.median).c_str(),
                        pct(r.calibrated.p90).c_str(), pct(r.calibrated_power_clock.median).c_str(),
                        pct(r.calibrated_power_clock.p90).c_str(), pct(r.cross_validated.median).c_str(),
                        pct(r.cross_validated.p90).c_str());
        auto pts = rep.points;
        std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
            const auto err = [](const validation_point& p) {
                return std::isfinite(p.cross_validated_s) ? std::abs(p.cross_validated_s / p.measured_s - 1) : 0.0;
            };
            return err(a) > err(b);
        });
        if (misses > 0 && !pts.empty() && !std::isfinite(pts.front().cross_validated_s)) {
            // No held-out fits: the largest misses of the calibrated prediction.
            std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
                return std::abs(a.calibrated_s / a.measured_s - 1) > std::abs(b.calibrated_s / b.measured_s - 1);
            });
            std::printf("\nlargest calibrated misses (us):\n\n| kernel | measured | datasheet | calibrated |\n|---|---:|---:|---:|\n");
            for (int i = 0; i < misses && i < static_cast<int>(pts.size()); ++i) {
                const auto& p = pts[static_cast<std::size_t>(i)];
                std::printf("| %s | %.1f | %.1f (%+.0f%%) | %.1f (%+.0f%%) |\n", p.label.c_str(), p.measured_s * 1e6,
                            p.datasheet_s * 1e6, 100 * (p.datasheet_s / p.measured_s - 1), p.calibrated_s * 1e6,
                            100 * (p.calibrated_s / p.measured_s - 1));
            }
        }
        if (misses > 0 && !pts.empty() && std::isfinite(pts.front().cross_validated_s)) {
            std::printf("\nlargest held-out misses (us):\n\n| kernel | measured | datasheet | calibrated | held out |\n"
                        "|---|---:|---:|---:|---:|\n");
            for (int i = 0; i < misses && i < static_cast<int>(pts.size()); ++i) {
                const auto& p = pts[static_cast<std::size_t>(i)];
                std::printf("| %s | %.1f | %.1f | %.1f | %.1f (%+.0f%%) |\n", p.label.c_str(), p.measured_s * 1e6,
                            p.datasheet_s * 1e6, p.calibrated_s * 1e6, p.cross_validated_s * 1e6,
                            100 * (p.cross_validated_s / p.measured_s - 1));
            }
        }
    } catch (const roofline::error& e) {
        std::fprintf(stderr, "validate_calibration: error: %s\n", e.what());
        return 2;
    }
    return 0;
}
