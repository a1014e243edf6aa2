#include "dse/analysis/breakeven.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <limits>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/analysis/roots.hpp"
#include "dse/study.hpp"

namespace dsx {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fmt_label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Compilation break-even (seeds/000 lab_07 Act 1): running N inferences takes N / throughput, plus
// the compile time when compiled. ResNet-50: 30 s compile, 1,450 img/s eager, 2,150 img/s compiled.
class CompileSolver final : public Solver {
 public:
  enum Param : std::size_t { inferences, execution, compile_time, eager_throughput, compiled_throughput };
  std::string_view name() const override { return "compile_test"; }
  std::string_view description() const override { return "lab_07 compile break-even (test)"; }
  std::span<const ParamSpec> params() const override { return kParams; }
  std::span<const MetricSpec> metrics() const override { return kMetrics; }
  std::span<const std::string_view> reasons() const override { return {}; }
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override {
    const bool compiled = in.values[execution] == 1;
    out[0] = (compiled ? in.values[compile_time] : 0.0) +
             in.values[inferences] / in.values[compiled ? compiled_throughput : eager_throughput];
    return {};
  }

 private:
  static constexpr std::array<std::string_view, 2> kModes = {"eager", "compiled"};
  static constexpr std::array<ParamSpec, 5> kParams = {{
      {.name = "inferences", .dimension = Dimension::count, .description = "images run", .min_value = 0, .max_value = 1e15},
      {.name = "execution", .kind = ParamKind::choice, .choices = kModes, .description = "eager or compiled"},
      {.name = "compile_time", .dimension = Dimension::time, .description = "one-off compile", .min_value = 0, .max_value = 1e6},
      {.name = "eager_throughput", .dimension = Dimension::rate, .description = "images/s eager", .min_value = 0, .max_value = 1e12},
      {.name = "compiled_throughput", .dimension = Dimension::rate, .description = "images/s compiled", .min_value = 0, .max_value = 1e12},
  }};
  static constexpr std::array<MetricSpec, 1> kMetrics = {{{"total_time_s", Dimension::time, "compile + run"}}};
};

// Curves of known shape along x, one per `shape` choice, shifted by `offset`:
//   zero: 0;  sine: sin(x);  line: x - offset;  plateau: x - 4 below 4, 0 on [4, 6], x - 6 above;
//   step: -1 below 3, +1 from 3 on;  gap: x - 4.5, infeasible on [4.3, 4.7];  two: 2.
class ShapeSolver final : public Solver {
 public:
  enum Param : std::size_t { x, shape, offset };
  std::string_view name() const override { return "shape_test"; }
  std::string_view description() const override { return "curves of known crossings (test)"; }
  std::span<const ParamSpec> params() const override { return kParams; }
  std::span<const MetricSpec> metrics() const override { return kMetrics; }
  std::span<const std::string_view> reasons() const override { return kReasons; }
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override {
    const double v = in.values[x];
    out[0] = kNaN;
    switch (static_cast<int>(in.values[shape])) {
      case 0: out[0] = 0; break;
      case 1: out[0] = std::sin(v); break;
      case 2: out[0] = v - in.values[offset]; break;
      case 3: out[0] = v < 4 ? v - 4 : (v > 6 ? v - 6 : 0); break;
      case 4: out[0] = v < 3 ? -1 : 1; break;
      case 5:
        if (v >= 4.3 && v <= 4.7) return {PointStatus::infeasible, 0};
        out[0] = v - 4.5;
        break;
      case 6: out[0] = 2; break;
    }
    return {};
  }

 private:
  static constexpr std::array<std::string_view, 7> kShapes = {"zero", "sine", "line", "plateau", "step", "gap", "two"};
  static constexpr std::array<ParamSpec, 3> kParams = {{
      {.name = "x", .description = "position", .min_value = -1e6, .max_value = 1e6},
      {.name = "shape", .kind = ParamKind::choice, .choices = kShapes, .description = "curve"},
      {.name = "offset", .description = "shift of the line", .min_value = -1e6, .max_value = 1e6},
  }};
  static constexpr std::array<MetricSpec, 1> kMetrics = {{{"y", Dimension::dimensionless, "the curve"}}};
  static constexpr std::array<std::string_view, 1> kReasons = {"inside the gap"};
};

// A study over a test solver, built as load_study would resolve it.
struct AxisSpec {
  std::size_t param;
  std::vector<AxisValue> values;
};
ResolvedStudy make_study(const Solver& solver, const std::vector<AxisSpec>& axes,
                         const std::vector<std::pair<std::size_t, double>>& fixed) {
  ResolvedStudy s;
  s.name = "test";
  s.solver = &solver;
  for (const auto& [p, v] : fixed) {
    s.fixed_values[p] = v;
    s.fixed_labels[p] = std::to_string(v);
  }
  for (const AxisSpec& a : axes) {
    s.axes.push_back(Axis{std::string(solver.params()[a.param].name), a.param, a.values});
    s.is_axis[a.param] = true;
  }
  return s;
}

std::vector<AxisValue> numbers(const std::vector<double>& values) {
  std::vector<AxisValue> out;
  for (double v : values) out.push_back({fmt_label(v), v});
  return out;
}

std::vector<AxisValue> choices(std::span<const std::string_view> names) {
  std::vector<AxisValue> out;
  for (std::size_t i = 0; i < names.size(); ++i) out.push_back({std::string(names[i]), static_cast<double>(i)});
  return out;
}

const CompileSolver kCompile;
const ShapeSolver kShapes;

ResolvedStudy compile_study() {
  return make_study(kCompile,
                    {{CompileSolver::inferences, numbers({1e3, 1e4, 1e5, 1e6, 1e7})},
                     {CompileSolver::execution, choices(kCompile.params()[CompileSolver::execution].choices)}},
                    {{CompileSolver::compile_time, 30}, {CompileSolver::eager_throughput, 1450},
                     {CompileSolver::compiled_throughput, 2150}});
}

ResolvedStudy shape_study(const std::vector<double>& xs, const std::vector<double>& offsets = {0}) {
  return make_study(kShapes,
                    {{ShapeSolver::offset, numbers(offsets)},
                     {ShapeSolver::x, numbers(xs)},
                     {ShapeSolver::shape, choices(kShapes.params()[ShapeSolver::shape].choices)}},
                    {});
}

std::vector<double> range(double from, double to, double step) {
  std::vector<double> out;
  for (double v = from; v <= to + 1e-9; v += step) out.push_back(v);
  return out;
}

BreakevenRequest shape_request(std::vector<std::string> among) {
  BreakevenRequest r;
  r.name = "shapes";
  r.along = "x";
  r.alternatives = "shape";
  r.among = std::move(among);
  r.metric = "y";
  return r;
}

TEST(Breakeven, FindsTheLab07CompileBreakEvenByRefiningBetweenGridPoints) {
  const ResolvedStudy study = compile_study();
  BreakevenRequest r;
  r.name = "compile";
  r.along = "inferences";
  r.alternatives = "execution";
  r.metric = "total_time_s";
  r.tolerance.relative = 1e-10;
  const BreakevenAnalysis a = run_breakeven(study, r);
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_TRUE(a.refined);
  EXPECT_EQ(a.alternatives, (std::vector<std::string>{"eager", "compiled"}));
  const BreakevenOutcome& o = a.groups[0].outcome;
  ASSERT_EQ(o.crossings.size(), 1u);
  const Crossing& c = o.crossings[0];
  EXPECT_EQ(c.kind, CrossingKind::root);
  EXPECT_EQ(c.better_below, 0u);  // eager before the break-even
  EXPECT_EQ(c.better_above, 1u);
  EXPECT_EQ(c.scan_lo, 2u);  // between 1e5 and 1e6
  EXPECT_EQ(c.scan_hi, 3u);
  // Seed: 30 s / (1/1450 - 1/2150) ~ 134,000 images (it rounds the per-image saving to 0.000224 s).
  EXPECT_NEAR(c.along_value, 134000, 0.01 * 134000);
  // The exact solution of the same arithmetic: 30 x 1450 x 2150 / 700.
  const double exact = 30.0 * 1450 * 2150 / 700;
  EXPECT_NEAR(c.along_value, exact, 2 * c.tolerance + 1e-6);
  EXPECT_NEAR(c.tolerance, 1e-10 * 1e6, 1e-12);
  EXPECT_LE(c.bracket_lo, exact);
  EXPECT_GE(c.bracket_hi, exact);
  EXPECT_NEAR(c.metric_first, c.metric_second, 1e-9);
  EXPECT_NEAR(c.metric_first, exact / 1450, 1e-6);
  EXPECT_GT(c.evaluations, 0);
  EXPECT_LT(c.evaluations, 10);  // a straight line: the secant step lands on the root
  ASSERT_EQ(o.segments.size(), 2u);
  EXPECT_EQ(o.segments[0].best, 0u);
  EXPECT_DOUBLE_EQ(o.segments[0].from, 1e3);
  EXPECT_DOUBLE_EQ(o.segments[0].to, c.along_value);
  EXPECT_EQ(o.segments[1].best, 1u);
  EXPECT_DOUBLE_EQ(o.segments[1].to, 1e7);
  EXPECT_EQ(o.missing_values, 0u);
  const std::string text = breakeven_statement(study, a, a.groups[0]);
  EXPECT_NE(text.find("compiled beats eager on total_time_s above inferences = 133607 (both 92.1429 there; root "
                      "bracketed within "),
            std::string::npos)
      << text;
}

TEST(Breakeven, ReportsEveryCrossingOfSeveral) {
  const ResolvedStudy study = shape_study(range(0.5, 10, 0.5));
  const BreakevenAnalysis a = run_breakeven(study, shape_request({"zero", "sine"}));
  const BreakevenOutcome& o = a.groups.at(0).outcome;
  ASSERT_EQ(o.crossings.size(), 3u);
  for (int n = 0; n < 3; ++n) {
    const Crossing& c = o.crossings[static_cast<std::size_t>(n)];
    EXPECT_EQ(c.kind, CrossingKind::root);
    EXPECT_NEAR(c.along_value, (n + 1) * std::numbers::pi, 1e-8);
    EXPECT_NEAR(c.metric_second, 0, 1e-8);
    // sin is above zero on (0, pi), so "sine" (second) is better (smaller) after odd crossings.
    EXPECT_EQ(c.better_above, n % 2 == 0 ? 1u : 0u);
  }
  ASSERT_EQ(o.segments.size(), 4u);
  EXPECT_EQ(o.segments[0].best, 0u);
  EXPECT_EQ(o.segments[1].best, 1u);
  EXPECT_NEAR(o.segments[1].from, std::numbers::pi, 1e-8);
  EXPECT_NEAR(o.segments[1].to, 2 * std::numbers::pi, 1e-8);
}

TEST(Breakeven, NoCrossingInRangeIsAStatedResult) {
  const ResolvedStudy study = shape_study(range(0.5, 10, 0.5));
  const BreakevenAnalysis a = run_breakeven(study, shape_request({"sine", "two"}));
  const BreakevenOutcome& o = a.groups.at(0).outcome;
  EXPECT_TRUE(o.crossings.empty());
  ASSERT_EQ(o.segments.size(), 1u);
  EXPECT_EQ(o.segments[0].best, 0u);
  EXPECT_EQ(breakeven_statement(study, a, a.groups[0]),
            "no crossing of y in [0.5, 10] of x: sine is better throughout.");
  BreakevenRequest maximize = shape_request({"sine", "two"});
  maximize.direction = Direction::maximize;
  const BreakevenAnalysis b = run_breakeven(study, maximize);
  EXPECT_EQ(breakeven_statement(study, b, b.groups[0]),
            "no crossing of y in [0.5, 10] of x: two is better throughout.");
}

TEST(Breakeven, EqualityAtAScanPointAndOverARunAreCrossingsThere) {
  const ResolvedStudy study = shape_study(range(0, 10, 1));
  // Offset 0: the line is 0 at the first scan point and above zero after it: touching at the
  // edge of the range is no crossing.
  const BreakevenOutcome edge = run_breakeven(study, shape_request({"zero", "line"})).groups.at(0).outcome;
  EXPECT_TRUE(edge.crossings.empty());
  const ResolvedStudy shifted = shape_study(range(0, 10, 1), {2});
  const BreakevenOutcome line = run_breakeven(shifted, shape_request({"zero", "line"})).groups.at(0).outcome;
  ASSERT_EQ(line.crossings.size(), 1u);
  EXPECT_EQ(line.crossings[0].kind, CrossingKind::at_point);
  EXPECT_EQ(line.crossings[0].along_value, 2.0);
  EXPECT_EQ(line.crossings[0].evaluations, 0);

  const BreakevenOutcome tie = run_breakeven(study, shape_request({"zero", "plateau"})).groups.at(0).outcome;
  ASSERT_EQ(tie.crossings.size(), 1u);
  EXPECT_EQ(tie.crossings[0].kind, CrossingKind::tie);
  EXPECT_EQ(tie.crossings[0].bracket_lo, 4.0);
  EXPECT_EQ(tie.crossings[0].bracket_hi, 6.0);
  EXPECT_TRUE(std::isnan(tie.crossings[0].along_value));
}

TEST(Breakeven, ARefinedBracketOnAStepIsAJump) {
  const ResolvedStudy study = shape_study(range(0, 10, 1));
  const BreakevenOutcome o = run_breakeven(study, shape_request({"zero", "step"})).groups.at(0).outcome;
  ASSERT_EQ(o.crossings.size(), 1u);
  EXPECT_EQ(o.crossings[0].kind, CrossingKind::jump);
  EXPECT_NEAR(o.crossings[0].along_value, 3, 1e-8);
}

TEST(Breakeven, AnInfeasiblePointInsideTheBracketStopsTheRefinement) {
  const ResolvedStudy study = shape_study(range(0, 10, 1));
  const BreakevenAnalysis a = run_breakeven(study, shape_request({"zero", "gap"}));
  const BreakevenOutcome& o = a.groups.at(0).outcome;
  EXPECT_NE(breakeven_statement(study, a, a.groups[0]).find("not refined: an alternative has no value"),
            std::string::npos);
  ASSERT_EQ(o.crossings.size(), 1u);
  const Crossing& c = o.crossings[0];
  EXPECT_EQ(c.kind, CrossingKind::unrefined);
  EXPECT_TRUE(std::isnan(c.along_value));
  EXPECT_LE(c.bracket_lo, 4.5);
  EXPECT_GE(c.bracket_hi, 4.5);
  EXPECT_GE(c.bracket_lo, 4.0);
  EXPECT_LE(c.bracket_hi, 5.0);
}

TEST(Breakeven, ADiscreteAxisGivesTheBracketingPair) {
  const ResolvedStudy study = shape_study(range(0.5, 10, 0.5));
  BreakevenRequest r = shape_request({"zero", "sine"});
  r.refine = false;
  const BreakevenAnalysis a = run_breakeven(study, r);
  const BreakevenOutcome& o = a.groups.at(0).outcome;
  ASSERT_EQ(o.crossings.size(), 3u);
  EXPECT_EQ(o.crossings[0].kind, CrossingKind::bracket);
  EXPECT_EQ(o.along_labels[o.crossings[0].scan_lo], fmt_label(3.0));
  EXPECT_EQ(o.along_labels[o.crossings[0].scan_hi], fmt_label(3.5));
  EXPECT_EQ(o.crossings[0].evaluations, 0);
  EXPECT_NE(breakeven_statement(study, a, a.groups[0]).find("sine beats zero on y between x = 3 and 3.5"),
            std::string::npos);
  // Discrete segments end on scan points.
  EXPECT_EQ(o.segments[0].to, 3.0);
  EXPECT_EQ(o.segments[1].from, 3.5);
}

TEST(Breakeven, FreeAxesGiveOneAnalysisPerGroup) {
  const ResolvedStudy study = shape_study(range(0, 10, 1.5), {2.2, 7.7});
  const BreakevenAnalysis a = run_breakeven(study, shape_request({"zero", "line"}));
  ASSERT_EQ(a.groups.size(), 2u);
  for (std::size_t g = 0; g < 2; ++g) {
    ASSERT_EQ(a.groups[g].labels.size(), 1u);
    EXPECT_EQ(a.groups[g].labels[0].param, "offset");
    ASSERT_EQ(a.groups[g].outcome.crossings.size(), 1u);
    EXPECT_NEAR(a.groups[g].outcome.crossings[0].along_value, g == 0 ? 2.2 : 7.7, 1e-9);
  }
  EXPECT_EQ(a.groups[1].base_points[1], point_index(study, std::vector<std::uint32_t>{1, 0, 2}));
  BreakevenRequest pinned = shape_request({"zero", "line"});
  pinned.where = {{"offset", fmt_label(7.7)}};
  const BreakevenAnalysis b = run_breakeven(study, pinned);
  ASSERT_EQ(b.groups.size(), 1u);
  EXPECT_TRUE(b.groups[0].labels.empty());
  EXPECT_NEAR(b.groups[0].outcome.crossings.at(0).along_value, 7.7, 1e-9);
}

TEST(Breakeven, GenericProblemTakesAnyInputsCallback) {
  BreakevenProblem p;
  p.solver = &kCompile;
  p.alternatives = {"eager", "compiled"};
  p.along_values = {0, 5e4, 1e5, 2e5, 4e5};
  p.inputs = [](std::size_t alternative, double n, PointInputs& in) {
    in.values[CompileSolver::inferences] = n;
    in.values[CompileSolver::execution] = static_cast<double>(alternative);
    in.values[CompileSolver::compile_time] = 60;  // twice the compile time: twice the break-even
    in.values[CompileSolver::eager_throughput] = 1450;
    in.values[CompileSolver::compiled_throughput] = 2150;
  };
  const BreakevenOutcome o = find_breakevens(p);
  ASSERT_EQ(o.crossings.size(), 1u);
  EXPECT_NEAR(o.crossings[0].along_value, 2 * 30.0 * 1450 * 2150 / 700, 1e-4);
  EXPECT_DOUBLE_EQ(o.curve(1, 0), 60.0);
  p.along_values = {3, 2, 1};
  EXPECT_THROW(find_breakevens(p), std::invalid_argument);
  p.refine = false;
  EXPECT_NO_THROW(find_breakevens(p));
  p.alternatives = {"eager"};
  EXPECT_THROW(find_breakevens(p), std::invalid_argument);
}

TEST(Breakeven, RoundingNoiseBetweenEqualCurvesIsNoCrossing) {
  BreakevenProblem p;
  p.solver = &kShapes;
  p.alternatives = {"a", "b"};
  p.along_values = range(0, 10, 1);
  // Two computations of the same value that differ in the last bits, with alternating sign.
  p.inputs = [](std::size_t alternative, double x, PointInputs& in) {
    in.values[ShapeSolver::shape] = 2;
    const double noise = (static_cast<int>(x) % 2 == 0 ? 1 : -1) * 1e-15 * (alternative == 0 ? 1 : -1);
    in.values[ShapeSolver::offset] = -100 + noise;
    in.values[ShapeSolver::x] = x;
  };
  const BreakevenOutcome o = find_breakevens(p);
  EXPECT_TRUE(o.crossings.empty());
}

TEST(BreakevenRequests, ProblemsNameTheField) {
  const ResolvedStudy study = shape_study(range(0, 10, 1), {1, 2});
  BreakevenRequest r = shape_request({"zero", "nope"});
  r.metric = "z";
  r.where = {{"x", "1"}, {"offset", "9"}};
  r.tolerance.relative = 0;
  const std::vector<RequestProblem> problems = check_breakeven(study, r);
  std::vector<std::string> fields;
  for (const RequestProblem& p : problems) fields.push_back(p.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"metric", "among[1]", "where.offset", "where.x", "tolerance"}));
  EXPECT_THROW(run_breakeven(study, r), std::invalid_argument);

  BreakevenRequest alt = shape_request({});
  alt.along = "shape";
  alt.alternatives = "offset";
  alt.refine = true;
  ASSERT_EQ(check_breakeven(study, alt).size(), 1u);
  EXPECT_EQ(check_breakeven(study, alt)[0].field, "refine");
  alt.refine.reset();
  EXPECT_TRUE(check_breakeven(study, alt).empty());
  // A choice axis scans in declaration order and brackets: line (offset 1) vs line (offset 2).
  const BreakevenAnalysis a = run_breakeven(study, alt);
  EXPECT_FALSE(a.refined);
}

TEST(BreakevenRequests, OnARealStudyCompiledNeverLosesToEager) {
  const char* text = R"(study: breakeven_test
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  model: [lab07_kws]
  execution: [eager, compiled]
  launch_overhead: [2 us, 5 us, 10 us, 20 us]
fixed:
  precision: fp16
  batch: 1
  eta: 0.5
)";
  Diagnostics diags;
  const auto study = load_study_text("breakeven_test.yaml", text, DSX_SOURCE_DIR "/studies/catalog", diags);
  ASSERT_TRUE(study.has_value()) << diags.format();
  BreakevenRequest r;
  r.name = "compiled";
  r.along = "launch_overhead";
  r.alternatives = "execution";
  r.metric = "latency_s";
  r.where = {{"hardware", "h100_sxm"}};
  const BreakevenAnalysis a = run_breakeven(*study, r);
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_TRUE(a.groups[0].outcome.crossings.empty());
  EXPECT_EQ(breakeven_statement(*study, a, a.groups[0]),
            "no crossing of latency_s in [2e-06 s, 2e-05 s] of launch_overhead: compiled is better throughout.");

  BreakevenRequest bad = r;
  bad.along = "batch";
  bad.metric = "latency";
  const auto problems = check_breakeven(*study, bad);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].field, "metric");
  EXPECT_NE(problems[0].message.find("latency_s"), std::string::npos);
  EXPECT_EQ(problems[1].field, "along");
  EXPECT_NE(problems[1].message.find("not swept"), std::string::npos);
}

TEST(BrentRoot, ConvergesOnSmoothAndKinkedFunctions) {
  int calls = 0;
  const auto cubic = [&](double x) {
    ++calls;
    return (x - 1.25) * (x * x + 1);
  };
  const Root r = brent_root(cubic, 0, 4, cubic(0), cubic(4), {.relative = 1e-12});
  EXPECT_EQ(r.status, RootStatus::converged);
  EXPECT_NEAR(r.x, 1.25, 1e-11);
  EXPECT_LE(r.lo, 1.25);
  EXPECT_GE(r.hi, 1.25);
  EXPECT_LT(r.evaluations, 15);
  const auto kink = [](double x) { return x < 0.3 ? -1e-3 : x - 0.3 + 1e-9; };
  const Root k = brent_root(kink, 0, 1, kink(0), kink(1), {.relative = 1e-12});
  EXPECT_EQ(k.status, RootStatus::converged);
  EXPECT_NEAR(k.x, 0.3, 1e-8);
  EXPECT_THROW(brent_root(cubic, 2, 4, cubic(2), cubic(4)), std::invalid_argument);
  const Root exact = brent_root(cubic, 1.25, 4, 0.0, cubic(4));
  EXPECT_EQ(exact.x, 1.25);
  EXPECT_EQ(exact.evaluations, 0);
}

}  // namespace
}  // namespace dsx
