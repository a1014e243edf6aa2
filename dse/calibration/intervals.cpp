#include "dse/calibration/intervals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/expression.hpp"
#include "dse/calibration/profile.hpp"
#include "dse/grid.hpp"

namespace dsx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kGoldenFraction = 0.6180339887498949;
// The standard normal's 90th percentile: [p10, p90] spans 2 x 1.2816 standard deviations.
constexpr double kZ90 = 1.2815515655446004;

// Inverse of the standard normal distribution function: P. J. Acklam's rational approximation
// (relative error below 1.15e-9), "An algorithm for computing the inverse normal cumulative
// distribution function" (2003), as tabulated in Wichura-style form by many numerical libraries.
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double low = 0.02425;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// The profile's rules for one solver, compiled against the point's number parameters and metrics.
class RuleSet {
 public:
  explicit RuleSet(const ResolvedStudy& study) : study_(study) {
    const Solver& solver = *study.solver;
    const auto params = solver.params();
    const auto metrics = solver.metrics();
    slots_.assign(params.size() + metrics.size(), kNaN);
    std::vector<std::pair<std::string, double*>> variables;
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (params[p].kind == ParamKind::number) variables.emplace_back(std::string(params[p].name), &slots_[p]);
    }
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      variables.emplace_back(std::string(metrics[m].name), &slots_[params.size() + m]);
    }
    per_metric_.resize(metrics.size());
    const CalibrationProfile& profile = *study.calibration;
    for (const IntervalRule& rule : profile.intervals) {
      if (rule.solver != solver.name()) continue;
      const RegimeAccuracy* regime = profile.regime(rule.regime);
      if (regime == nullptr) continue;
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        if (metrics[m].name != rule.metric) continue;
        Compiled c{&rule, regime, static_cast<std::size_t>(regime - profile.regimes.data()), std::nullopt, {}};
        if (!rule.when.empty()) {
          c.when.emplace(rule.when, variables);
          for (const std::string& name : scan_expression(rule.when).names) {
            for (std::size_t k = 0; k < metrics.size(); ++k) {
              if (metrics[k].name == name) c.reads.push_back(k);
            }
          }
        }
        per_metric_[m].push_back(std::move(c));
      }
    }
  }

  bool covers(std::size_t metric) const { return !per_metric_[metric].empty(); }
  // The solver metrics the rules of `metric` read to choose among themselves.
  std::vector<std::size_t> reads(std::size_t metric) const {
    std::vector<std::size_t> out;
    for (const Compiled& c : per_metric_[metric]) out.insert(out.end(), c.reads.begin(), c.reads.end());
    return out;
  }
  bool any() const {
    return std::any_of(per_metric_.begin(), per_metric_.end(), [](const auto& v) { return !v.empty(); });
  }

  void load(const PointInputs& in, std::span<const double> metrics) {
    const std::size_t P = study_.solver->params().size();
    for (std::size_t p = 0; p < P; ++p) slots_[p] = in.values[p];
    for (std::size_t m = 0; m < metrics.size(); ++m) slots_[P + m] = metrics[m];
  }

  struct Choice {
    const RegimeAccuracy* regime = nullptr;
    std::size_t regime_index = 0;
    Orientation orientation = Orientation::rate;
  };
  // The rule that applies to `metric` at the loaded point.
  std::optional<Choice> choose(std::size_t metric) const {
    for (const Compiled& c : per_metric_[metric]) {
      if (!c.when || truthy(c.when->evaluate())) return Choice{c.regime, c.regime_index, c.rule->orientation};
    }
    return std::nullopt;
  }

 private:
  struct Compiled {
    const IntervalRule* rule = nullptr;
    const RegimeAccuracy* regime = nullptr;
    std::size_t regime_index = 0;
    std::optional<CompiledExpression> when;
    std::vector<std::size_t> reads;  // solver metrics `when` reads
  };
  const ResolvedStudy& study_;
  std::vector<double> slots_;
  std::vector<std::vector<Compiled>> per_metric_;
};

double perturbed(double value, Orientation o, double speed_error) {
  return o == Orientation::rate ? value * std::exp(-speed_error) : value * std::exp(speed_error);
}

// Where solver metric `metric` can lie at the point (Solver::metric_lower_bound / _upper_bound),
// widened to hold the prediction itself should a solver ever step outside its own domain.
struct Domain {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  double clamp(double v) const { return std::clamp(v, low, high); }
};
Domain domain_of(const Solver& solver, const PointInputs& in, std::size_t metric, double value) {
  Domain d{solver.metric_lower_bound(in, metric), solver.metric_upper_bound(in, metric)};
  d.low = std::min(d.low, value);
  d.high = std::max(d.high, value);
  return d;
}

}  // namespace

double regime_error_at(const RegimeAccuracy& r, double quantile) {
  const double median = (r.log_error_p10 + r.log_error_p90) / 2;
  const double sigma = (r.log_error_p90 - r.log_error_p10) / (2 * kZ90);
  return sigma > 0 ? median + sigma * normal_quantile(quantile) : median;
}

std::optional<MetricError> metric_error(const ResolvedStudy& study, const PointInputs& in, std::span<const double> metrics,
                                        std::size_t metric) {
  if (!study.calibration) return std::nullopt;
  RuleSet rules(study);
  if (!rules.covers(metric)) return std::nullopt;
  rules.load(in, metrics);
  const auto choice = rules.choose(metric);
  if (!choice) return std::nullopt;
  return MetricError{choice->regime, choice->orientation};
}

std::optional<CrossingInterval> crossing_interval(std::span<const double> along, std::span<const double> a,
                                                  std::span<const double> b, std::size_t scan_lo, const MetricError& error_a,
                                                  const MetricError& error_b, bool log_along) {
  const std::size_t K = along.size();
  if (K < 2 || scan_lo + 1 >= K || a.size() != K || b.size() != K) return std::nullopt;
  // The log ratio of the two curves at each scan point (NaN where either has no value).
  std::vector<double> g(K);
  for (std::size_t k = 0; k < K; ++k) {
    g[k] = a[k] > 0 && b[k] > 0 ? std::log(a[k] / b[k]) : kNaN;
  }
  if (!std::isfinite(g[scan_lo]) || !std::isfinite(g[scan_lo + 1])) return std::nullopt;
  const double below_sign = g[scan_lo] > 0 ? 1.0 : -1.0;
  const auto x_of = [&](std::size_t k) { return log_along ? std::log(along[k]) : along[k]; };
  const double sign_a = error_a.orientation == Orientation::rate ? 1.0 : -1.0;
  const double sign_b = error_b.orientation == Orientation::rate ? 1.0 : -1.0;
  std::vector<double> positions;
  std::size_t in_range = 0;
  for (std::size_t d = 0; d < kIntervalDraws; ++d) {
    const double u_a = (static_cast<double>(d) + 0.5) / static_cast<double>(kIntervalDraws);
    double u_b = (static_cast<double>(d) + 0.5) * kGoldenFraction;
    u_b -= std::floor(u_b);
    // true metric = predicted x exp(-sign x error): the shift of log(a / b).
    const double shift = -sign_a * regime_error_at(*error_a.regime, u_a) + sign_b * regime_error_at(*error_b.regime, u_b);
    const auto h = [&](std::size_t k) { return g[k] + shift; };
    // The sign change nearest the original crossing, searching outwards from it.
    std::optional<double> found;
    for (std::size_t step = 0; step < K && !found; ++step) {
      for (const std::ptrdiff_t lo : {static_cast<std::ptrdiff_t>(scan_lo) - static_cast<std::ptrdiff_t>(step),
                                      static_cast<std::ptrdiff_t>(scan_lo + step)}) {
        if (lo < 0 || lo + 1 >= static_cast<std::ptrdiff_t>(K) || found) continue;
        const auto i = static_cast<std::size_t>(lo);
        const double h0 = h(i), h1 = h(i + 1);
        if (!std::isfinite(h0) || !std::isfinite(h1) || (h0 > 0) == (h1 > 0)) continue;
        const double t = h0 / (h0 - h1);
        const double x = x_of(i) + t * (x_of(i + 1) - x_of(i));
        found = log_along ? std::exp(x) : x;
      }
    }
    if (found) {
      positions.push_back(*found);
      ++in_range;
    } else {
      // No crossing: the curves keep one order. If it is the order below the crossing, the crossing
      // moved beyond the top of the range.
      const double inf = std::numeric_limits<double>::infinity();
      positions.push_back((h(scan_lo) > 0 ? 1.0 : -1.0) == below_sign ? inf : -inf);
    }
  }
  std::sort(positions.begin(), positions.end());
  CrossingInterval out;
  out.low = positions[kIntervalDraws / 10];
  out.high = positions[kIntervalDraws - 1 - kIntervalDraws / 10];
  out.share_in_range = static_cast<double>(in_range) / static_cast<double>(kIntervalDraws);
  return out;
}

std::string interval_low_name(std::string_view metric) { return std::string(metric) + "_p10"; }
std::string interval_high_name(std::string_view metric) { return std::string(metric) + "_p90"; }

std::optional<MetricInterval> solver_metric_interval(const ResolvedStudy& study, const PointInputs& in,
                                                     std::span<const double> metrics, std::size_t metric) {
  if (!study.calibration) return std::nullopt;
  RuleSet rules(study);
  if (!rules.covers(metric) || !std::isfinite(metrics[metric])) return std::nullopt;
  rules.load(in, metrics);
  const auto choice = rules.choose(metric);
  if (!choice) return std::nullopt;
  const IntervalFactors k = interval_factors(*choice->regime, choice->orientation);
  const Domain d = domain_of(*study.solver, in, metric, metrics[metric]);
  return MetricInterval{d.clamp(metrics[metric] * k.low), d.clamp(metrics[metric] * k.high), choice->regime->name};
}

std::vector<std::string> append_intervals(const ResolvedStudy& study, ResultTable& table) {
  if (!study.calibration) return {};
  RuleSet rules(study);
  if (!rules.any()) return {};
  const Solver& solver = *study.solver;
  const std::size_t M = solver.metrics().size();
  const StudyAnalyses& analyses = analyses_of(study);
  const std::size_t D = analyses.derived.size();
  // A table of some solver metrics (dse/analysis/report_columns.hpp) gets the intervals of those;
  // a derived metric's interval perturbs the solver metrics, of which it reads those its formula
  // names: a metric it does not name moves nothing, so it may be absent.
  constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
  const std::vector<bool> read_by_formulas = D > 0 ? solver_metrics_read_by_formulas(study) : std::vector<bool>(M, false);
  std::vector<std::size_t> solver_cols(M);
  for (std::size_t m = 0; m < M; ++m) {
    const int c = table.metric_column(solver.metrics()[m].name);
    if (c < 0 && read_by_formulas[m]) {
      throw std::invalid_argument("results lack the solver metric '" + std::string(solver.metrics()[m].name) + "'");
    }
    solver_cols[m] = c < 0 ? kAbsent : static_cast<std::size_t>(c);
  }
  std::vector<std::size_t> derived_cols(D);
  for (std::size_t d = 0; d < D; ++d) {
    const int c = table.metric_column(analyses.derived[d].name);
    if (c < 0) throw std::invalid_argument("results lack the derived metric '" + analyses.derived[d].name + "'");
    derived_cols[d] = static_cast<std::size_t>(c);
  }
  const std::size_t rows = table.rows();
  const std::size_t R = study.calibration->regimes.size();

  // Interval values per row: solver metrics covered by a rule, then every derived metric.
  std::vector<std::size_t> covered;
  for (std::size_t m = 0; m < M; ++m) {
    if (!rules.covers(m) || solver_cols[m] == kAbsent) continue;
    for (const std::size_t k : rules.reads(m)) {
      if (solver_cols[k] == kAbsent) {
        throw std::logic_error("the interval of '" + std::string(solver.metrics()[m].name) + "' reads the metric '" +
                               std::string(solver.metrics()[k].name) + "', which the results table was loaded without");
      }
    }
    covered.push_back(m);
  }
  const std::size_t W = covered.size() + D;
  std::vector<std::string> names;
  for (const std::size_t m : covered) names.emplace_back(solver.metrics()[m].name);
  for (const DerivedMetric& d : analyses.derived) names.push_back(d.name);
  std::vector<std::string> added;
  for (const std::string& n : names) {
    added.push_back(interval_low_name(n));
    added.push_back(interval_high_name(n));
  }
  // The interval columns are filled in place: [p10, p90] of the covered solver metrics, then of every
  // derived metric; those of a derived metric that varies nowhere are dropped at the end.
  const std::size_t first = table.metric_names.size();
  table.append_metric_columns(added);
  const std::size_t width = table.metric_names.size();
  const auto low = [&](std::size_t r, std::size_t i) -> double& { return table.metrics[r * width + first + 2 * i]; };
  const auto high = [&](std::size_t r, std::size_t i) -> double& { return table.metrics[r * width + first + 2 * i + 1]; };
  std::vector<bool> derived_varies(D, false);

  std::optional<PointFormulas> formulas;
  if (D > 0) formulas.emplace(study);
  const Grid grid(study);
  PointInputs in;
  std::vector<double> metrics(M), draw_metrics(M);
  std::vector<std::optional<RuleSet::Choice>> choice(M);
  std::vector<Domain> domain(M);
  std::vector<double> draws(kIntervalDraws * R);
  for (std::size_t k = 0; k < kIntervalDraws; ++k) {
    for (std::size_t g = 0; g < R; ++g) {
      double u = (static_cast<double>(k) + 0.5) / static_cast<double>(kIntervalDraws) + static_cast<double>(g) * kGoldenFraction;
      u -= std::floor(u);
      draws[k * R + g] = regime_error_at(study.calibration->regimes[g], u);
    }
  }
  std::vector<double> samples(kIntervalDraws);
  for (std::size_t r = 0; r < rows; ++r) {
    if (table.status[r] != PointStatus::ok) continue;
    grid.inputs(table.point_index[r], in);
    for (std::size_t m = 0; m < M; ++m) {
      metrics[m] = solver_cols[m] == kAbsent ? std::numeric_limits<double>::quiet_NaN() : table.metric(r, solver_cols[m]);
    }
    rules.load(in, metrics);
    bool any = false;
    for (std::size_t i = 0; i < covered.size(); ++i) {
      const std::size_t m = covered[i];
      choice[m] = std::isfinite(metrics[m]) ? rules.choose(m) : std::nullopt;
      if (!choice[m]) continue;
      any = true;
      const IntervalFactors f = interval_factors(*choice[m]->regime, choice[m]->orientation);
      domain[m] = domain_of(solver, in, m, metrics[m]);
      low(r, i) = domain[m].clamp(metrics[m] * f.low);
      high(r, i) = domain[m].clamp(metrics[m] * f.high);
    }
    if (!any || D == 0) continue;
    for (std::size_t d = 0; d < D; ++d) {
      const double value = table.metric(r, derived_cols[d]);
      if (!std::isfinite(value)) continue;
      for (std::size_t k = 0; k < kIntervalDraws; ++k) {
        for (std::size_t m = 0; m < M; ++m) {
          draw_metrics[m] = choice[m] ? domain[m].clamp(perturbed(metrics[m], choice[m]->orientation,
                                                                  draws[k * R + choice[m]->regime_index]))
                                      : metrics[m];
        }
        formulas->load(in, draw_metrics, true);
        samples[k] = formulas->derived(d);
      }
      std::sort(samples.begin(), samples.end());
      const double lo = samples[kIntervalDraws / 10];
      const double hi = samples[kIntervalDraws - 1 - kIntervalDraws / 10];
      if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
      if (hi - lo <= 1e-12 * std::max(std::fabs(lo), std::fabs(hi))) continue;  // does not depend on them
      low(r, covered.size() + d) = lo;
      high(r, covered.size() + d) = hi;
      derived_varies[d] = true;
    }
  }
  // Columns: covered solver metrics, then the derived metrics that vary somewhere.
  std::vector<std::size_t> keep;
  std::vector<std::string> kept_names;
  for (std::size_t c = 0; c < first; ++c) keep.push_back(c);
  for (std::size_t i = 0; i < W; ++i) {
    if (i >= covered.size() && !derived_varies[i - covered.size()]) continue;
    keep.push_back(first + 2 * i);
    keep.push_back(first + 2 * i + 1);
    kept_names.push_back(added[2 * i]);
    kept_names.push_back(added[2 * i + 1]);
  }
  const auto original_end = table.metric_names.begin() + static_cast<std::ptrdiff_t>(first);
  for (const std::string& col : kept_names) {
    if (std::find(table.metric_names.begin(), original_end, col) != original_end) {
      throw std::invalid_argument("the interval column '" + col + "' is already a column of the results");
    }
  }
  if (keep.size() < width) table.keep_metric_columns(keep);
  return kept_names;
}

}  // namespace dsx
