// Solver "gemm": one matrix multiply C (M x N) = A (M x K) B (K x N) at a precision, or a batch of
// them, as a GPU library runs it: output tiles spread over the compute units in waves.
//
// Physics (NVIDIA, "Matrix Multiplication Background User's Guide", Deep Learning Performance
// documentation, sections "Tile Quantization" and "Wave Quantization"; the tiling of the DSC 291
// slides, "Case study: GPU Matmul"):
//  - tiles: C is cut into tile_m x tile_n output tiles, ceil(M / tile_m) x ceil(N / tile_n) per
//    multiply; a partial tile costs a whole one (tile quantization, tile_efficiency = M N / padded);
//  - waves: the tiles run on the hardware's compute units (SMs, CUs) at most one per unit at a time,
//    so waves = ceil(tiles / units) and the last wave may leave units idle (wave quantization,
//    wave_efficiency = tiles / (waves x units)); a wave takes 2 tile_m tile_n K FLOPs at one unit's
//    share of eta x peak;
//  - the library picks the tile: with tile_m = tile_n = 0 (the default) the one of 256x128, 128x256,
//    128x128, 128x64, 64x128 and 64x64 that finishes first (ties to the larger), as cuBLAS-style
//    heuristics choose among their kernels;
//  - memory: A and B read and C written once each (their bytes at the input and output precisions;
//    8-bit and narrower inputs write 16-bit outputs by default), at memory_efficiency x the
//    datasheet bandwidth; time = launch_overhead + max(compute, memory) (the roofline of Williams,
//    Waterman and Patterson, CACM 52(4), 2009).
// eta is the fraction of the dense peak full waves of full tiles reach (for fp8 of the fp8 peak times the
// hardware's fp8_gemm_relative_efficiency, engine/hardware.hpp, so that one eta serves bf16 and fp8 GEMMs
// on a chip whose fp8 GEMMs reach less of their peak), memory_efficiency the
// fraction of the memory bandwidth, launch_overhead the fixed time of one call; they default to the
// ideal (1, 1, 0 s) and the calibration profile (studies/catalog/calibration/default.yaml) replaces
// them with what published GEMM measurements imply. Hardware whose entry gives no compute_units has
// no wave quantization (one wave of every tile).
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class GemmSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    precision,
    m,
    n,
    k,
    batch,
    output,
    tile_m,
    tile_n,
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
    tile_efficiency,
    tile_m_used,
    tile_n_used,
    arithmetic_intensity_flop_per_byte,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported, tile_needs_both_sides };

  GemmSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

// The compute time of one multiply shape on `units` compute units (0 = unknown: no waves) with a
// given tile, and the quantization it implies.
struct GemmTiling {
  double tiles = 0;
  double waves = 0;
  double wave_efficiency = 1;
  double tile_efficiency = 1;
  double compute_s = 0;
};
GemmTiling gemm_tiling(double m, double n, double k, double batch, double tile_m, double tile_n, double units,
                       double flops_per_s);

}  // namespace dsx
