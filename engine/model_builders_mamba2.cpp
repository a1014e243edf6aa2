// mamba2: the Mamba-2 language model of Dao & Gu 2024, "Transformers are SSMs: Generalized Models and
// Efficient Algorithms Through Structured State Space Duality" (arXiv:2405.21060), section 7.1
// (the block: parallel projections, extra normalization) and section 6 (the SSD algorithm), as
// implemented in state-spaces/mamba mamba_ssm/modules/mamba2.py (Mamba2) inside
// models/mixer_seq_simple.py (pre-norm blocks, final norm, tied LM head). Conventions of
// model_builders.cpp apply (one Op per eager kernel, MACs = 2 FLOP; SiLU 4, RMSNorm 4 per element).
// A sample is one sequence of T = seq_len tokens in one forward pass. With d = d_model,
// D = expand x d, P = head_dim, H = D / P heads, G = ngroups, N = d_state, k = d_conv, Q = chunk_size,
// per layer:
//   RMSNorm; in_proj d -> 2 D + 2 G N + H in one matmul ([z, x, B, C, dt], no bias); causal depthwise
//   conv1d of k taps (bias) over the D + 2 G N channels of x, B and C; SiLU on them; the SSD scan
//   (engine/operators.hpp ssd_scan: A_log, D and dt_bias, H each); gated RMSNorm y x SiLU(z), normed
//   per group of D / G channels (RMSNormGated, norm_before_gate False: 5 + 4 FLOP per element,
//   weight D); out_proj D -> d (no bias); residual add.
// Then a final RMSNorm and the LM head (tied to the token table in the released models).
// Parameters per layer: d (2 D + 2 G N + H) + (D + 2 G N)(k + 1) + 3 H + D + D d + d.
// state-spaces/mamba2-2.7b (config.json on the Hugging Face hub: d_model 2560, n_layer 64, vocab
// 50277 padded to a multiple of 16 = 50288, tied; Mamba2's defaults d_state 128, d_conv 4, expand 2,
// headdim 64, ngroups 1, chunk_size 256): 40,216,560 per layer, 2,702,599,680 in all; mamba2-130m
// (d_model 768, 24 layers): 128,989,632.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

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

enum Mamba2Param : std::size_t {
  m_layers, m_d_model, m_d_state, m_expand, m_d_conv, m_head_dim, m_groups, m_chunk, m_vocab, m_seq_len, m_tied,
  m_count
};

constexpr std::array<ArchParamSpec, m_count> kMamba2Params = {{
    {.name = "layers", .description = "Mamba-2 blocks (mamba2-2.7b 64)"},
    {.name = "d_model", .description = "hidden size (mamba2-2.7b 2560)"},
    {.name = "d_state", .description = "SSM state size N per head channel", .has_default = true,
     .default_value = 128},
    {.name = "expand", .description = "expansion E: the scan runs on E x d_model channels", .has_default = true,
     .default_value = 2},
    {.name = "d_conv", .description = "taps of the causal depthwise conv1d", .has_default = true, .default_value = 4},
    {.name = "head_dim", .description = "channels P per SSM head; heads = expand x d_model / P", .has_default = true,
     .default_value = 64},
    {.name = "ngroups", .description = "groups G sharing B and C (and the gated norm's groups)", .has_default = true,
     .default_value = 1},
    {.name = "chunk_size", .description = "SSD chunk length Q: quadratic inside a chunk, states between",
     .has_default = true, .default_value = 256},
    {.name = "vocab", .description = "vocabulary rows (padded as in the checkpoint)"},
    {.name = "seq_len", .description = "tokens per sample: one sequence processed in one forward pass"},
    {.name = "tied_embeddings", .description = "1 = the LM head reuses the token table (released Mamba-2 models)",
     .has_default = true, .default_value = 1},
}};

constexpr std::string_view kMamba2 = "mamba2";

ModelGraph build_mamba2(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kMamba2Params;
  check_arity(kMamba2, values, m_count);
  const auto layers = count_param(kMamba2, specs, values, m_layers, 1, 1e5);
  const auto d_model = count_param(kMamba2, specs, values, m_d_model, 1, 1e6);
  const auto d_state = count_param(kMamba2, specs, values, m_d_state, 1, 1e5);
  const auto expand = count_param(kMamba2, specs, values, m_expand, 1, 1e3);
  const auto d_conv = count_param(kMamba2, specs, values, m_d_conv, 1, 1e3);
  const auto head_dim = count_param(kMamba2, specs, values, m_head_dim, 1, 1e6);
  const auto groups = count_param(kMamba2, specs, values, m_groups, 1, 1e6);
  const auto chunk = count_param(kMamba2, specs, values, m_chunk, 1, 1e8);
  const auto vocab = count_param(kMamba2, specs, values, m_vocab, 1, 1e9);
  const auto seq_len = count_param(kMamba2, specs, values, m_seq_len, 1, 1e8);
  const bool tied = flag_param(kMamba2, specs, values, m_tied);
  const auto inner = expand * d_model;
  if (inner % head_dim != 0) {
    fail(kMamba2, "head_dim (" + std::to_string(head_dim) + ") must divide expand x d_model (" +
                      std::to_string(inner) + ")");
  }
  const auto heads = inner / head_dim;
  if (heads % groups != 0) {
    fail(kMamba2, "ngroups (" + std::to_string(groups) + ") must divide the heads (" + std::to_string(heads) + ")");
  }

  ModelGraph g;
  g.sample_unit = "sequence";
  const double d = static_cast<double>(d_model), T = static_cast<double>(seq_len), V = static_cast<double>(vocab);
  const builders::Mamba2MixerSpec mixer{.T = T,
                                        .d = d,
                                        .D = static_cast<double>(inner),
                                        .N = static_cast<double>(d_state),
                                        .H = static_cast<double>(heads),
                                        .P = static_cast<double>(head_dim),
                                        .G = static_cast<double>(groups),
                                        .k = static_cast<double>(d_conv),
                                        .Q = static_cast<double>(chunk)};
  const auto r = as_repeat(layers);
  auto& ops = g.ops;

  ops.push_back(make_op("token_embedding", OpKind::embedding, 0, T * d, T * d, 0, 1));
  ops.push_back(make_op("rmsnorm", OpKind::normalization, 4 * T * d, T * d, T * d, d, r));
  const double per_layer = d + builders::append_mamba2_mixer(ops, mixer, r);
  ops.push_back(make_op("residual_add", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
  ops.push_back(make_op("rmsnorm_final", OpKind::normalization, 4 * T * d, T * d, T * d, d, 1));
  ops.push_back(make_op("lm_head", OpKind::matmul, 2 * T * d * V, T * d, T * V, V * d, 1));

  g.parameter_count = V * d + static_cast<double>(layers) * per_layer + d + (tied ? 0 : V * d);
  return g;
}

}  // namespace

Architecture mamba2_architecture() {
  return {.name = kMamba2,
          .description = "Mamba-2 state-space-dual language model (mamba2-130m ... 2.7b): SSD scan, no attention, no MLP",
          .sample_unit = "sequence",
          .params = kMamba2Params,
          .build = &build_mamba2};
}

}  // namespace dsx
