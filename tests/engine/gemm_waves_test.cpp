// GEMM waves and split-K (engine/gemm_waves.hpp) against hand calculations.
#include "engine/gemm_waves.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace dsx {
namespace {

// H100 SXM: 132 SMs, 989 TFLOP/s dense fp16, 3.35 TB/s (NVIDIA H100 datasheet; the catalog's entry).
constexpr double kH100Units = 132, kH100Flops = 989e12, kH100Bandwidth = 3.35e12;

// A decode GEMM: one token through an 8192 x 8192 fp16 layer. A 16 x 128 tile (one mma's 16 rows):
// 1 x 64 tiles, one wave of 2 x 16 x 128 x 8192 FLOPs at 989e12 / 132 per SM = 4.48 us, while the
// weights alone take 8192 x 8192 x 2 B / 3.35e12 = 40.1 us. Splitting K would only add partial sums:
// no split, and the GEMM stays at the bandwidth roof as the plain roofline has it.
TEST(GemmWaves, DecodeGemmStaysAtTheBandwidthRoof) {
  const double stream_bytes = 8192.0 * 8192 * 2 + 1 * (8192.0 + 8192) * 2;
  const GemmWaves g = gemm_waves(1, 8192, 8192, 1, kH100Units, kH100Flops, stream_bytes, kH100Bandwidth);
  EXPECT_DOUBLE_EQ(g.tile_m, 16);
  EXPECT_DOUBLE_EQ(g.tile_n, 128);
  EXPECT_DOUBLE_EQ(g.tiles, 64);
  EXPECT_DOUBLE_EQ(g.split_k, 1);
  EXPECT_DOUBLE_EQ(g.reduction_bytes, 0);
  EXPECT_NEAR(g.compute_s, 2.0 * 16 * 128 * 8192 / (kH100Flops / kH100Units), 1e-15);
  EXPECT_NEAR(g.compute_s, 4.48e-6, 0.01e-6);
  const double memory_s = (stream_bytes + g.reduction_bytes) / kH100Bandwidth;
  EXPECT_NEAR(memory_s, 40.07e-6, 0.01e-6);
  EXPECT_DOUBLE_EQ(std::max(g.compute_s, memory_s), stream_bytes / kH100Bandwidth);
}

// MI300X (304 CUs, 1,307.4 TFLOP/s dense bf16, 5.3 TB/s): batch 64 through a 4096 x 8192 layer (a TP-2
// shard). 64 x 128 tiles: 32 of them, one per CU on 32 of 304, a wave of 2 x 64 x 128 x 8192 /
// (1307.4e12 / 304) = 31.2 us against 12.96 us of traffic (68,681,728 B). Split-K s costs
// max(31.2 / s, 12.96 + s x 0.396 us) (each split writes and reads 64 x 4096 fp32 partials,
// 2 x 4 x 64 x 4096 B = 2.1 MB): s = 2 gives 15.6, s = 3 14.15, s = 4 14.54 us; the library takes 3
// (at most 304 / 32 = 9 splits fit one wave), within 10 % of the bandwidth roof instead of 2.4x it.
TEST(GemmWaves, SkinnyGemmSplitsKToFillTheUnits) {
  const double units = 304, flops = 1307.4e12, bandwidth = 5.3e12;
  const double stream_bytes = 4096.0 * 8192 * 2 + 64 * (8192.0 + 4096) * 2;
  const GemmWaves g = gemm_waves(64, 4096, 8192, 1, units, flops, stream_bytes, bandwidth);
  const double wave_s = 2.0 * 64 * 128 * 8192 / (flops / units);
  EXPECT_NEAR(wave_s, 31.21e-6, 0.01e-6);
  EXPECT_DOUBLE_EQ(g.tiles, 32);
  EXPECT_DOUBLE_EQ(g.split_k, 3);
  EXPECT_NEAR(g.compute_s, wave_s / 3, 1e-15);
  EXPECT_DOUBLE_EQ(g.reduction_bytes, 2.0 * 4 * 64 * 4096 * 3);
  const double memory_s = (stream_bytes + g.reduction_bytes) / bandwidth;
  EXPECT_NEAR(memory_s, 14.15e-6, 0.01e-6);
  EXPECT_GT(g.compute_s, 0);
  EXPECT_LT(std::max(g.compute_s, memory_s), 1.1 * stream_bytes / bandwidth);
  // Unsplit it would be compute-bound at 2.4x the traffic.
  EXPECT_GT(wave_s, 2.4 * stream_bytes / bandwidth);
}

// A prefill GEMM, 2048 tokens through a 5120 x 4096 layer on the H100: 128 x 128 tiles, 16 x 40 = 640
// of them in ceil(640 / 132) = 5 waves, the last with 112 of 132 SMs busy, so 5 x 2 x 128 x 128 x 4096
// / (989e12 / 132) = 89.6 us against the 86.9 us of 2 x 2048 x 5120 x 4096 at the peak: 660 / 640.
TEST(GemmWaves, PrefillGemmPaysItsPartialLastWave) {
  const GemmWaves g = gemm_waves(2048, 5120, 4096, 1, kH100Units, kH100Flops, 0, kH100Bandwidth);
  EXPECT_DOUBLE_EQ(g.tile_m, 128);
  EXPECT_DOUBLE_EQ(g.tile_n, 128);
  EXPECT_DOUBLE_EQ(g.tiles, 640);
  EXPECT_DOUBLE_EQ(g.waves, 5);
  EXPECT_DOUBLE_EQ(g.split_k, 1);
  EXPECT_DOUBLE_EQ(g.reduction_bytes, 0);
  const double ideal_s = 2.0 * 2048 * 5120 * 4096 / kH100Flops;
  EXPECT_NEAR(ideal_s, 86.85e-6, 0.01e-6);
  EXPECT_NEAR(g.compute_s, 89.57e-6, 0.01e-6);
  EXPECT_NEAR(g.compute_s / ideal_s, 660.0 / 640, 1e-12);
}

// Unknown units: no quantization, the plain roofline's compute.
TEST(GemmWaves, UnknownUnitsKeepThePeak) {
  const GemmWaves g = gemm_waves(100, 300, 500, 2, 0, 1e12, 0, 0);
  EXPECT_DOUBLE_EQ(g.compute_s, 2.0 * 100 * 300 * 500 * 2 / 1e12);
  EXPECT_DOUBLE_EQ(g.split_k, 1);
}

}  // namespace
}  // namespace dsx
