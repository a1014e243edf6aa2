#include "engine/solvers/inference.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/carbon.hpp"
#include "engine/dispatch.hpp"
#include "engine/fusion.hpp"
#include "engine/roofline.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kExecutions = {"eager", "compiled"};
// Choice index -> policy; the default comes first, so a zero-filled parameter vector is the default.
constexpr std::array<std::string_view, 3> kFusionChoices = {"elementwise_norm", "elementwise", "none"};
constexpr std::array<FusionPolicy, 3> kFusionPolicies = {FusionPolicy::elementwise_norm, FusionPolicy::elementwise,
                                                         FusionPolicy::none};
static_assert(kFusionPolicies[0] == kDefaultFusionPolicy);
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};
constexpr double kHuge = std::numeric_limits<double>::max();

constexpr std::array<ParamSpec, InferenceSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "model", .kind = ParamKind::model, .description = "model (catalog id)"},
    {.name = "precision", .kind = ParamKind::precision,
     .description = "numeric precision of weights, activations and the compute roof"},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "samples per forward pass", .has_default = true, .default_value = 1,
     .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "execution", .kind = ParamKind::choice, .choices = kExecutions,
     .description = "eager (one kernel per op) or compiled (element-wise chains fused)",
     .has_default = true, .default_value = 0},
    {.name = "launch_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "CPU-side cost of one kernel launch (5-20 µs in eager frameworks, seeds/000)",
     .min_value = 0, .max_value = 1.0},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of peak FLOP/s (seeds/004); no default",
     .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "fusion", .kind = ParamKind::choice, .choices = kFusionChoices,
     .description = "what compiled mode fuses: elementwise_norm (element-wise chains and normalizations), "
                    "elementwise (epilogues and element-wise chains only) or none",
     .has_default = true, .default_value = 0},
    {.name = "cuda_graphs", .kind = ParamKind::choice, .choices = kOffOn,
     .description = "on: the pass is replayed as one CUDA graph (one CPU-side launch + graph_node_latency per kernel)",
     .has_default = true, .default_value = 0},
    {.name = "graph_node_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "device-side latency per kernel in a replayed CUDA graph (~0.6 µs measured, engine/dispatch.hpp)",
     .has_default = true, .default_value = kDefaultGraphNodeLatency_s, .min_value = 0, .max_value = 1e-3},
    {.name = "compile_time", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "one-time compile cost in compiled mode (seeds/000: ~30 s ResNet-50, ~10 s KWS); 0 = not counted",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e9},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the memory bandwidth on every op's memory roof (1: the ideal roofline)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
}};

constexpr std::array<MetricSpec, InferenceSolver::kMetricCount> kMetrics = {{
    {"latency_s", Dimension::time, "wall time of one forward pass: compute + exposed memory + dispatch"},
    {"throughput_samples_per_s", Dimension::rate, "batch / latency"},
    {"gpu_utilization", Dimension::dimensionless, "compute time / latency (seeds/000 formula)", MetricDomain::fraction},
    {"dispatch_share", Dimension::dimensionless, "dispatch time / latency"},
    {"memory_share", Dimension::dimensionless, "exposed memory time / latency"},
    {"compute_s", Dimension::time, "sum over ops of FLOPs / (peak x eta)"},
    {"memory_s", Dimension::time, "memory time not hidden behind compute (bytes / (bandwidth x memory_efficiency))"},
    {"dispatch_s", Dimension::time, "launches x launch overhead (+ kernels x graph_node_latency with CUDA graphs)"},
    {"kernel_count", Dimension::count, "kernel launches per forward pass"},
    {"flops", Dimension::flops, "FLOP per forward pass"},
    {"bytes_moved", Dimension::bytes, "device-memory traffic per forward pass"},
    {"arithmetic_intensity_flop_per_byte", Dimension::dimensionless, "flops / bytes_moved"},
    {"memory_footprint_bytes", Dimension::bytes, "weights + largest op's activations"},
    {"power_w", Dimension::power, "average power: TDP x (idle + (1 - idle) x utilization)"},
    {"energy_j", Dimension::energy, "energy of one forward pass"},
    {"energy_per_sample_j", Dimension::energy, "energy_j / batch"},
    {"launch_count", Dimension::count, "CPU-side launches: one per kernel, or one graph replay with CUDA graphs"},
    {"attainable_flops_per_s", Dimension::flop_rate,
     "flops / (compute_s + memory_s): the roofline rate while kernels run, dispatch excluded"},
    {"peak_flops_fraction", Dimension::dimensionless, "flops / latency / peak FLOP/s of the precision", MetricDomain::fraction},
    {"ridge_point_flop_per_byte", Dimension::dimensionless, "peak FLOP/s of the precision / memory bandwidth"},
    {"eager_latency_s", Dimension::time, "latency of the same point run eagerly, one launch per kernel"},
    {"speedup_vs_eager", Dimension::dimensionless, "eager_latency_s / latency_s"},
    {"compile_time_s", Dimension::time, "one-time compile cost: compile_time when compiled, 0 when eager"},
    {"breakeven_inferences", Dimension::count,
     "passes after which the compile pays for itself: compile_time_s / (eager_latency_s - latency_s)"},
}};

constexpr std::array<std::string_view, 2> kReasons = {kPrecisionUnsupported,
                                                      "does not fit in device memory"};

}  // namespace

InferenceSolver::InferenceSolver()
    : TabledSolver("inference",
                   "one forward pass: operator roofline + dispatch tax, eager or compiled",
                   kParams, kMetrics, kReasons) {}

PointResult InferenceSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& hw = *in.hardware;
  const auto precision = kAllPrecisions[static_cast<std::size_t>(in.values[Param::precision])];
  const double batch = in.values[Param::batch];
  const auto execution = static_cast<Execution>(in.values[Param::execution]);
  const FusionPolicy policy = kFusionPolicies[static_cast<std::size_t>(in.values[Param::fusion])];
  const FlatGraph& graph = in.model->flat(execution, policy);
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  if (!hw.supports(precision)) return {PointStatus::infeasible, precision_unsupported};

  const double eta_value = in.values[Param::eta];
  const LaunchSettings launch{.launch_overhead_s = in.values[Param::launch_overhead],
                              .cuda_graphs = in.values[Param::cuda_graphs] != 0,
                              .graph_node_latency_s = in.values[Param::graph_node_latency]};
  const RoofEfficiencies efficiency{
      .eta = eta_value, .vector_eta = eta_value, .memory = in.values[Param::memory_efficiency]};
  const double bytes_per_value = bytes_per_element(precision);
  const double footprint =
      (graph.resident_weight_elements + graph.largest_activation_elements_per_sample * batch) * bytes_per_value;
  // Weights that do not fit in memory beside the activations are read from the weight tier, if the
  // hardware has one (a microcontroller's flash, engine/dispatch.hpp).
  const bool weights_in_weight_memory = footprint > hw.memory_bytes && hw.has_weight_memory();
  const bool fits =
      weights_in_weight_memory
          ? graph.resident_weight_elements * bytes_per_value <= hw.weight_memory_bytes &&
                graph.largest_activation_elements_per_sample * batch * bytes_per_value <= hw.memory_bytes
          : footprint <= hw.memory_bytes;
  const ExecutionBreakdown b =
      execute_graph(graph, hw, precision, batch, efficiency, launch, weights_in_weight_memory);
  // The eager baseline: the same pass when eager (only the launches differ), else the eager graph.
  const LaunchSettings eager_launch{.launch_overhead_s = launch.launch_overhead_s};
  double eager_latency = 0;
  if (execution == Execution::eager) {
    ExecutionBreakdown eager = b;
    eager.dispatch_s = dispatch_time_s(b.kernel_count, eager_launch);
    eager_latency = eager.latency_s();
  } else {
    eager_latency =
        execute_graph(in.model->flat_eager, hw, precision, batch, efficiency, eager_launch, weights_in_weight_memory)
            .latency_s();
  }
  const double compile_s = execution == Execution::compiled ? in.values[Param::compile_time] : 0.0;
  const double latency = b.latency_s();
  const double utilization = b.gpu_utilization();
  const double power = device_power_w(hw.tdp_w, hw.idle_power_fraction, utilization);  // NaN: TDP unknown

  out[latency_s] = latency;
  out[throughput_samples_per_s] = latency > 0 ? batch / latency : kHuge;
  out[gpu_utilization] = utilization;
  out[dispatch_share] = b.dispatch_share();
  out[memory_share] = b.memory_s / latency;
  out[compute_s] = b.compute_s;
  out[memory_s] = b.memory_s;
  out[dispatch_s] = b.dispatch_s;
  out[kernel_count] = b.kernel_count;
  out[flops] = b.flops;
  out[bytes_moved] = b.bytes;
  out[arithmetic_intensity_flop_per_byte] = b.intensity_flop_per_byte();
  out[memory_footprint_bytes] = footprint;
  out[power_w] = power;
  out[energy_j] = power * latency;
  out[energy_per_sample_j] = power * latency / batch;
  out[launch_count] = b.launches;
  const double busy = b.compute_s + b.memory_s;
  out[attainable_flops_per_s] = busy > 0 ? b.flops / busy : 0.0;
  out[peak_flops_fraction] = latency > 0 ? b.flops / latency / hw.peak(precision) : 0.0;
  out[ridge_point_flop_per_byte] = dsx::ridge_point_flop_per_byte(hw.peak(precision), hw.memory_bandwidth_bytes_per_s);
  out[eager_latency_s] = eager_latency;
  out[speedup_vs_eager] = latency > 0 ? eager_latency / latency : 1.0;
  out[compile_time_s] = compile_s;
  out[breakeven_inferences] = compile_breakeven_passes(compile_s, eager_latency, latency);
  if (!fits) return {PointStatus::infeasible, exceeds_memory};
  return {};
}

}  // namespace dsx
