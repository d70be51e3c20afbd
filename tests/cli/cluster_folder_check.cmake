# A rank folder as runs leave it: two traces beside a model's config.json. The config is skipped
# and named on stderr; the two traces are analysed as two ranks. -DROOFLINE=<exe> -DTRACES=<a;b>
# -DEXTRA=<a JSON that is not a trace> -DOUT=<dir>
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
foreach(f ${TRACES} ${EXTRA})
    get_filename_component(n "${f}" NAME)
    file(CREATE_LINK "${f}" "${OUT}/${n}" SYMBOLIC)
endforeach()
execute_process(COMMAND "${ROOFLINE}" trace "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "trace of the folder failed (${rc}):\n${out}\n${err}")
endif()
if(NOT err MATCHES "skipped 1 JSON file\\(s\\) that are not traces \\(no traceEvents in the first MiB\\): config\\.json")
    message(FATAL_ERROR "the skipped config.json is not named on stderr:\n${err}")
endif()
if(NOT out MATCHES "Cluster: 2 ranks")
    message(FATAL_ERROR "expected two ranks:\n${out}")
endif()
