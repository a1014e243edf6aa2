#include "engine/serving.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "engine/collectives.hpp"
#include "engine/gemm_waves.hpp"

namespace dsx {

namespace {
bool is_attention_family(const Op& op) { return std::string_view(op.name).starts_with("attention_"); }

// A matmul op reads rows x k, writes rows x n and costs 2 rows k n; its weights hold `copies` n x k
// matrices (and their biases).
void add_gemm(const Op& op, double T, double d_model, ServingShape& s) {
  if (op.kind != OpKind::matmul || op.flops_per_sample <= 0) return;
  const double rows = op.input_elements_per_sample * op.output_elements_per_sample / (op.flops_per_sample / 2);
  ServingGemm g;
  g.k = op.input_elements_per_sample / rows;
  g.n = op.output_elements_per_sample / rows;
  g.rows_per_token = rows / T;
  g.copies = std::max(1.0, std::round(op.weight_elements / (g.k * g.n)));
  g.routed = std::string_view(op.name).starts_with("expert_");
  g.row_parallel = g.n == d_model;
  g.count = op.repeat;
  if (!g.routed) s.unrouted_gemm_flops_per_token += op.flops_per_sample * op.repeat / T;
  for (ServingGemm& e : s.gemms) {
    if (e.n == g.n && e.k == g.k && e.rows_per_token == g.rows_per_token && e.copies == g.copies &&
        e.routed == g.routed && e.row_parallel == g.row_parallel) {
      e.count += g.count;
      return;
    }
  }
  s.gemms.push_back(g);
}
}  // namespace

bool derive_serving_shape(const ModelGraph& graph, ServingShape& shape) {
  const Op* qkv = nullptr;
  const Op* kv_down = nullptr;
  const Op* kv_up = nullptr;
  const Op* scores = nullptr;
  const Op* context = nullptr;
  const Op* router = nullptr;
  const Op* norm = nullptr;  // the first block's pre-attention norm: its weights give d_model
  const Op* windowed_scores = nullptr;
  const Op* windowed_context = nullptr;
  double windowed_layers = 0;
  double windowed_attention_flops = 0;
  double window = 0;
  bool in_window = false;  // the attention-family ops since the last attention_scores are windowed
  const Op* first_expert_matmul = nullptr;
  double layers = 0;  // attention layers
  double recurrent_layers = 0;
  double state_elements = 0;                  // Op::state_elements x repeat: the scans' and ssm_conv1d's
  double scan_flops = 0, scan_elements = 0;   // the scans' FLOPs and input + output elements x repeat
  const Op* in_proj = nullptr;                // the first ssm_in_proj: T d in, 2 T D out, 2 d D weights
  const Op* scan = nullptr;                   // the first selective_scan or ssd_scan: T D out, D N state
  const Op* x_proj = nullptr;                 // the first ssm_x_proj: T (R + 2 N) out
  double feed_forward_layers = 0;
  double latent_elements = 0;  // MLA: sum over blocks of (r_kv + dr) T x repeat
  double moe_layers = 0;
  double expert_weights = 0;
  double attention_flops = 0;
  double linear_flops = 0;
  double linear_elements = 0;
  double weights_read = 0;
  double adapter_in_out = 0;
  double adapter_in_out_rows = 0;  // per sample: summed over the rows each matrix multiplies
  double replicated_elementwise = 0;
  double split_elementwise = 0;
  double linear_inputs = 0;
  double linear_outputs = 0;
  double logits = 0;
  double lm_head_weights = 0;
  double linear_weights = 0;
  bool causal = false;
  std::vector<std::uint8_t> layer_kinds;
  double attention_mixer_weights = 0, recurrent_mixer_weights = 0, dense_feed_forward_weights = 0;
  // The layers of the current run of ops sharing one repeat count, from run_start on: the run
  // executes that many times in a row.
  std::size_t run_start = 0;
  double run_repeat = 1;
  const auto close_run = [&] {
    const std::size_t run_layers = layer_kinds.size() - run_start;
    for (double i = 1; i < run_repeat; ++i) {
      for (std::size_t l = 0; l < run_layers; ++l) layer_kinds.push_back(layer_kinds[run_start + l]);
    }
    run_start = layer_kinds.size();
  };
  for (const Op& op : graph.ops) {
    const double r = op.repeat;
    if (r != run_repeat) {
      close_run();
      run_repeat = r;
    }
    const std::string_view name(op.name);
    if (op.kind == OpKind::attention && name == "attention_scores") layer_kinds.push_back(kLayerAttention);
    if (op.kind == OpKind::selective_scan || op.kind == OpKind::ssd_scan) layer_kinds.push_back(0);
    if (op.kind == OpKind::matmul && name == "moe_router" && !layer_kinds.empty()) layer_kinds.back() |= kLayerMoe;
    if (op.kind == OpKind::matmul && (name == "moe_router" || name == "mlp_gate_proj" || name == "mlp_fc1") &&
        !layer_kinds.empty()) {
      layer_kinds.back() |= kLayerFeedForward;
    }
    if (name == "qkv_proj" || name == "out_proj" || name.starts_with("mla_")) {
      attention_mixer_weights += op.weight_elements * r;
    } else if (name.starts_with("ssm_") || op.kind == OpKind::selective_scan || op.kind == OpKind::ssd_scan) {
      recurrent_mixer_weights += op.weight_elements * r;
    } else if (name.starts_with("mlp_")) {
      dense_feed_forward_weights += op.weight_elements * r;
    }
    weights_read += op.weight_elements * r;
    if (op.kind == OpKind::matmul && op.name == "moe_router") {
      if (router == nullptr) router = &op;
      moe_layers += r;
    }
    if (op.kind == OpKind::matmul && (op.name == "moe_router" || op.name == "mlp_gate_proj" || op.name == "mlp_fc1")) {
      feed_forward_layers += r;
    }
    if (op.kind == OpKind::matmul && op.name == "ssm_x_proj" && x_proj == nullptr) x_proj = &op;
    if (std::string_view(op.name).starts_with("expert_")) {
      expert_weights += op.weight_elements * r;
      if (op.kind == OpKind::matmul && first_expert_matmul == nullptr) first_expert_matmul = &op;
    }
    if (op.kind == OpKind::normalization && norm == nullptr &&
        (op.name == "rmsnorm_attn" || op.name == "layernorm_attn")) {
      norm = &op;
    }
    if (op.name == "attention_mask") causal = true;
    if (op.kind == OpKind::selective_scan || op.kind == OpKind::ssd_scan) {
      if (scan == nullptr) scan = &op;
      recurrent_layers += r;
      scan_flops += op.flops_per_sample * r;
      scan_elements += (op.input_elements_per_sample + op.output_elements_per_sample) * r;
    }
    state_elements += op.state_elements * r;
    if (op.kind == OpKind::matmul) {
      if (op.name == "lm_head") {
        logits += op.output_elements_per_sample * r;
        lm_head_weights += op.weight_elements * r;
      } else if (op.name != "moe_router") {
        linear_inputs += op.input_elements_per_sample * r;
        linear_outputs += op.output_elements_per_sample * r;
        linear_weights += op.weight_elements * r;
      }
    } else if (!is_attention_family(op)) {
      const bool d_wide = op.kind == OpKind::normalization || std::string_view(op.name).starts_with("residual_add");
      (d_wide ? replicated_elementwise : split_elementwise) +=
          (op.input_elements_per_sample + op.output_elements_per_sample) * r;
    }
    if (op.kind != OpKind::matmul && is_attention_family(op)) {
      if (op.kind == OpKind::attention && op.name == "attention_scores") {
        in_window = op.attention_window > 0;
        if (in_window) {
          if (windowed_scores == nullptr) windowed_scores = &op;
          window = op.attention_window;
          windowed_layers += r;
        } else if (scores == nullptr) {
          scores = &op;
        }
        layers += r;
      }
      if (op.kind == OpKind::attention && op.name == "attention_context") {
        if (in_window && windowed_context == nullptr) windowed_context = &op;
        if (!in_window && context == nullptr) context = &op;
      }
      (in_window ? windowed_attention_flops : attention_flops) += op.flops_per_sample * r;
    } else {
      if (op.kind == OpKind::matmul && op.name == "qkv_proj" && qkv == nullptr) qkv = &op;
      if (op.kind == OpKind::matmul && op.name == "ssm_in_proj" && in_proj == nullptr) in_proj = &op;
      if (op.kind == OpKind::matmul && op.name == "mla_kv_down_proj") {
        if (kv_down == nullptr) kv_down = &op;
        latent_elements += op.output_elements_per_sample * r;
      }
      if (op.kind == OpKind::matmul && op.name == "mla_kv_up_proj" && kv_up == nullptr) kv_up = &op;
      linear_flops += op.flops_per_sample * r;
      linear_elements += (op.input_elements_per_sample + op.output_elements_per_sample) * r;
      if (op.kind == OpKind::matmul && op.weight_elements > 0 && op.flops_per_sample > 0 && op.name != "moe_router" &&
          op.name != "lm_head") {
        // A matmul of `rows` rows: in = rows d_in, out = rows d_out, flops = 2 rows d_in d_out.
        const double rows = op.input_elements_per_sample * op.output_elements_per_sample / (op.flops_per_sample / 2);
        const double d_in = op.input_elements_per_sample / rows, d_out = op.output_elements_per_sample / rows;
        const double copies = std::max(1.0, std::floor(op.weight_elements / (d_in * d_out)));
        const double in_out = (op.name == "qkv_proj" ? 3 * d_in : d_in) + d_out;
        adapter_in_out += in_out * copies * r;
        adapter_in_out_rows += in_out * rows * r;
      }
    }
  }
  // A model whose every layer attends in a window describes its attention by those ops.
  const bool all_windowed = scores == nullptr;
  if (all_windowed) {
    scores = windowed_scores;
    context = windowed_context;
  }
  close_run();
  const bool attention_free = scores == nullptr && context == nullptr && recurrent_layers > 0;
  if (!attention_free && (scores == nullptr || context == nullptr || scores->output_elements_per_sample <= 0)) {
    return false;
  }
  ServingShape s;
  s.layers = layers + recurrent_layers;
  s.attention_layers = layers;
  s.recurrent_layers = recurrent_layers;
  if (attention_free) {
    // ssm_in_proj reads T x d, writes T x W and holds d W weights (W = 2 D for Mamba-1, 2 D + 2 G N + H
    // for Mamba-2): d^2 = weights x in / out.
    if (in_proj == nullptr || scan == nullptr || in_proj->output_elements_per_sample <= 0) return false;
    s.d_model = std::sqrt(in_proj->weight_elements * in_proj->input_elements_per_sample /
                          in_proj->output_elements_per_sample);
    s.built_seq_len = in_proj->input_elements_per_sample / s.d_model;
  } else if (kv_down != nullptr && kv_up != nullptr) {
    // attention_scores costs 2 T^2 H dqk, reads q and the up-projected k (2 T H dqk), writes H T^2.
    const double dqk = scores->flops_per_sample / (2 * scores->output_elements_per_sample);
    const double T = scores->output_elements_per_sample * 2 * dqk / scores->input_elements_per_sample;
    s.built_seq_len = T;
    s.d_model = kv_down->input_elements_per_sample / T;
    s.heads = scores->output_elements_per_sample / (T * T);
    s.head_dim = dqk;
    s.kv_heads = 1;
    s.latent_attention = true;
    s.kv_elements_per_token = latent_elements / T;
    const double latent_rank = kv_up->input_elements_per_sample / T;
    const double rope_dim = kv_down->output_elements_per_sample / T - latent_rank;
    const double dv = context->flops_per_sample / (2 * T * T * s.heads);
    // Absorbed decode: QK^T over r_kv + dr instead of dqk, AV over r_kv instead of dv, per head.
    s.decode_attention_flops_per_query_key =
        attention_flops / (T * T) + layers * 2 * s.heads * ((latent_rank + rope_dim - dqk) + (latent_rank - dv));
  } else {
    if (qkv == nullptr || qkv->input_elements_per_sample <= 0) return false;
    const double t_times_d = qkv->input_elements_per_sample;
    if (norm != nullptr && norm->input_elements_per_sample > 0) {
      // The pre-attention norm's weights give d (RMSNorm d, LayerNorm 2 d, told apart by their 4 or 8
      // FLOPs per element), and qkv_proj reads T x d. (The score ops give T only when head_dim is
      // d / H and no window bounds the keys.)
      const bool layernorm = norm->flops_per_sample / norm->input_elements_per_sample > 6;
      s.built_seq_len = t_times_d / (norm->weight_elements / (layernorm ? 2 : 1));
    } else if (window == 0) {
      // qkv_proj reads T x d and writes T x (d + 2 d_kv); attention_scores costs 2 T^2 d and writes H T^2.
      s.built_seq_len = scores->flops_per_sample / (2 * t_times_d);
    } else {
      return false;
    }
    const double T = s.built_seq_len;
    s.d_model = t_times_d / T;
    // attention_context writes T x H x head_dim; attention_scores costs 2 x head_dim per score it
    // writes (head_dim = d / H unless the model sets its own, as Gemma 2 and PaLM do).
    const double keys = all_windowed ? std::min(T, window) : T;
    s.head_dim = scores->flops_per_sample / (2 * scores->output_elements_per_sample);
    s.heads = scores->output_elements_per_sample / (T * keys);
    const double d_kv = (qkv->output_elements_per_sample / T - s.heads * s.head_dim) / 2;
    s.kv_heads = d_kv / s.head_dim;
    s.kv_elements_per_token = 2 * s.attention_layers * d_kv;
    s.decode_attention_flops_per_query_key = attention_flops / (T * T);
    if (window > 0) {
      s.attention_window = window;
      s.windowed_layers = windowed_layers;
      s.windowed_kv_elements_per_token = 2 * windowed_layers * d_kv;
      s.windowed_attention_flops_per_query_key = windowed_attention_flops / (T * std::min(T, window));
    }
  }
  const double T = s.built_seq_len;
  if (recurrent_layers > 0) {
    s.recurrent_state_elements = state_elements;
    s.recurrent_channels = scan->output_elements_per_sample / T;
    s.recurrent_state_size = scan->state_elements / s.recurrent_channels;
    s.recurrent_x_proj_width = x_proj != nullptr ? x_proj->output_elements_per_sample / T : 0;
    s.scan_flops_per_token = scan_flops / T;
    s.scan_elements_per_token = scan_elements / T;
    s.scan_on_vector_units = runs_on_vector_units(scan->kind);
    if (scan->kind == OpKind::ssd_scan) {
      // ssd_scan reads x (T D), dt (T H), B and C (2 T G N) and more; its weights are A_log, D and dt_bias.
      s.recurrent_heads = scan->weight_elements / 3;
      s.ssd_layers = recurrent_layers;
      if (in_proj != nullptr && s.recurrent_state_size > 0) {
        const double width = in_proj->output_elements_per_sample / T;
        s.recurrent_groups = (width - 2 * s.recurrent_channels - s.recurrent_heads) / (2 * s.recurrent_state_size);
      }
    }
  }
  if (attention_free) {
    s.attention_width = 0;
  } else if (window == 0 && recurrent_layers == 0) {
    s.attention_width = (scores->flops_per_sample + context->flops_per_sample) / (4 * T * T);
  } else {
    // The mean over layers at the built T, so that 4 x layers x T^2 x width is the graph's QK^T + AV
    // (a hybrid's Mamba layers count as layers without attention).
    double attention_matmul_flops = 0;
    for (const Op& op : graph.ops) {
      if (op.kind == OpKind::attention) attention_matmul_flops += op.flops_per_sample * op.repeat;
    }
    s.attention_width = attention_matmul_flops / (4 * T * T * s.layers);
  }
  s.parameter_count = graph.parameter_count > 0 ? graph.parameter_count : weights_read;
  s.weight_elements_read = weights_read;
  s.attention_flops_per_query_key = attention_flops / (T * T);
  s.linear_flops_per_token = linear_flops / T;
  s.linear_activation_elements_per_token = linear_elements / T;
  s.replicated_elementwise_elements_per_token = replicated_elementwise / T;
  s.split_elementwise_elements_per_token = split_elementwise / T;
  s.linear_input_elements_per_token = linear_inputs / T;
  s.linear_output_elements_per_token = linear_outputs / T;
  s.logits_per_token = logits / T;
  s.lm_head_weight_elements = lm_head_weights;
  s.linear_weight_elements = linear_weights;
  s.causal = causal;
  s.feed_forward_layers = feed_forward_layers;
  s.active_parameter_count = s.parameter_count;
  s.adapter_in_out_elements = adapter_in_out;
  s.active_adapter_in_out_elements = adapter_in_out_rows / T;
  s.layer_kinds = std::move(layer_kinds);
  s.attention_mixer_weight_elements = attention_mixer_weights;
  s.recurrent_mixer_weight_elements = recurrent_mixer_weights;
  s.dense_feed_forward_weight_elements = dense_feed_forward_weights;
  if (router != nullptr && first_expert_matmul != nullptr) {
    // moe_router writes T x E logits; the first expert matmul reads k x T token rows of d.
    s.experts = router->output_elements_per_sample / T;
    s.experts_per_token = first_expert_matmul->input_elements_per_sample / (T * s.d_model);
    s.expert_weight_elements = expert_weights;
    s.active_parameter_count = s.parameter_count - expert_weights * (1 - s.experts_per_token / s.experts);
    s.moe_layers = moe_layers;
  }
  for (const Op& op : graph.ops) add_gemm(op, T, s.d_model, s);
  shape = s;
  return true;
}

double weight_elements_read_for_tokens(const ServingShape& s, double tokens) {
  if (s.experts <= 0) return s.weight_elements_read;
  const double experts_touched_share = 1 - std::pow(1 - s.experts_per_token / s.experts, tokens);
  return s.weight_elements_read - s.expert_weight_elements * (1 - experts_touched_share);
}

double grouped_weight_bytes(double weight_bytes, double group_weights, double zero_point_bytes) {
  constexpr double kScaleBytes = 2;
  return group_weights > 0 ? weight_bytes + (kScaleBytes + zero_point_bytes) / group_weights : weight_bytes;
}

double kv_cache_bytes_per_token(const ServingShape& s, double kv_bytes_per_element) {
  return s.kv_elements_per_token * kv_bytes_per_element;
}

double kv_cache_bytes(const ServingShape& s, double tokens, double kv_bytes_per_element) {
  if (s.attention_window <= 0) return tokens * kv_cache_bytes_per_token(s, kv_bytes_per_element);
  const double full = s.kv_elements_per_token - s.windowed_kv_elements_per_token;
  return (full * tokens + s.windowed_kv_elements_per_token * std::min(tokens, s.attention_window)) *
         kv_bytes_per_element;
}

double tp_all_reduces_per_pass(const ServingShape& s) {
  if (s.feed_forward_layers == 0) return 2 * s.layers - s.ssd_layers;
  return s.layers + s.feed_forward_layers;
}

bool recurrent_tp_divides(const ServingShape& s, double tp) {
  if (s.recurrent_layers <= 0) return true;
  if (std::fmod(s.recurrent_channels, tp) != 0) return false;
  return s.ssd_layers <= 0 || std::fmod(s.recurrent_groups, tp) == 0;
}

double recurrent_state_bytes(const ServingShape& s, double bytes_per_element) {
  return s.recurrent_state_elements * bytes_per_element;
}

double sequence_cache_bytes(const ServingShape& s, double tokens, double kv_bytes_per_element) {
  return kv_cache_bytes(s, tokens, kv_bytes_per_element) + recurrent_state_bytes(s, kv_bytes_per_element);
}

double prefill_flops(const ServingShape& s, double prompt_tokens) {
  const double flops =
      s.linear_flops_per_token * prompt_tokens + s.attention_flops_per_query_key * prompt_tokens * prompt_tokens;
  if (s.attention_window <= 0) return flops;
  return flops + s.windowed_attention_flops_per_query_key * prompt_tokens * std::min(prompt_tokens, s.attention_window);
}

double decode_flops_per_token(const ServingShape& s, double context_tokens) {
  const double flops = s.linear_flops_per_token + s.decode_attention_flops_per_query_key * context_tokens;
  if (s.attention_window <= 0) return flops;
  return flops + s.windowed_attention_flops_per_query_key * std::min(context_tokens, s.attention_window);
}

double ring_allreduce_s(double bytes, double ranks, double link_bytes_per_s, double alpha_s) {
  if (ranks <= 1) return 0.0;
  return 2 * (ranks - 1) / ranks * bytes / link_bytes_per_s + 2 * (ranks - 1) * alpha_s;
}

double kv_share_per_gpu(const ServingShape& s, double tp) {
  return s.kv_heads > 0 ? 1.0 / std::min(tp, s.kv_heads) : 1.0 / tp;
}

double expert_flops_per_token(const ServingShape& s) {
  if (s.experts <= 0) return 0.0;
  return 2 * s.expert_weight_elements * s.experts_per_token / s.experts;
}

double sequences_per_group(double sequences, double ep) { return ep > 1 ? std::ceil(sequences / ep) : sequences; }

double weight_elements_per_gpu(const ServingShape& s, double tp, double ep) {
  return (s.parameter_count - s.expert_weight_elements) / tp + s.expert_weight_elements / (tp * ep);
}

double expert_all_to_all_s(const ServingShape& s, const ServingDevice& d, double group_tokens) {
  if (d.ep <= 1) return 0.0;
  const double bytes_per_rank = group_tokens * s.experts_per_token * s.d_model * d.activation_bytes_per_element / d.tp;
  if (d.ep_torus.count > 0) return 2 * s.moe_layers * torus_all_to_all_s(bytes_per_rank, d.ep_torus, d.link_latency_s);
  return 2 * s.moe_layers * all_to_all_s(bytes_per_rank, d.ep, d.link_bytes_per_s, d.link_latency_s);
}

namespace {
double tp_communication_s(const ServingShape& s, const ServingDevice& d, double tokens) {
  const double bytes = tokens * s.d_model * d.activation_bytes_per_element;
  const double calls = tp_all_reduces_per_pass(s);
  if (d.tp_torus.count > 0) return calls * torus_all_reduce_s(bytes, d.tp_torus, d.link_latency_s);
  return calls * ring_allreduce_s(bytes, d.tp, d.link_bytes_per_s, d.link_latency_s);
}

// What one forward pass costs before the roofline: the busiest expert-parallel group runs attention
// and the non-expert layers for its tokens; the experts' FLOPs and weight reads of all the replica's
// tokens are spread over tp x ep GPUs.
struct ForwardWork {
  double tokens = 0;          // all the replica's tokens
  double group_tokens = 0;    // the busiest group's
  double group_flops = 0;     // the busiest group's FLOPs outside the routed experts
  double expert_flops = 0;    // all tokens' routed-expert FLOPs
  double group_kv_bytes = 0;  // KV the busiest group reads and writes, before the TP split
};

struct ForwardCompute {
  double compute_s = 0;
  double reduction_bytes = 0;  // split-K partial sums
};

// Without compute units, every FLOP at peak x eta. With them, each GEMM shape at its tiles and waves
// (engine/gemm_waves.hpp) on this GPU's share: column-parallel layers split N by tp, row-parallel
// ones K; the routed experts' rows spread over the experts all the replica's tokens touch
// (weight_elements_read_for_tokens' expectation), those experts sharded over ep; the other FLOPs
// (attention, scans, norms) at peak x eta.
ForwardCompute forward_compute(const ServingShape& s, const ServingDevice& d, const ForwardWork& w, double eta) {
  const double rate = d.peak_flops_per_s * eta;
  // Every token of the group passes the scans of all Mamba layers (their FLOPs are in group_flops), at
  // the scan's own rate.
  const double scan_flops = d.scan_peak_flops_per_s > 0 ? w.group_tokens * s.scan_flops_per_token : 0.0;
  const double scan_s = scan_flops > 0 ? scan_flops / d.tp / (d.scan_peak_flops_per_s * eta) : 0.0;
  if (d.compute_units <= 0 || s.gemms.empty()) {
    return {(w.group_flops - scan_flops + w.expert_flops / d.ep) / d.tp / rate + scan_s, 0};
  }
  ForwardCompute c;
  c.compute_s =
      std::max(0.0, w.group_flops - scan_flops - w.group_tokens * s.unrouted_gemm_flops_per_token) / d.tp / rate +
      scan_s;
  for (const ServingGemm& g : s.gemms) {
    const double tokens = g.routed ? w.tokens : w.group_tokens;
    if (tokens <= 0) continue;
    double copies = g.copies;
    double m = tokens;
    if (g.routed) {
      copies *= 1 - std::pow(1 - g.rows_per_token / g.copies, tokens);
      m = tokens * g.rows_per_token / copies;
      copies /= d.ep;
    } else if (g.rows_per_token != g.copies) {
      m = tokens * g.rows_per_token / g.copies;
    }
    const double n = g.row_parallel ? g.n : g.n / d.tp;
    const double k = g.row_parallel ? g.k / d.tp : g.k;
    const double stream_bytes =
        copies * (n * k * d.weight_bytes_per_element + m * (k + n) * d.activation_bytes_per_element);
    const GemmWaves t = gemm_waves(m, n, k, copies, d.compute_units, rate, stream_bytes, d.memory_bandwidth_bytes_per_s);
    c.compute_s += g.count * t.compute_s;
    c.reduction_bytes += g.count * t.reduction_bytes;
  }
  return c;
}

PhaseTime forward_time(const ServingShape& s, const ServingDevice& d, const ForwardWork& w, double eta) {
  const double expert_read =
      s.expert_weight_elements - (s.weight_elements_read - weight_elements_read_for_tokens(s, w.tokens));
  const double weight_elements = (s.weight_elements_read - s.expert_weight_elements) / d.tp + expert_read / (d.tp * d.ep);
  const double bytes = weight_elements * d.weight_bytes_per_element +
                       w.group_tokens * s.linear_activation_elements_per_token * d.activation_bytes_per_element / d.tp +
                       w.group_kv_bytes * kv_share_per_gpu(s, d.tp);
  const ForwardCompute compute = forward_compute(s, d, w, eta);
  PhaseTime t;
  t.compute_s = compute.compute_s;
  t.memory_s = (bytes + compute.reduction_bytes) / d.memory_bandwidth_bytes_per_s;
  t.expert_all_to_all_s = expert_all_to_all_s(s, d, w.group_tokens);
  t.communication_s = tp_communication_s(s, d, w.group_tokens) + t.expert_all_to_all_s;
  return t;
}

// `sequences` alike, `tokens_per_sequence` new tokens each.
ForwardWork uniform_work(const ServingShape& s, const ServingDevice& d, double sequences, double tokens_per_sequence,
                         double flops_per_sequence, double kv_bytes_per_sequence) {
  const double group_sequences = sequences_per_group(sequences, d.ep);
  const double expert_flops = tokens_per_sequence * expert_flops_per_token(s);
  ForwardWork w;
  w.tokens = sequences * tokens_per_sequence;
  w.group_tokens = group_sequences * tokens_per_sequence;
  w.group_flops = group_sequences * (flops_per_sequence - expert_flops);
  w.expert_flops = sequences * expert_flops;
  w.group_kv_bytes = group_sequences * kv_bytes_per_sequence;
  return w;
}
}  // namespace

PhaseTime prefill_time(const ServingShape& s, const ServingDevice& d, double prompt_tokens, double sequences,
                       double eta) {
  return prefill_after_prefix_time(s, d, prompt_tokens, 0, sequences, eta);
}

double prefill_flops_after_prefix(const ServingShape& s, double new_tokens, double context_tokens) {
  const double flops =
      s.linear_flops_per_token * new_tokens + s.attention_flops_per_query_key * new_tokens * context_tokens;
  if (s.attention_window <= 0) return flops;
  return flops + s.windowed_attention_flops_per_query_key * new_tokens * std::min(context_tokens, s.attention_window);
}

double causal_skipped_prefill_flops(const ServingShape& s, double new_tokens) {
  return s.causal ? s.attention_flops_per_query_key * new_tokens * new_tokens / 2 : 0.0;
}

PhaseTime prefill_after_prefix_time(const ServingShape& s, const ServingDevice& d, double new_tokens,
                                    double cached_tokens, double sequences, double eta) {
  const double context = cached_tokens + new_tokens;
  const double flops = prefill_flops_after_prefix(s, new_tokens, context) - causal_skipped_prefill_flops(s, new_tokens);
  const ForwardWork w = uniform_work(s, d, sequences, new_tokens, flops,
                                     sequence_cache_bytes(s, context, d.kv_bytes_per_element));
  return forward_time(s, d, w, eta);
}

PhaseTime decode_step_time(const ServingShape& s, const ServingDevice& d, double batch, double context_tokens,
                           double eta) {
  return verify_step_time(s, d, batch, context_tokens, 1, eta);
}

PhaseTime verify_step_time(const ServingShape& s, const ServingDevice& d, double batch, double context_tokens,
                           double tokens_per_sequence, double eta) {
  const ForwardWork w =
      uniform_work(s, d, batch, tokens_per_sequence, tokens_per_sequence * decode_flops_per_token(s, context_tokens),
                   sequence_cache_bytes(s, context_tokens, d.kv_bytes_per_element));
  return forward_time(s, d, w, eta);
}

PhaseTime hybrid_step_time(const ServingShape& s, const ServingDevice& d, double batch, double decode_context,
                           double chunk_tokens, double chunk_keys, double chunk_kv_tokens, double eta_decode,
                           double eta_prefill) {
  const ForwardWork decode = uniform_work(s, d, batch, 1, decode_flops_per_token(s, decode_context),
                                          sequence_cache_bytes(s, decode_context, d.kv_bytes_per_element));
  const ForwardWork chunk = uniform_work(s, d, 1, chunk_tokens, prefill_flops_after_prefix(s, chunk_tokens, chunk_keys),
                                         sequence_cache_bytes(s, chunk_kv_tokens, d.kv_bytes_per_element));
  ForwardWork both;
  both.tokens = decode.tokens + chunk.tokens;
  both.group_tokens = decode.group_tokens + chunk.group_tokens;
  both.group_flops = decode.group_flops + chunk.group_flops;
  both.expert_flops = decode.expert_flops + chunk.expert_flops;
  both.group_kv_bytes = decode.group_kv_bytes + chunk.group_kv_bytes;
  PhaseTime t = forward_time(s, d, both, eta_decode);
  t.compute_s = forward_compute(s, d, decode, eta_decode).compute_s + forward_compute(s, d, chunk, eta_prefill).compute_s;
  return t;
}

double speculative_tokens_per_step(double acceptance_rate, double draft_tokens) {
  if (acceptance_rate >= 1) return draft_tokens + 1;
  return (1 - std::pow(acceptance_rate, draft_tokens + 1)) / (1 - acceptance_rate);
}

double paged_kv_waste_tokens(double block_tokens) { return block_tokens > 0 ? (block_tokens - 1) / 2 : 0.0; }

Preemption paged_preemption(double sequences, double mean_bytes, double swing_bytes, double output_tokens,
                            double freed_bytes, double capacity_bytes) {
  if (sequences <= 0 || swing_bytes <= 0 || sequences * (mean_bytes + swing_bytes / 2) <= capacity_bytes) return {};
  const double sd = swing_bytes * std::sqrt(sequences / 12.0);
  const double z = (capacity_bytes - sequences * mean_bytes) / sd;
  const double full = 0.5 * std::erfc(z / std::sqrt(2.0));
  const double step_bytes = sequences * swing_bytes / output_tokens;
  return {.full_probability = full,
          .sequences_per_step = full * step_bytes / freed_bytes,
          .evicted_bytes_per_full_step = std::ceil(step_bytes / freed_bytes) * freed_bytes};
}

double kv_admission_bytes(double capacity_bytes, double watermark) { return capacity_bytes * (1 - watermark); }

double static_batch_decode_steps(double mean_output_tokens, double batch) {
  return 2 * mean_output_tokens * batch / (batch + 1);
}

}  // namespace dsx
