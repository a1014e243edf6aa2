// Expert parallelism in the serving solver (engine/serving.hpp, engine/solvers/serving.hpp): a replica of
// tp x ep GPUs runs attention data-parallel over ep groups of tp GPUs and shards the routed experts over
// all of them (DeepSeek-V3 arXiv:2412.19437 section 3.4; SGLang DP attention + EP), with one dispatch and
// one combine all-to-all per MoE layer and forward pass. Against hand calculations.
// Mixtral 8x7B: Jiang et al. 2024, arXiv:2401.04088. DeepSeek-V3: its config.json (as in mla_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/serving.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = ServingSolver::Param;
using M = ServingSolver::Metric;
using Values = std::map<std::string, double, std::less<>>;

const Values kMixtral = published::mixtral_8x7b();
const Values& kDeepSeekV3 = published::kDeepSeekV3;

PreparedModel prepared(const Values& given) {
  return prepare_model(build_architecture("transformer", {given.begin(), given.end()}));
}

// Routed expert weights, all layers: layers x E x 3 (SwiGLU gate, up, down) x d x d_ff_expert.
constexpr double kMixtralExperts = 32.0 * 8 * 3 * 4096 * 14336;           // 45,097,156,608
constexpr double kDeepSeekExperts = 58.0 * 256 * 3 * 7168 * 2048;         // 653,908,770,816
constexpr double kNvlinkOneWay = 450e9;
constexpr double kAlpha = 0.5e-6;

// studies/catalog/hardware.yaml h200: 141 GiB, 4.8 TB/s, NVLink 4 450 GB/s one-way; a round test price of
// $35,000, not the catalog's.
HardwareSpec h200() {
  HardwareSpec hw;
  hw.id = "h200";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 989e12;
  hw.peak_flops_per_s[index_of(Precision::fp8)] = 1979e12;
  hw.memory_bytes = 141 * 1024.0 * 1024 * 1024;
  hw.memory_bandwidth_bytes_per_s = 4.8e12;
  hw.accelerator_link_bandwidth_bytes_per_s = kNvlinkOneWay;
  hw.price_usd = 35000;
  return hw;
}

class ServingExpertParallelTest : public ::testing::Test {
 protected:
  const ServingSolver solver;
  const HardwareSpec hw = h200();
  const PreparedModel mixtral = prepared(kMixtral);
  const PreparedModel deepseek = prepared(kDeepSeekV3);
  const PreparedModel llama8b = prepared({{"layers", 32}, {"d_model", 4096}, {"heads", 32}, {"kv_heads", 8},
                                          {"d_ff", 14336}, {"vocab", 128256}, {"seq_len", 2048},
                                          {"gated_mlp", 1}, {"norm", 1}, {"embeddings", 1}, {"rope", 1}});

  PointInputs point(const PreparedModel& model, Precision precision, double batch, double tp, double ep) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(precision));
    in.values[P::batch] = batch;
    in.values[P::tp] = tp;
    in.values[P::ep] = ep;
    in.values[P::prompt_tokens] = 2048;
    in.values[P::output_tokens] = 256;
    return in;
  }
  std::vector<double> run(const PointInputs& in, PointStatus expected = PointStatus::ok,
                          int expected_reason = -1) const {
    std::vector<double> out(solver.metrics().size());
    const PointResult r = solver.evaluate(in, out);
    EXPECT_EQ(r.status, expected);
    if (expected_reason >= 0) {
      EXPECT_EQ(r.reason, expected_reason);
    }
    return out;
  }
};

TEST_F(ServingExpertParallelTest, ShapeCountsTheRoutedExperts) {
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(mixtral.eager, s));
  EXPECT_DOUBLE_EQ(s.expert_weight_elements, kMixtralExperts);
  EXPECT_DOUBLE_EQ(expert_flops_per_token(s), 2 * kMixtralExperts * 2 / 8);
  ASSERT_TRUE(derive_serving_shape(deepseek.eager, s));
  EXPECT_DOUBLE_EQ(s.expert_weight_elements, kDeepSeekExperts);  // the shared expert is not routed
  EXPECT_DOUBLE_EQ(s.moe_layers, 58);
}

TEST_F(ServingExpertParallelTest, ExpertWeightsAreDividedByEp) {
  // Mixtral, fp16, tp 1 x ep 8: every GPU holds all non-expert weights and one expert per layer.
  const double total = mixtral.eager.parameter_count;
  const auto out = run(point(mixtral, Precision::fp16, 8, 1, 8));
  EXPECT_DOUBLE_EQ(out[M::weights_per_gpu_bytes], ((total - kMixtralExperts) + kMixtralExperts / 8) * 2);
  EXPECT_NEAR(out[M::weights_per_gpu_bytes] / 1e9, 14.5, 0.1);  // (1.60B + 5.64B) x 2 B
  EXPECT_DOUBLE_EQ(out[M::gpus], 8);
  // tp 2 x ep 4: non-expert / 2 + experts / 8.
  const auto mixed = run(point(mixtral, Precision::fp16, 8, 2, 4));
  EXPECT_DOUBLE_EQ(mixed[M::weights_per_gpu_bytes], ((total - kMixtralExperts) / 2 + kMixtralExperts / 8) * 2);
}

TEST_F(ServingExpertParallelTest, EpOneIsTheTensorParallelReplica) {
  const auto out = run(point(mixtral, Precision::fp16, 16, 8, 1));
  EXPECT_DOUBLE_EQ(out[M::weights_per_gpu_bytes], mixtral.eager.parameter_count * 2 / 8);
  EXPECT_EQ(out[M::decode_all_to_all_s], 0);
  EXPECT_DOUBLE_EQ(out[M::gpus], 8);
}

TEST_F(ServingExpertParallelTest, DecodeDispatchAndCombineAllToAlls) {
  // Mixtral, fp16, batch 64 over tp 1 x ep 8: each group decodes 8 tokens; each sends 8 x k=2 x 4,096
  // x 2 B = 131,072 B per all-to-all: 7/8 x 131,072 / 450e9 + 7 x 0.5 us = 3.7549 us, two per MoE layer,
  // 32 layers: 240.3 us.
  const double one = 7.0 / 8 * 131072 / kNvlinkOneWay + 7 * kAlpha;
  const auto out = run(point(mixtral, Precision::fp16, 64, 1, 8));
  EXPECT_NEAR(out[M::decode_all_to_all_s], 2 * 32 * one, 1e-15);
  EXPECT_NEAR(out[M::decode_all_to_all_s] * 1e6, 240.3, 0.1);
  // tp 1: no all-reduces, so the step's communication is the all-to-alls alone.
  EXPECT_DOUBLE_EQ(out[M::decode_communication_s], out[M::decode_all_to_all_s]);
  // tp 2 x ep 4: 16 tokens per group, split over 2 TP ranks: 16 x 2 x 4,096 x 2 / 2 B over 4 ranks.
  const double one_tp2 = 3.0 / 4 * (16.0 * 2 * 4096 * 2 / 2) / kNvlinkOneWay + 3 * kAlpha;
  const auto tp2 = run(point(mixtral, Precision::fp16, 64, 2, 4));
  EXPECT_NEAR(tp2[M::decode_all_to_all_s], 2 * 32 * one_tp2, 1e-15);
}

// The same replica on a node whose 8 chips form a 4 x 2 torus (torus_x 4, torus_y 2): 450 GB/s per
// chip over 4 links of 112.5 GB/s. Either cut of the torus has 4 links (450 GB/s) and 8 x S / 4 bytes
// cross it: 2 S / 450 GB/s per all-to-all instead of 7/8 S / 450 GB/s on a switch.
TEST_F(ServingExpertParallelTest, OnATorusNodeTheAllToAllIsBoundByItsBisection) {
  PointInputs in = point(mixtral, Precision::fp16, 64, 1, 8);
  in.values[P::gpus_per_node] = 8;
  in.values[P::torus_x] = 4;
  in.values[P::torus_y] = 2;
  const auto out = run(in);
  EXPECT_NEAR(out[M::decode_all_to_all_s], 2 * 32 * (2 * 131072 / kNvlinkOneWay + 7 * kAlpha), 1e-15);
  in.values[P::gpus_per_node] = 16;
  run(in, PointStatus::infeasible, ServingSolver::torus_is_not_the_node);
}

TEST_F(ServingExpertParallelTest, BalancedRoutingKeepsComputePerGpu) {
  // 64 sequences: tp 8 computes 64 tokens / 8 per GPU; tp 1 x ep 8 computes 8 tokens' attention and
  // non-expert layers and 64 x k / 8 expert-token products per GPU: the same FLOPs.
  const auto tp8 = run(point(mixtral, Precision::fp16, 64, 8, 1));
  const auto ep8 = run(point(mixtral, Precision::fp16, 64, 1, 8));
  EXPECT_NEAR(ep8[M::decode_compute_s] / tp8[M::decode_compute_s], 1.0, 1e-12);
  // Memory per GPU differs: ep 8 reads all non-expert weights and its group's KV cache (8 sequences,
  // 8 KV heads whole) where tp 8 reads 1/8 of the weights and 1/8 of 64 sequences' KV heads.
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(mixtral.eager, s));
  const double context = 2048 + 128;
  const double experts_read = kMixtralExperts * (1 - std::pow(1 - 2.0 / 8, 64));
  const double dense = s.weight_elements_read - kMixtralExperts;
  const double kv = context * 2 * 32 * 8 * 128 * 2;
  const double ep8_bytes = (dense + experts_read / 8) * 2 + 8 * s.linear_activation_elements_per_token * 2 + 8 * kv;
  const double tp8_bytes = (dense + experts_read) / 8 * 2 + 64 * s.linear_activation_elements_per_token * 2 / 8 +
                           64 * kv / 8;
  EXPECT_NEAR(ep8[M::decode_memory_s], ep8_bytes / 4.8e12, 1e-12);
  EXPECT_NEAR(tp8[M::decode_memory_s], tp8_bytes / 4.8e12, 1e-12);
}

TEST_F(ServingExpertParallelTest, MlaLatentIsShardedByBatchNotByHeads) {
  // DeepSeek-V3, fp8 weights, fp16 KV (70,272 B/token), 8k context: tp 8 replicates the latent on every
  // GPU; tp 1 x ep 8 holds each sequence's latent once (attention data-parallel).
  auto tp8_in = point(deepseek, Precision::fp8, 1, 8, 1);
  auto ep8_in = point(deepseek, Precision::fp8, 1, 1, 8);
  for (auto* in : {&tp8_in, &ep8_in}) {
    in->values[P::prompt_tokens] = 7168;
    in->values[P::output_tokens] = 1024;
  }
  const auto tp8 = run(tp8_in);
  const auto ep8 = run(ep8_in);
  const double total = deepseek.eager.parameter_count;
  const double kv_sequence = 70272.0 * 8192;
  EXPECT_DOUBLE_EQ(tp8[M::max_batch], std::floor((hw.memory_bytes - total / 8) / kv_sequence));
  EXPECT_DOUBLE_EQ(ep8[M::max_batch],
                   8 * std::floor((hw.memory_bytes - (total - kDeepSeekExperts) - kDeepSeekExperts / 8) / kv_sequence));
  EXPECT_GT(ep8[M::max_batch], 5 * tp8[M::max_batch]);
}

TEST_F(ServingExpertParallelTest, BatchIsSplitOverGroupsForMemory) {
  // Batch 9 over ep 8: the busiest group holds 2 sequences.
  const auto out = run(point(mixtral, Precision::fp16, 9, 1, 8));
  const double kv_sequence = (2048 + 256) * 131072.0;
  EXPECT_DOUBLE_EQ(out[M::memory_bytes], out[M::weights_per_gpu_bytes] + 2 * kv_sequence);
  EXPECT_DOUBLE_EQ(sequences_per_group(9, 8), 2);
  EXPECT_DOUBLE_EQ(sequences_per_group(9, 1), 9);
}

TEST_F(ServingExpertParallelTest, InfeasibleCombinations) {
  run(point(llama8b, Precision::fp16, 8, 1, 2), PointStatus::infeasible, ServingSolver::ep_needs_moe);
  run(point(mixtral, Precision::fp16, 8, 1, 3), PointStatus::infeasible, ServingSolver::ep_must_divide_experts);
  run(point(mixtral, Precision::fp16, 8, 4, 4), PointStatus::infeasible, ServingSolver::replica_exceeds_node);
  // The same 16 GPUs are one replica in a 72-GPU NVLink domain (GB200 NVL72).
  auto rack = point(mixtral, Precision::fp16, 8, 4, 4);
  rack.values[P::gpus_per_node] = 72;
  run(rack);
  // DeepSeek-V3 at fp16 weights (1.34 TB) fits on no 8 x 141 GiB node, with or without EP.
  run(point(deepseek, Precision::fp16, 1, 8, 1), PointStatus::infeasible, ServingSolver::exceeds_memory);
  run(point(deepseek, Precision::fp16, 1, 1, 8), PointStatus::infeasible, ServingSolver::exceeds_memory);
  HardwareSpec no_link = hw;
  no_link.accelerator_link_bandwidth_bytes_per_s = 0;
  auto in = point(mixtral, Precision::fp16, 8, 1, 2);
  in.hardware = &no_link;
  run(in, PointStatus::infeasible, ServingSolver::tp_needs_link);
}

TEST_F(ServingExpertParallelTest, ThroughputPerGpuAndCostCountAllGpus) {
  const auto out = run(point(mixtral, Precision::fp16, 64, 2, 4));
  EXPECT_DOUBLE_EQ(out[M::tokens_per_s_per_gpu], out[M::tokens_per_s] / 8);
  EXPECT_NEAR(out[M::cost_per_million_tokens_usd],
              8 * out[M::gpu_hour_price_usd] / 3600 / out[M::tokens_per_s] * 1e6, 1e-9);
}

}  // namespace
}  // namespace dsx
