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

std::string reason_text(std::string_view reason, const HardwareSpec* hardware) {
  const std::size_t at = reason.find(kReasonHardware);
  if (at == std::string_view::npos || hardware == nullptr) return std::string(reason);
  return std::string(reason.substr(0, at)) + hardware->id + std::string(reason.substr(at + kReasonHardware.size()));
}

bool reason_matches(std::string_view reason, std::string_view text) {
  const std::size_t at = reason.find(kReasonHardware);
  if (at == std::string_view::npos) return reason == text;
  const std::string_view head = reason.substr(0, at);
  const std::string_view tail = reason.substr(at + kReasonHardware.size());
  return text == reason || (text.size() > head.size() + tail.size() && text.substr(0, head.size()) == head &&
                            text.substr(text.size() - tail.size()) == tail);
}

}  // namespace dsx
