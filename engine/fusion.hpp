// Eager vs compiled execution: operator fusion of element-wise chains (seeds/000 lab_07 Act 2,
// seeds/002 "graph-level fusion").
//
// A compiler (torch.compile, XLA, TVM) merges an element-wise chain into one kernel: the chain's
// intermediates never touch HBM. k element-wise ops on a tensor of T elements move 2k T elements
// unfused and 2 T fused (LayerNorm + Dropout + ReLU: 6 tensor passes -> 2, 3 kernels -> 1).
// Rules, applied inside each block of equal `repeat` (engine/graph.hpp):
//  - an element-wise op joins the group before it (epilogue fusion into a matmul/conv included);
//  - a normalization op joins a group made only of element-wise/normalization ops (a norm needs a
//    full-row reduction, so it does not fuse into a GEMM epilogue);
//  - the fused op keeps the first op's kind and kernel count, sums FLOPs and weights, reads the
//    group's input plus any extra operand an op brings (a residual), writes only the last output.
#pragma once

#include "engine/graph.hpp"

namespace dsx {

enum class Execution : std::uint8_t { eager, compiled };

ModelGraph fuse_elementwise_chains(const ModelGraph& eager);

// Both executions of one model, prepared once before a sweep so the hot path never fuses.
struct PreparedModel {
  ModelGraph eager;
  ModelGraph compiled;

  const ModelGraph& graph(Execution e) const { return e == Execution::eager ? eager : compiled; }
};

PreparedModel prepare_model(ModelGraph eager);

}  // namespace dsx
