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
// Other optimizers, state bytes per parameter on top of the fp32 master copy:
//  - 8-bit Adam (Dettmers et al., "8-bit Optimizers via Block-wise Quantization", ICLR 2022,
//    section 2): both moments in 8 bits (2 B) plus one fp32 absolute maximum per block of 2,048
//    values of each state (2 x 4 / 2048 B): a quarter of Adam's 8 B of state.
//  - Adafactor (Shazeer and Stern, "Adafactor: Adaptive Learning Rates with Sublinear Memory Cost",
//    ICML 2018, section 3; momentum dropped, as the abstract's final configuration): the second moment of an
//    n x m matrix is factored into n + m fp32 row and column sums, 4 (n + m) / (n m) B per parameter;
//    approximated here with every matrix square of side `matrix_side` (d_model): 8 / d_model B.
//  - Lion (Chen et al., "Symbolic Discovery of Optimization Algorithms", NeurIPS 2023, Program 1):
//    one fp32 momentum, 4 B, as SGD with momentum.
// Low-rank adaptation (Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models", ICLR 2022):
// the base weights are frozen (no gradients, no optimizer states) and stored at
// `base_weight_bytes_per_param`: 2 B in bf16, or QLoRA's 4-bit NormalFloat with double quantization,
// 4.127 bits = 0.516 B per parameter (Dettmers et al., "QLoRA: Efficient Finetuning of Quantized
// LLMs", NeurIPS 2023, section 3: 4 bits plus 0.127 bits of quantization constants). The
// `adapter_parameters` train as a full model would: weights, gradients and optimizer states. QLoRA's
// paged optimizer moves the adapters' states to host memory only under memory pressure; they are
// counted on the GPU. ZeRO shards the frozen base at stage 3 like any weights.
// Precision: `weight_bytes_per_param` 2 in mixed precision (bf16, fp16, and fp8 training, which keeps
// bf16 weights and an fp32 master copy: NVIDIA Transformer Engine, "Using FP8 with Transformer
// Engine"), 4 in fp32/tf32. Activations scale with `activation_bytes_per_element` / 2 from the
// 16-bit Table 2 below (the 1-byte dropout masks, 2 s b h of 34 s b h, are scaled too: an
// overestimate of 2 s b h in fp32).
// Context parallelism (Liu et al., "Ring Attention with Blockwise Transformers for Near-Infinite
// Context", ICLR 2024; NVIDIA Megatron-Core context parallel): each of the `context_parallel` ranks
// holds s / cp tokens of every sequence, so its activations are divided by cp; the KV block being
// received (2 kv_heads head_dim s / cp per layer in flight) is not counted.
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
// Mamba layers (Gu and Dao, "Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
// arXiv:2312.00752, section 3.3.2: the scan's states are recomputed in the backward pass, not stored)
// of a Mamba stack or of a hybrid (Jamba, Lieber et al., arXiv:2403.19887) count what the reference
// implementation saves for backward (state-spaces/mamba, mamba_ssm/modules/mamba_simple.py calls
// mamba_ssm/ops/selective_scan_interface.py MambaInnerFn with its default checkpoint_lvl 1; the
// kernel's scan_intermediates, csrc/selective_scan/selective_scan.cpp: {batch, dim, n_chunks,
// dstate * 2} in the weights' fp32, n_chunks = ceil(seqlen / 2048)). With d = d_model, D = expand x d,
// N = d_state, W = dt_rank + 2 N, bytes of one mixer at 16 bits:
//   in_proj's input (the normed hidden state its weight gradient needs)   2 s b d
//   xz (in_proj's output: x and the gate z)                                4 s b D
//   x_dbl (x_proj's output: Delta's low-rank input, B and C)                2 s b W
//   B and C (the contiguous copies the scan reads)                          4 s b N
//   out (the scan's output before the gate; out_z is recomputed)            2 s b D
//   the scan's state at the end of each 2,048-token chunk, fp32 pairs       8 b D N ceil(s / 2048)
// checkpoint_lvl 0 (recompute none) keeps conv1d_out and delta too (4 s b D); at level 1 (selective,
// the default) the backward recomputes them. Full recomputation keeps the layer input, 2 s b d, as for
// a transformer layer. Mamba-2.8B (d 2560, D 5120, N 16, W 192) at s 2048, b 1: 85,458,944 B per layer
// with its pre-norm's input (2 s b d), 41,728 B per token against Table 2's 34 x 2560 = 87,040 for a
// transformer layer of the same width: two Mamba layers hold what one transformer layer holds, as
// the paper's section 3.3.2 says of the fused scan with recomputation (its memory matches an optimized
// transformer layer with FlashAttention) and its section 3.4 of the parameters (two Mamba blocks match
// one transformer block's attention and MLP). Under tensor parallelism the D-wide tensors and the states are
// split (tp divides D); W and the B and C copies are whole on every rank (x_proj's all-reduced output);
// the input is split too with sequence parallelism. A hybrid's Mamba layer keeps its feed-forward and
// its two norms as Table 2 counts them for a transformer layer (34 s b h less attention's 11 s b h:
// 23 s b h, or 7 s b h + 16 s b h / t without sequence parallelism) with the mixer in place of
// attention; a Mamba stack's layer (no feed-forward) its one norm's input and the mixer. A layer
// without a feed-forward in a model that has them (feed_forward_layers below the attention layers plus
// the Mamba ones: Nemotron-H-8B's hybrid_override_pattern M-M-M-M*-M-... gives each attention layer
// the MLP after it and leaves the four Mamba layers before them without one, 24 MLPs for 28 mixers,
// arXiv:2504.03624 and the model's config.json) stores neither the MLP block nor its norm: 21 s b h,
// or 5 s b h + 16 s b h / t without sequence parallelism, less. A pipeline stage holds the model's
// mix of attention and Mamba layers (the busiest stage's layer count times each kind's share of the
// layers), unless stage_recurrent_layers and stage_feed_forward_layers give the stage's own counts.
// Mamba-2 layers (Dao and Gu 2024, arXiv:2405.21060; state-spaces/mamba mamba_ssm/modules/mamba2.py
// with its default use_mem_eff_path, which calls mamba_ssm/ops/triton/ssd_combined.py
// mamba_split_conv1d_scan_combined: its backward recomputes the conv, the scan's chunk states and
// the gated norm's output from what the forward saved, ctx.save_for_backward(zxbcdt, ..., out_x, ...,
// rstd, ...)). With W = 2 D + 2 G N + H (in_proj's [z, x, B, C, dt]), bytes of one mixer at 16 bits:
//   in_proj's input (nn.Linear saves it for its weight gradient)             2 s b d
//   zxbcdt (in_proj's output)                                                2 s b W
//   out_x (the scan's output before the gated norm)                          2 s b D
//   rstd (the gated norm's reciprocal RMS per group, fp32)                   4 s b G
// whatever the recomputation setting (the fused function always recomputes the rest); full
// recomputation keeps the layer input, 2 s b d. Under tensor parallelism W, D and G split over the
// ranks (mamba2.py divides d_inner, the heads and ngroups by the world size); the input with sequence
// parallelism. mamba2-2.7b (d 2560, D 5120, N 128, H 80, G 1) at s 2048, b 1: 74,784,768 B per
// mixer, 85,270,528 B with its pre-norm's input (41,636 B per token, as Mamba-1's 41,728 above).
// Expert parallelism (mixture of experts; Megatron-Core MoE, NVIDIA Megatron-LM
// megatron/core/transformer/moe/README.md and parallel_state.py): the routed experts' weights are
// split over `expert_parallel` ranks on top of TP x PP, and their ZeRO sharding runs over the expert
// data-parallel group of DP / EP ranks, so the fleet still holds 16 bytes per parameter at ZeRO-3.
// With an expert tensor-parallel degree below TP (`expert_tensor_parallel`, torchtitan's etp = 1:
// pytorch/torchtitan torchtitan/distributed/parallel_dims.py, "EP would borrow all cp and tp and some
// dp_shard degree") the experts split over ETP x PP x EP ranks and their data-parallel group holds the
// DP x TP / (ETP x EP) ranks left.
// Activations use the dense formula (the MoE layer's routed token copies are not added).
#pragma once

namespace dsx {

enum class Optimizer { sgd, sgd_momentum, adam, adam_8bit, adafactor, lion };
enum class Recomputation { none, selective, full };
// How attention runs: materialising the s x s scores (the paper's accounting) or fused (FlashAttention).
enum class AttentionKernel { unfused, fused };

// Optimizer-state bytes per parameter (fp32 master copy included when mixed_precision). matrix_side
// is the side of Adafactor's (square) factored matrices; the other optimizers ignore it.
double optimizer_bytes_per_param(Optimizer optimizer, bool mixed_precision, double matrix_side = 0);
// Weight (= gradient) bytes per parameter: 2 in mixed precision, 4 in fp32.
double weight_bytes_per_param(bool mixed_precision);
// Weights + gradients + optimizer states per parameter before activations (16 for mixed Adam).
double model_state_bytes_per_param(Optimizer optimizer, bool mixed_precision, double matrix_side = 0);

// Korthikanti et al. Table 2: activation bytes of one transformer layer for one micro-batch.
double activation_bytes_per_layer(double seq_len, double micro_batch, double hidden, double heads,
                                  double tensor_parallel, bool sequence_parallel, Recomputation recompute,
                                  AttentionKernel attention = AttentionKernel::unfused);

// A Mamba-1 layer's stored activations for one micro-batch (above): d = d_model, D = the mixer's
// channels, N = d_state, W = dt_rank + 2 N; with_feed_forward for a hybrid's layer (Jamba), without for
// a Mamba stack's.
double mamba_activation_bytes_per_layer(double seq_len, double micro_batch, double d_model, double channels,
                                        double state_size, double x_proj_width, double tensor_parallel,
                                        bool sequence_parallel, Recomputation recompute, bool with_feed_forward);

// A Mamba-2 layer's stored activations for one micro-batch (above): D = the mixer's channels, H its
// heads, G its groups, N = d_state; with_feed_forward as for mamba_activation_bytes_per_layer.
double mamba2_activation_bytes_per_layer(double seq_len, double micro_batch, double d_model, double channels,
                                         double heads, double groups, double state_size, double tensor_parallel,
                                         bool sequence_parallel, Recomputation recompute, bool with_feed_forward);

struct TrainingMemoryInput {
  double parameters = 0;  // whole model
  double expert_parameters = 0;  // the routed experts' share of `parameters` (mixture of experts)
  double expert_parallel = 1;    // EP: divides data_parallel x tensor_parallel / expert_tensor_parallel
  double expert_tensor_parallel = 0;  // ranks each expert's matrices split over; 0 = tensor_parallel
  double layers = 0;
  double stage_layers = 0;  // the busiest pipeline stage's layers; 0 = layers / pipeline_parallel
  // A hybrid's stage holds its own layer kinds (engine/solvers/training.hpp): its parameters (its
  // routed experts' among them) and its Mamba layers. < 0: parameters / pipeline_parallel and the
  // model's mix of layers.
  double stage_parameters = -1;
  double stage_expert_parameters = -1;
  double stage_recurrent_layers = -1;
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
  double activation_bytes_per_element = 2;  // 4 in fp32/tf32
  double context_parallel = 1;              // CP: activations divided by it
  // Mamba layers among `layers` (0 for a transformer), their mixer's shape, and whether they have a
  // feed-forward (a hybrid's do, a Mamba stack's do not): mamba_activation_bytes_per_layer.
  double recurrent_layers = 0;
  double recurrent_channels = 0;
  double recurrent_state_size = 0;
  double recurrent_x_proj_width = 0;
  bool recurrent_feed_forward = false;
  // Layers followed by a feed-forward (engine/serving.hpp feed_forward_layers), and the stage's own
  // count; < 0: every attention layer and, with recurrent_feed_forward, every Mamba layer.
  double feed_forward_layers = -1;
  double stage_feed_forward_layers = -1;
  // Mamba-2 layers among recurrent_layers (mamba2_activation_bytes_per_layer), their heads and groups.
  double ssd_layers = 0;
  double recurrent_heads = 0;
  double recurrent_groups = 0;
  // Low-rank adaptation: the base (`parameters`) is frozen, stored at base_weight_bytes_per_param.
  bool frozen_base = false;
  double base_weight_bytes_per_param = 2;
  double adapter_parameters = 0;  // trainable LoRA adapters (whole model)
  int zero_stage = 0;  // 0..3
  Recomputation recompute = Recomputation::none;
  AttentionKernel attention = AttentionKernel::unfused;
  bool sequence_parallel = true;
  double communication_buffer_bytes = 0;  // gradient buckets, NCCL buffers, P2P buffers
  // ZeRO-Offload (Ren et al., "ZeRO-Offload: Democratizing Billion-Scale Model Training", USENIX ATC
  // 2021, arXiv:2101.06840, section 4): the gradient partition, the fp32 master copy and the optimizer
  // states of this GPU's ZeRO shard live in host memory, where the update runs; the accelerator keeps
  // the weights and the activations.
  bool optimizer_offload = false;
  // Weights and stored activations in host memory, streamed a layer at a time (engine/offload.hpp,
  // after Calculon): the accelerator keeps two layers' weights and two layers' activations of one
  // micro-batch (never more than without offload); host memory holds all of them.
  bool weight_offload = false;
  bool activation_offload = false;
  double capacity_bytes = 0;
};

struct TrainingMemory {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double buffers_bytes = 0;
  double total_bytes = 0;  // on the accelerator
  bool fits = false;
  // With optimizer_offload, what moved to host memory (gradients_bytes and optimizer_bytes are then 0).
  double host_gradients_bytes = 0;
  double host_optimizer_bytes = 0;
  // With weight_offload / activation_offload, what host memory holds (weights_bytes and
  // activations_bytes are then the resident working set).
  double host_weights_bytes = 0;
  double host_activations_bytes = 0;
  // With weight_offload or activation_offload (0 otherwise): one layer's weights, and its stored
  // activations of one micro-batch, on this accelerator: what an offloaded layer moves over the host link.
  double layer_weights_bytes = 0;
  double layer_activations_bytes = 0;
};

// Per-accelerator memory: the model is split evenly over TP x PP (embeddings not treated apart).
// With no layer shape (layers or hidden 0) only the model states are counted (ZeRO's Figure 1).
TrainingMemory training_memory(const TrainingMemoryInput& in);

}  // namespace dsx
