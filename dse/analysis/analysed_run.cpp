#include "dse/analysis/analysed_run.hpp"

#include <algorithm>
#include <exception>

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

AnalysedRun analyse_run(const ResolvedStudy& study, ResultTable stored, const SweepCounts* counts) {
  AnalysedRun run;
  run.table = std::move(stored);
  run.formulas = apply_formulas(study, run.table);
  run.interval_columns = append_intervals(study, run.table);
  if (run.formulas.kept.size() != run.table.rows()) run.filtered = select_rows(run.table, run.formulas.kept);
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
