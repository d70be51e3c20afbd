// Kineto trace ingest throughput (Google Benchmark). Not a test: numbers for the README.
//
// The trace is generated once (ROOFLINE_BENCH_TRACE names an existing file instead;
// ROOFLINE_BENCH_MB sets the generated size, default 128 MB) and read by each variant:
//   splitter            top-level scan only (the floor of every variant below)
//   nlohmann_sax        nlohmann's SAX parser over the whole file with a handler that does nothing
//   scan_nlohmann       splitter + nlohmann DOM per event (the portable path)
//   scan_simdjson       splitter + simdjson On-Demand per event (the fast path)
//   summarize_kineto    what `roofline trace` runs: scan + phase classification + per-name totals
//   read_kineto         full read: every GPU event kept, launches linked to ops
// Peak memory is per process: run `kineto_ingest_tool` (one variant per process) for it, or
// examples/bench/compare_python.py for the whole table with Python's json.load alongside.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "kineto_trace_gen.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"

namespace {

const std::string& trace_path() {
    static const std::string path = [] {
        if (const char* p = std::getenv("ROOFLINE_BENCH_TRACE"); p && *p) return std::string(p);
        const char* mb = std::getenv("ROOFLINE_BENCH_MB");
        const std::uint64_t bytes = static_cast<std::uint64_t>(mb ? std::atof(mb) : 128.0) * 1000000ull;
        const auto p = (std::filesystem::temp_directory_path() / "roofline_bench_kineto.json").string();
        if (!std::filesystem::exists(p) || std::filesystem::file_size(p) < bytes)
            roofline::bench::write_synthetic_kineto_trace(p, bytes);
        return p;
    }();
    return path;
}

std::int64_t file_bytes() { return static_cast<std::int64_t>(std::filesystem::file_size(trace_path())); }

const roofline::kernel_rules& rules() {
    static const roofline::kernel_rules r = roofline::load_kernel_rules();
    return r;
}

void splitter(benchmark::State& state) {
    for (auto _ : state) {
        roofline::io::input_file in(trace_path());
        roofline::io::detail::chrome_trace_splitter s(in);
        std::size_t n = 0;
        s.run([](std::string_view, std::string_view, std::uint64_t) {},
              [&](std::string_view, std::uint64_t, std::size_t) { ++n; });
        benchmark::DoNotOptimize(n);
    }
    state.SetBytesProcessed(state.iterations() * file_bytes());
}
BENCHMARK(splitter)->Unit(benchmark::kMillisecond)->UseRealTime();

struct null_sax : nlohmann::json_sax<nlohmann::json> {
    std::size_t objects = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { ++objects; return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

void nlohmann_sax(benchmark::State& state) {
    for (auto _ : state) {
        std::ifstream is(trace_path(), std::ios::binary);
        null_sax sax;
        nlohmann::json::sax_parse(is, &sax);
        benchmark::DoNotOptimize(sax.objects);
    }
    state.SetBytesProcessed(state.iterations() * file_bytes());
}
BENCHMARK(nlohmann_sax)->Unit(benchmark::kMillisecond)->UseRealTime();

template <class Parser>
void scan(benchmark::State& state) {
    for (auto _ : state) {
        std::size_t kernels = 0;
        roofline::io::detail::scan_chrome_trace<Parser>(
            trace_path(), [](std::string_view, std::string_view, std::uint64_t) {},
            [&](const roofline::io::detail::chrome_event& e, std::uint64_t, std::size_t) { kernels += e.cat == "kernel"; });
        benchmark::DoNotOptimize(kernels);
    }
    state.SetBytesProcessed(state.iterations() * file_bytes());
}
BENCHMARK_TEMPLATE(scan, roofline::io::detail::nlohmann_event_parser)->Name("scan_nlohmann")->Unit(benchmark::kMillisecond)->UseRealTime();
#ifdef ROOFLINE_HAVE_SIMDJSON
BENCHMARK_TEMPLATE(scan, roofline::io::detail::simdjson_event_parser)->Name("scan_simdjson")->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

void summarize_kineto(benchmark::State& state) {
    for (auto _ : state) {
        const auto s = roofline::summarize_kineto(trace_path(), rules());
        benchmark::DoNotOptimize(s.kernel_count);
    }
    state.SetBytesProcessed(state.iterations() * file_bytes());
}
BENCHMARK(summarize_kineto)->Unit(benchmark::kMillisecond)->UseRealTime();

void read_kineto(benchmark::State& state) {
    for (auto _ : state) {
        roofline::kineto_options o;
        o.rules = &rules();
        const auto t = roofline::read_kineto(trace_path(), o);
        benchmark::DoNotOptimize(t.events.size());
    }
    state.SetBytesProcessed(state.iterations() * file_bytes());
}
BENCHMARK(read_kineto)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
