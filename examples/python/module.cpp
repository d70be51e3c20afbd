// roofline._roofline: the `roofline` command's subcommands run in-process for Python.
//
// `run(["trace", "t.json.gz", "--power", "smi.csv", "--json"])` parses the arguments with the
// CLI's own CLI11 definitions (examples/roofline/*.cpp, linked in as objects), runs the same
// callback the command runs, and returns what it printed on stdout; `run_json` parses that as
// JSON and returns Python objects (dict, list, str, int, float, bool, None), so a result is the
// CLI's `--json` document itself, key for key: one computation, one encoder, no second copy.
//
// Errors: bad input or usage raise `roofline.Error` (a ValueError) with the one-line message the
// CLI prints after "roofline: error: "; anything else raises RuntimeError (a bug).
//
// stdout is captured by pointing file descriptor 1 at an unlinked temporary file while the
// command runs (the GIL is held, so Python writes nothing meanwhile); stderr passes through.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // std::vector<std::string> from a Python list

#include <unistd.h>  // dup, dup2, close

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "../roofline/commands.hpp"
#include "../roofline/program.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/version.hpp"

namespace py = pybind11;

void add_models_submodule(py::module_& parent);  // models.cpp

namespace {

/// Redirects file descriptor 1 into a temporary file until `take()` or destruction.
class stdout_capture {
public:
    stdout_capture() {
        std::fflush(stdout);
        std::cout.flush();
        file_ = std::tmpfile();
        if (!file_) throw std::runtime_error("roofline: cannot create a temporary file for the output");
        saved_ = ::dup(1);
        if (saved_ < 0 || ::dup2(::fileno(file_), 1) < 0) {
            std::fclose(file_);
            throw std::runtime_error("roofline: cannot redirect stdout");
        }
    }
    stdout_capture(const stdout_capture&) = delete;
    stdout_capture& operator=(const stdout_capture&) = delete;
    ~stdout_capture() { restore(); }

    /// Everything written to stdout since construction; stdout is restored.
    std::string take() {
        restore();
        std::string out;
        std::rewind(file_);
        char buf[1 << 16];
        while (const std::size_t n = std::fread(buf, 1, sizeof buf, file_)) out.append(buf, n);
        std::fclose(file_);
        file_ = nullptr;
        return out;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stdout);
        std::cout.flush();
        ::dup2(saved_, 1);
        ::close(saved_);
        saved_ = -1;
    }
    std::FILE* file_ = nullptr;
    int saved_ = -1;
};

/// Runs `roofline ARGS...` in-process; returns its stdout. Throws roofline::usage_error for a
/// CLI11 parse error (with " (see --help)" as the CLI prints it), roofline::error as thrown.
std::string run_command(const std::vector<std::string>& args) {
    // A fresh App and fresh options each call: every add_*_command resets its option values.
    CLI::App app{"roofline"};
    app.require_subcommand(1);
    app.set_version_flag("--version", roofline::version_line());
    roofline::cli::common_options common;
    roofline::cli::add_all_commands(app, common);
    std::vector<const char*> argv{"roofline"};
    for (const auto& a : args) argv.push_back(a.c_str());
    stdout_capture capture;
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp& e) {
        app.exit(e);  // prints the help to stdout, which is captured and returned
    } catch (const CLI::CallForAllHelp& e) {
        app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        app.exit(e);
    } catch (const CLI::ParseError& e) {
        capture.take();
        throw roofline::usage_error(roofline::cli::parse_error_message(app, e, static_cast<int>(argv.size()), argv.data()) +
                                    " (see --help)");
    }
    return capture.take();
}

py::object to_python(const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::ordered_json::value_t::null: return py::none();
        case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
        case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
        case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
        case nlohmann::ordered_json::value_t::number_float: return py::float_(j.get<double>());
        case nlohmann::ordered_json::value_t::string: return py::str(j.get_ref<const std::string&>());
        case nlohmann::ordered_json::value_t::array: {
            py::list out;
            for (const auto& v : j) out.append(to_python(v));
            return out;
        }
        case nlohmann::ordered_json::value_t::object: {
            py::dict out;
            for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
            return out;
        }
        default: return py::none();  // binary and discarded values: never produced by the CLI
    }
}

/// The command's stdout (one JSON document) as Python objects. Text that is not one JSON
/// document raises RuntimeError naming the command (a bug: the wrappers always ask for --json).
py::object run_json(const std::vector<std::string>& args) {
    const std::string out = run_command(args);
    nlohmann::ordered_json doc;
    try {
        doc = nlohmann::ordered_json::parse(out);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("roofline " + (args.empty() ? std::string() : args.front()) +
                                 ": the output is not one JSON document (" + e.what() + ")");
    }
    return to_python(doc);
}

}  // namespace

PYBIND11_MODULE(_roofline, m) {
    m.doc() = "roofline's subcommands run in-process (see the roofline package for the Python API)";
    py::register_exception<roofline::error>(m, "Error", PyExc_ValueError);
    m.def("run", &run_command, py::arg("args"),
          "Runs `roofline ARGS...` in-process and returns what it printed (str).");
    m.def("run_json", &run_json, py::arg("args"),
          "Runs `roofline ARGS...` (which should include --json) and returns the parsed JSON.");
    m.attr("__version__") = std::string(roofline::library_version);
    const auto f = roofline::compiled_fast_paths();
    py::dict fast;
    fast["simdjson"] = f.simdjson;
    fast["sqlite"] = f.sqlite;
    fast["gzip"] = std::string(f.gzip);
    m.attr("fast_paths") = fast;
    m.attr("version_line") = roofline::version_line();
    add_models_submodule(m);
}
