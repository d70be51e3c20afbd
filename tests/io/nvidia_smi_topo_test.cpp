// Tests of io/nvidia_smi_topo.hpp and models/host_topology.hpp: reading `nvidia-smi topo -m`,
// sockets and switches, and the PCIe ring it implies, checked against a published 8x RTX PRO
// 6000 measurement of P2P on and off.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>
#include <fstream>

#include "roofline/core/catalog.hpp"
#include "roofline/io/nvidia_smi_topo.hpp"
#include "roofline/models/host_topology.hpp"

using namespace roofline;

namespace {
std::string fixture(const std::string& name) {
    return (std::filesystem::path(ROOFLINE_TESTS_DIR) / "io/data" / name).string();
}
}  // namespace

TEST_CASE("nvidia-smi topo -m: a dual-socket direct-attach box and a single-socket two-switch box") {
    // Layouts as voipmonitor/rtx6kpro hardware/topology.md prints them ("8-GPU Dual-CPU" and
    // "8-GPU with PCIe Switches (Single CPU)"); the second with nvidia-smi's NIC, affinity and
    // legend columns (affinity values of our own, for the parser).
    const auto dual = read_nvidia_smi_topo(fixture("nvidia_smi_topo_8gpu_2socket.txt"));
    REQUIRE(dual.gpus() == 8);
    CHECK(dual.path[0][4] == gpu_path::sys);
    CHECK(dual.path[0][1] == gpu_path::phb);
    CHECK(dual.numa[0] == -1);  // not printed: sockets from the SYS groups
    const auto d = summarize_topology(dual);
    CHECK(d.sockets == 2);
    CHECK(d.max_gpus_per_socket == 4);
    CHECK(d.switches == 0);
    CHECK(d.ring_socket_crossings == 2);

    const auto sw = read_nvidia_smi_topo(fixture("nvidia_smi_topo_8gpu_2switch.txt"));
    REQUIRE(sw.gpus() == 8);  // the NIC row and the legend are not GPUs
    CHECK(sw.numa[7] == 0);
    const auto s = summarize_topology(sw);
    CHECK(s.sockets == 1);
    CHECK(s.switches == 2);
    CHECK(s.max_gpus_per_switch == 4);
    CHECK(s.ring_socket_crossings == 0);
}

TEST_CASE("bad topology files name the file, line and column") {
    const auto p = (std::filesystem::temp_directory_path() / "roofline_topo_bad.txt").string();
    std::ofstream(p) << "        GPU0    GPU1\nGPU0     X      WARP\nGPU1    PIX      X\n";
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo(p), doctest::Contains("line 2: \"GPU1\": unknown path \"WARP\""), parse_error);
    std::ofstream(p) << "no header here\n";
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo(p), doctest::Contains("no `nvidia-smi topo -m` header"), parse_error);
    std::ofstream(p) << "        GPU0    GPU1\nGPU0     X      PIX\n";
    CHECK_THROWS_WITH_AS(read_nvidia_smi_topo(p), doctest::Contains("1 rows for 2 GPU columns"), parse_error);
}

TEST_CASE("the PCIe ring a topology implies, against 8x RTX PRO 6000 P2P on and off (Kimi K2.5, TP8, one request)") {
    const auto t = summarize_topology(read_nvidia_smi_topo(fixture("nvidia_smi_topo_8gpu_2socket.txt")));
    const auto g = gpus::rtx_pro_6000_server();
    // Published (voipmonitor/rtx6kpro models/kimi-k25.md, "Single-batch decode speed", Festr's
    // dual EPYC Turin, direct attach, vLLM, INT4, FP8 KV, DCP=8, 0K context): 65 tok/s with P2P
    // (15.4 ms a token), 44 tok/s with NCCL_P2P_DISABLE=1 (22.7 ms): P2P saves 7.3 ms a token.
    const double measured_saving_s = 1.0 / 44 - 1.0 / 65;
    CHECK(measured_saving_s == approx(7.34e-3).epsilon(0.01));
    // The decode's tensor-parallel all-reduces: 2 per layer x 61 layers, 7168 bf16 = 14,336 B.
    const double bytes = 7168 * 2;
    const auto on = pcie_ring_params(t, g, true, true);     // P2P, NCCL_P2P_LEVEL=SYS (their tuning)
    const auto off = pcie_ring_params(t, g, false, false);  // NCCL_P2P_DISABLE=1
    const auto ar_on = best_collective(collective_op::all_reduce, bytes, 8, on);
    const auto ar_off = best_collective(collective_op::all_reduce, bytes, 8, off);
    // With P2P: two-shot, 3.6 + 2 x 1.0 us + 1.75 x 14336 / 64e9 = 5.99 us; staged: ring,
    // 3.6 + 14 x 2.96 + 1.75 x 14336 / 32e9 = 45.8 us.
    CHECK(ar_on.time_s == approx(5.99e-6).epsilon(0.01));
    CHECK(ar_off.time_s == approx(45.82e-6).epsilon(0.01));
    const double saving_tp = 122 * (ar_off.time_s - ar_on.time_s);
    // The all-reduces alone give 4.86 ms of the 7.34 ms (66%): the rest is what the model does not
    // count (DCP=8's collectives of the attention outputs, one more small one per layer: 183 of
    // them give 7.29 ms, our reading of DCP, not a measurement).
    CHECK(saving_tp == approx(4.86e-3).epsilon(0.01));
    CHECK(saving_tp < measured_saving_s);
    CHECK(saving_tp > 0.5 * measured_saving_s);
    // NCCL's default on two sockets (no P2P across SYS paths) stages the ring at every step: the
    // P2P saving is gone, which is why the community sets NCCL_P2P_LEVEL=SYS on dual-CPU boxes
    // (voipmonitor/rtx6kpro daily-summaries 2026-02-21: "+5-10 tok/s on 2-CPU systems").
    const auto dflt = pcie_ring_params(t, g, true, false);
    CHECK(best_collective(collective_op::all_reduce, bytes, 8, dflt).time_s == approx(ar_off.time_s));
    // Behind shared switches, staged bytes of 4 GPUs share one x16 uplink: a quarter of it each.
    const auto sw = summarize_topology(read_nvidia_smi_topo(fixture("nvidia_smi_topo_8gpu_2switch.txt")));
    CHECK(pcie_ring_params(sw, g, false, false).beta_bytes_per_s == approx(off.beta_bytes_per_s / 4));
    CHECK(pcie_ring_params(sw, g, true, false).beta_bytes_per_s == approx(on.beta_bytes_per_s));
}
