// Everything a study declares, applied to the rows of a finished sweep (the analyse step of
// `dsx run`, and `dsx report` from the stored rows): derived metrics, constraints and filters
// (dse/analysis/derived.hpp), Pareto fronts per group (dse/analysis/fronts.hpp), top-k,
// assertions, the values the prose cites (dse/analysis/cited_values.hpp), and the break-even and
// sensitivity analyses (which re-evaluate the solver at the points they need;
// dse/analysis/breakeven.hpp, dse/analysis/sensitivity.hpp).
//
// Deterministic: the same rows and study give the same results, whatever the thread count of the
// sweep (the analyses run on one thread, and every random stream is seeded by the study).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/cited_values.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/fronts.hpp"
#include "dse/analysis/retention.hpp"
#include "dse/results.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"

namespace dsx {

struct BreakevenRun {
  const BreakevenRequest* request = nullptr;
  std::optional<BreakevenAnalysis> analysis;
  std::string error;  // why the analysis could not run (analysis is then empty)
};

struct SensitivityRun {
  const SensitivityRequest* request = nullptr;
  std::optional<SensitivityAnalysis> analysis;
  std::string error;
};

struct AnalysedRun {
  ResultTable table;        // every row: derived columns appended, constraint statuses applied
  FormulaOutcome formulas;  // rows kept, rows each constraint and filter took
  // The <metric>_p10 / <metric>_p90 columns of the table: 80 % intervals from the study's
  // calibration profile (dse/calibration/intervals.hpp); empty without one.
  std::vector<std::string> interval_columns;
  // The table holds only the solver metrics the study reads (dse/analysis/report_columns.hpp) and
  // their intervals: the outputs of every column (results.csv, pareto.csv, the store's intervals
  // table) are written from the store's blocks (AnalysedBlockReader), not from it.
  bool columns_selected = false;
  // The rows the filters keep: what the report, figures and fronts see (the table itself when
  // every row is kept, so a large run is not held twice).
  const ResultTable& shown() const { return filtered ? *filtered : table; }
  std::optional<ResultTable> filtered;  // set when a filter dropped a row
  ParetoFronts fronts;      // rows of `shown`
  std::vector<TopKList> top_k;               // rows of `shown`
  // Each objective's best row and its ties: top_k's lists, or best_rows when the study asks for none.
  std::vector<TopKList> best;
  std::vector<AssertionOutcome> assertions;  // over `shown`
  std::vector<ComputedValue> values;         // the study's values: entries, over `table` (values.csv)
  std::vector<BreakevenRun> breakevens;
  std::vector<SensitivityRun> sensitivities;

  bool assertions_hold() const;
  bool analyses_ran() const;  // no break-even or sensitivity analysis failed
};

// The most metric columns analyse_run adds to the stored ones (derived metrics and the 80 % intervals
// of every solver and derived metric): room to reserve when the rows are read.
std::size_t added_metric_columns_bound(const ResolvedStudy& study);

// The stored rows with the solver metric columns the study reads (report_columns(); every one
// when it reads them all), with room for the columns analyse_run adds. Throws std::runtime_error
// when the store lacks one of them.
ResultTable read_report_rows(const ResolvedStudy& study, const ResultStore& store);

// `stored` holds the sweep's rows with the solver's metric columns (ResultStore::read_results), or
// those read_report_rows reads.
// When the sweep kept only some rows (counts->formulas_applied), the constraint and filter counts
// and the assertions come from `counts`, which saw every point; an assertion's example is then a
// kept row. The study must outlive the result (it points at the study's requests).
AnalysedRun analyse_run(const ResolvedStudy& study, ResultTable stored, const SweepCounts* counts = nullptr);

// Rows per block of for_each_analysed_block: some 10 MB of a table of 40 metric columns, held beside
// the report's table while results.csv is written.
inline constexpr std::size_t kAnalysedBlockRows = 1u << 15;

// Every stored row with the columns analyse_run gives the whole table (solver metrics, derived
// metrics, intervals), `block_rows` rows at a time in point_index order, for writing every column of
// a run without holding it: each block is read from the store, given its derived metrics, constraint
// statuses and intervals as analyse_run does (row by row, so a row comes out as in the whole table),
// and handed to `f` with the metric columns `metric_names`, in that order (a column the block lacks,
// such as the interval of a derived metric that varies in other blocks only, is NaN).
void for_each_analysed_block(const ResolvedStudy& study, const ResultStore& store,
                             std::span<const std::string> metric_names, std::size_t block_rows,
                             const std::function<void(const ResultTable&)>& f);

// The blocks of for_each_analysed_block one at a time, for a caller that pulls them (a store table
// written row by row from them). The store and study must outlive it.
class AnalysedBlockReader {
 public:
  AnalysedBlockReader(const ResolvedStudy& study, const ResultStore& store, std::span<const std::string> metric_names,
                 std::size_t block_rows);
  // The next block; nullptr after the last. The block lives until the next call.
  const ResultTable* next();

 private:
  const ResolvedStudy& study_;
  const ResultStore& store_;
  std::vector<std::string> metric_names_;
  ResultReadOptions options_;
  ResultTable block_;
  bool done_ = false;
};

}  // namespace dsx
