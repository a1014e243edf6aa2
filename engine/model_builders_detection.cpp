// Detection architectures: Mask R-CNN with a ResNet-50-FPN backbone in the layout of torchvision
// (pytorch/vision, torchvision/models/detection/mask_rcnn.py, faster_rcnn.py, backbone_utils.py,
// rpn.py, roi_heads.py; torchvision/ops/feature_pyramid_network.py, poolers.py, misc.py), whose
// MaskRCNN_ResNet50_FPN_Weights.COCO_V1 metadata publishes num_params 44,401,393 and _ops 134.38.
// Conventions of model_builders.cpp apply: one Op per eager kernel, MACs = 2 FLOP, bias adds in the
// epilogue; ReLU 1 FLOP per element, add 1, max pool 1 per window element read.
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
using builders::make_op;

// ---------------------------------------------------------------------------------------------
// mask_rcnn: He et al. 2017, Mask R-CNN (arXiv:1703.06870), torchvision maskrcnn_resnet50_fpn.
// A sample is one image of image_height x image_width pixels after GeneralizedRCNNTransform
// (min_size 800, max_size 1333: a square image becomes 800 x 800; batches are padded to
// multiples of 32). Layers, in eager order:
//  - transform: normalisation (x - mean) / std, two element-wise kernels on 3 H W. The resize is
//    not modelled (its cost depends on the original image).
//  - backbone: ResNet-50 (blocks 3, 4, 6, 3; stride on the 3x3 conv) without avgpool and fc, with
//    FrozenBatchNorm2d (ops/misc.py): weight, bias and running statistics are buffers, not
//    parameters; forward computes scale = w (rv + eps)^-1/2 and shift = b - rm scale in five
//    per-channel kernels, then x scale + shift in two kernels over the map.
//  - FPN (feature_pyramid_network.py) on C2..C5 (256, 512, 1024, 2048 channels at strides 4..32):
//    per level a 1x1 lateral conv to 256 (bias), from the top a nearest 2x upsample of the coarser
//    merged map and an add, a 3x3 output conv 256 -> 256 (bias); LastLevelMaxPool adds P6 =
//    max_pool2d(P5, kernel 1, stride 2).
//  - RPN head (rpn.py), shared by the 5 levels: conv 3x3 256 -> 256 (bias), ReLU, objectness
//    1x1 -> 3 anchors and box deltas 1x1 -> 12 (3 aspect ratios x 1 size per level).
//  - box branch (roi_heads.py, faster_rcnn.py): MultiScaleRoIAlign 7 x 7, sampling_ratio 2 over
//    P2..P5 (one roi_align kernel per level) on `proposals` boxes (rpn_post_nms_top_n_test 1000),
//    TwoMLPHead 256 x 7 x 7 -> 1024 -> 1024 with ReLU, FastRCNNPredictor cls_score 1024 -> classes and
//    bbox_pred 1024 -> 4 classes.
//  - mask branch (mask_rcnn.py): MultiScaleRoIAlign 14 x 14, sampling_ratio 2 on `detections`
//    boxes (box_detections_per_img 100, the most the box branch keeps), MaskRCNNHeads four conv 3x3
//    256 (bias) + ReLU, MaskRCNNPredictor ConvTranspose2d 256 -> 256 kernel 2 stride 2 (bias), ReLU,
//    conv 1x1 -> classes (bias) on 28 x 28.
// Not modelled: anchor generation, box decoding, top-k, NMS and score thresholds of the RPN and the
// box branch, the class softmax, mask sigmoid and paste_masks_in_image: data-dependent, index-heavy
// kernels with little arithmetic. With it the graph is an upper bound on the heads' work at the
// given box counts (torchvision keeps at most these many).
// Parameters: ResNet-50 convs 23,454,912 (25,557,032 less the fc's 2,049,000 and the BN's 53,120,
// which FrozenBatchNorm2d turns into buffers), FPN 3,344,384, RPN head 593,935, box head 13,895,680,
// predictor 466,375, mask head 2,360,320, mask predictor 285,787: 44,401,393 (torchvision's
// num_params). The _ops 134.38 is not checked: the reference input and the number of boxes the
// heads ran on when torchvision measured it are not stated with it.
// ---------------------------------------------------------------------------------------------

enum MaskRcnnParam : std::size_t { k_height, k_width, k_proposals, k_detections, k_classes, k_count };

constexpr std::array<ArchParamSpec, k_count> kMaskRcnnParams = {{
    {.name = "image_height",
     .description = "input height after GeneralizedRCNNTransform, a multiple of 32 (min_size 800: a square image "
                    "becomes 800 x 800)",
     .has_default = true, .default_value = 800},
    {.name = "image_width", .description = "input width after the transform, a multiple of 32 (max_size 1333)",
     .has_default = true, .default_value = 800},
    {.name = "proposals",
     .description = "boxes the box head runs on (rpn_post_nms_top_n_test, faster_rcnn.py default 1000)",
     .has_default = true, .default_value = 1000},
    {.name = "detections",
     .description = "boxes the mask head runs on (box_detections_per_img, faster_rcnn.py default 100)",
     .has_default = true, .default_value = 100},
    {.name = "classes", .description = "classes including background (COCO 91)", .has_default = true,
     .default_value = 91},
}};

constexpr std::string_view kMaskRcnn = "mask_rcnn";

struct Map {
  std::uint64_t h = 0, w = 0;
  double elements(std::uint64_t c) const { return static_cast<double>(c * h * w); }
};

struct DetectionBuilder {
  std::vector<Op>& ops;
  double& params;

  Map conv(const std::string& name, Map in, std::uint64_t cin, std::uint64_t cout, std::uint64_t k,
           std::uint64_t stride, bool bias, std::uint32_t r, bool count_params = true) {
    const Conv2dShape s{.height = in.h, .width = in.w, .in_channels = cin, .out_channels = cout, .kernel_h = k,
                        .kernel_w = k, .stride = stride, .pad_h = k / 2, .pad_w = k / 2, .bias = bias};
    ops.push_back(conv2d(name, s, r));
    if (count_params) params += s.weight_elements() * r;
    return {s.out_height(), s.out_width()};
  }
  void frozen_bn(const std::string& p, Map m, std::uint64_t c, std::uint32_t r) {
    const double C = static_cast<double>(c), n = m.elements(c);
    Op stats = make_op(p + "frozen_bn_scale_shift", OpKind::elementwise, 5 * C, 4 * C, 2 * C, 4 * C, r);
    stats.kernels = 5;
    ops.push_back(stats);
    ops.push_back(make_op(p + "frozen_bn_mul", OpKind::elementwise, n, n, n, 0, r));
    ops.push_back(make_op(p + "frozen_bn_add", OpKind::elementwise, n, n, n, 0, r));
  }
  void relu(const std::string& name, double n, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::elementwise, n, n, n, 0, r));
  }
  void add(const std::string& name, double n, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::elementwise, n, 2 * n, n, 0, r));
  }
};

// Scales an op that runs once per box to `boxes` boxes (weights are read once).
Op per_box(Op op, double boxes) {
  op.flops_per_sample *= boxes;
  op.input_elements_per_sample *= boxes;
  op.output_elements_per_sample *= boxes;
  return op;
}

ModelGraph build_mask_rcnn(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kMaskRcnnParams;
  check_arity(kMaskRcnn, values, k_count);
  const auto height = count_param(kMaskRcnn, specs, values, k_height, 64, 1e5);
  const auto width = count_param(kMaskRcnn, specs, values, k_width, 64, 1e5);
  const double proposals = static_cast<double>(count_param(kMaskRcnn, specs, values, k_proposals, 1, 1e6));
  const double detections = static_cast<double>(count_param(kMaskRcnn, specs, values, k_detections, 1, 1e6));
  const auto classes = count_param(kMaskRcnn, specs, values, k_classes, 2, 1e6);
  if (height % 32 != 0 || width % 32 != 0) fail(kMaskRcnn, "image_height and image_width must be multiples of 32");
  if (detections > proposals) fail(kMaskRcnn, "detections must not exceed proposals");

  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  DetectionBuilder b{g.ops, params};
  auto& ops = g.ops;
  constexpr std::uint64_t kFpn = 256;

  const double pixels = 3.0 * static_cast<double>(height * width);
  ops.push_back(make_op("transform_subtract_mean", OpKind::elementwise, pixels, pixels, pixels, 3, 1));
  ops.push_back(make_op("transform_divide_std", OpKind::elementwise, pixels, pixels, pixels, 3, 1));

  // Backbone.
  Map m = b.conv("stem_conv7x7", {height, width}, 3, 64, 7, 2, false, 1);
  b.frozen_bn("stem_", m, 64, 1);
  b.relu("stem_relu", m.elements(64), 1);
  {
    const Map pooled{(m.h + 2 - 3) / 2 + 1, (m.w + 2 - 3) / 2 + 1};
    ops.push_back(make_op("stem_maxpool3x3", OpKind::reduction, 9 * pooled.elements(64), m.elements(64),
                          pooled.elements(64), 0, 1));
    m = pooled;
  }
  constexpr std::array<std::uint64_t, 4> kBlocks = {3, 4, 6, 3};
  std::array<Map, 4> c_maps{};
  std::array<std::uint64_t, 4> c_channels{};
  std::uint64_t channels = 64;
  for (std::size_t s = 0; s < 4; ++s) {
    const std::uint64_t w = 64ULL << s, out_c = 4 * w, stride = s == 0 ? 1 : 2;
    const std::string prefix = "layer" + std::to_string(s + 1) + "_";
    auto block = [&](const std::string& p, std::uint64_t cin, std::uint64_t st, bool downsample, std::uint32_t r) {
      b.conv(p + "conv1x1_reduce", m, cin, w, 1, 1, false, r);
      b.frozen_bn(p + "bn1_", m, w, r);
      b.relu(p + "relu1", m.elements(w), r);
      const Map o = b.conv(p + "conv3x3", m, w, w, 3, st, false, r);
      b.frozen_bn(p + "bn2_", o, w, r);
      b.relu(p + "relu2", o.elements(w), r);
      b.conv(p + "conv1x1_expand", o, w, out_c, 1, 1, false, r);
      b.frozen_bn(p + "bn3_", o, out_c, r);
      if (downsample) {
        b.conv(p + "downsample_conv1x1", m, cin, out_c, 1, st, false, r);
        b.frozen_bn(p + "downsample_bn_", o, out_c, r);
      }
      b.add(p + "residual_add", o.elements(out_c), r);
      b.relu(p + "relu_out", o.elements(out_c), r);
      return o;
    };
    m = block(prefix + "block1_", channels, stride, true, 1);
    block(prefix + "block_", out_c, 1, false, as_repeat(kBlocks[s] - 1));
    channels = out_c;
    c_maps[s] = m;
    c_channels[s] = out_c;
  }

  // FPN, top-down from C5.
  std::array<Map, 5> p_maps{};
  for (std::size_t i = 4; i-- > 0;) {
    const std::string p = "fpn_level" + std::to_string(i + 2) + "_";
    b.conv(p + "inner_conv1x1", c_maps[i], c_channels[i], kFpn, 1, 1, true, 1);
    if (i < 3) {
      const double fine = c_maps[i].elements(kFpn);
      ops.push_back(make_op(p + "upsample_nearest", OpKind::memory, 0, c_maps[i + 1].elements(kFpn), fine, 0, 1));
      b.add(p + "top_down_add", fine, 1);
    }
    p_maps[i] = b.conv(p + "layer_conv3x3", c_maps[i], kFpn, kFpn, 3, 1, true, 1);
  }
  p_maps[4] = {(p_maps[3].h - 1) / 2 + 1, (p_maps[3].w - 1) / 2 + 1};
  ops.push_back(make_op("fpn_level6_maxpool1x1_s2", OpKind::reduction, p_maps[4].elements(kFpn),
                        p_maps[3].elements(kFpn), p_maps[4].elements(kFpn), 0, 1));

  // RPN head: one set of weights applied to each level.
  constexpr std::uint64_t kAnchors = 3;
  for (std::size_t i = 0; i < 5; ++i) {
    const std::string p = "rpn_level" + std::to_string(i + 2) + "_";
    const bool first = i == 0;
    b.conv(p + "conv3x3", p_maps[i], kFpn, kFpn, 3, 1, true, 1, first);
    b.relu(p + "relu", p_maps[i].elements(kFpn), 1);
    b.conv(p + "objectness_conv1x1", p_maps[i], kFpn, kAnchors, 1, 1, true, 1, first);
    b.conv(p + "bbox_deltas_conv1x1", p_maps[i], kFpn, 4 * kAnchors, 1, 1, true, 1, first);
  }

  // Box branch on `proposals` boxes.
  const double K = static_cast<double>(classes), F = static_cast<double>(kFpn);
  const double box_in = F * 7 * 7, rep = 1024;
  Op box_pool = roi_align("box_roi_align7x7", proposals, F, 7, 2, 1);
  box_pool.kernels = 4;
  ops.push_back(box_pool);
  auto linear = [&](const std::string& name, double rows, double in, double out) {
    ops.push_back(make_op(name, OpKind::matmul, 2 * rows * in * out, rows * in, rows * out, in * out + out, 1));
    params += in * out + out;
  };
  linear("box_head_fc6", proposals, box_in, rep);
  b.relu("box_head_relu6", proposals * rep, 1);
  linear("box_head_fc7", proposals, rep, rep);
  b.relu("box_head_relu7", proposals * rep, 1);
  linear("box_predictor_cls_score", proposals, rep, K);
  linear("box_predictor_bbox_pred", proposals, rep, 4 * K);

  // Mask branch on `detections` boxes: 14 x 14 maps per box.
  Op mask_pool = roi_align("mask_roi_align14x14", detections, F, 14, 2, 1);
  mask_pool.kernels = 4;
  ops.push_back(mask_pool);
  const Map roi{14, 14};
  for (int i = 1; i <= 4; ++i) {
    const Conv2dShape s{.height = 14, .width = 14, .in_channels = kFpn, .out_channels = kFpn, .kernel_h = 3,
                        .kernel_w = 3, .pad_h = 1, .pad_w = 1, .bias = true};
    ops.push_back(per_box(conv2d("mask_head_fcn" + std::to_string(i) + "_conv3x3", s, 1), detections));
    params += s.weight_elements();
    b.relu("mask_head_relu" + std::to_string(i), detections * roi.elements(kFpn), 1);
  }
  {
    // ConvTranspose2d(256, 256, 2, stride 2): each input pixel writes a 2 x 2 patch of 256 outputs.
    const double in = roi.elements(kFpn), out = 4 * in, weights = F * F * 4 + F;
    ops.push_back(make_op("mask_predictor_deconv2x2_s2", OpKind::conv, detections * 2 * roi.elements(1) * F * F * 4,
                          detections * in, detections * out, weights, 1));
    params += weights;
    b.relu("mask_predictor_relu", detections * out, 1);
    const Conv2dShape logits{.height = 28, .width = 28, .in_channels = kFpn, .out_channels = classes, .bias = true};
    ops.push_back(per_box(conv2d("mask_predictor_logits_conv1x1", logits, 1), detections));
    params += logits.weight_elements();
  }
  g.parameter_count = params;
  return g;
}

}  // namespace

Architecture mask_rcnn_architecture() {
  return {.name = kMaskRcnn,
          .description = "Mask R-CNN, ResNet-50-FPN backbone, RPN, box and mask heads (torchvision layout)",
          .sample_unit = "image",
          .params = kMaskRcnnParams,
          .build = &build_mask_rcnn};
}

}  // namespace dsx
