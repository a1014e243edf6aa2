// The solver metric columns the analyse and report steps read of a run's stored rows: what
// `dsx run` and `dsx report` load into the table they analyse, so that the table's memory grows
// with the columns a study reads rather than with every column the solver writes. The files that
// hold every column (results.csv, pareto.csv, the store's intervals table) are written from the
// store block by block instead (dse/analysis/analysed_run.hpp AnalysedBlockReader).
//
// Read from the compiled study, once: the objectives (fronts, top-k, best rows, knees, the
// analysis figures), the figures' x, y and z (or the figure dsx draws when a study declares none),
// the comparisons and the cited values, and, where the study has a calibration profile, the
// metrics the `when:` of an interval rule of a loaded metric reads (dse/calibration/intervals.hpp);
// the intervals of a loaded metric are computed with it. A study's derived metrics, filters,
// constraints and assertions add the solver metrics their expressions name (dse/analysis/derived.hpp
// solver_metrics_read_by_formulas): a derived metric's value and interval depend on no other.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

struct ReportColumns {
  bool every = false;                // every solver metric (then `metrics` lists them all)
  std::vector<std::string> metrics;  // solver metrics to load, in the solver's order
};

ReportColumns report_columns(const ResolvedStudy& study);

// The metric columns of the whole analysed table, data aside: the solver metrics, the derived ones
// and the interval columns, as analyse_run gives them. A derived metric's interval columns exist
// only where it varies in some row, so for a study with derived metrics and a calibration profile
// they are taken from `analysed` (the analysed table of every row, loaded with some columns: a
// derived metric varies in it where it varies in the whole table); nullopt without it.
std::optional<std::vector<std::string>> analysed_metric_names(const ResolvedStudy& study,
                                                              const ResultTable* analysed = nullptr);

}  // namespace dsx
