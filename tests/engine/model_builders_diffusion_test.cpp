// SDXL (engine/model_builders_diffusion.cpp) against the parameter counts of the released
// stabilityai/stable-diffusion-xl-base-1.0 components and the SDXL paper, and its graph's shapes
// against the diffusers layout.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "engine/model_builders.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

const Op& op_named(const ModelGraph& g, const std::string& name) {
  for (const Op& op : g.ops) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << "no op " << name;
  static const Op none;
  return none;
}

double total_flops(const ModelGraph& g) {
  double flops = 0;
  for (const Op& op : g.ops) flops += op.flops_per_sample * op.repeat;
  return flops;
}

// Parameter counts of the released checkpoint's components (model.parameters() of the diffusers /
// transformers classes loaded from stabilityai/stable-diffusion-xl-base-1.0): UNet 2,567,463,684,
// VAE 83,653,863, CLIP ViT-L/14 text 123,060,480, OpenCLIP ViT-bigG/14 text 694,659,840.
constexpr double kUnet = 2'567'463'684;
constexpr double kVae = 83'653'863;
constexpr double kClipL = 123'060'480;
constexpr double kClipBigG = 694'659'840;

TEST(ModelFamilies, SdxlUnetMatchesTheReleasedCheckpoint) {
  const ModelGraph unet = build_architecture("sdxl", {});
  EXPECT_EQ(unet.parameter_count, kUnet);
  // Podell et al. 2023 (arXiv:2307.01952), Table 1: "#UNet params 2.6B", rounded to two digits.
  EXPECT_NEAR(unet.parameter_count / 1e9, 2.6, 0.05);
  // Weights read by one step: every UNet parameter once (no tied or gathered tables).
  EXPECT_DOUBLE_EQ(unet.total_weight_elements(), unet.parameter_count);

  // 128 x 128 latent: self-attention over 64 x 64 = 4,096 tokens at 640 channels, 1,024 at 1,280;
  // cross-attention to 77 text tokens of 2,048 (to_k: 2048 -> 1280, no bias).
  EXPECT_DOUBLE_EQ(op_named(unet, "unet_down1_0_transformer_block_attn1_sdpa").flops_per_sample,
                   4.0 * 4096 * 4096 * 640);
  EXPECT_EQ(op_named(unet, "unet_down1_0_transformer_block_attn1_sdpa").repeat, 2u);
  EXPECT_EQ(op_named(unet, "unet_mid_transformer_block_attn2_sdpa").repeat, 10u);
  EXPECT_DOUBLE_EQ(op_named(unet, "unet_mid_transformer_block_attn2_to_k").weight_elements, 2048.0 * 1280);
  EXPECT_DOUBLE_EQ(op_named(unet, "unet_conv_out_3x3").output_elements_per_sample, 4.0 * 128 * 128);
  // The first up block's first resnet takes 1,280 + 1,280 channels (concatenated skip).
  EXPECT_DOUBLE_EQ(op_named(unet, "unet_up0_0_resnet_conv_shortcut_1x1").weight_elements, 2560.0 * 1280 + 1280);
}

TEST(ModelFamilies, SdxlPipelineAddsEncodersDecoderAndSteps) {
  const ModelGraph unet = build_architecture("sdxl", {});
  const ModelGraph text = build_architecture("sdxl", {{"text_encoders", 1}});
  EXPECT_EQ(text.parameter_count - unet.parameter_count, kClipL + kClipBigG);
  const ModelGraph vae = build_architecture("sdxl", {{"vae_decoder", 1}});
  EXPECT_EQ(vae.parameter_count - unet.parameter_count, kVae);
  EXPECT_DOUBLE_EQ(op_named(vae, "vae_conv_out_3x3").output_elements_per_sample, 3.0 * 1024 * 1024);

  // 50 steps with classifier-free guidance: the UNet's FLOPs x 100, its weights read 50 times.
  const ModelGraph steps = build_architecture("sdxl", {{"steps", 50}, {"guidance", 1}});
  EXPECT_NEAR(total_flops(steps) / total_flops(unet), 100.0, 1e-9);
  EXPECT_EQ(op_named(steps, "unet_conv_in_3x3").repeat, 50u);
  EXPECT_EQ(op_named(steps, "unet_mid_transformer_block_attn1_sdpa").repeat, 500u);
  EXPECT_EQ(steps.parameter_count, unet.parameter_count);

  // Half the latent side: the parameters stay, the attention at the top level shrinks 16-fold.
  const ModelGraph small = build_architecture("sdxl", {{"latent_size", 64}});
  EXPECT_EQ(small.parameter_count, unet.parameter_count);
  EXPECT_DOUBLE_EQ(op_named(small, "unet_down1_0_transformer_block_attn1_sdpa").flops_per_sample * 16,
                   op_named(unet, "unet_down1_0_transformer_block_attn1_sdpa").flops_per_sample);
  EXPECT_THROW(build_architecture("sdxl", {{"latent_size", 126}}), std::invalid_argument);
  EXPECT_THROW(build_architecture("sdxl", {{"guidance", 2}}), std::invalid_argument);
}

}  // namespace
}  // namespace dsx
