#include "engine/model_builders_blocks.hpp"

#include <cstddef>

#include "engine/builder_support.hpp"
#include "engine/operators.hpp"

namespace dsx::builders {

double append_attention(std::vector<Op>& ops, const DecoderBlockSpec& s, std::uint32_t r, bool windowed,
                        bool sequential) {
  const double T = s.T, d = s.d, H = s.H, q_width = s.q_width, d_kv = s.d_kv, b = s.b, b_qkv = s.b_qkv;
  const double norm_flops = s.norm_flops, norm_weights = s.norm_weights;
  const OpKind norm_kind = OpKind::normalization;
  const std::string& norm_name = s.norm_name;
  const double qkv_out = q_width + 2 * d_kv;
  if (sequential) {
    ops.push_back(make_op(norm_name + "_attn", norm_kind, norm_flops * T * d, T * d, T * d, norm_weights, r));
  }
  auto residual = [&] {
    if (sequential) ops.push_back(make_op("residual_add_attn", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
  };
  if (!s.mla) {
    const double keys = windowed ? s.window_keys : T;
    const double scores = H * T * keys;  // attention score elements per sample
    const std::size_t first_attention_op = ops.size() + (s.rope ? 2 : 1);
    ops.push_back(make_op("qkv_proj", OpKind::matmul, 2 * T * d * qkv_out, T * d, T * qkv_out, d * qkv_out + b_qkv * qkv_out, r));
    if (s.rope) {
      // In place on the packed QKV buffer: q and k rotated, v passes through.
      ops.push_back(make_op("rotary_embedding", OpKind::elementwise, 3 * T * (q_width + d_kv), T * qkv_out, T * qkv_out, 0, r));
    }
    ops.push_back(make_op("attention_scores", OpKind::attention, 2 * T * keys * q_width, T * (q_width + d_kv), scores, 0, r));
    ops.push_back(make_op("attention_scale", OpKind::elementwise, scores, scores, scores, 0, r));
    ops.push_back(make_op("attention_mask", OpKind::elementwise, scores, scores, scores, 0, r));
    ops.push_back(make_op("attention_softmax", OpKind::reduction, 5 * scores, scores, scores, 0, r));
    ops.push_back(make_op("attention_context", OpKind::attention, 2 * T * keys * q_width, scores + T * d_kv, T * q_width, 0, r));
    if (windowed) {
      for (std::size_t i = first_attention_op; i < ops.size(); ++i) ops[i].attention_window = s.window;
    }
    ops.push_back(make_op("out_proj", OpKind::matmul, 2 * T * q_width * d, T * q_width, T * d, q_width * d + b * d, r));
    residual();
    return d * qkv_out + q_width * d + b_qkv * qkv_out + b * d;
  }
  const double rq = s.rq, rkv = s.rkv, dqk = s.dqk, dr = s.dr, dv = s.dv;
  const double scores = H * T * T;
  double p = 0;
  const double q_width_mla = H * dqk;
  if (rq > 0) {
    ops.push_back(make_op("mla_q_down_proj", OpKind::matmul, 2 * T * d * rq, T * d, T * rq, d * rq, r));
    ops.push_back(make_op("mla_q_norm", norm_kind, 4 * T * rq, T * rq, T * rq, rq, r));
    ops.push_back(make_op("mla_q_up_proj", OpKind::matmul, 2 * T * rq * q_width_mla, T * rq, T * q_width_mla, rq * q_width_mla, r));
    p += d * rq + rq + rq * q_width_mla;
  } else {
    ops.push_back(make_op("mla_q_proj", OpKind::matmul, 2 * T * d * q_width_mla, T * d, T * q_width_mla, d * q_width_mla, r));
    p += d * q_width_mla;
  }
  const double latent = rkv + dr;
  const double kv_width = H * (dqk - dr + dv);
  ops.push_back(make_op("mla_kv_down_proj", OpKind::matmul, 2 * T * d * latent, T * d, T * latent, d * latent, r));
  ops.push_back(make_op("mla_kv_norm", norm_kind, 4 * T * rkv, T * rkv, T * rkv, rkv, r));
  ops.push_back(make_op("mla_kv_up_proj", OpKind::matmul, 2 * T * rkv * kv_width, T * rkv, T * kv_width, rkv * kv_width, r));
  p += d * latent + rkv + rkv * kv_width;
  if (s.rope && dr > 0) {
    // The RoPE parts of the H queries and of the one shared key.
    const double rotated = T * (H * dr + dr);
    ops.push_back(make_op("rotary_embedding", OpKind::elementwise, 3 * rotated, rotated, rotated, 0, r));
  }
  ops.push_back(make_op("attention_scores", OpKind::attention, 2 * T * T * H * dqk, 2 * T * q_width_mla, scores, 0, r));
  ops.push_back(make_op("attention_scale", OpKind::elementwise, scores, scores, scores, 0, r));
  ops.push_back(make_op("attention_mask", OpKind::elementwise, scores, scores, scores, 0, r));
  ops.push_back(make_op("attention_softmax", OpKind::reduction, 5 * scores, scores, scores, 0, r));
  ops.push_back(make_op("attention_context", OpKind::attention, 2 * T * T * H * dv, scores + T * H * dv, T * H * dv, 0, r));
  ops.push_back(make_op("out_proj", OpKind::matmul, 2 * T * H * dv * d, T * H * dv, T * d, H * dv * d + b * d, r));
  residual();
  return p + H * dv * d + b * d;
}

double append_mlp(std::vector<Op>& ops, const DecoderBlockSpec& s, const std::string& prefix, double rows, double f,
                  double copies, std::uint32_t r) {
  const double d = s.d, b = s.b;
  if (s.gated) {
    ops.push_back(make_op(prefix + "gate_proj", OpKind::matmul, 2 * rows * d * f, rows * d, rows * f, copies * (d * f + b * f), r));
    ops.push_back(make_op(prefix + "silu", OpKind::elementwise, 4 * rows * f, rows * f, rows * f, 0, r));
    ops.push_back(make_op(prefix + "up_proj", OpKind::matmul, 2 * rows * d * f, rows * d, rows * f, copies * (d * f + b * f), r));
    ops.push_back(make_op(prefix + "gated_product", OpKind::elementwise, rows * f, 2 * rows * f, rows * f, 0, r));
    ops.push_back(make_op(prefix + "down_proj", OpKind::matmul, 2 * rows * f * d, rows * f, rows * d, copies * (f * d + b * d), r));
    return 3 * d * f + b * (2 * f + d);
  }
  ops.push_back(make_op(prefix + "fc1", OpKind::matmul, 2 * rows * d * f, rows * d, rows * f, copies * (d * f + b * f), r));
  ops.push_back(make_op(prefix + "gelu", OpKind::elementwise, 8 * rows * f, rows * f, rows * f, 0, r));
  ops.push_back(make_op(prefix + "fc2", OpKind::matmul, 2 * rows * f * d, rows * f, rows * d, copies * (f * d + b * d), r));
  return 2 * d * f + b * (f + d);
}

double append_feed_forward(std::vector<Op>& ops, const DecoderBlockSpec& s, bool moe, std::uint32_t r,
                           bool sequential, double& expert_params) {
  const double T = s.T, d = s.d;
  if (sequential) {
    ops.push_back(make_op(s.norm_name + "_mlp", OpKind::normalization, s.norm_flops * T * d, T * d, T * d, s.norm_weights, r));
  }
  double p = 0;
  if (moe) {
    const double E = s.experts;
    const double K = s.experts_per_token;
    const double S = s.shared_experts;
    // Router logits, softmax + top-k, then k x T token rows through the experts and a weighted sum;
    // a T-token forward touches every expert, so each expert op holds all E copies of its weights.
    ops.push_back(make_op("moe_router", OpKind::matmul, 2 * T * d * E, T * d, T * E, d * E, r));
    ops.push_back(make_op("moe_router_topk", OpKind::reduction, 5 * T * E, T * E, 2 * T * K, 0, r));
    expert_params = append_mlp(ops, s, "expert_", K * T, s.Fe, E, r);
    p += E * expert_params + d * E;
    if (S > 0) p += S * append_mlp(ops, s, "shared_expert_", S * T, s.Fe, S, r);
    ops.push_back(make_op("moe_combine", OpKind::elementwise, 2 * K * T * d + S * T * d, (K + S) * T * d + K * T, T * d, 0, r));
  } else {
    p += append_mlp(ops, s, "mlp_", T, s.F, 1, r);
  }
  if (sequential) ops.push_back(make_op("residual_add_mlp", OpKind::elementwise, T * d, 2 * T * d, T * d, 0, r));
  return p;
}

double append_mamba_mixer(std::vector<Op>& ops, const MambaMixerSpec& m, std::uint32_t r) {
  const double T = m.T, d = m.d, D = m.D, N = m.N, R = m.R, k = m.k;
  ops.push_back(make_op("ssm_in_proj", OpKind::matmul, 2 * T * d * 2 * D, T * d, 2 * T * D, 2 * d * D, r));
  ops.push_back(causal_conv1d("ssm_conv1d", T, D, k, r));
  ops.back().state_elements = D * k;  // conv_state (batch, d_inner, d_conv), mamba_simple.py allocate_inference_cache
  ops.push_back(make_op("ssm_silu", OpKind::elementwise, 4 * T * D, T * D, T * D, 0, r));
  ops.push_back(make_op("ssm_x_proj", OpKind::matmul, 2 * T * D * (R + 2 * N), T * D, T * (R + 2 * N),
                        D * (R + 2 * N), r));
  double norms = 0;
  if (m.dt_bc_norms) {
    ops.push_back(make_op("ssm_dt_norm", OpKind::normalization, 4 * T * R, T * R, T * R, R, r));
    ops.push_back(make_op("ssm_b_norm", OpKind::normalization, 4 * T * N, T * N, T * N, N, r));
    ops.push_back(make_op("ssm_c_norm", OpKind::normalization, 4 * T * N, T * N, T * N, N, r));
    norms = R + 2 * N;
  }
  ops.push_back(make_op("ssm_dt_proj", OpKind::matmul, 2 * T * R * D, T * R, T * D, R * D + D, r));
  ops.push_back(selective_scan("selective_scan", T, D, N, r));
  ops.push_back(make_op("ssm_gate", OpKind::elementwise, 5 * T * D, 2 * T * D, T * D, 0, r));
  ops.push_back(make_op("ssm_out_proj", OpKind::matmul, 2 * T * D * d, T * D, T * d, D * d, r));
  return 2 * d * D + (D * k + D) + D * (R + 2 * N) + norms + (R * D + D) + (D * N + D) + D * d;
}

double append_mamba2_mixer(std::vector<Op>& ops, const Mamba2MixerSpec& m, std::uint32_t r) {
  const double T = m.T, d = m.d, D = m.D, H = m.H, G = m.G, N = m.N, k = m.k;
  const double width = 2 * D + 2 * G * N + H;  // in_proj's [z, x, B, C, dt]
  const double conv_channels = D + 2 * G * N;  // x, B and C
  ops.push_back(make_op("ssm_in_proj", OpKind::matmul, 2 * T * d * width, T * d, T * width, d * width, r));
  ops.push_back(causal_conv1d("ssm_conv1d", T, conv_channels, k, r));
  ops.back().state_elements = conv_channels * k;  // Mamba2.allocate_inference_cache: conv_state (batch, conv_dim, d_conv)
  ops.push_back(make_op("ssm_silu", OpKind::elementwise, 4 * T * conv_channels, T * conv_channels, T * conv_channels, 0, r));
  ops.push_back(ssd_scan("ssd_scan", {.length = T, .heads = H, .head_dim = m.P, .groups = G, .state = N, .chunk = m.Q}, r));
  ops.push_back(make_op("ssm_gated_norm", OpKind::normalization, 9 * T * D, 2 * T * D, T * D, D, r));
  ops.push_back(make_op("ssm_out_proj", OpKind::matmul, 2 * T * D * d, T * D, T * d, D * d, r));
  return d * width + conv_channels * (k + 1) + 3 * H + D + D * d;
}

}  // namespace dsx::builders
