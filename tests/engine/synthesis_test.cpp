// The synthesis solver: the inverse roofline of a decode step and of a forward pass, and its
// agreement with the serving and inference solvers' own FLOPs and bytes.
#include "engine/solvers/synthesis.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/inference.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using S = SynthesisSolver;

class SynthesisTest : public ::testing::Test {
 protected:
  const SynthesisSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);

  PointInputs decode(const PreparedModel& model, double batch, double target) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[S::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[S::batch] = batch;
    in.values[S::context_tokens] = 2048;
    in.values[S::target_latency] = target;
    return in;
  }
  std::vector<double> run(const PointInputs& in, PointStatus expected = PointStatus::ok) const {
    std::vector<double> out(S::kMetricCount);
    EXPECT_EQ(solver.evaluate(in, out).status, expected);
    return out;
  }
};

TEST_F(SynthesisTest, Llama8bDecodeAt20msPerToken) {
  // Batch 1 at 2,048 tokens of context: the step streams the fp16 weights a token reads (8.03e9
  // parameters less the 128,256 x 4,096 embedding table, of which it reads one row: 2 x 7.50e9 B) and
  // the KV cache (131,072 B/token x 2,048 = 268 MB), so 20 ms per token needs about 15.3 GB / 0.02 s =
  // 764 GB/s of bandwidth, under a quarter of an H100's 3.35 TB/s, and about 2 x 8e9 FLOPs / 0.02 s =
  // 0.8 TFLOP/s. Memory holds every weight: 2 x 8.03e9 B + 268 MB.
  const auto m = run(decode(llama8b, 1, 20e-3));
  const double weights = 2 * llama8b.eager.parameter_count;
  const double read = 2 * (llama8b.eager.parameter_count - 128256.0 * 4096);
  EXPECT_NEAR(m[S::required_bandwidth_bytes_per_s] / ((read + 131072.0 * 2048) / 20e-3), 1, 0.01);
  EXPECT_NEAR(m[S::required_flops_per_s] / (2 * llama8b.eager.parameter_count / 20e-3), 1, 0.1);
  EXPECT_DOUBLE_EQ(m[S::required_memory_bytes], weights + 131072.0 * 2048);
  EXPECT_NEAR(m[S::bandwidth_headroom], 3.35e12 / m[S::required_bandwidth_bytes_per_s], 1e-9);
  EXPECT_GT(m[S::bandwidth_headroom], 4);
  EXPECT_EQ(m[S::meets_target], 1.0);
  // The serving solver's decode step on the same H100 takes latency_s (one GPU, eta 1).
  ServingDevice d;
  d.peak_flops_per_s = hw.peak(Precision::fp16);
  d.memory_bandwidth_bytes_per_s = hw.memory_bandwidth_bytes_per_s;
  d.link_bytes_per_s = hw.accelerator_link_bandwidth_bytes_per_s;
  const PhaseTime t = decode_step_time(llama8b.serving_shape, d, 1, 2048, 1.0);
  EXPECT_DOUBLE_EQ(m[S::latency_s], t.total_s());
  EXPECT_DOUBLE_EQ(m[S::latency_s] / 20e-3, 1 / m[S::bandwidth_headroom]);
}

TEST_F(SynthesisTest, TooTightATargetOrTooLargeAModelFails) {
  // 2 ms per token needs 8.2 TB/s: no H100.
  const auto fast = run(decode(llama8b, 1, 2e-3));
  EXPECT_LT(fast[S::bandwidth_headroom], 1);
  EXPECT_EQ(fast[S::meets_target], 0.0);
  // Llama-3-70B in fp16 (141 GB) does not fit 80 GiB, however slow the target.
  const auto big = run(decode(llama70b, 1, 10));
  EXPECT_LT(big[S::memory_headroom], 1);
  EXPECT_GT(big[S::bandwidth_headroom], 1);
  EXPECT_EQ(big[S::meets_target], 0.0);
}

TEST_F(SynthesisTest, EtaRaisesTheRequiredPeak) {
  PointInputs in = decode(llama8b, 64, 20e-3);
  const auto ideal = run(in);
  in.values[S::eta] = 0.25;
  in.values[S::memory_efficiency] = 0.8;
  const auto real = run(in);
  EXPECT_NEAR(real[S::required_flops_per_s], 4 * ideal[S::required_flops_per_s], 1e-3);
  EXPECT_NEAR(real[S::required_bandwidth_bytes_per_s], ideal[S::required_bandwidth_bytes_per_s] / 0.8, 1e-3);
  EXPECT_DOUBLE_EQ(real[S::flops], ideal[S::flops]);
}

TEST_F(SynthesisTest, StepUsesTheInferenceSolversTotals) {
  const PreparedModel resnet = prepare_model(build_architecture("resnet", {{"blocks1", 3}, {"blocks2", 4}, {"blocks3", 6}, {"blocks4", 3}}));
  PointInputs in;
  in.hardware = &hw;
  in.model = &resnet;
  set_defaults(solver, in);
  in.values[S::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[S::phase] = S::step;
  in.values[S::batch] = 32;
  in.values[S::target_latency] = 10e-3;
  const auto m = run(in);

  const InferenceSolver inference;
  PointInputs inf;
  inf.hardware = &hw;
  inf.model = &resnet;
  set_defaults(inference, inf);
  inf.values[InferenceSolver::precision] = static_cast<double>(index_of(Precision::fp16));
  inf.values[InferenceSolver::batch] = 32;
  inf.values[InferenceSolver::eta] = 1;
  std::vector<double> ref(inference.metrics().size());
  ASSERT_EQ(inference.evaluate(inf, ref).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(m[S::flops], ref[InferenceSolver::flops]);
  EXPECT_DOUBLE_EQ(m[S::bytes_moved], ref[InferenceSolver::bytes_moved]);
  EXPECT_DOUBLE_EQ(m[S::required_memory_bytes], ref[InferenceSolver::memory_footprint_bytes]);
  EXPECT_DOUBLE_EQ(m[S::required_flops_per_s], m[S::flops] / 10e-3);
  // The per-op roofline of the inference solver is never faster than the whole-pass one.
  EXPECT_GE(ref[InferenceSolver::latency_s], m[S::latency_s]);
}

TEST_F(SynthesisTest, DecodeNeedsATransformer) {
  const PreparedModel resnet = prepare_model(build_architecture("resnet", {{"blocks1", 3}, {"blocks2", 4}, {"blocks3", 6}, {"blocks4", 3}}));
  PointInputs in = decode(llama8b, 1, 1);
  in.model = &resnet;
  std::vector<double> out(S::kMetricCount);
  EXPECT_EQ(solver.evaluate(in, out).reason, S::not_a_transformer);
}

// The rest of the declaration checks run over every registered solver (solver_declarations_test.cpp).
TEST(SynthesisDeclarations, TablesMatchTheIndexEnums) {
  const SynthesisSolver solver;
  EXPECT_EQ(solver.params().size(), static_cast<std::size_t>(SynthesisSolver::kParamCount));
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(SynthesisSolver::kMetricCount));
}

}  // namespace
}  // namespace dsx
