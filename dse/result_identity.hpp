// What the rows a run folder stores depend on, and nothing else: the identity `dsx run` checks
// before it resumes a folder, `dsx merge` checks across shards and `dsx report` checks between the
// store and the study.resolved.yaml beside it. Editing a study's prose must not throw away an
// overnight sweep; changing what was swept must.
//
// The store holds, per kept point, the solver's metrics and status (dse/sweep.cpp append_point),
// and the sweep counts (dse/analysis/retention.hpp SweepCounts). These depend on:
//   - the solver (its parameters, metrics and reasons come with its name and dsx's version);
//   - the axes: parameter, order, every value and its label (labels are stored with each row);
//     bundle axes with the parameters each value sets;
//   - the fixed inputs' values (not their spelling: `10 us` and `0.01 ms` are the same input),
//     including those a calibration profile sets: a profile changes stored rows only through the
//     values it gives parameters (dse/study_calibration.cpp); its per-regime accuracy sets the
//     `_p10`/`_p90` intervals, which are computed when the report is rendered;
//   - fixed bundles (region, fabric, node) by id, and which parameters every bundle sets;
//   - grid_constraints: (they skip points and count them, per constraint);
//   - keep: (all, front, top_k, sample, seed);
//   - the catalog entries the study uses (catalog_hash, stored beside this identity).
// When keep: is not `all`, the keeper (RowKeeper) applies the study's formulas to every point
// during the sweep and chooses rows by them, so these count too:
//   - derived: (names, expressions, units), constraints:, filters: (the fronts and top-k are taken
//     over the rows the filters keep; per-filter counts are stored), assertions: (expressions,
//     where:, require:; their counts and example points are stored);
//   - objectives: (metric, direction and where: the fronts and the top-k rows), pareto: group (epsilon
//     thinning is applied after the sweep), the study's top_k:;
//   - the points compare: and values: entries select (their where:; the rows are pinned in the store).
// With keep: all (the default) the formulas, objectives and comparisons are applied when the
// report is rendered, so changing them re-renders the stored rows without a new sweep.
//
// Not part of it: study:, title:, question:, sections:, figures:, template:, the compare:
// entries' expected values, tolerances, sources and explanations, breakeven: and sensitivity:
// (they evaluate the solver again when the report is rendered), the formulas' and rules' names
// where nothing refers to them, and the spelling of fixed values. See README ("Run folder").
#pragma once

#include <string>

#include "dse/study.hpp"

namespace dsx {

// Store meta key of the identity below.
inline constexpr const char* kResultIdentityKey = "result_identity";

// A 64-bit hash (hex) of everything listed above except the catalog, which catalog_hash covers.
// Equal for a study and the study.resolved.yaml written from it.
std::string result_identity(const ResolvedStudy& study);

}  // namespace dsx
