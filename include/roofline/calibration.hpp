#pragma once
// Everything in roofline.hpp plus the calibration fits (analysis/calibration.hpp), which need
// Eigen 3 on the include path (Debian: -I/usr/include/eigen3; the CMake target adds it).

#include "roofline/roofline.hpp"

#include "roofline/analysis/calibration.hpp"
