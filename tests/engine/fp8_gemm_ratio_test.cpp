// fp8 matrix products at the chip's measured fp8 GEMM ratio (HardwareSpec::gemm_peak) in the solvers
// outside training and gemm: the operator-graph walk (inference, dispatch_tax, data_pipeline), the
// serving roofline (serving, compression, synthesis) and the attention kernel. The ratio is the H100
// SXM's from stas00/ml-engineering's Maximum Achievable Matmul FLOPS table, (1402.6 / 1979) / (794.5 /
// 989) = 0.882 (studies/catalog/hardware.yaml h100_sxm).
#include <gtest/gtest.h>

#include <vector>

#include "engine/dispatch.hpp"
#include "engine/fusion.hpp"
#include "engine/pipeline.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/serving.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

const double kRatio = (1402.6 / 1979) / (794.5 / 989);

HardwareSpec measured_h100() {
  HardwareSpec hw = published::h100_sxm();
  hw.fp8_gemm_relative_efficiency = kRatio;
  return hw;
}

// One layer of 4096 x 4096 GEMM at 64 tokens and its GELU: the matmul's 2 x 64 x 4096 x 4096 =
// 2.147e9 FLOP run at 1979e12 x 0.882 x 0.5 = 873.0 TFLOP/s (2.460 us; 2.170 us at ratio 1), the
// GELU's 8 FLOP per element at 1979e12 x 0.5 whatever the ratio.
TEST(Fp8GemmRatio, GraphWalkRunsMatrixProductsAtTheGemmPeakAndTheRestAtThePeak) {
  ModelGraph g;
  g.ops.push_back(Op{.name = "proj", .kind = OpKind::matmul, .flops_per_sample = 2.0 * 4096 * 4096,
                     .input_elements_per_sample = 4096, .output_elements_per_sample = 4096,
                     .weight_elements = 4096.0 * 4096});
  g.ops.push_back(Op{.name = "gelu", .kind = OpKind::elementwise, .flops_per_sample = 8.0 * 4096,
                     .input_elements_per_sample = 4096, .output_elements_per_sample = 4096});
  const HardwareSpec plain = published::h100_sxm(), measured = measured_h100();
  const double batch = 64, eta = 0.5;
  const ExecutionBreakdown a = execute_graph(g, plain, Precision::fp8, batch, eta, 0.0);
  const ExecutionBreakdown b = execute_graph(g, measured, Precision::fp8, batch, eta, 0.0);
  const double matmul_flops = 2.0 * 64 * 4096 * 4096, gelu_flops = 8.0 * 64 * 4096;
  EXPECT_NEAR(a.compute_s, matmul_flops / (1979e12 * eta) + gelu_flops / (1979e12 * eta), 1e-18);
  EXPECT_NEAR(b.compute_s, matmul_flops / (1979e12 * kRatio * eta) + gelu_flops / (1979e12 * eta), 1e-18);
  EXPECT_NEAR(matmul_flops / (1979e12 * kRatio * eta) * 1e6, 2.460, 0.001);
  // bf16 does not change; the flattened walk (the sweep's) agrees with the graph walk to the bit.
  EXPECT_DOUBLE_EQ(execute_graph(g, measured, Precision::bf16, batch, eta, 0.0).compute_s,
                   execute_graph(g, plain, Precision::bf16, batch, eta, 0.0).compute_s);
  EXPECT_DOUBLE_EQ(execute_graph(flatten(g), measured, Precision::fp8, batch, eta, LaunchSettings{}).compute_s,
                   b.compute_s);
  // The training step's affine piece at 4,096 samples: the matmul compute-bound at the GEMM peak, the
  // GELU bound by its 2 x 4,096 one-byte elements per sample at 3.35 TB/s.
  const AffineStep piece = training_step_piece(g, measured, Precision::fp8, 4096, eta, 0.0);
  EXPECT_NEAR(piece.slope_s_per_sample,
              kTrainingPassMultiplier * (2.0 * 4096 * 4096 / (1979e12 * kRatio * eta) + 2.0 * 4096 / 3.35e12), 1e-20);
}

class Fp8ServingTest : public ::testing::Test {
 protected:
  const ServingSolver solver;
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);

  std::vector<double> run(const HardwareSpec& hw) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &llama8b;
    set_defaults(solver, in);
    in.values[ServingSolver::precision] = static_cast<double>(index_of(Precision::fp8));
    in.values[ServingSolver::kv_precision] = static_cast<double>(index_of(Precision::fp8));
    in.values[ServingSolver::batch] = 8;
    in.values[ServingSolver::tp] = 1;
    in.values[ServingSolver::prompt_tokens] = 2048;
    in.values[ServingSolver::output_tokens] = 256;
    in.values[ServingSolver::eta] = 0.5;
    in.values[ServingSolver::eta_decode] = 0.5;
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }
};

// Llama 3 8B: 32 layers of 4096^2 (q, o) + 2 x 4096 x 1024 (k, v) + 3 x 4096 x 14336 weights and a
// 4096 x 128,256 head, 7.5047e9 weights, 2 FLOP each per token; attention 4 x 4096 x 32 = 524,288 FLOP
// per query and key. Eight decode tokens at the mean context 2048 + 256 / 2 = 2176: 8 x (15.009e9 +
// 1.141e9) = 129.2 GFLOP at 1979e12 x 0.882 x 0.5 = 148.0 us (130.6 us at ratio 1; the graph's norms and
// element-wise ops add 0.12 %). The step stays bound by its 7.5 GB of fp8 weights (2.2 ms at 3.35
// TB/s), so only its compute part moves (the ITL still grows by the prefill work each step carries).
TEST_F(Fp8ServingTest, DecodeStepComputeRunsAtTheFp8GemmRatio) {
  const std::vector<double> plain = run(published::h100_sxm()), measured = run(measured_h100());
  using M = ServingSolver::Metric;
  const double weights = 32 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336) + 4096.0 * 128256;
  const double flops = 8 * (2 * weights + 4 * 4096.0 * 32 * 2176);
  EXPECT_NEAR(measured[M::decode_compute_s] / (flops / (1979e12 * kRatio * 0.5)), 1.0, 2e-3);
  EXPECT_NEAR(measured[M::decode_compute_s] * 1e6, 148.0, 0.2);
  EXPECT_NEAR(plain[M::decode_compute_s] / measured[M::decode_compute_s], kRatio, 1e-12);
  EXPECT_DOUBLE_EQ(plain[M::decode_step_s], measured[M::decode_step_s]);
}

// One 2048-token prompt is compute-bound: (2048 x 15.009e9 + 2048^2 / 2 x 524,288: a causal kernel's
// lower triangle) = 31.84 TFLOP at 873.0 TFLOP/s = 36.47 ms (32.17 ms at ratio 1): the TTFT grows by
// 1 / 0.882 exactly.
TEST_F(Fp8ServingTest, PrefillRunsAtTheFp8GemmRatio) {
  const std::vector<double> plain = run(published::h100_sxm()), measured = run(measured_h100());
  using M = ServingSolver::Metric;
  const double weights = 32 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336) + 4096.0 * 128256;
  const double flops = 2048 * 2 * weights + 2048.0 * 2048 / 2 * 4 * 4096 * 32;
  EXPECT_NEAR(measured[M::ttft_s] / (flops / (1979e12 * kRatio * 0.5)), 1.0, 2e-3);
  EXPECT_NEAR(measured[M::ttft_s] * 1e3, 36.47, 0.05);
  EXPECT_NEAR(plain[M::ttft_s] / measured[M::ttft_s], kRatio, 1e-12);
}

}  // namespace
}  // namespace dsx
