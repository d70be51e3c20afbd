// The bodies of the trace analysis (analysis/), compiled once for the `roofline` command and the
// Python module, beside implementation_io.cpp (the readers' bodies), implementation_report.cpp (the
// reports') and the subcommands' unity translation unit: four translation units balanced for two
// cores (README, "Compile time").
#define ROOFLINE_IMPLEMENTATION_ANALYSIS
#include "roofline/roofline.hpp"
