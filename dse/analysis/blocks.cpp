#include "dse/analysis/blocks.hpp"

namespace dsx {

const DerivedMetric* StudyAnalyses::find_derived(std::string_view name) const {
  for (const DerivedMetric& d : derived) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

bool StudyAnalyses::empty() const {
  return grid_constraints.empty() && keep.all && derived.empty() && filters.empty() && constraints.empty() && assertions.empty() && top_k == 0 &&
         pareto.group.empty() && pareto.epsilon.empty() && breakevens.empty() && sensitivities.empty();
}

const StudyAnalyses& analyses_of(const ResolvedStudy& study) {
  static const StudyAnalyses kNone;
  return study.analyses ? *study.analyses : kNone;
}

std::optional<StudyMetric> find_study_metric(const ResolvedStudy& study, std::string_view name) {
  if (study.solver != nullptr) {
    const auto metrics = study.solver->metrics();
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      if (metrics[m].name == name) {
        return StudyMetric{std::string(name), metrics[m].dimension, std::string(metrics[m].description), false, m};
      }
    }
  }
  const StudyAnalyses& a = analyses_of(study);
  for (std::size_t d = 0; d < a.derived.size(); ++d) {
    if (a.derived[d].name == name) {
      return StudyMetric{a.derived[d].name, a.derived[d].dimension, a.derived[d].description, true, d};
    }
  }
  return std::nullopt;
}

std::vector<std::string> study_metric_names(const ResolvedStudy& study) {
  std::vector<std::string> names;
  if (study.solver != nullptr) {
    for (const MetricSpec& m : study.solver->metrics()) names.emplace_back(m.name);
  }
  for (const DerivedMetric& d : analyses_of(study).derived) names.push_back(d.name);
  return names;
}

}  // namespace dsx
