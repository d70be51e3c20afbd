# README outputs: every `build/roofline ...` output the README prints (a ```sh command followed by
# its ```text output, or a `$ build/roofline` session) must be what the program prints now.
# After a change that moves numbers, `python3 tests/readme/update_readme_outputs.py . build/roofline`
# rewrites those blocks (the prose that quotes them still needs a hand).
if(Python3_Interpreter_FOUND AND TARGET roofline_cli)
    add_test(NAME readme_outputs
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/readme_outputs.py ${PROJECT_SOURCE_DIR}
                     $<TARGET_FILE:roofline_cli>)
    set_tests_properties(readme_outputs PROPERTIES LABELS cli)
endif()
