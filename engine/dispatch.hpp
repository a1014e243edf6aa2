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
// Grouped and depthwise convolutions (runs_on_vector_units, engine/graph.hpp) are not matrix
// products the tensor cores can take: PyTorch's depthwise kernel (pytorch/pytorch
// aten/src/ATen/native/cuda/DepthwiseConv2d.cu, conv_depthwise2d_forward_kernel) computes one output
// per thread as a k x k loop of scalar multiply-adds in acc_type, fp32 for half and bfloat16 inputs,
// on the CUDA cores. Their FLOPs run at the fp32 vector peak x eta (vector_peak_flops_per_s), so a
// 5 x 5 depthwise conv (12.5 FLOP per fp16 byte) is compute-bound on an A100 (19.5 TFLOP/s fp32
// against 2 TB/s) where the tensor-core peak would leave it memory-bound.
// The matrix products (op_roof == gemm, engine/graph.hpp: matmul, conv, attention) run at
// hw.gemm_peak x eta: at fp8 the peak times the entry's fp8_gemm_relative_efficiency (engine/hardware.hpp),
// as the training and gemm solvers time fp8 GEMMs; the other ops at the precision's peak x eta.
//
// CUDA graphs (NVIDIA CUDA Programming Guide, "CUDA Graphs"): the kernels of a pass are captured
// once and replayed with one CPU-side launch, so dispatch becomes
//   dispatch = t_launch + N t_node
// where t_node is the device-side latency the GPU still spends between consecutive graph nodes.
// Measured: a replayed graph costs ~0.58 us per kernel node beyond a fixed launch, against ~6.4 us
// per individually launched kernel (RTX 5070 Ti Laptop GPU, CUDA 13.3; github.com/ahrefs/ocannl
// issue #488, "what graph replay is actually worth"); CUDA.jl's documentation reports 80 broadcast
// kernels going from 260 us to 70 us as one graph (under 0.9 us per kernel, execution included).
// kDefaultGraphNodeLatency_s rounds the former to 0.6 us.
//
// Achieved bandwidth (RoofEfficiencies::memory): a kernel streams device memory at a share of the
// datasheet rate, never all of it. STREAM copy, scale, add and triad kernels reach 1.61-1.75 of the
// A100 80GB's 2.039 TB/s and 2.90-2.97 of the H100 SXM's 3.35 TB/s, 0.79-0.89 (Azure AI
// Benchmarking Guide, HBM bandwidth tables of ND_A100_v4 and ND_H100_v5; the memory_bandwidth rows of
// studies/catalog/measurements/kernels.yaml): an upper bound for kernels that do more than stream.
// The memory roof of every op is bandwidth x that share; the overloads without it take 1, the
// ideal roofline, and run the vector units at eta.
//
// Weights in a second tier (`weights_in_weight_memory`, HardwareSpec::weight_memory_bytes): a
// microcontroller that cannot hold its weights in SRAM beside the activations reads them in place
// from its memory-mapped flash. An op's memory time is then its activation bytes at the memory
// bandwidth plus its weight bytes at the weight tier's read bandwidth, both x the memory share,
// taken as serial: both tiers sit behind the same bus (STM32H743: flash and AXI SRAM on the 64-bit
// AXI matrix, RM0433). Without it the weights stream at the memory bandwidth, as before.
#pragma once

#include "engine/graph.hpp"
#include "engine/hardware.hpp"
#include "engine/precision.hpp"

namespace dsx {

// The seed's closed form.
double dispatch_gpu_utilization(double kernel_count, double compute_per_kernel_s,
                                double launch_overhead_s, double memory_s);

inline constexpr double kDefaultGraphNodeLatency_s = 0.6e-6;

// How kernels are launched: one CPU-side launch each, or one replayed CUDA graph per pass.
struct LaunchSettings {
  double launch_overhead_s = 0;       // CPU-side cost of one launch (a kernel, or a whole graph)
  bool cuda_graphs = false;
  double graph_node_latency_s = kDefaultGraphNodeLatency_s;  // device-side gap per kernel in a graph
};

// The rate of the ops that cannot use the matrix units (runs_on_vector_units, engine/graph.hpp):
// the fp32 vector peak where the entry states one and it is below the precision's peak, else the
// precision's peak.
double vector_peak_flops_per_s(const HardwareSpec& hw, Precision precision);

// The rate a language model's state-space scans run at in the training and serving solvers, which
// price them apart from the GEMMs (engine/serving.hpp ServingShape::scan_on_vector_units): Mamba-1's
// selective scan at vector_peak_flops_per_s (engine/graph.hpp runs_on_vector_units), Mamba-2's SSD
// scan at the pass's GEMM rate, the roofs op_roof gives the inference solver's ops.
double scan_peak_flops_per_s(const HardwareSpec& hw, Precision precision, bool scan_on_vector_units,
                             double gemm_peak_flops_per_s);

// CPU-side launches for a pass of `kernel_count` kernels: the kernels, or one graph replay.
double launch_count(double kernel_count, const LaunchSettings& launch);
// Dispatch time of that pass: launches x t_launch (+ kernels x t_node with graphs).
double dispatch_time_s(double kernel_count, const LaunchSettings& launch);

struct ExecutionBreakdown {
  double compute_s = 0;
  double memory_s = 0;  // exposed (not overlapped by compute)
  double dispatch_s = 0;
  double kernel_count = 0;
  double launches = 0;  // CPU-side launches (= kernel_count without CUDA graphs)
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
                                 double batch, double eta, const LaunchSettings& launch);
// The achieved fractions of the three roofs, each in (0, 1]: eta of the precision's peak,
// vector_eta of the vector peak (the ops runs_on_vector_units names), memory of the bandwidth.
struct RoofEfficiencies {
  double eta = 1;
  double vector_eta = 1;
  double memory = 1;
};

// The same with each roof at its own efficiency.
ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, const RoofEfficiencies& efficiency, const LaunchSettings& launch,
                                 bool weights_in_weight_memory = false);
// The same with one CPU-side launch per kernel (no CUDA graphs).
ExecutionBreakdown execute_graph(const ModelGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, double launch_overhead_s);
// The same walk over a flattened graph (the sweep's path): identical results, op for op.
ExecutionBreakdown execute_graph(const FlatGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, double eta, const LaunchSettings& launch);
ExecutionBreakdown execute_graph(const FlatGraph& graph, const HardwareSpec& hw, Precision precision,
                                 double batch, const RoofEfficiencies& efficiency, const LaunchSettings& launch,
                                 bool weights_in_weight_memory = false);

}  // namespace dsx
