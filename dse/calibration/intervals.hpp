// 80 % intervals on a study's results, from its calibration profile (dse/calibration/profile.hpp).
//
// A solver metric a profile rule covers gets [value x low, value x high], the factors of the rule's
// regime for the metric's orientation. A derived metric (a study's `derived:` formula) that reads
// such metrics gets its interval by propagation: the formula is evaluated at kIntervalDraws draws
// of the regimes' errors and the interval is the 10th and 90th percentile of the results. One
// error is drawn per regime and design point (metrics of one regime move together: a slower
// decode step makes throughput lower and cost higher at once); different regimes are drawn
// independently. A regime's log error is taken as normal with the median and spread its
// [p10, p90] imply; the draws are stratified (the k-th of n draws sits at quantile (k + 1/2) / n of
// each regime, regimes shifted by multiples of the golden ratio), so the result is deterministic.
// Every interval, and every drawn value of a solver metric, stays inside the metric's physical
// domain at the point (Solver::metric_lower_bound and metric_upper_bound: a fraction in [0, 1], an
// fp8 MFU up to fp8 peak / bf16 peak, a time >= 0): an interval that would cross a bound ends there.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dse/calibration/profile.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

inline constexpr std::size_t kIntervalDraws = 64;

// The names of the interval columns of `metric`.
std::string interval_low_name(std::string_view metric);   // <metric>_p10
std::string interval_high_name(std::string_view metric);  // <metric>_p90

// Appends <metric>_p10 and <metric>_p90 columns to `table` for every solver metric the study's
// profile covers and every derived metric that depends on one, in the table's metric order (NaN
// on rows that are not feasible and where no rule applies). Nothing when the study has no
// profile. The table's metric columns must be those of the sweep plus the derived metrics
// (dse/analysis/derived.hpp apply_formulas), or, for a study without derived metrics, some of the
// sweep's (dse/analysis/report_columns.hpp): the intervals of those are added, and a rule that reads
// a metric the table lacks throws std::logic_error. Throws std::invalid_argument when a column name
// it would add exists already. Returns the names of the columns it added.
std::vector<std::string> append_intervals(const ResolvedStudy& study, ResultTable& table);

// The interval of one solver metric at one point (`metrics` in solver order, the point's inputs);
// nullopt when no rule of the profile covers it there.
struct MetricInterval {
  double low = 0;
  double high = 0;
  std::string regime;
};
std::optional<MetricInterval> solver_metric_interval(const ResolvedStudy& study, const PointInputs& in,
                                                     std::span<const double> metrics, std::size_t metric);

// The error model of one solver metric at one point: its regime's held-out errors and how the metric
// moves with speed; nullopt when no rule of the study's profile covers it there.
struct MetricError {
  const RegimeAccuracy* regime = nullptr;
  Orientation orientation = Orientation::rate;
};
std::optional<MetricError> metric_error(const ResolvedStudy& study, const PointInputs& in, std::span<const double> metrics,
                                        std::size_t metric);

// A regime's log error (speed orientation) at `quantile` of the normal distribution its [p10, p90]
// implies.
double regime_error_at(const RegimeAccuracy& regime, double quantile);

// Where two curves cross when each carries its own model error: curves `a` and `b` over the
// increasing scan values `along` (logarithmic interpolation when `log_along`), crossing between scan
// points scan_lo and scan_lo + 1. Each of kIntervalDraws stratified pairs of independent errors
// (a's and b's, from their error models) moves the curves; the crossing nearest the original is
// found by linear interpolation between scan points (so within the scan's resolution), and the
// interval is the 10th and 90th percentile of its positions. A draw with no crossing in the scanned
// range counts as -inf or +inf on the side the crossing left by.
struct CrossingInterval {
  double low = 0;
  double high = 0;
  double share_in_range = 0;  // draws that still cross inside the scanned range
};
std::optional<CrossingInterval> crossing_interval(std::span<const double> along, std::span<const double> a,
                                                  std::span<const double> b, std::size_t scan_lo, const MetricError& error_a,
                                                  const MetricError& error_b, bool log_along);

}  // namespace dsx
