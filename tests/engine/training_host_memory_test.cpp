// The host-memory capacity check of the training solver's offload (engine/solvers/training.hpp,
// `host_memory_capacity`): what offload moves to host memory must fit the host memory one GPU may
// fill, and a point that offloads without the capacity given is infeasible. Checked by hand against
// the bytes ZeRO-Offload and Calculon's weight offload put in host memory.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/training_one_gpu.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;
using R = TrainingSolver::Reason;

// Indices of the offload choices (engine/solvers/training_params.cpp kOffload).
constexpr double kOptimizer = 1, kWeights = 2, kOptimizerWeights = 4;
// Parameters of Llama 3 8B and 70B counted by hand from meta-llama's config.json files (32 layers of
// 218,112,000 and 80 of 855,654,400, untied 128,256-token embedding and head, final norm).
constexpr double kLlama8bParams = 8030261248.0;
constexpr double kLlama70bParams = 70553706496.0;
// Host memory one GPU may fill: a DGX H100's 2 TB (32 x 64 GB) over its 8 GPUs, and a GH200
// superchip's 480 GB of LPDDR5X.
constexpr double kDgxH100ShareBytes = 2048e9 / 8;
constexpr double kGh200Bytes = 480e9;

class TrainingHostMemory : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  PointInputs one_gpu(const PreparedModel& model, double offload, double capacity) const {
    PointInputs in = one_gpu_training(solver, hw, model);
    in.values[P::offload] = offload;
    in.values[P::host_memory_bandwidth] = 100e9;
    in.values[P::host_memory_capacity] = capacity;
    return in;
  }
};

TEST_F(TrainingHostMemory, TheModelsAreTheOnesCountedByHand) {
  EXPECT_DOUBLE_EQ(llama8b.serving_shape.parameter_count, kLlama8bParams);
  EXPECT_DOUBLE_EQ(llama70b.serving_shape.parameter_count, kLlama70bParams);
}

// ZeRO-Offload keeps 2 B of gradients and 12 B of fp32 master and Adam moments per parameter on the
// host: 14 x 8,030,261,248 = 112.42 GB, under a DGX H100 GPU's 256 GB share.
TEST_F(TrainingHostMemory, EightBillionParametersFitADgxH100Share) {
  PointInputs in = one_gpu(llama8b, kOptimizer, kDgxH100ShareBytes);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes], 14 * kLlama8bParams, 1.0);
  EXPECT_DOUBLE_EQ(14 * kLlama8bParams, 112423657472.0);
  // One byte short of what it moves: infeasible for the host, not for the GPU.
  in.values[P::host_memory_capacity] = 14 * kLlama8bParams - 1;
  const PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, R::exceeds_host_memory);
}

// The optimizer and the weights of Llama 3 70B offloaded: 16 x 70,553,706,496 = 1,128.86 GB, more
// than a GH200's 480 GB; a whole DGX H100's 2 TB holds it.
TEST_F(TrainingHostMemory, SeventyBillionParametersOverflowAGh200) {
  PointInputs in = one_gpu(llama70b, kOptimizerWeights, kGh200Bytes);
  const PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, R::exceeds_host_memory);
  EXPECT_NEAR(out[M::host_memory_per_gpu_bytes], 16 * kLlama70bParams, 1.0);
  EXPECT_GT(16 * kLlama70bParams, kGh200Bytes);
  // The GPU itself holds two layers' weights and the activations: the host is what refuses it.
  EXPECT_LT(out[M::memory_per_gpu_bytes], hw.memory_bytes);
  in.values[P::host_memory_capacity] = 2048e9;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
}

TEST_F(TrainingHostMemory, EveryOffloadNeedsTheCapacityGiven) {
  for (const double offload : {kOptimizer, kWeights, kOptimizerWeights}) {
    PointInputs in = one_gpu(llama8b, offload, 0);
    const PointResult r = solver.evaluate(in, out);
    EXPECT_EQ(r.status, PointStatus::infeasible) << offload;
    EXPECT_EQ(r.reason, R::offload_needs_host_capacity) << offload;
    EXPECT_NE(std::string(solver.reasons()[r.reason]).find("host_memory_capacity"), std::string::npos);
  }
  // Without offload the capacity is not needed and not checked.
  PointInputs none = one_gpu(llama8b, 0, 0);
  const PointResult r = solver.evaluate(none, out);
  EXPECT_EQ(r.reason, R::exceeds_memory);
  EXPECT_EQ(out[M::host_memory_per_gpu_bytes], 0);
}

}  // namespace
}  // namespace dsx
