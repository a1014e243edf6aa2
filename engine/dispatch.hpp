// The dispatch tax and GPU utilization of one forward pass (seeds/000, lab_07 Act 1).
//
// Every kernel launch costs t_launch of CPU-side time (5-20 us in eager frameworks) regardless of
// the work it launches. With N kernels of t_compute each and t_memory of exposed memory time,
//   GPU utilization = N t_compute / (N (t_compute + t_launch) + t_memory)        (seed's formula)
// e.g. KWS: 1,000 kernels x (5 us + 10 us) -> 5,000 / 15,000 = 33%. Launch and GPU work are
// taken as serial, as in the seed (no CPU/GPU overlap), so a faster GPU shrinks t_compute and
// *lowers* utilization when dispatch dominates.
//
// For an operator graph the three terms are summed per op from the roofline (engine/roofline.hpp):
//   compute  = sum FLOPs / (peak x eta)
//   memory   = sum max(0, bytes / bandwidth - FLOPs / (peak x eta))   (memory time not hidden by compute)
//   dispatch = sum kernels x t_launch
// so latency = sum max(compute_i, memory_i) + dispatch, and utilization is compute / latency.
#pragma once

#include "engine/graph.hpp"
#include "engine/hardware.hpp"
#include "engine/precision.hpp"

namespace dsx {

// The seed's closed form.
double dispatch_gpu_utilization(double kernel_count, double compute_per_kernel_s,
                                double launch_overhead_s, double memory_s);

struct ExecutionBreakdown {
  double compute_s = 0;
  double memory_s = 0;  // exposed (not overlapped by compute)
  double dispatch_s = 0;
  double kernel_count = 0;
  double flops = 0;
  double bytes = 0;
  double compute_bound_ops = 0;  // executions whose bound is compute
  double memory_bound_ops = 0;

  double latency_s() const { return compute_s + memory_s + dispatch_s; }
  double gpu_utilization() const { return compute_s / latency_s(); }
  double dispatch_share() const { return dispatch_s / latency_s(); }
  double intensity_flop_per_byte() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// One forward pass of `graph` at this batch on `hw`. Requires hw.supports(precision), eta in (0, 1].
ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, double launch_overhead_s);

}  // namespace dsx
