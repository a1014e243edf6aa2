// Pipeline stages of the training solver (engine/solvers/training.hpp): how many layers the busiest
// stage holds, and for a hybrid (Jamba) which kinds of layers each stage holds and their parameters.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/serving.hpp"

namespace dsx {

// Layers of the busiest pipeline stage when `layers` split into stages x chunks_per_stage model chunks
// as evenly as they go (the first layers % chunks chunks get one more, as Megatron-LM and torchtitan
// split a stack that does not divide): a stage holds chunks_per_stage chunks, so the busiest holds as
// many of the larger chunks as there are.
inline double busiest_stage_layers(double layers, double stages, double chunks_per_stage) {
  const double chunks = stages * chunks_per_stage;
  const double small = std::floor(layers / chunks);
  const double larger = layers - chunks * small;
  return chunks_per_stage * small + std::min(chunks_per_stage, larger);
}

// One pipeline stage of a hybrid by the kinds of its layers (engine/serving.hpp layer_kinds).
struct StageKinds {
  double layers = 0, attention = 0, moe = 0, feed_forward = 0;
  bool operator==(const StageKinds&) const = default;
};

// Stage `stage`'s layers by kind when the layers, in order, split into stages x chunks_per_stage
// contiguous chunks as busiest_stage_layers counts them (the first layers % chunks chunks one layer
// longer), chunk c on stage c % stages (Megatron-LM's interleaved assignment; chunk c = stage c at 1F1B).
StageKinds stage_kinds(const std::vector<std::uint8_t>& kinds, std::size_t stages, std::size_t chunks_per_stage,
                       std::size_t stage);

// A stage's parameters from its layers: each kind's mixer and feed-forward weights (engine/serving.hpp),
// the rest (embeddings, LM head, norms, routers) spread evenly over the stages as for a dense model.
struct StageWeights {
  double parameters = 0, expert_parameters = 0, active_parameters = 0;
};
StageWeights stage_weights(const ServingShape& shape, const StageKinds& k, double stages);

}  // namespace dsx
