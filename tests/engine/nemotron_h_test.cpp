// The nemotron_h architecture (engine/model_builders_hybrid.cpp): Nemotron-H-8B's parameters against a
// count written from Hugging Face's modeling_nemotron_h.py tensor by tensor over its
// hybrid_override_pattern, its layer order against that pattern, its FLOPs per token by hand, and its
// serving and training views (KV cache for the 4 attention layers, Mamba-2 state for the 24 Mamba-2
// layers, one tensor-parallel all-reduce per block).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
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

// nvidia/Nemotron-H-8B-Base-8K config.json.
constexpr std::string_view kPattern8b = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-";
Values nemotron_h_8b(double seq_len = 8192) {
  return {{"layers", 52},          {"d_model", 4096},       {"heads", 32},        {"kv_heads", 8},
          {"head_dim", 128},       {"attention_period", 11}, {"attention_offset", 7}, {"attention_layers", 4}, {"d_ff", 21504},
          {"mamba_heads", 128},    {"mamba_head_dim", 64},  {"d_state", 128},     {"ngroups", 8},
          {"d_conv", 4},           {"chunk_size", 128},     {"vocab", 131072},    {"seq_len", seq_len}};
}

// Layer kinds in execution order, one character per block as hybrid_override_pattern writes them:
// consecutive ops with one repeat count run that many times in a row.
std::string layer_pattern(const ModelGraph& g) {
  std::string out, run;
  std::uint32_t run_repeat = 1;
  const auto close = [&] {
    for (std::uint32_t i = 0; i < run_repeat; ++i) out += run;
    run.clear();
  };
  for (const Op& op : g.ops) {
    if (op.repeat != run_repeat) {
      close();
      run_repeat = op.repeat;
    }
    if (op.kind == OpKind::ssd_scan) run += 'M';
    if (op.name == "attention_scores") run += '*';
    if (op.name == "mlp_fc1") run += '-';
  }
  close();
  return out;
}

TEST(NemotronH, EightBParametersMatchTheTensorCount) {
  const double d = 4096, D = 128 * 64, G = 8, N = 128, H = 128, k = 4, F = 21504, V = 131072, dh = 128;
  // NemotronHMamba2Mixer: in_proj [z, x, B, C, dt], conv1d weight and bias, dt_bias, A_log, D, norm, out_proj.
  const double mamba = d * (2 * D + 2 * G * N + H) + (D + 2 * G * N) * k + (D + 2 * G * N) + 3 * H + D + D * d;
  const double attention = d * 32 * dh + 2 * d * 8 * dh + 32 * dh * d;  // q, k, v, o_proj, no bias
  const double mlp = d * F + F * d;                                       // up_proj, down_proj
  double total = 2 * V * d + d;  // embeddings, lm_head, norm_f
  for (const char c : kPattern8b) total += d + (c == 'M' ? mamba : c == '*' ? attention : mlp);
  EXPECT_EQ(mamba + d, 109'640'064.0);  // with the block's RMSNorm
  EXPECT_EQ(attention + d, 41'947'136.0);
  EXPECT_EQ(mlp + d, 176'164'864.0);
  EXPECT_EQ(total, 8'100'852'736.0);
  EXPECT_NEAR(total / 1e9, 8, 0.5);  // the published total, "8B" (arXiv:2504.03624; the model card), to the billion
  const ModelGraph g = build_architecture("nemotron_h", nemotron_h_8b());
  EXPECT_EQ(g.parameter_count, total);
  EXPECT_EQ(layer_pattern(g), kPattern8b);
}

TEST(NemotronH, PatternFollowsPeriodOffsetAndAlternation) {
  Values v = nemotron_h_8b(64);
  v["layers"] = 10;
  v["attention_period"] = 4;
  v["attention_offset"] = 1;
  EXPECT_EQ(layer_pattern(build_architecture("nemotron_h", v)), "M*-M-*M-M*");  // 3 others a period: period 8
  v["attention_layers"] = 2;
  EXPECT_EQ(layer_pattern(build_architecture("nemotron_h", v)), "M*-M-*M-M-");
  v["attention_layers"] = 1;
  EXPECT_EQ(layer_pattern(build_architecture("nemotron_h", v)), "M*-M-M-M-M");
  v["attention_layers"] = 0;
  v["d_ff"] = 0;
  EXPECT_EQ(layer_pattern(build_architecture("nemotron_h", v)), "M*MMM*MMM*");
  v["attention_offset"] = 4;
  EXPECT_THROW(build_architecture("nemotron_h", v), std::invalid_argument);
}

// FLOPs of one token's forward pass at T = 8,192 (chunk Q = 128), by hand:
//  matmuls, 2 per weight: Mamba-2 2 d (W + D) x 24, attention 2 d (q + 2 kv + o) x 4, MLP 4 d F x 24,
//  LM head 2 d V; the SSD scan per token and layer 2 Q (G N + D) + 4 D N + 2 D N / Q + 2 D.
TEST(NemotronH, FlopsPerTokenByHand) {
  const double d = 4096, D = 8192, G = 8, N = 128, H = 128, F = 21504, V = 131072, Q = 128, T = 8192;
  const double width = 2 * D + 2 * G * N + H;
  const double matmul = 24 * 2 * d * (width + D) + 4 * 2 * d * (4096 + 2 * 1024 + 4096) + 24 * 4 * d * F + 2 * d * V;
  const double scan = 24 * (2 * Q * (G * N + D) + 4 * D * N + 2 * D * N / Q + 2 * D);
  EXPECT_EQ(matmul, 15'124'660'224.0);
  EXPECT_EQ(scan, 158'072'832.0);
  const ModelGraph g = build_architecture("nemotron_h", nemotron_h_8b());
  double matmul_flops = 0, scan_flops = 0;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::matmul) matmul_flops += op.flops_per_sample * op.repeat;
    if (op.kind == OpKind::ssd_scan) scan_flops += op.flops_per_sample * op.repeat;
  }
  EXPECT_DOUBLE_EQ(matmul_flops / T, matmul);
  EXPECT_DOUBLE_EQ(scan_flops / T, scan);
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_DOUBLE_EQ(s.scan_flops_per_token, scan);
  EXPECT_FALSE(s.scan_on_vector_units);
}

TEST(NemotronH, ServingShapeHoldsKvForFourLayersAndStateForTwentyFour) {
  const ModelGraph g = build_architecture("nemotron_h", nemotron_h_8b());
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(g, s));
  EXPECT_EQ(s.attention_layers, 4);
  EXPECT_EQ(s.recurrent_layers, 24);
  EXPECT_EQ(s.ssd_layers, 24);
  EXPECT_EQ(s.layers, 28);  // mixers; the 24 MLP layers join the mixer before them
  EXPECT_EQ(s.feed_forward_layers, 24);
  EXPECT_EQ(s.d_model, 4096);
  EXPECT_EQ(s.heads, 32);
  EXPECT_EQ(s.kv_heads, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.built_seq_len, 8192);
  EXPECT_EQ(s.recurrent_heads, 128);
  EXPECT_EQ(s.recurrent_groups, 8);
  // 4 attention layers x K and V x 8 heads x 128 x 2 B.
  EXPECT_EQ(kv_cache_bytes_per_token(s, 2), 16384.0);
  // Each Mamba-2 layer: conv state (D + 2 G N) x 4 and SSM state H x P x N.
  EXPECT_EQ(s.recurrent_state_elements, 24.0 * ((8192 + 2 * 8 * 128) * 4 + 128 * 64 * 128));
  EXPECT_EQ(recurrent_state_bytes(s, 2), 52'297'728.0);
  // One all-reduce per block under tensor parallelism: 24 Mamba-2, 4 attention, 24 MLP layers.
  EXPECT_EQ(tp_all_reduces_per_pass(s), 52);
  EXPECT_TRUE(recurrent_tp_divides(s, 8));
  EXPECT_FALSE(recurrent_tp_divides(s, 16));  // 8 groups
  // The layers as pipeline units: M M M M * then four runs of M M M M M *, the MLP on all but the
  // Mamba-2 layer before each attention layer.
  ASSERT_EQ(s.layer_kinds.size(), 28u);
  EXPECT_EQ(s.layer_kinds[3], 0);
  EXPECT_EQ(s.layer_kinds[4], kLayerAttention | kLayerFeedForward);
  EXPECT_EQ(s.layer_kinds[5], kLayerFeedForward);
}

// 64 H100s at tp 2, 64 sequences of 1 per step, ZeRO-1; pp as the test sets it.
PointInputs training_inputs(const TrainingSolver& solver, const HardwareSpec& hw, const PreparedModel& model) {
  using P = TrainingSolver::Param;
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[P::gpus] = 64;
  in.values[P::tp] = 2;
  in.values[P::global_batch] = 64;
  in.values[P::micro_batch] = 1;
  in.values[P::zero_stage] = 1;
  return in;
}

TEST(NemotronH, ServingAndTrainingSolversRunIt) {
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("nemotron_h", nemotron_h_8b()));
  ASSERT_TRUE(model.is_transformer);
  {
    const ServingSolver solver;
    using P = ServingSolver::Param;
    using M = ServingSolver::Metric;
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(Precision::bf16));
    in.values[P::batch] = 8;
    in.values[P::tp] = 1;
    in.values[P::prompt_tokens] = 2048;
    in.values[P::output_tokens] = 256;
    std::vector<double> out(solver.metrics().size());
    ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    EXPECT_EQ(out[M::kv_cache_bytes], 16384.0 * 2304 + 52'297'728.0);
  }
  const TrainingSolver solver;
  using P = TrainingSolver::Param;
  using M = TrainingSolver::Metric;
  PointInputs in = training_inputs(solver, hw, model);
  std::vector<double> out(solver.metrics().size());
  for (const double pp : {1.0, 4.0}) {
    in.values[P::pp] = pp;
    const PointResult r = solver.evaluate(in, out);
    ASSERT_EQ(r.status, PointStatus::ok) << pp << " " << static_cast<int>(r.reason);
    EXPECT_GT(out[M::step_time_s], 0);
  }
}

// Nemotron-H-8B's pattern gives each attention layer the MLP after it ("*-") and leaves the Mamba-2
// layer before each attention layer without one ("M*"): 24 MLPs over 28 mixers. At s 8192, b 1, tp 2,
// sequence parallel, selective recomputation (bytes at 16 bits; s b d = 33,554,432):
//   attention layer with its MLP (Korthikanti et al. Table 2)   34 s b d / 2           =   570,425,344
//   Mamba-2 mixer (engine/training_memory.hpp): input 2 s b d / 2 + s (2 W + 2 D + 4 G) / 2 with
//     W = 2 D + 2 G N + H = 18,560, D 8,192, G 8                 33,554,432 + 219,283,456
//   its MLP and two norms                                       23 s b d / 2           =   385,875,968
//   one norm, no MLP                                             2 s b d / 2           =    33,554,432
// so 4 x 570,425,344 + 20 x 638,713,856 + 4 x 286,392,320 = 16,201,547,776 B for the 28 units, where
// counting an MLP on every Mamba-2 layer gave 17,610,833,920. At pp 2 each stage holds 14 units (2
// attention, 12 Mamba-2 of which 2 without an MLP) and 2 micro-batches in flight: the same bytes.
TEST(NemotronH, TrainingActivationsCountTheTwentyFourMlps) {
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("nemotron_h", nemotron_h_8b()));
  const TrainingSolver solver;
  using P = TrainingSolver::Param;
  using M = TrainingSolver::Metric;
  PointInputs in = training_inputs(solver, hw, model);
  std::vector<double> out(solver.metrics().size());
  const double attention = 570'425'344, mamba_mlp = 638'713'856, mamba_alone = 286'392'320;
  EXPECT_EQ(4 * attention + 20 * mamba_mlp + 4 * mamba_alone, 16'201'547'776.0);
  for (const double pp : {1.0, 2.0}) {
    in.values[P::pp] = pp;
    ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok) << pp;
    EXPECT_NEAR(out[M::activations_bytes], 16'201'547'776.0, 16.0) << pp;
  }
}

}  // namespace
}  // namespace dsx
