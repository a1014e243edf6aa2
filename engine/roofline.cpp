#include "engine/roofline.hpp"

#include <algorithm>

namespace dsx {

std::string_view bound_name(Bound b) { return b == Bound::compute ? "compute" : "memory"; }

double ridge_point_flop_per_byte(double peak_flops_per_s, double bandwidth_bytes_per_s) {
  return peak_flops_per_s / bandwidth_bytes_per_s;
}

double attainable_flops_per_s(double intensity_flop_per_byte, double peak_flops_per_s, double eta,
                              double bandwidth_bytes_per_s) {
  return std::min(peak_flops_per_s * eta, intensity_flop_per_byte * bandwidth_bytes_per_s);
}

double op_bytes(const Op& op, Precision precision, double batch) {
  const double elements =
      (op.input_elements_per_sample + op.output_elements_per_sample) * batch + op.weight_elements;
  return elements * bytes_per_element(precision);
}

OpCost op_cost(const Op& op, Precision precision, double batch, double effective_peak_flops_per_s,
               double bandwidth_bytes_per_s) {
  OpCost cost;
  cost.flops = op.flops_per_sample * batch;
  cost.bytes = op_bytes(op, precision, batch);
  cost.compute_s = cost.flops / effective_peak_flops_per_s;
  cost.memory_s = cost.bytes / bandwidth_bytes_per_s;
  cost.bound = cost.compute_s >= cost.memory_s ? Bound::compute : Bound::memory;
  return cost;
}

}  // namespace dsx
