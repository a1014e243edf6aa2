#include "engine/dispatch.hpp"

#include "engine/roofline.hpp"

namespace dsx {

double dispatch_gpu_utilization(double kernel_count, double compute_per_kernel_s,
                                double launch_overhead_s, double memory_s) {
  const double compute_s = kernel_count * compute_per_kernel_s;
  return compute_s / (kernel_count * (compute_per_kernel_s + launch_overhead_s) + memory_s);
}

double launch_count(double kernel_count, const LaunchSettings& launch) {
  if (!launch.cuda_graphs) return kernel_count;
  return kernel_count > 0 ? 1.0 : 0.0;
}

double dispatch_time_s(double kernel_count, const LaunchSettings& launch) {
  const double cpu_s = launch_count(kernel_count, launch) * launch.launch_overhead_s;
  return launch.cuda_graphs ? cpu_s + kernel_count * launch.graph_node_latency_s : cpu_s;
}

ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, const LaunchSettings& launch) {
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
  out.launches = launch_count(out.kernel_count, launch);
  out.dispatch_s = dispatch_time_s(out.kernel_count, launch);
  return out;
}

ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, double launch_overhead_s) {
  return execute_graph(graph, hw, precision, batch, eta, LaunchSettings{.launch_overhead_s = launch_overhead_s});
}

}  // namespace dsx
