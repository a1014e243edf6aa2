#include "output/scatter_thinning.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace dsx {
namespace {

// Points in one cell of the 400 x 300 grid over the range print as one mark: the first is kept.
TEST(ScatterSpots, KeepsTheFirstPointOfEachCell) {
  // x from 0 to 400 (a cell per unit), y from 0 to 300 (a cell per unit).
  const std::vector<std::pair<double, double>> at = {
      {0, 0}, {400, 300}, {0.5, 0.5}, {0.99, 0.2}, {1.0, 0.2}, {399.5, 299.9}, {200.2, 150.7}, {200.9, 150.1}, {200.9, 151.0}};
  ScatterSpots spots;
  for (const auto& [x, y] : at) spots.include(x, y);
  std::vector<std::size_t> rows(at.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  const auto position = [&at](std::size_t r) { return at[r]; };
  // Rows 2 and 3 share row 0's cell; row 5 shares the last cell with row 1 (the top edge belongs to
  // the last cell); row 7 shares row 6's.
  EXPECT_EQ(spots.first_per_spot(rows, position), (std::vector<std::size_t>{0, 1, 4, 6, 8}));
  // The order given decides which point of a cell stays.
  const std::vector<std::size_t> reversed(rows.rbegin(), rows.rend());
  EXPECT_EQ(spots.first_per_spot(reversed, position), (std::vector<std::size_t>{8, 7, 5, 4, 3}));
}

TEST(ScatterSpots, NonFinitePointsNeitherWidenTheRangeNorAreDropped) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<double, double>> at = {{0, 0}, {nan, 5}, {1e300 * 1e300, 1}, {400, 300}, {0.1, 0.1}};
  ScatterSpots spots;
  for (const auto& [x, y] : at) spots.include(x, y);
  const std::vector<std::size_t> rows = {0, 1, 2, 3, 4};
  EXPECT_EQ(spots.first_per_spot(rows, [&at](std::size_t r) { return at[r]; }),
            (std::vector<std::size_t>{0, 1, 2, 3}));
  // All points at one place: one cell.
  ScatterSpots one;
  one.include(2, 2);
  EXPECT_EQ(one.first_per_spot(rows, [](std::size_t) { return std::pair<double, double>{2, 2}; }),
            (std::vector<std::size_t>{0}));
}

}  // namespace
}  // namespace dsx
