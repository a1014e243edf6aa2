// The time one linear layer's GEMM (M x N x K, `copies` alike in one grouped call) takes on a GPU
// whose thread blocks spread over `units` SMs or CUs: tile and wave quantization, and split-K for
// skinny GEMMs. The serving solver prices its steps' GEMMs with it (engine/serving.hpp).
//
// Tiles: the output is cut into tile_m x 128 tiles, tile_m by M alone (no search per call; the
// Stream-K paper reaches its results "from a single tile size configuration per floating-point
// precision"): 16 rows for M <= 16, which pads only to the M of one tensor-core instruction
// (NVIDIA/cutlass include/cutlass/gemm/device/default_gemm_configuration.h, Sm80 tensor ops:
// InstructionShape GemmShape<16, 8, 16>), 64 for M <= 64 and 128 above (the gemm solver's 64 x 128
// and 128 x 128 tiles, engine/solvers/gemm.cpp), k-steps 64 deep (the same file's ThreadblockShape
// GemmShape<128, 256, 64>). The gemm solver's best of six tiles per GEMM cost a serving point 4x.
// Each unit runs one tile at a time at flops_per_s / units, so a wave of `units` tiles takes
// 2 tile_m tile_n K / (flops_per_s / units) and a partly filled last wave costs a whole wave
// (engine/waves.hpp, the gemm solver's model).
//
// Split-K (Osama, Merrill, Cecka, Garland and Owens, "Stream-K: Work-centric Parallel Decomposition
// for Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023, arXiv:2301.03598; CUTLASS's
// ThreadblockSwizzleStreamK, include/cutlass/gemm/threadblock/threadblock_swizzle_streamk.h, whose
// get_blocks turns a partial wave with no full wave before it into split blocks "to get us up to
// full GPU occupancy" and whose split-K mode runs `split` blocks per tile): a GEMM with fewer tiles
// than units splits K into s slices, s <= units / tiles so the tiles x s blocks stay one wave, and
// each slice at least two k-steps (kMinItersPerSkBlock = 2: K / s >= 128). Each slice writes an fp32
// partial of its M x N outputs that the reduction reads back (CUTLASS's GemmSplitKParallel and
// ReduceSplitK): 2 x 4 B x s M N copies of extra traffic. The library's s is the one that minimises
// the GEMM's own max(compute, memory): compute falls as 1 / s, traffic grows with s, so a decode
// GEMM that streams its weights runs at the bandwidth roof instead of one tile per unit.
// units <= 0 (unknown): no quantization, 2 M N K copies / flops_per_s.
#pragma once

namespace dsx {

struct GemmWaves {
  double compute_s = 0;
  double reduction_bytes = 0;  // split-K partials written and read back
  double split_k = 1;
  double tiles = 0;            // output tiles of all copies, before the split
  double waves = 1;
  double tile_m = 0;
  double tile_n = 0;
};

// `stream_bytes`: what the GEMM reads and writes without a split (weights, A and C), which with
// bandwidth_bytes_per_s (0 = unknown: the split that fills the units) sets the split's choice.
GemmWaves gemm_waves(double m, double n, double k, double copies, double units, double flops_per_s,
                     double stream_bytes, double bandwidth_bytes_per_s);

}  // namespace dsx
