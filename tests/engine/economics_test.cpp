#include "engine/economics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dsx {
namespace {

OwnershipInput h100() {
  OwnershipInput in;
  in.capex_usd = 30000;
  in.lifetime_years = 3;
  in.maintenance_fraction_per_year = 0.05;
  in.power_w = 700;
  in.pue = 1.12;
  in.electricity_usd_per_kwh = 0.12;
  return in;
}

TEST(Economics, OwnedCostPerHour) {
  const OwnershipInput in = h100();
  EXPECT_NEAR(capex_usd_per_hour(in), 30000.0 / 26280.0, 1e-12);      // 1.1416 $/h
  EXPECT_NEAR(maintenance_usd_per_hour(in), 1500.0 / 8760.0, 1e-12);  // 0.1712 $/h
  EXPECT_NEAR(energy_usd_per_hour(in), 0.7 * 1.12 * 0.12, 1e-12);     // 0.0941 $/h
  EXPECT_NEAR(owned_usd_per_device_hour(in), 1.4069, 1e-4);
}

// mlsysim EconomicsModel (section 2.25): TCO = capex / A x days / 365 + energy + 5 % maintenance.
TEST(Economics, TcoMatchesMlsysimDecomposition) {
  const OwnershipInput in = h100();
  const Tco t = total_cost_of_ownership(in, 1024, 30 * 24);
  EXPECT_NEAR(t.capex_usd, 30000.0 * 1024 / 3 * 30 / 365, 1e-6);
  EXPECT_NEAR(t.maintenance_usd, 30000.0 * 1024 * 0.05 * 30 / 365, 1e-6);
  EXPECT_NEAR(t.energy_usd, 1024 * 0.7 * 720 * 1.12 * 0.12, 1e-6);
  EXPECT_DOUBLE_EQ(t.total_usd, t.capex_usd + t.energy_usd + t.maintenance_usd);
}

TEST(Economics, RentVersusBuyBreakEven) {
  const OwnershipInput in = h100();
  // Renting at $2.00/h used 100 %: saving 2 - 0.1712 - 0.0941 = 1.7347 $/h -> 17,294 h = 23.7 months.
  const double months = rent_vs_buy_breakeven_months(in, 2.0, 1.0);
  EXPECT_NEAR(months, 30000.0 / (2.0 - 1500.0 / 8760.0 - 0.7 * 1.12 * 0.12) / 730.0, 1e-9);
  EXPECT_NEAR(months, 23.69, 0.01);
  // Used half the time, owning takes more than twice as long to pay off.
  EXPECT_GT(rent_vs_buy_breakeven_months(in, 2.0, 0.5), 2 * months);
  // Spot at $0.20/h never pays off an owned GPU.
  EXPECT_TRUE(std::isinf(rent_vs_buy_breakeven_months(in, 0.20, 1.0)));
}

TEST(Economics, TokensAndRuns) {
  // 8 GPUs at $2/h serving 10,000 tokens/s: $16/h / 36 Mtok/h = $0.444 per million tokens.
  EXPECT_NEAR(usd_per_million_tokens(2.0, 8, 10000), 16.0 / 36.0, 1e-12);
  // 1,024 GPUs for 10 days at $2/h = $491,520.
  EXPECT_NEAR(run_cost_usd(2.0, 1024, 10 * 86400.0), 491520.0, 1e-6);
}

}  // namespace
}  // namespace dsx
