// Solver "inference": one forward pass of a model on one accelerator, eager or compiled.
//
// Physics: operator-level roofline (engine/roofline.hpp), dispatch tax per kernel
// (engine/dispatch.hpp, seeds/000 lab_07 Act 1), operator fusion in compiled mode
// (engine/fusion.hpp, seeds/000 lab_07 Act 2).
// Every op's memory roof is the bandwidth x `memory_efficiency` (engine/dispatch.hpp: STREAM
// kernels reach 0.79-0.89 of the datasheet rate; default 1, the ideal roofline). It matters where
// the pass is memory-bound: an eager EfficientNet-B0 at batch 256 moves 24 GB (94 MB per image,
// 8.7 FLOP/B against the A100's fp16 ridge of 153; at eta 0.33, 57 % of its latency is exposed
// memory time), and a ResNet-50 (50.7 FLOP/B) spends 40 % there. The calibration fits it to the
// inference_batched rows beside eta.
// Compiled mode is a parameterised transformation: `fusion` picks what the compiler merges (none,
// element-wise chains, or element-wise chains and normalizations; default the latter, as Inductor);
// `cuda_graphs` replays the pass as one CUDA graph: one CPU-side launch plus `graph_node_latency` of
// device-side latency per kernel (engine/dispatch.hpp cites the measurement behind the 0.6 us
// default), in either execution; `compile_time` is the one-time cost of compiling (default 0 s: not
// counted; the seed gives ~30 s for ResNet-50 and ~10 s for KWS), which the break-even
// N = compile_time / (eager latency - latency) needs (seeds/000 lab_07 Act 2). The eager baseline of
// speedup_vs_eager and of the break-even is the same point with eager execution and one launch per
// kernel. Energy = latency x TDP x (idle + (1 - idle) x utilization): the device draws its
// idle share of TDP throughout and the dynamic share only while computing (the energy-proportional
// model of shared/reference mlsysim-models, idle share per device from the catalog).
// Memory footprint = weights + the largest single op's activations (inputs + outputs) at the batch;
// a point whose footprint exceeds device memory is infeasible, as is a precision the device lacks,
// unless the hardware has a weight tier (HardwareSpec::weight_memory_bytes, a microcontroller's
// flash): then the weights live there if they fit in it, the activations in memory if they fit in it,
// and every weight byte is read at the tier's read bandwidth (engine/dispatch.hpp).
// The matrix products (matmul, conv, attention) run at the hardware's GEMM peak (HardwareSpec::gemm_peak:
// at fp8 the peak x fp8_gemm_relative_efficiency, as in the training and gemm solvers), the other ops
// at the precision's peak (engine/dispatch.hpp); peak_flops_fraction and the ridge point use the peak.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class InferenceSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    precision,
    batch,
    execution,
    launch_overhead,
    eta,
    fusion,
    cuda_graphs,
    graph_node_latency,
    compile_time,
    memory_efficiency,
    kParamCount
  };
  enum Metric : std::size_t {
    latency_s,
    throughput_samples_per_s,
    gpu_utilization,
    dispatch_share,
    memory_share,
    compute_s,
    memory_s,
    dispatch_s,
    kernel_count,
    flops,
    bytes_moved,
    arithmetic_intensity_flop_per_byte,
    memory_footprint_bytes,
    power_w,
    energy_j,
    energy_per_sample_j,
    launch_count,
    attainable_flops_per_s,
    peak_flops_fraction,
    ridge_point_flop_per_byte,
    eager_latency_s,
    speedup_vs_eager,
    compile_time_s,
    breakeven_inferences,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported, exceeds_memory };

  InferenceSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
