#include "dse/calibration/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "dse/grid.hpp"
#include "engine/registry.hpp"

namespace dsx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPriorWeight = 0.01;       // lambda: per unit of the unbounded coordinate
constexpr double kHuberK = 1.345;           // robust standard deviations
constexpr double kMadToSigma = 1.4826;
constexpr double kMinRobustSigma = 0.02;    // a 2 % error is never treated as an outlier
constexpr double kDerivativeStep = 1e-4;    // in the unbounded coordinate
constexpr double kElasticityStep = 1e-3;    // relative, for d log y / d log theta
constexpr int kMaxIterations = 60;
constexpr std::size_t kMinRowsToIdentify = 3;
constexpr std::size_t kMinSourcesToIdentify = 2;
constexpr std::size_t kMinRowsForOwnInterval = 5;
constexpr double kIntervalLow = 0.1;
constexpr double kIntervalHigh = 0.9;
// The pull of a chip's factor towards 1 weighs as much as one measurement at the shared value: a
// chip few rows constrain stays near the shared values, one many rows constrain follows its rows.
constexpr double kFactorPriorWeight = 1.0;

// A fit parameter: where it sits in a solver's inputs and how it maps to an unbounded coordinate.
struct Coordinate {
  FitParameterRef ref;
  const Solver* solver = nullptr;
  std::size_t param = 0;
  double min_value = 0;
  double max_value = 0;
  bool fraction = false;  // bounded above by 1 (or less): logit over (min, max); else log
  double prior = 0;       // the solver's default
  double prior_weight = kPriorWeight;
  int family = -1;        // a parameter: the factor family that scales it; a factor: its family
  bool is_factor = false; // a chip's factor of `family` (ref.name = hardware id), log coordinate, prior 1

  double to_u(double theta) const {
    if (fraction) {
      const double span = max_value - min_value;
      const double t = std::clamp((theta - min_value) / span, 1e-6, 1 - 1e-6);
      return std::log(t / (1 - t));
    }
    return std::log(std::max(theta, positive_floor()));
  }
  double from_u(double u) const {
    if (fraction) return min_value + (max_value - min_value) / (1 + std::exp(-u));
    return std::exp(u);
  }
  double dtheta_du(double u) const {
    if (fraction) {
      const double s = 1 / (1 + std::exp(-u));
      return (max_value - min_value) * s * (1 - s);
    }
    return std::exp(u);
  }
  // A positive start for a log coordinate whose default is 0 (an overhead that defaults to none).
  double positive_floor() const { return max_value > 0 ? std::min(max_value * 1e-6, 1e-9) : 1e-9; }
};

struct Row {
  const Measurement* m = nullptr;
  std::size_t index = 0;           // into MeasurementSet::rows
  PointInputs inputs;              // at the defaults
  std::vector<int> slot;           // per coordinate: the solver parameter to overwrite, or -1
  std::vector<int> factor;         // per family: the coordinate of this row's chip factor, or -1
  std::vector<double> metrics;     // scratch
};

// A fitted value to kFittedDigits significant digits (the fit's spread is far larger), kept inside
// its bounds, so profiles and the labels studies show are short and exact.
constexpr int kFittedDigits = 4;
double rounded(double theta, const Coordinate& c) {
  if (theta == 0 || !std::isfinite(theta)) return theta;
  const double scale = std::pow(10.0, kFittedDigits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(theta)))));
  const double r = std::round(theta * scale) / scale;
  return r > c.min_value && (c.max_value <= c.min_value || r <= c.max_value) ? r : theta;
}

double speed_log_error(double predicted, double measured, Orientation o) {
  const double e = std::log(predicted / measured);
  return o == Orientation::rate ? e : -e;
}

class Fitter {
 public:
  Fitter(const std::vector<Coordinate>& coords, std::vector<Row>& rows) : coords_(coords), rows_(rows) {}

  // The prediction of row r with the parameters theta (SI), NaN when the point is not feasible.
  double predict(Row& r, const std::vector<double>& theta) const {
    PointInputs in = r.inputs;
    for (std::size_t j = 0; j < coords_.size(); ++j) {
      if (r.slot[j] < 0) continue;
      const Coordinate& c = coords_[j];
      double value = theta[j];
      if (c.family >= 0 && r.factor[static_cast<std::size_t>(c.family)] >= 0) {
        const double factor = theta[static_cast<std::size_t>(r.factor[static_cast<std::size_t>(c.family)])];
        value = hardware_scaled_value(value, factor, c.max_value > c.min_value ? c.max_value : HUGE_VAL);
      }
      in.values[static_cast<std::size_t>(r.slot[j])] = value;
    }
    const Solver& solver = *r.m->point->solver;
    try {
      const PointResult res = solver.evaluate(in, r.metrics);
      if (res.status != PointStatus::ok) return kNaN;
    } catch (const std::exception&) {
      return kNaN;
    }
    const double y = r.metrics[r.m->metric];
    return std::isfinite(y) && y > 0 ? y : kNaN;
  }

  // d log y / d log theta_j of row r at theta (0 when the row does not use parameter j).
  double elasticity(Row& r, const std::vector<double>& theta, std::size_t j) const {
    if (!uses(r, j)) return 0;
    const double base = predict(r, theta);
    std::vector<double> moved = theta;
    const double up = theta[j] * (1 + kElasticityStep);
    const Coordinate& c = coords_[j];
    moved[j] = c.fraction ? std::min(up, c.max_value) : up;
    if (moved[j] == theta[j]) moved[j] = theta[j] * (1 - kElasticityStep);
    const double y = predict(r, moved);
    if (!std::isfinite(base) || !std::isfinite(y) || theta[j] <= 0) return 0;
    return (std::log(y) - std::log(base)) / (std::log(moved[j]) - std::log(theta[j]));
  }

  // Whether row r's prediction depends on coordinate j.
  bool uses(const Row& r, std::size_t j) const {
    const Coordinate& c = coords_[j];
    return c.is_factor ? r.factor[static_cast<std::size_t>(c.family)] == static_cast<int>(j) : r.slot[j] >= 0;
  }

  // Which coordinates the rows `use` identify: enough rows from enough sources constrain them.
  std::vector<bool> identified(const std::vector<std::size_t>& use, const std::vector<double>& theta) const {
    std::vector<bool> out(coords_.size(), false);
    for (std::size_t j = 0; j < coords_.size(); ++j) {
      std::size_t n = 0;
      std::set<std::string> sources;
      for (std::size_t i : use) {
        if (std::fabs(elasticity(rows_[i], theta, j)) >= kConstrainingElasticity) {
          ++n;
          sources.insert(rows_[i].m->source.key());
        }
      }
      // A chip factor needs no quorum: its pull towards 1 keeps it defined, and it moves from 1 by
      // n / (n + 1) of what its n rows ask for. A fixed parameter stays at its prior.
      out[j] = coords_[j].is_factor ? n > 0
                                    : !coords_[j].ref.fixed && n >= kMinRowsToIdentify &&
                                          sources.size() >= kMinSourcesToIdentify;
    }
    return out;
  }

  struct Result {
    std::vector<double> theta;
    std::vector<double> spread;  // SI, 0 for coordinates not fitted
  };

  // Fits the coordinates `free` on rows `use`, starting from theta0.
  Result fit(const std::vector<std::size_t>& use, const std::vector<bool>& free, const std::vector<double>& theta0) const {
    const std::size_t p = coords_.size();
    std::vector<std::size_t> active;
    for (std::size_t j = 0; j < p; ++j) {
      if (free[j]) active.push_back(j);
    }
    Result out{theta0, std::vector<double>(p, 0.0)};
    for (std::size_t j = 0; j < p; ++j) {
      if (!free[j]) out.theta[j] = coords_[j].prior;
    }
    if (active.empty() || use.empty()) return out;
    const std::size_t k = active.size();
    const std::size_t n = use.size();
    Eigen::VectorXd u(k), u_prior(k);
    for (std::size_t a = 0; a < k; ++a) {
      u(a) = coords_[active[a]].to_u(out.theta[active[a]]);
      u_prior(a) = coords_[active[a]].to_u(coords_[active[a]].prior);
    }
    const auto theta_of = [&](const Eigen::VectorXd& x) {
      std::vector<double> t = out.theta;
      for (std::size_t a = 0; a < k; ++a) t[active[a]] = coords_[active[a]].from_u(x(a));
      return t;
    };
    // Residuals: log errors of the rows (NaN for an infeasible prediction) and the prior pulls.
    const auto residuals = [&](const Eigen::VectorXd& x, Eigen::VectorXd& r) {
      const std::vector<double> t = theta_of(x);
      r.resize(static_cast<Eigen::Index>(n + k));
      for (std::size_t i = 0; i < n; ++i) {
        Row& row = rows_[use[i]];
        const double y = predict(row, t);
        r(static_cast<Eigen::Index>(i)) = std::isfinite(y) ? std::log(y / row.m->measured) : kNaN;
      }
      for (std::size_t a = 0; a < k; ++a) {
        r(static_cast<Eigen::Index>(n + a)) = coords_[active[a]].prior_weight * (x(a) - u_prior(a));
      }
    };
    const auto weights = [&](const Eigen::VectorXd& r) {
      std::vector<double> abs_dev;
      std::vector<double> finite;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isfinite(r(static_cast<Eigen::Index>(i)))) finite.push_back(r(static_cast<Eigen::Index>(i)));
      }
      Eigen::VectorXd w = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n + k));
      if (finite.empty()) return w;
      std::vector<double> sorted = finite;
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
      const double med = sorted[sorted.size() / 2];
      for (double v : finite) abs_dev.push_back(std::fabs(v - med));
      std::nth_element(abs_dev.begin(), abs_dev.begin() + static_cast<std::ptrdiff_t>(abs_dev.size() / 2), abs_dev.end());
      const double sigma = std::max(kMadToSigma * abs_dev[abs_dev.size() / 2], kMinRobustSigma);
      const double cut = kHuberK * sigma;
      for (std::size_t i = 0; i < n; ++i) {
        const double v = r(static_cast<Eigen::Index>(i));
        w(static_cast<Eigen::Index>(i)) = std::isfinite(v) ? (std::fabs(v) <= cut ? 1.0 : cut / std::fabs(v)) : 0.0;
      }
      return w;
    };
    const auto cost = [&](const Eigen::VectorXd& r, const Eigen::VectorXd& w) {
      double c = 0;
      for (Eigen::Index i = 0; i < r.size(); ++i) {
        if (std::isfinite(r(i))) c += w(i) * r(i) * r(i);
      }
      return c;
    };
    // Forward differences in each coordinate; an infeasible neighbour contributes nothing.
    const auto jacobian = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& rx, Eigen::MatrixXd& jx) {
      for (std::size_t a = 0; a < k; ++a) {
        Eigen::VectorXd moved = x;
        moved(static_cast<Eigen::Index>(a)) += kDerivativeStep;
        Eigen::VectorXd r2;
        residuals(moved, r2);
        for (Eigen::Index i = 0; i < rx.size(); ++i) {
          const double d = (r2(i) - rx(i)) / kDerivativeStep;
          jx(i, static_cast<Eigen::Index>(a)) = std::isfinite(d) ? d : 0.0;
        }
      }
    };
    Eigen::VectorXd r;
    residuals(u, r);
    Eigen::VectorXd w = weights(r);
    double current = cost(r, w);
    double mu = 1e-3;
    Eigen::MatrixXd J(static_cast<Eigen::Index>(n + k), static_cast<Eigen::Index>(k));
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
      jacobian(u, r, J);
      Eigen::VectorXd rw = r;
      for (Eigen::Index i = 0; i < rw.size(); ++i) rw(i) = std::isfinite(rw(i)) ? rw(i) * w(i) : 0.0;
      const Eigen::MatrixXd JtWJ = J.transpose() * w.asDiagonal() * J;
      const Eigen::VectorXd g = J.transpose() * rw;
      bool improved = false;
      for (int tries = 0; tries < 12 && !improved; ++tries) {
        Eigen::MatrixXd A = JtWJ;
        for (Eigen::Index d = 0; d < A.rows(); ++d) A(d, d) += mu * (JtWJ(d, d) + 1e-9);
        const Eigen::VectorXd step = A.ldlt().solve(-g);
        const Eigen::VectorXd candidate = u + step;
        Eigen::VectorXd rc;
        residuals(candidate, rc);
        const double c = cost(rc, w);
        if (std::isfinite(c) && c < current) {
          const double gain = current - c;
          u = candidate;
          r = rc;
          w = weights(r);
          const double before = current;
          current = cost(r, w);
          mu = std::max(mu / 3, 1e-12);
          improved = true;
          if (gain <= 1e-12 * std::max(1.0, before)) iteration = kMaxIterations;
        } else {
          mu *= 4;
        }
      }
      if (!improved) break;
    }
    out.theta = theta_of(u);
    for (std::size_t j : active) out.theta[j] = rounded(out.theta[j], coords_[j]);
    // Spread: s^2 (J^T W J)^-1 at the solution, the prior's own curvature included.
    jacobian(u, r, J);
    double sum = 0;
    std::size_t used = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = r(static_cast<Eigen::Index>(i));
      if (std::isfinite(v)) {
        sum += w(static_cast<Eigen::Index>(i)) * v * v;
        ++used;
      }
    }
    const double dof = used > k ? static_cast<double>(used - k) : 1.0;
    const double s2 = sum / dof;
    const Eigen::MatrixXd info = J.transpose() * w.asDiagonal() * J;
    const Eigen::MatrixXd cov = s2 * info.ldlt().solve(Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k)));
    for (std::size_t a = 0; a < k; ++a) {
      const double var = cov(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(a));
      out.spread[active[a]] = std::isfinite(var) && var > 0
                                  ? coords_[active[a]].dtheta_du(u(static_cast<Eigen::Index>(a))) * std::sqrt(var)
                                  : 0.0;
    }
    return out;
  }

 private:
  const std::vector<Coordinate>& coords_;
  std::vector<Row>& rows_;
};

// Conformal quantiles of `values`: the floor((n + 1) q)-th smallest for the low end, the
// ceil((n + 1) q)-th for the high end (clamped to the extremes when n is small).
std::pair<double, double> interval_quantiles(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const auto low_rank = static_cast<std::ptrdiff_t>(std::floor((n + 1) * kIntervalLow));
  const auto high_rank = static_cast<std::ptrdiff_t>(std::ceil((n + 1) * kIntervalHigh));
  const auto at = [&](std::ptrdiff_t rank) {
    const std::ptrdiff_t i = std::clamp<std::ptrdiff_t>(rank - 1, 0, static_cast<std::ptrdiff_t>(values.size()) - 1);
    return values[static_cast<std::size_t>(i)];
  };
  return {at(low_rank), at(high_rank)};
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

double ape(double predicted, double measured) { return std::fabs(predicted / measured - 1); }

}  // namespace

Calibration calibrate(const MeasurementSet& set, const CalibrationOptions& options) {
  Calibration out;
  CalibrationProfile& profile = out.profile;
  profile.name = options.profile_name;
  profile.fitted_from = options.fitted_from;
  profile.measurements = set.rows.size();
  profile.measurements_hash = set.content_hash;

  // The fit parameters, in the order the regimes name them, then the chip factors of each family.
  std::vector<Coordinate> coords;
  std::vector<std::string> families;
  for (const RegimeDefinition& def : set.regimes) {
    for (const FitParameterRef& ref : def.fit) {
      const bool seen = std::any_of(coords.begin(), coords.end(), [&](const Coordinate& c) {
        return c.ref.solver == ref.solver && c.ref.name == ref.name;
      });
      if (seen) continue;
      Coordinate c;
      c.ref = ref;
      c.solver = find_solver(ref.solver);
      const auto params = c.solver->params();
      for (std::size_t p = 0; p < params.size(); ++p) {
        if (params[p].name != ref.name) continue;
        c.param = p;
        c.min_value = params[p].min_value;
        c.max_value = params[p].max_value;
        c.prior = ref.prior ? *ref.prior : params[p].default_value;
      }
      c.fraction = c.max_value > c.min_value && c.max_value <= 1;
      if (!c.fraction && c.prior <= 0) c.prior = c.positive_floor();
      if (!ref.per_hardware.empty()) {
        const auto f = std::find(families.begin(), families.end(), ref.per_hardware);
        c.family = static_cast<int>(f - families.begin());
        if (f == families.end()) families.push_back(ref.per_hardware);
      }
      coords.push_back(c);
    }
  }
  const std::size_t parameter_count = coords.size();
  for (const Coordinate& c : coords) out.parameters.push_back(c.ref);

  // The rows dsx can predict at the defaults.
  std::vector<Row> rows;
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const Measurement& m = set.rows[i];
    if (!m.predictable()) continue;
    Row r;
    r.m = &m;
    r.index = i;
    Grid(*m.point).inputs(0, r.inputs);
    r.metrics.resize(m.point->solver->metrics().size());
    for (const Coordinate& c : coords) {
      const bool same_solver = c.solver == m.point->solver;
      const bool written = std::find(m.written.begin(), m.written.end(), c.ref.name) != m.written.end();
      r.slot.push_back(same_solver && !written ? static_cast<int>(c.param) : -1);
    }
    rows.push_back(std::move(r));
  }
  // One factor per family and chip whose rows use a parameter of the family.
  for (Row& r : rows) {
    r.factor.assign(families.size(), -1);
    if (r.inputs.hardware == nullptr) continue;
    for (std::size_t j = 0; j < parameter_count; ++j) {
      if (r.slot[j] < 0 || coords[j].family < 0) continue;
      const auto family = static_cast<std::size_t>(coords[j].family);
      if (r.factor[family] >= 0) continue;
      const std::string& chip = r.inputs.hardware->id;
      std::size_t f = parameter_count;
      while (f < coords.size() && !(coords[f].family == coords[j].family && coords[f].ref.name == chip)) ++f;
      if (f == coords.size()) {
        Coordinate c;
        c.ref = FitParameterRef{families[family], chip, std::nullopt, families[family]};
        c.prior = 1;
        c.prior_weight = kFactorPriorWeight;
        c.family = coords[j].family;
        c.is_factor = true;
        coords.push_back(c);
      }
      r.factor[family] = static_cast<int>(f);
    }
  }
  for (Row& r : rows) r.slot.resize(coords.size(), -1);
  Fitter fitter(coords, rows);
  std::vector<double> prior(coords.size());
  for (std::size_t j = 0; j < coords.size(); ++j) prior[j] = coords[j].prior;

  out.rows.resize(rows.size());
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    RowFit& f = out.rows[i];
    f.row = rows[i].index;
    const double y = fitter.predict(rows[i], prior);
    if (std::isfinite(y)) {
      f.fitted = true;
      usable.push_back(i);
    } else {
      std::vector<double> metrics(rows[i].metrics.size());
      const Solver& solver = *rows[i].m->point->solver;
      const PointResult res = solver.evaluate(rows[i].inputs, metrics);
      f.problem = res.status == PointStatus::infeasible
                      ? "infeasible: " + reason_text(solver.reasons()[res.reason], rows[i].inputs.hardware)
                      : "the solver gives no positive " + std::string(solver.metrics()[rows[i].m->metric].name);
      out.notes.push_back("measurement '" + rows[i].m->id + "' cannot be predicted: " + f.problem);
    }
  }
  profile.predicted = usable.size();

  const std::vector<bool> free = fitter.identified(usable, prior);
  const Fitter::Result full = fitter.fit(usable, free, prior);

  for (std::size_t j = 0; j < parameter_count; ++j) {
    FittedParameter fp;
    fp.solver = coords[j].ref.solver;
    fp.name = coords[j].ref.name;
    fp.prior = coords[j].prior;
    fp.identified = free[j];
    fp.value = free[j] ? full.theta[j] : coords[j].prior;
    fp.spread = full.spread[j];
    fp.per_hardware = coords[j].ref.per_hardware;
    fp.fixed = coords[j].ref.fixed;
    profile.parameters.push_back(fp);
  }
  for (std::size_t i : usable) {
    RowFit& f = out.rows[i];
    f.predicted = fitter.predict(rows[i], full.theta);
    f.log_error = speed_log_error(f.predicted, rows[i].m->measured, rows[i].m->orientation());
    for (std::size_t j = 0; j < coords.size(); ++j) f.elasticity.push_back(fitter.elasticity(rows[i], full.theta, j));
  }
  // Chip factors the rows identify, by family, then hardware id; the others stay at 1.
  for (std::size_t j = parameter_count; j < coords.size(); ++j) {
    if (!free[j]) continue;
    std::size_t n = 0;
    for (std::size_t i : usable) n += std::fabs(out.rows[i].elasticity[j]) >= kConstrainingElasticity ? 1 : 0;
    profile.hardware_factors.push_back(HardwareFactor{coords[j].ref.per_hardware, coords[j].ref.name, full.theta[j],
                                                      full.spread[j], n});
  }
  std::sort(profile.hardware_factors.begin(), profile.hardware_factors.end(),
            [](const HardwareFactor& a, const HardwareFactor& b) {
              return std::tie(a.family, a.hardware) < std::tie(b.family, b.hardware);
            });
  for (RowFit& f : out.rows) {
    if (f.elasticity.size() > parameter_count) f.elasticity.resize(parameter_count);
  }
  for (std::size_t j = 0; j < parameter_count; ++j) {
    std::size_t n = 0;
    for (std::size_t i : usable) n += std::fabs(out.rows[i].elasticity[j]) >= kConstrainingElasticity ? 1 : 0;
    profile.parameters[j].rows = n;
    if (coords[j].ref.fixed) {
      out.notes.push_back("parameter " + coords[j].ref.solver + "." + coords[j].ref.name + " is fixed at its prior (" +
                          std::to_string(n) + " measurements constrain it)");
    } else if (!free[j]) {
      out.notes.push_back("parameter " + coords[j].ref.solver + "." + coords[j].ref.name +
                          " is not identified (" + std::to_string(n) +
                          " measurements constrain it; a fit needs at least " + std::to_string(kMinRowsToIdentify) +
                          " from " + std::to_string(kMinSourcesToIdentify) + " sources): it keeps its prior");
    }
  }

  // Leave one source out.
  std::map<std::string, std::vector<std::size_t>> by_source;
  for (std::size_t i : usable) by_source[rows[i].m->source.key()].push_back(i);
  for (const auto& [source, held] : by_source) {
    std::vector<std::size_t> rest;
    for (std::size_t i : usable) {
      if (rows[i].m->source.key() != source) rest.push_back(i);
    }
    Fitter::Result cv{full.theta, {}};
    if (options.cross_validate) {
      const std::vector<bool> free_cv = fitter.identified(rest, full.theta);
      cv = fitter.fit(rest, free_cv, full.theta);
    }
    for (std::size_t i : held) {
      RowFit& f = out.rows[i];
      f.predicted_cv = fitter.predict(rows[i], cv.theta);
      f.log_error_cv = std::isfinite(f.predicted_cv)
                           ? speed_log_error(f.predicted_cv, rows[i].m->measured, rows[i].m->orientation())
                           : kNaN;
    }
  }

  // Per regime: errors, interval quantiles from held-out errors, coverage without the row's source.
  std::vector<double> pooled;
  for (std::size_t i : usable) {
    if (std::isfinite(out.rows[i].log_error_cv)) pooled.push_back(out.rows[i].log_error_cv);
  }
  const auto quantiles_without = [&](const std::string& regime, const std::string& source, bool& pooled_out) {
    std::vector<double> own, all;
    for (std::size_t i : usable) {
      const double e = out.rows[i].log_error_cv;
      if (!std::isfinite(e) || rows[i].m->source.key() == source) continue;
      all.push_back(e);
      if (rows[i].m->regime == regime) own.push_back(e);
    }
    pooled_out = own.size() < kMinRowsForOwnInterval;
    const auto& use = pooled_out ? all : own;
    return use.empty() ? std::pair<double, double>{0.0, 0.0} : interval_quantiles(use);
  };
  for (const RegimeDefinition& def : set.regimes) {
    RegimeAccuracy a;
    a.name = def.name;
    a.description = def.description;
    std::vector<double> apes, apes_cv, own_cv;
    std::set<std::string> sources;
    std::size_t covered = 0, checked = 0;
    for (std::size_t i : usable) {
      if (rows[i].m->regime != def.name) continue;
      RowFit& f = out.rows[i];
      ++a.rows;
      sources.insert(rows[i].m->source.key());
      apes.push_back(ape(f.predicted, rows[i].m->measured));
      if (!std::isfinite(f.predicted_cv)) continue;
      apes_cv.push_back(ape(f.predicted_cv, rows[i].m->measured));
      own_cv.push_back(f.log_error_cv);
      bool pooled_here = false;
      const auto [lo, hi] = quantiles_without(def.name, rows[i].m->source.key(), pooled_here);
      RegimeAccuracy q;
      q.log_error_p10 = lo;
      q.log_error_p90 = hi;
      const IntervalFactors k = interval_factors(q, rows[i].m->orientation());
      f.interval_low_cv = f.predicted_cv * k.low;
      f.interval_high_cv = f.predicted_cv * k.high;
      f.covered_cv = rows[i].m->measured >= f.interval_low_cv && rows[i].m->measured <= f.interval_high_cv;
      covered += f.covered_cv ? 1 : 0;
      ++checked;
    }
    if (a.rows == 0) continue;
    a.sources = sources.size();
    a.mape = mean(apes);
    a.median_ape = median(apes);
    a.mape_cv = mean(apes_cv);
    a.median_ape_cv = median(apes_cv);
    a.coverage_cv = checked > 0 ? static_cast<double>(covered) / static_cast<double>(checked) : 0.0;
    a.pooled = own_cv.size() < kMinRowsForOwnInterval;
    const std::vector<double>& basis = a.pooled ? pooled : own_cv;
    const auto [lo, hi] = basis.empty() ? std::pair<double, double>{0.0, 0.0} : interval_quantiles(basis);
    a.log_error_p10 = lo;
    a.log_error_p90 = hi;
    std::size_t covered_in = 0;
    for (std::size_t i : usable) {
      if (rows[i].m->regime != def.name) continue;
      RowFit& f = out.rows[i];
      const IntervalFactors k = interval_factors(a, rows[i].m->orientation());
      f.covered = rows[i].m->measured >= f.predicted * k.low && rows[i].m->measured <= f.predicted * k.high;
      covered_in += f.covered ? 1 : 0;
    }
    a.coverage = static_cast<double>(covered_in) / static_cast<double>(a.rows);
    profile.regimes.push_back(a);
    for (const IntervalRule& rule : def.intervals) profile.intervals.push_back(rule);
  }
  return out;
}

}  // namespace dsx
