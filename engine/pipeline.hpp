// The input pipeline of a training step: storage read, data transform (JPEG decode and
// augmentation), host-to-device copy and the accelerator's training step
// (seeds/001 "Starving the GPU"; DESIGN.md section 3 "Data pipeline").
//
// Stages and their time per batch of B samples of s bytes each (s = the stored, compressed size):
//   storage read      T_io   = B s / storage bandwidth
//   transform         T_tf   = B s / transform throughput          (the seed's TransformationModel;
//                              CPU: n workers x r bytes/s each, the seed's 8 x 250 MB/s = 2 GB/s)
//   host-to-device    T_h2d  = B x (bytes per sample crossing the link) / host-link bandwidth
//   accelerator step  T_step = forward + backward of the model (training_step below)
// With prefetching (data-loader workers run ahead of the step, as the seed assumes when it divides
// by max) the stages overlap and a batch leaves the pipeline every
//   T_cycle = max(stages)            accelerator utilization = T_step / T_cycle
// (the seed's step / max(step, transform)); without prefetching they run one after the other and
// utilization is T_step / sum(stages).
//
// Training step (accelerator stage): forward + backward = 3 x the forward pass. The backward pass of
// an op computes the gradient with respect to its input and with respect to its weights, each a
// pass of the forward op's FLOPs (Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
// section 2.1: C = 6N per token = 2N forward + 4N backward; Narayanan et al. 2021, "Efficient
// Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", section 5.1: the backward
// pass takes twice the forward FLOPs). dsx applies the factor 3 to each op's FLOPs, bytes and kernel
// launches alike: each backward op reads and writes tensors of its forward op's shapes, so every
// op keeps its forward bound and the step is 3 x the forward roofline time of engine/dispatch.hpp
// (compute, exposed memory and dispatch each tripled). This overstates the traffic of element-wise
// backward ops, which have no weight gradient (about 2x their forward bytes rather than 3x).
// The optimizer update is not priced (Adam on ResNet-50's 25.6 M parameters moves about 0.7 GB, under
// 1% of a batch-256 step's traffic).
//
// Tensor layout. Tensor-core convolution kernels read and write channels-last (NHWC) tensors; given
// NCHW tensors, cuDNN transposes the input to NHWC before such a kernel and the output back after it
// (cuDNN Developer Guide, "Tensor Transformations": "NCHW-to-NHWC transformations to call the Tensor
// Core operations"; NVIDIA Deep Learning Performance Guide, "Convolutional Layers User's Guide",
// section "Tensor Layouts In Memory: NCHW vs NHWC"). Each transpose reads and writes its tensor once,
// in kernels of their own that no convolution hides, so an NCHW training step carries, per sample,
//   T_layout = 3 x sum over dense convs of 2 (input + output elements) x element bytes / bandwidth
// (the factor 3 as for the step: forward, data gradient and weight gradient each transpose the two
// activation-shaped operands they touch). Precisions without tensor cores (fp32, fp64) run native
// NCHW kernels and pay nothing; neither does a channels-last (NHWC) model. TF32 is left out too: the
// published ResNet-50 training rates of three frameworks on the A100 agree whatever their layout
// (NVIDIA DeepLearningExamples: PyTorch NCHW 938, MXNet NCHW 1,056, TensorFlow NHWC 909 images/s
// on one GPU), so a TF32 step in NCHW pays no transposes a measurement can see. Grouped and
// depthwise convolutions are left out (they run on the CUDA cores, engine/dispatch.hpp, and the step
// prices their FLOPs at the fp32 vector peak). Filters, batch-independent,
// are not counted.
//
// Crossover batch. Every data stage is linear in B through the origin (T = c B); the step is
// convex and piecewise affine in B (each op costs max(FLOPs B / (peak eta), (weights + activations
// B) / bandwidth), plus a fixed dispatch cost), T_step(B) = alpha_k + beta_k B on piece k. The
// data side binds from the smallest B with c B >= T_step(B). On the piece active at B_k that batch
// is alpha_k / (c - beta_k); starting at B = 0 and moving to the piece active at that solution
// reaches the crossover exactly (it is Newton's method on the convex T_step(B) - c B, which steps
// from the left and never overshoots) in at most one step per op. No crossover exists when the
// step's slope reaches c first: then the accelerator is slower per sample than the data side at
// every batch. T_step being convex, the batches where the data side binds form one interval that
// starts at the crossover; it has no upper end when c exceeds the step's slope at large batch.
#pragma once

#include "engine/dispatch.hpp"
#include "engine/graph.hpp"
#include "engine/hardware.hpp"
#include "engine/precision.hpp"

namespace dsx {

// Forward + backward relative to the forward pass (Kaplan et al. 2020; Narayanan et al. 2021).
inline constexpr double kTrainingPassMultiplier = 3.0;

// Mixed-precision Adam: fp16 weights 2 B + fp32 master weights 4 B + two fp32 moments 8 B + fp16
// gradients 2 B (seeds/003 appendix "16 bytes/parameter for training").
inline constexpr double kTrainingBytesPerParameter = 16.0;

// n workers of r bytes/s each (the seed: 8 x 250 MB/s = 2 GB/s). Workers scale linearly, as the seed
// states ("doubling workers doubles throughput").
double cpu_throughput_bytes_per_s(double workers, double per_worker_bytes_per_s);

// B s / throughput: one batch through a stage that moves or transforms `throughput` bytes per second
// (transform, storage read, host-link copy).
double stage_time_s(double batch, double bytes_per_sample, double throughput_bytes_per_s);

// What the accelerator asks of storage if it is never starved: B s / T_step (the seed's data demand).
double storage_demand_bytes_per_s(double batch, double sample_bytes, double step_time_s);

// Accelerator utilization with prefetching: T_step / max(T_step, T_data); T_data is the slowest data
// stage. The seed's self-check: 20 ms step, 35 ms transform -> 20 / 35 = 57%.
double accelerator_utilization(double step_time_s, double slowest_data_stage_s);

// Smallest whole number of workers of r bytes/s each for which T_tf <= T_step:
// ceil(B s / (T_step r)). Requires step_time_s > 0 and per_worker_bytes_per_s > 0.
double workers_needed(double batch, double sample_bytes, double step_time_s, double per_worker_bytes_per_s);

// A step time that is affine in the batch on some range: T(B) = intercept + slope B.
struct AffineStep {
  double intercept_s = 0;
  double slope_s_per_sample = 0;

  double at(double batch) const { return intercept_s + slope_s_per_sample * batch; }
};

// The batch at which a data stage of c seconds per sample catches up with an affine step:
// intercept / (c - slope) when c > slope; NaN when it never does (c <= slope). 0 when the step has
// no fixed part and the data stage is slower per sample: the data side binds at every batch.
double crossover_batch(AffineStep step, double data_s_per_sample);

// One training step (forward + backward) of `graph` on `hw`: execute_graph's breakdown with every
// term multiplied by kTrainingPassMultiplier. Requires hw.supports(precision), eta in (0, 1].
ExecutionBreakdown training_step(const ModelGraph& graph, const HardwareSpec& hw, Precision precision, double batch,
                                 double eta, double launch_overhead_s);

// The affine piece of the training step's time that is active just above `batch` (the right
// derivative at `batch` and the line through the step time there).
AffineStep training_step_piece(const ModelGraph& graph, const HardwareSpec& hw, Precision precision, double batch,
                               double eta, double launch_overhead_s);

// The smallest batch at which a data stage of c seconds per sample (plus `extra_step_s_per_sample` added
// to every accelerator step, e.g. decode kernels sharing the accelerator or layout transposes, and
// `extra_step_s` added once per step) is at least as slow as the training step; NaN if there is none.
// Exact: the iteration in the header comment.
double training_crossover_batch(const ModelGraph& graph, const HardwareSpec& hw, Precision precision, double eta,
                                double launch_overhead_s, double extra_step_s_per_sample, double data_s_per_sample,
                                double extra_step_s = 0);

// Whether convolutions at this precision run on tensor cores: all but fp32, fp64.
bool tensor_core_precision(Precision precision);

// Bytes per sample the NCHW <-> NHWC transposes of a training step move (T_layout above, times the
// bandwidth); 0 for fp32, fp64 and tf32.
double layout_transpose_bytes_per_sample(const ModelGraph& graph, Precision precision);

// Device memory of a training step: kTrainingBytesPerParameter per parameter plus every op's output
// activations kept for the backward pass, at the step's precision.
double training_memory_bytes(const ModelGraph& graph, Precision precision, double batch);

}  // namespace dsx
