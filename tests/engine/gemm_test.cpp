// The gemm solver against hand calculations on an H100 SXM (132 SMs, 989 TFLOP/s fp16, 1,979 fp8,
// 3.35 TB/s): tile and wave quantization, the library's tile choice, the memory roofline.
#include "engine/solvers/gemm.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

using G = GemmSolver;

struct GemmRun {
  std::vector<double> m = std::vector<double>(G::kMetricCount);
  PointResult r;
};

GemmRun run(const HardwareSpec& hw, Precision p, double m, double n, double k, double tile_m = 0, double tile_n = 0) {
  PointInputs in;
  in.hardware = &hw;
  in.values[G::precision] = static_cast<double>(index_of(p));
  in.values[G::m] = m;
  in.values[G::n] = n;
  in.values[G::k] = k;
  in.values[G::batch] = 1;
  in.values[G::output] = 0;
  in.values[G::tile_m] = tile_m;
  in.values[G::tile_n] = tile_n;
  in.values[G::eta] = 1;
  in.values[G::memory_efficiency] = 1;
  in.values[G::launch_overhead] = 0;
  GemmRun out;
  out.r = GemmSolver().evaluate(in, out.m);
  return out;
}

TEST(Gemm, OnePartialWaveRunsAtTheShareOfUnitsItFills) {
  const HardwareSpec hw = published::h100_sxm();
  // 1024 x 1024 x 4096 in 128 x 128 tiles: 8 x 8 = 64 tiles, one wave on 132 SMs. A wave costs one
  // tile's 2 x 128 x 128 x 4096 = 134,217,728 FLOP at one SM's 989e12 / 132 = 7.4924e12 FLOP/s:
  // 17.914 us. Memory: (1024 x 4096 x 2 + 4096 x 1024 x 2 + 1024 x 1024 x 2) B = 18.87 MB, 5.6 us.
  const GemmRun r = run(hw, Precision::fp16, 1024, 1024, 4096, 128, 128);
  ASSERT_EQ(r.r.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(r.m[G::tiles], 64);
  EXPECT_DOUBLE_EQ(r.m[G::waves], 1);
  EXPECT_NEAR(r.m[G::wave_efficiency], 64.0 / 132, 1e-15);
  EXPECT_NEAR(r.m[G::time_s], 134217728.0 / (989e12 / 132), 1e-15);
  // The achieved rate is the peak times the share of SMs busy: 989 x 64/132 = 479.5 TFLOP/s.
  EXPECT_NEAR(r.m[G::achieved_flops_per_s], 989e12 * 64 / 132, 1e3);
  EXPECT_NEAR(r.m[G::bytes_moved], 1024.0 * 4096 * 2 * 2 + 1024.0 * 1024 * 2, 0);
}

TEST(Gemm, TheLibraryPicksTheTileThatFinishesFirst) {
  const HardwareSpec hw = published::h100_sxm();
  // Candidates for 1024 x 1024 x 4096: 256x128 gives 32 tiles (35.8 us), 128x128 64 tiles (17.9 us),
  // 128x64 and 64x128 128 tiles in one wave (8.96 us), 64x64 256 tiles in two waves (8.96 us too):
  // the first of the fastest, 128x64, at 989 x 128/132 = 959 TFLOP/s.
  const GemmRun r = run(hw, Precision::fp16, 1024, 1024, 4096);
  EXPECT_DOUBLE_EQ(r.m[G::tile_m_used], 128);
  EXPECT_DOUBLE_EQ(r.m[G::tile_n_used], 64);
  EXPECT_NEAR(r.m[G::achieved_flops_per_s], 989e12 * 128 / 132, 1e3);
}

TEST(Gemm, PartialTilesCostWholeTiles) {
  const HardwareSpec hw = published::h100_sxm();
  // 1000 x 1000 in 128 x 128 tiles pads to 1024 x 1024: tile efficiency 1e6 / 1,048,576 = 0.9537.
  const GemmRun r = run(hw, Precision::fp16, 1000, 1000, 1000, 128, 128);
  EXPECT_NEAR(r.m[G::tile_efficiency], 1e6 / 1048576.0, 1e-15);
}

TEST(Gemm, ATallSkinnyFp8GemmIsBoundByMemory) {
  const HardwareSpec hw = published::h100_sxm();
  // 802,816 x 192 x 768 in fp8 with a 16-bit output: (802,816 x 768 + 768 x 192) x 1 B + 802,816 x
  // 192 x 2 B = 924,991,488 B, 276.1 us at 3.35 TB/s; the compute is at most 48 waves of 256x128
  // tiles, 161 us: memory sets the time.
  const GemmRun r = run(hw, Precision::fp8, 802816, 192, 768);
  EXPECT_DOUBLE_EQ(r.m[G::bytes_moved], 924991488);
  EXPECT_NEAR(r.m[G::time_s], 924991488 / 3.35e12, 1e-15);
  EXPECT_LT(r.m[G::compute_s], r.m[G::memory_s]);
}

// An fp8 GEMM on a chip whose fp8 GEMMs reach 0.882 of the fraction of peak its bf16 ones reach
// (stas00/ml-engineering MAMF table, H100 SXM: (1402.6 / 1979) / (794.5 / 989)): 1024 x 1024 x 4096
// in 128 x 128 tiles is one wave of 64 tiles, each 134,217,728 FLOP at one SM's 1979e12 x 0.8822 / 132
// = 13.227e12 FLOP/s: 10.147 us, where the ratio-1 chip takes 8.952 us. peak_fraction stays against
// the datasheet's fp8 peak; bf16 GEMMs do not change.
TEST(Gemm, Fp8GemmsRunAtTheChipsFp8RelativeEfficiency) {
  HardwareSpec hw = published::h100_sxm();
  const GemmRun plain = run(hw, Precision::fp8, 1024, 1024, 4096, 128, 128);
  const GemmRun plain_bf16 = run(hw, Precision::bf16, 1024, 1024, 4096, 128, 128);
  hw.fp8_gemm_relative_efficiency = (1402.6 / 1979) / (794.5 / 989);
  EXPECT_NEAR(hw.fp8_gemm_relative_efficiency, 0.882, 0.0005);
  const GemmRun r = run(hw, Precision::fp8, 1024, 1024, 4096, 128, 128);
  ASSERT_EQ(r.r.status, PointStatus::ok);
  EXPECT_NEAR(plain.m[G::compute_s], 134217728.0 / (1979e12 / 132), 1e-15);
  EXPECT_NEAR(r.m[G::compute_s], 134217728.0 / (1979e12 * hw.fp8_gemm_relative_efficiency / 132), 1e-15);
  EXPECT_NEAR(r.m[G::compute_s] * 1e6, 10.147, 0.001);
  EXPECT_NEAR(plain.m[G::compute_s] * 1e6, 8.952, 0.001);
  EXPECT_NEAR(r.m[G::peak_fraction], 64.0 / 132 * hw.fp8_gemm_relative_efficiency, 1e-12);
  const GemmRun bf16 = run(hw, Precision::bf16, 1024, 1024, 4096, 128, 128);
  EXPECT_DOUBLE_EQ(bf16.m[G::time_s], plain_bf16.m[G::time_s]);
}

TEST(Gemm, EfficienciesAndTheCallCostEnterAsStated) {
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in;
  in.hardware = &hw;
  in.values[G::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[G::m] = 1024;
  in.values[G::n] = 1024;
  in.values[G::k] = 4096;
  in.values[G::batch] = 2;
  in.values[G::tile_m] = 128;
  in.values[G::tile_n] = 128;
  in.values[G::eta] = 0.5;
  in.values[G::memory_efficiency] = 1;
  in.values[G::launch_overhead] = 5e-6;
  std::vector<double> m(G::kMetricCount);
  ASSERT_EQ(GemmSolver().evaluate(in, m).status, PointStatus::ok);
  // Two multiplies: 128 tiles, still one wave; at eta 0.5 a wave takes 2 x 17.914 us; plus 5 us.
  EXPECT_DOUBLE_EQ(m[G::tiles], 128);
  EXPECT_NEAR(m[G::time_s], 5e-6 + 2 * 134217728.0 / (989e12 / 132), 1e-15);
}

TEST(Gemm, APrecisionTheHardwareLacksOrAHalfGivenTileIsInfeasible) {
  const HardwareSpec hw = published::h100_sxm();
  EXPECT_EQ(run(hw, Precision::int4, 64, 64, 64).r.status, PointStatus::infeasible);
  const GemmRun half = run(hw, Precision::fp16, 64, 64, 64, 64, 0);
  EXPECT_EQ(half.r.status, PointStatus::infeasible);
  EXPECT_EQ(half.r.reason, G::tile_needs_both_sides);
}

TEST(Gemm, UnknownComputeUnitsMeanNoWaves) {
  HardwareSpec hw = published::h100_sxm();
  hw.compute_units = 0;
  const GemmRun r = run(hw, Precision::fp16, 1024, 1024, 4096, 128, 128);
  EXPECT_NEAR(r.m[G::achieved_flops_per_s], 989e12, 1e3);
}

}  // namespace
}  // namespace dsx
