// Architecture builders: parameter tables and graph generators (contract in model_builders.hpp).
//
// Conventions shared by every builder:
//  - FLOPs: a multiply-accumulate is 2 FLOP; GEMM/conv FLOPs count MACs only (bias adds and the
//    like are part of the kernel's epilogue and are not counted).
//  - Element-wise and normalisation FLOPs are per element, approximate, and small beside the GEMMs:
//    ReLU / residual add / gated product 1, inference BatchNorm (per-channel affine) 2, scale 1,
//    mask 1, rotary embedding 3, SiLU 4, RMSNorm 4 (square-and-sum 2, normalise 1, scale 1),
//    softmax 5 (max, subtract, exp, sum, divide), LayerNorm 8 (mean 1, centre 1, square-and-sum 2,
//    normalise 2, affine 2), GELU 8 (tanh form: cube, 2 mul, add, tanh, add, 2 mul),
//    pooling 1 per window element read.
//  - One Op is one eager kernel and one pass of its tensors through device memory, in the order an
//    eager PyTorch module built from torch.nn layers launches them (nn.Linear with the bias in the
//    GEMM epilogue, nn.LayerNorm, F.gelu, F.softmax, cuDNN conv and inference BatchNorm: one kernel
//    each). Dropout is the identity at inference and launches nothing. Reshapes and views launch
//    nothing and are not listed.
//  - Activations are element counts per sample; weight_elements are the parameters an execution
//    reads whatever the batch. Embedding lookups gather rows, so the rows gathered are counted as
//    the op's input (they scale with the batch) and the table itself is not read in full: for a
//    model with an untied token table, ModelGraph::parameter_count exceeds total_weight_elements()
//    by that table.
#include "engine/model_builders.hpp"

#include "engine/builder_support.hpp"
#include "engine/model_builders_blocks.hpp"
#include "engine/model_families.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dsx {

namespace {

using builders::as_repeat;
using builders::check_arity;
using builders::count_param;
using builders::fail;
using builders::flag_param;
using builders::format_number;
using builders::make_op;
using builders::positive_param;

// ---------------------------------------------------------------------------------------------
// transformer
//
// A stack of `layers` identical blocks (one Op block with repeat = layers), optionally between a
// token embedding and a final norm + LM head. A sample is one sequence of T = seq_len tokens in one
// forward pass (prefill / scoring / encoder inference); there is no KV cache.
// The attention and feed-forward sub-layers' ops are appended by engine/model_builders_blocks.hpp,
// which the hybrid builder (jamba) shares. Per layer, with d = d_model, H = heads, dh = d / H,
// d_kv = kv_heads x dh, F = d_ff:
//   norm; QKV projection 2 T d (d + 2 d_kv); [rotary embedding on q, k]; scores QK^T 2 T^2 d;
//   scale; mask; softmax over H T^2 scores; context A V 2 T^2 d; output projection 2 T d^2;
//   residual add; norm; MLP 2 x 2 T d F (GELU) or 3 x 2 T d F (SwiGLU: gate, SiLU, up, product,
//   down); residual add.
// So forward FLOPs ~ 2 N_nonembedding T + 4 L T^2 d (+ 2 T d V for the LM head): the 2N rule of
// Kaplan et al. 2020 (arXiv:2001.08361, Table 1) with the full attention term of Chowdhery et al.
// 2022 (PaLM, arXiv:2204.02311, Appendix B: 6N + 12 L H Q T per token for training, i.e. 4 L T d
// per token forward for QK^T and AV together). The score matrix is computed in full as in eager
// attention (causal masking does not halve it).
// Parameters per layer: W_q d^2, W_k and W_v d d_kv each, W_o d^2, MLP 2 d F (3 d F gated),
// norms 2 d (LayerNorm, weight + bias) or d (RMSNorm), plus biases when bias = 1 (GPT-2, BERT).
// GQA (Ainslie et al. 2023): kv_heads < heads shrinks K/V projections; the score and context
// products still run per query head. Grouped K/V are read directly (no repeat_kv copy kernel).
// RMSNorm and the rotary embedding count as one kernel each, as in fused implementations (vLLM,
// TensorRT-LLM, torch.nn.RMSNorm under compile); Python-level versions (Hugging Face's LlamaRMSNorm,
// rotate_half) launch several element-wise kernels each and would raise the eager count.
// Not modelled: BERT's token-type embeddings, pooler and MLM transform (0.6M parameters each), the
// head-merge transpose copy, and post-LN ordering (same ops, different order). With embeddings = 1
// the LM head / MLM decoder runs on all T positions (2 T d V FLOPs).
// Mixture of experts (experts = E > 0, experts_per_token = k; Shazeer et al. 2017, arXiv:1701.06538;
// Mixtral, Jiang et al. 2024, arXiv:2401.04088): the MLP becomes a router (2 T d E FLOPs, d E
// weights), a softmax + top-k, k x T token rows through E expert MLPs of the dense shape, and a
// weighted sum. FLOPs count the k active experts per token; parameter_count and the expert ops'
// weights count all E experts (total vs active parameters).
// DeepSeekMoE (Dai et al. 2024, arXiv:2401.06066; DeepSeek-V3, arXiv:2412.19437 section 2.1.2): routed
// experts of their own inner size (expert_d_ff), shared experts every token passes through (ops
// shared_expert_*, counted as active), and the first dense_layers layers with a dense MLP of d_ff.
// The two kinds of layer are two Op blocks (repeat dense_layers, then layers - dense_layers).
// Multi-head latent attention (kv_lora_rank = r_kv > 0; DeepSeek-V2, arXiv:2405.04434 section 2.1;
// DeepSeek-V3 section 2.1.1), with r_q = q_lora_rank, dn = qk_nope_head_dim, dr = qk_rope_head_dim,
// dv = v_head_dim, dqk = dn + dr: queries d -> r_q (RMSNorm) -> H dqk (or d -> H dqk when r_q = 0);
// keys and values d -> r_kv + dr (mla_kv_down_proj: the latent c_KV and the decoupled RoPE key
// shared by all heads, which is all the KV cache holds), RMSNorm on the latent, r_kv -> H (dn + dv)
// (mla_kv_up_proj); scores 2 T^2 H dqk, context 2 T^2 H dv, output projection H dv -> d.
// The graph is the materialised form (keys and values up-projected per token, as in training and
// prefill); decode absorbs W_UK into the query and W_UV into the output projection and attends the
// latent directly (engine/serving.hpp).
// Further features (defaults leave every graph above unchanged):
//  - head_dim = dh > 0: H heads of dh, so queries and the attention output are H dh wide, not d
//    (Gemma 2 9B: 16 x 256 on a 3584 stream; PaLM: 48 x 256 on 18432): QKV projection d (H dh +
//    2 kv_heads dh), scores and context 2 T^2 H dh each, output projection H dh -> d.
//  - qkv_bias = 1: biases on the q, k and v projections only (Qwen2), H dh + 2 kv_heads dh per layer.
//  - parallel_block = 1 (GPT-J; PaLM, arXiv:2204.02311 section 2; Falcon): y = x + Attn(N(x)) +
//    MLP(N(x)): one norm per layer and one residual add reading three tensors.
//  - Multi-query attention (PaLM; Shazeer 2019, arXiv:1911.02150) is kv_heads = 1.
//  - sliding_window = W > 0 (Longformer, arXiv:2004.05150; Mistral 7B, arXiv:2310.06825 section 2):
//    a windowed layer's query attends min(T, W) keys, so its scores, softmax and context cover
//    T x min(T, W) pairs (2 T min(T, W) H dh FLOPs each for QK^T and AV), and its attention ops carry
//    attention_window = W for the serving view (KV cache capped at W tokens). global_every = n makes
//    every n-th layer (the n-th, 2n-th, ...) global (Gemma 2, arXiv:2408.00118: n = 2); the pattern
//    repeats as one block of n layers.
// Not modelled: ALiBi's score bias (BLOOM, MPT; added inside the score kernel, no parameters),
// partial rotary dimensions (GPT-J rotates 64 of 256), Gemma 2's post-norms and logit soft-capping.
// ---------------------------------------------------------------------------------------------

enum TransformerParam : std::size_t {
  t_layers,
  t_d_model,
  t_heads,
  t_kv_heads,
  t_d_ff,
  t_vocab,
  t_seq_len,
  t_gated_mlp,
  t_norm,
  t_embeddings,
  t_positions,
  t_tied_embeddings,
  t_bias,
  t_rope,
  t_experts,
  t_experts_per_token,
  t_expert_d_ff,
  t_shared_experts,
  t_dense_layers,
  t_kv_lora_rank,
  t_q_lora_rank,
  t_qk_nope_head_dim,
  t_qk_rope_head_dim,
  t_v_head_dim,
  t_head_dim,
  t_qkv_bias,
  t_parallel_block,
  t_sliding_window,
  t_global_every,
  t_count
};

constexpr std::array<ArchParamSpec, t_count> kTransformerParams = {{
    {.name = "layers", .description = "number of transformer blocks"},
    {.name = "d_model", .description = "hidden size"},
    {.name = "heads", .description = "query heads (must divide d_model)"},
    {.name = "kv_heads", .description = "key/value heads: = heads for multi-head attention, fewer for GQA"},
    {.name = "d_ff", .description = "MLP inner size"},
    {.name = "vocab", .description = "vocabulary size (token table and LM head rows)"},
    {.name = "seq_len", .description = "tokens per sample: one sequence processed in one forward pass"},
    {.name = "gated_mlp",
     .description = "0 = GELU MLP with 2 matmuls (GPT-2, BERT), 1 = SwiGLU with 3 matmuls (Llama)",
     .has_default = true,
     .default_value = 0},
    {.name = "norm", .description = "0 = LayerNorm, 1 = RMSNorm", .has_default = true, .default_value = 0},
    {.name = "embeddings",
     .description = "1 = include token embedding, final norm and LM head / final projection; 0 = blocks only",
     .has_default = true,
     .default_value = 1},
    {.name = "positions",
     .description = "rows of a learned absolute position table (GPT-2 1024, BERT 512); 0 = none (RoPE models)",
     .has_default = true,
     .default_value = 0},
    {.name = "tied_embeddings",
     .description = "1 = the LM head reuses the token table (GPT-2, BERT), 0 = separate head (Llama 3)",
     .has_default = true,
     .default_value = 0},
    {.name = "bias",
     .description = "1 = linear layers carry biases (GPT-2, BERT), 0 = none (Llama)",
     .has_default = true,
     .default_value = 0},
    {.name = "rope",
     .description = "1 = rotary position embedding applied to q and k in every layer (Llama)",
     .has_default = true,
     .default_value = 0},
    {.name = "experts",
     .description = "mixture of experts: MLP copies per layer behind a router (Mixtral 8); 0 = dense MLP",
     .has_default = true,
     .default_value = 0},
    {.name = "experts_per_token",
     .description = "experts each token is routed to (Mixtral 2); needs experts > 0",
     .has_default = true,
     .default_value = 0},
    {.name = "expert_d_ff",
     .description = "inner size of each routed and shared expert (DeepSeek-V3 2048); 0 = d_ff",
     .has_default = true,
     .default_value = 0},
    {.name = "shared_experts",
     .description = "experts every token passes through besides its routed ones (DeepSeek-V3 1)",
     .has_default = true,
     .default_value = 0},
    {.name = "dense_layers",
     .description = "leading layers with a dense MLP of d_ff before the MoE layers (DeepSeek-V3 3)",
     .has_default = true,
     .default_value = 0},
    {.name = "kv_lora_rank",
     .description = "multi-head latent attention: rank of the cached KV latent (DeepSeek-V3 512); 0 = MHA/GQA",
     .has_default = true,
     .default_value = 0},
    {.name = "q_lora_rank",
     .description = "MLA query compression rank (DeepSeek-V3 1536); 0 = queries projected from d_model",
     .has_default = true,
     .default_value = 0},
    {.name = "qk_nope_head_dim",
     .description = "MLA per-head query/key dimension without RoPE (DeepSeek-V3 128)",
     .has_default = true,
     .default_value = 0},
    {.name = "qk_rope_head_dim",
     .description = "MLA decoupled RoPE dimension of queries and of the shared key (DeepSeek-V3 64)",
     .has_default = true,
     .default_value = 0},
    {.name = "v_head_dim",
     .description = "MLA per-head value dimension (DeepSeek-V3 128)",
     .has_default = true,
     .default_value = 0},
    {.name = "head_dim",
     .description = "dimension of one query/key/value head when it is not d_model / heads (Gemma 2 9B 256, PaLM 256); "
                    "0 = d_model / heads",
     .has_default = true,
     .default_value = 0},
    {.name = "qkv_bias",
     .description = "1 = the query, key and value projections carry biases, no other linear layer does (Qwen2)",
     .has_default = true,
     .default_value = 0},
    {.name = "parallel_block",
     .description = "1 = attention and MLP read the same normalised input and add to the residual together "
                    "(GPT-J, PaLM, Falcon): one norm per layer",
     .has_default = true,
     .default_value = 0},
    {.name = "sliding_window",
     .description = "keys each query attends in a sliding-window layer (Mistral 4096); 0 = full attention everywhere",
     .has_default = true,
     .default_value = 0},
    {.name = "global_every",
     .description = "with sliding_window: every n-th layer (the n-th, 2n-th, ...) attends globally, the others in "
                    "the window (Gemma 2: 2); 0 = every layer windowed",
     .has_default = true,
     .default_value = 0},
}};

constexpr std::string_view kTransformer = "transformer";

ModelGraph build_transformer(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kTransformerParams;
  check_arity(kTransformer, values, t_count);
  const auto layers = count_param(kTransformer, specs, values, t_layers, 1);
  const auto d_model = count_param(kTransformer, specs, values, t_d_model, 1);
  const auto heads = count_param(kTransformer, specs, values, t_heads, 1);
  const auto kv_heads = count_param(kTransformer, specs, values, t_kv_heads, 1);
  const auto d_ff = count_param(kTransformer, specs, values, t_d_ff, 1);
  const auto vocab = count_param(kTransformer, specs, values, t_vocab, 1);
  const auto seq_len = count_param(kTransformer, specs, values, t_seq_len, 1);
  const bool gated = flag_param(kTransformer, specs, values, t_gated_mlp);
  const bool rms = flag_param(kTransformer, specs, values, t_norm);
  const bool embeddings = flag_param(kTransformer, specs, values, t_embeddings);
  const auto positions = count_param(kTransformer, specs, values, t_positions, 0);
  const bool tied = flag_param(kTransformer, specs, values, t_tied_embeddings);
  const bool bias = flag_param(kTransformer, specs, values, t_bias);
  const bool rope = flag_param(kTransformer, specs, values, t_rope);
  const auto experts = count_param(kTransformer, specs, values, t_experts, 0, 1e6);
  const auto experts_per_token = count_param(kTransformer, specs, values, t_experts_per_token, 0, 1e6);
  const auto expert_d_ff = count_param(kTransformer, specs, values, t_expert_d_ff, 0);
  const auto shared_experts = count_param(kTransformer, specs, values, t_shared_experts, 0, 1e6);
  const auto dense_layers = count_param(kTransformer, specs, values, t_dense_layers, 0);
  const auto kv_lora_rank = count_param(kTransformer, specs, values, t_kv_lora_rank, 0);
  const auto q_lora_rank = count_param(kTransformer, specs, values, t_q_lora_rank, 0);
  const auto qk_nope = count_param(kTransformer, specs, values, t_qk_nope_head_dim, 0);
  const auto qk_rope = count_param(kTransformer, specs, values, t_qk_rope_head_dim, 0);
  const auto v_head = count_param(kTransformer, specs, values, t_v_head_dim, 0);
  const auto head_dim = count_param(kTransformer, specs, values, t_head_dim, 0);
  const bool qkv_bias = flag_param(kTransformer, specs, values, t_qkv_bias);
  const bool parallel = flag_param(kTransformer, specs, values, t_parallel_block);
  const auto window = count_param(kTransformer, specs, values, t_sliding_window, 0);
  const auto global_every = count_param(kTransformer, specs, values, t_global_every, 0);
  const bool mla = kv_lora_rank > 0;

  if (!mla && head_dim == 0 && d_model % heads != 0) {
    fail(kTransformer, "heads (" + std::to_string(heads) + ") must divide d_model (" + std::to_string(d_model) +
                           "), or give head_dim");
  }
  if (kv_heads > heads || heads % kv_heads != 0) {
    fail(kTransformer, "kv_heads (" + std::to_string(kv_heads) + ") must divide heads (" + std::to_string(heads) +
                           "); use kv_heads = heads for multi-head attention");
  }
  if ((experts == 0) != (experts_per_token == 0) || experts_per_token > experts) {
    fail(kTransformer, "experts_per_token (" + std::to_string(experts_per_token) + ") must be in [1, experts = " +
                           std::to_string(experts) + "], or both 0 for a dense MLP");
  }
  if (experts == 0 && (expert_d_ff > 0 || shared_experts > 0 || dense_layers > 0)) {
    fail(kTransformer, "expert_d_ff, shared_experts and dense_layers describe a mixture of experts; they need experts > 0");
  }
  if (dense_layers >= layers) {
    fail(kTransformer, "dense_layers (" + std::to_string(dense_layers) + ") must be below layers (" +
                           std::to_string(layers) + ")");
  }
  if (mla && (qk_nope == 0 || v_head == 0)) {
    fail(kTransformer, "multi-head latent attention (kv_lora_rank > 0) needs qk_nope_head_dim and v_head_dim > 0");
  }
  if (!mla && (q_lora_rank > 0 || qk_nope > 0 || qk_rope > 0 || v_head > 0)) {
    fail(kTransformer, "q_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim describe multi-head latent "
                       "attention; they need kv_lora_rank > 0");
  }
  if (mla && (head_dim > 0 || qkv_bias || window > 0)) {
    fail(kTransformer, "head_dim, qkv_bias and sliding_window describe multi-head or grouped-query attention; "
                       "multi-head latent attention (kv_lora_rank > 0) sets its own head dimensions");
  }
  if (global_every > 0 && window == 0) {
    fail(kTransformer, "global_every describes a pattern of sliding-window layers; it needs sliding_window > 0");
  }
  if (!embeddings && (positions > 0 || tied)) {
    fail(kTransformer, "positions and tied_embeddings describe the embedding layer; they need embeddings: 1");
  }
  if (positions > 0 && seq_len > positions) {
    fail(kTransformer, "seq_len (" + std::to_string(seq_len) + ") exceeds the learned position table (positions = " +
                           std::to_string(positions) + ")");
  }

  const double T = static_cast<double>(seq_len);
  const double d = static_cast<double>(d_model);
  const double H = static_cast<double>(heads);
  const double dh = head_dim > 0 ? static_cast<double>(head_dim) : d / H;
  const double q_width = head_dim > 0 ? H * dh : d;  // width of the queries and of the attention output
  const double d_kv = static_cast<double>(kv_heads) * dh;
  const double F = static_cast<double>(d_ff);
  const double Fe = expert_d_ff > 0 ? static_cast<double>(expert_d_ff) : F;
  const double V = static_cast<double>(vocab);
  const double b = bias ? 1.0 : 0.0;
  const double b_qkv = bias || qkv_bias ? 1.0 : 0.0;
  const double norm_weights = rms ? d : 2 * d;
  const double norm_flops = rms ? 4.0 : 8.0;
  const OpKind norm_kind = OpKind::normalization;
  const std::string norm_name = rms ? "rmsnorm" : "layernorm";
  const double rq = static_cast<double>(q_lora_rank);
  const double rkv = static_cast<double>(kv_lora_rank);
  const double dqk = static_cast<double>(qk_nope + qk_rope);
  const double dr = static_cast<double>(qk_rope);
  const double dv = static_cast<double>(v_head);
  // Keys each query attends: T, or min(T, W) in a sliding-window layer.
  const double window_keys = window > 0 ? std::min(T, static_cast<double>(window)) : T;

  ModelGraph g;
  g.sample_unit = "sequence";
  double params = 0;

  if (embeddings) {
    g.ops.push_back(make_op("token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));
    params += V * d;
    if (positions > 0) {
      // Position lookup + add: two eager kernels, one pass of the hidden state; the T position rows
      // are read whatever the batch.
      Op pos = make_op("position_embedding_add", OpKind::elementwise, T * d, T * d, T * d, T * d, 1);
      pos.kernels = 2;
      g.ops.push_back(std::move(pos));
      params += static_cast<double>(positions) * d;
    }
  }

  auto& ops = g.ops;
  builders::DecoderBlockSpec spec;
  spec.T = T;
  spec.d = d;
  spec.H = H;
  spec.dh = dh;
  spec.q_width = q_width;
  spec.d_kv = d_kv;
  spec.b = b;
  spec.b_qkv = b_qkv;
  spec.rope = rope;
  spec.norm_name = norm_name;
  spec.norm_flops = norm_flops;
  spec.norm_weights = norm_weights;
  spec.window = static_cast<double>(window);
  spec.window_keys = window_keys;
  spec.mla = mla;
  spec.rq = rq;
  spec.rkv = rkv;
  spec.dqk = dqk;
  spec.dr = dr;
  spec.dv = dv;
  spec.gated = gated;
  spec.F = F;
  spec.Fe = Fe;
  spec.experts = static_cast<double>(experts);
  spec.experts_per_token = static_cast<double>(experts_per_token);
  spec.shared_experts = static_cast<double>(shared_experts);

  auto attention = [&](std::uint32_t r, bool windowed, bool sequential) {
    return builders::append_attention(ops, spec, r, windowed, sequential);
  };
  double expert_params = 0;  // one routed expert
  auto feed_forward = [&](bool moe, std::uint32_t r, bool sequential) {
    return builders::append_feed_forward(ops, spec, moe, r, sequential, expert_params);
  };

  // One layer executed `r` times (ops in execution order); returns its parameters.
  auto layer = [&](bool moe, bool windowed, std::uint32_t r) {
    if (!parallel) {
      const double attention_params = attention(r, windowed, true);
      const double mlp_params = feed_forward(moe, r, true);
      return attention_params + mlp_params + 2 * norm_weights;
    }
    // Parallel block (GPT-J; PaLM, Chowdhery et al. 2022 section 2): y = x + Attention(LN(x)) + MLP(LN(x)).
    ops.push_back(make_op(norm_name + "_attn", norm_kind, norm_flops * T * d, T * d, T * d, norm_weights, r));
    const double attention_params = attention(r, windowed, false);
    const double mlp_params = feed_forward(moe, r, false);
    ops.push_back(make_op("residual_add", OpKind::elementwise, 2 * T * d, 3 * T * d, T * d, 0, r));
    return attention_params + mlp_params + norm_weights;
  };

  // Layer i (from 0) attends in the window unless it is one of the global ones.
  auto windowed_layer = [&](std::uint64_t i) {
    return window > 0 && (global_every == 0 || (i + 1) % global_every != 0);
  };
  // Layers [first, first + count) with the same MLP; a window pattern repeats as one block of
  // global_every layers, with the layers before and after its whole periods on their own.
  auto layer_run = [&](std::uint64_t first, std::uint64_t count, bool moe) {
    if (count == 0) return;
    if (global_every <= 1) {
      params += static_cast<double>(count) * layer(moe, windowed_layer(first), as_repeat(count));
      return;
    }
    std::uint64_t i = first;
    const std::uint64_t end = first + count;
    for (; i < end && i % global_every != 0; ++i) params += layer(moe, windowed_layer(i), 1);
    const std::uint64_t periods = (end - i) / global_every;
    if (periods > 0) {
      for (std::uint64_t j = 0; j < global_every; ++j) {
        params += static_cast<double>(periods) * layer(moe, windowed_layer(i + j), as_repeat(periods));
      }
      i += periods * global_every;
    }
    for (; i < end; ++i) params += layer(moe, windowed_layer(i), 1);
  };

  const bool moe = experts > 0;
  const std::uint64_t moe_layers = moe ? layers - dense_layers : 0;
  const std::uint64_t plain_layers = layers - moe_layers;
  layer_run(0, plain_layers, false);
  layer_run(plain_layers, moe_layers, true);

  if (embeddings) {
    ops.push_back(make_op(norm_name + "_final", norm_kind, norm_flops * T * d, T * d, T * d, norm_weights, 1));
    ops.push_back(make_op("lm_head", OpKind::matmul, 2 * T * d * V, T * d, T * V, V * d, 1));
    params += norm_weights + (tied ? 0 : V * d);
  }
  g.parameter_count = params;
  // A token passes through k of the E routed experts of each MoE layer.
  g.active_parameter_count =
      params - static_cast<double>(moe_layers) * static_cast<double>(experts - experts_per_token) * expert_params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// resnet: bottleneck ResNet (He et al. 2016, "Deep Residual Learning", arXiv:1512.03385, Table 1)
// in the torchvision form ("v1.5": the stride of a down-sampling block sits on its 3x3 conv).
// Stem: conv 7x7/2 (pad 3) -> BN -> ReLU -> maxpool 3x3/2 (pad 1). Stage s = 1..4 of width
// w = base_width x 2^(s-1): blocks of conv 1x1 (-> w) BN ReLU, conv 3x3 (stride 2 in the first
// block of stages 2-4) BN ReLU, conv 1x1 (-> 4w) BN, [first block: projection shortcut conv 1x1
// (stride) BN], residual add, ReLU. Then global average pool and fc to `classes`.
// conv MACs = H_out W_out C_out C_in k^2; output size = floor((H + 2 pad - k) / stride) + 1.
// No conv biases; BN carries 2 C parameters (its running statistics are buffers, not parameters).
// ResNet-50 (3,4,6,3; 64; 224; 1000) gives 25,557,032 parameters and 4.09 GMAC (torchvision
// model card: 25.6M, 4.09 GFLOPS counted as MACs; the paper's 3.8e9 is the v1 layout).
// The first block of each stage is one block (repeat 1); its identical followers one block with
// repeat = blocks - 1.
// Eager kernels (cuDNN conv, inference BN, ReLU, add: one each): stem 4, 10 per block plus 2 for
// each projection shortcut, pools and fc 2: 174 for ResNet-50.
// ---------------------------------------------------------------------------------------------

enum ResnetParam : std::size_t { r_blocks1, r_blocks2, r_blocks3, r_blocks4, r_base_width, r_image_size, r_classes, r_count };

constexpr std::array<ArchParamSpec, r_count> kResnetParams = {{
    {.name = "blocks1", .description = "bottleneck blocks in stage 1 (ResNet-50: 3)"},
    {.name = "blocks2", .description = "bottleneck blocks in stage 2 (ResNet-50: 4)"},
    {.name = "blocks3", .description = "bottleneck blocks in stage 3 (ResNet-50: 6)"},
    {.name = "blocks4", .description = "bottleneck blocks in stage 4 (ResNet-50: 3)"},
    {.name = "base_width", .description = "bottleneck width of stage 1; stage s uses base_width x 2^(s-1), outputs 4x that",
     .has_default = true, .default_value = 64},
    {.name = "image_size", .description = "input height = width in pixels (3 channels)", .has_default = true,
     .default_value = 224},
    {.name = "classes", .description = "outputs of the final fully connected layer", .has_default = true,
     .default_value = 1000},
}};

constexpr std::string_view kResnet = "resnet";

std::uint64_t conv_out(std::uint64_t in, std::uint64_t k, std::uint64_t stride, std::uint64_t pad) {
  return (in + 2 * pad - k) / stride + 1;
}

struct ConvBuilder {
  std::vector<Op>& ops;
  double& params;

  // Appends a conv of `k`x`k`, cin -> cout, on an h x h input; returns the output size.
  std::uint64_t conv(const std::string& name, std::uint64_t h, std::uint64_t cin, std::uint64_t cout, std::uint64_t k,
                     std::uint64_t stride, std::uint64_t pad, std::uint32_t repeat) {
    const std::uint64_t ho = conv_out(h, k, stride, pad);
    const double hw_out = static_cast<double>(ho * ho);
    const double weights = static_cast<double>(cout * cin * k * k);
    ops.push_back(make_op(name, OpKind::conv, 2 * hw_out * weights, static_cast<double>(cin * h * h),
                          hw_out * static_cast<double>(cout), weights, repeat));
    params += weights * repeat;
    return ho;
  }
  void batchnorm(const std::string& name, std::uint64_t h, std::uint64_t c, std::uint32_t repeat) {
    const double n = static_cast<double>(c * h * h);
    ops.push_back(make_op(name, OpKind::normalization, 2 * n, n, n, 2.0 * static_cast<double>(c), repeat));
    params += 2.0 * static_cast<double>(c) * repeat;
  }
  void relu(const std::string& name, std::uint64_t h, std::uint64_t c, std::uint32_t repeat) {
    const double n = static_cast<double>(c * h * h);
    ops.push_back(make_op(name, OpKind::elementwise, n, n, n, 0, repeat));
  }
};

ModelGraph build_resnet(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kResnetParams;
  check_arity(kResnet, values, r_count);
  const std::array<std::uint64_t, 4> blocks = {
      count_param(kResnet, specs, values, r_blocks1, 1, 1e4), count_param(kResnet, specs, values, r_blocks2, 1, 1e4),
      count_param(kResnet, specs, values, r_blocks3, 1, 1e4), count_param(kResnet, specs, values, r_blocks4, 1, 1e4)};
  const auto base = count_param(kResnet, specs, values, r_base_width, 1, 1e5);
  const auto image = count_param(kResnet, specs, values, r_image_size, 1, 1e5);
  const auto classes = count_param(kResnet, specs, values, r_classes, 1, 1e9);

  ModelGraph g;
  g.sample_unit = "image";
  double params = 0;
  ConvBuilder b{g.ops, params};

  std::uint64_t h = b.conv("stem_conv7x7", image, 3, base, 7, 2, 3, 1);
  b.batchnorm("stem_bn", h, base, 1);
  b.relu("stem_relu", h, base, 1);
  {
    const std::uint64_t hp = conv_out(h, 3, 2, 1);
    const double out = static_cast<double>(base * hp * hp);
    g.ops.push_back(make_op("stem_maxpool3x3", OpKind::reduction, 9 * out, static_cast<double>(base * h * h), out, 0, 1));
    h = hp;
  }

  std::uint64_t channels = base;
  for (std::size_t s = 0; s < 4; ++s) {
    const std::uint64_t w = base << s;
    const std::uint64_t out_c = 4 * w;
    const std::uint64_t stride = s == 0 ? 1 : 2;
    const std::string prefix = "stage" + std::to_string(s + 1) + "_";
    // First block: may change resolution and width, carries the projection shortcut.
    {
      const std::string p = prefix + "block1_";
      b.conv(p + "conv1x1_reduce", h, channels, w, 1, 1, 0, 1);
      b.batchnorm(p + "bn1", h, w, 1);
      b.relu(p + "relu1", h, w, 1);
      const std::uint64_t ho = b.conv(p + "conv3x3", h, w, w, 3, stride, 1, 1);
      b.batchnorm(p + "bn2", ho, w, 1);
      b.relu(p + "relu2", ho, w, 1);
      b.conv(p + "conv1x1_expand", ho, w, out_c, 1, 1, 0, 1);
      b.batchnorm(p + "bn3", ho, out_c, 1);
      b.conv(p + "shortcut_conv1x1", h, channels, out_c, 1, stride, 0, 1);
      b.batchnorm(p + "shortcut_bn", ho, out_c, 1);
      const double n = static_cast<double>(out_c * ho * ho);
      g.ops.push_back(make_op(p + "residual_add", OpKind::elementwise, n, 2 * n, n, 0, 1));
      b.relu(p + "relu_out", ho, out_c, 1);
      h = ho;
      channels = out_c;
    }
    if (blocks[s] > 1) {
      const auto r = as_repeat(blocks[s] - 1);
      const std::string p = prefix + "block_";
      b.conv(p + "conv1x1_reduce", h, channels, w, 1, 1, 0, r);
      b.batchnorm(p + "bn1", h, w, r);
      b.relu(p + "relu1", h, w, r);
      b.conv(p + "conv3x3", h, w, w, 3, 1, 1, r);
      b.batchnorm(p + "bn2", h, w, r);
      b.relu(p + "relu2", h, w, r);
      b.conv(p + "conv1x1_expand", h, w, out_c, 1, 1, 0, r);
      b.batchnorm(p + "bn3", h, out_c, r);
      const double n = static_cast<double>(out_c * h * h);
      g.ops.push_back(make_op(p + "residual_add", OpKind::elementwise, n, 2 * n, n, 0, r));
      b.relu(p + "relu_out", h, out_c, r);
    }
  }

  const double c = static_cast<double>(channels);
  g.ops.push_back(make_op("global_avgpool", OpKind::reduction, c * static_cast<double>(h * h),
                          c * static_cast<double>(h * h), c, 0, 1));
  const double k = static_cast<double>(classes);
  g.ops.push_back(make_op("fc", OpKind::matmul, 2 * c * k, c, k, c * k + k, 1));
  params += c * k + k;
  g.parameter_count = params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// ds_cnn: the depthwise-separable CNN for keyword spotting of Zhang et al. 2017 ("Hello Edge",
// arXiv:1711.07128, DS-CNN-S) as used by the MLPerf Tiny KWS benchmark (mlcommons/tiny,
// benchmark/training/keyword_spotting keras_model.py).
// Input: frames x coefficients MFCC map (49 x 10), one channel. First conv: `channels` filters of
// 10x4, stride 2x2, 'same' padding (output ceil(49/2) x ceil(10/2) = 25 x 5), BN, ReLU. Then
// `blocks` depthwise-separable blocks at that resolution: depthwise 3x3 ('same') BN ReLU,
// pointwise 1x1 (channels -> channels) BN ReLU. Then average pooling over the whole map, fc to
// `classes`, softmax. Dropout layers are the identity at inference.
// MACs: first conv Ho Wo C 40; depthwise Ho Wo C 9; pointwise Ho Wo C^2; fc C classes
// (defaults: 320,000 + 4 x (72,000 + 512,000) + 768 = 2,656,768 MACs, the "5.4M ops" of Hello
// Edge Table 5 counts). Convs and fc carry biases (Keras defaults); parameters count BN gamma and
// beta (Keras also lists the moving mean and variance, 2 C per BN, as non-trainable).
// The MLPerf Tiny script pools with a (24, 5) window on the 25 x 5 map; the whole map is pooled here.
// ---------------------------------------------------------------------------------------------

enum DsCnnParam : std::size_t { k_frames, k_coefficients, k_channels, k_blocks, k_classes, k_count };

constexpr std::array<ArchParamSpec, k_count> kDsCnnParams = {{
    {.name = "frames", .description = "MFCC frames per utterance (input height)", .has_default = true, .default_value = 49},
    {.name = "coefficients", .description = "MFCC coefficients per frame (input width)", .has_default = true,
     .default_value = 10},
    {.name = "channels", .description = "filters of the first conv and of every depthwise-separable block",
     .has_default = true, .default_value = 64},
    {.name = "blocks", .description = "depthwise-separable blocks", .has_default = true, .default_value = 4},
    {.name = "classes", .description = "output classes (MLPerf Tiny KWS: 12)", .has_default = true, .default_value = 12},
}};

constexpr std::string_view kDsCnn = "ds_cnn";

ModelGraph build_ds_cnn(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kDsCnnParams;
  check_arity(kDsCnn, values, k_count);
  const auto frames = count_param(kDsCnn, specs, values, k_frames, 1, 1e6);
  const auto coeffs = count_param(kDsCnn, specs, values, k_coefficients, 1, 1e6);
  const auto channels = count_param(kDsCnn, specs, values, k_channels, 1, 1e6);
  const auto blocks = count_param(kDsCnn, specs, values, k_blocks, 0, 1e4);
  const auto classes = count_param(kDsCnn, specs, values, k_classes, 1, 1e9);

  ModelGraph g;
  g.sample_unit = "utterance";
  const double C = static_cast<double>(channels);
  const double map = static_cast<double>(((frames + 1) / 2) * ((coeffs + 1) / 2));  // 'same', stride 2
  const double act = map * C;
  double params = 0;
  auto bn_relu = [&](const std::string& suffix, std::uint32_t repeat) {
    g.ops.push_back(make_op("bn" + suffix, OpKind::normalization, 2 * act, act, act, 2 * C, repeat));
    g.ops.push_back(make_op("relu" + suffix, OpKind::elementwise, act, act, act, 0, repeat));
    params += 2 * C * repeat;
  };

  const double input = static_cast<double>(frames * coeffs);
  g.ops.push_back(make_op("conv10x4_s2", OpKind::conv, 2 * act * 40, input, act, 40 * C + C, 1));
  params += 40 * C + C;
  bn_relu("_conv", 1);
  if (blocks > 0) {
    const auto r = as_repeat(blocks);
    g.ops.push_back(make_op("dw_conv3x3", OpKind::conv, 2 * act * 9, act, act, 9 * C + C, r));
    bn_relu("_dw", r);
    g.ops.push_back(make_op("pw_conv1x1", OpKind::conv, 2 * act * C, act, act, C * C + C, r));
    bn_relu("_pw", r);
    params += static_cast<double>(blocks) * (9 * C + C + C * C + C);
  }
  const double K = static_cast<double>(classes);
  g.ops.push_back(make_op("avgpool", OpKind::reduction, act, act, C, 0, 1));
  g.ops.push_back(make_op("fc", OpKind::matmul, 2 * C * K, C, K, C * K + K, 1));
  g.ops.push_back(make_op("softmax", OpKind::reduction, 5 * K, K, K, 0, 1));
  params += C * K + K;
  g.parameter_count = params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// kernel_profile: the teaching abstraction of seeds/000 (lab_07 Act 1): a forward pass is N
// kernels of ~t_c compute each (KWS ~1,000 x ~5 us, ResNet-50 ~200 x ~50 us, GPT-2 layer
// ~20 x ~500 us). t_c is stated on a reference device, so each kernel carries
//   FLOPs = t_c x reference_peak x reference_eta
// and takes exactly t_c there at that eta, t_c / 2 on a device with twice the peak (the seed's
// "a 2x faster GPU completes the 5 us in 2.5 us").
// The kernels form N / (1 + e) identical groups of one matmul followed by e element-wise kernels
// (e = elementwise_per_group); compiled mode fuses each group into one kernel, cutting the count by
// e / (1 + e). N must be a multiple of 1 + e.
// Memory: bytes_per_kernel is the traffic of one kernel at fp16 (2 bytes per element), split
// evenly between input and output: input = output = bytes_per_kernel / 4 elements, no weights.
// At another precision the traffic scales with its element size. A fused group moves one kernel's
// input and output (its intermediates stay on chip).
// A sample is one profiled forward pass.
// ---------------------------------------------------------------------------------------------

enum ProfileParam : std::size_t { p_kernels, p_time, p_peak, p_eta, p_elementwise, p_bytes, p_count };

constexpr std::array<ArchParamSpec, p_count> kProfileParams = {{
    {.name = "kernels", .description = "kernel launches per forward pass in eager mode"},
    {.name = "kernel_compute_time", .dimension = Dimension::time,
     .description = "compute time of one kernel on the reference device at reference_eta", .integer = false},
    {.name = "reference_peak", .dimension = Dimension::flop_rate,
     .description = "peak FLOP/s of the device kernel_compute_time refers to", .integer = false},
    {.name = "reference_eta", .dimension = Dimension::dimensionless,
     .description = "efficiency (achieved / peak) at which kernel_compute_time was observed", .integer = false},
    {.name = "elementwise_per_group",
     .description = "element-wise kernels after each matmul kernel; compiled mode fuses them into it",
     .has_default = true, .default_value = 0},
    {.name = "bytes_per_kernel", .dimension = Dimension::bytes,
     .description = "bytes moved per kernel at fp16 (half read, half written); 0 = compute only",
     .has_default = true, .default_value = 0, .integer = false},
}};

constexpr std::string_view kProfile = "kernel_profile";

ModelGraph build_kernel_profile(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kProfileParams;
  check_arity(kProfile, values, p_count);
  const auto kernels = count_param(kProfile, specs, values, p_kernels, 1);
  const double t = positive_param(kProfile, specs, values, p_time);
  const double peak = positive_param(kProfile, specs, values, p_peak);
  const double eta = positive_param(kProfile, specs, values, p_eta);
  if (eta > 1) fail(kProfile, "reference_eta must be in (0, 1], got " + format_number(eta));
  const auto elementwise = count_param(kProfile, specs, values, p_elementwise, 0, 1e6);
  const double bytes = values[p_bytes];
  if (!std::isfinite(bytes) || bytes < 0) {
    fail(kProfile, "bytes_per_kernel must be >= 0, got " + format_number(bytes));
  }
  const std::uint64_t group = 1 + elementwise;
  if (kernels % group != 0) {
    fail(kProfile, "kernels (" + std::to_string(kernels) + ") must be a multiple of 1 + elementwise_per_group (" +
                       std::to_string(group) + ")");
  }
  const auto groups = as_repeat(kernels / group);
  const double flops = t * (peak * eta);
  const double elements = bytes / 4;

  ModelGraph g;
  g.sample_unit = "pass";
  g.ops.push_back(make_op("profile_matmul", OpKind::matmul, flops, elements, elements, 0, groups));
  for (std::uint64_t i = 1; i <= elementwise; ++i) {
    g.ops.push_back(
        make_op("profile_elementwise" + std::to_string(i), OpKind::elementwise, flops, elements, elements, 0, groups));
  }
  g.parameter_count = 0;
  return g;
}

// ---------------------------------------------------------------------------------------------
// pointwise_chain: the LayerNorm -> Dropout -> ReLU chain of seeds/000 lab_07 Act 2 ("Kernel Fusion
// Explorer"), in training mode, on one activation tensor of `elements` values (a sample is that
// tensor). Each op present is one eager kernel that reads the whole tensor and writes it back, in
// that order, so the chain moves 2k tensors unfused and 2 fused (engine/fusion.hpp).
// FLOPs per element: LayerNorm 8 (the convention above: mean 1, centre 1, square-and-sum 2,
// normalise 2, affine 2) over rows of `row_length`, reading its weight and bias (2 row_length
// parameters); Dropout 3 (training: compare a uniform random number with p, zero the dropped
// element, scale the kept ones by 1/(1 - p); the Philox random-number generation is integer work and
// is not counted as FLOPs; PyTorch's eager native_dropout also writes a 1-byte mask for the backward
// pass, not modelled: the seed counts one read and one write per op); ReLU 1 (a max).
// ---------------------------------------------------------------------------------------------

enum PointwiseParam : std::size_t { c_elements, c_row_length, c_layernorm, c_dropout, c_relu, c_count };

constexpr std::array<ArchParamSpec, c_count> kPointwiseParams = {{
    {.name = "elements", .description = "elements of the activation tensor the chain runs over"},
    {.name = "row_length", .description = "LayerNorm row length (normalised dimension, d_model); divides elements"},
    {.name = "layernorm", .description = "1 = the chain starts with a LayerNorm (8 FLOP per element)",
     .has_default = true, .default_value = 1},
    {.name = "dropout", .description = "1 = then a training-mode Dropout (3 FLOP per element)", .has_default = true,
     .default_value = 1},
    {.name = "relu", .description = "1 = then a ReLU (1 FLOP per element)", .has_default = true, .default_value = 1},
}};

constexpr std::string_view kPointwise = "pointwise_chain";

ModelGraph build_pointwise_chain(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kPointwiseParams;
  check_arity(kPointwise, values, c_count);
  const auto elements = count_param(kPointwise, specs, values, c_elements, 1);
  const auto row = count_param(kPointwise, specs, values, c_row_length, 1);
  const bool layernorm = flag_param(kPointwise, specs, values, c_layernorm);
  const bool dropout = flag_param(kPointwise, specs, values, c_dropout);
  const bool relu = flag_param(kPointwise, specs, values, c_relu);
  if (elements % row != 0) {
    fail(kPointwise, "row_length (" + std::to_string(row) + ") must divide elements (" + std::to_string(elements) + ")");
  }
  if (!layernorm && !dropout && !relu) fail(kPointwise, "the chain needs at least one of layernorm, dropout, relu");

  ModelGraph g;
  g.sample_unit = "tensor";
  const double n = static_cast<double>(elements);
  if (layernorm) {
    const double affine = 2.0 * static_cast<double>(row);
    g.ops.push_back(make_op("layernorm", OpKind::normalization, 8 * n, n, n, affine, 1));
    g.parameter_count = affine;
  }
  if (dropout) g.ops.push_back(make_op("dropout", OpKind::elementwise, 3 * n, n, n, 0, 1));
  if (relu) g.ops.push_back(make_op("relu", OpKind::elementwise, n, n, n, 0, 1));
  return g;
}

const std::array<Architecture, 19>& architecture_table() {
  // Families defined in their own files (engine/model_families.hpp) are added with one line each.
  static const std::array<Architecture, 19> table = {{
    {.name = kTransformer,
     .description = "decoder or encoder transformer stack (GPT-2, BERT, Llama, Mixtral, Gemma 2, PaLM; MHA, GQA, MQA or MLA; "
                    "sliding-window layers; sequential or parallel block; GELU or SwiGLU MLP, dense or mixture of experts)",
     .sample_unit = "sequence",
     .params = kTransformerParams,
     .build = &build_transformer},
    {.name = kResnet,
     .description = "bottleneck ResNet (ResNet-50/101/152 family, torchvision v1.5 layout)",
     .sample_unit = "image",
     .params = kResnetParams,
     .build = &build_resnet},
    {.name = kDsCnn,
     .description = "depthwise-separable CNN for keyword spotting (Hello Edge DS-CNN, MLPerf Tiny KWS)",
     .sample_unit = "utterance",
     .params = kDsCnnParams,
     .build = &build_ds_cnn},
    {.name = kProfile,
     .description = "a forward pass as N kernels of t compute each on a reference device (seeds/000 lab_07)",
     .sample_unit = "pass",
     .params = kProfileParams,
     .build = &build_kernel_profile},
    {.name = kPointwise,
     .description = "an element-wise chain (LayerNorm -> Dropout -> ReLU, training mode) on one tensor (seeds/000 lab_07 Act 2)",
     .sample_unit = "tensor",
     .params = kPointwiseParams,
     .build = &build_pointwise_chain},
    vit_architecture(),
    mobilenet_v2_architecture(),
    mobilenet_v3_large_architecture(),
    efficientnet_architecture(),
    convnext_architecture(),
    mamba_architecture(),
    mamba2_architecture(),
    jamba_architecture(),
    nemotron_h_architecture(),
    encoder_decoder_architecture(),
    mlp_architecture(),
    dlrm_architecture(),
    mask_rcnn_architecture(),
    sdxl_architecture(),
  }};
  return table;
}

}  // namespace

std::span<const Architecture> all_architectures() { return architecture_table(); }

const Architecture* find_architecture(std::string_view name) {
  for (const Architecture& a : architecture_table()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

ModelGraph build_architecture(std::string_view architecture,
                              const std::map<std::string, double, std::less<>>& named) {
  const Architecture* a = find_architecture(architecture);
  if (a == nullptr) throw std::invalid_argument("unknown architecture '" + std::string(architecture) + "'");
  for (const auto& entry : named) {
    const bool known = std::any_of(a->params.begin(), a->params.end(),
                                   [&](const ArchParamSpec& spec) { return spec.name == entry.first; });
    if (!known) {
      throw std::invalid_argument("unknown " + std::string(architecture) + " parameter '" + entry.first + "'");
    }
  }
  std::vector<double> values;
  for (const ArchParamSpec& spec : a->params) {
    const auto it = named.find(spec.name);
    if (it != named.end()) {
      values.push_back(it->second);
    } else if (spec.has_default) {
      values.push_back(spec.default_value);
    } else {
      throw std::invalid_argument("missing " + std::string(architecture) + " parameter '" +
                                  std::string(spec.name) + "'");
    }
  }
  return a->build(values);
}

}  // namespace dsx
