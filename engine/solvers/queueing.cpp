#include "engine/solvers/queueing.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/laws.hpp"
#include "engine/queueing.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 3> kModels = {"mmc", "md1", "mg1"};

constexpr std::array<ParamSpec, QueueingSolver::kParamCount> kParams = {{
    {.name = "model", .kind = ParamKind::choice, .choices = kModels,
     .description = "mmc (M/M/c: exponential service, c servers, exact Erlang C tails), md1 (M/D/1: constant "
                    "service), mg1 (M/G/1: service of coefficient of variation service_cv, Pollaczek-Khinchine)",
     .has_default = true, .default_value = 0},
    {.name = "arrival_rate", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "Poisson arrival rate lambda (requests/s)", .min_value = 0, .max_value = 1e15,
     .min_exclusive = true},
    {.name = "service_time", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "mean service time E[S] of one request on one server", .min_value = 0, .max_value = 1e9,
     .min_exclusive = true},
    {.name = "service_cv", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "coefficient of variation of the service time, sd / mean (mg1 only; 1 = exponential, "
                    "0 = constant)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 100},
    {.name = "servers", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "identical servers c sharing one queue (mmc; md1 and mg1 need 1)", .has_default = true,
     .default_value = 1, .min_value = 1, .max_value = 1e6, .integer = true},
}};

constexpr std::array<MetricSpec, QueueingSolver::kMetricCount> kMetrics = {{
    {"utilization", Dimension::dimensionless, "rho = lambda E[S] / c"},
    {"wait_probability", Dimension::dimensionless, "P(W > 0): Erlang C (mmc), rho (md1, mg1)"},
    {"mean_wait_s", Dimension::time, "E[W] in queue: Erlang C / (c mu - lambda) (mmc), Pollaczek-Khinchine (md1, mg1)"},
    {"mean_sojourn_s", Dimension::time, "E[T] = E[W] + E[S]"},
    {"p50_wait_s", Dimension::time, "median wait in queue: exact (mmc), exponential tail approximation (md1, mg1)"},
    {"p99_wait_s", Dimension::time, "99th percentile wait in queue: exact (mmc), exponential tail approximation (md1, mg1)"},
    {"mean_queue_length", Dimension::count, "L_q = lambda E[W] (Little's law)"},
    {"mean_in_system", Dimension::count, "L = lambda E[T] (Little's law)"},
    {"capacity_per_s", Dimension::rate, "c / E[S]: the arrival rate at which rho reaches 1"},
}};

constexpr std::array<std::string_view, 2> kReasons = {
    "utilization >= 1: arrivals outpace service and the queue grows without bound",
    "md1 and mg1 are single-server models: servers must be 1",
};

constexpr double kMedian = 0.5;
constexpr double kP99 = 0.99;

}  // namespace

QueueingSolver::QueueingSolver()
    : TabledSolver("queueing", "M/M/c, M/D/1 or M/G/1 queue: utilization, mean and tail waits, Little's law",
                   kParams, kMetrics, kReasons) {}

PointResult QueueingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const auto& v = in.values;
  const auto kind = static_cast<Model>(v[Param::model]);
  const double lambda = v[Param::arrival_rate];
  const double service = v[Param::service_time];
  const double c = v[Param::servers];
  if (kind != Model::mmc && c != 1.0) return {PointStatus::infeasible, single_server_only};
  out[capacity_per_s] = c / service;
  double wait_p = 0, mean_wait = 0, p50 = 0, p99 = 0;
  if (kind == Model::mmc) {
    const double mu = 1.0 / service;
    const MmcResult q = mmc_queue(lambda, mu, c);
    out[utilization] = q.utilization;
    if (!q.stable) return {PointStatus::infeasible, unstable};
    wait_p = q.wait_probability;
    mean_wait = q.mean_wait_s;
    p50 = mmc_wait_quantile_s(q, lambda, mu, c, kMedian);
    p99 = mmc_wait_quantile_s(q, lambda, mu, c, kP99);
  } else {
    const Mg1Result q = mg1_queue(lambda, service, kind == Model::md1 ? 0.0 : v[Param::service_cv]);
    out[utilization] = q.utilization;
    if (!q.stable) return {PointStatus::infeasible, unstable};
    wait_p = q.wait_probability;
    mean_wait = q.mean_wait_s;
    p50 = mg1_wait_quantile_s(q, kMedian);
    p99 = mg1_wait_quantile_s(q, kP99);
  }
  out[wait_probability] = wait_p;
  out[mean_wait_s] = mean_wait;
  out[mean_sojourn_s] = mean_wait + service;
  out[p50_wait_s] = p50;
  out[p99_wait_s] = p99;
  out[mean_queue_length] = littles_law_in_flight(lambda, mean_wait);
  out[mean_in_system] = littles_law_in_flight(lambda, mean_wait + service);
  return {};
}

}  // namespace dsx
