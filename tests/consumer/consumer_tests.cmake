# A consumer project built against an install prefix (find_package) and through add_subdirectory.
foreach(mode find_package add_subdirectory)
    add_test(NAME consumer_${mode}
             COMMAND ${CMAKE_COMMAND} -DMODE=${mode} -DROOFLINE_SOURCE=${PROJECT_SOURCE_DIR}
                     -DROOFLINE_BINARY=${PROJECT_BINARY_DIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/consumer_${mode}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_consumer.cmake)
    set_tests_properties(consumer_${mode} PROPERTIES LABELS consumer TIMEOUT 600)
endforeach()
