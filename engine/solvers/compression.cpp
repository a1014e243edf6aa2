#include "engine/solvers/compression.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/carbon.hpp"
#include "engine/serving.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kPhases = {"decode", "prefill"};
constexpr std::array<std::string_view, 2> kQuantize = {"weights_only", "weights_activations"};
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};
constexpr std::array<std::string_view, 4> kKvCache = {"baseline", "fp8", "int8", "int4"};
constexpr std::array<Precision, 4> kKvCachePrecision = {Precision::fp16, Precision::fp8, Precision::int8,
                                                        Precision::int4};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr double kGroupScaleBytes = 2.0;          // one fp16 scale per group (AWQ, GPTQ)
constexpr double kBitmaskBytesPerWeight = 0.125;  // one bit per dense position
constexpr double kTwoFourIndexBytesPerKept = 0.25;  // 2 bits per kept value (Mishra et al. 2021)

constexpr std::array<ParamSpec, CompressionSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "model", .kind = ParamKind::model,
     .description = "language model (catalog id): a transformer, a hybrid (Jamba) or a Mamba stack"},
    {.name = "phase", .kind = ParamKind::choice, .choices = kPhases,
     .description = "decode (one new token for each sequence) or prefill (each sequence's prompt)",
     .has_default = true, .default_value = 0},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "sequences processed together", .has_default = true, .default_value = 1, .min_value = 1,
     .max_value = 1e9, .integer = true},
    {.name = "context_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "decode: tokens of context each sequence attends to; prefill: prompt tokens per sequence",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e8, .integer = true},
    {.name = "baseline_precision", .kind = ParamKind::precision,
     .description = "uncompressed weights, activations, KV cache and compute", .has_default = true,
     .default_value = static_cast<double>(index_of(Precision::fp16))},
    {.name = "weight_precision", .kind = ParamKind::precision,
     .description = "storage of the compressed weights (int8, int4, fp8, ...); no default"},
    {.name = "quantize", .kind = ParamKind::choice, .choices = kQuantize,
     .description = "weights_only (dequantized to the baseline for compute) or weights_activations (compute at "
                    "weight_precision)",
     .has_default = true, .default_value = 0},
    {.name = "group_size", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "weights sharing one fp16 scale and zero point (AWQ/GPTQ convention 128); 0 = scales not counted",
     .has_default = true, .default_value = 128, .min_value = 0, .max_value = 1e9, .integer = true},
    {.name = "sparsity", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "unstructured fraction of weights pruned to zero, stored as values + a 1-bit-per-weight bitmask",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "structured_2_4", .kind = ParamKind::choice, .choices = kOffOn,
     .description = "on: 2:4 structured sparsity (half the weights, 2-bit indices, linear FLOP/s at the part's "
                    "sparse_speedup; infeasible on a part without one)",
     .has_default = true, .default_value = 0},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of peak FLOP/s (default 1: the datasheet peak)", .has_default = true,
     .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "kv_cache", .kind = ParamKind::choice, .choices = kKvCache,
     .description = "storage of the KV cache in the compressed step: baseline (the baseline precision), or fp8, "
                    "int8, int4 (dequantized in the attention kernel; per-tensor scales not counted)",
     .has_default = true, .default_value = 0},
    {.name = "method", .kind = ParamKind::choice, .choices = kCompressionMethodNames,
     .description = "the compression method whose published accuracy the point cites (none, rtn, gptq, awq, "
                    "smoothquant, magnitude, sparsegpt, wanda); memory, time and energy do not depend on it",
     .has_default = true, .default_value = 0},
}};

constexpr std::array<MetricSpec, CompressionSolver::kMetricCount> kMetrics = {{
    {"baseline_weights_bytes", Dimension::bytes, "parameters x bytes of the baseline precision"},
    {"compressed_weights_bytes", Dimension::bytes,
     "parameters x (kept fraction x bytes per weight + group scales + sparsity indices)"},
    {"compression_ratio", Dimension::dimensionless, "baseline_weights_bytes / compressed_weights_bytes"},
    {"baseline_memory_bytes", Dimension::bytes, "baseline weights + batch x KV cache at the step's context"},
    {"compressed_memory_bytes", Dimension::bytes, "compressed weights + batch x KV cache at the step's context"},
    {"baseline_fits", Dimension::dimensionless, "1 when baseline_memory_bytes fits in device memory, else 0"},
    {"baseline_latency_s", Dimension::time, "roofline time of the step at the baseline precision"},
    {"compressed_latency_s", Dimension::time, "roofline time of the step with the compressed weights"},
    {"speedup", Dimension::dimensionless, "baseline_latency_s / compressed_latency_s"},
    {"flops", Dimension::flops, "FLOPs of the step (the dense count; 2:4 halves the linear ones' time, not count)"},
    {"baseline_bytes_moved", Dimension::bytes, "device-memory traffic of the baseline step"},
    {"compressed_bytes_moved", Dimension::bytes, "device-memory traffic of the compressed step"},
    {"compressed_compute_s", Dimension::time, "compressed step's FLOPs / (peak x eta), linear FLOPs at sparse_speedup x under 2:4"},
    {"compressed_memory_s", Dimension::time, "compressed_bytes_moved / memory bandwidth"},
    {"baseline_energy_per_inference_j", Dimension::energy,
     "baseline step energy / batch: per new token of a sequence (decode) or per prompt (prefill); NaN if TDP unknown"},
    {"compressed_energy_per_inference_j", Dimension::energy, "the same for the compressed step"},
    {"accuracy_delta", Dimension::dimensionless,
     "published zero-shot average accuracy, compressed - baseline (a fraction: -0.004 is 0.4 points); NaN "
     "without a published row for the point's setting (accuracy_figure)",
     MetricDomain::real},
    {"compressed_accuracy", Dimension::dimensionless,
     "published zero-shot average accuracy of the compressed model (a fraction); NaN without a row",
     MetricDomain::fraction},
    {"perplexity_delta", Dimension::dimensionless,
     "published WikiText-2 perplexity, compressed - baseline; NaN without a published row", MetricDomain::real},
    {"compressed_perplexity", Dimension::dimensionless,
     "published WikiText-2 perplexity of the compressed model; NaN without a row", MetricDomain::non_negative},
    {"accuracy_figure", Dimension::count,
     "0: a published row matched (or nothing is compressed); 1: method none; 2: no row for the model; 3: no "
     "row for this method, weight precision, quantize, group size and sparsity; 4: baseline not 16-bit or a "
     "quantized KV cache"},
}};

constexpr std::array<std::string_view, 5> kReasons = {
    kPrecisionUnsupported,
    "2:4 sparsity needs sparse tensor cores (NVIDIA Ampere or later)",
    "2:4 and unstructured sparsity together are not modelled",
    "the model is neither a transformer nor a Mamba stack (no serving view of its graph)",
    "does not fit in device memory",
};

struct StepCost {
  double flops = 0;
  double linear_flops = 0;
  double bytes = 0;
};

// FLOPs and bytes of the step, read from the serving roofline on a unit device (1 FLOP/s, 1 B/s).
StepCost step_cost(const ServingShape& s, CompressionSolver::Phase phase, double batch, double context,
                   double weight_bytes, double activation_bytes, double kv_bytes) {
  ServingDevice unit;
  unit.peak_flops_per_s = 1;
  unit.memory_bandwidth_bytes_per_s = 1;
  unit.weight_bytes_per_element = weight_bytes;
  unit.activation_bytes_per_element = activation_bytes;
  unit.kv_bytes_per_element = kv_bytes;
  const bool decoding = phase == CompressionSolver::decode;
  const PhaseTime t = decoding ? decode_step_time(s, unit, batch, context, 1.0)
                               : prefill_time(s, unit, context, batch, 1.0);
  const double tokens = decoding ? batch : batch * context;
  return {.flops = t.compute_s, .linear_flops = std::min(t.compute_s, s.linear_flops_per_token * tokens),
          .bytes = t.memory_s};
}

struct Timing {
  double compute_s = 0;
  double memory_s = 0;
  double latency_s() const { return std::max(compute_s, memory_s); }
};

// Fills the published accuracy metrics of `out` for `setting` from `rows`.
void cite_accuracy(std::span<const PublishedAccuracy> rows, const CompressionSetting& setting, bool compressed,
                   bool published_conditions, std::span<double> out) {
  using S = CompressionSolver;
  const auto fill = [&](AccuracyMetric metric, std::size_t delta, std::size_t value) {
    if (!compressed) {
      out[delta] = 0;
      if (const PublishedAccuracy* base = find_published_baseline(rows, metric)) out[value] = base->baseline;
      return true;
    }
    const PublishedAccuracy* row = find_published_accuracy(rows, setting, metric);
    if (row == nullptr) return false;
    out[delta] = row->compressed - row->baseline;
    out[value] = row->compressed;
    return true;
  };
  S::AccuracyFigure figure = S::figure_found;
  if (!published_conditions) {
    figure = S::outside_published;
  } else if (compressed && setting.method == kNoCompressionMethod) {
    figure = S::no_method;
  } else if (compressed && rows.empty()) {
    figure = S::model_without_rows;
  } else {
    const bool accuracy = fill(AccuracyMetric::zero_shot_average_accuracy, S::accuracy_delta, S::compressed_accuracy);
    const bool perplexity = fill(AccuracyMetric::wikitext2_perplexity, S::perplexity_delta, S::compressed_perplexity);
    if (!accuracy && !perplexity) figure = S::setting_without_row;
  }
  out[S::accuracy_figure] = static_cast<double>(figure);
}

Timing roofline(const StepCost& c, double peak, double linear_peak, double eta, double bandwidth) {
  return {.compute_s = (c.flops - c.linear_flops) / (peak * eta) + c.linear_flops / (linear_peak * eta),
          .memory_s = c.bytes / bandwidth};
}

}  // namespace


CompressionSolver::CompressionSolver()
    : TabledSolver("compression",
                   "quantization and pruning: weight memory, roofline latency and energy of a transformer step, "
                   "compressed against a baseline precision",
                   kParams, kMetrics, kReasons) {}

PointResult CompressionSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), kNaN);
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const Precision base = kAllPrecisions[static_cast<std::size_t>(v[Param::baseline_precision])];
  const Precision weight = kAllPrecisions[static_cast<std::size_t>(v[Param::weight_precision])];
  const bool both = static_cast<Quantize>(v[Param::quantize]) == Quantize::weights_activations;
  const Precision compute = both ? weight : base;
  const bool two_four = v[Param::structured_2_4] != 0;
  const double sparsity_fraction = v[Param::sparsity];
  if (!hw.supports(base) || !hw.supports(compute)) return {PointStatus::infeasible, precision_unsupported};
  if (two_four && !(hw.sparse_speedup > 0)) return {PointStatus::infeasible, no_sparse_tensor_cores};
  if (two_four && sparsity_fraction > 0) return {PointStatus::infeasible, sparsity_combined};
  if (!in.model->servable) return {PointStatus::infeasible, not_a_transformer};

  const ServingShape& s = in.model->serving_shape;
  const auto phase = static_cast<Phase>(v[Param::phase]);
  const double batch = v[Param::batch];
  const double context = v[Param::context_tokens];
  const double base_bytes = bytes_per_element(base);
  const double weight_bytes = bytes_per_element(weight);
  const double group = v[Param::group_size];
  const double scale_bytes = group > 0 && weight != base ? (kGroupScaleBytes + weight_bytes) / group : 0.0;
  double stored_bytes = weight_bytes + scale_bytes;
  if (two_four) {
    stored_bytes = 0.5 * (weight_bytes + kTwoFourIndexBytesPerKept) + scale_bytes;
  } else if (sparsity_fraction > 0) {
    stored_bytes = (1 - sparsity_fraction) * weight_bytes + kBitmaskBytesPerWeight + scale_bytes;
  }

  const StepCost base_cost = step_cost(s, phase, batch, context, base_bytes, base_bytes, base_bytes);
  const auto kv_choice = static_cast<std::size_t>(v[Param::kv_cache]);
  const double kv_bytes = kv_choice == 0 ? base_bytes : bytes_per_element(kKvCachePrecision[kv_choice]);
  const StepCost comp_cost =
      step_cost(s, phase, batch, context, stored_bytes, bytes_per_element(compute), kv_bytes);
  const double eta_value = v[Param::eta];
  const double bandwidth = hw.memory_bandwidth_bytes_per_s;
  const double compute_peak = hw.gemm_peak(compute);
  const Timing t_base = roofline(base_cost, hw.gemm_peak(base), hw.gemm_peak(base), eta_value, bandwidth);
  const Timing t_comp = roofline(comp_cost, compute_peak, two_four ? hw.sparse_speedup * compute_peak : compute_peak,
                                 eta_value, bandwidth);

  const double kv = batch * sequence_cache_bytes(s, context, base_bytes);
  const double kv_comp = batch * sequence_cache_bytes(s, context, kv_bytes);
  const double w_base = s.parameter_count * base_bytes;
  const double w_comp = s.parameter_count * stored_bytes;
  const double lat_base = t_base.latency_s();
  const double lat_comp = t_comp.latency_s();
  const double p_base = device_power_w(hw.tdp_w, hw.idle_power_fraction, lat_base > 0 ? t_base.compute_s / lat_base : 0);
  const double p_comp = device_power_w(hw.tdp_w, hw.idle_power_fraction, lat_comp > 0 ? t_comp.compute_s / lat_comp : 0);

  out[baseline_weights_bytes] = w_base;
  out[compressed_weights_bytes] = w_comp;
  out[compression_ratio] = w_base / w_comp;
  out[baseline_memory_bytes] = w_base + kv;
  out[compressed_memory_bytes] = w_comp + kv_comp;
  out[baseline_fits] = w_base + kv <= hw.memory_bytes ? 1.0 : 0.0;
  out[baseline_latency_s] = lat_base;
  out[compressed_latency_s] = lat_comp;
  out[speedup] = lat_comp > 0 ? lat_base / lat_comp : kNaN;
  out[flops] = comp_cost.flops;
  out[baseline_bytes_moved] = base_cost.bytes;
  out[compressed_bytes_moved] = comp_cost.bytes;
  out[compressed_compute_s] = t_comp.compute_s;
  out[compressed_memory_s] = t_comp.memory_s;
  out[baseline_energy_per_inference_j] = p_base * lat_base / batch;
  out[compressed_energy_per_inference_j] = p_comp * lat_comp / batch;
  const CompressionSetting setting{.method = static_cast<std::uint8_t>(v[Param::method]),
                                   .weight_precision = weight,
                                   .weights_activations = both,
                                   .group_size = weight != base ? group : 0.0,
                                   .sparsity = sparsity_fraction,
                                   .structured_2_4 = two_four};
  const bool compressed = weight != base || two_four || sparsity_fraction > 0 || kv_choice != 0;
  const bool sixteen_bit_base = base == Precision::fp16 || base == Precision::bf16;
  cite_accuracy(in.model->published_accuracy, setting, compressed, sixteen_bit_base && kv_choice == 0, out);
  if (w_comp + kv_comp > hw.memory_bytes) return {PointStatus::infeasible, exceeds_memory};
  return {};
}

}  // namespace dsx
