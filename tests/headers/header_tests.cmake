# Two tests that keep the headers honest:
# - headers.compile_alone: every public header under include/roofline/ (cuda/ aside, which needs
#   nvcc) compiles as the only include of a translation unit, so each one includes what it
#   uses. One generated TU per header, built (on demand) as the object library
#   roofline_header_check by the test itself.
# - headers.declarations_alone: the same with ROOFLINE_SEPARATE_COMPILATION defined, where the
#   split headers (core/compilation.hpp) give declarations only: each header's declaration part
#   includes what it uses, without the bodies' includes (roofline_header_decl_check).
# - headers.umbrella_complete: include/roofline/roofline.hpp includes every public header outside
#   cuda/ (detail/ folders are internal; core/gpus/ holds the raw spec tables behind
#   core/catalog.hpp).
set(_inc ${PROJECT_SOURCE_DIR}/include)
file(GLOB_RECURSE _headers CONFIGURE_DEPENDS RELATIVE ${_inc} ${_inc}/roofline/*.hpp)
list(FILTER _headers EXCLUDE REGEX "^roofline/cuda/")
set(_tus "")
foreach(h ${_headers})
    string(MAKE_C_IDENTIFIER "${h}" id)
    set(tu ${CMAKE_CURRENT_BINARY_DIR}/header_check/${id}.cpp)
    file(CONFIGURE OUTPUT ${tu} CONTENT "// Generated: ${h} alone.\n#include \"${h}\"\n" @ONLY)
    list(APPEND _tus ${tu})
endforeach()
add_library(roofline_header_check OBJECT EXCLUDE_FROM_ALL ${_tus})
target_link_libraries(roofline_header_check PRIVATE roofline::roofline roofline_warnings)
add_test(NAME headers.compile_alone
         COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target roofline_header_check)
set_tests_properties(headers.compile_alone PROPERTIES LABELS headers TIMEOUT 1200)

add_library(roofline_header_decl_check OBJECT EXCLUDE_FROM_ALL ${_tus})
target_link_libraries(roofline_header_decl_check PRIVATE roofline::roofline roofline_warnings)
target_compile_definitions(roofline_header_decl_check PRIVATE ROOFLINE_SEPARATE_COMPILATION)
add_test(NAME headers.declarations_alone
         COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target roofline_header_decl_check)
set_tests_properties(headers.declarations_alone PROPERTIES LABELS headers TIMEOUT 1200)

add_test(NAME headers.umbrella_complete
         COMMAND ${CMAKE_COMMAND} -DINCLUDE_DIR=${_inc} -P ${CMAKE_CURRENT_LIST_DIR}/umbrella_check.cmake)
set_tests_properties(headers.umbrella_complete PROPERTIES LABELS headers)
