#include "engine/solvers/attention.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/waves.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kCausal = {"no", "yes"};
constexpr std::array<std::string_view, 3> kPasses = {"forward", "backward", "forward_backward"};
constexpr std::array<std::string_view, 2> kKernels = {"fused", "unfused"};
// FLOPs of each pass as a multiple of the forward's, and the tensors of batch x heads x tokens x
// head_dim each pass moves: (queries side: Q, O, dO, dQ) and (keys side: K, V, dK, dV).
constexpr std::array<double, 3> kFlopsFactor = {1.0, 2.5, 3.5};
constexpr std::array<double, 3> kQuerySideTensors = {2, 4, 6};
constexpr std::array<double, 3> kKeySideTensors = {2, 4, 6};
constexpr std::array<double, 3> kScorePasses = {4, 6, 10};

constexpr std::array<ParamSpec, AttentionSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "precision", .kind = ParamKind::precision, .description = "precision of Q, K, V and of the peak"},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count, .description = "sequences",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 1e7, .integer = true},
    {.name = "heads", .kind = ParamKind::number, .dimension = Dimension::count, .description = "query heads",
     .min_value = 1, .max_value = 1e5, .integer = true},
    {.name = "kv_heads", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "key/value heads (grouped-query attention); 0 = heads", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e5, .integer = true},
    {.name = "head_dim", .kind = ParamKind::number, .dimension = Dimension::count, .description = "dimension of one head",
     .min_value = 1, .max_value = 1e5, .integer = true},
    {.name = "seq_len", .kind = ParamKind::number, .dimension = Dimension::count, .description = "query tokens per sequence",
     .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "kv_seq_len", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "key/value tokens per sequence; 0 = seq_len", .has_default = true, .default_value = 0,
     .min_value = 0, .max_value = 1e9, .integer = true},
    {.name = "causal", .kind = ParamKind::choice, .choices = kCausal,
     .description = "causal mask: a query attends only earlier keys (half the FLOPs, by the papers' convention)",
     .has_default = true, .default_value = 0},
    {.name = "pass", .kind = ParamKind::choice, .choices = kPasses,
     .description = "forward, backward (2.5 x forward FLOPs) or both (3.5 x)", .has_default = true, .default_value = 0},
    {.name = "kernel", .kind = ParamKind::choice, .choices = kKernels,
     .description = "fused (FlashAttention: scores stay on chip) or unfused (scores through memory)",
     .has_default = true, .default_value = 0},
    {.name = "query_tile", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "query rows one compute unit handles at a time (FlashAttention-2: 128)", .has_default = true,
     .default_value = 128, .min_value = 1, .max_value = 1e5, .integer = true},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of the dense peak the kernel reaches in full waves (default 1; calibrated)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the datasheet memory bandwidth (default 1; calibrated)", .has_default = true,
     .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "launch_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "fixed time of one call (default 0; calibrated)", .has_default = true, .default_value = 0,
     .min_value = 0, .max_value = 1},
}};

constexpr std::array<MetricSpec, AttentionSolver::kMetricCount> kMetrics = {{
    {"time_s", Dimension::time, "launch_overhead + max(compute_s, memory_s)"},
    {"achieved_flops_per_s", Dimension::flop_rate, "flops / time_s (what a kernel benchmark reports)"},
    {"peak_fraction", Dimension::dimensionless, "achieved_flops_per_s / dense peak of the precision", MetricDomain::fraction},
    {"flops", Dimension::flops, "4 b h s_q s_k d (halved when causal) x 1, 2.5 or 3.5 by pass"},
    {"bytes_moved", Dimension::bytes, "Q/K/V/O (and gradients) once; unfused adds the score matrix's passes"},
    {"compute_s", Dimension::time, "flops / (eta x peak) / wave_efficiency"},
    {"memory_s", Dimension::time, "bytes_moved / (memory_efficiency x memory bandwidth)"},
    {"tiles", Dimension::count, "batch x heads x ceil(seq_len / query_tile)"},
    {"waves", Dimension::count, "ceil(tiles / compute units); 1 when the units are unknown"},
    {"wave_efficiency", Dimension::dimensionless, "tiles / (waves x compute units)", MetricDomain::fraction},
    {"arithmetic_intensity_flop_per_byte", Dimension::dimensionless, "flops / bytes_moved"},
}};

constexpr std::array<std::string_view, 2> kReasons = {kPrecisionUnsupported, "kv_heads must divide heads"};

}  // namespace

AttentionSolver::AttentionSolver()
    : TabledSolver("attention", "one attention kernel call (fused or not, forward/backward): FLOPs, traffic, achieved FLOP/s",
                   kParams, kMetrics, kReasons) {}

PointResult AttentionSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const Precision p = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  if (!hw.supports(p)) return {PointStatus::infeasible, precision_unsupported};
  const double b = v[Param::batch], h = v[Param::heads], d = v[Param::head_dim], sq = v[Param::seq_len];
  const double kvh = v[Param::kv_heads] > 0 ? v[Param::kv_heads] : h;
  if (std::fmod(h, kvh) != 0) return {PointStatus::infeasible, kv_heads_must_divide_heads};
  const double sk = v[Param::kv_seq_len] > 0 ? v[Param::kv_seq_len] : sq;
  const auto pass_index = static_cast<std::size_t>(v[Param::pass]);
  const bool causal_mask = v[Param::causal] != 0;
  const bool fused = v[Param::kernel] == 0;
  const double forward_flops = 4 * b * h * sq * sk * d / (causal_mask ? 2.0 : 1.0);
  const double total_flops = forward_flops * kFlopsFactor[pass_index];
  const double e = bytes_per_element(p);
  double moved = (kQuerySideTensors[pass_index] * h * sq + kKeySideTensors[pass_index] * kvh * sk) * b * d * e;
  if (!fused) moved += kScorePasses[pass_index] * b * h * sq * sk * e;
  const double tile_count = b * h * std::ceil(sq / v[Param::query_tile]);
  const double units = hw.compute_units;
  const Waves w = wave_quantization(tile_count, units);
  const double compute = total_flops / (v[Param::eta] * hw.gemm_peak(p)) / w.efficiency;
  const double memory = moved / (v[Param::memory_efficiency] * hw.memory_bandwidth_bytes_per_s);
  const double t = v[Param::launch_overhead] + std::max(compute, memory);
  out[time_s] = t;
  out[achieved_flops_per_s] = total_flops / t;
  out[peak_fraction] = total_flops / t / hw.peak(p);
  out[flops] = total_flops;
  out[bytes_moved] = moved;
  out[compute_s] = compute;
  out[memory_s] = memory;
  out[tiles] = tile_count;
  out[waves] = w.count;
  out[wave_efficiency] = w.efficiency;
  out[arithmetic_intensity_flop_per_byte] = total_flops / moved;
  return {};
}

}  // namespace dsx
