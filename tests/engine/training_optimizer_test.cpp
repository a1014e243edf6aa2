// Optimizer state (engine/training_memory.hpp): AdamW, 8-bit Adam (Dettmers et al. 2022), Adafactor
// (Shazeer and Stern 2018), SGD with momentum and Lion (Chen et al. 2023), alone and in the training
// solver, where ZeRO shards them as it shards Adam's.
#include <gtest/gtest.h>

#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/solvers/training.hpp"
#include "engine/training_memory.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kAdamw = 0, kAdam8bit = 1, kAdafactor = 2, kSgdMomentum = 3, kLion = 4;  // the choices

TEST(TrainingOptimizer, StateBytesPerParameter) {
  // Mixed-precision Adam: 2 + 2 + 4 master + 4 + 4 moments = 16 B (ZeRO section 3.1).
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::adam, true), 16.0);
  // 8-bit Adam: both moments in one byte each, a quarter of Adam's 8 B of state (Dettmers et al. 2022:
  // 75 % of the optimizer memory saved), plus one fp32 block maximum per 2,048 values of each state.
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(Optimizer::adam_8bit, false), 2.0 + 8.0 / 2048);
  EXPECT_NEAR(optimizer_bytes_per_param(Optimizer::adam_8bit, false) / optimizer_bytes_per_param(Optimizer::adam, false),
              0.25, 0.001);
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::adam_8bit, true), 2 + 2 + 4 + 2 + 8.0 / 2048);
  // Without the fp32 master copy, 16-bit weights and gradients with 8-bit Adam are 6 B per parameter.
  EXPECT_NEAR(2 + 2 + optimizer_bytes_per_param(Optimizer::adam_8bit, false), 6.0, 0.004);
  // Adafactor: a d x d matrix keeps d row and d column sums in fp32: 8 d / d^2 B per parameter.
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(Optimizer::adafactor, false, 8192), 8.0 / 8192);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(Optimizer::adafactor, true, 8192), 4.0 + 8.0 / 8192);
  // Lion: one momentum, as SGD with momentum.
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(Optimizer::lion, true), 8.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(Optimizer::lion, true),
                   optimizer_bytes_per_param(Optimizer::sgd_momentum, true));
}

class TrainingOptimizerSolverTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(
      build_architecture("transformer", {published::kLlama3_70b.begin(), published::kLlama3_70b.end()}));

  std::vector<double> run(double optimizer, double zero) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::tp] = 8;
    in.values[P::pp] = 4;
    in.values[P::zero_stage] = zero;
    in.values[P::optimizer] = optimizer;
    std::vector<double> out(TrainingSolver::kMetricCount);
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }
};

// Llama 3 70B, TP 8 x PP 4 x DP 32: ZeRO-1 shards the states over the 32 DP ranks.
TEST_F(TrainingOptimizerSolverTest, ZeroShardsEveryOptimizersStates) {
  const std::vector<double> adamw = run(kAdamw, 1);
  const double params = adamw[M::trainable_parameters];
  const double per_gpu = params / 32;  // TP x PP
  EXPECT_NEAR(adamw[M::optimizer_bytes], per_gpu / 32 * 12, 1);
  const std::vector<double> eight = run(kAdam8bit, 1);
  EXPECT_NEAR(eight[M::optimizer_bytes], per_gpu / 32 * (4 + 2 + 8.0 / 2048), 1);
  EXPECT_DOUBLE_EQ(eight[M::weights_bytes], adamw[M::weights_bytes]);
  EXPECT_DOUBLE_EQ(eight[M::gradients_bytes], adamw[M::gradients_bytes]);
  // The update streams its states: 8-bit Adam's smaller ones take less time, the rest of the step is the same.
  EXPECT_NEAR(adamw[M::optimizer_s] - eight[M::optimizer_s],
              2 * (adamw[M::optimizer_bytes] - eight[M::optimizer_bytes]) / (3.35e12 * 0.8), 1e-15);
  EXPECT_NEAR(eight[M::step_time_s] - eight[M::optimizer_s], adamw[M::step_time_s] - adamw[M::optimizer_s], 1e-12);
  const std::vector<double> factored = run(kAdafactor, 0);
  EXPECT_NEAR(factored[M::optimizer_bytes], per_gpu * (4 + 8.0 / 8192), 1);
  EXPECT_NEAR(run(kLion, 1)[M::optimizer_bytes], per_gpu / 32 * 8, 1);
  EXPECT_NEAR(run(kSgdMomentum, 1)[M::optimizer_bytes], per_gpu / 32 * 8, 1);
  // ZeRO-3: the fleet holds 2 + 2 + 4 + 2 B per parameter with 8-bit Adam (16 with AdamW).
  EXPECT_NEAR(run(kAdam8bit, 3)[M::fleet_model_state_bytes_per_param], 10 + 8.0 / 2048, 1e-9);
  // The checkpoint holds weights, master and states: 14 B (AdamW), 8 + 8 / 2048 B (8-bit Adam).
  EXPECT_NEAR(adamw[M::checkpoint_bytes], 14 * params, 1);
  EXPECT_NEAR(eight[M::checkpoint_bytes], (2 + 4 + 2 + 8.0 / 2048) * params, 1);
}

}  // namespace
}  // namespace dsx
