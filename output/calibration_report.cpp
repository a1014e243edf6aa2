#include "output/calibration_report.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <set>

#include "output/format.hpp"

namespace dsx {

using json = nlohmann::ordered_json;

std::string interval_text(const RegimeAccuracy& regime, Orientation orientation) {
  const IntervalFactors f = interval_factors(regime, orientation);
  return fmt::format("{:+.0f} % / {:+.0f} %", (f.low - 1) * 100, (f.high - 1) * 100);
}

json calibration_context(const ResolvedStudy& study) {
  // Every key is present whatever the study: the report's strict template check reads them all.
  json c = {{"has_profile", false}, {"name", ""}, {"has_file", false}, {"file", ""}, {"fitted_from", ""},
            {"measurements", 0},    {"predicted", 0},       {"parameters", json::array()},
            {"has_parameters", false}, {"metrics", json::array()}, {"has_metrics", false}};
  const CalibrationProfile* profile = study.calibration.get();
  if (profile == nullptr || study.solver == nullptr) return c;
  c["has_profile"] = true;
  c["name"] = profile->name;
  c["has_file"] = !study.calibration_name.empty() && study.calibration_name != profile->name;
  c["file"] = study.calibration_name;
  c["fitted_from"] = profile->fitted_from;
  c["measurements"] = profile->measurements;
  c["predicted"] = profile->predicted;
  const std::string solver(study.solver->name());
  const auto params = study.solver->params();
  json parameters = json::array();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!study.calibrated[i]) continue;
    const FittedParameter* f = profile->parameter(solver, params[i].name);
    if (f == nullptr) continue;
    const QuantityDisplay display = describe_quantity(params[i].name, params[i].dimension);
    std::string value = format_quantity(f->value, display);
    for (const ResolvedStudy::HardwareScaled& h : study.hardware_scaled) {
      if (h.param != i) continue;
      std::vector<std::string> chips;
      for (std::size_t k = 0; k < h.value_per_hardware.size(); ++k) {
        if (h.value_per_hardware[k] == f->value) continue;
        chips.push_back(study.catalog.hardware[k].id + " " + format_quantity(h.value_per_hardware[k], display));
      }
      if (!chips.empty()) value += "; with the chip's " + f->per_hardware + " factor: " + fmt::format("{}", fmt::join(chips, ", "));
    }
    parameters.push_back({{"name", std::string(params[i].name)},
                          {"value", value},
                          {"spread", f->identified ? format_quantity(f->spread, display) : "not fitted"},
                          {"rows", f->rows},
                          {"status", f->identified ? "fitted" : "too few measurements: the prior"}});
  }
  c["parameters"] = parameters;
  c["has_parameters"] = !parameters.empty();
  json metrics = json::array();
  std::set<std::string> seen;
  for (const IntervalRule& rule : profile->intervals) {
    if (rule.solver != solver) continue;
    const RegimeAccuracy* a = profile->regime(rule.regime);
    if (a == nullptr) continue;
    const std::string key = rule.metric + "|" + rule.regime + "|" + rule.when;
    if (!seen.insert(key).second) continue;
    metrics.push_back({{"metric", rule.metric},
                       {"when", rule.when.empty() ? "always" : rule.when},
                       {"regime", a->description.empty() ? rule.regime : a->description},
                       {"rows", a->rows},
                       {"sources", a->sources},
                       {"mape_cv", format_percent(a->mape_cv, 2)},
                       {"interval", interval_text(*a, rule.orientation) + (a->pooled ? " (pooled)" : "")},
                       {"coverage", format_percent(a->coverage_cv, 2)},
                       {"coverage_in", format_percent(a->coverage, 2)}});
  }
  c["metrics"] = metrics;
  c["has_metrics"] = !metrics.empty();
  return c;
}

}  // namespace dsx
