// Roofline model, per operator and per graph.
//
// attainable FLOP/s = min(peak(precision) x eta, intensity x bandwidth); ridge = peak / bandwidth
// (Williams, Waterman, Patterson 2009; seeds/003 "roofline and ridge points": A100 fp16
// 312 TFLOP/s / 2.0 TB/s = 156 FLOP/byte, H100 989 / 3.35 = 295). Per-op time is
// max(FLOPs / (peak x eta), bytes / bandwidth); the larger term names the op's bound.
// eta is the achieved fraction of peak (seeds/004); it multiplies the compute roof only.
#pragma once

#include "engine/graph.hpp"
#include "engine/hardware.hpp"
#include "engine/precision.hpp"

namespace dsx {

enum class Bound : std::uint8_t { compute, memory };
std::string_view bound_name(Bound b);

// Ridge point in FLOP/byte: the intensity at which the two roofs meet.
double ridge_point_flop_per_byte(double peak_flops_per_s, double bandwidth_bytes_per_s);

// Attainable throughput for an operation of the given intensity.
double attainable_flops_per_s(double intensity_flop_per_byte, double peak_flops_per_s, double eta,
                              double bandwidth_bytes_per_s);

struct OpCost {
  double flops = 0;
  double bytes = 0;
  double compute_s = 0;  // FLOPs / (peak x eta)
  double memory_s = 0;   // bytes / bandwidth
  Bound bound = Bound::compute;

  double busy_s() const { return compute_s > memory_s ? compute_s : memory_s; }
  double intensity_flop_per_byte() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// Bytes one execution of `op` moves through device memory at this batch and precision.
double op_bytes(const Op& op, Precision precision, double batch);

// Cost of one execution of `op` (not multiplied by op.repeat).
OpCost op_cost(const Op& op, Precision precision, double batch, double effective_peak_flops_per_s,
               double bandwidth_bytes_per_s);

}  // namespace dsx
