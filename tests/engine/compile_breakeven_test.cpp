// seeds/000 lab_07 Act 2 Panel B (Compilation ROI Calculator) and The Scaling Challenge.
#include "engine/solvers/compile_breakeven.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace dsx {
namespace {

constexpr double kDay = 86400;
constexpr double kHour = 3600;

struct Point {
  double compile_s, eager_per_s, gain, volume_per_s, duration_s, run_inferences = 1;
};

struct Outcome {
  PointResult result;
  std::array<double, CompileBreakevenSolver::kMetricCount> m{};
  double operator[](CompileBreakevenSolver::Metric i) const { return m[i]; }
};

Outcome evaluate(const Point& p) {
  const CompileBreakevenSolver solver;
  PointInputs in;
  in.values[CompileBreakevenSolver::compile_time] = p.compile_s;
  in.values[CompileBreakevenSolver::throughput_eager] = p.eager_per_s;
  in.values[CompileBreakevenSolver::gain] = p.gain;
  in.values[CompileBreakevenSolver::volume] = p.volume_per_s;
  in.values[CompileBreakevenSolver::duration] = p.duration_s;
  in.values[CompileBreakevenSolver::run_inferences] = p.run_inferences;
  Outcome o;
  o.result = solver.evaluate(in, o.m);
  return o;
}

// The seed's Math Peek: N = 30 s / (1/1450 - 1/2150) ~ 134,000 images. Exactly 133,607; the seed
// writes the saving as 0.000224 s/img (0.00022454 cut to three digits), and 30 / 0.000224 = 133,929;
// both round to ~134,000.
TEST(CompileBreakeven, ResNet50SeedBreakEven) {
  const double dt = compile_time_saved_per_inference_s(1450, 2150);
  EXPECT_NEAR(dt, 0.00022454, 0.000000005);
  EXPECT_EQ(std::floor(dt * 1e6), 224);
  EXPECT_DOUBLE_EQ(dt, 1.0 / 1450 - 1.0 / 2150);
  const double n = compile_breakeven_inferences(30, 1450, 2150);
  EXPECT_NEAR(n, 30.0 * 1450 * 2150 / 700, 1e-6);
  EXPECT_NEAR(n, 133607.14, 0.01);
  EXPECT_NEAR(n, 134000, 0.01 * 134000);
  EXPECT_NEAR(30 / 0.000224, 133928.57, 0.01);
  // At the break-even both modes have spent the same time: 92.1 s eager = 30 s + 62.1 s compiled.
  EXPECT_NEAR(n / 1450, 30 + n / 2150, 1e-9);
  EXPECT_NEAR(n / 1450, 92.14, 0.01);
}

TEST(CompileBreakeven, NoSavingNeverBreaksEven) {
  EXPECT_TRUE(std::isinf(compile_breakeven_inferences(30, 1450, 1450)));
  EXPECT_TRUE(std::isinf(compile_breakeven_inferences(30, 1450, 1000)));
  EXPECT_LT(compile_time_saved_per_inference_s(1450, 1000), 0);
}

// Panel B's 48% slider stop is 2,150 / 1,450 rounded: at exactly 48% compiled mode runs 2,146 img/s
// and N = 30 x 1450 x 1.48 / 0.48 = 134,125.
TEST(CompileBreakeven, SolverAtTheSliderGain) {
  const Outcome o = evaluate({30, 1450, 0.48, 10000 / kDay, kDay});
  ASSERT_EQ(o.result.status, PointStatus::ok);
  EXPECT_NEAR(o[CompileBreakevenSolver::compiled_throughput_inferences_per_s], 2146, 1e-9);
  EXPECT_NEAR(o[CompileBreakevenSolver::breakeven_inferences], 134125, 1e-6);
  EXPECT_NEAR(o[CompileBreakevenSolver::breakeven_eager_time_s], 92.5, 1e-9);
  // 10,000 requests/day: 13.4 days to repay (the seed calls it "trivially positive").
  EXPECT_NEAR(o[CompileBreakevenSolver::breakeven_days], 13.4125, 1e-9);
  EXPECT_NEAR(o[CompileBreakevenSolver::breakeven_elapsed_s], 13.4125 * kDay, 1e-6);
  // One day serves 10,000 images: 6.9 s of eager inference (the seed's Lock option B says ~10 s).
  EXPECT_NEAR(o[CompileBreakevenSolver::inferences], 10000, 1e-9);
  EXPECT_NEAR(o[CompileBreakevenSolver::eager_time_s], 10000.0 / 1450, 1e-12);
  EXPECT_EQ(o[CompileBreakevenSolver::justified], 0);
  EXPECT_LT(o[CompileBreakevenSolver::net_time_saved_s], 0);
  EXPECT_NEAR(o[CompileBreakevenSolver::eager_busy_fraction], 10000 / kDay / 1450, 1e-15);
}

// seeds/000 section 6, production server: 10M requests/day repays the compile "within minutes".
TEST(CompileBreakeven, ProductionServerRepaysInMinutes) {
  const Outcome o = evaluate({30, 1450, 0.48, 1e7 / kDay, kDay});
  EXPECT_NEAR(o[CompileBreakevenSolver::breakeven_elapsed_s], 134125 / (1e7 / kDay), 1e-6);
  EXPECT_NEAR(o[CompileBreakevenSolver::breakeven_elapsed_s] / 60, 19.31, 0.01);
  EXPECT_EQ(o[CompileBreakevenSolver::justified], 1);
}

// The Scaling Challenge: KWS, 10 s compile, ~40% gain, 100 requests/hour. Eager KWS on an A100 with
// 10 us launches takes 1,000 x (5 + 10) us = 15 ms (lab07_kws): 66.7 inferences/s.
// N = 10 / (0.015 - 0.015 / 1.4) = 2,333.3 inferences = 23.3 hours of traffic.
TEST(CompileBreakeven, KwsScalingChallenge) {
  const double eager = 1 / 0.015;
  const Outcome day = evaluate({10, eager, 0.40, 100 / kHour, kDay});
  ASSERT_EQ(day.result.status, PointStatus::ok);
  EXPECT_NEAR(day[CompileBreakevenSolver::breakeven_inferences], 7000.0 / 3, 1e-9);
  EXPECT_NEAR(day[CompileBreakevenSolver::breakeven_elapsed_s], 70.0 / 3 * kHour, 1e-6);
  EXPECT_EQ(day[CompileBreakevenSolver::justified], 1);  // one day is just enough: 2,400 > 2,333
  const Outcome short_of_it = evaluate({10, eager, 0.40, 100 / kHour, 23 * kHour});
  EXPECT_EQ(short_of_it[CompileBreakevenSolver::justified], 0);
  EXPECT_LT(short_of_it[CompileBreakevenSolver::net_time_saved_s], 0);
  // The study's rounded 66.67 /s moves the answer by 0.005%: 23.3345 h.
  const Outcome rounded = evaluate({10, 66.67, 0.40, 100 / kHour, kDay});
  EXPECT_NEAR(rounded[CompileBreakevenSolver::breakeven_elapsed_s] / kHour, 23.3345, 1e-9);
}

// "1 run": duration 0 serves run_inferences (one by default), never enough to repay a compile.
TEST(CompileBreakeven, OneRunIsNotJustified) {
  const Outcome one = evaluate({30, 1450, 0.48, 10000 / kDay, 0});
  ASSERT_EQ(one.result.status, PointStatus::ok);
  EXPECT_EQ(one[CompileBreakevenSolver::inferences], 1);
  EXPECT_EQ(one[CompileBreakevenSolver::justified], 0);
  EXPECT_NEAR(one[CompileBreakevenSolver::roi], -1 + (1.0 / 1450 - 1.0 / 2146) / 30, 1e-15);
  // A run big enough to repay the compile by itself breaks even at time 0.
  const Outcome big = evaluate({30, 1450, 0.48, 10000 / kDay, 0, 200000});
  EXPECT_EQ(big[CompileBreakevenSolver::inferences], 200000);
  EXPECT_EQ(big[CompileBreakevenSolver::justified], 1);
  EXPECT_EQ(big[CompileBreakevenSolver::breakeven_elapsed_s], 0);
}

TEST(CompileBreakeven, LedgerIdentities) {
  for (const double gain : {0.05, 0.30, 0.48, 1.0}) {
    for (const double duration : {0.0, kHour, kDay, 7 * kDay, 365 * kDay}) {
      const Outcome o = evaluate({48, 1450, gain, 1e6 / kDay, duration});
      const double eager = o[CompileBreakevenSolver::eager_time_s];
      const double compiled = o[CompileBreakevenSolver::compiled_time_s];
      EXPECT_NEAR(o[CompileBreakevenSolver::net_time_saved_s], eager - compiled, 1e-9 * eager + 1e-12);
      EXPECT_NEAR(o[CompileBreakevenSolver::roi], o[CompileBreakevenSolver::payback_fraction] - 1, 1e-12);
      EXPECT_EQ(o[CompileBreakevenSolver::compile_overhead_s], 48);
      EXPECT_EQ(o[CompileBreakevenSolver::justified] == 1, compiled < eager);
      EXPECT_EQ(o[CompileBreakevenSolver::justified] == 1,
                o[CompileBreakevenSolver::inferences] > o[CompileBreakevenSolver::breakeven_inferences]);
      EXPECT_NEAR(o[CompileBreakevenSolver::overall_speedup], eager / compiled, 1e-12);
    }
  }
}

// The timeline: cumulative time saved grows with the deployment, the compile line is flat, and they
// cross at the break-even elapsed time.
TEST(CompileBreakeven, TimelineCrossesAtTheBreakEven) {
  const Outcome at = evaluate({30, 1450, 0.48, 1e6 / kDay, 1});
  const double crossing = at[CompileBreakevenSolver::breakeven_elapsed_s];
  const Outcome before = evaluate({30, 1450, 0.48, 1e6 / kDay, 0.999 * crossing});
  const Outcome after = evaluate({30, 1450, 0.48, 1e6 / kDay, 1.001 * crossing});
  EXPECT_LT(before[CompileBreakevenSolver::cumulative_time_saved_s], 30);
  EXPECT_GT(after[CompileBreakevenSolver::cumulative_time_saved_s], 30);
  const Outcome exactly = evaluate({30, 1450, 0.48, 1e6 / kDay, crossing});
  EXPECT_NEAR(exactly[CompileBreakevenSolver::cumulative_time_saved_s], 30, 1e-9);
}

TEST(CompileBreakeven, VolumeAboveEagerThroughputIsInfeasible) {
  const Outcome o = evaluate({10, 1 / 0.015, 0.40, 1e7 / kDay, kDay});
  EXPECT_EQ(o.result.status, PointStatus::infeasible);
  EXPECT_EQ(o.result.reason, CompileBreakevenSolver::volume_exceeds_eager_throughput);
  const CompileBreakevenSolver solver;
  EXPECT_NE(solver.reasons()[o.result.reason].find("volume exceeds"), std::string_view::npos);
}

TEST(CompileBreakeven, DeclaresEveryParamAndMetric) {
  const CompileBreakevenSolver solver;
  EXPECT_EQ(solver.params().size(), CompileBreakevenSolver::kParamCount);
  EXPECT_EQ(solver.metrics().size(), CompileBreakevenSolver::kMetricCount);
  EXPECT_EQ(solver.params()[CompileBreakevenSolver::duration].name, "duration");
  EXPECT_EQ(solver.metrics()[CompileBreakevenSolver::breakeven_inferences].name, "breakeven_inferences");
  EXPECT_EQ(solver.metrics()[CompileBreakevenSolver::eager_busy_fraction].name, "eager_busy_fraction");
}

}  // namespace
}  // namespace dsx
