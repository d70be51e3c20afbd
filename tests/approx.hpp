#pragma once
// A relative comparison for every test. doctest::Approx(v).epsilon(e) passes when
// |a - v| < e x (scale + max(|a|, |v|)) with scale 1 by default: for values far below 1
// (seconds of a kernel, a fraction) the tolerance is then absolute, and epsilon(0.1) on 5 ms
// accepts anything within 100 ms. `approx` sets the scale to 1e-300, so the tolerance is
// e x max(|a|, |v|) (default e: 100 x float epsilon, about 1.2e-5) and an exact match, 0 == 0
// included, still passes. A value that should be near zero needs an explicit absolute bound.

#include <doctest/doctest.h>

/// doctest::Approx(v) with a relative tolerance only (scale 1e-300 instead of 1).
inline doctest::Approx approx(double v) { return doctest::Approx(v).scale(1e-300); }
