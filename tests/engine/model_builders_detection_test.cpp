// Mask R-CNN (engine/model_builders_detection.cpp) against torchvision's published parameter count,
// the roi_align cost rule against a hand calculation, and the head shapes against mask_rcnn.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "engine/model_builders.hpp"
#include "engine/operators.hpp"

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

TEST(OperatorCosts, RoiAlignSamplesFourNeighboursPerPoint) {
  // 10 boxes x 256 channels x 7 x 7 bins, 2 x 2 samples per bin: each sample 4 multiplies, 3 adds
  // and 1 accumulate, one divide per bin; 16 values gathered per bin.
  const Op op = roi_align("pool", 10, 256, 7, 2, 1);
  const double bins = 10.0 * 256 * 49;
  EXPECT_EQ(op.kind, OpKind::reduction);
  EXPECT_DOUBLE_EQ(op.flops_per_sample, bins * (4 * 8 + 1));
  EXPECT_DOUBLE_EQ(op.input_elements_per_sample, bins * 16);
  EXPECT_DOUBLE_EQ(op.output_elements_per_sample, bins);
  EXPECT_DOUBLE_EQ(op.weight_elements, 0);
}

TEST(ModelFamilies, MaskRcnnMatchesTorchvision) {
  // torchvision detection/mask_rcnn.py, MaskRCNN_ResNet50_FPN_Weights.COCO_V1: num_params 44,401,393.
  const ModelGraph g = build_architecture("mask_rcnn", {});
  EXPECT_EQ(g.parameter_count, 44'401'393);
  EXPECT_LT(std::abs(g.parameter_count - 44'401'393) / 44'401'393, 0.01);
  // The backbone's parameters alone are ResNet-50's less its fc (2048 x 1000 + 1000) and the 53,120
  // BatchNorm affine parameters that FrozenBatchNorm2d keeps as buffers.
  const ModelGraph resnet50 = build_architecture(
      "resnet", {{"blocks1", 3}, {"blocks2", 4}, {"blocks3", 6}, {"blocks4", 3}});
  double bn = 0, convs = 0;
  for (const Op& op : resnet50.ops) {
    if (op.kind == OpKind::normalization) bn += op.weight_elements * op.repeat;
    if (op.kind == OpKind::conv) convs += op.weight_elements * op.repeat;
  }
  EXPECT_EQ(bn, 53'120);
  double backbone = 0;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::conv && op.name.rfind("layer", 0) == 0) backbone += op.weight_elements * op.repeat;
  }
  backbone += op_named(g, "stem_conv7x7").weight_elements;
  EXPECT_EQ(backbone, convs);

  // 800 x 800: C2..C5 at 200, 100, 50, 25; P6 = 13 (max_pool2d kernel 1, stride 2).
  EXPECT_DOUBLE_EQ(op_named(g, "fpn_level2_layer_conv3x3").output_elements_per_sample, 256.0 * 200 * 200);
  EXPECT_DOUBLE_EQ(op_named(g, "fpn_level6_maxpool1x1_s2").output_elements_per_sample, 256.0 * 13 * 13);
  EXPECT_DOUBLE_EQ(op_named(g, "rpn_level6_objectness_conv1x1").output_elements_per_sample, 3.0 * 13 * 13);
  // Box head: 1000 proposals through Linear(256 * 7 * 7, 1024); mask head: 100 detections, 28 x 28 logits.
  EXPECT_DOUBLE_EQ(op_named(g, "box_head_fc6").flops_per_sample, 2.0 * 1000 * 12544 * 1024);
  EXPECT_DOUBLE_EQ(op_named(g, "mask_predictor_logits_conv1x1").output_elements_per_sample, 100.0 * 91 * 28 * 28);
  EXPECT_DOUBLE_EQ(op_named(g, "mask_head_fcn1_conv3x3").flops_per_sample, 100.0 * 2 * 14 * 14 * 256 * 256 * 9);

  // Box counts scale the heads only; the image size scales the backbone, not the parameters.
  const ModelGraph fewer = build_architecture("mask_rcnn", {{"proposals", 500}, {"detections", 50}});
  EXPECT_DOUBLE_EQ(op_named(fewer, "box_head_fc7").flops_per_sample,
                   op_named(g, "box_head_fc7").flops_per_sample / 2);
  EXPECT_DOUBLE_EQ(op_named(fewer, "stem_conv7x7").flops_per_sample, op_named(g, "stem_conv7x7").flops_per_sample);
  const ModelGraph coco = build_architecture("mask_rcnn", {{"image_width", 1088}});
  EXPECT_EQ(coco.parameter_count, g.parameter_count);
  EXPECT_DOUBLE_EQ(op_named(coco, "fpn_level5_layer_conv3x3").output_elements_per_sample, 256.0 * 25 * 34);

  EXPECT_THROW(build_architecture("mask_rcnn", {{"image_height", 810}}), std::invalid_argument);
  EXPECT_THROW(build_architecture("mask_rcnn", {{"proposals", 10}, {"detections", 100}}), std::invalid_argument);
}

}  // namespace
}  // namespace dsx
