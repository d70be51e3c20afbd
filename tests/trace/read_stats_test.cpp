// No silent loss: for every reader that counts records (trace/read_stats.hpp), the counts
// reconcile with the file. Each test counts the file's records itself, by a different route than
// the reader (a JSON DOM instead of the streaming scan, plain line counting instead of the CSV
// reader's header and cell logic), and checks
//   events_read == records in the file,
//   events_kept == what the reader returned,
//   sum of skipped_by_reason == events_skipped, and
//   kept + skipped + other == read, where "other" is what the file holds but the reader does not
//   use (also counted here),
// on the real samples (../shared/samples, data/) and on the bad-input corpus (tests/bad_inputs/).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/io/bench_json.hpp"
#include "roofline/io/detail/text.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/trace/read_stats.hpp"
#include "test_support.hpp"

using namespace roofline;

namespace {

std::string bad_input(const std::string& name) { return std::string(ROOFLINE_TESTS_DIR) + "/bad_inputs/" + name; }

/// The invariants every reader's counts obey.
void check_reconciles(const read_stats& s) {
    std::size_t by_reason = 0;
    for (const auto& [reason, n] : s.skipped_by_reason) {
        CHECK(n > 0);
        by_reason += n;
    }
    CHECK(by_reason == s.events_skipped);
    CHECK(s.events_kept + s.events_skipped <= s.events_read);
}

/// Lines of the (decompressed) file, without line ends.
std::vector<std::string> lines_of(const std::string& path) {
    std::vector<std::string> out;
    std::istringstream in(io::read_all(path));
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        out.push_back(line);
    }
    return out;
}

bool blank(const std::string& s) { return io::detail::trim(s).empty(); }

// --- Kineto: the whole file as a DOM, each element of traceEvents classified here ---
struct kineto_count {
    std::size_t events = 0, kept = 0, skipped = 0;
};

kineto_count count_kineto(const std::string& path) {
    const auto doc = nlohmann::json::parse(io::read_all(path));
    const auto& evs = doc.is_array() ? doc : doc.at("traceEvents");
    kineto_count c;
    for (const auto& e : evs) {
        ++c.events;
        if (!e.is_object()) {
            ++c.skipped;
            continue;
        }
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X" || !io::detail::kineto_used_category(cat)) continue;
        const auto ts = e.find("ts"), dur = e.find("dur");
        const bool ts_ok = ts != e.end() && ts->is_number() && std::isfinite(ts->get<double>());
        const bool dur_ok = dur != e.end() && dur->is_number() && std::isfinite(dur->get<double>()) && dur->get<double>() >= 0 &&
                            dur->get<double>() <= 86400e6;  // a day of microseconds: longer is implausible
        if (!ts_ok || !dur_ok) {
            ++c.skipped;
            continue;
        }
        const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
        if (!gpu) continue;
        if (!e.contains("name") || !e.at("name").is_string() || e.at("name").get<std::string>().empty()) {
            ++c.skipped;
            continue;
        }
        ++c.kept;
    }
    return c;
}

void check_kineto(const std::string& path) {
    INFO(path);
    const auto expected = count_kineto(path);
    const auto t = read_kineto(path);
    check_reconciles(t.stats);
    CHECK(t.stats.events_read == expected.events);
    CHECK(t.stats.events_kept == expected.kept);
    CHECK(t.stats.events_kept == t.events.size());
    CHECK(t.stats.events_skipped == expected.skipped);
    // The per-category counts cover every event that is an object.
    std::size_t by_category = 0;
    for (const auto& [cat, n] : t.events_by_category) by_category += n;
    const auto not_objects = t.stats.skipped_by_reason.count("not_an_object") ? t.stats.skipped_by_reason.at("not_an_object") : 0;
    CHECK(by_category + not_objects == t.stats.events_read);
    // The streaming summary reads the same records.
    const auto s = summarize_kineto(path, load_kernel_rules());
    CHECK(s.stats.events_read == t.stats.events_read);
    CHECK(s.stats.events_kept == t.stats.events_kept);
    CHECK(s.stats.skipped_by_reason == t.stats.skipped_by_reason);
}

}  // namespace

TEST_CASE("read_stats: Kineto traces, every event of traceEvents accounted for") {
    for (const char* rel : {"kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz",
                            "kineto/deepseek_v3_train_ep64_h800.trace.json", "kineto/tracelens_h100_qwen1.5-0.5b.trace.json.gz",
                            "h200/h200_moe_decode_step.trace.json.gz", "h200/h200x2_tp_mlp_allreduce_rank0.trace.json.gz"}) {
        const auto p = test::shared_sample(rel);
        if (test::have_sample(p)) check_kineto(p.string());
    }
    for (const auto& entry : std::filesystem::directory_iterator(test::repo_data("samples/h200")))
        check_kineto((entry.path() / "trace.json.gz").string());
    for (const char* name : {"kineto_negative_dur.json", "kineto_nan_inf_times.json", "kineto_wrong_types.json",
                             "kineto_not_objects.json", "kineto_missing_name.json", "kineto_duplicate_keys.json",
                             "kineto_huge_numbers.json", "kineto_implausible_dur.json"})
        check_kineto(bad_input(name));
}

TEST_CASE("read_stats: nsys CSV reports, every data row accounted for") {
    const auto rules = load_kernel_rules();
    // A data row: a non-blank line after the header (the first line holding "Name").
    auto data_rows = [](const std::string& path) {
        std::size_t rows = 0;
        bool header = false;
        for (const auto& line : lines_of(path)) {
            if (!header) {
                header = line.find("Name") != std::string::npos;
                continue;
            }
            rows += !blank(line);
        }
        return rows;
    };
    const auto sample = test::shared_sample("nsys/rtx5090_dsocr_decode_cuda_gpu_kern_sum.csv");
    if (test::have_sample(sample)) {
        const auto s = read_nsys_kern_sum(sample.string(), rules);
        check_reconciles(s.stats);
        CHECK(s.stats.events_read == data_rows(sample.string()));
        CHECK(s.stats.events_kept == s.kernels.size());  // one row per kernel name
        CHECK(s.stats.events_kept + s.stats.events_skipped == s.stats.events_read);
    }
    {
        const auto path = bad_input("nsys_kern_sum_bad_rows.csv");
        const auto s = read_nsys_kern_sum(path, rules);
        check_reconciles(s.stats);
        CHECK(s.stats.events_read == data_rows(path));
        CHECK(s.stats.events_kept == s.kernels.size());
        CHECK(s.stats.events_kept + s.stats.events_skipped == s.stats.events_read);
    }
    for (const char* name : {"nsys_gpu_trace_bad_rows.csv", "nsys_gpu_trace_huge_numbers.csv", "nsys_gpu_trace_non_utf8_name.csv"}) {
        const auto path = bad_input(name);
        INFO(path);
        const auto t = read_nsys_gpu_trace(path, rules);
        check_reconciles(t.stats);
        CHECK(t.stats.events_read == data_rows(path));
        CHECK(t.stats.events_kept == t.events.size());
        CHECK(t.stats.events_kept + t.stats.events_skipped == t.stats.events_read);
    }
}

TEST_CASE("read_stats: Nsight Compute CSV, every metric value accounted for") {
    // Raw page: values = data rows x metric columns; a row with the wrong cell count is one
    // record; "n/a" and empty cells are read but neither kept nor skipped.
    auto check_raw = [](const std::string& path) {
        INFO(path);
        const auto r = read_ncu_csv(path);
        check_reconciles(r.stats);
        std::vector<std::string> header, cells;
        std::size_t values = 0, absent = 0;
        bool units = false;
        for (const auto& line : lines_of(path)) {
            if (header.empty()) {
                if (line.rfind("\"ID\",", 0) == 0) io::split_csv(line, header);
                continue;
            }
            if (blank(line)) continue;
            io::split_csv(line, cells);
            if (!units) {  // the units row
                units = true;
                continue;
            }
            if (cells.size() != header.size()) {
                ++values;
                continue;
            }
            std::size_t first = 0;
            while (first < header.size() && io::detail::ncu_identity_column(header[first])) ++first;
            for (std::size_t j = first; j < cells.size(); ++j) {
                ++values;
                const auto v = io::detail::trim(cells[j]);
                absent += v.empty() || io::detail::iequals(v, "n/a");
            }
        }
        CHECK(r.stats.events_read == values);
        CHECK(r.stats.events_kept + r.stats.events_skipped + absent == r.stats.events_read);
    };
    const auto raw = test::shared_sample("h200/h200_ncu_raw_5_kernels.csv.gz");
    if (test::have_sample(raw)) check_raw(raw.string());
    check_raw(bad_input("ncu_raw_wrong_columns.csv"));

    // Details page: one value per row with a metric name.
    auto check_details = [](const std::string& path) {
        INFO(path);
        const auto r = read_ncu_csv(path);
        check_reconciles(r.stats);
        std::vector<std::string> header, cells;
        std::size_t values = 0, absent = 0;
        int c_metric = -1, c_value = -1;
        for (const auto& line : lines_of(path)) {
            if (header.empty()) {
                if (line.rfind("\"ID\",", 0) != 0) continue;
                io::split_csv(line, header);
                for (std::size_t i = 0; i < header.size(); ++i) {
                    if (header[i] == "Metric Name") c_metric = static_cast<int>(i);
                    if (header[i] == "Metric Value") c_value = static_cast<int>(i);
                }
                continue;
            }
            if (blank(line)) continue;
            io::split_csv(line, cells);
            if (static_cast<int>(cells.size()) <= c_value || cells[static_cast<std::size_t>(c_metric)].empty()) continue;
            ++values;
            const auto v = io::detail::trim(cells[static_cast<std::size_t>(c_value)]);
            absent += v.empty() || io::detail::iequals(v, "n/a");
        }
        CHECK(r.stats.events_read == values);
        CHECK(r.stats.events_kept + r.stats.events_skipped + absent == r.stats.events_read);
    };
    const auto details = test::shared_sample("ncu/rtx5090_gemv_kernel0001.details.csv");
    if (test::have_sample(details)) check_details(details.string());
    check_details(bad_input("ncu_details_bad_values.csv"));
}

TEST_CASE("read_stats: nvidia-smi logs, every row accounted for") {
    // --query-gpu CSV: every non-blank line after the header is a record.
    auto check_csv = [](const std::string& path) {
        INFO(path);
        const auto log = read_nvidia_smi_csv(path);
        check_reconciles(log.stats);
        std::size_t rows = 0;
        bool header = false;
        for (const auto& line : lines_of(path)) {
            if (blank(line)) continue;
            if (!header) {
                header = true;
                continue;
            }
            ++rows;
        }
        CHECK(log.stats.events_read == rows);
        CHECK(log.stats.events_kept == log.samples.size());
        CHECK(log.stats.events_kept + log.stats.events_skipped == log.stats.events_read);
    };
    const auto sweep = test::shared_sample("h200/h200_sweep_nvidia_smi.csv.gz");
    if (test::have_sample(sweep)) check_csv(sweep.string());
    check_csv(test::repo_data("samples/glm5-nvfp4-8x-rtx-pro-6000/nvidia_smi.csv").string());
    check_csv(test::repo_data("samples/h200-serving/nvidia_smi.csv").string());
    for (const char* name : {"smi_bad_values.csv", "smi_mixed_gpus_index.csv", "smi_mixed_gpus_no_index.csv", "smi_huge_numbers.csv"})
        check_csv(bad_input(name));

    // dmon: every non-blank line that is not a '#' header line is a record.
    const auto dmon = bad_input("dmon_bad_rows.txt");
    const auto log = read_nvidia_smi_dmon(dmon);
    check_reconciles(log.stats);
    std::size_t rows = 0;
    for (const auto& line : lines_of(dmon)) rows += !blank(line) && io::detail::trim(line)[0] != '#';
    CHECK(log.stats.events_read == rows);
    CHECK(log.stats.events_kept == log.samples.size());
    CHECK(log.stats.events_kept + log.stats.events_skipped == log.stats.events_read);
}

TEST_CASE("read_stats: nccl-tests output, every result row accounted for") {
    // stdout: a data row is a line (MPI prefix removed) after the header whose first token is a
    // number; everything else is preamble, footer or NCCL INFO text.
    auto check_text = [](const std::string& path) {
        INFO(path);
        const auto s = read_nccl_tests(path);
        check_reconciles(s.stats);
        std::size_t rows = 0;
        bool header = false;
        for (const auto& raw : lines_of(path)) {
            const auto line = io::detail::trim(io::detail::strip_mpi_prefix(raw));
            if (line.empty()) continue;
            if (line[0] == '#') {
                header = header || line.find(" size ") != std::string_view::npos || line.find("#  size") == 0;
                continue;
            }
            rows += header && line[0] >= '0' && line[0] <= '9';
        }
        CHECK(s.stats.events_read == rows);
        CHECK(s.stats.events_kept == s.points.size());
        CHECK(s.stats.events_kept + s.stats.events_skipped == s.stats.events_read);
    };
    const auto sample = test::shared_sample("nccl/all_reduce_perf_2x8xH100.txt");
    if (test::have_sample(sample)) check_text(sample.string());
    check_text(bad_input("nccl_bad_rows.txt"));

    // JSON: one record per element of "results".
    const auto path = bad_input("nccl_json_bad_results.json");
    const auto s = read_nccl_tests_json(path);
    check_reconciles(s.stats);
    CHECK(s.stats.events_read == nlohmann::json::parse(io::read_all(path)).at("results").size());
    CHECK(s.stats.events_kept == s.points.size());
    CHECK(s.stats.events_kept + s.stats.events_skipped == s.stats.events_read);
}

TEST_CASE("read_stats: benchmark results, every run accounted for") {
    // One record per non-blank line of a JSONL file (each holds one object).
    auto check_jsonl = [](const std::string& path) {
        INFO(path);
        const auto r = read_bench_results(path);
        check_reconciles(r.stats);
        std::size_t objects = 0;
        for (const auto& line : lines_of(path)) objects += !blank(line);
        CHECK(r.stats.events_read == objects);
        CHECK(r.stats.events_kept == r.runs.size());
        CHECK(r.stats.events_kept + r.stats.events_skipped == r.stats.events_read);
    };
    for (const char* rel : {"bench/datacrunch_sglang_llama3.3-70b_h200_online.jsonl", "bench/datacrunch_sglang_llama3.3-70b_h200_offline.jsonl"}) {
        const auto p = test::shared_sample(rel);
        if (test::have_sample(p)) check_jsonl(p.string());
    }
    check_jsonl(test::repo_data("samples/glm5-nvfp4-8x-rtx-pro-6000/bench.jsonl").string());
    check_jsonl(test::repo_data("samples/h200-serving/bench.jsonl").string());
    check_jsonl(bad_input("bench_skipped_runs.jsonl"));
}
