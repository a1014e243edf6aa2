#include "dse/analysis/sensitivity.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/grid.hpp"
#include "dse/study.hpp"

namespace dsx {
namespace {

constexpr double kPi = std::numbers::pi;

// Ishigami & Homma (1990): y = sin x1 + a sin^2 x2 + b x3^4 sin x1, inputs uniform on [-pi, pi].
// With a = 7, b = 0.1 the variance is a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2 and the indices are
// S = (0.3139, 0.4424, 0), ST = (0.5576, 0.4424, 0.2437) (Saltelli et al. 2010, section 4).
class IshigamiSolver final : public Solver {
 public:
  std::string_view name() const override { return "ishigami_test"; }
  std::string_view description() const override { return "Ishigami function (test)"; }
  std::span<const ParamSpec> params() const override { return kParams; }
  std::span<const MetricSpec> metrics() const override { return kMetrics; }
  std::span<const std::string_view> reasons() const override { return {}; }
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override {
    const double x1 = in.values[0], x2 = in.values[1], x3 = in.values[2];
    out[0] = std::sin(x1) + 7 * std::sin(x2) * std::sin(x2) + 0.1 * std::pow(x3, 4) * std::sin(x1);
    return {};
  }

 private:
  static constexpr std::array<ParamSpec, 3> kParams = {{
      {.name = "x1", .description = "input 1", .min_value = -kPi, .max_value = kPi},
      {.name = "x2", .description = "input 2", .min_value = -kPi, .max_value = kPi},
      {.name = "x3", .description = "input 3", .min_value = -kPi, .max_value = kPi},
  }};
  static constexpr std::array<MetricSpec, 1> kMetrics = {{{"y", Dimension::dimensionless, "Ishigami"}}};
};

// y = c a^2 / b + 3 d with bounds a in (0, 1]: elasticities 2 and -1 exactly when d = 0.
class PowerSolver final : public Solver {
 public:
  enum Param : std::size_t { a, b, c, d };
  std::string_view name() const override { return "power_test"; }
  std::string_view description() const override { return "power law (test)"; }
  std::span<const ParamSpec> params() const override { return kParams; }
  std::span<const MetricSpec> metrics() const override { return kMetrics; }
  std::span<const std::string_view> reasons() const override { return kReasons; }
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override {
    out[0] = in.values[c] * in.values[a] * in.values[a] / in.values[b] + 3 * in.values[d];
    if (in.values[b] > 4) return {PointStatus::infeasible, 0};
    return {};
  }

 private:
  static constexpr std::array<ParamSpec, 4> kParams = {{
      {.name = "a", .description = "squared", .min_value = 0, .max_value = 1, .min_exclusive = true},
      {.name = "b", .description = "divides", .min_value = 0, .max_value = 10, .min_exclusive = true},
      {.name = "c", .description = "scales", .min_value = -10, .max_value = 10},
      {.name = "d", .description = "adds", .min_value = -10, .max_value = 10},
  }};
  static constexpr std::array<MetricSpec, 1> kMetrics = {{{"y", Dimension::dimensionless, "power law"}}};
  static constexpr std::array<std::string_view, 1> kReasons = {"b above 4"};
};

// Buying an accelerator: cost_usd = price + hours x TDP x electricity price.
class PurchaseSolver final : public Solver {
 public:
  enum Param : std::size_t { hardware, hours, usd_per_kwh };
  std::string_view name() const override { return "purchase_test"; }
  std::string_view description() const override { return "purchase cost (test)"; }
  std::span<const ParamSpec> params() const override { return kParams; }
  std::span<const MetricSpec> metrics() const override { return kMetrics; }
  std::span<const std::string_view> reasons() const override { return {}; }
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override {
    out[0] = in.hardware->price_usd + in.values[hours] * in.hardware->tdp_w / 1000 * in.values[usd_per_kwh];
    return {};
  }

 private:
  static constexpr std::array<ParamSpec, 3> kParams = {{
      {.name = "hardware", .kind = ParamKind::hardware, .description = "what to buy"},
      {.name = "hours", .description = "hours of use", .min_value = 0, .max_value = 1e6},
      {.name = "usd_per_kwh", .description = "electricity price", .min_value = 0, .max_value = 10},
  }};
  static constexpr std::array<MetricSpec, 1> kMetrics = {{{"cost_usd", Dimension::money, "price + energy"}}};
};

const IshigamiSolver kIshigami;
const PowerSolver kPower;
const PurchaseSolver kPurchase;

UncertainInput param_input(const Solver& s, std::string_view name, double lo = 0, double hi = 0) {
  UncertainInput in;
  in.name = std::string(name);
  for (std::size_t p = 0; p < s.params().size(); ++p) {
    if (s.params()[p].name == name) in.param = p;
  }
  in.lo = lo;
  in.hi = hi;
  return in;
}

UncertainInput field_input(std::string id, HardwareField f) {
  UncertainInput in;
  in.name = (id.empty() ? "" : id + ".") + std::string(hardware_field_name(f));
  in.target = InputTarget::hardware_field;
  in.field = f;
  in.hardware_id = std::move(id);
  return in;
}

SensitivityProblem ishigami_problem() {
  SensitivityProblem p;
  p.solver = &kIshigami;
  for (const char* name : {"x1", "x2", "x3"}) p.inputs.push_back(param_input(kIshigami, name, -kPi, kPi));
  return p;
}

TEST(Sobol, IshigamiIndicesMatchTheAnalyticValues) {
  SobolOptions options;
  options.samples = 8192;
  const SobolResult r = sobol(ishigami_problem(), options);
  EXPECT_EQ(r.samples, 8192u);
  EXPECT_EQ(r.evaluations, 8192u * 5);
  EXPECT_EQ(r.rows_used, 8192u);
  const double a = 7, b = 0.1, pi4 = std::pow(kPi, 4);
  const double V = a * a / 8 + b * pi4 / 5 + b * b * pi4 * pi4 / 18 + 0.5;
  const double V1 = 0.5 * (1 + b * pi4 / 5) * (1 + b * pi4 / 5);
  const double V2 = a * a / 8;
  const double V13 = b * b * pi4 * pi4 * (1.0 / 18 - 1.0 / 50);
  const std::array<double, 3> first = {V1 / V, V2 / V, 0};
  const std::array<double, 3> total = {(V1 + V13) / V, V2 / V, V13 / V};
  EXPECT_NEAR(first[0], 0.3139, 1e-4);
  EXPECT_NEAR(total[2], 0.2437, 1e-4);
  EXPECT_NEAR(r.variance, V, 0.01 * V);
  // Stated tolerance at N = 8192 (Sobol' sequence, Saltelli 2010 / Jansen estimators): 0.01.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.indices[i].first, first[i], 0.01) << "S" << i + 1;
    EXPECT_NEAR(r.indices[i].total, total[i], 0.01) << "ST" << i + 1;
    EXPECT_LE(r.indices[i].first_low, r.indices[i].first);
    EXPECT_GE(r.indices[i].first_high, r.indices[i].first);
    EXPECT_LE(r.indices[i].total_low, total[i]);
    EXPECT_GE(r.indices[i].total_high, total[i]);
  }
  // The convergence a report quotes: halving N moves no index by more than 0.01, and the 95%
  // bootstrap intervals are narrower than +-0.05.
  EXPECT_LT(r.max_change, 0.01);
  EXPECT_GT(r.max_change, 0.0);
  EXPECT_LT(r.max_half_width, 0.05);
  EXPECT_GT(r.max_half_width, 0.0);
}

TEST(Sobol, IsBitIdenticalRunToRun) {
  SobolOptions options;
  options.samples = 1024;
  const SobolResult a = sobol(ishigami_problem(), options);
  const SobolResult b = sobol(ishigami_problem(), options);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(0, std::memcmp(&a.indices[i], &b.indices[i], sizeof(SobolIndex)));
  }
  EXPECT_EQ(a.max_half_width, b.max_half_width);
}

TEST(Sobol, DropsRowsWithoutAValueAndSaysSo) {
  SensitivityProblem p;
  p.solver = &kPower;
  p.base.values = {0.5, 2, 1, 0};
  p.inputs = {param_input(kPower, "a", 0.1, 1), param_input(kPower, "b", 1, 5)};
  SobolOptions options;
  options.samples = 512;
  options.bootstrap = 0;
  const SobolResult r = sobol(p, options);
  // b > 4 is a quarter of [1, 5]; a row needs A's b and B's b at most 4: 9/16 of the rows.
  EXPECT_NEAR(static_cast<double>(r.rows_used), 512 * 9.0 / 16, 30);
  EXPECT_TRUE(std::isnan(r.indices[0].first_low));
  EXPECT_TRUE(std::isnan(r.max_half_width));
}

TEST(Morris, RanksTheSobolGFunctionInputsInTheirKnownOrder) {
  // Sobol' G function: prod (|4 x_i - 2| + a_i) / (1 + a_i); a smaller a_i means a more important
  // input (Saltelli et al., "Global Sensitivity Analysis. The Primer", 2008, section 3.3).
  const std::array<double, 5> a = {0, 1, 4.5, 9, 99};
  const ScalarModel g = [&](std::span<const double> x) {
    double y = 1;
    for (std::size_t i = 0; i < a.size(); ++i) y *= (std::fabs(4 * x[i] - 2) + a[i]) / (1 + a[i]);
    return y;
  };
  const std::vector<InputRange> ranges(5, InputRange{0, 1});
  MorrisOptions options;
  options.trajectories = 40;
  const MorrisResult r = morris(g, ranges, options);
  EXPECT_EQ(r.ranking, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.evaluations, 40u * 6);
  EXPECT_NEAR(r.delta, 4.0 / 6, 1e-15);
  for (const MorrisEffect& e : r.effects) EXPECT_EQ(e.effects, 40u);
  EXPECT_GT(r.effects[0].sigma, 0.0);  // the product couples the inputs
}

TEST(Morris, LinearEffectsAreExactWithoutSpread) {
  SensitivityProblem p;
  p.solver = &kPower;
  p.base.values = {0.5, 2, 1, 0};
  // y = c a^2 / b + 3 d: at a = 0.5, b = 2 the c-effect over [0, 2] is 0.25 / 2 x 2 = 0.25 per
  // range, the d-effect over [-1, 1] is 3 x 2 = 6 per range.
  p.inputs = {param_input(kPower, "c", 0, 2), param_input(kPower, "d", -1, 1)};
  const MorrisResult r = morris(p, MorrisOptions{.trajectories = 10, .levels = 6});
  EXPECT_NEAR(r.effects[0].mu_star, 0.25, 1e-12);
  EXPECT_NEAR(r.effects[1].mu, 6, 1e-12);
  EXPECT_NEAR(r.effects[1].sigma, 0, 1e-12);
  EXPECT_EQ(r.ranking, (std::vector<std::size_t>{1, 0}));
  const MorrisResult again = morris(p, MorrisOptions{.trajectories = 10, .levels = 6});
  EXPECT_EQ(r.effects[0].mu_star, again.effects[0].mu_star);
  EXPECT_THROW(morris(p, MorrisOptions{.trajectories = 10, .levels = 3}), std::invalid_argument);
}

TEST(LocalSensitivity, ElasticitiesOfAPowerLawAreItsExponents) {
  SensitivityProblem p;
  p.solver = &kPower;
  p.base.values = {0.5, 2, 1, 0};
  p.inputs = {param_input(kPower, "b"), param_input(kPower, "a"), param_input(kPower, "d")};
  const LocalSensitivity r = local_sensitivity(p, {.relative_change = 0.2, .elasticity_step = 0.01});
  EXPECT_DOUBLE_EQ(r.base_metric, 0.125);
  ASSERT_EQ(r.bars.size(), 3u);
  // Largest swing first: a (0.4^2/2 .. 0.6^2/2), then b (0.25/2.4 .. 0.25/1.6), then d (nominal 0).
  EXPECT_EQ(r.bars[0].input, 1u);
  EXPECT_NEAR(r.bars[0].metric_low, 0.08, 1e-15);
  EXPECT_NEAR(r.bars[0].metric_high, 0.18, 1e-15);
  EXPECT_NEAR(r.bars[0].elasticity, 2, 1e-12);
  EXPECT_EQ(r.bars[1].input, 0u);
  EXPECT_NEAR(r.bars[1].metric_low, 0.25 / 1.6, 1e-15);
  EXPECT_NEAR(r.bars[1].metric_high, 0.25 / 2.4, 1e-15);
  EXPECT_NEAR(r.bars[1].elasticity, -1, 1e-12);
  EXPECT_EQ(r.bars[2].input, 2u);
  EXPECT_TRUE(std::isnan(r.bars[2].swing));
  EXPECT_TRUE(std::isnan(r.bars[2].elasticity));

  // At its upper bound (a = 1) the step is one-sided and still exact for a power law.
  p.base.values[PowerSolver::a] = 1;
  const LocalSensitivity edge = local_sensitivity(p);
  for (const TornadoBar& bar : edge.bars) {
    if (bar.input != 1) continue;
    EXPECT_EQ(bar.input_high, 1.0);
    EXPECT_NEAR(bar.elasticity, 2, 1e-12);
  }
  p.base.values[PowerSolver::b] = 5;  // infeasible base point
  EXPECT_THROW(local_sensitivity(p), std::invalid_argument);
}

std::vector<HardwareSpec> purchase_hardware() {
  HardwareSpec a;
  a.id = "a";
  a.price_usd = 10000;
  a.tdp_w = 500;
  HardwareSpec b = a;
  b.id = "b";
  b.price_usd = 8000;
  b.tdp_w = 1000;
  return {a, b};
}

TEST(DecisionFlip, FindsTheAnalyticFlipOfEachInput) {
  // hours 4000, 0.5 $/kWh: a costs 10,000 + 1,000, b costs 8,000 + 2,000, so b is bought.
  // a becomes the choice if its price falls 10% (ties go to the first alternative), or b's price
  // rises 12.5%, or the energy share doubles (+100% on hours, the electricity price or every TDP).
  const std::vector<HardwareSpec> hw = purchase_hardware();
  DecisionProblem d;
  d.solver = &kPurchase;
  d.alternatives = {"a", "b"};
  for (const HardwareSpec& h : hw) {
    PointInputs in;
    in.hardware = &h;
    in.values[PurchaseSolver::hours] = 4000;
    in.values[PurchaseSolver::usd_per_kwh] = 0.5;
    d.points.push_back(in);
  }
  d.inputs = {field_input("a", HardwareField::price), field_input("b", HardwareField::price),
              param_input(kPurchase, "hours"), field_input("", HardwareField::tdp)};
  const DecisionResult r = decision_flips(d, {.max_relative_change = 0.5, .scan_steps = 20, .tolerance = 1e-6});
  EXPECT_EQ(r.best, 1u);
  EXPECT_EQ(r.base_metrics, (std::vector<double>{11000, 10000}));
  ASSERT_EQ(r.flips.size(), 4u);
  const DecisionFlip& a_price = r.flips[0];
  EXPECT_FALSE(a_price.up.found);
  EXPECT_EQ(a_price.up.limit, 0.5);
  EXPECT_TRUE(a_price.down.found);
  EXPECT_NEAR(a_price.down.relative_change, -0.10, 1e-6);
  EXPECT_LE(a_price.down.relative_change, -0.10 + 1e-12);
  EXPECT_EQ(a_price.down.new_best, 0u);
  EXPECT_EQ(flip_text(a_price.down), "-10%");
  EXPECT_EQ(flip_text(a_price.up), "none within +50%");
  const DecisionFlip& b_price = r.flips[1];
  EXPECT_TRUE(b_price.up.found);
  EXPECT_NEAR(b_price.up.relative_change, 0.125, 1e-6);
  EXPECT_EQ(flip_text(b_price.up), "+12.5%");
  EXPECT_FALSE(b_price.down.found);
  // A fall is searched to the same factor as a rise: 1 / 1.5, so -33.3 %.
  EXPECT_NEAR(b_price.down.limit, -1.0 / 3.0, 1e-12);
  EXPECT_EQ(flip_text(b_price.down), "none within -33.3%");
  for (std::size_t i : {2u, 3u}) {
    EXPECT_FALSE(r.flips[i].up.found);
    EXPECT_FALSE(r.flips[i].down.found);
  }
  const DecisionResult wide = decision_flips(d, {.max_relative_change = 1.5, .scan_steps = 30, .tolerance = 1e-6});
  EXPECT_NEAR(wide.flips[2].up.relative_change, 1.0, 1e-6);
  EXPECT_NEAR(wide.flips[3].up.relative_change, 1.0, 1e-6);
  // A factor 2.5 either way: down to -60 %, never towards zero.
  EXPECT_NEAR(wide.flips[2].down.limit, -0.6, 1e-12);
  // The catalog entries are never changed.
  EXPECT_EQ(hw[0].price_usd, 10000);
  EXPECT_EQ(hw[1].tdp_w, 1000);
}

// The purchase toy as a study: hardware swept over the two entries.
ResolvedStudy purchase_study() {
  ResolvedStudy s;
  s.name = "purchase";
  s.solver = &kPurchase;
  s.catalog.hardware = purchase_hardware();
  s.axes.push_back(Axis{"hardware", PurchaseSolver::hardware, {{"a", 0}, {"b", 1}}});
  s.axes.push_back(Axis{"hours", PurchaseSolver::hours, {{"2000 h", 2000}, {"4000 h", 4000}}});
  s.is_axis[PurchaseSolver::hardware] = true;
  s.is_axis[PurchaseSolver::hours] = true;
  s.fixed_values[PurchaseSolver::usd_per_kwh] = 0.5;
  s.fixed_labels[PurchaseSolver::usd_per_kwh] = "0.5";
  return s;
}

TEST(SensitivityRequests, DecisionThenLocalAndGlobalAtTheChosenPoint) {
  const ResolvedStudy study = purchase_study();
  SensitivityRequest r;
  r.name = "purchase";
  r.metric = "cost_usd";
  r.base = {{"hours", "4000 h"}};
  r.decide = "hardware";
  r.inputs = {{"a.price", std::nullopt}, {"b.price", InputRange{0.8, 1.3}}, {"usd_per_kwh", std::nullopt}};
  r.morris = MorrisOptions{.trajectories = 8};
  r.sobol = SobolOptions{.samples = 256, .bootstrap = 50};
  ASSERT_TRUE(check_sensitivity(study, r).empty());
  const SensitivityAnalysis s = run_sensitivity(study, r);
  ASSERT_TRUE(s.decision.has_value());
  EXPECT_EQ(s.alternatives, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.decision->best, 1u);
  EXPECT_EQ(s.base_point, s.alternative_points[1]);
  EXPECT_EQ(s.base_point, 3u);
  EXPECT_NEAR(s.decision->flips[0].down.relative_change, -0.10, 1e-4 + 1e-12);
  // Default range: -+ the local change (10%) around the base value.
  EXPECT_DOUBLE_EQ(s.inputs[2].lo, 0.45);
  EXPECT_DOUBLE_EQ(s.inputs[2].hi, 0.55);
  EXPECT_DOUBLE_EQ(s.inputs[1].hi, 1.3);
  ASSERT_TRUE(s.local.has_value());
  // At b's point: cost = 8000 b.price + 2000 (usd_per_kwh / 0.5); a's price changes nothing.
  EXPECT_DOUBLE_EQ(s.local->base_metric, 10000);
  EXPECT_EQ(s.local->bars[0].input, 1u);
  // A linear metric: the log-space central difference is within O(h^2) of 0.8 and 0.2.
  EXPECT_NEAR(s.local->bars[0].elasticity, 0.8, 1e-4);
  EXPECT_NEAR(s.local->bars[1].elasticity, 0.2, 1e-4);
  EXPECT_EQ(s.local->bars[2].swing, 0);
  ASSERT_TRUE(s.morris && s.sobol);
  EXPECT_EQ(s.morris->effects[0].mu_star, 0);
  // cost is linear and additive: first-order indices equal the totals and sum to 1.
  const auto& idx = s.sobol->indices;
  EXPECT_NEAR(idx[0].total, 0, 1e-12);
  EXPECT_NEAR(idx[1].first + idx[2].first, 1, 0.02);
  EXPECT_NEAR(idx[1].first, idx[1].total, 0.02);
}

TEST(SensitivityRequests, ProblemsNameTheField) {
  const ResolvedStudy study = purchase_study();
  SensitivityRequest r;
  r.name = "bad";
  r.metric = "cost";
  r.inputs = {{"c.price", std::nullopt}, {"warp", std::nullopt}, {"usd_per_kwh", InputRange{-1, 1}},
              {"price", std::nullopt}, {"b.price", std::nullopt}, {"a.host_link", std::nullopt}};
  r.sobol = SobolOptions{.samples = 2};
  std::vector<std::string> fields;
  for (const RequestProblem& p : check_sensitivity(study, r)) fields.push_back(p.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"metric", "inputs[0]", "inputs[1]", "inputs[2].range", "inputs[4]",
                                              "inputs[5]", "base", "base", "sobol.samples"}));
  EXPECT_THROW(run_sensitivity(study, r), std::invalid_argument);
}

TEST(SensitivityRequests, OnTheInferenceSolverElasticitiesAreTheTimeShares) {
  // lab_07 KWS profile on an A100 (no memory traffic): latency = compute / eta + kernels x launch,
  // so d ln latency / d ln launch = dispatch share and d ln latency / d ln eta = d ln latency /
  // d ln peak = -(compute share).
  const char* text = R"(study: sensitivity_test
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  execution: [eager, compiled]
fixed:
  model: lab07_kws
  precision: fp16
  batch: 1
  eta: 0.5
  launch_overhead: 10 us
)";
  Diagnostics diags;
  const auto study = load_study_text("sensitivity_test.yaml", text, DSX_SOURCE_DIR "/studies/catalog", diags);
  ASSERT_TRUE(study.has_value()) << diags.format();
  SensitivityRequest r;
  r.name = "kws";
  r.metric = "latency_s";
  r.base = {{"hardware", "a100_80gb_sxm"}, {"execution", "eager"}};
  r.inputs = {{"launch_overhead", std::nullopt}, {"eta", std::nullopt}, {"peak_flops", std::nullopt}};
  const SensitivityAnalysis s = run_sensitivity(*study, r);
  ASSERT_TRUE(s.local.has_value());
  std::vector<double> metrics(study->solver->metrics().size());
  PointInputs in;
  Grid(*study).inputs(s.base_point, in);
  study->solver->evaluate(in, metrics);
  const double dispatch = metrics[static_cast<std::size_t>(metric_of(*study->solver, "dispatch_share"))];
  const double compute = metrics[static_cast<std::size_t>(metric_of(*study->solver, "gpu_utilization"))];
  EXPECT_NEAR(dispatch, 2.0 / 3, 1e-3);
  for (const TornadoBar& bar : s.local->bars) {
    const double expected = bar.input == 0 ? dispatch : -compute;
    EXPECT_NEAR(bar.elasticity, expected, 1e-3) << s.inputs[bar.input].name;
  }
  SensitivityRequest bad = r;
  bad.inputs = {{"batch", std::nullopt}, {"eta", InputRange{0.5, 1.5}}, {"model", std::nullopt}};
  bad.base = {{"hardware", "a100_80gb_sxm"}};
  std::vector<std::string> fields;
  for (const RequestProblem& p : check_sensitivity(*study, bad)) fields.push_back(p.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"inputs[0]", "inputs[1].range", "inputs[2]", "base"}));
}

}  // namespace
}  // namespace dsx
