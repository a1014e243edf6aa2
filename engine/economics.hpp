// Cost of owning or renting accelerators, and what that makes a token or a training run cost.
//
//   Owned cost per device-hour = capex / (lifetime hours) + capex x maintenance rate / 8,760
//                                + power (kW) x PUE x electricity price ($/kWh)
//   (straight-line depreciation; the 5 %/year maintenance and 3-year lifetime defaults of mlsysim's
//   EconomicsModel are inputs here, not constants). Power is the device's draw at its utilization
//   (engine/carbon.hpp device_power_w), so an idle owned GPU still costs capex and idle power.
//   Rent vs buy: renting costs rent x used hours; owning costs capex up front plus running costs per
//   wall-clock hour. Break-even months = capex / (rent x u - running cost per hour) / 730 h, infinite
//   when renting is cheaper per hour than running an owned device.
//   $ per million tokens = $/device-hour x devices / (tokens/s x 3,600) x 1e6.
//   TCO over a period = capex share + energy + maintenance (mlsysim EconomicsModel, section 2.25).
#pragma once

namespace dsx {

inline constexpr double kHoursPerYear = 8760.0;
inline constexpr double kHoursPerMonth = kHoursPerYear / 12.0;

struct OwnershipInput {
  double capex_usd = 0;                  // per device, including its share of the server and network
  double lifetime_years = 3;
  double maintenance_fraction_per_year = 0.05;
  double power_w = 0;                    // per device at its utilization
  double pue = 1;
  double electricity_usd_per_kwh = 0;
};

double capex_usd_per_hour(const OwnershipInput& in);
double maintenance_usd_per_hour(const OwnershipInput& in);
double energy_usd_per_hour(const OwnershipInput& in);
double owned_usd_per_device_hour(const OwnershipInput& in);

// Months after which buying is cheaper than renting `rent_usd_per_hour` for the hours used
// (utilization u of wall-clock time). Infinity when never.
double rent_vs_buy_breakeven_months(const OwnershipInput& in, double rent_usd_per_hour, double utilization);

double usd_per_million_tokens(double usd_per_device_hour, double devices, double tokens_per_s);
double run_cost_usd(double usd_per_device_hour, double devices, double duration_s);

struct Tco {
  double capex_usd = 0;
  double energy_usd = 0;
  double maintenance_usd = 0;
  double total_usd = 0;
};
Tco total_cost_of_ownership(const OwnershipInput& in, double devices, double period_hours);

}  // namespace dsx
