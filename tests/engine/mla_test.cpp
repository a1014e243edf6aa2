// DeepSeek-V3 (arXiv:2412.19437 and its config.json; studies/catalog/models.yaml deepseek_v3): multi-head
// latent attention and DeepSeekMoE in the transformer builder (engine/model_builders.cpp) and their
// serving view (engine/serving.hpp): total and active parameters, the latent KV cache, materialised
// prefill and absorbed decode attention FLOPs.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
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

using Values = std::map<std::string, double, std::less<>>;

const Values& kDeepSeekV3 = published::kDeepSeekV3;

ModelGraph build(const Values& given) { return build_architecture("transformer", {given.begin(), given.end()}); }

ServingShape shape_of(const ModelGraph& g) {
  ServingShape s;
  EXPECT_TRUE(derive_serving_shape(g, s));
  return s;
}

// Hand calculation from the config: d = 7168, H = 128, r_q = 1536, r_kv = 512, dn = 128, dr = 64,
// dv = 128, 3 dense layers (SwiGLU 18432), 58 MoE layers (256 routed + 1 shared SwiGLU experts of 2048,
// router d x 256), vocab 129280, untied head, RMSNorm.
constexpr double d = 7168, H = 128, rq = 1536, rkv = 512, dn = 128, dr = 64, dv = 128, V = 129280, T = 4096;
constexpr double kAttention = d * rq + rq + rq * H * (dn + dr) + d * (rkv + dr) + rkv + rkv * H * (dn + dv) + H * dv * d;
constexpr double kExpert = 3 * d * 2048;
constexpr double kDenseMlp = 3 * d * 18432;
constexpr double kMoe = 256 * kExpert + kExpert + d * 256;
constexpr double kTotal = 61 * (kAttention + 2 * d) + 3 * kDenseMlp + 58 * kMoe + 2 * V * d + d;

TEST(DeepSeekV3, AttentionParametersPerLayer) {
  EXPECT_DOUBLE_EQ(kAttention, 187107328);  // 187.1 M per MLA layer
}

TEST(DeepSeekV3, TotalParametersAre671B) {
  const ModelGraph g = build(kDeepSeekV3);
  EXPECT_DOUBLE_EQ(g.parameter_count, kTotal);
  EXPECT_NEAR(g.parameter_count / 671e9, 1.0, 0.01);  // report abstract: 671B total
}

TEST(DeepSeekV3, ActiveParametersAre37B) {
  const ServingShape s = shape_of(build(kDeepSeekV3));
  const double active = kTotal - 58 * 248 * kExpert;  // 8 of 256 routed experts per token
  EXPECT_DOUBLE_EQ(s.active_parameter_count, active);
  EXPECT_NEAR(s.active_parameter_count / 37e9, 1.0, 0.02);  // report abstract: 37B activated (37.55B here)
  // DeepSeek's README_WEIGHTS.md: 36.6B activated including the 0.9B output head (no input embedding).
  EXPECT_NEAR((s.active_parameter_count - V * d) / 36.6e9, 1.0, 0.002);
}

TEST(DeepSeekV3, ShapeIsReadBackFromTheGraph) {
  const ServingShape s = shape_of(build(kDeepSeekV3));
  EXPECT_TRUE(s.latent_attention);
  EXPECT_DOUBLE_EQ(s.layers, 61);
  EXPECT_DOUBLE_EQ(s.moe_layers, 58);
  EXPECT_DOUBLE_EQ(s.built_seq_len, T);
  EXPECT_DOUBLE_EQ(s.d_model, d);
  EXPECT_DOUBLE_EQ(s.heads, H);
  EXPECT_DOUBLE_EQ(s.kv_heads, 1);
  EXPECT_DOUBLE_EQ(s.experts, 256);
  EXPECT_DOUBLE_EQ(s.experts_per_token, 8);
  EXPECT_DOUBLE_EQ(s.attention_width, H * (dn + dr + dv) / 2);
}

TEST(DeepSeekV3, KvCacheIsTheLatentPlusTheRopeKey) {
  const ServingShape s = shape_of(build(kDeepSeekV3));
  // (512 + 64) elements x 61 layers x 2 bytes = 70,272 B per token at 16 bits.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(s, 2), 576.0 * 61 * 2);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(s, 2), 70272);
  // MHA with the same 128 heads of 128 would cache 2 x 128 x 128 x 61 x 2 B: 56.9 x more.
  EXPECT_NEAR(2 * H * 128 * 61 * 2 / kv_cache_bytes_per_token(s, 2), 56.9, 0.05);
  EXPECT_DOUBLE_EQ(kv_share_per_gpu(s, 8), 1.0);  // one latent for all heads: replicated under TP
}

TEST(DeepSeekV3, PrefillMaterialisedDecodeAbsorbed) {
  const ServingShape s = shape_of(build(kDeepSeekV3));
  // Per query-key pair and layer: QK^T + AV, plus scale 1, mask 1, softmax 5 per head.
  const double elementwise = 7 * H;
  EXPECT_DOUBLE_EQ(s.attention_flops_per_query_key, 61 * (2 * H * (dn + dr) + 2 * H * dv + elementwise));
  EXPECT_DOUBLE_EQ(s.decode_attention_flops_per_query_key, 61 * (2 * H * (rkv + dr) + 2 * H * rkv + elementwise));
  const double context = 8192;
  EXPECT_DOUBLE_EQ(decode_flops_per_token(s, context) - decode_flops_per_token(s, 0),
                   s.decode_attention_flops_per_query_key * context);
  EXPECT_DOUBLE_EQ(prefill_flops(s, 1000) - 1000 * s.linear_flops_per_token, 1000.0 * 1000 * s.attention_flops_per_query_key);
}

TEST(DeepSeekV3, ServingSolverChargesTheLatentCache) {
  const ServingSolver solver;
  HardwareSpec hw;  // studies/catalog/hardware.yaml h200
  hw.id = "h200";
  hw.peak_flops_per_s[index_of(Precision::fp8)] = 1979e12;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 989e12;
  hw.memory_bytes = 141e9;
  hw.memory_bandwidth_bytes_per_s = 4.8e12;
  hw.accelerator_link_bandwidth_bytes_per_s = 450e9;
  hw.price_usd = 35000;
  const PreparedModel model = prepare_model(build(kDeepSeekV3));
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[ServingSolver::Param::precision] = static_cast<double>(index_of(Precision::fp8));
  in.values[ServingSolver::Param::tp] = 8;
  in.values[ServingSolver::Param::batch] = 16;
  in.values[ServingSolver::Param::prompt_tokens] = 2048;
  in.values[ServingSolver::Param::output_tokens] = 256;
  std::vector<double> out(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);  // 671 GB of fp8 weights over 8 H200s
  using M = ServingSolver::Metric;
  EXPECT_DOUBLE_EQ(out[M::kv_cache_per_token_bytes], 70272);
  EXPECT_DOUBLE_EQ(out[M::kv_cache_bytes], 70272.0 * (2048 + 256));
  EXPECT_DOUBLE_EQ(out[M::memory_bytes], kTotal * 1 / 8 + 16 * 70272.0 * (2048 + 256));
}

TEST(DeepSeekV3, RejectsInconsistentLatentShapes) {
  Values no_head_dims = kDeepSeekV3;
  no_head_dims["v_head_dim"] = 0;
  EXPECT_THROW(build(no_head_dims), std::invalid_argument);
  Values no_latent = kDeepSeekV3;
  no_latent["kv_lora_rank"] = 0;
  EXPECT_THROW(build(no_latent), std::invalid_argument);
  Values all_dense = kDeepSeekV3;
  all_dense["dense_layers"] = 61;
  EXPECT_THROW(build(all_dense), std::invalid_argument);
  Values dense_model = {{"layers", 2}, {"d_model", 64}, {"heads", 4}, {"kv_heads", 4}, {"d_ff", 128},
                        {"vocab", 100}, {"seq_len", 8},  {"shared_experts", 1}};
  EXPECT_THROW(build(dense_model), std::invalid_argument);
}

}  // namespace
}  // namespace dsx
