// Vision architectures: the Vision Transformer and four mobile / modern CNN families, each in the
// layout of its torchvision implementation (pytorch/vision, torchvision/models/*.py), whose weight
// metadata publishes the parameter count (num_params) and GFLOPS (_ops, counted as multiply-adds of
// the conv, linear and attention matmuls) that tests/engine/model_builders_vision_test.cpp checks.
// Conventions of model_builders.cpp apply: one Op per eager kernel (cuDNN conv, inference BatchNorm,
// activation, add: one each), MACs = 2 FLOP, bias adds in the epilogue. Activation FLOPs per element:
// ReLU 1, ReLU6 2 (min, max), SiLU 4, hard-sigmoid 4 (add, clamp 2, divide), hard-swish 5
// (hard-sigmoid and a multiply), GELU 8; inference BatchNorm 2, LayerNorm 8. Dropout and stochastic
// depth are the identity at inference and launch nothing.
#include <array>
#include <cmath>
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
using builders::make_op;
using builders::positive_param;

enum class Act : std::uint8_t { none, relu, relu6, hardswish, silu };

double act_flops(Act a) {
  switch (a) {
    case Act::none: return 0;
    case Act::relu: return 1;
    case Act::relu6: return 2;
    case Act::hardswish: return 5;
    case Act::silu: return 4;
  }
  return 0;
}

const char* act_name(Act a) {
  switch (a) {
    case Act::none: return "";
    case Act::relu: return "relu";
    case Act::relu6: return "relu6";
    case Act::hardswish: return "hardswish";
    case Act::silu: return "silu";
  }
  return "";
}

// torchvision.models._utils._make_divisible (from the TensorFlow MobileNet code): round to the
// nearest multiple of `divisor`, at least `divisor`, never more than 10 % below v.
std::uint64_t make_divisible(double v, double divisor = 8) {
  double rounded = std::max(divisor, std::floor((v + divisor / 2) / divisor) * divisor);
  if (rounded < 0.9 * v) rounded += divisor;
  return static_cast<std::uint64_t>(rounded);
}

// Appends convs, norms and activations on square maps; counts parameters x repeat.
struct CnnBuilder {
  std::vector<Op>& ops;
  double& params;

  std::uint64_t conv(const std::string& name, std::uint64_t size, std::uint64_t cin, std::uint64_t cout,
                     std::uint64_t k, std::uint64_t stride, std::uint64_t groups, bool bias, std::uint32_t r) {
    const Conv2dShape s = square_conv(size, cin, cout, k, stride, groups, bias);
    ops.push_back(conv2d(name, s, r));
    params += s.weight_elements() * r;
    return s.out_height();
  }
  void batchnorm(const std::string& name, std::uint64_t size, std::uint64_t c, std::uint32_t r) {
    const double n = static_cast<double>(c * size * size);
    ops.push_back(make_op(name, OpKind::normalization, 2 * n, n, n, 2.0 * static_cast<double>(c), r));
    params += 2.0 * static_cast<double>(c) * r;
  }
  void activation(const std::string& prefix, Act a, std::uint64_t size, std::uint64_t c, std::uint32_t r) {
    if (a == Act::none) return;
    const double n = static_cast<double>(c * size * size);
    ops.push_back(make_op(prefix + act_name(a), OpKind::elementwise, act_flops(a) * n, n, n, 0, r));
  }
  // torchvision Conv2dNormActivation: conv (no bias) -> BatchNorm -> activation.
  std::uint64_t conv_bn_act(const std::string& prefix, std::uint64_t size, std::uint64_t cin, std::uint64_t cout,
                            std::uint64_t k, std::uint64_t stride, std::uint64_t groups, Act a, std::uint32_t r) {
    const std::uint64_t out = conv(prefix + (groups > 1 ? "dwconv" : "conv") + std::to_string(k) + "x" +
                                       std::to_string(k),
                                   size, cin, cout, k, stride, groups, false, r);
    batchnorm(prefix + "bn", out, cout, r);
    activation(prefix, a, out, cout, r);
    return out;
  }
  void residual_add(const std::string& name, std::uint64_t size, std::uint64_t c, std::uint32_t r) {
    const double n = static_cast<double>(c * size * size);
    ops.push_back(make_op(name, OpKind::elementwise, n, 2 * n, n, 0, r));
  }
  void global_avgpool(std::uint64_t size, std::uint64_t c) {
    const double n = static_cast<double>(c * size * size);
    ops.push_back(make_op("global_avgpool", OpKind::reduction, n, n, static_cast<double>(c), 0, 1));
  }
  void linear(const std::string& name, double in, double out) {
    ops.push_back(make_op(name, OpKind::matmul, 2 * in * out, in, out, in * out + out, 1));
    params += in * out + out;
  }
};

// One inverted-residual (MBConv) block of MobileNetV2/V3 and EfficientNet, `r` identical copies.
struct InvertedResidual {
  std::uint64_t in = 0, expanded = 0, out = 0, kernel = 3, stride = 1;
  Act act = Act::relu6;
  std::uint64_t se_squeeze = 0;  // 0 = no squeeze-excitation
  Act se_inner = Act::relu;      // the SE's inner activation (gate: 4 FLOP per element either way)
};

std::uint64_t inverted_residual(CnnBuilder& b, const std::string& p, const InvertedResidual& c, std::uint64_t size,
                                std::uint32_t r) {
  if (c.expanded != c.in) b.conv_bn_act(p + "expand_", size, c.in, c.expanded, 1, 1, 1, c.act, r);
  const std::uint64_t out = b.conv_bn_act(p, size, c.expanded, c.expanded, c.kernel, c.stride, c.expanded, c.act, r);
  if (c.se_squeeze > 0) {
    b.params += r * append_squeeze_excitation(b.ops, p, static_cast<double>(c.expanded),
                                              static_cast<double>(out * out), static_cast<double>(c.se_squeeze),
                                              act_flops(c.se_inner), r);
  }
  b.conv_bn_act(p + "project_", out, c.expanded, c.out, 1, 1, 1, Act::none, r);
  if (c.stride == 1 && c.in == c.out) b.residual_add(p + "residual_add", out, c.out, r);
  return out;
}

// ---------------------------------------------------------------------------------------------
// vit: Vision Transformer (Dosovitskiy et al. 2021, arXiv:2010.11929, Table 1: ViT-B 12 layers,
// d 768, MLP 3072, 12 heads, 86M; ViT-L 24, 1024, 4096, 16, 307M) in the torchvision layout
// (vision_transformer.py): patch embedding conv (kernel = stride = patch, bias), class token
// concatenated (one copy kernel), learned position embedding added, `layers` pre-LN encoder blocks
// (LayerNorm, packed QKV projection, attention, output projection, residual add, LayerNorm, fc1,
// GELU, fc2, residual add; all linears with biases), final LayerNorm on all T tokens, and the head
// Linear(d, classes) on the class token. T = (image / patch)^2 + 1 tokens. Attention is unfused as
// in the transformer builder (scores, scale, softmax, context; no mask), with the same op names, so
// engine/serving.hpp can read its shape.
// ViT-B/16: 86,567,656 parameters, 17.56 GMAC at 224x224 (torchvision num_params, _ops 17.564).
// ---------------------------------------------------------------------------------------------

enum VitParam : std::size_t { v_layers, v_d_model, v_heads, v_d_ff, v_patch, v_image, v_channels, v_classes, v_count };

constexpr std::array<ArchParamSpec, v_count> kVitParams = {{
    {.name = "layers", .description = "encoder blocks (ViT-B 12, ViT-L 24)"},
    {.name = "d_model", .description = "hidden size (ViT-B 768, ViT-L 1024)"},
    {.name = "heads", .description = "attention heads (must divide d_model)"},
    {.name = "d_ff", .description = "MLP inner size (ViT-B 3072, ViT-L 4096)"},
    {.name = "patch", .description = "patch side in pixels (ViT-B/16: 16); must divide image_size", .has_default = true,
     .default_value = 16},
    {.name = "image_size", .description = "input height = width in pixels", .has_default = true, .default_value = 224},
    {.name = "channels", .description = "input channels", .has_default = true, .default_value = 3},
    {.name = "classes", .description = "outputs of the classification head", .has_default = true,
     .default_value = 1000},
}};

constexpr std::string_view kVit = "vit";

ModelGraph build_vit(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kVitParams;
  check_arity(kVit, values, v_count);
  const auto layers = count_param(kVit, specs, values, v_layers, 1, 1e5);
  const auto d_model = count_param(kVit, specs, values, v_d_model, 1, 1e6);
  const auto heads = count_param(kVit, specs, values, v_heads, 1, 1e5);
  const auto d_ff = count_param(kVit, specs, values, v_d_ff, 1, 1e7);
  const auto patch = count_param(kVit, specs, values, v_patch, 1, 1e4);
  const auto image = count_param(kVit, specs, values, v_image, 1, 1e5);
  const auto channels = count_param(kVit, specs, values, v_channels, 1, 1e4);
  const auto classes = count_param(kVit, specs, values, v_classes, 1, 1e9);
  if (d_model % heads != 0) fail(kVit, "heads must divide d_model");
  if (image % patch != 0) fail(kVit, "patch must divide image_size");

  ModelGraph g;
  g.sample_unit = "image";
  const double d = static_cast<double>(d_model), F = static_cast<double>(d_ff), H = static_cast<double>(heads);
  const double patches = static_cast<double>((image / patch) * (image / patch));
  const double T = patches + 1;
  const auto r = as_repeat(layers);
  auto& ops = g.ops;
  double params = 0;

  ops.push_back(patch_embedding("patch_embedding", image, channels, patch, d_model, 1));
  params += ops.back().weight_elements;
  ops.push_back(make_op("class_token_concat", OpKind::memory, 0, patches * d, T * d, d, 1));
  ops.push_back(make_op("position_embedding_add", OpKind::elementwise, T * d, T * d, T * d, T * d, 1));
  params += d + T * d;

  ops.push_back(make_op("layernorm_attn", OpKind::normalization, 8 * T * d, T * d, T * d, 2 * d, r));
  ops.push_back(make_op("qkv_proj", OpKind::matmul, 2 * T * d * 3 * d, T * d, 3 * T * d, 3 * d * d + 3 * d, r));
  ops.push_back(attention_scores("attention_scores", T, T, H, d / H, r));
  const double scores = H * T * T;
  ops.push_back(make_op("attention_scale", OpKind::elementwise, scores, scores, scores, 0, r));
  ops.push_back(make_op("attention_softmax", OpKind::reduction, 5 * scores, scores, scores, 0, r));
  ops.push_back(attention_context("attention_context", T, T, H, d / H, r));
  ops.push_back(make_op("out_proj", OpKind::matmul, 2 * T * d * d, T * d, T * d, d * d + d, r));
  ops.push_back(make_op("residual_add_attn", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
  ops.push_back(make_op("layernorm_mlp", OpKind::normalization, 8 * T * d, T * d, T * d, 2 * d, r));
  ops.push_back(make_op("mlp_fc1", OpKind::matmul, 2 * T * d * F, T * d, T * F, d * F + F, r));
  ops.push_back(make_op("mlp_gelu", OpKind::elementwise, 8 * T * F, T * F, T * F, 0, r));
  ops.push_back(make_op("mlp_fc2", OpKind::matmul, 2 * T * F * d, T * F, T * d, F * d + d, r));
  ops.push_back(make_op("residual_add_mlp", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
  params += static_cast<double>(layers) * (4 * d + 4 * d * d + 4 * d + 2 * d * F + F + d);

  ops.push_back(make_op("layernorm_final", OpKind::normalization, 8 * T * d, T * d, T * d, 2 * d, 1));
  const double K = static_cast<double>(classes);
  ops.push_back(make_op("head", OpKind::matmul, 2 * d * K, d, K, d * K + K, 1));
  params += 2 * d + d * K + K;
  g.parameter_count = params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// mobilenet_v2: Sandler et al. 2018, MobileNetV2 (arXiv:1801.04381), Table 2, torchvision
// mobilenetv2.py: conv 3x3/2 (32) BN ReLU6; inverted residual stages (t, c, n, s) = (1,16,1,1),
// (6,24,2,2), (6,32,3,2), (6,64,4,2), (6,96,3,1), (6,160,3,2), (6,320,1,1), each block an
// expansion 1x1 to t C_in (when t != 1) BN ReLU6, depthwise 3x3 (stride s on the first block) BN
// ReLU6, projection 1x1 BN, residual add when the shape is kept; conv 1x1 to 1280 BN ReLU6; average
// pool; Linear(1280, classes). Widths c x width_mult rounded by _make_divisible(., 8); the last conv
// keeps 1280 for width_mult <= 1. 3,504,872 parameters, 0.301 GMAC (torchvision num_params, _ops).
// ---------------------------------------------------------------------------------------------

enum MobileParam : std::size_t { m_width, m_image, m_classes, m_count };

constexpr std::array<ArchParamSpec, m_count> kMobileParams = {{
    {.name = "width_mult", .dimension = Dimension::dimensionless,
     .description = "channel multiplier of every layer (1.0 = the published network)", .has_default = true,
     .default_value = 1.0, .integer = false},
    {.name = "image_size", .description = "input height = width in pixels", .has_default = true, .default_value = 224},
    {.name = "classes", .description = "outputs of the classifier", .has_default = true, .default_value = 1000},
}};

struct MobileArgs {
  double width = 1;
  std::uint64_t image = 224;
  std::uint64_t classes = 1000;
};

MobileArgs mobile_args(std::string_view arch, std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kMobileParams;
  check_arity(arch, values, m_count);
  MobileArgs a;
  a.width = positive_param(arch, specs, values, m_width);
  if (a.width > 100) fail(arch, "width_mult must be at most 100");
  a.image = count_param(arch, specs, values, m_image, 32, 1e5);
  a.classes = count_param(arch, specs, values, m_classes, 1, 1e9);
  return a;
}

constexpr std::string_view kMobileNetV2 = "mobilenet_v2";

ModelGraph build_mobilenet_v2(std::span<const double> values) {
  const MobileArgs a = mobile_args(kMobileNetV2, values);
  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  CnnBuilder b{g.ops, params};
  struct Stage {
    std::uint64_t t, c, n, s;
  };
  constexpr std::array<Stage, 7> kStages = {{{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}}};
  std::uint64_t channels = make_divisible(32 * a.width);
  const std::uint64_t last = make_divisible(1280 * std::max(1.0, a.width));
  std::uint64_t h = b.conv_bn_act("stem_", a.image, 3, channels, 3, 2, 1, Act::relu6, 1);
  for (std::size_t i = 0; i < kStages.size(); ++i) {
    const Stage& s = kStages[i];
    const std::uint64_t out = make_divisible(static_cast<double>(s.c) * a.width);
    const std::string p = "stage" + std::to_string(i + 1) + "_";
    InvertedResidual c{.in = channels, .expanded = channels * s.t, .out = out, .kernel = 3, .stride = s.s,
                       .act = Act::relu6};
    h = inverted_residual(b, p + "block1_", c, h, 1);
    if (s.n > 1) {
      c.in = out;
      c.expanded = out * s.t;
      c.stride = 1;
      inverted_residual(b, p + "block_", c, h, as_repeat(s.n - 1));
    }
    channels = out;
  }
  b.conv_bn_act("last_", h, channels, last, 1, 1, 1, Act::relu6, 1);
  b.global_avgpool(h, last);
  b.linear("classifier", static_cast<double>(last), static_cast<double>(a.classes));
  g.parameter_count = params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// mobilenet_v3_large: Howard et al. 2019, Searching for MobileNetV3 (arXiv:1905.02244), Table 1, in
// torchvision mobilenetv3.py: conv 3x3/2 (16) BN hard-swish; 15 bottlenecks (kernel, expanded,
// out, SE, activation, stride) as in the table, each an expansion 1x1 (when expanded != in) BN act,
// depthwise k x k BN act, squeeze-excitation with _make_divisible(expanded / 4, 8) channels (ReLU
// inside, hard-sigmoid gate), projection 1x1 BN, residual add when the shape is kept; conv 1x1 to
// 960 BN hard-swish; average pool; Linear(960, 1280) hard-swish; Linear(1280, classes).
// 5,483,032 parameters, 0.217 GMAC (torchvision num_params, _ops).
// ---------------------------------------------------------------------------------------------

constexpr std::string_view kMobileNetV3 = "mobilenet_v3_large";

ModelGraph build_mobilenet_v3_large(std::span<const double> values) {
  const MobileArgs a = mobile_args(kMobileNetV3, values);
  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  CnnBuilder b{g.ops, params};
  struct Bneck {
    std::uint64_t in, k, exp, out;
    bool se, hs;
    std::uint64_t stride;
  };
  constexpr std::array<Bneck, 15> kTable = {{{16, 3, 16, 16, false, false, 1},
                                             {16, 3, 64, 24, false, false, 2},
                                             {24, 3, 72, 24, false, false, 1},
                                             {24, 5, 72, 40, true, false, 2},
                                             {40, 5, 120, 40, true, false, 1},
                                             {40, 5, 120, 40, true, false, 1},
                                             {40, 3, 240, 80, false, true, 2},
                                             {80, 3, 200, 80, false, true, 1},
                                             {80, 3, 184, 80, false, true, 1},
                                             {80, 3, 184, 80, false, true, 1},
                                             {80, 3, 480, 112, true, true, 1},
                                             {112, 3, 672, 112, true, true, 1},
                                             {112, 5, 672, 160, true, true, 2},
                                             {160, 5, 960, 160, true, true, 1},
                                             {160, 5, 960, 160, true, true, 1}}};
  auto adjust = [&](std::uint64_t c) { return make_divisible(static_cast<double>(c) * a.width); };
  std::uint64_t h = b.conv_bn_act("stem_", a.image, 3, adjust(16), 3, 2, 1, Act::hardswish, 1);
  std::uint64_t channels = adjust(16);
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    const Bneck& n = kTable[i];
    const std::uint64_t expanded = adjust(n.exp);
    InvertedResidual c{.in = adjust(n.in), .expanded = expanded, .out = adjust(n.out), .kernel = n.k,
                       .stride = n.stride, .act = n.hs ? Act::hardswish : Act::relu,
                       .se_squeeze = n.se ? make_divisible(static_cast<double>(expanded / 4)) : 0,
                       .se_inner = Act::relu};
    h = inverted_residual(b, "block" + std::to_string(i + 1) + "_", c, h, 1);
    channels = c.out;
  }
  const std::uint64_t last_conv = 6 * channels;
  const std::uint64_t last = adjust(1280);
  b.conv_bn_act("last_", h, channels, last_conv, 1, 1, 1, Act::hardswish, 1);
  b.global_avgpool(h, last_conv);
  b.linear("classifier_fc1", static_cast<double>(last_conv), static_cast<double>(last));
  const double n = static_cast<double>(last);
  g.ops.push_back(make_op("classifier_hardswish", OpKind::elementwise, 5 * n, n, n, 0, 1));
  b.linear("classifier_fc2", n, static_cast<double>(a.classes));
  g.parameter_count = params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// efficientnet: Tan & Le 2019, EfficientNet (arXiv:1905.11946), Table 1 (B0), torchvision
// efficientnet.py: conv 3x3/2 (32) BN SiLU; MBConv stages (expand, kernel, stride, in, out, layers)
// = (1,3,1,32,16,1), (6,3,2,16,24,2), (6,5,2,24,40,2), (6,3,2,40,80,3), (6,5,1,80,112,3),
// (6,5,2,112,192,4), (6,3,1,192,320,1), each block an expansion 1x1 BN SiLU (expand != 1),
// depthwise k x k BN SiLU, squeeze-excitation with max(1, C_in / 4) channels (SiLU inside, sigmoid
// gate), projection 1x1 BN, residual add when the shape is kept; conv 1x1 to 4 x 320 BN SiLU;
// average pool; Linear(1280, classes). Compound scaling: widths x width_mult rounded by
// _make_divisible(., 8), layers ceil(layers x depth_mult); B0 = (1.0, 1.0, 224), B1 = (1.0, 1.1,
// 240), B2 = (1.1, 1.2, 260), ... B0: 5,288,548 parameters, 0.386 GMAC (torchvision num_params, _ops).
// ---------------------------------------------------------------------------------------------

enum EfficientParam : std::size_t { e_width, e_depth, e_image, e_classes, e_count };

constexpr std::array<ArchParamSpec, e_count> kEfficientParams = {{
    {.name = "width_mult", .dimension = Dimension::dimensionless, .description = "channel multiplier (B0 1.0)",
     .has_default = true, .default_value = 1.0, .integer = false},
    {.name = "depth_mult", .dimension = Dimension::dimensionless, .description = "layer multiplier (B0 1.0)",
     .has_default = true, .default_value = 1.0, .integer = false},
    {.name = "image_size", .description = "input height = width in pixels (B0 224)", .has_default = true,
     .default_value = 224},
    {.name = "classes", .description = "outputs of the classifier", .has_default = true, .default_value = 1000},
}};

constexpr std::string_view kEfficientNet = "efficientnet";

ModelGraph build_efficientnet(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kEfficientParams;
  check_arity(kEfficientNet, values, e_count);
  const double width = positive_param(kEfficientNet, specs, values, e_width);
  const double depth = positive_param(kEfficientNet, specs, values, e_depth);
  if (width > 100 || depth > 100) fail(kEfficientNet, "width_mult and depth_mult must be at most 100");
  const auto image = count_param(kEfficientNet, specs, values, e_image, 32, 1e5);
  const auto classes = count_param(kEfficientNet, specs, values, e_classes, 1, 1e9);

  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  CnnBuilder b{g.ops, params};
  struct Stage {
    std::uint64_t expand, k, stride, in, out, layers;
  };
  constexpr std::array<Stage, 7> kStages = {{{1, 3, 1, 32, 16, 1}, {6, 3, 2, 16, 24, 2}, {6, 5, 2, 24, 40, 2},
                                             {6, 3, 2, 40, 80, 3}, {6, 5, 1, 80, 112, 3}, {6, 5, 2, 112, 192, 4},
                                             {6, 3, 1, 192, 320, 1}}};
  auto adjust = [&](std::uint64_t c) { return make_divisible(static_cast<double>(c) * width); };
  std::uint64_t h = b.conv_bn_act("stem_", image, 3, adjust(32), 3, 2, 1, Act::silu, 1);
  std::uint64_t channels = adjust(32);
  for (std::size_t i = 0; i < kStages.size(); ++i) {
    const Stage& s = kStages[i];
    const auto layers = static_cast<std::uint64_t>(std::ceil(static_cast<double>(s.layers) * depth));
    const std::uint64_t out = adjust(s.out);
    const std::string p = "stage" + std::to_string(i + 1) + "_";
    auto block = [&](std::uint64_t in, std::uint64_t stride) {
      return InvertedResidual{.in = in, .expanded = make_divisible(static_cast<double>(in * s.expand)), .out = out,
                              .kernel = s.k, .stride = stride, .act = Act::silu,
                              .se_squeeze = std::max<std::uint64_t>(1, in / 4), .se_inner = Act::silu};
    };
    h = inverted_residual(b, p + "block1_", block(adjust(s.in), s.stride), h, 1);
    if (layers > 1) inverted_residual(b, p + "block_", block(out, 1), h, as_repeat(layers - 1));
    channels = out;
  }
  const std::uint64_t last = 4 * channels;
  b.conv_bn_act("last_", h, channels, last, 1, 1, 1, Act::silu, 1);
  b.global_avgpool(h, last);
  b.linear("classifier", static_cast<double>(last), static_cast<double>(classes));
  g.parameter_count = params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// convnext: Liu et al. 2022, A ConvNet for the 2020s (arXiv:2201.03545), section 3 and Table 9 (T:
// depths 3,3,9,3, widths 96,192,384,768), torchvision convnext.py: stem conv 4x4/4 (bias) +
// LayerNorm2d; four stages of blocks, each a depthwise 7x7 conv (bias), a copy to channels-last
// (F.layer_norm requires a contiguous input: one copy kernel), LayerNorm, Linear(C, 4C), GELU,
// Linear(4C, C), layer scale (C parameters, 1 FLOP per element), residual add; between stages
// LayerNorm2d (copy + LayerNorm) and a conv 2x2/2 (bias) doubling the width; then average pool,
// LayerNorm2d and Linear(768, classes). ConvNeXt-T: 28,589,128 parameters, 4.456 GMAC (torchvision
// num_params, _ops).
// ---------------------------------------------------------------------------------------------

enum ConvNextParam : std::size_t { n_depth1, n_depth2, n_depth3, n_depth4, n_width, n_image, n_classes, n_count };

constexpr std::array<ArchParamSpec, n_count> kConvNextParams = {{
    {.name = "depth1", .description = "blocks in stage 1 (ConvNeXt-T 3)"},
    {.name = "depth2", .description = "blocks in stage 2 (ConvNeXt-T 3)"},
    {.name = "depth3", .description = "blocks in stage 3 (ConvNeXt-T 9)"},
    {.name = "depth4", .description = "blocks in stage 4 (ConvNeXt-T 3)"},
    {.name = "base_width", .description = "channels of stage 1; stage s has base_width x 2^(s-1) (ConvNeXt-T 96)",
     .has_default = true, .default_value = 96},
    {.name = "image_size", .description = "input height = width in pixels (a multiple of 32)", .has_default = true,
     .default_value = 224},
    {.name = "classes", .description = "outputs of the classifier", .has_default = true, .default_value = 1000},
}};

constexpr std::string_view kConvNext = "convnext";

ModelGraph build_convnext(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kConvNextParams;
  check_arity(kConvNext, values, n_count);
  std::array<std::uint64_t, 4> depths{};
  for (std::size_t s = 0; s < 4; ++s) depths[s] = count_param(kConvNext, specs, values, n_depth1 + s, 1, 1e4);
  const auto base = count_param(kConvNext, specs, values, n_width, 1, 1e5);
  const auto image = count_param(kConvNext, specs, values, n_image, 32, 1e5);
  const auto classes = count_param(kConvNext, specs, values, n_classes, 1, 1e9);
  if (image % 32 != 0) fail(kConvNext, "image_size must be a multiple of 32");

  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  CnnBuilder b{g.ops, params};
  auto& ops = g.ops;
  auto layernorm2d = [&](const std::string& p, std::uint64_t size, std::uint64_t c, std::uint32_t r) {
    const double n = static_cast<double>(c * size * size), C = static_cast<double>(c);
    ops.push_back(make_op(p + "channels_last_copy", OpKind::memory, 0, n, n, 0, r));
    ops.push_back(make_op(p + "layernorm", OpKind::normalization, 8 * n, n, n, 2 * C, r));
    params += 2 * C * r;
  };

  // Stem: conv 4x4 stride 4 without padding ("patchify", section 2.3 of the paper).
  const Conv2dShape stem{.height = image, .width = image, .in_channels = 3, .out_channels = base, .kernel_h = 4,
                         .kernel_w = 4, .stride = 4, .bias = true};
  ops.push_back(conv2d("stem_conv4x4_s4", stem, 1));
  params += stem.weight_elements();
  std::uint64_t h = stem.out_height();
  layernorm2d("stem_", h, base, 1);
  std::uint64_t c = base;
  for (std::size_t s = 0; s < 4; ++s) {
    const std::string p = "stage" + std::to_string(s + 1) + "_";
    if (s > 0) {
      layernorm2d(p + "downsample_", h, c, 1);
      const Conv2dShape down{.height = h, .width = h, .in_channels = c, .out_channels = 2 * c, .kernel_h = 2,
                             .kernel_w = 2, .stride = 2, .bias = true};
      ops.push_back(conv2d(p + "downsample_conv2x2_s2", down, 1));
      params += down.weight_elements();
      h = down.out_height();
      c *= 2;
    }
    const auto r = as_repeat(depths[s]);
    const double n = static_cast<double>(c * h * h), C = static_cast<double>(c), hw = static_cast<double>(h * h);
    b.conv(p + "block_dwconv7x7", h, c, c, 7, 1, c, true, r);
    layernorm2d(p + "block_", h, c, r);
    ops.push_back(make_op(p + "block_fc1", OpKind::matmul, 2 * hw * C * 4 * C, n, 4 * n, 4 * C * C + 4 * C, r));
    ops.push_back(make_op(p + "block_gelu", OpKind::elementwise, 8 * 4 * n, 4 * n, 4 * n, 0, r));
    ops.push_back(make_op(p + "block_fc2", OpKind::matmul, 2 * hw * 4 * C * C, 4 * n, n, 4 * C * C + C, r));
    ops.push_back(make_op(p + "block_layer_scale", OpKind::elementwise, n, n, n, C, r));
    b.residual_add(p + "block_residual_add", h, c, r);
    params += static_cast<double>(depths[s]) * (8 * C * C + 5 * C + C);
  }
  b.global_avgpool(h, c);
  layernorm2d("head_", 1, c, 1);
  b.linear("classifier", static_cast<double>(c), static_cast<double>(classes));
  g.parameter_count = params;
  return g;
}

}  // namespace

Architecture vit_architecture() {
  return {.name = kVit,
          .description = "Vision Transformer (ViT-B/16, ViT-L/16; torchvision layout): patch embedding + pre-LN encoder",
          .sample_unit = "image",
          .params = kVitParams,
          .build = &build_vit};
}

Architecture mobilenet_v2_architecture() {
  return {.name = kMobileNetV2,
          .description = "MobileNetV2: inverted residuals with depthwise convs (torchvision layout)",
          .sample_unit = "image",
          .params = kMobileParams,
          .build = &build_mobilenet_v2};
}

Architecture mobilenet_v3_large_architecture() {
  return {.name = kMobileNetV3,
          .description = "MobileNetV3-Large: inverted residuals, squeeze-excitation, hard-swish (torchvision layout)",
          .sample_unit = "image",
          .params = kMobileParams,
          .build = &build_mobilenet_v3_large};
}

Architecture efficientnet_architecture() {
  return {.name = kEfficientNet,
          .description = "EfficientNet B0-B7: MBConv with squeeze-excitation, compound scaling (torchvision layout)",
          .sample_unit = "image",
          .params = kEfficientParams,
          .build = &build_efficientnet};
}

Architecture convnext_architecture() {
  return {.name = kConvNext,
          .description = "ConvNeXt: depthwise 7x7 + inverted MLP blocks with LayerNorm (torchvision layout)",
          .sample_unit = "image",
          .params = kConvNextParams,
          .build = &build_convnext};
}

}  // namespace dsx
