#include "engine/carbon.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dsx {
namespace {

TEST(Carbon, PowerFromUtilization) {
  EXPECT_DOUBLE_EQ(device_power_w(700, 0.3, 1.0), 700.0);
  EXPECT_DOUBLE_EQ(device_power_w(700, 0.3, 0.0), 210.0);
  EXPECT_DOUBLE_EQ(device_power_w(700, 0.3, 0.5), 455.0);
}

// A part whose vendor publishes no TDP (Google's TPUs, Apple's SoCs) has tdp_w = 0: its power is
// unknown, not zero watts, and every energy figure built on it is unknown too.
TEST(Carbon, UnknownTdpGivesUnknownPowerAndEnergy) {
  EXPECT_TRUE(std::isnan(device_power_w(0, 0.3, 1.0)));
  FootprintInput in;
  in.devices = 8;
  in.device_power_w = device_power_w(0, 0.3, 0.5);
  in.duration_s = 3600;
  in.pue = 1.1;
  in.carbon_g_per_kwh = 400;
  in.wue_l_per_kwh = 1.8;
  const Footprint f = footprint(in);
  EXPECT_TRUE(std::isnan(f.facility_energy_j));
  EXPECT_TRUE(std::isnan(f.operational_co2_kg));
  EXPECT_TRUE(std::isnan(f.water_l));
}

// Patterson et al. 2021 (mlsysim anchor A6): GPT-3 1,287 MWh at 429 g/kWh = 552 t CO2e.
TEST(Carbon, Gpt3OperationalCarbon) {
  FootprintInput in;
  in.devices = 1;
  in.device_power_w = 1287e6;  // 1,287 MWh over one hour, already facility energy
  in.duration_s = 3600;
  in.pue = 1.0;
  in.carbon_g_per_kwh = 429;
  EXPECT_NEAR(footprint(in).operational_co2_kg / 1000.0, 552.1, 0.1);
}

TEST(Carbon, FacilityWaterAndEmbodied) {
  FootprintInput in;
  in.devices = 1024;
  in.device_power_w = 700;
  in.other_it_power_w = 0;
  in.duration_s = 30 * 86400.0;
  in.pue = 1.12;
  in.carbon_g_per_kwh = 429;
  in.wue_l_per_kwh = 1.8;
  in.embodied_kg_per_device = 1500;
  in.device_lifetime_s = 4 * 365 * 86400.0;
  const Footprint f = footprint(in);
  const double it_kwh = 1024 * 0.7 * 720;
  EXPECT_NEAR(f.it_energy_j / kJoulesPerKwh, it_kwh, 1e-6);
  EXPECT_NEAR(f.facility_energy_j / kJoulesPerKwh, it_kwh * 1.12, 1e-6);
  EXPECT_NEAR(f.operational_co2_kg, it_kwh * 1.12 * 0.429, 1e-6);
  EXPECT_NEAR(f.water_l, it_kwh * 1.8, 1e-6);
  EXPECT_NEAR(f.embodied_co2_kg, 1500 * 1024 * 30.0 / 1460.0, 1e-6);
  EXPECT_DOUBLE_EQ(f.total_co2_kg, f.operational_co2_kg + f.embodied_co2_kg);
}

}  // namespace
}  // namespace dsx
