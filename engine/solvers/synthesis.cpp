#include "engine/solvers/synthesis.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/dispatch.hpp"
#include "engine/serving.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kPhases = {"decode", "step"};

constexpr std::array<ParamSpec, SynthesisSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware,
     .description = "accelerator (catalog id) checked against the requirement"},
    {.name = "model", .kind = ParamKind::model,
     .description = "catalog model: a transformer or a Mamba stack for phase decode, any model for phase step"},
    {.name = "precision", .kind = ParamKind::precision, .description = "weights, activations and the compute roof"},
    {.name = "kv_precision", .kind = ParamKind::precision, .description = "storage of the KV cache (phase decode)",
     .has_default = true, .default_value = static_cast<double>(index_of(Precision::fp16))},
    {.name = "phase", .kind = ParamKind::choice, .choices = kPhases,
     .description = "decode (one token for each sequence of the batch; target = time per output token) or step "
                    "(one forward pass at the batch; target = its latency)",
     .has_default = true, .default_value = 0},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "sequences (decode) or samples (step) processed together", .has_default = true,
     .default_value = 1, .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "context_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "tokens of context each sequence attends to and caches (phase decode)", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e8, .integer = true},
    {.name = "target_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "latency target: per output token (decode) or per step", .min_value = 0, .max_value = 1e6,
     .min_exclusive = true},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of peak FLOP/s (default 1: the datasheet peak)", .has_default = true,
     .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the datasheet memory bandwidth (default 1)", .has_default = true,
     .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
}};

constexpr std::array<MetricSpec, SynthesisSolver::kMetricCount> kMetrics = {{
    {"flops", Dimension::flops, "FLOPs of one decode step (all sequences) or one forward pass"},
    {"bytes_moved", Dimension::bytes, "bytes that step reads and writes in device memory"},
    {"required_flops_per_s", Dimension::flop_rate, "flops / (target_latency x eta)"},
    {"required_bandwidth_bytes_per_s", Dimension::bandwidth, "bytes_moved / (target_latency x memory_efficiency)"},
    {"required_memory_bytes", Dimension::bytes,
     "decode: weights + batch x KV cache at context_tokens; step: weights + largest op's activations x batch"},
    {"required_intensity_flop_per_byte", Dimension::dimensionless,
     "required_flops_per_s / required_bandwidth_bytes_per_s: the ridge point a balanced part would have"},
    {"flops_headroom", Dimension::dimensionless, "hardware peak at the precision / required_flops_per_s"},
    {"bandwidth_headroom", Dimension::dimensionless, "hardware memory bandwidth / required_bandwidth_bytes_per_s"},
    {"memory_headroom", Dimension::dimensionless, "hardware memory / required_memory_bytes"},
    {"meets_target", Dimension::dimensionless, "1 when every headroom is >= 1, else 0"},
    {"latency_s", Dimension::time, "max(flops / (peak x eta), bytes_moved / (bandwidth x memory_efficiency)) on the hardware"},
}};

constexpr std::array<std::string_view, 2> kReasons = {
    kPrecisionUnsupported,
    "phase decode needs a language model of attention or Mamba layers (a serving view of its graph)",
};

}  // namespace

SynthesisSolver::SynthesisSolver()
    : TabledSolver("synthesis",
                   "inverse roofline: peak FLOP/s, memory bandwidth and capacity a workload needs to meet a "
                   "latency target, and whether the hardware has them",
                   kParams, kMetrics, kReasons) {}

PointResult SynthesisSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const Precision p = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  if (!hw.supports(p)) return {PointStatus::infeasible, precision_unsupported};
  const double batch = v[Param::batch];
  const double bytes_per = bytes_per_element(p);

  double step_flops = 0, step_bytes = 0, memory = 0;
  if (static_cast<Phase>(v[Param::phase]) == Phase::decode) {
    if (!in.model->servable) return {PointStatus::infeasible, not_a_transformer};
    const ServingShape& s = in.model->serving_shape;
    const double kv_bytes = bytes_per_element(kAllPrecisions[static_cast<std::size_t>(v[Param::kv_precision])]);
    ServingDevice unit;
    unit.peak_flops_per_s = 1;
    unit.memory_bandwidth_bytes_per_s = 1;
    unit.weight_bytes_per_element = bytes_per;
    unit.kv_bytes_per_element = kv_bytes;
    const PhaseTime t = decode_step_time(s, unit, batch, v[Param::context_tokens], 1.0);
    step_flops = t.compute_s;
    step_bytes = t.memory_s;
    memory = s.parameter_count * bytes_per + batch * sequence_cache_bytes(s, v[Param::context_tokens], kv_bytes);
  } else {
    HardwareSpec unit;
    unit.peak_flops_per_s[index_of(p)] = 1;
    unit.memory_bandwidth_bytes_per_s = 1;
    const FlatGraph& graph = in.model->flat_eager;
    const ExecutionBreakdown b = execute_graph(graph, unit, p, batch, 1.0, LaunchSettings{});
    step_flops = b.flops;
    step_bytes = b.bytes;
    memory = (graph.resident_weight_elements + graph.largest_activation_elements_per_sample * batch) * bytes_per;
  }

  const double target = v[Param::target_latency];
  const double need_flops = step_flops / (target * v[Param::eta]);
  const double need_bandwidth = step_bytes / (target * v[Param::memory_efficiency]);
  const double flops_room = hw.gemm_peak(p) / need_flops;
  const double bandwidth_room = hw.memory_bandwidth_bytes_per_s / need_bandwidth;
  const double memory_room = hw.memory_bytes / memory;
  out[flops] = step_flops;
  out[bytes_moved] = step_bytes;
  out[required_flops_per_s] = need_flops;
  out[required_bandwidth_bytes_per_s] = need_bandwidth;
  out[required_memory_bytes] = memory;
  out[required_intensity_flop_per_byte] = need_flops / need_bandwidth;
  out[flops_headroom] = flops_room;
  out[bandwidth_headroom] = bandwidth_room;
  out[memory_headroom] = memory_room;
  out[meets_target] = flops_room >= 1 && bandwidth_room >= 1 && memory_room >= 1 ? 1.0 : 0.0;
  out[latency_s] = std::max(step_flops / (hw.gemm_peak(p) * v[Param::eta]),
                            step_bytes / (hw.memory_bandwidth_bytes_per_s * v[Param::memory_efficiency]));
  return {};
}

}  // namespace dsx
