#pragma once
// Everything in roofline that builds without CUDA. Users who want only the models include
// `roofline/models/...` and pull in no third-party header.

#include "roofline/core/bound.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/units.hpp"
#include "roofline/core/workload.hpp"
