#include "dse/calibration/measurements.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dse/quantity.hpp"
#include "dse/study_loader.hpp"
#include "dse/yaml_reader.hpp"
#include "engine/registry.hpp"

namespace dsx {

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 3> kFileKeys = {"catalog", "regimes", "measurements"};
constexpr std::array<std::string_view, 4> kRegimeKeys = {"name", "description", "fit", "intervals"};
constexpr std::array<std::string_view, 3> kRegimeIntervalKeys = {"solver", "metrics", "when"};
constexpr std::array<std::string_view, 11> kRowKeys = {"id",    "regime", "solver", "inputs",         "metric",  "measured",
                                                       "source", "stack", "notes",  "cannot_predict", "workload"};
constexpr std::array<std::string_view, 4> kFitKeys = {"parameter", "prior", "per_hardware", "fixed"};
constexpr std::array<std::string_view, 5> kSourceKeys = {"citation", "url", "read", "date", "campaign"};

struct ParsedFile {
  std::string file;
  std::unique_ptr<YamlReader> reader;
  std::optional<YamlNode> root;
};

bool valid_id(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
}

std::vector<std::string> expand(const std::vector<std::string>& paths, Diagnostics& diags) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> in_folder;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.path().extension() == ".yaml" && e.is_regular_file(ec)) in_folder.push_back(e.path().string());
      }
      std::sort(in_folder.begin(), in_folder.end());
      if (in_folder.empty()) diags.error(SourceLocation{p}, "the folder holds no .yaml measurement file");
      files.insert(files.end(), in_folder.begin(), in_folder.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

std::optional<std::string> read_text(const std::string& file, Diagnostics& diags) {
  return read_input_file(file, "measurement file", diags);
}

const Solver* solver_named(const YamlReader& r, const YamlNode& node, const std::string& path) {
  const auto name = r.string(node, path);
  if (!name) return nullptr;
  const Solver* solver = find_solver(*name);
  if (solver == nullptr) {
    r.unknown(node, "solver", solver_names());
  }
  return solver;
}

class MeasurementReader {
 public:
  MeasurementReader(MeasurementSet& set, Catalog& catalog) : set_(set), catalog_(catalog) {}

  void read_catalog(const YamlReader& r, const YamlNode& block) {
    if (!r.expect_mapping(block, "catalog")) return;
    std::vector<std::string_view> keys = {"hardware", "models"};
    for (const BundleKind& kind : kBundleKinds) keys.push_back(kind.list_key);
    r.check_keys(block, keys, "catalog");
    if (const YamlNode* hw = block.find("hardware")) read_hardware_entries(r, *hw, "catalog.hardware", catalog_);
    if (const YamlNode* models = block.find("models")) read_model_entries(r, *models, "catalog.models", catalog_);
    for (const BundleKind& kind : kBundleKinds) {
      if (const YamlNode* list = block.find(kind.list_key)) {
        read_bundle_entries(r, *list, "catalog." + std::string(kind.list_key), kind, catalog_);
      }
    }
  }

  void read_regimes(const YamlReader& r, const YamlNode& list) {
    if (!r.expect_sequence(list, "regimes")) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& e = list.items[i];
      const std::string path = "regimes[" + std::to_string(i) + "]";
      if (!r.expect_mapping(e, path)) continue;
      r.check_keys(e, kRegimeKeys, path);
      RegimeDefinition def;
      const YamlNode* name = r.require(e, "name", path);
      if (name == nullptr) continue;
      def.name = r.string(*name, path + ".name").value_or("");
      if (!valid_id(def.name)) {
        r.error(*name, path + ".name: '" + def.name + "' is not a valid regime name: use a-z, 0-9, '_', '-' and '.'");
        continue;
      }
      if (set_.regime(def.name) != nullptr) {
        r.error(*name, path + ": regime '" + def.name + "' is defined twice");
        continue;
      }
      if (const YamlNode* d = e.find("description")) def.description = r.string(*d, path + ".description").value_or("");
      if (const YamlNode* fit = e.find("fit")) read_fit(r, *fit, path + ".fit", def);
      if (const YamlNode* intervals = e.find("intervals")) read_regime_intervals(r, *intervals, path + ".intervals", def);
      set_.regimes.push_back(std::move(def));
    }
  }

  void read_rows(const YamlReader& r, const YamlNode& list) {
    if (!r.expect_sequence(list, "measurements")) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const std::string path = "measurements[" + std::to_string(i) + "]";
      if (r.expect_mapping(list.items[i], path)) read_row(r, list.items[i], path);
    }
  }

 private:
  void read_fit(const YamlReader& r, const YamlNode& list, const std::string& path, RegimeDefinition& def) {
    if (!r.expect_sequence(list, path)) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string where = path + "[" + std::to_string(i) + "]";
      const YamlNode* name_node = &item;
      const YamlNode* prior_node = nullptr;
      const YamlNode* family_node = nullptr;
      const YamlNode* fixed_node = nullptr;
      if (item.is_mapping()) {
        r.check_keys(item, kFitKeys, where);
        name_node = r.require(item, "parameter", where);
        prior_node = item.find("prior");
        family_node = item.find("per_hardware");
        fixed_node = item.find("fixed");
        if (name_node == nullptr) continue;
      }
      const auto text = r.string(*name_node, where);
      if (!text) continue;
      const auto dot = text->find('.');
      if (dot == std::string::npos) {
        r.error(*name_node, where + ": expected solver.parameter, such as 'serving.eta_decode', got '" + *text + "'");
        continue;
      }
      FitParameterRef ref{text->substr(0, dot), text->substr(dot + 1), std::nullopt, {}};
      const Solver* solver = find_solver(ref.solver);
      if (solver == nullptr) {
        r.unknown(*name_node, "solver", solver_names(), where);
        continue;
      }
      const ParamSpec* spec = nullptr;
      std::vector<std::string> numbers;
      for (const ParamSpec& s : solver->params()) {
        if (s.kind != ParamKind::number) continue;
        numbers.emplace_back(s.name);
        if (s.name == ref.name) spec = &s;
      }
      if (spec == nullptr) {
        r.error(*name_node, where + ": '" + ref.name + "' is not a number parameter of solver '" + ref.solver +
                                "'; its number parameters: " + study_loading::join(numbers));
        continue;
      }
      if (prior_node != nullptr) {
        QuantityBounds b{spec->max_value > spec->min_value, spec->min_value, spec->max_value, spec->min_exclusive, false};
        const auto q = r.quantity(*prior_node, spec->dimension, where + ".prior", b);
        if (!q) continue;
        ref.prior = q->value;
      } else if (!spec->has_default) {
        r.error(*name_node, where + ": " + *text + " has no default to start the fit from; give one: {parameter: " +
                                *text + ", prior: <value>}");
        continue;
      }
      if (family_node != nullptr) {
        const auto family = r.string(*family_node, where + ".per_hardware");
        if (!family) continue;
        if (!valid_id(*family)) {
          r.error(*family_node, where + ".per_hardware: '" + *family +
                                    "' is not a valid factor name: use a-z, 0-9, '_', '-' and '.'");
          continue;
        }
        if (spec->integer) {
          r.error(*family_node, where + ".per_hardware: " + *text +
                                    " is a whole number; a hardware factor scales a continuous quantity (an efficiency, "
                                    "a fixed overhead)");
          continue;
        }
        ref.per_hardware = *family;
      }
      if (fixed_node != nullptr) {
        const auto fixed = r.boolean(*fixed_node, where + ".fixed");
        if (!fixed) continue;
        if (*fixed && !ref.prior) {
          r.error(*fixed_node, where + ".fixed: a fixed parameter is held at its prior; give it: {parameter: " + *text +
                                   ", prior: <value>, fixed: true}");
          continue;
        }
        if (*fixed && !ref.per_hardware.empty()) {
          r.error(*fixed_node, where + ".fixed: a fixed parameter has no hardware factors; drop per_hardware");
          continue;
        }
        ref.fixed = *fixed;
      }
      def.fit.push_back(std::move(ref));
    }
  }

  void read_regime_intervals(const YamlReader& r, const YamlNode& list, const std::string& path, RegimeDefinition& def) {
    if (!r.expect_sequence(list, path)) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& e = list.items[i];
      const std::string where = path + "[" + std::to_string(i) + "]";
      if (!r.expect_mapping(e, where)) continue;
      r.check_keys(e, kRegimeIntervalKeys, where);
      const YamlNode* solver_node = r.require(e, "solver", where);
      const YamlNode* metrics = r.require(e, "metrics", where);
      if (solver_node == nullptr || metrics == nullptr) continue;
      const Solver* solver = solver_named(r, *solver_node, where + ".solver");
      if (solver == nullptr || !r.expect_mapping(*metrics, where + ".metrics")) continue;
      std::string when;
      if (const YamlNode* w = e.find("when")) when = r.string(*w, where + ".when").value_or("");
      std::vector<std::string> metric_names;
      for (const MetricSpec& m : solver->metrics()) metric_names.emplace_back(m.name);
      for (const YamlEntry& m : metrics->entries) {
        if (std::find(metric_names.begin(), metric_names.end(), m.key.text) == metric_names.end()) {
          r.unknown(m.key, std::string(solver->name()) + " metric", metric_names, where + ".metrics");
          continue;
        }
        const auto o = r.string(m.value, where + ".metrics." + m.key.text);
        if (!o) continue;
        if (*o != "rate" && *o != "time") {
          r.unknown(m.value, "orientation", std::vector<std::string>{"rate", "time"});
          continue;
        }
        def.intervals.push_back(IntervalRule{std::string(solver->name()), m.key.text, def.name,
                                             *o == "rate" ? Orientation::rate : Orientation::time, when});
      }
    }
  }

  void read_row(const YamlReader& r, const YamlNode& e, const std::string& path) {
    r.check_keys(e, kRowKeys, path);
    Measurement m;
    m.file = r.file();
    m.line = e.line;
    const YamlNode* id = r.require(e, "id", path);
    if (id != nullptr) {
      m.id = r.string(*id, path + ".id").value_or("");
      if (!valid_id(m.id)) {
        r.error(*id, path + ".id: '" + m.id + "' is not a valid id: use a-z, 0-9, '_', '-' and '.'");
      } else if (!ids_.insert(m.id).second) {
        r.error(*id, path + ": id '" + m.id + "' is used twice");
      }
    }
    if (const YamlNode* regime = r.require(e, "regime", path)) {
      m.regime = r.string(*regime, path + ".regime").value_or("");
      if (!m.regime.empty() && set_.regime(m.regime) == nullptr) {
        std::vector<std::string> names;
        for (const RegimeDefinition& d : set_.regimes) names.push_back(d.name);
        r.unknown(*regime, "regime", names, path);
      }
    }
    if (const YamlNode* source = r.require(e, "source", path)) read_source(r, *source, path + ".source", m.source);
    if (const YamlNode* n = e.find("stack")) m.stack = r.string(*n, path + ".stack").value_or("");
    if (const YamlNode* n = e.find("notes")) m.notes = r.string(*n, path + ".notes").value_or("");
    const YamlNode* measured = r.require(e, "measured", path);
    if (measured != nullptr) m.measured_label = measured->text;

    if (const YamlNode* cannot = e.find("cannot_predict")) {
      m.cannot_predict = r.string(*cannot, path + ".cannot_predict").value_or("");
      if (const YamlNode* w = r.require(e, "workload", path)) m.workload = r.string(*w, path + ".workload").value_or("");
      if (measured != nullptr) {
        const auto number = measured->is_scalar() ? parse_number(measured->text.substr(0, measured->text.find(' ')))
                                                  : std::nullopt;
        if (!number || !(*number > 0)) {
          r.error(*measured, path + ".measured: expected a positive number with its unit, got " + measured->describe());
        }
      }
      set_.rows.push_back(std::move(m));
      return;
    }
    if (const YamlNode* w = e.find("workload")) {
      r.error(*w, path + ": workload: describes a row dsx cannot predict; it needs cannot_predict: saying what is missing");
    }
    const YamlNode* solver_node = r.require(e, "solver", path);
    const YamlNode* metric_node = r.require(e, "metric", path);
    const YamlNode* inputs = r.require(e, "inputs", path);
    if (solver_node == nullptr || metric_node == nullptr || inputs == nullptr || measured == nullptr) return;
    const Solver* solver = solver_named(r, *solver_node, path + ".solver");
    if (solver == nullptr) return;
    const auto metric_name = r.string(*metric_node, path + ".metric");
    if (!metric_name) return;
    const auto metrics = solver->metrics();
    const auto found = std::find_if(metrics.begin(), metrics.end(), [&](const MetricSpec& s) { return s.name == *metric_name; });
    if (found == metrics.end()) {
      std::vector<std::string> names;
      for (const MetricSpec& s : metrics) names.emplace_back(s.name);
      r.unknown(*metric_node, std::string(solver->name()) + " metric", names, path);
      return;
    }
    m.metric = static_cast<std::size_t>(found - metrics.begin());
    QuantityBounds positive;
    positive.bounded = true;
    positive.min_value = 0;
    positive.max_value = 1e300;
    positive.min_exclusive = true;
    const auto value = r.quantity(*measured, found->dimension, path + ".measured", positive);
    // Fit parameters start at their prior; one without a solver default takes it from the regime.
    CalibrationProfile starts;
    for (const RegimeDefinition& d : set_.regimes) {
      for (const FitParameterRef& f : d.fit) {
        if (f.solver == solver->name() && f.prior && starts.parameter(f.solver, f.name) == nullptr) {
          starts.parameters.push_back(FittedParameter{f.solver, f.name, *f.prior, 0, *f.prior, false, 0, {}});
        }
      }
    }
    m.point = load_point_study(r.file(), *solver, *inputs, e, catalog_, m.id, r.diags(), &starts);
    if (!value || !m.point) return;
    m.measured = value->value;
    for (std::size_t p = 0; p < solver->params().size(); ++p) {
      const std::string name(solver->params()[p].name);
      if (inputs->find(name) != nullptr || m.point->bundle_setting(p) != nullptr) m.written.push_back(name);
    }
    set_.rows.push_back(std::move(m));
  }

  void read_source(const YamlReader& r, const YamlNode& n, const std::string& path, MeasurementSource& s) {
    if (!r.expect_mapping(n, path)) return;
    r.check_keys(n, kSourceKeys, path);
    if (const YamlNode* c = r.require(n, "citation", path)) s.citation = r.string(*c, path + ".citation").value_or("");
    if (const YamlNode* u = n.find("url")) s.url = r.string(*u, path + ".url").value_or("");
    if (const YamlNode* rd = r.require(n, "read", path)) s.read = r.string(*rd, path + ".read").value_or("");
    if (const YamlNode* d = n.find("date")) s.date = r.string(*d, path + ".date").value_or("");
    if (const YamlNode* c = n.find("campaign")) {
      const auto campaign = r.string(*c, path + ".campaign");
      s.campaign = campaign.value_or("");
      if (campaign && !valid_id(s.campaign)) {
        r.error(*c, path + ".campaign: '" + s.campaign + "' is not a valid campaign name: use a-z, 0-9, '_', '-' and '.'");
      }
    }
  }

  MeasurementSet& set_;
  Catalog& catalog_;
  std::set<std::string> ids_;
};

}  // namespace

Orientation Measurement::orientation() const {
  const Dimension d = point->solver->metrics()[metric].dimension;
  return d == Dimension::time || d == Dimension::money || d == Dimension::energy ? Orientation::time : Orientation::rate;
}

const FitParameterRef* MeasurementSet::fit_parameter(std::string_view solver, std::string_view name) const {
  for (const RegimeDefinition& d : regimes) {
    for (const FitParameterRef& f : d.fit) {
      if (f.solver == solver && f.name == name) return &f;
    }
  }
  return nullptr;
}

const RegimeDefinition* MeasurementSet::regime(std::string_view name) const {
  for (const RegimeDefinition& d : regimes) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::optional<MeasurementSet> load_measurements(const std::vector<std::string>& paths, const std::string& catalog_dir,
                                                Diagnostics& diags) {
  const std::size_t errors_before = diags.error_count();
  MeasurementSet set;
  set.files = expand(paths, diags);
  Catalog catalog = load_catalog(catalog_dir, diags);
  std::vector<ParsedFile> parsed;
  std::string all_text;
  for (const std::string& file : set.files) {
    auto text = read_text(file, diags);
    if (!text) continue;
    all_text += *text;
    all_text += '\0';
    ParsedFile p{file, std::make_unique<YamlReader>(file, diags), std::nullopt};
    p.root = p.reader->parse(*text);
    if (!p.root) continue;
    if (p.root->is_null()) {
      p.reader->error(*p.root, "the measurement file is empty: it needs measurements:, regimes: or both");
      continue;
    }
    if (!p.reader->expect_mapping(*p.root, "")) continue;
    p.reader->check_keys(*p.root, kFileKeys, "");
    parsed.push_back(std::move(p));
  }
  set.content_hash = study_loading::hex64(study_loading::fnv1a(all_text));
  MeasurementReader reader(set, catalog);
  for (const ParsedFile& p : parsed) {
    if (const YamlNode* block = p.root->find("catalog")) reader.read_catalog(*p.reader, *block);
  }
  for (const ParsedFile& p : parsed) {
    if (const YamlNode* list = p.root->find("regimes")) reader.read_regimes(*p.reader, *list);
  }
  if (set.regimes.empty() && !catalog_dir.empty()) {
    const std::string shipped = (fs::path(catalog_dir) / "measurements" / "regimes.yaml").string();
    if (auto text = read_text(shipped, diags)) {
      YamlReader r(shipped, diags);
      if (auto root = r.parse(*text); root && r.expect_mapping(*root, "")) {
        if (const YamlNode* list = root->find("regimes")) reader.read_regimes(r, *list);
      }
    }
  }
  for (const ParsedFile& p : parsed) {
    if (const YamlNode* list = p.root->find("measurements")) reader.read_rows(*p.reader, *list);
  }
  if (diags.error_count() != errors_before) return std::nullopt;
  return set;
}

}  // namespace dsx
