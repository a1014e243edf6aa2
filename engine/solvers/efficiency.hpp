// Solver "efficiency": what eta a throughput implies, and what the regime table predicts (seeds/004
// "Understanding the Efficiency Parameter": the guide table, the calibration procedure, the fallacies).
//
// Per design point (a model on `devices` accelerators, a regime, a throughput):
//   flops_per_item   = forward FLOPs of one graph sample (engine/model_builders.hpp), x 3 in the
//                      training regimes (engine/efficiency.hpp); a per-token transformer (seq_len 1)
//                      gives FLOPs per token
//   eta_implied      = throughput x flops_per_item / (devices x peak(precision))   (seeds/004 step 3);
//                      above 1 the point is infeasible: the inputs contradict each other
//   eta_used         = eta when given, else the regime's default (the midpoint of the seed's range)
//   predicted        = devices x peak x eta_used / flops_per_item                  (seeds/004 "Time =
//                      FLOPs / (Peak x eta)")
//   half_overestimate = 0.5 / eta_used: how many times eta = 0.5 overstates the throughput (the
//                      fallacy "eta = 0.5 is always a good default"); _min and _max over the range
//   roofline_eta_ceiling = FLOPs / (peak x sum over ops of max(FLOPs / peak, bytes / bandwidth)) for
//                      one forward pass of `batch` items on the eager graph (engine/roofline.hpp): the
//                      largest eta the memory system allows. Decode at batch 1 reads every weight per
//                      token, so its ceiling is about bandwidth / peak and falls on a GPU whose peak
//                      grows faster than its bandwidth (the fallacy "buy faster hardware").
// The KV cache is not in the graph: the ceiling of decode at long contexts is lower than shown.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class EfficiencySolver final : public TabledSolver {
 public:
  enum Param : std::size_t { hardware, model, precision, regime, eta, devices, throughput, batch, kParamCount };
  enum Metric : std::size_t {
    flops_per_item,
    peak_flops_per_s,
    achieved_flops_per_s,
    eta_implied,
    eta_low,
    eta_default,
    eta_high,
    eta_span,
    eta_used,
    implied_in_range,
    implied_vs_default,
    predicted_throughput_items_per_s,
    ceiling_throughput_items_per_s,
    half_overestimate,
    half_overestimate_min,
    half_overestimate_max,
    roofline_eta_ceiling,
    arithmetic_intensity_flop_per_byte,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported, eta_above_one };

  EfficiencySolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
