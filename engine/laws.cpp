#include "engine/laws.hpp"

#include <cmath>
#include <limits>

namespace dsx {

double amdahl_speedup(double serial_fraction, double processors) {
  return 1.0 / (serial_fraction + (1.0 - serial_fraction) / processors);
}

double amdahl_limit(double serial_fraction) {
  return serial_fraction > 0 ? 1.0 / serial_fraction : std::numeric_limits<double>::infinity();
}

double gustafson_speedup(double serial_fraction, double processors) {
  return processors - serial_fraction * (processors - 1.0);
}

double littles_law_in_flight(double arrival_rate_per_s, double latency_s) { return arrival_rate_per_s * latency_s; }

double max_concurrent_requests(double capacity_bytes, double bytes_per_request) {
  // The quotient is rounded first so that 24 GB / 1 GB lands on 24 whatever the float error.
  const double ratio = capacity_bytes / bytes_per_request;
  const double nearest = std::round(ratio);
  return std::fabs(ratio - nearest) <= 1e-9 * nearest ? nearest : std::floor(ratio);
}

double littles_law_max_rate_per_s(double concurrency, double latency_s) { return concurrency / latency_s; }

double training_flops(double parameters, double tokens) {
  return kTrainingFlopsPerParamToken * parameters * tokens;
}

double training_time_s(double parameters, double tokens, double accelerators, double peak_flops_per_s,
                       double mfu) {
  return training_flops(parameters, tokens) / (accelerators * peak_flops_per_s * mfu);
}

double transfer_time_s(double latency_s, double size_bytes, double bandwidth_bytes_per_s) {
  return latency_s + size_bytes / bandwidth_bytes_per_s;
}

double elementwise_intensity_flop_per_byte(double ops_per_element, double reads, double writes,
                                           double bytes_per_element) {
  return ops_per_element / ((reads + writes) * bytes_per_element);
}

}  // namespace dsx
