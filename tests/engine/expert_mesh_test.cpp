// The expert mesh of the training solver (engine/solvers/training.hpp): the hierarchical all-to-all of
// an EP group that spans nodes or pods (ep_all_to_all; Tutel's 2DH all-to-all, Hwang et al.,
// arXiv:2206.03382; engine/collectives.hpp hierarchical_all_to_all_s) and the expert tensor-parallel
// degree etp in {tp, 1} (pytorch/torchtitan torchtitan/distributed/parallel_dims.py), with Megatron-Core's
// all-gather and reduce-scatter of the routed tokens over the expert-TP group under etp tp
// (megatron/core/transformer/moe/token_dispatcher.py), and DeepSeek-V3's node-limited routing
// (arXiv:2412.19437, section 3.2.2; max_nodes_per_token). Checked by hand
// with the pairwise all-to-all (N-1)/N S/B + (N-1) alpha of Thakur et al. 2005 on H100 nodes (NVLink
// 450 GB/s one-way, 0.5 us; NIC 50 GB/s, 5 us) and Mixtral 8x7B (8 experts, 2 per token, d 4,096,
// 32 layers, sequences of 2,048).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kNvlink = 450e9, kNvlinkAlpha = 0.5e-6, kNic = 50e9, kNicAlpha = 5e-6;
constexpr double kDcn = 50e9 / 8, kDcnAlpha = 20e-6;

TEST(HierarchicalAllToAll, SumsOnePairwiseExchangePerTier) {
  // 32 ranks, 8 per node over 4 nodes, 16 MiB per rank: 7/8 of it over NVLink in 7 steps, then 3/4 of
  // it over the NIC in 3 steps.
  const double s = 16777216;
  const std::array<AllToAllTier, 2> tiers = {{{8, kNvlink, kNvlinkAlpha}, {4, kNic, kNicAlpha}}};
  const double nvlink_stage = 0.875 * s / kNvlink + 7 * kNvlinkAlpha;  // 32.62 us + 3.5 us
  const double nic_stage = 0.75 * s / kNic + 3 * kNicAlpha;             // 251.66 us + 15 us
  EXPECT_NEAR(nvlink_stage * 1e6, 36.12, 0.01);
  EXPECT_NEAR(nic_stage * 1e6, 266.66, 0.01);
  EXPECT_DOUBLE_EQ(hierarchical_all_to_all_s(s, tiers), nvlink_stage + nic_stage);
  // One tier is the flat exchange; a tier of one rank costs nothing.
  const std::array<AllToAllTier, 2> one = {{{32, kNic, kNicAlpha}, {1, kDcn, kDcnAlpha}}};
  EXPECT_DOUBLE_EQ(hierarchical_all_to_all_s(s, one), all_to_all_s(s, 32, kNic, kNicAlpha));
}

TEST(HierarchicalAllToAll, NodeLimitedRoutingSendsATokenOncePerNodeItReaches) {
  // DeepSeek-V3's layout: 64 EP ranks, 8 per node over 8 nodes, 8 routed experts per token, at most
  // M = 4 nodes. A 16 MiB buffer holds 8 copies of each token; across nodes only 4 of them travel.
  const double s = 16777216;
  const std::array<AllToAllTier, 2> tiers = {{{8, kNvlink, kNvlinkAlpha, true}, {8, kNic, kNicAlpha}}};
  const double nvlink_stage = 0.875 * s / kNvlink + 7 * kNvlinkAlpha;  // 32.62 us + 3.5 us: every copy
  const double unlimited_nic = 0.875 * s / kNic + 7 * kNicAlpha;       // 293.60 us + 35 us
  const double limited_nic = 0.875 * (s / 2) / kNic + 7 * kNicAlpha;   // 146.80 us + 35 us
  EXPECT_NEAR(unlimited_nic * 1e6, 328.60, 0.01);
  EXPECT_NEAR(limited_nic * 1e6, 181.80, 0.01);
  const TokenRouting deepseek = {.experts_per_token = 8, .max_nodes_per_token = 4};
  EXPECT_DOUBLE_EQ(hierarchical_all_to_all_s(s, tiers), nvlink_stage + unlimited_nic);
  EXPECT_DOUBLE_EQ(hierarchical_all_to_all_s(s, tiers, deepseek), nvlink_stage + limited_nic);
  // M >= k limits nothing; over 2 nodes a token reaches at most 2 of them: a quarter of the buffer
  // crosses, half of that to the other node.
  EXPECT_DOUBLE_EQ(hierarchical_all_to_all_s(s, tiers, {.experts_per_token = 8, .max_nodes_per_token = 8}),
                   nvlink_stage + unlimited_nic);
  const std::array<AllToAllTier, 2> two_nodes = {{{8, kNvlink, kNvlinkAlpha, true}, {2, kNic, kNicAlpha}}};
  EXPECT_DOUBLE_EQ(hierarchical_all_to_all_s(s, two_nodes, deepseek), nvlink_stage + 0.5 * (s / 4) / kNic + kNicAlpha);
}

TEST(HierarchicalAllToAll, SavesTheSlowTiersStepsOnSmallMessages) {
  // A tiny buffer: the flat exchange over 32 ranks pays 31 NIC steps (155 us), the hierarchy 7
  // NVLink steps and 3 NIC steps (18.5 us). A large one: the flat exchange prices 31/32 of it at the
  // NIC's rate, the hierarchy 3/4 at the NIC's and 7/8 at NVLink's.
  const std::array<AllToAllTier, 2> tiers = {{{8, kNvlink, kNvlinkAlpha}, {4, kNic, kNicAlpha}}};
  EXPECT_NEAR(all_to_all_s(0, 32, kNic, kNicAlpha) * 1e6, 155, 1e-9);
  EXPECT_NEAR(hierarchical_all_to_all_s(0, tiers) * 1e6, 18.5, 1e-9);
  const double big = 1e9;
  EXPECT_NEAR(all_to_all_s(big, 32, kNic, 0), 31.0 / 32 * big / kNic, 1e-12);
  EXPECT_NEAR(hierarchical_all_to_all_s(big, std::array<AllToAllTier, 2>{{{8, kNvlink, 0}, {4, kNic, 0}}}),
              0.875 * big / kNvlink + 0.75 * big / kNic, 1e-12);
}

class ExpertMesh : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel mixtral = [] {
    const auto v = published::mixtral_8x7b();
    return prepare_model(build_architecture("transformer", {v.begin(), v.end()}));
  }();
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);
  // Each GPU's dispatch: b s / tp tokens x k = 2 copies x d x 2 B.
  static constexpr double kBytesTp2 = 1 * 2048.0 / 2 * 2 * 4096 * 2;  // 16 MiB
  // 4 all-to-alls per MoE layer (dispatch and combine, forward and backward), 32 layers, 8 micro-batches.
  static constexpr double kCalls = 4.0 * 32 * 8;
  // etp tp, tp 2: each MoE layer all-gathers the 2 x 16 MiB of routed tokens the TP pair received and
  // reduce-scatters them after the experts (half of it each way over NVLink in 1 step), forward and
  // backward: 2 x 32 layers x 8 micro-batches. They replace the layer's feed-forward all-reduce of
  // b s h x 2 B = 16 MiB (one ring step each way).
  static constexpr double kGatherScatter = 2 * (0.5 * 2 * kBytesTp2 / 450e9 + 0.5e-6);  // 74.57 us + 1 us
  static constexpr double kFeedForwardAllReduce = 2 * 0.5 * 16777216.0 / 450e9 + 2 * 0.5e-6;
  static constexpr double kGatherCalls = 2.0 * 32 * 8;

  // 64 H100s, TP 2, PP 1 -> DP 32; 256 sequences of 1 -> 8 micro-batches; ZeRO-1.
  PointInputs point(double ep, double tp = 2) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &mixtral;
    set_defaults(solver, in);
    in.values[P::gpus] = 64;
    in.values[P::tp] = tp;
    in.values[P::pp] = 1;
    in.values[P::ep] = ep;
    in.values[P::global_batch] = 256;
    in.values[P::zero_stage] = 1;
    return in;
  }
  static double choice(const TrainingSolver& s, std::size_t param, std::string_view name) {
    const auto& c = s.params()[param].choices;
    return static_cast<double>(std::find(c.begin(), c.end(), name) - c.begin());
  }
};

TEST_F(ExpertMesh, FlatIsTheDefaultAndKeepsTheNicExchange) {
  EXPECT_EQ(solver.params()[P::ep_all_to_all].choices[0], "flat");
  EXPECT_EQ(solver.params()[P::etp].choices[0], "tp");
  ASSERT_EQ(solver.evaluate(point(8), out).status, PointStatus::ok);
  // ep 8, 2 apart: 16 ranks over 2 nodes, every one of the 7 steps on the NIC.
  EXPECT_NEAR(out[M::ep_comm_s], kCalls * (0.875 * kBytesTp2 / kNic + 7 * kNicAlpha) + kGatherCalls * kGatherScatter,
              1e-12);
}

TEST_F(ExpertMesh, EtpTpGathersTheRoutedTokensOverTheExpertTensorGroup) {
  ASSERT_EQ(solver.evaluate(point(8), out).status, PointStatus::ok);
  const double ep_tp = out[M::ep_comm_s], tp_tp = out[M::tp_comm_s];
  EXPECT_NEAR(kGatherScatter * 1e6, 75.57, 0.01);
  // Each of the 32 layers keeps its attention all-reduce, 2 per micro-batch (forward, backward).
  EXPECT_NEAR(tp_tp, 2 * 32 * 8 * kFeedForwardAllReduce, 1e-12);
  // ep 1 (no token dispatcher's all-to-all) keeps the dense feed-forward's all-reduce on every layer.
  PointInputs one = point(1);
  one.values[P::zero_stage] = 3;
  ASSERT_EQ(solver.evaluate(one, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::ep_comm_s], 0);
  EXPECT_NEAR(out[M::tp_comm_s], 4 * 32 * 8 * kFeedForwardAllReduce, 1e-12);
  // Full recomputation repeats the forward pair: 3 passes.
  PointInputs full = point(8);
  full.values[P::recompute] = 2;
  ASSERT_EQ(solver.evaluate(full, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::ep_comm_s], 6.0 * 32 * 8 * (0.875 * kBytesTp2 / kNic + 7 * kNicAlpha) + 3 * 32 * 8 * kGatherScatter,
              1e-12);
  EXPECT_GT(ep_tp, 0);
}

// tp_overlap hides the TP all-reduces and not the expert-TP all-gather and reduce-scatter: Megatron-Core's
// --tp-comm-overlap splits the TE linear layers' collectives only (the experts' TEGroupedLinear leaves
// its TP communication to the token dispatcher), and Combined 1F1B runs the gather and reduce-scatter
// on the compute stream with the experts (megatron/core/models/gpt/fine_grained_callables.py).
TEST_F(ExpertMesh, TpOverlapLeavesTheExpertTensorGatherAndScatterExposed) {
  const double exposed_ep = kCalls * (0.875 * kBytesTp2 / kNic + 7 * kNicAlpha) + kGatherCalls * kGatherScatter;
  for (const double overlap : {0.0, 0.5, 1.0}) {
    PointInputs in = point(8);
    in.values[P::tp_overlap] = overlap;
    ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok) << overlap;
    EXPECT_NEAR(out[M::ep_comm_s], exposed_ep, 1e-12) << overlap;
    EXPECT_NEAR(out[M::tp_comm_s], (1 - overlap) * 2 * 32 * 8 * kFeedForwardAllReduce, 1e-12) << overlap;
  }
}

TEST_F(ExpertMesh, HierarchicalExchangesInsideTheNodeThenAcrossNodes) {
  PointInputs in = point(8);
  in.values[P::ep_all_to_all] = choice(solver, P::ep_all_to_all, "hierarchical");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  // 4 EP ranks in each of 2 nodes: 3 NVLink steps of 3/4 of the buffer, then 1 NIC step of half of it.
  const double one = 0.75 * kBytesTp2 / kNvlink + 3 * kNvlinkAlpha + 0.5 * kBytesTp2 / kNic + kNicAlpha;
  EXPECT_NEAR(one * 1e6, 27.96 + 1.5 + 167.77 + 5, 0.01);
  EXPECT_NEAR(out[M::ep_comm_s], kCalls * one + kGatherCalls * kGatherScatter, 1e-12);
  // Node-limited routing at 1 node per token: Mixtral's 2 copies cross once, half the NIC stage's bytes.
  in.values[P::max_nodes_per_token] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::ep_comm_s], kCalls * (one - 0.5 * (kBytesTp2 / 2) / kNic) + kGatherCalls * kGatherScatter, 1e-12);
  in.values[P::max_nodes_per_token] = 0;
  // Inside one node the choice changes nothing.
  PointInputs in_node = point(4);
  ASSERT_EQ(solver.evaluate(in_node, out).status, PointStatus::ok);
  const double flat = out[M::ep_comm_s];
  in_node.values[P::ep_all_to_all] = in.values[P::ep_all_to_all];
  ASSERT_EQ(solver.evaluate(in_node, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::ep_comm_s], flat);
}

TEST_F(ExpertMesh, HierarchicalAcrossPodsAddsTheDataCentreStage) {
  // Nodes of 2 GPUs in pods of 4, tp 1: the 8 consecutive EP ranks are 2 per node, 2 nodes per pod,
  // 2 pods; dp 64, so 4 micro-batches. Flat: 7 steps of 7/8 of the buffer on the data-centre network.
  PointInputs in = point(8, 1);
  in.values[P::gpus_per_node] = 2;
  in.values[P::gpus_per_pod] = 4;
  in.values[P::dcn_bandwidth] = kDcn;
  in.values[P::dcn_latency] = kDcnAlpha;
  const double bytes = 2048.0 * 2 * 4096 * 2, calls = kCalls / 2;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::ep_comm_s], calls * (0.875 * bytes / kDcn + 7 * kDcnAlpha), 1e-12);
  in.values[P::ep_all_to_all] = choice(solver, P::ep_all_to_all, "hierarchical");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const double one = 0.5 * bytes / kNvlink + kNvlinkAlpha + 0.5 * bytes / kNic + kNicAlpha + 0.5 * bytes / kDcn +
                     kDcnAlpha;
  EXPECT_NEAR(out[M::ep_comm_s], calls * one, 1e-12);
}

TEST_F(ExpertMesh, HierarchicalNeedsTheSameRanksInEveryNode) {
  // Nodes of 6: ep 8 at stride 2 puts 3 EP ranks in a node, which 8 does not divide.
  PointInputs in = point(8);
  in.values[P::gpus_per_node] = 6;
  in.values[P::ep_all_to_all] = choice(solver, P::ep_all_to_all, "hierarchical");
  const PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::hierarchical_all_to_all_uneven);
}

TEST_F(ExpertMesh, EtpOneTakesTheTensorRanksIntoTheExpertGroup) {
  // etp 1, ep 8 = tp 2 x 4 of the 32 DP ranks: 8 consecutive ranks, one node, on NVLink; etp tp puts
  // the same 8 EP ranks 2 apart over 2 nodes on the NIC (above).
  PointInputs in = point(8);
  in.values[P::etp] = choice(solver, P::etp, "1");
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::ep_comm_s], kCalls * (0.875 * kBytesTp2 / kNvlink + 7 * kNvlinkAlpha), 1e-12);
  // Whole experts over 8 EP ranks (not tp x ep = 16); ZeRO-1 shards their states over the
  // 32 x 2 / 8 = 8 expert-DP ranks.
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(mixtral.eager, s));
  const double dense_shard = (s.parameter_count - s.expert_weight_elements) / 2;
  const double expert_shard = s.expert_weight_elements / 8;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::weights_bytes], 2 * (dense_shard + expert_shard), 1);
  EXPECT_NEAR(out[M::optimizer_bytes], 12 * (dense_shard / 32 + expert_shard / 8), 1);
  // etp tp at the same ep: experts over 16 ranks, their states over 32 / 8 = 4.
  ASSERT_EQ(solver.evaluate(point(8), out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::weights_bytes], 2 * (dense_shard + expert_shard / 2), 1);
  EXPECT_NEAR(out[M::optimizer_bytes], 12 * (dense_shard / 32 + expert_shard / 2 / 4), 1);
}

TEST_F(ExpertMesh, EtpOneNeedsEpAMultipleOfTp) {
  // torchtitan: "EP would borrow all cp and tp and some dp_shard degree", ep % tp == 0.
  for (const double ep : {3.0, 6.0}) {  // 3: not a multiple of tp 2; 6: ep / tp = 3 does not divide dp 32
    PointInputs in = point(ep);
    in.values[P::etp] = choice(solver, P::etp, "1");
    const PointResult r = solver.evaluate(in, out);
    EXPECT_EQ(r.status, PointStatus::infeasible) << ep;
    EXPECT_EQ(r.reason, TrainingSolver::etp_one_needs_tp_inside_ep) << ep;
  }
  // ep 1 ignores etp (experts split over TP, as torchtitan's TensorParallel without EP).
  PointInputs one = point(1);
  one.values[P::zero_stage] = 3;  // every expert on every GPU: ZeRO-3 to fit
  ASSERT_EQ(solver.evaluate(one, out).status, PointStatus::ok);
  const double before = out[M::step_time_s];
  one.values[P::etp] = choice(solver, P::etp, "1");
  ASSERT_EQ(solver.evaluate(one, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::step_time_s], before);
}

}  // namespace
}  // namespace dsx
