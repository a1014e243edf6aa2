// Sequence parallelism switch of the training solver against Korthikanti et al., "Reducing
// Activation Recomputation in Large Transformer Models" (MLSys 2023), Table 2: with it the LayerNorm
// and dropout activations are sharded over TP; the TP traffic keeps its volume (section 4.2.2).
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

class SequenceParallelTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  // Llama 3 70B: s = 2,048, h = 8,192, a = 64; TP 8 x PP 4: 20 layers, 4 micro-batches in flight.
  const PreparedModel model = prepare_model(
      build_architecture("transformer", {published::kLlama3_70b.begin(), published::kLlama3_70b.end()}));

  std::vector<double> run(double sequence_parallel, double recompute, double attention) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::tp] = 8;
    in.values[P::pp] = 4;
    in.values[P::zero_stage] = 3;
    in.values[P::recompute] = recompute;
    in.values[P::attention] = attention;
    in.values[P::sequence_parallel] = sequence_parallel;
    std::vector<double> out(TrainingSolver::kMetricCount);
    solver.evaluate(in, out);
    return out;
  }
};

TEST_F(SequenceParallelTest, DefaultIsOn) {
  EXPECT_EQ(solver.params()[P::sequence_parallel].default_value, 1);
  EXPECT_EQ(solver.params()[P::sequence_parallel].choices[1], "on");
}

// Table 2, per layer: selective recomputation s b h (10 + 24 / t) without SP, 34 s b h / t with it;
// no recomputation and stored scores s b h (10 + 24 / t + 5 a s / (h t)) against s b h (34 + 5 a s / h) / t.
TEST_F(SequenceParallelTest, ShardsTheLayerNormAndDropoutActivations) {
  const double sbh = 2048.0 * 1 * 8192, layers_in_flight = 20 * 4, t = 8, scores = 5.0 * 64 * 2048 / 8192;
  EXPECT_NEAR(run(0, 1, 0)[M::activations_bytes], layers_in_flight * sbh * (10 + 24 / t), 1);
  EXPECT_NEAR(run(1, 1, 0)[M::activations_bytes], layers_in_flight * sbh * 34 / t, 1);
  EXPECT_NEAR(run(0, 0, 1)[M::activations_bytes], layers_in_flight * sbh * (10 + 24 / t + scores / t), 1);
  EXPECT_NEAR(run(1, 0, 1)[M::activations_bytes], layers_in_flight * sbh * (34 + scores) / t, 1);
  // Full recomputation keeps the layer input whole either way: 2 s b h.
  EXPECT_NEAR(run(0, 2, 0)[M::activations_bytes], run(1, 2, 0)[M::activations_bytes], 1e-6);
}

TEST_F(SequenceParallelTest, KeepsTheTensorParallelTraffic) {
  const std::vector<double> on = run(1, 1, 0), off = run(0, 1, 0);
  EXPECT_DOUBLE_EQ(on[M::tp_comm_s], off[M::tp_comm_s]);
  // Without it every TP rank repeats the norms and residual adds: more memory-bound work, the
  // GEMMs and attention unchanged.
  EXPECT_GT(off[M::memory_bound_s], on[M::memory_bound_s]);
  EXPECT_NEAR(off[M::compute_s] - off[M::memory_bound_s], on[M::compute_s] - on[M::memory_bound_s], 1e-12);
  EXPECT_GT(off[M::step_time_s], on[M::step_time_s]);
  EXPECT_GT(off[M::memory_per_gpu_bytes], on[M::memory_per_gpu_bytes]);
}

// Megatron-Core refuses expert parallelism with tensor parallelism unless sequence parallelism is on.
TEST_F(SequenceParallelTest, ExpertParallelismWithTensorParallelismNeedsIt) {
  const published::Values values = published::mixtral_8x7b();
  const PreparedModel mixtral = prepare_model(build_architecture("transformer", {values.begin(), values.end()}));
  PointInputs in;
  in.hardware = &hw;
  in.model = &mixtral;
  set_defaults(solver, in);
  in.values[P::tp] = 2;
  in.values[P::ep] = 8;
  in.values[P::sequence_parallel] = 0;
  std::vector<double> out(TrainingSolver::kMetricCount);
  EXPECT_EQ(solver.evaluate(in, out).reason, TrainingSolver::ep_tp_needs_sequence_parallel);
  in.values[P::sequence_parallel] = 1;
  EXPECT_NE(solver.evaluate(in, out).reason, TrainingSolver::ep_tp_needs_sequence_parallel);
  in.values[P::tp] = 1;
  in.values[P::sequence_parallel] = 0;
  EXPECT_NE(solver.evaluate(in, out).reason, TrainingSolver::ep_tp_needs_sequence_parallel);
}

}  // namespace
}  // namespace dsx
