# The committed run facts' db-dump rows are what examples/serving/inferencex_run_facts.py
# --db-dump-only derives from the runs file: re-derived on a copy of the facts, the file must come
# out byte for byte the same, every db-dump aggregated row that repeats an InferenceX run must get
# that run's layout from the G x E rule, and the 485 db-dump rows that repeat an InferenceX run
# must get its facts where its twins agree (459; 26 twins disagree). Skips (passes with a message) without the shared runs file or pandas.
if(NOT EXISTS "${CSV}")
    message("skipped: ${CSV} absent")
    return()
endif()
execute_process(COMMAND ${PYTHON} -c "import pandas" RESULT_VARIABLE no_pandas OUTPUT_QUIET ERROR_QUIET)
if(no_pandas)
    message("skipped: ${PYTHON} cannot import pandas")
    return()
endif()
configure_file(${FACTS} ${COPY} COPYONLY)
execute_process(COMMAND ${PYTHON} ${SCRIPT} --db-dump-only ${CSV} ${COPY}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "inferencex_run_facts.py --db-dump-only failed (${rc}): ${out}${err}")
endif()
if(NOT out MATCHES "192 db-dump aggregated rows with their layout from G x E \\(96 repeat an InferenceX run, 96 of those get its layout\\); 485 db-dump rows repeat an InferenceX run, 459 given its facts, 26 whose twins disagree")
    message(FATAL_ERROR "unexpected summary: ${out}")
endif()
file(READ ${FACTS} want)
file(READ ${COPY} got)
if(NOT want STREQUAL got)
    message(FATAL_ERROR "re-deriving the db-dump facts changed ${FACTS} (compare with ${COPY})")
endif()
