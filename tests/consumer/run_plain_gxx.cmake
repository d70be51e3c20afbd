# Compiles tests/consumer/plain_gxx/main.cpp with nothing but the compiler and the include
# directory, then runs it on data/samples/h200/gemm_power/trace.json.gz from an empty working
# directory with ROOFLINE_DATA_DIR unset (the kernel rules must be compiled in). Called by ctest
# with -DCXX=... -DROOFLINE_SOURCE=... -DWORK=... and, for the separately compiled variant,
# -DSEPARATE=ON: main.cpp and roofline_impl.cpp (the bodies) both with
# -DROOFLINE_SEPARATE_COMPILATION, linked together.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(_src ${ROOFLINE_SOURCE}/tests/consumer/plain_gxx)
if(SEPARATE)
    set(_d -DROOFLINE_SEPARATE_COMPILATION)
    execute_process(COMMAND ${CXX} -std=c++20 ${_d} -I ${ROOFLINE_SOURCE}/include -c ${_src}/main.cpp
                            -o ${WORK}/main.o COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND ${CXX} -std=c++20 ${_d} -I ${ROOFLINE_SOURCE}/include -c ${_src}/roofline_impl.cpp
                            -o ${WORK}/roofline_impl.o COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND ${CXX} ${WORK}/main.o ${WORK}/roofline_impl.o -o ${WORK}/consumer -lfmt -lz
                    COMMAND_ERROR_IS_FATAL ANY)
else()
    execute_process(COMMAND ${CXX} -std=c++20 -I ${ROOFLINE_SOURCE}/include ${_src}/main.cpp
                            -o ${WORK}/consumer -lfmt -lz COMMAND_ERROR_IS_FATAL ANY)
endif()
unset(ENV{ROOFLINE_DATA_DIR})
execute_process(COMMAND ${WORK}/consumer ${ROOFLINE_SOURCE}/data/samples/h200/gemm_power/trace.json.gz
                WORKING_DIRECTORY ${WORK} COMMAND_ERROR_IS_FATAL ANY)
