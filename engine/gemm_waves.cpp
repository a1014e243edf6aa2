#include "engine/gemm_waves.hpp"

#include <algorithm>
#include <cmath>

#include "engine/waves.hpp"

namespace dsx {

namespace {
constexpr double kMmaRows = 16;
constexpr double kSkinnyRows = 64;
constexpr double kMinSliceK = 2 * 64;  // two 64-deep k-steps
constexpr double kPartialBytes = 4;    // fp32 accumulators
constexpr double kTileColumns = 128;

GemmWaves with_tile(double m, double n, double k, double copies, double units, double flops_per_s, double stream_bytes,
                    double bandwidth_bytes_per_s, double tile_m, double tile_n) {
  GemmWaves g;
  g.tile_m = tile_m;
  g.tile_n = tile_n;
  // Tile sides are powers of two: their reciprocals are exact.
  g.tiles = std::ceil(m * (1 / tile_m)) * std::ceil(n * (1 / tile_n)) * copies;
  const double wave_s = 2 * tile_m * tile_n * k * units / flops_per_s;
  if (g.tiles >= units) {
    const Waves w = wave_quantization(g.tiles, units);
    g.waves = w.count;
    g.compute_s = w.time_s(wave_s);
    return g;
  }
  const double max_split = std::max(1.0, std::min(std::floor(units / g.tiles), std::floor(k / kMinSliceK)));
  double split = max_split;
  if (bandwidth_bytes_per_s > 0 && max_split > 1 && m * n * copies > 0) {
    const double stream_s = stream_bytes / bandwidth_bytes_per_s;
    const double partial_s = 2 * kPartialBytes * m * n * copies / bandwidth_bytes_per_s;
    const auto cost = [&](double s) { return std::max(wave_s / s, s > 1 ? stream_s + s * partial_s : stream_s); };
    // wave_s / s = stream_s + s partial_s where compute and traffic cross.
    const double cross = (std::sqrt(stream_s * stream_s + 4 * partial_s * wave_s) - stream_s) / (2 * partial_s);
    const double below = std::clamp(std::floor(cross), 1.0, max_split);
    const double above = std::clamp(std::ceil(cross), 1.0, max_split);
    split = cost(above) < cost(below) ? above : below;
  }
  g.split_k = split;
  g.compute_s = wave_s / split;
  g.reduction_bytes = split > 1 ? 2 * kPartialBytes * m * n * copies * split : 0;
  return g;
}
}  // namespace

GemmWaves gemm_waves(double m, double n, double k, double copies, double units, double flops_per_s,
                     double stream_bytes, double bandwidth_bytes_per_s) {
  if (units <= 0) {
    GemmWaves g;
    g.compute_s = 2 * m * n * k * copies / flops_per_s;
    return g;
  }
  const double tile_m = m <= kMmaRows ? kMmaRows : m <= kSkinnyRows ? kSkinnyRows : 128;
  return with_tile(m, n, k, copies, units, flops_per_s, stream_bytes, bandwidth_bytes_per_s, tile_m, kTileColumns);
}

}  // namespace dsx
