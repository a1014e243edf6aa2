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
// the intervals of a loaded metric are computed with it. A study with derived metrics, filters,
// constraints or assertions reads every solver metric (their expressions are evaluated over the
// solver's whole metric vector, and a derived metric's interval perturbs every metric).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dse/study.hpp"

namespace dsx {

struct ReportColumns {
  bool every = false;                // every solver metric (then `metrics` lists them all)
  std::vector<std::string> metrics;  // solver metrics to load, in the solver's order
};

ReportColumns report_columns(const ResolvedStudy& study);

// The metric columns of the whole analysed table, data aside: the solver metrics, the derived ones
// and the interval columns, as analyse_run gives them. Exact for a study whose columns do not
// depend on its rows, i.e. one without a derived metric or without a calibration profile (a derived
// metric's interval columns exist only where it varies somewhere); nullopt otherwise.
std::optional<std::vector<std::string>> analysed_metric_names(const ResolvedStudy& study);

}  // namespace dsx
