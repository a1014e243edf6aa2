#include "engine/solvers/foundations.hpp"

#include <array>
#include <limits>

#include "engine/laws.hpp"
#include "engine/roofline.hpp"
#include "engine/tiling.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kOperations = {"gemm", "relu"};
constexpr double kBig = 1e18;

constexpr std::array<ParamSpec, FoundationsSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "precision", .kind = ParamKind::precision,
     .description = "precision of the compute roof, the operands and the training peak X"},
    {.name = "operation", .kind = ParamKind::choice, .choices = kOperations,
     .description = "operation placed on the roofline: gemm (square, gemm_n) or relu (element-wise)",
     .has_default = true, .default_value = 0},
    {.name = "gemm_n", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "size N of the square GEMM (seeds/003: 4096)", .has_default = true,
     .default_value = 4096, .min_value = 1, .max_value = 1e7, .integer = true},
    {.name = "accelerators", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "processors n of Amdahl and Gustafson; accelerators N of the training-time equation",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "serial_fraction", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "serial share s of the work (Amdahl, Gustafson)", .min_value = 0, .max_value = 1},
    {.name = "arrival_rate", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "request arrival rate lambda (Little's law)", .min_value = 0, .max_value = kBig},
    {.name = "latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "time W a request spends in the system (Little's law)", .min_value = 0,
     .max_value = 1e9, .min_exclusive = true},
    {.name = "memory_per_request", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "memory one in-flight request holds (KV cache, activations)", .min_value = 0,
     .max_value = kBig, .min_exclusive = true},
    {.name = "memory_capacity", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "memory available to in-flight requests", .min_value = 0, .max_value = kBig},
    {.name = "model_params", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "model parameters P", .min_value = 1, .max_value = kBig, .integer = true},
    {.name = "training_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "training tokens D", .min_value = 1, .max_value = kBig, .integer = true},
    {.name = "mfu", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "model FLOPs utilization U (seeds/003: typically 30-50%)", .min_value = 0, .max_value = 1,
     .min_exclusive = true},
    {.name = "transfer_size", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "bytes sent over the link", .min_value = 0, .max_value = kBig},
    {.name = "link_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "fixed latency of one transfer (ping)", .min_value = 0, .max_value = 1e9},
    {.name = "link_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "link bandwidth", .min_value = 0, .max_value = kBig, .min_exclusive = true},
}};

constexpr std::array<MetricSpec, FoundationsSolver::kMetricCount> kMetrics = {{
    {"peak_flops_per_s", Dimension::flop_rate, "dense peak of the hardware at the precision (catalog)"},
    {"memory_bandwidth_bytes_per_s", Dimension::bandwidth, "memory bandwidth (catalog)"},
    {"ridge_point_flop_per_byte", Dimension::dimensionless, "peak / memory bandwidth"},
    {"memory_to_host_link_ratio", Dimension::dimensionless, "memory bandwidth / host-link bandwidth"},
    {"intensity_flop_per_byte", Dimension::dimensionless, "the operation's FLOPs per byte of memory traffic"},
    {"attainable_flops_per_s", Dimension::flop_rate, "min(peak, intensity x bandwidth)"},
    {"peak_utilization", Dimension::dimensionless, "attainable / peak", MetricDomain::fraction},
    {"compute_bound", Dimension::dimensionless, "1 when intensity >= ridge point, else 0"},
    {"amdahl_speedup", Dimension::dimensionless, "1 / (s + (1 - s) / n)"},
    {"amdahl_limit", Dimension::dimensionless, "1 / s: the speedup as n grows without bound"},
    {"amdahl_efficiency", Dimension::dimensionless, "amdahl_speedup / n", MetricDomain::fraction},
    {"gustafson_speedup", Dimension::dimensionless, "n - s (n - 1)"},
    {"requests_in_flight", Dimension::count, "Little's law L = lambda x W"},
    {"in_flight_memory_bytes", Dimension::bytes, "requests_in_flight x memory_per_request"},
    {"max_concurrent_requests", Dimension::count, "whole requests that fit: memory_capacity / memory_per_request"},
    {"max_throughput_requests_per_s", Dimension::rate, "max_concurrent_requests / W"},
    {"training_flops", Dimension::flops, "6 P D"},
    {"training_throughput_flops_per_s", Dimension::flop_rate, "N X U"},
    {"training_time_s", Dimension::time, "6 P D / (N X U)"},
    {"training_memory_bytes", Dimension::bytes, "16 bytes per parameter (mixed-precision Adam)"},
    {"inference_weights_bytes", Dimension::bytes, "P x bytes per element of the precision"},
    {"inference_flops_per_token", Dimension::flops, "2 P"},
    {"transfer_time_s", Dimension::time, "link latency + transfer size / link bandwidth"},
    {"serialization_time_s", Dimension::time, "transfer size / link bandwidth"},
    {"transfer_latency_share", Dimension::dimensionless, "link latency / transfer time"},
    {"transfer_serialization_share", Dimension::dimensionless, "serialization time / transfer time"},
}};

constexpr std::array<std::string_view, 1> kReasons = {kPrecisionUnsupported};

}  // namespace

FoundationsSolver::FoundationsSolver()
    : TabledSolver("foundations",
                   "seeds/003 machine foundations: ridge points, roofline placement, Amdahl, Gustafson, Little, "
                   "training time, transfer time",
                   kParams, kMetrics, kReasons) {}

PointResult FoundationsSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const Precision precision = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  const double bytes = bytes_per_element(precision);
  const double peak = hw.peak(precision);
  const double bandwidth = hw.memory_bandwidth_bytes_per_s;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const bool supported = hw.supports(precision);

  const double intensity = static_cast<Operation>(v[Param::operation]) == gemm
                               ? square_matmul_intensity_flop_per_byte(v[Param::gemm_n], bytes)
                               : elementwise_intensity_flop_per_byte(1.0, 1.0, 1.0, bytes);
  const double ridge = supported ? dsx::ridge_point_flop_per_byte(peak, bandwidth) : kNaN;
  const double attainable = supported ? dsx::attainable_flops_per_s(intensity, peak, 1.0, bandwidth) : kNaN;
  out[peak_flops_per_s] = supported ? peak : kNaN;
  out[memory_bandwidth_bytes_per_s] = bandwidth;
  out[ridge_point_flop_per_byte] = ridge;
  out[memory_to_host_link_ratio] = bandwidth / hw.host_link_bandwidth_bytes_per_s;
  out[intensity_flop_per_byte] = intensity;
  out[attainable_flops_per_s] = attainable;
  out[peak_utilization] = supported ? attainable / peak : kNaN;
  out[compute_bound] = supported ? (intensity >= ridge ? 1.0 : 0.0) : kNaN;

  const double s = v[Param::serial_fraction];
  const double n = v[Param::accelerators];
  out[amdahl_speedup] = dsx::amdahl_speedup(s, n);
  out[amdahl_limit] = dsx::amdahl_limit(s);
  out[amdahl_efficiency] = out[amdahl_speedup] / n;
  out[gustafson_speedup] = dsx::gustafson_speedup(s, n);

  const double w = v[Param::latency];
  const double in_flight = littles_law_in_flight(v[Param::arrival_rate], w);
  const double concurrent = dsx::max_concurrent_requests(v[Param::memory_capacity], v[Param::memory_per_request]);
  out[requests_in_flight] = in_flight;
  out[in_flight_memory_bytes] = in_flight * v[Param::memory_per_request];
  out[max_concurrent_requests] = concurrent;
  out[max_throughput_requests_per_s] = littles_law_max_rate_per_s(concurrent, w);

  const double p = v[Param::model_params];
  const double d = v[Param::training_tokens];
  const double u = v[Param::mfu];
  out[training_flops] = dsx::training_flops(p, d);
  out[training_throughput_flops_per_s] = supported ? n * peak * u : kNaN;
  out[training_time_s] = supported ? dsx::training_time_s(p, d, n, peak, u) : kNaN;
  out[training_memory_bytes] = kAdamMixedPrecisionBytesPerParam * p;
  out[inference_weights_bytes] = p * bytes;
  out[inference_flops_per_token] = kForwardFlopsPerParamToken * p;

  const double link_latency_s = v[Param::link_latency];
  const double total = dsx::transfer_time_s(link_latency_s, v[Param::transfer_size], v[Param::link_bandwidth]);
  out[transfer_time_s] = total;
  out[serialization_time_s] = v[Param::transfer_size] / v[Param::link_bandwidth];
  out[transfer_latency_share] = total > 0 ? link_latency_s / total : kNaN;
  out[transfer_serialization_share] = total > 0 ? out[serialization_time_s] / total : kNaN;

  if (!supported) return {PointStatus::infeasible, precision_unsupported};
  return {};
}

}  // namespace dsx
