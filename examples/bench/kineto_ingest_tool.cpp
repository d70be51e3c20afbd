// One Kineto ingest per process, for peak-memory measurements (getrusage ru_maxrss), and the
// synthetic trace generator. Used by compare_python.py.
//   kineto_ingest_tool generate PATH MB       write a synthetic trace of at least MB x 10^6 bytes
//   kineto_ingest_tool VARIANT PATH           VARIANT: summarize | read | scan-nlohmann | scan-simdjson,
//                                             each also as VARIANT-serial (parsed on the reading thread only)
// Prints one line: variant, seconds (wall and CPU), MB/s, peak RSS (MB), events or kernels.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "kineto_trace_gen.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"

namespace {
double cpu_seconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}
double peak_rss_mb() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s generate PATH MB | summarize|read|scan-nlohmann|scan-simdjson PATH\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    const std::string path = argv[2];
    const std::string variant = mode;
    int workers = -1;  // parse threads: the library's default
    if (mode.size() > 7 && mode.compare(mode.size() - 7, 7, "-serial") == 0) {
        workers = 0;
        mode.resize(mode.size() - 7);
    }
    try {
        if (mode == "generate") {
            const double mb = argc > 3 ? std::atof(argv[3]) : 128.0;
            const auto n = roofline::bench::write_synthetic_kineto_trace(path, static_cast<std::uint64_t>(mb * 1e6));
            std::printf("generated %s: %.1f MB, %llu kernels\n", path.c_str(),
                        static_cast<double>(std::filesystem::file_size(path)) / 1e6, static_cast<unsigned long long>(n));
            return 0;
        }
        const auto rules = roofline::load_kernel_rules();
        const double bytes = static_cast<double>(std::filesystem::file_size(path));
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_seconds();
        double count = 0;
        if (mode == "summarize") {
            count = roofline::summarize_kineto(path, rules, workers).kernel_count;
        } else if (mode == "read") {
            roofline::kineto_options o;
            o.rules = &rules;
            o.parse_workers = workers;
            count = static_cast<double>(roofline::read_kineto(path, o).events.size());
        } else if (mode == "scan-nlohmann") {
            roofline::io::detail::scan_chrome_trace<roofline::io::detail::nlohmann_event_parser>(
                path, [](std::string_view, std::string_view, std::uint64_t) {},
                [&](const roofline::io::detail::chrome_event&, std::uint64_t, std::size_t) { ++count; }, nullptr, workers);
#ifdef ROOFLINE_HAVE_SIMDJSON
        } else if (mode == "scan-simdjson") {
            roofline::io::detail::scan_chrome_trace<roofline::io::detail::simdjson_event_parser>(
                path, [](std::string_view, std::string_view, std::uint64_t) {},
                [&](const roofline::io::detail::chrome_event&, std::uint64_t, std::size_t) { ++count; }, nullptr, workers);
#endif
        } else {
            std::fprintf(stderr, "unknown variant %s\n", variant.c_str());
            return 2;
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = cpu_seconds() - c0;
        std::printf("%s wall_s=%.3f cpu_s=%.3f mb_per_s=%.1f cpu_mb_per_s=%.1f peak_rss_mb=%.1f count=%.0f file_mb=%.1f\n",
                    variant.c_str(), wall, cpu, bytes / wall / 1e6, bytes / cpu / 1e6, peak_rss_mb(), count, bytes / 1e6);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
    return 0;
}
