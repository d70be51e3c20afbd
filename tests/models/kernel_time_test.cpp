// Tests of models/kernel_time.hpp: predicted kernel times (lower bound at achievable ceilings
// plus a launch floor) against this project's H200 measurements (data/validation), and laws.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/core/catalog.hpp"
#include "roofline/models/attention.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/moe.hpp"
#include "test_support.hpp"

using namespace roofline;

TEST_CASE("predicted time = lower bound at derated ceilings + launches x floor, worked by hand") {
    const auto g = gpus::h200_sxm();
    const auto ds = datasheet_ceilings(g);
    const auto used = achievable(ds);
    // 4096^3 bf16: 1.374e11 / (0.75 x 989e12) = 185.3 us + 5 us = 190.3 us; lower bound 139.0 us.
    const auto w = gemm_workload({4096, 4096, 4096}, dtype::bf16, dtype::bf16, dtype::bf16, peak_key::bf16);
    const auto t = price_kernel(w, ds, used);
    CHECK(t.lower_bound_s() == doctest::Approx(137438953472.0 / 989e12));
    CHECK(t.predicted_s() == doctest::Approx(137438953472.0 / (0.75 * 989e12) + 5e-6));
    // 1 GB copy: 2e9 B / (0.9 x 4.8e12) + 5 us = 468.0 us.
    workload copy;
    copy.bytes_at(memory_level::dram) = 2e9;
    copy.launches = 1;
    CHECK(price_kernel(copy, ds, used).predicted_s() == doctest::Approx(2e9 / 4.32e12 + 5e-6));
}

TEST_CASE("on this project's H200 measurements the median absolute error is below 25%") {
    const auto path = roofline::test::repo_data("validation/h200_kernels.json");
    if (!roofline::test::have_sample(path)) return;
    std::ifstream in(path);
    const auto doc = nlohmann::json::parse(in);
    const auto g = gpus::h200_sxm();
    const auto ds = datasheet_ceilings(g);
    const auto used = achievable(ds);
    std::vector<double> errors;
    std::vector<std::pair<std::string, double>> per_kind;
    for (const auto& r : doc.at("records")) {
        if (!r.contains("time_s")) continue;
        const std::string kind = r.at("kind");
        const auto& p = r.at("params");
        workload w;
        if (kind == "gemm") {
            const dtype d = p.at("dtype") == "fp8" ? dtype::fp8_e4m3 : dtype::bf16;
            w = gemm_workload({p.at("m"), p.at("n"), p.at("k")}, d, d, dtype::bf16, g);
        } else if (kind == "moe") {
            moe_problem m;
            m.experts = p.at("experts");
            m.topk = p.at("topk");
            m.hidden = p.at("hidden");
            m.inter = p.at("inter");
            m.tokens = m.experts * p.at("tokens_per_expert").get<double>();
            // The sweep gives every expert exactly tokens_per_expert rows.
            m.routing.type = moe_routing::kind::histogram;
            m.routing.histogram.assign(static_cast<std::size_t>(m.experts), p.at("tokens_per_expert").get<double>());
            w = moe_layer(m, g).work;
        } else if (kind == "attention") {
            attention_shape s;
            s.heads = p.at("heads");
            s.kv_heads = p.at("kv_heads");
            s.head_dim = p.at("head_dim");
            s.causal = p.at("causal");
            const double q = p.at("q_len"), kv = p.at("kv_len");
            w = attention_workload(s, {{p.at("batch"), q, kv - q}}, dtype::bf16);
        } else if (kind == "copy") {
            w.bytes_at(memory_level::dram) = 2.0 * p.at("bytes").get<double>();
            w.launches = 1;
        } else {
            continue;
        }
        const double measured = r.at("time_s");
        const auto t = price_kernel(w, ds, used);
        // Laws: the prediction is never below the lower bound, which the measurement never beats
        // by more than the GEMV/cache effects allow.
        CHECK(t.predicted_s() >= t.lower_bound_s());
        const double err = std::abs(t.predicted_s() - measured) / measured;
        errors.push_back(err);
        per_kind.emplace_back(kind, err);
    }
    REQUIRE(errors.size() >= 50);
    std::sort(errors.begin(), errors.end());
    const double median = errors[errors.size() / 2];
    const double p90 = errors[static_cast<std::size_t>(0.9 * static_cast<double>(errors.size()))];
    MESSAGE("H200 kernels: n=" << errors.size() << " median |error| " << median * 100 << "%, p90 " << p90 * 100 << "%");
    CHECK(median <= 0.25);
    CHECK(p90 <= 0.60);
}
