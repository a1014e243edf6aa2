#include "dse/analysis/analysed_run.hpp"

#include <algorithm>
#include <exception>

namespace dsx {

bool AnalysedRun::assertions_hold() const {
  return std::all_of(assertions.begin(), assertions.end(), [](const AssertionOutcome& a) { return a.held; });
}

bool AnalysedRun::analyses_ran() const {
  return std::all_of(breakevens.begin(), breakevens.end(), [](const BreakevenRun& b) { return b.analysis.has_value(); }) &&
         std::all_of(sensitivities.begin(), sensitivities.end(),
                     [](const SensitivityRun& s) { return s.analysis.has_value(); });
}

AnalysedRun analyse_run(const ResolvedStudy& study, ResultTable stored) {
  AnalysedRun run;
  run.table = std::move(stored);
  run.formulas = apply_formulas(study, run.table);
  if (run.formulas.kept.size() != run.table.rows()) run.filtered = select_rows(run.table, run.formulas.kept);
  run.fronts = study_fronts(study, run.shown());
  const StudyAnalyses& a = analyses_of(study);
  run.top_k = top_k_rows(study, run.shown(), a.top_k);
  run.assertions = evaluate_assertions(study, run.shown());
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
