#include "engine/waves.hpp"

#include <cmath>

namespace dsx {

Waves wave_quantization(double tiles, double units) {
  if (!(units > 0)) return {};
  const double count = std::ceil(tiles / units);
  return {.count = count, .efficiency = tiles / (count * units)};
}

}  // namespace dsx
