#include "dse/analysis/sensitivity.hpp"

#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <boost/random/sobol.hpp>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/grid.hpp"

namespace dsx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr std::array<std::string_view, kHardwareFieldCount> kFieldNames = {
    "peak_flops", "memory", "memory_bandwidth", "host_link", "accelerator_link", "tdp", "idle_power_fraction", "price"};

// Uniform integer in [0, n) from a 64-bit engine, by rejection: the same sequence on every platform
// (std::uniform_int_distribution is implementation-defined).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  while (true) {
    const std::uint64_t v = rng();
    if (v < limit) return v % n;
  }
}

void copy_numbers(const HardwareSpec& from, HardwareSpec& to) {
  to.peak_flops_per_s = from.peak_flops_per_s;
  to.memory_bytes = from.memory_bytes;
  to.memory_bandwidth_bytes_per_s = from.memory_bandwidth_bytes_per_s;
  to.host_link_bandwidth_bytes_per_s = from.host_link_bandwidth_bytes_per_s;
  to.accelerator_link_bandwidth_bytes_per_s = from.accelerator_link_bandwidth_bytes_per_s;
  to.tdp_w = from.tdp_w;
  to.idle_power_fraction = from.idle_power_fraction;
  to.price_usd = from.price_usd;
}

double field_value(const HardwareSpec& hw, HardwareField field) {
  switch (field) {
    case HardwareField::peak_flops: return *std::max_element(hw.peak_flops_per_s.begin(), hw.peak_flops_per_s.end());
    case HardwareField::memory: return hw.memory_bytes;
    case HardwareField::memory_bandwidth: return hw.memory_bandwidth_bytes_per_s;
    case HardwareField::host_link: return hw.host_link_bandwidth_bytes_per_s;
    case HardwareField::accelerator_link: return hw.accelerator_link_bandwidth_bytes_per_s;
    case HardwareField::tdp: return hw.tdp_w;
    case HardwareField::idle_power_fraction: return hw.idle_power_fraction;
    case HardwareField::price: return hw.price_usd;
  }
  return 0;
}

void scale_field(HardwareSpec& hw, HardwareField field, double factor) {
  switch (field) {
    case HardwareField::peak_flops:
      for (double& p : hw.peak_flops_per_s) p *= factor;
      return;
    case HardwareField::memory: hw.memory_bytes *= factor; return;
    case HardwareField::memory_bandwidth: hw.memory_bandwidth_bytes_per_s *= factor; return;
    case HardwareField::host_link: hw.host_link_bandwidth_bytes_per_s *= factor; return;
    case HardwareField::accelerator_link: hw.accelerator_link_bandwidth_bytes_per_s *= factor; return;
    case HardwareField::tdp: hw.tdp_w *= factor; return;
    case HardwareField::idle_power_fraction: hw.idle_power_fraction *= factor; return;
    case HardwareField::price: hw.price_usd *= factor; return;
  }
}

bool field_applies_to(const UncertainInput& in, const HardwareSpec* hw) {
  return in.target == InputTarget::hardware_field && hw != nullptr && (in.hardware_id.empty() || in.hardware_id == hw->id);
}

// Whether a hardware-field input changes the point: its chip, or its second chip (serving's prefill
// chip) when it has one.
bool field_applies(const UncertainInput& in, const PointInputs& point) {
  return field_applies_to(in, point.hardware) || field_applies_to(in, point.second_hardware);
}

double clip(double v, const InputBounds& b) {
  if (v > b.max) v = b.max;
  if (v < b.min) v = b.min;
  if (b.min_exclusive && v <= b.min) v = std::nextafter(b.min, kInf);
  return v;
}

// Evaluates one design point with the inputs set to given values; owns a copy of the point's
// hardware entry, and of its second chip's, when a field input applies to it.
class InputEvaluator {
 public:
  InputEvaluator(const Solver& solver, std::vector<UncertainInput> inputs, const PointInputs& point, std::size_t metric,
                 MetricValue value = {})
      : solver_(solver), inputs_(std::move(inputs)), base_(point), metric_(metric), value_(std::move(value)),
        out_(solver.metrics().size()) {
    if (metric_ >= out_.size()) throw std::invalid_argument("sensitivity: metric index out of range");
    for (const UncertainInput& in : inputs_) {
      if (in.target == InputTarget::parameter && in.param >= solver.params().size()) {
        throw std::invalid_argument("sensitivity: input '" + in.name + "' names no parameter");
      }
      applies_.push_back(field_applies_to(in, base_.hardware));
      applies_second_.push_back(field_applies_to(in, base_.second_hardware));
      uses_hardware_ = uses_hardware_ || applies_.back();
      uses_second_hardware_ = uses_second_hardware_ || applies_second_.back();
    }
    if (uses_hardware_) work_ = *base_.hardware;
    if (uses_second_hardware_) work_second_ = *base_.second_hardware;
  }

  std::size_t size() const { return inputs_.size(); }

  double operator()(std::span<const double> x) {
    if (x.size() != inputs_.size()) throw std::invalid_argument("sensitivity: one value per input");
    PointInputs in = base_;
    if (uses_hardware_) {
      copy_numbers(*base_.hardware, work_);
      in.hardware = &work_;
    }
    if (uses_second_hardware_) {
      copy_numbers(*base_.second_hardware, work_second_);
      in.second_hardware = &work_second_;
    }
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs_[i].target == InputTarget::parameter) {
        in.values[inputs_[i].param] = x[i];
        continue;
      }
      if (applies_[i]) scale_field(work_, inputs_[i].field, x[i]);
      if (applies_second_[i]) scale_field(work_second_, inputs_[i].field, x[i]);
    }
    try {
      if (solver_.evaluate(in, out_).status != PointStatus::ok) return kNaN;
      if (value_) return value_(in, out_);
    } catch (const std::exception&) {
      return kNaN;
    }
    return out_[metric_];
  }

 private:
  const Solver& solver_;
  std::vector<UncertainInput> inputs_;
  PointInputs base_;
  std::size_t metric_;
  MetricValue value_;
  std::vector<double> out_;
  std::vector<bool> applies_, applies_second_;
  bool uses_hardware_ = false, uses_second_hardware_ = false;
  HardwareSpec work_, work_second_;
};

std::vector<double> nominal_values(const std::vector<UncertainInput>& inputs, const PointInputs& point) {
  std::vector<double> x;
  for (const UncertainInput& in : inputs) x.push_back(nominal_value(in, point));
  return x;
}

void check_ranges(std::span<const InputRange> ranges) {
  if (ranges.empty()) throw std::invalid_argument("sensitivity: no inputs");
  for (const InputRange& r : ranges) {
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || !(r.lo < r.hi)) {
      throw std::invalid_argument("sensitivity: each range needs finite lo < hi");
    }
  }
}

std::vector<InputRange> ranges_of(const SensitivityProblem& p) {
  std::vector<InputRange> r;
  for (const UncertainInput& in : p.inputs) r.push_back({in.lo, in.hi});
  return r;
}

// Linear interpolation between order statistics (Hyndman & Fan type 7) of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double h = (static_cast<double>(sorted.size()) - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// Saltelli 2010 first order (f(B) centred by the mean) and Jansen total indices from the rows
// `rows` of Y = [f(A), f(B), f(A_B^1) ... f(A_B^k)]. Writes k first-order then k total indices.
void sobol_estimates(const Eigen::MatrixXd& Y, const std::vector<Eigen::Index>& rows, std::size_t k,
                     Eigen::VectorXd& out, double* mean = nullptr, double* variance = nullptr) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  const Eigen::MatrixXd S = Y(rows, Eigen::all);
  const Eigen::ArrayXd fa = S.col(0).array();
  const Eigen::ArrayXd fb = S.col(1).array();
  const double m = (fa.sum() + fb.sum()) / static_cast<double>(2 * n);
  const double v = ((fa - m).square().sum() + (fb - m).square().sum()) / static_cast<double>(2 * n);
  if (mean != nullptr) *mean = m;
  if (variance != nullptr) *variance = v;
  out.resize(static_cast<Eigen::Index>(2 * k));
  for (std::size_t i = 0; i < k; ++i) {
    const Eigen::ArrayXd fab = S.col(static_cast<Eigen::Index>(2 + i)).array();
    const double first = ((fb - m) * (fab - fa)).mean();
    const double total = 0.5 * (fa - fab).square().mean();
    out(static_cast<Eigen::Index>(i)) = v > 0 ? first / v : kNaN;
    out(static_cast<Eigen::Index>(k + i)) = v > 0 ? total / v : kNaN;
  }
}

std::size_t best_of(std::span<const double> metrics, Direction dir) {
  std::size_t best = kNoAlternative;
  for (std::size_t a = 0; a < metrics.size(); ++a) {
    if (std::isnan(metrics[a])) continue;
    const bool better = best == kNoAlternative ||
                        (dir == Direction::minimize ? metrics[a] < metrics[best] : metrics[a] > metrics[best]);
    if (better) best = a;
  }
  return best;
}

}  // namespace

std::string_view hardware_field_name(HardwareField f) { return kFieldNames.at(static_cast<std::size_t>(f)); }

double hardware_field_value(const HardwareSpec& hardware, HardwareField f) { return field_value(hardware, f); }

Dimension hardware_field_dimension(HardwareField f) {
  switch (f) {
    case HardwareField::peak_flops: return Dimension::flop_rate;
    case HardwareField::memory: return Dimension::bytes;
    case HardwareField::memory_bandwidth:
    case HardwareField::host_link:
    case HardwareField::accelerator_link: return Dimension::bandwidth;
    case HardwareField::tdp: return Dimension::power;
    case HardwareField::idle_power_fraction: return Dimension::dimensionless;
    case HardwareField::price: return Dimension::money;
  }
  return Dimension::dimensionless;
}

std::optional<HardwareField> hardware_field_named(std::string_view name) {
  for (std::size_t i = 0; i < kFieldNames.size(); ++i) {
    if (kFieldNames[i] == name) return static_cast<HardwareField>(i);
  }
  return std::nullopt;
}

InputBounds input_bounds(const Solver& solver, const UncertainInput& input, const PointInputs& point) {
  if (input.target == InputTarget::parameter) {
    const ParamSpec& p = solver.params()[input.param];
    return {p.min_value, p.max_value, p.min_exclusive};
  }
  InputBounds b{0, kInf, true};
  if (input.field == HardwareField::idle_power_fraction) {
    for (const HardwareSpec* hw : {point.hardware, point.second_hardware}) {
      if (field_applies_to(input, hw) && hw->idle_power_fraction > 0) b.max = std::min(b.max, 1 / hw->idle_power_fraction);
    }
  }
  return b;
}

double nominal_value(const UncertainInput& input, const PointInputs& point) {
  return input.target == InputTarget::parameter ? point.values[input.param] : 1.0;
}

ScalarModel scalar_model(const SensitivityProblem& p) {
  if (p.solver == nullptr) throw std::invalid_argument("sensitivity: no solver");
  auto eval = std::make_shared<InputEvaluator>(*p.solver, p.inputs, p.base, p.metric, p.value);
  return [eval](std::span<const double> x) { return (*eval)(x); };
}

LocalSensitivity local_sensitivity(const SensitivityProblem& p, const LocalOptions& options) {
  if (p.solver == nullptr) throw std::invalid_argument("sensitivity: no solver");
  if (!(options.relative_change > 0 && options.relative_change < 1) ||
      !(options.elasticity_step > 0 && options.elasticity_step < 1)) {
    throw std::invalid_argument("local sensitivity: the relative change and the step must lie in (0, 1)");
  }
  InputEvaluator eval(*p.solver, p.inputs, p.base, p.metric, p.value);
  const std::vector<double> x0 = nominal_values(p.inputs, p.base);
  LocalSensitivity out;
  out.relative_change = options.relative_change;
  out.elasticity_step = options.elasticity_step;
  out.base_metric = eval(x0);
  if (std::isnan(out.base_metric)) throw std::invalid_argument("local sensitivity: the base point has no value");
  std::vector<double> x = x0;
  const auto at = [&](std::size_t i, double v) {
    x[i] = v;
    const double m = eval(x);
    x[i] = x0[i];
    return m;
  };
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    TornadoBar bar;
    bar.input = i;
    bar.nominal = x0[i];
    const InputBounds b = input_bounds(*p.solver, p.inputs[i], p.base);
    if (x0[i] == 0) {
      bar.input_low = bar.input_high = 0;
      bar.metric_low = bar.metric_high = bar.swing = bar.elasticity = kNaN;
      out.bars.push_back(bar);
      continue;
    }
    bar.input_low = clip(x0[i] * (1 - options.relative_change), b);
    bar.input_high = clip(x0[i] * (1 + options.relative_change), b);
    bar.metric_low = at(i, bar.input_low);
    bar.metric_high = at(i, bar.input_high);
    bar.swing = std::fabs(bar.metric_high - bar.metric_low);
    const double xm = clip(x0[i] * (1 - options.elasticity_step), b);
    const double xp = clip(x0[i] * (1 + options.elasticity_step), b);
    const double mm = at(i, xm);
    const double mp = at(i, xp);
    const double dlnx = std::log(xp / xm);
    if (xp == xm || std::isnan(mm) || std::isnan(mp)) {
      bar.elasticity = kNaN;
    } else if (mm > 0 && mp > 0) {
      bar.elasticity = (std::log(mp) - std::log(mm)) / dlnx;
    } else {
      bar.elasticity = out.base_metric != 0 ? (mp - mm) / (out.base_metric * dlnx) : kNaN;
    }
    out.bars.push_back(bar);
  }
  std::stable_sort(out.bars.begin(), out.bars.end(), [](const TornadoBar& a, const TornadoBar& b) {
    if (std::isnan(a.swing) || std::isnan(b.swing)) return !std::isnan(a.swing) && std::isnan(b.swing);
    return a.swing > b.swing;
  });
  return out;
}

MorrisResult morris(const ScalarModel& f, std::span<const InputRange> ranges, const MorrisOptions& options) {
  check_ranges(ranges);
  if (options.levels < 2 || options.levels % 2 != 0) throw std::invalid_argument("Morris: levels must be even and >= 2");
  if (options.trajectories < 2) throw std::invalid_argument("Morris: at least two trajectories");
  const std::size_t k = ranges.size();
  const std::size_t p = options.levels;
  const std::size_t half = p / 2;
  MorrisResult out;
  out.trajectories = options.trajectories;
  out.levels = p;
  out.delta = static_cast<double>(p) / (2.0 * static_cast<double>(p - 1));
  std::vector<std::vector<double>> effects(k);
  std::mt19937_64 rng(options.seed);
  std::vector<std::size_t> level(k);
  std::vector<std::size_t> order(k);
  std::vector<double> x(k);
  const auto value = [&](std::size_t i, std::size_t l) {
    return ranges[i].lo + (ranges[i].hi - ranges[i].lo) * static_cast<double>(l) / static_cast<double>(p - 1);
  };
  const auto eval = [&]() {
    ++out.evaluations;
    const double v = f(x);
    if (std::isnan(v)) ++out.missing;
    return v;
  };
  for (std::size_t t = 0; t < options.trajectories; ++t) {
    for (std::size_t i = 0; i < k; ++i) {
      level[i] = static_cast<std::size_t>(uniform_below(rng, p));
      x[i] = value(i, level[i]);
    }
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = k; i > 1; --i) std::swap(order[i - 1], order[uniform_below(rng, i)]);
    double y = eval();
    for (std::size_t i : order) {
      // Each level has exactly one partner Delta away inside [0, 1]: up from the lower half.
      const bool up = level[i] < half;
      level[i] = up ? level[i] + half : level[i] - half;
      x[i] = value(i, level[i]);
      const double y_next = eval();
      const double ee = (up ? y_next - y : y - y_next) / out.delta;
      if (!std::isnan(ee)) effects[i].push_back(ee);
      y = y_next;
    }
  }
  for (std::size_t i = 0; i < k; ++i) {
    MorrisEffect e;
    const std::vector<double>& ee = effects[i];
    e.effects = ee.size();
    if (ee.empty()) {
      e.mu = e.mu_star = e.sigma = kNaN;
    } else {
      const auto n = static_cast<double>(ee.size());
      double sum = 0;
      double abs_sum = 0;
      for (double v : ee) sum += v, abs_sum += std::fabs(v);
      e.mu = sum / n;
      e.mu_star = abs_sum / n;
      double ss = 0;
      for (double v : ee) ss += (v - e.mu) * (v - e.mu);
      e.sigma = ee.size() > 1 ? std::sqrt(ss / (n - 1)) : kNaN;
    }
    out.effects.push_back(e);
  }
  out.ranking.resize(k);
  std::iota(out.ranking.begin(), out.ranking.end(), std::size_t{0});
  std::stable_sort(out.ranking.begin(), out.ranking.end(), [&](std::size_t a, std::size_t b) {
    const double ma = out.effects[a].mu_star;
    const double mb = out.effects[b].mu_star;
    if (std::isnan(ma) || std::isnan(mb)) return !std::isnan(ma) && std::isnan(mb);
    return ma > mb;
  });
  return out;
}

MorrisResult morris(const SensitivityProblem& problem, const MorrisOptions& options) {
  const std::vector<InputRange> ranges = ranges_of(problem);
  return morris(scalar_model(problem), ranges, options);
}

SobolResult sobol(const ScalarModel& f, std::span<const InputRange> ranges, const SobolOptions& options) {
  check_ranges(ranges);
  if (options.samples < 4) throw std::invalid_argument("Sobol: at least 4 samples");
  if (!(options.confidence > 0 && options.confidence < 1)) throw std::invalid_argument("Sobol: confidence in (0, 1)");
  const std::size_t k = ranges.size();
  const std::size_t N = options.samples;
  SobolResult out;
  out.samples = N;
  out.confidence = options.confidence;
  out.bootstrap = options.bootstrap;

  boost::random::sobol sequence(2 * k);
  std::vector<double> u(2 * k);
  std::vector<double> a(k);
  std::vector<double> b(k);
  std::vector<double> ab(k);
  Eigen::MatrixXd Y(static_cast<Eigen::Index>(N), static_cast<Eigen::Index>(k + 2));
  std::vector<Eigen::Index> valid;
  std::vector<Eigen::Index> valid_half;
  for (std::size_t j = 0; j < N; ++j) {
    for (double& v : u) v = std::ldexp(static_cast<double>(sequence()), -64);
    for (std::size_t i = 0; i < k; ++i) {
      const double w = ranges[i].hi - ranges[i].lo;
      a[i] = ranges[i].lo + w * u[i];
      b[i] = ranges[i].lo + w * u[k + i];
    }
    const auto row = static_cast<Eigen::Index>(j);
    Y(row, 0) = f(a);
    Y(row, 1) = f(b);
    for (std::size_t i = 0; i < k; ++i) {
      ab = a;
      ab[i] = b[i];
      Y(row, static_cast<Eigen::Index>(2 + i)) = f(ab);
    }
    out.evaluations += k + 2;
    if (Y.row(row).array().isFinite().all()) {
      valid.push_back(row);
      if (j < N / 2) valid_half.push_back(row);
    }
  }
  out.rows_used = valid.size();
  out.indices.resize(k);
  if (valid_half.size() < 2) {
    throw std::invalid_argument(fmt::format("Sobol: only {} of {} sample rows have a value at every evaluation",
                                            valid.size(), N));
  }
  Eigen::VectorXd full;
  Eigen::VectorXd half;
  sobol_estimates(Y, valid, k, full, &out.mean, &out.variance);
  sobol_estimates(Y, valid_half, k, half);
  out.max_change = 0;
  for (std::size_t i = 0; i < k; ++i) {
    SobolIndex& s = out.indices[i];
    s.first = full(static_cast<Eigen::Index>(i));
    s.total = full(static_cast<Eigen::Index>(k + i));
    s.first_half = half(static_cast<Eigen::Index>(i));
    s.total_half = half(static_cast<Eigen::Index>(k + i));
    out.max_change = std::max({out.max_change, std::fabs(s.first - s.first_half), std::fabs(s.total - s.total_half)});
    s.first_low = s.first_high = s.total_low = s.total_high = kNaN;
  }
  if (out.variance == 0) out.max_change = kNaN;
  out.max_half_width = kNaN;
  if (options.bootstrap > 0 && out.variance > 0) {
    std::mt19937_64 rng(options.seed);
    std::vector<std::vector<double>> draws(2 * k);
    std::vector<Eigen::Index> rows(valid.size());
    Eigen::VectorXd est;
    for (std::size_t r = 0; r < options.bootstrap; ++r) {
      for (Eigen::Index& row : rows) row = valid[uniform_below(rng, valid.size())];
      sobol_estimates(Y, rows, k, est);
      for (std::size_t q = 0; q < 2 * k; ++q) draws[q].push_back(est(static_cast<Eigen::Index>(q)));
    }
    const double lo_q = (1 - options.confidence) / 2;
    const double hi_q = 1 - lo_q;
    out.max_half_width = 0;
    for (std::size_t q = 0; q < 2 * k; ++q) {
      std::vector<double>& d = draws[q];
      std::erase_if(d, [](double v) { return std::isnan(v); });
      std::sort(d.begin(), d.end());
      const double lo = quantile(d, lo_q);
      const double hi = quantile(d, hi_q);
      SobolIndex& s = out.indices[q % k];
      if (q < k) {
        s.first_low = lo, s.first_high = hi;
      } else {
        s.total_low = lo, s.total_high = hi;
      }
      out.max_half_width = std::max(out.max_half_width, (hi - lo) / 2);
    }
  }
  return out;
}

SobolResult sobol(const SensitivityProblem& problem, const SobolOptions& options) {
  const std::vector<InputRange> ranges = ranges_of(problem);
  return sobol(scalar_model(problem), ranges, options);
}

DecisionResult decision_flips(const DecisionProblem& p, const FlipOptions& options) {
  if (p.solver == nullptr) throw std::invalid_argument("decision flip: no solver");
  if (p.points.size() < 2 || p.alternatives.size() != p.points.size()) {
    throw std::invalid_argument("decision flip: needs at least two alternatives, each with its point");
  }
  if (!(options.max_relative_change > 0) || !std::isfinite(options.max_relative_change) || options.scan_steps < 1 ||
      !(options.tolerance > 0)) {
    throw std::invalid_argument("decision flip: max change and tolerance must be positive, scan steps at least 1");
  }
  const std::size_t A = p.points.size();
  std::vector<InputEvaluator> evals;
  std::vector<std::vector<double>> nominal;
  for (const PointInputs& point : p.points) {
    evals.emplace_back(*p.solver, p.inputs, point, p.metric, p.value);
    nominal.push_back(nominal_values(p.inputs, point));
  }
  DecisionResult out;
  out.tolerance = options.tolerance;
  std::vector<double> metrics(A);
  std::vector<double> x;
  // The best alternative with input i changed by the relative amount r.
  const auto decide = [&](std::size_t i, double r) {
    for (std::size_t a = 0; a < A; ++a) {
      x = nominal[a];
      x[i] = nominal[a][i] * (1 + r);
      metrics[a] = evals[a](x);
    }
    ++out.evaluations;
    return best_of(metrics, p.direction);
  };
  for (std::size_t a = 0; a < A; ++a) out.base_metrics.push_back(evals[a](nominal[a]));
  out.best = best_of(out.base_metrics, p.direction);
  if (out.best == kNoAlternative) throw std::invalid_argument("decision flip: no alternative has a value at the base point");

  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    DecisionFlip flip;
    flip.input = i;
    flip.nominal = nominal[out.best][i];
    for (int sign : {+1, -1}) {
      FlipSearch s;
      // The reach in this direction: a factor 1 + max either way, then the smallest over the
      // alternatives the input changes within its bounds.
      double reach = sign > 0 ? options.max_relative_change
                              : options.max_relative_change / (1 + options.max_relative_change);
      for (std::size_t a = 0; a < A; ++a) {
        const UncertainInput& in = p.inputs[i];
        if (in.target == InputTarget::hardware_field && !field_applies(in, p.points[a])) continue;
        const double n = nominal[a][i];
        if (n == 0) {
          reach = 0;
          continue;
        }
        const InputBounds b = input_bounds(*p.solver, in, p.points[a]);
        const double bound = (sign > 0) == (n > 0) ? b.max : b.min;
        double r = std::fabs(bound / n - 1);
        if (bound == b.min && b.min_exclusive) r = std::nextafter(r, 0.0);
        if (std::isfinite(bound)) reach = std::min(reach, r);
      }
      s.limit = sign * reach;
      s.relative_change = kNaN;
      double same = 0;
      for (std::size_t step = 1; step <= options.scan_steps && reach > 0; ++step) {
        const double r = s.limit * static_cast<double>(step) / static_cast<double>(options.scan_steps);
        if (decide(i, r) == out.best) {
          same = r;
          continue;
        }
        double changed = r;
        while (std::fabs(changed - same) > options.tolerance) {
          const double mid = 0.5 * (same + changed);
          (decide(i, mid) == out.best ? same : changed) = mid;
        }
        s.found = true;
        s.relative_change = changed;
        s.new_best = decide(i, changed);
        break;
      }
      s.last_same = same;
      (sign > 0 ? flip.up : flip.down) = s;
    }
    out.flips.push_back(flip);
  }
  return out;
}

std::string flip_text(const FlipSearch& s) {
  if (s.found) return fmt::format("{:+.3g}%", 100 * s.relative_change);
  if (s.limit == 0) return "none (cannot change in this direction)";
  return fmt::format("none within {:+.3g}%", 100 * s.limit);
}

// --- On a study.

namespace {

struct ResolvedInput {
  bool ok = false;
  UncertainInput input;
};

ResolvedInput resolve_input(const ResolvedStudy& study, const UncertainDecl& decl, const std::string& field,
                            std::vector<RequestProblem>& problems) {
  const Solver& solver = *study.solver;
  ResolvedInput r;
  r.input.name = decl.name;
  const int p = param_of(solver, decl.name);
  if (p >= 0) {
    const ParamSpec& ps = solver.params()[static_cast<std::size_t>(p)];
    if (ps.kind != ParamKind::number) {
      problems.push_back({field, "'" + decl.name + "' is not a number parameter; only numbers can be uncertain inputs"});
      return r;
    }
    if (ps.integer) {
      problems.push_back({field, "'" + decl.name + "' takes integers; sweep it as an axis instead"});
      return r;
    }
    const auto pi = static_cast<std::size_t>(p);
    bool word = !study.is_axis[pi] && is_param_word(ps, study.fixed_values[pi]);
    for (const Axis& axis : study.axes) {
      if (axis.is_bundle() || axis.param_index != pi) continue;
      for (const AxisValue& v : axis.values) word = word || is_param_word(ps, v.value);
    }
    if (word) {
      problems.push_back({field, "'" + decl.name + "' is '" + std::string(ps.word) +
                                     "' in this study, a word and not a number to vary; give it a number to vary it"});
      return r;
    }
    r.input.target = InputTarget::parameter;
    r.input.param = static_cast<std::size_t>(p);
    r.ok = true;
    return r;
  }
  std::string id;
  std::string name = decl.name;
  if (const auto dot = decl.name.rfind('.'); dot != std::string::npos) {
    id = decl.name.substr(0, dot);
    name = decl.name.substr(dot + 1);
  }
  std::string fields;
  for (std::string_view f : kFieldNames) fields += (fields.empty() ? "" : ", ") + std::string(f);
  const auto f = hardware_field_named(name);
  if (!f) {
    problems.push_back({field, "unknown input '" + decl.name + "': not a number parameter of solver " +
                                   std::string(solver.name()) + " (" + param_names(solver) +
                                   ") nor a hardware field ([<hardware id>.]" + "one of " + fields + ")"});
    return r;
  }
  bool has_hardware = false;
  for (const ParamSpec& ps : solver.params()) has_hardware = has_hardware || ps.kind == ParamKind::hardware;
  if (!has_hardware) {
    problems.push_back({field, "solver " + std::string(solver.name()) + " takes no hardware, so '" + decl.name +
                                   "' changes nothing"});
    return r;
  }
  if (!id.empty()) {
    const HardwareSpec* hw = study.catalog.find_hardware(id);
    if (hw == nullptr) {
      std::string ids;
      for (const HardwareSpec& h : study.catalog.hardware) ids += (ids.empty() ? "" : ", ") + h.id;
      problems.push_back({field, "hardware '" + id + "' is not used by this study (hardware: " + ids + ")"});
      return r;
    }
    if (field_value(*hw, *f) == 0) {
      problems.push_back({field, "the " + name + " of " + id + " is 0 (not given) in the catalog; scaling it changes nothing"});
      return r;
    }
  }
  r.input.target = InputTarget::hardware_field;
  r.input.field = *f;
  r.input.hardware_id = id;
  r.ok = true;
  return r;
}

bool same_target(const UncertainInput& a, const UncertainInput& b) {
  if (a.target != b.target) return false;
  if (a.target == InputTarget::parameter) return a.param == b.param;
  return a.field == b.field && (a.hardware_id == b.hardware_id || a.hardware_id.empty() || b.hardware_id.empty());
}

}  // namespace

std::vector<RequestProblem> check_sensitivity(const ResolvedStudy& study, const SensitivityRequest& r) {
  std::vector<RequestProblem> problems;
  if (study.solver == nullptr) {
    problems.push_back({"solver", "the study has no solver"});
    return problems;
  }
  const Solver& solver = *study.solver;
  if (!find_study_metric(study, r.metric)) {
    std::string names;
    for (const std::string& m : study_metric_names(study)) names += (names.empty() ? "" : ", ") + m;
    problems.push_back({"metric", "unknown metric '" + r.metric + "' of solver " + std::string(solver.name()) +
                                      " (metrics: " + names + ")"});
  }
  if (r.inputs.empty()) problems.push_back({"inputs", "name at least one uncertain input"});
  const bool global = r.morris.has_value() || r.sobol.has_value();
  if (!r.local && !global && r.decide.empty()) {
    problems.push_back({"name", "no analysis requested (local, morris, sobol or decide)"});
  }
  std::vector<UncertainInput> resolved;
  for (std::size_t n = 0; n < r.inputs.size(); ++n) {
    const std::string field = "inputs[" + std::to_string(n) + "]";
    const ResolvedInput in = resolve_input(study, r.inputs[n], field, problems);
    if (!in.ok) continue;
    for (const UncertainInput& earlier : resolved) {
      if (same_target(earlier, in.input)) {
        problems.push_back({field, "'" + in.input.name + "' changes what '" + earlier.name + "' already changes"});
      }
    }
    if (in.input.target == InputTarget::parameter && solver.params()[in.input.param].name == r.decide) {
      problems.push_back({field, "'" + in.input.name + "' is the decision's alternatives; it cannot also be uncertain"});
    }
    if (const auto& range = r.inputs[n].range) {
      const bool finite = std::isfinite(range->lo) && std::isfinite(range->hi);
      if (!finite || !(range->lo < range->hi)) {
        problems.push_back({field + ".range", "a range needs finite values with lo < hi"});
      } else if (in.input.target == InputTarget::parameter) {
        const ParamSpec& ps = solver.params()[in.input.param];
        const bool below = ps.min_exclusive ? range->lo <= ps.min_value : range->lo < ps.min_value;
        if (below || range->hi > ps.max_value) {
          problems.push_back({field + ".range", fmt::format("[{:.6g}, {:.6g}] leaves the bounds of {}, {}{:.6g}, {:.6g}]",
                                                            range->lo, range->hi, ps.name, ps.min_exclusive ? "(" : "[",
                                                            ps.min_value, ps.max_value)});
        }
      } else if (!(range->lo > 0)) {
        problems.push_back({field + ".range", "a hardware field's range is a scale factor and must stay above 0"});
      }
    }
    resolved.push_back(in.input);
  }

  int decide_axis = -1;
  if (!r.decide.empty()) {
    if (param_of(solver, r.decide) < 0) {
      problems.push_back({"decide", "unknown parameter '" + r.decide + "' (parameters: " + param_names(solver) + ")"});
    } else if ((decide_axis = axis_of(study, r.decide)) < 0) {
      problems.push_back({"decide", "'" + r.decide + "' is not swept in this study; its values are the alternatives (axes: " +
                                        axis_names(study) + ")"});
    } else {
      const Axis& axis = study.axes[static_cast<std::size_t>(decide_axis)];
      for (std::size_t n = 0; n < r.among.size(); ++n) {
        const bool known = std::any_of(axis.values.begin(), axis.values.end(),
                                       [&](const AxisValue& v) { return v.label == r.among[n]; });
        if (!known) {
          problems.push_back({"among[" + std::to_string(n) + "]",
                              "'" + r.among[n] + "' is not a value of the " + r.decide + " axis"});
        }
      }
      if ((r.among.empty() ? axis.values.size() : r.among.size()) < 2) {
        problems.push_back({"decide", "a decision needs at least two alternatives"});
      }
    }
  } else if (!r.among.empty()) {
    problems.push_back({"among", "among: chooses alternatives of decide:, which is not given"});
  }

  if (r.base_point.has_value()) {
    if (!r.base.empty()) problems.push_back({"base", "give the base point by selectors or by index, not both"});
    if (*r.base_point >= study.point_count()) {
      problems.push_back({"base_point", fmt::format("point {} is outside the grid of {} points", *r.base_point,
                                                    study.point_count())});
    }
  } else {
    const std::vector<std::uint32_t> pinned = pin_axes(study, r.base, "base", problems);
    for (std::size_t a = 0; a < study.axes.size(); ++a) {
      if (static_cast<int>(a) == decide_axis) {
        const bool selected = std::any_of(r.base.begin(), r.base.end(),
                                          [&](const Selector& s) { return s.param == r.decide; });
        if (selected) problems.push_back({"base." + r.decide, "'" + r.decide + "' holds the decision's alternatives; use among: to choose them"});
        continue;
      }
      if (pinned[a] == kFree) {
        problems.push_back({"base", "the " + study.axes[a].param + " axis has " +
                                        std::to_string(study.axes[a].values.size()) +
                                        " values; pin one for the base point"});
      }
    }
  }
  if (r.local && (!(r.local_options.relative_change > 0 && r.local_options.relative_change < 1) ||
                  !(r.local_options.elasticity_step > 0 && r.local_options.elasticity_step < 1))) {
    problems.push_back({"local", "the relative change and the elasticity step must lie in (0, 1)"});
  }
  if (global && !(r.local_options.relative_change > 0 && r.local_options.relative_change < 1)) {
    bool all_ranges = true;
    for (const UncertainDecl& d : r.inputs) all_ranges = all_ranges && d.range.has_value();
    if (!all_ranges) problems.push_back({"local", "inputs without a range take -+ the local change, which must lie in (0, 1)"});
  }
  if (r.morris && (r.morris->levels < 2 || r.morris->levels % 2 != 0)) {
    problems.push_back({"morris.levels", "the number of levels must be even and at least 2"});
  }
  if (r.morris && r.morris->trajectories < 2) problems.push_back({"morris.trajectories", "at least two trajectories"});
  if (r.sobol && r.sobol->samples < 4) problems.push_back({"sobol.samples", "at least 4 samples"});
  const auto k = static_cast<double>(r.inputs.size());
  const auto too_costly = [&](const char* what, double evaluations, std::string_view lower) {
    problems.push_back({what, fmt::format("{} evaluations of the solver, past the {} an analysis may ask for; lower {}",
                                          evaluations, kMaxSensitivityEvaluations, lower)});
  };
  if (r.morris && static_cast<double>(r.morris->trajectories) * (k + 1) > kMaxSensitivityEvaluations) {
    too_costly("morris.trajectories", static_cast<double>(r.morris->trajectories) * (k + 1), "the trajectories");
  }
  if (r.sobol) {
    const auto samples = static_cast<double>(r.sobol->samples);
    if (samples * (k + 2) > kMaxSensitivityEvaluations) {
      too_costly("sobol.samples", samples * (k + 2), "the samples (a 2^n up to 2^18 is the usual choice)");
    } else if (samples * static_cast<double>(r.sobol->bootstrap) > kMaxSobolBootstrapWork) {
      problems.push_back({"sobol.bootstrap",
                          fmt::format("{} resamples of {} samples are past the {} sample rows the bootstrap may "
                                      "recompute; lower the resamples (200 is the usual choice)",
                                      r.sobol->bootstrap, r.sobol->samples, kMaxSobolBootstrapWork)});
    }
  }
  if (!r.decide.empty() &&
      static_cast<double>(r.flip.scan_steps) * k * std::max<double>(2, static_cast<double>(r.among.size())) >
          kMaxSensitivityEvaluations) {
    too_costly("flip.steps", static_cast<double>(r.flip.scan_steps) * k * std::max<double>(2, static_cast<double>(r.among.size())),
               "the steps");
  }
  if (r.sobol && !(r.sobol->confidence > 0 && r.sobol->confidence < 1)) {
    problems.push_back({"sobol.confidence", "the confidence level must lie in (0, 1)"});
  }
  if (!r.decide.empty() && (!(r.flip.max_relative_change > 0) || !std::isfinite(r.flip.max_relative_change) ||
                            r.flip.scan_steps < 1 || !(r.flip.tolerance > 0))) {
    problems.push_back({"flip", "the largest change and the tolerance must be positive, the scan steps at least 1"});
  }
  return problems;
}

SensitivityAnalysis run_sensitivity(const ResolvedStudy& study, const SensitivityRequest& request) {
  throw_if_problems("sensitivity '" + request.name + "'", check_sensitivity(study, request));
  const Solver& solver = *study.solver;
  const Grid grid(study);
  SensitivityAnalysis out;
  out.request = request;
  const StudyMetric metric = *find_study_metric(study, request.metric);
  out.metric = metric.derived ? 0 : metric.index;
  const MetricValue value = study_metric_value(study, request.metric);
  std::vector<RequestProblem> unused;
  for (std::size_t n = 0; n < request.inputs.size(); ++n) {
    out.inputs.push_back(resolve_input(study, request.inputs[n], "", unused).input);
  }

  std::vector<std::uint32_t> coords(study.axes.size(), 0);
  if (request.base_point) {
    grid.coordinates(*request.base_point, coords);
  } else {
    coords = pin_axes(study, request.base, "base", unused);
  }
  if (!request.decide.empty()) {
    const auto axis = static_cast<std::size_t>(axis_of(study, request.decide));
    DecisionProblem d;
    d.solver = &solver;
    d.metric = out.metric;
    d.direction = request.direction;
    d.inputs = out.inputs;
    d.value = value;
    for (std::uint32_t v = 0; v < study.axes[axis].values.size(); ++v) {
      const std::string& label = study.axes[axis].values[v].label;
      if (!request.among.empty() && std::find(request.among.begin(), request.among.end(), label) == request.among.end()) {
        continue;
      }
      coords[axis] = v;
      const std::uint64_t index = point_index(study, coords);
      out.alternatives.push_back(label);
      out.alternative_points.push_back(index);
      d.alternatives.push_back(label);
      grid.inputs(index, d.points.emplace_back());
    }
    out.decision = decision_flips(d, request.flip);
    out.base_point = out.alternative_points[out.decision->best];
  } else {
    out.base_point = point_index(study, coords);
  }

  SensitivityProblem p;
  p.solver = &solver;
  p.metric = out.metric;
  p.value = value;
  grid.inputs(out.base_point, p.base);
  const double change = request.local_options.relative_change;
  for (std::size_t n = 0; n < out.inputs.size(); ++n) {
    UncertainInput& in = out.inputs[n];
    if (const auto& range = request.inputs[n].range) {
      in.lo = range->lo;
      in.hi = range->hi;
    } else {
      const double x0 = nominal_value(in, p.base);
      const InputBounds b = input_bounds(solver, in, p.base);
      in.lo = clip(x0 * (1 - change), b);
      in.hi = clip(x0 * (1 + change), b);
      if (in.lo > in.hi) std::swap(in.lo, in.hi);
    }
  }
  p.inputs = out.inputs;
  if (request.local) out.local = local_sensitivity(p, request.local_options);
  if (request.morris || request.sobol) {
    for (const UncertainInput& in : out.inputs) {
      if (!(in.lo < in.hi)) {
        throw std::invalid_argument("sensitivity '" + request.name + "': input '" + in.name +
                                    "' is 0 at the base point; give it a range");
      }
    }
  }
  if (request.morris) out.morris = morris(p, *request.morris);
  if (request.sobol) out.sobol = sobol(p, *request.sobol);
  return out;
}

}  // namespace dsx
