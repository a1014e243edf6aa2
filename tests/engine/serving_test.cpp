#include "engine/serving.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model_builders.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

ModelGraph build_transformer(const Values& given) {
  return build_architecture("transformer", {given.begin(), given.end()});
}

// studies/catalog/models.yaml llama3_8b / llama3_70b.
const Values kLlama3_8b = {{"layers", 32},   {"d_model", 4096}, {"heads", 32},     {"kv_heads", 8},
                           {"d_ff", 14336},  {"vocab", 128256}, {"seq_len", 2048}, {"gated_mlp", 1},
                           {"norm", 1},      {"embeddings", 1}, {"rope", 1}};
const Values kLlama3_70b = {{"layers", 80},   {"d_model", 8192}, {"heads", 64},     {"kv_heads", 8},
                            {"d_ff", 28672},  {"vocab", 128256}, {"seq_len", 2048}, {"gated_mlp", 1},
                            {"norm", 1},      {"embeddings", 1}, {"rope", 1}};

ServingShape shape_of(const Values& v) {
  ServingShape s;
  EXPECT_TRUE(derive_serving_shape(build_transformer(v), s));
  return s;
}

TEST(Serving, ShapeReadBackFromTheGraph) {
  const ServingShape s = shape_of(kLlama3_8b);
  EXPECT_DOUBLE_EQ(s.layers, 32);
  EXPECT_DOUBLE_EQ(s.d_model, 4096);
  EXPECT_DOUBLE_EQ(s.heads, 32);
  EXPECT_DOUBLE_EQ(s.kv_heads, 8);
  EXPECT_DOUBLE_EQ(s.head_dim, 128);
  EXPECT_DOUBLE_EQ(s.built_seq_len, 2048);
  // Per layer: scores 2d + context 2d, scale + mask 1 H each, softmax 5 H per query-key pair.
  EXPECT_DOUBLE_EQ(s.attention_flops_per_query_key, 32 * (4.0 * 4096 + 7.0 * 32));
}

TEST(Serving, LinearFlopsAreTwiceTheMatmulParameters) {
  // Everything but the token table is a matmul weight read once per token: 2 FLOP per weight, plus
  // norms, RoPE, SiLU and residual adds (under 0.5%).
  const ServingShape s = shape_of(kLlama3_8b);
  const double matmul_params = s.parameter_count - 128256.0 * 4096;
  EXPECT_NEAR(s.linear_flops_per_token / (2 * matmul_params), 1.0, 5e-3);
  EXPECT_GT(s.linear_flops_per_token, 2 * matmul_params);
}

TEST(Serving, KvCacheLlama3_8bAt2048TokensFp16) {
  // Issue 4 check: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B/token; x 2,048 = 0.268 GB.
  const ServingShape s = shape_of(kLlama3_8b);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(s, 2.0), 131072.0);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(s, 2048, 2.0), 268435456.0);
  EXPECT_NEAR(kv_cache_bytes(s, 2048, 2.0) / 1e9, 0.268, 0.0005);
}

TEST(Serving, MhaCacheIsHeadsOverKvHeadsLarger) {
  Values mha = kLlama3_8b;
  mha["kv_heads"] = 32;
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(shape_of(mha), 2.0) / kv_cache_bytes_per_token(shape_of(kLlama3_8b), 2.0),
                   4.0);
}

TEST(Serving, Llama3_70bKvCacheFp8) {
  // 2 x 80 x 8 x 128 x 1 B = 163,840 B/token at fp8.
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(shape_of(kLlama3_70b), 1.0), 163840.0);
}

TEST(Serving, AttentionCostGrowsWithContext) {
  const ServingShape s = shape_of(kLlama3_8b);
  EXPECT_DOUBLE_EQ(decode_flops_per_token(s, 8192) - decode_flops_per_token(s, 0), 8192 * s.attention_flops_per_query_key);
  EXPECT_DOUBLE_EQ(prefill_flops(s, 1000), 1000 * s.linear_flops_per_token + 1e6 * s.attention_flops_per_query_key);
}

TEST(Serving, RingAllReduceFormula) {
  // 2 (N-1)/N S/B + 2 (N-1) alpha: N = 8, S = 1 MB, B = 450 GB/s, alpha = 1 us.
  EXPECT_DOUBLE_EQ(ring_allreduce_s(1e6, 8, 450e9, 1e-6), 2.0 * 7 / 8 * 1e6 / 450e9 + 14e-6);
  EXPECT_EQ(ring_allreduce_s(1e6, 1, 450e9, 1e-6), 0.0);
}

ServingDevice h100(double tp) {
  return {.peak_flops_per_s = 989e12, .memory_bandwidth_bytes_per_s = 3.35e12, .link_bytes_per_s = 450e9,
          .link_latency_s = 0.5e-6, .weight_bytes_per_element = 2, .kv_bytes_per_element = 2, .tp = tp};
}

TEST(Serving, DecodeAtBatchOneIsWeightStreaming) {
  const ServingShape s = shape_of(kLlama3_8b);
  const PhaseTime t = decode_step_time(s, h100(1), 1, 2048, 0.03);
  const double expected = (s.weight_elements_read * 2 + s.linear_activation_elements_per_token * 2 + 2048 * 131072.0) / 3.35e12;
  EXPECT_DOUBLE_EQ(t.memory_s, expected);
  EXPECT_GT(t.memory_s, t.compute_s);
  EXPECT_EQ(t.communication_s, 0.0);
  EXPECT_DOUBLE_EQ(t.total_s(), expected);
}

TEST(Serving, TensorParallelSplitsWeightsAndKvAndAddsAllReduces) {
  const ServingShape s = shape_of(kLlama3_70b);
  const PhaseTime t1 = decode_step_time(s, h100(1), 32, 4096, 0.25);
  const PhaseTime t8 = decode_step_time(s, h100(8), 32, 4096, 0.25);
  EXPECT_NEAR(t8.memory_s, t1.memory_s / 8, 1e-15);
  EXPECT_NEAR(t8.compute_s, t1.compute_s / 8, 1e-15);
  // 2 all-reduces per layer of 32 tokens x 8,192 x 2 B.
  EXPECT_DOUBLE_EQ(t8.communication_s, 160 * ring_allreduce_s(32 * 8192 * 2.0, 8, 450e9, 0.5e-6));
  // 8 KV heads: TP 16 cannot split the cache further than 8 ways.
  EXPECT_DOUBLE_EQ(kv_share_per_gpu(s, 16), 1.0 / 8);
}

TEST(Serving, PrefillIsComputeBoundAtLongPrompts) {
  const ServingShape s = shape_of(kLlama3_70b);
  const PhaseTime t = prefill_time(s, h100(1), 2048, 1, 0.4);
  EXPECT_GT(t.compute_s, t.memory_s);
  // A causal fused kernel computes the lower triangle of the 2048 x 2048 query-key pairs.
  EXPECT_DOUBLE_EQ(t.compute_s, (2048 * s.linear_flops_per_token + 2048.0 * 2048 / 2 * s.attention_flops_per_query_key) /
                                    (989e12 * 0.4));
}

TEST(Serving, CausalPrefillSkipsHalfTheAttentionPairs) {
  const ServingShape s = shape_of(kLlama3_8b);
  EXPECT_TRUE(s.causal);
  EXPECT_DOUBLE_EQ(causal_skipped_prefill_flops(s, 1000), 1000.0 * 1000 / 2 * s.attention_flops_per_query_key);
  // With 1,000 tokens cached, the 24 new ones attend 1,024 keys each, less their own upper triangle.
  const PhaseTime t = prefill_after_prefix_time(s, h100(1), 24, 1000, 1, 0.5);
  EXPECT_DOUBLE_EQ(t.compute_s, (24 * s.linear_flops_per_token + (24.0 * 1024 - 24.0 * 24 / 2) * s.attention_flops_per_query_key) /
                                    (989e12 * 0.5));
  // Without a causal mask every pair is computed.
  ServingShape full = s;
  full.causal = false;
  EXPECT_DOUBLE_EQ(causal_skipped_prefill_flops(full, 1000), 0.0);
}

TEST(Serving, StaticBatchWaitsForTheLongestRequest) {
  EXPECT_DOUBLE_EQ(static_batch_decode_steps(100, 1), 100);
  EXPECT_DOUBLE_EQ(static_batch_decode_steps(100, 3), 150);
}

TEST(Serving, NonTransformerHasNoServingShape) {
  ModelGraph g;
  ServingShape s;
  EXPECT_FALSE(derive_serving_shape(g, s));
}

}  // namespace
}  // namespace dsx
