// The gemm regime of the shipped validation set: the MI300X's small hipBLASLt GEMMs are the Azure
// table's later revision (yosoyjay/AI-benchmarking-guide, commit a8263ef, ROCm 6.8.5), which the
// solver's launch floor and waves reach; the earlier revision's ~40 us per call (ROCm 6.8.1) is no
// physics of the chip and no longer drags the regime's held-out error to 40 %.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "dse/calibration/fit.hpp"
#include "dse/calibration/measurements.hpp"
#include "dse/calibration/profile.hpp"

namespace dsx {
namespace {

const std::string kCatalog = std::string(DSX_SOURCE_DIR) + "/studies/catalog";

TEST(ShippedGemmRows, Mi300xSmallGemmsAreTimedWithoutTheEarlierStacksFloor) {
  Diagnostics d;
  const auto set = load_measurements({kCatalog + "/measurements"}, kCatalog, d);
  ASSERT_TRUE(set) << d.format();
  std::map<std::string, double> measured;
  for (const Measurement& m : set->rows) measured[m.id] = m.measured;
  // Seconds per call = 2 m n k / (TFLOP/s): 7.72, 23.63 and 11.35 us (the earlier revision's 53.13,
  // 427.74 and 110.96 TFLOP/s gave 40.4, 40.2 and 40.5 us).
  const double t1 = 2.0 * 1024 * 1024 * 1024 / measured.at("azure-mi300x-gemm-1024x1024x1024");
  const double t2 = 2.0 * 2048 * 2048 * 2048 / measured.at("azure-mi300x-gemm-2048x2048x2048");
  const double t3 = 2.0 * 1024 * 2145 * 1024 / measured.at("azure-mi300x-gemm-1024x2145x1024");
  EXPECT_NEAR(t1, 7.719e-6, 0.01e-6);
  EXPECT_NEAR(t2, 23.63e-6, 0.01e-6);
  EXPECT_NEAR(t3, 11.35e-6, 0.01e-6);
  EXPECT_GT(t2 / t1, 3.0);  // 8x the work takes 3x the time, not the same 40 us
}

TEST(ShippedGemmRows, TheFitPredictsTheMi300xAndTheRegimeHeldOut) {
  Diagnostics d;
  const auto set = load_measurements({kCatalog + "/measurements"}, kCatalog, d);
  ASSERT_TRUE(set) << d.format();
  CalibrationOptions options;
  options.fitted_from = "studies/catalog/measurements";
  const Calibration c = calibrate(*set, options);
  // In-sample, every MI300X GEMM but the tall-skinny one within 15 % of its published rate (with the
  // earlier revision the 1024^3 one was predicted at 4.7 times its 53 TFLOP/s).
  int checked = 0;
  for (const RowFit& r : c.rows) {
    const Measurement& m = set->rows[r.row];
    if (m.id.rfind("azure-mi300x-gemm-", 0) != 0 || m.id == "azure-mi300x-gemm-802816x192x768") continue;
    ASSERT_TRUE(r.fitted) << m.id << ": " << r.problem;
    EXPECT_LT(std::abs(r.predicted / m.measured - 1), 0.15) << m.id;
    ++checked;
  }
  EXPECT_EQ(checked, 8);
  for (const RegimeAccuracy& a : c.profile.regimes) {
    if (a.name != "gemm") continue;
    EXPECT_EQ(a.rows, 52U);
    EXPECT_LT(a.mape, 0.15);     // 0.24 before
    EXPECT_LT(a.mape_cv, 0.25);  // 0.40 before
  }
}

}  // namespace
}  // namespace dsx
