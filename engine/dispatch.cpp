#include "engine/dispatch.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

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

double vector_peak_flops_per_s(const HardwareSpec& hw, Precision precision) {
  const double peak = hw.peak(precision);
  return hw.supports(Precision::fp32) ? std::min(peak, hw.peak(Precision::fp32)) : peak;
}

double scan_peak_flops_per_s(const HardwareSpec& hw, Precision precision, bool scan_on_vector_units,
                             double gemm_peak_flops_per_s) {
  return scan_on_vector_units ? vector_peak_flops_per_s(hw, precision) : gemm_peak_flops_per_s;
}

double dispatch_time_s(double kernel_count, const LaunchSettings& launch) {
  const double cpu_s = launch_count(kernel_count, launch) * launch.launch_overhead_s;
  return launch.cuda_graphs ? cpu_s + kernel_count * launch.graph_node_latency_s : cpu_s;
}

namespace {

// One op's share of a pass: op_cost's roofline (engine/roofline.cpp) with the two divisions taken as
// products by reciprocals computed once per pass (the results may differ from op_cost's in the last
// bit). The graph and flat walks both use it, so they agree to the last bit.
struct Roofs {
  double batch;
  double bytes_per_element;
  // 1 / (rate x efficiency) per OpRoof: the precision's peak and the GEMM peak (hw.gemm_peak) at eta,
  // the vector peak at vector_eta.
  std::array<double, kOpRoofCount> seconds_per_flop;
  double seconds_per_byte;  // 1 / (bandwidth x memory_efficiency)
  // Weights read from the weight tier: 1 / (its read bandwidth x memory_efficiency); 0 = they stream
  // with the activations at seconds_per_byte.
  double seconds_per_weight_byte;
};

Roofs make_roofs(const HardwareSpec& hw, Precision precision, double batch, const RoofEfficiencies& e,
                 bool weights_in_weight_memory) {
  return Roofs{batch,
               bytes_per_element(precision),
               {1.0 / (hw.peak(precision) * e.eta), 1.0 / (vector_peak_flops_per_s(hw, precision) * e.vector_eta),
                1.0 / (hw.gemm_peak(precision) * e.eta)},
               1.0 / (hw.memory_bandwidth_bytes_per_s * e.memory),
               weights_in_weight_memory ? 1.0 / (hw.weight_memory_bandwidth_bytes_per_s * e.memory) : 0.0};
}

inline void add_op(ExecutionBreakdown& out, const Roofs& roofs, double flops_per_sample, double activation_elements,
                   double weight_elements, double kernels, double repeat, std::uint8_t roof) {
  const double flops = flops_per_sample * roofs.batch;
  const double bytes = (activation_elements * roofs.batch + weight_elements) * roofs.bytes_per_element;
  const double compute_s = flops * roofs.seconds_per_flop[roof];
  const double memory_s =
      roofs.seconds_per_weight_byte > 0
          ? activation_elements * roofs.batch * roofs.bytes_per_element * roofs.seconds_per_byte +
                weight_elements * roofs.bytes_per_element * roofs.seconds_per_weight_byte
          : bytes * roofs.seconds_per_byte;
  out.compute_s += repeat * compute_s;
  if (memory_s > compute_s) out.memory_s += repeat * (memory_s - compute_s);
  out.kernel_count += repeat * kernels;
  out.flops += repeat * flops;
  out.bytes += repeat * bytes;
  (compute_s >= memory_s ? out.compute_bound_ops : out.memory_bound_ops) += repeat;
}

void finish(ExecutionBreakdown& out, const LaunchSettings& launch) {
  out.launches = launch_count(out.kernel_count, launch);
  out.dispatch_s = dispatch_time_s(out.kernel_count, launch);
}

}  // namespace

ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, const LaunchSettings& launch) {
  return execute_graph(graph, hw, precision, batch, RoofEfficiencies{.eta = eta, .vector_eta = eta}, launch);
}

ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, const RoofEfficiencies& efficiency, const LaunchSettings& launch,
                                 bool weights_in_weight_memory) {
  const Roofs roofs = make_roofs(hw, precision, batch, efficiency, weights_in_weight_memory);
  ExecutionBreakdown out;
  for (const Op& op : graph.ops) {
    add_op(out, roofs, op.flops_per_sample, op.input_elements_per_sample + op.output_elements_per_sample,
           op.weight_elements, op.kernels, op.repeat, static_cast<std::uint8_t>(op_roof(op.kind)));
  }
  finish(out, launch);
  return out;
}

ExecutionBreakdown execute_graph(const FlatGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, const LaunchSettings& launch) {
  return execute_graph(graph, hw, precision, batch, RoofEfficiencies{.eta = eta, .vector_eta = eta}, launch);
}

ExecutionBreakdown execute_graph(const FlatGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, const RoofEfficiencies& efficiency, const LaunchSettings& launch,
                                 bool weights_in_weight_memory) {
  const Roofs roofs = make_roofs(hw, precision, batch, efficiency, weights_in_weight_memory);
  ExecutionBreakdown out;
  const std::size_t n = graph.size();
  for (std::size_t i = 0; i < n; ++i) {
    add_op(out, roofs, graph.flops_per_sample[i], graph.activation_elements_per_sample[i], graph.weight_elements[i],
           graph.kernels[i], graph.repeat[i], graph.roof[i]);
  }
  finish(out, launch);
  return out;
}

ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, double launch_overhead_s) {
  return execute_graph(graph, hw, precision, batch, eta, LaunchSettings{.launch_overhead_s = launch_overhead_s});
}

}  // namespace dsx
