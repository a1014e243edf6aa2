// The fleet solver: sizing, power, TCO and rent vs buy of a hand-computed H100 fleet.
#include "engine/solvers/fleet.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

using S = FleetSolver;

constexpr double kYear = 8760.0 * 3600;

PointInputs hand_fleet(const HardwareSpec& hw) {
  PointInputs in;
  in.hardware = &hw;
  in.values[S::tokens_per_s_per_gpu] = 1000;
  in.values[S::load] = 1e11 / 86400;  // 100 billion tokens a day
  in.values[S::peak_to_average] = 2;
  in.values[S::target_utilization] = 0.7;
  in.values[S::gpus_per_node] = 8;
  in.values[S::nodes_per_rack] = 0;
  in.values[S::rack_power] = 40e3;
  in.values[S::host_power_per_gpu] = 0;
  in.values[S::pue] = 1.2;
  in.values[S::electricity_usd_per_kwh] = 0.10;
  in.values[S::cloud_gpu_hour_price] = 2.5;
  in.values[S::lifetime] = 3 * kYear;
  in.values[S::capex_per_gpu] = 0;  // the hardware's price_usd
  in.values[S::host_network_fraction] = 0.4;
  in.values[S::ops_fraction_per_year] = 0.05;
  return in;
}

TEST(Fleet, HandComputedH100Fleet) {
  HardwareSpec hw = published::h100_sxm();
  hw.price_usd = 25000;  // a round price for the hand calculation, not the catalog's
  const PointInputs in = hand_fleet(hw);
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(FleetSolver().evaluate(in, m).status, PointStatus::ok);
  // 1e11 tokens/day = 1,157,407.4 tokens/s; x 2 at the peak = 2,314,814.8; / (1,000 x 0.7) = 3,306.9
  // -> 3,307 GPUs -> 414 nodes of 8 (413.4) -> 3,312 GPUs.
  EXPECT_DOUBLE_EQ(m[S::gpus], 3312);
  EXPECT_DOUBLE_EQ(m[S::nodes], 414);
  EXPECT_NEAR(m[S::peak_load_tokens_per_s], 2e11 / 86400, 1e-6);
  const double u = 1e11 / 86400 / (3312 * 1000.0);  // 0.34946
  EXPECT_NEAR(m[S::fleet_utilization], u, 1e-12);
  // A node draws 8 x 700 W = 5.6 kW: 7 fit under 40 kW; 414 / 7 = 59.1 -> 60 racks.
  EXPECT_DOUBLE_EQ(m[S::nodes_per_rack_used], 7);
  EXPECT_DOUBLE_EQ(m[S::racks], 60);
  EXPECT_NEAR(m[S::it_power_w], 3312 * 700.0, 1e-6);
  EXPECT_NEAR(m[S::facility_power_w], 3312 * 700.0 * 1.2, 1e-6);
  // capex 3,312 x 25,000 x 1.4 = 115,920,000 USD.
  EXPECT_NEAR(m[S::capex_usd], 115.92e6, 1e-3);
  // Average draw 700 (0.3 + 0.7 u) = 381.23 W; x 3,312 x 1.2 x 0.10 USD/kWh x 8,760 h = 1,327,297 USD a year;
  // + 5 % of capex = 5,796,000 -> opex 7,123,297 USD a year; TCO = 115.92 M + 3 x 7.123 M = 137.29 M USD.
  EXPECT_NEAR(m[S::energy_per_year_usd], 3312 * 700 * (0.3 + 0.7 * u) / 1000 * 1.2 * 0.10 * 8760, 1e-3);
  EXPECT_NEAR(m[S::energy_per_year_usd], 1327297.29, 0.01);
  EXPECT_NEAR(m[S::opex_per_year_usd], 7123297.29, 0.01);
  EXPECT_NEAR(m[S::tco_usd], 137289891.87, 0.01);
  EXPECT_NEAR(m[S::owned_gpu_hour_usd], 137289891.87 / (3312 * 3 * 8760.0), 1e-6);
  // Renting the busy GPU-hours: 2.5 x 3,312 x 26,280 h x u = 76,041,667 USD, 0.554 of owning.
  EXPECT_NEAR(m[S::cloud_cost_usd], 76041666.67, 0.01);
  EXPECT_NEAR(m[S::rent_vs_buy_ratio], 76041666.67 / 137289891.87, 1e-9);
  // Break-even: F = capex + 3 x maintenance + idle energy (3,312 x 210 W), V = busy energy
  // (3,312 x 490 W), R = 2.5 x 3,312 x 26,280: u* = F / (R - V) = 0.6377.
  const double hours = 3 * 8760.0;
  const double fixed = 115.92e6 * 1.15 + 3312 * 210.0 / 1000 * 1.2 * 0.10 * hours;
  const double variable = 3312 * 490.0 / 1000 * 1.2 * 0.10 * hours;
  EXPECT_NEAR(m[S::break_even_utilization], fixed / (2.5 * 3312 * hours - variable), 1e-12);
  EXPECT_NEAR(m[S::break_even_utilization], 0.63771, 1e-5);
  // Per million tokens: owning 137.29 M USD / (1e11 x 3 x 365) x 1e6 = 1.2538 USD, renting
  // 2.5 / (1,000 x 3,600) x 1e6 = 0.6944 USD.
  EXPECT_NEAR(m[S::own_cost_per_million_tokens_usd], 137289891.87 / (1e11 * 3 * 365) * 1e6, 1e-9);
  EXPECT_NEAR(m[S::rent_cost_per_million_tokens_usd], 2.5 / 3.6e6 * 1e6, 1e-12);
}

TEST(Fleet, AtTheBreakEvenUtilizationRentingCostsWhatOwningDoes) {
  // Raise the load until the fleet's average utilization is the break-even one: the ratio is 1.
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = hand_fleet(hw);
  in.values[S::peak_to_average] = 2;
  in.values[S::target_utilization] = 1;
  in.values[S::load] = 8000 * 1000 * 0.5;  // a peak of 8,000 GPUs' worth
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(FleetSolver().evaluate(in, m).status, PointStatus::ok);
  const double u_star = m[S::break_even_utilization];
  ASSERT_GT(u_star, 0);
  ASSERT_LT(u_star, 1);
  in.values[S::load] = 8000 * 1000 * u_star;
  in.values[S::peak_to_average] = 1 / u_star;
  ASSERT_EQ(FleetSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(m[S::gpus], 8000);
  EXPECT_NEAR(m[S::fleet_utilization], u_star, 1e-12);
  EXPECT_NEAR(m[S::rent_vs_buy_ratio], 1.0, 1e-9);
}

TEST(Fleet, RentingCheaperThanRunningNeverBreaksEven) {
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = hand_fleet(hw);
  in.values[S::cloud_gpu_hour_price] = 0.01;  // below the busy energy cost of an hour (0.49 kW x 1.2 x 0.1)
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(FleetSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_TRUE(std::isinf(m[S::break_even_utilization]));
}

TEST(Fleet, ExplicitRackSizeAndCapex) {
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in = hand_fleet(hw);
  in.values[S::nodes_per_rack] = 4;
  in.values[S::rack_power] = 0;
  in.values[S::capex_per_gpu] = 30000;
  in.values[S::host_power_per_gpu] = 300;
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(FleetSolver().evaluate(in, m).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(m[S::racks], 104);  // 414 / 4 = 103.5
  EXPECT_NEAR(m[S::capex_usd], 3312 * 30000 * 1.4, 1e-3);
  EXPECT_NEAR(m[S::it_power_w], 3312 * 1000.0, 1e-6);
}

TEST(Fleet, InfeasibleReasons) {
  HardwareSpec hw = published::h100_sxm();
  PointInputs in = hand_fleet(hw);
  std::vector<double> m(S::kMetricCount);
  in.values[S::rack_power] = 5e3;  // one 5.6 kW node does not fit
  EXPECT_EQ(FleetSolver().evaluate(in, m).reason, S::node_exceeds_rack);
  in.values[S::rack_power] = 0;
  EXPECT_EQ(FleetSolver().evaluate(in, m).reason, S::no_rack_size);
  in.values[S::nodes_per_rack] = 8;  // 44.8 kW over a 40 kW limit
  in.values[S::rack_power] = 40e3;
  EXPECT_EQ(FleetSolver().evaluate(in, m).reason, S::node_exceeds_rack);
  hw.price_usd = 0;
  const PointResult r = FleetSolver().evaluate(in, m);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, S::no_price);
  in.values[S::capex_per_gpu] = 20000;
  in.values[S::nodes_per_rack] = 7;
  EXPECT_EQ(FleetSolver().evaluate(in, m).status, PointStatus::ok);
}

// The rest of the declaration checks run over every registered solver (solver_declarations_test.cpp).
TEST(Fleet, TablesMatchTheIndexEnums) {
  const FleetSolver solver;
  EXPECT_EQ(solver.params().size(), static_cast<std::size_t>(FleetSolver::kParamCount));
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(FleetSolver::kMetricCount));
}

}  // namespace
}  // namespace dsx
