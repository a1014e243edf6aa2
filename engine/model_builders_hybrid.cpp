// Hybrid attention + state-space language models (engine/model_families.hpp).
// Conventions of model_builders.cpp apply (one Op per eager kernel, MACs = 2 FLOP, per-element costs:
// SiLU 4, RMSNorm 4, softmax 5). The layers are built from the shared pieces of
// engine/model_builders_blocks.hpp, so an attention layer's ops are the transformer builder's
// (qkv_proj, attention_*, out_proj: engine/serving.hpp reads the attention shape and the KV cache from
// them) and a Mamba layer's mixer is the mamba builder's (ssm_*, selective_scan) or the mamba2 builder's (ssd_scan).
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "engine/builder_support.hpp"
#include "engine/model_builders_blocks.hpp"
#include "engine/model_families.hpp"

namespace dsx {

namespace {

using builders::as_repeat;
using builders::check_arity;
using builders::count_param;
using builders::fail;
using builders::flag_param;
using builders::make_op;

// ---------------------------------------------------------------------------------------------
// jamba: Lieber et al. 2024, Jamba: A Hybrid Transformer-Mamba Language Model (arXiv:2403.19887),
// section 2 and Figure 1, as implemented in huggingface/transformers (models/jamba/
// configuration_jamba.py JambaConfig, modeling_jamba.py). A sample is one sequence of T = seq_len
// tokens in one forward pass. Layer i (from 0) is an attention layer when i % attention_period =
// attention_offset, else a Mamba layer (JambaConfig.layers_block_type); its feed-forward is a mixture
// of `experts` when i % expert_period = expert_offset and experts > 1, else a dense MLP
// (layers_num_experts). Every layer: RMSNorm, mixer, residual add, RMSNorm, feed-forward, residual add.
//  - Attention (JambaAttention): GQA with heads of d / heads, q/k/v/o without biases, causal, no
//    positional encoding (JambaAttention applies no rotary embedding); the transformer builder's ops.
//  - Mamba (JambaMambaMixer): in_proj d -> 2D and out_proj D -> d without bias (mamba_proj_bias
//    false), conv1d of d_conv taps with bias (mamba_conv_bias true), x_proj D -> R + 2N, RMSNorms on
//    Delta's R inputs and on B and C (dt_layernorm, b_layernorm, c_layernorm: R + 2N weights), dt_proj
//    R -> D with bias, A_log D N, D D; the mamba builder's ops plus the three norms, D = expand x d.
//  - Feed-forward (JambaMLP, JambaSparseMoeBlock): SwiGLU of d_ff without biases; a MoE layer has a
//    router d -> E without bias, softmax + top-k, k of E SwiGLU experts of d_ff and a weighted sum.
// Then a final RMSNorm and the LM head (untied in Jamba-v0.1). Parameters:
//   V d (+ V d untied) + d + sum over layers of [2 d + mixer + feed-forward], with
//   attention mixer 2 d^2 + 2 d d_kv, Mamba mixer 2 d D + D k + D + D (R + 2N) + R + 2N + R D + D +
//   D N + D + D d, dense MLP 3 d F, MoE E 3 d F + d E.
// Jamba-v0.1 (ai21labs/Jamba-v0.1 config.json = JambaConfig defaults: 32 layers, d 4096, 32 / 8
// heads, attention every 8 at offset 4, 16 experts top-2 every 2 at offset 1, F 14336, N 16, k 4,
// expand 2, R = ceil(4096 / 16) = 256, V 65536): 4 attention layers (dense MLP), 16 Mamba + MoE,
// 12 Mamba + MLP: 51,570,323,328 parameters, 12,110,311,296 active (the paper's 52B and 12B).
// The layer pattern repeats every lcm(attention_period, expert_period) layers: one block of ops per
// layer of that period with repeat = the number of whole periods, then the remaining layers once.
// ---------------------------------------------------------------------------------------------

enum JambaParam : std::size_t {
  j_layers, j_d_model, j_heads, j_kv_heads, j_attention_period, j_attention_offset, j_expert_period, j_expert_offset,
  j_experts, j_experts_per_token, j_d_ff, j_d_state, j_d_conv, j_expand, j_dt_rank, j_vocab, j_seq_len, j_tied, j_count
};

constexpr std::array<ArchParamSpec, j_count> kJambaParams = {{
    {.name = "layers", .description = "attention and Mamba layers together (Jamba-v0.1 32)"},
    {.name = "d_model", .description = "hidden size (Jamba-v0.1 4096)"},
    {.name = "heads", .description = "query heads of an attention layer (must divide d_model)"},
    {.name = "kv_heads", .description = "key/value heads of an attention layer: = heads for multi-head attention, fewer for GQA"},
    {.name = "attention_period",
     .description = "one layer in this many is an attention layer, the others Mamba layers (Jamba-v0.1 8)",
     .has_default = true, .default_value = 8},
    {.name = "attention_offset",
     .description = "index (from 0) of the first attention layer, below attention_period (Jamba-v0.1 4)",
     .has_default = true, .default_value = 4},
    {.name = "expert_period",
     .description = "one layer in this many has a mixture-of-experts feed-forward, the others a dense MLP (Jamba-v0.1 2)",
     .has_default = true, .default_value = 2},
    {.name = "expert_offset",
     .description = "index (from 0) of the first mixture-of-experts layer, below expert_period (Jamba-v0.1 1)",
     .has_default = true, .default_value = 1},
    {.name = "experts",
     .description = "experts of a mixture-of-experts layer (Jamba-v0.1 16); 1 = every feed-forward a dense MLP",
     .has_default = true, .default_value = 16},
    {.name = "experts_per_token", .description = "experts each token is routed to (Jamba-v0.1 2)", .has_default = true,
     .default_value = 2},
    {.name = "d_ff", .description = "SwiGLU inner size of the dense MLP and of each expert (Jamba-v0.1 14336)"},
    {.name = "d_state", .description = "Mamba SSM state size N per channel", .has_default = true, .default_value = 16},
    {.name = "d_conv", .description = "taps of the Mamba causal depthwise conv1d", .has_default = true, .default_value = 4},
    {.name = "expand", .description = "Mamba expansion: the scan runs on expand x d_model channels", .has_default = true,
     .default_value = 2},
    {.name = "dt_rank", .description = "rank of Mamba's Delta projection; 0 = ceil(d_model / 16)", .has_default = true,
     .default_value = 0},
    {.name = "vocab", .description = "vocabulary size (token table and LM head rows)"},
    {.name = "seq_len", .description = "tokens per sample: one sequence processed in one forward pass"},
    {.name = "tied_embeddings", .description = "1 = the LM head reuses the token table; 0 = separate head (Jamba-v0.1)",
     .has_default = true, .default_value = 0},
}};

constexpr std::string_view kJamba = "jamba";

ModelGraph build_jamba(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kJambaParams;
  check_arity(kJamba, values, j_count);
  const auto layers = count_param(kJamba, specs, values, j_layers, 1, 1e5);
  const auto d_model = count_param(kJamba, specs, values, j_d_model, 1, 1e6);
  const auto heads = count_param(kJamba, specs, values, j_heads, 1, 1e5);
  const auto kv_heads = count_param(kJamba, specs, values, j_kv_heads, 1, 1e5);
  const auto attention_period = count_param(kJamba, specs, values, j_attention_period, 1, 1e5);
  const auto attention_offset = count_param(kJamba, specs, values, j_attention_offset, 0, 1e5);
  const auto expert_period = count_param(kJamba, specs, values, j_expert_period, 1, 1e5);
  const auto expert_offset = count_param(kJamba, specs, values, j_expert_offset, 0, 1e5);
  const auto experts = count_param(kJamba, specs, values, j_experts, 1, 1e6);
  const auto experts_per_token = count_param(kJamba, specs, values, j_experts_per_token, 1, 1e6);
  const auto d_ff = count_param(kJamba, specs, values, j_d_ff, 1, 1e7);
  const auto d_state = count_param(kJamba, specs, values, j_d_state, 1, 1e5);
  const auto d_conv = count_param(kJamba, specs, values, j_d_conv, 1, 1e3);
  const auto expand = count_param(kJamba, specs, values, j_expand, 1, 1e3);
  auto dt_rank = count_param(kJamba, specs, values, j_dt_rank, 0, 1e6);
  const auto vocab = count_param(kJamba, specs, values, j_vocab, 1, 1e9);
  const auto seq_len = count_param(kJamba, specs, values, j_seq_len, 1, 1e8);
  const bool tied = flag_param(kJamba, specs, values, j_tied);
  if (dt_rank == 0) dt_rank = (d_model + 15) / 16;
  if (d_model % heads != 0) {
    fail(kJamba, "heads (" + std::to_string(heads) + ") must divide d_model (" + std::to_string(d_model) + ")");
  }
  if (kv_heads > heads || heads % kv_heads != 0) {
    fail(kJamba, "kv_heads (" + std::to_string(kv_heads) + ") must divide heads (" + std::to_string(heads) + ")");
  }
  if (attention_offset >= attention_period) {
    fail(kJamba, "attention_offset (" + std::to_string(attention_offset) + ") must be below attention_period (" +
                     std::to_string(attention_period) + ")");
  }
  if (expert_offset >= expert_period) {
    fail(kJamba, "expert_offset (" + std::to_string(expert_offset) + ") must be below expert_period (" +
                     std::to_string(expert_period) + ")");
  }
  if (experts_per_token > experts) {
    fail(kJamba, "experts_per_token (" + std::to_string(experts_per_token) + ") must not exceed experts (" +
                     std::to_string(experts) + ")");
  }
  if (attention_offset >= layers) {
    fail(kJamba, "no layer is an attention layer: attention_offset (" + std::to_string(attention_offset) +
                     ") must be below layers (" + std::to_string(layers) + "); a stack of Mamba layers is `mamba`");
  }

  const double T = static_cast<double>(seq_len);
  const double d = static_cast<double>(d_model);
  const double H = static_cast<double>(heads);
  const double dh = d / H;
  const double V = static_cast<double>(vocab);

  builders::DecoderBlockSpec spec;
  spec.T = T;
  spec.d = d;
  spec.H = H;
  spec.dh = dh;
  spec.q_width = d;
  spec.d_kv = static_cast<double>(kv_heads) * dh;
  spec.norm_name = "rmsnorm";
  spec.norm_flops = 4;
  spec.norm_weights = d;
  spec.gated = true;
  spec.F = static_cast<double>(d_ff);
  spec.Fe = spec.F;
  spec.experts = static_cast<double>(experts);
  spec.experts_per_token = static_cast<double>(experts_per_token);

  const builders::MambaMixerSpec mixer{.T = T,
                                       .d = d,
                                       .D = static_cast<double>(expand * d_model),
                                       .N = static_cast<double>(d_state),
                                       .R = static_cast<double>(dt_rank),
                                       .k = static_cast<double>(d_conv),
                                       .dt_bc_norms = true};

  ModelGraph g;
  g.sample_unit = "sequence";
  auto& ops = g.ops;
  double params = V * d;
  double expert_params = 0;  // one routed expert
  std::uint64_t moe_layers = 0;
  ops.push_back(make_op("token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));

  // Layer i executed `count` times; returns its parameters.
  auto layer = [&](std::uint64_t i, std::uint64_t count) {
    const auto r = as_repeat(count);
    const bool attention = i % attention_period == attention_offset;
    const bool moe = experts > 1 && i % expert_period == expert_offset;
    double p = 2 * d;  // the two RMSNorms
    if (attention) {
      p += builders::append_attention(ops, spec, r, false, true);
    } else {
      ops.push_back(make_op("rmsnorm_ssm", OpKind::normalization, 4 * T * d, T * d, T * d, d, r));
      p += builders::append_mamba_mixer(ops, mixer, r);
      ops.push_back(make_op("residual_add_ssm", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
    }
    p += builders::append_feed_forward(ops, spec, moe, r, true, expert_params);
    if (moe) moe_layers += count;
    params += static_cast<double>(count) * p;
  };
  const std::uint64_t period = std::lcm(attention_period, expert_period);
  const std::uint64_t periods = layers / period;
  if (periods > 0) {
    for (std::uint64_t i = 0; i < period; ++i) layer(i, periods);
  }
  for (std::uint64_t i = periods * period; i < layers; ++i) layer(i, 1);

  ops.push_back(make_op("rmsnorm_final", OpKind::normalization, 4 * T * d, T * d, T * d, d, 1));
  ops.push_back(make_op("lm_head", OpKind::matmul, 2 * T * d * V, T * d, T * V, V * d, 1));
  params += d + (tied ? 0 : V * d);
  g.parameter_count = params;
  // A token passes through k of the E routed experts of each MoE layer.
  g.active_parameter_count = params - static_cast<double>(moe_layers) *
                                          static_cast<double>(experts - experts_per_token) * expert_params;
  return g;
}

// ---------------------------------------------------------------------------------------------
// nemotron_h: NVIDIA 2025, "Nemotron-H: A Family of Accurate and Efficient Hybrid Mamba-Transformer
// Models" (arXiv:2504.03624), as implemented in huggingface/transformers (models/nemotron_h/
// configuration_nemotron_h.py NemotronHConfig, modeling_nemotron_h.py NemotronHBlock). Every layer is
// one block: RMSNorm, one mixer, residual add; the mixer is a Mamba-2 layer, an attention layer or an
// MLP, as hybrid_override_pattern's characters M, * and - say. Layer i (from 0) is an attention layer
// when i % attention_period = attention_offset and fewer than attention_layers (0 = no limit) come
// before it; the others alternate Mamba-2, MLP, Mamba-2, ... in order (all Mamba-2 when d_ff = 0).
// Nemotron-H-8B's pattern "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-" is period 11,
// offset 7, 4 attention layers (layer 51 is an MLP): 24 Mamba-2, 4 attention and 24 MLP layers.
//  - Mamba-2 (NemotronHMamba2Mixer): the `mamba2` builder's mixer (builders::append_mamba2_mixer) with
//    D = mamba_heads x mamba_head_dim, G groups (mamba_n_groups), chunk_size; in/out projections
//    without bias (mamba_proj_bias false), the conv with one (use_conv_bias true).
//  - Attention (NemotronHAttention): GQA of heads x head_dim queries and kv_heads x head_dim keys and
//    values, q/k/v/o without biases, causal, no positional encoding (no rotary embedding is applied).
//  - MLP (NemotronHMLP): up_proj d -> F, squared ReLU (relu2: 2 FLOP per element), down_proj F -> d,
//    no biases (mlp_bias false).
// Then a final RMSNorm and the LM head (untied: tie_word_embeddings false). Parameters:
//   V d (+ V d untied) + d + sum over layers of [d + mixer], with Mamba-2 mixer d (2 D + 2 G N + H) +
//   (D + 2 G N)(k + 1) + 3 H + D + D d, attention 2 d heads dh + 2 d kv_heads dh, MLP 2 d F.
// Nemotron-H-8B-Base-8K (config.json: d 4096, 52 layers, 32 / 8 heads of 128, F 21504, 128 Mamba
// heads of 64, N 128, G 8, k 4, chunk 128, V 131072): 109,640,064 per Mamba-2 layer, 41,947,136 per
// attention layer, 176,164,864 per MLP layer, 8,100,852,736 in all (the paper's 8B).
// The pattern repeats every attention_period layers (twice that when the period holds an odd number
// of other layers, so that the alternation lines up): one block of ops per layer of that period with
// repeat = the number of whole periods that hold all their attention layers, then the remaining
// layers once.
// ---------------------------------------------------------------------------------------------

enum NemotronHParam : std::size_t {
  n_layers, n_d_model, n_heads, n_kv_heads, n_head_dim, n_attention_period, n_attention_offset, n_attention_layers, n_d_ff,
  n_mamba_heads, n_mamba_head_dim, n_d_state, n_groups, n_d_conv, n_chunk, n_vocab, n_seq_len, n_tied, n_count
};

constexpr std::array<ArchParamSpec, n_count> kNemotronHParams = {{
    {.name = "layers", .description = "Mamba-2, attention and MLP layers together (Nemotron-H-8B 52)"},
    {.name = "d_model", .description = "hidden size (Nemotron-H-8B 4096)"},
    {.name = "heads", .description = "query heads of an attention layer"},
    {.name = "kv_heads", .description = "key/value heads of an attention layer (GQA)"},
    {.name = "head_dim", .description = "width of one attention head; 0 = d_model / heads", .has_default = true,
     .default_value = 0},
    {.name = "attention_period", .description = "one layer in this many is an attention layer (Nemotron-H-8B 11)"},
    {.name = "attention_offset", .description = "index (from 0) of the first attention layer (Nemotron-H-8B 7)"},
    {.name = "attention_layers",
     .description = "attention layers in all, the first ones the period places; 0 = every one (Nemotron-H-8B 4)",
     .has_default = true, .default_value = 0},
    {.name = "d_ff",
     .description = "inner size of the squared-ReLU MLP layers, which alternate with the Mamba-2 layers; 0 = none"},
    {.name = "mamba_heads", .description = "SSM heads H of a Mamba-2 layer (Nemotron-H-8B 128)"},
    {.name = "mamba_head_dim", .description = "channels P per SSM head", .has_default = true, .default_value = 64},
    {.name = "d_state", .description = "SSM state size N per head channel", .has_default = true, .default_value = 128},
    {.name = "ngroups", .description = "groups G sharing B and C (and the gated norm's groups)", .has_default = true,
     .default_value = 8},
    {.name = "d_conv", .description = "taps of the causal depthwise conv1d", .has_default = true, .default_value = 4},
    {.name = "chunk_size", .description = "SSD chunk length Q", .has_default = true, .default_value = 128},
    {.name = "vocab", .description = "vocabulary size (token table and LM head rows)"},
    {.name = "seq_len", .description = "tokens per sample: one sequence processed in one forward pass"},
    {.name = "tied_embeddings", .description = "1 = the LM head reuses the token table; 0 = separate head (Nemotron-H)",
     .has_default = true, .default_value = 0},
}};

constexpr std::string_view kNemotronH = "nemotron_h";

ModelGraph build_nemotron_h(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kNemotronHParams;
  check_arity(kNemotronH, values, n_count);
  const auto layers = count_param(kNemotronH, specs, values, n_layers, 1, 1e5);
  const auto d_model = count_param(kNemotronH, specs, values, n_d_model, 1, 1e6);
  const auto heads = count_param(kNemotronH, specs, values, n_heads, 1, 1e5);
  const auto kv_heads = count_param(kNemotronH, specs, values, n_kv_heads, 1, 1e5);
  auto head_dim = count_param(kNemotronH, specs, values, n_head_dim, 0, 1e6);
  const auto attention_period = count_param(kNemotronH, specs, values, n_attention_period, 1, 1e5);
  const auto attention_offset = count_param(kNemotronH, specs, values, n_attention_offset, 0, 1e5);
  const auto attention_count = count_param(kNemotronH, specs, values, n_attention_layers, 0, 1e5);
  const auto d_ff = count_param(kNemotronH, specs, values, n_d_ff, 0, 1e7);
  const auto mamba_heads = count_param(kNemotronH, specs, values, n_mamba_heads, 1, 1e6);
  const auto mamba_head_dim = count_param(kNemotronH, specs, values, n_mamba_head_dim, 1, 1e6);
  const auto d_state = count_param(kNemotronH, specs, values, n_d_state, 1, 1e5);
  const auto groups = count_param(kNemotronH, specs, values, n_groups, 1, 1e6);
  const auto d_conv = count_param(kNemotronH, specs, values, n_d_conv, 1, 1e3);
  const auto chunk = count_param(kNemotronH, specs, values, n_chunk, 1, 1e8);
  const auto vocab = count_param(kNemotronH, specs, values, n_vocab, 1, 1e9);
  const auto seq_len = count_param(kNemotronH, specs, values, n_seq_len, 1, 1e8);
  const bool tied = flag_param(kNemotronH, specs, values, n_tied);
  if (head_dim == 0) {
    if (d_model % heads != 0) {
      fail(kNemotronH, "heads (" + std::to_string(heads) + ") must divide d_model (" + std::to_string(d_model) +
                           ") when head_dim is 0");
    }
    head_dim = d_model / heads;
  }
  if (kv_heads > heads || heads % kv_heads != 0) {
    fail(kNemotronH, "kv_heads (" + std::to_string(kv_heads) + ") must divide heads (" + std::to_string(heads) + ")");
  }
  if (attention_offset >= attention_period) {
    fail(kNemotronH, "attention_offset (" + std::to_string(attention_offset) + ") must be below attention_period (" +
                         std::to_string(attention_period) + ")");
  }
  if (attention_offset >= layers) {
    fail(kNemotronH, "no layer is an attention layer: attention_offset (" + std::to_string(attention_offset) +
                         ") must be below layers (" + std::to_string(layers) + "); a stack of Mamba-2 layers is `mamba2`");
  }
  if (mamba_heads % groups != 0) {
    fail(kNemotronH,
         "ngroups (" + std::to_string(groups) + ") must divide mamba_heads (" + std::to_string(mamba_heads) + ")");
  }

  const double T = static_cast<double>(seq_len), d = static_cast<double>(d_model), V = static_cast<double>(vocab);
  const double F = static_cast<double>(d_ff);
  builders::DecoderBlockSpec attention;
  attention.T = T;
  attention.d = d;
  attention.H = static_cast<double>(heads);
  attention.dh = static_cast<double>(head_dim);
  attention.q_width = static_cast<double>(heads * head_dim);
  attention.d_kv = static_cast<double>(kv_heads * head_dim);
  attention.norm_name = "rmsnorm";
  attention.norm_flops = 4;
  attention.norm_weights = d;
  const builders::Mamba2MixerSpec mixer{.T = T,
                                        .d = d,
                                        .D = static_cast<double>(mamba_heads * mamba_head_dim),
                                        .N = static_cast<double>(d_state),
                                        .H = static_cast<double>(mamba_heads),
                                        .P = static_cast<double>(mamba_head_dim),
                                        .G = static_cast<double>(groups),
                                        .k = static_cast<double>(d_conv),
                                        .Q = static_cast<double>(chunk)};

  ModelGraph g;
  g.sample_unit = "sequence";
  auto& ops = g.ops;
  double params = V * d;
  ops.push_back(make_op("token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));
  const auto is_attention = [&](std::uint64_t i) {
    return i % attention_period == attention_offset &&
           (attention_count == 0 || i / attention_period < attention_count);
  };
  // Layer i executed `count` times; `other` is its index among the non-attention layers; returns its parameters.
  auto layer = [&](std::uint64_t i, std::uint64_t other, std::uint64_t count) {
    const auto r = as_repeat(count);
    double p = d;  // the block's RMSNorm
    if (is_attention(i)) {
      p += builders::append_attention(ops, attention, r, false, true);
    } else if (d_ff == 0 || other % 2 == 0) {
      ops.push_back(make_op("rmsnorm_ssm", OpKind::normalization, 4 * T * d, T * d, T * d, d, r));
      p += builders::append_mamba2_mixer(ops, mixer, r);
      ops.push_back(make_op("residual_add_ssm", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
    } else {
      ops.push_back(make_op("rmsnorm_mlp", OpKind::normalization, 4 * T * d, T * d, T * d, d, r));
      ops.push_back(make_op("mlp_fc1", OpKind::matmul, 2 * T * d * F, T * d, T * F, d * F, r));
      ops.push_back(make_op("mlp_relu2", OpKind::elementwise, 2 * T * F, T * F, T * F, 0, r));
      ops.push_back(make_op("mlp_fc2", OpKind::matmul, 2 * T * F * d, T * F, T * d, F * d, r));
      ops.push_back(make_op("residual_add_mlp", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
      p += 2 * d * F;
    }
    params += static_cast<double>(count) * p;
  };
  const bool odd_others = d_ff > 0 && (attention_period - 1) % 2 == 1;
  const std::uint64_t period = odd_others ? 2 * attention_period : attention_period;
  const std::uint64_t slots_per_period = period / attention_period;
  const std::uint64_t periods = attention_count == 0 ? layers / period
                                                     : std::min(layers / period, attention_count / slots_per_period);
  std::uint64_t other = 0;
  for (std::uint64_t i = 0; i < (periods > 0 ? period : 0); ++i) {
    layer(i, other, periods);
    if (!is_attention(i)) ++other;
  }
  other *= periods > 0 ? periods : 1;
  for (std::uint64_t i = periods * period; i < layers; ++i) {
    layer(i, other, 1);
    if (!is_attention(i)) ++other;
  }
  ops.push_back(make_op("rmsnorm_final", OpKind::normalization, 4 * T * d, T * d, T * d, d, 1));
  ops.push_back(make_op("lm_head", OpKind::matmul, 2 * T * d * V, T * d, T * V, V * d, 1));
  params += d + (tied ? 0 : V * d);
  g.parameter_count = params;
  return g;
}

}  // namespace

Architecture jamba_architecture() {
  return {.name = kJamba,
          .description = "hybrid decoder of attention and Mamba layers with dense and mixture-of-experts SwiGLU "
                         "feed-forwards (Jamba)",
          .sample_unit = "sequence",
          .params = kJambaParams,
          .build = &build_jamba};
}

Architecture nemotron_h_architecture() {
  return {.name = kNemotronH,
          .description = "hybrid decoder of Mamba-2, attention and squared-ReLU MLP layers (Nemotron-H)",
          .sample_unit = "sequence",
          .params = kNemotronHParams,
          .build = &build_nemotron_h};
}

}  // namespace dsx
