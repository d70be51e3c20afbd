# Writes include/roofline/io/detail/builtin_kernel_rules.hpp from data/kernel_rules.json: the
# built-in kernel-name rules are compiled in, so the library reads no file to classify kernels.
# Run after editing data/kernel_rules.json (tests/trace/kernel_rules_test.cpp fails until then):
#   cmake -P tests/io/embed_kernel_rules.cmake
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
file(READ ${root}/data/kernel_rules.json text)
string(FIND "${text}" ")rules_json\"" clash)
if(NOT clash EQUAL -1)
    message(FATAL_ERROR "data/kernel_rules.json contains the raw-string delimiter )rules_json\"")
endif()
file(WRITE ${root}/include/roofline/io/detail/builtin_kernel_rules.hpp
"#pragma once
// Generated from data/kernel_rules.json by tests/io/embed_kernel_rules.cmake: do not edit.
// tests/trace/kernel_rules_test.cpp checks that this text equals the file byte for byte.

namespace roofline::io::detail {

/// The text of data/kernel_rules.json, compiled in (read by `builtin_kernel_rules()`).
inline constexpr const char builtin_kernel_rules_json[] = R\"rules_json(${text})rules_json\";

}  // namespace roofline::io::detail
")
message(STATUS "wrote include/roofline/io/detail/builtin_kernel_rules.hpp")
