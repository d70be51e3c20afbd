# Runs CMD (a ;-list) on one file of tests/bad_inputs/ and checks the outcome the manifest
# promises (tests/bad_inputs/manifest.cmake):
#   EXPECT 2: exit code 2 and a one-line error on stderr that names FILE and matches ERROR (the
#             place: line, byte, entry, key); with FLAG (a bad flag beside a good file) the
#             error names the flag instead;
#   EXPECT 0: exit code 0, nothing on stderr, and, when SKIPPED is given, the reader's count of
#             skipped records shown as "<SKIPPED> skipped"; PASS (optional) must match stdout.
# A run longer than TIMEOUT seconds fails (no input may hang).
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
if(NOT rc STREQUAL "${EXPECT}")
    message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
string(STRIP "${err}" err_stripped)
if(EXPECT EQUAL 2)
    string(FIND "${err_stripped}" "\n" nl)
    if(NOT nl EQUAL -1 OR err_stripped STREQUAL "")
        message(FATAL_ERROR "expected a one-line error on stderr, got:\n${err}")
    endif()
    string(FIND "${err_stripped}" "${FILE}" named)
    if(named EQUAL -1 AND NOT FLAG)
        message(FATAL_ERROR "the error does not name the file ${FILE}:\n${err}")
    endif()
    if(NOT err_stripped MATCHES "${ERROR}")
        message(FATAL_ERROR "the error does not match \"${ERROR}\":\n${err}")
    endif()
else()
    if(NOT err_stripped STREQUAL "")
        message(FATAL_ERROR "expected nothing on stderr, got:\n${err}")
    endif()
    if(DEFINED SKIPPED AND NOT out MATCHES "[^0-9]${SKIPPED} skipped")
        message(FATAL_ERROR "expected \"${SKIPPED} skipped\" in the output:\n${out}")
    endif()
    if(DEFINED PASS AND NOT out MATCHES "${PASS}")
        message(FATAL_ERROR "the output does not match \"${PASS}\":\n${out}")
    endif()
endif()
message(STATUS "exit ${rc}: ${err_stripped}")
