// Solver "attention": one multi-head attention call of a kernel benchmark (softmax(Q K^T / sqrt(d)) V
// over batch x heads), fused as FlashAttention does it or unfused as separate matrix multiplies and a
// softmax, forward, backward or both; its achieved FLOP/s is an output, so kernel benchmarks can be
// predicted.
//
// FLOPs, the convention the FlashAttention papers and their benchmark scripts report TFLOP/s in
// (Dao et al., "FlashAttention", arXiv:2205.14135; "FlashAttention-2", arXiv:2307.08691; Shah et al.,
// "FlashAttention-3", arXiv:2407.08608; the flops() of flash-attention's benchmarks/):
// forward = 4 x batch x heads x seq_len x kv_seq_len x head_dim (Q K^T and P V, 2 FLOPs per
// multiply-add), halved when causal; backward = 2.5 x forward; both = 3.5 x forward.
// Compute time = FLOPs / (eta x peak) / wave_efficiency, peak the GEMM peak (HardwareSpec::gemm_peak: an
// fp8 kernel's Q K^T and P V are fp8 matrix products, at the peak x fp8_gemm_relative_efficiency;
// peak_fraction is of the plain peak): the kernel runs one query tile (query_tile
// rows of one head) per compute unit at a time, batch x heads x ceil(seq_len / query_tile) tiles in
// waves over the hardware's compute units (as in engine/solvers/gemm.hpp; no waves when the catalog
// gives no compute_units).
// Memory traffic: fused, Q, K, V and O once forward and Q, K, V, O, dO, dQ, dK, dV once backward (K and
// V at kv_heads: grouped-query attention shares them); the tiled kernel keeps the score matrix in
// on-chip memory (FlashAttention, section 3.2). Unfused, the seq_len x kv_seq_len score matrix of
// every head also goes through memory: written and read as S and as P forward (4 passes), and 6 passes
// backward (P read, dP written and read, dS written and read twice). Time = launch_overhead +
// max(compute, memory / (memory_efficiency x bandwidth)).
// eta, memory_efficiency and launch_overhead default to the ideal (1, 1, 0 s); the calibration
// profile gives the values published kernel benchmarks imply.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class AttentionSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    precision,
    batch,
    heads,
    kv_heads,
    head_dim,
    seq_len,
    kv_seq_len,
    causal,
    pass,
    kernel,
    query_tile,
    eta,
    memory_efficiency,
    launch_overhead,
    kParamCount
  };
  enum Metric : std::size_t {
    time_s,
    achieved_flops_per_s,
    peak_fraction,
    flops,
    bytes_moved,
    compute_s,
    memory_s,
    tiles,
    waves,
    wave_efficiency,
    arithmetic_intensity_flop_per_byte,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported, kv_heads_must_divide_heads };

  AttentionSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
