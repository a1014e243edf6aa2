// The data-pipeline formulas of engine/pipeline.hpp against seeds/001 ("Starving the GPU") and
// against brute force for the crossover batch.
#include "engine/pipeline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "engine/dispatch.hpp"
#include "engine/model_builders.hpp"

namespace dsx {
namespace {

ModelGraph resnet50() {
  // blocks 3,4,6,3; base width 64; 224 x 224; 1,000 classes (He et al. 2016, Table 1).
  return build_architecture(
      "resnet", {{"blocks1", 3}, {"blocks2", 4}, {"blocks3", 6}, {"blocks4", 3}, {"base_width", 64}, {"image_size", 224}, {"classes", 1000}});
}

HardwareSpec a100() {
  HardwareSpec hw;
  hw.id = "a100";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  hw.memory_bandwidth_bytes_per_s = 2.039e12;
  hw.memory_bytes = 80.0 * kGibi;
  hw.host_link_bandwidth_bytes_per_s = 32e9;
  return hw;
}

// seeds/001 section 4: "8 workers x 250 MB/s each" = "~2 GB/s".
TEST(Pipeline, EightWorkersAt250MBpsAre2GBps) { EXPECT_DOUBLE_EQ(cpu_throughput_bytes_per_s(8, 250e6), 2e9); }

// seeds/001 section 4: a batch of 256 JPEGs of 500 KB through 2 GB/s takes 64 ms, i.e. 4,000 images/s.
TEST(Pipeline, TransformTimeIsBatchTimesSampleOverThroughput) {
  EXPECT_DOUBLE_EQ(stage_time_s(256, 500e3, 2e9), 0.064);
  EXPECT_DOUBLE_EQ(256 / stage_time_s(256, 500e3, 2e9), 4000.0);
  // Exercise 2: samples ten times larger take ten times longer.
  EXPECT_DOUBLE_EQ(stage_time_s(256, 5e6, 2e9), 10 * stage_time_s(256, 500e3, 2e9));
}

// seeds/001 "Self-check": a 20 ms step and 35 ms of preprocessing -> 20 / 35 = 57%.
TEST(Pipeline, SelfCheckUtilizationIs57Percent) {
  EXPECT_DOUBLE_EQ(accelerator_utilization(0.020, 0.035), 20.0 / 35.0);
  EXPECT_NEAR(accelerator_utilization(0.020, 0.035), 0.57, 0.005);
  EXPECT_DOUBLE_EQ(accelerator_utilization(0.035, 0.020), 1.0);
}

// seeds/001 Key Insight: "5,300+ images per second" on the GPU and "~850" from 8 CPU workers. With the
// seed's own 8 x 250 MB/s and 500 KB the CPU side delivers 4,000 images/s, so the pipeline runs at
// 4,000 and the GPU is 75% busy; ~850 needs 425 MB/s in all, 53.125 MB/s per worker (16% busy).
TEST(Pipeline, SeedStoryArithmetic) {
  const double batch = 256;
  const double step = batch / 5300.0;
  const double transform = stage_time_s(batch, 500e3, cpu_throughput_bytes_per_s(8, 250e6));
  EXPECT_NEAR(batch / std::max(step, transform), 4000.0, 1e-9);
  EXPECT_NEAR(accelerator_utilization(step, transform), 4000.0 / 5300.0, 1e-12);
  const double per_worker_for_850 = 850.0 * 500e3 / 8;
  EXPECT_DOUBLE_EQ(per_worker_for_850, 53.125e6);
  const double slow = stage_time_s(batch, 500e3, cpu_throughput_bytes_per_s(8, per_worker_for_850));
  EXPECT_NEAR(batch / slow, 850.0, 1e-9);
  EXPECT_NEAR(accelerator_utilization(step, slow), 850.0 / 5300.0, 1e-12);
}

// seeds/001 section 3: demand = batch x sample size / step time; at 5,300 images/s of 500 KB, 2.65 GB/s.
TEST(Pipeline, StorageDemand) {
  EXPECT_NEAR(storage_demand_bytes_per_s(256, 500e3, 256 / 5300.0), 2.65e9, 1e-3);
}

TEST(Pipeline, WorkersNeededRoundsUpButNotPastAWholeNumber) {
  // Exactly 8 workers of 250 MB/s keep up with a 64 ms step at batch 256 of 500 KB.
  EXPECT_EQ(workers_needed(256, 500e3, 0.064, 250e6), 8);
  EXPECT_EQ(workers_needed(256, 500e3, 0.0639, 250e6), 9);
  // The seed's 5,300 images/s needs 10.6 -> 11 workers of 250 MB/s.
  EXPECT_EQ(workers_needed(256, 500e3, 256 / 5300.0, 250e6), 11);
  EXPECT_EQ(workers_needed(1, 1, 1, 1e9), 1);
}

TEST(Pipeline, AffineCrossover) {
  // 5 ms fixed + 0.3 ms per sample against 0.55 ms per sample: 5 / 0.25 = 20 samples.
  EXPECT_NEAR(crossover_batch({.intercept_s = 5e-3, .slope_s_per_sample = 0.3e-3}, 0.55e-3), 20.0, 1e-12);
  // The data side never catches up with a step that grows faster per sample.
  EXPECT_TRUE(std::isnan(crossover_batch({.intercept_s = 5e-3, .slope_s_per_sample = 0.3e-3}, 0.3e-3)));
  // A step with no fixed part is overtaken at every batch.
  EXPECT_EQ(crossover_batch({.intercept_s = 0, .slope_s_per_sample = 0.3e-3}, 0.4e-3), 0.0);
}

TEST(Pipeline, TrainingStepIsThreeForwardPasses) {
  const ModelGraph g = resnet50();
  const HardwareSpec hw = a100();
  for (double batch : {1.0, 32.0, 256.0}) {
    const ExecutionBreakdown f = execute_graph(g, hw, Precision::fp16, batch, 0.5, 10e-6);
    const ExecutionBreakdown t = training_step(g, hw, Precision::fp16, batch, 0.5, 10e-6);
    EXPECT_DOUBLE_EQ(t.compute_s, 3 * f.compute_s);
    EXPECT_DOUBLE_EQ(t.memory_s, 3 * f.memory_s);
    EXPECT_DOUBLE_EQ(t.dispatch_s, 3 * f.dispatch_s);
    EXPECT_DOUBLE_EQ(t.flops, 3 * f.flops);
    EXPECT_DOUBLE_EQ(t.bytes, 3 * f.bytes);
    EXPECT_DOUBLE_EQ(t.kernel_count, 3 * f.kernel_count);
    EXPECT_NEAR(t.latency_s(), 3 * f.latency_s(), 1e-15);
  }
  // 3 x 4.09 GMAC x 2 FLOP per image.
  EXPECT_NEAR(training_step(g, hw, Precision::fp16, 1, 0.5, 0).flops / 24.6e9, 1.0, 0.01);
}

TEST(Pipeline, StepPieceIsTheStepTimeAndConvex) {
  const ModelGraph g = resnet50();
  const HardwareSpec hw = a100();
  double previous_slope = 0;
  for (double batch = 0.5; batch <= 4096; batch *= 1.5) {
    const AffineStep p = training_step_piece(g, hw, Precision::fp16, batch, 0.5, 10e-6);
    const double step = training_step(g, hw, Precision::fp16, batch, 0.5, 10e-6).latency_s();
    EXPECT_NEAR(p.at(batch), step, 1e-12 * step) << batch;
    EXPECT_GE(p.slope_s_per_sample, previous_slope) << batch;
    previous_slope = p.slope_s_per_sample;
  }
}

// Two ops: a weight-heavy memory-bound op that turns compute-bound at batch 100, and a fixed launch
// cost. The data line must first be solved on the memory piece, then again on the compute piece.
TEST(Pipeline, CrossoverMovesAcrossPiecesExactly) {
  HardwareSpec hw;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 1e12;
  hw.memory_bandwidth_bytes_per_s = 1e9;
  ModelGraph g;
  // compute 1e6 FLOP / 1e12 = 1 us per sample; memory 1e5 B weights = 100 us once, no activations.
  g.ops.push_back(Op{.name = "fc", .kind = OpKind::matmul, .flops_per_sample = 1e6, .weight_elements = 5e4});
  // Training triples everything: step = 3 x (10 us launch + max(100 us, 1 us x B)).
  // Data at 3.5 us per sample: the memory piece (330 us flat) gives 330 / 3.5 = 94.3, inside that
  // piece's range (B < 100).
  const double on_memory = training_crossover_batch(g, hw, Precision::fp16, 1.0, 10e-6, 0, 3.5e-6);
  EXPECT_NEAR(on_memory, 330e-6 / 3.5e-6, 1e-9);
  // Data at 3.2 us per sample: the memory piece gives 330 / 3.2 = 103 > 100, where the compute piece
  // is active: 30 us / (3.2 - 3) us = 150.
  const double on_compute = training_crossover_batch(g, hw, Precision::fp16, 1.0, 10e-6, 0, 3.2e-6);
  EXPECT_NEAR(on_compute, 150.0, 1e-6);
  // At 3 us per sample or less the data side never catches up.
  EXPECT_TRUE(std::isnan(training_crossover_batch(g, hw, Precision::fp16, 1.0, 10e-6, 0, 3.0e-6)));
  // Extra per-sample step time (decode kernels on the SMs) raises every slope.
  EXPECT_NEAR(training_crossover_batch(g, hw, Precision::fp16, 1.0, 10e-6, 0.1e-6, 3.2e-6), 30e-6 / 0.1e-6, 1e-6);
}

// A fixed cost added to every step (an exposed gradient all-reduce) raises every intercept: with 35 us
// more, the memory piece gives 365 / 3.5 = 104.3 > 100, so the compute piece holds: 65 us / 0.5 us = 130
// (step at 130: 3 x (10 + 130) + 35 = 455 us = 3.5 us x 130).
TEST(Pipeline, CrossoverWithAFixedExtraStepCost) {
  HardwareSpec hw;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 1e12;
  hw.memory_bandwidth_bytes_per_s = 1e9;
  ModelGraph g;
  g.ops.push_back(Op{.name = "fc", .kind = OpKind::matmul, .flops_per_sample = 1e6, .weight_elements = 5e4});
  EXPECT_NEAR(training_crossover_batch(g, hw, Precision::fp16, 1.0, 10e-6, 0, 3.5e-6, 35e-6), 130.0, 1e-6);
  EXPECT_NEAR(training_crossover_batch(g, hw, Precision::fp16, 1.0, 10e-6, 0, 3.5e-6, 0), 330e-6 / 3.5e-6, 1e-9);
}

// Dense convs only, 3 passes x 2 transposes (read + write) x (input + output): a conv of 100 in and
// 50 out repeated twice at fp16 moves 3 x 2 x 150 x 2 x 2 B = 3,600 B per sample; grouped convs and
// element-wise ops none; fp32 and tf32 none, int8 half of fp16.
TEST(Pipeline, LayoutTransposesOfTensorCoreConvs) {
  ModelGraph g;
  g.ops.push_back(Op{.name = "conv", .kind = OpKind::conv, .input_elements_per_sample = 100,
                     .output_elements_per_sample = 50, .repeat = 2});
  g.ops.push_back(Op{.name = "dw", .kind = OpKind::grouped_conv, .input_elements_per_sample = 1000,
                     .output_elements_per_sample = 1000});
  g.ops.push_back(Op{.name = "relu", .kind = OpKind::elementwise, .input_elements_per_sample = 1000,
                     .output_elements_per_sample = 1000});
  EXPECT_DOUBLE_EQ(layout_transpose_bytes_per_sample(g, Precision::fp16), 3600.0);
  EXPECT_DOUBLE_EQ(layout_transpose_bytes_per_sample(g, Precision::bf16), 3600.0);
  EXPECT_DOUBLE_EQ(layout_transpose_bytes_per_sample(g, Precision::int8), 1800.0);
  EXPECT_EQ(layout_transpose_bytes_per_sample(g, Precision::fp32), 0.0);
  EXPECT_EQ(layout_transpose_bytes_per_sample(g, Precision::tf32), 0.0);
  EXPECT_TRUE(tensor_core_precision(Precision::tf32));
  EXPECT_FALSE(tensor_core_precision(Precision::fp64));
}

TEST(Pipeline, ResNet50CrossoverAgreesWithAScan) {
  const ModelGraph g = resnet50();
  const HardwareSpec hw = a100();
  // 8 workers x 53.125 MB/s on 500 KB JPEGs: 1.176 ms per image.
  const double c = 500e3 / (8 * 53.125e6);
  const double b_star = training_crossover_batch(g, hw, Precision::fp16, 0.5, 10e-6, 0, c);
  ASSERT_TRUE(std::isfinite(b_star));
  const auto step = [&](double b) { return training_step(g, hw, Precision::fp16, b, 0.5, 10e-6).latency_s(); };
  EXPECT_NEAR(c * b_star, step(b_star), 1e-9 * step(b_star));
  for (double b = 0.01; b < b_star; b += 0.01) ASSERT_LT(c * b, step(b)) << b;
  for (double b = b_star + 0.01; b < 4096; b *= 1.1) ASSERT_GT(c * b, step(b)) << b;
  // The seed's 8 x 250 MB/s (0.25 ms per image) is faster per image than the A100's eager step:
  // no crossover.
  EXPECT_TRUE(std::isnan(training_crossover_batch(g, hw, Precision::fp16, 0.5, 10e-6, 0, 500e3 / 2e9)));
}

TEST(Pipeline, TrainingMemory) {
  ModelGraph g;
  g.parameter_count = 1000;
  g.ops.push_back(Op{.name = "a", .output_elements_per_sample = 10, .repeat = 3});
  g.ops.push_back(Op{.name = "b", .output_elements_per_sample = 5});
  // 16 B x 1,000 + (30 + 5) x 4 samples x 2 B.
  EXPECT_DOUBLE_EQ(training_memory_bytes(g, Precision::fp16, 4), 16000.0 + 35 * 4 * 2);
}

}  // namespace
}  // namespace dsx
