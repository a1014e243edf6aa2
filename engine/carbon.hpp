// Energy, carbon and water of a fleet.
//
//   Power from utilization (the linear server power model of Fan, Weber and Barroso, "Power
//   Provisioning for a Warehouse-sized Computer", ISCA 2007):  P = TDP (f_idle + (1 - f_idle) u),
//   with f_idle = HardwareSpec.idle_power_fraction. (mlsysim fixes f_idle = 0.30 and u = 1.)
//   Facility energy = IT energy x PUE (The Green Grid, White Paper 49, 2012).
//   Operational carbon = facility kWh x grid carbon intensity (g CO2e / kWh).
//   Water = IT kWh x WUE (L / kWh): The Green Grid WUE (White Paper 35, 2011) is site water over IT
//   energy, not facility energy (mlsysim multiplies by facility energy).
//   Embodied carbon is amortised over the device lifetime: embodied x N x duration / lifetime
//   (Gupta et al., "Chasing Carbon", HPCA 2021).
#pragma once

namespace dsx {

// NaN when tdp_w is 0 (unknown): energy, carbon, water and electricity cost follow as NaN.
double device_power_w(double tdp_w, double idle_power_fraction, double utilization);
inline constexpr double kJoulesPerKwh = 3.6e6;

struct FootprintInput {
  double devices = 1;
  double device_power_w = 0;        // from device_power_w()
  double other_it_power_w = 0;      // per device: host CPU, NICs, switches share
  double duration_s = 0;
  double pue = 1;
  double carbon_g_per_kwh = 0;
  double wue_l_per_kwh = 0;
  double embodied_kg_per_device = 0;
  double device_lifetime_s = 0;     // 0: no embodied share
};

struct Footprint {
  double it_energy_j = 0;
  double facility_energy_j = 0;
  double operational_co2_kg = 0;
  double embodied_co2_kg = 0;
  double total_co2_kg = 0;
  double water_l = 0;
};

Footprint footprint(const FootprintInput& in);

}  // namespace dsx
