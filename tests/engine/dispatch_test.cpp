#include "engine/dispatch.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

// seeds/000 lab_07 Act 1: 1,000 kernels x (5 us compute + 10 us launch) -> 5,000 / 15,000 = 33%.
TEST(Dispatch, KwsSeedUtilizationIsOneThird) {
  EXPECT_DOUBLE_EQ(dispatch_gpu_utilization(1000, 5e-6, 10e-6, 0.0), 1.0 / 3.0);
}

// seeds/000: "A 2x faster GPU ... would complete the 5 us compute in 2.5 us and then wait 10 us".
TEST(Dispatch, FasterGpuLowersUtilizationWhenDispatchBound) {
  const double slow = dispatch_gpu_utilization(1000, 5e-6, 10e-6, 0.0);
  const double fast = dispatch_gpu_utilization(1000, 2.5e-6, 10e-6, 0.0);
  EXPECT_DOUBLE_EQ(fast, 2.5 / 12.5);
  EXPECT_LT(fast, slow);
}

TEST(Dispatch, MemoryTimeEntersTheDenominator) {
  // GPT-2 layer profile: 20 x 500 us with 10 us launch -> 10,000 / 10,200 without memory time.
  EXPECT_DOUBLE_EQ(dispatch_gpu_utilization(20, 500e-6, 10e-6, 0.0), 10000.0 / 10200.0);
  EXPECT_DOUBLE_EQ(dispatch_gpu_utilization(20, 500e-6, 10e-6, 1e-3), 10000.0 / 11200.0);
}

HardwareSpec test_device() {
  HardwareSpec hw;
  hw.id = "dev";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 100e12;
  hw.memory_bandwidth_bytes_per_s = 1e12;
  return hw;
}

TEST(Dispatch, GraphBreakdownMatchesTheClosedForm) {
  // 1,000 identical compute-bound kernels of 5 us at eta 0.5 on a 100 TFLOP/s device.
  ModelGraph g;
  g.ops.push_back(Op{.name = "k", .kind = OpKind::matmul, .flops_per_sample = 5e-6 * 100e12 * 0.5,
                     .kernels = 1, .repeat = 1000});
  const ExecutionBreakdown b = execute_graph(g, test_device(), Precision::fp16, 1, 0.5, 10e-6);
  EXPECT_DOUBLE_EQ(b.kernel_count, 1000);
  EXPECT_NEAR(b.compute_s, 5e-3, 1e-15);
  EXPECT_DOUBLE_EQ(b.memory_s, 0);
  EXPECT_NEAR(b.dispatch_s, 10e-3, 1e-15);
  EXPECT_NEAR(b.gpu_utilization(), dispatch_gpu_utilization(1000, 5e-6, 10e-6, 0), 1e-12);
  EXPECT_NEAR(b.dispatch_share(), 2.0 / 3.0, 1e-12);
}

TEST(Dispatch, OnlyMemoryTimeBeyondComputeIsExposed) {
  ModelGraph g;
  // 1 MFLOP over 4 MB at fp16: compute 1e6/1e14 = 10 ns, memory 4e6/1e12 = 4 us.
  g.ops.push_back(Op{.name = "relu", .kind = OpKind::elementwise, .flops_per_sample = 1e6,
                     .input_elements_per_sample = 1e6, .output_elements_per_sample = 1e6});
  const ExecutionBreakdown b = execute_graph(g, test_device(), Precision::fp16, 1, 1.0, 0.0);
  EXPECT_DOUBLE_EQ(b.compute_s, 1e-8);
  EXPECT_DOUBLE_EQ(b.memory_s, 4e-6 - 1e-8);
  EXPECT_DOUBLE_EQ(b.latency_s(), 4e-6);
  EXPECT_EQ(b.memory_bound_ops, 1);
}

TEST(Dispatch, MemoryEfficiencyLowersOnlyTheMemoryRoof) {
  ModelGraph g;
  // The op above at 80 % of the bandwidth (the A100 80GB's STREAM copy, 1.61 of 2.04 TB/s):
  // memory 4e6 / (0.8 x 1e12) = 5 us, compute still 10 ns.
  g.ops.push_back(Op{.name = "relu", .kind = OpKind::elementwise, .flops_per_sample = 1e6,
                     .input_elements_per_sample = 1e6, .output_elements_per_sample = 1e6});
  // A compute-bound op (1 GFLOP over 4 MB: 10 us against 5 us of memory) keeps its time.
  g.ops.push_back(Op{.name = "mm", .kind = OpKind::matmul, .flops_per_sample = 1e9,
                     .input_elements_per_sample = 1e6, .output_elements_per_sample = 1e6});
  const ExecutionBreakdown b = execute_graph(g, test_device(), Precision::fp16, 1, RoofEfficiencies{.memory = 0.8}, LaunchSettings{});
  EXPECT_DOUBLE_EQ(b.compute_s, 1e-8 + 1e-5);
  EXPECT_NEAR(b.memory_s, 5e-6 - 1e-8, 1e-18);
  EXPECT_NEAR(b.latency_s(), 5e-6 + 1e-5, 1e-18);
  EXPECT_EQ(b.memory_bound_ops, 1);
  EXPECT_EQ(b.compute_bound_ops, 1);
  // 1 is the ideal roofline, bit for bit, and the flat walk agrees.
  const ExecutionBreakdown ideal = execute_graph(g, test_device(), Precision::fp16, 1, 1.0, LaunchSettings{});
  const ExecutionBreakdown one = execute_graph(g, test_device(), Precision::fp16, 1, RoofEfficiencies{}, LaunchSettings{});
  EXPECT_EQ(ideal.memory_s, one.memory_s);
  const ExecutionBreakdown flat = execute_graph(flatten(g), test_device(), Precision::fp16, 1, RoofEfficiencies{.memory = 0.8}, LaunchSettings{});
  EXPECT_EQ(flat.memory_s, b.memory_s);
}

// CUDA graphs: one CPU-side launch per replayed pass plus a device-side latency per kernel node.
TEST(Dispatch, CudaGraphsPayOneLaunchPlusAPerNodeLatency) {
  const LaunchSettings eager{.launch_overhead_s = 10e-6};
  EXPECT_DOUBLE_EQ(launch_count(1000, eager), 1000);
  EXPECT_DOUBLE_EQ(dispatch_time_s(1000, eager), 1000 * 10e-6);
  const LaunchSettings graphs{.launch_overhead_s = 10e-6, .cuda_graphs = true, .graph_node_latency_s = 0.6e-6};
  EXPECT_DOUBLE_EQ(launch_count(1000, graphs), 1);
  EXPECT_DOUBLE_EQ(dispatch_time_s(1000, graphs), 10e-6 + 1000 * 0.6e-6);
  EXPECT_DOUBLE_EQ(launch_count(0, graphs), 0);
  EXPECT_DOUBLE_EQ(LaunchSettings{}.graph_node_latency_s, kDefaultGraphNodeLatency_s);
}

TEST(Dispatch, GraphBreakdownUsesTheLaunchSettings) {
  // The KWS profile as 1,000 kernels of 5 us, replayed as one graph: 5 ms / (5 ms + 10 us + 0.6 ms).
  ModelGraph g;
  g.ops.push_back(Op{.name = "k", .kind = OpKind::matmul, .flops_per_sample = 5e-6 * 100e12 * 0.5,
                     .kernels = 1, .repeat = 1000});
  const LaunchSettings graphs{.launch_overhead_s = 10e-6, .cuda_graphs = true, .graph_node_latency_s = 0.6e-6};
  const ExecutionBreakdown b = execute_graph(g, test_device(), Precision::fp16, 1, 0.5, graphs);
  EXPECT_DOUBLE_EQ(b.kernel_count, 1000);
  EXPECT_DOUBLE_EQ(b.launches, 1);
  EXPECT_NEAR(b.dispatch_s, 10e-6 + 0.6e-3, 1e-15);
  EXPECT_NEAR(b.gpu_utilization(), 5e-3 / (5e-3 + 10e-6 + 0.6e-3), 1e-12);
  const ExecutionBreakdown plain = execute_graph(g, test_device(), Precision::fp16, 1, 0.5, 10e-6);
  EXPECT_DOUBLE_EQ(plain.launches, 1000);
}

}  // namespace
}  // namespace dsx
