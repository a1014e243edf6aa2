#include "engine/offload.hpp"

#include <algorithm>

namespace dsx {

LayerOffloadBytes layer_offload_bytes(bool weights, bool activations, double layer_weights_bytes,
                                      double layer_activations_bytes) {
  const double w = weights ? layer_weights_bytes : 0.0;
  const double a = activations ? layer_activations_bytes : 0.0;
  return {.forward_bytes = std::max(w, a), .backward_bytes = w + a};
}

double offload_exposed_s(double bytes, double link_bytes_per_s, double window_s) {
  return bytes > 0 ? std::max(0.0, bytes / link_bytes_per_s - window_s) : 0.0;
}

}  // namespace dsx
