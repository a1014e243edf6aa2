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

// Closed-loop serving (engine/queueing.hpp closed_loop_serving), by hand.
ClosedLoopSteps steps(double prefill_alone_s, double prefill_full_s, double decode_one_s, double decode_full_s,
                      double prefill_iterations = 1) {
  return {.prefill_iterations = prefill_iterations,
          .prefill_iteration_alone_s = prefill_alone_s,
          .prefill_iteration_full_s = prefill_full_s,
          .decode_token_one_s = decode_one_s,
          .decode_token_full_s = decode_full_s,
          .decode_iteration_full_s = decode_full_s};
}

TEST(ClosedLoopServing, OneClientIsTheBatchOneLatency) {
  const ClosedLoopServing one = closed_loop_serving(1, 64, steps(0.4, 0.45, 0.02, 0.02), 500);
  EXPECT_DOUBLE_EQ(one.ttft_s, 0.4);
  EXPECT_DOUBLE_EQ(one.itl_s, 0.02);
  EXPECT_DOUBLE_EQ(one.requests_per_s, 1 / (0.4 + 499 * 0.02));
  // Chunked, a lone prompt spans its chunks, each with no decode beside it.
  EXPECT_DOUBLE_EQ(closed_loop_serving(1, 64, steps(0.15, 0.17, 0.02, 0.02, 4), 500).ttft_s, 0.6);
}

TEST(ClosedLoopServing, TwoClientsByHand) {
  // p(0) = 1, p(2) = 1.2 (p(b) = 1 + 0.1 b), d(1) = 0.5, d(2) = 0.6 (d(b) = 0.4 + 0.1 b), O = 3.
  // n = 1: D = 0, TTFT = p(0) = 1, ITL = d(1) = 0.5, X = 1 / (1 + 2 x 0.5) = 0.5, Q = 0.5,
  //   D = 0.5 x 2 x 0.5 = 0.5.
  // n = 2: the prompt's iteration carries D = 0.5 decodes, p(0.5) = 1.05, U = 0.5 x 1.05 = 0.525; the
  //   decode in progress is d(1) = 0.5; TTFT = 1.05 x 1.5 - 0.525 x 1.05 / 2 + 0.475 x 0.5 / 2 = 1.418125.
  //   A decoding sequence runs beside D = 0.5 others: d(1.5) = 0.55, and each other prompt's iteration
  //   takes p(1.5) - d(1.5) = 1.15 - 0.55 = 0.6 longer than a decode step, c = 0.6 / 2 = 0.3:
  //   X (1.418125 + 1.1 / (1 - 0.3 X)) = 2, i.e. 0.4254375 X^2 - 3.118125 X + 2 = 0; ITL = 0.55 / (1 - 0.3 X).
  const ClosedLoopServing two = closed_loop_serving(2, 8, steps(1, 1.2, 0.5, 0.6), 3);
  const double x = (3.118125 - std::sqrt(3.118125 * 3.118125 - 8 * 0.4254375)) / (2 * 0.4254375);
  EXPECT_NEAR(two.ttft_s, 1.418125, 1e-15);
  EXPECT_NEAR(two.requests_per_s, x, 1e-15);
  EXPECT_NEAR(two.itl_s, 0.55 / (1 - 0.3 * x), 1e-15);
  EXPECT_NEAR(two.prefill_utilization, x * 1.05, 1e-15);
  EXPECT_NEAR(two.decoding_sequences, x * 2 * two.itl_s, 1e-15);
  // Little's law: two requests in the system, each for TTFT + 2 ITL.
  EXPECT_NEAR(two.requests_per_s * (two.ttft_s + 2 * two.itl_s), 2, 1e-12);
  // A prefill iteration that shares nothing with the decodes (at the full batch, a whole prefill plus a
  // decode step) makes every token slower.
  const ClosedLoopServing stalled = closed_loop_serving(2, 8, steps(1, 1 + 0.6, 0.5, 0.6), 3);
  EXPECT_GT(stalled.itl_s, two.itl_s);
}

TEST(ClosedLoopServing, ClientsBeyondTheBatchLimitWaitForASlot) {
  // One slot: the replica serves one request at a time, X = 1 / (0.4 + 500 x 0.02) = 1 / 10.4 per second,
  // and of three clients' 31.2 s cycle 10 s are the decode, 21.2 s the wait and the prefill.
  const ClosedLoopServing three = closed_loop_serving(3, 1, steps(0.4, 0.45, 0.02, 0.02), 501);
  EXPECT_NEAR(three.requests_per_s, 1 / 10.4, 1e-15);
  EXPECT_DOUBLE_EQ(three.itl_s, 0.02);
  EXPECT_NEAR(three.ttft_s, 21.2, 1e-12);
  const ClosedLoopSteps s = steps(0.1, 0.12, 0.02, 0.03);
  const ClosedLoopServing full = closed_loop_serving(16, 16, s, 200);
  const ClosedLoopServing many = closed_loop_serving(100, 16, s, 200);
  const ClosedLoopServing more = closed_loop_serving(200, 16, s, 200);
  // The replica stays full: the throughput and the ITL of 16 running sequences.
  EXPECT_EQ(many.requests_per_s, full.requests_per_s);
  EXPECT_EQ(many.itl_s, full.itl_s);
  // A request's whole time is N / X; each 100 clients more wait 100 / X longer for their first token.
  EXPECT_NEAR(many.ttft_s + 199 * many.itl_s, 100 / full.requests_per_s, 1e-9);
  EXPECT_NEAR(more.ttft_s - many.ttft_s, 100 / full.requests_per_s, 1e-9);
  EXPECT_GT(many.ttft_s, full.ttft_s);
}

TEST(ClosedLoopServing, TtftAndItlGrowWithTheClients) {
  double ttft = 0, itl = 0, rate = 0;
  for (double n : {1.0, 2.0, 5.0, 25.0, 50.0}) {
    // Steps priced at the batch each population runs: d(b) = 0.018 + 0.0002 (b - 1).
    const ClosedLoopServing r =
        closed_loop_serving(n, 1000, steps(0.4, 0.4 + 0.0005 * n, 0.018, 0.018 + 0.0002 * (n - 1)), 500);
    EXPECT_GT(r.ttft_s, ttft);
    EXPECT_GT(r.itl_s, itl);
    EXPECT_GT(r.requests_per_s, rate);
    EXPECT_LT(r.prefill_utilization, 1);
    // Fewer sequences decode than clients: some wait for their first token.
    EXPECT_LT(r.decoding_sequences, n);
    ttft = r.ttft_s, itl = r.itl_s, rate = r.requests_per_s;
  }
}

}  // namespace
}  // namespace dsx
