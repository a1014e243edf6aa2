// The serving solver's GEMMs priced by shape (gemm_shapes: on; engine/gemm_waves.hpp through
// engine/serving.cpp): on a chip with known compute units, a batch-1 decode step stays at the
// bandwidth roof, a short prefill pays its partial waves, and the seeds' whole-step decode efficiency
// keeps the plain roofline.
#include <gtest/gtest.h>

#include <vector>

#include "engine/fusion.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/serving.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = ServingSolver::Param;
using M = ServingSolver::Metric;

class ServingGemmShapeTest : public ::testing::Test {
 protected:
  const ServingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);

  std::vector<double> run(const HardwareSpec& chip, double batch, double prompt, double eta_decode) const {
    PointInputs in;
    in.hardware = &chip;
    in.model = &llama8b;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[P::batch] = batch;
    in.values[P::prompt_tokens] = prompt;
    in.values[P::output_tokens] = 128;
    in.values[P::eta] = 0.5;
    in.values[P::eta_decode] = eta_decode;
    in.values[P::gemm_shapes] = 1;
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }
  HardwareSpec without_units() const {
    HardwareSpec h = hw;
    h.compute_units = 0;
    return h;
  }
};

// Llama 3 8B's linear layers by shape: qkv 4096 -> 6144, out 4096 -> 4096, gate and up 4096 -> 14336
// (one shape, twice per layer), down 14336 -> 4096 (row-parallel: its output is d_model), LM head.
TEST_F(ServingGemmShapeTest, TheGraphsGemmsByShape) {
  const ServingShape& s = llama8b.serving_shape;
  ASSERT_EQ(s.gemms.size(), 5U);
  EXPECT_DOUBLE_EQ(s.gemms[0].k, 4096);
  EXPECT_DOUBLE_EQ(s.gemms[0].n, 6144);
  EXPECT_DOUBLE_EQ(s.gemms[0].count, 32);
  EXPECT_FALSE(s.gemms[0].row_parallel);
  EXPECT_TRUE(s.gemms[1].row_parallel);
  EXPECT_DOUBLE_EQ(s.gemms[2].n, 14336);
  EXPECT_DOUBLE_EQ(s.gemms[2].count, 64);
  EXPECT_DOUBLE_EQ(s.gemms[3].k, 14336);
  EXPECT_TRUE(s.gemms[3].row_parallel);
  EXPECT_DOUBLE_EQ(s.gemms[4].n, 128256);
  // Their FLOPs are the graph's linear FLOPs less the norms', activations' and residuals'.
  EXPECT_NEAR(s.unrouted_gemm_flops_per_token, 2 * (32.0 * 4096 * (6144 + 4096 + 3 * 14336) + 4096 * 128256.0), 1e3);
}

// Batch 1 streams the weights: padded to 16-row tiles and split where a wave is short, the GEMMs
// still finish under the weights' stream, so the step is the plain roofline's to within the split
// partial sums' traffic.
TEST_F(ServingGemmShapeTest, BatchOneDecodeStaysAtTheBandwidthRoof) {
  const std::vector<double> shaped = run(hw, 1, 2048, 0.5);
  const std::vector<double> plain = run(without_units(), 1, 2048, 0.5);
  EXPECT_LT(shaped[M::decode_compute_s], shaped[M::decode_memory_s]);
  EXPECT_GT(shaped[M::decode_compute_s], plain[M::decode_compute_s]);
  EXPECT_NEAR(shaped[M::decode_step_s] / plain[M::decode_step_s], 1, 0.005);
}

// A 128-token prefill on 132 SMs: qkv's 1 x 24 tiles of 128 x 256 fill 24 SMs until split-K spreads
// them, the LM head's 501 tiles take 4 waves; a prefill costs more than its FLOPs at the peak.
TEST_F(ServingGemmShapeTest, ShortPrefillPaysItsWaves) {
  const std::vector<double> shaped = run(hw, 1, 128, 0.5);
  const std::vector<double> plain = run(without_units(), 1, 128, 0.5);
  EXPECT_GT(shaped[M::ttft_s], plain[M::ttft_s] * 1.02);
}

// Without a GEMM efficiency (no eta_decode, no eta from a profile) the decode step is the seeds'
// interpolation of whole-step efficiencies, whatever the chip's units.
TEST_F(ServingGemmShapeTest, SeedDecodeEfficiencyKeepsThePlainRoofline) {
  PointInputs in;
  in.hardware = &hw;
  in.model = &llama8b;
  set_defaults(solver, in);
  in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[P::batch] = 64;
  in.values[P::gemm_shapes] = 1;
  std::vector<double> shaped(solver.metrics().size()), plain(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, shaped).status, PointStatus::ok);
  const HardwareSpec unitless = without_units();
  in.hardware = &unitless;
  ASSERT_EQ(solver.evaluate(in, plain).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(shaped[M::decode_step_s], plain[M::decode_step_s]);
}

// off (the default): the plain roofline, whatever the chip's units.
TEST_F(ServingGemmShapeTest, OffIsThePlainRoofline) {
  PointInputs in;
  in.hardware = &hw;
  in.model = &llama8b;
  set_defaults(solver, in);
  in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[P::prompt_tokens] = 128;
  in.values[P::eta] = 0.5;
  std::vector<double> with_units(solver.metrics().size()), without(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, with_units).status, PointStatus::ok);
  const HardwareSpec unitless = without_units();
  in.hardware = &unitless;
  ASSERT_EQ(solver.evaluate(in, without).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(with_units[M::ttft_s], without[M::ttft_s]);
  EXPECT_DOUBLE_EQ(with_units[M::decode_step_s], without[M::decode_step_s]);
}

}  // namespace
}  // namespace dsx
