// Transformer builder features beyond the GPT/Llama block, each against a hand calculation:
// head_dim != d_model / heads, q/k/v-only biases, the parallel attention + MLP block, multi-query
// attention, and sliding-window attention (all layers, or alternating with global layers), with what
// the serving view (engine/serving.hpp) reads back from each.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <map>
#include <string>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

ModelGraph build(const Values& v) { return build_architecture("transformer", {v.begin(), v.end()}); }

double flops_of(const ModelGraph& g, OpKind kind) {
  double sum = 0;
  for (const Op& op : g.ops) {
    if (op.kind == kind) sum += op.flops_per_sample * op.repeat;
  }
  return sum;
}

// Scores, scale, mask, softmax and context: what serving scales with the query-key pairs.
double attention_family_flops(const ModelGraph& g) {
  double sum = 0;
  for (const Op& op : g.ops) {
    if (op.name.starts_with("attention_")) sum += op.flops_per_sample * op.repeat;
  }
  return sum;
}

double count_named(const ModelGraph& g, const std::string& name) {
  double n = 0;
  for (const Op& op : g.ops) {
    if (op.name == name) n += op.repeat;
  }
  return n;
}

// A small Llama-style stack without embeddings: L = 4, d = 512, H = 8, 2 KV heads, F = 1024, T = 256.
Values small() {
  return {{"layers", 4},   {"d_model", 512}, {"heads", 8},     {"kv_heads", 2},    {"d_ff", 1024},
          {"vocab", 1000}, {"seq_len", 256}, {"gated_mlp", 1}, {"norm", 1},        {"embeddings", 0},
          {"rope", 1}};
}

Values with(Values v, const std::string& key, double value) {
  v[key] = value;
  return v;
}

TEST(TransformerFeatures, HeadDimWidensQueriesAndAttentionNotTheResidualStream) {
  // Gemma 2 9B's shape in small: 8 heads of 96 = 768 wide on a 512 stream.
  const double L = 4, d = 512, H = 8, kv = 2, dh = 96, F = 1024, T = 256;
  const ModelGraph g = build(with(small(), "head_dim", dh));
  const double per_layer = d * (H * dh + 2 * kv * dh) + H * dh * d + 3 * d * F + 2 * d;
  EXPECT_EQ(g.parameter_count, L * per_layer);
  EXPECT_DOUBLE_EQ(flops_of(g, OpKind::attention), L * 2 * (2 * T * T * H * dh));
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_DOUBLE_EQ(s.d_model, d);
  EXPECT_DOUBLE_EQ(s.heads, H);
  EXPECT_DOUBLE_EQ(s.head_dim, dh);
  EXPECT_DOUBLE_EQ(s.kv_heads, kv);
  EXPECT_DOUBLE_EQ(s.built_seq_len, T);
  EXPECT_DOUBLE_EQ(s.kv_elements_per_token, 2 * L * kv * dh);
  // head_dim lets heads leave d_model undivided (Gemma 2 27B: 4608 / 32 = 144, head_dim 128).
  EXPECT_NO_THROW(build(with(with(with(small(), "heads", 7), "kv_heads", 7), "head_dim", 64)));
}

TEST(TransformerFeatures, QkvBiasAddsBiasesOnQueryKeyValueOnly) {
  const double L = 4, H = 8, kv = 2, dh = 64;
  const ModelGraph plain = build(small());
  const ModelGraph biased = build(with(small(), "qkv_bias", 1));
  EXPECT_EQ(biased.parameter_count - plain.parameter_count, L * (H * dh + 2 * kv * dh));
  EXPECT_EQ(biased.total_flops_per_sample(), plain.total_flops_per_sample());
  // bias = 1 already includes them: both together change nothing more on q, k, v.
  EXPECT_EQ(build(with(with(small(), "bias", 1), "qkv_bias", 1)).parameter_count,
            build(with(small(), "bias", 1)).parameter_count);
}

TEST(TransformerFeatures, ParallelBlockSharesOneNormAndOneResidualAdd) {
  const double L = 4, d = 512, T = 256;
  const ModelGraph seq = build(small());
  const ModelGraph par = build(with(small(), "parallel_block", 1));
  // One norm fewer per layer; the same GEMM and attention FLOPs.
  EXPECT_EQ(seq.parameter_count - par.parameter_count, L * d);
  EXPECT_DOUBLE_EQ(flops_of(par, OpKind::matmul), flops_of(seq, OpKind::matmul));
  EXPECT_DOUBLE_EQ(flops_of(par, OpKind::attention), flops_of(seq, OpKind::attention));
  // Eager kernels: one norm and one add fewer per layer; the add reads x, attention and MLP outputs.
  EXPECT_EQ(seq.total_kernels() - par.total_kernels(), 2 * L);
  EXPECT_EQ(count_named(par, "residual_add"), L);
  for (const Op& op : par.ops) {
    if (op.name == "residual_add") {
      EXPECT_DOUBLE_EQ(op.input_elements_per_sample, 3 * T * d);
    }
  }
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(par, s));
  EXPECT_DOUBLE_EQ(s.d_model, d);
  EXPECT_DOUBLE_EQ(s.layers, L);
}

TEST(TransformerFeatures, MultiQueryAttentionKeepsOneKeyValueHead) {
  // PaLM 540B: 48 heads of 256, one K/V head, on an 18432 stream (PaLM Table 1): K and V are
  // d x 256 each, the KV cache 2 x 256 elements per layer and token.
  const Values palm = {{"layers", 118},   {"d_model", 18432}, {"heads", 48},       {"kv_heads", 1},
                       {"d_ff", 73728},   {"vocab", 256000},  {"seq_len", 2048},   {"gated_mlp", 1},
                       {"rope", 1},       {"tied_embeddings", 1}, {"head_dim", 256}, {"parallel_block", 1}};
  const ModelGraph g = build(palm);
  const double d = 18432, q = 48 * 256, F = 73728, V = 256000;
  const double per_layer = d * (q + 2 * 256) + q * d + 3 * d * F + 2 * d;  // one LayerNorm (2 d)
  EXPECT_EQ(g.parameter_count, 118 * per_layer + V * d + 2 * d);
  EXPECT_LT(std::abs(g.parameter_count - 540.35e9) / 540.35e9, 0.001);  // PaLM Table 1
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_DOUBLE_EQ(s.kv_heads, 1);
  EXPECT_DOUBLE_EQ(s.head_dim, 256);
  EXPECT_DOUBLE_EQ(s.kv_elements_per_token, 118 * 2 * 256);
}

TEST(TransformerFeatures, SlidingWindowBoundsAttentionAndTheKvCache) {
  const double L = 4, d = 512, kv = 2, dh = 64, T = 256, W = 64;
  const ModelGraph full = build(small());
  const ModelGraph win = build(with(small(), "sliding_window", W));
  // QK^T and AV cover T x W pairs per head instead of T x T; parameters and GEMMs are unchanged.
  EXPECT_DOUBLE_EQ(flops_of(win, OpKind::attention), L * 2 * (2 * T * W * d));
  EXPECT_DOUBLE_EQ(flops_of(full, OpKind::attention), L * 2 * (2 * T * T * d));
  EXPECT_EQ(win.parameter_count, full.parameter_count);
  EXPECT_DOUBLE_EQ(flops_of(win, OpKind::matmul), flops_of(full, OpKind::matmul));
  for (const Op& op : win.ops) {
    if (op.name == "attention_softmax") {
      EXPECT_DOUBLE_EQ(op.input_elements_per_sample, 8 * T * W);
    }
  }
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(win, s));
  EXPECT_DOUBLE_EQ(s.built_seq_len, T);
  EXPECT_DOUBLE_EQ(s.heads, 8);
  EXPECT_DOUBLE_EQ(s.attention_window, W);
  EXPECT_DOUBLE_EQ(s.windowed_layers, L);
  // One sequence's KV cache stops growing at W tokens; per-token figure counts every layer.
  const double per_token = 2 * L * kv * dh;
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(s, 2), per_token * 2);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(s, 32, 2), 32 * per_token * 2);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(s, 10000, 2), W * per_token * 2);
  // Prefill at the built length reproduces the graph; decode attention stops growing past W.
  ServingShape f;
  ASSERT_TRUE(derive_serving_shape(full, f));
  EXPECT_NEAR(prefill_flops(f, T) - prefill_flops(s, T), attention_family_flops(full) - attention_family_flops(win),
              1e-9 * prefill_flops(f, T));
  EXPECT_DOUBLE_EQ(decode_flops_per_token(s, 5000), decode_flops_per_token(s, W));
  EXPECT_GT(decode_flops_per_token(s, W), decode_flops_per_token(s, W / 2));
  // A window wider than the built sequence leaves the graph as dense attention but is still known.
  const ModelGraph wide = build(with(small(), "sliding_window", 4096));
  EXPECT_DOUBLE_EQ(flops_of(wide, OpKind::attention), flops_of(full, OpKind::attention));
  ServingShape ws;
  ASSERT_TRUE(derive_serving_shape(wide, ws));
  EXPECT_DOUBLE_EQ(ws.attention_window, 4096);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(ws, 8192, 1), 4096 * 2 * L * kv * dh);
}

TEST(TransformerFeatures, GlobalEveryAlternatesWindowedAndGlobalLayers) {
  // Gemma 2: even layers local, odd layers global (global_every 2). 5 layers: 3 windowed, 2 global.
  const double d = 512, kv = 2, dh = 64, T = 256, W = 64;
  const ModelGraph g = build(with(with(with(small(), "layers", 5), "sliding_window", W), "global_every", 2));
  EXPECT_DOUBLE_EQ(flops_of(g, OpKind::attention), 3 * 2 * (2 * T * W * d) + 2 * 2 * (2 * T * T * d));
  EXPECT_EQ(g.parameter_count, build(with(small(), "layers", 5)).parameter_count);
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_DOUBLE_EQ(s.layers, 5);
  EXPECT_DOUBLE_EQ(s.windowed_layers, 3);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(s, 1000, 1), (2 * 1000 + 3 * W) * 2 * kv * dh);
  // The two periods repeat as one block of two layers; the fifth layer stands alone.
  EXPECT_LT(g.ops.size(), 3u * 20u);
  // Fusion keeps the window on the fused score kernels (scale and mask join attention_scores).
  double windowed_fused = 0;
  for (const Op& op : fuse_elementwise_chains(g).ops) {
    if (op.name.starts_with("attention_scores") && op.attention_window == W) windowed_fused += op.repeat;
  }
  EXPECT_DOUBLE_EQ(windowed_fused, 3);
}

TEST(TransformerFeatures, InvalidCombinationsThrow) {
  EXPECT_THROW(build(with(small(), "global_every", 2)), std::invalid_argument);  // no window
  EXPECT_THROW(build(with(small(), "heads", 7)), std::invalid_argument);          // 512 % 7, no head_dim
  Values mla = {{"layers", 2},       {"d_model", 256},      {"heads", 4},          {"kv_heads", 4},
                {"d_ff", 512},       {"vocab", 100},        {"seq_len", 64},       {"embeddings", 0},
                {"kv_lora_rank", 32}, {"qk_nope_head_dim", 16}, {"qk_rope_head_dim", 8}, {"v_head_dim", 16}};
  EXPECT_NO_THROW(build(mla));
  EXPECT_THROW(build(with(mla, "sliding_window", 16)), std::invalid_argument);
  EXPECT_THROW(build(with(mla, "head_dim", 16)), std::invalid_argument);
}

}  // namespace
}  // namespace dsx
