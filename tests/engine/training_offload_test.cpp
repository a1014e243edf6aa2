// ZeRO-Offload in the training solver (engine/solvers/training.hpp, `offload: optimizer`): the
// gradient shard, fp32 master and optimizer states move to host memory, the update runs there, and
// the step pays the host link both ways and the host's memory-bound update; checked by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/model_builders.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/training_one_gpu.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;
using R = TrainingSolver::Reason;

constexpr double kGiB = 1024.0 * 1024 * 1024;

class TrainingOffload : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  // Llama 3 8B on one H100, full recomputation, 8 micro-batches of one sequence.
  PointInputs one_gpu(const PreparedModel& model, const HardwareSpec& on) const {
    PointInputs in = one_gpu_training(solver, on, model);
    in.values[P::host_memory_capacity] = 2048e9;  // a DGX H100's 2 TB, all of it for the one GPU
    return in;
  }
};

TEST_F(TrainingOffload, TheOptimizerStatesMoveToTheHostAndTheModelFits) {
  PointInputs in = one_gpu(llama8b, hw);
  const double params = llama8b.serving_shape.parameter_count;
  ASSERT_GT(params, 7.5e9);
  // 16 bytes per parameter (bf16 weights and gradients, fp32 master, Adam's two moments) exceed 80 GiB.
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::infeasible);
  EXPECT_NEAR(out[M::weights_bytes] + out[M::gradients_bytes] + out[M::optimizer_bytes], 16 * params, 1e-6 * params);
  EXPECT_EQ(out[M::host_memory_per_gpu_bytes], 0);

  in.values[P::offload] = 1;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::infeasible);  // no host bandwidth given
  in.values[P::host_memory_bandwidth] = 100e9;
  const PointResult r = solver.evaluate(in, out);
  ASSERT_EQ(r.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::gradients_bytes], 0);
  EXPECT_DOUBLE_EQ(out[M::optimizer_bytes], 0);
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes], 14 * params, 1e-6 * params);  // 2 + 4 + 4 + 4 bytes
  EXPECT_NEAR(out[M::memory_per_gpu_bytes], out[M::weights_bytes] + out[M::activations_bytes], 1.0);
  EXPECT_LT(out[M::memory_per_gpu_bytes], 80 * kGiB);
}

TEST_F(TrainingOffload, TheStepPaysTheHostLinkAndTheHostUpdate) {
  PointInputs in = one_gpu(llama8b, hw);
  in.values[P::offload] = 1;
  in.values[P::host_memory_bandwidth] = 100e9;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double params = llama8b.serving_shape.parameter_count;
  // By hand: 2 P bytes of gradients down and 2 P of weights up over the 64 GB/s host link; the update
  // reads and writes 12 P bytes of states and moves 2 P of gradients and 2 P of weights at 100 GB/s.
  const double down_s = 2 * params / 64e9, up_s = down_s;
  const double update_s = (2 * 12 * params + 2 * 2 * params) / 100e9;
  const double last_backward_s = out[M::compute_s] / 8 * 2.0 / 3.0;
  const double expected = std::max(0.0, down_s - last_backward_s) + update_s + up_s;
  EXPECT_NEAR(out[M::optimizer_s], expected, 1e-9 * expected);
  EXPECT_GT(update_s, 2.0);  // ~2.2 s: the host update dominates the offload's cost here
  EXPECT_NEAR(out[M::step_time_s], out[M::compute_s] + out[M::optimizer_s], 1e-9 * out[M::step_time_s]);

  // A faster host memory shortens only the update.
  std::vector<double> faster(out.size());
  in.values[P::host_memory_bandwidth] = 200e9;
  ASSERT_EQ(solver.evaluate(in, faster).status, PointStatus::ok);
  EXPECT_NEAR(out[M::optimizer_s] - faster[M::optimizer_s], update_s / 2, 1e-9 * update_s);
}

TEST_F(TrainingOffload, ZeroShardsWhatEachGpuOffloads) {
  // Eight GPUs data-parallel at ZeRO-2: each offloads an eighth of the gradients and states.
  PointInputs in = one_gpu(llama8b, hw);
  in.values[P::gpus] = 8;
  in.values[P::global_batch] = 64;
  in.values[P::zero_stage] = 2;
  in.values[P::offload] = 1;
  in.values[P::host_memory_bandwidth] = 100e9;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double params = llama8b.serving_shape.parameter_count;
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes], 14 * params / 8, 1e-6 * params);
}

TEST_F(TrainingOffload, ThirteenBillionParametersTrainOnOneV100) {
  // ZeRO-Offload's abstract (Ren et al. 2021, arXiv:2101.06840): "It can train models with over 13
  // billion parameters on a single GPU" (a 32 GB V100). Llama 2 13B's shape (Touvron et al. 2023,
  // Table 1 and its config.json: 40 layers, d_model 5,120, 40 heads, d_ff 13,824, vocabulary 32,000)
  // at 1,024 tokens, fp16 (a V100 has no bf16), full recomputation.
  const published::Values llama2_13b = {{"layers", 40},  {"d_model", 5120}, {"heads", 40},     {"kv_heads", 40},
                             {"d_ff", 13824}, {"vocab", 32000},  {"seq_len", 1024}, {"gated_mlp", 1},
                             {"norm", 1},     {"embeddings", 1}, {"rope", 1}};
  const PreparedModel model = prepare_model(build_architecture("transformer", {llama2_13b.begin(), llama2_13b.end()}));
  ASSERT_GT(model.serving_shape.parameter_count, 13e9);
  // studies/catalog/hardware.yaml v100_32gb_sxm2: 125 TFLOP/s fp16, 32 GiB at 900 GB/s, PCIe Gen3 x16.
  HardwareSpec v100;
  v100.id = "v100_32gb_sxm2";
  v100.peak_flops_per_s[index_of(Precision::fp16)] = 125e12;
  v100.memory_bytes = 32 * kGiB;
  v100.memory_bandwidth_bytes_per_s = 900e9;
  v100.host_link_bandwidth_bytes_per_s = 16e9;
  PointInputs in = one_gpu(model, v100);
  in.values[P::precision] = 3;  // fp16
  in.values[P::global_batch] = 4;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::infeasible);
  EXPECT_EQ(solver.evaluate(in, out).reason, R::exceeds_memory);
  in.values[P::offload] = 1;
  in.values[P::host_memory_bandwidth] = 50e9;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_LT(out[M::memory_per_gpu_bytes], 32 * kGiB);
}

}  // namespace
}  // namespace dsx
