# Script for the learn_<name> tests: runs one examples/learn program and compares its stdout and
# its SVG chart, byte for byte, with tests/learn/golden/<name>.txt and <name>.svg, so that an
# example can never drift from the library it teaches.
# Inputs: PROGRAM (executable), NAME, GOLDEN (golden folder), OUT (scratch folder), DATA (data/),
# REGEN (set: write the golden files instead of comparing; also the environment variable
# ROOFLINE_REGEN_GOLDEN=1).
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${PROGRAM} --svg ${OUT}/${NAME}.svg --data ${DATA}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} failed (exit ${rc}): ${err}")
endif()
file(WRITE ${OUT}/${NAME}.txt "${out}")
if(REGEN OR "$ENV{ROOFLINE_REGEN_GOLDEN}")
    foreach(ext txt svg)
        file(COPY_FILE ${OUT}/${NAME}.${ext} ${GOLDEN}/${NAME}.${ext})
    endforeach()
    message(STATUS "regenerated ${GOLDEN}/${NAME}.txt and ${NAME}.svg")
    return()
endif()
foreach(ext txt svg)
    if(NOT EXISTS ${GOLDEN}/${NAME}.${ext})
        message(FATAL_ERROR "no golden file ${GOLDEN}/${NAME}.${ext}: run ROOFLINE_REGEN_GOLDEN=1 ctest -R learn_")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${NAME}.${ext} ${GOLDEN}/${NAME}.${ext}
                    RESULT_VARIABLE differs)
    if(differs)
        execute_process(COMMAND diff -u ${GOLDEN}/${NAME}.${ext} ${OUT}/${NAME}.${ext} OUTPUT_VARIABLE d ERROR_QUIET)
        message(FATAL_ERROR "${NAME}.${ext} differs from its golden file (if the change is intended, "
                            "regenerate: ROOFLINE_REGEN_GOLDEN=1 ctest -R learn_${NAME}):\n${d}")
    endif()
endforeach()
