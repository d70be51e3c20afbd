# Compiles tests/consumer/plain_gxx/main.cpp with nothing but the compiler and the include
# directory, then runs it on data/samples/h200/gemm_power/trace.json.gz from an empty working
# directory with ROOFLINE_DATA_DIR unset (the kernel rules must be compiled in). Called by ctest
# with -DCXX=... -DROOFLINE_SOURCE=... -DWORK=...
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CXX} -std=c++20 -I ${ROOFLINE_SOURCE}/include
                        ${ROOFLINE_SOURCE}/tests/consumer/plain_gxx/main.cpp -o ${WORK}/consumer -lfmt -lz
                COMMAND_ERROR_IS_FATAL ANY)
unset(ENV{ROOFLINE_DATA_DIR})
execute_process(COMMAND ${WORK}/consumer ${ROOFLINE_SOURCE}/data/samples/h200/gemm_power/trace.json.gz
                WORKING_DIRECTORY ${WORK} COMMAND_ERROR_IS_FATAL ANY)
