#include "engine/economics.hpp"

#include <limits>

namespace dsx {

double capex_usd_per_hour(const OwnershipInput& in) { return in.capex_usd / (in.lifetime_years * kHoursPerYear); }

double maintenance_usd_per_hour(const OwnershipInput& in) {
  return in.capex_usd * in.maintenance_fraction_per_year / kHoursPerYear;
}

double energy_usd_per_hour(const OwnershipInput& in) {
  return in.power_w / 1000.0 * in.pue * in.electricity_usd_per_kwh;
}

double owned_usd_per_device_hour(const OwnershipInput& in) {
  return capex_usd_per_hour(in) + maintenance_usd_per_hour(in) + energy_usd_per_hour(in);
}

double rent_vs_buy_breakeven_months(const OwnershipInput& in, double rent_usd_per_hour, double utilization) {
  const double saving_per_hour = rent_usd_per_hour * utilization - maintenance_usd_per_hour(in) - energy_usd_per_hour(in);
  if (saving_per_hour <= 0) return std::numeric_limits<double>::infinity();
  return in.capex_usd / saving_per_hour / kHoursPerMonth;
}

double usd_per_million_tokens(double usd_per_device_hour, double devices, double tokens_per_s) {
  return usd_per_device_hour * devices / (tokens_per_s * 3600.0) * 1e6;
}

double run_cost_usd(double usd_per_device_hour, double devices, double duration_s) {
  return usd_per_device_hour * devices * duration_s / 3600.0;
}

Tco total_cost_of_ownership(const OwnershipInput& in, double devices, double period_hours) {
  Tco t;
  t.capex_usd = capex_usd_per_hour(in) * devices * period_hours;
  t.energy_usd = energy_usd_per_hour(in) * devices * period_hours;
  t.maintenance_usd = maintenance_usd_per_hour(in) * devices * period_hours;
  t.total_usd = t.capex_usd + t.energy_usd + t.maintenance_usd;
  return t;
}

}  // namespace dsx
