// Solver "synthesis": the inverse roofline. What peak FLOP/s, memory bandwidth and memory capacity an
// accelerator needs for one workload to meet a latency target, and whether a catalog part has them.
//
// Roofline (Williams, Waterman and Patterson, "Roofline: an insightful visual performance model for
// multicore architectures", CACM 52(4), 2009): a step of F FLOPs moving Q bytes takes
// max(F / (peak x eta), Q / (bandwidth x memory_efficiency)); it meets a target T exactly when
//   required_flops_per_s = F / (T x eta) <= peak and required_bandwidth_bytes_per_s
//   = Q / (T x memory_efficiency) <= bandwidth,
// and the step's working set fits: required_memory_bytes <= memory. This is mlsysim's SynthesisSolver
// (shared/reference mlsysim-models 2.5: BW = W / T, F = O / (T eta), Mem = W), with F and Q taken
// from the model's operator graph instead of 2 x parameters and one weight stream. peak is the GEMM
// peak (HardwareSpec::gemm_peak: at fp8 the peak x fp8_gemm_relative_efficiency), the step's FLOPs
// being its matrix products bar a few element-wise ones:
//  - phase decode (a transformer, a hybrid or a Mamba stack): one decode step, one new token for each
//    of `batch` sequences at `context_tokens` of context; F and Q are the serving solver's
//    (engine/serving.hpp decode_step_time on one GPU: weights read once, each sequence's KV cache or
//    Mamba state and activations), read back by pricing the step on a unit device (1 FLOP/s, 1 B/s,
//    eta 1). Memory = weights + batch x (KV cache at that context + Mamba state) (engine/serving.hpp
//    sequence_cache_bytes). T is the time per output token of each sequence.
//  - phase step (any model): one forward pass of the eager operator graph at `batch`; F and Q are the
//    inference solver's totals (engine/dispatch.hpp execute_graph, read back on a unit device the same
//    way); memory = weights + the largest op's activations at the batch (the inference solver's
//    footprint). The whole-pass roofline ignores that each op is bound separately and has no dispatch
//    cost, so the requirement is necessary, not sufficient, for the per-op latency the inference
//    solver reports.
// With the hardware's numbers: headroom = what it has / what is required, per resource (>= 1: enough),
// meets_target = 1 when all three are >= 1, latency_s = the whole-step roofline time on it.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class SynthesisSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    precision,
    kv_precision,
    phase,
    batch,
    context_tokens,
    target_latency,
    eta,
    memory_efficiency,
    kParamCount
  };
  enum Metric : std::size_t {
    flops,
    bytes_moved,
    required_flops_per_s,
    required_bandwidth_bytes_per_s,
    required_memory_bytes,
    required_intensity_flop_per_byte,
    flops_headroom,
    bandwidth_headroom,
    memory_headroom,
    meets_target,
    latency_s,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported, not_a_transformer };
  enum Phase : std::uint8_t { decode, step };

  SynthesisSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
