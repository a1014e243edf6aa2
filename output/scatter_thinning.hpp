// Thinning a scatter of more points than a page can show (output/gnuplot_text.hpp kMaxDrawnPoints)
// without changing what it shows: of the points of one series that fall in one cell of a
// kScatterCellsX x kScatterCellsY grid over the plot's range, only the first is drawn. A cell is
// about 1.5 px of a plot about 600 x 450 px wide, a quarter of a mark's width, so the points left
// out would print under the one kept: every spot the cloud covers stays drawn, out to its edges,
// where drawing every k-th point may leave out an outlier.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace dsx {

inline constexpr double kScatterCellsX = 400;
inline constexpr double kScatterCellsY = 300;

// Positions are what the axis draws linearly: log10 of the value on a log axis.
class ScatterSpots {
 public:
  // Widens the grid's range to hold (x, y); a point with a non-finite coordinate is left out.
  void include(double x, double y);
  // The first of `rows` (in the order given) in each cell, `position(row)` giving its (x, y); a row
  // with a non-finite coordinate is kept (it is not drawn anyway).
  std::vector<std::size_t> first_per_spot(std::span<const std::size_t> rows,
                                          const std::function<std::pair<double, double>(std::size_t)>& position) const;
  // The same for rows held as 32-bit positions (a keep-all run's millions of rows).
  std::vector<std::uint32_t> first_per_spot(std::span<const std::uint32_t> rows,
                                            const std::function<std::pair<double, double>(std::size_t)>& position) const;

 private:
  template <class Row>
  std::vector<Row> first_of_spots(std::span<const Row> rows,
                                  const std::function<std::pair<double, double>(std::size_t)>& position) const;

  double x_lo_ = 0, x_hi_ = 0, y_lo_ = 0, y_hi_ = 0;
  bool empty_ = true;
};

}  // namespace dsx
