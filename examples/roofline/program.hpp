#pragma once
// The `roofline` program as a function (examples/roofline/program.cpp), so that main.cpp includes
// no CLI11 header and the command-line parser is compiled once, inside the subcommands' unity
// translation unit (README, "Compile time").

namespace roofline::cli {

/// Runs `roofline` with `argv[0..argc)`. Returns the exit code: 0 success; 2 bad usage or bad
/// input (a one-line error naming the file, the place and the field, printed to stderr); 1 an
/// internal error (a bug). Never throws.
int run_program(int argc, char** argv);

}  // namespace roofline::cli
