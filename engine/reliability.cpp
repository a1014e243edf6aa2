#include "engine/reliability.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsx {

double failure_rate_per_h(const ComponentCount* components, int component_count, double units) {
  double rate = 0.0;
  for (int i = 0; i < component_count; ++i) rate += components[i].count / components[i].mttf_h;
  return rate * units;
}

double mtbf_h(double failure_rate_per_h) {
  return failure_rate_per_h > 0 ? 1.0 / failure_rate_per_h : std::numeric_limits<double>::infinity();
}

double young_interval_s(double checkpoint_s, double mtbf_s) { return std::sqrt(2.0 * checkpoint_s * mtbf_s); }

double daly_interval_s(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2.0 * mtbf_s) return mtbf_s;
  const double ratio = checkpoint_s / (2.0 * mtbf_s);
  return young_interval_s(checkpoint_s, mtbf_s) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0) - checkpoint_s;
}

double goodput_fraction(double interval_s, double checkpoint_s, double restart_s, double mtbf_s) {
  const double period = interval_s + checkpoint_s;
  return std::max(0.0, 1.0 - checkpoint_s / period - (restart_s + period / 2.0) / mtbf_s);
}

}  // namespace dsx
