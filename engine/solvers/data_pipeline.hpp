// Solver "data_pipeline": one training step of a model on one accelerator fed by an input pipeline
// (storage read, JPEG decode and augmentation, host-to-device copy), after seeds/001 "Starving the
// GPU" (mlsysim's DataModel and TransformationModel, shared/reference/mlsysim-models.md 2.22-2.23)
// and DESIGN.md section 3 "Data pipeline". Formulas: engine/pipeline.hpp.
//
// Accelerator step, two ways (`step_model`):
//  - roofline: forward + backward = 3 x the forward pass of the model's operator graph through the
//    operator roofline and dispatch tax (engine/dispatch.hpp execute_graph; FLOPs, bytes and kernel
//    launches each x3, Kaplan et al. 2020, Narayanan et al. 2021);
//  - stated_rate: T_step = batch / stated_samples_per_s, a measured or quoted GPU-only rate such as
//    the seed's "5,300+ images per second".
// Data transform (`decode`):
//  - cpu: n workers x r bytes/s (the seed's 8 x 250 MB/s), its own pipeline stage;
//  - gpu_engine: a decode engine beside the SMs (A100 NVJPG, nvJPEG's hardware back end) at
//    gpu_decode_bandwidth, its own stage that overlaps the step (the seed's Exercise 3 model,
//    "cpu_throughput = 50 GB/s");
//  - gpu_sm: decode kernels on the SMs (nvJPEG CUDA back end, DALI "mixed") at gpu_decode_bandwidth,
//    time added to every step because it shares the accelerator.
// The host link carries the decoded tensor (decoded_sample_bytes) after CPU decode and the
// compressed sample (sample_bytes) when the GPU decodes.
//
// binding_constraint codes (the slowest stage; ties go to the lower code):
//   0 accelerator, compute (also every stated-rate step); 1 accelerator, memory traffic;
//   2 accelerator, kernel launches; 3 data transform (CPU workers, the GPU decode engine, or decode
//   kernels when they are the largest part of a gpu_sm step); 4 storage read; 5 host link.
// Infeasible: precision the device lacks; training memory (16 B per parameter for mixed-precision
// Adam plus activations kept for the backward pass) beyond device memory; stated_rate without a
// rate; a GPU decode without gpu_decode_bandwidth.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class DataPipelineSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    precision,
    batch,
    eta,
    execution,
    launch_overhead,
    step_model,
    stated_samples_per_s,
    sample_bytes,
    cpu_workers,
    cpu_throughput_per_worker,
    storage_bandwidth,
    decode,
    gpu_decode_bandwidth,
    decoded_sample_bytes,
    kParamCount
  };
  enum Metric : std::size_t {
    step_time_s,
    transform_time_s,
    storage_time_s,
    host_transfer_time_s,
    cycle_time_s,
    accelerator_utilization,
    no_prefetch_utilization,
    accelerator_idle_s,
    slowdown_factor,
    gpu_only_samples_per_s,
    pipeline_samples_per_s,
    transform_samples_per_s,
    cpu_throughput_bytes_per_s,
    storage_demand_bytes_per_s,
    storage_utilization,
    binding_constraint,
    workers_needed,
    crossover_batch,
    step_compute_s,
    step_memory_s,
    step_dispatch_s,
    step_flops,
    memory_footprint_bytes,
    kMetricCount
  };
  enum StepModel : std::uint8_t { roofline, stated_rate };
  enum Decode : std::uint8_t { cpu, gpu_engine, gpu_sm };
  enum Binding : std::uint8_t {
    accelerator_compute,
    accelerator_memory,
    accelerator_dispatch,
    data_transform,
    storage_read,
    host_link
  };
  enum Reason : std::uint8_t { precision_unsupported, exceeds_memory, missing_stated_rate, missing_gpu_decode_bandwidth };

  DataPipelineSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
