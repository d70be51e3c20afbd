# A consumer project built against an install prefix (find_package) and through add_subdirectory.
foreach(mode find_package add_subdirectory)
    add_test(NAME consumer_${mode}
             COMMAND ${CMAKE_COMMAND} -DMODE=${mode} -DROOFLINE_SOURCE=${PROJECT_SOURCE_DIR}
                     -DROOFLINE_BINARY=${PROJECT_BINARY_DIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/consumer_${mode}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_consumer.cmake)
    set_tests_properties(consumer_${mode} PROPERTIES LABELS consumer TIMEOUT 600)
endforeach()

# A consumer built with the compiler alone, as an integrator without CMake would:
#   c++ -std=c++20 -I include tests/consumer/plain_gxx/main.cpp -lfmt -lz
# (no -D, no Eigen include path, no data directory), then run on a real Kineto trace.
add_test(NAME consumer_plain_gxx
         COMMAND ${CMAKE_COMMAND} -DCXX=${CMAKE_CXX_COMPILER} -DROOFLINE_SOURCE=${PROJECT_SOURCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/consumer_plain_gxx
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_plain_gxx.cmake)
set_tests_properties(consumer_plain_gxx PROPERTIES LABELS consumer TIMEOUT 600
                     PASS_REGULAR_EXPRESSION "15 GEMM kernels, mean [0-9.]+ ms; h200-sxm SOL [0-9.]+ ms \\(compute-bound\\)")

# The same consumer compiled separately (include/roofline/core/compilation.hpp): main.cpp sees the
# readers' declarations only, roofline_impl.cpp compiles the bodies once.
add_test(NAME consumer_plain_gxx_separate
         COMMAND ${CMAKE_COMMAND} -DCXX=${CMAKE_CXX_COMPILER} -DROOFLINE_SOURCE=${PROJECT_SOURCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/consumer_plain_gxx_separate -DSEPARATE=ON
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_plain_gxx.cmake)
set_tests_properties(consumer_plain_gxx_separate PROPERTIES LABELS consumer TIMEOUT 600
                     PASS_REGULAR_EXPRESSION "15 GEMM kernels, mean [0-9.]+ ms; h200-sxm SOL [0-9.]+ ms \\(compute-bound\\)")
