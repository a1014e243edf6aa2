#include "engine/training_memory.hpp"

#include <algorithm>
#include <cmath>

namespace dsx {

double weight_bytes_per_param(bool mixed_precision) { return mixed_precision ? 2.0 : 4.0; }

double optimizer_bytes_per_param(Optimizer optimizer, bool mixed_precision, double matrix_side) {
  const double master = mixed_precision ? 4.0 : 0.0;
  switch (optimizer) {
    case Optimizer::sgd: return master;
    case Optimizer::sgd_momentum: return master + 4.0;
    case Optimizer::adam: return master + 8.0;
    case Optimizer::adam_8bit: return master + 2.0 + 2.0 * 4.0 / 2048.0;
    case Optimizer::adafactor: return master + (matrix_side > 0 ? 8.0 / matrix_side : 0.0);
    case Optimizer::lion: return master + 4.0;
  }
  return 0.0;
}

double model_state_bytes_per_param(Optimizer optimizer, bool mixed_precision, double matrix_side) {
  return 2.0 * weight_bytes_per_param(mixed_precision) +
         optimizer_bytes_per_param(optimizer, mixed_precision, matrix_side);
}

double activation_bytes_per_layer(double seq_len, double micro_batch, double hidden, double heads,
                                  double tensor_parallel, bool sequence_parallel, Recomputation recompute,
                                  AttentionKernel attention) {
  if (attention == AttentionKernel::fused && recompute == Recomputation::none) recompute = Recomputation::selective;
  const double sbh = seq_len * micro_batch * hidden;
  const double t = tensor_parallel;
  const double attention_scores = 5.0 * heads * seq_len / hidden;
  switch (recompute) {
    case Recomputation::full: return 2.0 * sbh;
    case Recomputation::selective: return sequence_parallel ? 34.0 * sbh / t : sbh * (10.0 + 24.0 / t);
    case Recomputation::none:
      return sequence_parallel ? sbh * (34.0 + attention_scores) / t
                               : sbh * (10.0 + 24.0 / t + attention_scores / t);
  }
  return 0.0;
}

namespace {
// What a Mamba layer stores besides its mixer: a hybrid's feed-forward and two norms as Korthikanti et
// al.'s Table 2 counts a transformer layer's without attention (23 s b h, 7 s b h + 16 s b h / t without
// sequence parallelism), or a Mamba stack's one norm's d-wide input.
double mamba_layer_rest_bytes(double sbd, double t, bool sequence_parallel, bool with_feed_forward) {
  if (with_feed_forward) return sequence_parallel ? 23.0 * sbd / t : sbd * (7.0 + 16.0 / t);
  return sequence_parallel ? 2.0 * sbd / t : 2.0 * sbd;
}
}  // namespace

double mamba_activation_bytes_per_layer(double seq_len, double micro_batch, double d_model, double channels,
                                        double state_size, double x_proj_width, double tensor_parallel,
                                        bool sequence_parallel, Recomputation recompute, bool with_feed_forward) {
  const double tokens = seq_len * micro_batch;
  const double t = tensor_parallel;
  const double sbd = tokens * d_model;
  if (recompute == Recomputation::full) return 2.0 * sbd;
  // The d-wide input of the mixer (in_proj's) and of the stack's one norm, split over TP by sequence
  // parallelism only.
  const double d_wide = sequence_parallel ? 2.0 * sbd / t : 2.0 * sbd;
  const double split_channels = (6.0 + (recompute == Recomputation::none ? 4.0 : 0.0)) * tokens * channels / t;
  const double whole = tokens * (2.0 * x_proj_width + 4.0 * state_size);
  constexpr double kScanChunkTokens = 2048;
  const double states = 8.0 * micro_batch * channels * state_size * std::ceil(seq_len / kScanChunkTokens) / t;
  return d_wide + split_channels + whole + states + mamba_layer_rest_bytes(sbd, t, sequence_parallel, with_feed_forward);
}

double mamba2_activation_bytes_per_layer(double seq_len, double micro_batch, double d_model, double channels,
                                         double heads, double groups, double state_size, double tensor_parallel,
                                         bool sequence_parallel, Recomputation recompute, bool with_feed_forward) {
  const double tokens = seq_len * micro_batch;
  const double t = tensor_parallel;
  const double sbd = tokens * d_model;
  if (recompute == Recomputation::full) return 2.0 * sbd;
  const double d_wide = sequence_parallel ? 2.0 * sbd / t : 2.0 * sbd;
  const double in_proj_width = 2.0 * channels + 2.0 * groups * state_size + heads;
  const double split = tokens * (2.0 * in_proj_width + 2.0 * channels + 4.0 * groups) / t;
  return d_wide + split + mamba_layer_rest_bytes(sbd, t, sequence_parallel, with_feed_forward);
}

TrainingMemory training_memory(const TrainingMemoryInput& in) {
  TrainingMemory m;
  const double model_parallel = in.tensor_parallel * in.pipeline_parallel;
  const bool own_stage = in.stage_parameters >= 0;
  const double dense_params = own_stage ? (in.stage_parameters - in.stage_expert_parameters) / in.tensor_parallel
                                        : (in.parameters - in.expert_parameters) / model_parallel;
  const double etp = in.expert_tensor_parallel > 0 ? in.expert_tensor_parallel : in.tensor_parallel;
  const double expert_params = own_stage ? in.stage_expert_parameters / (etp * in.expert_parallel)
                                         : in.expert_parameters / (etp * in.pipeline_parallel * in.expert_parallel);
  const double dp = in.data_parallel;
  const double expert_dp = in.data_parallel * in.tensor_parallel / (etp * in.expert_parallel);
  // Parameters per GPU once the states of ZeRO stage `stage` are sharded over the data-parallel groups.
  auto sharded = [&](int stage) {
    return in.zero_stage >= stage ? dense_params / dp + expert_params / expert_dp : dense_params + expert_params;
  };
  const double wb = weight_bytes_per_param(in.mixed_precision);
  const double ob = optimizer_bytes_per_param(in.optimizer, in.mixed_precision, in.hidden);
  if (in.frozen_base) {
    const double adapters = in.adapter_parameters / model_parallel;
    auto adapter_sharded = [&](int stage) { return in.zero_stage >= stage ? adapters / dp : adapters; };
    m.weights_bytes = sharded(3) * in.base_weight_bytes_per_param + adapter_sharded(3) * wb;
    m.gradients_bytes = adapter_sharded(2) * wb;
    m.optimizer_bytes = adapter_sharded(1) * ob;
  } else {
    m.weights_bytes = sharded(3) * wb;
    m.gradients_bytes = sharded(2) * wb;
    m.optimizer_bytes = sharded(1) * ob;
  }
  const double layers_per_stage = in.stage_layers > 0 ? in.stage_layers : in.layers / in.pipeline_parallel;
  // One micro-batch's stored activations of one layer, in bytes at 16 bits per element.
  double layer_activation_elements =
      in.layers > 0 && in.hidden > 0
          ? activation_bytes_per_layer(in.seq_len, in.micro_batch, in.hidden, in.heads, in.tensor_parallel,
                                       in.sequence_parallel, in.recompute, in.attention)
          : 0.0;
  if (in.recurrent_layers > 0 && in.layers > 0 && in.hidden > 0) {
    // The mean layer of the stage: attention and Mamba layers in the model's proportion.
    const double recurrent_share = in.stage_recurrent_layers >= 0 && layers_per_stage > 0
                                       ? std::min(1.0, in.stage_recurrent_layers / layers_per_stage)
                                       : std::min(1.0, in.recurrent_layers / in.layers);
    const double mamba =
        in.ssd_layers > 0
            ? mamba2_activation_bytes_per_layer(in.seq_len, in.micro_batch, in.hidden, in.recurrent_channels,
                                                in.recurrent_heads, in.recurrent_groups, in.recurrent_state_size,
                                                in.tensor_parallel, in.sequence_parallel, in.recompute,
                                                in.recurrent_feed_forward)
            : mamba_activation_bytes_per_layer(in.seq_len, in.micro_batch, in.hidden, in.recurrent_channels,
                                               in.recurrent_state_size, in.recurrent_x_proj_width,
                                               in.tensor_parallel, in.sequence_parallel, in.recompute,
                                               in.recurrent_feed_forward);
    layer_activation_elements = (1.0 - recurrent_share) * layer_activation_elements + recurrent_share * mamba;
    // The layers counted above with a feed-forward that have none (whole layer counts, so exact).
    const bool stage_counts = in.stage_feed_forward_layers >= 0 && in.stage_recurrent_layers >= 0;
    const double counted_layers = stage_counts ? layers_per_stage : in.layers;
    const double counted_recurrent = stage_counts ? in.stage_recurrent_layers : in.recurrent_layers;
    const double feed_forward = stage_counts ? in.stage_feed_forward_layers : in.feed_forward_layers;
    const double without = counted_layers - counted_recurrent + (in.recurrent_feed_forward ? counted_recurrent : 0.0) -
                           feed_forward;
    if (feed_forward >= 0 && without > 0 && in.recompute != Recomputation::full) {
      const double sbd = in.seq_len * in.micro_batch * in.hidden;
      const double block = mamba_layer_rest_bytes(sbd, in.tensor_parallel, in.sequence_parallel, true) -
                           mamba_layer_rest_bytes(sbd, in.tensor_parallel, in.sequence_parallel, false);
      layer_activation_elements -= without / counted_layers * block;
    }
  }
  m.activations_bytes = layers_per_stage * in.in_flight_microbatches * layer_activation_elements;
  m.activations_bytes *= in.activation_bytes_per_element / 2.0 / in.context_parallel;
  if (in.weight_offload || in.activation_offload) {
    m.layer_activations_bytes = layer_activation_elements * in.activation_bytes_per_element / 2.0 / in.context_parallel;
    // The weights are spread evenly over the layers (embeddings not treated apart, as above).
    m.layer_weights_bytes = in.layers > 0 ? (own_stage ? m.weights_bytes / layers_per_stage
                                                       : m.weights_bytes * in.pipeline_parallel / in.layers)
                                          : 0.0;
  }
  if (in.weight_offload) {
    m.host_weights_bytes = m.weights_bytes;
    m.weights_bytes = std::min(m.weights_bytes, 2.0 * m.layer_weights_bytes);
  }
  if (in.activation_offload) {
    m.host_activations_bytes = m.activations_bytes;
    m.activations_bytes = std::min(m.activations_bytes, 2.0 * m.layer_activations_bytes);
  }
  m.buffers_bytes = in.communication_buffer_bytes;
  if (in.optimizer_offload) {
    m.host_gradients_bytes = m.gradients_bytes;
    m.host_optimizer_bytes = m.optimizer_bytes;
    m.gradients_bytes = 0;
    m.optimizer_bytes = 0;
  }
  m.total_bytes = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes + m.buffers_bytes;
  m.fits = m.total_bytes <= in.capacity_bytes;
  return m;
}

}  // namespace dsx
