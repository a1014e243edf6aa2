// Pareto fronts and knee points over a study's objectives.
//
// Dominance (each objective minimised or maximised): row a dominates row b when a is no worse than
// b in every objective and strictly better in at least one. Rows with identical objective values do
// not dominate each other, so exact duplicates on the front all stay. Rows that are not feasible,
// or that have a NaN objective, take no part. Infinities compare as ordinary values.
//
// Methods:
//   k = 1   the rows at the best value.
//   k = 2   sort by (first, second, row) and sweep once, keeping the best second objective seen in
//           the groups of strictly better first objective: O(n log n) (Kung, Luccio & Preparata,
//           "On finding the maxima of a set of vectors", J. ACM 22(4), 1975).
//   k = 3   the same sort over (first, second, third, row), then a sweep over groups of equal first
//           objective that keeps the (second, third) staircase of earlier groups in a balanced
//           tree: O(n log n) (Kung, Luccio & Preparata 1975, the three-dimensional case).
//   k >= 4  sort lexicographically, then test each row against the front found so far; a row can
//           only be dominated by one that sorts before it, so the front only grows:
//           O(n log n + n f k) for a front of f rows.
// Results are row indices in ascending order and do not depend on the order rows come in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

// `values` is row-major: rows x directions.size() (one column per objective, directions.size() >= 1).
// `feasible` holds one flag per row (nonzero = take part) or is empty when every row takes part.
// Returns the non-dominated rows, ascending. Throws std::invalid_argument when the sizes disagree.
std::vector<std::size_t> pareto_front(std::span<const double> values,
                                      std::span<const Direction> directions,
                                      std::span<const std::uint8_t> feasible = {});

// The front of `table` over `objectives` (by metric name), among rows whose status is ok.
// Throws std::invalid_argument naming an objective metric the table lacks.
std::vector<std::size_t> pareto_front(const ResultTable& table, std::span<const Objective> objectives);

// Knee of a two-objective front (Das, "On characterizing the 'knee' of the Pareto curve based on
// Normal-Boundary Intersection", Structural Optimization 18, 1999; see also Branke, Deb, Dierolf &
// Osswald, "Finding knees in multi-objective optimization", PPSN VIII, LNCS 3242, 2004): each
// objective is rescaled over the front to [0, 1] with 0 the best value, so the two extremes of the
// front sit at (0, 1) and (1, 0); the knee is the front row farthest from the line n1 + n2 = 1 that
// joins them, on the side of the ideal point (0, 0). `distance` is that signed Euclidean distance in
// the rescaled plane, (1 - n1 - n2) / sqrt(2): positive for a convex bulge, 0 on the line, negative
// behind it. An objective that is constant over the front rescales to 0. Ties go to the lowest row.
struct Knee {
  std::size_t row = 0;
  double distance = 0;
};
// `values` and `directions` as for pareto_front with directions.size() == 2; `front_rows` are rows
// of `values` (normally pareto_front's result). nullopt when front_rows is empty or any of its
// objective values is not finite (no knee is defined).
std::optional<Knee> knee_point(std::span<const double> values, std::span<const Direction> directions,
                               std::span<const std::size_t> front_rows);
std::optional<Knee> knee_point(const ResultTable& table, std::span<const Objective> objectives,
                               std::span<const std::size_t> front_rows);

// The grid point indices of table rows, and back: the rows holding the given point indices
// (table.point_index must be ascending, as the sweep and the store produce it). rows_of_points
// throws std::invalid_argument for a point the table does not hold.
std::vector<std::uint64_t> point_indices_of(const ResultTable& table, std::span<const std::size_t> rows);
std::vector<std::size_t> rows_of_points(const ResultTable& table, std::span<const std::uint64_t> points);

}  // namespace dsx
