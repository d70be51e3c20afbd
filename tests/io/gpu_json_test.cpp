// Tests of io/gpu_json.hpp: the JSON export of the catalog, the round trip, and --gpu-file
// overlays (overrides, new GPUs, and bad files written to a temporary folder).
#include "roofline/io/gpu_json.hpp"

#include <doctest/doctest.h>

#include "approx.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "roofline/core/ceilings.hpp"

using namespace roofline;
using nlohmann::json;

namespace {

/// Writes `text` to a fresh file under the system temp folder and returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
    static std::atomic<int> counter{0};
    const auto dir = std::filesystem::temp_directory_path() /
                     ("roofline_gpu_json_test_" +
                      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                      "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path.string();
}

/// The parse_error `load_gpu_overlay` throws for `text`, checked to name the file.
parse_error overlay_error(const std::string& text) {
    const std::string path = write_temp("bad.json", text);
    auto c = gpu_catalog::builtin();
    try {
        load_gpu_overlay(c, path);
    } catch (const parse_error& e) {
        CHECK(e.file() == path);
        return e;
    }
    FAIL("no parse_error for: " << text);
    return parse_error("", "", "", "");
}

}  // namespace

TEST_CASE("every built-in GPU survives to_json -> text -> gpu_from_json unchanged") {
    for (const auto& g : gpu_catalog::builtin().all()) {
        INFO(g.id);
        const json j = json::parse(to_json(g).dump());
        const gpu_spec back = gpu_from_json(j, "roundtrip.json");
        CHECK(back.id == g.id);
        CHECK(back.name == g.name);
        CHECK(back.arch == g.arch);
        CHECK(back.sm_arch == g.sm_arch);
        CHECK(back.compute_capability() == g.compute_capability());
        CHECK(back.device_names == g.device_names);
        CHECK(back.memory_type == g.memory_type);
        int fields = 0;
        for_each_spec_value(g, [&](const std::string& field, const spec_value& v, bool) {
            INFO(field);
            const spec_value& w = *detail::gpu_field(back, field);
            CHECK(w.value == v.value);  // exact: integers print exactly, doubles round-trip
            CHECK(w.source == v.source);
            CHECK(w.note == v.note);
            CHECK(w.derived == v.derived);
            ++fields;
        });
        CHECK(fields == 21 + 4 * 9);
        for (auto k : all_peak_keys) {
            CHECK(back.peak(k).supported == g.peak(k).supported);
            CHECK(back.peak(k).accumulate == g.peak(k).accumulate);
            CHECK(back.dense_flops_per_s(k) == g.dense_flops_per_s(k));
        }
    }
}

TEST_CASE("to_json writes the public keys with SI numbers and nulls for unknowns") {
    const json b200 = to_json(gpus::b200());
    CHECK(b200["id"] == "b200");
    CHECK(b200["compute_capability"] == "10.0");
    CHECK(b200["sm_count"].is_number_integer());
    CHECK(b200["sm_count"] == 148);
    CHECK(b200["memory_bandwidth_bytes_per_s"].get<double>() == approx(7.67232e12));
    CHECK(b200["power_limit_w"] == 1000);
    CHECK(b200["power_limit_range_w"] == json::array({nullptr, 1000}));
    CHECK(b200["nvlink_bandwidth_bytes_per_s"].get<double>() == 1.8e12);
    CHECK(b200["pcie_bandwidth_bytes_per_s"].get<double>() == 64e9);
    CHECK(b200["p2p"] == true);
    CHECK(b200["dense_flops_per_s"]["bf16"].get<double>() == 2.25e15);
    CHECK(b200["sources"]["memory_bandwidth_bytes_per_s"] == "[C10][S5]");
    CHECK(b200["base_clock_hz"].is_null());
    CHECK(b200["notes"]["base_clock_hz"].get<std::string>().find("not published") !=
          std::string::npos);
    for (const char* key :
         {"id", "name", "arch", "compute_capability", "sm_count", "boost_clock_hz", "memory_bytes",
          "memory_bandwidth_bytes_per_s", "l2_bytes", "smem_per_sm_bytes", "smem_per_block_bytes",
          "power_limit_w", "power_limit_range_w", "nvlink_bandwidth_bytes_per_s",
          "pcie_bandwidth_bytes_per_s", "p2p", "dense_flops_per_s", "sources"})
        CHECK_MESSAGE(b200.contains(key), key);
    for (const char* key : {"fp4", "fp6", "fp8", "fp16", "bf16", "tf32", "int8", "fp32", "fp64"})
        CHECK_MESSAGE(b200["dense_flops_per_s"].contains(key), key);

    const json h200 = to_json(gpus::h200_sxm());
    CHECK(h200["dense_flops_per_s"]["fp4"].is_null());  // unsupported
    CHECK(h200["unsupported"] == json::array({"fp4", "fp6"}));

    const json rtx = to_json(gpus::rtx_5090());
    CHECK(rtx["compute_capability"] == "12.0");
    CHECK(rtx["p2p"] == false);
    CHECK(rtx["nvlink_bandwidth_bytes_per_s"] == 0);
    CHECK(rtx["dense_flops_per_s"]["tf32"].is_null());  // unknown (UNCONF)
    CHECK(rtx["dense_fp16_acc_flops_per_s"]["fp16"].get<double>() == 419e12);
    CHECK(rtx["accumulate"]["bf16"] == "fp32");

    const json all = to_json(gpu_catalog::builtin().all());
    CHECK(all.is_array());
    CHECK(all.size() == 37);
}

TEST_CASE("an overlay entry for a known id overrides only the fields it gives") {
    const std::string path = write_temp("measured.json", R"({
        "id": "b200",
        "memory_bandwidth_bytes_per_s": 6.0e12,
        "power_limit_w": 700,
        "sources": {"memory_bandwidth_bytes_per_s": "measured: nvbandwidth D2D"},
        "notes": {"power_limit_w": "DGX default set point"}
    })");
    auto c = gpu_catalog::builtin();
    load_gpu_overlay(c, path);
    const auto& g = c.at("b200");
    CHECK(*g.memory_bandwidth_bytes_per_s.value == 6.0e12);
    CHECK(g.memory_bandwidth_bytes_per_s.source == "measured: nvbandwidth D2D");
    CHECK(!g.memory_bandwidth_bytes_per_s.derived);
    CHECK(*g.power_limit_w.value == 700);
    CHECK(g.power_limit_w.source == "user file " + path);
    CHECK(g.power_limit_w.note == "DGX default set point");
    // Untouched fields keep their built-in values and sources.
    CHECK(*g.peak(peak_key::bf16).dense_flops_per_s.value == 2.25e15);
    CHECK(g.peak(peak_key::bf16).dense_flops_per_s.source ==
          gpus::b200().peak(peak_key::bf16).dense_flops_per_s.source);
    CHECK(*g.power_limit_max_w.value == 1000);
    CHECK(c.all().size() == 37);
    // The ceilings follow: 6 TB/s -> the FP4 ridge moves from 1173 to 9e15 / 6e12 = 1500 FLOP/B.
    CHECK(datasheet_ceilings(g).bytes_at(memory_level::dram) == 6.0e12);
}

TEST_CASE("an overlay array can add a new GPU, which starts with every other field unknown") {
    const std::string path = write_temp("new.json", R"([
        {"id": "h200-sxm", "p2p": false},
        {"id": "my-gpu", "name": "Lab GPU", "compute_capability": "9.0", "sm_count": 114,
         "memory_bandwidth_bytes_per_s": 2.0e12, "dense_flops_per_s": {"bf16": 7.56e14, "fp4": null},
         "unsupported": ["fp4"], "accumulate": {"bf16": "fp32"}}
    ])");
    auto c = gpu_catalog::builtin();
    load_gpu_overlay(c, path);
    CHECK(c.all().size() == 38);  // the 37 built-in entries and the new one
    CHECK(c.at("h200-sxm").p2p.value == 0.0);
    const auto& g = c.at("my-gpu");
    CHECK(g.name == "Lab GPU");
    CHECK(g.cc_major == 9);
    CHECK(*g.sm_count.value == 114);
    CHECK(g.sm_count.source == "user file " + path);
    CHECK(!g.l2_bytes.known());
    CHECK(g.l2_bytes.note == "not given in " + path);
    CHECK(g.dense_flops_per_s(peak_key::bf16) == 7.56e14);
    CHECK(g.dense_flops_per_s(peak_key::fp4) == 0.0);
    CHECK(!g.dense_flops_per_s(peak_key::fp8).has_value());
    CHECK(!g.peak(peak_key::fp4).supported);
    // bf16 ridge: 7.56e14 / 2e12 = 378 FLOP/B.
    CHECK(datasheet_ceilings(g).flops_at(peak_key::bf16) / 2.0e12 == approx(378.0));
}

TEST_CASE("a JSON export can be edited and loaded back as an overlay") {
    json j = to_json(gpus::rtx_5090());
    j["id"] = "rtx-5090-oc";
    j["tensor_clock_hz"] = 2.85e9;
    j["sources"]["tensor_clock_hz"] = "measured under load";
    const std::string path = write_temp("oc.json", j.dump(2));
    auto c = gpu_catalog::builtin();
    load_gpu_overlay(c, path);
    CHECK(*c.at("rtx-5090-oc").tensor_clock_hz.value == 2.85e9);
    CHECK(c.at("rtx-5090-oc").tensor_clock_hz.source == "measured under load");
    CHECK(*c.at("rtx-5090").tensor_clock_hz.value == 2.407e9);
}

TEST_CASE("bad overlay files are parse errors naming the file, the entry and the field") {
    SUBCASE("a missing file") {
        auto c = gpu_catalog::builtin();
        CHECK_THROWS_AS(load_gpu_overlay(c, "/nonexistent/gpus.json"), parse_error);
    }
    SUBCASE("malformed JSON gives the byte offset") {
        const auto e = overlay_error("{\"id\": \"b200\",\n \"sm_count\": }");
        // The '}' is the 14th character of line 2; 29 bytes have been read.
        CHECK(e.place() == "line 2, column 14 (byte 29)");
        CHECK(std::string(e.what()).find("malformed JSON: syntax error") != std::string::npos);
    }
    SUBCASE("neither an object nor an array") {
        CHECK(std::string(overlay_error("42").what()).find("expected a GPU object") !=
              std::string::npos);
        CHECK(std::string(overlay_error("[]").what()).find("no GPU entries") != std::string::npos);
    }
    SUBCASE("an entry without an id") {
        const auto e = overlay_error(R"([{"id": "b200"}, {"name": "x"}])");
        CHECK(e.place() == "entry 1");
        CHECK(e.field() == "id");
    }
    SUBCASE("a new GPU without its SM count") {
        const auto e = overlay_error(R"([{"id": "b200"}, {"id": "x", "name": "X",
            "compute_capability": "9.0", "memory_bandwidth_bytes_per_s": 3e12,
            "dense_flops_per_s": {"bf16": 1e15}}])");
        CHECK(e.place() == "entry 1 (id \"x\")");
        CHECK(e.field() == "sm_count");
    }
    SUBCASE("a new GPU whose SM count is null without a note saying why") {
        const char* entry =
            R"({"id": "x", "name": "X", "compute_capability": "10.3", "sm_count": null,
            "memory_bandwidth_bytes_per_s": 8e12, "dense_flops_per_s": {"fp4": 1.5e16}%s})";
        char buf[512];
        std::snprintf(buf, sizeof buf, entry, "");
        CHECK(overlay_error(buf).field() == "sm_count");
        std::snprintf(buf, sizeof buf, entry, R"(, "notes": {"sm_count": "not published"})");
        auto c = gpu_catalog::builtin();
        load_gpu_overlay(c, write_temp("ok.json", buf));
        CHECK(c.at("x").sm_count.note == "not published");
    }
    SUBCASE("a new GPU without any peak") {
        const auto e = overlay_error(R"({"id": "x", "name": "X", "compute_capability": "9.0",
            "sm_count": 100, "memory_bandwidth_bytes_per_s": 3e12})");
        CHECK(e.field() == "dense_flops_per_s");
    }
    SUBCASE("a misspelt field") {
        const auto e = overlay_error(R"({"id": "b200", "memory_bandwith_bytes_per_s": 8e12})");
        CHECK(e.field() == "memory_bandwith_bytes_per_s");
        CHECK(e.place() == "entry 0 (id \"b200\")");
    }
    SUBCASE("human units instead of SI") {
        CHECK(overlay_error(R"({"id": "b200", "memory_bandwidth_bytes_per_s": 8000})").field() ==
              "memory_bandwidth_bytes_per_s");
        CHECK(overlay_error(R"({"id": "b200", "boost_clock_hz": 1965})").field() ==
              "boost_clock_hz");
        CHECK(overlay_error(R"({"id": "b200", "dense_flops_per_s": {"bf16": 2250}})").field() ==
              "dense_flops_per_s.bf16");
        CHECK(overlay_error(R"({"id": "b200", "smem_per_block_bytes": 227})").field() ==
              "smem_per_block_bytes");
    }
    SUBCASE("wrong types and values") {
        CHECK(overlay_error(R"({"id": "b200", "sm_count": "148"})").field() == "sm_count");
        CHECK(overlay_error(R"({"id": "b200", "sm_count": 148.5})").field() == "sm_count");
        CHECK(overlay_error(R"({"id": "b200", "power_limit_w": -5})").field() == "power_limit_w");
        CHECK(overlay_error(R"({"id": "b200", "compute_capability": "10"})").field() ==
              "compute_capability");
        CHECK(overlay_error(R"({"id": "b200", "compute_capability": 10.0})").field() ==
              "compute_capability");
        CHECK(overlay_error(R"({"id": "b200", "dense_flops_per_s": {"fp5": 1e15}})").field() ==
              "dense_flops_per_s.fp5");
        CHECK(overlay_error(R"({"id": "b200", "p2p": "yes"})").field() == "p2p");
        CHECK(overlay_error(R"({"id": "b200", "power_limit_range_w": [1000, 200]})").field() ==
              "power_limit_range_w");
        CHECK(overlay_error(R"({"id": "b200", "power_limit_range_w": 1000})").field() ==
              "power_limit_range_w");
        CHECK(overlay_error(
                  R"({"id": "b200", "unsupported": ["bf16"], "dense_flops_per_s": {"bf16": 1e15}})")
                  .field() == "dense_flops_per_s.bf16");
    }
    SUBCASE("a source for a field the entry does not set") {
        const auto e = overlay_error(R"({"id": "b200", "sources": {"l2_bytes": "[S11]"}})");
        CHECK(e.field() == "sources.l2_bytes");
    }
    SUBCASE("the message is one line: file: place: \"field\": detail") {
        const auto e = overlay_error(R"({"id": "b200", "sm_count": "148"})");
        const std::string msg = e.what();
        CHECK(msg.find('\n') == std::string::npos);
        CHECK(msg.find(": entry 0 (id \"b200\"): \"sm_count\": expected a number") !=
              std::string::npos);
    }
}

TEST_CASE("gpu_from_json applies the rules for a new GPU") {
    CHECK_THROWS_AS(gpu_from_json(json::parse(R"({"id": "x"})"), "in.json"), parse_error);
    CHECK_THROWS_AS(gpu_from_json(json::parse("[1]"), "in.json"), parse_error);
    const auto g =
        gpu_from_json(json::parse(R"({"id": "x", "name": "X", "compute_capability": "12.0",
        "sm_count": 10, "memory_bandwidth_bytes_per_s": 1e11, "dense_flops_per_s": {"fp32": 1e13}})"),
                      "in.json");
    CHECK(g.compute_capability() == "12.0");
    CHECK(g.dense_flops_per_s(peak_key::fp32) == 1e13);
}
