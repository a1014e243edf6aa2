// Grouped and depthwise convolutions run on the vector units (engine/dispatch.hpp): their FLOPs at the
// fp32 vector peak times eta, whatever the tensor-core precision, against hand calculations.
#include <gtest/gtest.h>

#include "engine/dispatch.hpp"
#include "engine/fusion.hpp"
#include "engine/operators.hpp"
#include "engine/pipeline.hpp"
#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

// studies/catalog/hardware.yaml a100_80gb_sxm: fp32 19.5, tf32 156, fp16 312 TFLOP/s, 2,039 GB/s.
HardwareSpec a100() {
  HardwareSpec hw = published::a100_80gb_sxm();
  hw.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  hw.peak_flops_per_s[index_of(Precision::tf32)] = 156e12;
  return hw;
}

TEST(VectorUnits, OnlyGroupedConvolutionsUseThem) {
  EXPECT_TRUE(runs_on_vector_units(OpKind::grouped_conv));
  EXPECT_FALSE(runs_on_vector_units(OpKind::conv));
  EXPECT_FALSE(runs_on_vector_units(OpKind::matmul));
  EXPECT_FALSE(runs_on_vector_units(OpKind::attention));
}

TEST(VectorUnits, PeakIsTheFp32RateBelowTheTensorCores) {
  const HardwareSpec hw = a100();
  EXPECT_DOUBLE_EQ(vector_peak_flops_per_s(hw, Precision::fp16), 19.5e12);
  EXPECT_DOUBLE_EQ(vector_peak_flops_per_s(hw, Precision::tf32), 19.5e12);
  EXPECT_DOUBLE_EQ(vector_peak_flops_per_s(hw, Precision::fp32), 19.5e12);
  // An entry without an fp32 rate (a TPU) keeps the precision's peak.
  HardwareSpec tpu;
  tpu.peak_flops_per_s[index_of(Precision::bf16)] = 275e12;
  EXPECT_DOUBLE_EQ(vector_peak_flops_per_s(tpu, Precision::bf16), 275e12);
}

// EfficientNet-B0's 5x5 depthwise conv of its stage at 14 x 14 with 672 channels, stride 1 ('same'):
// 2 x 14^2 x 672 x 25 = 6,585,600 FLOP and 2 x 131,712 activation elements per image. At batch 256,
// fp16 and eta 0.5 on an A100: compute 6,585,600 x 256 / (19.5e12 x 0.5) = 172.9 us on the vector
// units (5.4 us at the tensor-core peak), memory (263,424 x 256 + 16,800 weights) x 2 B / 2.039e12 =
// 66.2 us, so the op is compute-bound and takes 172.9 us.
TEST(VectorUnits, DepthwiseConvRunsAtTheVectorPeak) {
  ModelGraph g;
  g.ops.push_back(conv2d("dwconv5x5", square_conv(14, 672, 672, 5, 1, 672), 1));
  const Op& op = g.ops.front();
  ASSERT_EQ(op.kind, OpKind::grouped_conv);
  EXPECT_DOUBLE_EQ(op.flops_per_sample, 2.0 * 14 * 14 * 672 * 25);
  const HardwareSpec hw = a100();
  const ExecutionBreakdown b = execute_graph(g, hw, Precision::fp16, 256, 0.5, 0.0);
  const double compute_s = 6585600.0 * 256 / (19.5e12 * 0.5);
  EXPECT_NEAR(b.compute_s, compute_s, 1e-12);
  EXPECT_NEAR(compute_s, 172.9e-6, 0.1e-6);
  EXPECT_DOUBLE_EQ(b.memory_s, 0);
  EXPECT_EQ(b.compute_bound_ops, 1);
  // The same op as a dense conv (kind conv) would sit at the tensor-core peak, memory-bound.
  ModelGraph dense = g;
  dense.ops.front().kind = OpKind::conv;
  const ExecutionBreakdown d = execute_graph(dense, hw, Precision::fp16, 256, 0.5, 0.0);
  EXPECT_NEAR(d.compute_s, 6585600.0 * 256 / (312e12 * 0.5), 1e-12);
  EXPECT_NEAR(d.latency_s(), ((2.0 * 131712) * 256 + op.weight_elements) * 2 / 2.039e12, 1e-12);
  // The flattened walk (the sweep's path) agrees with the graph's.
  const ExecutionBreakdown flat = execute_graph(flatten(g), hw, Precision::fp16, 256, 0.5, LaunchSettings{});
  EXPECT_DOUBLE_EQ(flat.compute_s, b.compute_s);
  EXPECT_DOUBLE_EQ(flat.memory_s, b.memory_s);
}

// The data pipeline's affine pieces price the op the same way: its slope per sample is 3 x the
// vector-unit compute of one image.
TEST(VectorUnits, TrainingStepPieceUsesTheVectorPeak) {
  ModelGraph g;
  g.ops.push_back(conv2d("dwconv5x5", square_conv(14, 672, 672, 5, 1, 672), 1));
  const AffineStep piece = training_step_piece(g, a100(), Precision::fp16, 256, 0.5, 0.0);
  EXPECT_NEAR(piece.slope_s_per_sample, 3 * 6585600.0 / (19.5e12 * 0.5), 1e-15);
  EXPECT_DOUBLE_EQ(piece.intercept_s, 0);
}

}  // namespace
}  // namespace dsx
