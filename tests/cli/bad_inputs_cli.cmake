# One test per file of tests/bad_inputs/, generated from tests/bad_inputs/manifest.cmake, which
# says for each file the `roofline` command to run and what must come out.
set(_bad_dir ${PROJECT_SOURCE_DIR}/tests/bad_inputs)
set(_bad_listed "")

# bad_input(FILE ARGS... EXIT 2 ERROR regex)
# bad_input(FILE FLAG ARGS... EXIT 2 ERROR regex): a bad flag given with a good FILE: the error
#     names the flag, not the file
# bad_input(FILE ARGS... EXIT 0 [SKIPPED n] [PASS regex])
# In ARGS, @FILE@ stands for the file's path.
function(bad_input file)
    cmake_parse_arguments(B "FLAG" "EXIT;ERROR;SKIPPED;PASS" "ARGS" ${ARGN})
    set(path ${_bad_dir}/${file})
    if(NOT EXISTS ${path})
        message(FATAL_ERROR "tests/bad_inputs/manifest.cmake lists ${file}, which does not exist")
    endif()
    string(REPLACE "@FILE@" "${path}" args "${B_ARGS}")
    set(defs -DEXPECT=${B_EXIT} -DFILE=${path} -DTIMEOUT=30)
    if(B_FLAG)
        list(APPEND defs -DFLAG=ON)
    endif()
    if(DEFINED B_ERROR)
        list(APPEND defs "-DERROR=${B_ERROR}")
    endif()
    if(DEFINED B_SKIPPED)
        list(APPEND defs -DSKIPPED=${B_SKIPPED})
    endif()
    if(DEFINED B_PASS)
        list(APPEND defs "-DPASS=${B_PASS}")
    endif()
    # CMD stays one argument (a ;-list for the script), as in cli_tests.cmake.
    add_test(NAME bad_input.${file} COMMAND ${CMAKE_COMMAND} ${defs} "-DCMD=$<TARGET_FILE:roofline_cli>;${args}"
             -P ${PROJECT_SOURCE_DIR}/tests/cli/check_bad_input.cmake)
    set_tests_properties(bad_input.${file} PROPERTIES LABELS "cli;bad_input" TIMEOUT 60
                         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set(_bad_listed ${_bad_listed} ${file} PARENT_SCOPE)
endfunction()

include(${_bad_dir}/manifest.cmake)

# Every file in the folder has its entry (a file without one would test nothing).
file(GLOB _bad_files CONFIGURE_DEPENDS RELATIVE ${_bad_dir} ${_bad_dir}/*)
list(REMOVE_ITEM _bad_files manifest.cmake)
list(REMOVE_ITEM _bad_files ${_bad_listed})
list(LENGTH _bad_listed _bad_count)
if(_bad_files)
    add_test(NAME bad_input.manifest_complete COMMAND ${CMAKE_COMMAND} -E echo "not in tests/bad_inputs/manifest.cmake: ${_bad_files}")
    set_tests_properties(bad_input.manifest_complete PROPERTIES WILL_FAIL TRUE LABELS bad_input)
endif()
