#include "output/analysis_text.hpp"

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

std::string point_text(const ResolvedStudy& study, std::uint64_t point, std::string_view except) {
  const Grid grid(study);
  std::vector<std::uint32_t> coords(study.axes.size());
  grid.coordinates(point, coords);
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (study.axes[a].values.size() > 1 && study.axes[a].param != except) {
      parts.push_back(study.axes[a].param + " = " + study.axes[a].values[coords[a]].label);
    }
  }
  return parts.empty() ? "the single design point" : join(parts, ", ");
}

std::string row_text(const ResultTable& t, std::size_t row) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < t.axis_names.size(); ++a) parts.push_back(t.axis_names[a] + " = " + t.label(row, a));
  return join(parts, ", ");
}

std::string alt_name(const BreakevenAnalysis& a, std::size_t i) {
  return i == kNoAlternative ? std::string("no alternative") : a.alternatives[i];
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

std::string input_phrase(const UncertainInput& in) {
  if (in.target == InputTarget::parameter) return in.name;
  const std::string field(hardware_field_name(in.field));
  const std::string words = field == "peak_flops" ? "peak FLOP/s" : field == "tdp" ? "TDP" : [&] {
    std::string w = field;
    std::replace(w.begin(), w.end(), '_', ' ');
    return w;
  }();
  return in.hardware_id.empty() ? "every accelerator's " + words : "the " + words + " of " + in.hardware_id;
}

}  // namespace dsx::analysis_text
