// Seed numbers reproduced through the shipped catalog and the inference solver.
#include <gtest/gtest.h>

#include "dse/catalog.hpp"
#include "tests/dse/shipped_catalog.hpp"
#include "engine/dispatch.hpp"
#include "engine/roofline.hpp"

namespace dsx {
namespace {

const Catalog& catalog() { return shipped_catalog(); }

double ridge(const std::string& id) {
  const HardwareSpec* hw = catalog().find_hardware(id);
  EXPECT_NE(hw, nullptr) << id;
  return hw == nullptr ? 0 : ridge_point_flop_per_byte(hw->peak(Precision::fp16), hw->memory_bandwidth_bytes_per_s);
}

// DESIGN.md section 3 / seeds/003: H100 SXM 989 TFLOP/s dense fp16 over 3.35 TB/s.
TEST(SeedNumbers, H100RidgeFromTheCatalog) { EXPECT_NEAR(ridge("h100_sxm"), 989.0 / 3.35, 0.5); }

// The two A100 parts have different ridges (seeds/003): 312 / 1.555 and 312 / 2.039 TB/s.
TEST(SeedNumbers, A100PartsHaveDifferentRidges) {
  EXPECT_NEAR(ridge("a100_40gb_sxm"), 312.0 / 1.555, 0.5);
  EXPECT_NEAR(ridge("a100_80gb_sxm"), 312.0 / 2.039, 0.5);
}

// seeds/000 section 6: the edge context's mobile NPU, 10 TOPS int8 and 68 GB/s.
TEST(SeedNumbers, MobileNpuMatchesTheLab07EdgeContext) {
  const HardwareSpec* npu = catalog().find_hardware("mobile_npu");
  ASSERT_NE(npu, nullptr);
  EXPECT_DOUBLE_EQ(npu->peak(Precision::int8), 10e12);
  EXPECT_DOUBLE_EQ(npu->memory_bandwidth_bytes_per_s, 68e9);
}

// seeds/000 lab_07 Act 1 through the generated lab07_kws profile: 1,000 kernels of 5 us on the A100
// at the profile's eta with 10 us launches -> 1/3.
TEST(SeedNumbers, Lab07KwsProfileOnTheA100IsOneThirdUtilized) {
  const CatalogModel* kws = catalog().find_model("lab07_kws");
  const HardwareSpec* a100 = catalog().find_hardware("a100_80gb_sxm");
  ASSERT_NE(kws, nullptr);
  ASSERT_NE(a100, nullptr);
  const ExecutionBreakdown b = execute_graph(kws->prepared.eager, *a100, Precision::fp16, 1, 0.5, 10e-6);
  EXPECT_DOUBLE_EQ(b.kernel_count, 1000);
  EXPECT_NEAR(b.gpu_utilization(), 1.0 / 3.0, 1e-12);
  const ExecutionBreakdown c = execute_graph(kws->prepared.compiled, *a100, Precision::fp16, 1, 0.5, 10e-6);
  EXPECT_LT(c.kernel_count, 0.7 * 1000);  // the seed's 30-80% cut
  EXPECT_GT(c.kernel_count, 0.2 * 1000);
  EXPECT_GT(c.gpu_utilization(), 0.55);
  EXPECT_LT(c.gpu_utilization(), 0.75);
}

}  // namespace
}  // namespace dsx
