#pragma once
// The library's version, and which optional fast paths the including translation unit was built
// with (`roofline --version` prints both; the CMake package reports the same as roofline_FAST_PATHS).
//
// The fast paths are chosen by macros that the CMake target defines when the dependency is found:
//   ROOFLINE_HAVE_SIMDJSON   simdjson On-Demand parses Kineto traces (else nlohmann/json, slower)
//   ROOFLINE_HAVE_SQLITE     libsqlite3 reads Nsight Systems SQLite exports (else they are refused)
//   ROOFLINE_HAVE_LIBDEFLATE libdeflate inflates .gz inputs (else zlib)
// A program built without CMake (`g++ -std=c++20 -I include`) gets none of them and still reads
// every format except nsys SQLite.

#include <string>       // std::string
#include <string_view>  // std::string_view

/// The library version (semantic versioning). CMakeLists.txt reads its project version from this line.
#define ROOFLINE_VERSION_STRING "0.1.0"

namespace roofline {

/// The library version, e.g. "0.1.0".
inline constexpr std::string_view library_version = ROOFLINE_VERSION_STRING;

/// The optional fast paths compiled into a translation unit.
struct fast_paths {
    bool simdjson = false;        ///< Kineto/Chrome traces parsed by simdjson On-Demand
    bool sqlite = false;          ///< nsys SQLite exports readable
    std::string_view gzip = "zlib";  ///< the .gz inflater: "zlib" or "libdeflate"
};

/// The fast paths of the translation unit that calls it (from the ROOFLINE_HAVE_* macros).
inline constexpr fast_paths compiled_fast_paths() {
    fast_paths f;
#ifdef ROOFLINE_HAVE_SIMDJSON
    f.simdjson = true;
#endif
#ifdef ROOFLINE_HAVE_SQLITE
    f.sqlite = true;
#endif
#ifdef ROOFLINE_HAVE_LIBDEFLATE
    f.gzip = "libdeflate";
#endif
    return f;
}

/// "simdjson on, sqlite on, gzip zlib": the form CMake's configure message and
/// roofline_FAST_PATHS use.
inline std::string describe(const fast_paths& f) {
    return std::string("simdjson ") + (f.simdjson ? "on" : "off") + ", sqlite " + (f.sqlite ? "on" : "off") +
           ", gzip " + std::string(f.gzip);
}

/// "roofline 0.1.0 (simdjson on, sqlite on, gzip zlib)": the line `roofline --version` prints.
inline std::string version_line(const fast_paths& f = compiled_fast_paths()) {
    return "roofline " + std::string(library_version) + " (" + describe(f) + ")";
}

}  // namespace roofline
