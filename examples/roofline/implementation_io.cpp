// The bodies of the readers (io/), compiled once for the `roofline` command and the Python
// module: every other file of theirs is compiled with ROOFLINE_SEPARATE_COMPILATION and sees
// declarations only (include/roofline/core/compilation.hpp; README, "Compile time").
#define ROOFLINE_IMPLEMENTATION_IO
#include "roofline/roofline.hpp"
