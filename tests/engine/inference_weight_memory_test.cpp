// The inference solver on a part with a second memory tier (HardwareSpec::weight_memory_bytes): a
// microcontroller whose weights overflow its SRAM reads them from flash at the flash's read rate.
// Figures of the catalog's stm32h743: 1 MiB SRAM at 1.92 GB/s, 2 MiB flash at 1.536 GB/s (32 B per
// 5 AXI cycles at 240 MHz), fp32 0.96 GFLOP/s.
#include "engine/solvers/inference.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "engine/fusion.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = InferenceSolver::Param;
using M = InferenceSolver::Metric;

constexpr double kSramBytes = 1024.0 * 1024;
constexpr double kSramBandwidth = 1.92e9;
constexpr double kFlashBytes = 2.0 * 1024 * 1024;
constexpr double kFlashBandwidth = 1.536e9;
constexpr double kPeak = 0.96e9;

HardwareSpec mcu(bool with_flash) {
  HardwareSpec hw;
  hw.id = "mcu";
  hw.peak_flops_per_s[index_of(Precision::fp32)] = kPeak;
  hw.memory_bytes = kSramBytes;
  hw.memory_bandwidth_bytes_per_s = kSramBandwidth;
  hw.host_link_bandwidth_bytes_per_s = kSramBandwidth;
  if (with_flash) {
    hw.weight_memory_bytes = kFlashBytes;
    hw.weight_memory_bandwidth_bytes_per_s = kFlashBandwidth;
  }
  return hw;
}

// One fully connected layer: `inputs` x `outputs` weights, one sample.
PreparedModel dense_layer(double inputs, double outputs) {
  ModelGraph g;
  g.id = "dense";
  g.name = "dense";
  Op op;
  op.name = "fc";
  op.kind = OpKind::matmul;
  op.flops_per_sample = 2 * inputs * outputs;
  op.input_elements_per_sample = inputs;
  op.output_elements_per_sample = outputs;
  op.weight_elements = inputs * outputs;
  g.ops.push_back(op);
  g.parameter_count = inputs * outputs;
  return prepare_model(g);
}

class InferenceWeightMemoryTest : public ::testing::Test {
 protected:
  PointInputs point(const HardwareSpec& hw, const PreparedModel& model) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp32));
    in.values[P::launch_overhead] = 0;
    in.values[P::eta] = 1;
    return in;
  }
  PointResult evaluate(const HardwareSpec& hw, const PreparedModel& model, std::vector<double>& out) const {
    out.assign(solver.metrics().size(), 0.0);
    return solver.evaluate(point(hw, model), out);
  }

  const InferenceSolver solver;
  const HardwareSpec with_flash = mcu(true);
  const HardwareSpec sram_only = mcu(false);
};

// 1,000 x 300 fp32 weights = 1.2 MB: over the 1 MiB SRAM, inside the 2 MiB flash. By hand:
// compute 600,000 FLOP / 0.96 GFLOP/s = 625 us; memory 1,300 activation values x 4 B / 1.92 GB/s
// = 2.708 us plus 1.2 MB of weights / 1.536 GB/s = 781.25 us, 783.96 us in all, so the layer is
// memory-bound and takes 783.96 us (625 us of compute and 158.96 us of exposed memory time).
TEST_F(InferenceWeightMemoryTest, WeightsOverflowingSramAreReadFromFlash) {
  const PreparedModel layer = dense_layer(1000, 300);
  std::vector<double> out;
  const PointResult r = evaluate(with_flash, layer, out);
  ASSERT_EQ(r.status, PointStatus::ok);
  const double memory_s = 1300.0 * 4 / kSramBandwidth + 1.2e6 / kFlashBandwidth;
  EXPECT_NEAR(memory_s, 783.958e-6, 1e-9);
  EXPECT_NEAR(out[M::compute_s], 625e-6, 1e-12);
  EXPECT_NEAR(out[M::memory_s], memory_s - 625e-6, 1e-12);
  EXPECT_NEAR(out[M::latency_s], memory_s, 1e-12);
  EXPECT_DOUBLE_EQ(out[M::memory_footprint_bytes], 1.2e6 + 1300.0 * 4);
  // The eager baseline reads its weights from the same tier.
  EXPECT_DOUBLE_EQ(out[M::eager_latency_s], out[M::latency_s]);
}

TEST_F(InferenceWeightMemoryTest, WithoutAFlashTierTheSamePointDoesNotFit) {
  const PreparedModel layer = dense_layer(1000, 300);
  std::vector<double> out;
  const PointResult r = evaluate(sram_only, layer, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, InferenceSolver::exceeds_memory);
}

// 100 x 300 weights (120 kB) fit in SRAM beside the activations: they stay there, at the SRAM's rate,
// and the flash tier changes nothing.
TEST_F(InferenceWeightMemoryTest, WeightsThatFitInSramAreReadFromSram) {
  const PreparedModel layer = dense_layer(100, 300);
  std::vector<double> a;
  std::vector<double> b;
  ASSERT_EQ(evaluate(with_flash, layer, a).status, PointStatus::ok);
  ASSERT_EQ(evaluate(sram_only, layer, b).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(a[M::latency_s], b[M::latency_s]);
  const double memory_s = (100.0 * 300 + 400) * 4 / kSramBandwidth;  // 63.3 us against 62.5 us of compute
  EXPECT_NEAR(a[M::latency_s], memory_s, 1e-12);
}

// 1,000 x 600 fp32 weights = 2.4 MB overflow the 2 MiB flash too.
TEST_F(InferenceWeightMemoryTest, WeightsOverflowingFlashDoNotFit) {
  const PreparedModel layer = dense_layer(1000, 600);
  std::vector<double> out;
  const PointResult r = evaluate(with_flash, layer, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, InferenceSolver::exceeds_memory);
}

}  // namespace
}  // namespace dsx
