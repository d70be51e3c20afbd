# Golden-file tests of the teaching programs in examples/learn/ (one per program, label "learn").
# Regenerate after an intended change: ROOFLINE_REGEN_GOLDEN=1 ctest -R learn_  (or configure
# with -DROOFLINE_REGEN_GOLDEN=ON), then review the diff of tests/learn/golden/ before committing.
option(ROOFLINE_REGEN_GOLDEN "learn_* tests write their golden files instead of comparing" OFF)
foreach(name ${ROOFLINE_LEARN_PROGRAMS})
    if(TARGET learn_${name})
        add_test(NAME learn_${name}
                 COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:learn_${name}> -DNAME=${name}
                         -DGOLDEN=${CMAKE_CURRENT_LIST_DIR}/golden -DOUT=${CMAKE_CURRENT_BINARY_DIR}/learn
                         -DDATA=${PROJECT_SOURCE_DIR}/data -DREGEN=${ROOFLINE_REGEN_GOLDEN}
                         -P ${CMAKE_CURRENT_LIST_DIR}/learn_golden.cmake)
        set_tests_properties(learn_${name} PROPERTIES LABELS learn)
    endif()
endforeach()
