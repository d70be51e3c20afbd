# Builds the SQLite database OUT from the SQL text SQL with the sqlite3 command SQLITE3 (Debian
# package `sqlite3`), replacing an older copy. Run as a test fixture by nsys_sqlite_cli.cmake.
file(REMOVE "${OUT}")
execute_process(COMMAND "${SQLITE3}" "${OUT}" ".read '${SQL}'" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "sqlite3 ${OUT} .read ${SQL}: exit ${rc}\n${out}${err}")
endif()
message(STATUS "wrote ${OUT}")
