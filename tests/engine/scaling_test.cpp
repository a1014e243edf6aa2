// The scaling solver: Chinchilla's compute-optimal N and D, its fitted loss, and the training run.
#include "engine/solvers/scaling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

using S = ScalingSolver;

PointInputs base(const HardwareSpec& hw) {
  PointInputs in;
  in.hardware = &hw;
  in.values[S::tokens_per_parameter] = 20;
  in.values[S::precision] = static_cast<double>(index_of(Precision::bf16));
  in.values[S::eta] = 0.4;
  in.values[S::gpus] = 1024;
  in.values[S::gpu_hour_price] = 2;
  return in;
}

TEST(Scaling, ChinchillaFromItsComputeBudget) {
  // Hoffmann et al. 2022: Chinchilla, 70 B parameters on 1.4 T tokens, at Gopher's budget of 5.76e23
  // FLOPs. At 20 tokens per parameter N = sqrt(5.76e23 / 120) = 69.3 B and D = 1.386 T.
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = base(hw);
  in.values[S::input] = S::compute;
  in.values[S::compute_budget] = 5.76e23;
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(ScalingSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_NEAR(m[S::optimal_parameters], std::sqrt(5.76e23 / 120), 1);
  EXPECT_NEAR(m[S::optimal_parameters] / 70e9, 1, 0.011);  // 69.3 B: 1.03 % below the rounded 70 B
  EXPECT_NEAR(m[S::optimal_tokens] / 1.4e12, 1, 0.011);
  EXPECT_NEAR(m[S::compute_flops], 5.76e23, 5.76e23 * 1e-12);
  EXPECT_NEAR(m[S::tokens_per_parameter_ratio], 20, 1e-12);
}

TEST(Scaling, ChinchillaFromItsParameterCount) {
  // 70 B parameters -> 1.4 T tokens -> 6 x 70e9 x 1.4e12 = 5.88e23 FLOPs, 2 % above the 5.76e23 the
  // paper gives for that run (its parameter count, 70 B, is itself rounded).
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = base(hw);
  in.values[S::input] = S::parameter_count;
  in.values[S::parameters] = 70e9;
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(ScalingSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(m[S::optimal_tokens], 1.4e12);
  EXPECT_NEAR(m[S::compute_flops], 5.88e23, 1e9);
  EXPECT_NEAR(m[S::compute_flops] / 5.76e23, 1, 0.021);
  // L(70e9, 1.4e12) = 1.69 + 406.4 / 70e9^0.34 + 410.7 / 1.4e12^0.28 = 1.9366.
  EXPECT_NEAR(m[S::predicted_loss], 1.69 + 406.4 / std::pow(70e9, 0.34) + 410.7 / std::pow(1.4e12, 0.28), 1e-12);
  EXPECT_NEAR(m[S::predicted_loss], 1.9366, 1e-4);
  // On 1,024 H100s (989 TFLOP/s bf16) at 40 % MFU: 5.88e23 / (1,024 x 989e12 x 0.4) = 1.4515e6 s
  // (16.8 days), 412,875 GPU-hours, 825,750 USD at 2 USD per GPU-hour.
  const double t = 5.88e23 / (1024 * 989e12 * 0.4);
  EXPECT_NEAR(m[S::training_time_s], t, t * 1e-12);
  EXPECT_NEAR(m[S::gpu_time_s], 1024 * t, 1e-3);
  EXPECT_NEAR(m[S::cost_usd], 2 * 1024 * t / 3600, 1e-6);
}

TEST(Scaling, ParametricRuleMinimisesTheFittedLoss) {
  // The paper's eq. 4: at 5.76e23 FLOPs N_opt = G (C/6)^0.4516 = 32.19 B, D_opt = 2.982 T (93 tokens
  // per parameter), with G = (0.34 x 406.4 / (0.28 x 410.7))^(1 / 0.62) = 1.3447.
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = base(hw);
  in.values[S::input] = S::compute;
  in.values[S::compute_budget] = 5.76e23;
  in.values[S::rule] = S::parametric;
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(ScalingSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_NEAR(m[S::optimal_parameters] / 32.19e9, 1, 1e-3);
  EXPECT_NEAR(m[S::optimal_tokens] / 2.982e12, 1, 1e-3);
  EXPECT_NEAR(m[S::compute_flops], 5.76e23, 5.76e23 * 1e-12);
  // A minimum: moving along C = 6 N D either way raises the loss.
  const double n = m[S::optimal_parameters];
  for (const double f : {0.9, 1.1}) {
    EXPECT_GT(chinchilla_loss(n * f, 5.76e23 / (6 * n * f)), m[S::predicted_loss]) << f;
  }
  // Given that N, the parametric rule returns the same D.
  in.values[S::input] = S::parameter_count;
  in.values[S::parameters] = n;
  std::vector<double> back(S::kMetricCount);
  ASSERT_EQ(ScalingSolver().evaluate(in, back).status, PointStatus::ok);
  EXPECT_NEAR(back[S::optimal_tokens] / m[S::optimal_tokens], 1, 1e-12);
}

TEST(Scaling, DefaultEtaIsTheTrainingRegime) {
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = base(hw);
  in.values[S::parameters] = 1e9;
  in.values[S::input] = S::parameter_count;
  in.values[S::eta] = 0;
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(ScalingSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(m[S::eta_used], (0.40 + 0.55) / 2);
}

TEST(Scaling, InfeasibleReasons) {
  HardwareSpec hw = published::h100_sxm();
  PointInputs in = base(hw);
  std::vector<double> m(S::kMetricCount);
  in.values[S::input] = S::compute;
  EXPECT_EQ(ScalingSolver().evaluate(in, m).reason, S::no_compute_budget);
  in.values[S::input] = S::parameter_count;
  EXPECT_EQ(ScalingSolver().evaluate(in, m).reason, S::no_parameters);
  in.values[S::parameters] = 1e9;
  in.values[S::precision] = static_cast<double>(index_of(Precision::fp4));
  EXPECT_EQ(ScalingSolver().evaluate(in, m).reason, S::precision_unsupported);
}

// The rest of the declaration checks run over every registered solver (solver_declarations_test.cpp).
TEST(Scaling, TablesMatchTheIndexEnums) {
  const ScalingSolver solver;
  EXPECT_EQ(solver.params().size(), static_cast<std::size_t>(ScalingSolver::kParamCount));
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(ScalingSolver::kMetricCount));
}

}  // namespace
}  // namespace dsx
