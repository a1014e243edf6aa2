// M/M/c queueing: Poisson arrivals at rate lambda, c identical servers with exponential service of
// rate mu each, first-come first-served (Kleinrock 1975, Queueing Systems Vol. 1, section 3.5;
// Harchol-Balter 2013, Performance Modeling and Design of Computer Systems, chapter 14).
//
//   offered load a = lambda / mu, utilization rho = a / c (stable only when rho < 1)
//   Erlang C  P_wait = [a^c / c! / (1 - rho)] / [sum_{k<c} a^k / k! + a^c / c! / (1 - rho)]
//   waiting time tail  P(W > t) = P_wait exp(-(c mu - lambda) t)
//   so the q-quantile of the wait is 0 when P_wait <= 1 - q, else ln(P_wait / (1 - q)) / (c mu - lambda)
//   mean wait E[W] = P_wait / (c mu - lambda)
// Erlang C is evaluated with the Erlang B recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1, taken
// on its inverse (1/B(k) = 1 + (k/a) / B(k-1), no division in the loop), and C = B / (1 - rho (1 - B)):
// exact, no factorials, no allocation (c up to ~1e6). A wait probability below 1e-30 is returned as 0.
// Unlike mlsysim's TailLatencyModel (shared/reference mlsysim-models 6.12) no Kingman factor is
// applied to quantiles and an unstable queue reports its true rho = lambda / (c mu).
#pragma once

namespace dsx {

struct MmcResult {
  double utilization = 0;        // rho = lambda / (c mu); >= 1 means unstable
  bool stable = false;
  double wait_probability = 0;   // Erlang C; 1 when unstable
  double mean_wait_s = 0;        // +inf when unstable
};

// Erlang C probability that an arrival waits; servers >= 1, offered_load = lambda / mu >= 0.
double erlang_c(double servers, double offered_load);

MmcResult mmc_queue(double arrival_rate_per_s, double service_rate_per_s, double servers);

// The q-quantile (0 < q < 1) of the waiting time in queue; +inf when the queue is unstable.
double mmc_wait_quantile_s(double arrival_rate_per_s, double service_rate_per_s, double servers, double q);
// The same from an already solved queue (no second Erlang C evaluation).
double mmc_wait_quantile_s(const MmcResult& queue, double arrival_rate_per_s, double service_rate_per_s,
                           double servers, double q);

}  // namespace dsx
