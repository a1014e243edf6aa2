// Wave quantization (engine/waves.hpp) by hand: tiles over an H100 SXM's 132 SMs.
#include "engine/waves.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

TEST(WaveQuantization, ALastPartialWaveCostsAWholeOne) {
  // 640 tiles: 4 full waves of 132 and one of 112, 5 waves; 640 / 660 of the units' time works.
  const Waves w = wave_quantization(640, 132);
  EXPECT_EQ(w.count, 5);
  EXPECT_DOUBLE_EQ(w.efficiency, 640.0 / 660.0);
  // A 128 x 128 tile 4,096 deep is 134,217,728 FLOPs; at 989 TFLOP/s over 132 units one takes
  // 17.91 us, and the 5 waves 89.57 us, where 640 tiles spread evenly would take 86.86 us.
  const double tile_flops = 2.0 * 128 * 128 * 4096;
  EXPECT_NEAR(w.time_s(tile_flops, 989e12, 132) * 1e6, 89.57, 0.01);
  EXPECT_NEAR(640 * tile_flops / 989e12 * 1e6, 86.86, 0.01);
  EXPECT_NEAR(w.time_s(17.91e-6) * 1e6, 89.55, 1e-9);
  // 132 tiles fill one wave exactly; 133 need a second.
  EXPECT_EQ(wave_quantization(132, 132).count, 1);
  EXPECT_DOUBLE_EQ(wave_quantization(132, 132).efficiency, 1);
  EXPECT_EQ(wave_quantization(133, 132).count, 2);
}

TEST(WaveQuantization, UnknownUnitsRunOneWave) {
  const Waves w = wave_quantization(640, 0);
  EXPECT_EQ(w.count, 1);
  EXPECT_EQ(w.efficiency, 1);
}

}  // namespace
}  // namespace dsx
