// 3D-parallel (TP x PP x DP) transformer training step: decomposition, per-GPU compute of its own
// shard, communication, pipeline bubble, MFU/HFU.
//
//   DP = N / (TP x PP), an integer (0 here when TP x PP does not divide N).
//   Pipeline bubble (Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
//   Using Megatron-LM", SC 2021, sections 2.2.1-2.2.2): with p stages, m micro-batches and v model
//   chunks per GPU (interleaved 1F1B) the idle time is (p-1)/v micro-batch slots, i.e. a fraction
//   (p-1)/(v m + p - 1) of the step (3/19 for p = 4, m = 16, v = 1), and step = compute x
//   (1 + (p-1)/(v m)). mlsysim adds fraction x compute instead (its section 6.5: underestimate).
//   Tensor parallelism (Shoeybi et al., Megatron-LM 2019, section 3): 2 all-reduces of the
//   micro-batch activation b s h per layer forward and 2 backward; full recomputation repeats the
//   forward's 2. Sequence parallelism swaps each for a reduce-scatter + all-gather of equal volume.
//   Mamba-1 layers (Gu and Dao 2023, arXiv:2312.00752) under tensor parallelism need 2 all-reduces per
//   mixer "compared to just 1 all-reduce per attention or MLP layer", "because some of the SSM
//   parameters are functions of the inner activations" (T. Dao, "State Space Duality (Mamba-2) Part IV
//   - The Systems", tridao.me/blog/2024/mamba2-part4-systems; Mamba-2's parallel projections, Dao and
//   Gu 2024, arXiv:2405.21060 section 8.1, reduce it to 1 per layer: the `mamba2` builder's layers get
//   out_proj's only, and tp must divide their ngroups as well as their channels): with in_proj split by
//   columns and out_proj by rows, x_proj reads the split channels, so its output (dt_rank + 2 d_state
//   per token, Delta's input, B and C) is all-reduced before the scan, and out_proj's d-wide output
//   after it. Backward each has its conjugate of the same width (the gradients of x_proj's replicated
//   output and of in_proj's input), full recomputation the forward's again.
//   Pipeline point-to-point: each micro-batch sends its activation b s h forward and its gradient
//   back across every stage boundary, v times with v chunks per stage. Stages of unequal depth (p not
//   dividing L): the step runs at the pace of the busiest stage, so compute scales by its layers over
//   L / p (embedding and LM head FLOPs are spread over the stages like the layers').
//   FLOPs per token (Chowdhery et al., "PaLM", 2022, appendix B): model FLOPs 6 N + 12 L H Q T
//   (N parameters, L layers, H heads, Q head dimension, T sequence length; the functions take the
//   attention width H Q, which is d_model in Llama and GPT; causal masking is not discounted, as in
//   PaLM); hardware FLOPs add the recomputation: the full forward again (2 N + 4 L H Q T) or, for
//   selective recomputation, the attention core only (4 L H Q T). MFU = model FLOP/s achieved / (N_gpu x peak); HFU likewise with
//   hardware FLOPs.
//   Each GPU computes its own shard: 1 / (TP x PP) of the replica's FLOPs. mlsysim prices the whole
//   model on one GPU (its section 6.3) and counts throughput over TP x PP replicas that share data
//   (its section 6.2); dsx counts tokens once per DP replica.
//   Time to train = 6 P D / (N X MFU) is the cross-check (engine/laws.hpp training_time_s).
//   Mixture of experts: N is the ACTIVE parameter count (the k routed experts a token uses, plus
//   shared experts and everything outside the experts), since compute follows the active experts;
//   memory still holds all of them (engine/training_memory.hpp). Multi-head latent attention: the
//   attention width is H (dqk + dv) / 2, the width that makes 4 L (width) T the forward QK^T + AV
//   FLOPs per token (engine/serving.hpp attention_width).
//   Expert parallelism (Megatron-Core MoE, NVIDIA Megatron-LM megatron/core/transformer/moe/README.md:
//   experts are partitioned over workers that each process a different batch, i.e. EP ranks are
//   data-parallel ranks): each MoE layer dispatches its tokens to the experts' ranks and combines the
//   results with one all-to-all each, 2 per layer forward and 2 backward (the transposed exchanges),
//   6 with full recomputation (the forward's 2 again), like the TP all-reduces above. Per-GPU expert
//   compute is unchanged under balanced routing: EP ranks hold 1/EP of the experts and receive EP
//   times the tokens for them.
//   Frozen weights (LoRA fine-tuning, Hu et al. 2021): the backward pass of a linear layer is two
//   GEMMs of the forward's size, one for the input gradient and one for the weight gradient (the
//   derivation of Narayanan et al. SC'21 eq. 3: the backward pass costs twice the forward because
//   it computes gradients with respect to both the input and the weight tensors); a frozen weight
//   needs only the first, so its parameters cost 2 N forward + 2 N backward = 4 N per
//   token instead of 6 N, and the trainable adapters 6 A. Attention has no weights: its 12 L H Q T
//   is unchanged. Full recomputation repeats the forward of both.
//   FP8 training (NVIDIA Transformer Engine, "Using FP8 with Transformer Engine": fp8_autocast runs the
//   GEMMs of its Linear, LayerNormLinear and LayerNormMLP modules in fp8, and its recipe leaves dot-product
//   attention in bf16 unless fp8_dpa is set; the E4M3/E5M2 formats of Micikevicius et al., "FP8 Formats
//   for Deep Learning", arXiv 2209.05433, 2022): the 6 N part runs at the fp8 peak and the attention
//   FLOPs at `attention_peak_flops_per_s`, and so do the GEMMs of `high_precision_parameters`: the
//   LM head, which no framework builds from Transformer Engine modules (NVIDIA Megatron-LM
//   megatron/core/models/gpt/gpt_model.py: output_layer is Megatron's own
//   tensor_parallel.ColumnParallelLinear; MosaicML llm-foundry llmfoundry/models/layers/
//   custom_embedding.py: MPT's tied unembedding is torch's F.linear), so fp8_autocast leaves it in
//   bf16. Each GEMM operand is cast from bf16 to fp8 together with the
//   transpose the weight-gradient GEMM reads (Transformer Engine's fused cast-transpose: Hopper's fp8
//   tensor-core GEMMs take one operand layout, TN), 2 bytes read and 1 + 1 written per element of
//   the forward inputs and the backward output gradients, and of the weights on every forward pass
//   (transformer_engine/pytorch/module/linear.py, Linear.forward: only a caller that passes
//   is_first_microbatch lets it cache "the FP8 versions of the weights" over a step's
//   micro-batches); the caller counts those bytes. The amax that delayed scaling records comes out of
//   the same cast kernels (Transformer Engine C API, transpose.h: nvte_cast_transpose takes the
//   scale and writes the cast, its transpose and the amax), so it adds no traffic; the per-tensor
//   scale updates (recipe.h, nvte_delayed_scaling_recipe_amax_and_scale_update: an amax history of
//   a few hundred floats per tensor) are not counted.
//   Memory-bound work: bytes per token of the replica, divided over the ranks like the FLOPs (the
//   replicated part over PP and CP only), plus `memory_bytes_per_microbatch` of each GPU per
//   micro-batch, streamed at `memory_bytes_per_s` as part of compute, so the pipeline bubble
//   stretches it too; the optimizer update once per step after the backward.
//   Context parallelism (Liu et al., "Ring Attention with Blockwise Transformers for Near-Infinite
//   Context", 2023; NVIDIA Megatron-Core context parallel): the sequence is split over cp ranks
//   (each computes 1 / cp of the replica's FLOPs) and each attention layer passes the K and V blocks
//   around a ring: forward cp - 1 steps of b (s / cp) 2 kv_heads head_dim elements, backward twice
//   that (K, V and their gradients), full recomputation the forward's again. Each step's transfer
//   overlaps the attention block computed meanwhile, so a layer exposes max(0, exchange - attention
//   compute) of it (Ring Attention section 3: compute hides communication when the block is large).
//   The all-gather form (Llama Team, "The Llama 3 Herd of Models", arXiv:2407.21783, section 3.3.2:
//   K and V all-gathered, then attention for the local query chunk; the KV gradients reduce-
//   scattered backward) runs the same number of collectives per layer, each before the attention
//   that needs it, so none is hidden.
#pragma once

namespace dsx {

// 0 when tensor x pipeline does not divide gpus.
double data_parallel_degree(double gpus, double tensor_parallel, double pipeline_parallel);

double pipeline_bubble_fraction(double stages, double microbatches, double virtual_stages);
// Step time / bubble-free compute time: 1 + (p-1)/(v m).
double pipeline_stretch(double stages, double microbatches, double virtual_stages);

// PaLM appendix B; `frozen` parameters (no weight gradients) add 4 FLOPs per token each.
double model_flops_per_token(double parameters, double layers, double hidden, double seq_len, double frozen = 0);
// recompute: 0 none, 1 selective, 2 full.
double hardware_flops_per_token(double parameters, double layers, double hidden, double seq_len, int recompute,
                                double frozen = 0);
// Attention's share of hardware_flops_per_token: 12 L H Q T, plus 4 L H Q T recomputed (selective, full).
double attention_flops_per_token(double layers, double hidden, double seq_len, int recompute);

struct StepInput {
  double parameters = 0;       // active trainable parameters (mixture of experts: those one token uses)
  double frozen_parameters = 0;  // active parameters without weight gradients (LoRA's base)
  double layers = 0;
  double stage_layers = 0;     // layers of the busiest pipeline stage; 0 = layers / pipeline_parallel
  double hidden = 0;           // attention width (d_model for MHA/GQA)
  double seq_len = 0;
  double micro_batch = 1;
  double microbatches = 1;     // per step per DP replica (gradient accumulation x pipelining)
  double tensor_parallel = 1;
  double pipeline_parallel = 1;
  double data_parallel = 1;
  double virtual_stages = 1;
  int recompute = 0;           // 0 none, 1 selective, 2 full
  double activation_bytes_per_element = 2;
  double gradient_bytes_per_element = 2;
  double peak_flops_per_s = 0;  // one GPU, the training precision (fp8: the linear layers' GEMMs)
  double attention_peak_flops_per_s = 0;  // attention's precision; 0 = peak_flops_per_s
  // Active parameters (of `parameters` and of `frozen_parameters`) whose GEMMs run at
  // attention_peak_flops_per_s at compute_efficiency: an fp8 run's LM head, outside Transformer Engine.
  double high_precision_parameters = 0;
  double high_precision_frozen_parameters = 0;
  double mfu_peak_flops_per_s = 0;        // the peak MFU and HFU refer to; 0 = peak_flops_per_s
  double context_parallel = 1;
  double cp_kv_exchange_s = 0;  // one layer's forward K/V ring (or all-gather) for one micro-batch over the CP ranks
  bool cp_all_gather = false;   // K/V all-gathered before attention (Llama 3): the exchange is not hidden
  double compute_efficiency = 1;  // achieved / peak on the GEMMs (eta)
  double attention_efficiency = 0;  // achieved / peak in the attention kernels; 0 = compute_efficiency
  double attention_work_fraction = 1;  // attention FLOPs a kernel computes: 1/2 causal (masked blocks skipped)
  // Memory-bound work (bytes per token of the replica; 0 = none), at `memory_bytes_per_s` achieved:
  double split_memory_bytes_per_token = 0;       // divided over the TP, PP and CP ranks
  double replicated_memory_bytes_per_token = 0;  // repeated on every TP rank (split over PP and CP)
  double memory_bytes_per_s = 0;
  // State-space scans (engine/graph.hpp selective_scan, ssd_scan): their FLOPs per token of the replica
  // for the whole step (forward, backward and any recomputation) at scan_peak_flops_per_s x
  // compute_efficiency, and the bytes per token they move, already in split_memory_bytes_per_token.
  // Each scan costs what the roofline gives, max(FLOPs / peak, bytes / bandwidth): the compute time
  // beyond the bytes' is added to compute_s.
  double scan_flops_per_token = 0;
  double scan_memory_bytes_per_token = 0;
  double scan_peak_flops_per_s = 0;
  double memory_bytes_per_microbatch = 0;        // one GPU, whatever the tokens (fp8 weight casts)
  double optimizer_step_bytes = 0;  // this GPU's optimizer update per step (reads and writes)
  // ZeRO-Offload's host side (Ren et al. 2021, arXiv:2101.06840, section 4.1, Figure 5): the
  // gradient shard's copy to the host (overlapped with the backward pass of the last micro-batch,
  // the first whose gradients are final), the update on the host CPU, the updated weights' copy back.
  // With offload_update_s > 0 these replace the device's optimizer update.
  double offload_gradients_to_host_s = 0;
  double offload_update_s = 0;
  double offload_weights_to_device_s = 0;
  // Weights and activations streamed from host memory a layer at a time (engine/offload.hpp, after
  // Calculon): per layer per micro-batch, forward_bytes forward and backward_bytes backward cross the
  // host link at host_link_bytes_per_s, each overlapped with that layer's compute-bound time (its
  // GEMMs and attention, forward or backward with recomputation) plus its exposed TP all-reduces
  // (2 forward, the rest backward); the exposed remainder is paid every layer and micro-batch and
  // stretched by the pipeline bubble like compute. offload_once_s is paid once per step unhidden
  // (the updated weights written back to host memory).
  double offload_forward_bytes = 0;
  double offload_backward_bytes = 0;
  double host_link_bytes_per_s = 0;
  double offload_once_s = 0;
  // Times of the collectives per call, computed by the caller from engine/collectives.hpp:
  double tp_all_reduce_s = 0;   // one all-reduce of b s h activation bytes over TP ranks
  // All-reduces of tp_all_reduce_s per layer in the forward pass, the mean over the layers: 2 for a
  // transformer (attention and MLP); a Mamba stack's layer has its mixer's and no feed-forward's.
  double tp_forward_calls_per_layer = 2;
  // Narrower all-reduces per layer in the forward pass (the mean over the layers) and the time of
  // one: a Mamba-1 mixer's after x_proj, b s (dt_rank + 2 d_state) wide.
  double tp_narrow_forward_calls_per_layer = 0;
  double tp_narrow_all_reduce_s = 0;
  double expert_parallel = 1;   // EP ranks (1 = experts replicated in every DP rank)
  double moe_layers = 0;        // layers with routed experts
  // A hybrid's busiest stage holds its own mix of layer kinds (engine/solvers/training.hpp): the
  // stage's share of the GEMM FLOPs, of the attention layers and of the Mamba layers (their scans'
  // FLOPs and bytes) over the even share 1 / pipeline_parallel, and its MoE layers. 0 (the
  // imbalances) and < 0 (stage_moe_layers) price every part by stage_layers, the model's mix.
  double gemm_imbalance = 0;
  double attention_imbalance = 0;
  double scan_imbalance = 0;
  double stage_moe_layers = -1;
  double ep_all_to_all_s = 0;   // one dispatch or combine all-to-all of one micro-batch over EP ranks
  // One all-gather of a MoE layer's routed tokens over the expert-TP group before the experts plus
  // one reduce-scatter after them, per micro-batch forward (Megatron-Core's alltoall token dispatcher
  // with expert tensor parallelism: A2A(EP) -> AG(TP), RS(TP) -> A2A(EP)); their conjugates run
  // backward, again under full recomputation. They take the place of the MoE layer's feed-forward TP
  // all-reduce (one tp_all_reduce_s per pass) and are not overlapped; 0: none (a dense model, ep 1,
  // or whole experts).
  double moe_tp_gather_scatter_s = 0;
  double pp_p2p_s = 0;          // one point-to-point of b s h activation bytes
  double dp_all_reduce_s = 0;   // gradient all-reduce (or reduce-scatter + all-gather) per step
  double tp_overlap = 0;        // fraction of TP time hidden behind compute, [0, 1]
  double dp_overlap = 0;        // fraction of DP time hidden behind backward compute
  double gpus = 1;
};

struct StepResult {
  double compute_s = 0;        // this GPU's shard, all micro-batches, no bubble (memory-bound work included)
  double memory_bound_s = 0;   // the part of compute_s that streams memory (norms, activations, casts)
  double optimizer_s = 0;      // the optimizer update, once per step
  double offload_s = 0;        // exposed host-link time of offloaded weights and activations (bubble share not in it)
  double bubble_s = 0;
  double tp_comm_s = 0;        // exposed
  double pp_comm_s = 0;
  double ep_comm_s = 0;        // expert-parallel all-to-alls
  double cp_comm_s = 0;        // exposed context-parallel K/V exchange
  double dp_comm_s = 0;        // exposed
  double step_s = 0;
  double tokens_per_step = 0;  // global: DP x m x b x s
  double tokens_per_s = 0;
  double mfu = 0;
  double hfu = 0;
  double scaling_efficiency = 0;  // compute_s / step_s
};

StepResult training_step(const StepInput& in);

}  // namespace dsx
