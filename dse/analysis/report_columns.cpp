#include "dse/analysis/report_columns.hpp"

#include <algorithm>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/expression.hpp"
#include "dse/calibration/intervals.hpp"
#include "dse/calibration/profile.hpp"

namespace dsx {

ReportColumns report_columns(const ResolvedStudy& study) {
  ReportColumns out;
  if (study.solver == nullptr) return out;
  const auto metrics = study.solver->metrics();
  std::vector<bool> read(metrics.size(), false);
  const auto mark = [&](std::string_view name) {
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      if (metrics[m].name == name) read[m] = true;
    }
  };
  read = solver_metrics_read_by_formulas(study);
  for (const Objective& o : study.objectives) mark(o.metric);
  for (const Comparison& c : study.comparisons) mark(c.metric);
  for (const CitedValue& v : study.values) {
    mark(v.metric);
    for (const CitedCondition& c : v.when) mark(c.metric);
  }
  for (const FigureDecl& f : study.figures) {
    mark(f.x);
    for (const std::string& y : f.y) mark(y);
    mark(f.z);
  }
  // The figure dsx draws for a study that declares none (output/figures.hpp effective_figures):
  // its first objectives, else its first metric.
  if (study.figures.empty() && study.objectives.empty() && !metrics.empty()) read.front() = true;
  // An interval rule's `when:` may read other metrics; what it reads is loaded too, and the
  // intervals of what is loaded are computed, so this runs until nothing is added.
  if (study.calibration) {
    for (bool added = true; added;) {
      added = false;
      for (const IntervalRule& rule : study.calibration->intervals) {
        if (rule.solver != study.solver->name() || rule.when.empty()) continue;
        const auto m = std::find_if(metrics.begin(), metrics.end(), [&](const MetricSpec& s) { return s.name == rule.metric; });
        if (m == metrics.end() || !read[static_cast<std::size_t>(m - metrics.begin())]) continue;
        for (const std::string& name : scan_expression(rule.when).names) {
          for (std::size_t k = 0; k < metrics.size(); ++k) {
            if (metrics[k].name == name && !read[k]) read[k] = added = true;
          }
        }
      }
    }
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (read[m]) out.metrics.emplace_back(metrics[m].name);
  }
  out.every = out.metrics.size() == metrics.size();
  return out;
}

std::optional<std::vector<std::string>> analysed_metric_names(const ResolvedStudy& study, const ResultTable* analysed) {
  if (study.solver == nullptr) return std::nullopt;
  const StudyAnalyses& a = analyses_of(study);
  const bool rows_decide = study.calibration && !a.derived.empty();
  if (rows_decide && analysed == nullptr) return std::nullopt;
  ResultTable empty;
  for (const MetricSpec& m : study.solver->metrics()) empty.metric_names.emplace_back(m.name);
  apply_formulas(study, empty);
  append_intervals(study, empty);  // no row: no derived metric varies, so none has an interval
  if (rows_decide) {
    for (const DerivedMetric& d : a.derived) {
      for (const std::string& name : {interval_low_name(d.name), interval_high_name(d.name)}) {
        if (analysed->metric_column(name) >= 0) empty.metric_names.push_back(name);
      }
    }
  }
  return empty.metric_names;
}

}  // namespace dsx
