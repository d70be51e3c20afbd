# Builds and runs a consumer project. Called by ctest with:
#   -DMODE=find_package|add_subdirectory -DROOFLINE_SOURCE=... -DROOFLINE_BINARY=... -DWORK=...
file(REMOVE_RECURSE ${WORK})
set(extra)
if(MODE STREQUAL "find_package")
    execute_process(COMMAND ${CMAKE_COMMAND} --install ${ROOFLINE_BINARY} --prefix ${WORK}/prefix
                    COMMAND_ERROR_IS_FATAL ANY OUTPUT_QUIET)
    set(extra -DCMAKE_PREFIX_PATH=${WORK}/prefix)
else()
    set(extra -DROOFLINE_SOURCE=${ROOFLINE_SOURCE})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${ROOFLINE_SOURCE}/tests/consumer/${MODE} -B ${WORK}/build ${extra}
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${WORK}/build/consumer COMMAND_ERROR_IS_FATAL ANY)
