#include "engine/solvers/dispatch_tax.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/dispatch.hpp"
#include "engine/fusion.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kExecutions = {"eager", "compiled"};
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};

constexpr std::array<ParamSpec, DispatchTaxSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "model", .kind = ParamKind::model,
     .description = "model whose forward pass gives the work: compute and memory time (catalog id)"},
    {.name = "precision", .kind = ParamKind::precision, .description = "numeric precision of the compute roof and tensors"},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of peak FLOP/s (seeds/004); no default",
     .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "samples per forward pass", .has_default = true, .default_value = 1,
     .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "kernel_count", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "eager kernels the pass's work is split into (the seed's slider: 10 to 10,000)",
     .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "launch_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "CPU-side cost of one kernel launch (5-20 µs in eager frameworks, seeds/000)",
     .min_value = 0, .max_value = 1.0},
    {.name = "execution", .kind = ParamKind::choice, .choices = kExecutions,
     .description = "eager (kernel_count launches) or compiled (fusion_cut of them fused away)",
     .has_default = true, .default_value = 0},
    {.name = "fusion_cut", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of kernels compiled mode fuses away (seeds/000: 30-80%; 0.75 = 1 conv + 3 "
                    "element-wise kernels per fused group)",
     .has_default = true, .default_value = 0.75, .min_value = 0, .max_value = 1},
    {.name = "cuda_graphs", .kind = ParamKind::choice, .choices = kOffOn,
     .description = "on: the pass is replayed as one CUDA graph (one CPU-side launch + graph_node_latency per kernel)",
     .has_default = true, .default_value = 0},
    {.name = "graph_node_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "device-side latency per kernel in a replayed CUDA graph (~0.6 µs measured, engine/dispatch.hpp)",
     .has_default = true, .default_value = kDefaultGraphNodeLatency_s, .min_value = 0, .max_value = 1e-3},
}};

constexpr std::array<MetricSpec, DispatchTaxSolver::kMetricCount> kMetrics = {{
    {"latency_s", Dimension::time, "wall time of one forward pass: compute + exposed memory + dispatch"},
    {"throughput_samples_per_s", Dimension::rate, "batch / latency"},
    {"gpu_utilization", Dimension::dimensionless, "compute / latency (seeds/000 formula)", MetricDomain::fraction},
    {"memory_share", Dimension::dimensionless, "exposed memory time / latency"},
    {"dispatch_share", Dimension::dimensionless, "dispatch time / latency"},
    {"compute_s", Dimension::time, "sum over the model's ops of FLOPs / (peak x eta)"},
    {"memory_s", Dimension::time, "memory time not hidden behind compute (per-op roofline)"},
    {"dispatch_s", Dimension::time, "launches x launch overhead (+ kernels x graph_node_latency with CUDA graphs)"},
    {"kernels_launched", Dimension::count, "kernels run: kernel_count eager, after the fusion cut compiled"},
    {"launch_count", Dimension::count, "CPU-side launches: one per kernel, or one graph replay with CUDA graphs"},
    {"compute_per_kernel_s", Dimension::time, "compute_s / kernels_launched"},
    {"model_kernel_count", Dimension::count, "kernels the model's own eager graph launches (for reference)"},
    {"eager_latency_s", Dimension::time, "latency of the same point eager, one launch per kernel"},
    {"speedup_vs_eager", Dimension::dimensionless, "eager_latency_s / latency_s (throughput gain)"},
}};

constexpr std::array<std::string_view, 1> kReasons = {kPrecisionUnsupported};

}  // namespace

DispatchTaxSolver::DispatchTaxSolver()
    : TabledSolver("dispatch_tax",
                   "one forward pass of fixed work split into N kernels: compute, memory and dispatch (lab_07 Act 1)",
                   kParams, kMetrics, kReasons) {}

PointResult DispatchTaxSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& hw = *in.hardware;
  const auto precision = kAllPrecisions[static_cast<std::size_t>(in.values[Param::precision])];
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  if (!hw.supports(precision)) return {PointStatus::infeasible, precision_unsupported};

  const ModelGraph& graph = in.model->eager;
  const double batch = in.values[Param::batch];
  const LaunchSettings launch{.launch_overhead_s = in.values[Param::launch_overhead],
                              .cuda_graphs = in.values[Param::cuda_graphs] != 0,
                              .graph_node_latency_s = in.values[Param::graph_node_latency]};
  // The work alone: no launches.
  const ExecutionBreakdown work = execute_graph(graph, hw, precision, batch, in.values[Param::eta], 0.0);
  const double eager_kernels = in.values[Param::kernel_count];
  const bool compiled = static_cast<Execution>(in.values[Param::execution]) == Execution::compiled;
  const double kernels = compiled ? fused_kernel_count(eager_kernels, in.values[Param::fusion_cut]) : eager_kernels;

  const double dispatch = dispatch_time_s(kernels, launch);
  const double latency = work.compute_s + work.memory_s + dispatch;
  const double eager_latency =
      work.compute_s + work.memory_s + dispatch_time_s(eager_kernels, LaunchSettings{launch.launch_overhead_s});

  out[latency_s] = latency;
  out[throughput_samples_per_s] = latency > 0 ? batch / latency : std::numeric_limits<double>::max();
  out[gpu_utilization] = latency > 0 ? work.compute_s / latency : 0.0;
  out[memory_share] = latency > 0 ? work.memory_s / latency : 0.0;
  out[dispatch_share] = latency > 0 ? dispatch / latency : 0.0;
  out[compute_s] = work.compute_s;
  out[memory_s] = work.memory_s;
  out[dispatch_s] = dispatch;
  out[kernels_launched] = kernels;
  out[launch_count] = dsx::launch_count(kernels, launch);
  out[compute_per_kernel_s] = work.compute_s / kernels;
  out[model_kernel_count] = work.kernel_count;
  out[eager_latency_s] = eager_latency;
  out[speedup_vs_eager] = latency > 0 ? eager_latency / latency : 1.0;
  return {};
}

}  // namespace dsx
