#include "engine/solvers/inference.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/dispatch.hpp"
#include "engine/roofline.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kExecutions = {"eager", "compiled"};
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
     .description = "CPU-side cost of one kernel launch (5-20 us in eager frameworks, seeds/000)",
     .min_value = 0, .max_value = 1.0},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of peak FLOP/s (seeds/004); no default",
     .min_value = 0, .max_value = 1, .min_exclusive = true},
}};

constexpr std::array<MetricSpec, InferenceSolver::kMetricCount> kMetrics = {{
    {"latency_s", Dimension::time, "wall time of one forward pass: compute + exposed memory + dispatch"},
    {"throughput_samples_per_s", Dimension::rate, "batch / latency"},
    {"gpu_utilization", Dimension::dimensionless, "compute time / latency (seeds/000 formula)"},
    {"dispatch_share", Dimension::dimensionless, "launch overhead / latency"},
    {"memory_share", Dimension::dimensionless, "exposed memory time / latency"},
    {"compute_s", Dimension::time, "sum over ops of FLOPs / (peak x eta)"},
    {"memory_s", Dimension::time, "memory time not hidden behind compute"},
    {"dispatch_s", Dimension::time, "kernels x launch overhead"},
    {"kernel_count", Dimension::count, "kernel launches per forward pass"},
    {"flops", Dimension::flops, "FLOP per forward pass"},
    {"bytes_moved", Dimension::bytes, "device-memory traffic per forward pass"},
    {"arithmetic_intensity_flop_per_byte", Dimension::dimensionless, "flops / bytes_moved"},
    {"memory_footprint_bytes", Dimension::bytes, "weights + largest op's activations"},
    {"power_w", Dimension::power, "average power: TDP x (idle + (1 - idle) x utilization)"},
    {"energy_j", Dimension::energy, "energy of one forward pass"},
    {"energy_per_sample_j", Dimension::energy, "energy_j / batch"},
}};

constexpr std::array<std::string_view, 2> kReasons = {"precision not supported by the hardware",
                                                      "does not fit in device memory"};

}  // namespace

std::string_view InferenceSolver::description() const {
  return "one forward pass: operator roofline + dispatch tax, eager or compiled";
}
std::span<const ParamSpec> InferenceSolver::params() const { return kParams; }
std::span<const MetricSpec> InferenceSolver::metrics() const { return kMetrics; }
std::span<const std::string_view> InferenceSolver::reasons() const { return kReasons; }

PointResult InferenceSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& hw = *in.hardware;
  const auto precision = kAllPrecisions[static_cast<std::size_t>(in.values[Param::precision])];
  const double batch = in.values[Param::batch];
  const auto execution = static_cast<Execution>(in.values[Param::execution]);
  const ModelGraph& graph = in.model->graph(execution);
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  if (!hw.supports(precision)) return {PointStatus::infeasible, precision_unsupported};

  const ExecutionBreakdown b = execute_graph(graph, hw, precision, batch, in.values[Param::eta],
                                             in.values[Param::launch_overhead]);
  double largest_activation_elements = 0;
  for (const Op& op : graph.ops) {
    largest_activation_elements = std::max(
        largest_activation_elements, op.input_elements_per_sample + op.output_elements_per_sample);
  }
  // Weights resident in memory: every parameter, including embedding rows a pass does not read.
  const double weights =
      graph.parameter_count > 0 ? graph.parameter_count : graph.total_weight_elements();
  const double footprint = (weights + largest_activation_elements * batch) * bytes_per_element(precision);
  const double latency = b.latency_s();
  const double utilization = b.gpu_utilization();
  const double power = hw.tdp_w * (hw.idle_power_fraction + (1.0 - hw.idle_power_fraction) * utilization);

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
  if (footprint > hw.memory_bytes) return {PointStatus::infeasible, exceeds_memory};
  return {};
}

}  // namespace dsx
