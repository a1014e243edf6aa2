#include "engine/queueing.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dsx {
namespace {

TEST(Queueing, MM1ReducesToTextbook) {
  // M/M/1: P_wait = rho, E[W] = rho / (mu - lambda) (Kleinrock 1975, section 3.2).
  const MmcResult r = mmc_queue(8.0, 10.0, 1);
  EXPECT_TRUE(r.stable);
  EXPECT_NEAR(r.utilization, 0.8, 1e-12);
  EXPECT_NEAR(r.wait_probability, 0.8, 1e-12);
  EXPECT_NEAR(r.mean_wait_s, 0.8 / 2.0, 1e-12);
  // P(W > t) = 0.8 exp(-2 t) = 0.01 -> t = ln(80) / 2.
  EXPECT_NEAR(mmc_wait_quantile_s(8.0, 10.0, 1, 0.99), std::log(80.0) / 2.0, 1e-12);
}

TEST(Queueing, ErlangCHandComputed) {
  // c = 2, a = 1: a^2/2!/(1 - 0.5) = 1; sum_{k<2} = 1 + 1 = 2 -> C = 1/3.
  EXPECT_NEAR(erlang_c(2, 1.0), 1.0 / 3.0, 1e-12);
  // c = 3, a = 2: a^3/3!/(1 - 2/3) = 4; sum = 1 + 2 + 2 = 5 -> C = 4/9.
  EXPECT_NEAR(erlang_c(3, 2.0), 4.0 / 9.0, 1e-12);
}

// Erlang C from its definition in log space (lgamma for the factorials), for any c.
double erlang_c_from_definition(double c, double a) {
  const double rho = a / c;
  const double log_top = c * std::log(a) - std::lgamma(c + 1) - std::log(1 - rho);
  double sum = 0;
  for (double k = 0; k < c; ++k) sum += std::exp(k * std::log(a) - std::lgamma(k + 1) - log_top);
  return 1.0 / (sum + 1.0);
}

TEST(Queueing, ErlangCAgreesWithItsDefinitionAtLargeServerCounts) {
  for (const double c : {16.0, 64.0, 256.0, 1024.0}) {
    for (const double rho : {0.5, 0.8, 0.95, 0.99}) {
      const double expected = erlang_c_from_definition(c, rho * c);
      EXPECT_NEAR(erlang_c(c, rho * c), expected, 1e-9 * expected + 1e-30) << "c " << c << " rho " << rho;
    }
  }
}

TEST(Queueing, NegligibleWaitProbabilityIsZero) {
  // c = 256, rho = 0.1: C = 3e-158, returned as 0; c = 64, rho = 0.5: C = 4.3e-7, kept.
  EXPECT_EQ(erlang_c(256, 25.6), 0.0);
  const double kept = erlang_c(64, 32);
  EXPECT_GT(kept, 1e-8);
  EXPECT_NEAR(kept, erlang_c_from_definition(64, 32), 1e-9 * kept);
}

TEST(Queueing, LightLoadDoesNotWaitAtP99) {
  EXPECT_EQ(mmc_wait_quantile_s(1.0, 1.0, 64, 0.99), 0.0);
}

TEST(Queueing, UnstableReportsTrueUtilization) {
  const MmcResult r = mmc_queue(30.0, 10.0, 2);
  EXPECT_FALSE(r.stable);
  EXPECT_NEAR(r.utilization, 1.5, 1e-12);
  EXPECT_TRUE(std::isinf(mmc_wait_quantile_s(30.0, 10.0, 2, 0.99)));
}

}  // namespace
}  // namespace dsx
