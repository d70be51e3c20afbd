# End-to-end tests of the `roofline` command: exit codes and key lines of output.
# roofline_cli_test(NAME ARGS... [PASS regex] [FAIL regex] [EXIT code])
function(roofline_cli_test name)
    cmake_parse_arguments(T "" "PASS;EXIT" "ARGS" ${ARGN})
    if(T_EXIT)
        # A run that must exit with a given code (2 = bad input, with a one-line error).
        add_test(NAME cli_${name} COMMAND ${CMAKE_COMMAND} -DEXPECT=${T_EXIT}
                 "-DCMD=$<TARGET_FILE:roofline_cli>;${T_ARGS}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.cmake)
    else()
        add_test(NAME cli_${name} COMMAND $<TARGET_FILE:roofline_cli> ${T_ARGS})
    endif()
    if(T_PASS)
        set_tests_properties(cli_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS}")
    endif()
    set_tests_properties(cli_${name} PROPERTIES LABELS cli WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

file(GLOB _cli_test_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cli/*_cli.cmake)
foreach(f ${_cli_test_files})
    include(${f})
endforeach()
