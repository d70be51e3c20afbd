// The bodies of the trace analysis and the reports (analysis/, report/), compiled once for the
// `roofline` command and the Python module, beside implementation_io.cpp (a second translation
// unit, so that the two compile in parallel).
#define ROOFLINE_IMPLEMENTATION_ANALYSIS
#define ROOFLINE_IMPLEMENTATION_REPORT
#include "roofline/roofline.hpp"
