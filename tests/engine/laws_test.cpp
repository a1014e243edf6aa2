#include "engine/laws.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dsx {
namespace {

// seeds/003 "Strong Scaling (Amdahl's Law)": s = 0.05, n = 8 -> 1 / (0.05 + 0.95 / 8); n -> inf -> 20x.
TEST(Laws, AmdahlSeedExample) {
  EXPECT_DOUBLE_EQ(amdahl_speedup(0.05, 8), 1.0 / 0.16875);
  EXPECT_NEAR(amdahl_speedup(0.05, 8), 5.926, 0.001);
  EXPECT_DOUBLE_EQ(amdahl_limit(0.05), 20.0);
  // The seed's header comment promises "~7.5x" at 8 GPUs; its own formula does not give it.
  EXPECT_GT(std::fabs(amdahl_speedup(0.05, 8) - 7.5) / 7.5, 0.2);
}

TEST(Laws, AmdahlEdges) {
  EXPECT_DOUBLE_EQ(amdahl_speedup(0.05, 1), 1.0);
  EXPECT_DOUBLE_EQ(amdahl_speedup(0.0, 64), 64.0);
  EXPECT_DOUBLE_EQ(amdahl_speedup(1.0, 64), 1.0);
  EXPECT_TRUE(std::isinf(amdahl_limit(0.0)));
  EXPECT_LT(amdahl_speedup(0.05, 1e9), amdahl_limit(0.05));
}

// seeds/003 "Weak Scaling (Gustafson's Law)": 8 - 0.05 x 7 = 7.65; 1000 - 0.05 x 999 = 950.05.
TEST(Laws, GustafsonSeedExample) {
  EXPECT_NEAR(gustafson_speedup(0.05, 8), 7.65, 1e-12);
  EXPECT_NEAR(gustafson_speedup(0.05, 1000), 950.05, 1e-9);
  EXPECT_DOUBLE_EQ(gustafson_speedup(0.05, 1), 1.0);
}

// seeds/003 "Little's Law": 1,000 QPS x 50 ms = 50 in flight; 24 GB at 1 GB each -> 24; 24 / 0.05 s = 480.
TEST(Laws, LittleSeedExample) {
  EXPECT_DOUBLE_EQ(littles_law_in_flight(1000, 0.050), 50.0);
  EXPECT_DOUBLE_EQ(max_concurrent_requests(24e9, 1e9), 24.0);
  EXPECT_DOUBLE_EQ(littles_law_max_rate_per_s(24, 0.050), 480.0);
  // Whole requests only.
  EXPECT_DOUBLE_EQ(max_concurrent_requests(24.5e9, 1e9), 24.0);
  EXPECT_DOUBLE_EQ(max_concurrent_requests(0.5e9, 1e9), 0.0);
  // seeds/003 checkpoint question: 500 QPS at 100 ms is also 50 requests in flight.
  EXPECT_DOUBLE_EQ(littles_law_in_flight(500, 0.1), 50.0);
}

// seeds/003 "The Training Time Equation": 1B parameters, 20B tokens, one A100 (312 TFLOP/s), 40% MFU:
// 6 x 1e9 x 2e10 = 1.2e20 FLOPs / 1.248e14 FLOP/s = 961,538 s = 16,026 min, about 11 days.
TEST(Laws, TrainingTimeSeedExample) {
  EXPECT_DOUBLE_EQ(training_flops(1e9, 20e9), 1.2e20);
  const double t = training_time_s(1e9, 20e9, 1, 312e12, 0.40);
  EXPECT_NEAR(t, 961538.46, 0.01);
  EXPECT_NEAR(t / 60, 16025.6, 0.1);
  EXPECT_NEAR(t / 86400, 11.13, 0.01);
  // N accelerators divide the time.
  EXPECT_DOUBLE_EQ(training_time_s(1e9, 20e9, 8, 312e12, 0.40), t / 8);
}

// seeds/003 "Scaling Rules": 7B -> 14 GB fp16, 7 GB int8, 112 GB to train with Adam, ~14 GFLOPs per
// token; 7B on 1T tokens -> 4.2e22 FLOPs (the seed writes 4 x 10^22).
TEST(Laws, ScalingRules) {
  EXPECT_DOUBLE_EQ(7e9 * 2.0, 14e9);
  EXPECT_DOUBLE_EQ(kAdamMixedPrecisionBytesPerParam * 7e9, 112e9);
  EXPECT_DOUBLE_EQ(kForwardFlopsPerParamToken * 7e9, 14e9);
  EXPECT_DOUBLE_EQ(training_flops(7e9, 1e12), 4.2e22);
  // ZeRO's breakdown: fp16 weights 2 + fp16 gradients 2 + fp32 master, momentum, variance 12.
  EXPECT_DOUBLE_EQ(kAdamMixedPrecisionBytesPerParam, 2.0 + 2.0 + 4.0 + 4.0 + 4.0);
}

// seeds/003 "Bandwidth vs. Latency": 10 Gbit/s link with 10 ms ping. 1 kB -> 0.8 us of transmission,
// total ~10 ms; 1 GB -> 800 ms + 10 ms = 810 ms.
TEST(Laws, TransferTimeSeedExample) {
  const double bandwidth = 10e9 / 8;  // bytes/s
  EXPECT_NEAR(transfer_time_s(0, 1e3, bandwidth), 0.8e-6, 1e-18);
  EXPECT_NEAR(transfer_time_s(0.010, 1e3, bandwidth), 0.0100008, 1e-15);
  EXPECT_NEAR(transfer_time_s(0.010, 1e9, bandwidth), 0.810, 1e-12);
}

// seeds/003 "A Concrete Example: The A100 Analysis": ReLU at fp16 is 0.25 op/byte.
TEST(Laws, ElementwiseIntensity) {
  EXPECT_DOUBLE_EQ(elementwise_intensity_flop_per_byte(1, 1, 1, 2.0), 0.25);
  EXPECT_DOUBLE_EQ(elementwise_intensity_flop_per_byte(1, 1, 1, 4.0), 0.125);
  // seeds/000 lab_07: vector add C = A + B reads 2 and writes 1 element per operation.
  EXPECT_DOUBLE_EQ(elementwise_intensity_flop_per_byte(1, 2, 1, 1.0), 1.0 / 3.0);
}

}  // namespace
}  // namespace dsx
