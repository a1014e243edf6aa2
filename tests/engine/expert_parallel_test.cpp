// Mixture of experts in the training solver (engine/solvers/training.hpp): compute and the 6PD check
// on the active parameters, memory on all of them, and expert parallelism (memory divided by ep, the
// dispatch/combine all-to-alls, Megatron-Core's ep | dp rule), against hand calculations.
// Mixtral 8x7B: Jiang et al. 2024, arXiv:2401.04088 (46.7B total, 12.9B active).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/fusion.hpp"
#include "engine/laws.hpp"
#include "engine/model_builders.hpp"
#include "engine/parallelism.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/training.hpp"
#include "engine/training_memory.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;
using Values = std::map<std::string, double, std::less<>>;

// studies/catalog/models.yaml mixtral_8x7b; the same shape with one dense MLP for the dense case.
const Values& kMistral = published::kMistral7b;

PreparedModel prepared(Values v, bool moe) {
  if (moe) {
    v["experts"] = 8;
    v["experts_per_token"] = 2;
  }
  return prepare_model(build_architecture("transformer", {v.begin(), v.end()}));
}

class ExpertParallelTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel mixtral = prepared(kMistral, true);
  const PreparedModel mistral = prepared(kMistral, false);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  // 64 GPUs, TP 2, PP 1 -> DP 32; 256 sequences of 1 -> 8 micro-batches; selective recomputation;
  // ZeRO-2 by default (46.7 GB of bf16 weights per GPU at ep 1 leave no room for unsharded gradients).
  PointInputs point(const PreparedModel& model, double ep, double zero = 2) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::gpus] = 64;
    in.values[P::tp] = 2;
    in.values[P::pp] = 1;
    in.values[P::ep] = ep;
    in.values[P::global_batch] = 256;
    in.values[P::zero_stage] = zero;
    return in;
  }
  ServingShape shape() const {
    ServingShape s;
    EXPECT_TRUE(derive_serving_shape(mixtral.eager, s));
    return s;
  }
};

TEST_F(ExpertParallelTest, ComputeAndThe6pdCheckUseActiveParameters) {
  ASSERT_EQ(solver.evaluate(point(mixtral, 1), out).status, PointStatus::ok);
  const ServingShape s = shape();
  EXPECT_NEAR(s.parameter_count / 46.7e9, 1.0, 0.01);      // Mixtral paper: 47B total
  EXPECT_NEAR(out[M::active_parameters] / 12.9e9, 1.0, 0.01);  // 13B active
  EXPECT_DOUBLE_EQ(out[M::active_parameters], s.active_parameter_count);
  // compute = hardware FLOPs per token of the ACTIVE parameters x tokens / (tp pp) / (peak eta),
  // the causal attention's half at attention_eta (also 0.5), plus the memory-bound work.
  const double tokens = 8 * 1 * 2048.0;
  const double flops = hardware_flops_per_token(s.active_parameter_count, 32, 4096, 2048, 1) -
                       attention_flops_per_token(32, 4096, 2048, 1) / 2;
  EXPECT_GT(out[M::memory_bound_s], 0.0);
  EXPECT_NEAR(out[M::compute_s] - out[M::memory_bound_s], flops * tokens / 2 / (989e12 * 0.5), 1e-12);
  EXPECT_DOUBLE_EQ(out[M::time_to_train_6pd_s],
                   training_time_s(s.active_parameter_count, 15e12, 64, 989e12, out[M::mfu]));
  // With total parameters the 6PD time would be 3.6 x longer: the bug this replaces.
  EXPECT_NEAR(training_time_s(s.parameter_count, 15e12, 64, 989e12, out[M::mfu]) / out[M::time_to_train_6pd_s],
              s.parameter_count / s.active_parameter_count, 1e-9);
  EXPECT_NEAR(s.parameter_count / s.active_parameter_count, 3.62, 0.01);
}

TEST_F(ExpertParallelTest, MemoryHoldsEveryExpertDividedByEp) {
  const ServingShape s = shape();
  const double total = s.parameter_count, experts = s.expert_weight_elements;
  ASSERT_EQ(solver.evaluate(point(mixtral, 1), out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::weights_bytes], 2 * total / 2);
  ASSERT_EQ(solver.evaluate(point(mixtral, 8, 1), out).status, PointStatus::ok);
  const double dense_shard = (total - experts) / 2, expert_shard = experts / (2 * 8);
  EXPECT_NEAR(out[M::weights_bytes], 2 * (dense_shard + expert_shard), 1);
  EXPECT_NEAR(out[M::gradients_bytes], 2 * (dense_shard + expert_shard), 1);
  // ZeRO-1: dense optimizer states over the 32 DP ranks, expert states over the 32 / 8 = 4 expert-DP ranks.
  EXPECT_NEAR(out[M::optimizer_bytes], 12 * (dense_shard / 32 + expert_shard / 4), 1);
  ASSERT_EQ(solver.evaluate(point(mixtral, 8, 3), out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::fleet_model_state_bytes_per_param], 16, 1e-9);  // still 16 B per parameter at ZeRO-3
}

TEST_F(ExpertParallelTest, DispatchAndCombineAllToAlls) {
  ASSERT_EQ(solver.evaluate(point(mixtral, 1), out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::ep_comm_s], 0);
  // Each GPU sends its b s / tp tokens x k = 2 copies x d x 2 B per all-to-all: 16.8 MB.
  const double bytes = 1 * 2048.0 / 2 * 2 * 4096 * 2;
  EXPECT_DOUBLE_EQ(bytes, 16777216);
  // The experts split over the TP pair (etp tp): each MoE layer all-gathers the 2 x 16.8 MB the pair
  // received before the experts and reduce-scatters it after, half of it over NVLink in one step each
  // (Megatron-Core's token dispatcher), forward and backward: 2 per layer and micro-batch.
  const double gather_scatter = 2 * (0.5 * 2 * bytes / 450e9 + 0.5e-6);
  // ep 4 x tp 2 = 8 GPUs: inside a node on NVLink (450 GB/s one-way, alpha 0.5 us).
  ASSERT_EQ(solver.evaluate(point(mixtral, 4), out).status, PointStatus::ok);
  const double nvlink = 3.0 / 4 * bytes / 450e9 + 3 * 0.5e-6;
  // 4 all-to-alls per layer (fwd 2, bwd 2), 32 layers, m = 8
  EXPECT_NEAR(out[M::ep_comm_s], 4 * 32 * 8 * nvlink + 2 * 32 * 8 * gather_scatter, 1e-12);
  // ep 8 x tp 2 = 16 GPUs: across nodes on the 50 GB/s NIC (alpha 5 us).
  ASSERT_EQ(solver.evaluate(point(mixtral, 8), out).status, PointStatus::ok);
  const double nic = 7.0 / 8 * bytes / 50e9 + 7 * 5e-6;
  EXPECT_NEAR(out[M::ep_comm_s], 4 * 32 * 8 * nic + 2 * 32 * 8 * gather_scatter, 1e-12);
  // Full recomputation repeats the forward's two all-to-alls and its gather and scatter.
  PointInputs full = point(mixtral, 8);
  full.values[P::recompute] = 2;
  ASSERT_EQ(solver.evaluate(full, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::ep_comm_s], 6 * 32 * 8 * nic + 3 * 32 * 8 * gather_scatter, 1e-12);
}

TEST_F(ExpertParallelTest, InfeasibleEpChoices) {
  PointResult r = solver.evaluate(point(mistral, 2), out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::ep_needs_moe);
  EXPECT_EQ(solver.evaluate(point(mistral, 1), out).status, PointStatus::ok);
  r = solver.evaluate(point(mixtral, 3), out);  // dp = 32
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::ep_must_divide_dp);
  r = solver.evaluate(point(mixtral, 16), out);  // 8 experts
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, TrainingSolver::ep_must_divide_experts);
}

}  // namespace
}  // namespace dsx
