#include "engine/efficiency.hpp"

#include <stdexcept>

namespace dsx {

namespace {
constexpr double kTrainingFlopsFactor = 3.0;  // forward + backward (2 x forward)
}  // namespace

const RegimeEfficiency& regime_efficiency(EfficiencyRegime regime) {
  return kRegimeEfficiencies[static_cast<std::size_t>(regime)];
}

std::optional<EfficiencyRegime> parse_efficiency_regime(std::string_view name) {
  for (const RegimeEfficiency& r : kRegimeEfficiencies) {
    if (r.name == name) return r.regime;
  }
  return std::nullopt;
}

double default_eta(EfficiencyRegime regime) { return regime_efficiency(regime).default_eta; }

double eta_or_default(double eta, EfficiencyRegime regime) { return eta > 0 ? eta : default_eta(regime); }

bool eta_in_regime_range(double eta, EfficiencyRegime regime) {
  const RegimeEfficiency& r = regime_efficiency(regime);
  return eta >= r.low && eta <= r.high;
}

double regime_flops_per_item(double forward_flops_per_item, EfficiencyRegime regime) {
  return regime_efficiency(regime).training ? kTrainingFlopsFactor * forward_flops_per_item
                                            : forward_flops_per_item;
}

EtaCalibration calibrate_eta(double throughput_per_s, double flops_per_item, double peak_flops_per_s,
                             double devices) {
  EtaCalibration c;
  c.achieved_flops_per_s = throughput_per_s * flops_per_item / devices;
  c.eta = c.achieved_flops_per_s / peak_flops_per_s;
  c.consistent = c.eta <= 1.0;
  return c;
}

double fit_eta(std::span<const double> ideal_throughputs, std::span<const double> measured_throughputs) {
  if (ideal_throughputs.size() != measured_throughputs.size()) {
    throw std::invalid_argument("fit_eta: ideal and measured throughputs differ in length");
  }
  double sum = 0;
  double sum_squares = 0;
  for (std::size_t i = 0; i < ideal_throughputs.size(); ++i) {
    const double r = ideal_throughputs[i] / measured_throughputs[i];
    sum += r;
    sum_squares += r * r;
  }
  return sum_squares > 0 ? sum / sum_squares : 0.0;
}

}  // namespace dsx
