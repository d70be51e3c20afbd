# Runs ROOFLINE ARGS twice, as is and with SHIM preloaded (no thread can start), and requires
# exit 0 both times and the same standard output (threads_cli.cmake).
execute_process(COMMAND ${ROOFLINE} ${ARGS} RESULT_VARIABLE rc1 OUTPUT_VARIABLE with ERROR_VARIABLE err1)
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${SHIM} ${ROOFLINE} ${ARGS}
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE without ERROR_VARIABLE err2)
if(NOT rc1 EQUAL 0)
    message(FATAL_ERROR "with threads: exit ${rc1}\n${err1}")
endif()
if(NOT rc2 EQUAL 0)
    message(FATAL_ERROR "without threads: exit ${rc2}\n${err2}")
endif()
if(NOT with STREQUAL without)
    file(WRITE "${OUT}.with.txt" "${with}")
    file(WRITE "${OUT}.without.txt" "${without}")
    message(FATAL_ERROR "output differs without threads: compare ${OUT}.with.txt and ${OUT}.without.txt")
endif()
string(LENGTH "${with}" n)
message(STATUS "same ${n} bytes of output with and without threads")
