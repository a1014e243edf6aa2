#include "engine/fusion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/dispatch.hpp"
#include "engine/model_builders.hpp"
#include "engine/roofline.hpp"

namespace dsx {
namespace {

constexpr double kTensor = 4096.0 * 1024.0;  // elements of one activation tensor

Op pointwise(std::string name, OpKind kind, double flops_per_element) {
  return Op{.name = std::move(name), .kind = kind, .flops_per_sample = flops_per_element * kTensor,
            .input_elements_per_sample = kTensor, .output_elements_per_sample = kTensor};
}

ModelGraph layernorm_dropout_relu() {
  ModelGraph g;
  g.ops = {pointwise("layernorm", OpKind::normalization, 8), pointwise("dropout", OpKind::elementwise, 2),
           pointwise("relu", OpKind::elementwise, 1)};
  return g;
}

double graph_bytes(const ModelGraph& g) {
  double sum = 0;
  for (const Op& op : g.ops) sum += op_bytes(op, Precision::fp16, 1) * op.repeat;
  return sum;
}

// seeds/000 lab_07 Act 2: unfused LayerNorm + Dropout + ReLU moves 6 tensors, fused moves 2.
TEST(Fusion, LayerNormDropoutReluMovesTwoTensorsInsteadOfSix) {
  const ModelGraph eager = layernorm_dropout_relu();
  const ModelGraph fused = fuse_elementwise_chains(eager);
  const double tensor_bytes = kTensor * 2.0;
  EXPECT_DOUBLE_EQ(graph_bytes(eager), 6 * tensor_bytes);
  EXPECT_DOUBLE_EQ(graph_bytes(fused), 2 * tensor_bytes);
  EXPECT_EQ(eager.total_kernels(), 3);
  EXPECT_EQ(fused.total_kernels(), 1);
  EXPECT_DOUBLE_EQ(fused.total_flops_per_sample(), eager.total_flops_per_sample());
  EXPECT_EQ(fused.ops[0].name, "layernorm+dropout+relu");
}

TEST(Fusion, ElementwiseEpilogueJoinsAMatmulButANormDoesNot) {
  ModelGraph g;
  g.ops = {Op{.name = "fc", .kind = OpKind::matmul, .flops_per_sample = 1e9,
              .input_elements_per_sample = kTensor, .output_elements_per_sample = kTensor,
              .weight_elements = 1e6},
           pointwise("gelu", OpKind::elementwise, 8), pointwise("norm", OpKind::normalization, 8)};
  const ModelGraph fused = fuse_elementwise_chains(g);
  ASSERT_EQ(fused.ops.size(), 2u);
  EXPECT_EQ(fused.ops[0].name, "fc+gelu");
  EXPECT_EQ(fused.ops[0].kind, OpKind::matmul);
  EXPECT_EQ(fused.ops[1].name, "norm");
}

TEST(Fusion, ResidualOperandIsStillRead) {
  ModelGraph g;
  Op add = pointwise("add", OpKind::elementwise, 1);
  add.input_elements_per_sample = 2 * kTensor;  // x + residual
  g.ops = {pointwise("relu", OpKind::elementwise, 1), add};
  const ModelGraph fused = fuse_elementwise_chains(g);
  ASSERT_EQ(fused.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(fused.ops[0].input_elements_per_sample, 2 * kTensor);
  EXPECT_DOUBLE_EQ(fused.ops[0].output_elements_per_sample, kTensor);
}

TEST(Fusion, BlocksWithDifferentRepeatDoNotFuse) {
  ModelGraph g;
  Op a = pointwise("a", OpKind::elementwise, 1);
  Op b = pointwise("b", OpKind::elementwise, 1);
  a.repeat = 12;
  b.repeat = 1;
  g.ops = {a, b};
  EXPECT_EQ(fuse_elementwise_chains(g).ops.size(), 2u);
}

TEST(Fusion, PreparedModelKeepsBothExecutions) {
  const PreparedModel m = prepare_model(layernorm_dropout_relu());
  EXPECT_EQ(m.graph(Execution::eager).ops.size(), 3u);
  EXPECT_EQ(m.graph(Execution::compiled).ops.size(), 1u);
  EXPECT_EQ(&m.graph(Execution::compiled), &m.graph(Execution::compiled, kDefaultFusionPolicy));
  EXPECT_EQ(&m.graph(Execution::eager, FusionPolicy::elementwise), &m.eager);
  EXPECT_EQ(&m.graph(Execution::compiled, FusionPolicy::none), &m.eager);
  EXPECT_EQ(m.graph(Execution::compiled, FusionPolicy::elementwise).ops.size(), 2u);
}

// The three policies on the seed's chain: none keeps 3 kernels and 6 passes; elementwise leaves the
// LayerNorm as a library kernel and fuses Dropout + ReLU (2 kernels, 4 passes); elementwise_norm
// fuses all three (1 kernel, 2 passes).
TEST(Fusion, PolicyDecidesWhatTheChainFusesInto) {
  const ModelGraph eager = layernorm_dropout_relu();
  const double tensor_bytes = kTensor * 2.0;
  const ModelGraph none = fuse(eager, FusionPolicy::none);
  const ModelGraph elementwise = fuse(eager, FusionPolicy::elementwise);
  const ModelGraph full = fuse(eager, FusionPolicy::elementwise_norm);
  EXPECT_EQ(none.total_kernels(), 3);
  EXPECT_DOUBLE_EQ(graph_bytes(none), 6 * tensor_bytes);
  ASSERT_EQ(elementwise.ops.size(), 2u);
  EXPECT_EQ(elementwise.ops[0].name, "layernorm");
  EXPECT_EQ(elementwise.ops[1].name, "dropout+relu");
  EXPECT_DOUBLE_EQ(graph_bytes(elementwise), 4 * tensor_bytes);
  EXPECT_EQ(full.total_kernels(), 1);
  EXPECT_DOUBLE_EQ(graph_bytes(full), 2 * tensor_bytes);
  for (const ModelGraph* g : {&none, &elementwise, &full}) {
    EXPECT_DOUBLE_EQ(g->total_flops_per_sample(), eager.total_flops_per_sample());
  }
}

// conv -> BatchNorm -> ReLU (ResNet): the norm never fuses into the conv; under elementwise the ReLU
// cannot join the norm's library kernel either, under elementwise_norm it can.
TEST(Fusion, ElementwisePolicyDoesNotFuseIntoANorm) {
  ModelGraph g;
  g.ops = {Op{.name = "conv", .kind = OpKind::conv, .flops_per_sample = 1e9, .input_elements_per_sample = kTensor,
              .output_elements_per_sample = kTensor, .weight_elements = 1e4},
           pointwise("bn", OpKind::normalization, 2), pointwise("relu", OpKind::elementwise, 1)};
  EXPECT_EQ(fuse(g, FusionPolicy::elementwise).ops.size(), 3u);
  const ModelGraph full = fuse(g, FusionPolicy::elementwise_norm);
  ASSERT_EQ(full.ops.size(), 2u);
  EXPECT_EQ(full.ops[1].name, "bn+relu");
}

// seeds/000 lab_07 Act 1: "kernel count drops by 30-80%".
TEST(Fusion, FusedKernelCountRoundsToWholeKernels) {
  EXPECT_EQ(fused_kernel_count(1000, 0.75), 250);
  EXPECT_EQ(fused_kernel_count(1000, 0.7), 300);  // 1000 x 0.3 is 300.00000000000006 in binary
  EXPECT_EQ(fused_kernel_count(20, 0.5), 10);
  EXPECT_EQ(fused_kernel_count(10, 0.99), 1);
  EXPECT_EQ(fused_kernel_count(3, 1.0), 1);
  EXPECT_EQ(fused_kernel_count(1000, 0.0), 1000);
}

// seeds/000 lab_07 Act 2: 30 s / (1/1450 - 1/2150 s per image) ~ 134,000 images.
TEST(Fusion, CompileBreakEvenReproducesTheResNet50Example) {
  const double n = compile_breakeven_passes(30.0, 1.0 / 1450, 1.0 / 2150);
  EXPECT_NEAR(n, 30.0 * 1450 * 2150 / (2150 - 1450), 1e-6);  // 133,928.6
  EXPECT_NEAR(n, 134000, 0.01 * 134000);
  EXPECT_EQ(compile_breakeven_passes(0.0, 2.0, 1.0), 0.0);
  EXPECT_TRUE(std::isinf(compile_breakeven_passes(30.0, 1.0, 1.0)));
  EXPECT_TRUE(std::isinf(compile_breakeven_passes(30.0, 1.0, 2.0)));
}

// --- the pointwise_chain architecture (engine/model_builders.cpp) --------------------------------

ModelGraph build_chain(std::map<std::string, double> given) {
  return build_architecture("pointwise_chain", {given.begin(), given.end()});
}

constexpr double kElements = 8.0 * 1024 * 768;  // the catalog's ln_dropout_relu: GPT-2 small, 8 x 1,024 tokens

ModelGraph catalog_chain() { return build_chain({{"elements", kElements}, {"row_length", 768}}); }

TEST(PointwiseChain, BuildsTheSeedsChainWithDocumentedFlopsPerElement) {
  const ModelGraph g = catalog_chain();
  ASSERT_EQ(g.ops.size(), 3u);
  EXPECT_EQ(g.ops[0].name, "layernorm");
  EXPECT_EQ(g.ops[0].kind, OpKind::normalization);
  EXPECT_EQ(g.ops[1].name, "dropout");
  EXPECT_EQ(g.ops[2].name, "relu");
  EXPECT_DOUBLE_EQ(g.ops[0].flops_per_sample, 8 * kElements);
  EXPECT_DOUBLE_EQ(g.ops[1].flops_per_sample, 3 * kElements);
  EXPECT_DOUBLE_EQ(g.ops[2].flops_per_sample, 1 * kElements);
  EXPECT_DOUBLE_EQ(g.ops[0].weight_elements, 2 * 768);
  EXPECT_DOUBLE_EQ(g.parameter_count, 2 * 768);
  EXPECT_EQ(g.total_kernels(), 3);
  for (const Op& op : g.ops) {
    EXPECT_DOUBLE_EQ(op.input_elements_per_sample, kElements);
    EXPECT_DOUBLE_EQ(op.output_elements_per_sample, kElements);
  }
}

TEST(PointwiseChain, RejectsAnEmptyChainAndARowThatDoesNotDivide) {
  EXPECT_THROW(build_chain({{"elements", 1000}, {"row_length", 768}}), std::invalid_argument);
  EXPECT_THROW(build_chain({{"elements", 768}, {"row_length", 768}, {"layernorm", 0}, {"dropout", 0}, {"relu", 0}}),
               std::invalid_argument);
  const ModelGraph relu = build_chain({{"elements", 768}, {"row_length", 768}, {"layernorm", 0}, {"dropout", 0}});
  ASSERT_EQ(relu.ops.size(), 1u);
  EXPECT_EQ(relu.ops[0].name, "relu");
  EXPECT_EQ(relu.parameter_count, 0);
}

double intensity(const ModelGraph& g, Precision p) {
  double flops = 0, bytes = 0;
  for (const Op& op : g.ops) {
    flops += op.flops_per_sample * op.repeat;
    bytes += op_bytes(op, p, 1) * op.repeat;
  }
  return flops / bytes;
}

// Arithmetic intensity: 12 FLOP per element over 6 tensor passes unfused and 2 fused. At fp16
// (2 B/element): 12 / 12 = 1.0 -> 12 / 4 = 3.0 FLOP/byte; at fp32 0.5 -> 1.5. Fusion raises
// intensity by exactly the traffic factor (3x), not the seed's 8x (~0.1 -> ~0.8). Per op at fp16:
// LayerNorm 8/4 = 2.0, Dropout 3/4 = 0.75, ReLU 1/4 = 0.25 (fp32: ReLU 0.125, the seed's "~0.1").
// The LayerNorm's 1,536 affine parameters add 3 kB to 75 MB: a relative 4e-5.
TEST(PointwiseChain, IntensityRisesByTheTrafficFactorOnly) {
  const PreparedModel m = prepare_model(catalog_chain());
  const double affine = 2 * 768;
  const double flops = 12 * kElements;
  EXPECT_DOUBLE_EQ(intensity(m.eager, Precision::fp16), flops / ((6 * kElements + affine) * 2));
  EXPECT_DOUBLE_EQ(intensity(m.compiled, Precision::fp16), flops / ((2 * kElements + affine) * 2));
  EXPECT_DOUBLE_EQ(intensity(m.compiled_elementwise, Precision::fp16), flops / ((4 * kElements + affine) * 2));
  EXPECT_NEAR(intensity(m.eager, Precision::fp16), 1.0, 1e-4);
  EXPECT_NEAR(intensity(m.compiled, Precision::fp16), 3.0, 1e-3);
  EXPECT_NEAR(intensity(m.eager, Precision::fp32), 0.5, 1e-4);
  EXPECT_NEAR(intensity(m.compiled, Precision::fp32), 1.5, 1e-3);
  const ModelGraph relu = build_chain({{"elements", kElements}, {"row_length", 768}, {"layernorm", 0}, {"dropout", 0}});
  EXPECT_DOUBLE_EQ(intensity(relu, Precision::fp16), 0.25);
  EXPECT_DOUBLE_EQ(intensity(relu, Precision::fp32), 0.125);
  // All far below the A100 fp16 ridge, 312 TFLOP/s / 2.0 TB/s = 156 FLOP/byte: memory-bound.
  EXPECT_DOUBLE_EQ(ridge_point_flop_per_byte(312e12, 2.0e12), 156.0);
  EXPECT_LT(intensity(m.compiled, Precision::fp16), ridge_point_flop_per_byte(312e12, 2.0e12) / 50);
}

// seeds/000 Act 2: "Fusing ... can yield 5x speedup" "from combining the traffic reduction with the
// elimination of two kernel launch overheads". Unfused = 3 launches + 6 passes, fused = 1 launch +
// 2 passes, both memory-bound: the ratio is 3 whatever the bandwidth or launch cost, never 5.
TEST(PointwiseChain, TrafficCutPlusTwoFewerLaunchesGiveThreeTimesNotFive) {
  const PreparedModel m = prepare_model(catalog_chain());
  for (double bandwidth : {1.0e12, 2.0e12, 3.35e12}) {
    for (double launch : {0.0, 5e-6, 10e-6, 20e-6}) {
      HardwareSpec hw;
      hw.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
      hw.memory_bandwidth_bytes_per_s = bandwidth;
      const double eager = execute_graph(m.eager, hw, Precision::fp16, 1, 0.5, launch).latency_s();
      const double fused = execute_graph(m.compiled, hw, Precision::fp16, 1, 0.5, launch).latency_s();
      EXPECT_NEAR(eager / fused, 3.0, 1e-3) << bandwidth << " " << launch;
      EXPECT_LT(eager / fused, 3.0 + 1e-9);
    }
  }
  // At 2.0 TB/s and 10 us: 3 x 10 us + 75.5 MB / 2 TB/s = 67.7 us vs 10 us + 25.2 MB / 2 TB/s = 22.6 us.
  HardwareSpec hw;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  hw.memory_bandwidth_bytes_per_s = 2.0e12;
  const double tensor_bytes = 2 * kElements;
  EXPECT_NEAR(execute_graph(m.eager, hw, Precision::fp16, 1, 0.5, 10e-6).latency_s(),
              30e-6 + 6 * tensor_bytes / 2.0e12, 1e-8);
  EXPECT_NEAR(execute_graph(m.compiled, hw, Precision::fp16, 1, 0.5, 10e-6).latency_s(),
              10e-6 + 2 * tensor_bytes / 2.0e12, 1e-8);
}

}  // namespace
}  // namespace dsx
