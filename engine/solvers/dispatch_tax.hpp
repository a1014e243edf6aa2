// Solver "dispatch_tax": the instrument of seeds/000 lab_07 Act 1 ("The Dispatch Tax Audit"): one
// forward pass whose work is fixed and whose kernel count is a knob.
//
// The model and the device give the work: compute = sum over the model's ops of FLOPs / (peak x eta)
// and exposed memory time = sum max(0, bytes / bandwidth - compute) per op (engine/roofline.hpp, the
// eager graph at this batch and precision; the seed's "memory transfer computed from arithmetic
// intensity"). The work is then launched as `kernel_count` kernels ("kernel count slider: 10 ->
// 10,000 kernels per forward pass ... same total work, more fragmented"), so a kernel computes for
// compute / N. Compiled mode fuses away `fusion_cut` of the kernels (the seed's "kernel count drops
// by 30-80%"), N_c = max(1, round(N (1 - cut))), and leaves compute and memory unchanged: this solver
// isolates the launch term; the traffic fusion saves is the inference solver's and Act 2's.
// Dispatch = N x t_launch, or t_launch + N x t_node with CUDA graphs (engine/dispatch.hpp), and
//   GPU utilization = compute / (compute + dispatch + memory)       (the seed's formula)
// which for the lab07 profiles (no memory traffic) is N t_c / (N (t_c + t_launch)): KWS 1,000 x
// (5 us + 10 us) -> 33%. A faster device (a catalog what-if with twice the peak) halves compute and
// leaves dispatch, so its utilization is lower. The model's own kernel count is reported
// (model_kernel_count) but not used: kernel_count is always given.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class DispatchTaxSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    precision,
    eta,
    batch,
    kernel_count,
    launch_overhead,
    execution,
    fusion_cut,
    cuda_graphs,
    graph_node_latency,
    kParamCount
  };
  enum Metric : std::size_t {
    latency_s,
    throughput_samples_per_s,
    gpu_utilization,
    memory_share,
    dispatch_share,
    compute_s,
    memory_s,
    dispatch_s,
    kernels_launched,
    launch_count,
    compute_per_kernel_s,
    model_kernel_count,
    eager_latency_s,
    speedup_vs_eager,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported };

  DispatchTaxSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
