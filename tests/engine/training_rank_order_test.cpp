// Which groups share a node (engine/solvers/training.hpp, `rank_order`): Megatron-Core's default
// order tp-cp-ep-dp-pp puts pipeline stages outermost, and tp-cp-ep-pp-dp (NVIDIA Megatron-LM
// --use-tp-pp-dp-mapping, megatron/training/initialize.py) puts a whole pipeline of tp x cp x pp
// consecutive ranks in a node when it fits. Checked by hand with the ring formulas of
// engine/collectives.hpp on 8-GPU H100 nodes (NVLink 450 GB/s, 0.5 us; NIC 50 GB/s, 5 us).
#include <gtest/gtest.h>

#include <vector>

#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kNvlink = 450e9, kNvlinkAlpha = 0.5e-6, kNic = 50e9, kNicAlpha = 5e-6;

double ring_all_reduce_s(double bytes, double ranks, double bandwidth, double alpha) {
  return ranks <= 1 ? 0.0 : 2 * (ranks - 1) / ranks * bytes / bandwidth + 2 * (ranks - 1) * alpha;
}
double reduce_scatter_s(double bytes, double ranks, double bandwidth, double alpha) {
  return ranks <= 1 ? 0.0 : (ranks - 1) / ranks * bytes / bandwidth + (ranks - 1) * alpha;
}

class TrainingRankOrder : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  // Llama 3 70B on 64 H100s (8 nodes of 8): tp 2, pp 4, dp 8, 8 micro-batches of one 2,048-token sequence.
  PointInputs layout() const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &llama70b;
    set_defaults(solver, in);
    in.values[P::gpus] = 64;
    in.values[P::tp] = 2;
    in.values[P::pp] = 4;
    in.values[P::micro_batch] = 1;
    in.values[P::global_batch] = 64;
    return in;
  }
};

TEST_F(TrainingRankOrder, PipelinesInsideANodeMoveTheGradientsOntoTheNics) {
  PointInputs in = layout();
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> outer = out;
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);

  // Each micro-batch sends its activation (b s h x 2 B / tp) forward and its gradient back:
  // across nodes with stages outermost, inside the node with 2 x 4 = 8 ranks per pipeline.
  const double message = 2048.0 * 8192 * 2 / 2;
  EXPECT_NEAR(outer[M::pp_comm_s], 2 * 8 * (kNicAlpha + message / kNic), 1e-12);
  EXPECT_NEAR(out[M::pp_comm_s], 2 * 8 * (kNvlinkAlpha + message / kNvlink), 1e-12);

  // The bf16 gradient shard (P / (tp pp) x 2 B) over 8 DP ranks: 4 per node, 2 apart, with stages
  // outermost (reduce-scatter and all-gather on NVLink, a 2-node ring of a quarter of it on the
  // NICs); one per node with pipelines inside (an 8-node ring on the NICs).
  const double gradients = llama70b.serving_shape.parameter_count / 8 * 2;
  const double outer_dp = 2 * reduce_scatter_s(gradients, 4, kNvlink, kNvlinkAlpha) +
                          ring_all_reduce_s(gradients / 4, 2, kNic, kNicAlpha);
  const double inner_dp = ring_all_reduce_s(gradients, 8, kNic, kNicAlpha);
  EXPECT_NEAR(outer[M::dp_comm_s], outer_dp, 1e-9 * outer_dp);
  EXPECT_NEAR(out[M::dp_comm_s], inner_dp, 1e-9 * inner_dp);
  EXPECT_GT(out[M::dp_comm_s], outer[M::dp_comm_s]);

  // Nothing else moves: TP stays in the node and the compute is the same.
  EXPECT_DOUBLE_EQ(out[M::tp_comm_s], outer[M::tp_comm_s]);
  EXPECT_DOUBLE_EQ(out[M::compute_s], outer[M::compute_s]);
  EXPECT_NEAR(out[M::step_time_s] - outer[M::step_time_s],
              (out[M::pp_comm_s] - outer[M::pp_comm_s]) + (out[M::dp_comm_s] - outer[M::dp_comm_s]), 1e-9);
}

TEST_F(TrainingRankOrder, APipelineLongerThanTheNodeStaysOnTheNic) {
  // tp 4 x pp 4 = 16 ranks per pipeline: two nodes, so stage neighbours still cross the NIC, and a
  // node's 8 ranks hold no two DP peers (16 apart).
  PointInputs in = layout();
  in.values[P::tp] = 4;
  in.values[P::global_batch] = 32;
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double message = 2048.0 * 8192 * 2 / 4;
  EXPECT_NEAR(out[M::pp_comm_s], 2 * 8 * (kNicAlpha + message / kNic), 1e-12);
  const double gradients = llama70b.serving_shape.parameter_count / 16 * 2;
  const double dp_s = ring_all_reduce_s(gradients, 4, kNic, kNicAlpha);
  EXPECT_NEAR(out[M::dp_comm_s], dp_s, 1e-9 * dp_s);
}

TEST_F(TrainingRankOrder, TheDefaultIsMegatronsOrder) {
  const PointInputs in = layout();
  EXPECT_EQ(in.values[P::rank_order], 0);
}

// On a 2 x 2 x 2 torus node (450 GB/s per chip over 6 links: 75 GB/s each) a pipeline of tp 2 x pp 4
// fills the node: its stages are pairs of chips whose neighbours are one link away (S / 75 GB/s), and
// its DP peers, 8 apart, are one per node on the NICs, as on a switched node.
TEST_F(TrainingRankOrder, ATorusNodeHoldsAWholePipeline) {
  PointInputs in = layout();
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> switched = out;
  in.values[P::torus_x] = 2;
  in.values[P::torus_y] = 2;
  in.values[P::torus_z] = 2;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double message = 2048.0 * 8192 * 2 / 2;
  EXPECT_NEAR(out[M::pp_comm_s], 2 * 8 * (kNvlinkAlpha + message / 75e9), 1e-12);
  EXPECT_DOUBLE_EQ(out[M::dp_comm_s], switched[M::dp_comm_s]);
}

}  // namespace
}  // namespace dsx
