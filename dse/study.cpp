#include "dse/study.hpp"

#include <algorithm>
#include <filesystem>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "dse/calibration/profile.hpp"
#include "dse/catalog_accuracy.hpp"
#include "dse/study_analyses.hpp"
#include "dse/study_loader.hpp"
#include "dse/study_references.hpp"
#include "engine/registry.hpp"

namespace dsx::study_loading {

namespace {

constexpr std::array<std::string_view, 24> kStudyKeys = {
    "study",   "title",   "question",    "solver",      "axes",       "fixed", "objectives", "catalog",  "compare",
    "figures", "sections", "derived",    "filters",     "constraints", "assertions", "top_k", "pareto", "breakeven",
    "sensitivity", "template", "grid_constraints", "keep", "calibration", "values"};
constexpr std::array<std::string_view, 2> kSectionKeys = {"title", "text"};
constexpr std::array<std::string_view, 6> kCatalogKeys = {"hardware", "models", "regions", "fabrics", "nodes",
                                                          kAccuracyListKey};
constexpr std::array<std::string_view, 4> kObjectiveKeys = {"metric", "direction", "where", "name"};
constexpr std::array<std::string_view, 7> kCompareKeys = {"name",      "where",  "metric",     "expected",
                                                          "tolerance", "source", "explanation"};
constexpr double kDefaultTolerance = 0.05;

// An objective's name, cited as {{best.NAME}}: lower-case letters, digits and '_', a letter first.
bool objective_name(std::string_view s) {
  if (s.empty() || s.front() < 'a' || s.front() > 'z') return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}
// Numbers on an axis are the same value when they agree to this relative precision ("10 us" = "0.01 ms").
constexpr double kSameValueTolerance = 1e-9;

}  // namespace

// A refused name as a message shows it: control characters (a NUL, a line break) as \xNN, so the
// message stays one line.
std::string shown_name(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xFU];
    } else {
      out += c;
    }
  }
  return out;
}

bool same_number(double a, double b) {
  return a == b || std::fabs(a - b) <= kSameValueTolerance * std::max(std::fabs(a), std::fabs(b));
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; });
}

std::string hex64(std::uint64_t h) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(h >> (4 * i)) & 0xFU];
  return out;
}

// FNV-1a, 64 bit (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/).
std::uint64_t fnv1a(std::string_view data) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string index_path(std::string_view path, std::size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

std::string at_text(const YamlNode& n) {
  return "line " + std::to_string(n.line) + ", column " + std::to_string(n.column);
}

QuantityBounds bounds_of(const ParamSpec& spec) {
  QuantityBounds b;
  b.bounded = spec.max_value > spec.min_value;
  b.min_value = spec.min_value;
  b.max_value = spec.max_value;
  b.min_exclusive = spec.min_exclusive;
  b.integer = spec.integer;
  return b;
}

bool is_categorical(const ParamSpec& spec) { return spec.kind != ParamKind::number; }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + items[i];
  return out;
}

std::optional<ResolvedStudy> StudyLoader::load(const std::string& text, const std::string& catalog_dir) {
  Diagnostics& diags = r_.diags();
  const std::size_t errors_before = diags.error_count();
  const auto root = r_.parse(text);
  if (!root) return std::nullopt;
  if (root->is_null()) {
    r_.error(*root, "the study is empty: it needs at least the keys study, title, question, solver and axes");
    return std::nullopt;
  }
  if (!r_.expect_mapping(*root, "")) return std::nullopt;
  r_.check_keys(*root, kStudyKeys, "");
  s_.file = r_.file();
  s_.content_hash = hex64(fnv1a(text));

  if (const YamlNode* n = r_.require(*root, "study", "")) {
    if (auto name = r_.string(*n, "study")) {
      if (valid_name(*name)) {
        s_.name = *name;
      } else {
        r_.error(*n, "study: '" + shown_name(*name) + "' is not a valid study name: use a-z, 0-9, '_' and '-' (it names the "
                     "run folder runs/<study>/)");
      }
    }
  }
  if (const YamlNode* n = r_.require(*root, "title", "")) {
    if (auto t = r_.string(*n, "title")) s_.title = *t;
  }
  if (const YamlNode* n = r_.require(*root, "question", "")) {
    if (auto q = r_.string(*n, "question")) s_.question = *q;
  }
  const YamlNode* solver_node = r_.require(*root, "solver", "");
  if (solver_node != nullptr) {
    if (auto name = r_.string(*solver_node, "solver")) {
      s_.solver = find_solver(*name);
      if (s_.solver == nullptr) {
        std::vector<std::string> names;
        for (const Solver* solver : all_solvers()) names.emplace_back(solver->name());
        r_.unknown(*solver_node, "solver", names);
      }
    }
  }

  if (!catalog_dir.empty()) catalog_ = load_catalog(catalog_dir, diags);
  if (const YamlNode* block = root->find("catalog")) {
    if (r_.expect_mapping(*block, "catalog")) {
      r_.check_keys(*block, kCatalogKeys, "catalog");
      if (const YamlNode* hw = block->find("hardware")) {
        read_hardware_entries(r_, *hw, "catalog.hardware", catalog_, &broken_ids_);
      }
      if (const YamlNode* models = block->find("models")) {
        read_model_entries(r_, *models, "catalog.models", catalog_, &broken_ids_);
      }
      for (const BundleKind& kind : kBundleKinds) {
        if (const YamlNode* list = block->find(kind.list_key)) {
          read_bundle_entries(r_, *list, "catalog." + std::string(kind.list_key), kind, catalog_, &broken_ids_);
        }
      }
      if (const YamlNode* list = block->find(kAccuracyListKey)) {
        read_accuracy_entries(r_, *list, "catalog." + std::string(kAccuracyListKey), catalog_);
      }
    }
  }

  const YamlNode* axes = r_.require(*root, "axes", "");
  if (s_.solver != nullptr) {
    for (const ParamSpec& p : s_.solver->params()) param_names_.emplace_back(p.name);
    for (const MetricSpec& m : s_.solver->metrics()) metric_names_.emplace_back(m.name);
    if (s_.solver->params().size() > kMaxParams) {
      throw std::logic_error("solver '" + std::string(s_.solver->name()) + "' declares more than kMaxParams");
    }
    if (axes != nullptr) read_axes(*axes);
    read_fixed(root->find("fixed"));
    apply_bundles(root->find("fixed"));
    read_calibration(root->find("calibration"), catalog_dir);
    fill_defaults(*solver_node);
    expand_layouts();
    if (axes != nullptr) check_point_count(*axes);
    for (std::string& name : read_study_analyses(r_, *root, s_, [this](const YamlNode& n, const std::string& path) {
           return read_selectors(n, path);
         })) {
      metric_names_.push_back(std::move(name));
    }
    if (const YamlNode* n = root->find("objectives")) {
      objectives_written_ = n->is_sequence() && !n->items.empty();
      read_objectives(*n);
    }
    if (const YamlNode* n = root->find("values")) read_values(*n);
    if (const YamlNode* n = root->find("compare")) read_comparisons(*n);
    if (const YamlNode* n = root->find("figures")) read_figures(*n);
  }
  if (const YamlNode* n = root->find("sections")) read_sections(*n);
  if (const YamlNode* n = root->find("template")) read_template(*n);
  if (diags.error_count() != errors_before || s_.solver == nullptr) return std::nullopt;
  keep_used_catalog_entries();
  if (!check_study_analyses(r_, *root, s_)) return std::nullopt;
  return std::move(s_);
}

std::optional<ResolvedStudy> StudyLoader::load_point(const Solver& solver, const YamlNode& inputs, const YamlNode& at,
                                                     const Catalog& catalog, std::string name,
                                                     const CalibrationProfile* starts) {
  Diagnostics& diags = r_.diags();
  const std::size_t errors_before = diags.error_count();
  s_.file = r_.file();
  s_.name = std::move(name);
  s_.solver = &solver;
  catalog_ = catalog;
  for (const ParamSpec& p : solver.params()) param_names_.emplace_back(p.name);
  for (const MetricSpec& m : solver.metrics()) metric_names_.emplace_back(m.name);
  fixed_path_ = "inputs";
  if (!r_.expect_mapping(inputs, fixed_path_)) return std::nullopt;
  read_fixed(&inputs);
  apply_bundles(&inputs);
  if (starts != nullptr) s_.calibration = std::make_shared<const CalibrationProfile>(*starts);
  fill_defaults(at);
  s_.calibration.reset();
  s_.calibrated = {};
  if (diags.error_count() != errors_before) return std::nullopt;
  keep_used_catalog_entries();
  return std::move(s_);
}

int StudyLoader::param_index(std::string_view name) const {
  for (std::size_t i = 0; i < param_names_.size(); ++i) {
    if (param_names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

MetricSpec StudyLoader::metric_spec(std::size_t index) const {
  const auto metrics = s_.solver->metrics();
  return index < metrics.size() ? metrics[index] : derived_metric_spec(s_, index - metrics.size());
}

int StudyLoader::metric_index(std::string_view name) const {
  for (std::size_t i = 0; i < metric_names_.size(); ++i) {
    if (metric_names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

const Axis* StudyLoader::axis_of(std::size_t p) const {
  for (const Axis& a : s_.axes) {
    if (a.param_index == p) return &a;
  }
  return nullptr;
}

void StudyLoader::unknown_param(const YamlNode& key) {
  r_.unknown(key, solver_what(), param_names_);
  const std::string near = closest_match(key.text, param_names_);
  if (!near.empty()) misspelt_.insert(near);
}

void StudyLoader::read_objectives(const YamlNode& list) {
  if (list.is_null()) return;
  if (!r_.expect_sequence(list, "objectives")) return;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const YamlNode& item = list.items[i];
    const std::string path = index_path("objectives", i);
    if (!r_.expect_mapping(item, path)) continue;
    r_.check_keys(item, kObjectiveKeys, path);
    Objective o;
    bool ok = true;
    const YamlNode* m = r_.require(item, "metric", path);
    ok = m != nullptr && read_metric(*m, path + ".metric", o.metric, o.metric_index);
    const YamlNode* name = item.find("name");
    if (name != nullptr) {
      if (!r_.expect_scalar(*name, path + ".name")) {
        ok = false;
      } else if (!objective_name(name->text)) {
        r_.error(*name, path + ".name: '" + shown_name(name->text) +
                            "' is not a name: lower-case letters, digits and '_', starting with a letter");
        ok = false;
      } else {
        o.name = name->text;
      }
    }
    if (const YamlNode* w = item.find("where")) {
      if (auto where = read_selectors(*w, path + ".where", true)) {
        o.where = std::move(*where);
      } else {
        ok = false;
      }
    }
    if (ok) {
      for (const Objective& earlier : s_.objectives) {
        if (earlier.key() != o.key()) continue;
        r_.error(name != nullptr ? *name : *m,
                 path + ": '" + o.key() + "' is already an objective" +
                     (name != nullptr ? "; give this one another name" : "; give this one a name: to rank it again"));
        ok = false;
        break;
      }
    }
    if (const YamlNode* d = r_.require(item, "direction", path)) {
      if (d->is_scalar() && d->text == "min") {
        o.direction = Direction::minimize;
      } else if (d->is_scalar() && d->text == "max") {
        o.direction = Direction::maximize;
      } else {
        if (r_.expect_scalar(*d, path + ".direction")) {
          const std::vector<std::string> directions = {"min", "max"};
          r_.unknown(*d, "direction", directions);
        }
        ok = false;
      }
    } else {
      ok = false;
    }
    if (ok) {
      s_.objectives.push_back(std::move(o));
      objective_nodes_.push_back(&item);
    }
  }
  if (s_.objectives.size() == list.items.size()) check_objectives_meet();
}

// The Pareto front admits the rows every objective ranks: two objectives whose `where:` give one
// parameter disjoint values leave it no row.
void StudyLoader::check_objectives_meet() const {
  if (s_.objectives.size() < 2) return;
  for (std::size_t j = 1; j < s_.objectives.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      for (const Selector& sel : s_.objectives[j].where) {
        const std::vector<Selector>& other = s_.objectives[i].where;
        const bool pinned = std::any_of(other.begin(), other.end(), [&](const Selector& x) { return x.param == sel.param; });
        if (!pinned) continue;
        const auto shared = [&](const std::string& param) {
          for (const Selector& a : s_.objectives[j].where) {
            if (a.param != param) continue;
            for (const Selector& b : other) {
              if (b.param == param && b.label == a.label) return true;
            }
          }
          return false;
        };
        if (shared(sel.param)) continue;
        const YamlNode* where = objective_nodes_[j]->find("where");
        r_.error(where != nullptr ? *where : *objective_nodes_[j],
                 index_path("objectives", j) + ".where: no design point has a " + sel.param + " that both '" +
                     s_.objectives[i].key() + "' and '" + s_.objectives[j].key() +
                     "' rank, so the Pareto front of the objectives has no row; let their " + sel.param +
                     " values overlap");
        return;
      }
    }
  }
}

bool StudyLoader::read_metric(const YamlNode& node, const std::string& path, std::string& name, std::size_t& index) const {
  if (!r_.expect_scalar(node, path)) return false;
  const int m = metric_index(node.text);
  if (m < 0) {
    r_.unknown(node, "metric", metric_names_);
    return false;
  }
  name = node.text;
  index = static_cast<std::size_t>(m);
  return true;
}

std::optional<std::vector<Selector>> StudyLoader::read_selectors(const YamlNode& where, const std::string& path,
                                                                 bool lists) const {
  if (!r_.expect_mapping(where, path)) return std::nullopt;
  std::vector<Selector> out;
  bool ok = true;
  for (const YamlEntry& entry : where.entries) {
    // A list of values (objectives only) selects the rows that take any of them.
    std::vector<const YamlNode*> values;
    if (lists && entry.value.is_sequence()) {
      if (entry.value.items.empty()) {
        r_.error(entry.value, path + "." + entry.key.text + ": an empty list selects nothing; give one value or several");
        ok = false;
        continue;
      }
      for (const YamlNode& v : entry.value.items) values.push_back(&v);
    } else {
      values.push_back(&entry.value);
    }
    const std::size_t first_selector = out.size();
    for (const YamlNode* value_node : values) {
      const std::size_t before = out.size();
      if (!read_selector(entry.key, *value_node, path + "." + entry.key.text, out)) {
        ok = false;
      } else if (out.size() > before &&
                 std::any_of(out.begin() + static_cast<std::ptrdiff_t>(first_selector),
                             out.begin() + static_cast<std::ptrdiff_t>(before),
                             [&](const Selector& earlier) { return earlier.label == out.back().label; })) {
        r_.error(*value_node, path + "." + entry.key.text + ": '" + value_node->text + "' is listed twice");
        ok = false;
      }
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

bool StudyLoader::read_selector(const YamlNode& key, const YamlNode& value, const std::string& item,
                                std::vector<Selector>& out) const {
  if (const BundleUse* use = bundle_use(key.text)) {
    // A bundle axis is selected by id; a fixed bundle selects every row and adds no selector.
    if (!value.is_scalar()) {
      r_.error(value, item + ": a selector takes one value, got " + value.describe());
      return false;
    }
    if (use->axis >= 0) {
      std::vector<std::string> labels;
      for (const AxisValue& v : s_.axes[static_cast<std::size_t>(use->axis)].values) labels.push_back(v.label);
      if (std::find(labels.begin(), labels.end(), value.text) == labels.end()) {
        const std::string near = closest_match(value.text, labels);
        r_.error(value, item + ": '" + value.text + "' is not a value of the " + key.text + " axis" +
                            (near.empty() ? "" : "; did you mean '" + near + "'?") + " (axis values: " +
                            join(labels) + ")");
        return false;
      }
      out.push_back(Selector{key.text, value.text});
    } else if (value.text != use->id) {
      r_.error(value, item + ": '" + value.text + "' selects nothing: " + key.text + " is fixed to '" + use->id +
                          "' in this study");
      return false;
    }
    return true;
  }
  const int p = param_index(key.text);
  if (p < 0) {
    r_.unknown(key, solver_what(), param_names_);
    return false;
  }
  const auto pi = static_cast<std::size_t>(p);
  if (set_by_bundle_axis(pi)) {
    const BundleUse& use = *s_.bundle_setting(pi);
    r_.error(key, item + ": " + key.text + " is set by the " + use.kind + " axis; select a " + use.kind +
                      " instead, e.g. " + use.kind + ": " +
                      s_.axes[static_cast<std::size_t>(use.axis)].values.front().label);
    return false;
  }
  const ParamSpec& ps = spec(pi);
  if (!s_.is_axis[pi] && !fixed_[pi]) return false;  // its own error was reported under axes: or fixed:
  if (!value.is_scalar()) {
    r_.error(value, item + ": a selector takes one value, got " + value.describe());
    return false;
  }
  const Axis* axis = axis_of(pi);
  if (s_.is_axis[pi] && axis == nullptr) return false;  // the axis itself had an error
  const auto read = read_value(ps, value, item);
  if (!read) return false;
  if (axis != nullptr) {
    std::vector<std::string> labels;
    for (const AxisValue& v : axis->values) labels.push_back(v.label);
    const AxisValue* match = nullptr;
    for (const AxisValue& v : axis->values) {
      const bool same = ps.kind == ParamKind::number ? same_number(v.value, read->value) : v.value == read->value;
      if (same) match = &v;
    }
    if (match == nullptr) {
      // Numbers are matched by value, so a spelling suggestion ("15 us" -> "5 us") would mislead.
      const std::string near = ps.kind == ParamKind::number ? "" : closest_match(value.text, labels);
      r_.error(value, item + ": '" + value.text + "' is not a value of the " + key.text + " axis" +
                          (near.empty() ? "" : "; did you mean '" + near + "'?") + " (axis values: " +
                          join(labels) + ")");
      return false;
    }
    out.push_back(Selector{key.text, match->label});
    return true;
  }
  const bool same = ps.kind == ParamKind::number ? same_number(s_.fixed_values[pi], read->value)
                                                 : s_.fixed_values[pi] == read->value;
  if (!same) {
    r_.error(value, item + ": '" + value.text + "' selects nothing: " + key.text + " is fixed to '" +
                        s_.fixed_labels[pi] + "' in this study");
    return false;
  }
  out.push_back(Selector{key.text, s_.fixed_labels[pi]});
  return true;
}

void StudyLoader::require_one_point(const YamlNode& node, const std::string& path, const std::vector<Selector>& where,
                                    std::string_view what, std::string_view key) {
  std::vector<std::string> missing;
  for (const Axis& a : s_.axes) {
    const bool selected =
        std::any_of(where.begin(), where.end(), [&](const Selector& sel) { return sel.param == a.param; });
    if (!selected && a.values.size() > 1) missing.push_back(a.param);
  }
  if (!missing.empty()) {
    r_.error(node, path + "." + std::string(key) + ": " + std::string(what) + " selects one design point; also give a value for: " +
                       join(missing));
  }
}

void StudyLoader::read_comparisons(const YamlNode& list) {
  if (list.is_null()) return;
  if (!r_.expect_sequence(list, "compare")) return;
  std::vector<const YamlNode*> names;
  struct CitingText {
    std::size_t index;  // into s_.comparisons
    const YamlNode* node;
    std::string path;
  };
  std::vector<CitingText> explanations;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const YamlNode& item = list.items[i];
    const std::string path = index_path("compare", i);
    if (!r_.expect_mapping(item, path)) continue;
    r_.check_keys(item, kCompareKeys, path);
    const std::size_t errors_before = r_.diags().error_count();
    Comparison c;
    if (const YamlNode* n = r_.require(item, "name", path)) {
      if (auto name = r_.string(*n, path + ".name")) {
        c.name = *name;
        for (const YamlNode* earlier : names) {
          if (earlier->text == c.name) {
            r_.error(*n, path + ": another comparison is already named '" + c.name + "' (" + at_text(*earlier) +
                             ")");
          }
        }
        names.push_back(n);
      }
    }
    if (const YamlNode* n = r_.require(item, "where", path)) {
      if (auto where = read_selectors(*n, path + ".where")) {
        c.where = std::move(*where);
        require_one_point(*n, path, c.where, "a comparison");
      }
    }
    std::size_t metric = 0;
    const YamlNode* metric_node = r_.require(item, "metric", path);
    const bool metric_ok = metric_node != nullptr && read_metric(*metric_node, path + ".metric", c.metric, metric);
    if (const YamlNode* n = r_.require(item, "expected", path)) {
      if (metric_ok) {
        const Dimension d = metric_spec(metric).dimension;
        if (auto q = r_.quantity(*n, d, path + ".expected")) c.expected = q->value;
      }
    }
    c.tolerance = kDefaultTolerance;
    if (const YamlNode* n = item.find("tolerance")) {
      const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = HUGE_VAL};
      if (auto q = r_.quantity(*n, Dimension::dimensionless, path + ".tolerance", b)) c.tolerance = q->value;
    }
    if (const YamlNode* n = r_.require(item, "source", path)) {
      if (auto s = r_.string(*n, path + ".source")) c.source = *s;
    }
    const YamlNode* explanation = item.find("explanation");
    if (explanation != nullptr) {
      if (auto s = r_.string(*explanation, path + ".explanation", true)) c.explanation = *s;
    }
    if (r_.diags().error_count() == errors_before) {
      if (explanation != nullptr) explanations.push_back({s_.comparisons.size(), explanation, path + ".explanation"});
      s_.comparisons.push_back(std::move(c));
    }
  }
  // Checked once every comparison is known: an explanation may cite any of them.
  for (const CitingText& e : explanations) check_references(*e.node, s_.comparisons[e.index].explanation, e.path);
}

void StudyLoader::read_template(const YamlNode& node) {
  auto folder = r_.string(node, "template");
  if (!folder) return;
  if (std::any_of(folder->begin(), folder->end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; })) {
    r_.error(node, "template: the folder name holds a control character (a NUL, a line break, an escape, ...); "
                   "write a plain relative path");
    return;
  }
  const std::filesystem::path path(*folder);
  bool escapes = path.empty() || path.is_absolute();
  for (const auto& part : path) escapes = escapes || part == "..";
  if (escapes) {
    r_.error(node, "template: '" + *folder + "' must be a folder below the study file's folder (a relative path "
                   "without '..')");
    return;
  }
  s_.template_folder = *folder;
}

void StudyLoader::check_references(const YamlNode& node, const std::string& text, const std::string& path) {
  const std::vector<TextReference> refs = find_text_references(text);
  if (refs.empty()) return;
  const std::vector<std::string> keys = citable_keys(s_);
  for (const TextReference& r : refs) {
    if (std::binary_search(keys.begin(), keys.end(), r.key)) continue;
    const std::string written(text.substr(r.offset, std::min<std::size_t>(r.length, 80)));
    std::string message = path + ": unknown reference '" + written + "'";
    if (keys.empty()) {
      message += "; this study defines no value to cite (a sensitivity analysis with decide:, top_k with "
                 "objectives, a breakeven analysis, a compare entry or a values entry does)";
    } else {
      if (const std::string near = closest_match(r.key, keys); !near.empty()) message += "; did you mean '" + near + "'?";
      std::string list;
      for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
      message += " citable values: " + list;
    }
    r_.error(node, message, r.offset, std::min<std::size_t>(r.length, 80));
  }
}

void StudyLoader::read_sections(const YamlNode& list) {
  if (list.is_null()) return;
  if (!r_.expect_sequence(list, "sections")) return;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const YamlNode& item = list.items[i];
    const std::string path = index_path("sections", i);
    if (!r_.expect_mapping(item, path)) continue;
    r_.check_keys(item, kSectionKeys, path);
    Section section;
    const YamlNode* title = r_.require(item, "title", path);
    const YamlNode* text = r_.require(item, "text", path);
    if (title == nullptr || text == nullptr) continue;
    auto t = r_.string(*title, path + ".title");
    auto x = r_.string(*text, path + ".text");
    if (!t || !x) continue;
    section.title = *t;
    section.text = *x;
    check_references(*text, section.text, path + ".text");
    s_.sections.push_back(std::move(section));
  }
}

void StudyLoader::keep_used_catalog_entries() {
  const auto params = s_.solver->params();
  std::vector<std::string> hardware;
  std::vector<std::string> models;
  const auto use = [&](std::size_t p, const std::string& label) {
    if (params[p].kind == ParamKind::hardware) hardware.push_back(label);
    if (params[p].kind == ParamKind::model) models.push_back(label);
  };
  for (const Axis& a : s_.axes) {
    if (a.is_bundle()) {
      for (std::size_t k = 0; k < a.set_labels.size(); ++k) use(a.sets[k % a.sets.size()], a.set_labels[k]);
      continue;
    }
    for (const AxisValue& v : a.values) use(a.param_index, v.label);
  }
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (!s_.is_axis[p] && !set_by_bundle_axis(p)) use(p, s_.fixed_labels[p]);
  }
  for (const FigureDecl& f : s_.figures) hardware.insert(hardware.end(), f.roofs.begin(), f.roofs.end());
  const auto used = [](const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  std::vector<std::size_t> kept_hardware;  // full catalog index of each kept entry
  for (std::size_t i = 0; i < catalog_.hardware.size(); ++i) {
    if (!used(hardware, catalog_.hardware[i].id)) continue;
    s_.catalog.hardware.push_back(catalog_.hardware[i]);
    kept_hardware.push_back(i);
  }
  for (ResolvedStudy::HardwareScaled& h : s_.hardware_scaled) {
    std::vector<double> kept;
    for (const std::size_t i : kept_hardware) kept.push_back(h.value_per_hardware[i]);
    h.value_per_hardware = std::move(kept);
  }
  // A value scaled per chip whose kept chips all have factor 1 scales nothing here; its resolved
  // file, whose catalog holds only those chips, would not scale it, so neither does the study.
  std::erase_if(s_.hardware_scaled, [&](const ResolvedStudy::HardwareScaled& h) {
    const FittedParameter* fitted = s_.calibration ? s_.calibration->parameter(s_.solver->name(), params[h.param].name) : nullptr;
    return fitted != nullptr && std::all_of(s_.catalog.hardware.begin(), s_.catalog.hardware.end(), [&](const HardwareSpec& hw) {
             return s_.calibration->hardware_factor(fitted->per_hardware, hw.id) == 1.0;
           });
  });
  for (const CatalogModel& m : catalog_.models) {
    if (used(models, m.id)) s_.catalog.models.push_back(m);
  }
  for (const CatalogAccuracy& a : catalog_.accuracy) {
    if (used(models, a.model)) s_.catalog.accuracy.push_back(a);
  }
  attach_published_accuracy(s_.catalog);
  const auto renumber = [&](std::size_t p, const std::string& label, double& value) {
    if (params[p].kind == ParamKind::hardware) {
      const HardwareSpec* h = s_.catalog.find_hardware(label);
      value = h == nullptr ? -1.0 : static_cast<double>(h - s_.catalog.hardware.data());
    } else if (params[p].kind == ParamKind::model) {
      const CatalogModel* m = s_.catalog.find_model(label);
      value = m == nullptr ? -1.0 : static_cast<double>(m - s_.catalog.models.data());
    }
  };
  for (Axis& a : s_.axes) {
    if (a.is_bundle()) {
      for (std::size_t k = 0; k < a.set_labels.size(); ++k) renumber(a.sets[k % a.sets.size()], a.set_labels[k], a.set_values[k]);
      continue;
    }
    for (AxisValue& v : a.values) renumber(a.param_index, v.label, v.value);
  }
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (!s_.is_axis[p] && !set_by_bundle_axis(p)) renumber(p, s_.fixed_labels[p], s_.fixed_values[p]);
  }
  for (const CatalogBundle& b : catalog_.bundles) {
    const bool used_here = std::any_of(s_.bundles.begin(), s_.bundles.end(), [&](const BundleUse& u) {
      if (u.kind != b.kind) return false;
      if (u.axis < 0) return u.id == b.id;
      const auto& values = s_.axes[static_cast<std::size_t>(u.axis)].values;
      return std::any_of(values.begin(), values.end(), [&](const AxisValue& v) { return v.label == b.id; });
    });
    if (used_here) s_.catalog.bundles.push_back(b);
  }
}

}  // namespace dsx::study_loading

namespace dsx {

using study_loading::StudyLoader;

std::optional<ResolvedStudy> load_study_text(const std::string& file, const std::string& text,
                                             const std::string& catalog_dir, Diagnostics& diags) {
  StudyLoader loader(file, diags);
  return loader.load(text, catalog_dir);
}

std::optional<ResolvedStudy> load_point_study(const std::string& file, const Solver& solver, const YamlNode& inputs,
                                              const YamlNode& at, const Catalog& catalog, std::string name,
                                              Diagnostics& diags, const CalibrationProfile* starts) {
  StudyLoader loader(file, diags);
  return loader.load_point(solver, inputs, at, catalog, std::move(name), starts);
}

std::optional<ResolvedStudy> load_study(const std::string& file, const std::string& catalog_dir,
                                        Diagnostics& diags) {
  const std::optional<std::string> text = read_input_file(file, "study", diags);
  if (!text) return std::nullopt;
  return load_study_text(file, *text, catalog_dir, diags);
}

}  // namespace dsx
