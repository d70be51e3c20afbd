// Parsing speed of the CSV readers (Google Benchmark), MB/s of input: Nsight Compute raw page
// and nvidia-smi --query-gpu logs. Inputs are generated once into the temp folder, shaped like
// the real files (../shared/samples/h200: the ncu raw page of five kernels with its units row
// and thousands separators; the 100 ms sweep log with clock-event reasons), repeated to
// ROOFLINE_BENCH_CSV_MB MB (default 32). Not a test: numbers for the README.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "roofline/io/csv.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nvidia_smi.hpp"

namespace {

std::uint64_t target_bytes() {
    const char* mb = std::getenv("ROOFLINE_BENCH_CSV_MB");
    return static_cast<std::uint64_t>((mb ? std::atof(mb) : 32.0) * 1e6);
}

std::string temp(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }

/// ncu --page raw: 11 identity columns, 200 metric columns (bytes, times, percentages, counts
/// with thousands separators), a units row, then one row per launch.
const std::string& ncu_path() {
    static const std::string p = [] {
        const std::string path = temp("roofline_bench_ncu_raw.csv");
        if (std::filesystem::exists(path) && std::filesystem::file_size(path) >= target_bytes()) return path;
        std::ofstream o(path, std::ios::binary);
        o << "==PROF== Connected to process 4242\n";
        const char* units[] = {"byte", "nsecond", "%", "", "Mbyte", "cycle", "Ghz", "inst"};
        o << "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
             "\"Block Size\",\"Grid Size\",\"Device\",\"CC\"";
        for (int j = 0; j < 200; ++j) o << ",\"metric_" << j << "__name.sum\"";
        o << "\n\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"";
        for (int j = 0; j < 200; ++j) o << ",\"" << units[j % 8] << "\"";
        o << "\n";
        std::uint64_t written = 0;
        for (int id = 0; written < target_bytes(); ++id) {
            std::string row = "\"" + std::to_string(id) +
                              "\",\"4242\",\"python3.11\",\"127.0.0.1\",\"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_"
                              "relu_bf16_256x128_32x3_tn_align8>(Params)\",\"1\",\"7\",\"(256, 1, 1)\",\"(132, 1, 1)\",\"0\",\"9.0\"";
            for (int j = 0; j < 200; ++j) {
                switch (j % 4) {
                    case 0: row += ",\"" + std::to_string(1000 + j) + "," + std::to_string(100 + id % 900) + "\""; break;
                    case 1: row += ",\"" + std::to_string(j) + "." + std::to_string(id % 100) + "\""; break;
                    case 2: row += ",\"n/a\""; break;
                    default: row += ",\"" + std::to_string(id * 7 + j) + "\""; break;
                }
            }
            row += "\n";
            o << row;
            written += row.size();
        }
        return path;
    }();
    return p;
}

/// nvidia-smi --query-gpu with the fields of the H200 sweep log, 8 GPUs per sample.
const std::string& smi_path() {
    static const std::string p = [] {
        const std::string path = temp("roofline_bench_nvidia_smi.csv");
        if (std::filesystem::exists(path) && std::filesystem::file_size(path) >= target_bytes()) return path;
        std::ofstream o(path, std::ios::binary);
        o << "timestamp, index, name, power.draw [W], power.limit [W], enforced.power.limit [W], "
             "clocks.current.sm [MHz], clocks.max.sm [MHz], clocks.current.memory [MHz], utilization.gpu [%], "
             "utilization.memory [%], temperature.gpu, clocks_event_reasons.active, clocks_event_reasons.sw_power_cap\n";
        std::uint64_t written = 0;
        for (int i = 0; written < target_bytes(); ++i) {
            const int ms = i % 10 * 100, s = i / 10 % 60, m = i / 600 % 60;
            char ts[32];
            std::snprintf(ts, sizeof ts, "2026/11/30 04:%02d:%02d.%03d", m, s, ms);
            for (int g = 0; g < 8; ++g) {
                std::string row = std::string(ts) + ", " + std::to_string(g) + ", NVIDIA H200, " +
                                  std::to_string(300 + (i * 7 + g) % 400) + ".25 W, 700.00 W, 700.00 W, " +
                                  std::to_string(1400 + (i + g) % 580) + " MHz, 1980 MHz, 3201 MHz, " +
                                  std::to_string((i + g) % 101) + " %, 45 %, 52, 0x0000000000000004, Active\n";
                o << row;
                written += row.size();
            }
        }
        return path;
    }();
    return p;
}

void ncu_raw(benchmark::State& state) {
    std::size_t kernels = 0;
    for (auto _ : state) {
        const auto r = roofline::read_ncu_csv(ncu_path());
        kernels = r.kernels.size();
        benchmark::DoNotOptimize(kernels);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * std::filesystem::file_size(ncu_path())));
    state.counters["kernels"] = static_cast<double>(kernels);
}
BENCHMARK(ncu_raw)->Unit(benchmark::kMillisecond)->UseRealTime();

void nvidia_smi_csv(benchmark::State& state) {
    std::size_t samples = 0;
    for (auto _ : state) {
        const auto log = roofline::read_nvidia_smi_csv(smi_path());
        samples = log.samples.size();
        benchmark::DoNotOptimize(samples);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * std::filesystem::file_size(smi_path())));
    state.counters["samples"] = static_cast<double>(samples);
}
BENCHMARK(nvidia_smi_csv)->Unit(benchmark::kMillisecond)->UseRealTime();

/// A CSV file with one unbalanced quote on its second line: every later line joins one record
/// that never closes (the reader ends with a parse error). Was quadratic before the fuzzers
/// found it (tests/fuzz/README.md); must run at the speed of a well-formed file.
void csv_stray_quote(benchmark::State& state) {
    static const std::string path = [] {
        const std::string p = temp("roofline_bench_csv_stray_quote.csv");
        std::ofstream o(p, std::ios::binary);
        o << "name,value\n\"stray,1\n";
        for (std::uint64_t written = 0; written < target_bytes() / 8; written += 26) o << "kernel_a,\"\"12\"\",34.5,x\n";
        return p;
    }();
    for (auto _ : state) {
        roofline::io::input_file in(path);
        roofline::io::csv_reader csv(in);
        std::vector<std::string> fields;
        std::string raw;
        try {
            while (csv.next(fields, raw)) benchmark::DoNotOptimize(fields.data());
        } catch (const roofline::parse_error&) {
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * std::filesystem::file_size(path)));
}
BENCHMARK(csv_stray_quote)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
