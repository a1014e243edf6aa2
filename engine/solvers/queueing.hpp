// Solver "queueing": one queue of requests in front of servers, the question behind a latency SLA.
//
// model mmc: M/M/c, Poisson arrivals, c servers, exponential service (engine/queueing.hpp: Erlang C
//   by the Erlang B recursion, exact waiting-time tail P(W > t) = C exp(-(c mu - lambda) t); the
//   serving solver's queue is this same code). service_cv is ignored (exponential: cv = 1).
// model md1: M/D/1, one server, constant service time (cv = 0).
// model mg1: M/G/1, one server, service of mean E[S] and coefficient of variation service_cv; the
//   mean wait is Pollaczek-Khinchine, quantiles use the exponential tail approximation
//   (engine/queueing.hpp states it, its source and its error against the exact M/D/1 series).
//
//   utilization rho = lambda E[S] / c; mean sojourn = mean wait + E[S];
//   Little's law (Little 1961; engine/laws.hpp): L_q = lambda E[W] waiting, L = lambda E[T] in system.
// rho >= 1 is infeasible (the queue grows without bound); its true rho is still reported, unlike
// mlsysim, which reports 1 (shared/reference mlsysim-models 6.12). md1 and mg1 with servers != 1 are
// infeasible: the single-server formulas do not extend to c servers exactly.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class QueueingSolver final : public TabledSolver {
 public:
  enum Param : std::size_t { model, arrival_rate, service_time, service_cv, servers, kParamCount };
  enum Metric : std::size_t {
    utilization,
    wait_probability,
    mean_wait_s,
    mean_sojourn_s,
    p50_wait_s,
    p99_wait_s,
    mean_queue_length,
    mean_in_system,
    capacity_per_s,
    kMetricCount
  };
  enum Reason : std::uint8_t { unstable, single_server_only };
  enum Model : std::uint8_t { mmc, md1, mg1 };

  QueueingSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
