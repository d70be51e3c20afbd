# `roofline trace` and `roofline inspect` on an nsys SQLite export. The database is built at test
# time from tests/io/data/nsys_sqlite_basic.sql (hand-made after the 2024-2026 schema in
# ../shared/FORMATS.md section 4, not a recorded export; its comment works out the counts below)
# with the `sqlite3` command (Debian package `sqlite3`). Skipped without SQLite support in the
# build (libsqlite3-dev) or without the command.
find_program(ROOFLINE_SQLITE3_EXECUTABLE sqlite3)
if(SQLite3_FOUND AND ROOFLINE_SQLITE3_EXECUTABLE)
    set(_nsys_db ${CMAKE_CURRENT_BINARY_DIR}/nsys_sqlite_basic.sqlite)
    add_test(NAME cli_nsys_sqlite_fixture
             COMMAND ${CMAKE_COMMAND} -DSQLITE3=${ROOFLINE_SQLITE3_EXECUTABLE}
                     -DSQL=${CMAKE_CURRENT_SOURCE_DIR}/io/data/nsys_sqlite_basic.sql -DOUT=${_nsys_db}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/make_sqlite_fixture.cmake)
    set_tests_properties(cli_nsys_sqlite_fixture PROPERTIES FIXTURES_SETUP nsys_sqlite_db LABELS cli)

    # 14 rows read (7 kernel, 1 memcpy, 1 memset, 5 NVTX), 10 kept, 2 bad kernel rows skipped;
    # 5 kernels, 155 us of them; the GPU found by TARGET_INFO_GPU's name.
    roofline_cli_test(trace_nsys_sqlite_json ARGS trace ${_nsys_db} --json
        PASS "\"summary\": {[^}]*\"format\": \"nsys-sqlite\",[^}]*\"kernel_count\": 5,[^}]*\"kernel_time_s\": 0\\.000155[0-9]*,[^}]*\"events_read\": 14,[^}]*\"events_kept\": 10,[^}]*\"events_skipped\": 2,[^}]*\"negative_dur\": 1,[^}]*\"null_start\": 1")
    # The two NVTX ranges, projected onto the GPU, are the steps.
    roofline_cli_test(trace_nsys_sqlite_steps ARGS trace ${_nsys_db} --json
        PASS "\"steps_from\": \"GPU annotations\"")
    # Phase breakdown: gemm is 2 kernels, 100 us = 60.2% of the 166 us of GPU work (155 us of
    # kernels, 10 us memcpy, 1 us memset); the window runs from the memcpy's start to the
    # memset's end, 900000..1271000 ns = 371 us.
    roofline_cli_test(trace_nsys_sqlite_text ARGS trace ${_nsys_db}
        PASS "GPU +h200-sxm [^\n]*device name \"NVIDIA H200\"\nWindow +371 us on device 0[^\n]*\nEvents +14 read, 10 kept, 2 skipped; 5 kernels, 155 us of kernel time.*\ngemm +100 us +60\\.2% +2 .*\ndecode_step_0 +130 us ")
    roofline_cli_test(inspect_nsys_sqlite ARGS inspect ${_nsys_db}
        PASS "\\(nsys\\): SQLite export: 7 GPU events \\(5 kernels\\), 3 NVTX ranges, 1 GPU \\(NVIDIA H200\\)\nrecords: 14 read, 10 kept, 2 skipped \\(1 negative_dur, 1 null_start\\)")
    set_tests_properties(cli_trace_nsys_sqlite_json cli_trace_nsys_sqlite_steps cli_trace_nsys_sqlite_text
                         cli_inspect_nsys_sqlite PROPERTIES FIXTURES_REQUIRED nsys_sqlite_db)
else()
    message(STATUS "nsys SQLite CLI tests skipped: SQLite3 found: ${SQLite3_FOUND}, sqlite3 command: ${ROOFLINE_SQLITE3_EXECUTABLE}")
endif()

# A file named .sqlite that is not a database: exit 2, one line saying so (with or without SQLite).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/not_a_database.sqlite "Start (ns),Duration (ns),Name\n")
roofline_cli_test(trace_nsys_sqlite_not_a_database ARGS trace ${CMAKE_CURRENT_BINARY_DIR}/not_a_database.sqlite EXIT 2
    PASS "not_a_database\\.sqlite: byte 0: not an SQLite database")
# (PASS overrides the exit status check: fail on expect_exit.cmake's own complaints.)
set_tests_properties(cli_trace_nsys_sqlite_not_a_database PROPERTIES
    FAIL_REGULAR_EXPRESSION "expected exit code|expected a one-line error")
