#include "dse/analysis/roots.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dsx {

namespace {

void set_bracket(Root& r, double b, double fb, double c, double fc) {
  r.x = b;
  r.fx = fb;
  if (b <= c) {
    r.lo = b, r.f_lo = fb, r.hi = c, r.f_hi = fc;
  } else {
    r.lo = c, r.f_lo = fc, r.hi = b, r.f_hi = fb;
  }
}

}  // namespace

Root brent_root(const std::function<double(double)>& f, double a, double b, double fa, double fb,
                const RootTolerance& tolerance) {
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(fa) || !std::isfinite(fb)) {
    throw std::invalid_argument("brent_root: the bracket and its values must be finite");
  }
  if ((fa > 0 && fb > 0) || (fa < 0 && fb < 0)) {
    throw std::invalid_argument("brent_root: f(a) and f(b) have the same sign");
  }
  constexpr double eps = std::numeric_limits<double>::epsilon();
  Root r;
  r.tolerance = tolerance.absolute + tolerance.relative * std::max(std::fabs(a), std::fabs(b));
  const double t = r.tolerance;
  if (fa == 0) {
    set_bracket(r, a, fa, a, fa);
    return r;
  }
  if (fb == 0) {
    set_bracket(r, b, fb, b, fb);
    return r;
  }

  // Brent's `zero`: b is the best estimate, c the contrapoint (f(b) and f(c) of opposite sign),
  // a the previous b.
  double c = a;
  double fc = fa;
  double d = b - a;
  double e = d;
  while (true) {
    if ((fb > 0) == (fc > 0)) {
      c = a;
      fc = fa;
      d = b - a;
      e = d;
    }
    if (std::fabs(fc) < std::fabs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const double tol = 2 * eps * std::fabs(b) + t;
    const double m = 0.5 * (c - b);
    if (std::fabs(m) <= tol || fb == 0) {
      set_bracket(r, b, fb, fb == 0 ? b : c, fb == 0 ? fb : fc);
      r.status = RootStatus::converged;
      return r;
    }
    if (r.evaluations >= tolerance.max_evaluations) {
      set_bracket(r, b, fb, c, fc);
      r.status = RootStatus::max_evaluations;
      return r;
    }
    if (std::fabs(e) < tol || std::fabs(fa) <= std::fabs(fb)) {
      d = m;
      e = m;
    } else {
      double s = fb / fa;
      double p;
      double q;
      if (a == c) {
        p = 2 * m * s;
        q = 1 - s;
      } else {
        q = fa / fc;
        const double rr = fb / fc;
        p = s * (2 * m * q * (q - rr) - (b - a) * (rr - 1));
        q = (q - 1) * (rr - 1) * (s - 1);
      }
      if (p > 0) {
        q = -q;
      } else {
        p = -p;
      }
      s = e;
      e = d;
      if (2 * p < 3 * m * q - std::fabs(tol * q) && p < std::fabs(0.5 * s * q)) {
        d = p / q;
      } else {
        d = m;
        e = m;
      }
    }
    a = b;
    fa = fb;
    b += std::fabs(d) > tol ? d : (m > 0 ? tol : -tol);
    fb = f(b);
    ++r.evaluations;
    if (!std::isfinite(fb)) {
      // Report the last good bracket [a, c] (a holds the previous estimate).
      set_bracket(r, a, fa, c, fc);
      r.status = RootStatus::not_finite;
      return r;
    }
  }
}

}  // namespace dsx
