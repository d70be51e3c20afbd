# `roofline --version`: the version in core/version.hpp and the fast paths CMake found, in the
# words of the configure message ("simdjson on, sqlite on, gzip zlib").
string(REPLACE "." "\\." _v "${PROJECT_VERSION}")
roofline_cli_test(version ARGS --version PASS "^roofline ${_v} \\(${ROOFLINE_FAST_PATHS}\\)\n$")
