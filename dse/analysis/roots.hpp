// Root of a scalar function inside a sign-changing bracket, by Brent's method: R. P. Brent,
// "Algorithms for Minimization without Derivatives", Prentice-Hall, 1973, chapter 4 (procedure
// `zero`). Each step takes inverse quadratic interpolation or the secant step when it stays inside
// the bracket and shrinks it fast enough, and bisection otherwise, so it never needs more than
// about (log2((b - a) / tol))^2 evaluations and usually converges superlinearly.
//
// Tolerance: with t = absolute + relative x max(|a|, |b|) (fixed at the start), the iteration stops
// when the bracket [lo, hi] that holds the sign change is at most 2 (2 eps |x| + t) wide, or an
// evaluation is exactly zero. The root of a continuous f lies in [lo, hi].
#pragma once

#include <functional>

namespace dsx {

struct RootTolerance {
  double relative = 1e-10;  // of max(|a|, |b|)
  double absolute = 0;
  int max_evaluations = 200;
};

enum class RootStatus : unsigned char {
  converged,     // bracket within the tolerance, or f(x) == 0
  not_finite,    // f returned NaN or an infinity inside the bracket (evaluation stopped there)
  max_evaluations,
};

struct Root {
  double x = 0;       // best estimate: the end of the final bracket with the smaller |f|
  double fx = 0;
  double lo = 0;      // final bracket, lo <= x <= hi, holding the sign change
  double hi = 0;
  double f_lo = 0;
  double f_hi = 0;
  double tolerance = 0;  // t, the absolute tolerance used
  int evaluations = 0;   // calls of f (the two end values passed in are not counted)
  RootStatus status = RootStatus::converged;
};

// `fa` = f(a) and `fb` = f(b) must be finite with fa * fb <= 0 (std::invalid_argument otherwise).
Root brent_root(const std::function<double(double)>& f, double a, double b, double fa, double fb,
                const RootTolerance& tolerance = {});

}  // namespace dsx
