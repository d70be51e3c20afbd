// The bodies of the reports (report/: text, JSON, CSV, SVG and HTML views), compiled once for the
// `roofline` command and the Python module, apart from the readers' (implementation_io.cpp) and the
// analysis' (implementation_analysis.cpp): README, "Compile time".
#define ROOFLINE_IMPLEMENTATION_REPORT
#include "roofline/roofline.hpp"
