// The queueing solver: M/M/c through the serving solver's Erlang C code, M/D/1 and M/G/1 through
// Pollaczek-Khinchine, tails against Crommelin's exact M/D/1 distribution.
#include "engine/solvers/queueing.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/queueing.hpp"

namespace dsx {
namespace {

using S = QueueingSolver;

std::vector<double> run(double model, double lambda, double service, double cv, double servers,
                        PointResult* status = nullptr) {
  PointInputs in;
  in.values[S::model] = model;
  in.values[S::arrival_rate] = lambda;
  in.values[S::service_time] = service;
  in.values[S::service_cv] = cv;
  in.values[S::servers] = servers;
  std::vector<double> m(S::kMetricCount);
  const PointResult r = QueueingSolver().evaluate(in, m);
  if (status != nullptr) *status = r;
  return m;
}

TEST(QueueingSolver, ErlangCHandComputedCallCentre) {
  // One call a minute, 3 minutes of service, 5 agents: a = 3 erlangs, rho = 0.6.
  // a^5/5!/(1 - 0.6) = 2.025 / 0.4 = 5.0625; sum_{k<5} 3^k/k! = 1 + 3 + 4.5 + 4.5 + 3.375 = 16.375;
  // C = 5.0625 / 21.4375 = 0.2361516; E[W] = C / (5/3 - 1) min = 0.3542274 min = 21.2536 s.
  PointResult st;
  const auto m = run(S::mmc, 1.0 / 60, 180, 1, 5, &st);
  ASSERT_EQ(st.status, PointStatus::ok);
  const double c = 5.0625 / 21.4375;
  EXPECT_NEAR(m[S::utilization], 0.6, 1e-12);
  EXPECT_NEAR(m[S::wait_probability], c, 1e-12);
  EXPECT_NEAR(m[S::mean_wait_s], c / (5.0 / 180 - 1.0 / 60), 1e-9);
  EXPECT_NEAR(m[S::mean_sojourn_s], m[S::mean_wait_s] + 180, 1e-9);
  // P(W > t) = C exp(-(c mu - lambda) t): C < 0.5, so the median wait is 0; p99 = ln(100 C) / (c mu - lambda).
  EXPECT_EQ(m[S::p50_wait_s], 0.0);
  EXPECT_NEAR(m[S::p99_wait_s], std::log(100 * c) / (5.0 / 180 - 1.0 / 60), 1e-9);
  // Little: L_q = lambda E[W], L = lambda E[T] = L_q + a.
  EXPECT_NEAR(m[S::mean_queue_length], m[S::mean_wait_s] / 60, 1e-12);
  EXPECT_NEAR(m[S::mean_in_system], m[S::mean_queue_length] + 3, 1e-12);
  EXPECT_NEAR(m[S::capacity_per_s], 5.0 / 180, 1e-15);
}

TEST(QueueingSolver, MmcIsTheServingSolversQueue) {
  // The same functions the serving solver calls (engine/queueing.hpp), bit for bit.
  const double lambda = 37, mu = 1 / 0.2, c = 8;
  const auto m = run(S::mmc, lambda, 0.2, 1, c);
  const MmcResult q = mmc_queue(lambda, mu, c);
  EXPECT_EQ(m[S::mean_wait_s], q.mean_wait_s);
  EXPECT_EQ(m[S::p99_wait_s], mmc_wait_quantile_s(q, lambda, mu, c, 0.99));
}

TEST(QueueingSolver, Mg1WithExponentialServiceIsMm1) {
  // cv = 1: Pollaczek-Khinchine gives rho E[S] / (1 - rho), and the tail approximation is exact.
  const auto g = run(S::mg1, 8, 0.1, 1, 1);
  const auto m = run(S::mmc, 8, 0.1, 1, 1);
  EXPECT_NEAR(g[S::mean_wait_s], 0.8 * 0.1 / 0.2, 1e-12);
  EXPECT_NEAR(g[S::mean_wait_s], m[S::mean_wait_s], 1e-12);
  EXPECT_NEAR(g[S::p99_wait_s], m[S::p99_wait_s], 1e-12);
  EXPECT_NEAR(g[S::p50_wait_s], m[S::p50_wait_s], 1e-12);
  EXPECT_NEAR(g[S::wait_probability], 0.8, 1e-12);
}

TEST(QueueingSolver, Md1WaitsHalfAsLongAsMm1) {
  // Pollaczek-Khinchine with cv = 0: E[W] = rho E[S] / (2 (1 - rho)), half the M/M/1 wait; md1
  // ignores service_cv.
  const auto d = run(S::md1, 8, 0.1, 3, 1);
  EXPECT_NEAR(d[S::mean_wait_s], 0.8 * 0.1 / (2 * 0.2), 1e-12);
  EXPECT_NEAR(d[S::mean_in_system], 8 * (0.2 + 0.1), 1e-12);
  // cv = 2 (a heavy-tailed service mix): (1 + 4) / 2 = 2.5 times the M/M/1 wait.
  const auto g = run(S::mg1, 8, 0.1, 2, 1);
  EXPECT_NEAR(g[S::mean_wait_s], 2.5 * 0.8 * 0.1 / 0.2, 1e-12);
}

// Crommelin (1932): the M/D/1 waiting-time distribution with D = 1 and arrival rate rho,
// P(W <= t) = (1 - rho) sum_{k=0}^{floor t} (rho (k - t))^k / k! exp(-rho (k - t)).
double md1_exact_cdf(double t, double rho) {
  long double sum = 0, factorial = 1;
  for (int k = 0; k <= static_cast<int>(std::floor(t)); ++k) {
    if (k > 0) factorial *= k;
    const long double x = static_cast<long double>(rho) * (k - t);
    sum += std::pow(x, static_cast<long double>(k)) / factorial * std::exp(-x);
  }
  return static_cast<double>((1 - rho) * sum);
}

// Bisection on [0, hi]; the alternating series loses digits as t grows, so hi stays near the answer.
double md1_exact_quantile(double q, double rho, double hi) {
  double lo = 0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (md1_exact_cdf(mid, rho) < q ? lo : hi) = mid;
  }
  return hi;
}

TEST(QueueingSolver, Md1TailApproximationAgainstTheExactDistribution) {
  // The errors engine/queueing.hpp states: at rho 0.8 the p99 is 5.8 % high (exact 10.356 D) and the
  // median 7.9 % low (exact 1.276 D); at rho 0.9, 2.7 % high (21.898 D) and 2.5 % low (3.013 D).
  struct Case {
    double rho, exact_p99, exact_p50, p99_error, p50_error, bracket;
  };
  for (const Case c : {Case{0.8, 10.3559, 1.27594, 0.058, -0.079, 15}, Case{0.9, 21.8982, 3.01305, 0.027, -0.025, 30}}) {
    EXPECT_NEAR(md1_exact_quantile(0.99, c.rho, c.bracket), c.exact_p99, 1e-3);
    EXPECT_NEAR(md1_exact_quantile(0.5, c.rho, c.bracket), c.exact_p50, 1e-3);
    const auto m = run(S::md1, c.rho, 1, 0, 1);
    EXPECT_NEAR(m[S::p99_wait_s] / c.exact_p99 - 1, c.p99_error, 0.002) << c.rho;
    EXPECT_NEAR(m[S::p50_wait_s] / c.exact_p50 - 1, c.p50_error, 0.002) << c.rho;
  }
}

TEST(QueueingSolver, OverloadIsInfeasibleWithItsTrueUtilization) {
  PointResult st;
  const auto m = run(S::mmc, 30, 0.1, 1, 2, &st);
  EXPECT_EQ(st.status, PointStatus::infeasible);
  EXPECT_EQ(st.reason, S::unstable);
  EXPECT_NEAR(m[S::utilization], 1.5, 1e-12);
  run(S::mg1, 10, 0.1, 1, 1, &st);  // rho = 1 exactly
  EXPECT_EQ(st.status, PointStatus::infeasible);
  EXPECT_EQ(st.reason, S::unstable);
}

TEST(QueueingSolver, SingleServerModelsRejectSeveralServers) {
  PointResult st;
  run(S::md1, 1, 0.1, 0, 4, &st);
  EXPECT_EQ(st.status, PointStatus::infeasible);
  EXPECT_EQ(st.reason, S::single_server_only);
}

// The rest of the declaration checks run over every registered solver (solver_declarations_test.cpp).
TEST(QueueingSolver, TablesMatchTheIndexEnums) {
  const QueueingSolver solver;
  EXPECT_EQ(solver.params().size(), static_cast<std::size_t>(QueueingSolver::kParamCount));
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(QueueingSolver::kMetricCount));
}

}  // namespace
}  // namespace dsx
