# Script for cli_plan_json_points_match_pareto: `plan --json` streams points[] as
# report::json_text_writer writes them, and pareto[] as nlohmann::json dumps the same text parsed;
# every pareto point is also a point, so each pareto element's text must appear verbatim among the
# points (the writer's keys, number formatting, escaping and indentation are nlohmann's).
# Inputs: ROOFLINE.
execute_process(COMMAND ${ROOFLINE} plan --model data/models/glm-5/config.json
                        --quant data/models/glm-5/hf_quant_config.json --gpus rtx-pro-6000,b200
                        --counts 8 --isl 1024 --osl 1024 --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "roofline plan --json failed (${rc}): ${err}")
endif()
string(FIND "${out}" "\n \"pareto\": [" at_pareto)
string(FIND "${out}" "\n \"points\": [" at_points)
string(FIND "${out}" "\n \"points_evaluated\": " at_end)
if(at_pareto EQUAL -1 OR at_points EQUAL -1 OR at_end EQUAL -1 OR NOT at_pareto LESS at_points)
    message(FATAL_ERROR "plan --json: pareto[], points[] or points_evaluated not found in order")
endif()
math(EXPR pareto_len "${at_points} - ${at_pareto}")
math(EXPR points_len "${at_end} - ${at_points}")
string(SUBSTRING "${out}" ${at_pareto} ${pareto_len} pareto)
string(SUBSTRING "${out}" ${at_points} ${points_len} points)
string(REGEX MATCHALL "\n  {\n[^{}]*\n  }" elements "${pareto}")
list(LENGTH elements n)
if(n LESS 2)
    message(FATAL_ERROR "plan --json: expected a Pareto front of several points, found ${n}")
endif()
foreach(e IN LISTS elements)
    string(FIND "${points}" "${e}" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "plan --json: this pareto point is not among the streamed points, as written:${e}")
    endif()
endforeach()
message(STATUS "${n} pareto points found verbatim among the streamed points")
