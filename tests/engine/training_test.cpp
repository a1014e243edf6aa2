// The training solver (engine/solvers/training.hpp): feasibility, the per-GPU shard, DP-only token
// count, the 6PD check, and the run's energy, carbon and cost.
#include "engine/solvers/training.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/parallelism.hpp"
#include "engine/training_memory.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

// studies/catalog/models.yaml llama3_70b.
PreparedModel llama70b() {
  return prepare_model(build_architecture("transformer", {published::kLlama3_70b.begin(), published::kLlama3_70b.end()}));
}

class TrainingSolverTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = llama70b();
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  PointInputs point(double tp, double pp, double recompute, double zero) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::tp] = tp;
    in.values[P::pp] = pp;
    in.values[P::recompute] = recompute;
    in.values[P::zero_stage] = zero;
    return in;
  }
};

TEST_F(TrainingSolverTest, ParamsFitTheSweepLimit) {
  EXPECT_LE(solver.params().size(), kMaxParams);
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(TrainingSolver::kMetricCount));
  EXPECT_EQ(solver.reasons().size(), 28u);
}

TEST_F(TrainingSolverTest, Llama70bOn1024H100) {
  const PointResult r = solver.evaluate(point(8, 4, 1, 1), out);
  ASSERT_EQ(r.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::dp], 32);
  EXPECT_DOUBLE_EQ(out[M::microbatches], 32);  // 1024 sequences / (32 x 1)
  // Memory is engine/training_memory's, sharded over TP x PP, ZeRO-1 over DP.
  const double params = out[M::weights_bytes] * 32 / 2;
  EXPECT_NEAR(params / 1e9, 70.55, 0.1);
  EXPECT_NEAR(out[M::optimizer_bytes], params / 32 * 12 / 32, 1);
  EXPECT_NEAR(out[M::activations_bytes], 20 * 4 * 34.0 * 2048 * 8192 / 8, 1);
  EXPECT_LT(out[M::memory_per_gpu_bytes], hw.memory_bytes);
  // Tokens count once per DP replica: 1,024 x 2,048 per step.
  EXPECT_NEAR(out[M::tokens_per_s] * out[M::step_time_s], 1024 * 2048.0, 1e-3);
  // Bubble 3/35 for p = 4, m = 32; MFU below eta x (1 - bubble) because of communication.
  EXPECT_NEAR(out[M::bubble_fraction], 3.0 / 35.0, 1e-12);
  EXPECT_NEAR(out[M::bubble_s] / out[M::compute_s], 3.0 / 32.0, 1e-12);
  EXPECT_LT(out[M::mfu], 0.5 * 32.0 / 35.0);
  EXPECT_GT(out[M::mfu], 0.3);
  EXPECT_GT(out[M::hfu], out[M::mfu]);
  // 6PD / (N X MFU) omits the attention FLOPs 12 L h s: shorter by 6P / (6P + 12 L h s).
  const double ratio = 6 * params / model_flops_per_token(params, 80, 8192, 2048);
  EXPECT_NEAR(out[M::time_to_train_6pd_s] / out[M::time_to_train_s], ratio, 1e-3);
  EXPECT_NEAR(out[M::time_to_train_s], 15e12 / out[M::tokens_per_s], 1e-6 * out[M::time_to_train_s]);
}

// 128 DGX-H100-like nodes: twice the rate of mlsysim's 64-node 66.96 h; checkpoint 14 B x 70.6 B / 100 GB/s.
TEST_F(TrainingSolverTest, FailuresAndCheckpoints) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 1), out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::fleet_mtbf_s] / 3600, 66.96 / 2, 0.01);
  const double params = out[M::weights_bytes] * 32 / 2;
  const double delta = 14 * params / 100e9;
  EXPECT_NEAR(out[M::checkpoint_interval_s], std::sqrt(2 * delta * out[M::fleet_mtbf_s]), 0.01 * out[M::checkpoint_interval_s]);
  EXPECT_GT(out[M::goodput], 0.98);
  EXPECT_LT(out[M::goodput], 0.99);
  EXPECT_NEAR(out[M::time_with_failures_s], out[M::time_to_train_s] / out[M::goodput], 1e-6);
}

TEST_F(TrainingSolverTest, EnergyCarbonAndCost) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 1), out).status, PointStatus::ok);
  const std::vector<double> us = out;
  const double busy = us[M::scaling_efficiency];
  EXPECT_NEAR(us[M::gpu_power_w], 700 * (0.3 + 0.7 * busy), 1e-9);
  const double kwh = us[M::gpu_power_w] * 1024 * us[M::time_to_train_s] / 3.6e6 * 1.12;
  EXPECT_NEAR(us[M::energy_j] / 3.6e6, kwh, kwh * 1e-12);
  EXPECT_NEAR(us[M::co2_kg], kwh * 0.429, kwh * 1e-9);
  const double gpu_hour = 31250.0 / (3 * 8760) + 31250 * 0.05 / 8760 + us[M::gpu_power_w] / 1000 * 1.12 * 0.12;
  EXPECT_NEAR(us[M::gpu_hour_cost_usd], gpu_hour, 1e-12);
  EXPECT_NEAR(us[M::cost_usd], gpu_hour * 1024 * us[M::time_to_train_s] / 3600, 1e-6);
  // A hydro grid (Quebec, 20 g/kWh, PUE 1.06): same time, carbon down by 429 x 1.12 / (20 x 1.06).
  PointInputs quebec = point(8, 4, 1, 1);
  quebec.values[P::carbon_intensity_g_per_kwh] = 20;
  quebec.values[P::pue] = 1.06;
  ASSERT_EQ(solver.evaluate(quebec, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::time_to_train_s], us[M::time_to_train_s]);
  EXPECT_NEAR(us[M::co2_kg] / out[M::co2_kg], 429 * 1.12 / (20 * 1.06), 1e-9);
}

// A priced part whose TDP is unknown: the run's time, memory and throughput are as before, and its
// power, energy, carbon, water and (electricity-dependent) cost are NaN rather than priced at 0 W.
TEST_F(TrainingSolverTest, AnUnknownTdpLeavesEnergyAndCostEmpty) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 1), out).status, PointStatus::ok);
  const std::vector<double> known = out;
  HardwareSpec no_tdp = hw;
  no_tdp.tdp_w = 0;
  PointInputs in = point(8, 4, 1, 1);
  in.hardware = &no_tdp;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::time_to_train_s], known[M::time_to_train_s]);
  EXPECT_DOUBLE_EQ(out[M::memory_per_gpu_bytes], known[M::memory_per_gpu_bytes]);
  for (M m : {M::gpu_power_w, M::energy_j, M::co2_kg, M::water_l, M::gpu_hour_cost_usd, M::cost_usd}) {
    EXPECT_TRUE(std::isnan(out[m])) << solver.metrics()[m].name;
  }
}

TEST_F(TrainingSolverTest, InfeasiblePoints) {
  // No sharding beyond TP 8 and no recomputation: 70.6B x 16 B / 8 = 141 GB per GPU.
  EXPECT_EQ(solver.evaluate(point(8, 1, 0, 0), out).reason, TrainingSolver::exceeds_memory);
  EXPECT_GT(out[M::memory_per_gpu_bytes], hw.memory_bytes);
  EXPECT_EQ(solver.evaluate(point(8, 3, 1, 1), out).reason, TrainingSolver::tp_pp_do_not_divide_gpus);
  EXPECT_EQ(solver.evaluate(point(8, 128, 1, 1), out).reason, TrainingSolver::pp_exceeds_layers);
  PointInputs six = point(4, 1, 1, 1);  // TP 4 on 6-GPU nodes: groups would straddle nodes
  six.values[P::gpus_per_node] = 6;
  EXPECT_EQ(solver.evaluate(six, out).reason, TrainingSolver::tp_and_node_do_not_nest);
  PointInputs odd = point(8, 4, 1, 1);
  odd.values[P::global_batch] = 1000;
  EXPECT_EQ(solver.evaluate(odd, out).reason, TrainingSolver::batch_not_divisible);
}

// TP 16 on 8-GPU nodes rings through the NICs (50 GB/s, 5 us); on a 16-GPU NVLink domain it stays on
// NVLink (450 GB/s, 0.5 us): the TP time scales as the two rings of one b s h x 2 B message.
TEST_F(TrainingSolverTest, TensorParallelismAcrossNodesRingsThroughTheNics) {
  PointInputs across = point(16, 4, 1, 1);
  ASSERT_EQ(solver.evaluate(across, out).status, PointStatus::ok);
  const double across_tp_s = out[M::tp_comm_s];
  PointInputs inside = across;
  inside.values[P::gpus_per_node] = 16;
  ASSERT_EQ(solver.evaluate(inside, out).status, PointStatus::ok);
  const double message = 1 * 2048 * 8192 * 2.0;  // micro-batch 1, seq 2,048, d_model 8,192, bf16
  EXPECT_NEAR(across_tp_s / out[M::tp_comm_s],
              ring_all_reduce_s(message, 16, 50e9, 5e-6) / ring_all_reduce_s(message, 16, 450e9, 0.5e-6), 1e-9);
  EXPECT_GT(across_tp_s, 5 * out[M::tp_comm_s]);
}

TEST_F(TrainingSolverTest, PipelineSendsStayOnNvlinkWhenTheJobFitsANode) {
  // 8 GPUs, pp 8: on one 8-GPU node the stages pass activations over NVLink; on nodes of 4 the
  // pipeline crosses the NIC.
  HardwareSpec roomy = hw;  // Llama 70B's 16 B per parameter over 8 GPUs needs 140 GB each
  roomy.memory_bytes = 1e12;
  PointInputs one_node = point(1, 8, 2, 1);
  one_node.hardware = &roomy;
  one_node.values[P::gpus] = 8;
  one_node.values[P::global_batch] = 64;
  ASSERT_EQ(solver.evaluate(one_node, out).status, PointStatus::ok);
  const double inside_s = out[M::pp_comm_s];
  const double microbatches = out[M::microbatches];
  PointInputs two_nodes = one_node;
  two_nodes.values[P::gpus_per_node] = 4;
  ASSERT_EQ(solver.evaluate(two_nodes, out).status, PointStatus::ok);
  const double message = 1 * 2048 * 8192 * 2.0;  // micro-batch 1, seq 2,048, d_model 8,192, bf16, tp 1
  EXPECT_NEAR(inside_s, 2 * microbatches * point_to_point_s(message, 450e9, 0.5e-6), 1e-12);
  EXPECT_NEAR(out[M::pp_comm_s], 2 * microbatches * point_to_point_s(message, 50e9, 5e-6), 1e-12);
}

TEST_F(TrainingSolverTest, OversubscriptionLatencyStragglersAndCheckpoints) {
  PointInputs base = point(8, 4, 1, 1);
  base.values[P::fabric_latency] = 0;
  ASSERT_EQ(solver.evaluate(base, out).status, PointStatus::ok);
  const std::vector<double> b = out;
  // 2:1 oversubscription halves the rate of every transfer across nodes: with no latency the
  // pipeline sends take twice as long.
  PointInputs oversubscribed = base;
  oversubscribed.values[P::oversubscription] = 2;
  ASSERT_EQ(solver.evaluate(oversubscribed, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::pp_comm_s], 2 * b[M::pp_comm_s], 1e-12 * b[M::pp_comm_s]);
  // Latency adds to each send: 2 sends per micro-batch per stage boundary.
  PointInputs slow = base;
  slow.values[P::fabric_latency] = 10e-6;
  ASSERT_EQ(solver.evaluate(slow, out).status, PointStatus::ok);
  EXPECT_GT(out[M::pp_comm_s], b[M::pp_comm_s]);
  // A straggler 25 % slower stretches every GPU's compute by 25 %.
  PointInputs straggling = base;
  straggling.values[P::straggler_slowdown] = 1.25;
  ASSERT_EQ(solver.evaluate(straggling, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::compute_s], 1.25 * b[M::compute_s], 1e-9 * b[M::compute_s]);
  EXPECT_NEAR(out[M::mfu] * out[M::step_time_s], b[M::mfu] * b[M::step_time_s], 1e-9);
  // Checkpoint: 14 B per parameter at the storage bandwidth; a slower store checkpoints less often
  // and keeps less goodput (Daly).
  EXPECT_NEAR(b[M::checkpoint_bytes], 14 * b[M::active_parameters], 1e-6 * b[M::checkpoint_bytes]);
  EXPECT_NEAR(b[M::checkpoint_s], b[M::checkpoint_bytes] / 100e9, 1e-12);
  PointInputs slow_store = base;
  slow_store.values[P::checkpoint_bandwidth] = 10e9;
  ASSERT_EQ(solver.evaluate(slow_store, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::checkpoint_s], 10 * b[M::checkpoint_s], 1e-9 * out[M::checkpoint_s]);
  EXPECT_GT(out[M::checkpoint_interval_s], b[M::checkpoint_interval_s]);
  EXPECT_LT(out[M::goodput], b[M::goodput]);
  // 72-GPU nodes: the same GPUs and NICs in fewer nodes, so fewer power supplies fail.
  PointInputs rack = base;
  rack.values[P::gpus_per_node] = 72;
  ASSERT_EQ(solver.evaluate(rack, out).status, PointStatus::ok);
  EXPECT_GT(out[M::fleet_mtbf_s], b[M::fleet_mtbf_s]);
}

// TP communication overlap hides that fraction of the all-reduces; nothing else moves.
// Hardware without a price (GB200, TPU and Trainium entries) trains as fast as with one; only the
// costs are unknown.
TEST_F(TrainingSolverTest, NoPriceLeavesOnlyTheCostsUnknown) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 1), out).status, PointStatus::ok);
  const std::vector<double> priced = out;
  HardwareSpec unpriced = hw;
  unpriced.price_usd = 0;
  PointInputs in = point(8, 4, 1, 1);
  in.hardware = &unpriced;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  for (const std::size_t m : {M::gpu_hour_cost_usd, M::cost_usd, M::cost_per_million_tokens_usd}) {
    EXPECT_TRUE(std::isnan(out[m])) << solver.metrics()[m].name;
  }
  EXPECT_DOUBLE_EQ(out[M::step_time_s], priced[M::step_time_s]);
  EXPECT_DOUBLE_EQ(out[M::energy_j], priced[M::energy_j]);
}

TEST_F(TrainingSolverTest, TpOverlapHidesItsShareOfTheAllReduces) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 1), out).status, PointStatus::ok);
  const std::vector<double> exposed = out;
  ASSERT_GT(exposed[M::tp_comm_s], 0.0);
  PointInputs half = point(8, 4, 1, 1);
  half.values[P::tp_overlap] = 0.5;
  ASSERT_EQ(solver.evaluate(half, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::tp_comm_s], exposed[M::tp_comm_s] / 2, 1e-12);
  EXPECT_NEAR(exposed[M::step_time_s] - out[M::step_time_s], exposed[M::tp_comm_s] / 2, 1e-12);
  EXPECT_DOUBLE_EQ(out[M::compute_s], exposed[M::compute_s]);
}

TEST_F(TrainingSolverTest, RecomputationTradesMemoryForTime) {
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 1), out).status, PointStatus::ok);
  const std::vector<double> selective = out;
  ASSERT_EQ(solver.evaluate(point(8, 4, 2, 1), out).status, PointStatus::ok);
  EXPECT_LT(out[M::activations_bytes], selective[M::activations_bytes]);
  EXPECT_GT(out[M::step_time_s], selective[M::step_time_s]);
  EXPECT_LT(out[M::mfu], selective[M::mfu]);
  // ZeRO-3 shards the weights too and pays 1.5x DP traffic.
  ASSERT_EQ(solver.evaluate(point(8, 4, 1, 3), out).status, PointStatus::ok);
  EXPECT_LT(out[M::memory_per_gpu_bytes], selective[M::memory_per_gpu_bytes]);
  EXPECT_NEAR(out[M::dp_comm_s], 1.5 * selective[M::dp_comm_s], 1e-12);
  // seeds/003 footnote: with ZeRO the fleet still holds ~16 bytes per parameter (exactly 16 at stage 3);
  // ZeRO-1 keeps dp copies of the 4 bytes of weights and gradients.
  EXPECT_NEAR(out[M::fleet_model_state_bytes_per_param], 16.0, 1e-9);
  EXPECT_NEAR(selective[M::fleet_model_state_bytes_per_param], 4.0 * 32 + 12.0, 1e-9);
}

// 80 layers over 32 stages: 32 chunks of 2 layers and 16 of them one more, so the busiest stage has 3
// layers where an even split would give 2.5; the step runs at its pace (1.2x the even share) and it
// holds 3 layers of activations. Against pp 16 (5 layers each, even): half the share, times 1.2.
TEST_F(TrainingSolverTest, UnevenStagesRunAtTheBusiestStagesPace) {
  PointInputs even = point(8, 16, 1, 1);
  even.values[P::gpus] = 8 * 32;
  even.values[P::global_batch] = 64;
  ASSERT_EQ(solver.evaluate(even, out).status, PointStatus::ok);
  const std::vector<double> at16 = out;
  PointInputs uneven = even;
  uneven.values[P::pp] = 32;
  uneven.values[P::gpus] = 8 * 32 * 2;
  ASSERT_EQ(solver.evaluate(uneven, out).status, PointStatus::ok) << out[M::memory_per_gpu_bytes];
  EXPECT_NEAR(out[M::compute_s], at16[M::compute_s] * 0.5 * 1.2, 1e-12 * at16[M::compute_s]);
  EXPECT_NEAR(out[M::activations_bytes] / at16[M::activations_bytes], (3.0 * 32) / (5.0 * 16), 1e-12);
}

// Interleaved 1F1B with v chunks per stage (Narayanan et al. 2021, section 2.2.2): bubble
// (p-1)/(v m + p - 1), v times the pipeline sends, (1 + (p-1)/(p v)) times the activations in flight
// (Korthikanti et al. 2022, section 4.2.3); m must be a multiple of p.
TEST_F(TrainingSolverTest, InterleavedStagesShrinkTheBubbleAndCostSendsAndMemory) {
  PointInputs plain = point(8, 4, 1, 1);
  ASSERT_EQ(solver.evaluate(plain, out).status, PointStatus::ok);
  const std::vector<double> v1 = out;
  PointInputs interleaved = plain;
  interleaved.values[P::virtual_stages] = 2;
  ASSERT_EQ(solver.evaluate(interleaved, out).status, PointStatus::ok);
  const double p = 4, m = v1[M::microbatches];
  EXPECT_DOUBLE_EQ(out[M::bubble_fraction], (p - 1) / (2 * m + p - 1));
  EXPECT_NEAR(out[M::bubble_s], out[M::compute_s] * (p - 1) / (2 * m), 1e-12);
  EXPECT_NEAR(out[M::pp_comm_s], 2 * v1[M::pp_comm_s], 1e-15);
  EXPECT_NEAR(out[M::activations_bytes], v1[M::activations_bytes] * (1 + (p - 1) / (p * 2)), 1);
  EXPECT_LT(out[M::step_time_s], v1[M::step_time_s]);
  interleaved.values[P::global_batch] = 32 * 6;  // 6 micro-batches per replica: not a multiple of 4
  EXPECT_EQ(solver.evaluate(interleaved, out).reason, TrainingSolver::interleave_needs_microbatches);
}

}  // namespace
}  // namespace dsx
