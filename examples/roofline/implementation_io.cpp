// The bodies of the readers (io/), compiled once for the `roofline` command and the Python module:
// every other file of theirs is compiled with ROOFLINE_SEPARATE_COMPILATION and sees declarations
// only (include/roofline/core/compilation.hpp; README, "Compile time"). The reports' bodies have a
// unit of their own (implementation_report.cpp), so that the command's four units spread evenly
// over two cores.
#define ROOFLINE_IMPLEMENTATION_IO
#include "roofline/roofline.hpp"
