// Pipeline and context-parallel point-to-point traffic of the training solver on a torus node
// (engine/solvers/training.hpp, engine/torus.hpp torus_block_hop_s): stages and CP ranks are
// neighbouring blocks of the torus, and every chip's transfer crosses the face between two of them.
// Checked by counting the face's links by hand, and against a switched node whose per-chip link is
// the face's share (the cost must then be the same), on H100-class chips (450 GB/s one way per chip,
// a 2D torus's 4 links at 112.5 GB/s each).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kChipLink = 450e9, kLink = kChipLink / 4, kAlpha = 0.5e-6;

class TrainingTorusP2p : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  // Llama 3 8B on 64 chips of a 256-chip node: a 16 x 16 torus, or switched when `torus` is false.
  PointInputs layout(double tp, double pp, double cp, bool torus, const HardwareSpec& chip) const {
    PointInputs in;
    in.hardware = &chip;
    in.model = &llama8b;
    set_defaults(solver, in);
    in.values[P::gpus] = 64;
    in.values[P::gpus_per_node] = 256;
    in.values[P::tp] = tp;
    in.values[P::pp] = pp;
    in.values[P::cp] = cp;
    in.values[P::micro_batch] = 1;
    in.values[P::global_batch] = 64 / (tp * pp * cp) * 4;
    in.values[P::torus_x] = torus ? 16 : 0;
    in.values[P::torus_y] = torus ? 16 : 0;
    return in;
  }
};

// tp 4, pp 2: a stage is 32 chips, a 2 x 16 block (wrapped along its 16); the next stage is the
// next two rows, 16 links for 32 chips: every chip gets half a link, 56.25 GB/s, where a switched
// node gives it 450 GB/s. Two transfers (activation forward, gradient back) per micro-batch.
TEST_F(TrainingTorusP2p, StagesCrossTheFaceBetweenTheirBlocks) {
  PointInputs in = layout(4, 2, 1, true, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double m = out[M::microbatches];
  const double message = 2048.0 * 4096 * 2 / 4;
  EXPECT_NEAR(out[M::pp_comm_s], 2 * m * (kAlpha + message / (kLink / 2)), 1e-12);
  const std::vector<double> torus = out;
  in = layout(4, 2, 1, false, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::pp_comm_s], 2 * m * (kAlpha + message / kChipLink), 1e-12);
  EXPECT_DOUBLE_EQ(out[M::compute_s], torus[M::compute_s]);
}

// A switched node whose chips have the face's share as their link pays the same for the pipeline.
TEST_F(TrainingTorusP2p, AStageHopCostsWhatASwitchAtTheFacesShareCosts) {
  HardwareSpec face = hw;
  face.accelerator_link_bandwidth_bytes_per_s = kLink / 2;
  PointInputs in = layout(4, 2, 1, true, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double torus_pp = out[M::pp_comm_s];
  in = layout(4, 2, 1, false, face);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::pp_comm_s], torus_pp, 1e-15);
}

// tp 4, cp 4: a TP group is a 2 x 2 block (its all-reduce beats a 1 x 4 line's, which has no
// wraparound), and each ring-attention step sends the K/V chunk across a face of 2 links shared by
// the block's 4 chips: 56.25 GB/s per chip. The exposed exchange equals a switched node's at that
// link, and exceeds it at the whole 450 GB/s.
TEST_F(TrainingTorusP2p, TheContextParallelRingCrossesTheFacesBetweenTpBlocks) {
  HardwareSpec face = hw;
  face.accelerator_link_bandwidth_bytes_per_s = kLink / 2;
  PointInputs in = layout(4, 1, 4, true, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double torus_cp = out[M::cp_comm_s];
  EXPECT_GT(torus_cp, 0);
  in = layout(4, 1, 4, false, face);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::cp_comm_s], torus_cp, 1e-12 * torus_cp);
  in = layout(4, 1, 4, false, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_LT(out[M::cp_comm_s], torus_cp);
}

// Megatron-LM's tp-cp-ep-pp-dp on a torus node: a pipeline of tp 4 x pp 2 = 8 chips is a 2 x 4
// (or 4 x 2) block of the 16 x 16, its stages 2 x 2 blocks one face of 2 links apart: again half a
// link per chip. Its 8 DP peers, 8 chips apart, are the peers of those blocks.
TEST_F(TrainingTorusP2p, PipelinesInsideDataParallelismAreBlocksOfTheTorus) {
  PointInputs in = layout(4, 2, 1, true, hw);
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double m = out[M::microbatches];
  const double message = 2048.0 * 4096 * 2 / 4;
  EXPECT_NEAR(out[M::pp_comm_s], 2 * m * (kAlpha + message / (kLink / 2)), 1e-12);
  EXPECT_GT(out[M::dp_comm_s], 0);
}

// With cp 2 as well (tp 4, cp 2, pp 2, dp 4 in the pipeline-inside order), the gradient all-reduce
// runs over 8 ranks in the node that are not one strided group: the 2 cp ranks, 4 apart (the peers of
// 2 x 2 TP blocks in a 2 x 4 block: a ring of 2 along the second dimension at half a link), and the 4
// dp ranks, 16 apart (the peers of wrapped 1 x 16 pipelines in a 4 x 16 block: a ring of 4 along the
// first dimension without wraparound at a whole link). One schedule over both rings (engine/torus.hpp
// torus_product_reduce_scatter_s), two parts of G / 2: phase one 1/2 x G/2 / (L/2) on the cp ring
// while 3/4 x G/2 / L runs on the dp ring's other links, phase two 3/4 x G/4 / L and 1/2 x G/8 / (L/2):
// G/L x (1/2 + 3/16) and 3 + 3 hops per reduce-scatter, against G/L x (1 + 3/8) one group after the
// other; then the all-gather back.
TEST_F(TrainingTorusP2p, CpAndDpPeersOfPipelinesReduceAsOneSchedule) {
  PointInputs in = layout(4, 2, 2, true, hw);
  in.values[P::rank_order] = 1;
  in.values[P::overlap] = 0;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  ASSERT_EQ(out[M::dp], 4);
  const double gradients = llama8b.serving_shape.parameter_count / 8 * 2;
  const double reduce_scatter_s = (0.5 + 3.0 / 16) * gradients / kLink + 6 * kAlpha;
  EXPECT_NEAR(out[M::dp_comm_s], 2 * reduce_scatter_s, 1e-12 * out[M::dp_comm_s]);
  const double one_after_the_other = 0.5 * gradients / (kLink / 2) + kAlpha + 0.75 * (gradients / 2) / kLink + 3 * kAlpha;
  EXPECT_LT(out[M::dp_comm_s], 2 * one_after_the_other);
  // Without a pipeline the two orders are one order: the same step.
  in = layout(4, 1, 2, true, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> outer = out;
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_EQ(out[M::step_time_s], outer[M::step_time_s]);
}

// pp-tp-cp-ep-dp on the 16 x 16 torus, tp 4 and pp 2: a TP group's ranks are 2 apart, the peers of
// the 1 x 2 pipelines in a 2 x 4 block: a 2 x 2 strided torus without wraparound whose hops cross
// one link along the first dimension (L) and two along the second, shared by the two interleaved
// groups (L / 2). Its reduce-scatter, two parts of S / 2: max(1/2 x S/2 / L, 1/2 x S/2 / (L/2)) then
// max(1/2 x S/4 / (L/2), 1/2 x S/4 / L), 3/4 S / L and 2 hops; the all-reduce twice that. Megatron-Core's
// order puts the 4 ranks in a 2 x 2 block at L a link: 3/8 S / L per reduce-scatter, half as long.
TEST_F(TrainingTorusP2p, AStridedTpGroupIsThePeersOfTheBlocksInsideIt) {
  const auto choices = solver.params()[P::rank_order].choices;
  const auto stages_inside = std::find(choices.begin(), choices.end(), "pp-tp-cp-ep-dp");
  ASSERT_NE(stages_inside, choices.end());
  PointInputs in = layout(4, 2, 1, true, hw);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> megatron = out;
  in.values[P::rank_order] = static_cast<double>(stages_inside - choices.begin());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double m = out[M::microbatches];
  const double activation = 2048.0 * 4096 * 2;
  // 4 all-reduces per layer (selective recomputation), 16 layers per stage.
  const double strided = 4 * 16 * m * (2 * (0.75 * activation / kLink + 2 * kAlpha));
  const double block = 4 * 16 * m * (2 * (0.375 * activation / kLink + 2 * kAlpha));
  EXPECT_NEAR(out[M::tp_comm_s], strided, 1e-9 * strided);
  EXPECT_NEAR(megatron[M::tp_comm_s], block, 1e-9 * block);
}

}  // namespace
}  // namespace dsx
