#include "output/analysis_text.hpp"

#include "output/readable_label.hpp"

#include <algorithm>

#include "dse/grid.hpp"

namespace dsx::analysis_text {

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? std::string(sep) : "") + parts[i];
  return out;
}

QuantityDisplay metric_display(const ResolvedStudy& study, const std::string& metric) {
  const auto m = find_study_metric(study, metric);
  return describe_quantity(metric, m ? m->dimension : Dimension::dimensionless);
}

std::string metric_words(const ResolvedStudy& study, const std::string& metric) {
  const QuantityDisplay d = metric_display(study, metric);
  return d.label.empty() ? metric : d.label;
}

std::string group_text(const std::vector<Selector>& labels, std::string_view eq) {
  std::vector<std::string> parts;
  for (const Selector& s : labels) parts.push_back(s.param + std::string(eq) + s.label);
  return join(parts, ", ");
}

std::string group_words(const ResolvedStudy& study, const std::vector<Selector>& labels, bool in_figure) {
  std::vector<std::string> parts;
  for (const Selector& s : labels) {
    parts.push_back(s.param + " = " + (in_figure ? figure_value : readable_value)(study, s.param, s.label));
  }
  return join(parts, ", ");
}

std::string where_text(const ResolvedStudy& study, const std::vector<Selector>& where) {
  std::vector<std::pair<std::string, std::vector<std::string>>> params;
  for (const Selector& s : where) {
    auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == s.param; });
    if (it == params.end()) it = params.insert(params.end(), {s.param, {}});
    it->second.push_back(readable_value(study, s.param, s.label));
  }
  std::vector<std::string> parts;
  for (const auto& [param, labels] : params) {
    std::string values;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      values += (i == 0 ? "" : i + 1 == labels.size() ? " or " : ", ") + labels[i];
    }
    parts.push_back(param + " = " + values);
  }
  return join(parts, ", ");
}

std::string objective_words(const ResolvedStudy& study, const Objective& o) {
  std::string words = std::string(o.direction == Direction::minimize ? "lowest " : "highest ") + metric_words(study, o.metric);
  if (!o.where.empty()) words += " where " + where_text(study, o.where);
  return words;
}

std::string point_text(const ResolvedStudy& study, std::uint64_t point, std::string_view except) {
  const Grid grid(study);
  std::vector<std::uint32_t> coords(study.axes.size());
  grid.coordinates(point, coords);
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (study.axes[a].values.size() > 1 && study.axes[a].param != except) {
      parts.push_back(study.axes[a].param + " = " + readable_value(study, study.axes[a].param, study.axes[a].values[coords[a]].label));
    }
  }
  return parts.empty() ? "the single design point" : join(parts, ", ");
}

std::string row_text(const ResultTable& t, std::size_t row) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < t.axis_names.size(); ++a) parts.push_back(t.axis_names[a] + " = " + t.label(row, a));
  return join(parts, ", ");
}

std::string row_words(const ResolvedStudy& study, const ResultTable& t, std::size_t row) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < t.axis_names.size(); ++a) {
    parts.push_back(t.axis_names[a] + " = " + readable_value(study, t.axis_names[a], t.label(row, a)));
  }
  return join(parts, ", ");
}

std::string alt_name(const BreakevenAnalysis& a, std::size_t i) {
  return i == kNoAlternative ? std::string("no alternative") : a.alternatives[i];
}

std::string alt_words(const ResolvedStudy& study, const BreakevenAnalysis& a, std::size_t i) {
  return i == kNoAlternative ? std::string("no alternative") : readable_value(study, a.request.alternatives, a.alternatives[i]);
}

std::string alternative_words(const ResolvedStudy& study, const SensitivityAnalysis& s, std::size_t i) {
  return readable_value(study, s.request.decide, s.alternatives[i]);
}

const ParamSpec& along_spec(const ResolvedStudy& study, const BreakevenAnalysis& a) {
  return study.solver->params()[a.along_param];
}

std::string along_value_text(const ResolvedStudy& study, const BreakevenAnalysis& a, double v) {
  const ParamSpec& p = along_spec(study, a);
  return format_quantity(v, describe_quantity(p.name, p.dimension));
}

std::string metric_of_analysis(const BreakevenAnalysis& a) {
  return a.request.metrics.empty() ? a.request.metric : a.request.metrics.front();
}

std::string param_words(std::string_view param) {
  const std::string words = describe_quantity(param, Dimension::dimensionless).label;
  return words.empty() ? std::string(param) : words;
}

namespace {

std::string where_words(const ResolvedStudy& study, const std::vector<Selector>& where) {
  std::vector<std::string> parts;
  for (const Selector& s : where) parts.push_back(param_words(s.param) + " = " + readable_value(study, s.param, s.label));
  return join(parts, ", ");
}

}  // namespace

std::string analysis_words(const ResolvedStudy& study, const BreakevenRequest& r) {
  if (!r.description.empty()) return r.description;
  std::string words;
  if (r.metrics.empty()) {
    words = metric_words(study, r.metric) + " of each " + param_words(r.alternatives);
  } else {
    std::vector<std::string> metrics;
    for (const std::string& m : r.metrics) metrics.push_back(metric_words(study, m));
    words = join(metrics, " vs ");
  }
  words += " along " + param_words(r.along);
  if (!r.where.empty()) words += " where " + where_words(study, r.where);
  return words;
}

std::string analysis_words(const ResolvedStudy& study, const SensitivityRequest& r) {
  if (!r.description.empty()) return r.description;
  if (r.decide.empty()) return "what " + metric_words(study, r.metric) + " depends on";
  return param_words(r.decide) + " with the " + (r.direction == Direction::minimize ? "lowest " : "highest ") +
         metric_words(study, r.metric);
}

namespace {

std::string hardware_words(const ResolvedStudy& study, const std::string& id) {
  const HardwareSpec* h = study.catalog.find_hardware(id);
  return h != nullptr && !h->name.empty() ? h->name : id;
}

}  // namespace

std::string input_phrase(const ResolvedStudy& study, const UncertainInput& in) {
  if (in.target == InputTarget::parameter) {
    for (const ParamSpec& p : study.solver->params()) {
      if (p.name == in.name) return parameter_words(p, /*with_unit=*/false);
    }
    return in.name;
  }
  const std::string words = hardware_field_words(hardware_field_name(in.field));
  return in.hardware_id.empty() ? "every accelerator's " + words : "the " + words + " of " + hardware_words(study, in.hardware_id);
}

}  // namespace dsx::analysis_text
