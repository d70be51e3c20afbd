// The bodies of the readers (io/) and the reports (report/), compiled once for the `roofline`
// command and the Python module: every other file of theirs is compiled with
// ROOFLINE_SEPARATE_COMPILATION and sees declarations only (include/roofline/core/compilation.hpp;
// README, "Compile time"). The reports are here rather than with the analysis' bodies so that the
// three translation units of the command take about the same time on two cores.
#define ROOFLINE_IMPLEMENTATION_IO
#define ROOFLINE_IMPLEMENTATION_REPORT
#include "roofline/roofline.hpp"
