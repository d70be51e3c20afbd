// The one translation unit of a separately compiled consumer that compiles the library's bodies
// (include/roofline/core/compilation.hpp): every file of the program is compiled with
// -DROOFLINE_SEPARATE_COMPILATION, and this one also defines ROOFLINE_IMPLEMENTATION.
#define ROOFLINE_IMPLEMENTATION
#include <roofline/roofline.hpp>
