// Weights and activations offloaded to host memory in the training solver (engine/offload.hpp,
// `offload: weights | activations | optimizer_weights | ... | all`), after Calculon (Isaev et al., SC'23; calculon-ai/calculon
// calculon/llm/llm.py): two layers of each stay on the accelerator, the rest crosses the host link a
// layer at a time, hidden behind the layer's compute where it can be. Checked by hand from the
// shapes, the H100's peak and its PCIe Gen5 link.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/offload.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/training_one_gpu.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;
using R = TrainingSolver::Reason;

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kPeak = 989e12;     // h100_sxm dense bf16
constexpr double kHostLink = 64e9;   // PCIe Gen5 x16, one way
constexpr double kSeq = 2048;
// Indices of the offload choices (engine/solvers/training_params.cpp kOffload).
constexpr double kOptimizer = 1, kWeights = 2, kActivations = 3, kOptimizerWeights = 4, kOptimizerActivations = 5,
                 kAll = 7;

class TrainingLayerOffload : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  // One H100, full recomputation, 8 micro-batches of one sequence, ZeRO 0, eta 0.5, attention_eta 0.5.
  PointInputs one_gpu(const PreparedModel& model) const {
    PointInputs in = one_gpu_training(solver, hw, model);
    in.values[P::host_memory_capacity] = 2048e9;  // a DGX H100's 2 TB, all of it for the one GPU
    return in;
  }

  // One layer's forward for one sequence at eta = attention_eta = 0.5: 2 P s / L FLOPs of GEMMs and
  // 4 h s^2 of attention, half of it under the causal mask (PaLM appendix B; FlashAttention-2).
  static double layer_forward_s(double params, double layers, double hidden) {
    return 2 * params * kSeq / layers / (0.5 * kPeak) + 4 * hidden * kSeq * kSeq * 0.5 / (0.5 * kPeak);
  }
};

TEST(LayerOffloadBytes, ForwardOverlapsTheTwoDirectionsBackwardAddsThem) {
  const LayerOffloadBytes both = layer_offload_bytes(true, true, 3e9, 1e9);
  EXPECT_DOUBLE_EQ(both.forward_bytes, 3e9);
  EXPECT_DOUBLE_EQ(both.backward_bytes, 4e9);
  const LayerOffloadBytes acts = layer_offload_bytes(false, true, 3e9, 1e9);
  EXPECT_DOUBLE_EQ(acts.forward_bytes, 1e9);
  EXPECT_DOUBLE_EQ(acts.backward_bytes, 1e9);
  EXPECT_DOUBLE_EQ(offload_exposed_s(4e9, 2e9, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(offload_exposed_s(4e9, 2e9, 3.0), 0.0);
}

TEST_F(TrainingLayerOffload, SeventyBillionParametersTrainOnOneH100AtTheLinksCost) {
  PointInputs in = one_gpu(llama70b);
  const double params = llama70b.serving_shape.parameter_count;
  ASSERT_GT(params, 70e9);
  in.values[P::offload] = kOptimizer;  // ZeRO-Offload alone leaves 2 P bytes of weights: 141 GB
  in.values[P::host_memory_bandwidth] = 100e9;
  EXPECT_EQ(solver.evaluate(in, out).reason, R::exceeds_memory);
  EXPECT_GT(out[M::weights_bytes], 80 * kGiB);

  in.values[P::offload] = kAll;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  // Two layers' bf16 weights and two layers' checkpoints (the layer input, 2 s b h bytes) stay.
  const double layer_weights = 2 * params / 80;
  const double layer_activations = 2 * kSeq * 8192;
  EXPECT_NEAR(out[M::weights_bytes], 2 * layer_weights, 1e-9 * layer_weights);
  EXPECT_NEAR(out[M::activations_bytes], 2 * layer_activations, 1e-9 * layer_activations);
  EXPECT_NEAR(out[M::memory_per_gpu_bytes], 2 * layer_weights + 2 * layer_activations, 1.0);
  EXPECT_LT(out[M::memory_per_gpu_bytes], 4 * kGiB);
  // Host: 14 B per parameter of ZeRO-Offload, 2 B of weights, 80 layers' checkpoints of one micro-batch.
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes], 16 * params + 80 * layer_activations, 1e-9 * 16 * params);

  // Forward: the next layer's 1.77 GB of weights in (the 34 MB checkpoint goes out meanwhile) behind a
  // 7.4 ms forward; backward: weights and checkpoint in behind the recomputed forward and the
  // backward, 3 times the forward (6 N + 12 L h s of 8 N + 16 L h s).
  const double forward_s = layer_forward_s(llama70b.serving_shape.active_parameter_count, 80, 8192);
  const double exposed_per_layer = std::max(0.0, layer_weights / kHostLink - forward_s) +
                                   std::max(0.0, (layer_weights + layer_activations) / kHostLink - 3 * forward_s);
  const double expected = 8 * 80 * exposed_per_layer;
  EXPECT_NEAR(out[M::offload_exposed_s], expected, 1e-9 * expected);
  EXPECT_GT(out[M::offload_exposed_s], 10.0);  // ~16.6 s: PCIe cannot keep up with one sequence per micro-batch
  EXPECT_NEAR(out[M::step_time_s], out[M::compute_s] + out[M::optimizer_s] + out[M::offload_exposed_s],
              1e-9 * out[M::step_time_s]);
  // The host's update writes the weights where they live: no copy back, only the gradients go down.
  const double update_s = (2 * 12 * params + 2 * 2 * params) / 100e9;
  const double down_s = 2 * params / kHostLink;
  EXPECT_NEAR(out[M::optimizer_s], std::max(0.0, down_s - out[M::compute_s] / 8 * 2.0 / 3.0) + update_s,
              1e-9 * update_s);
}

TEST_F(TrainingLayerOffload, LongerMicroBatchesHideTheWeights) {
  // Four sequences per micro-batch quadruple each layer's compute but not its weights: 29.8 ms of
  // forward against 27.6 ms of transfer, so only the activations' share is exposed backward.
  PointInputs in = one_gpu(llama70b);
  const double params = llama70b.serving_shape.parameter_count;
  in.values[P::offload] = kOptimizerWeights;
  in.values[P::host_memory_bandwidth] = 100e9;
  in.values[P::micro_batch] = 4;
  in.values[P::global_batch] = 32;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double forward_s = 4 * layer_forward_s(llama70b.serving_shape.active_parameter_count, 80, 8192);
  ASSERT_GT(forward_s, 2 * params / 80 / kHostLink);
  EXPECT_DOUBLE_EQ(out[M::offload_exposed_s], 0.0);
  // Activations stay on the device: 80 layers x 4 sequences x 2 s h bytes.
  EXPECT_NEAR(out[M::activations_bytes], 80 * 4 * 2 * kSeq * 8192, 1.0);
}

TEST_F(TrainingLayerOffload, CheckpointsHideBehindComputeAndFreeTheDevice) {
  // Full recomputation stores 2 s h bytes per layer (16 MB for Llama 3 8B): 0.26 ms on the link
  // against a 2.2 ms layer forward, so offloading them costs nothing and the step is unchanged.
  PointInputs in = one_gpu(llama8b);
  in.values[P::offload] = kOptimizer;
  in.values[P::host_memory_bandwidth] = 100e9;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> kept = out;
  in.values[P::offload] = kOptimizerActivations;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double layer_activations = 2 * kSeq * 4096;
  EXPECT_DOUBLE_EQ(out[M::offload_exposed_s], 0.0);
  EXPECT_DOUBLE_EQ(out[M::step_time_s], kept[M::step_time_s]);
  EXPECT_NEAR(kept[M::activations_bytes], 32 * layer_activations, 1.0);
  EXPECT_NEAR(out[M::activations_bytes], 2 * layer_activations, 1.0);
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes] - kept[M::host_memory_per_gpu_bytes], 32 * layer_activations, 1.0);
  EXPECT_NEAR(kept[M::memory_per_gpu_bytes] - out[M::memory_per_gpu_bytes], 30 * layer_activations, 1.0);
}

TEST_F(TrainingLayerOffload, TheDeviceUpdateWritesTheWeightsBackOncePerStep) {
  // Eight GPUs at ZeRO-1, optimizer on the device, weights offloaded: every step the updated bf16
  // weights (2 P bytes, ZeRO-1 keeps them whole) cross the link once, unhidden.
  PointInputs in = one_gpu(llama8b);
  const double params = llama8b.serving_shape.parameter_count;
  in.values[P::gpus] = 8;
  in.values[P::global_batch] = 64;
  in.values[P::zero_stage] = 1;
  in.values[P::offload] = kWeights;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double forward_s = layer_forward_s(llama8b.serving_shape.active_parameter_count, 32, 4096);
  const double layer_weights = 2 * params / 32;
  const double per_layer = std::max(0.0, layer_weights / kHostLink - forward_s) +
                           std::max(0.0, layer_weights / kHostLink - 3 * forward_s);
  const double expected = 8 * 32 * per_layer + 2 * params / kHostLink;
  EXPECT_NEAR(out[M::offload_exposed_s], expected, 1e-9 * expected);
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes], 2 * params, 1e-9 * params);
  EXPECT_NEAR(out[M::gradients_bytes], 2 * params, 1e-9 * params);  // gradients stay on the device
}

TEST_F(TrainingLayerOffload, APipelineStageNeedsThreeLayers) {
  // Llama 3 8B's 32 layers over 16 stages leave 2 per stage: the two resident layers are all of them.
  PointInputs in = one_gpu(llama8b);
  in.values[P::gpus] = 16;
  in.values[P::pp] = 16;
  in.values[P::global_batch] = 16;
  in.values[P::offload] = kActivations;
  EXPECT_EQ(solver.evaluate(in, out).reason, R::offload_needs_three_layers);
  in.values[P::pp] = 8;
  in.values[P::gpus] = 8;
  EXPECT_NE(solver.evaluate(in, out).reason, R::offload_needs_three_layers);
}

}  // namespace
}  // namespace dsx
