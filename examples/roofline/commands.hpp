#pragma once
// Every subcommand of `roofline`, registered at once (examples/roofline/commands.cpp).

#include "cli.hpp"

namespace roofline::cli {

/// Adds every subcommand to `app`, in the order `roofline --help` lists them: the `roofline`
/// program and the Python module call this, so both offer the same commands.
void add_all_commands(CLI::App& app, common_options& common);

}  // namespace roofline::cli
