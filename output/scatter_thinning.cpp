#include "output/scatter_thinning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_set>

namespace dsx {

void ScatterSpots::include(double x, double y) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  if (empty_) {
    x_lo_ = x_hi_ = x;
    y_lo_ = y_hi_ = y;
    empty_ = false;
    return;
  }
  x_lo_ = std::min(x_lo_, x), x_hi_ = std::max(x_hi_, x);
  y_lo_ = std::min(y_lo_, y), y_hi_ = std::max(y_hi_, y);
}

template <class Row>
std::vector<Row> ScatterSpots::first_of_spots(std::span<const Row> rows,
                                              const std::function<std::pair<double, double>(std::size_t)>& position) const {
  const auto cell = [](double v, double lo, double hi, double cells) {
    return hi > lo ? static_cast<std::uint64_t>(std::clamp(std::floor((v - lo) / (hi - lo) * cells), 0.0, cells - 1)) : 0;
  };
  std::unordered_set<std::uint64_t> taken;
  std::vector<Row> kept;
  for (const Row r : rows) {
    const auto [x, y] = position(r);
    if (!std::isfinite(x) || !std::isfinite(y)) {
      kept.push_back(r);
      continue;
    }
    const std::uint64_t spot = cell(x, x_lo_, x_hi_, kScatterCellsX) * static_cast<std::uint64_t>(kScatterCellsY) +
                               cell(y, y_lo_, y_hi_, kScatterCellsY);
    if (taken.insert(spot).second) kept.push_back(r);
  }
  return kept;
}

std::vector<std::size_t> ScatterSpots::first_per_spot(
    std::span<const std::size_t> rows, const std::function<std::pair<double, double>(std::size_t)>& position) const {
  return first_of_spots(rows, position);
}

std::vector<std::uint32_t> ScatterSpots::first_per_spot(
    std::span<const std::uint32_t> rows, const std::function<std::pair<double, double>(std::size_t)>& position) const {
  return first_of_spots(rows, position);
}

}  // namespace dsx
