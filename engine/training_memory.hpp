// Training memory per accelerator: weights, gradients, optimizer states, activations, communication
// buffers, and whether they fit.
//
// Model state (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", SC 2020, section 3.1): mixed-precision Adam keeps fp16/bf16 weights (2 B) and gradients
// (2 B) plus an fp32 master copy, momentum and variance (4 + 4 + 4 B) = 16 B per parameter. SGD with
// momentum keeps master + momentum (8 B), plain SGD the master copy (4 B). In fp32 training there is
// no master copy: Adam 8 B, momentum 4 B, plain SGD 0 B of optimizer state. (mlsysim charges 12 B of
// Adam state at every precision, double-counting the master weights in fp32: its section 6.19.)
// ZeRO (same paper, section 5): stage 1 divides the optimizer states by DP, stage 2 also the
// gradients, stage 3 also the weights.
//
// Activations (Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
// MLSys 2023 / arXiv 2205.05198, section 4 and Table 2), bytes per transformer layer with 16-bit
// activations, s = sequence length, b = micro-batch, h = hidden size, a = attention heads, t = TP:
//   no recomputation, no parallelism:          s b h (34 + 5 a s / h)
//   tensor parallel, no sequence parallelism:  s b h (10 + 24 / t + 5 a s / (h t))
//   tensor + sequence parallel:                s b h (34 + 5 a s / h) / t
//   selective recomputation:                   s b h (10 + 24 / t)   or  34 s b h / t  with SP
//   full recomputation:                        2 s b h (the layer input only; Table 2 keeps it whole)
// The 5 a s / h terms are the attention scores, softmax output and dropout mask of every head (s x s
// each). A fused attention kernel never writes them to memory: FlashAttention (Dao et al.,
// "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness", NeurIPS 2022,
// section 3.1) keeps the output and one softmax statistic per row and recomputes the scores in the
// backward pass, which is what selective recomputation does; with it, no recomputation stores what
// selective recomputation stores (the statistic, 4 a s b bytes, is under 0.1 % of 34 s b h and left out).
// Under 1F1B pipelining (section 4.2.3) a stage holds the activations of its L / p layers for up to p
// micro-batches in flight, so `in_flight_microbatches` = min(m, p); the interleaved schedule keeps
// (1 + (p-1)/(p v)) times that. When p does not divide L the busiest stage's layers count. mlsysim does not divide
// activations by TP (its section 6.8); dsx does, as the paper does.
// Expert parallelism (mixture of experts; Megatron-Core MoE, NVIDIA Megatron-LM
// megatron/core/transformer/moe/README.md and parallel_state.py): the routed experts' weights are
// split over `expert_parallel` ranks on top of TP x PP, and their ZeRO sharding runs over the expert
// data-parallel group of DP / EP ranks, so the fleet still holds 16 bytes per parameter at ZeRO-3.
// Activations use the dense formula (the MoE layer's routed token copies are not added).
#pragma once

namespace dsx {

enum class Optimizer { sgd, sgd_momentum, adam };
enum class Recomputation { none, selective, full };
// How attention runs: materialising the s x s scores (the paper's accounting) or fused (FlashAttention).
enum class AttentionKernel { unfused, fused };

// Optimizer-state bytes per parameter (fp32 master copy included when mixed_precision).
double optimizer_bytes_per_param(Optimizer optimizer, bool mixed_precision);
// Weight (= gradient) bytes per parameter: 2 in mixed precision, 4 in fp32.
double weight_bytes_per_param(bool mixed_precision);
// Weights + gradients + optimizer states per parameter before activations (16 for mixed Adam).
double model_state_bytes_per_param(Optimizer optimizer, bool mixed_precision);

// Korthikanti et al. Table 2: activation bytes of one transformer layer for one micro-batch.
double activation_bytes_per_layer(double seq_len, double micro_batch, double hidden, double heads,
                                  double tensor_parallel, bool sequence_parallel, Recomputation recompute,
                                  AttentionKernel attention = AttentionKernel::unfused);

struct TrainingMemoryInput {
  double parameters = 0;  // whole model
  double expert_parameters = 0;  // the routed experts' share of `parameters` (mixture of experts)
  double expert_parallel = 1;    // EP: divides data_parallel
  double layers = 0;
  double stage_layers = 0;  // the busiest pipeline stage's layers; 0 = layers / pipeline_parallel
  double hidden = 0;
  double heads = 0;
  double seq_len = 0;
  double micro_batch = 1;
  double tensor_parallel = 1;
  double pipeline_parallel = 1;
  double data_parallel = 1;
  double in_flight_microbatches = 1;  // min(m, p) under 1F1B
  Optimizer optimizer = Optimizer::adam;
  bool mixed_precision = true;
  int zero_stage = 0;  // 0..3
  Recomputation recompute = Recomputation::none;
  AttentionKernel attention = AttentionKernel::unfused;
  bool sequence_parallel = true;
  double communication_buffer_bytes = 0;  // gradient buckets, NCCL buffers, P2P buffers
  double capacity_bytes = 0;
};

struct TrainingMemory {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double buffers_bytes = 0;
  double total_bytes = 0;
  bool fits = false;
};

// Per-accelerator memory: the model is split evenly over TP x PP (embeddings not treated apart).
// With no layer shape (layers or hidden 0) only the model states are counted (ZeRO's Figure 1).
TrainingMemory training_memory(const TrainingMemoryInput& in);

}  // namespace dsx
