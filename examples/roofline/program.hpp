#pragma once
// The `roofline` program as a function (examples/roofline/program.cpp), so that main.cpp includes
// no CLI11 header and the command-line parser is compiled once, inside the subcommands' unity
// translation unit (README, "Compile time").

#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace roofline::cli {

/// The one-line message of a command-line error `e` of `app` parsing `argv[0..argc)`: CLI11's,
/// or an unknown command named with the commands there are, or a mistyped option named with
/// the option it resembles ("unknown option "--kvlen" (did you mean --kv-len?)"). The CLI and
/// the Python module print the same.
std::string parse_error_message(CLI::App& app, const CLI::ParseError& e, int argc, const char* const* argv);

/// Runs `roofline` with `argv[0..argc)`. Returns the exit code: 0 success; 2 bad usage or bad
/// input (a one-line error naming the file, the place and the field, printed to stderr); 1 an
/// internal error (a bug). Never throws.
int run_program(int argc, char** argv);

}  // namespace roofline::cli
