#include "engine/solver.hpp"

#include <limits>

namespace dsx {

double Solver::metric_lower_bound(const PointInputs& /*in*/, std::size_t metric) const {
  const MetricDomain d = metric_domain(metrics()[metric]);
  return d == MetricDomain::real ? -std::numeric_limits<double>::infinity() : 0.0;
}

double Solver::metric_upper_bound(const PointInputs& /*in*/, std::size_t metric) const {
  return metric_domain(metrics()[metric]) == MetricDomain::fraction ? 1.0 : std::numeric_limits<double>::infinity();
}

}  // namespace dsx
