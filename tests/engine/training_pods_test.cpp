// A third network tier (engine/solvers/training.hpp, pods: gpus_per_pod, dcn_bandwidth, dcn_latency):
// pods of whole nodes on the NIC fabric, joined by a slower data-centre network. A group that spans
// pods runs on it; the DP all-reduce of a group that spans pods is the 2D all-reduce of Ying et al.,
// arXiv:1811.06992 (reduce-scatter inside the pod, all-reduce across pods, all-gather inside the pod;
// engine/collectives.hpp cross_pod_all_reduce_s). Checked by hand with the ring formulas of Thakur et
// al. 2005 / Patarasuk and Yuan 2009 on 8-GPU H100 nodes (NVLink 450 GB/s, 0.5 us; NIC 50 GB/s,
// 5 us) in pods of 4 nodes, with a data-centre network of 50 Gb/s = 6.25 GB/s per GPU (TPU v5p's DCN
// per chip, docs.cloud.google.com/tpu/docs/v5p) and 20 us per step.
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kNvlink = 450e9, kNvlinkAlpha = 0.5e-6, kNic = 50e9, kNicAlpha = 5e-6;
constexpr double kDcn = 50e9 / 8, kDcnAlpha = 20e-6;

double ring(double bytes, double ranks, double bandwidth, double alpha) {
  return ranks <= 1 ? 0.0 : 2 * (ranks - 1) / ranks * bytes / bandwidth + 2 * (ranks - 1) * alpha;
}
double half_ring(double bytes, double ranks, double bandwidth, double alpha) {
  return ranks <= 1 ? 0.0 : (ranks - 1) / ranks * bytes / bandwidth + (ranks - 1) * alpha;
}

TEST(CrossPodAllReduce, AddsTheRingAcrossPodsOfTheShareEachPodRankHolds) {
  // 1 GB over 2 pods of 32 ranks (4 nodes of 8): the in-pod schedule as given, plus 32 rings of
  // 1 GB / 32 across the 2 pods.
  const double in_pod_s = 0.125;
  EXPECT_DOUBLE_EQ(cross_pod_all_reduce_s(in_pod_s, 1e9, 32, 2, kDcn, kDcnAlpha),
                   0.125 + 2 * 0.5 * (1e9 / 32) / kDcn + 2 * kDcnAlpha);
  EXPECT_DOUBLE_EQ(cross_pod_all_reduce_s(in_pod_s, 1e9, 32, 1, kDcn, kDcnAlpha), in_pod_s);
}

TEST(CrossPodAllReduce, MovesTheBytesOfOneFlatRingWhenTheTiersAreAlike) {
  // Bandwidth-optimal (Patarasuk and Yuan): with the data-centre network as fast as the NICs and no
  // latency, reducing inside 4 nodes and then across 2 pods moves 2 (N-1)/N S / B like one ring of 8.
  HierarchicalFabric f;
  f.gpus_per_node = 1;
  f.intra_bandwidth_bytes_per_s = kNvlink;
  f.nic_bandwidth_bytes_per_s = kNic;
  f.nics_per_node = 1;
  const double bytes = 1e9;
  const double two_tier = cross_pod_all_reduce_s(hierarchical_all_reduce_s(bytes, 4, f), bytes, 4, 2, kNic, 0.0);
  EXPECT_NEAR(two_tier, hierarchical_all_reduce_s(bytes, 8, f), 1e-12);
  EXPECT_NEAR(two_tier, 2 * 7.0 / 8 * bytes / kNic, 1e-12);
}

class TrainingPods : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  // Llama 3 70B on 64 H100s (8 nodes of 8): tp 2, pp 4, dp 8, 8 micro-batches of one 2,048-token
  // sequence; pods of 32 GPUs when `pods` is set.
  PointInputs layout(bool pods) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &llama70b;
    set_defaults(solver, in);
    in.values[P::gpus] = 64;
    in.values[P::tp] = 2;
    in.values[P::pp] = 4;
    in.values[P::micro_batch] = 1;
    in.values[P::global_batch] = 64;
    if (pods) {
      in.values[P::gpus_per_pod] = 32;
      in.values[P::dcn_bandwidth] = kDcn;
      in.values[P::dcn_latency] = kDcnAlpha;
    }
    return in;
  }
  double gradients() const { return llama70b.serving_shape.parameter_count / 8 * 2; }
};

TEST_F(TrainingPods, TheTierIsOffByDefaultAndAJobInsideOnePodNeverUsesIt) {
  PointInputs in = layout(false);
  EXPECT_EQ(in.values[P::gpus_per_pod], 0);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> one_fabric = out;
  // A pod of all 64 GPUs: every group is inside it.
  in = layout(true);
  in.values[P::gpus_per_pod] = 64;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_EQ(out[M::step_time_s], one_fabric[M::step_time_s]);
  EXPECT_EQ(out[M::dp_comm_s], one_fabric[M::dp_comm_s]);
  EXPECT_EQ(out[M::pp_comm_s], one_fabric[M::pp_comm_s]);
}

// Megatron-Core's default order tp-cp-ep-dp-pp: the 8 DP peers, 2 apart, span 16 ranks (inside a pod
// of 32: 4 in a node on NVLink, then a 2-node ring on the NICs, as without pods), while the 4 stages,
// 16 apart, span all 64 ranks: every pipeline crosses the two pods, on the data-centre network.
TEST_F(TrainingPods, AGroupInsideAPodStaysAndAPipelineAcrossPodsTakesTheDataCentreNetwork) {
  PointInputs in = layout(true);
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double message = 2048.0 * 8192 * 2 / 2;
  EXPECT_NEAR(out[M::pp_comm_s], 2 * 8 * (kDcnAlpha + message / kDcn), 1e-12);
  const double dp_s = 2 * half_ring(gradients(), 4, kNvlink, kNvlinkAlpha) + ring(gradients() / 4, 2, kNic, kNicAlpha);
  EXPECT_NEAR(out[M::dp_comm_s], dp_s, 1e-9 * dp_s);
  // TP (a pair of neighbours) stays on NVLink: 4 all-reduces per layer, 20 layers, 8 micro-batches.
  const double tp_s = 4 * 20 * 8 * ring(2048.0 * 8192 * 2, 2, kNvlink, kNvlinkAlpha);
  EXPECT_NEAR(out[M::tp_comm_s], tp_s, 1e-9 * tp_s);
}

// NVIDIA Megatron-LM's --use-tp-pp-dp-mapping order tp-cp-ep-pp-dp: a pipeline is tp x pp = 8 ranks,
// one node, and the 8 DP peers are 8 apart, one per node: 4 in each pod. The gradients reduce-scatter
// over a pod's 4 nodes on the NICs, 4 rings of a quarter of them all-reduce across the 2 pods on
// the data-centre network, and they all-gather back on the NICs.
TEST_F(TrainingPods, DataParallelismAcrossPodsIsTheTwoDimensionalAllReduce) {
  PointInputs in = layout(true);
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> pods = out;
  in = layout(false);
  in.values[P::rank_order] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const std::vector<double> one_fabric = out;

  const double across_pods = ring(gradients(), 4, kNic, kNicAlpha) + ring(gradients() / 4, 2, kDcn, kDcnAlpha);
  EXPECT_NEAR(pods[M::dp_comm_s], across_pods, 1e-9 * across_pods);
  const double flat = ring(gradients(), 8, kNic, kNicAlpha);
  EXPECT_NEAR(one_fabric[M::dp_comm_s], flat, 1e-9 * flat);
  // The pipeline stays in its node on NVLink.
  const double message = 2048.0 * 8192 * 2 / 2;
  EXPECT_NEAR(pods[M::pp_comm_s], 2 * 8 * (kNvlinkAlpha + message / kNvlink), 1e-12);
  EXPECT_NEAR(pods[M::step_time_s] - one_fabric[M::step_time_s], pods[M::dp_comm_s] - one_fabric[M::dp_comm_s],
              1e-9);
}

// pp-dp-tp-cp-ep: the 4 stages (1 apart) and the 8 DP peers (4 apart) fill a pod of 32 ranks, and
// each TP pair is 32 apart: one rank in each pod, a ring of 2 on the data-centre network.
TEST_F(TrainingPods, ATensorParallelGroupAcrossPodsRingsOnTheDataCentreNetwork) {
  PointInputs in = layout(true);
  const auto choices = solver.params()[P::rank_order].choices;
  const auto it = std::find(choices.begin(), choices.end(), std::string_view("pp-dp-tp-cp-ep"));
  ASSERT_NE(it, choices.end());
  in.values[P::rank_order] = static_cast<double>(it - choices.begin());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double tp_s = 4 * 20 * 8 * ring(2048.0 * 8192 * 2, 2, kDcn, kDcnAlpha);
  EXPECT_NEAR(out[M::tp_comm_s], tp_s, 1e-9 * tp_s);
  // The stages are neighbours in a node (NVLink); the DP peers, 4 apart, 2 per node over 4 nodes.
  const double message = 2048.0 * 8192 * 2 / 2;
  EXPECT_NEAR(out[M::pp_comm_s], 2 * 8 * (kNvlinkAlpha + message / kNvlink), 1e-12);
  const double dp_s = 2 * half_ring(gradients(), 2, kNvlink, kNvlinkAlpha) + ring(gradients() / 2, 4, kNic, kNicAlpha);
  EXPECT_NEAR(out[M::dp_comm_s], dp_s, 1e-9 * dp_s);
}

TEST_F(TrainingPods, AJobAcrossPodsWithoutTheDataCentreNetworkIsRefused) {
  PointInputs in = layout(true);
  in.values[P::dcn_bandwidth] = 0;
  PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::pods_need_dcn);
  EXPECT_NE(solver.reasons()[r.reason].find("dcn_bandwidth"), std::string_view::npos);
  in = layout(true);
  in.values[P::dcn_latency] = 0;
  r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::pods_need_dcn);
  // Inside one pod nothing needs it.
  in.values[P::gpus_per_pod] = 64;
  in.values[P::dcn_bandwidth] = 0;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
}

TEST_F(TrainingPods, APodOfPartNodesOrOfPartBlocksIsRefused) {
  PointInputs in = layout(true);
  in.values[P::gpus_per_pod] = 12;  // a node and a half
  PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::pod_does_not_nest);
  // tp 2 x dp 8 = 16 consecutive ranks below the stages: a pod of 24 GPUs (3 nodes) would cut one.
  in.values[P::gpus] = 48;
  in.values[P::global_batch] = 48;
  in.values[P::pp] = 3;
  in.values[P::gpus_per_pod] = 24;
  r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::pod_does_not_nest);
  EXPECT_NE(solver.reasons()[r.reason].find("gpus_per_pod"), std::string_view::npos);
}

}  // namespace
}  // namespace dsx
