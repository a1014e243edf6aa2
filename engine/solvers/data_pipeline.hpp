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
// Three efficiencies, one per unit and operand width a convolution runs on: `eta`, the achieved
// fraction of the tensor-core peak at 16 bits and narrower (fp16, bf16, fp8, int8); `tf32_eta`, of
// the TF32 tensor-core peak; `cuda_core_eta`, of the CUDA-core peak that fp32 and fp64 run on (0, the
// default of the last two, takes eta). The tensor cores run 8-16 times the CUDA cores' rate (V100 125
// against 15.7 TFLOP/s, A100 312 against 19.5), so the operand staging of a convolution's main loop
// that hides behind CUDA-core math shows beside tensor-core math; TF32 moves 4-byte operands at half
// the 16-bit rate. The validation set's DeepLearningExamples ResNet-50 rows (PyTorch, MXNet,
// TensorFlow) tell them apart: at one shared efficiency the fp32 V100 runs come out 28-39 % slow and
// the tensor-core runs fast, the TF32 ones most.
//
// Layout (`memory_format`): nchw adds the NCHW <-> NHWC transposes that tensor-core convolutions
// need (engine/pipeline.hpp, "Tensor layout"; step_layout_s) to the roofline step; nhwc (channels
// last, the default) adds nothing. A stated rate already contains them.
//
// Data parallelism (`gpus` replicas of `batch` samples each, in nodes of `gpus_per_node`): every
// replica runs the step above on its own batch, fed by its own input pipeline (the data-path inputs
// are per GPU), then the replicas all-reduce the gradient, parameters x gradient_bytes_per_parameter
// (default 4 B: fp32 gradients; PyTorch's automatic mixed precision leaves the model's parameters,
// and so their gradients, in fp32 and casts per op: torch.cuda.amp documentation, "Autocasting"),
// with the collective formulas of engine/collectives.hpp: a ring all-reduce,
// 2 (n-1)/n S / B + 2 (n-1) alpha, over the accelerator link inside a node (alpha 0.5 us, as the
// training solver; the host link for an accelerator without one), and across nodes the hierarchical
// all-reduce (reduce-scatter in the node, a ring over the nodes' NICs of fabric_bandwidth, one per
// GPU, alpha fabric_latency, all-gather back). Frameworks all-reduce the gradient in buckets while
// the backward pass still runs (PyTorch DistributedDataParallel: bucket_cap_mb, 25 MB by default,
// torch.nn.parallel.DistributedDataParallel documentation and pytorch/pytorch issue 118421; Li et
// al., "PyTorch Distributed: Experiences on Accelerating Data Parallel Training", VLDB 2020), so the
// step waits for
//   exposed = max(all-reduce x min(1, bucket_bytes / gradient bytes),
//                 all-reduce - overlap x backward)
// where backward = 2/3 of the step (the factor 3 above) and `overlap` (default 1) is the share of
// the backward pass the communication can run under; the last bucket is ready only when the
// backward pass ends and is never hidden. The accelerator's step is the compute step plus the exposed
// all-reduce; scaling_efficiency = compute step / that step; the totals are gpus x the per-GPU rates.
// The crossover batch holds the exposed all-reduce at its value at the evaluated batch. A job larger
// than a node must fill whole nodes (gpus a multiple of gpus_per_node), else it is infeasible.
// On a torus node (torus_x, torus_y, torus_z, which a node's topology sets; engine/torus.hpp) the
// reduce-scatter and all-gather inside the node run on the torus block of the node's replicas
// (multi-dimensional bidirectional rings, each chip's link shared by its 2 x dimensions neighbour
// links), as the training solver's data-parallel all-reduce; a torus whose chips are not
// gpus_per_node is infeasible.
//
// binding_constraint codes (the slowest stage; ties go to the lower code):
//   0 accelerator, compute (also every stated-rate step); 1 accelerator, memory traffic;
//   2 accelerator, kernel launches (layout transposes count as memory traffic); 3 data transform (CPU
//   workers, the GPU decode engine, or decode kernels when they are the largest part of a gpu_sm step);
//   4 storage read; 5 host link; 6 the exposed gradient all-reduce, when it is the largest part of the
//   accelerator's step.
// Infeasible: precision the device lacks; training memory (16 B per parameter for mixed-precision
// Adam plus activations kept for the backward pass) beyond device memory; stated_rate without a
// rate; a GPU decode without gpu_decode_bandwidth; gpus above gpus_per_node that do not fill whole
// nodes.
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
    memory_format,
    gpus,
    gpus_per_node,
    fabric_bandwidth,
    fabric_latency,
    overlap,
    bucket_bytes,
    gradient_bytes_per_parameter,
    cuda_core_eta,
    tf32_eta,
    torus_x,
    torus_y,
    torus_z,
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
    step_layout_s,
    all_reduce_s,
    dp_comm_s,
    scaling_efficiency,
    total_gpu_only_samples_per_s,
    total_samples_per_s,
    kMetricCount
  };
  enum StepModel : std::uint8_t { roofline, stated_rate };
  enum Decode : std::uint8_t { cpu, gpu_engine, gpu_sm };
  enum MemoryFormat : std::uint8_t { nhwc, nchw };
  enum Binding : std::uint8_t {
    accelerator_compute,
    accelerator_memory,
    accelerator_dispatch,
    data_transform,
    storage_read,
    host_link,
    gradient_all_reduce
  };
  enum Reason : std::uint8_t {
    precision_unsupported,
    exceeds_memory,
    missing_stated_rate,
    missing_gpu_decode_bandwidth,
    gpus_do_not_fill_nodes,
    torus_is_not_the_node
  };

  DataPipelineSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
