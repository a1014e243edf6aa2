// Shared-memory and register tiling of an N x N fp32 matmul on a GPU (seeds/002, DSC 291 lecture
// slides, "Case study: GPU Matmul" and "Memory overhead?").
//
// The slides' kernel: a thread block computes an L x L tile of C, staging a k-step S of A and B
// through shared memory (__shared__ float sA[S][L], sB[S][L]); each of its (L/V)^2 threads computes a
// V x V sub-tile in registers (float c[V][V], a[V], b[V]). Counting as the slides do:
//   global memory reads  = 2 L N per block x N^2 / L^2 blocks = 2 N^3 / L elements
//   shared memory reads  = 2 V N per thread x N^2 / V^2 threads = 2 N^3 / V elements
//   FLOPs                = 2 N^3 (one multiply and one add per multiply-add)
//   shared memory        = 2 S L elements per block
//   registers per thread = V^2 + 2 V (the c, a and b arrays) + any address and loop registers
//   threads per block    = (L / V)^2; barriers per block = 2 N / S (two __syncthreads per k-step)
// so the global intensity is 2 N^3 / (2 N^3 / L x 4 B) = L / 4 FLOP/byte at fp32 and the shared one
// V / 4. The writes of C (N^2 elements) are left out, as in the slides.
//
// A tile is feasible when L divides N, V divides L, S divides N, and the block fits the GPU: threads
// per block, shared memory per block (and per SM), registers per thread, and the block's registers
// within one SM's register file (CUDA C Programming Guide, "Technical Specifications per Compute
// Capability": at compute capability 8.0 and 9.0 the per-block register limit equals the SM's 64 K).
// Hardware whose limits are unknown (0 in the catalog) makes every tile infeasible.
//
// The slides' quiz (seeds/002, "What is the arithmetic intensity for the following function":
// Load A; Load B; C = matmul(A, B) with A, B of shape [2, 2]) counts arithmetic operations per element
// moved: a matmul needs N multiplies and N - 1 adds per output element, N^2 (2N - 1) = 12 operations
// for N = 2, over the 2 N^2 = 8 elements loaded (C is not stored), so 12 / 8 = 1.5.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/hardware.hpp"

namespace dsx {

inline constexpr double kFp32Bytes = 4.0;

struct MatmulTile {
  double n = 0;            // matrix size N
  double block_tile = 0;   // L: a block's tile of C is L x L
  double thread_tile = 0;  // V: a thread's tile of C is V x V
  double k_step = 0;       // S: columns of A / rows of B staged per shared-memory load
  double extra_registers_per_thread = 0;  // address, index and loop registers beyond c, a and b
};

struct MatmulTileCost {
  double flops = 0;                       // 2 N^3
  double arithmetic_ops = 0;              // N^2 (2N - 1): multiplies and adds a matmul needs
  double global_elements = 0;             // 2 N^3 / L
  double shared_elements = 0;             // 2 N^3 / V
  double thread_blocks = 0;               // N^2 / L^2
  double threads_per_block = 0;           // (L / V)^2
  double shared_memory_bytes_per_block = 0;  // 2 S L x 4 B
  double registers_per_thread = 0;        // V^2 + 2V + extra
  double registers_per_block = 0;
  double barriers_per_block = 0;          // 2 N / S
};

MatmulTileCost matmul_tile_cost(const MatmulTile& tile);

enum class TileVerdict : std::uint8_t {
  fits,
  block_tile_does_not_divide_n,
  thread_tile_does_not_divide_block_tile,
  k_step_does_not_divide_n,
  limits_unknown,
  too_many_threads,
  too_much_shared_memory,
  too_many_registers_per_thread,
  registers_exceed_sm,
};

// The first rule the tile breaks, in the order of the enum; `fits` when none.
TileVerdict check_matmul_tile(const MatmulTile& tile, const MatmulTileCost& cost, const HardwareSpec& gpu);

// The untiled problem: FLOPs 2 N^3, and the least traffic any schedule needs, A and B read once and
// C written once, 3 N^2 elements (seeds/003 "A Concrete Example: The A100 Analysis": GEMM 4096 at
// fp16 has 2 N^3 / (3 N^2 x 2 B) = N / 3 = 1,365 FLOP/byte).
double square_matmul_flops(double n);
double square_matmul_min_bytes(double n, double bytes_per_element);
double square_matmul_intensity_flop_per_byte(double n, double bytes_per_element);
// Arithmetic operations per element loaded for C = matmul(A, B) that loads A and B and stores nothing:
// N^2 (2N - 1) / 2 N^2 (the slides' quiz; 1.5 for N = 2).
double matmul_function_ops_per_element(double n);

}  // namespace dsx
