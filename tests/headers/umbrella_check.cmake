# Fails unless INCLUDE_DIR/roofline/roofline.hpp has an #include line for every public header
# outside cuda/ (see header_tests.cmake for what counts as public). The umbrellas themselves
# (roofline/roofline.hpp, roofline/calibration.hpp) are not counted; analysis/calibration.hpp is
# included under #ifdef ROOFLINE_WITH_CALIBRATION (it needs Eigen).
file(READ ${INCLUDE_DIR}/roofline/roofline.hpp umbrella)
file(GLOB_RECURSE headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/roofline/*.hpp)
list(FILTER headers EXCLUDE REGEX "^roofline/cuda/|/detail/|^roofline/core/gpus/|^roofline/[a-z_]+\\.hpp$")
set(missing "")
foreach(h ${headers})
    string(FIND "${umbrella}" "#include \"${h}\"" at)
    if(at EQUAL -1)
        list(APPEND missing ${h})
    endif()
endforeach()
list(LENGTH headers n)
if(missing)
    string(REPLACE ";" "\n  " missing "${missing}")
    message(FATAL_ERROR "include/roofline/roofline.hpp lacks:\n  ${missing}")
endif()
message(STATUS "the umbrella includes all ${n} public headers")
