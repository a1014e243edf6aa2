// A calibration profile: the efficiency parameters fitted to published measurements, and how
// accurate the fitted model is per regime, from which every prediction gets an 80 % interval.
//
// `dsx calibrate` writes one (dse/calibration/fit.hpp); the product ships
// studies/catalog/calibration/default.yaml, fitted on studies/catalog/measurements/. A study names a
// profile with `calibration:` (studies/README.md, "Calibration"): the profile's fitted value of a
// parameter becomes that parameter's default, and each metric a profile rule covers gets the
// columns <metric>_p10 and <metric>_p90.
//
// Errors are taken as multiplicative: a measured speed is the predicted one times exp(-e), where e
// is the log error log(predicted / measured) expressed for speeds (a time's log error is negated,
// so a model that is too slow has a negative error whether it was checked on a latency or a
// throughput). The interval of a regime is [p10, p90] of the log errors the cross-validation
// (leave one source out) left on held-out measurements: the split-conformal construction of
// Vovk, Gammerman and Shafer, "Algorithmic Learning in a Random World" (2005), and Lei et al.,
// "Distribution-Free Predictive Inference for Regression", JASA 113 (2018), section 2.2, applied
// to log errors. For a prediction y of a speed the 80 % interval is [y exp(-p90), y exp(-p10)];
// for a time it is [y exp(p10), y exp(p90)].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

class Diagnostics;
class YamlReader;
struct YamlNode;

// How a metric moves with the speed of the system: a rate grows with it (throughput, FLOP/s,
// bandwidth, MFU), a time shrinks with it (latency, step time, and what scales like time: cost,
// energy per item).
enum class Orientation : std::uint8_t { rate, time };
std::string_view orientation_name(Orientation o);

struct FittedParameter {
  std::string solver;
  std::string name;
  double value = 0;       // SI
  double spread = 0;      // one standard deviation of the fit (SI); 0 when not identified
  double prior = 0;       // the solver's default before fitting
  bool identified = false;  // enough measurements constrain it; otherwise value = prior
  std::size_t rows = 0;     // measurements that constrain it
  std::string per_hardware; // factor family whose per-chip factors scale it; empty = none
  bool fixed = false;       // held at the prior by its regime (`fixed: true`), whatever the rows say
};

// How far one chip's efficiencies of a family sit from the shared values: a point on `hardware`
// uses every parameter of the family (FittedParameter::per_hardware) at its fitted value times
// `factor`, capped at the parameter's upper bound. A chip the profile does not list uses the shared
// values (factor 1). Physical causes: the clock a chip sustains under a dense load against its
// datasheet boost clock, and how mature its kernel libraries are (dse/calibration/fit.hpp).
struct HardwareFactor {
  std::string family;
  std::string hardware;    // catalog id
  double factor = 1;
  double spread = 0;       // one standard deviation of the fit
  std::size_t rows = 0;    // measurements that constrain it
};

struct RegimeAccuracy {
  std::string name;
  std::size_t rows = 0;     // measurements predicted
  std::size_t sources = 0;  // distinct sources among them
  double log_error_p10 = 0;  // quantiles of held-out log errors (speed orientation)
  double log_error_p90 = 0;
  bool pooled = false;       // too few rows of its own: quantiles of every regime's held-out errors
  double mape = 0;           // in-sample mean absolute percentage error (fraction)
  double median_ape = 0;
  double mape_cv = 0;        // leave-one-source-out
  double median_ape_cv = 0;
  double coverage = 0;       // share of in-sample predictions inside the 80 % interval a study gets
  double coverage_cv = 0;    // share of held-out measurements inside their 80 % interval
  std::string description;   // the regime's words (measurements/regimes.yaml), which reports print
};

// Which regime's errors a solver metric carries, with its orientation, when `when` holds (an
// expression over the point's number parameters and solver metrics; empty = always).
struct IntervalRule {
  std::string solver;
  std::string metric;
  std::string regime;
  Orientation orientation = Orientation::rate;
  std::string when;
};

// A parameter of a factor family on a chip: the shared value times the chip's factor, capped at the
// parameter's upper bound (an efficiency never passes 1; +inf for an unbounded parameter).
inline double hardware_scaled_value(double shared, double factor, double upper_bound) {
  const double v = shared * factor;
  return v > upper_bound ? upper_bound : v;
}

struct CalibrationProfile {
  std::string name;          // "default", or the file stem
  std::string fitted_from;   // what `dsx calibrate` read (for the report)
  std::size_t measurements = 0;  // rows read
  std::size_t predicted = 0;     // rows dsx could predict
  std::string measurements_hash; // of the measurement files' text
  std::vector<FittedParameter> parameters;
  std::vector<HardwareFactor> hardware_factors;  // family, then hardware id order
  std::vector<RegimeAccuracy> regimes;
  std::vector<IntervalRule> intervals;

  const FittedParameter* parameter(std::string_view solver, std::string_view name) const;
  // The factor of `hardware` in `family`: 1 when the profile has none.
  double hardware_factor(std::string_view family, std::string_view hardware) const;
  const RegimeAccuracy* regime(std::string_view name) const;
};

// The 80 % interval factors of a regime for a prediction of `orientation`: the prediction times
// [low, high].
struct IntervalFactors {
  double low = 1;
  double high = 1;
};
IntervalFactors interval_factors(const RegimeAccuracy& regime, Orientation orientation);

// Reads a profile from a parsed mapping (a profile file's root, or a study's inline
// `calibration:`), reporting every problem at its position. nullopt after an error.
std::optional<CalibrationProfile> read_profile(const YamlReader& reader, const YamlNode& root, std::string_view path);
// Reads a profile file.
std::optional<CalibrationProfile> load_profile(const std::string& file, Diagnostics& diags);

// The profile as YAML that read_profile reads back to the same values (numbers with 17
// significant digits where needed). `indent` prefixes every line (a study's inline form).
std::string profile_yaml(const CalibrationProfile& profile, std::string_view indent = "");

}  // namespace dsx
