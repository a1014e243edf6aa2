#include "dse/analysis/analysed_run.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <stdexcept>

#include "dse/analysis/report_columns.hpp"
#include "dse/calibration/intervals.hpp"

namespace dsx {

bool AnalysedRun::assertions_hold() const {
  return std::all_of(assertions.begin(), assertions.end(), [](const AssertionOutcome& a) { return a.held; });
}

bool AnalysedRun::analyses_ran() const {
  return std::all_of(breakevens.begin(), breakevens.end(), [](const BreakevenRun& b) { return b.analysis.has_value(); }) &&
         std::all_of(sensitivities.begin(), sensitivities.end(),
                     [](const SensitivityRun& s) { return s.analysis.has_value(); });
}

std::size_t added_metric_columns_bound(const ResolvedStudy& study) {
  const std::size_t derived = analyses_of(study).derived.size();
  return derived + (study.calibration ? 2 * (study.solver->metrics().size() + derived) : 0);
}

ResultTable read_report_rows(const ResolvedStudy& study, const ResultStore& store) {
  const ReportColumns columns = report_columns(study);
  if (columns.every) return store.read_results(added_metric_columns_bound(study));
  ResultReadOptions options;
  options.metrics = columns.metrics;
  const std::size_t derived = analyses_of(study).derived.size();
  options.spare_metric_columns = derived + 2 * (columns.metrics.size() + derived);  // derived metrics, intervals
  ResultTable t = store.read_results(options);
  if (store.has_results() && t.metric_names != columns.metrics) {
    for (const std::string& name : columns.metrics) {
      if (std::find(t.metric_names.begin(), t.metric_names.end(), name) == t.metric_names.end()) {
        throw std::runtime_error(store.path() + ": the results have no column for metric '" + name + "'");
      }
    }
  }
  return t;
}

AnalysedBlockReader::AnalysedBlockReader(const ResolvedStudy& study, const ResultStore& store,
                               std::span<const std::string> metric_names, std::size_t block_rows)
    : study_(study), store_(store), metric_names_(metric_names.begin(), metric_names.end()) {
  options_.max_rows = std::max<std::size_t>(block_rows, 1);
  options_.spare_metric_columns = added_metric_columns_bound(study);
}

const ResultTable* AnalysedBlockReader::next() {
  if (done_) return nullptr;
  block_ = ResultTable();  // the previous block goes before the next is read
  ResultTable block = store_.read_results(options_);
  if (block.rows() == 0) {
    done_ = true;
    return nullptr;
  }
  options_.after_point = block.point_index.back();
  apply_formulas(study_, block);
  append_intervals(study_, block);
  std::vector<int> source;
  for (const std::string& name : metric_names_) source.push_back(block.metric_column(name));
  const std::size_t width = block.metric_names.size();
  std::vector<double> metrics(block.rows() * metric_names_.size());
  for (std::size_t r = 0; r < block.rows(); ++r) {
    for (std::size_t m = 0; m < source.size(); ++m) {
      metrics[r * source.size() + m] = source[m] < 0 ? std::numeric_limits<double>::quiet_NaN()
                                                     : block.metrics[r * width + static_cast<std::size_t>(source[m])];
    }
  }
  block.metrics = std::move(metrics);
  block.metric_names = metric_names_;
  block_ = std::move(block);
  return &block_;
}

void for_each_analysed_block(const ResolvedStudy& study, const ResultStore& store,
                             std::span<const std::string> metric_names, std::size_t block_rows,
                             const std::function<void(const ResultTable&)>& f) {
  AnalysedBlockReader blocks(study, store, metric_names, block_rows);
  while (const ResultTable* block = blocks.next()) f(*block);
}

AnalysedRun analyse_run(const ResolvedStudy& study, ResultTable stored, const SweepCounts* counts) {
  AnalysedRun run;
  run.table = std::move(stored);
  run.formulas = apply_formulas(study, run.table);
  run.interval_columns = append_intervals(study, run.table);
  for (const MetricSpec& m : study.solver->metrics()) {
    if (run.table.metric_column(m.name) < 0) run.columns_selected = true;
  }
  if (!run.formulas.every_row_kept) run.filtered = select_rows(run.table, run.formulas.kept);
  run.fronts = study_fronts(study, run.shown());
  const StudyAnalyses& a = analyses_of(study);
  run.top_k = top_k_rows(study, run.shown(), a.top_k);
  run.best = a.top_k > 0 ? run.top_k : best_rows(study, run.shown());
  if (counts != nullptr && counts->formulas_applied) {
    run.formulas.constraint_violations.assign(counts->constraint_violations.begin(), counts->constraint_violations.end());
    run.formulas.filtered_out.assign(counts->filtered_out.begin(), counts->filtered_out.end());
    const ResultTable& shown = run.shown();
    for (std::size_t i = 0; i < counts->assertions.size() && i < a.assertions.size(); ++i) {
      const AssertionCount& c = counts->assertions[i];
      AssertionOutcome o;
      o.assertion = i;
      o.rows_checked = c.checked;
      o.rows_holding = c.holding;
      if (c.has_example) {
        const auto it = std::lower_bound(shown.point_index.begin(), shown.point_index.end(), c.example_point);
        if (it != shown.point_index.end() && *it == c.example_point) {
          o.example_row = static_cast<std::size_t>(it - shown.point_index.begin());
        }
      }
      o.held = a.assertions[i].require == Quantifier::all ? (o.rows_checked > 0 && o.rows_holding == o.rows_checked)
                                                          : o.rows_holding > 0;
      run.assertions.push_back(o);
    }
  } else {
    run.assertions = evaluate_assertions(study, run.shown());
  }
  run.values = compute_cited_values(study, run.table, run.shown());
  for (const BreakevenRequest& r : a.breakevens) {
    BreakevenRun b;
    b.request = &r;
    try {
      b.analysis = run_breakeven(study, r);
    } catch (const std::exception& e) {
      b.error = e.what();
    }
    run.breakevens.push_back(std::move(b));
  }
  for (const SensitivityRequest& r : a.sensitivities) {
    SensitivityRun s;
    s.request = &r;
    try {
      s.analysis = run_sensitivity(study, r);
    } catch (const std::exception& e) {
      s.error = e.what();
    }
    run.sensitivities.push_back(std::move(s));
  }
  return run;
}

}  // namespace dsx
