// Latent diffusion: Stable Diffusion XL base 1.0 (Podell et al. 2023, "SDXL", arXiv:2307.01952) in
// the layout of Hugging Face diffusers (huggingface/diffusers, src/diffusers/models/unets/
// unet_2d_condition.py, unet_2d_blocks.py, resnet.py, attention.py, attention_processor.py,
// transformers/transformer_2d.py, embeddings.py, autoencoders/autoencoder_kl.py, vae.py) with the
// configs of stabilityai/stable-diffusion-xl-base-1.0 (unet/, vae/, text_encoder/, text_encoder_2/
// config.json), and the two CLIP text encoders in the layout of Hugging Face transformers
// (models/clip/modeling_clip.py).
// Conventions of model_builders.cpp apply: one Op per eager kernel, MACs = 2 FLOP, bias adds in the
// epilogue; SiLU 4 FLOP per element, GELU 8, quick GELU (x sigmoid(1.702 x)) 5, add / multiply /
// divide 1, softmax 5, LayerNorm and GroupNorm 8 (mean, centre, square-and-sum, normalise,
// affine). Attention runs through F.scaled_dot_product_attention (diffusers AttnProcessor2_0 and
// transformers' sdpa attention, the defaults on PyTorch 2): one fused kernel whose score matrix stays
// on chip (Dao et al. 2022, FlashAttention, arXiv:2205.14135), so its op reads q, k, v and writes the
// context: FLOPs 4 Tq Tk H dh (QK^T and AV), no H Tq Tk tensor in memory.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/builder_support.hpp"
#include "engine/model_families.hpp"
#include "engine/operators.hpp"

namespace dsx {

namespace {

using builders::as_repeat;
using builders::check_arity;
using builders::count_param;
using builders::fail;
using builders::flag_param;
using builders::make_op;

// Appends ops on square maps and token rows; counts parameters x repeat when `count` is set.
struct DiffusionBuilder {
  std::vector<Op>& ops;
  double& params;

  std::uint64_t conv(const std::string& name, std::uint64_t size, std::uint64_t cin, std::uint64_t cout,
                     std::uint64_t k, std::uint64_t stride, std::uint32_t r) {
    const Conv2dShape s = square_conv(size, cin, cout, k, stride, 1, true);
    ops.push_back(conv2d(name, s, r));
    params += s.weight_elements() * r;
    return s.out_height();
  }
  void elementwise(const std::string& name, double flops_per_element, double n, double inputs, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::elementwise, flops_per_element * n, inputs * n, n, 0, r));
  }
  void copy(const std::string& name, double n, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::memory, 0, n, n, 0, r));
  }
  // GroupNorm and LayerNorm: one kernel, 8 FLOP per element, 2 C affine parameters.
  void norm(const std::string& name, double n, double channels, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::normalization, 8 * n, n, n, 2 * channels, r));
    params += 2 * channels * r;
  }
  void linear(const std::string& name, double rows, double in, double out, bool bias, std::uint32_t r) {
    const double w = in * out + (bias ? out : 0);
    ops.push_back(make_op(name, OpKind::matmul, 2 * rows * in * out, rows * in, rows * out, w, r));
    params += w * r;
  }
  void sdpa(const std::string& name, double q_tokens, double kv_tokens, double width, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::attention, 4 * q_tokens * kv_tokens * width, (q_tokens + 2 * kv_tokens) * width,
                          q_tokens * width, 0, r));
  }
  // diffusers Attention with AttnProcessor2_0: to_q, to_k, to_v (bias only where `qkv_bias`), fused
  // attention, the head-merge copy (transpose + reshape), to_out[0] with bias, and the division by
  // rescale_output_factor (1.0; a kernel nonetheless).
  void attention(const std::string& p, double tokens, double width, double kv_tokens, double kv_width, bool qkv_bias,
                 std::uint32_t r) {
    linear(p + "to_q", tokens, width, width, qkv_bias, r);
    linear(p + "to_k", kv_tokens, kv_width, width, qkv_bias, r);
    linear(p + "to_v", kv_tokens, kv_width, width, qkv_bias, r);
    sdpa(p + "sdpa", tokens, kv_tokens, width, r);
    copy(p + "merge_heads_copy", tokens * width, r);
    linear(p + "to_out", tokens, width, width, true, r);
    elementwise(p + "rescale_output", 1, tokens * width, 1, r);
  }
  // diffusers ResnetBlock2D (resnet_time_scale_shift "default", output_scale_factor 1): GroupNorm(32),
  // SiLU, conv 3x3, [time: SiLU on temb, Linear(temb_channels, C_out), broadcast add], GroupNorm(32),
  // SiLU, (dropout), conv 3x3, [conv_shortcut 1x1 when C_in != C_out], add, divide by the scale factor.
  void resnet(const std::string& p, std::uint64_t size, std::uint64_t cin, std::uint64_t cout, double temb,
              std::uint32_t r) {
    const double hw = static_cast<double>(size * size), in = hw * static_cast<double>(cin),
                 out = hw * static_cast<double>(cout), co = static_cast<double>(cout);
    norm(p + "norm1", in, static_cast<double>(cin), r);
    elementwise(p + "silu1", 4, in, 1, r);
    conv(p + "conv1_3x3", size, cin, cout, 3, 1, r);
    if (temb > 0) {
      elementwise(p + "temb_silu", 4, temb, 1, r);
      linear(p + "time_emb_proj", 1, temb, co, true, r);
      ops.push_back(make_op(p + "temb_add", OpKind::elementwise, out, out + co, out, 0, r));
    }
    norm(p + "norm2", out, co, r);
    elementwise(p + "silu2", 4, out, 1, r);
    conv(p + "conv2_3x3", size, cout, cout, 3, 1, r);
    if (cin != cout) conv(p + "conv_shortcut_1x1", size, cin, cout, 1, 1, r);
    elementwise(p + "residual_add", 1, out, 2, r);
    elementwise(p + "output_scale", 1, out, 1, r);
  }
  // diffusers Upsample2D: nearest-neighbour x2, then conv 3x3; returns the new side.
  std::uint64_t upsample(const std::string& p, std::uint64_t size, std::uint64_t channels, std::uint32_t r) {
    const double hw = static_cast<double>(size * size), C = static_cast<double>(channels);
    ops.push_back(make_op(p + "upsample_nearest", OpKind::memory, 0, hw * C, 4 * hw * C, 0, r));
    conv(p + "upsample_conv3x3", 2 * size, channels, channels, 3, 1, r);
    return 2 * size;
  }
  // The output head of the UNet and of the VAE decoder: GroupNorm, SiLU, conv 3x3 to `out` channels.
  void output_head(const std::string& p, std::uint64_t size, std::uint64_t channels, std::uint64_t out,
                   std::uint32_t r) {
    const double n = static_cast<double>(size * size * channels);
    norm(p + "conv_norm_out", n, static_cast<double>(channels), r);
    elementwise(p + "conv_act_silu", 4, n, 1, r);
    conv(p + "conv_out_3x3", size, channels, out, 3, 1, r);
  }
};

// ---------------------------------------------------------------------------------------------
// sdxl: Stable Diffusion XL base 1.0. A sample is one image; the graph holds what the pipeline runs
// for it (diffusers StableDiffusionXLPipeline):
//  - text_encoders = 1: CLIP ViT-L/14 text (transformers CLIPTextModel: 12 layers, d 768, 12 heads,
//    MLP 3072, quick GELU) and OpenCLIP ViT-bigG/14 text (CLIPTextModelWithProjection: 32 layers,
//    d 1280, 20 heads, MLP 5120, GELU, text_projection 1280 x 1280 without bias on the pooled EOS
//    token) once on the prompt's 77 tokens (token and position embeddings, pre-LN blocks with q, k,
//    v, out projections with biases, causal fused attention, final LayerNorm). With guidance the
//    negative prompt's embeddings are zeros when none is given (force_zeros_for_empty_prompt in the
//    SDXL model_index.json), so the encoders run once.
//  - `steps` UNet evaluations (num_inference_steps; pipeline default 50) of the latent
//    (latent_size = image / 8; 128 for 1024 x 1024), on a batch of 2 (conditional and
//    unconditional) when guidance = 1 (classifier-free guidance, guidance_scale 5.0 > 1 by
//    default): per step the weights are read once and every activation and FLOP doubles. The UNet's
//    ops carry repeat x steps.
//  - vae_decoder = 1: the AutoencoderKL decoder once on the final latent.
// The scheduler's update and the guidance combination (a few element-wise kernels on the 4-channel
// latent) and the image post-processing are not listed.
//
// UNet2DConditionModel (unet/config.json): conv_in 3x3 4 -> 320; sinusoidal timestep features
// (320) -> TimestepEmbedding Linear(320, 1280), SiLU, Linear(1280, 1280); addition_embed_type
// text_time: six size/crop conditions x 256 sinusoidal features concatenated with the pooled 1280
// text embedding (projection_class_embeddings_input_dim 2816) -> Linear(2816, 1280), SiLU,
// Linear(1280, 1280), added to the time embedding. Down blocks (layers_per_block 2, block_out_channels
// 320, 640, 1280): DownBlock2D (2 ResnetBlock2D, Downsample2D conv 3x3/2), CrossAttnDownBlock2D
// (transformer_layers_per_block 2), CrossAttnDownBlock2D (10, no downsample); mid
// UNetMidBlock2DCrossAttn (resnet, Transformer2DModel of 10, resnet); up blocks CrossAttnUpBlock2D
// (10), CrossAttnUpBlock2D (2), UpBlock2D, each 3 resnets whose input is the previous output
// concatenated with a skip from the down path (a copy kernel), Upsample2D (nearest 2x + conv 3x3)
// on the first two; GroupNorm, SiLU, conv_out 3x3 -> 4. attention_head_dim 5, 10, 20 is the number
// of heads (diffusers keeps the name for compatibility), so heads are 64 wide.
// Transformer2DModel (use_linear_projection): GroupNorm(32), channels-last copy, proj_in Linear(C, C),
// L BasicTransformerBlocks (LayerNorm, self-attention, add; LayerNorm, cross-attention to the 77
// text tokens of cross_attention_dim 2048 (768 + 1280 concatenated), add; LayerNorm, GEGLU
// feed-forward Linear(C, 8C), GELU on the gate half, multiply, Linear(4C, C), add), proj_out
// Linear(C, C), channels-first copy, residual add. Attention projections q, k, v have no biases.
// UNet: 2,567,463,684 parameters (counted from the sdxl_base_1.0 checkpoint; Podell et al. 2023,
// Table 1: 2.6B).
// AutoencoderKL (vae/config.json: block_out_channels 128, 256, 512, 512, layers_per_block 2, latent
// 4): post_quant_conv 1x1 4 -> 4, decoder conv_in 3x3 4 -> 512, mid block (resnet, single-head
// attention with GroupNorm and biased q, k, v, out, residual add, resnet), four UpDecoderBlock2D of
// 3 resnets each (512, 512, 256, 128; Upsample2D on the first three), GroupNorm, SiLU, conv_out
// 3x3 -> 3. parameter_count holds the whole VAE (its encoder and quant_conv too): 83,653,863.
// Text encoders: 123,060,480 and 694,659,840 parameters.
// ---------------------------------------------------------------------------------------------

enum SdxlParam : std::size_t { x_latent, x_steps, x_guidance, x_text, x_vae, x_count };

constexpr std::array<ArchParamSpec, x_count> kSdxlParams = {{
    {.name = "latent_size",
     .description = "latent height = width (image side / 8; 128 for 1024 x 1024, SDXL's native size), a multiple of 4",
     .has_default = true, .default_value = 128},
    {.name = "steps",
     .description = "UNet evaluations per image (denoising steps; StableDiffusionXLPipeline default 50)",
     .has_default = true, .default_value = 1},
    {.name = "guidance",
     .description = "1: classifier-free guidance, the UNet runs on a batch of 2 per step (pipeline default: "
                    "guidance_scale 5.0)",
     .has_default = true, .default_value = 0},
    {.name = "text_encoders", .description = "1: run the CLIP ViT-L and OpenCLIP ViT-bigG text encoders once",
     .has_default = true, .default_value = 0},
    {.name = "vae_decoder", .description = "1: run the VAE decoder once on the final latent", .has_default = true,
     .default_value = 0},
}};

constexpr std::string_view kSdxl = "sdxl";

constexpr double kTextTokens = 77;
constexpr double kVocab = 49408;

// One CLIP text transformer (transformers CLIPTextModel); returns its parameters.
double append_clip_text(std::vector<Op>& ops, const std::string& p, std::uint64_t layers, double d, double d_ff,
                         double act_flops, bool projection) {
  double params = 0;
  DiffusionBuilder b{ops, params};
  const double T = kTextTokens;
  const auto r = as_repeat(layers);
  ops.push_back(make_op(p + "token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));
  params += kVocab * d;
  ops.push_back(make_op(p + "position_embedding_add", OpKind::elementwise, T * d, 2 * T * d, T * d, T * d, 1));
  params += T * d;
  b.norm(p + "layer_norm1", T * d, d, r);
  b.linear(p + "q_proj", T, d, d, true, r);
  b.linear(p + "k_proj", T, d, d, true, r);
  b.linear(p + "v_proj", T, d, d, true, r);
  b.sdpa(p + "sdpa", T, T, d, r);
  b.copy(p + "merge_heads_copy", T * d, r);
  b.linear(p + "out_proj", T, d, d, true, r);
  b.elementwise(p + "residual_add_attn", 1, T * d, 2, r);
  b.norm(p + "layer_norm2", T * d, d, r);
  b.linear(p + "fc1", T, d, d_ff, true, r);
  b.elementwise(p + "activation", act_flops, T * d_ff, 1, r);
  b.linear(p + "fc2", T, d_ff, d, true, r);
  b.elementwise(p + "residual_add_mlp", 1, T * d, 2, r);
  b.norm(p + "final_layer_norm", T * d, d, 1);
  if (projection) b.linear(p + "text_projection", 1, d, d, false, 1);
  return params;
}

// Scales the per-sample work of ops [from, end) by `batch` and their repeat by `steps`.
void scale_ops(std::vector<Op>& ops, std::size_t from, double batch, std::uint64_t steps) {
  for (std::size_t i = from; i < ops.size(); ++i) {
    ops[i].flops_per_sample *= batch;
    ops[i].input_elements_per_sample *= batch;
    ops[i].output_elements_per_sample *= batch;
    ops[i].repeat = as_repeat(ops[i].repeat * steps);
  }
}

double append_unet(std::vector<Op>& ops, std::uint64_t latent) {
  double params = 0;
  DiffusionBuilder b{ops, params};
  constexpr std::array<std::uint64_t, 3> kChannels = {320, 640, 1280};
  constexpr std::array<std::uint64_t, 3> kTransformerLayers = {0, 2, 10};  // DownBlock2D has none
  constexpr double kTemb = 1280, kCross = 2048, kAddIn = 2816;
  const double T = kTextTokens;

  b.linear("unet_time_linear_1", 1, 320, kTemb, true, 1);
  b.elementwise("unet_time_silu", 4, kTemb, 1, 1);
  b.linear("unet_time_linear_2", 1, kTemb, kTemb, true, 1);
  b.linear("unet_add_linear_1", 1, kAddIn, kTemb, true, 1);
  b.elementwise("unet_add_silu", 4, kTemb, 1, 1);
  b.linear("unet_add_linear_2", 1, kTemb, kTemb, true, 1);
  b.elementwise("unet_emb_add", 1, kTemb, 2, 1);

  auto transformer = [&](const std::string& p, std::uint64_t size, std::uint64_t channels, std::uint64_t layers) {
    const double C = static_cast<double>(channels), hw = static_cast<double>(size * size), n = hw * C;
    const auto r = as_repeat(layers);
    b.norm(p + "group_norm", n, C, 1);
    b.copy(p + "channels_last_copy", n, 1);
    b.linear(p + "proj_in", hw, C, C, true, 1);
    const std::string q = p + "block_";
    b.norm(q + "norm1", n, C, r);
    b.attention(q + "attn1_", hw, C, hw, C, false, r);
    b.elementwise(q + "attn1_residual_add", 1, n, 2, r);
    b.norm(q + "norm2", n, C, r);
    b.attention(q + "attn2_", hw, C, T, kCross, false, r);
    b.elementwise(q + "attn2_residual_add", 1, n, 2, r);
    b.norm(q + "norm3", n, C, r);
    b.linear(q + "ff_geglu_proj", hw, C, 8 * C, true, r);
    b.elementwise(q + "ff_gelu", 8, 4 * n, 1, r);
    b.elementwise(q + "ff_gate_multiply", 1, 4 * n, 2, r);
    b.linear(q + "ff_out", hw, 4 * C, C, true, r);
    b.elementwise(q + "ff_residual_add", 1, n, 2, r);
    b.linear(p + "proj_out", hw, C, C, true, 1);
    b.copy(p + "channels_first_copy", n, 1);
    b.elementwise(p + "residual_add", 1, n, 2, 1);
  };

  std::uint64_t size = latent;
  b.conv("unet_conv_in_3x3", size, 4, kChannels[0], 3, 1, 1);
  // Skip connections in the order the down path produces them: (channels, map side).
  std::vector<std::array<std::uint64_t, 2>> skips = {{kChannels[0], size}};
  std::uint64_t channels = kChannels[0];
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string p = "unet_down" + std::to_string(i) + "_";
    for (int j = 0; j < 2; ++j) {
      const std::string q = p + std::to_string(j) + "_";
      b.resnet(q + "resnet_", size, channels, kChannels[i], kTemb, 1);
      channels = kChannels[i];
      if (kTransformerLayers[i] > 0) transformer(q + "transformer_", size, channels, kTransformerLayers[i]);
      skips.push_back({channels, size});
    }
    if (i < 2) {
      size = b.conv(p + "downsample_conv3x3_s2", size, channels, channels, 3, 2, 1);
      skips.push_back({channels, size});
    }
  }
  b.resnet("unet_mid_resnet0_", size, channels, channels, kTemb, 1);
  transformer("unet_mid_transformer_", size, channels, 10);
  b.resnet("unet_mid_resnet1_", size, channels, channels, kTemb, 1);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t level = 2 - i;
    const std::string p = "unet_up" + std::to_string(i) + "_";
    for (int j = 0; j < 3; ++j) {
      const std::string q = p + std::to_string(j) + "_";
      const auto skip = skips.back();
      skips.pop_back();
      const double hw = static_cast<double>(size * size);
      b.copy(q + "skip_concat", hw * static_cast<double>(channels + skip[0]), 1);
      b.resnet(q + "resnet_", size, channels + skip[0], kChannels[level], kTemb, 1);
      channels = kChannels[level];
      if (kTransformerLayers[level] > 0) transformer(q + "transformer_", size, channels, kTransformerLayers[level]);
    }
    if (i < 2) size = b.upsample(p, size, channels, 1);
  }
  b.output_head("unet_", size, channels, 4, 1);
  return params;
}

double append_vae_decoder(std::vector<Op>& ops, std::uint64_t latent) {
  double params = 0;
  DiffusionBuilder b{ops, params};
  constexpr std::array<std::uint64_t, 4> kUpChannels = {512, 512, 256, 128};
  std::uint64_t size = latent;
  b.conv("vae_post_quant_conv_1x1", size, 4, 4, 1, 1, 1);
  b.conv("vae_decoder_conv_in_3x3", size, 4, 512, 3, 1, 1);
  b.resnet("vae_mid_resnet0_", size, 512, 512, 0, 1);
  {
    const double C = 512, hw = static_cast<double>(size * size), n = hw * C;
    b.norm("vae_mid_attn_group_norm", n, C, 1);
    b.copy("vae_mid_attn_channels_last_copy", n, 1);
    b.attention("vae_mid_attn_", hw, C, hw, C, true, 1);
    b.copy("vae_mid_attn_channels_first_copy", n, 1);
    b.elementwise("vae_mid_attn_residual_add", 1, n, 2, 1);
  }
  b.resnet("vae_mid_resnet1_", size, 512, 512, 0, 1);
  std::uint64_t channels = 512;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string p = "vae_up" + std::to_string(i) + "_";
    b.resnet(p + "resnet0_", size, channels, kUpChannels[i], 0, 1);
    channels = kUpChannels[i];
    b.resnet(p + "resnet_", size, channels, channels, 0, 2);
    if (i < 3) size = b.upsample(p, size, channels, 1);
  }
  b.output_head("vae_", size, channels, 3, 1);
  return params;
}

// The VAE encoder's and quant_conv's parameters (the checkpoint holds them; text-to-image never runs
// them): conv_in 3 -> 128, DownEncoderBlock2D of 2 resnets (128, 256, 512, 512; downsample conv 3x3/2
// on the first three), mid block (resnet, attention, resnet), GroupNorm, conv_out 512 -> 8
// (double_z: mean and log-variance), quant_conv 1x1 8 -> 8.
double vae_encoder_parameters() {
  auto conv = [](double i, double o, double k) { return i * o * k * k + o; };
  auto resnet = [&](double i, double o) { return 2 * i + conv(i, o, 3) + 2 * o + conv(o, o, 3) + (i != o ? conv(i, o, 1) : 0); };
  constexpr std::array<double, 4> kChannels = {128, 256, 512, 512};
  double params = conv(3, 128, 3), prev = 128;
  for (std::size_t i = 0; i < 4; ++i) {
    params += resnet(prev, kChannels[i]) + resnet(kChannels[i], kChannels[i]);
    if (i < 3) params += conv(kChannels[i], kChannels[i], 3);
    prev = kChannels[i];
  }
  params += 2 * resnet(512, 512) + 2 * 512 + 4 * (512 * 512 + 512) + 2 * 512 + conv(512, 8, 3) + conv(8, 8, 1);
  return params;
}

ModelGraph build_sdxl(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kSdxlParams;
  check_arity(kSdxl, values, x_count);
  const auto latent = count_param(kSdxl, specs, values, x_latent, 8, 1e4);
  const auto steps = count_param(kSdxl, specs, values, x_steps, 1, 1e4);
  const bool guidance = flag_param(kSdxl, specs, values, x_guidance);
  const bool text = flag_param(kSdxl, specs, values, x_text);
  const bool vae = flag_param(kSdxl, specs, values, x_vae);
  if (latent % 4 != 0) fail(kSdxl, "latent_size must be a multiple of 4 (two 2x downsamplings)");

  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  if (text) {
    params += append_clip_text(g.ops, "clip_l_", 12, 768, 3072, 5, false);
    params += append_clip_text(g.ops, "clip_bigg_", 32, 1280, 5120, 8, true);
  }
  const std::size_t unet_from = g.ops.size();
  params += append_unet(g.ops, latent);
  scale_ops(g.ops, unet_from, guidance ? 2 : 1, steps);
  if (vae) params += append_vae_decoder(g.ops, latent) + vae_encoder_parameters();
  g.parameter_count = params;
  return g;
}

}  // namespace

Architecture sdxl_architecture() {
  return {.name = kSdxl,
          .description = "Stable Diffusion XL base: UNet steps on a latent, optional CLIP text encoders and VAE "
                         "decoder (diffusers layout)",
          .sample_unit = "image",
          .params = kSdxlParams,
          .build = &build_sdxl};
}

}  // namespace dsx
