// The bodies of the trace analysis (analysis/), compiled once for the `roofline` command and the
// Python module, beside implementation_io.cpp (the readers' and the reports' bodies) and the
// subcommands' unity translation unit: three translation units balanced for two cores (README,
// "Compile time").
#define ROOFLINE_IMPLEMENTATION_ANALYSIS
#include "roofline/roofline.hpp"
