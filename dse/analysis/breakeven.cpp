#include "dse/analysis/breakeven.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/calibration/intervals.hpp"
#include "dse/grid.hpp"
#include "dse/layouts.hpp"

namespace dsx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// |d| at or below this share of |m_i| + |m_j| is equality (rounding between two computations).
constexpr double kEqualShare = 1e-12;
// A refined bracket whose both ends keep |d| above this share of the metrics (at the scan points
// around it) sits on a step.
constexpr double kJumpShare = 1e-6;

// The metric of one evaluation, NaN when the point is infeasible or the evaluation fails.
class MetricProbe {
 public:
  explicit MetricProbe(const BreakevenProblem& p) : p_(p), out_(p.solver->metrics().size()) {}

  double operator()(std::size_t alternative, double along) {
    PointInputs in;
    try {
      p_.inputs(alternative, along, in);
      const PointResult r = p_.solver->evaluate(in, out_);
      if (r.status != PointStatus::ok) return kNaN;
      if (alternative < p_.values.size() && p_.values[alternative]) {
        const double v = p_.values[alternative](in, out_);
        return std::isnan(v) ? kNaN : v;
      }
    } catch (const std::exception&) {
      return kNaN;
    }
    const double v = out_[p_.metric];
    return std::isnan(v) ? kNaN : v;
  }

 private:
  const BreakevenProblem& p_;
  std::vector<double> out_;
};

// -1, 0, +1, or 2 when either value is missing.
int sign_of_difference(double mi, double mj) {
  if (std::isnan(mi) || std::isnan(mj)) return 2;
  const double d = mi - mj;
  if (std::fabs(d) <= kEqualShare * (std::fabs(mi) + std::fabs(mj))) return 0;
  return d > 0 ? 1 : -1;
}

// Which of the pair is better where mi - mj has sign s (nonzero).
std::size_t better_of(std::size_t i, std::size_t j, int s, Direction dir) {
  const bool i_smaller = s < 0;
  return (dir == Direction::minimize) == i_smaller ? i : j;
}

bool better_value(double a, double b, Direction dir) { return dir == Direction::minimize ? a < b : a > b; }

void refine(const BreakevenProblem& p, MetricProbe& probe, const BreakevenOutcome& o, Crossing& c) {
  const std::size_t i = c.first;
  const std::size_t j = c.second;
  const auto d = [&](double x) {
    const double mi = probe(i, x);
    const double mj = probe(j, x);
    return mi - mj;
  };
  const double a = o.along_values[c.scan_lo];
  const double b = o.along_values[c.scan_hi];
  const double fa = o.curve(i, c.scan_lo) - o.curve(j, c.scan_lo);
  const double fb = o.curve(i, c.scan_hi) - o.curve(j, c.scan_hi);
  const Root r = brent_root(d, a, b, fa, fb, p.tolerance);
  c.bracket_lo = r.lo;
  c.bracket_hi = r.hi;
  c.tolerance = r.tolerance;
  c.evaluations = r.evaluations;
  if (r.status != RootStatus::converged) {
    c.kind = CrossingKind::unrefined;
    c.along_value = c.metric_first = c.metric_second = kNaN;
    return;
  }
  c.along_value = r.x;
  c.metric_first = probe(i, r.x);
  c.metric_second = probe(j, r.x);
  ++c.evaluations;
  // The size of the metrics around the crossing: at a root of two curves that both pass 0 the
  // values there are no scale.
  const double scale = std::max(std::fabs(o.curve(i, c.scan_lo)) + std::fabs(o.curve(j, c.scan_lo)),
                                std::fabs(o.curve(i, c.scan_hi)) + std::fabs(o.curve(j, c.scan_hi)));
  const bool step = r.lo < r.hi && std::fabs(r.f_lo) > kJumpShare * scale && std::fabs(r.f_hi) > kJumpShare * scale;
  c.kind = step ? CrossingKind::jump : CrossingKind::root;
}

}  // namespace

std::string_view crossing_kind_name(CrossingKind kind) {
  switch (kind) {
    case CrossingKind::root: return "root";
    case CrossingKind::jump: return "jump";
    case CrossingKind::at_point: return "at_point";
    case CrossingKind::tie: return "tie";
    case CrossingKind::bracket: return "bracket";
    case CrossingKind::unrefined: return "unrefined";
  }
  throw std::logic_error("crossing_kind_name: invalid CrossingKind");
}

BreakevenOutcome find_breakevens(const BreakevenProblem& p) {
  if (p.solver == nullptr) throw std::invalid_argument("break-even: no solver");
  if (!p.inputs) throw std::invalid_argument("break-even: no inputs callback");
  if (p.metric >= p.solver->metrics().size()) throw std::invalid_argument("break-even: metric index out of range");
  if (!p.values.empty() && p.values.size() != p.alternatives.size()) {
    throw std::invalid_argument("break-even: one value function per alternative");
  }
  if (p.alternatives.size() < 2) throw std::invalid_argument("break-even: needs at least two alternatives");
  if (p.along_values.empty()) throw std::invalid_argument("break-even: no scan points");
  if (!p.along_labels.empty() && p.along_labels.size() != p.along_values.size()) {
    throw std::invalid_argument("break-even: one label per scan point");
  }
  for (std::size_t k = 0; k < p.along_values.size(); ++k) {
    if (!std::isfinite(p.along_values[k])) throw std::invalid_argument("break-even: scan values must be finite");
    if (p.refine && k > 0 && !(p.along_values[k - 1] < p.along_values[k])) {
      throw std::invalid_argument("break-even: scan values must increase strictly to refine");
    }
  }

  const std::size_t A = p.alternatives.size();
  const std::size_t K = p.along_values.size();
  BreakevenOutcome o;
  o.along_values = p.along_values;
  o.along_labels = p.along_labels;
  o.curves.assign(A * K, kNaN);
  MetricProbe probe(p);
  for (std::size_t a = 0; a < A; ++a) {
    for (std::size_t k = 0; k < K; ++k) {
      const double v = probe(a, p.along_values[k]);
      o.curves[a * K + k] = v;
      if (std::isnan(v)) ++o.missing_values;
    }
  }
  o.best_at.assign(K, kNoAlternative);
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t a = 0; a < A; ++a) {
      const double v = o.curve(a, k);
      if (std::isnan(v)) continue;
      if (o.best_at[k] == kNoAlternative || better_value(v, o.curve(o.best_at[k], k), p.direction)) o.best_at[k] = a;
    }
  }

  constexpr std::size_t kNone = kNoAlternative;
  for (std::size_t i = 0; i < A; ++i) {
    for (std::size_t j = i + 1; j < A; ++j) {
      std::size_t prev = kNone;        // last scan point with a nonzero difference
      std::size_t zero_start = kNone;  // first of the current run of equal points
      int prev_sign = 0;
      for (std::size_t k = 0; k < K; ++k) {
        const int s = sign_of_difference(o.curve(i, k), o.curve(j, k));
        if (s == 2) {
          prev = kNone;
          zero_start = kNone;
          continue;
        }
        if (s == 0) {
          if (zero_start == kNone) zero_start = k;
          continue;
        }
        if (prev != kNone && prev_sign != s) {
          Crossing c;
          c.first = i;
          c.second = j;
          c.better_below = better_of(i, j, prev_sign, p.direction);
          c.better_above = better_of(i, j, s, p.direction);
          if (zero_start == kNone) {
            c.scan_lo = prev;
            c.scan_hi = k;
            c.bracket_lo = p.along_values[prev];
            c.bracket_hi = p.along_values[k];
            if (p.refine) {
              refine(p, probe, o, c);
            } else {
              c.kind = CrossingKind::bracket;
              c.along_value = c.metric_first = c.metric_second = kNaN;
            }
          } else {
            c.scan_lo = zero_start;
            c.scan_hi = k - 1;
            c.bracket_lo = p.along_values[zero_start];
            c.bracket_hi = p.along_values[k - 1];
            if (zero_start == k - 1) {
              c.kind = CrossingKind::at_point;
              c.along_value = p.along_values[zero_start];
              c.metric_first = o.curve(i, zero_start);
              c.metric_second = o.curve(j, zero_start);
            } else {
              c.kind = CrossingKind::tie;
              c.along_value = c.metric_first = c.metric_second = kNaN;
            }
          }
          o.crossings.push_back(c);
        }
        prev = k;
        prev_sign = s;
        zero_start = kNone;
      }
    }
  }
  std::stable_sort(o.crossings.begin(), o.crossings.end(), [](const Crossing& x, const Crossing& y) {
    if (x.scan_lo != y.scan_lo) return x.scan_lo < y.scan_lo;
    return x.bracket_lo < y.bracket_lo;
  });

  // Segments of the best alternative along the axis.
  for (std::size_t k = 0; k < K; ++k) {
    const std::size_t best = o.best_at[k];
    if (!o.segments.empty() && o.segments.back().best == best) {
      o.segments.back().scan_to = k;
      o.segments.back().to = p.along_values[k];
      continue;
    }
    BestSegment seg{best, p.along_values[k], p.along_values[k], k, k};
    if (!o.segments.empty() && k > 0) {
      BestSegment& last = o.segments.back();
      const std::size_t lo = std::min(last.best, best);
      const std::size_t hi = std::max(last.best, best);
      for (const Crossing& c : o.crossings) {
        const bool refined = c.kind == CrossingKind::root || c.kind == CrossingKind::jump;
        if (refined && c.first == lo && c.second == hi && c.scan_lo == k - 1 && c.scan_hi == k) {
          last.to = c.along_value;
          seg.from = c.along_value;
          break;
        }
      }
    }
    o.segments.push_back(seg);
  }
  return o;
}

std::vector<RequestProblem> check_breakeven(const ResolvedStudy& study, const BreakevenRequest& r) {
  std::vector<RequestProblem> problems;
  if (study.solver == nullptr) {
    problems.push_back({"solver", "the study has no solver"});
    return problems;
  }
  const Solver& solver = *study.solver;
  const bool by_metrics = !r.metrics.empty();
  const auto known_metric = [&](const std::string& name, const std::string& field) {
    if (find_study_metric(study, name)) return;
    std::string names;
    for (const std::string& m : study_metric_names(study)) names += (names.empty() ? "" : ", ") + m;
    problems.push_back({field, "unknown metric '" + name + "' of solver " + std::string(solver.name()) +
                                   " (metrics: " + names + ")"});
  };
  if (by_metrics) {
    if (!r.metric.empty()) problems.push_back({"metric", "give either metric (with alternatives) or metrics, not both"});
    if (!r.alternatives.empty()) {
      problems.push_back({"alternatives", "with metrics: the alternatives are those metrics; remove alternatives"});
    }
    if (!r.among.empty()) problems.push_back({"among", "among: chooses values of alternatives:, which metrics: replaces"});
    if (r.metrics.size() < 2) problems.push_back({"metrics", "a break-even compares at least two metrics"});
    for (std::size_t n = 0; n < r.metrics.size(); ++n) {
      known_metric(r.metrics[n], "metrics[" + std::to_string(n) + "]");
      for (std::size_t m = 0; m < n; ++m) {
        if (r.metrics[m] == r.metrics[n]) {
          problems.push_back({"metrics[" + std::to_string(n) + "]", "'" + r.metrics[n] + "' is listed twice"});
        }
      }
    }
  } else {
    known_metric(r.metric, "metric");
  }
  const auto swept = [&](const std::string& param, const char* field) -> int {
    const int a = axis_of(study, param);
    if (a < 0 && param_of(solver, param) < 0 && find_bundle_kind(param) == nullptr && param != kLayoutAxis) {
      problems.push_back({field, "unknown parameter '" + param + "' (parameters: " + param_names(solver) + ")"});
      return -1;
    }
    if (a < 0) {
      problems.push_back({field, "'" + param + "' is not swept in this study; a break-even needs it as an axis (axes: " +
                                     axis_names(study) + ")"});
    }
    return a;
  };
  const int along = swept(r.along, "along");
  const int alts = by_metrics ? -1 : swept(r.alternatives, "alternatives");
  if (along >= 0 && along == alts) {
    problems.push_back({"alternatives", "the alternatives must be another axis than 'along' (" + r.along + ")"});
  }
  if (along >= 0 && study.axes[static_cast<std::size_t>(along)].is_bundle()) {
    std::string sets;
    for (std::size_t p : study.axes[static_cast<std::size_t>(along)].sets) {
      sets += (sets.empty() ? "" : ", ") + std::string(solver.params()[p].name);
    }
    problems.push_back({"along", "'" + r.along + "' is an axis of bundles: each value sets " + sets +
                                     " together, so no single quantity runs along it and a crossing cannot lie "
                                     "between two of its values; compare its values as alternatives (alternatives: " +
                                     r.along + ") or pin one with where: {" + r.along + ": " +
                                     study.axes[static_cast<std::size_t>(along)].values.front().label + "}"});
  } else if (along >= 0) {
    const ParamSpec& ps = solver.params()[study.axes[static_cast<std::size_t>(along)].param_index];
    if (r.refine.value_or(false) && ps.kind != ParamKind::number) {
      problems.push_back({"refine", "'" + r.along + "' is not a number parameter; only its axis values can bracket a crossing"});
    }
    const auto& values = study.axes[static_cast<std::size_t>(along)].values;
    if (std::any_of(values.begin(), values.end(), [&](const AxisValue& v) { return is_param_word(ps, v.value); })) {
      problems.push_back({"along", "the " + r.along + " axis takes '" + std::string(ps.word) +
                                       "', a word with no place among its numbers, so no crossing can lie along it; "
                                       "sweep numbers only, or compare the word as an alternative"});
    }
    if (study.axes[static_cast<std::size_t>(along)].values.size() < 2) {
      problems.push_back({"along", "the " + r.along + " axis has one value; a crossing needs at least two"});
    }
  }
  if (alts >= 0) {
    const Axis& axis = study.axes[static_cast<std::size_t>(alts)];
    std::string labels;
    for (const AxisValue& v : axis.values) labels += (labels.empty() ? "" : ", ") + v.label;
    for (std::size_t n = 0; n < r.among.size(); ++n) {
      const auto it = std::find_if(axis.values.begin(), axis.values.end(),
                                   [&](const AxisValue& v) { return v.label == r.among[n]; });
      if (it == axis.values.end()) {
        problems.push_back({"among[" + std::to_string(n) + "]", "'" + r.among[n] + "' is not a value of the " +
                                                                  r.alternatives + " axis (axis values: " + labels + ")"});
      }
      for (std::size_t m = 0; m < n; ++m) {
        if (r.among[m] == r.among[n]) {
          problems.push_back({"among[" + std::to_string(n) + "]", "'" + r.among[n] + "' is listed twice"});
        }
      }
    }
    const std::size_t count = r.among.empty() ? axis.values.size() : r.among.size();
    if (count < 2) problems.push_back({r.among.empty() ? "alternatives" : "among", "a break-even compares at least two alternatives"});
  }
  pin_axes(study, r.where, "where", problems);
  for (const Selector& sel : r.where) {
    if (sel.param == r.along || (!by_metrics && sel.param == r.alternatives)) {
      problems.push_back({"where." + sel.param, "'" + sel.param + "' is the " +
                                                     (sel.param == r.along ? "along" : "alternatives") +
                                                     " axis of this break-even and cannot be pinned" +
                                                     (sel.param == r.alternatives ? " (use among: to choose values)" : "")});
    }
  }
  if (!(r.tolerance.relative >= 0) || !(r.tolerance.absolute >= 0) ||
      r.tolerance.relative + r.tolerance.absolute <= 0 || !std::isfinite(r.tolerance.relative) ||
      !std::isfinite(r.tolerance.absolute)) {
    problems.push_back({"tolerance", "the tolerance must be finite, non-negative and not zero"});
  }
  if (r.tolerance.max_evaluations < 1) problems.push_back({"tolerance", "at least one evaluation is needed to refine"});
  return problems;
}

namespace {

// The 80 % interval of each crossing's position under the study's calibration profile.
void add_crossing_intervals(const ResolvedStudy& study, std::size_t metric, const std::vector<PointInputs>& points,
                            std::size_t K, BreakevenOutcome& o) {
  if (!study.calibration) return;
  bool positive = true;
  for (double v : o.along_values) positive = positive && v > 0;
  const bool log_along = positive && o.along_values.back() >= 10 * o.along_values.front();
  std::vector<double> metrics(study.solver->metrics().size());
  const auto error_at = [&](std::size_t alternative, std::size_t k) -> std::optional<MetricError> {
    const PointInputs& in = points[alternative * K + k];
    if (study.solver->evaluate(in, metrics).status != PointStatus::ok) return std::nullopt;
    return metric_error(study, in, metrics, metric);
  };
  const std::size_t A = o.curves.size() / K;
  for (Crossing& c : o.crossings) {
    if (c.kind == CrossingKind::tie || c.kind == CrossingKind::unrefined) continue;
    const std::size_t lo = std::min(c.scan_lo, K - 2);
    const auto ea = error_at(c.first, lo);
    const auto eb = error_at(c.second, lo);
    if (!ea || !eb || c.first >= A || c.second >= A) continue;
    const std::span<const double> curves(o.curves);
    const auto interval = crossing_interval(o.along_values, curves.subspan(c.first * K, K), curves.subspan(c.second * K, K),
                                            lo, *ea, *eb, log_along);
    if (!interval) continue;
    c.interval_low = interval->low;
    c.interval_high = interval->high;
    c.interval_share_in_range = interval->share_in_range;
  }
}

}  // namespace

BreakevenAnalysis run_breakeven(const ResolvedStudy& study, const BreakevenRequest& request) {
  throw_if_problems("break-even '" + request.name + "'", check_breakeven(study, request));
  const Solver& solver = *study.solver;
  const bool by_metrics = !request.metrics.empty();
  std::vector<RequestProblem> unused;
  std::vector<std::uint32_t> coords = pin_axes(study, request.where, "where", unused);
  const auto along_axis = static_cast<std::size_t>(axis_of(study, request.along));
  const std::size_t alt_axis = by_metrics ? kNoAlternative : static_cast<std::size_t>(axis_of(study, request.alternatives));
  const Axis& along = study.axes[along_axis];
  const ParamSpec& along_spec = solver.params()[along.param_index];
  const bool numeric = !along.is_bundle() && along_spec.kind == ParamKind::number;

  BreakevenAnalysis out;
  out.request = request;
  out.along_param = along.param_index;
  out.refined = request.refine.value_or(numeric);

  // The value compared for each alternative: a solver metric read directly, or through the
  // study's derived metrics and constraints.
  std::vector<MetricValue> values;
  std::vector<std::uint32_t> alt_positions;
  if (by_metrics) {
    out.alternatives = request.metrics;
    for (const std::string& m : request.metrics) {
      const StudyMetric sm = *find_study_metric(study, m);
      MetricValue v = study_metric_value(study, m);
      if (!v) {
        const std::size_t index = sm.index;
        v = [index](const PointInputs&, std::span<const double> metrics) { return metrics[index]; };
      }
      values.push_back(std::move(v));
    }
    const StudyMetric first = *find_study_metric(study, request.metrics.front());
    out.metric = first.derived ? 0 : first.index;
  } else {
    const StudyMetric sm = *find_study_metric(study, request.metric);
    out.metric = sm.derived ? 0 : sm.index;
    const Axis& alts = study.axes[alt_axis];
    for (std::uint32_t v = 0; v < alts.values.size(); ++v) {
      const bool chosen = request.among.empty() ||
                          std::find(request.among.begin(), request.among.end(), alts.values[v].label) != request.among.end();
      if (chosen) {
        alt_positions.push_back(v);
        out.alternatives.push_back(alts.values[v].label);
      }
    }
    if (MetricValue v = study_metric_value(study, request.metric)) values.assign(out.alternatives.size(), v);
  }
  // Scan order: by value on a number axis, as declared otherwise.
  std::vector<std::uint32_t> order(along.values.size());
  std::iota(order.begin(), order.end(), 0u);
  if (numeric) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return along.values[x].value < along.values[y].value; });
  }

  std::vector<std::size_t> free_axes;
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (a != along_axis && a != alt_axis && coords[a] == kFree) free_axes.push_back(a);
  }
  for (std::size_t a : free_axes) coords[a] = 0;
  coords[along_axis] = 0;
  if (!by_metrics) coords[alt_axis] = 0;

  const Grid grid(study);
  const std::size_t A = out.alternatives.size();
  const std::size_t K = order.size();
  // With `metrics` every alternative is the same design point.
  const std::size_t P = by_metrics ? 1 : A;
  while (true) {
    BreakevenGroup group;
    for (std::size_t a : free_axes) group.labels.push_back({study.axes[a].param, study.axes[a].values[coords[a]].label});
    // Inputs of every (point, scan point), straight from the grid.
    std::vector<PointInputs> points(P * K);
    for (std::size_t i = 0; i < P; ++i) {
      if (!by_metrics) coords[alt_axis] = alt_positions[i];
      for (std::size_t k = 0; k < K; ++k) {
        coords[along_axis] = order[k];
        const std::uint64_t index = point_index(study, coords);
        if (k == 0) group.base_points.push_back(index);
        grid.inputs(index, points[i * K + k]);
      }
    }
    if (by_metrics) group.base_points.assign(A, group.base_points.front());
    BreakevenProblem p;
    p.solver = &solver;
    p.metric = out.metric;
    p.direction = request.direction;
    p.alternatives = out.alternatives;
    p.values = values;
    for (std::size_t k = 0; k < K; ++k) {
      p.along_values.push_back(numeric ? along.values[order[k]].value : static_cast<double>(k));
      p.along_labels.push_back(along.values[order[k]].label);
    }
    p.refine = out.refined;
    p.tolerance = request.tolerance;
    const std::size_t along_param = along.param_index;
    p.inputs = [&points, K, numeric, along_param, by_metrics](std::size_t alternative, double x, PointInputs& in) {
      const std::size_t i = by_metrics ? 0 : alternative;
      if (numeric) {
        in = points[i * K];
        in.values[along_param] = x;
      } else {
        in = points[i * K + static_cast<std::size_t>(x)];
      }
    };
    group.outcome = find_breakevens(p);
    if (numeric && !by_metrics && values.empty()) add_crossing_intervals(study, out.metric, points, K, group.outcome);
    out.groups.push_back(std::move(group));

    // Next combination of the free axes (last fastest).
    std::size_t f = free_axes.size();
    while (f > 0) {
      const std::size_t a = free_axes[f - 1];
      if (++coords[a] < study.axes[a].values.size()) break;
      coords[a] = 0;
      --f;
    }
    if (f == 0) break;
  }
  return out;
}

namespace {

std::string number_text(double v, Dimension d, int digits = 6) {
  const std::string_view unit = si_unit(d);
  return unit.empty() ? fmt::format("{:.{}g}", v, digits) : fmt::format("{:.{}g} {}", v, digits, unit);
}

}  // namespace

namespace {

// "; with dsx's 80 % model error the crossing lies between 21 and 64" (or past an end of the range).
std::string crossing_interval_text(const Crossing& c, const ParamSpec& along) {
  if (!std::isfinite(c.interval_share_in_range)) return "";
  const auto end = [&](double v, const char* below, const char* above) {
    return std::isinf(v) ? std::string(v < 0 ? below : above) : number_text(v, along.dimension, 3);
  };
  return " [80 % interval of the crossing under the calibration's model errors: " +
         end(c.interval_low, "below the scanned range", "above the scanned range") + " to " +
         end(c.interval_high, "below the scanned range", "beyond the scanned range") + "]";
}

}  // namespace

std::string breakeven_statement(const ResolvedStudy& study, const BreakevenAnalysis& analysis,
                                const BreakevenGroup& group) {
  const ParamSpec& along = study.solver->params()[analysis.along_param];
  const bool by_metrics = !analysis.request.metrics.empty();
  const std::string metric = by_metrics ? std::string("the compared metrics") : analysis.request.metric;
  const BreakevenOutcome& o = group.outcome;
  const bool numeric = along.kind == ParamKind::number;
  const auto at = [&](std::size_t k) {
    return numeric ? number_text(o.along_values[k], along.dimension) : o.along_labels[k];
  };
  const auto name = [&](std::size_t a) {
    return a == kNoAlternative ? std::string("no alternative") : analysis.alternatives[a];
  };
  std::string text;
  for (const Selector& s : group.labels) text += (text.empty() ? "(" : ", ") + s.param + "=" + s.label;
  if (!text.empty()) text += ") ";
  const std::string range = fmt::format("[{}, {}]", at(0), at(o.along_values.size() - 1));
  if (o.crossings.empty()) {
    if (o.segments.size() == 1) {
      const BestSegment& s = o.segments.front();
      if (s.best == kNoAlternative) return text + "no alternative has a value of " + metric + " in " + range + ".";
      return text + "no crossing of " + metric + " in " + range + " of " + std::string(along.name) + ": " + name(s.best) +
             " is better throughout.";
    }
    text += "no crossing of " + metric + " in " + range + " of " + std::string(along.name) + "; best:";
    for (const BestSegment& s : o.segments) {
      text += fmt::format(" {} over [{}, {}]{}", name(s.best), at(s.scan_from), at(s.scan_to),
                          &s == &o.segments.back() ? "." : ";");
    }
    return text;
  }
  for (std::size_t n = 0; n < o.crossings.size(); ++n) {
    const Crossing& c = o.crossings[n];
    if (n > 0) text += " ";
    text += name(c.better_above) + " beats " + name(c.better_below) + (by_metrics ? std::string(" ") : " on " + metric + " ");
    switch (c.kind) {
      case CrossingKind::root:
        text += "above " + std::string(along.name) + " = " + number_text(c.along_value, along.dimension) +
                fmt::format(" (both {:.6g} there; ", c.metric_first) +
                (c.bracket_hi > c.bracket_lo
                     ? "root bracketed within " + number_text(c.bracket_hi - c.bracket_lo, along.dimension, 2) + ")"
                     : std::string("exact)"));
        text += crossing_interval_text(c, along);
        break;
      case CrossingKind::jump:
        text += "above " + std::string(along.name) + " = " + number_text(c.along_value, along.dimension) +
                " (a step of the metric, not an equality)";
        break;
      case CrossingKind::at_point:
        text += "above " + std::string(along.name) + " = " + at(c.scan_lo) + " (equal there)";
        break;
      case CrossingKind::tie:
        text += "above " + std::string(along.name) + " in [" + at(c.scan_lo) + ", " + at(c.scan_hi) + "] (equal there)";
        break;
      case CrossingKind::bracket:
        text += "between " + std::string(along.name) + " = " + at(c.scan_lo) + " and " + at(c.scan_hi);
        break;
      case CrossingKind::unrefined:
        text += "between " + std::string(along.name) + " = " + number_text(c.bracket_lo, along.dimension) + " and " +
                number_text(c.bracket_hi, along.dimension) +
                (c.evaluations >= analysis.request.tolerance.max_evaluations
                     ? " (not refined: the evaluation limit was reached)"
                     : " (not refined: an alternative has no value at a point inside)");
        break;
    }
    text += ".";
  }
  return text;
}

}  // namespace dsx
