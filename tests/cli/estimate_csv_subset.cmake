# `roofline estimate --from-csv` on a 100-run subset of the shared aiconfigurator CSV, generated
# here at test time (every 52nd run, so every model and mode appears; never committed). Skips,
# passing with a message, when ../shared/samples is absent. Checks the summary tables, that the
# held-out errors are computed for both modes, and that the run facts are applied and said.
if(NOT EXISTS "${CSV}")
    message(STATUS "skipped: sample file absent: ${CSV}")
    return()
endif()
file(STRINGS "${CSV}" lines)
list(LENGTH lines n)
list(GET lines 0 header)
set(out "${header}\n")
math(EXPR last "${n} - 1")
set(kept 0)
foreach(i RANGE 1 ${last} 52)
    list(GET lines ${i} line)
    string(APPEND out "${line}\n")
    math(EXPR kept "${kept} + 1")
endforeach()
file(WRITE "${SUBSET}" "${out}")
execute_process(COMMAND ${ROOFLINE} estimate --from-csv "${SUBSET}" --model-dir "${DIR1}" --model-dir "${DIR2}"
                        --run-facts "${FACTS}" --out "${SUBSET}.pred.csv"
                RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "exit ${rc}\n${stdout}\n${stderr}")
endif()
# The facts file lists runs of the whole file: the subset's InferenceX runs take theirs, the rest
# of its ids are said to be absent (not an error: one facts file serves any subset). Its id count
# is its rows (one a line, after the header), and the runs that took cells and the ids absent add
# up to it.
file(STRINGS "${FACTS}" facts_lines)
list(LENGTH facts_lines facts_ids)
math(EXPR facts_ids "${facts_ids} - 1")
if(stdout MATCHES "facts: ([0-9]+) runs took cells from [^\n]*\\(([0-9]+) of its ([0-9]+) ids are not in the runs file\\)")
    math(EXPR sum "${CMAKE_MATCH_1} + ${CMAKE_MATCH_2}")
    if(NOT CMAKE_MATCH_3 EQUAL facts_ids OR NOT sum EQUAL facts_ids)
        message(FATAL_ERROR "facts: ${CMAKE_MATCH_1} took cells + ${CMAKE_MATCH_2} absent of ${CMAKE_MATCH_3} ids; the file has ${facts_ids}")
    endif()
endif()
foreach(want "roofline estimate --from-csv: ${kept} runs" "facts: [0-9]+ runs took cells from .*inferencex_run_facts.csv \\([0-9]+ of its ${facts_ids} ids are not in the runs file\\)"
             "runs speculate \\(spec_decoding\\)" "### Overall \\(held out\\)" "\\| agg \\| [0-9]+ \\| [0-9.]+% \\|"
             "\\| disagg \\| [0-9]+ \\| [0-9.]+% \\|" "### Per \\(GPU, model\\)")
    if(NOT stdout MATCHES "${want}")
        message(FATAL_ERROR "missing \"${want}\" in:\n${stdout}")
    endif()
endforeach()
file(STRINGS "${SUBSET}.pred.csv" pred)
list(LENGTH pred np)
math(EXPR want_rows "${kept} + 1")
if(NOT np EQUAL want_rows)
    message(FATAL_ERROR "predictions: ${np} lines, expected ${want_rows}")
endif()
message(STATUS "${kept} runs: ok")
