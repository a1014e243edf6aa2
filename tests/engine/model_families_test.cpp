// The architecture families of engine/model_families.hpp against published parameter counts and
// GFLOPS, and each operator cost rule of engine/operators.hpp against a hand calculation.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/model_families.hpp"
#include "engine/operators.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

double relative_error(double value, double reference) { return std::abs(value - reference) / reference; }

// Multiply-accumulates of the GEMM-like ops, the quantity torchvision's _ops ("GFLOPS") counts.
double gmacs(const ModelGraph& g) {
  double flops = 0;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::conv || op.kind == OpKind::grouped_conv || op.kind == OpKind::matmul ||
        op.kind == OpKind::attention) {
      flops += op.flops_per_sample * op.repeat;
    }
  }
  return flops / 2 / 1e9;
}

const Op& op_named(const ModelGraph& g, const std::string& name) {
  for (const Op& op : g.ops) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << "no op " << name;
  static const Op none;
  return none;
}

// --- operator cost rules, by hand ------------------------------------------------------------

TEST(OperatorCosts, DepthwiseConvIsAGroupedConvWithKSquaredMacsPerOutput) {
  // 32 channels, 3x3, stride 2, pad 1 on 112x112 -> 56x56: 56*56*32*9 MACs, 32*9 weights.
  const Op op = conv2d("dw", square_conv(112, 32, 32, 3, 2, 32), 1);
  EXPECT_EQ(op.kind, OpKind::grouped_conv);
  EXPECT_DOUBLE_EQ(op.flops_per_sample, 2.0 * 56 * 56 * 32 * 9);
  EXPECT_DOUBLE_EQ(op.input_elements_per_sample, 32.0 * 112 * 112);
  EXPECT_DOUBLE_EQ(op.output_elements_per_sample, 32.0 * 56 * 56);
  EXPECT_DOUBLE_EQ(op.weight_elements, 32.0 * 9);
  // Grouped (4 groups of 16 -> 8): C_in / g = 16 inputs per output; with bias.
  const Op grouped = conv2d("g", square_conv(8, 64, 32, 3, 1, 4, true), 1);
  EXPECT_DOUBLE_EQ(grouped.flops_per_sample, 2.0 * 8 * 8 * 32 * 16 * 9);
  EXPECT_DOUBLE_EQ(grouped.weight_elements, 32.0 * 16 * 9 + 32);
  EXPECT_EQ(conv2d("d", square_conv(8, 64, 32, 3, 1, 1), 1).kind, OpKind::conv);
  EXPECT_THROW(conv2d("bad", square_conv(8, 64, 32, 3, 1, 3), 1), std::invalid_argument);
}

TEST(OperatorCosts, PatchEmbeddingIsAConvWithKernelEqualToStride) {
  // ViT-B/16 at 224: 196 patches x 768 outputs x 3*16*16 MACs; weights 3*256*768 + 768.
  const Op op = patch_embedding("patch", 224, 3, 16, 768, 1);
  EXPECT_EQ(op.kind, OpKind::conv);
  EXPECT_DOUBLE_EQ(op.flops_per_sample, 2.0 * 196 * 768 * 768);
  EXPECT_DOUBLE_EQ(op.output_elements_per_sample, 196.0 * 768);
  EXPECT_DOUBLE_EQ(op.weight_elements, 590'592);
}

TEST(OperatorCosts, SelectiveScanFollowsTheMambaCount) {
  // L 1024 steps, D 5120 channels, N 16: 9 L D N + 2 L D FLOPs; reads x, Delta (2 L D) and B, C
  // (2 L N); writes y (L D); weights A (D N) and D (D).
  const Op op = selective_scan("scan", 1024, 5120, 16, 1);
  EXPECT_EQ(op.kind, OpKind::selective_scan);
  EXPECT_DOUBLE_EQ(op.flops_per_sample, 9.0 * 1024 * 5120 * 16 + 2.0 * 1024 * 5120);
  EXPECT_DOUBLE_EQ(op.input_elements_per_sample, 2.0 * 1024 * 5120 + 2.0 * 1024 * 16);
  EXPECT_DOUBLE_EQ(op.output_elements_per_sample, 1024.0 * 5120);
  EXPECT_DOUBLE_EQ(op.weight_elements, 5120.0 * 16 + 5120);
  // The state (L x D x N) never reaches HBM: the traffic is O(L D), the work O(L D N).
  const double elements = op.input_elements_per_sample + op.output_elements_per_sample + op.weight_elements;
  EXPECT_NEAR(op.flops_per_sample / elements, 9.0 * 16 / 3, 1.0);
  const Op conv = causal_conv1d("conv", 1024, 5120, 4, 1);
  EXPECT_EQ(conv.kind, OpKind::grouped_conv);
  EXPECT_DOUBLE_EQ(conv.flops_per_sample, 2.0 * 1024 * 5120 * 4);
  EXPECT_DOUBLE_EQ(conv.weight_elements, 5120.0 * 4 + 5120);
}

TEST(OperatorCosts, EmbeddingBagGathersRowsWithoutSweepingTheTable) {
  // 26 tables, 214 lookups over all (8.23 per table), dimension 128: 214 rows read, 26 pooled rows
  // written, (214 - 26) x 128 additions, no table weights read.
  const Op op = embedding_bag("bag", 26, 214.0 / 26, 128, 1);
  EXPECT_EQ(op.kind, OpKind::embedding_bag);
  EXPECT_DOUBLE_EQ(op.input_elements_per_sample, 214.0 * 128);
  EXPECT_DOUBLE_EQ(op.output_elements_per_sample, 26.0 * 128);
  EXPECT_NEAR(op.flops_per_sample, (214.0 - 26) * 128, 1e-6);
  EXPECT_EQ(op.weight_elements, 0);
}

TEST(OperatorCosts, CrossAttentionCostsTqTimesTk) {
  // 448 decoder queries over 1500 encoder keys, 20 heads of 64.
  const Op s = attention_scores("s", 448, 1500, 20, 64, 1);
  EXPECT_DOUBLE_EQ(s.flops_per_sample, 2.0 * 448 * 1500 * 1280);
  EXPECT_DOUBLE_EQ(s.input_elements_per_sample, (448.0 + 1500) * 1280);
  EXPECT_DOUBLE_EQ(s.output_elements_per_sample, 20.0 * 448 * 1500);
  const Op c = attention_context("c", 448, 1500, 20, 64, 1);
  EXPECT_DOUBLE_EQ(c.flops_per_sample, 2.0 * 448 * 1500 * 1280);
  EXPECT_DOUBLE_EQ(c.input_elements_per_sample, 20.0 * 448 * 1500 + 1500.0 * 1280);
  EXPECT_DOUBLE_EQ(c.output_elements_per_sample, 448.0 * 1280);
}

TEST(OperatorCosts, SqueezeExcitationIsSixKernels) {
  // 72 channels on 28x28, squeeze 24 (MobileNetV3 block 4): pool 72*784, fc 2*72*24 each way.
  std::vector<Op> ops;
  const double params = append_squeeze_excitation(ops, "b_", 72, 784, 24, 1, 1);
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_DOUBLE_EQ(params, 2.0 * 72 * 24 + 24 + 72);
  EXPECT_DOUBLE_EQ(ops[0].flops_per_sample, 72.0 * 784);
  EXPECT_DOUBLE_EQ(ops[1].flops_per_sample, 2.0 * 72 * 24);
  EXPECT_DOUBLE_EQ(ops[3].flops_per_sample, 2.0 * 24 * 72);
  EXPECT_DOUBLE_EQ(ops[5].input_elements_per_sample, 72.0 * 784 + 72);
  EXPECT_DOUBLE_EQ(ops[5].output_elements_per_sample, 72.0 * 784);
  double weights = 0;
  for (const Op& op : ops) weights += op.weight_elements;
  EXPECT_DOUBLE_EQ(weights, params);
}

TEST(OperatorCosts, NewKindsHaveNamesAndAnchorFusion) {
  EXPECT_EQ(op_kind_name(OpKind::grouped_conv), "grouped_conv");
  EXPECT_EQ(parse_op_kind("selective_scan"), OpKind::selective_scan);
  EXPECT_EQ(parse_op_kind("embedding_bag"), OpKind::embedding_bag);
  // An element-wise gate after the scan joins it (the fused kernel's epilogue); BatchNorm after a
  // depthwise conv stays a kernel of its own, as after a dense conv.
  ModelGraph g;
  g.ops = {selective_scan("scan", 8, 4, 2, 1), Op{.name = "gate", .kind = OpKind::elementwise},
           conv2d("dw", square_conv(8, 4, 4, 3, 1, 4), 1), Op{.name = "bn", .kind = OpKind::normalization}};
  const ModelGraph fused = fuse(g, FusionPolicy::elementwise_norm);
  ASSERT_EQ(fused.ops.size(), 3u);
  EXPECT_EQ(fused.ops[0].name, "scan+gate");
}

// --- architectures against published counts --------------------------------------------------

ModelGraph build(std::string_view arch, const Values& v) { return build_architecture(arch, v); }

TEST(ModelFamilies, VitMatchesTorchvision) {
  // torchvision vision_transformer.py, ViT_B_16_Weights.IMAGENET1K_V1: num_params 86,567,656,
  // _ops 17.564; ViT_L_16: 304,326,632, 61.555 (Dosovitskiy et al. 2021, Table 1: 86M, 307M).
  const ModelGraph b16 = build("vit", {{"layers", 12}, {"d_model", 768}, {"heads", 12}, {"d_ff", 3072}});
  EXPECT_EQ(b16.parameter_count, 86'567'656);
  EXPECT_LT(relative_error(gmacs(b16), 17.564), 0.01);
  const ModelGraph l16 = build("vit", {{"layers", 24}, {"d_model", 1024}, {"heads", 16}, {"d_ff", 4096}});
  EXPECT_EQ(l16.parameter_count, 304'326'632);
  EXPECT_LT(relative_error(gmacs(l16), 61.555), 0.01);
  EXPECT_DOUBLE_EQ(b16.total_weight_elements(), b16.parameter_count);
  EXPECT_EQ(op_named(b16, "attention_scores").output_elements_per_sample, 12.0 * 197 * 197);
}

TEST(ModelFamilies, MobileNetsMatchTorchvision) {
  // torchvision mobilenetv2.py: num_params 3,504,872, _ops 0.301; mobilenetv3.py (large):
  // 5,483,032, _ops 0.217.
  const ModelGraph v2 = build("mobilenet_v2", {});
  EXPECT_EQ(v2.parameter_count, 3'504'872);
  EXPECT_LT(relative_error(gmacs(v2), 0.301), 0.01);
  const ModelGraph v3 = build("mobilenet_v3_large", {});
  EXPECT_EQ(v3.parameter_count, 5'483'032);
  EXPECT_LT(relative_error(gmacs(v3), 0.217), 0.01);
  EXPECT_DOUBLE_EQ(v3.total_weight_elements(), v3.parameter_count);
}

TEST(ModelFamilies, EfficientNetB0MatchesTorchvision) {
  // torchvision efficientnet.py, EfficientNet_B0_Weights.IMAGENET1K_V1: 5,288,548, _ops 0.386.
  const ModelGraph g = build("efficientnet", {});
  EXPECT_EQ(g.parameter_count, 5'288'548);
  EXPECT_LT(relative_error(gmacs(g), 0.386), 0.01);
  EXPECT_DOUBLE_EQ(g.total_weight_elements(), g.parameter_count);
}

TEST(ModelFamilies, ConvNextTinyMatchesTorchvision) {
  // torchvision convnext.py, ConvNeXt_Tiny_Weights.IMAGENET1K_V1: 28,589,128, _ops 4.456.
  const ModelGraph g = build("convnext", {{"depth1", 3}, {"depth2", 3}, {"depth3", 9}, {"depth4", 3}});
  EXPECT_EQ(g.parameter_count, 28'589'128);
  EXPECT_LT(relative_error(gmacs(g), 4.456), 0.01);
  EXPECT_DOUBLE_EQ(g.total_weight_elements(), g.parameter_count);
}

TEST(ModelFamilies, MambaMatchesTheReleasedCheckpoint) {
  // state-spaces/mamba-2.8b (Hugging Face mamba-2.8b-hf): 2,768,345,600 parameters; d_model 2560,
  // 64 layers, vocab 50277 padded to 50280, tied head (Gu & Dao 2023, Table 3: "2.8B").
  const ModelGraph g = build("mamba", {{"layers", 64}, {"d_model", 2560}, {"vocab", 50280}, {"seq_len", 2048}});
  EXPECT_EQ(g.parameter_count, 2'768'345'600);
  // Forward FLOPs: 2 N T for the GEMMs (all parameters but the gathered token table, the conv1d,
  // A, D and the norms, which are not GEMM weights) plus the scan's 9 T D N.
  const double T = 2048, D = 5120, N = 16;
  EXPECT_NEAR(op_named(g, "selective_scan").flops_per_sample, 9 * T * D * N + 2 * T * D, 1);
  double gemm_weights = 0;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::matmul) gemm_weights += op.weight_elements * op.repeat;
  }
  double matmul_flops = 0;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::matmul) matmul_flops += op.flops_per_sample * op.repeat;
  }
  EXPECT_NEAR(matmul_flops, 2 * T * gemm_weights - 2 * T * 64 * D, 1e3);  // dt_proj bias is epilogue
}

TEST(ModelFamilies, EncoderDecodersMatchTheirCheckpoints) {
  // t5-base (Raffel et al. 2020, "220M"; Hugging Face t5-base): 222,903,552.
  const ModelGraph t5 = build("encoder_decoder", {{"encoder_layers", 12}, {"decoder_layers", 12}, {"d_model", 768},
                                                  {"heads", 12}, {"d_ff", 3072}, {"vocab", 32128},
                                                  {"source_len", 512}, {"target_len", 128},
                                                  {"relative_buckets", 32}});
  EXPECT_EQ(t5.parameter_count, 222'903'552);
  // whisper-small (Radford et al. 2022, Table 1 "244M"; Hugging Face openai/whisper-small):
  // 241,734,912 with the stored 1500 x 768 encoder position table.
  const Values whisper = {{"encoder_layers", 12}, {"decoder_layers", 12}, {"d_model", 768}, {"heads", 12},
                          {"d_ff", 3072}, {"vocab", 51865}, {"source_len", 1500}, {"target_len", 448},
                          {"activation", 1}, {"norm", 0}, {"bias", 1}, {"mel_bins", 80},
                          {"decoder_positions", 448}};
  EXPECT_EQ(build("encoder_decoder", whisper).parameter_count, 241'734'912);
  // whisper-large-v3 (Hugging Face openai/whisper-large-v3): 1,543,490,560.
  Values large = whisper;
  large["encoder_layers"] = 32;
  large["decoder_layers"] = 32;
  large["d_model"] = 1280;
  large["heads"] = 20;
  large["d_ff"] = 5120;
  large["vocab"] = 51866;
  large["mel_bins"] = 128;
  const ModelGraph g = build("encoder_decoder", large);
  EXPECT_EQ(g.parameter_count, 1'543'490'560);
  // Cross-attention: 448 decoder queries over 1500 encoder positions in each of 32 layers.
  const Op& cross = op_named(g, "cross_attention_scores");
  EXPECT_EQ(cross.repeat, 32u);
  EXPECT_DOUBLE_EQ(cross.flops_per_sample, 2.0 * 448 * 1500 * 1280);
  EXPECT_EQ(g.sample_unit, "utterance");
}

TEST(ModelFamilies, DlrmAndMlpByHand) {
  // MLPerf DLRM-DCNv2 (mlcommons/training recommendation_v2/torchrec_dlrm): 26 tables of
  // 204,184,588 rows x 128, bottom 13-512-256-128, 3 low-rank (512) cross layers on 27 x 128 =
  // 3456 features, top 1024-1024-512-256-1. No published total: the count is the config's.
  const ModelGraph g = build("dlrm", {{"dense_features", 13}, {"tables", 26}, {"embedding_dim", 128},
                                      {"embedding_rows", 204184588}, {"lookups", 214}, {"bottom1", 512},
                                      {"bottom2", 256}, {"bottom3", 128}, {"top1", 1024}, {"top2", 1024},
                                      {"top3", 512}, {"top4", 256}, {"interaction", 1}, {"cross_layers", 3},
                                      {"cross_rank", 512}});
  const double bottom = 13 * 512 + 512 + 512 * 256 + 256 + 256 * 128 + 128;
  const double cross = 3 * (2 * 3456 * 512 + 3456);
  const double top = 3456 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 512 + 512 + 512 * 256 + 256 + 256 + 1;
  EXPECT_DOUBLE_EQ(g.parameter_count, 204184588.0 * 128 + bottom + cross + top);
  // The embedding tables are resident, not read: the weights a pass reads are the dense part.
  EXPECT_DOUBLE_EQ(g.total_weight_elements(), bottom + cross + top);
  // LeCun et al. 1998, section III.C: 784-300-100-10.
  const ModelGraph mlp = build("mlp", {{"inputs", 784}, {"hidden1", 300}, {"hidden2", 100}, {"outputs", 10}});
  EXPECT_EQ(mlp.parameter_count, 266'610);
  EXPECT_DOUBLE_EQ(gmacs(mlp) * 1e9, 784 * 300 + 300 * 100 + 100 * 10);
}

TEST(ModelFamilies, InvalidParametersThrow) {
  EXPECT_THROW(build("vit", {{"layers", 12}, {"d_model", 768}, {"heads", 7}, {"d_ff", 3072}}), std::invalid_argument);
  EXPECT_THROW(build("vit", {{"layers", 12}, {"d_model", 768}, {"heads", 12}, {"d_ff", 3072}, {"patch", 15}}),
               std::invalid_argument);
  EXPECT_THROW(build("mobilenet_v2", {{"width_mult", 0}}), std::invalid_argument);
  EXPECT_THROW(build("convnext", {{"depth1", 3}, {"depth2", 3}, {"depth3", 9}, {"depth4", 0}}), std::invalid_argument);
  EXPECT_THROW(build("mamba", {{"layers", 0}, {"d_model", 2560}, {"vocab", 50280}, {"seq_len", 2048}}),
               std::invalid_argument);
  EXPECT_THROW(build("mlp", {{"inputs", 784}, {"hidden1", 300}, {"hidden3", 100}, {"outputs", 10}}),
               std::invalid_argument);  // a gap in the hidden layers
  EXPECT_THROW(build("dlrm", {{"dense_features", 13}, {"tables", 26}, {"embedding_dim", 128},
                              {"embedding_rows", 1000}, {"lookups", 26}, {"bottom1", 64}, {"top1", 64}}),
               std::invalid_argument);  // bottom MLP does not end at embedding_dim
}

}  // namespace
}  // namespace dsx
