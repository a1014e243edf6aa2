// What a study declares beyond its grid: derived metrics, filters, constraints, assertions, top-k,
// the Pareto front's grouping and thinning, break-even and sensitivity analyses (the study-file
// keys grid_constraints:, keep:, derived:, filters:, constraints:, assertions:, top_k:, pareto:,
// breakeven:, sensitivity:,
// documented in studies/README.md). dse/study_analyses.cpp reads them into ResolvedStudy::analyses.
//
// Before the solver, grid constraints skip points (dse/sweep.hpp); keep: decides during the sweep
// which rows are stored (dse/analysis/retention.hpp).
// Order of application after a sweep (dse/analysis/derived.hpp, dse/analysis/fronts.hpp):
//   1. derived metrics are computed for every feasible row (new metric columns);
//   2. a feasible row that breaks a constraint becomes infeasible, the constraint its reason;
//   3. filters choose the rows the report, the figures, the Pareto front, top-k and the
//      assertions see (results.csv and the store keep every row);
//   4. Pareto fronts (per group, thinned by epsilon), top-k per objective, assertions;
//   5. break-even and sensitivity analyses, which re-evaluate the solver at points they choose and
//      see derived metrics and constraints the same way (a point breaking a constraint has no value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dse/analysis/breakeven.hpp"
#include "dse/analysis/sensitivity.hpp"
#include "dse/study.hpp"
#include "engine/units.hpp"

namespace dsx {

// A metric computed from other metrics and inputs (dse/analysis/derived.hpp lists the names an
// expression may use). Its column holds expr x unit_scale: the expression's value in `unit`, as SI.
struct DerivedMetric {
  std::string name;  // snake_case with the SI unit suffix, like a solver metric
  std::string expr;
  std::string unit;  // as written ("" = dimensionless)
  Dimension dimension = Dimension::dimensionless;
  double unit_scale = 1;
  std::string description;
};

// A filter or a constraint: a named expression that holds where it is nonzero (NaN does not hold).
struct RowRule {
  std::string name;
  std::string expr;
};

enum class Quantifier : std::uint8_t { all, any };

// A claim about the results; a failed one makes `dsx run` exit 3 after writing the report. It is
// checked on the feasible rows the filters keep that match `where`: `all` holds when there is at
// least one such row and the expression holds on each; `any` when it holds on one of them.
struct Assertion {
  std::string name;
  std::string expr;
  std::vector<Selector> where;
  Quantifier require = Quantifier::all;
};

struct ParetoOptions {
  // Swept parameters: one front per combination of their values (empty: one front).
  std::vector<std::string> group;
  // Relative box size per objective for epsilon-dominance (empty: the exact front; one value per
  // objective, as the study writes it or a single value repeated).
  std::vector<double> epsilon;
};

// What a sweep keeps of its rows (the study's `keep:`). By default every row; otherwise the union
// of the chosen sets, maintained while the sweep runs so that memory and the store grow only with
// what is kept (dse/analysis/retention.hpp). Whatever is chosen, the rows the study's analyses read
// are kept too: the Pareto fronts' rows, the top_k rows, the points `compare:` selects and each
// assertion's example.
struct KeepOptions {
  bool all = true;
  bool front = false;        // rows on the Pareto fronts (per group, before epsilon thinning)
  std::size_t top_k = 0;     // the k best rows per objective
  std::size_t sample = 0;    // a uniform sample of this many points of the grid (any status)
  std::uint64_t seed = 1;    // of the sample's hash
};

struct StudyAnalyses {
  // Conditions on a point's inputs, checked before the solver: a point that breaks one is never
  // evaluated nor stored, only counted (the grid minus impossible combinations, e.g. tp * pp <= gpus).
  std::vector<RowRule> grid_constraints;
  KeepOptions keep;
  std::vector<DerivedMetric> derived;
  std::vector<RowRule> filters;
  std::vector<RowRule> constraints;
  std::vector<Assertion> assertions;
  std::size_t top_k = 0;  // rows listed per objective (0: none)
  ParetoOptions pareto;
  std::vector<BreakevenRequest> breakevens;
  std::vector<SensitivityRequest> sensitivities;

  const DerivedMetric* find_derived(std::string_view name) const;
  bool empty() const;
};

// The study's analyses, or an empty set when it declares none (or was built without the loader).
const StudyAnalyses& analyses_of(const ResolvedStudy& study);

// A metric of the study by name: a solver metric or a derived one. nullopt when neither.
struct StudyMetric {
  std::string name;
  Dimension dimension = Dimension::dimensionless;
  std::string description;
  bool derived = false;
  std::size_t index = 0;  // into solver->metrics() or StudyAnalyses::derived
};
std::optional<StudyMetric> find_study_metric(const ResolvedStudy& study, std::string_view name);
// Every metric name of the study: the solver's, then the derived ones.
std::vector<std::string> study_metric_names(const ResolvedStudy& study);

}  // namespace dsx
