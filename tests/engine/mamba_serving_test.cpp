// Serving an attention-free model (architecture `mamba`, engine/serving.hpp): no KV cache, a constant
// conv + SSM state per sequence, prefill as the graph's scan over the prompt, decode steps that read the
// weights and the state whatever the context. Checked against hand counts from the Mamba paper's block
// (Gu & Dao 2023, arXiv:2312.00752, section 3.4 and Figure 3) and the state shapes of state-spaces/mamba
// (mamba_ssm/modules/mamba_simple.py, Mamba.allocate_inference_cache: conv_state (batch, d_inner,
// d_conv), ssm_state (batch, d_inner, d_state)); and which other solvers take or refuse such a model.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/compression.hpp"
#include "engine/solvers/serving.hpp"
#include "engine/solvers/synthesis.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

// studies/catalog/models.yaml mamba_2_8b (state-spaces/mamba-2.8b config).
constexpr double kLayers = 64, kD = 2560, kN = 16, kExpand = 2, kConv = 4, kVocab = 50280;
constexpr double kInner = kExpand * kD;    // D = 5,120
constexpr double kRank = 160;              // ceil(2560 / 16)
const Values kMamba28b = {{"layers", kLayers}, {"d_model", kD},  {"d_state", kN},    {"expand", kExpand},
                          {"d_conv", kConv},   {"vocab", kVocab}, {"seq_len", 2048}, {"tied_embeddings", 1}};

// One sequence's state: per layer D x d_conv (conv) + D x d_state (SSM).
constexpr double kStateElements = kLayers * kInner * (kConv + kN);

// FLOPs of one token through the model, op by op as the Mamba block runs (MACs = 2 FLOPs; the scan's
// 9 D N + 2 D of engine/operators.hpp; SiLU 4, gate 5, RMSNorm 4 per element).
double hand_flops_per_token() {
  const double d = kD, D = kInner, N = kN, R = kRank, k = kConv;
  const double layer = 4 * d             // RMSNorm
                       + 2 * d * 2 * D   // in_proj
                       + 2 * D * k       // causal depthwise conv1d
                       + 4 * D           // SiLU
                       + 2 * D * (R + 2 * N)  // x_proj
                       + 2 * R * D       // dt_proj
                       + 9 * D * N + 2 * D    // selective scan
                       + 5 * D           // y x SiLU(z)
                       + 2 * D * d       // out_proj
                       + d;              // residual add
  return kLayers * layer + 4 * d + 2 * d * kVocab;  // final RMSNorm, LM head
}

// Inputs + outputs of every op, per token (the unfused activation traffic the serving roofline counts).
double hand_activation_elements_per_token() {
  const double d = kD, D = kInner, N = kN, R = kRank;
  const double layer = 2 * d             // RMSNorm
                       + d + 2 * D       // in_proj
                       + 2 * D + 2 * D   // conv1d, SiLU
                       + D + R + 2 * N   // x_proj
                       + R + D           // dt_proj
                       + 2 * D + 2 * N + D  // scan: x and Delta, B and C in; y out
                       + 3 * D           // gate
                       + D + d           // out_proj
                       + 3 * d;          // residual add
  return kLayers * layer + 2 * d + 2 * d + d + kVocab;  // embedding, final RMSNorm, LM head
}

TEST(MambaServing, ShapeHasNoKvCacheAndAConstantState) {
  const ModelGraph g = build_architecture("mamba", kMamba28b);
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_EQ(s.layers, 64);
  EXPECT_EQ(s.attention_layers, 0);
  EXPECT_EQ(s.recurrent_layers, 64);
  EXPECT_EQ(s.d_model, 2560);
  EXPECT_EQ(s.built_seq_len, 2048);
  EXPECT_EQ(s.heads, 0);
  EXPECT_EQ(s.kv_heads, 0);
  EXPECT_EQ(s.recurrent_channels, 5120);
  EXPECT_EQ(s.parameter_count, 2'768'345'600.0);
  EXPECT_EQ(s.weight_elements_read, 2'768'345'600.0);  // the tied table is read once, as the LM head
  // 64 x 5,120 x (4 + 16) = 6,553,600 elements: 13,107,200 B at 16 bits, whatever the context.
  EXPECT_EQ(kStateElements, 6'553'600.0);
  EXPECT_EQ(s.recurrent_state_elements, kStateElements);
  EXPECT_EQ(recurrent_state_bytes(s, 2), 13'107'200.0);
  EXPECT_EQ(kv_cache_bytes_per_token(s, 2), 0);
  EXPECT_EQ(kv_cache_bytes(s, 1e6, 2), 0);
  EXPECT_EQ(sequence_cache_bytes(s, 10, 2), 13'107'200.0);
  EXPECT_EQ(sequence_cache_bytes(s, 1e6, 2), 13'107'200.0);
  // No attention: prefill is linear in the prompt, a decode token costs the same at any context.
  EXPECT_EQ(s.attention_flops_per_query_key, 0);
  EXPECT_EQ(s.attention_width, 0);
  EXPECT_DOUBLE_EQ(s.linear_flops_per_token, hand_flops_per_token());
  EXPECT_EQ(hand_flops_per_token(), 5'575'526'400.0);
  EXPECT_DOUBLE_EQ(decode_flops_per_token(s, 100), decode_flops_per_token(s, 1e6));
  EXPECT_DOUBLE_EQ(prefill_flops(s, 4096), 2 * prefill_flops(s, 2048));
  EXPECT_DOUBLE_EQ(s.linear_activation_elements_per_token, hand_activation_elements_per_token());
  // The state splits with the channels under tensor parallelism.
  EXPECT_EQ(kv_share_per_gpu(s, 4), 0.25);
}

TEST(MambaServing, DecodeStepReadsTheWeightsAndEachState) {
  const ModelGraph g = build_architecture("mamba", kMamba28b);
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  ServingDevice dev;
  dev.peak_flops_per_s = 989e12;  // H100 SXM, fp16 dense
  dev.memory_bandwidth_bytes_per_s = 3.35e12;
  dev.weight_bytes_per_element = 2;
  dev.activation_bytes_per_element = 2;
  dev.kv_bytes_per_element = 2;
  const double batch = 64, eta = 0.25;
  const PhaseTime t = decode_step_time(s, dev, batch, 2048, eta);
  // 64 sequences: 5.54 GB of weights once, then per sequence 13.1 MB of state and its activations.
  const double bytes = 2 * 2'768'345'600.0 + batch * 2 * hand_activation_elements_per_token() + batch * 13'107'200.0;
  EXPECT_NEAR(t.memory_s / (bytes / 3.35e12), 1, 1e-12);
  EXPECT_NEAR(t.compute_s / (batch * hand_flops_per_token() / (989e12 * eta)), 1, 1e-12);
  EXPECT_EQ(t.communication_s, 0);
  EXPECT_GT(t.memory_s, t.compute_s);  // memory-bound: 7.16 GB in 2.14 ms against 1.44 ms of FLOPs
  const PhaseTime far = decode_step_time(s, dev, batch, 1e6, eta);
  EXPECT_EQ(far.memory_s, t.memory_s);
  EXPECT_EQ(far.compute_s, t.compute_s);
}

class MambaSolvers : public ::testing::Test {
 protected:
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel mamba = prepare_model(build_architecture("mamba", kMamba28b));

  template <typename Solver>
  PointInputs inputs(const Solver& solver) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &mamba;
    set_defaults(solver, in);
    return in;
  }
};

TEST_F(MambaSolvers, ServingHoldsTheStateAndNoKvCache) {
  EXPECT_TRUE(mamba.servable);
  EXPECT_FALSE(mamba.is_transformer);
  const ServingSolver solver;
  using P = ServingSolver::Param;
  using M = ServingSolver::Metric;
  PointInputs in = inputs(solver);
  in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[P::batch] = 0;  // as many sequences as memory holds
  std::vector<double> out(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_EQ(out[M::kv_cache_per_token_bytes], 0);
  EXPECT_EQ(out[M::kv_cache_bytes], 13'107'200.0);
  const double weights = 2 * 2'768'345'600.0;
  EXPECT_EQ(out[M::weights_per_gpu_bytes], weights);
  EXPECT_EQ(out[M::max_batch], std::floor((80 * 1024.0 * 1024 * 1024 - weights) / 13'107'200.0));
  EXPECT_EQ(out[M::max_batch], 6131);
  EXPECT_EQ(out[M::batch_used], 6131);
  // Prefill of one 2,048-token prompt is the graph's forward pass over it: 2,048 x 5.58 GFLOPs at the
  // prefill eta (0.40).
  in.values[P::batch] = 1;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::ttft_s] / (2048 * hand_flops_per_token() / (989e12 * 0.40)), 1, 1e-9);
  // tp splits the 5,120 channels: 2 divides them, 3 does not.
  in.values[P::tp] = 2;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_EQ(out[M::memory_bytes], weights / 2 + 13'107'200.0 / 2);
  in.values[P::tp] = 3;
  const PointResult three = solver.evaluate(in, out);
  EXPECT_EQ(three.status, PointStatus::infeasible);
  EXPECT_EQ(three.reason, ServingSolver::tp_must_divide_channels);
}

// Gu & Dao 2023, section 4.5: "Mamba achieves 4-5x higher inference throughput than a Transformer of
// similar size, since without the KV cache it can use much higher batch sizes" (Figure 8 right: A100
// 80GB, prompt 2,048 tokens, 128 generated). Here the catalog's mamba_2_8b against its Llama-3.2-3B
// entry (3.21B; GQA, 8 KV heads of 128: 114,688 B of KV per token at 16 bits) and against the same
// transformer with multi-head attention (kv_heads = heads = 24: 344,064 B per token, 3.57B), on an A100
// 80GB SXM (studies/catalog/hardware.yaml a100_80gb_sxm: 312 TFLOP/s fp16, 80 GiB at 2.039 TB/s), each
// at the largest batch its memory holds, with the default etas. What the physics gives: Mamba holds 19
// times the GQA model's batch (13.1 MB of state per sequence against 250 MB of KV), but at 6,131
// sequences its decode step is compute-bound (eta_decode 0.25), so its decode throughput is 1.9 times
// the GQA transformer's, whose step is memory-bound; against the MHA transformer, whose batch is 3
// times smaller, the ratio is 5.5, the paper's "4-5x" in kind. End to end (continuous batching, each
// 2,048-token prompt's prefill counted: the linear layers cost both models alike per token, and the
// transformer's causal attention kernel computes half of the prompt's query-key pairs) the gain shrinks
// to 1.27 against GQA and 1.72 against MHA: the prompts dominate a 2,048 + 128 request.
TEST_F(MambaSolvers, OutservesATransformerOfSimilarSizeThroughBatch) {
  HardwareSpec a100;
  a100.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  a100.memory_bytes = 80 * 1024.0 * 1024 * 1024;
  a100.memory_bandwidth_bytes_per_s = 2.039e12;
  a100.accelerator_link_bandwidth_bytes_per_s = 300e9;
  Values llama_values = {{"layers", 28},       {"d_model", 3072}, {"heads", 24},     {"kv_heads", 8},
                         {"d_ff", 8192},       {"vocab", 128256}, {"seq_len", 2048}, {"gated_mlp", 1},
                         {"norm", 1},          {"embeddings", 1}, {"rope", 1},       {"tied_embeddings", 1}};
  const PreparedModel gqa = prepare_model(build_architecture("transformer", llama_values));
  llama_values["kv_heads"] = 24;
  const PreparedModel mha = prepare_model(build_architecture("transformer", llama_values));
  const ServingSolver solver;
  using P = ServingSolver::Param;
  using M = ServingSolver::Metric;
  auto serve = [&](const PreparedModel& model) {
    PointInputs in;
    in.hardware = &a100;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[P::batch] = 0;
    in.values[P::prompt_tokens] = 2048;
    in.values[P::output_tokens] = 128;
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  };
  auto decode_tokens_per_s = [](const std::vector<double>& out) { return out[M::batch_used] / out[M::decode_step_s]; };
  const std::vector<double> m = serve(mamba);
  const std::vector<double> t = serve(gqa);
  const std::vector<double> h = serve(mha);
  EXPECT_EQ(m[M::batch_used], 6131);
  EXPECT_EQ(t[M::batch_used], 318);
  EXPECT_EQ(h[M::batch_used], 105);
  EXPECT_NEAR(mha.eager.parameter_count / 1e9, 3.565, 0.001);
  EXPECT_EQ(h[M::kv_cache_per_token_bytes], 344'064.0);
  EXPECT_GT(m[M::decode_compute_s], m[M::decode_memory_s]);
  EXPECT_GT(t[M::decode_memory_s], t[M::decode_compute_s]);
  const double gqa_ratio = decode_tokens_per_s(m) / decode_tokens_per_s(t);
  const double mha_ratio = decode_tokens_per_s(m) / decode_tokens_per_s(h);
  EXPECT_NEAR(gqa_ratio, 1.85, 0.01);
  EXPECT_GT(mha_ratio, 4);
  EXPECT_LT(mha_ratio, 6);
  const double e2e_ratio = m[M::tokens_per_s] / t[M::tokens_per_s];
  EXPECT_NEAR(e2e_ratio, 1.27, 0.01);
  EXPECT_NEAR(m[M::tokens_per_s] / h[M::tokens_per_s], 1.72, 0.01);
}

TEST_F(MambaSolvers, SynthesisCompressionAndTrainingTakeTheMambaStack) {
  const SynthesisSolver synthesis;
  PointInputs in = inputs(synthesis);
  in.values[SynthesisSolver::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[SynthesisSolver::batch] = 8;
  in.values[SynthesisSolver::context_tokens] = 100000;
  in.values[SynthesisSolver::target_latency] = 0.02;
  std::vector<double> out(synthesis.metrics().size());
  ASSERT_EQ(synthesis.evaluate(in, out).status, PointStatus::ok);
  // Memory: every weight plus 8 states, at any context.
  EXPECT_EQ(out[SynthesisSolver::required_memory_bytes], 2 * 2'768'345'600.0 + 8 * 13'107'200.0);

  const CompressionSolver compression;
  in = inputs(compression);
  std::vector<double> c(compression.metrics().size());
  EXPECT_EQ(compression.evaluate(in, c).status, PointStatus::ok);

  // Training takes the Mamba stack with its own activations (tests/engine/training_mamba_test.cpp);
  // a graph that is neither a transformer nor a Mamba stack stays refused.
  const TrainingSolver training;
  in = inputs(training);
  std::vector<double> r(training.metrics().size());
  EXPECT_EQ(training.evaluate(in, r).status, PointStatus::ok);
  const PreparedModel resnet = prepare_model(
      build_architecture("resnet", {{"blocks1", 3}, {"blocks2", 4}, {"blocks3", 6}, {"blocks4", 3}}));
  in.model = &resnet;
  const PointResult refused = training.evaluate(in, r);
  EXPECT_EQ(refused.status, PointStatus::infeasible);
  EXPECT_EQ(refused.reason, TrainingSolver::not_a_transformer);
}

}  // namespace
}  // namespace dsx
