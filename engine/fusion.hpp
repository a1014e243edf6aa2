// Eager vs compiled execution: operator fusion of element-wise chains and the compile break-even
// (seeds/000 lab_07 Act 2, seeds/002 "graph-level fusion").
//
// A compiler (torch.compile, XLA, TVM) merges an element-wise chain into one kernel: the chain's
// intermediates never touch HBM. k element-wise ops on a tensor of T elements move 2k T elements
// unfused and 2 T fused (LayerNorm + Dropout + ReLU: 6 tensor passes -> 2, 3 kernels -> 1).
//
// Fusion policies (what the compiler is allowed to merge):
//  - none: no fusion; compiled mode only changes how kernels are launched (CUDA graphs).
//  - elementwise: an element-wise op joins the kernel before it (epilogue fusion into a matmul,
//    conv or element-wise group). Normalizations stay library kernels: they join nothing and
//    nothing joins them (a loop-fusion compiler that does not generate reductions).
//  - elementwise_norm (the default, torch.compile/Inductor-like): as elementwise, plus a
//    normalization joins a group made only of element-wise/normalization ops (a norm needs a
//    full-row reduction, so it does not fuse into a GEMM epilogue), and element-wise ops join a
//    norm's group.
// Rules hold inside each block of equal `repeat` (engine/graph.hpp). The fused op keeps the first
// op's kind and kernel count, sums FLOPs and weights, reads the group's input plus any extra operand
// an op brings (a residual), and writes only the last output.
//
// Compile break-even (seeds/000 lab_07 Act 2, "The Compilation Break-Even"):
//   N = t_compile / (t_eager - t_compiled)   per-inference latencies, or equivalently
//   N = t_compile / (1 / thr_eager - 1 / thr_compiled)
// ResNet-50: 30 s / (1/1450 - 1/2150 s per image) = 133,929 images (the seed's ~134,000).
// A compiled pass that is not faster never pays back: N = +infinity.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/compression_accuracy.hpp"
#include "engine/graph.hpp"
#include "engine/serving.hpp"

namespace dsx {

enum class Execution : std::uint8_t { eager, compiled };
enum class FusionPolicy : std::uint8_t { none, elementwise, elementwise_norm };

inline constexpr FusionPolicy kDefaultFusionPolicy = FusionPolicy::elementwise_norm;

ModelGraph fuse(const ModelGraph& eager, FusionPolicy policy);

// fuse(eager, FusionPolicy::elementwise_norm).
ModelGraph fuse_elementwise_chains(const ModelGraph& eager);

// Every graph a sweep can ask for, and the transformer shape the serving and training solvers read,
// built once before it so the hot path never fuses or scans the graph.
struct PreparedModel {
  ModelGraph eager;
  ModelGraph compiled;              // fused with the default policy (elementwise_norm)
  ModelGraph compiled_elementwise;  // fused with FusionPolicy::elementwise
  FlatGraph flat_eager;             // the three graphs flattened (engine/graph.hpp)
  FlatGraph flat_compiled;
  FlatGraph flat_compiled_elementwise;
  bool servable = false;            // derive_serving_shape(eager) succeeded: attention layers, Mamba layers or both
  bool is_transformer = false;      // servable with attention layers (a transformer or a hybrid such as Jamba)
  ServingShape serving_shape;       // valid when servable
  // Published accuracy of this model compressed (the catalog's compression_accuracy rows for its id),
  // read by the compression solver.
  std::vector<PublishedAccuracy> published_accuracy;

  const ModelGraph& graph(Execution e) const { return e == Execution::eager ? eager : compiled; }
  const ModelGraph& graph(Execution e, FusionPolicy policy) const {
    if (e == Execution::eager) return eager;
    switch (policy) {
      case FusionPolicy::none: return eager;
      case FusionPolicy::elementwise: return compiled_elementwise;
      case FusionPolicy::elementwise_norm: return compiled;
    }
    return compiled;
  }
  const FlatGraph& flat(Execution e, FusionPolicy policy) const {
    if (e == Execution::eager) return flat_eager;
    switch (policy) {
      case FusionPolicy::none: return flat_eager;
      case FusionPolicy::elementwise: return flat_compiled_elementwise;
      case FusionPolicy::elementwise_norm: return flat_compiled;
    }
    return flat_compiled;
  }
};

PreparedModel prepare_model(ModelGraph eager);

// Kernels left when fusion removes `cut_fraction` of `eager_kernels` (the seed's "kernel count drops
// by 30-80%"): round(N (1 - cut)), at least one kernel.
double fused_kernel_count(double eager_kernels, double cut_fraction);

// Passes (inferences) after which a one-time compile of `compile_time_s` has paid for itself, from
// the per-pass latencies; 0 when there is nothing to pay back, +infinity when the compiled pass is
// not faster. (engine/solvers/compile_breakeven.hpp states the same break-even from throughputs.)
double compile_breakeven_passes(double compile_time_s, double eager_latency_s, double compiled_latency_s);

}  // namespace dsx
