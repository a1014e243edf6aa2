// Mixture of experts in the transformer builder (engine/model_builders.cpp) and its serving view
// (engine/serving.hpp): total vs active parameters, FLOPs of the active experts, weights read per step.
// Published shapes: Mixtral 8x7B (Jiang et al. 2024, arXiv:2401.04088), GPT-3 175B (Brown et al.
// 2020, arXiv:2005.14165).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/serving.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

ModelGraph build(const Values& given) {
  return build_architecture("transformer", {given.begin(), given.end()});
}

// studies/catalog/models.yaml mixtral_8x7b, and the same shape with one dense MLP (Mistral 7B-like).
const Values kMistralShape = {{"layers", 32},  {"d_model", 4096}, {"heads", 32},     {"kv_heads", 8},
                              {"d_ff", 14336}, {"vocab", 32000},  {"seq_len", 2048}, {"gated_mlp", 1},
                              {"norm", 1},     {"embeddings", 1}, {"rope", 1}};

Values mixtral() {
  Values v = kMistralShape;
  v["experts"] = 8;
  v["experts_per_token"] = 2;
  return v;
}

ServingShape shape_of(const ModelGraph& g) {
  ServingShape s;
  EXPECT_TRUE(derive_serving_shape(g, s));
  return s;
}

constexpr double d = 4096, F = 14336, L = 32, V = 32000, E = 8, K = 2, T = 2048;
constexpr double kAttention = d * (d + 2 * 1024) + d * d;  // W_q, W_k, W_v (8 KV heads x 128), W_o
constexpr double kExpert = 3 * d * F;                      // SwiGLU gate, up, down
constexpr double kEmbeddings = 2 * V * d + d;              // token table, untied LM head, final norm

TEST(MixtureOfExperts, MixtralTotalParametersCountEveryExpert) {
  const ModelGraph g = build(mixtral());
  EXPECT_DOUBLE_EQ(g.parameter_count, L * (kAttention + E * kExpert + d * E + 2 * d) + kEmbeddings);
  EXPECT_NEAR(g.parameter_count / 46.7e9, 1.0, 0.02);  // Jiang et al. 2024: 47B (46.7B) total
}

TEST(MixtureOfExperts, MixtralActiveParametersCountTwoExperts) {
  const ServingShape s = shape_of(build(mixtral()));
  EXPECT_DOUBLE_EQ(s.experts, 8);
  EXPECT_DOUBLE_EQ(s.experts_per_token, 2);
  EXPECT_DOUBLE_EQ(s.expert_weight_elements, L * E * kExpert);
  EXPECT_NEAR(s.active_parameter_count, L * (kAttention + K * kExpert + d * E + 2 * d) + kEmbeddings, 1.0);
  EXPECT_NEAR(s.active_parameter_count / 12.9e9, 1.0, 0.02);  // Jiang et al. 2024: 13B (12.9B) active
  // Memory holds all experts.
  EXPECT_DOUBLE_EQ(s.parameter_count, build(mixtral()).parameter_count);
}

TEST(MixtureOfExperts, FlopsPerTokenFollowTheActiveExperts) {
  const ServingShape moe = shape_of(build(mixtral()));
  const ServingShape dense = shape_of(build(kMistralShape));
  // Per layer the MoE adds k - 1 more expert MLPs (3 matmuls 6 d F, SiLU 4 F, product F), the
  // router (2 d E), its top-k (5 E) and the weighted sum (2 k d) over the dense MLP.
  const double extra = L * ((K - 1) * (6 * d * F + 5 * F) + 2 * d * E + 5 * E + 2 * K * d);
  EXPECT_NEAR(moe.linear_flops_per_token - dense.linear_flops_per_token, extra, 1e-6 * extra);
  EXPECT_DOUBLE_EQ(moe.attention_flops_per_query_key, dense.attention_flops_per_query_key);
  // About 2 x active non-embedding parameters + the LM head, not 2 x total.
  EXPECT_NEAR(moe.linear_flops_per_token / (2 * (moe.active_parameter_count - V * d)), 1.0, 0.01);
  EXPECT_LT(moe.linear_flops_per_token, 0.3 * 2 * moe.parameter_count);
}

TEST(MixtureOfExperts, ShapeIsReadBackUnchanged) {
  const ServingShape s = shape_of(build(mixtral()));
  EXPECT_DOUBLE_EQ(s.layers, 32);
  EXPECT_DOUBLE_EQ(s.d_model, 4096);
  EXPECT_DOUBLE_EQ(s.heads, 32);
  EXPECT_DOUBLE_EQ(s.kv_heads, 8);
  EXPECT_DOUBLE_EQ(s.built_seq_len, T);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(s, 2), 2 * 32 * 8 * 128 * 2.0);
}

TEST(MixtureOfExperts, StepsReadTheExpertsTheirTokensTouch) {
  const ServingShape s = shape_of(build(mixtral()));
  const double others = s.weight_elements_read - s.expert_weight_elements;
  // One token reads k of E experts; two tokens 1 - (3/4)^2 = 7/16 of them; a large batch all.
  EXPECT_NEAR(weight_elements_read_for_tokens(s, 1), others + s.expert_weight_elements * K / E, 1.0);
  EXPECT_NEAR(weight_elements_read_for_tokens(s, 2), others + s.expert_weight_elements * 7 / 16, 1.0);
  EXPECT_NEAR(weight_elements_read_for_tokens(s, 256), s.weight_elements_read, 1e-9 * s.weight_elements_read);
  // Dense models read all their weights whatever the batch.
  const ServingShape dense = shape_of(build(kMistralShape));
  EXPECT_EQ(weight_elements_read_for_tokens(dense, 1), dense.weight_elements_read);
  EXPECT_EQ(dense.active_parameter_count, dense.parameter_count);

  const ServingDevice h100{.peak_flops_per_s = 989e12, .memory_bandwidth_bytes_per_s = 3.35e12, .tp = 1};
  const PhaseTime one = decode_step_time(s, h100, 1, 0, 0.5);
  const double activations = s.linear_activation_elements_per_token * 2;
  EXPECT_NEAR(one.memory_s, (weight_elements_read_for_tokens(s, 1) * 2 + activations) / 3.35e12, 1e-15);
}

TEST(MixtureOfExperts, DefaultsKeepTheDenseGraph) {
  Values zeros = kMistralShape;
  zeros["experts"] = 0;
  zeros["experts_per_token"] = 0;
  const ModelGraph a = build(kMistralShape);
  const ModelGraph b = build(zeros);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) EXPECT_EQ(a.ops[i].name, b.ops[i].name);
  EXPECT_EQ(a.parameter_count, b.parameter_count);
}

TEST(MixtureOfExperts, RejectsInconsistentExpertCounts) {
  Values v = mixtral();
  v["experts_per_token"] = 9;
  EXPECT_THROW(build(v), std::invalid_argument);
  v["experts_per_token"] = 0;
  EXPECT_THROW(build(v), std::invalid_argument);
  v = kMistralShape;
  v["experts_per_token"] = 2;
  EXPECT_THROW(build(v), std::invalid_argument);
}

// The serving solver holds every expert in memory and streams the touched ones.
TEST(MixtureOfExperts, ServingSolverUsesTotalWeightsForMemory) {
  const ServingSolver solver;
  HardwareSpec hw;  // studies/catalog/hardware.yaml h100_sxm
  hw.id = "h100_sxm";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 989e12;
  hw.memory_bytes = 80 * 1024.0 * 1024 * 1024;
  hw.memory_bandwidth_bytes_per_s = 3.35e12;
  hw.accelerator_link_bandwidth_bytes_per_s = 450e9;
  hw.price_usd = 25000;
  const PreparedModel model = prepare_model(build(mixtral()));
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[ServingSolver::Param::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[ServingSolver::Param::tp] = 2;
  in.values[ServingSolver::Param::prompt_tokens] = 2048;
  in.values[ServingSolver::Param::output_tokens] = 256;
  std::vector<double> batch1(solver.metrics().size()), batch64(solver.metrics().size());
  in.values[ServingSolver::Param::batch] = 1;
  ASSERT_EQ(solver.evaluate(in, batch1).status, PointStatus::ok);
  in.values[ServingSolver::Param::batch] = 64;
  ASSERT_EQ(solver.evaluate(in, batch64).status, PointStatus::ok);
  using M = ServingSolver::Metric;
  EXPECT_DOUBLE_EQ(batch1[M::weights_per_gpu_bytes], model.eager.parameter_count * 2 / 2);  // 46.7 GB
  // Batch 1 streams the 2 routed experts (12.9B - 0.13B token table), batch 64 all 8.
  const ServingShape s = shape_of(model.eager);
  const double kv_1 = (2048 + 128) * kv_cache_bytes_per_token(s, 2) / 2;
  EXPECT_NEAR(batch1[M::decode_memory_s],
              (weight_elements_read_for_tokens(s, 1) * 2 / 2 + s.linear_activation_elements_per_token * 2 / 2 + kv_1) /
                  3.35e12,
              1e-12);
  EXPECT_NEAR(weight_elements_read_for_tokens(s, 1) / (s.active_parameter_count - V * d), 1.0, 1e-9);
  EXPECT_GT(batch64[M::decode_memory_s], 3 * batch1[M::decode_memory_s]);
}

TEST(MixtureOfExperts, Gpt3ParameterCount) {
  const Values gpt3 = {{"layers", 96},  {"d_model", 12288}, {"heads", 96},       {"kv_heads", 96},
                       {"d_ff", 49152}, {"vocab", 50257},   {"seq_len", 2048},   {"embeddings", 1},
                       {"positions", 2048}, {"tied_embeddings", 1}, {"bias", 1}};
  const ModelGraph g = build(gpt3);
  const double h = 12288, f = 49152;
  const double layer = 4 * h * h + 4 * h + 2 * h * f + f + h + 2 * 2 * h;  // QKV+O with biases, MLP, 2 LayerNorms
  EXPECT_DOUBLE_EQ(g.parameter_count, 96 * layer + 50257 * h + 2048 * h + 2 * h);
  EXPECT_NEAR(g.parameter_count / 175e9, 1.0, 0.01);  // Brown et al. 2020, Table 2.1: 175.0B
}

}  // namespace
}  // namespace dsx
