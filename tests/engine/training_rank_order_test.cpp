// Which groups share a node (engine/solvers/training.hpp, `rank_order`): Megatron-Core's default
// order tp-cp-ep-dp-pp puts pipeline stages outermost, and tp-cp-ep-pp-dp (NVIDIA Megatron-LM
// --use-tp-pp-dp-mapping, megatron/training/initialize.py) puts a whole pipeline of tp x cp x pp
// consecutive ranks in a node when it fits; any other order of the five groups places them the same
// way: a group whose ranks span at most a node talks on NVLink, the others on the NIC, as Calculon
// lets each of TP, PP and DP pick its network tier (calculon-ai/calculon calculon/llm/llm.py,
// _check_network_assignments). Checked by hand with the ring formulas of engine/collectives.hpp on
// 8-GPU H100 nodes (NVLink 450 GB/s, 0.5 us; NIC 50 GB/s, 5 us).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <string_view>
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

class TrainingRankOrders : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  double order(std::string_view name) const {
    const auto choices = solver.params()[P::rank_order].choices;
    const auto it = std::find(choices.begin(), choices.end(), name);
    EXPECT_NE(it, choices.end()) << name;
    return static_cast<double>(it - choices.begin());
  }

  // Llama 3 70B on 64 H100s (8 nodes of 8): tp 2, pp 8, dp 4, 16 micro-batches of one 2,048-token sequence.
  PointInputs layout(std::string_view rank_order) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &llama70b;
    set_defaults(solver, in);
    in.values[P::gpus] = 64;
    in.values[P::tp] = 2;
    in.values[P::pp] = 8;
    in.values[P::micro_batch] = 1;
    in.values[P::global_batch] = 64;
    in.values[P::rank_order] = order(rank_order);
    return in;
  }
};

TEST_F(TrainingRankOrders, EveryOrderOfTheFiveGroupsOnceMegatronsTwoFirst) {
  const auto choices = solver.params()[P::rank_order].choices;
  ASSERT_EQ(choices.size(), 120u);
  EXPECT_EQ(choices[0], "tp-cp-ep-dp-pp");
  EXPECT_EQ(choices[1], "tp-cp-ep-pp-dp");
  std::set<std::string> seen;
  for (const std::string_view c : choices) {
    ASSERT_EQ(c.size(), 14u) << c;
    std::vector<std::string> groups;
    for (std::size_t i = 0; i < 5; ++i) groups.emplace_back(c.substr(3 * i, 2));
    std::sort(groups.begin(), groups.end());
    EXPECT_EQ(groups, (std::vector<std::string>{"cp", "dp", "ep", "pp", "tp"})) << c;
    seen.emplace(c);
  }
  EXPECT_EQ(seen.size(), 120u);
}

// pp-tp-cp-ep-dp: a pipeline's 8 stages are a node's 8 GPUs (NVLink), the 2 TP ranks 8 apart are in
// two nodes (a ring of 2 on the NICs), and the 4 DP peers 16 apart are one per node.
TEST_F(TrainingRankOrders, StagesInsideTheNodeAndTensorParallelismAcrossNodes) {
  PointInputs in = layout("pp-tp-cp-ep-dp");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> inside = out;
  in = layout("tp-cp-ep-dp-pp");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> megatron = out;
  ASSERT_EQ(inside[M::dp], 4);
  ASSERT_EQ(inside[M::microbatches], 16);

  // Pipeline: 2 transfers of b s h x 2 B / tp per micro-batch.
  const double stage_message = 2048.0 * 8192 * 2 / 2;
  EXPECT_NEAR(inside[M::pp_comm_s], 2 * 16 * (kNvlinkAlpha + stage_message / kNvlink), 1e-12);
  EXPECT_NEAR(megatron[M::pp_comm_s], 2 * 16 * (kNicAlpha + stage_message / kNic), 1e-12);
  // TP: 4 all-reduces of b s h x 2 B per layer (selective recomputation) for the stage's 10 layers
  // and 16 micro-batches: a ring of 2 on the NICs against one on NVLink.
  const double activation = 2048.0 * 8192 * 2;
  const double tp_nic = 4 * 10 * 16 * ring_all_reduce_s(activation, 2, kNic, kNicAlpha);
  EXPECT_NEAR(inside[M::tp_comm_s], tp_nic, 1e-9 * tp_nic);
  const double tp_nvlink = 4 * 10 * 16 * ring_all_reduce_s(activation, 2, kNvlink, kNvlinkAlpha);
  EXPECT_NEAR(megatron[M::tp_comm_s], tp_nvlink, 1e-9 * tp_nvlink);
  // DP: the bf16 gradient shard P / (tp pp) x 2 B over 4 peers, one per node (a 4-node ring on the
  // NICs); in Megatron-Core's order 4 in one node (2 apart: reduce-scatter and all-gather on NVLink).
  const double gradients = llama70b.serving_shape.parameter_count / 16 * 2;
  const double dp_nic = ring_all_reduce_s(gradients, 4, kNic, kNicAlpha);
  EXPECT_NEAR(inside[M::dp_comm_s], dp_nic, 1e-9 * dp_nic);
  const double dp_nvlink = ring_all_reduce_s(gradients, 4, kNvlink, kNvlinkAlpha);
  EXPECT_NEAR(megatron[M::dp_comm_s], dp_nvlink, 1e-9 * dp_nvlink);

  EXPECT_DOUBLE_EQ(inside[M::compute_s], megatron[M::compute_s]);
  EXPECT_NEAR(inside[M::step_time_s] - megatron[M::step_time_s],
              (tp_nic - tp_nvlink) + (dp_nic - dp_nvlink) + (inside[M::pp_comm_s] - megatron[M::pp_comm_s]),
              1e-9 * inside[M::step_time_s]);
}

// dp-tp-cp-ep-pp with dp 4: the data-parallel peers are 4 consecutive GPUs of a node, their
// gradient all-reduce a ring of 4 on NVLink; TP (4 apart) and the stages (8 apart) stay in the node
// for tp 2 and cross it for pp 8.
TEST_F(TrainingRankOrders, DataParallelismInsideTheNode) {
  PointInputs in = layout("dp-tp-cp-ep-pp");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double gradients = llama70b.serving_shape.parameter_count / 16 * 2;
  const double dp_nvlink = ring_all_reduce_s(gradients, 4, kNvlink, kNvlinkAlpha);
  EXPECT_NEAR(out[M::dp_comm_s], dp_nvlink, 1e-9 * dp_nvlink);
  const double tp_nvlink = 4 * 10 * 16 * ring_all_reduce_s(2048.0 * 8192 * 2, 2, kNvlink, kNvlinkAlpha);
  EXPECT_NEAR(out[M::tp_comm_s], tp_nvlink, 1e-9 * tp_nvlink);
  EXPECT_NEAR(out[M::pp_comm_s], 2 * 16 * (kNicAlpha + 2048.0 * 8192 / kNic), 1e-12);
}

// A group that would straddle nodes unevenly cannot be placed: pp 3 innermost is not a divisor of
// the 8-GPU node (48 GPUs, tp 2, pp 3, dp 8), while Megatron-Core's order places the same point.
TEST_F(TrainingRankOrders, AGroupThatDoesNotNestWithTheNodeIsInfeasible) {
  PointInputs in = layout("pp-tp-cp-ep-dp");
  in.values[P::gpus] = 48;
  in.values[P::pp] = 3;
  in.values[P::zero_stage] = 3;
  const PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::rank_order_does_not_nest);
  EXPECT_NE(solver.reasons()[r.reason].find("rank_order"), std::string_view::npos);
  in.values[P::rank_order] = 0;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
}

// Groups of one rank do not move anything: with cp 1 and ep 1 the orders that differ only in where
// cp and ep sit are Megatron-Core's, to the last bit.
TEST_F(TrainingRankOrders, OrdersThatDifferOnlyInGroupsOfOneAreTheSame) {
  PointInputs in = layout("tp-cp-ep-dp-pp");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> megatron = out;
  for (const std::string_view name : {"cp-ep-tp-dp-pp", "tp-dp-cp-ep-pp", "ep-tp-dp-cp-pp"}) {
    in = layout(name);
    ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok) << name;
    for (std::size_t m = 0; m < out.size(); ++m) {
      if (std::isnan(megatron[m])) continue;
      EXPECT_EQ(out[m], megatron[m]) << name << " metric " << m;
    }
  }
}

}  // namespace
}  // namespace dsx
