// The jamba architecture (engine/model_builders_hybrid.cpp): its parameters against a count written
// from Hugging Face's modeling_jamba.py tensor by tensor, its layers against the transformer and mamba
// builders' (shared pieces), and the serving and training views of a hybrid: KV cache for the attention
// layers only, a constant recurrent state for the Mamba layers (engine/serving.hpp).
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
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

// ai21labs/Jamba-v0.1 = transformers JambaConfig defaults.
Values jamba_v01(double seq_len = 2048) {
  return {{"layers", 32},  {"d_model", 4096}, {"heads", 32},  {"kv_heads", 8},      {"d_ff", 14336},
          {"vocab", 65536}, {"seq_len", seq_len}, {"dt_rank", 256}};
}

// Parameters by the tensors of modeling_jamba.py, layer by layer (JambaConfig.layers_block_type and
// layers_num_experts decide each layer's kind).
struct HandCount {
  double total = 0;
  double active = 0;
};
HandCount hand_count(double layers, double d, double heads, double kv_heads, double ap, double ao, double ep, double eo,
                     double E, double K, double F, double N, double k, double expand, double R, double V, bool tied) {
  const double dh = d / heads, D = expand * d;
  const double attention = d * d + 2 * d * kv_heads * dh + d * d;  // q, k, v, o_proj, no bias
  const double mamba = d * 2 * D                                  // in_proj
                       + D * k + D                                 // conv1d weight and bias
                       + D * (R + 2 * N)                           // x_proj
                       + R * D + D                                 // dt_proj weight and bias
                       + D * N + D                                 // A_log, D
                       + D * d                                     // out_proj
                       + R + N + N;                                // dt_layernorm, b_layernorm, c_layernorm
  const double mlp = 3 * d * F;                                    // gate, up, down_proj
  HandCount c;
  c.total = V * d + d + (tied ? 0 : V * d);  // embed_tokens, final_layernorm, lm_head
  c.active = c.total;
  for (int i = 0; i < static_cast<int>(layers); ++i) {
    const bool attn = std::fmod(i, ap) == ao;
    const bool moe = E > 1 && std::fmod(i, ep) == eo;
    const double mixer = attn ? attention : mamba;
    const double ff = moe ? E * mlp + d * E : mlp;  // experts + router
    c.total += 2 * d + mixer + ff;                  // input_layernorm, pre_ff_layernorm
    c.active += 2 * d + mixer + (moe ? K * mlp + d * E : mlp);
  }
  return c;
}

const Op* find_op(const ModelGraph& g, const std::string& name) {
  for (const Op& op : g.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

double repeats(const ModelGraph& g, const std::string& name) {
  double n = 0;
  for (const Op& op : g.ops) {
    if (op.name == name) n += op.repeat;
  }
  return n;
}

TEST(Jamba, V01ParametersMatchTheTensorCount) {
  const ModelGraph g = build_architecture("jamba", jamba_v01());
  const HandCount c = hand_count(32, 4096, 32, 8, 8, 4, 2, 1, 16, 2, 14336, 16, 4, 2, 256, 65536, false);
  EXPECT_EQ(c.total, 51'570'323'328.0);  // the count written out in the catalog entry's source
  EXPECT_EQ(c.active, 12'110'311'296.0);
  EXPECT_EQ(g.parameter_count, c.total);
  EXPECT_EQ(g.active_parameters(), c.active);
  // Lieber et al. 2024 (arXiv:2403.19887), Introduction: 52B total available, 12B active.
  EXPECT_LT(std::abs(g.parameter_count - 52e9) / 52e9, 0.01);
  EXPECT_LT(std::abs(g.active_parameters() - 12e9) / 12e9, 0.01);
  // dt_rank 0 means ceil(d_model / 16), JambaConfig's "auto".
  Values automatic = jamba_v01();
  automatic.erase("dt_rank");
  EXPECT_EQ(build_architecture("jamba", automatic).parameter_count, c.total);
}

TEST(Jamba, LayerPatternFollowsPeriodsAndOffsets) {
  const ModelGraph g = build_architecture("jamba", jamba_v01());
  EXPECT_EQ(repeats(g, "qkv_proj"), 4);          // layers 4, 12, 20, 28
  EXPECT_EQ(repeats(g, "selective_scan"), 28);
  EXPECT_EQ(repeats(g, "moe_router"), 16);       // the odd layers
  EXPECT_EQ(repeats(g, "mlp_gate_proj"), 16);    // the even ones, the 4 attention layers among them
  EXPECT_EQ(repeats(g, "ssm_dt_norm"), 28);
  EXPECT_EQ(find_op(g, "rotary_embedding"), nullptr);  // JambaAttention has no positional encoding
  // A pattern that does not divide the stack: 10 layers, attention every 4 at 1, experts every 3 at 2
  // (period 12, so every layer on its own), tied head, 4 experts top-1.
  const Values odd = {{"layers", 10},          {"d_model", 256},    {"heads", 4},          {"kv_heads", 2},
                      {"attention_period", 4}, {"attention_offset", 1}, {"expert_period", 3}, {"expert_offset", 2},
                      {"experts", 4},          {"experts_per_token", 1}, {"d_ff", 512},     {"vocab", 1000},
                      {"seq_len", 64},         {"tied_embeddings", 1}};
  const ModelGraph h = build_architecture("jamba", odd);
  const HandCount c = hand_count(10, 256, 4, 2, 4, 1, 3, 2, 4, 1, 512, 16, 4, 2, 16, 1000, true);
  EXPECT_EQ(h.parameter_count, c.total);
  EXPECT_EQ(h.active_parameters(), c.active);
  EXPECT_EQ(repeats(h, "qkv_proj"), 3);        // layers 1, 5, 9
  EXPECT_EQ(repeats(h, "moe_router"), 3);      // layers 2, 5, 8
  EXPECT_EQ(repeats(h, "selective_scan"), 7);
  // experts: 1 makes every feed-forward dense (JambaMLP).
  Values dense = jamba_v01();
  dense["experts"] = 1;
  dense["experts_per_token"] = 1;
  const ModelGraph m = build_architecture("jamba", dense);
  EXPECT_EQ(repeats(m, "moe_router"), 0);
  EXPECT_EQ(m.parameter_count, hand_count(32, 4096, 32, 8, 8, 4, 2, 1, 1, 1, 14336, 16, 4, 2, 256, 65536, false).total);
}

TEST(Jamba, LayersAreTheTransformerAndMambaBuildersOps) {
  const ModelGraph j = build_architecture("jamba", jamba_v01());
  const ModelGraph t = build_architecture("transformer", {{"layers", 1}, {"d_model", 4096}, {"heads", 32},
                                                          {"kv_heads", 8}, {"d_ff", 14336}, {"vocab", 65536},
                                                          {"seq_len", 2048}, {"gated_mlp", 1}, {"norm", 1},
                                                          {"experts", 16}, {"experts_per_token", 2}});
  const ModelGraph s = build_architecture("mamba", {{"layers", 1}, {"d_model", 4096}, {"dt_rank", 256},
                                                    {"vocab", 65536}, {"seq_len", 2048}});
  for (const std::string name : {"rmsnorm_attn", "qkv_proj", "attention_scores", "attention_softmax",
                                 "attention_context", "out_proj", "moe_router", "expert_gate_proj", "expert_down_proj",
                                 "moe_combine"}) {
    const Op* a = find_op(j, name);
    const Op* b = find_op(t, name);
    ASSERT_TRUE(a != nullptr && b != nullptr) << name;
    EXPECT_EQ(a->flops_per_sample, b->flops_per_sample) << name;
    EXPECT_EQ(a->input_elements_per_sample, b->input_elements_per_sample) << name;
    EXPECT_EQ(a->output_elements_per_sample, b->output_elements_per_sample) << name;
    EXPECT_EQ(a->weight_elements, b->weight_elements) << name;
  }
  for (const std::string name : {"ssm_in_proj", "ssm_conv1d", "ssm_x_proj", "ssm_dt_proj", "selective_scan",
                                 "ssm_gate", "ssm_out_proj"}) {
    const Op* a = find_op(j, name);
    const Op* b = find_op(s, name);
    ASSERT_TRUE(a != nullptr && b != nullptr) << name;
    EXPECT_EQ(a->flops_per_sample, b->flops_per_sample) << name;
    EXPECT_EQ(a->weight_elements, b->weight_elements) << name;
  }
  // Jamba's RMSNorms on dt (256), B and C (16 each) sit between x_proj and dt_proj.
  ASSERT_NE(find_op(j, "ssm_b_norm"), nullptr);
  EXPECT_EQ(find_op(j, "ssm_dt_norm")->weight_elements, 256);
  EXPECT_EQ(find_op(j, "ssm_c_norm")->weight_elements, 16);
  EXPECT_EQ(find_op(s, "ssm_dt_norm"), nullptr);
}

TEST(Jamba, RejectsPatternsJambaConfigRejects) {
  Values v = jamba_v01();
  v["attention_offset"] = 8;  // JambaConfig._check_supported_offset: offset < period
  EXPECT_THROW(build_architecture("jamba", v), std::invalid_argument);
  v = jamba_v01();
  v["expert_offset"] = 2;
  EXPECT_THROW(build_architecture("jamba", v), std::invalid_argument);
  v = jamba_v01();
  v["experts_per_token"] = 17;
  EXPECT_THROW(build_architecture("jamba", v), std::invalid_argument);
  v = jamba_v01();
  v["kv_heads"] = 5;
  EXPECT_THROW(build_architecture("jamba", v), std::invalid_argument);
  v = jamba_v01();
  v["layers"] = 4;  // layers 0-3 are all Mamba: no attention layer
  EXPECT_THROW(build_architecture("jamba", v), std::invalid_argument);
}

TEST(Jamba, ServingShapeCountsKvForTheAttentionLayersOnly) {
  const ModelGraph g = build_architecture("jamba", jamba_v01());
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_EQ(s.layers, 32);
  EXPECT_EQ(s.attention_layers, 4);
  EXPECT_EQ(s.recurrent_layers, 28);
  EXPECT_EQ(s.d_model, 4096);
  EXPECT_EQ(s.heads, 32);
  EXPECT_EQ(s.kv_heads, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.built_seq_len, 2048);
  // 4 attention layers x K and V x 8 KV heads x 128 x 2 B (bf16).
  EXPECT_EQ(kv_cache_bytes_per_token(s, 2), 4.0 * 2 * 8 * 128 * 2);
  EXPECT_EQ(kv_cache_bytes_per_token(s, 2), 16384.0);
  // 256K tokens: 4 GiB, the paper's "4GB" (arXiv:2403.19887, Table 1).
  EXPECT_EQ(kv_cache_bytes(s, 262144, 2), 4.0 * 1024 * 1024 * 1024);
  // Each Mamba layer: conv state 8192 x 4 and SSM state 8192 x 16 (HybridMambaAttentionDynamicCache).
  EXPECT_EQ(s.recurrent_state_elements, 28.0 * 8192 * (4 + 16));
  EXPECT_EQ(recurrent_state_bytes(s, 2), 28.0 * 8192 * 20 * 2);
  EXPECT_EQ(sequence_cache_bytes(s, 1000, 2), 1000 * 16384.0 + 28.0 * 8192 * 20 * 2);
  // The mixture of experts: 16 experts, top-2, in 16 layers; active parameters as the builder counts.
  EXPECT_EQ(s.experts, 16);
  EXPECT_EQ(s.experts_per_token, 2);
  EXPECT_EQ(s.moe_layers, 16);
  EXPECT_EQ(s.active_parameter_count, 12'110'311'296.0);
  // Attention: 4 layers of QK^T + AV, 4 T^2 d FLOPs each, as a mean width over all 32 layers.
  EXPECT_DOUBLE_EQ(s.attention_width * 4 * 2048.0 * 2048 * 32, 4 * 4 * 2048.0 * 2048 * 4096);
  EXPECT_DOUBLE_EQ(s.attention_flops_per_query_key * 2048.0 * 2048,
                   4 * (4 * 2048.0 * 2048 * 4096 + 7 * 32 * 2048.0 * 2048));  // QK^T, AV; scale, mask, softmax
  // Decode cost grows with context through the 4 attention layers only.
  EXPECT_DOUBLE_EQ(decode_flops_per_token(s, 2000) - decode_flops_per_token(s, 1000),
                   1000 * s.attention_flops_per_query_key);
  // A transformer has no recurrent state: its sequence cache is its KV cache.
  ServingShape t;
  ASSERT_TRUE(derive_serving_shape(published::llama3(32, 4096, 32, 14336).eager, t));
  EXPECT_EQ(t.attention_layers, t.layers);
  EXPECT_EQ(sequence_cache_bytes(t, 1000, 2), kv_cache_bytes(t, 1000, 2));
}

TEST(Jamba, ServingSolverHoldsTheStatePerSequence) {
  const ServingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("jamba", jamba_v01()));
  ASSERT_TRUE(model.is_transformer);
  using P = ServingSolver::Param;
  using M = ServingSolver::Metric;
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[P::precision] = static_cast<double>(index_of(Precision::bf16));
  in.values[P::batch] = 4;
  in.values[P::tp] = 2;
  in.values[P::prompt_tokens] = 2048;
  in.values[P::output_tokens] = 256;
  std::vector<double> out(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_EQ(out[M::kv_cache_per_token_bytes], 16384.0);
  EXPECT_EQ(out[M::kv_cache_bytes], 16384.0 * 2304 + 28.0 * 8192 * 20 * 2);
}

TEST(Jamba, TrainingRefusesContextParallelismOnly) {
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("jamba", jamba_v01(4096)));
  using P = TrainingSolver::Param;
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[P::gpus] = 64;
  in.values[P::tp] = 4;
  in.values[P::pp] = 2;
  in.values[P::ep] = 1;
  in.values[P::global_batch] = 64;
  in.values[P::micro_batch] = 1;
  in.values[P::zero_stage] = 3;
  std::vector<double> out(solver.metrics().size());
  const PointResult ok = solver.evaluate(in, out);
  EXPECT_EQ(ok.status, PointStatus::ok) << static_cast<int>(ok.reason);
  in.values[P::cp] = 2;
  const PointResult refused = solver.evaluate(in, out);
  EXPECT_EQ(refused.status, PointStatus::infeasible);
  EXPECT_EQ(refused.reason, TrainingSolver::cp_needs_attention_only);
}

}  // namespace
}  // namespace dsx
