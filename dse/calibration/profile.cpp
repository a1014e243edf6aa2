#include "dse/calibration/profile.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "dse/diagnostics.hpp"
#include "dse/quantity.hpp"
#include "dse/yaml_reader.hpp"
#include "engine/registry.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 9> kProfileKeys = {
    "profile", "fitted_from", "measurements", "predicted", "measurements_hash", "parameters", "hardware_factors",
    "regimes", "intervals"};
constexpr std::array<std::string_view, 9> kParameterKeys = {"solver", "name",       "value", "spread",      "prior",
                                                            "identified", "rows", "per_hardware", "fixed"};
constexpr std::array<std::string_view, 5> kFactorKeys = {"family", "hardware", "factor", "spread", "rows"};
constexpr std::array<std::string_view, 13> kRegimeKeys = {
    "name", "rows", "sources", "log_error_p10", "log_error_p90", "pooled", "mape", "median_ape", "mape_cv",
    "median_ape_cv", "coverage", "coverage_cv", "description"};
constexpr std::array<std::string_view, 5> kIntervalKeys = {"solver", "metric", "regime", "orientation", "when"};
constexpr std::array<std::string_view, 2> kOrientationNames = {"rate", "time"};

std::string at(std::string_view path, std::size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }

class ProfileReader {
 public:
  ProfileReader(const YamlReader& r, std::string_view path) : r_(r), path_(path) {}

  std::optional<CalibrationProfile> read(const YamlNode& root) {
    const std::size_t errors_before = r_.diags().error_count();
    if (!r_.expect_mapping(root, path_)) return std::nullopt;
    r_.check_keys(root, kProfileKeys, path_);
    CalibrationProfile p;
    if (const YamlNode* n = r_.require(root, "profile", path_)) p.name = text(*n, "profile");
    if (const YamlNode* n = root.find("fitted_from")) p.fitted_from = text(*n, "fitted_from", true);
    if (const YamlNode* n = root.find("measurements")) p.measurements = count(*n, key("measurements"));
    if (const YamlNode* n = root.find("predicted")) p.predicted = count(*n, key("predicted"));
    if (const YamlNode* n = root.find("measurements_hash")) p.measurements_hash = text(*n, "measurements_hash", true);
    if (const YamlNode* list = root.find("parameters")) read_list(*list, "parameters", [&](const YamlNode& e, const std::string& where) {
      read_parameter(e, where, p);
    });
    if (const YamlNode* list = root.find("hardware_factors")) {
      read_list(*list, "hardware_factors", [&](const YamlNode& e, const std::string& where) { read_factor(e, where, p); });
    }
    if (const YamlNode* list = root.find("regimes")) read_list(*list, "regimes", [&](const YamlNode& e, const std::string& where) {
      read_regime(e, where, p);
    });
    if (const YamlNode* list = root.find("intervals")) read_list(*list, "intervals", [&](const YamlNode& e, const std::string& where) {
      read_interval(e, where, p);
    });
    if (r_.diags().error_count() != errors_before) return std::nullopt;
    return p;
  }

 private:
  std::string key(std::string_view k) const { return path_.empty() ? std::string(k) : path_ + "." + std::string(k); }

  std::string text(const YamlNode& n, std::string_view k, bool allow_empty = false) const {
    return r_.string(n, key(k), allow_empty).value_or("");
  }
  double number(const YamlNode& n, const std::string& where) const {
    const auto q = r_.quantity(n, Dimension::dimensionless, where);
    return q ? q->value : 0.0;
  }
  std::size_t count(const YamlNode& n, const std::string& where) const {
    QuantityBounds b;
    b.bounded = true;
    b.max_value = 1e12;
    b.integer = true;
    const auto q = r_.quantity(n, Dimension::dimensionless, where, b);
    return q ? static_cast<std::size_t>(q->value) : 0;
  }
  bool flag(const YamlNode& n, const std::string& where) const { return r_.boolean(n, where).value_or(false); }

  template <class Each>
  void read_list(const YamlNode& list, std::string_view k, Each each) {
    if (!r_.expect_sequence(list, key(k))) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const std::string where = at(key(k), i);
      if (r_.expect_mapping(list.items[i], where)) each(list.items[i], where);
    }
  }

  void read_parameter(const YamlNode& e, const std::string& where, CalibrationProfile& p) {
    r_.check_keys(e, kParameterKeys, where);
    FittedParameter f;
    const YamlNode* solver_node = r_.require(e, "solver", where);
    const YamlNode* name_node = r_.require(e, "name", where);
    if (solver_node == nullptr || name_node == nullptr) return;
    f.solver = r_.string(*solver_node, where + ".solver").value_or("");
    f.name = r_.string(*name_node, where + ".name").value_or("");
    const Solver* solver = find_solver(f.solver);
    if (solver == nullptr) {
      r_.unknown(*solver_node, "solver", solver_names(), where);
      return;
    }
    std::vector<std::string> numbers;
    for (const ParamSpec& s : solver->params()) {
      if (s.kind == ParamKind::number) numbers.emplace_back(s.name);
    }
    if (std::find(numbers.begin(), numbers.end(), f.name) == numbers.end()) {
      r_.unknown(*name_node, std::string(f.solver) + " number parameter", numbers, where);
      return;
    }
    if (const YamlNode* n = r_.require(e, "value", where)) f.value = number(*n, where + ".value");
    if (const YamlNode* n = e.find("spread")) f.spread = number(*n, where + ".spread");
    if (const YamlNode* n = e.find("prior")) f.prior = number(*n, where + ".prior");
    if (const YamlNode* n = e.find("identified")) f.identified = flag(*n, where + ".identified");
    if (const YamlNode* n = e.find("rows")) f.rows = count(*n, where + ".rows");
    if (const YamlNode* n = e.find("per_hardware")) f.per_hardware = r_.string(*n, where + ".per_hardware").value_or("");
    if (const YamlNode* n = e.find("fixed")) f.fixed = flag(*n, where + ".fixed");
    for (const ParamSpec& s : solver->params()) {
      if (s.name != f.name) continue;
      const std::string problem = check_bounds(
          f.value, QuantityBounds{s.max_value > s.min_value, s.min_value, s.max_value, s.min_exclusive, s.integer},
          s.dimension, where + ".value", number_text(f.value));
      if (!problem.empty()) r_.error(*e.find("value"), problem);
    }
    if (p.parameter(f.solver, f.name) != nullptr) {
      r_.error(*name_node, where + ": " + f.solver + "." + f.name + " is given twice");
      return;
    }
    p.parameters.push_back(std::move(f));
  }

  void read_factor(const YamlNode& e, const std::string& where, CalibrationProfile& p) {
    r_.check_keys(e, kFactorKeys, where);
    HardwareFactor h;
    const YamlNode* family_node = r_.require(e, "family", where);
    const YamlNode* hardware_node = r_.require(e, "hardware", where);
    const YamlNode* factor_node = r_.require(e, "factor", where);
    if (family_node == nullptr || hardware_node == nullptr || factor_node == nullptr) return;
    h.family = r_.string(*family_node, where + ".family").value_or("");
    h.hardware = r_.string(*hardware_node, where + ".hardware").value_or("");
    QuantityBounds positive;
    positive.bounded = true;
    positive.max_value = 1e6;
    positive.min_exclusive = true;
    if (const auto q = r_.quantity(*factor_node, Dimension::dimensionless, where + ".factor", positive)) h.factor = q->value;
    if (const YamlNode* n = e.find("spread")) h.spread = number(*n, where + ".spread");
    if (const YamlNode* n = e.find("rows")) h.rows = count(*n, where + ".rows");
    const bool family_used = std::any_of(p.parameters.begin(), p.parameters.end(),
                                         [&](const FittedParameter& f) { return f.per_hardware == h.family; });
    if (!family_used) {
      std::vector<std::string> families;
      for (const FittedParameter& f : p.parameters) {
        if (!f.per_hardware.empty() && std::find(families.begin(), families.end(), f.per_hardware) == families.end()) {
          families.push_back(f.per_hardware);
        }
      }
      r_.unknown(*family_node, "per_hardware name", families, where);
      return;
    }
    const bool twice = std::any_of(p.hardware_factors.begin(), p.hardware_factors.end(), [&](const HardwareFactor& g) {
      return g.family == h.family && g.hardware == h.hardware;
    });
    if (twice) {
      r_.error(*hardware_node, where + ": the " + h.family + " factor of '" + h.hardware + "' is given twice");
      return;
    }
    p.hardware_factors.push_back(std::move(h));
  }

  void read_regime(const YamlNode& e, const std::string& where, CalibrationProfile& p) {
    r_.check_keys(e, kRegimeKeys, where);
    RegimeAccuracy a;
    const YamlNode* name_node = r_.require(e, "name", where);
    if (name_node == nullptr) return;
    a.name = r_.string(*name_node, where + ".name").value_or("");
    const auto num = [&](std::string_view k, double& v) {
      if (const YamlNode* n = e.find(k)) v = number(*n, where + "." + std::string(k));
    };
    if (const YamlNode* n = e.find("rows")) a.rows = count(*n, where + ".rows");
    if (const YamlNode* n = e.find("sources")) a.sources = count(*n, where + ".sources");
    if (const YamlNode* n = r_.require(e, "log_error_p10", where)) a.log_error_p10 = number(*n, where + ".log_error_p10");
    if (const YamlNode* n = r_.require(e, "log_error_p90", where)) a.log_error_p90 = number(*n, where + ".log_error_p90");
    if (const YamlNode* n = e.find("pooled")) a.pooled = flag(*n, where + ".pooled");
    num("mape", a.mape);
    num("median_ape", a.median_ape);
    num("mape_cv", a.mape_cv);
    num("median_ape_cv", a.median_ape_cv);
    num("coverage", a.coverage);
    num("coverage_cv", a.coverage_cv);
    if (const YamlNode* n = e.find("description")) a.description = r_.string(*n, where + ".description").value_or("");
    if (a.log_error_p10 > a.log_error_p90) {
      r_.error(*e.find("log_error_p10"), where + ": log_error_p10 must not exceed log_error_p90");
    }
    if (p.regime(a.name) != nullptr) {
      r_.error(*name_node, where + ": regime '" + a.name + "' is given twice");
      return;
    }
    p.regimes.push_back(std::move(a));
  }

  void read_interval(const YamlNode& e, const std::string& where, CalibrationProfile& p) {
    r_.check_keys(e, kIntervalKeys, where);
    IntervalRule rule;
    const YamlNode* solver_node = r_.require(e, "solver", where);
    const YamlNode* metric_node = r_.require(e, "metric", where);
    const YamlNode* regime_node = r_.require(e, "regime", where);
    const YamlNode* orientation_node = r_.require(e, "orientation", where);
    if (solver_node == nullptr || metric_node == nullptr || regime_node == nullptr || orientation_node == nullptr) return;
    rule.solver = r_.string(*solver_node, where + ".solver").value_or("");
    rule.metric = r_.string(*metric_node, where + ".metric").value_or("");
    rule.regime = r_.string(*regime_node, where + ".regime").value_or("");
    if (const YamlNode* n = e.find("when")) rule.when = r_.string(*n, where + ".when").value_or("");
    const Solver* solver = find_solver(rule.solver);
    if (solver == nullptr) {
      r_.unknown(*solver_node, "solver", solver_names(), where);
      return;
    }
    std::vector<std::string> metrics;
    for (const MetricSpec& m : solver->metrics()) metrics.emplace_back(m.name);
    if (std::find(metrics.begin(), metrics.end(), rule.metric) == metrics.end()) {
      r_.unknown(*metric_node, rule.solver + " metric", metrics, where);
      return;
    }
    if (p.regime(rule.regime) == nullptr) {
      std::vector<std::string> regimes;
      for (const RegimeAccuracy& a : p.regimes) regimes.push_back(a.name);
      r_.unknown(*regime_node, "regime", regimes, where);
      return;
    }
    const std::string o = r_.string(*orientation_node, where + ".orientation").value_or("");
    if (o == "rate" || o == "time") {
      rule.orientation = o == "rate" ? Orientation::rate : Orientation::time;
    } else {
      const std::vector<std::string> names(kOrientationNames.begin(), kOrientationNames.end());
      r_.unknown(*orientation_node, "orientation", names, where);
      return;
    }
    p.intervals.push_back(std::move(rule));
  }

  const YamlReader& r_;
  std::string path_;
};

// Six significant digits: the fit's statistics do not carry more, and the text stays the same across builds
// whose floating-point rounding differs in the last bits.
std::string yaml_number(double v) { return number_text(v, 6); }

}  // namespace

std::string_view orientation_name(Orientation o) { return kOrientationNames[static_cast<std::size_t>(o)]; }

const FittedParameter* CalibrationProfile::parameter(std::string_view solver, std::string_view param) const {
  for (const FittedParameter& f : parameters) {
    if (f.solver == solver && f.name == param) return &f;
  }
  return nullptr;
}

double CalibrationProfile::hardware_factor(std::string_view family, std::string_view hardware) const {
  for (const HardwareFactor& h : hardware_factors) {
    if (h.family == family && h.hardware == hardware) return h.factor;
  }
  return 1.0;
}

const RegimeAccuracy* CalibrationProfile::regime(std::string_view regime_name) const {
  for (const RegimeAccuracy& a : regimes) {
    if (a.name == regime_name) return &a;
  }
  return nullptr;
}

IntervalFactors interval_factors(const RegimeAccuracy& regime, Orientation orientation) {
  if (orientation == Orientation::rate) return {std::exp(-regime.log_error_p90), std::exp(-regime.log_error_p10)};
  return {std::exp(regime.log_error_p10), std::exp(regime.log_error_p90)};
}

std::optional<CalibrationProfile> read_profile(const YamlReader& reader, const YamlNode& root, std::string_view path) {
  return ProfileReader(reader, path).read(root);
}

std::optional<CalibrationProfile> load_profile(const std::string& file, Diagnostics& diags) {
  const std::optional<std::string> text = read_input_file(file, "calibration profile", diags);
  if (!text) return std::nullopt;
  YamlReader reader(file, diags);
  const auto root = reader.parse(*text);
  if (!root) return std::nullopt;
  return read_profile(reader, *root, "");
}

std::string profile_yaml(const CalibrationProfile& p, std::string_view indent) {
  const std::string in(indent);
  std::string out;
  out += in + "profile: " + yaml_scalar(p.name) + "\n";
  if (!p.fitted_from.empty()) out += in + "fitted_from: " + yaml_scalar(p.fitted_from) + "\n";
  out += in + "measurements: " + std::to_string(p.measurements) + "\n";
  out += in + "predicted: " + std::to_string(p.predicted) + "\n";
  if (!p.measurements_hash.empty()) out += in + "measurements_hash: " + yaml_scalar(p.measurements_hash) + "\n";
  out += in + "parameters:" + (p.parameters.empty() ? " []\n" : "\n");
  for (const FittedParameter& f : p.parameters) {
    out += in + "  - {solver: " + yaml_scalar(f.solver) + ", name: " + yaml_scalar(f.name) +
           ", value: " + yaml_number(f.value) + ", spread: " + yaml_number(f.spread) +
           ", prior: " + yaml_number(f.prior) + ", identified: " + (f.identified ? "true" : "false") +
           ", rows: " + std::to_string(f.rows) +
           (f.per_hardware.empty() ? "" : ", per_hardware: " + yaml_scalar(f.per_hardware)) +
           (f.fixed ? ", fixed: true" : "") + "}\n";
  }
  if (!p.hardware_factors.empty()) out += in + "hardware_factors:\n";
  for (const HardwareFactor& h : p.hardware_factors) {
    out += in + "  - {family: " + yaml_scalar(h.family) + ", hardware: " + yaml_scalar(h.hardware) +
           ", factor: " + yaml_number(h.factor) + ", spread: " + yaml_number(h.spread) +
           ", rows: " + std::to_string(h.rows) + "}\n";
  }
  out += in + "regimes:" + (p.regimes.empty() ? " []\n" : "\n");
  for (const RegimeAccuracy& a : p.regimes) {
    out += in + "  - {name: " + yaml_scalar(a.name) + ", rows: " + std::to_string(a.rows) +
           ", sources: " + std::to_string(a.sources) + ", log_error_p10: " + yaml_number(a.log_error_p10) +
           ", log_error_p90: " + yaml_number(a.log_error_p90) + ", pooled: " + (a.pooled ? "true" : "false") +
           ", mape: " + yaml_number(a.mape) + ", median_ape: " + yaml_number(a.median_ape) +
           ", mape_cv: " + yaml_number(a.mape_cv) + ", median_ape_cv: " + yaml_number(a.median_ape_cv) +
           ", coverage: " + yaml_number(a.coverage) + ", coverage_cv: " + yaml_number(a.coverage_cv) +
           (a.description.empty() ? std::string() : ", description: " + yaml_scalar(a.description)) + "}\n";
  }
  out += in + "intervals:" + (p.intervals.empty() ? " []\n" : "\n");
  for (const IntervalRule& r : p.intervals) {
    out += in + "  - {solver: " + yaml_scalar(r.solver) + ", metric: " + yaml_scalar(r.metric) +
           ", regime: " + yaml_scalar(r.regime) + ", orientation: " + std::string(orientation_name(r.orientation)) +
           (r.when.empty() ? "" : ", when: " + yaml_scalar(r.when)) + "}\n";
  }
  return out;
}

}  // namespace dsx
