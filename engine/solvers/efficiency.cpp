#include "engine/solvers/efficiency.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/efficiency.hpp"
#include "engine/roofline.hpp"

namespace dsx {

namespace {

constexpr double kHalf = 0.5;  // the "always a good default" of seeds/004's first fallacy

constexpr std::array<ParamSpec, EfficiencySolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "model", .kind = ParamKind::model,
     .description = "workload (catalog id); one graph sample is one item (a per-token transformer: a token)"},
    {.name = "precision", .kind = ParamKind::precision, .description = "precision whose peak FLOP/s eta refers to"},
    {.name = "regime", .kind = ParamKind::choice, .choices = kEfficiencyRegimeNames,
     .description = "seeds/004 regime: default eta and range; training regimes count 3 x forward FLOPs"},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of peak for the prediction; 0 = the regime's default (engine/efficiency.hpp)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "devices", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "accelerators sharing the throughput", .has_default = true, .default_value = 1,
     .min_value = 1, .max_value = 1e8, .integer = true},
    {.name = "throughput", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "measured (or required) items per second of all devices together",
     .min_value = 0, .max_value = 1e18, .min_exclusive = true},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "items per forward pass for the roofline ceiling (weights are read once per pass)",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 1e9, .integer = true},
}};

constexpr std::array<MetricSpec, EfficiencySolver::kMetricCount> kMetrics = {{
    {"flops_per_item", Dimension::flops, "forward FLOPs per item, x 3 in training regimes"},
    {"peak_flops_per_s", Dimension::flop_rate, "dense peak of one device at the precision"},
    {"achieved_flops_per_s", Dimension::flop_rate, "throughput x flops_per_item / devices"},
    {"eta_implied", Dimension::dimensionless, "achieved / peak: the eta the throughput implies (seeds/004 step 3)"},
    {"eta_low", Dimension::dimensionless, "low end of the regime's range (seeds/004 table)"},
    {"eta_default", Dimension::dimensionless, "the regime's default: midpoint of its range"},
    {"eta_high", Dimension::dimensionless, "high end of the regime's range (seeds/004 table)"},
    {"eta_span", Dimension::dimensionless, "eta_high - eta_low: the width of the regime's range"},
    {"eta_used", Dimension::dimensionless, "eta of the prediction: the eta parameter, or the regime's default"},
    {"implied_in_range", Dimension::dimensionless, "1 when eta_implied lies in the regime's range, else 0"},
    {"implied_vs_default", Dimension::dimensionless, "eta_implied / eta_default"},
    {"predicted_throughput_items_per_s", Dimension::rate, "devices x peak x eta_used / flops_per_item"},
    {"ceiling_throughput_items_per_s", Dimension::rate, "the same at eta = 1"},
    {"half_overestimate", Dimension::dimensionless, "0.5 / eta_used: how many times eta = 0.5 overstates throughput"},
    {"half_overestimate_min", Dimension::dimensionless, "0.5 / high end of the regime's range"},
    {"half_overestimate_max", Dimension::dimensionless, "0.5 / low end of the regime's range"},
    {"roofline_eta_ceiling", Dimension::dimensionless,
     "largest eta the operator roofline allows for one forward pass of `batch` items"},
    {"arithmetic_intensity_flop_per_byte", Dimension::dimensionless, "FLOPs / bytes of one forward pass of `batch` (0 when the graph moves no bytes)"},
}};

constexpr std::array<std::string_view, 2> kReasons = {
    kPrecisionUnsupported,
    "implied eta > 1: throughput x FLOPs per item exceeds devices x peak FLOP/s, so the throughput, the "
    "FLOPs per item or the peak is wrong"};

}  // namespace

EfficiencySolver::EfficiencySolver()
    : TabledSolver("efficiency",
                   "eta implied by a throughput, and the regime table's prediction (seeds/004)",
                   kParams, kMetrics, kReasons) {}

PointResult EfficiencySolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& hw = *in.hardware;
  const ModelGraph& graph = in.model->eager;
  const auto precision = kAllPrecisions[static_cast<std::size_t>(in.values[Param::precision])];
  const auto regime_id = static_cast<EfficiencyRegime>(in.values[Param::regime]);
  const RegimeEfficiency& r = regime_efficiency(regime_id);
  const double n_devices = in.values[Param::devices];
  const double items_per_pass = in.values[Param::batch];
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  out[eta_low] = r.low;
  out[eta_default] = r.default_eta;
  out[eta_high] = r.high;
  out[eta_span] = r.high - r.low;
  out[half_overestimate_min] = kHalf / r.high;
  out[half_overestimate_max] = kHalf / r.low;
  if (!hw.supports(precision)) return {PointStatus::infeasible, precision_unsupported};

  const double peak = hw.peak(precision);
  const double flops = regime_flops_per_item(graph.total_flops_per_sample(), regime_id);
  const EtaCalibration c = calibrate_eta(in.values[Param::throughput], flops, peak, n_devices);
  const double used = eta_or_default(in.values[Param::eta], regime_id);

  double pass_flops = 0;
  double pass_bytes = 0;
  double pass_time_at_peak = 0;
  for (const Op& op : graph.ops) {
    const OpCost cost = op_cost(op, precision, items_per_pass, peak, hw.memory_bandwidth_bytes_per_s);
    pass_flops += cost.flops * op.repeat;
    pass_bytes += cost.bytes * op.repeat;
    pass_time_at_peak += cost.busy_s() * op.repeat;
  }

  out[flops_per_item] = flops;
  out[peak_flops_per_s] = peak;
  out[achieved_flops_per_s] = c.achieved_flops_per_s;
  out[eta_implied] = c.eta;
  out[eta_used] = used;
  out[implied_in_range] = eta_in_regime_range(c.eta, regime_id) ? 1.0 : 0.0;
  out[implied_vs_default] = c.eta / r.default_eta;
  out[predicted_throughput_items_per_s] = n_devices * peak * used / flops;
  out[ceiling_throughput_items_per_s] = n_devices * peak / flops;
  out[half_overestimate] = kHalf / used;
  out[roofline_eta_ceiling] = pass_time_at_peak > 0 ? pass_flops / (peak * pass_time_at_peak) : 1.0;
  out[arithmetic_intensity_flop_per_byte] =
      pass_bytes > 0 ? pass_flops / pass_bytes : 0.0;
  if (!c.consistent) return {PointStatus::infeasible, eta_above_one};
  return {};
}

}  // namespace dsx
