// Fuzz target: measured serving runs in aiconfigurator's silicon CSV columns and run facts
// (io/serving_runs_csv.hpp), each read on its own and the input as the facts of itself: a file
// the readers accept must give runs with positive lengths, measurements and concurrency.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/serving_runs_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        std::vector<std::string> assumed;
        for (const auto& r : read_serving_runs(path, nullptr, &assumed)) {
            fuzz::require(r.isl > 0 && r.osl > 0 && std::isfinite(r.isl) && std::isfinite(r.osl));
            fuzz::require(r.concurrency >= 1 && r.concurrency <= 1e9);
            fuzz::require(r.ttft_s > 0 && r.ttft_s <= max_measured_ttft_s && r.tpot_s > 0 && r.tpot_s <= max_measured_tpot_s);
            for (const auto* l : {&r.agg, &r.prefill, &r.decode})
                fuzz::require(l->tp >= 1 && l->pp >= 1 && l->dp >= 1 && l->moe_tp >= 1 && l->moe_ep >= 1);
        }
    }, path);
    fuzz::expect_only_roofline_errors([&] {
        const auto facts = read_serving_run_facts(path);
        (void)facts;
    }, path);
    return 0;
}
