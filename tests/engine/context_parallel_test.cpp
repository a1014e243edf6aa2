// Context parallelism in the training solver (Liu et al. 2023, Ring Attention; Megatron-Core context
// parallel): the layout gpus = tp x pp x cp x dp, activations divided by cp, the K/V ring exchange
// against the attention compute it overlaps, and the infeasible layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

class ContextParallelTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  // Llama 3 70B: 80 layers, d_model 8,192, 8 KV heads of 128, seq_len 2,048.
  const PreparedModel model = prepare_model(
      build_architecture("transformer", {published::kLlama3_70b.begin(), published::kLlama3_70b.end()}));
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  PointInputs point(double tp, double pp, double cp) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::tp] = tp;
    in.values[P::pp] = pp;
    in.values[P::cp] = cp;
    return in;
  }
};

// 1,024 GPUs as TP 4 x PP 4 x CP 2 x DP 32: the same tokens per step, each GPU computing the same
// share as TP 8 x PP 4 x DP 32 (1 / 32 of a replica's FLOPs), activations halved by cp.
TEST_F(ContextParallelTest, SplitsTheSequenceOverCpRanks) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1), out).status, PointStatus::ok);
  const std::vector<double> tp8 = out;
  ASSERT_EQ(solver.evaluate(point(4, 4, 2), out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::dp], 32);
  EXPECT_DOUBLE_EQ(out[M::microbatches], 32);
  EXPECT_NEAR(out[M::tokens_per_s] * out[M::step_time_s], 1024 * 2048.0, 1e-3);
  EXPECT_NEAR(out[M::compute_s], tp8[M::compute_s], 1e-12 * tp8[M::compute_s]);
  // Selective recomputation with sequence parallelism: 20 layers x 4 in flight x 34 s b h / (t cp).
  EXPECT_NEAR(out[M::activations_bytes], 20 * 4 * 34.0 * 2048 * 8192 / (4 * 2), 1);
  EXPECT_NEAR(out[M::activations_bytes], tp8[M::activations_bytes], 1);  // t x cp = 8 either way
  // ZeRO-1 over the DP x CP ranks: 70.55 B / (TP 4 x PP 4) x 12 B / 64.
  const double params = out[M::trainable_parameters];
  EXPECT_NEAR(out[M::optimizer_bytes], params / 16 * 12 / 64, 1);
  // TP x CP = 8 fits the node: the K/V ring runs on NVLink and hides behind attention compute.
  EXPECT_DOUBLE_EQ(out[M::cp_comm_s], 0);
  // The gradients are reduced over the 64 DP x CP ranks, 2 per node (tp 4 apart) on NVLink and 32
  // nodes on the NICs.
  HierarchicalFabric fabric;
  fabric.gpus_per_node = 2;
  fabric.intra_bandwidth_bytes_per_s = 450e9;
  fabric.intra_alpha_s = 0.5e-6;
  fabric.nic_bandwidth_bytes_per_s = 50e9;
  fabric.nics_per_node = 2;
  fabric.inter_alpha_s = 5e-6;
  EXPECT_NEAR(out[M::dp_comm_s], hierarchical_all_reduce_s(params / 16 * 2, 32, fabric), 1e-12);
}

// A slow fabric (1 GB/s per NIC) with TP 8 x CP 2 across nodes: the ring's transfer outlasts the
// attention block, and each layer exposes the difference, 3 times per micro-batch (forward once,
// backward K/V and their gradients).
TEST_F(ContextParallelTest, ExposesTheRingExchangeBeyondTheAttentionCompute) {
  PointInputs in = point(8, 4, 2);
  in.values[P::fabric_bandwidth] = 1e9;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::dp], 16);
  EXPECT_DOUBLE_EQ(out[M::microbatches], 64);
  // One chunk: b s / cp tokens x 2 x (8 KV heads / TP 8) x 128 x 2 B; cp - 1 = 1 step.
  const double chunk = 1 * 2048 / 2 * 2 * 1 * 128 * 2.0;
  const double exchange = point_to_point_s(chunk, 1e9, 5e-6);
  // Forward attention of one layer on one rank: 4 d_model s (b s) / (tp cp), half of it under the
  // causal mask, at attention_eta x 989 TFLOP/s.
  const double attention = 4.0 * 8192 * 2048 * 2048 / (8 * 2) / 2 / (0.5 * 989e12);
  ASSERT_GT(exchange, attention);
  EXPECT_NEAR(out[M::cp_comm_s], 3 * 20 * 64 * (exchange - attention), 1e-12);
  EXPECT_NEAR(out[M::step_time_s], out[M::compute_s] + out[M::optimizer_s] + out[M::bubble_s] + out[M::tp_comm_s] +
                                       out[M::pp_comm_s] + out[M::dp_comm_s] + out[M::cp_comm_s],
              1e-12);
  // Full recomputation replays the forward exchange: 4 per layer.
  in.values[P::recompute] = 2;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::cp_comm_s], 4 * 20 * 64 * (exchange - attention), 1e-12);
}

TEST_F(ContextParallelTest, ImpossibleLayoutsAreInfeasible) {
  // 1,024 is not a multiple of 8 x 4 x 3.
  EXPECT_EQ(solver.evaluate(point(8, 4, 3), out).reason, TrainingSolver::tp_pp_cp_do_not_divide_gpus);
  // TP 4 x CP 3 = 12 GPUs and 8-GPU nodes do not nest.
  PointInputs twelve = point(4, 1, 3);
  twelve.values[P::gpus] = 96;
  twelve.values[P::global_batch] = 8;
  EXPECT_EQ(solver.evaluate(twelve, out).reason, TrainingSolver::tp_cp_and_node_do_not_nest);
  // TP 8 x CP 3 = 24 nests with 8, but 2,048 tokens do not split into 2 x 3 chunks.
  PointInputs three = point(8, 1, 3);
  three.values[P::gpus] = 96;
  three.values[P::global_batch] = 8;
  const PointResult r = solver.evaluate(three, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::cp_must_divide_sequence);
  // CP 1,024 over 2,048 tokens: two tokens per rank, feasible as a layout.
  PointInputs wide = point(1, 1, 1024);
  wide.values[P::global_batch] = 1;
  EXPECT_NE(solver.evaluate(wide, out).status, PointStatus::error);
}

}  // namespace
}  // namespace dsx
