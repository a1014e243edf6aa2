// The dispatch_tax solver against seeds/000 lab_07 Act 1 ("The Dispatch Tax Audit").
#include "engine/solvers/dispatch_tax.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dispatch.hpp"
#include "engine/model_builders.hpp"

namespace dsx {
namespace {

using P = DispatchTaxSolver::Param;
using M = DispatchTaxSolver::Metric;

ModelGraph build(std::string_view arch, const std::map<std::string, double>& given) {
  return build_architecture(arch, {given.begin(), given.end()});
}

// The catalog's lab07 profiles: N kernels of t on an A100 (fp16 312 TFLOP/s) at eta 0.5.
PreparedModel profile(double kernels, double seconds, double elementwise_per_group) {
  return prepare_model(build("kernel_profile", {{"kernels", kernels},
                                                {"kernel_compute_time", seconds},
                                                {"reference_peak", 312e12},
                                                {"reference_eta", 0.5},
                                                {"elementwise_per_group", elementwise_per_group}}));
}

HardwareSpec a100(double fp16_peak = 312e12) {
  HardwareSpec hw;
  hw.id = "a100";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = fp16_peak;
  hw.memory_bandwidth_bytes_per_s = 2.039e12;
  hw.memory_bytes = 80e9;
  return hw;
}

struct Point {
  double kernel_count = 1000;
  double launch_s = 10e-6;
  bool compiled = false;
  double cut = 0.75;
  bool graphs = false;
  double node_s = kDefaultGraphNodeLatency_s;
};

class DispatchTaxTest : public ::testing::Test {
 protected:
  std::vector<double> run(const HardwareSpec& hw, const PreparedModel& model, const Point& p,
                          PointStatus expect = PointStatus::ok) {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[P::eta] = 0.5;
    in.values[P::batch] = 1;
    in.values[P::kernel_count] = p.kernel_count;
    in.values[P::launch_overhead] = p.launch_s;
    in.values[P::execution] = p.compiled ? 1 : 0;
    in.values[P::fusion_cut] = p.cut;
    in.values[P::cuda_graphs] = p.graphs ? 1 : 0;
    in.values[P::graph_node_latency] = p.node_s;
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, expect);
    return out;
  }

  const DispatchTaxSolver solver;
  const HardwareSpec gpu = a100();
  const PreparedModel kws = profile(1000, 5e-6, 3);
  const PreparedModel resnet = profile(200, 50e-6, 3);
  const PreparedModel gpt2 = profile(20, 500e-6, 1);
};

TEST_F(DispatchTaxTest, DeclaresItsParamsAndMetricsInEnumOrder) {
  EXPECT_EQ(solver.params().size(), static_cast<std::size_t>(P::kParamCount));
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(M::kMetricCount));
  EXPECT_EQ(solver.params()[P::kernel_count].name, "kernel_count");
  EXPECT_EQ(solver.params()[P::fusion_cut].name, "fusion_cut");
  EXPECT_EQ(solver.metrics()[M::gpu_utilization].name, "gpu_utilization");
  EXPECT_EQ(solver.metrics()[M::speedup_vs_eager].name, "speedup_vs_eager");
  EXPECT_DOUBLE_EQ(solver.params()[P::fusion_cut].default_value, 0.75);
}

// The lock: 1,000 kernels x (5 us compute + 10 us launch) -> 5,000 / 15,000 = 33%.
TEST_F(DispatchTaxTest, KwsEagerIsOneThirdUtilized) {
  const auto out = run(gpu, kws, {});
  EXPECT_NEAR(out[M::gpu_utilization], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(out[M::compute_s], 5e-3, 1e-15);
  EXPECT_NEAR(out[M::dispatch_s], 10e-3, 1e-15);
  EXPECT_EQ(out[M::memory_s], 0);
  EXPECT_NEAR(out[M::latency_s], 15e-3, 1e-15);
  EXPECT_NEAR(out[M::compute_per_kernel_s], 5e-6, 1e-18);
  EXPECT_EQ(out[M::model_kernel_count], 1000);
  EXPECT_EQ(out[M::launch_count], 1000);
  EXPECT_NEAR(out[M::gpu_utilization] + out[M::memory_share] + out[M::dispatch_share], 1.0, 1e-12);
}

// KWS compiled ~60-70%: a 75% cut gives 5 / (5 + 2.5) = 67%, a 70% cut 5 / 8 = 62.5%; the seed's
// 30-80% range spans 42% to 71%.
TEST_F(DispatchTaxTest, KwsCompiledLandsInTheSeedsRangeForItsCuts) {
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.75})[M::gpu_utilization], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.7})[M::gpu_utilization], 0.625, 1e-12);
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.3})[M::gpu_utilization], 5.0 / 12.0, 1e-12);
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.8})[M::gpu_utilization], 5.0 / 7.0, 1e-12);
  const auto out = run(gpu, kws, {.compiled = true, .cut = 0.75});
  EXPECT_EQ(out[M::kernels_launched], 250);
  EXPECT_NEAR(out[M::compute_per_kernel_s], 20e-6, 1e-18);  // fusion keeps the work, in fewer kernels
  EXPECT_NEAR(out[M::eager_latency_s], 15e-3, 1e-15);
  EXPECT_NEAR(out[M::speedup_vs_eager], 2.0, 1e-12);
}

// The seed's throughput claims for compiled KWS: "1.32x" and ">30%". With the seed's own 60-70%
// utilization the gain is 1.8-2.1x; 1.32x is a 36% cut (15 / (5 + 6.4) = 1.316), and >30% holds
// from a 35% cut on (15 / (5 + 6.5) = 1.304); the seed's low end, 30%, gives 1.25x.
TEST_F(DispatchTaxTest, ThroughputGainOfTheSeedsClaims) {
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.36})[M::speedup_vs_eager], 1.32, 0.01 * 1.32);
  EXPECT_GT(run(gpu, kws, {.compiled = true, .cut = 0.35})[M::speedup_vs_eager], 1.30);
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.3})[M::speedup_vs_eager], 1.25, 1e-12);
  EXPECT_NEAR(run(gpu, kws, {.compiled = true, .cut = 0.7})[M::speedup_vs_eager], 15.0 / 8.0, 1e-12);
}

// ResNet-50 200 x (50 us + 10 us) -> 83%; GPT-2 layer 20 x (500 us + 10 us) -> 98.0%, compiled at the
// catalog's 50% cut 99.0% (the seed says ~90% -> ~92%: it carries memory time it never states).
TEST_F(DispatchTaxTest, LongerKernelsDiluteTheTax) {
  EXPECT_NEAR(run(gpu, resnet, {.kernel_count = 200})[M::gpu_utilization], 10.0 / 12.0, 1e-12);
  EXPECT_NEAR(run(gpu, gpt2, {.kernel_count = 20})[M::gpu_utilization], 10000.0 / 10200.0, 1e-12);
  EXPECT_NEAR(run(gpu, gpt2, {.kernel_count = 20, .compiled = true, .cut = 0.5})[M::gpu_utilization],
              10000.0 / 10100.0, 1e-12);
  // The memory time the seed's 90% implies: 10 ms / 0.9 - 10.2 ms = 0.91 ms.
  EXPECT_NEAR(dispatch_gpu_utilization(20, 500e-6, 10e-6, 10e-3 / 0.9 - 10.2e-3), 0.9, 1e-12);
}

// "A 2x faster GPU ... would complete the 5 us compute in 2.5 us and then wait 10 us": 20%.
TEST_F(DispatchTaxTest, FasterGpuLowersUtilization) {
  const HardwareSpec fast = a100(624e12);
  const auto out = run(fast, kws, {});
  EXPECT_NEAR(out[M::gpu_utilization], 0.2, 1e-12);
  EXPECT_LT(out[M::gpu_utilization], run(gpu, kws, {})[M::gpu_utilization]);
  EXPECT_LT(out[M::latency_s], run(gpu, kws, {})[M::latency_s]);  // faster, but waiting more of the time
}

// The slider: same total work, more fragmented. Compute stays, dispatch grows with N.
TEST_F(DispatchTaxTest, KernelCountSweepKeepsTheWork) {
  double previous = 1.0;
  for (double n : {10.0, 100.0, 1000.0, 10000.0}) {
    const auto out = run(gpu, kws, {.kernel_count = n});
    EXPECT_NEAR(out[M::compute_s], 5e-3, 1e-15) << n;
    EXPECT_NEAR(out[M::dispatch_s], n * 10e-6, 1e-12) << n;
    EXPECT_NEAR(out[M::gpu_utilization], 5e-3 / (5e-3 + n * 10e-6), 1e-12) << n;
    EXPECT_LT(out[M::gpu_utilization], previous);
    previous = out[M::gpu_utilization];
  }
  // The GPT-2 layer's work split as finely as KWS's is as dispatch-bound: 10 ms / (10 ms + 100 ms).
  EXPECT_NEAR(run(gpu, gpt2, {.kernel_count = 10000})[M::gpu_utilization], 10.0 / 110.0, 1e-12);
}

// "at 5-20 us per kernel launch and 1,000 kernels ... busy for at most 15%": with 5 us kernels the
// busy share spans 50% (5 us launches) to 20% (20 us); the real DS-CNN (5.5 MFLOP, about 35 ns on an
// A100 at eta 0.5) split into 1,000 kernels is busy for well under the seed's "< 1%".
TEST_F(DispatchTaxTest, BusyShareAcrossTheLaunchRangeAndForTheRealDsCnn) {
  EXPECT_NEAR(run(gpu, kws, {.launch_s = 5e-6})[M::gpu_utilization], 0.5, 1e-12);
  EXPECT_NEAR(run(gpu, kws, {.launch_s = 20e-6})[M::gpu_utilization], 0.2, 1e-12);
  const PreparedModel ds_cnn = prepare_model(build("ds_cnn", {}));
  const auto out = run(gpu, ds_cnn, {});
  EXPECT_NEAR(out[M::compute_s], ds_cnn.eager.total_flops_per_sample() / (312e12 * 0.5), 1e-15);
  EXPECT_LT(out[M::compute_s], 50e-9);
  EXPECT_LT(out[M::gpu_utilization], 1e-5);
  EXPECT_EQ(out[M::model_kernel_count], ds_cnn.eager.total_kernels());
}

TEST_F(DispatchTaxTest, CudaGraphsFlattenTheCurve) {
  const auto out = run(gpu, kws, {.kernel_count = 10000, .graphs = true, .node_s = 0.6e-6});
  EXPECT_EQ(out[M::launch_count], 1);
  EXPECT_NEAR(out[M::dispatch_s], 10e-6 + 10000 * 0.6e-6, 1e-12);
  EXPECT_NEAR(out[M::gpu_utilization], 5e-3 / (5e-3 + 6.01e-3), 1e-12);
  EXPECT_NEAR(out[M::eager_latency_s], 5e-3 + 0.1, 1e-12);  // the baseline launches every kernel
}

TEST_F(DispatchTaxTest, MemoryTimeComesFromTheModelsRoofline) {
  // 1,000 kernels of 5 us, each moving 40 MB at fp16 on 2.039 TB/s: 19.6 us of memory per kernel,
  // of which 14.6 us is not hidden behind its 5 us of compute.
  const PreparedModel heavy = prepare_model(build("kernel_profile", {{"kernels", 1000},
                                                                     {"kernel_compute_time", 5e-6},
                                                                     {"reference_peak", 312e12},
                                                                     {"reference_eta", 0.5},
                                                                     {"elementwise_per_group", 3},
                                                                     {"bytes_per_kernel", 40e6}}));
  const auto out = run(gpu, heavy, {});
  EXPECT_NEAR(out[M::memory_s], 1000 * (40e6 / 2.039e12 - 5e-6), 1e-12);
  EXPECT_NEAR(out[M::gpu_utilization], 5e-3 / out[M::latency_s], 1e-12);
  EXPECT_NEAR(out[M::gpu_utilization],
              dispatch_gpu_utilization(1000, 5e-6, 10e-6, out[M::memory_s]), 1e-12);  // the seed's formula
}

TEST_F(DispatchTaxTest, UnsupportedPrecisionIsInfeasible) {
  PointInputs in;
  in.hardware = &gpu;
  in.model = &kws;
  in.values[P::precision] = static_cast<double>(index_of(Precision::int8));
  in.values[P::eta] = 0.5;
  in.values[P::batch] = 1;
  in.values[P::kernel_count] = 1000;
  std::vector<double> out(solver.metrics().size());
  const PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(solver.reasons()[r.reason], "precision not supported by the hardware");
  EXPECT_TRUE(std::isnan(out[M::latency_s]));
}

}  // namespace
}  // namespace dsx
