// The inference solver's compiled mode as a parameterised transformation: fusion policy, CUDA
// graphs, compile time and break-even (seeds/000 lab_07 Acts 1 and 2).
#include "engine/solvers/inference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dispatch.hpp"
#include "engine/model_builders.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = InferenceSolver::Param;
using M = InferenceSolver::Metric;

ModelGraph build(std::string_view arch, const std::map<std::string, double>& given) {
  return build_architecture(arch, {given.begin(), given.end()});
}

constexpr double kElements = 8.0 * 1024 * 768;
constexpr double kTensorBytes = 2 * kElements;  // fp16

HardwareSpec a100_with_bandwidth(double bandwidth) {
  HardwareSpec hw;
  hw.id = "a100";
  hw.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  hw.memory_bandwidth_bytes_per_s = bandwidth;
  hw.memory_bytes = 80e9;
  hw.tdp_w = 400;
  hw.idle_power_fraction = 0.3;
  return hw;
}

std::size_t choice_index(const ParamSpec& spec, std::string_view name) {
  for (std::size_t i = 0; i < spec.choices.size(); ++i) {
    if (spec.choices[i] == name) return i;
  }
  throw std::logic_error("no such choice");
}

class InferenceTest : public ::testing::Test {
 protected:
  // A point with every parameter at its declared default, then the given overrides.
  PointInputs point(const HardwareSpec& hw, const PreparedModel& model) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[P::launch_overhead] = 10e-6;
    in.values[P::eta] = 0.5;
    return in;
  }
  double choice(P param, std::string_view name) const {
    return static_cast<double>(choice_index(solver.params()[param], name));
  }
  std::vector<double> run(const PointInputs& in) const {
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }

  const InferenceSolver solver;
  const HardwareSpec gpu = a100_with_bandwidth(2.0e12);
  const PreparedModel chain = prepare_model(build("pointwise_chain", {{"elements", kElements}, {"row_length", 768}}));
  const PreparedModel relu = prepare_model(
      build("pointwise_chain", {{"elements", kElements}, {"row_length", 768}, {"layernorm", 0}, {"dropout", 0}}));
  const PreparedModel kws = prepare_model(build("kernel_profile", {{"kernels", 1000},
                                                                  {"kernel_compute_time", 5e-6},
                                                                  {"reference_peak", 312e12},
                                                                  {"reference_eta", 0.5},
                                                                  {"elementwise_per_group", 3}}));
};

TEST_F(InferenceTest, NewParametersHaveDocumentedDefaults) {
  ASSERT_EQ(solver.params().size(), static_cast<std::size_t>(P::kParamCount));
  ASSERT_EQ(solver.metrics().size(), static_cast<std::size_t>(M::kMetricCount));
  const ParamSpec& fusion = solver.params()[P::fusion];
  EXPECT_EQ(fusion.name, "fusion");
  ASSERT_TRUE(fusion.has_default);
  EXPECT_EQ(fusion.choices[static_cast<std::size_t>(fusion.default_value)], "elementwise_norm");
  EXPECT_EQ(solver.params()[P::cuda_graphs].choices[0], "off");
  EXPECT_EQ(solver.params()[P::cuda_graphs].default_value, 0);
  EXPECT_DOUBLE_EQ(solver.params()[P::graph_node_latency].default_value, kDefaultGraphNodeLatency_s);
  EXPECT_EQ(solver.params()[P::compile_time].default_value, 0);
  for (P p : {P::fusion, P::cuda_graphs, P::graph_node_latency, P::compile_time}) {
    EXPECT_TRUE(solver.params()[p].has_default) << solver.params()[p].name;
    EXPECT_FALSE(solver.params()[p].description.empty());
  }
  // A zero-filled parameter vector reads as the defaults (fusion's default is choice 0).
  EXPECT_EQ(fusion.default_value, 0);
}

// The ReLU of 8 x 1024 x 768 fp16 elements reads and writes 2 x 12.58 MB: 12.58 us at 2.0 TB/s, and
// at memory_efficiency 0.8 (the A100 80GB's STREAM copy, 1.61 of 2.04 TB/s) 15.73 us; the launch
// (10 us) and the compute stay as they were, the eager baseline moves with the pass.
TEST_F(InferenceTest, MemoryEfficiencyScalesTheMemoryRoof) {
  const ParamSpec& spec = solver.params()[P::memory_efficiency];
  EXPECT_EQ(spec.name, "memory_efficiency");
  ASSERT_TRUE(spec.has_default);
  EXPECT_EQ(spec.default_value, 1);
  PointInputs in = point(gpu, relu);
  const auto ideal = run(in);
  in.values[P::memory_efficiency] = 0.8;
  const auto slower = run(in);
  const double busy_ideal = 2 * kTensorBytes / 2.0e12;
  const double busy_slower = 2 * kTensorBytes / (0.8 * 2.0e12);
  EXPECT_NEAR(ideal[M::compute_s] + ideal[M::memory_s], busy_ideal, 1e-12);
  EXPECT_NEAR(slower[M::compute_s] + slower[M::memory_s], busy_slower, 1e-12);
  EXPECT_NEAR(busy_ideal, 12.58e-6, 0.01e-6);
  EXPECT_NEAR(busy_slower, 15.73e-6, 0.01e-6);
  EXPECT_DOUBLE_EQ(slower[M::compute_s], ideal[M::compute_s]);
  EXPECT_DOUBLE_EQ(slower[M::dispatch_s], ideal[M::dispatch_s]);
  EXPECT_NEAR(slower[M::latency_s], busy_slower + 10e-6, 1e-12);
  EXPECT_DOUBLE_EQ(slower[M::eager_latency_s], slower[M::latency_s]);
}

// seeds/000 lab_07 Act 1 with the defaults: the quickstart's numbers are unchanged.
TEST_F(InferenceTest, DefaultsKeepTheKwsProfileNumbers) {
  PointInputs in = point(gpu, kws);
  EXPECT_NEAR(run(in)[M::gpu_utilization], 1.0 / 3.0, 1e-12);
  in.values[P::execution] = 1;
  const auto compiled = run(in);
  EXPECT_NEAR(compiled[M::gpu_utilization], 2.0 / 3.0, 1e-12);
  EXPECT_EQ(compiled[M::kernel_count], 250);
  EXPECT_NEAR(compiled[M::speedup_vs_eager], 2.0, 1e-12);
  EXPECT_EQ(compiled[M::compile_time_s], 0);
  EXPECT_EQ(compiled[M::breakeven_inferences], 0);
}

// A part without a published TDP: the latency and roofline metrics are computed as usual, the
// power and energy ones are NaN (unknown), and the point stays feasible.
TEST_F(InferenceTest, UnknownTdpLeavesPowerAndEnergyEmpty) {
  HardwareSpec no_tdp = gpu;
  no_tdp.tdp_w = 0;
  const auto known = run(point(gpu, relu));
  const auto unknown = run(point(no_tdp, relu));
  EXPECT_DOUBLE_EQ(unknown[M::latency_s], known[M::latency_s]);
  EXPECT_GT(known[M::power_w], 0);
  EXPECT_TRUE(std::isnan(unknown[M::power_w]));
  EXPECT_TRUE(std::isnan(unknown[M::energy_j]));
  EXPECT_TRUE(std::isnan(unknown[M::energy_per_sample_j]));
}

// seeds/000 lab_07 Act 2, Panel A on the catalog's chain at 2.0 TB/s, 10 us launches, fp16.
TEST_F(InferenceTest, FusionPoliciesOnTheLayerNormDropoutReluChain) {
  PointInputs in = point(gpu, chain);
  const auto eager = run(in);
  EXPECT_EQ(eager[M::kernel_count], 3);
  EXPECT_NEAR(eager[M::bytes_moved], 6 * kTensorBytes, 2 * 768 * 2 + 1);  // + the LayerNorm's affine
  EXPECT_NEAR(eager[M::arithmetic_intensity_flop_per_byte], 1.0, 1e-4);
  EXPECT_EQ(eager[M::speedup_vs_eager], 1);

  in.values[P::execution] = 1;
  in.values[P::fusion] = choice(P::fusion, "none");
  const auto none = run(in);
  EXPECT_EQ(none[M::kernel_count], 3);
  EXPECT_DOUBLE_EQ(none[M::latency_s], eager[M::latency_s]);

  in.values[P::fusion] = choice(P::fusion, "elementwise");
  const auto elementwise = run(in);
  EXPECT_EQ(elementwise[M::kernel_count], 2);
  EXPECT_NEAR(elementwise[M::bytes_moved], 4 * kTensorBytes, 2 * 768 * 2 + 1);

  in.values[P::fusion] = choice(P::fusion, "elementwise_norm");
  const auto fused = run(in);
  EXPECT_EQ(fused[M::kernel_count], 1);
  EXPECT_NEAR(fused[M::bytes_moved], 2 * kTensorBytes, 2 * 768 * 2 + 1);
  EXPECT_NEAR(fused[M::arithmetic_intensity_flop_per_byte], 3.0, 1e-3);
  EXPECT_NEAR(eager[M::bytes_moved] / fused[M::bytes_moved], 3.0, 1e-3);  // "~3x HBM traffic reduction"
  // The seed's "5x wall-clock" is out of reach: traffic and launches both fall 3x, so does the time.
  EXPECT_NEAR(fused[M::speedup_vs_eager], 3.0, 1e-3);
  EXPECT_NEAR(fused[M::eager_latency_s], eager[M::latency_s], 1e-15);
}

// The roofline metrics: ridge 312 / 2.0 = 156 FLOP/byte; a memory-bound op's attainable rate is
// intensity x bandwidth; ReLU alone reaches well under 1% of peak (seeds/000: "less than 1%").
TEST_F(InferenceTest, RooflineMetricsOfAnElementwiseOp) {
  const auto out = run(point(gpu, relu));
  EXPECT_DOUBLE_EQ(out[M::ridge_point_flop_per_byte], 156.0);
  EXPECT_DOUBLE_EQ(out[M::arithmetic_intensity_flop_per_byte], 0.25);
  EXPECT_NEAR(out[M::attainable_flops_per_s], 0.25 * 2.0e12, 1e-3);
  const double latency = 10e-6 + 2 * kTensorBytes / 2.0e12;
  EXPECT_NEAR(out[M::latency_s], latency, 1e-15);
  EXPECT_NEAR(out[M::peak_flops_fraction], kElements / latency / 312e12, 1e-12);
  EXPECT_LT(out[M::peak_flops_fraction], 0.01);
}

// CUDA graphs on the KWS profile: one 10 us launch plus 1,000 x 0.6 us of node latency.
TEST_F(InferenceTest, CudaGraphsReplaceLaunchesByOneReplay) {
  PointInputs in = point(gpu, kws);
  in.values[P::cuda_graphs] = choice(P::cuda_graphs, "on");
  const auto out = run(in);
  EXPECT_EQ(out[M::launch_count], 1);
  EXPECT_EQ(out[M::kernel_count], 1000);
  EXPECT_NEAR(out[M::dispatch_s], 10e-6 + 1000 * kDefaultGraphNodeLatency_s, 1e-12);
  EXPECT_NEAR(out[M::gpu_utilization], 5e-3 / (5e-3 + 10e-6 + 0.6e-3), 1e-12);
  EXPECT_NEAR(out[M::eager_latency_s], 15e-3, 1e-12);
  EXPECT_EQ(out[M::compile_time_s], 0);  // eager execution compiles nothing
  in.values[P::execution] = 1;          // compiled + graphs: 250 fused kernels in one replay
  EXPECT_NEAR(run(in)[M::dispatch_s], 10e-6 + 250 * kDefaultGraphNodeLatency_s, 1e-12);
}

// The break-even of seeds/000 Act 2, through the solver: compile_time / (eager - compiled latency).
TEST_F(InferenceTest, BreakEvenUsesTheCompileTime) {
  PointInputs in = point(gpu, kws);
  in.values[P::execution] = 1;
  in.values[P::compile_time] = 10.0;  // the seed's KWS compile time
  const auto out = run(in);
  EXPECT_EQ(out[M::compile_time_s], 10.0);
  EXPECT_NEAR(out[M::breakeven_inferences], 10.0 / (15e-3 - 7.5e-3), 1e-6);  // 1,333 passes
  in.values[P::execution] = 0;
  EXPECT_EQ(run(in)[M::breakeven_inferences], 0);
  // Nothing to gain: a compiled pass with no fusion and no graphs never pays back.
  in.values[P::execution] = 1;
  in.values[P::fusion] = choice(P::fusion, "none");
  EXPECT_TRUE(std::isinf(run(in)[M::breakeven_inferences]));
}

// HBM bandwidth 1.0 / 2.0 / 3.35 TB/s: the seed says the fused case "benefits less"; in fact both
// variants stay memory-bound and keep the same 3x ratio, and the ridge point falls as bandwidth rises.
TEST_F(InferenceTest, BandwidthScalesBothVariantsAlike) {
  for (double bw : {1.0e12, 2.0e12, 3.35e12}) {
    const HardwareSpec hw = a100_with_bandwidth(bw);
    PointInputs in = point(hw, chain);
    in.values[P::execution] = 1;
    const auto out = run(in);
    EXPECT_NEAR(out[M::speedup_vs_eager], 3.0, 1e-3) << bw;
    EXPECT_NEAR(out[M::ridge_point_flop_per_byte], 312e12 / bw, 1e-9) << bw;
    EXPECT_LT(out[M::arithmetic_intensity_flop_per_byte], out[M::ridge_point_flop_per_byte]) << bw;
  }
}

}  // namespace
}  // namespace dsx
