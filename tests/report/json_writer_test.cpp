// report/json_writer.hpp: the streaming writer's text equals nlohmann::json::dump for the same
// value, on every kind of value and at several indents and depths.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/report/json_writer.hpp"

using roofline::report::json_text_writer;

namespace {

/// The doubles dump formats in each of its branches: integral ("3.0"), fixed, small and large
/// exponents, the shortest round trip, negative zero, denormals, extremes.
const double kDoubles[] = {0.0,     -0.0,   1.0,     3.0,     -2.5,    0.1,     1.0 / 3.0, 123456789.123, 1e-5,
                           1.5e-7,  1e15,   1e16,    1.5e20,  1e21,    1e22,    2.5e-300,  4.9e-324,      1.7976931348623157e308,
                           6.02e23, 0.0001, 0.00001, 299792458.0, 1099511627776.0, 9007199254740993.0};

}  // namespace

TEST_CASE("json_text_writer: every double is written as nlohmann's dump writes it") {
    for (double v : kDoubles) {
        std::string out;
        json_text_writer w(out, 1);
        w.number(v);
        CHECK(out == nlohmann::json(v).dump(1));
    }
    std::string out;
    json_text_writer w(out, 1);
    w.number(std::numeric_limits<double>::quiet_NaN());
    CHECK(out == "null");
    out.clear();
    w.number(-std::numeric_limits<double>::infinity());
    CHECK(out == nlohmann::json(-std::numeric_limits<double>::infinity()).dump());  // null
}

TEST_CASE("json_text_writer: strings are escaped as nlohmann's dump escapes them") {
    static constexpr char with_nul[] = "nul \0 and \x1f unit sep";  // a NUL inside: the length is explicit
    const std::string strings[] = {"", "plain", "quote \" and back\\slash", "tab\tnew\nline\rret\bbs\fff",
                                   std::string(with_nul, sizeof with_nul - 1), "UTF-8 \xc2\xb5s \xe2\x89\xa4 3"};
    for (const auto& s : strings) {
        std::string out;
        json_text_writer w(out, 1);
        w.string(s);
        CHECK(out == nlohmann::json(s).dump(1));
    }
}

TEST_CASE("json_text_writer: nested objects and arrays match dump at indents 1, 2 and compact") {
    // The writer takes keys in the order given; nlohmann's objects sort theirs, so they are given sorted.
    nlohmann::json j = {{"a_count", 8},
                        {"b_empty_array", nlohmann::json::array()},
                        {"c_empty_object", nlohmann::json::object()},
                        {"d_fits", true},
                        {"e_list", {1.0, nullptr, "x", false, {{"k", -3}}}},
                        {"f_nan", nullptr},
                        {"g_rate", 1.5e-7},
                        {"h_name", "rtx-pro-6000 \"Max-Q\""}};
    for (int indent : {1, 2, -1}) {
        std::string out;
        json_text_writer w(out, indent);
        w.begin_object();
        w.key("a_count"), w.integer(8);
        w.key("b_empty_array"), w.begin_array(), w.end_array();
        w.key("c_empty_object"), w.begin_object(), w.end_object();
        w.key("d_fits"), w.boolean(true);
        w.key("e_list"), w.begin_array();
        w.number(1.0), w.null(), w.string("x"), w.boolean(false);
        w.begin_object(), w.key("k"), w.integer(-3), w.end_object();
        w.end_array();
        w.key("f_nan"), w.number(std::numeric_limits<double>::quiet_NaN());
        w.key("g_rate"), w.number(1.5e-7);
        w.key("h_name"), w.string("rtx-pro-6000 \"Max-Q\"");
        w.end_object();
        CHECK(out == j.dump(indent));
    }
}

TEST_CASE("json_text_writer: an element written at depth 2 is the text dump gives it inside two levels") {
    // What plan --json streams: each point of the top-level "points" array on its own.
    nlohmann::json doc = {{"points", {{{"count", 1}, {"gpu", "b200"}}}}};
    const std::string whole = doc.dump(1);
    std::string out;
    json_text_writer w(out, 1, 2);
    w.begin_object();
    w.key("count"), w.integer(1);
    w.key("gpu"), w.string("b200");
    w.end_object();
    CHECK(whole == "{\n \"points\": [\n  " + out + "\n ]\n}");
}
