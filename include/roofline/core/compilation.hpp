#pragma once
// How the bodies of the heavier headers (the readers in io/, the trace analysis, the reports) are
// compiled. Two ways, chosen by macros that every translation unit of a program must agree on:
//
// - Header-only (the default, no macro): every function is `inline` and compiled in each
//   translation unit that uses it, as with any header-only library.
// - Separate compilation: define `ROOFLINE_SEPARATE_COMPILATION` in every translation unit; those
//   headers then give declarations only (no nlohmann/json, no simdjson, no parsing of the bodies),
//   and exactly one translation unit also defines `ROOFLINE_IMPLEMENTATION` before including
//   `roofline/roofline.hpp` (or the headers it uses), where the bodies are compiled once, as
//   ordinary external functions:
//
//       // roofline_impl.cpp
//       #define ROOFLINE_IMPLEMENTATION
//       #include "roofline/roofline.hpp"
//
//   `ROOFLINE_IMPLEMENTATION_IO`, `_ANALYSIS` and `_REPORT` compile one group each, so the bodies
//   can be spread over several translation units (the `roofline` command does:
//   examples/roofline/implementation_*.cpp). Measured in README, "Compile time".
//
// core/ and models/ (small, standard library only) and templates stay header-only either way.

#if defined(ROOFLINE_SEPARATE_COMPILATION)
/// Storage of a function defined in a split header: external in separate compilation.
#define ROOFLINE_INLINE
#else
#define ROOFLINE_INLINE inline
#endif

// ROOFLINE_BODIES_<GROUP>: 1 where this translation unit compiles that group's bodies.
#if !defined(ROOFLINE_SEPARATE_COMPILATION) || defined(ROOFLINE_IMPLEMENTATION) || \
    defined(ROOFLINE_IMPLEMENTATION_IO)
#define ROOFLINE_BODIES_IO 1
#else
#define ROOFLINE_BODIES_IO 0
#endif
#if !defined(ROOFLINE_SEPARATE_COMPILATION) || defined(ROOFLINE_IMPLEMENTATION) || \
    defined(ROOFLINE_IMPLEMENTATION_ANALYSIS)
#define ROOFLINE_BODIES_ANALYSIS 1
#else
#define ROOFLINE_BODIES_ANALYSIS 0
#endif
#if !defined(ROOFLINE_SEPARATE_COMPILATION) || defined(ROOFLINE_IMPLEMENTATION) || \
    defined(ROOFLINE_IMPLEMENTATION_REPORT)
#define ROOFLINE_BODIES_REPORT 1
#else
#define ROOFLINE_BODIES_REPORT 0
#endif
