// `dsx calibrate` and `dsx accuracy`: fit the efficiency parameters of the measurement set's regimes,
// predict every measurement in-sample and cross-validated, and state the accuracy per regime.
//
// The fit minimises, over the parameters the regimes name (each mapped into an unbounded
// coordinate: the logit of a fraction, the log of a positive quantity), the Huber loss of the log
// errors log(predicted / measured) plus a weak pull towards each parameter's default:
//   sum_i huber_k(e_i) + sum_j (lambda (u_j - u_j,default))^2,
// by Levenberg-Marquardt (Madsen, Nielsen and Tingleff, "Methods for Non-Linear Least Squares
// Problems", DTU 2004, section 3.2) with iteratively reweighted Huber weights (Huber, "Robust
// Estimation of a Location Parameter", Ann. Math. Statist. 35, 1964; k = 1.345 robust standard
// deviations, the robust standard deviation being 1.4826 x the median absolute deviation), so one
// measurement far off moves the fit little. A parameter fewer than three measurements from at
// least two sources constrain (|d log prediction / d log parameter| >= 0.05) is not identified:
// it stays at its default and the result says so. Spread: one standard deviation from the
// Gauss-Newton covariance s^2 (J^T W J + lambda^2 I)^-1 of the weighted fit, mapped back to the
// parameter's units.
//
// A parameter a regime marks `per_hardware: FAMILY` is also scaled per chip: every chip its rows
// use gets a factor c_h of that family (one coordinate, log c_h), which multiplies every parameter of
// the family on that chip, and a pull towards 1 as strong as one row: (log c_h)^2 joins the loss
// with weight 1. The shared value is then the typical chip's and an unmeasured chip's; a chip with n
// rows moves n / (n + 1) of the way its rows ask (partial pooling: Gelman and Hill, "Data Analysis
// Using Regression and Multilevel/Hierarchical Models", Cambridge 2007, section 12.2). Held out, a
// chip whose only source is left out has no rows, and its factor is 1.
//
// Cross-validation leaves out every row of one source (paper, report, results page) at a time,
// refits on the rest and predicts the rows left out, so a paper's rows never help predict
// themselves. A regime's interval is [p10, p90] of its held-out log errors (dse/calibration/
// profile.hpp); the coverage of each held-out row is checked against the interval computed
// without its source, and the in-sample coverage of each row against the interval the profile ships
// (what a study that uses the profile prints around the in-sample prediction). Deterministic: no random numbers, a fixed order everywhere.
#pragma once

#include <string>
#include <vector>

#include "dse/calibration/measurements.hpp"
#include "dse/calibration/profile.hpp"

namespace dsx {

struct RowFit {
  std::size_t row = 0;       // into MeasurementSet::rows
  bool fitted = false;       // predicted at the defaults and used by the fit
  std::string problem;       // why not (the point is infeasible: its reason)
  double predicted = 0;      // in-sample, SI
  double predicted_cv = 0;   // with its source left out of the fit
  double log_error = 0;      // speed orientation (profile.hpp)
  double log_error_cv = 0;
  double interval_low_cv = 0;   // the 80 % interval the held-out row got (SI, in its metric's unit)
  double interval_high_cv = 0;
  bool covered_cv = false;
  bool covered = false;         // the in-sample prediction's interval (the profile's) holds the measurement
  std::vector<double> elasticity;  // d log prediction / d log parameter at the fit, per fit parameter
};

struct Calibration {
  CalibrationProfile profile;
  std::vector<FitParameterRef> parameters;  // the fit parameters, in profile.parameters order
  std::vector<RowFit> rows;                 // one per predictable measurement row
  std::vector<std::string> notes;           // parameters not identified and why; rows not fitted
};

struct CalibrationOptions {
  std::string profile_name = "default";
  std::string fitted_from;  // recorded in the profile
  bool cross_validate = true;
};

Calibration calibrate(const MeasurementSet& set, const CalibrationOptions& options);

// Rows that constrain parameter j (|elasticity| >= kConstrainingElasticity).
inline constexpr double kConstrainingElasticity = 0.05;

}  // namespace dsx
