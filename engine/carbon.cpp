#include "engine/carbon.hpp"

#include <limits>

namespace dsx {

double device_power_w(double tdp_w, double idle_power_fraction, double utilization) {
  // An unknown TDP (0: the vendor publishes none) gives an unknown power, not zero watts.
  if (!(tdp_w > 0)) return std::numeric_limits<double>::quiet_NaN();
  return tdp_w * (idle_power_fraction + (1.0 - idle_power_fraction) * utilization);
}

Footprint footprint(const FootprintInput& in) {
  Footprint f;
  f.it_energy_j = in.devices * (in.device_power_w + in.other_it_power_w) * in.duration_s;
  f.facility_energy_j = f.it_energy_j * in.pue;
  f.operational_co2_kg = f.facility_energy_j / kJoulesPerKwh * in.carbon_g_per_kwh / 1000.0;
  f.embodied_co2_kg =
      in.device_lifetime_s > 0 ? in.embodied_kg_per_device * in.devices * in.duration_s / in.device_lifetime_s : 0.0;
  f.total_co2_kg = f.operational_co2_kg + f.embodied_co2_kg;
  f.water_l = f.it_energy_j / kJoulesPerKwh * in.wue_l_per_kwh;
  return f;
}

}  // namespace dsx
