// Sequence architectures beside the decoder-only transformer: the Mamba selective state-space
// language model and encoder-decoder transformers (T5 over tokens, Whisper over log-mel frames).
// Conventions of model_builders.cpp apply (one Op per eager kernel, MACs = 2 FLOP, per-element
// costs: SiLU 4, GELU 8, ReLU 1, RMSNorm 4, LayerNorm 8, softmax 5). Op names avoid the
// transformer builder's `qkv_proj` / `attention_*` names on purpose: engine/serving.hpp reads a
// decoder-only transformer's shape from those, which these graphs are not (the serving and
// training solvers report them "not a transformer" rather than mis-reading them).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/builder_support.hpp"
#include "engine/model_builders_blocks.hpp"
#include "engine/model_families.hpp"
#include "engine/operators.hpp"

namespace dsx {

namespace {

using builders::as_repeat;
using builders::check_arity;
using builders::count_param;
using builders::fail;
using builders::flag_param;
using builders::make_op;

// ---------------------------------------------------------------------------------------------
// mamba: Gu & Dao 2023, Mamba: Linear-Time Sequence Modeling with Selective State Spaces
// (arXiv:2312.00752), section 3.4 and Figure 3, as implemented in state-spaces/mamba
// (mamba_ssm/modules/mamba_simple.py, models/mixer_seq_simple.py). A sample is one sequence of
// T = seq_len tokens in one forward pass. With d = d_model, D = expand x d, N = d_state,
// R = dt_rank (ceil(d / 16) when 0), k = d_conv, per layer:
//   RMSNorm; in_proj d -> 2D (x and the gate z, no bias); causal depthwise conv1d over time on x
//   (k taps, bias); SiLU; x_proj D -> R + 2N (Delta's low-rank input, B, C; no bias); dt_proj
//   R -> D (bias, the delta_bias of the scan); selective scan (engine/operators.hpp: 9 T D N + 2 T D
//   FLOPs, A D N and D parameters); gate y x SiLU(z) (5 FLOP per element); out_proj D -> d (no
//   bias); residual add.
// Then a final RMSNorm and the LM head (tied to the token table in the released models).
// Parameters per layer: 2 d D + D k + D + D (R + 2N) + R D + D + D N + D + D d + d.
// Mamba-2.8B (state-spaces/mamba-2.8b config: d_model 2560, n_layer 64, vocab 50277 padded to a
// multiple of 8 = 50280, d_state 16, expand 2, d_conv 4, tied embeddings): 2,768,345,600.
// The fused CUDA kernel applies the gate and the D skip inside the scan; eager lists the gate as its
// own kernel, and compiled mode fuses it back into the scan's group (engine/fusion.hpp).
// ---------------------------------------------------------------------------------------------

enum MambaParam : std::size_t {
  s_layers, s_d_model, s_d_state, s_expand, s_d_conv, s_dt_rank, s_vocab, s_seq_len, s_tied, s_count
};

constexpr std::array<ArchParamSpec, s_count> kMambaParams = {{
    {.name = "layers", .description = "Mamba blocks (Mamba-2.8B 64)"},
    {.name = "d_model", .description = "hidden size (Mamba-2.8B 2560)"},
    {.name = "d_state", .description = "SSM state size N per channel", .has_default = true, .default_value = 16},
    {.name = "expand", .description = "expansion E: the scan runs on E x d_model channels", .has_default = true,
     .default_value = 2},
    {.name = "d_conv", .description = "taps of the causal depthwise conv1d", .has_default = true, .default_value = 4},
    {.name = "dt_rank", .description = "rank of Delta's projection; 0 = ceil(d_model / 16)", .has_default = true,
     .default_value = 0},
    {.name = "vocab", .description = "vocabulary rows (padded as in the checkpoint)"},
    {.name = "seq_len", .description = "tokens per sample: one sequence processed in one forward pass"},
    {.name = "tied_embeddings", .description = "1 = the LM head reuses the token table (released Mamba models)",
     .has_default = true, .default_value = 1},
}};

constexpr std::string_view kMamba = "mamba";

ModelGraph build_mamba(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kMambaParams;
  check_arity(kMamba, values, s_count);
  const auto layers = count_param(kMamba, specs, values, s_layers, 1, 1e5);
  const auto d_model = count_param(kMamba, specs, values, s_d_model, 1, 1e6);
  const auto d_state = count_param(kMamba, specs, values, s_d_state, 1, 1e5);
  const auto expand = count_param(kMamba, specs, values, s_expand, 1, 1e3);
  const auto d_conv = count_param(kMamba, specs, values, s_d_conv, 1, 1e3);
  auto dt_rank = count_param(kMamba, specs, values, s_dt_rank, 0, 1e6);
  const auto vocab = count_param(kMamba, specs, values, s_vocab, 1, 1e9);
  const auto seq_len = count_param(kMamba, specs, values, s_seq_len, 1, 1e8);
  const bool tied = flag_param(kMamba, specs, values, s_tied);
  if (dt_rank == 0) dt_rank = (d_model + 15) / 16;

  ModelGraph g;
  g.sample_unit = "sequence";
  const double d = static_cast<double>(d_model), T = static_cast<double>(seq_len);
  const double D = static_cast<double>(expand * d_model), N = static_cast<double>(d_state);
  const double R = static_cast<double>(dt_rank), k = static_cast<double>(d_conv), V = static_cast<double>(vocab);
  const auto r = as_repeat(layers);
  auto& ops = g.ops;

  ops.push_back(make_op("token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));
  ops.push_back(make_op("rmsnorm", OpKind::normalization, 4 * T * d, T * d, T * d, d, r));
  const double mixer = builders::append_mamba_mixer(ops, {.T = T, .d = d, .D = D, .N = N, .R = R, .k = k}, r);
  ops.push_back(make_op("residual_add", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
  ops.push_back(make_op("rmsnorm_final", OpKind::normalization, 4 * T * d, T * d, T * d, d, 1));
  ops.push_back(make_op("lm_head", OpKind::matmul, 2 * T * d * V, T * d, T * V, V * d, 1));

  const double per_layer = d + mixer;
  g.parameter_count = V * d + static_cast<double>(layers) * per_layer + d + (tied ? 0 : V * d);
  return g;
}

// ---------------------------------------------------------------------------------------------
// encoder_decoder: the encoder-decoder transformer of Vaswani et al. 2017 (arXiv:1706.03762,
// section 3.1) in two published forms:
//  - T5 (Raffel et al. 2020, arXiv:1910.10683, section 3.1.3; Hugging Face t5-base config): token
//    embedding shared by both stacks and the LM head, pre-norm RMSNorm without bias, no linear
//    biases, ReLU MLP, no attention scaling, a relative position bias of `relative_buckets` x heads
//    learned in the first layer of each stack and added to every layer's scores.
//  - Whisper (Radford et al. 2022, arXiv:2212.04356, section 2.2 and Table 1; Hugging Face
//    whisper-* configs): two conv1d (k 3, the second stride 2) with GELU over `mel_bins` x
//    2 source_len log-mel frames, a position table of source_len rows added (fixed sinusoids,
//    stored in the checkpoint), pre-norm LayerNorm, linear biases except the key projection, GELU
//    MLP, learned decoder positions, LM head tied to the token table.
// A sample is one (source, target) pair in one forward pass: the encoder over S = source_len
// positions and the decoder over T = target_len tokens in parallel (teacher forcing, scoring or
// prefill; no KV cache). Per encoder layer: norm, q/k/v projections (3 kernels), scores 2 S^2 Hd,
// [scale or position bias], softmax, context 2 S^2 Hd, output projection, residual add; norm,
// fc1, activation, fc2, residual add. Per decoder layer: the same self-attention over T with a
// causal mask, then cross-attention (engine/operators.hpp): norm, q projection of the T decoder
// rows, k/v projections of the S encoder rows (2 kernels), scores and context 2 T S Hd each,
// softmax, output projection, residual add; then the MLP. H d_head may differ from d_model
// (head_dim). Parameters per attention: 4 d Hd (+ 3 Hd + d biases for Whisper).
// t5-base: 222,903,552 parameters; whisper-small: 241,734,912 (Hugging Face checkpoints).
// ---------------------------------------------------------------------------------------------

enum EncDecParam : std::size_t {
  ed_enc_layers, ed_dec_layers, ed_d_model, ed_heads, ed_head_dim, ed_d_ff, ed_vocab, ed_source_len, ed_target_len,
  ed_activation, ed_norm, ed_bias, ed_relative_buckets, ed_mel_bins, ed_decoder_positions, ed_tied, ed_count
};

constexpr std::array<ArchParamSpec, ed_count> kEncDecParams = {{
    {.name = "encoder_layers", .description = "encoder blocks (t5-base 12, whisper-small 12)"},
    {.name = "decoder_layers", .description = "decoder blocks (t5-base 12, whisper-small 12)"},
    {.name = "d_model", .description = "hidden size"},
    {.name = "heads", .description = "attention heads"},
    {.name = "head_dim", .description = "width of one head; 0 = d_model / heads", .has_default = true,
     .default_value = 0},
    {.name = "d_ff", .description = "MLP inner size"},
    {.name = "vocab", .description = "decoder vocabulary (token table and LM head rows)"},
    {.name = "source_len", .description = "encoder positions per sample (tokens, or audio frames after the conv stem)"},
    {.name = "target_len", .description = "decoder tokens per sample"},
    {.name = "activation", .description = "MLP activation: 0 = ReLU (T5), 1 = GELU (Whisper)", .has_default = true,
     .default_value = 0},
    {.name = "norm", .description = "0 = LayerNorm with bias (Whisper), 1 = RMSNorm (T5)", .has_default = true,
     .default_value = 1},
    {.name = "bias", .description = "1 = linear layers carry biases, the key projection excepted (Whisper)",
     .has_default = true, .default_value = 0},
    {.name = "relative_buckets",
     .description = "T5 relative position buckets (32); 0 = none (scores scaled by 1/sqrt(head_dim) instead)",
     .has_default = true, .default_value = 0},
    {.name = "mel_bins",
     .description = "0 = token encoder; > 0 = Whisper audio stem over mel_bins x 2 source_len log-mel frames",
     .has_default = true, .default_value = 0},
    {.name = "decoder_positions", .description = "rows of the decoder's learned position table (Whisper 448); 0 = none",
     .has_default = true, .default_value = 0},
    {.name = "tied_embeddings", .description = "1 = the LM head reuses the token table", .has_default = true,
     .default_value = 1},
}};

constexpr std::string_view kEncDec = "encoder_decoder";

ModelGraph build_encoder_decoder(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kEncDecParams;
  check_arity(kEncDec, values, ed_count);
  const auto enc_layers = count_param(kEncDec, specs, values, ed_enc_layers, 1, 1e5);
  const auto dec_layers = count_param(kEncDec, specs, values, ed_dec_layers, 1, 1e5);
  const auto d_model = count_param(kEncDec, specs, values, ed_d_model, 1, 1e6);
  const auto heads = count_param(kEncDec, specs, values, ed_heads, 1, 1e5);
  auto head_dim = count_param(kEncDec, specs, values, ed_head_dim, 0, 1e5);
  const auto d_ff = count_param(kEncDec, specs, values, ed_d_ff, 1, 1e7);
  const auto vocab = count_param(kEncDec, specs, values, ed_vocab, 1, 1e9);
  const auto source_len = count_param(kEncDec, specs, values, ed_source_len, 1, 1e8);
  const auto target_len = count_param(kEncDec, specs, values, ed_target_len, 1, 1e8);
  const bool gelu = flag_param(kEncDec, specs, values, ed_activation);
  const bool rms = flag_param(kEncDec, specs, values, ed_norm);
  const bool bias = flag_param(kEncDec, specs, values, ed_bias);
  const auto buckets = count_param(kEncDec, specs, values, ed_relative_buckets, 0, 1e6);
  const auto mel_bins = count_param(kEncDec, specs, values, ed_mel_bins, 0, 1e5);
  const auto dec_positions = count_param(kEncDec, specs, values, ed_decoder_positions, 0, 1e8);
  const bool tied = flag_param(kEncDec, specs, values, ed_tied);
  if (head_dim == 0) {
    if (d_model % heads != 0) fail(kEncDec, "heads must divide d_model when head_dim is 0");
    head_dim = d_model / heads;
  }
  if (dec_positions > 0 && target_len > dec_positions) {
    fail(kEncDec, "target_len exceeds the decoder's learned positions");
  }

  ModelGraph g;
  g.sample_unit = mel_bins > 0 ? "utterance" : "sequence pair";
  const double d = static_cast<double>(d_model), H = static_cast<double>(heads), dh = static_cast<double>(head_dim);
  const double Hd = H * dh, F = static_cast<double>(d_ff), V = static_cast<double>(vocab);
  const double S = static_cast<double>(source_len), T = static_cast<double>(target_len);
  const double b = bias ? 1.0 : 0.0;
  const double norm_w = rms ? d : 2 * d, norm_f = rms ? 4.0 : 8.0, act_f = gelu ? 8.0 : 1.0;
  const std::string norm_name = rms ? "rmsnorm" : "layernorm";
  const std::string act_name = gelu ? "gelu" : "relu";
  auto& ops = g.ops;
  double params = 0;

  auto norm = [&](const std::string& name, double rows, std::uint32_t r) {
    ops.push_back(make_op(name, OpKind::normalization, norm_f * rows * d, rows * d, rows * d, norm_w, r));
    return norm_w;
  };
  // Scores of `q` queries over `k` keys, then position bias or scale, [mask], softmax and context.
  auto attend = [&](const std::string& p, double q, double k, bool causal, std::uint32_t r) {
    const double scores = H * q * k;
    ops.push_back(attention_scores(p + "scores", q, k, H, dh, r));
    if (buckets > 0) {
      ops.push_back(make_op(p + "position_bias_add", OpKind::elementwise, scores, scores + H * q * k, scores, 0, r));
    } else {
      ops.push_back(make_op(p + "scale", OpKind::elementwise, scores, scores, scores, 0, r));
    }
    if (causal) ops.push_back(make_op(p + "mask", OpKind::elementwise, scores, scores, scores, 0, r));
    ops.push_back(make_op(p + "softmax", OpKind::reduction, 5 * scores, scores, scores, 0, r));
    ops.push_back(attention_context(p + "context", q, k, H, dh, r));
  };
  // Self-attention sub-layer on `rows` rows; returns its parameters.
  auto self_attention = [&](const std::string& p, double rows, bool causal, std::uint32_t r) {
    double w = norm(p + norm_name + "_attn", rows, r);
    Op qkv = make_op(p + "q_k_v_proj", OpKind::matmul, 2 * rows * d * 3 * Hd, 3 * rows * d, 3 * rows * Hd,
                     3 * d * Hd + 2 * b * Hd, r);
    qkv.kernels = 3;
    ops.push_back(std::move(qkv));
    attend(p + "attention_", rows, rows, causal, r);
    ops.push_back(make_op(p + "out_proj", OpKind::matmul, 2 * rows * Hd * d, rows * Hd, rows * d, Hd * d + b * d, r));
    ops.push_back(make_op(p + "residual_add_attn", OpKind::elementwise, rows * d, 2 * rows * d, rows * d, 0, r));
    return w + 4 * d * Hd + b * (2 * Hd + d);
  };
  auto feed_forward = [&](const std::string& p, double rows, std::uint32_t r) {
    double w = norm(p + norm_name + "_mlp", rows, r);
    ops.push_back(make_op(p + "mlp_fc1", OpKind::matmul, 2 * rows * d * F, rows * d, rows * F, d * F + b * F, r));
    ops.push_back(make_op(p + "mlp_" + act_name, OpKind::elementwise, act_f * rows * F, rows * F, rows * F, 0, r));
    ops.push_back(make_op(p + "mlp_fc2", OpKind::matmul, 2 * rows * F * d, rows * F, rows * d, F * d + b * d, r));
    ops.push_back(make_op(p + "residual_add_mlp", OpKind::elementwise, rows * d, 2 * rows * d, rows * d, 0, r));
    return w + 2 * d * F + b * (F + d);
  };
  auto relative_bias = [&](const std::string& p, double q, double k) {
    if (buckets == 0) return 0.0;
    // Bucketed lookup of H biases per (query, key) pair, computed once per stack.
    ops.push_back(make_op(p + "relative_position_bias", OpKind::embedding, 0, H * q * k, H * q * k,
                          static_cast<double>(buckets) * H, 1));
    return static_cast<double>(buckets) * H;
  };

  // Encoder.
  if (mel_bins > 0) {
    const double frames = 2 * S;
    const Conv2dShape c1{.height = 1, .width = 2 * source_len, .in_channels = mel_bins, .out_channels = d_model,
                         .kernel_h = 1, .kernel_w = 3, .stride = 1, .pad_w = 1, .bias = true};
    ops.push_back(conv2d("enc_conv1", c1, 1));
    ops.push_back(make_op("enc_conv1_gelu", OpKind::elementwise, 8 * frames * d, frames * d, frames * d, 0, 1));
    const Conv2dShape c2{.height = 1, .width = 2 * source_len, .in_channels = d_model, .out_channels = d_model,
                         .kernel_h = 1, .kernel_w = 3, .stride = 2, .pad_w = 1, .bias = true};
    ops.push_back(conv2d("enc_conv2", c2, 1));
    ops.push_back(make_op("enc_conv2_gelu", OpKind::elementwise, 8 * S * d, S * d, S * d, 0, 1));
    ops.push_back(make_op("enc_position_add", OpKind::elementwise, S * d, S * d, S * d, S * d, 1));
    params += c1.weight_elements() + c2.weight_elements() + S * d;
  } else {
    ops.push_back(make_op("enc_token_embedding", OpKind::embedding, 0, S * d, S * d, 0, 1));
  }
  params += relative_bias("enc_", S, S);
  {
    const auto r = as_repeat(enc_layers);
    const double w = self_attention("enc_", S, false, r) + feed_forward("enc_", S, r);
    params += static_cast<double>(enc_layers) * w;
  }
  params += norm("enc_" + norm_name + "_final", S, 1);

  // Decoder.
  ops.push_back(make_op("dec_token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));
  params += V * d;
  if (dec_positions > 0) {
    ops.push_back(make_op("dec_position_add", OpKind::elementwise, T * d, T * d, T * d, T * d, 1));
    params += static_cast<double>(dec_positions) * d;
  }
  params += relative_bias("dec_", T, T);
  {
    const auto r = as_repeat(dec_layers);
    double w = self_attention("dec_", T, true, r);
    w += norm("cross_" + norm_name + "_attn", T, r);
    ops.push_back(make_op("cross_q_proj", OpKind::matmul, 2 * T * d * Hd, T * d, T * Hd, d * Hd + b * Hd, r));
    Op kv = make_op("cross_k_v_proj", OpKind::matmul, 2 * S * d * 2 * Hd, 2 * S * d, 2 * S * Hd, 2 * d * Hd + b * Hd, r);
    kv.kernels = 2;
    ops.push_back(std::move(kv));
    attend("cross_attention_", T, S, false, r);
    ops.push_back(make_op("cross_out_proj", OpKind::matmul, 2 * T * Hd * d, T * Hd, T * d, Hd * d + b * d, r));
    ops.push_back(make_op("cross_residual_add", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
    w += 4 * d * Hd + b * (2 * Hd + d);
    w += feed_forward("dec_", T, r);
    params += static_cast<double>(dec_layers) * w;
  }
  params += norm("dec_" + norm_name + "_final", T, 1);
  ops.push_back(make_op("lm_head", OpKind::matmul, 2 * T * d * V, T * d, T * V, V * d, 1));
  if (!tied) params += V * d;
  g.parameter_count = params;
  return g;
}

}  // namespace

Architecture mamba_architecture() {
  return {.name = kMamba,
          .description = "Mamba selective state-space language model (Mamba-130M ... 2.8B): no attention, no MLP",
          .sample_unit = "sequence",
          .params = kMambaParams,
          .build = &build_mamba};
}

Architecture encoder_decoder_architecture() {
  return {.name = kEncDec,
          .description = "encoder-decoder transformer with cross-attention (T5 over tokens, Whisper over log-mel frames)",
          .sample_unit = "sequence pair",
          .params = kEncDecParams,
          .build = &build_encoder_decoder};
}

}  // namespace dsx
