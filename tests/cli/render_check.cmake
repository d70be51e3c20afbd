# Script for cli_render_roof_chromium: writes the H200 roofline chart (SVG) and report (HTML) of
# `roofline roof`, and those of `roofline trace` on the gemm_power recording (a power-capped
# GEMM: a circle under the dashed derated roof) and the serving sample (many kernels), screenshots
# each in headless Chromium, and checks the PNGs (size, colours, not blank).
# Inputs: ROOFLINE, CHROMIUM, PYTHON, CHECK (png_check.py), OUT (a scratch folder).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${ROOFLINE} roof --gpu h200-sxm --dtype bf16,fp8 --sm-clock-mhz 1410
                        --svg ${OUT}/roof.svg --html ${OUT}/roof.html
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "roofline roof failed (${rc}): ${err}")
endif()

set(_h200 ${CMAKE_CURRENT_LIST_DIR}/../../data/samples)
foreach(rec h200/gemm_power h200-serving)
    string(REPLACE "/" "_" tag ${rec})
    set(log ${_h200}/${rec}/nvidia_smi.csv.gz)
    if(NOT EXISTS ${log})
        set(log ${_h200}/${rec}/nvidia_smi.csv)
    endif()
    execute_process(COMMAND ${ROOFLINE} trace ${_h200}/${rec}/trace.json.gz --power ${log}
                            --svg ${OUT}/trace_${tag}.svg --html ${OUT}/trace_${tag}.html
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "roofline trace ${rec} failed (${rc}): ${err}")
    endif()
endforeach()

foreach(doc roof.svg roof.html trace_h200_gemm_power.svg trace_h200_gemm_power.html trace_h200-serving.svg
            trace_h200-serving.html)
    set(png ${OUT}/${doc}.png)
    # A fresh profile per run; no network, no first-run UI, no background services.
    execute_process(COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                            --disable-background-networking --disable-component-update --disable-sync
                            --hide-scrollbars --user-data-dir=${OUT}/profile-${doc}
                            --screenshot=${png} --window-size=1200,800 file://${OUT}/${doc}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
    if(NOT EXISTS ${png})
        message(FATAL_ERROR "chromium wrote no screenshot of ${doc} (exit ${rc}):\n${err}")
    endif()
    # A 1200x800 chart screenshot compresses to tens of KB; a blank page to about 5 KB.
    execute_process(COMMAND ${PYTHON} ${CHECK} ${png} 20000 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "screenshot check failed: ${out}${err}")
    endif()
    message(STATUS "${out}")
    file(REMOVE_RECURSE ${OUT}/profile-${doc})
endforeach()
