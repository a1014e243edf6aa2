// Solver "matmul_tiling": one tile choice (block tile L, thread tile V, k-step S) for an N x N fp32
// matmul on one GPU, the design space of seeds/002 (DSC 291 lecture slides, "Case study: GPU Matmul",
// "Memory overhead?" and "Core Problems Here: how to choose L/V? #threads, #registers, amount of
// shared memory").
//
// Physics (engine/tiling.hpp): global traffic 2 N^3 / L and shared traffic 2 N^3 / V elements of
// 4 bytes, 2 N^3 FLOPs, shared memory 2 S L x 4 B per block, V^2 + 2V (+ extra) registers per thread,
// (L / V)^2 threads per block. The GPU's limits come from the optional kernel-limit fields of its
// catalog entry (CUDA C Programming Guide, compute capability tables); a tile that breaks one is
// infeasible with the limit it breaks, and hardware without limits is infeasible ("limits unknown").
// Time on the GPU is the roofline of the global traffic: max(2 N^3 / fp32 peak, global bytes / HBM
// bandwidth) (seeds/003 "The Roofline Model"); shared-memory bandwidth, latency hiding and the write
// of C are not modelled.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class MatmulTilingSolver final : public TabledSolver {
 public:
  enum Param : std::size_t { hardware, n, block_tile, thread_tile, k_step, extra_registers_per_thread, kParamCount };
  enum Metric : std::size_t {
    flops,
    global_traffic_bytes,
    shared_traffic_bytes,
    global_intensity_flop_per_byte,
    shared_intensity_flop_per_byte,
    arithmetic_ops_per_element,
    thread_blocks,
    threads_per_block,
    shared_memory_per_block_bytes,
    shared_memory_sm_fraction,
    registers_per_thread,
    registers_per_block,
    on_chip_bytes_per_block,
    barriers_per_block,
    compute_s,
    memory_s,
    roofline_time_s,
    kMetricCount
  };

  MatmulTilingSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
