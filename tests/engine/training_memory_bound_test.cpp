// The training step's memory-bound work and attention kernel (engine/solvers/training.hpp "step"):
// the graph's elementwise traffic, the loss, the optimizer update, the causal attention at its own
// efficiency, and what they imply across accelerators.
#include <gtest/gtest.h>

#include <vector>

#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

// Llama 3 8B per token (d 4096, 8 KV heads of 128, MLP 14336, vocabulary 128256, 32 layers).
TEST(TrainingShape, CountsTheElementwiseTrafficAndTheGemmOperands) {
  const PreparedModel model = published::llama3(32, 4096, 32, 14336);
  const ServingShape& s = model.serving_shape;
  const double d = 4096, kv = 1024, f = 14336;
  // Two RMSNorms (in + out: 2 d each) and two residual adds (3 d each) per layer, and the final norm.
  EXPECT_DOUBLE_EQ(s.replicated_elementwise_elements_per_token, 32 * 10 * d + 2 * d);
  // Rotary over q, k and v's width (in + out), SiLU (2 f) and the gated product (3 f) per layer,
  // and the embedding lookup.
  EXPECT_DOUBLE_EQ(s.split_elementwise_elements_per_token, 32 * (2 * (d + 2 * kv) + 5 * f) + 2 * d);
  // qkv, out, gate and up read d (out: the 32 x 128 heads), down reads f; they write d + 2 kv,
  // d, f, f and d.
  EXPECT_DOUBLE_EQ(s.linear_input_elements_per_token, 32 * (4 * d + f));
  EXPECT_DOUBLE_EQ(s.linear_output_elements_per_token, 32 * ((d + 2 * kv) + 2 * d + 2 * f));
  EXPECT_DOUBLE_EQ(s.logits_per_token, 128256);
  EXPECT_TRUE(s.causal);
}

class TrainingMemoryBoundTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec h100 = published::h100_sxm();
  const PreparedModel model = published::llama3(32, 4096, 32, 14336);

  // 8 GPUs, TP 1, ZeRO-3, 16 sequences of 2048 tokens per step: 4096 tokens per GPU per step.
  std::vector<double> run(const HardwareSpec& hw, void (*edit)(PointInputs&) = nullptr) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::gpus] = 8;
    in.values[P::tp] = 1;
    in.values[P::micro_batch] = 2;
    in.values[P::global_batch] = 16;
    in.values[P::zero_stage] = 3;
    if (edit != nullptr) edit(in);
    std::vector<double> out(TrainingSolver::kMetricCount);
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }
};

TEST_F(TrainingMemoryBoundTest, StreamsTheElementwiseOpsTheLossAndTheUpdate) {
  const std::vector<double> out = run(h100);
  const ServingShape& s = model.serving_shape;
  // Selective recomputation (the default) repeats no elementwise op: 2.5 passes of 2-byte elements,
  // plus the loss's read of the logits and write of their gradient, at 0.8 x 3.35 TB/s.
  const double bytes_per_token =
      (s.replicated_elementwise_elements_per_token + s.split_elementwise_elements_per_token) * 2 * 2.5 +
      2 * s.logits_per_token * 2;
  EXPECT_NEAR(out[M::memory_bound_s], bytes_per_token * 4096 / (3.35e12 * 0.8), 1e-12);
  // AdamW at ZeRO-3: 12 B of states read and written, 2 B of gradients read, 2 B of weights
  // written per parameter held.
  EXPECT_NEAR(out[M::optimizer_s],
              (2 * out[M::optimizer_bytes] + out[M::gradients_bytes] + out[M::weights_bytes]) / (3.35e12 * 0.8), 1e-12);
  EXPECT_NEAR(out[M::step_time_s],
              out[M::compute_s] + out[M::optimizer_s] + out[M::dp_comm_s] + out[M::bubble_s] + out[M::tp_comm_s], 1e-12);
  // A framework that moves twice the fused minimum doubles that time, and the update's.
  const std::vector<double> eager = run(h100, [](PointInputs& in) { in.values[P::memory_traffic] = 2; });
  EXPECT_NEAR(eager[M::memory_bound_s], 2 * out[M::memory_bound_s], 1e-12);
  EXPECT_NEAR(eager[M::optimizer_s], 2 * out[M::optimizer_s], 1e-12);
  EXPECT_NEAR(eager[M::compute_s] - eager[M::memory_bound_s], out[M::compute_s] - out[M::memory_bound_s], 1e-12);
}

// Causal attention: the fused kernel computes half of 16 L h s (selective recomputation) per token,
// at attention_eta; the GEMMs stay at eta.
TEST_F(TrainingMemoryBoundTest, RunsTheCausalAttentionAtItsOwnEfficiency) {
  const std::vector<double> out = run(h100);
  const std::vector<double> slow = run(h100, [](PointInputs& in) { in.values[P::attention_eta] = 0.25; });
  const double attention_flops = 16.0 * 32 * 4096 * 2048 / 2;
  EXPECT_NEAR(slow[M::compute_s] - out[M::compute_s],
              attention_flops * 4096 * (1 / (989e12 * 0.25) - 1 / (989e12 * 0.5)), 1e-12);
  EXPECT_NEAR(slow[M::hfu] * slow[M::step_time_s], out[M::hfu] * out[M::step_time_s], 1e-12);
}

// The memory-bound share of a step follows the ridge point: at the same eta, an accelerator with
// more FLOP/s per byte of bandwidth spends a larger share of its step there and reaches a lower
// MFU. The H100 (989 TFLOP/s over 3.35 TB/s) against an A100 (312 over 2.04).
TEST_F(TrainingMemoryBoundTest, ALargerRidgePointLowersTheMfu) {
  HardwareSpec a100 = h100;
  a100.peak_flops_per_s[index_of(Precision::bf16)] = 312e12;
  a100.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  a100.memory_bandwidth_bytes_per_s = 2.039e12;
  const std::vector<double> on_h100 = run(h100), on_a100 = run(a100);
  EXPECT_GT(on_h100[M::memory_bound_s] / on_h100[M::compute_s], on_a100[M::memory_bound_s] / on_a100[M::compute_s]);
  EXPECT_GT(on_a100[M::mfu], on_h100[M::mfu]);
}

}  // namespace
}  // namespace dsx
