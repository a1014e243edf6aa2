// LLM serving physics: prefill and decode of a decoder-only transformer, KV cache, tensor parallelism.
//
// The serving view is derived from the model's eager operator graph (engine/model_builders.cpp,
// architecture `transformer`, built for seq_len T), not from 2 x parameters alone:
//  - "attention family" ops (names attention_*: scores, scale, mask, softmax, context) cost FLOPs
//    proportional to T^2: their sum / T^2 is the cost of one query token against one context token;
//  - every other op is linear in T: its FLOPs / T is the per-token cost (projections, MLP, norms,
//    RoPE, LM head);
//  - layers, d_model, heads, KV heads and head_dim are read back from qkv_proj and attention_scores.
// So prefill of P prompt tokens counts linear x P + attention x P^2 FLOPs (full P x P attention, as
// the builder counts it and as mlsysim's ServingModel does), of which a causal fused kernel computes
// linear x P + attention x P^2 / 2 (causal_skipped_prefill_flops), and one decode token at context c
// costs linear + attention x c.
// Attention is taken as fused (FlashAttention, Dao et al. 2022, arXiv:2205.14135): the P x P score
// matrix is never written to memory, so prefill memory traffic is weights + linear-op activations +
// the KV cache written.
//
// KV cache per token = 2 (K and V) x layers x kv_heads x head_dim x bytes(kv precision): MHA has
// kv_heads = heads, GQA fewer (Ainslie et al. 2023, arXiv:2305.13245). Llama-3-8B: 2 x 32 x 8 x 128
// x 2 B = 131,072 B/token, 0.268 GB per 2,048-token sequence.
// Multi-head latent attention (graph op mla_kv_down_proj; DeepSeek-V2, arXiv:2405.04434 section
// 2.1; DeepSeek-V3, arXiv:2412.19437 section 2.1.1) caches only the latent c_KV and the decoupled
// RoPE key: (kv_lora_rank + qk_rope_head_dim) x layers x bytes per token, read back from that op's
// output (DeepSeek-V3: 576 x 61 x 2 B = 70,272 B/token at 16 bits, against 2 x 128 x 128 x 61 x 2 B
// = 3,997,696 B for MHA of the same heads). The latent serves every head, so it counts as one KV
// head: tensor parallelism replicates it on every GPU (kv_share_per_gpu = 1).
// MLA attention FLOPs: prefill uses the graph's materialised form (keys and values up-projected per
// token; 2 H (dqk + dv) FLOPs per query-key pair and layer for QK^T and AV). Decode uses the absorbed
// form of DeepSeek-V2 section 2.1.2 (W_UK folded into the query, W_UV into the output projection):
// each new token attends the cached latent directly, 2 H ((kv_lora_rank + dr) + kv_lora_rank) FLOPs
// per query-key pair and layer, and re-up-projecting the whole cache at every step is avoided; the
// per-token projection FLOPs of the two forms are equal (2 H kv_lora_rank (dn + dv) either way).
// Prefill stays materialised because at T x T pairs it is the cheaper form (DeepSeek-V3: 320 vs 1,088
// per head and pair); serving engines make the same split (SGLang and vLLM run MLA prefill
// materialised and decode absorbed).
//
// Sliding-window attention (Beltagy et al. 2020, arXiv:2004.05150; Mistral 7B, arXiv:2310.06825
// section 2; Gemma 2, arXiv:2408.00118, alternating local and global layers): the graph's attention ops
// of a windowed layer carry attention_window = W. Such a layer attends min(c, W) keys at context c, so
// its prefill costs P x min(P, W) pairs and a decode token min(c, W); its KV cache is a rolling buffer
// of the last W tokens (Mistral's "rolling buffer cache"), so one sequence's cache is
// (global layers) x c + (windowed layers) x min(c, W) tokens' worth (kv_cache_bytes), which is what
// the serving solver's memory and batch fit use. kv_cache_bytes_per_token counts every layer.
// Hybrid attention + Mamba models (Jamba, Lieber et al. 2024, arXiv:2403.19887 section 2; graph of
// engine/model_builders_hybrid.cpp): only the attention layers hold a KV cache (Jamba-v0.1: 4 of 32
// layers, 2 x 4 x 8 x 128 x 2 B = 16,384 B/token at 16 bits, 4 GiB at 256K tokens: the paper's Table 1
// "4GB"). Each Mamba layer holds a constant state per sequence, whatever its length: the conv state
// (D x d_conv) and the SSM state (D x d_state), D = expand x d_model, the shapes of Hugging Face's
// HybridMambaAttentionDynamicCache (transformers models/jamba/modeling_jamba.py); it is read back from
// the graph's ssm_conv1d (weights D d_conv + D) and selective_scan (weights A and D: D d_state + D) ops.
// The state joins the KV cache in memory and in a step's reads (sequence_cache_bytes; its write-back is
// not counted, as a new token's KV write is not) and under tensor parallelism is split like the KV
// heads. A Mamba layer's per-token work (projections, conv, scan) is linear in the tokens, so prefill
// and decode price it with the other linear ops; `layers` counts every block, so each Mamba layer has
// its two tensor-parallel all-reduces (mixer and feed-forward) like an attention layer.
// Attention-free models (Mamba, Gu & Dao 2023, arXiv:2312.00752, section 3.4; graph of the `mamba`
// builder, engine/model_builders_sequence.cpp): no attention op, so no KV cache (attention_layers,
// heads, kv_heads and every attention FLOP are 0); each sequence holds only the Mamba layers' constant
// state, read back as above (Mamba-2.8B: 64 layers x 5,120 channels x (d_conv 4 + d_state 16) =
// 6,553,600 elements, 13,107,200 B at 16 bits: the conv_state (batch, d_inner, d_conv) and ssm_state
// (batch, d_inner, d_state) of state-spaces/mamba's mamba_ssm/modules/mamba_simple.py
// Mamba.allocate_inference_cache, at the weights' dtype). d_model and T come from
// ssm_in_proj (T x d in, 2 T D out, 2 d D weights). Prefill of P tokens is the graph's scan over them
// (linear FLOPs x P, the scan among them); a decode step runs one recurrent step per sequence: it reads
// the weights once and each sequence's state, whatever the context (the paper's section 3.5: constant
// time and memory per step). Tensor parallelism splits the D = expand x d_model channels of the mixer
// (tp must divide D) and with them the state; a Mamba-1 block needs 2 all-reduces per layer (T. Dao,
// "State Space Duality (Mamba-2) Part IV - The Systems", tridao.me 2024: "Mamba-1 ... requires 2
// all-reduces per layer"), priced like the transformer's two, d_model wide (the one after x_proj is
// R + 2 N wide: an upper bound).
// head_dim need not be d_model / heads (Gemma 2, PaLM): it is read from attention_scores (2 head_dim
// FLOPs per score), and T from qkv_proj's input over d_model (the pre-attention norm's weights).
//
// Decode step (one token for each of B sequences): weights are read once for the whole batch, each
// sequence reads its own KV cache and moves its non-attention activations (the graph's op inputs and
// outputs per token, unfused: 12% of the weight stream at batch 256 for Llama-3-70B); time =
// max(compute, memory) (roofline) + tensor-parallel communication. Prefill likewise with eta_prefill.
// Mixture of experts: memory holds every expert (parameter_count), FLOPs per token count the k
// active ones (the graph's expert ops), and a step reads the experts its tokens touch
// (weight_elements_read_for_tokens).
// Expert parallelism (ServingDevice.ep, mixture of experts only): a replica of tp x ep GPUs in one
// node runs attention and the non-expert layers tensor-parallel over tp GPUs and data-parallel over ep
// groups (each group holds ceil(B / ep) of the batch's sequences and their KV cache), and shards the
// routed experts over all tp x ep GPUs (ep groups of experts, each tensor-sliced over tp). This is
// DeepSeek-V3's deployment (arXiv:2412.19437 section 3.4: attention TP4 with data parallelism, experts
// EP32 in prefill and EP320 in decode) and SGLang's DP attention + EP (docs.sglang.io, "DP, DPA and SGLang
// DP Router"), which exists because MLA's latent cannot be split by heads and TP would replicate it.
// Per GPU: weights = non-expert / tp + experts / (tp x ep); FLOPs = the busiest group's non-expert
// and attention work / tp + all tokens' expert FLOPs / (tp x ep) (uniform routing, no load imbalance);
// weight reads = non-expert / tp + experts touched by all the replica's tokens / (tp x ep). Each MoE
// layer dispatches each token's hidden state to its k experts' ranks and combines the results: two
// all-to-alls per forward pass (engine/collectives.hpp all_to_all_s, pairwise, on the one-way link)
// over ep ranks of group tokens x k x d_model x bytes / tp each, added to the TP all-reduces of the
// group's tokens. ep = 1 is the plain tensor-parallel replica. On a torus node both are the
// torus's (engine/torus.hpp: ServingDevice's tp_torus and ep_torus).
// Activation traffic is split by TP like the matmuls (norms and residuals, replicated in Megatron TP,
// are a small share).
//
// Weight-only quantization (w8a16, w4a16): weights are stored and streamed at weight_bytes_per_element
// while activations, the TP all-reduces and the expert all-to-alls stay at activation_bytes_per_element;
// dequantization inside the kernel is taken as free (its ALU work matters only where a step is
// compute-bound, and the roofline does not price it).
//
// Tensor parallelism inside a node (Megatron-LM, Shoeybi et al. 2019, arXiv:1909.08053): weights and
// FLOPs split by TP; KV heads split by min(TP, kv_heads) (heads are replicated once TP exceeds them);
// two all-reduces per layer (after attention and after the MLP) of tokens x d_model activations, each
// a ring all-reduce 2 (N-1)/N x S / B + 2 (N-1) alpha on the ONE-WAY link bandwidth
// (HardwareSpec.accelerator_link_bandwidth_bytes_per_s), not overlapped with compute.
//
// mlsysim bugs not copied (shared/reference mlsysim-models section 6): throughput is per replica and
// never multiplied by TP (6.2); the bidirectional NVLink figure is never used as beta (6.7); TTFT of
// continuous batching is the prefill of one prompt, not of B_max prompts, and the static-batching
// comparator is derived, not a hard-coded 0.6 factor (6.9); a point that does not fit is infeasible
// rather than timed on HBM bandwidth (6.9); heads and head_dim come from the graph, never defaulted
// (6.11).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/graph.hpp"
#include "engine/torus.hpp"

namespace dsx {

// One shape of linear-layer GEMM a forward pass runs (the graph's ops of kind matmul, those of one
// shape merged): per token, rows_per_token rows of k features in and n out, spread over `copies`
// weight matrices of n x k; `count` such GEMMs per pass (layers x ops). What the step's compute is
// priced by on a chip with known compute units (engine/gemm_waves.hpp).
struct ServingGemm {
  double n = 0;
  double k = 0;
  double rows_per_token = 1;  // k of E for the routed experts, S for S shared experts, else 1
  double copies = 1;          // E routed experts, S shared ones, else 1
  double count = 0;
  bool routed = false;        // a routed expert's: its rows go to the experts the tokens pick
  // Output d_model wide (out_proj, down_proj, fc2, ssm_out_proj): Megatron's row-parallel layer, whose K
  // tensor parallelism splits; the others are column-parallel (N split).
  bool row_parallel = false;
};

struct ServingShape {
  double layers = 0;                           // all blocks: attention_layers + recurrent_layers
  double attention_layers = 0;                 // layers with attention, the ones the KV cache counts
  // Hybrid models (Jamba: graph ops selective_scan, ssm_conv1d): Mamba layers carry a constant state per
  // sequence instead of a KV cache; 0 for a transformer.
  double recurrent_layers = 0;
  // One sequence, all Mamba layers (the graph's Op::state_elements): D d_conv + D d_state each for
  // Mamba-1, (D + 2 G N) d_conv + H P N for Mamba-2.
  double recurrent_state_elements = 0;
  double recurrent_channels = 0;               // D = expand x d_model of the first Mamba layer: what TP splits
  double recurrent_state_size = 0;             // N = d_state of the first Mamba layer
  // Mamba-2 layers (graph op ssd_scan; Dao & Gu 2024, arXiv:2405.21060): their count, the first one's
  // heads H (ssd_scan's weights are A_log, D and dt_bias, H each) and its groups G of B and C
  // (ssm_in_proj writes 2 D + 2 G N + H per token). The reference splits heads and groups over TP
  // (state-spaces/mamba mamba_ssm/modules/mamba2.py asserts ngroups % world_size == 0).
  double ssd_layers = 0;
  double recurrent_heads = 0;
  double recurrent_groups = 0;
  // The scans' forward FLOPs and activation elements (inputs + outputs) per token, all layers
  // (selective_scan or ssd_scan ops), and whether they run on the vector units (Mamba-1's,
  // engine/graph.hpp runs_on_vector_units) or the tensor cores (Mamba-2's): what the training
  // solver prices through the roofline beside the GEMMs.
  double scan_flops_per_token = 0;
  double scan_elements_per_token = 0;
  bool scan_on_vector_units = false;
  // R + 2 N of the first Mamba layer: ssm_x_proj's output per token (Delta's low-rank input, B and C), the
  // width of the all-reduce a Mamba-1 mixer needs after x_proj under tensor parallelism.
  double recurrent_x_proj_width = 0;
  // Blocks with a feed-forward (an MLP, ops mlp_gate_proj or mlp_fc1, or a mixture of experts,
  // moe_router): every layer of a transformer or of Jamba, none of an attention-free Mamba stack.
  double feed_forward_layers = 0;
  double d_model = 0;
  double heads = 0;
  double kv_heads = 0;
  double head_dim = 0;
  double built_seq_len = 0;                    // T the graph was built for
  double parameter_count = 0;                  // weights resident in memory
  double weight_elements_read = 0;             // weights one forward step reads
  double linear_flops_per_token = 0;           // all non-attention ops, all layers
  double attention_flops_per_query_key = 0;    // one query token x one context token, all layers
  double decode_attention_flops_per_query_key = 0;  // the same at decode (MLA: absorbed form)
  double attention_width = 0;                  // (QK^T + AV FLOPs) / (4 T^2) of one layer: d_model for MHA/GQA
  double moe_layers = 0;                       // layers with a router (0 for a dense model)
  double linear_activation_elements_per_token = 0;  // inputs + outputs of non-attention ops
  // Training's memory-bound work, per token, all layers (engine/parallelism.hpp): the inputs +
  // outputs of the ops that are neither matmuls nor attention (norms, activations, residual adds,
  // rotary, embeddings); `replicated` are the d-wide ones (norms, residual adds) that every TP rank
  // repeats unless sequence parallelism splits them, `split` the rest (TP splits their width).
  double replicated_elementwise_elements_per_token = 0;
  double split_elementwise_elements_per_token = 0;
  // The linear layers' GEMM operands per token (router and LM head excluded): what FP8 training
  // casts, the inputs in the forward pass and the output gradients in the backward pass.
  double linear_input_elements_per_token = 0;
  double linear_output_elements_per_token = 0;
  double logits_per_token = 0;                 // the LM head's outputs (the vocabulary); 0 without one
  double lm_head_weight_elements = 0;          // the LM head's matrix (vocabulary x d_model); 0 without one
  // The weights of those linear layers (experts included, router and LM head excluded): what FP8
  // training casts to fp8, with their transposes, on every forward pass that does not reuse them.
  double linear_weight_elements = 0;
  bool causal = false;                         // a causal mask: a fused kernel computes half of QK^T and AV
  double kv_elements_per_token = 0;            // 2 x layers x kv_heads x head_dim; MLA: layers x (r_kv + dr)
  bool latent_attention = false;               // multi-head latent attention (kv_heads is then 1)
  // Mixture of experts (graph ops moe_router, expert_*); 0 for a dense MLP.
  double experts = 0;
  double experts_per_token = 0;
  double expert_weight_elements = 0;           // all experts, all layers; part of weight_elements_read
  double active_parameter_count = 0;           // parameters one token uses: parameter_count for a dense model
  // Sliding-window layers (graph ops with attention_window > 0; Mistral, Gemma 2): each query attends
  // the last W keys, and the layer's KV cache holds only those. 0 when every layer attends globally.
  double attention_window = 0;                 // W (tokens)
  double windowed_layers = 0;
  double windowed_attention_flops_per_query_key = 0;  // all windowed layers, one pair inside the window
  double windowed_kv_elements_per_token = 0;   // the part of kv_elements_per_token the window caps at W tokens
  // Low-rank adapters on every linear layer of the blocks (QLoRA's placement: Dettmers et al. 2023,
  // section 4; router and LM head excluded; qkv_proj as separate q, k, v matrices, as Hugging Face
  // PEFT applies them): LoRA of rank r adds r (d_in + d_out) parameters per d_in x d_out matrix
  // (Hu et al., "LoRA", ICLR 2022, section 4.1), so r x these are the adapters' parameters.
  double adapter_in_out_elements = 0;          // sum of d_in + d_out over the matrices, all layers and experts
  double active_adapter_in_out_elements = 0;   // the same over the matrices one token passes (k of E experts)
  // The layers in execution order, one entry each (kLayerAttention set for an attention layer, clear
  // for a Mamba layer; kLayerFeedForward set when a feed-forward follows its mixer, kLayerMoe when that
  // is a mixture of experts): a layer is its mixer op (attention_scores, selective_scan or ssd_scan)
  // and the feed-forward (mlp_gate_proj, mlp_fc1 or moe_router) before the next mixer (Nemotron-H's
  // MLP layers join the mixer before them), and a run of
  // consecutive ops with one repeat count runs that many times in a row, as the builders lay out a
  // repeated block of layers (Jamba's lcm(attention_period, expert_period) layers, then the rest once).
  // What a pipeline stage of a hybrid holds of each kind (engine/solvers/training.hpp).
  std::vector<std::uint8_t> layer_kinds;
  // Weights of the mixers and dense feed-forwards, all layers: attention's projections (qkv_proj,
  // out_proj, mla_*), Mamba's (ssm_* ops and the scans' own A and D), the dense MLPs' (mlp_*).
  double attention_mixer_weight_elements = 0;
  double recurrent_mixer_weight_elements = 0;
  double dense_feed_forward_weight_elements = 0;
  // The linear layers' GEMMs by shape, and the FLOPs per token of those that are not routed experts
  // (part of linear_flops_per_token; the routed ones are expert_flops_per_token).
  std::vector<ServingGemm> gemms;
  double unrouted_gemm_flops_per_token = 0;
};

inline constexpr std::uint8_t kLayerAttention = 1;
inline constexpr std::uint8_t kLayerMoe = 2;
inline constexpr std::uint8_t kLayerFeedForward = 4;

// False when the graph is neither a transformer built by engine/model_builders (a qkv_proj or
// mla_kv_down_proj op and an attention_scores op; Jamba's hybrid among them) nor an attention-free
// stack of Mamba layers (ssm_in_proj and selective_scan ops, no attention op). Layers are summed over
// the graph's blocks (DeepSeek-V3: 3 dense + 58 MoE). Allocation-free.
bool derive_serving_shape(const ModelGraph& graph, ServingShape& shape);

// Weights a step over `tokens` tokens reads. Mixture of experts: each token picks k of E experts,
// taken as uniform and independent, so E (1 - (1 - k/E)^tokens) distinct experts are expected per
// layer (batch-1 decode reads k experts' weights, a large batch all E); dense: weight_elements_read.
double weight_elements_read_for_tokens(const ServingShape& s, double tokens);

// Bytes per weight of grouped weight-only quantization (w8a16, w4a16): the weight's own bytes plus, per
// group of group_weights weights, one 16-bit scale and a zero point of zero_point_bytes. 0 zero-point
// bytes: a symmetric scheme (scale only); the weight's own width: a zero packed like the weights (the
// qzeros tensors of AWQ, Lin et al., arXiv:2306.00978, and GPTQ, arXiv:2210.17323); 2: a 16-bit zero
// beside the scale (gpt-fast's int4, quantize.py get_group_qparams and pack_scales_and_zeros, bf16
// scales and zeros per group). group_weights 0: one scale per output channel (gpt-fast's int8,
// WeightOnlyInt8Linear's bf16 `scales` of out_features), whose 2 / in_features bytes per weight
// (under 0.05 % of an int8 weight from in_features 4096) are not counted.
double grouped_weight_bytes(double weight_bytes, double group_weights, double zero_point_bytes);

// Per token of context, every attention layer counted (the window ignored).
double kv_cache_bytes_per_token(const ServingShape& s, double kv_bytes_per_element);
// One sequence's KV cache at `tokens` of context: sliding-window layers hold at most W tokens.
double kv_cache_bytes(const ServingShape& s, double tokens, double kv_bytes_per_element);
// Tensor-parallel all-reduces of d_model-wide activations in one forward pass: one per mixer and one
// per feed-forward (a transformer's attention and MLP, Jamba's mixer and feed-forward, Nemotron-H's
// Mamba-2, attention and MLP layers one each); without feed-forwards 2 per Mamba-1 mixer and 1 per
// layer of a Mamba-2 stack (Dao & Gu 2024, arXiv:2405.21060, section 8.1; T. Dao, "State Space
// Duality (Mamba-2) Part IV - The Systems", tridao.me 2024: with the parallel projections every SSM
// parameter is a function of the layer's input, and a grouped norm with groups divisible by the TP
// degree keeps the norm local: "1 all-reduce per layer, instead of 2").
double tp_all_reduces_per_pass(const ServingShape& s);

// Whether tensor parallelism of degree tp splits the Mamba layers evenly: tp divides D (every Mamba
// layer) and G (Mamba-2's groups, mamba2.py's assert ngroups % world_size == 0); true without them.
bool recurrent_tp_divides(const ServingShape& s, double tp);

// One sequence's recurrent state (hybrid models' Mamba layers), whatever its length; 0 for a transformer.
double recurrent_state_bytes(const ServingShape& s, double bytes_per_element);
// What one sequence holds and a step reads: its KV cache plus its recurrent state, both at the cache's
// precision (Hugging Face's HybridMambaAttentionDynamicCache holds both at one dtype).
double sequence_cache_bytes(const ServingShape& s, double tokens, double kv_bytes_per_element);

// FLOPs of prefilling one prompt of `prompt_tokens`, and of one decode token at `context` tokens
// (MLA: materialised prefill, absorbed decode). Sliding-window layers count min(tokens, W) keys per query.
double prefill_flops(const ServingShape& s, double prompt_tokens);
double decode_flops_per_token(const ServingShape& s, double context_tokens);

// Ring all-reduce of `bytes` over `ranks` on a one-way link bandwidth with per-step latency alpha.
double ring_allreduce_s(double bytes, double ranks, double link_bytes_per_s, double alpha_s);

struct ServingDevice {
  // The GEMM peak at the compute precision (HardwareSpec::gemm_peak: at fp8 the peak x the entry's
  // fp8_gemm_relative_efficiency): the step's FLOPs are its linear layers' and attention's matrix products.
  double peak_flops_per_s = 0;
  // The rate of the state-space scans among the step's FLOPs (engine/dispatch.hpp
  // scan_peak_flops_per_s: Mamba-1's selective scan at the fp32 vector rate); 0 = peak_flops_per_s.
  double scan_peak_flops_per_s = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double link_bytes_per_s = 0;       // one-way
  double link_latency_s = 0;
  double weight_bytes_per_element = 2;
  double activation_bytes_per_element = 2;  // activations, all-reduces, all-to-alls: the compute precision
  double kv_bytes_per_element = 2;
  double tp = 1;
  double ep = 1;                     // expert-parallel groups of tp GPUs each (attention data-parallel)
  // On a torus node (engine/torus.hpp) the TP group's block and the EP ranks' strided group, whose
  // all-reduces and all-to-alls are then the torus's; count 0 = a switched domain at link_bytes_per_s.
  TorusTopology tp_torus{};
  TorusTopology ep_torus{};
  // SMs or CUs (HardwareSpec::compute_units): > 0 prices each GEMM by its tiles and waves, with
  // split-K for skinny ones (engine/gemm_waves.hpp), and the split's partial sums join the memory
  // traffic; 0 = every FLOP at the roofline's peak x eta.
  double compute_units = 0;
};

struct PhaseTime {
  double compute_s = 0;
  double memory_s = 0;
  double communication_s = 0;        // tensor-parallel all-reduces + expert_all_to_all_s
  double expert_all_to_all_s = 0;    // expert-parallel dispatch + combine
  double total_s() const { return (compute_s > memory_s ? compute_s : memory_s) + communication_s; }
};

// Share of the KV cache one GPU holds under tensor parallelism: 1 / min(tp, kv_heads); an attention-free
// model's state is split with its channels, 1 / tp.
double kv_share_per_gpu(const ServingShape& s, double tp);

// FLOPs one token spends in its k routed experts: 2 x (expert weights, all layers) x k / E; 0 if dense.
double expert_flops_per_token(const ServingShape& s);
// Sequences the busiest expert-parallel group holds: ceil(sequences / ep) (sequences when ep = 1).
double sequences_per_group(double sequences, double ep);
// Weights one GPU holds: non-expert weights / tp + expert weights / (tp x ep).
double weight_elements_per_gpu(const ServingShape& s, double tp, double ep);
// Dispatch + combine all-to-alls of one forward pass: 2 x moe_layers x all-to-all over ep ranks of
// group_tokens x k x d_model activations / tp per rank (engine/collectives.hpp all_to_all_s); 0 at ep = 1.
double expert_all_to_all_s(const ServingShape& s, const ServingDevice& d, double group_tokens);

// Prefill of `sequences` prompts of `prompt_tokens` each, per GPU of a TP group.
PhaseTime prefill_time(const ServingShape& s, const ServingDevice& d, double prompt_tokens, double sequences,
                       double eta);
// One decode step: one new token for each of `batch` sequences at `context_tokens` each.
PhaseTime decode_step_time(const ServingShape& s, const ServingDevice& d, double batch, double context_tokens,
                           double eta);

// Prefill of `new_tokens` per prompt whose first `cached_tokens` already sit in the KV cache (prefix
// caching: vLLM's automatic prefix caching, SGLang's RadixAttention, Zheng et al. 2024, "SGLang:
// Efficient Execution of Structured Language Model Programs", arXiv:2312.07104). Only the new tokens
// run the linear ops; each attends all cached + new keys (the full-attention convention of
// prefill_flops); the KV of all cached + new tokens is read or written. new_tokens = prompt and
// cached_tokens = 0 is prefill_time.
double prefill_flops_after_prefix(const ServingShape& s, double new_tokens, double context_tokens);
// What a causal fused attention kernel does not compute of that count: the new tokens' query-key pairs
// above the diagonal, half of new_tokens^2 in the global-attention layers (FlashAttention-2, Dao 2023,
// arXiv:2307.08691, section 3.1.1: blocks whose keys all follow their queries are skipped; the
// convention of the attention solver and of training's attention_work_fraction). 0 for a model
// without a causal mask. prefill_after_prefix_time (and prefill_time) price the rest; windowed layers
// and chunked prefill's chunks keep the full count.
double causal_skipped_prefill_flops(const ServingShape& s, double new_tokens);
PhaseTime prefill_after_prefix_time(const ServingShape& s, const ServingDevice& d, double new_tokens,
                                    double cached_tokens, double sequences, double eta);

// Chunked prefill (Agrawal et al. 2024, "Taming Throughput-Latency Tradeoff in LLM Inference with
// Sarathi-Serve", OSDI): one iteration carries a decode token for each of `batch` sequences and one
// prefill chunk of `chunk_tokens`, so the weights stream once for both. The chunk's queries attend
// `chunk_keys` keys each (the prompt, full-attention convention) and the chunk reads and writes
// `chunk_kv_tokens` tokens of KV (the earlier chunks' cache is read again, the overhead of chunking
// that Sarathi-Serve measures). Compute: decode FLOPs at eta_decode plus chunk FLOPs at eta_prefill;
// memory and all-reduces of the combined tokens. With expert parallelism the chunk joins the busiest
// group.
PhaseTime hybrid_step_time(const ServingShape& s, const ServingDevice& d, double batch, double decode_context,
                           double chunk_tokens, double chunk_keys, double chunk_kv_tokens, double eta_decode,
                           double eta_prefill);

// Speculative decoding (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative
// Decoding", ICML): a draft proposes gamma tokens, the target verifies them in one forward pass of
// gamma + 1 tokens per sequence, and with i.i.d. acceptance rate alpha the expected tokens per
// verification are (1 - alpha^(gamma + 1)) / (1 - alpha) (their expected tokens per run; gamma + 1 at alpha = 1).
double speculative_tokens_per_step(double acceptance_rate, double draft_tokens);
// The verification pass: `tokens_per_sequence` tokens for each of `batch` sequences at `context_tokens`:
// the weights and each sequence's KV cache are read once, FLOPs and activations scale with the tokens.
PhaseTime verify_step_time(const ServingShape& s, const ServingDevice& d, double batch, double context_tokens,
                           double tokens_per_sequence, double eta);

// Paged KV cache (Kwon et al. 2023, "Efficient Memory Management for Large Language Model Serving
// with PagedAttention", SOSP): a sequence holds ceil(tokens / block) blocks, so only its
// last block is partly empty; with the fill of that block uniform, (block - 1) / 2 slots are empty on
// average. 0 for block 0 (contiguous allocation).
double paged_kv_waste_tokens(double block_tokens);

// Preemption of a paged KV cache under continuous batching (Kwon et al. 2023, "Efficient Memory
// Management for Large Language Model Serving with PagedAttention", SOSP, arXiv:2309.06180, section
// 4.5 "Scheduling and Preemption"): vLLM admits requests while blocks are free and, when the growing
// sequences exhaust them, preempts the latest-admitted sequences all-or-nothing (every block of a
// sequence), to recompute them later as one prompt or to swap them to CPU memory and back.
// The model, an approximation of that scheduler where the serving solver has its inputs:
//  - `sequences` running sequences each hold `mean_bytes` on average and their held bytes grow by
//    `swing_bytes` from admission to completion (output tokens x KV bytes per token). Their positions
//    are independent and uniform over the output (continuous batching spreads them; a fixed output
//    length): the occupancy is sequences x (held at admission + U(0, swing)), whose sum is taken as
//    normal (central limit): mean sequences x mean_bytes, standard deviation swing x sqrt(sequences / 12).
//  - When the batch at full length fits (sequences x (mean_bytes + swing_bytes / 2) <= capacity)
//    nothing is preempted. Otherwise a step finds the cache full with probability
//    P = 1 - Phi((capacity - mean) / sd), and such a step must free by preemption the slots its
//    `sequences` new tokens take: sequences x swing_bytes / output_tokens bytes, in sequences that
//    hold `freed_bytes` each (the latest admitted, taken at admission: they have generated the
//    fewest tokens). The blocks finished requests release are taken by the new admissions.
//  - evicted_bytes_per_full_step: what one full step evicts, in whole sequences,
//    ceil(step bytes / freed_bytes) x freed_bytes: the least host memory that `swap` must hold at once
//    (vLLM's scheduler aborts when can_swap_out finds fewer free CPU blocks; vllm-project/vllm,
//    vllm/core/scheduler.py _swap_out, "Aborted due to the lack of CPU swap space").
//    Not modelled: the feedback of a preemption on the next steps' occupancy (a steady state that
//    holds fewer sequences), and bursts of arrivals. `capacity_bytes` is the whole cache: vLLM's
//    watermark (kv_admission_bytes) limits admission, not the growth of running sequences.
struct Preemption {
  double full_probability = 0;              // P: a step finds the cache full
  double sequences_per_step = 0;            // sequences preempted per decode step
  double evicted_bytes_per_full_step = 0;   // whole sequences one full step evicts
};
Preemption paged_preemption(double sequences, double mean_bytes, double swing_bytes, double output_tokens,
                            double freed_bytes, double capacity_bytes);

// The cache that admission sees under vLLM's free-block watermark (vllm-project/vllm,
// vllm/core/block_manager_v1.py BlockSpaceManagerV1: watermark_blocks = int(watermark x num_gpu_blocks),
// default watermark 0.01; can_allocate admits a waiting sequence only while free blocks - its blocks
// >= watermark_blocks, "to avoid frequent cache eviction"; can_append_slots, the growth of running
// sequences, ignores it): capacity x (1 - watermark). The int() to whole blocks, under one block, is
// dropped.
double kv_admission_bytes(double capacity_bytes, double watermark);

// Output lengths uniform on (0, 2 x mean]: a static batch of B runs until its longest request,
// E[max] = 2 x mean x B / (B + 1) steps, while continuous (iteration-level) batching refills a slot as
// soon as its request ends (Yu et al. 2022, Orca, OSDI; Kwon et al. 2023, vLLM, SOSP).
double static_batch_decode_steps(double mean_output_tokens, double batch);

}  // namespace dsx
