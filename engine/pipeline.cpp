#include "engine/pipeline.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace dsx {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

double cpu_throughput_bytes_per_s(double workers, double per_worker_bytes_per_s) {
  return workers * per_worker_bytes_per_s;
}

double stage_time_s(double batch, double bytes_per_sample, double throughput_bytes_per_s) {
  return batch * bytes_per_sample / throughput_bytes_per_s;
}

double storage_demand_bytes_per_s(double batch, double sample_bytes, double step_time_s) {
  return batch * sample_bytes / step_time_s;
}

double accelerator_utilization(double step_time_s, double slowest_data_stage_s) {
  return step_time_s / std::max(step_time_s, slowest_data_stage_s);
}

double workers_needed(double batch, double sample_bytes, double step_time_s, double per_worker_bytes_per_s) {
  const double exact = batch * sample_bytes / (step_time_s * per_worker_bytes_per_s);
  // A quotient that is a whole number up to rounding needs that many workers, not one more.
  return std::max(1.0, std::ceil(exact * (1.0 - 1e-12)));
}

double crossover_batch(AffineStep step, double data_s_per_sample) {
  if (!(data_s_per_sample > step.slope_s_per_sample)) return kNaN;
  return step.intercept_s / (data_s_per_sample - step.slope_s_per_sample);
}

ExecutionBreakdown training_step(const ModelGraph& graph, const HardwareSpec& hw, Precision precision, double batch,
                                 double eta, double launch_overhead_s) {
  ExecutionBreakdown b = execute_graph(graph, hw, precision, batch, eta, launch_overhead_s);
  b.compute_s *= kTrainingPassMultiplier;
  b.memory_s *= kTrainingPassMultiplier;
  b.dispatch_s *= kTrainingPassMultiplier;
  b.kernel_count *= kTrainingPassMultiplier;
  b.flops *= kTrainingPassMultiplier;
  b.bytes *= kTrainingPassMultiplier;
  b.compute_bound_ops *= kTrainingPassMultiplier;
  b.memory_bound_ops *= kTrainingPassMultiplier;
  return b;
}

AffineStep training_step_piece(const ModelGraph& graph, const HardwareSpec& hw, Precision precision, double batch,
                               double eta, double launch_overhead_s) {
  const std::array<double, kOpRoofCount> seconds_per_flop = {1.0 / (hw.peak(precision) * eta),
                                                             1.0 / (vector_peak_flops_per_s(hw, precision) * eta),
                                                             1.0 / (hw.gemm_peak(precision) * eta)};
  const double seconds_per_element = bytes_per_element(precision) / hw.memory_bandwidth_bytes_per_s;
  AffineStep piece;
  for (const Op& op : graph.ops) {
    // compute(B) = k B; memory(B) = m0 + m1 B (weights once, activations per sample).
    const double k = op.flops_per_sample * seconds_per_flop[static_cast<std::size_t>(op_roof(op.kind))];
    const double m0 = op.weight_elements * seconds_per_element;
    const double m1 = (op.input_elements_per_sample + op.output_elements_per_sample) * seconds_per_element;
    const double compute = k * batch;
    const double memory = m0 + m1 * batch;
    const bool memory_piece = memory > compute || (memory == compute && m1 > k);
    const double n = op.repeat;
    piece.intercept_s += memory_piece ? n * m0 : 0.0;
    piece.slope_s_per_sample += n * (memory_piece ? m1 : k);
    piece.intercept_s += n * op.kernels * launch_overhead_s;
  }
  piece.intercept_s *= kTrainingPassMultiplier;
  piece.slope_s_per_sample *= kTrainingPassMultiplier;
  return piece;
}

double training_crossover_batch(const ModelGraph& graph, const HardwareSpec& hw, Precision precision, double eta,
                                double launch_overhead_s, double extra_step_s_per_sample, double data_s_per_sample,
                                double extra_step_s) {
  double batch = 0;
  AffineStep previous{kNaN, kNaN};
  // Each pass lands on a later piece; there are at most ops + 1 pieces.
  for (std::size_t pass = 0; pass <= graph.ops.size() + 1; ++pass) {
    AffineStep piece = training_step_piece(graph, hw, precision, batch, eta, launch_overhead_s);
    piece.slope_s_per_sample += extra_step_s_per_sample;
    piece.intercept_s += extra_step_s;
    if (piece.intercept_s == previous.intercept_s && piece.slope_s_per_sample == previous.slope_s_per_sample) break;
    batch = crossover_batch(piece, data_s_per_sample);
    if (std::isnan(batch)) return kNaN;
    previous = piece;
  }
  return batch;
}

bool tensor_core_precision(Precision precision) {
  return precision != Precision::fp32 && precision != Precision::fp64;
}

double layout_transpose_bytes_per_sample(const ModelGraph& graph, Precision precision) {
  if (!tensor_core_precision(precision) || precision == Precision::tf32) return 0.0;
  double elements = 0;
  for (const Op& op : graph.ops) {
    if (op.kind != OpKind::conv) continue;
    elements += 2.0 * (op.input_elements_per_sample + op.output_elements_per_sample) * op.repeat;
  }
  return kTrainingPassMultiplier * elements * bytes_per_element(precision);
}

double training_memory_bytes(const ModelGraph& graph, Precision precision, double batch) {
  const double parameters = graph.parameter_count > 0 ? graph.parameter_count : graph.total_weight_elements();
  double activation_elements = 0;
  for (const Op& op : graph.ops) activation_elements += op.output_elements_per_sample * op.repeat;
  return parameters * kTrainingBytesPerParameter + activation_elements * batch * bytes_per_element(precision);
}

}  // namespace dsx
