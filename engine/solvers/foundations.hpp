// Solver "foundations": the quantities of seeds/003 (Appendix "Machine Foundations") at one design
// point, so that a study can cross them over the catalog.
//
//  - Roofline (Williams, Waterman, Patterson 2009; seeds/003 "The Roofline Model", "A Concrete
//    Example: The A100 Analysis", "Roofline Ridge Points"): ridge = peak(precision) / memory
//    bandwidth; one operation placed on the roofline at this precision, attainable =
//    min(peak, intensity x bandwidth) (the ideal roofline, no efficiency factor, as in the seed).
//    Operations: a square GEMM of size gemm_n, A and B read and C written once,
//    2 N^3 / (3 N^2 x bytes) FLOP/byte (N / 3 = 1,365 at fp16 for N = 4096, engine/tiling.hpp); ReLU,
//    one operation per element read and written, 1 / (2 x bytes) (0.25 at fp16).
//  - "Numbers to Know": the catalog's peak and bandwidth, memory bandwidth over host-link bandwidth.
//  - Amdahl, Gustafson, Little, the training-time equation, the scaling rules for memory and FLOPs,
//    transfer time = latency + size / bandwidth (engine/laws.hpp, with the seed's examples).
// Training uses the accelerator's peak at the chosen precision as X. A precision the hardware lacks
// makes the point infeasible (the roofline and training metrics need its peak; the others are still
// written).
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class FoundationsSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    precision,
    operation,
    gemm_n,
    accelerators,
    serial_fraction,
    arrival_rate,
    latency,
    memory_per_request,
    memory_capacity,
    model_params,
    training_tokens,
    mfu,
    transfer_size,
    link_latency,
    link_bandwidth,
    kParamCount
  };
  enum Metric : std::size_t {
    peak_flops_per_s,
    memory_bandwidth_bytes_per_s,
    ridge_point_flop_per_byte,
    memory_to_host_link_ratio,
    intensity_flop_per_byte,
    attainable_flops_per_s,
    peak_utilization,
    compute_bound,
    amdahl_speedup,
    amdahl_limit,
    amdahl_efficiency,
    gustafson_speedup,
    requests_in_flight,
    in_flight_memory_bytes,
    max_concurrent_requests,
    max_throughput_requests_per_s,
    training_flops,
    training_throughput_flops_per_s,
    training_time_s,
    training_memory_bytes,
    inference_weights_bytes,
    inference_flops_per_token,
    transfer_time_s,
    serialization_time_s,
    transfer_latency_share,
    transfer_serialization_share,
    kMetricCount
  };
  enum Operation : std::uint8_t { gemm, relu };
  enum Reason : std::uint8_t { precision_unsupported };

  FoundationsSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
