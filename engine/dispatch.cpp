#include "engine/dispatch.hpp"

#include "engine/roofline.hpp"

namespace dsx {

double dispatch_gpu_utilization(double kernel_count, double compute_per_kernel_s,
                                double launch_overhead_s, double memory_s) {
  const double compute_s = kernel_count * compute_per_kernel_s;
  return compute_s / (kernel_count * (compute_per_kernel_s + launch_overhead_s) + memory_s);
}

ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, double launch_overhead_s) {
  const double peak = hw.peak(precision) * eta;
  const double bandwidth = hw.memory_bandwidth_bytes_per_s;
  ExecutionBreakdown out;
  for (const Op& op : graph.ops) {
    const OpCost c = op_cost(op, precision, batch, peak, bandwidth);
    const double n = op.repeat;
    out.compute_s += n * c.compute_s;
    if (c.memory_s > c.compute_s) out.memory_s += n * (c.memory_s - c.compute_s);
    out.kernel_count += n * op.kernels;
    out.flops += n * c.flops;
    out.bytes += n * c.bytes;
    (c.bound == Bound::compute ? out.compute_bound_ops : out.memory_bound_ops) += n;
  }
  out.dispatch_s = out.kernel_count * launch_overhead_s;
  return out;
}

}  // namespace dsx
