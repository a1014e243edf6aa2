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
  const StudyAnalyses& a = analyses_of(study);
  out.every = !a.derived.empty() || !a.filters.empty() || !a.constraints.empty() || !a.assertions.empty();
  if (out.every) std::fill(read.begin(), read.end(), true);
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

std::optional<std::vector<std::string>> analysed_metric_names(const ResolvedStudy& study) {
  if (study.solver == nullptr) return std::nullopt;
  if (study.calibration && !analyses_of(study).derived.empty()) return std::nullopt;
  ResultTable empty;
  for (const MetricSpec& m : study.solver->metrics()) empty.metric_names.emplace_back(m.name);
  apply_formulas(study, empty);
  append_intervals(study, empty);
  return empty.metric_names;
}

}  // namespace dsx
