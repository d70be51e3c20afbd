// Tests of models/collective.hpp: alpha-beta costs per algorithm, nccl-tests algbw/busbw, and
// the field cases C02 (P2P on/off), C03 (PCIe all-reduce latency), C04 (PCIe busbw ceiling).
#include <doctest/doctest.h>

#include "approx.hpp"

#include "roofline/core/catalog.hpp"
#include "roofline/core/units.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/analysis/achievable.hpp"
#include "roofline/analysis/calibration.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "test_support.hpp"

using namespace roofline;
using namespace roofline::units;

namespace {
/// A PCIe Gen5 x16 card without NVLink (64 GB/s per direction; HARDWARE.md section 3/4).
gpu_spec pcie_card(bool p2p) {
    gpu_spec g;
    g.id = p2p ? "test-pcie-p2p" : "test-pcie";
    g.nvlink_bandwidth_bytes_per_s = cited(0, "test");
    g.pcie_bandwidth_bytes_per_s = cited(gb_per_s(64), "test");
    g.p2p = cited(p2p ? 1 : 0, "test");
    return g;
}
}  // namespace

TEST_CASE("busbw factors and algbw are nccl-tests' definitions") {
    CHECK(busbw_factor(collective_op::all_reduce, 8) == 1.75);        // 2 x 7 / 8
    CHECK(busbw_factor(collective_op::all_gather, 8) == 0.875);       // 7 / 8
    CHECK(busbw_factor(collective_op::reduce_scatter, 4) == 0.75);
    CHECK(busbw_factor(collective_op::all_to_all, 2) == 0.5);
    CHECK(busbw_factor(collective_op::all_reduce, 1) == 0.0);
    // 1 GB in 62.5 ms: algbw 16 GB/s; all_reduce busbw 16 x 1.75 = 28 GB/s.
    CHECK(algbw(1e9, 0.0625) == approx(16e9));
    CHECK(busbw(collective_op::all_reduce, 8, 1e9, 0.0625) == approx(28e9));
    CHECK_THROWS_AS(algbw(1e9, 0.0), usage_error);
}

TEST_CASE("each algorithm's steps and link bytes, worked by hand") {
    link_params p;
    p.alpha_s = us(1);
    p.base_latency_s = us(4);
    p.beta_bytes_per_s = 100e9;
    const double S = 8e6;
    // ring all_reduce over 8: 14 steps, 2 x 7/8 x 8 MB = 14 MB -> 4 + 14 us + 140 us = 158 us.
    auto r = collective_time(collective_op::all_reduce, S, 8, p, collective_algorithm::ring);
    CHECK(r.steps == 14);
    CHECK(r.link_bytes == 14e6);
    CHECK(r.time_s == approx(158e-6));
    // busbw of a bandwidth-dominated ring approaches beta.
    CHECK(r.busbw_bytes_per_s == approx(100e9 * 140.0 / 158.0));
    // tree: 2 ceil(log2 8) = 6 steps, 2 S = 16 MB -> 4 + 6 + 160 = 170 us.
    auto t = collective_time(collective_op::all_reduce, S, 8, p, collective_algorithm::tree);
    CHECK(t.steps == 6);
    CHECK(t.time_s == approx(170e-6));
    // one-shot: 1 step, pulls 7 x 8 MB = 56 MB -> 4 + 1 + 560 = 565 us.
    auto o = collective_time(collective_op::all_reduce, S, 8, p, collective_algorithm::one_shot);
    CHECK(o.time_s == approx(565e-6));
    // two-shot: 2 steps, 14 MB -> 4 + 2 + 140 = 146 us.
    auto w = collective_time(collective_op::all_reduce, S, 8, p, collective_algorithm::two_shot);
    CHECK(w.time_s == approx(146e-6));
    // all_gather ring over 4 of S = 8 MB total: 3 steps, 6 MB -> 4 + 3 + 60 = 67 us.
    auto g = collective_time(collective_op::all_gather, S, 4, p, collective_algorithm::ring);
    CHECK(g.time_s == approx(67e-6));
    CHECK(g.busbw_bytes_per_s == approx(S / 67e-6 * 0.75));
    // One rank: free.
    CHECK(collective_time(collective_op::all_reduce, S, 1, p).time_s == 0.0);
    // Small messages: one-shot wins on latency; large: two-shot / ring win on bandwidth.
    CHECK(best_collective(collective_op::all_reduce, 4096, 8, p).algorithm == collective_algorithm::one_shot);
    CHECK(best_collective(collective_op::all_reduce, 1e9, 8, p).algorithm == collective_algorithm::two_shot);
    CHECK_THROWS_AS(collective_time(collective_op::all_gather, S, 4, p, collective_algorithm::two_shot), usage_error);
}

TEST_CASE("laws: time grows with bytes and never beats bytes over beta") {
    const auto p = default_link_params(gpus::h200_sxm(), link_kind::nvlink);
    for (auto op : {collective_op::all_reduce, collective_op::all_gather, collective_op::reduce_scatter,
                    collective_op::all_to_all}) {
        double prev = 0;
        for (double bytes = 1024; bytes <= 1e10; bytes *= 8) {
            const auto c = best_collective(op, bytes, 8, p);
            CHECK(c.time_s > prev);
            prev = c.time_s;
            CHECK(c.time_s >= c.link_bytes / p.beta_bytes_per_s);
            CHECK(c.busbw_bytes_per_s <= p.beta_bytes_per_s * 1.0000001);
        }
    }
}

TEST_CASE("C04: at 28 GB/s busbw a 1 GB BF16 all-reduce on 8 PCIe GPUs takes ~63 ms") {
    // NVIDIA/nccl#1639: 8x RTX 5090, all_reduce_perf 1-8 GB peaks at 28 GB/s busbw (35 GB/s with
    // 4 GPUs); the maintainer: PCIe systems are limited by the host and switch fabric. A
    // calibrated link carries the measured busbw as beta (ring busbw = beta at large sizes).
    auto p = default_link_params(pcie_card(true), link_kind::pcie);
    CHECK(p.beta_bytes_per_s == gb_per_s(64));  // the datasheet ceiling, before calibration
    p.beta_bytes_per_s = gb_per_s(28);
    p.source = "C04 measured busbw";
    const auto c = collective_time(collective_op::all_reduce, 1e9, 8, p, collective_algorithm::ring);
    // 2 x 7/8 x 1 GB / 28 GB/s = 62.5 ms (+ 17.6 us latency).
    CHECK(c.time_s == approx(0.0625 + 17.6e-6).epsilon(1e-6));
    CHECK(c.busbw_bytes_per_s == approx(28e9).epsilon(1e-3));
    p.beta_bytes_per_s = gb_per_s(35);
    const auto c4 = collective_time(collective_op::all_reduce, 1e9, 4, p, collective_algorithm::ring);
    // 2 x 3/4 x 1 GB / 35 GB/s = 42.9 ms.
    CHECK(c4.time_s == approx(1.5e9 / 35e9).epsilon(1e-3));
}

TEST_CASE("C03: NCCL all-reduce on 8 PCIe GPUs is alpha-dominated at decode sizes") {
    // sglang#32479: NCCL AR 45 us for 4 KB on 8x RTX 6000D. Without P2P (staged via host) our
    // alpha was fitted to it: 3.6 + 14 x 2.96 = 45.04 us + 2 x 7/8 x 4096 B / 32 GB/s = 0.22 us.
    const auto no_p2p = default_link_params(pcie_card(false), link_kind::pcie_no_p2p);
    const auto a = best_collective(collective_op::all_reduce, 4096, 8, no_p2p);
    CHECK(a.time_s == approx(45.04e-6 + 7168.0 / 32e9).epsilon(1e-6));
    // With P2P, NCCL's own model (3.6 + 14 x 1.0 us) gives 17.6 us for a ring; the one-shot
    // custom kernel 3.6 + 1 + 7 x 4 KB / 64 GB/s = 5.05 us. The C03 range 20-45 us sits between.
    const auto p2p = default_link_params(pcie_card(true), link_kind::pcie);
    const auto ring = collective_time(collective_op::all_reduce, 4096, 8, p2p, collective_algorithm::ring);
    CHECK(ring.time_s == approx(17.6e-6 + 7168.0 / 64e9).epsilon(1e-6));
    CHECK(a.latency_s / a.time_s > 0.99);  // alpha dominates
    // 14 KB BF16 row ([1, 7168]) on 16 GPUs (b12x#139): NCCL 36 us measured; our no-P2P ring:
    const auto b = collective_time(collective_op::all_reduce, 14336, 16, no_p2p, collective_algorithm::ring);
    CHECK(b.time_s > 36e-6);
    // ~2 ARs per layer over ~80 layers: 160 x 45 us = 7.2 ms per token, capping cc1 near 140 tok/s.
    CHECK(160 * a.time_s == approx(7.2e-3).epsilon(0.01));
}

TEST_CASE("C02: P2P switches the all-reduce from NCCL-through-host to a one-shot kernel") {
    // 2x RTX 5090 (PCIe 5.0 x8, 32 GB/s per direction): decode 223 -> 288 tok/s with P2P.
    auto on = pcie_card(true), off = pcie_card(false);
    on.pcie_bandwidth_bytes_per_s = off.pcie_bandwidth_bytes_per_s = cited(gb_per_s(32), "x8");
    const auto p_on = default_link_params(on, link_kind::pcie);
    const auto p_off = default_link_params(off, link_kind::pcie_no_p2p);
    // Decode AR of a few tokens x hidden 2048 x 2 B = 16 KB.
    const auto a_on = best_collective(collective_op::all_reduce, 16384, 2, p_on);
    const auto a_off = best_collective(collective_op::all_reduce, 16384, 2, p_off);
    CHECK(a_on.algorithm == collective_algorithm::one_shot);
    CHECK(a_off.algorithm == collective_algorithm::ring);
    CHECK(a_off.time_s > 1.8 * a_on.time_s);
    // Prefill-sized ARs (8K tokens x 2048 x 2 B = 32 MB) are bandwidth-bound: host staging halves beta.
    const auto b_on = best_collective(collective_op::all_reduce, 32e6, 2, p_on);
    const auto b_off = best_collective(collective_op::all_reduce, 32e6, 2, p_off);
    CHECK(b_off.time_s / b_on.time_s == approx(2.0).epsilon(0.01));
    CHECK_THROWS_AS(collective_time(collective_op::all_reduce, 1, 2, p_off, collective_algorithm::one_shot), usage_error);
}

// --- more ranks than one scale-up domain: nodes x GPUs per node --------------------------------

TEST_CASE("scale-up domains: 8 on HGX, 72 in an NVL72 rack, and the layout of ranks on them") {
    CHECK(scale_up_domain(gpus::h100_sxm()).first == 8);
    CHECK(scale_up_domain(gpus::b200()).first == 8);
    const auto l = layout_of(16, 8);
    CHECK(l.nodes == 2);
    CHECK(l.gpus_per_node == 8);
    CHECK(layout_of(8, 8).nodes == 1);   // fits one domain
    CHECK(layout_of(8, 0).nodes == 1);   // no domain size known
    CHECK(layout_of(20, 8).nodes == 3);  // the last node priced as full
}

TEST_CASE("hierarchical all-reduce on 2 nodes x 8 H100: the levels by hand") {
    const auto g = gpus::h100_sxm();
    const auto up = default_link_params(g, link_kind::nvlink);     // 900 / 2 = 450 GB/s
    const auto net = default_link_params(g, link_kind::network);   // 400 Gb/s = 50 GB/s per GPU
    CHECK(up.beta_bytes_per_s == approx(450e9));
    CHECK(net.beta_bytes_per_s == approx(50e9));
    CHECK_FALSE(net.p2p);  // no one/two-shot kernels across hosts
    const double S = 1073741824.0;
    const auto v = hierarchical_levels(collective_op::all_reduce, S, {2, 8}, up, net);
    // Inside a node: 2 x 7/8 x S = 1879048192 B per GPU at 450 GB/s = 4.1757 ms.
    CHECK(v.intra_bytes == approx(1879048192.0));
    CHECK(v.intra_s == approx(4.17566e-3).epsilon(1e-5));
    // Between nodes: 2 x 1/2 x S = S per node over 8 NICs x 50 GB/s = 400 GB/s: 2.6844 ms.
    CHECK(v.inter_bytes == approx(S));
    CHECK(v.inter_bytes_per_s == approx(400e9));
    CHECK(v.inter_s == approx(2.68435e-3).epsilon(1e-5));
    CHECK_FALSE(v.network_bound());
    // As a flat ring's busbw: 2 x 15/16 x S / 4.1757 ms = 482.1 GB/s.
    CHECK(v.effective_bytes_per_s == approx(482.14e9).epsilon(1e-4));
    // Latency: 3.6 us + 14 NVLink hops x 0.47 + 2 network hops x 2.7 = 15.58 us.
    CHECK(v.latency_s == approx(15.58e-6));
    // Folded into a flat ring: the same time (4.1757 + 0.0156 = 4.1912 ms), ring only.
    const auto p = hierarchical_link_params(collective_op::all_reduce, {2, 8}, up, net);
    const auto c = best_collective(collective_op::all_reduce, S, 16, p);
    CHECK(c.algorithm == collective_algorithm::ring);
    CHECK(c.time_s == approx(4.17566e-3 + 15.58e-6).epsilon(1e-5));
    // The old flat ring over the NICs: 2 x 15/16 x S / 50 GB/s = 40.27 ms, six times the
    // measured 6.76 ms: not a lower bound.
    CHECK(collective_time(collective_op::all_reduce, S, 16, net).bandwidth_s == approx(40.265e-3).epsilon(1e-4));
}

TEST_CASE("hierarchical levels of the other collectives and of a network-bound hierarchy") {
    const auto g = gpus::h100_sxm();
    const auto up = default_link_params(g, link_kind::nvlink);
    const auto net = default_link_params(g, link_kind::network);
    const double S = 1e9;
    // all_gather on 4 nodes x 8: inside 7/8 S per GPU / 450 GB/s = 1.944 ms; between 3/4 S per
    // node / 400 GB/s = 1.875 ms.
    const auto ag = hierarchical_levels(collective_op::all_gather, S, {4, 8}, up, net);
    CHECK(ag.intra_s == approx(0.875e9 / 450e9));
    CHECK(ag.inter_s == approx(0.75e9 / 400e9));
    // all_to_all on 2 x 8: each GPU sends S/16 to each of 15 peers: 7/16 S over NVLink
    // (0.972 ms), 8/16 S over its own NIC (10 ms): network-bound.
    const auto a2a = hierarchical_levels(collective_op::all_to_all, S, {2, 8}, up, net);
    CHECK(a2a.intra_bytes == approx(7.0 / 16 * S));
    CHECK(a2a.inter_s == approx(0.5e9 / 50e9));
    CHECK(a2a.network_bound());
    // all_reduce on 64 nodes x 8: between nodes 2 x 63/64 S / 400 GB/s = 4.922 ms > 3.889 ms inside.
    const auto big = hierarchical_levels(collective_op::all_reduce, S, {64, 8}, up, net);
    CHECK(big.inter_s == approx(2.0 * 63 / 64 * S / 400e9));
    CHECK(big.network_bound());
    // One node: no network level; one GPU per node: no NVLink level.
    CHECK(hierarchical_levels(collective_op::all_reduce, S, {1, 8}, up, net).inter_s == 0.0);
    CHECK(hierarchical_levels(collective_op::all_reduce, S, {8, 1}, up, net).intra_s == 0.0);
    CHECK_THROWS_AS(hierarchical_link_params(collective_op::all_reduce, {1, 8}, up, net), usage_error);
}

TEST_CASE("2 x 8 H100 nccl-tests all_reduce: the measurement and its fit stay above the hierarchical bound") {
    const auto f = test::shared_sample("nccl/all_reduce_perf_2x8xH100.txt");
    if (!test::have_sample(f)) return;
    const auto sweep = read_nccl_tests(f.string());
    REQUIRE(sweep.ranks == 16);
    REQUIRE(sweep.host_count() == 2);
    const auto g = gpus::h100_sxm();
    const auto up = default_link_params(g, link_kind::nvlink);
    const auto net = default_link_params(g, link_kind::network);
    const auto layout = layout_of(sweep.ranks, scale_up_domain(g).first);
    REQUIRE(layout.nodes == 2);
    const auto bound = hierarchical_link_params(collective_op::all_reduce, layout, up, net);
    const auto fit = fit_link({sweep}, link_kind::network);
    CHECK_FALSE(fit.params.p2p);
    for (const auto& pt : sweep.points) {
        const auto lb = best_collective(collective_op::all_reduce, pt.size_bytes, 16, bound);
        for (const auto& t : {pt.out_of_place, pt.in_place}) {
            if (!t) continue;
            INFO("size " << pt.size_bytes);
            CHECK(t->time_s >= lb.time_s);
        }
        CHECK(best_collective(collective_op::all_reduce, pt.size_bytes, 16, fit.params).time_s >= lb.time_s);
    }
    // 1 GiB: measured 6759.0 us out of place (busbw 297.86 GB/s); the bound 4.191 ms (busbw
    // 480.4 GB/s), the flat ring over the NICs it replaces 40.27 ms.
    const auto& gib = sweep.points[27];
    REQUIRE(gib.size_bytes == 1073741824.0);
    CHECK(gib.out_of_place->time_s == approx(6759.0e-6));
    const auto lb = best_collective(collective_op::all_reduce, gib.size_bytes, 16, bound);
    CHECK(lb.time_s == approx(4.1912e-3).epsilon(1e-4));
    CHECK(lb.busbw_bytes_per_s == approx(480.4e9).epsilon(1e-3));
    CHECK(gib.out_of_place->time_s / lb.time_s == approx(1.613).epsilon(1e-3));
}

TEST_CASE("a measured link profile: nccl-tests' small-message time is the link's, eager torch.distributed calls' is the host's") {
    // 8x RTX PRO 6000 over PCIe (nccl-tests, default NCCL): 32 KB all-reduce 48.16 us, busbw
    // 22.2 GB/s. Ring: 48.16 = 3.6 + 14 alpha + 14/8 x 32768 / 22.2e9 (2.58 us): alpha 3.00 us.
    const auto pro = find_link_profile(gpus::rtx_pro_6000(), link_kind::pcie);
    REQUIRE(pro.has_value());
    CHECK_FALSE(pro->latency_host_bound);
    const auto pcie = link_params_from_profile(*pro);
    CHECK(pcie.beta_bytes_per_s == approx(22.2e9));
    CHECK(pcie.base_latency_s == approx(3.6e-6));
    CHECK(pcie.alpha_s == approx((48.16e-6 - 3.6e-6 - 1.75 * 32768 / 22.2e9) / 14).epsilon(1e-9));
    CHECK(pcie.alpha_s == approx(3.00e-6).epsilon(0.01));
    // 2x H200 over NVLink, this project's sweep: every call of 1-16 KB took 35-44 us, the host's
    // launch cost (CUDA events around back-to-back eager calls). Fitted as the link's alpha it
    // was 16.3 us a step, and a TP4 decode step of Llama-3.1-70B came out slower on an H200
    // than on an H100. Only the bandwidth is kept: alpha and base are NCCL's (0.47 and 3.6 us).
    const auto h200 = find_link_profile(gpus::h200_sxm(), link_kind::nvlink);
    REQUIRE(h200.has_value());
    CHECK(h200->latency_host_bound);
    const auto nv = link_params_from_profile(*h200);
    CHECK(nv.beta_bytes_per_s == approx(302.2e9));
    CHECK(nv.alpha_s == approx(0.47e-6));
    CHECK(nv.base_latency_s == approx(3.6e-6));
    CHECK(nv.p2p);
    CHECK(nv.source.find("host launch") != std::string::npos);
    // The same profile without the flag gives the 16.3 us the planner had charged.
    auto eager = *h200;
    eager.latency_host_bound = false;
    CHECK(link_params_from_profile(eager).alpha_s ==
          approx((36.36e-6 - 3.6e-6 - 32768 / 302.2e9) / 2).epsilon(1e-9));
}
