// Derived metrics, filters, constraints and assertions of a study (dse/analysis/blocks.hpp),
// evaluated per design point with muparser (dse/analysis/expression.hpp).
//
// Names an expression may use, all SI values:
//   - every metric of the solver (latency_s, power_w, throughput_samples_per_s, ...);
//   - every number parameter of the solver (eta, launch_overhead, batch, ...);
//   - with a hardware parameter, the point's catalog entry: hardware_price_usd, hardware_tdp_w,
//     hardware_memory_bytes, hardware_memory_bandwidth_bytes_per_s, hardware_host_link_bytes_per_s,
//     hardware_accelerator_link_bytes_per_s, hardware_idle_power_fraction, and
//     hardware_peak_flops_per_s (at the point's precision when the solver has a precision
//     parameter, else the largest peak), hardware_rental_usd_per_hour (the entry's dated on-demand
//     price of one accelerator-hour); hardware_tdp_w is NaN for a part whose TDP is unknown, and
//     hardware_rental_usd_per_hour for one without a rental price;
//   - with a second hardware parameter (serving's prefill_hardware), the same nine values of that
//     chip under its parameter's name (prefill_hardware_price_usd, prefill_hardware_tdp_w, ...):
//     the first chip's when the second is not set, since the first then does that work;
//   - with a model parameter: model_parameters and model_flops_per_sample (eager graph);
//   - derived metrics declared earlier in the list (filters, constraints and assertions see all).
//
// Where they are computed: after the sweep, in the analyse step (dse/cli/run.cpp
// analyse_and_render, and again by `dsx report`), one row at a time from the row's stored solver
// metrics and its inputs rebuilt from the grid (dse/grid.hpp), so the sweep's hot path is
// untouched and a resumed run needs nothing extra. A study that keeps only some rows also
// evaluates them during the sweep, on the sweep's one writer thread, to decide what to keep and to
// count what it drops (dse/analysis/retention.hpp); grid constraints are evaluated in the sweep's
// workers before the solver, one PointFormulas per thread (dse/sweep.hpp GridGate). Per row the variables are copied into fixed
// slots and each compiled expression runs its bytecode: no allocation per row. The analyses that
// re-evaluate the solver (break-even, sensitivity) compute a derived metric the same way at each
// point they evaluate, through study_metric_value().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/expression.hpp"
#include "dse/analysis/points.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

// The names an expression of this solver may use, before any derived metric (see above).
std::vector<std::string> expression_names(const Solver& solver);

// Per solver metric (in the solver's order): whether one of the study's derived metrics, filters,
// constraints or assertions names it. The others are never read by them, so a table without
// their columns gives the same derived values, statuses and assertions (muparser lists every
// variable an expression names, in either branch of a `?:`).
std::vector<bool> solver_metrics_read_by_formulas(const ResolvedStudy& study);

// Every expression of a study, compiled once, evaluated per design point. Not thread-safe.
class PointFormulas {
 public:
  // Throws std::invalid_argument for an expression that does not compile (the loader has checked
  // them, so this means a study built by hand).
  explicit PointFormulas(const ResolvedStudy& study);
  PointFormulas(const PointFormulas&) = delete;
  PointFormulas& operator=(const PointFormulas&) = delete;

  // Loads a design point: its inputs and its solver metrics in solver order; a point that is not
  // feasible (ok = false) reads its metrics as NaN. Then computes the derived metrics.
  void load(const PointInputs& in, std::span<const double> solver_metrics, bool ok);

  // The first of the study's grid constraints the point's inputs break; nullopt when it keeps
  // every one (or there are none). Overwrites the loaded point.
  std::optional<std::size_t> broken_grid_constraint(const PointInputs& in);
  bool has_grid_constraints() const { return !grid_constraints_.empty(); }

  std::size_t derived_count() const { return derived_.size(); }
  double derived(std::size_t d) const { return slots_[derived_slot_ + d]; }  // SI
  // The first constraint the loaded point breaks; nullopt when it keeps every one.
  std::optional<std::size_t> broken_constraint() const;
  // The first filter that drops the loaded point; nullopt when every filter keeps it.
  std::optional<std::size_t> failed_filter() const;
  bool assertion_holds(std::size_t a) const;
  // A metric of the loaded point by index into study_metric_names(): solver metrics then derived.
  double metric(std::size_t index) const { return slots_[index < solver_metrics_ ? index : derived_slot_ + index - solver_metrics_]; }

 private:
  std::size_t solver_metrics_ = 0;
  std::vector<std::size_t> number_params_;  // solver parameter index of each parameter slot
  std::vector<bool> takes_word_;             // per parameter slot: the parameter takes a word (read as NaN)
  std::size_t param_slot_ = 0, hardware_slot_ = 0, second_hardware_slot_ = 0, model_slot_ = 0, derived_slot_ = 0;
  bool has_hardware_ = false, has_second_hardware_ = false, has_model_ = false;
  int precision_param_ = -1;
  std::vector<double> slots_;  // fixed size: the variables' addresses never change
  void load_input_slots(const PointInputs& in);

  std::vector<CompiledExpression> grid_constraints_, derived_, filters_, constraints_, assertions_;
  std::vector<double> derived_scale_;
};

// The value of `metric` (a solver or derived metric of the study) at an evaluated point, for the
// analyses: NaN where a constraint is broken. An empty function when the metric is the solver's
// and the study has no constraint (the analyses then read the solver's output directly).
// Throws std::invalid_argument for an unknown metric.
MetricValue study_metric_value(const ResolvedStudy& study, std::string_view metric);

// ---- on a result table ----

struct FormulaOutcome {
  // Whether the filters keep every row; `kept` then stays empty (as a list it would cost 8 bytes for
  // every row of a keep-all run).
  bool every_row_kept = true;
  std::vector<std::size_t> kept;                   // rows every filter keeps, ascending, when some is dropped
  std::vector<std::size_t> constraint_violations;  // per constraint: rows it made infeasible
  std::vector<std::size_t> filtered_out;           // per filter: rows it dropped (first failing filter)
  std::size_t kept_rows(std::size_t rows) const { return every_row_kept ? rows : kept.size(); }
};

// Appends the derived metric columns to `table` (NaN on rows that are not feasible, those a
// constraint makes infeasible included), makes every feasible row that breaks a constraint
// infeasible with the reason "constraint '<name>': <expr>"
// (added to table.reasons), and returns the rows the filters keep. The table's metric columns must
// include those the formulas read (solver_metrics_read_by_formulas; the others read as NaN); throws
// std::invalid_argument when one is missing or a derived name is already a column.
FormulaOutcome apply_formulas(const ResolvedStudy& study, ResultTable& table);

// The reason text of a broken constraint.
std::string constraint_reason(const RowRule& rule);

// A table holding only `rows` of `table` (in the order given), same columns and reasons.
ResultTable select_rows(const ResultTable& table, std::span<const std::size_t> rows);

struct AssertionOutcome {
  std::size_t assertion = 0;  // index into StudyAnalyses::assertions
  bool held = false;
  std::size_t rows_checked = 0;  // feasible rows matching `where`
  std::size_t rows_holding = 0;
  std::optional<std::size_t> example_row;  // all: the first row where it fails; any: the first where it holds
};

// Checks every assertion on the feasible rows of `table` (a table after apply_formulas, normally
// only the rows the filters keep).
std::vector<AssertionOutcome> evaluate_assertions(const ResolvedStudy& study, const ResultTable& table);

// Two values of an objective tie when they differ by at most this fraction of the larger magnitude:
// the same number reached by different arithmetic (a preemption policy that never fires).
inline constexpr double kTieRelativeTolerance = 1e-9;
bool same_objective_value(double a, double b);

// Whether a row's labels match the selectors: every parameter they name takes one of the labels
// given for it (a selector on a parameter that is not an axis was checked against the fixed value
// when the study loaded).
bool selects(const ResultTable& table, std::size_t row, std::span<const Selector> where);

struct TopKList {
  Objective objective;
  std::vector<std::size_t> rows;  // best first; ties keep row order
  // The rows after the first whose value ties with it (same_objective_value), best first (equal
  // values in row order), whether or not they are among the k.
  std::vector<std::size_t> tied;
};

// The `k` best feasible rows of `table` for each objective of the study among the rows its `where`
// selects (rows with a NaN value of the objective are left out).
std::vector<TopKList> top_k_rows(const ResolvedStudy& study, const ResultTable& table, std::size_t k);

// The best feasible row of each objective with its ties, as top_k_rows with k = 1 gives them, found
// in one pass over the rows: what the generated Answer and `{{best.*}}` cite when the study asks for
// no top-k list.
std::vector<TopKList> best_rows(const ResolvedStudy& study, const ResultTable& table);

}  // namespace dsx
