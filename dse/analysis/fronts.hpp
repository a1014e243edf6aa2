// Pareto fronts per group and thinned by epsilon-dominance (the study's `pareto:` block), built on
// dse/pareto.hpp.
//
// Grouping: the feasible rows are split by their labels on the `group` parameters (swept axes), and
// each part gets its own front and knee: "the best trade-offs for each model".
//
// Epsilon-dominance (M. Laumanns, L. Thiele, K. Deb, E. Zitzler, "Combining convergence and
// diversity in evolutionary multiobjective optimization", Evolutionary Computation 10(3), 2002):
// with a relative epsilon e_i per objective, objective values are mapped to boxes
// b_i = floor(ln(v_i) / ln(1 + e_i)) (the value negated first for a maximised objective, so that a
// smaller box is better; a value <= 0 in a relative box is its own box and never thinned). Of the
// exact front, only rows whose box is not dominated by another front row's box survive, one per
// box: the row nearest the box's best corner (smallest sum over objectives of the relative distance
// to it), ties to the lowest row. Every row of the exact front is then (1 + e)-dominated by a kept
// row: for each objective the kept row is at most a factor (1 + e_i) worse, and the kept rows are
// at most one per box, so a dense front of thousands of nearly equal designs thins to a few.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "dse/analysis/blocks.hpp"
#include "dse/pareto.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

// Rows of `front_rows` kept by relative epsilon boxes (see above); `values` and `directions` as for
// pareto_front. `epsilon` holds one value > 0 per objective. Ascending row order.
std::vector<std::size_t> epsilon_thin(std::span<const double> values, std::span<const Direction> directions,
                                      std::span<const std::size_t> front_rows, std::span<const double> epsilon);

struct ParetoGroup {
  std::vector<Selector> labels;     // the group's values (empty without grouping)
  std::size_t feasible_rows = 0;    // feasible rows in the group
  std::size_t exact_size = 0;       // rows of the exact front, before thinning
  std::vector<std::size_t> front;   // rows of the (thinned) front, ascending
  std::optional<Knee> knee;         // two objectives, three or more front rows, a convex bulge
};

struct ParetoFronts {
  std::vector<ParetoGroup> groups;  // in the order of the group axes' values
  std::vector<std::size_t> rows;    // union of the groups' fronts, ascending
  bool grouped = false;
  bool thinned = false;
};

// The fronts of the study's objectives over the feasible rows of `table`, as the study's pareto:
// block declares them. Fewer than two objectives: no front (empty groups and rows).
ParetoFronts study_fronts(const ResolvedStudy& study, const ResultTable& table);

}  // namespace dsx
