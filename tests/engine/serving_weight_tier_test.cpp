// The serving solver on hardware with a read-only weight tier (HardwareSpec::weight_memory_bytes):
// serving holds weights and KV cache in `memory` and reads nothing from the tier, so a point that
// does not fit there is refused with a reason that names the tier, and a point that fits runs as on
// the same chip without one.
#include <cmath>
#include <string>
#include <vector>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

class ServingWeightTier : public ServingFeatures {
 protected:
  // An H100 SXM whose `memory` is cut to 10 GiB, with or without a 32 GiB tier beside it.
  static HardwareSpec small_memory(bool with_tier) {
    HardwareSpec h = published::h100_sxm();
    h.memory_bytes = 10.0 * 1024 * 1024 * 1024;
    if (with_tier) {
      h.weight_memory_bytes = 32.0 * 1024 * 1024 * 1024;
      h.weight_memory_bandwidth_bytes_per_s = 1e12;
    }
    return h;
  }
  PointInputs on(const HardwareSpec& h, double batch) const {
    PointInputs in = point(llama8b, batch);
    in.hardware = &h;
    return in;
  }
};

// Llama-3-8B's 8.03 B fp16 weights are 16.1 GB: over 10 GiB, inside the 32 GiB tier.
TEST_F(ServingWeightTier, WeightsOverMemoryAreRefusedWithTheTierNamed) {
  const HardwareSpec with_tier = small_memory(true);
  const HardwareSpec without_tier = small_memory(false);
  for (double batch : {0.0, 8.0}) {
    const PointResult tier = result(on(with_tier, batch));
    EXPECT_EQ(tier.status, PointStatus::infeasible);
    EXPECT_EQ(tier.reason, ServingSolver::exceeds_memory_not_weight_tier) << batch;
    EXPECT_NE(std::string(solver.reasons()[tier.reason]).find("weight_memory"), std::string::npos);
    const PointResult plain = result(on(without_tier, batch));
    EXPECT_EQ(plain.status, PointStatus::infeasible);
    EXPECT_EQ(plain.reason, ServingSolver::exceeds_memory) << batch;
  }
}

// Where weights and cache fit in `memory`, the tier changes nothing.
TEST_F(ServingWeightTier, ATierBesideEnoughMemoryChangesNothing) {
  HardwareSpec tiered = published::h100_sxm();
  tiered.weight_memory_bytes = 32.0 * 1024 * 1024 * 1024;
  tiered.weight_memory_bandwidth_bytes_per_s = 1e12;
  const std::vector<double> plain = run(point(llama8b, 16));
  const std::vector<double> with_tier = run(on(tiered, 16));
  ASSERT_EQ(plain.size(), with_tier.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (std::isnan(plain[i])) {
      EXPECT_TRUE(std::isnan(with_tier[i])) << solver.metrics()[i].name;
    } else {
      EXPECT_EQ(plain[i], with_tier[i]) << solver.metrics()[i].name;
    }
  }
}

}  // namespace
}  // namespace dsx::serving_features
