// Tests of io/calibration.hpp: reading ceiling overrides (version 0) and whole overlays
// (version 1), writing them, and applying them.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "roofline/core/catalog.hpp"
#include "roofline/io/calibration.hpp"

using namespace roofline;

namespace {
std::string temp_json(const std::string& stem, const std::string& text) {
    const auto p = std::filesystem::temp_directory_path() / ("roofline_cal_" + stem + ".json");
    std::ofstream(p) << text;
    return p.string();
}
}  // namespace

TEST_CASE("calibration overrides named ceilings by dtype or rate-class name and keeps the rest") {
    const auto p = temp_json("ok", R"({"gpu": "h200-sxm", "ceilings": {"bf16": 7.9e14, "float8_e4m3fn": 1.45e15,
        "dram_bytes_per_s": 4.3e12, "link_bytes_per_s": 3.6e11, "launch_latency_s": 4e-6}})");
    const auto o = read_calibration(p);
    CHECK(o.overrides_flops(peak_key::bf16));
    CHECK(o.overrides_flops(peak_key::fp8));  // a dtype spelling maps to its rate class
    CHECK_FALSE(o.overrides_flops(peak_key::fp16));
    const auto c = apply_calibration(datasheet_ceilings(gpus::h200_sxm()), o);
    CHECK(c.flops_at(peak_key::bf16) == 7.9e14);
    CHECK(c.flops_at(peak_key::fp8) == 1.45e15);
    CHECK(c.flops_at(peak_key::fp16) == 989e12);
    CHECK(c.bytes_at(memory_level::dram) == 4.3e12);
    CHECK(c.link_bytes_per_s == 3.6e11);
    CHECK(c.launch_latency_s == 4e-6);
    CHECK(c.origin.find(p) != std::string::npos);
}

TEST_CASE("bad calibration files name the file and the key") {
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("neg", R"({"ceilings": {"bf16": -1}})")),
                         doctest::Contains("\"bf16\""), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("str", R"({"ceilings": {"dram_bytes_per_s": "4 TB/s"}})")),
                         doctest::Contains("expected a number"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("key", R"({"ceilings": {"hbm": 1}})")),
                         doctest::Contains("unknown key"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("bad", R"({"ceilings": )")), doctest::Contains("byte"), parse_error);
    CHECK_THROWS_AS(read_calibration("/nonexistent/cal.json"), parse_error);
    // An empty ceilings object overrides nothing.
    CHECK_FALSE(read_calibration(temp_json("empty", R"({"gpu": "h200-sxm", "ceilings": {}})")).dram_bytes_per_s.has_value());
}

TEST_CASE("JSON that is not a calibration overlay is refused, naming the key") {
    // Once, `{"foo": 1}` and a model config were read as overlays that changed nothing, and the
    // commands said "ceilings used: ... + calibration".
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("foo", R"({"foo": 1})")),
                         doctest::Contains("not a calibration overlay"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("cfg", R"({"hidden_size": 4096, "num_attention_heads": 32,
        "model_type": "llama"})")), doctest::Contains("not a calibration overlay"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("extra", R"({"gpu": "h200-sxm", "ceilings": {}, "hidden_size": 1})")),
                         doctest::Contains("\"hidden_size\": unknown key"), parse_error);
    // An overlay names the GPU it measured.
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("nogpu", R"({"ceilings": {"bf16": 7.9e14}})")),
                         doctest::Contains("\"gpu\": missing"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("gpunum", R"({"gpu": 5, "ceilings": {}})")),
                         doctest::Contains("expected a catalog id string"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("devid", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "device": {"id": "b200"}})")), doctest::Contains("disagrees"), parse_error);
}

TEST_CASE("an overlay applies to the GPU it was measured on only, the refusal names both GPUs") {
    calibration c;
    c.version = 1;
    c.gpu = "h200-sxm";
    c.source = "h200.json";
    c.device = {"h200-sxm", "NVIDIA H200", 132.0, 150109880320.0, 1.98e9, 3.201e9, "580.159.04"};
    CHECK_NOTHROW(require_calibration_gpu(c, gpus::h200_sxm()));
    CHECK_THROWS_WITH_AS(require_calibration_gpu(c, gpus::b200()),
                         doctest::Contains("h200.json was measured on h200-sxm (NVIDIA H200, 132 SMs, 150.1 GB, 1980 MHz, "
                                           "driver 580.159.04), not on b200 (NVIDIA HGX B200"),
                         usage_error);
    // Same id, other silicon (a user's GPU file reusing the id): the SM count tells.
    c.device.sm_count = 114.0;
    CHECK_THROWS_WITH_AS(require_calibration_gpu(c, gpus::h200_sxm()), doctest::Contains("SM count differs"), usage_error);
}

TEST_CASE("a compute roof at an SM clock never exceeds the calibrated ceiling it is derived from") {
    // The committed H200 overlay: bf16 759 TFLOP/s (a 4096^3 GEMM), best per clock 479,192 FLOP
    // (a power-capped GEMM): the ceiling stands for 758.67e12 / 479,192 = 1583 MHz, so at 1900 MHz
    // phi x f = 910 TFLOP/s, a rate nothing measured; `roof` printed it.
    const auto g = gpus::h200_sxm();
    calibration cal;
    cal.gpu = g.id;
    cal.flops_per_s[static_cast<std::size_t>(peak_key::bf16)] = 758.67e12;
    cal.flops_per_clock[static_cast<std::size_t>(peak_key::bf16)] = 479191.6;
    cal.flops_per_s[static_cast<std::size_t>(peak_key::fp32)] = 60.8e12;  // measured, no per-clock rate
    const ceilings c = apply_calibration(datasheet_ceilings(g), cal);
    const auto held = compute_roof_at_clock(g, c, &cal, peak_key::bf16, 1900e6);
    CHECK(held.calibrated);
    CHECK(held.held_at_ceiling);
    CHECK(held.flops_per_s == 758.67e12);
    CHECK(held.reference_clock_hz == approx(1583.2e6).epsilon(1e-4));
    // Below 1583 MHz: phi x f, 479,192 x 1410 MHz = 675.66 TFLOP/s (0.01%).
    const auto capped = compute_roof_at_clock(g, c, &cal, peak_key::bf16, 1410e6);
    CHECK_FALSE(capped.held_at_ceiling);
    CHECK(capped.flops_per_s == approx(675.66e12).epsilon(1e-4));
    // Without a measured phi the datasheet's clock (1830 MHz) is the reference: 60.8 x 1410 / 1830.
    CHECK(compute_roof_at_clock(g, c, &cal, peak_key::fp32, 1410e6).flops_per_s ==
          approx(60.8e12 * 1410 / 1830).epsilon(1e-9));
    CHECK(compute_roof_at_clock(g, c, &cal, peak_key::fp32, 1980e6).flops_per_s == 60.8e12);
    // A datasheet row scales with the clock from the datasheet's: 989 x 1410 / 1830 = 762.0 TFLOP/s.
    const auto ds = compute_roof_at_clock(g, c, &cal, peak_key::fp16, 1410e6);
    CHECK_FALSE(ds.calibrated);
    CHECK(ds.flops_per_s == approx(762.0e12).epsilon(1e-4));
    // The law, over every clock up to the maximum: never above the calibrated ceiling, never
    // falling with the clock.
    double last = 0;
    for (double f = 200e6; f <= 1980e6; f += 15e6) {
        const double r = compute_roof_at_clock(g, c, &cal, peak_key::bf16, f).flops_per_s;
        CHECK(r <= 758.67e12);
        CHECK(r >= last);
        last = r;
    }
    CHECK_THROWS_AS(compute_roof_at_clock(g, c, &cal, peak_key::fp4, 1410e6), usage_error);  // no FP4 on Hopper
    CHECK_THROWS_AS(compute_roof_at_clock(g, c, &cal, peak_key::bf16, 0.0), usage_error);
}

TEST_CASE("a version-1 overlay round-trips: ceilings, per-clock rates, curves, links, power and provenance") {
    calibration c;
    c.version = 1;
    c.gpu = "h200-sxm";
    c.created_utc = "2026-11-30T06:00:00Z";
    c.tool = "test";
    c.inputs.push_back({"k.json", "roofline.kernels/1", 233, 229, ""});
    c.inputs.push_back({"k copy.json", "roofline.kernels/1", 0, 0, "the same content as k.json: used once"});
    c.flops_per_s[static_cast<std::size_t>(peak_key::bf16)] = 8.0e14;
    c.dram_bytes_per_s = 4.3e12;
    c.launch_latency_s = 4.4e-6;
    c.graph_launch_latency_s = 0.52e-6;
    calibration_source src;
    src.files = {"k.json"};
    src.records = 63;
    src.method = "max";
    src.flops_per_clock = 479e3;
    src.clock_hz = 1.44e9;
    c.ceiling_sources["bf16"] = src;
    kernel_curve k;
    k.family = kernel_family::grouped_gemm;
    k.fixed_latency_s = 25e-6;
    k.flops_per_clock = 4e5;
    k.floor_s = 5e-5;
    k.tile_rows = 128;
    k.fit.points = 60;
    k.fit.median_abs_error = 0.035;
    k.fit.cv_folds = 5;
    k.fit.source = "k.json (60 records)";
    k.clocks_recorded = false;
    c.curves.push_back(k);  // bytes_per_s stays NaN: written as null, read back as NaN
    calibrated_link l;
    l.link = link_kind::nvlink;
    l.ranks = 2;
    l.params.alpha_s = 0.47e-6;
    l.params.beta_bytes_per_s = 3.3e11;
    l.params.base_latency_s = 3.6e-6;
    l.host_floor_s = 36.8e-6;
    l.points = 21;
    c.links.push_back(l);
    calibrated_link pcie = l;  // a second link without a host floor: the key stays out
    pcie.link = link_kind::pcie;
    pcie.host_floor_s.reset();
    c.links.push_back(pcie);
    calibrated_power p;
    p.coefficients.joules_per_flop.fill(std::nan(""));
    p.coefficients.static_w = 118;
    p.coefficients.joules_per_flop[static_cast<std::size_t>(peak_key::bf16)] = 0.74e-12;
    p.coefficients.joules_per_dram_byte = 122e-12;
    p.coefficients.reference_clock_hz = 1.41e9;
    p.coefficients.clock_exponent = 3;
    p.power_limit_w = 700;
    p.samples = 11;
    p.rms_residual_w = 45.6;
    p.max_abs_residual_w = 74.5;
    p.power_range_w = 607.7;
    p.unreliable = true;
    c.power = p;

    c.device = {"h200-sxm", "NVIDIA H200", 132.0, std::nullopt, 1.98e9, std::nullopt, "580.159.04"};

    const auto path = (std::filesystem::temp_directory_path() / "roofline_cal_v1.json").string();
    write_calibration(path, c);
    const auto r = read_calibration(path);
    CHECK(r.version == 1);
    CHECK(r.gpu == "h200-sxm");
    CHECK(r.device.name == "NVIDIA H200");
    CHECK(*r.device.sm_count == 132);
    CHECK_FALSE(r.device.memory_bytes.has_value());
    CHECK(*r.device.max_sm_clock_hz == 1.98e9);
    CHECK(r.device.driver == "580.159.04");
    CHECK(r.created_utc == "2026-11-30T06:00:00Z");
    REQUIRE(r.inputs.size() == 2);
    CHECK(r.inputs[0].records_used == 229);
    CHECK(r.inputs[0].note.empty());
    CHECK(r.inputs[1].note == "the same content as k.json: used once");
    CHECK(*r.flops_per_s[static_cast<std::size_t>(peak_key::bf16)] == 8.0e14);
    CHECK(*r.flops_per_clock[static_cast<std::size_t>(peak_key::bf16)] == 479e3);
    CHECK(r.ceiling_sources.at("bf16").records == 63);
    CHECK(*r.graph_launch_latency_s == 0.52e-6);
    REQUIRE(r.curves.size() == 1);
    CHECK(r.curves[0].family == kernel_family::grouped_gemm);
    CHECK(r.curves[0].tile_rows == 128);
    CHECK_FALSE(r.curves[0].clocks_recorded);
    CHECK(std::isnan(r.curves[0].bytes_per_s));
    CHECK(r.curves[0].fit.median_abs_error == 0.035);
    CHECK(std::isnan(r.curves[0].fit.p90_abs_error));
    REQUIRE(r.link_for(link_kind::nvlink) != nullptr);
    REQUIRE(r.link_for(link_kind::pcie) != nullptr);
    CHECK(r.link_for(link_kind::nvlink)->params.beta_bytes_per_s == 3.3e11);
    REQUIRE(r.link_for(link_kind::nvlink)->host_floor_s);
    CHECK(*r.link_for(link_kind::nvlink)->host_floor_s == 36.8e-6);
    CHECK_FALSE(r.link_for(link_kind::pcie)->host_floor_s);
    REQUIRE(r.power.has_value());
    CHECK(r.power->coefficients.flop_energy_at(peak_key::bf16) == 0.74e-12);
    CHECK(std::isnan(r.power->coefficients.flop_energy_at(peak_key::fp8)));
    CHECK(r.power->power_limit_w == 700);
    CHECK(r.power->power_range_w == 607.7);
    CHECK(r.power->unreliable);

    // The one call: ceilings, link and efficiency (curves, launch floors) together.
    ceilings used = achievable(datasheet_ceilings(gpus::h200_sxm()));
    link_params link = default_link_params(gpus::h200_sxm(), link_kind::nvlink);
    kernel_efficiency e;
    apply_calibration(used, link, e, r);
    CHECK(used.flops_at(peak_key::bf16) == 8.0e14);
    // The kernel's own launch cost stays device-side; the 4.4 us eager floor is the host's term.
    CHECK(used.launch_latency_s == 0.86e-6);
    CHECK(used.link_bytes_per_s == 3.3e11);
    CHECK(link.base_latency_s == 3.6e-6);
    CHECK(e.launch_floor_s == 4.4e-6);
    CHECK(e.graph_launch_floor_s == 0.52e-6);
    REQUIRE(e.curve_for(kernel_family::grouped_gemm, peak_key::bf16) != nullptr);
    CHECK(e.curve_for(kernel_family::gemm, peak_key::bf16) == nullptr);
    CHECK(calibrated_power_coefficients(r)->static_w == 118);
}

TEST_CASE("version-1 files with a bad schema, family or value are refused with the key named") {
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("v9", R"({"schema": "roofline.calibration/9"})")),
                         doctest::Contains("unsupported calibration schema"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("top", R"({"schema": "roofline.calibration/1", "curvez": []})")),
                         doctest::Contains("\"curvez\""), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("fam", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "curves": [{"family": "conv", "peak": "bf16", "fixed_latency_s": 0}]})")),
                         doctest::Contains("curves[0]: \"family\""), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("neg", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "curves": [{"family": "gemm", "peak": "bf16", "fixed_latency_s": -1}]})")),
                         doctest::Contains("\"fixed_latency_s\""), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("clk", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "curves": [{"family": "gemm", "peak": "bf16", "fixed_latency_s": 0, "clocks_recorded": "no"}]})")),
                         doctest::Contains("curves[0]: \"clocks_recorded\": expected true or false"), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("floor", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "links": [{"link": "nvlink", "op": "all_reduce", "ranks": 2, "alpha_s": 4.7e-7, "beta_bytes_per_s": 3e11, "base_latency_s": 3.6e-6, "host_floor_s": "37 us"}]})")),
                         doctest::Contains("links[0]: \"host_floor_s\""), parse_error);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("floor0", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "links": [{"link": "nvlink", "op": "all_reduce", "ranks": 2, "alpha_s": 4.7e-7, "beta_bytes_per_s": 3e11, "base_latency_s": 3.6e-6, "host_floor_s": 0}]})")),
                         doctest::Contains("links[0]: \"host_floor_s\""), parse_error);
    // Absent (an overlay written before the key): the records carried their clocks.
    CHECK(read_calibration(temp_json("clk2", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "curves": [{"family": "gemm", "peak": "bf16", "fixed_latency_s": 0}]})"))
              .curves.at(0)
              .clocks_recorded);
    CHECK_THROWS_WITH_AS(read_calibration(temp_json("link", R"({"schema": "roofline.calibration/1", "gpu": "h200-sxm",
        "links": [{"link": "nvlink", "ranks": 2, "alpha_s": 0, "base_latency_s": 0}]})")),
                         doctest::Contains("\"beta_bytes_per_s\": missing"), parse_error);
}
