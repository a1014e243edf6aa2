#include "engine/roofline.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

// seeds/003 and seeds/000: A100 fp16 312 TFLOP/s over 2.0 TB/s HBM2e = 156 FLOP/byte.
TEST(Roofline, A100Fp16RidgeIs156FlopPerByte) {
  EXPECT_DOUBLE_EQ(ridge_point_flop_per_byte(312e12, 2.0e12), 156.0);
}

// DESIGN.md section 3: H100 989 TFLOP/s / 3.35 TB/s.
TEST(Roofline, H100Fp16Ridge) {
  EXPECT_NEAR(ridge_point_flop_per_byte(989e12, 3.35e12), 295.2, 0.05);
}

TEST(Roofline, AttainableIsTheLowerRoof) {
  // ReLU at 0.25 FLOP/byte is memory-bound: 0.25 x 2 TB/s = 0.5 TFLOP/s.
  EXPECT_DOUBLE_EQ(attainable_flops_per_s(0.25, 312e12, 1.0, 2.0e12), 0.5e12);
  // GEMM 4096 (intensity ~1365) is compute-bound: peak x eta.
  EXPECT_DOUBLE_EQ(attainable_flops_per_s(1365.0, 312e12, 0.5, 2.0e12), 156e12);
}

TEST(Roofline, OpCostTakesTheLargerTermAndNamesTheBound) {
  Op relu{.name = "relu", .kind = OpKind::elementwise, .flops_per_sample = 1e6,
          .input_elements_per_sample = 1e6, .output_elements_per_sample = 1e6};
  const OpCost c = op_cost(relu, Precision::fp16, 4.0, 100e12, 1e12);
  EXPECT_DOUBLE_EQ(c.flops, 4e6);
  EXPECT_DOUBLE_EQ(c.bytes, 2e6 * 4.0 * 2.0);  // (in + out) x batch x 2 bytes
  EXPECT_DOUBLE_EQ(c.compute_s, 4e6 / 100e12);
  EXPECT_DOUBLE_EQ(c.memory_s, 16e6 / 1e12);
  EXPECT_EQ(c.bound, Bound::memory);
  EXPECT_DOUBLE_EQ(c.busy_s(), c.memory_s);
  EXPECT_DOUBLE_EQ(c.intensity_flop_per_byte(), 0.25);
}

TEST(Roofline, WeightsAreReadOncePerBatch) {
  Op fc{.name = "fc", .kind = OpKind::matmul, .flops_per_sample = 2e6,
        .input_elements_per_sample = 1000, .output_elements_per_sample = 1000, .weight_elements = 1e6};
  EXPECT_DOUBLE_EQ(op_bytes(fc, Precision::fp32, 1), (2000 + 1e6) * 4);
  EXPECT_DOUBLE_EQ(op_bytes(fc, Precision::fp32, 8), (8 * 2000 + 1e6) * 4);
  EXPECT_DOUBLE_EQ(op_bytes(fc, Precision::int4, 8), (8 * 2000 + 1e6) * 0.5);
}

}  // namespace
}  // namespace dsx
