# Script for cli_render_plan_chromium: writes the Pareto chart of a three-GPU GLM-5 plan (SVG),
# screenshots it in headless Chromium, and checks the PNG (size, colours, not blank).
# Inputs: ROOFLINE, CHROMIUM, PYTHON, CHECK (png_check.py), OUT (a scratch folder).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${ROOFLINE} plan --model data/models/glm-5/config.json
                        --quant data/models/glm-5/hf_quant_config.json --gpus rtx-pro-6000,h200-sxm,b200
                        --counts 4,8 --isl 1024 --osl 1024 --svg ${OUT}/plan.svg
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "roofline plan failed (${rc}): ${err}")
endif()
set(png ${OUT}/plan.svg.png)
execute_process(COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                        --disable-background-networking --disable-component-update --disable-sync
                        --hide-scrollbars --user-data-dir=${OUT}/profile
                        --screenshot=${png} --window-size=1000,700 file://${OUT}/plan.svg
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT EXISTS ${png})
    message(FATAL_ERROR "chromium wrote no screenshot of plan.svg (exit ${rc}):\n${err}")
endif()
# A 1000x700 chart with a few dozen points compresses to tens of KB; a blank page to about 5 KB.
execute_process(COMMAND ${PYTHON} ${CHECK} ${png} 20000 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "screenshot check failed: ${out}${err}")
endif()
message(STATUS "${out}")
file(REMOVE_RECURSE ${OUT}/profile)
