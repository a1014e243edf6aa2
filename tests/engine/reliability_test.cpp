#include "engine/reliability.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dsx {
namespace {

const ComponentCount kDgxH100[] = {{8, kGpuMttfHours}, {8, kNicMttfHours}, {2, kPsuMttfHours}};

// mlsysim ReliabilityModel: 64 DGX H100 nodes -> fleet MTBF 66.96 h; one node 4,286 h.
TEST(Reliability, DgxFleetMtbf) {
  EXPECT_NEAR(mtbf_h(failure_rate_per_h(kDgxH100, 3, 1)), 4285.7, 0.1);
  EXPECT_NEAR(mtbf_h(failure_rate_per_h(kDgxH100, 3, 64)), 66.96, 0.01);
  EXPECT_NEAR(mtbf_h(failure_rate_per_h(kDgxH100, 3, 128)), 66.96 / 2, 0.01);
  EXPECT_TRUE(std::isinf(mtbf_h(0)));
}

// mlsysim worked example: 32 nodes (134 h), delta = 60 s -> Young tau = sqrt(2 x 60 x 482,143) = 7,606 s ("~7,600 s").
TEST(Reliability, YoungAndDalyIntervals) {
  const double m = mtbf_h(failure_rate_per_h(kDgxH100, 3, 32)) * 3600;
  EXPECT_NEAR(young_interval_s(60, m), 7606.4, 0.1);
  EXPECT_DOUBLE_EQ(young_interval_s(60, 3600), std::sqrt(2 * 60 * 3600.0));
  // Daly's correction is small when delta << M and lowers tau by about delta.
  const double daly = daly_interval_s(60, m);
  EXPECT_LT(std::fabs(daly - young_interval_s(60, m)), 60);
  EXPECT_DOUBLE_EQ(daly_interval_s(100, 40), 40.0);
}

// The first-order goodput is maximal at (about) the Young interval; each failure costs rework.
TEST(Reliability, GoodputPeaksNearYoungInterval) {
  const double m = 66.96 * 3600, delta = 60, restart = 300;
  const double tau = young_interval_s(delta, m);
  const double best = goodput_fraction(tau, delta, restart, m);
  EXPECT_GT(best, goodput_fraction(tau / 3, delta, restart, m));
  EXPECT_GT(best, goodput_fraction(tau * 3, delta, restart, m));
  EXPECT_NEAR(best, 1 - delta / (tau + delta) - (restart + (tau + delta) / 2) / m, 1e-15);
  // Without the rework term (mlsysim) goodput would be higher by (tau + delta) / (2M).
  EXPECT_NEAR((1 - delta / tau - restart / m) - best, (tau + delta) / (2 * m), 2e-4);
  EXPECT_DOUBLE_EQ(goodput_fraction(1e6, 60, 300, 1000), 0.0);
}

}  // namespace
}  // namespace dsx
