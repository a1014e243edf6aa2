#include "engine/fusion.hpp"

#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace dsx
