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

# The notebook-style Python twins (examples/learn/python/, label "python" like python_module;
# only where the module is built): each script's stdout must equal its C++ program's golden
# text. They run after learn_<name>, so that a regenerated golden file is what they compare with.
if(TARGET roofline_python)
    foreach(name ${ROOFLINE_LEARN_PROGRAMS})
        add_test(NAME python_learn_${name}
                 COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${ROOFLINE_PYTHON_PATH}
                         ${ROOFLINE_PYTHON_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/learn_python_test.py ${name}
                         ${CMAKE_CURRENT_LIST_DIR}/golden ${PROJECT_SOURCE_DIR}/examples/learn/python
                         ${PROJECT_SOURCE_DIR}/data)
        set_tests_properties(python_learn_${name} PROPERTIES LABELS "python;learn" DEPENDS learn_${name})
    endforeach()
endif()
