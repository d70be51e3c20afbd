# Renders the roofline SVG and the HTML report in headless Chromium and checks the screenshots
# are real pictures (tests/cli/png_check.py). Registered only when /usr/bin/chromium (Debian
# package `chromium`) and python3 are present at configure time.
find_program(ROOFLINE_CHROMIUM chromium PATHS /usr/bin NO_DEFAULT_PATH)
if(ROOFLINE_CHROMIUM AND Python3_Interpreter_FOUND)
    add_test(NAME cli_render_roof_chromium
             COMMAND ${CMAKE_COMMAND}
                     -DROOFLINE=$<TARGET_FILE:roofline_cli>
                     -DCHROMIUM=${ROOFLINE_CHROMIUM}
                     -DPYTHON=${Python3_EXECUTABLE}
                     -DCHECK=${CMAKE_CURRENT_LIST_DIR}/png_check.py
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/render
                     -P ${CMAKE_CURRENT_LIST_DIR}/render_check.cmake)
    set_tests_properties(cli_render_roof_chromium PROPERTIES LABELS "cli;render" TIMEOUT 300
                         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
else()
    message(STATUS "roofline: /usr/bin/chromium or python3 not found: the headless render test is not registered")
endif()
