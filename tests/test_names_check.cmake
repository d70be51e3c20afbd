# ctest's doctest discovery splits a test case name at ';' (CMake's list separator): a case
# named "a; b" became the ctest tests "a" and " b", neither of which matches the case, so it
# never ran (18 cases until 2026-12-01; they all pass). Fails naming each such TEST_CASE.
# -DTESTS_DIR=<tests/>
file(GLOB_RECURSE sources "${TESTS_DIR}/*.cpp")
set(bad "")
foreach(f ${sources})
    file(STRINGS "${f}" lines REGEX "TEST_CASE\\(\"[^\"]*")
    foreach(l ${lines})
        if(l MATCHES "TEST_CASE\\(\"[^\"]*;")
            string(APPEND bad "\n  ${f}: ${l}")
        endif()
    endforeach()
endforeach()
if(bad)
    message(FATAL_ERROR "TEST_CASE names with ';' (ctest would never run them):${bad}")
endif()
message(STATUS "no TEST_CASE name holds ';'")
