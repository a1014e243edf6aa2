#include "engine/solvers/training_stages.hpp"

#include <algorithm>
#include <cmath>

namespace dsx {

StageKinds stage_kinds(const std::vector<std::uint8_t>& kinds, std::size_t stages, std::size_t chunks_per_stage,
                       std::size_t stage) {
  const std::size_t chunks = stages * chunks_per_stage;
  const std::size_t small = kinds.size() / chunks, larger = kinds.size() % chunks;
  StageKinds held;
  for (std::size_t c = stage; c < chunks; c += stages) {
    const std::size_t first = c * small + std::min(c, larger);
    for (std::size_t layer = first; layer < first + small + (c < larger ? 1 : 0); ++layer) {
      held.layers += 1;
      if ((kinds[layer] & kLayerAttention) != 0) held.attention += 1;
      if ((kinds[layer] & kLayerMoe) != 0) held.moe += 1;
      if ((kinds[layer] & kLayerFeedForward) != 0) held.feed_forward += 1;
    }
  }
  return held;
}

StageWeights stage_weights(const ServingShape& shape, const StageKinds& k, double stages) {
  const double mamba = k.layers - k.attention, dense = k.feed_forward - k.moe;
  const double dense_layers = shape.feed_forward_layers - shape.moe_layers;
  const double attention_w = shape.attention_mixer_weight_elements / shape.attention_layers;
  const double mamba_w = shape.recurrent_mixer_weight_elements / shape.recurrent_layers;
  const double mlp_w = dense_layers > 0 ? shape.dense_feed_forward_weight_elements / dense_layers : 0.0;
  const double expert_w = shape.moe_layers > 0 ? shape.expert_weight_elements / shape.moe_layers : 0.0;
  const double active_expert_w =
      shape.moe_layers > 0
          ? (shape.active_parameter_count - (shape.parameter_count - shape.expert_weight_elements)) / shape.moe_layers
          : 0.0;
  const double rest = shape.parameter_count - shape.attention_mixer_weight_elements -
                      shape.recurrent_mixer_weight_elements - shape.dense_feed_forward_weight_elements -
                      shape.expert_weight_elements;
  const double own = rest / stages + k.attention * attention_w + mamba * mamba_w + dense * mlp_w;
  return {.parameters = own + k.moe * expert_w,
          .expert_parameters = k.moe * expert_w,
          .active_parameters = own + k.moe * active_expert_w};
}

}  // namespace dsx
