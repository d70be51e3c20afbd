# Readers where no thread can be started (a process or container thread limit: std::thread
# throws std::system_error): `trace` on a Kineto trace large enough for the batched parser's
# workers, and on two ranks with -j 2, must print what it prints with threads (the reading thread
# parses every batch itself; the rank pool runs on the calling thread). Linux only (LD_PRELOAD).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    add_library(roofline_no_threads_shim MODULE ${CMAKE_CURRENT_SOURCE_DIR}/cli/no_threads_shim.cpp)
    set_target_properties(roofline_no_threads_shim PROPERTIES PREFIX "" OUTPUT_NAME no_threads_shim)
    add_test(NAME cli_trace_without_threads
             COMMAND ${CMAKE_COMMAND} -DROOFLINE=$<TARGET_FILE:roofline_cli> -DSHIM=$<TARGET_FILE:roofline_no_threads_shim>
                     "-DARGS=trace;data/samples/h200-serving/trace.json.gz" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/no_threads_trace
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/without_threads.cmake)
    set_tests_properties(cli_trace_without_threads PROPERTIES LABELS cli WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    get_filename_component(_nt_samples "${PROJECT_SOURCE_DIR}/../shared/samples/hta/trace_filter" ABSOLUTE)
    if(EXISTS "${_nt_samples}/sampled_rank-0.json.gz")
        add_test(NAME cli_cluster_without_threads
                 COMMAND ${CMAKE_COMMAND} -DROOFLINE=$<TARGET_FILE:roofline_cli> -DSHIM=$<TARGET_FILE:roofline_no_threads_shim>
                         "-DARGS=trace;${_nt_samples};-j;2" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/no_threads_cluster
                         -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/without_threads.cmake)
        set_tests_properties(cli_cluster_without_threads PROPERTIES LABELS cli WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    endif()
endif()
